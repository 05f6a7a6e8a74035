"""Clocks in a real browser: a Bullet game where the person does nothing is lost on time and the
page says so without being touched; a page that goes away stops its clock.

The server runs with ``BACKGAMMON_TEST_TIME_CONTROLS`` shortening Bullet to 3 s + 1 s (and Blitz
to 30 s + 1 s) so the test is quick; the real values are tested in
``tests/services/test_timed_games.py``.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from browser_support import (
    ARTIFACTS,
    ServerProcess,
    launched_chromium,
    served,
)

from gametable.clock import TEST_CONTROLS_ENV

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser
Page = sync_api.Page


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "clock-server",
                      env={TEST_CONTROLS_ENV: "bullet=3+1,blitz=30+1"})


@pytest.fixture
def page(browser: Browser, server: ServerProcess) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    settings = {"speed": "instant", "theme": "light"}
    context.add_init_script(
        f"localStorage.setItem('backgammon.settings', {json.dumps(json.dumps(settings))});")
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(server.url + "/")
    yield opened
    assert errors == []
    context.close()


def wait_idle(page: Page) -> None:
    page.wait_for_function(
        "() => document.body.dataset.version && !document.body.classList.contains('busy')")


def start(page: Page, mode: str, clock: str) -> None:
    if not page.locator("#new-game-dialog").is_visible():
        page.click("#new-game-button")
    page.check(f"input[name=mode][value={mode}]")
    if mode == "computer":
        page.select_option("#level-select", "easy")
        page.select_option("#side-select", "white")
    page.select_option("#kind-select", "single")
    page.set_checked("#cube-input", False)
    page.select_option("#clock-select", clock)
    page.click("#new-game-start")
    wait_idle(page)


def game_id(page: Page) -> str:
    fragment: str = page.evaluate("location.hash")
    return fragment.split("game=", 1)[1]


def shown_seconds(page: Page, color: str) -> float:
    """The clock on the page as seconds: "0:02.7" -> 2.7, "1:00" -> 60."""
    text = page.inner_text(f"#clock-{color}")
    found = re.fullmatch(r"(\d+):(\d\d)(?:\.(\d))?", text)
    assert found is not None, text
    minutes, seconds, tenths = found.groups()
    return int(minutes) * 60 + int(seconds) + int(tenths or 0) / 10


def test_a_bullet_game_left_alone_is_lost_on_time(page: Page, server: ServerProcess) -> None:
    start(page, "computer", "bullet")
    assert page.locator("#clocks").is_visible()
    assert page.inner_text("#clock-white") == "0:03.0"
    assert page.inner_text("#clock-black") == "0:03.0"
    assert page.inner_text("#clocks .clock-caption") == "Bullet: 3 s + 1 s a turn"
    page.click("#roll-button")  # the opening roll starts the clock; then nothing

    # The person's clock counts down on the page, in the warning colour (under 10 s).
    page.wait_for_selector('#clocks .clock.running[data-color="white"]', timeout=10_000)
    first = shown_seconds(page, "white")
    page.wait_for_timeout(400)
    second = shown_seconds(page, "white")
    assert 0 < second < first <= 3.0
    assert "warning" in (page.get_attribute('#clocks .clock[data-color="white"]', "class") or "")

    # The page sees the loss by itself: no click after the roll.
    page.wait_for_selector("#result:not([hidden])", timeout=15_000)
    text = page.inner_text("#result-text")
    assert text.startswith("The computer wins a single game on time (1 point)"), text
    assert text.endswith("you ran out of time.")
    assert page.inner_text("#result-title") == "The computer wins"
    assert page.inner_text("#clock-white") == "0:00.0"
    assert "flagged" in (page.get_attribute('#clocks .clock[data-color="white"]', "class") or "")
    state = server.get(f"/api/games/{game_id(page)}")
    assert state["result"]["reason"] == "timeout"
    assert state["result"]["winner"] == "black"
    # Who won the opening roll decides what the person timed out on: their own opening roll
    # (kept, as a resign after rolling keeps it) or a turn not rolled yet.
    texts = [h["text"] for h in state["history"]]
    computer_played = any(h["kind"] == "play" and h["color"] == "black" for h in state["history"])
    timed_out = r"You time out" if computer_played else r"You [1-6]-[1-6]: time out"
    assert re.fullmatch(timed_out, texts[-2]), texts
    assert texts[-1] == "Computer wins 1 point"
    history = page.locator("#move-list li").all_inner_texts()
    assert history[-2:] == texts[-2:]
    page.screenshot(path=str(ARTIFACTS / "clock-lost-on-time.png"), full_page=True)


def test_the_clock_stops_while_no_page_has_the_game_open(page: Page,
                                                          server: ServerProcess) -> None:
    start(page, "pass_and_play", "blitz")
    page.click("#roll-button")
    wait_idle(page)
    page.wait_for_selector('#clocks .clock.running', timeout=5_000)
    ident = game_id(page)
    state: dict[str, Any] = server.get(f"/api/games/{ident}")
    mover = state["turn"]
    left_at_close = state["clock"]["remaining"][mover]
    page.goto(server.url + "/health")  # the game page goes away (pagehide tells the server)
    time.sleep(4)
    check = server.post(f"/api/games/{ident}/clock", {"page": "test-script"})
    left = check["clock"]["remaining"][mover]
    # Only the moment of leaving is charged, not the 4 s without a page.
    assert left_at_close - 1.0 < left <= left_at_close
    assert check["version"] == state["version"]


def test_the_computers_clock_counts_down_while_its_turn_is_shown(
    page: Page, server: ServerProcess
) -> None:
    # a blitz game (30 s + 1 s here) whose opening roll the computer won, shown at normal speed
    for _ in range(40):
        state: dict[str, Any] = server.post(
            "/api/games", {"mode": "computer", "level": "easy", "side": "white", "cube": False,
                           "time_control": "blitz"})
        state = server.post(f"/api/games/{state['id']}/roll")
        if state["turn"] == "black":
            break
    else:
        raise AssertionError("the computer never won the opening roll")
    page.add_init_script(
        "localStorage.setItem('backgammon.settings', JSON.stringify({speed: 'normal'}));"
        "window.__clock = [];"
        "new MutationObserver(() => { const n = document.getElementById('clock-black');"
        " if (!n) return; const busy = document.body.classList.contains('busy');"
        " const last = window.__clock[window.__clock.length - 1];"
        " if (!last || last[0] !== n.textContent || last[1] !== busy)"
        " window.__clock.push([n.textContent, busy]); })"
        ".observe(document, {subtree: true, childList: true, characterData: true,"
        " attributes: true});")
    page.goto(f"{server.url}/health")  # then a new document: the game first shown with the recorder
    page.goto(f"{server.url}/#game={state['id']}")
    wait_idle(page)
    after: dict[str, Any] = server.get(f"/api/games/{state['id']}")
    assert after["turn"] == "white" and len(after["history"]) == 1

    def seconds(text: str) -> float:
        minutes, rest = text.split(":")
        return int(minutes) * 60 + float(rest)

    during = [seconds(text) for text, busy in page.evaluate("window.__clock")
              if busy and text]
    assert during, "the computer's clock was not shown during its turn"
    assert during[0] == 30.0
    # it counts down while the computer's turn is shown, as the person's does in theirs
    assert min(during) < during[0], during
    assert all(b <= a for a, b in itertools.pairwise(during)), during
    # ... and the state after the turn has the server's figure (increment included)
    assert shown_seconds(page, "black") == pytest.approx(
        after["clock"]["remaining"]["black"], abs=1.0)
