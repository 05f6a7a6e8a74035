"""The layers of DESIGN.md: the engine imports nothing outside the standard library."""

from __future__ import annotations

import subprocess
import sys

THIRD_PARTY = ("numpy", "fastapi", "starlette", "uvicorn", "httpx", "rich", "pydantic")


def _modules_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    return set(out.split())


def test_core_loads_no_third_party_module() -> None:
    loaded = _modules_after("import backgammon.core, backgammon.core.ids, backgammon.core.text")
    roots = {name.split(".")[0] for name in loaded}
    assert not roots & set(THIRD_PARTY)
    inside = {name for name in loaded if name.startswith("backgammon.")}
    assert all(name.startswith("backgammon.core") for name in inside), inside


def test_top_level_package_is_the_core_api() -> None:
    loaded = _modules_after("import backgammon")
    assert not {name.split(".")[0] for name in loaded} & set(THIRD_PARTY)


def test_core_sources_import_only_core() -> None:
    from pathlib import Path

    import backgammon.core

    root = Path(backgammon.core.__file__).parent
    for source in root.glob("*.py"):
        for line in source.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if stripped.startswith(("import backgammon", "from backgammon")):
                assert stripped.split()[1].startswith("backgammon.core"), (source.name, line)
