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
    sources = list((PACKAGE / "services").rglob("*.py"))
    assert PACKAGE / "services" / "room_migration.py" in sources
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


def test_backgammons_old_online_door_is_gone() -> None:
    """Online play is the table's door's (``gametable.online``): backgammon's old door, its
    protocol and its store are not written a second time beside it (issue 33). What is left
    of it: the frozen reader of its stored rooms and their migration, and
    ``POST /api/online/moved``."""
    for gone in ("services/online", "server/online", "services/room_store.py"):
        assert not (PACKAGE / gone).exists(), gone
    for source in PACKAGE.rglob("*.py"):
        for name in _imports(source):
            assert not name.startswith(("backgammon.services.online",
                                        "backgammon.server.online",
                                        "backgammon.services.room_store")), (source.name, name)
