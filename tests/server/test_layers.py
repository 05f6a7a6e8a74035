"""The layers around the web game (DESIGN.md): nothing imports the server; the services import
no web framework; ``backgammon moves`` and other subcommands load no web framework either."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import backgammon

PACKAGE = Path(backgammon.__file__).parent
WEB = ("fastapi", "starlette", "uvicorn", "pydantic")


def _imports(path: Path) -> list[str]:
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        words = line.strip().split()
        if len(words) >= 2 and words[0] in ("import", "from"):
            found.append(words[1])
    return found


def test_nothing_outside_the_server_imports_it() -> None:
    for source in PACKAGE.rglob("*.py"):
        relative = source.relative_to(PACKAGE)
        if relative.parts[0] in ("server", "cli"):
            continue
        for name in _imports(source):
            assert not name.startswith("backgammon.server"), (str(relative), name)


def test_services_import_no_web_framework() -> None:
    sources = list((PACKAGE / "services").rglob("*.py"))  # online/ (the rooms) included
    assert PACKAGE / "services" / "online" / "rooms.py" in sources
    for source in sources:
        for name in _imports(source):
            assert name.split(".")[0] not in WEB, (source.name, name)
            assert not name.startswith("backgammon.server"), (source.name, name)


def test_the_command_line_loads_the_web_framework_only_to_serve() -> None:
    code = (
        "import sys; from backgammon.cli import main; main(['moves', '4HPwATDgc/ABMA', '31']);"
        f" print(sorted({{m.split('.')[0] for m in sys.modules}} & set({WEB!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_the_online_room_logic_lives_in_the_services() -> None:
    """server/online/ is transport only: its modules are the package and the routes."""
    names = sorted(p.name for p in (PACKAGE / "server" / "online").glob("*.py"))
    assert names == ["__init__.py", "routes.py"]
    import backgammon.services.online.rooms as rooms

    assert Path(rooms.__file__).parent == PACKAGE / "services" / "online"
