"""The layers of DESIGN.md: the engine imports nothing outside the standard library."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

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


# ---------------------------------------------------------------- American checkers

#: The checkers engine: the top-level modules of the package (its AI, PDN and CLI sit above).
CHECKERS_ENGINE = ("errors", "squares", "position", "moves", "game", "perft", "ballots")


def test_the_checkers_engine_loads_only_the_standard_library_and_itself() -> None:
    modules = ", ".join(f"checkers.{name}" for name in CHECKERS_ENGINE)
    loaded = _modules_after(f"import checkers, {modules}")
    assert not {name.split(".")[0] for name in loaded} & set(THIRD_PARTY)
    assert not any(name.split(".")[0] == "backgammon" for name in loaded)
    inside = {name for name in loaded if name.startswith("checkers.")}
    assert inside == {f"checkers.{name}" for name in CHECKERS_ENGINE}, inside


def _imports_of(path: Path) -> list[str]:
    """The modules a source file imports (``import x`` and ``from x import``), top level
    or not."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append(node.module)
    return found


def test_checkers_never_imports_backgammon_and_backgammon_only_composes_checkers() -> None:
    import backgammon
    import checkers

    for source in Path(checkers.__file__).parent.rglob("*.py"):
        assert not [m for m in _imports_of(source) if m.split(".")[0] == "backgammon"], source
    root = Path(backgammon.__file__).parent
    composition = root / "server" / "app.py"  # the server composes the games it plays
    for source in root.rglob("*.py"):
        games = [m for m in _imports_of(source) if m.split(".")[0] == "checkers"]
        if source == composition:
            assert games == ["checkers.adapter"], games
        else:
            assert not games, source


def test_each_checkers_layer_imports_only_the_layers_below() -> None:
    """The engine imports the engine; PDN imports the engine; the AI the engine and itself;
    none of them a third-party package. The command line (``cli/``) sits on top."""
    import checkers

    root = Path(checkers.__file__).parent
    engine = {"checkers", *(f"checkers.{n}" for n in CHECKERS_ENGINE)}
    for source in root.rglob("*.py"):
        top = source.relative_to(root).parts[0].removesuffix(".py")
        if top in ("cli", "__main__", "adapter"):
            continue  # the command line and the table's plug-in sit on top of every layer
        assert top in {*CHECKERS_ENGINE, "__init__", "pdn", "ai"}, f"unplaced module {source}"
        imported = _imports_of(source)
        ours = [m for m in imported if m.split(".")[0] == "checkers"]
        bad = [
            m
            for m in ours
            if m not in engine and not (top == "ai" and m.split(".")[:2] == ["checkers", "ai"])
        ]
        assert not bad, (str(source), bad)
        third = [m for m in imported if m.split(".")[0] in THIRD_PARTY]
        assert not third, (str(source), third)


# ---------------------------------------------------------------- the table every game shares


def test_the_table_imports_no_game() -> None:
    import gametable

    root = Path(gametable.__file__).parent
    for source in root.rglob("*.py"):
        games = [m for m in _imports_of(source) if m.split(".")[0] in ("backgammon", "checkers")]
        assert not games, (str(source), games)
    loaded = _modules_after("import gametable, gametable.table, gametable.clock")
    assert not {name.split(".")[0] for name in loaded} & {"backgammon", "checkers", *THIRD_PARTY}


def test_the_checkers_engine_does_not_load_the_table() -> None:
    loaded = _modules_after("import checkers, checkers.pdn, checkers.ai")
    assert not any(name.split(".")[0] == "gametable" for name in loaded)
