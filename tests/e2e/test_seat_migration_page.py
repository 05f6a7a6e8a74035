"""An old-door seat reaches the same seat at the shared door, in a real browser: a room of
backgammon's own door, mid-match, is in the database when ``backgammon serve`` starts (so the
server moves it to the table's door, ``services/room_migration.py``); the host's browser holds
its old seat as ``online.js`` kept it (``backgammon.online.CODE.host``) and opens the old
address ``/#online=CODE``. The page (``js/seat_migration.js``, then ``pickDoor``) carries the
seat to ``room_client.js``'s ``gametable.seats`` under the new code, forgets the old one,
rewrites the address and plays at the shared door: connected, as White, the position and the
cube the old room had. Screenshot: ``test-artifacts/e2e/seat-migration.png``."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_support import ARTIFACTS, ServerProcess, console_errors, launched_chromium

from backgammon.services.online.persist import PersistentRooms
from backgammon.services.online.rooms import OnlineSettings
from backgammon.services.room_migration import table_code
from backgammon.services.room_store import RoomStore as OldRoomStore
from fake_clock import FakeNow

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser

SETTINGS = {"speed": "instant", "theme": "light"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


def _old_room(path: Path) -> tuple[str, str]:
    """An old-door room with both seats taken, its opening round thrown (the game on):
    ``(code, the host's token)``."""
    from backgammon.core.dice import commitment
    from backgammon.core.types import BLACK, WHITE
    from backgammon.services.online.protocol import parse_message
    from backgammon.services.online.rooms import Seat

    now = FakeNow(1000.0)
    rooms = PersistentRooms(OldRoomStore(path), now=now)
    room, host = rooms.create(OnlineSettings(cube=True, match_length=3), "Ann", None)
    rooms.join(room, "Bob")
    secrets = {WHITE: bytes([1]) * 32, BLACK: bytes([2]) * 32}
    number = room.next_round
    for kind in ("commit", "reveal"):
        for color in (WHITE, BLACK):
            seat = Seat.HOST if color is WHITE else Seat.GUEST
            fields = ({"commitment": commitment(secrets[color])} if kind == "commit"
                      else {"secret": secrets[color].hex()})
            text = json.dumps({"type": kind, "round": number, **fields})
            rooms.handle(room, seat, parse_message(text), text)
    rooms.store.close()
    return room.code, host


def test_an_old_seat_opens_the_same_seat_at_the_shared_door(
        browser: Browser, tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    code, token = _old_room(db)
    new = table_code(code)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    server = ServerProcess(db, ARTIFACTS / "seat-migration.log")
    server.start()  # the room moves to the table's door here
    try:
        assert OldRoomStore(db).codes() == []
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        kept = json.dumps(json.dumps({"token": token, "seen": int(time.time() * 1000)}))
        settings = json.dumps(json.dumps(SETTINGS))
        context.add_init_script(
            f"if (!sessionStorage.getItem('seeded')) {{ sessionStorage.setItem('seeded', '1');"
            f" localStorage.setItem('backgammon.settings', {settings});"
            f" localStorage.setItem('backgammon.online.{code}.host', {kept}); }}")
        page = context.new_page()
        errors = console_errors(page)
        page.goto(f"{server.url}/#online={code}")
        page.wait_for_function("() => document.body.dataset.online === 'connected'"
                               " || document.body.dataset.online === 'playing'"
                               " || document.body.dataset.onlineYou === 'white'",
                               timeout=30_000)
        page.wait_for_function("() => document.body.dataset.onlineYou === 'white'",
                               timeout=30_000)
        assert page.evaluate("() => document.body.dataset.onlineDoor") == "tables"
        assert page.evaluate("() => location.hash") == f"#online={new}"
        seats = json.loads(page.evaluate("() => localStorage.getItem('gametable.seats')"))
        assert seats[new]["token"] == token and seats[new]["game"] == "backgammon"
        assert page.evaluate(f"() => localStorage.getItem('backgammon.online.{code}.host')") \
            is None
        checkers = page.eval_on_selector_all("#board .checker", "ns => ns.length")
        assert checkers == 30
        page.screenshot(path=str(ARTIFACTS / "seat-migration.png"))
        assert errors == []
        context.close()
    finally:
        server.stop()
