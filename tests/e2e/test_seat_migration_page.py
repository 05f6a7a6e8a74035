"""An old-door seat reaches the same seat at the shared door, in a real browser: a room of
backgammon's old online door, mid-match, is in the database when ``backgammon serve`` starts
(the old door's own rows, ``tests/data/old_rooms``: the server moves it to the table's door,
``services/room_migration.py``); the host's browser holds its old seat as the old page kept it
(``backgammon.online.CODE.host``, written here directly: the old page is gone) and opens the
old address ``/#online=CODE``. The page (``js/seat_migration.js``: ``POST /api/online/moved``)
carries the seat to ``room_client.js``'s ``gametable.seats`` under the new code, forgets the
old one, rewrites the address and plays at the shared door: connected, as White, the position
and the cube the old room had. Screenshot: ``test-artifacts/e2e/seat-migration.png``."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import ARTIFACTS, ServerProcess, console_errors, launched_chromium

from backgammon.services.room_migration import table_code

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser

SETTINGS = {"speed": "instant", "theme": "light"}
FIXTURE = Path(__file__).resolve().parents[1] / "data" / "old_rooms"
ROOMS: dict[str, dict[str, Any]] = json.loads((FIXTURE / "old_rooms.json").read_text())


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


def _old_room(path: Path, name: str) -> dict[str, Any]:
    """The old door's database at ``path`` holding only old room ``name`` (its rows as the
    old door wrote them); the room's entry in ``old_rooms.json``."""
    room = ROOMS[name]
    shutil.copy(FIXTURE / "old_rooms.sqlite3", path)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("DELETE FROM online_actions WHERE code != ?", (room["code"],))
        db.execute("DELETE FROM online_rooms WHERE code != ?", (room["code"],))
        # written just now: not past the old door's expiry when the server starts
        db.execute("UPDATE online_rooms SET updated_at = ?", (time.time(),))
        db.execute("UPDATE online_actions SET wall = ?", (time.time(),))
    return room


def _old_codes(path: Path) -> list[str]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return [str(row[0]) for row in db.execute("SELECT code FROM online_rooms")]


def test_an_old_seat_opens_the_same_seat_at_the_shared_door(
        browser: Browser, tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    room = _old_room(db, "mid_match")
    code, token = room["code"], room["host_token"]
    new = table_code(code)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    server = ServerProcess(db, ARTIFACTS / "seat-migration.log")
    server.start()  # the room moves to the table's door here
    try:
        assert _old_codes(db) == []
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
        page.wait_for_function("() => document.body.dataset.onlineYou === 'white'"
                               " && document.body.dataset.onlineIdle === '1'", timeout=30_000)
        assert page.evaluate("() => location.hash") == f"#online={new}"
        seats = json.loads(page.evaluate("() => localStorage.getItem('gametable.seats')"))
        assert seats[new]["token"] == token and seats[new]["game"] == "backgammon"
        assert page.evaluate(f"() => localStorage.getItem('backgammon.online.{code}.host')") \
            is None
        assert page.inner_text("#online-code").strip() == new
        assert page.inner_text("#online-opponent").strip() == (
            "Bob (black) is not connected. Their clock keeps running.")  # (a blitz match)
        assert page.inner_text("#score-caption").strip().startswith("Match to 3 points")
        checkers = page.eval_on_selector_all("#board .checker", "ns => ns.length")
        assert checkers == 30
        assert page.get_attribute("#board [data-owner]", "data-value") == "2"  # taken at 2
        page.screenshot(path=str(ARTIFACTS / "seat-migration.png"))
        assert errors == []
        context.close()
    finally:
        server.stop()
