"""The clock display while the server cannot be reached, in a real browser against
``backgammon serve``.

The local door's rule (``gametable/presence.py``): a person's clock is charged only up to
``PRESENCE_SECONDS`` (10 s) after the server last heard from a page, then paused; the next
request resumes it. So while the page's heartbeat cannot reach the server, the clock box says
"Connection lost: reconnecting…" (the one place on the page that says so) and the running clock
stops where the server stops it (``js/clock.js``); once the server is reached again the display
takes the server's figures with no jump. The page's constant is checked against the server's.

An online room's rule (``gametable/room.py``): the side to act is charged whether its page is
connected or not. While a page's WebSocket is cut, its room panel says "Connection lost:
reconnecting…" (once on the page: the clock box says only that the clock runs on at the server),
the heading says "Reconnecting…", and its clock runs on as the connected opponent's page shows
it; reconnected, it shows the server's figures.

Screenshots go to ``test-artifacts/e2e/clock-offline-*.png``.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from browser_support import ARTIFACTS, ServerProcess, launched_chromium, served
from test_online_tables_backgammon import SETTINGS, Player, mover, settle
from test_online_tables_network import create, join

from gametable.clock import TEST_CONTROLS_ENV
from gametable.presence import HEARTBEAT_SECONDS, PRESENCE_SECONDS

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser
Page = sync_api.Page

LOST = ("Connection lost: reconnecting… The server stops a clock 10 s after it last hears "
        "from this page, so the clock shown stops there too.")
ROOM_LOST = "Connection lost: reconnecting…"  # an online room's panel (room_client.js)
ROOM_CLOCK = ("While this page is cut off, the clock of the side to play runs on at the server"
              " (though not while the server itself is down).")


def times_shown(page: Page, words: str) -> int:
    """How many times ``words`` are in the text the page shows (hidden boxes not counted)."""
    count: int = page.evaluate("(w) => document.body.innerText.split(w).length - 1", words)
    return count


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "clock-offline-server",
                      env={TEST_CONTROLS_ENV: "blitz=90+1"})


@pytest.fixture
def context(browser: Browser) -> Iterator[Any]:
    opened = browser.new_context(viewport={"width": 1280, "height": 860})
    settings = {"speed": "instant", "theme": "light"}
    opened.add_init_script(
        f"localStorage.setItem('backgammon.settings', {json.dumps(json.dumps(settings))});")
    yield opened
    opened.close()


def shown_seconds(page: Page, color: str) -> float:
    """The seconds the clock on the page shows, in tenths (its row's ``data-seconds``); the
    time written, "1:23", agrees with it."""
    row = f'#clocks .clock[data-color="{color}"]'
    seconds = float(page.get_attribute(row, "data-seconds") or "nan")
    text = page.inner_text(f"#clock-{color}")
    found = re.fullmatch(r"(\d+):(\d\d)(?:\.\d)?", text)
    assert found is not None, text
    assert int(found[1]) * 60 + int(found[2]) in (int(seconds), int(seconds) + 1), (text, seconds)
    return seconds


def test_out_of_reach_the_clock_stops_where_the_server_stops_it(
        context: Any, server: ServerProcess) -> None:
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server.url + "/")
    # the page's figure is the server's (gametable/presence.py)
    assert page.evaluate("import('/static/js/clock.js').then((m) => m.PRESENCE_SECONDS)") == (
        PRESENCE_SECONDS)
    page.wait_for_selector("#new-game-dialog[open]")
    page.check("input[name=mode][value=pass_and_play]")
    page.select_option("#kind-select", "single")
    page.set_checked("#cube-input", False)
    page.select_option("#clock-select", "blitz")
    page.click("#new-game-start")
    page.wait_for_function("() => document.body.dataset.version")
    page.click("#roll-button")
    page.wait_for_selector("#clocks .clock.running", timeout=10_000)
    mover = page.get_attribute("#clocks .clock.running", "data-color")
    assert mover in ("white", "black")
    ident = page.evaluate("location.hash").split("game=", 1)[1]
    assert not page.locator("#clocks .clock-offline").is_visible()

    # The server goes out of reach: every request of the page fails on its way.
    at_cut = shown_seconds(page, mover)
    cut = time.monotonic()
    context.set_offline(True)
    page.wait_for_selector('#clocks[data-connection="lost"]',
                           timeout=int((HEARTBEAT_SECONDS + 2) * 1000))
    assert page.inner_text("#clocks .clock-offline") == LOST
    # past the server's limit: the clock shown is held, no further than the server charges
    # (it heard the page at most one heartbeat before the cut)
    page.wait_for_selector(f'#clocks .clock.held[data-color="{mover}"]',
                           timeout=int((PRESENCE_SECONDS + 2) * 1000))
    page.wait_for_timeout(1500)
    held = shown_seconds(page, mover)
    page.wait_for_timeout(1500)
    assert shown_seconds(page, mover) == held  # it does not run on
    assert time.monotonic() - cut > PRESENCE_SECONDS + 2
    assert at_cut - PRESENCE_SECONDS - 0.2 <= held <= at_cut - PRESENCE_SECONDS + HEARTBEAT_SECONDS
    assert page.inner_text("#clocks .clock-offline") == LOST
    assert times_shown(page, "Connection lost") == 1  # the clock box is the one place
    page.screenshot(path=str(ARTIFACTS / "clock-offline-1-lost.png"), full_page=True,
                    animations="disabled")

    # Reached again: the page says nothing more, and shows the server's figure, with no jump.
    context.set_offline(False)
    page.wait_for_selector('#clocks:not([data-connection="lost"]):not([data-connection="held"])',
                           timeout=5_000)
    assert not page.locator("#clocks .clock-offline").is_visible()
    back = shown_seconds(page, mover)
    assert held - 1.0 <= back <= held
    answer = server.post(f"/api/games/{ident}/clock", {"page": "test-script"})
    shown = shown_seconds(page, mover)
    assert answer["clock"]["running"] == mover
    assert abs(answer["clock"]["remaining"][mover] - shown) < 0.5, (answer["clock"], shown)
    page.screenshot(path=str(ARTIFACTS / "clock-offline-2-back.png"), full_page=True,
                    animations="disabled")
    assert [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e] == []


def test_online_a_cut_connection_says_so_and_the_clock_runs_as_the_room_charges(
        browser: Browser, server: ServerProcess) -> None:
    cut = {"on": False}
    links: dict[str, Any] = {}

    def route(ws: Any) -> None:
        """Between Bob's page and the server: while cut, no connection gets through."""
        if cut["on"]:
            ws.close(code=1001, reason="network gone")
            return
        upstream = ws.connect_to_server()
        links.update(page=ws, server=upstream)
        ws.on_message(upstream.send)
        upstream.on_message(ws.send)

    players: list[Player] = []
    contexts: list[Any] = []
    for routed in (False, True):
        opened = browser.new_context(viewport={"width": 1280, "height": 900})
        opened.add_init_script(
            f"localStorage.setItem('backgammon.settings', {json.dumps(json.dumps(SETTINGS))});")
        contexts.append(opened)
        page = opened.new_page()
        if routed:
            page.route_web_socket("**/ws/rooms/*", route)
        players.append(Player(page, server.url))
    alice, bob = players
    try:
        alice.page.goto(server.url + "/")
        link = create(alice, clock="blitz")
        join(bob, link)
        settle(alice, bob)
        on_move, _ = mover(alice, bob)
        side = on_move.color
        row = f'#online-clocks .clock[data-color="{side}"]'
        alice.page.wait_for_selector(f"{row}.running")

        def seconds(player: Player) -> float:
            return float(player.page.get_attribute(row, "data-seconds") or "nan")

        # The network drops Bob's connection and keeps it down.
        cut["on"] = True
        links["server"].close()
        links["page"].close(code=1001, reason="network gone")
        bob.page.wait_for_function("() => document.body.dataset.online === 'reconnecting'")
        notice = bob.page.locator("#online-clocks .clock-offline")
        assert notice.is_visible()
        # said once, in the room panel; the clock box says what becomes of the clock
        assert bob.page.inner_text("#online-connection") == ROOM_LOST
        assert notice.inner_text() == ROOM_CLOCK
        assert times_shown(bob.page, "Connection lost") == 1
        assert times_shown(bob.page, "reconnecting…") == 1
        # the heading: the page had the room, it is not connecting for the first time
        assert bob.page.inner_text("#status") == "Reconnecting…"
        before = seconds(bob)
        bob.page.wait_for_timeout(3000)
        # the room charges the side to act all the while: Bob's page counts as Alice's shows
        assert seconds(bob) < before - 2
        assert abs(seconds(bob) - seconds(alice)) < 0.5
        bob.page.screenshot(path=str(ARTIFACTS / "clock-offline-3-online-lost.png"),
                            full_page=True, animations="disabled")
        cut["on"] = False
        bob.page.wait_for_function("() => document.body.dataset.online === 'open'",
                                   timeout=15_000)
        settle(alice, bob)
        assert not notice.is_visible()
        assert times_shown(bob.page, "Connection lost") == 0
        assert bob.page.inner_text("#status") != "Reconnecting…"
        assert abs(seconds(bob) - seconds(alice)) < 0.5
        for player in players:
            assert player.errors == [], player.errors
    finally:
        for opened in contexts:
            opened.close()
