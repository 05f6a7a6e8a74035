"""The checkers page (``/checkers``) in a real browser, at the shared table's door.

A game against the computer by clicks; a multi-jump built hop by hop by clicks (pass & play)
and by drag (against the computer, the board turned round) while a capture is forced elsewhere;
a refused move's words; a reload that picks the game up with its clocks; a timed game's clock
stopped while the page is closed (the page's heartbeat, gametable/presence.py); a Bullet game
lost on time; draw offers, resignation and a rematch; PDN export; a phone in the dark theme.
Every page is watched for console errors.

The server runs with ``BACKGAMMON_TEST_TIME_CONTROLS`` shortening Bullet to 3 s + 1 s and Blitz
to 30 s + 1 s (the table's clocks take the server's time controls).
"""

from __future__ import annotations

import json
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser_support import ARTIFACTS, ServerProcess, launched_chromium

from backgammon.server.middleware import PAGE_CSP
from gametable.clock import TEST_CONTROLS_ENV

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser
BrowserContext = sync_api.BrowserContext
Page = sync_api.Page

#: Black to move must capture: 2x11x18x25 or 2x11x18x27 (the jump branches on 18), or 17x26;
#: the men on 4 and 6 cannot move.
FORCED = "B:W7,9,13,15,22,23:B2,4,6,17"
#: Kings of both sides (for the crowns), Black to move with a jump.
KINGS = "B:WK10,K27,21,22,30:BK14,K3,6,12,19"

DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    folder = tmp_path_factory.mktemp("checkers-page")
    process = ServerProcess(folder / "games.sqlite3", ARTIFACTS / "checkers-server.log")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(TEST_CONTROLS_ENV, "bullet=3+1,blitz=30+1")
        process.start()
    yield process
    process.stop()


Opened = tuple[BrowserContext, Page, list[str]]


@pytest.fixture
def open_page(browser: Browser, server: ServerProcess) -> Iterator[Callable[..., Opened]]:
    """Opens /checkers (with ``query``) in a new context; returns it, its page and the list
    of the console errors the page logs (empty at the end of the test)."""
    contexts: list[tuple[BrowserContext, list[str]]] = []

    def opener(query: str = "", viewport: dict[str, int] | None = None,
               color_scheme: str = "light") -> Opened:
        context = browser.new_context(viewport=viewport or DESKTOP, color_scheme=color_scheme)
        errors: list[str] = []
        contexts.append((context, errors))
        page = context.new_page()
        watch(page, errors)
        page.goto(server.url + "/checkers" + query)
        page.wait_for_function("() => document.body.dataset.ready === '1'")
        return context, page, errors

    yield opener
    for context, errors in contexts:
        assert errors == []
        context.close()


def watch(page: Page, errors: list[str]) -> None:
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))


# -------------------------------------------------------------------------------- helpers


def wait_idle(page: Page) -> None:
    page.wait_for_function(
        "() => document.body.dataset.ready === '1' && document.body.dataset.state === 'idle'")


def start(page: Page, mode: str = "computer", level: str = "easy", side: str = "black",
          clock: str = "none", fen: str | None = None) -> None:
    """Start a game from the New game dialog."""
    if not page.locator("#new-game-dialog").is_visible():
        page.click("#new-game-button")
    page.check(f"input[name=mode][value={mode}]")
    if mode == "computer":
        page.select_option("#level-select", level)
        page.select_option("#side-select", side)
    page.select_option("#clock-select", clock)
    if fen is not None:
        if not page.locator("#fen-input").is_visible():
            page.click("#fen-details summary")
        page.fill("#fen-input", fen)
    page.click("#new-game-start")
    page.wait_for_function("() => !document.querySelector('#new-game-dialog').open")
    wait_idle(page)


def table_of(page: Page) -> dict[str, Any]:
    stored: dict[str, Any] = json.loads(
        page.evaluate("() => localStorage.getItem('checkers.table')"))
    return stored


def api(server: ServerProcess, table: dict[str, Any], path: str = "",
        side: str | None = None) -> Any:
    query = f"?side={urllib.parse.quote(side)}" if side else ""
    request = urllib.request.Request(
        f"{server.url}/api/tables/{table['id']}{path}{query}",
        headers={"X-Table-Token": table["token"]})
    with urllib.request.urlopen(request, timeout=10) as response:
        body = response.read().decode()
    return body if path.startswith("/export") else json.loads(body)["view"]


def square(page: Page, number: int) -> Any:
    return page.locator(f'.ck-sq[data-square="{number}"]')


def click_path(page: Page, path: list[int]) -> None:
    """Pick up the piece on path[0] and put it down on each landing square in turn."""
    for number in path:
        square(page, number).click()


def drag(page: Page, a: int, b: int) -> None:
    box_a = square(page, a).bounding_box()
    box_b = square(page, b).bounding_box()
    assert box_a is not None and box_b is not None
    page.mouse.move(box_a["x"] + box_a["width"] / 2, box_a["y"] + box_a["height"] / 2)
    page.mouse.down()
    page.mouse.move(box_b["x"] + box_b["width"] / 2, box_b["y"] + box_b["height"] / 2, steps=8)
    page.mouse.up()


def board_squares(page: Page, selector: str) -> list[int]:
    found: list[int] = page.eval_on_selector_all(
        f"#board {selector}", "nodes => nodes.map(n => Number(n.dataset.square))")
    return sorted(found)


def pieces_on_board(page: Page) -> dict[str, str]:
    found: dict[str, str] = page.eval_on_selector_all(
        "#board .ck-piece",
        "nodes => Object.fromEntries(nodes.map(n => [n.dataset.square, n.dataset.code]))")
    return found


def moves_shown(page: Page) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        "#move-list .ck-mv", "nodes => nodes.map(n => n.textContent).filter(t => t && t !== '…')")
    return found


def picture(page: Page, name: str) -> None:
    """A screenshot for a person to look at, once the pieces have stopped sliding."""
    page.wait_for_timeout(450)
    page.screenshot(path=str(ARTIFACTS / name))


def clock_seconds(page: Page, side: str) -> float:
    return float(page.get_attribute(f'#clocks .clock[data-color="{side}"]', "data-seconds") or -1)


# -------------------------------------------------------------------------------- the tests


def test_the_page_is_served_with_the_house_headers_and_linked(server: ServerProcess) -> None:
    with urllib.request.urlopen(server.url + "/checkers", timeout=10) as response:
        html = response.read().decode()
        headers = response.headers
    assert headers["content-security-policy"] == PAGE_CSP
    assert headers["x-frame-options"] == "DENY"
    assert headers["cache-control"] == "no-cache"
    assert '<script type="module" src="/static/js/checkers_main.js"></script>' in html
    assert 'href="/?game=backgammon"' in html and "style=" not in html  # no inline style (CSP)
    with urllib.request.urlopen(server.url + "/", timeout=10) as response:
        assert 'id="checkers-link" href="/checkers"' in response.read().decode()


def test_a_game_against_the_computer_by_clicks(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page()
    assert page.locator("#new-game-dialog").is_visible()  # nothing kept yet: the dialog
    start(page, mode="computer", level="easy", side="black")
    table = table_of(page)
    assert table["mode"] == "computer" and table["side"] == "black"
    # The board is turned round for Black: square 1 is at the bottom, 32 at the top.
    one, thirty_two = square(page, 1).bounding_box(), square(page, 32).bounding_box()
    assert one is not None and thirty_two is not None and one["y"] > thirty_two["y"]
    assert len(page.locator("#board .ck-sq").all()) == 64
    assert len(page.locator("#board .ck-piece").all()) == 24
    for turn in range(4):
        view = api(server, table)
        state = view["state"]
        assert state["turn"] == "black" and state["can"]["move"]
        assert page.get_attribute("#board", "data-fen") == state["fen"]
        # The pieces that can move are marked, and only those.
        assert board_squares(page, ".ck-piece.movable") == sorted({p[0] for p in state["legal"]})
        path = state["legal"][turn % len(state["legal"])]
        click_path(page, path)
        wait_idle(page)
        after = api(server, table)["state"]
        assert after["moves"][-2] == ("x" if state["capture_forced"] else "-").join(
            map(str, path))
        assert len(after["moves"]) == 2 * (turn + 1)  # the computer answered
        assert page.get_attribute("#board", "data-fen") == after["fen"]
        assert moves_shown(page) == after["moves"]
        # The computer's move is highlighted: its path and what it captured.
        last = after["last_move"]
        assert board_squares(page, ".ck-sq.last-path") == sorted(last["path"])
        assert board_squares(page, ".ck-sq.last-captured") == sorted(last["captures"])
        assert pieces_on_board(page) == after["board"]
    assert page.inner_text("#status") == "Your move (Black)."
    # the table names the computer without its level (a name cut short read "Compute…"),
    # whole in the row's title; and the name fits its cell
    assert page.inner_text("#pieces-white .name") == "Computer"
    assert page.get_attribute("#pieces-white th", "title") == "Computer (Easy)"
    assert page.evaluate("() => { const th = document.querySelector('#pieces-white th');"
                         " return th.scrollWidth <= th.clientWidth; }")
    picture(page, "checkers-computer.png")


def test_a_multi_jump_by_clicks_with_a_capture_forced_elsewhere(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, errors = open_page(f"?fen={urllib.parse.quote(FORCED)}")
    # ?fen= opens the New game dialog with the position filled in.
    assert page.locator("#new-game-dialog").is_visible()
    assert page.input_value("#fen-input") == FORCED
    start(page, mode="pass_and_play")
    assert "fen=" not in page.url  # a reload picks the game up, not the position again
    table = table_of(page)
    assert page.locator("#capture-note").is_visible()
    assert "capture is mandatory" in page.inner_text("#capture-note")
    assert board_squares(page, ".ck-piece.movable") == [2, 17]
    assert page.inner_text("#status") == "Black to move."

    # A man that cannot move, put down on an open square: the server's words.
    click_path(page, [4, 8])
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == (
        "4-8: a capture is available: 2x11x18x25 or 2x11x18x27 or 17x26 must be played")
    assert api(server, table)["state"]["moves"] == []
    # (the refusal of an illegal move is a 422, as at every door, which the browser logs: the
    # only error this page may log)
    assert errors == ["Failed to load resource: the server responded with a status of 422 "
                      "(Unprocessable Entity)"]
    errors.clear()

    # The jump, hop by hop: each landing shown, the captured pieces marked.
    square(page, 2).click()
    assert board_squares(page, ".ck-sq.target") == [11]
    square(page, 11).click()
    assert page.get_attribute("#board", "data-chain") == "2-11"
    assert board_squares(page, ".ck-sq.landing") == [11]
    assert board_squares(page, ".ck-piece.taken") == [7]
    assert board_squares(page, ".ck-sq.target") == [18]
    square(page, 18).click()
    assert board_squares(page, ".ck-sq.target") == [25, 27]
    assert board_squares(page, ".ck-piece.taken") == [7, 15]
    assert "Jumping 2x11x18: land on 25 or 27 next" in page.inner_text("#chain-note")
    # Undo takes a hop back; nothing was sent.
    page.click("#undo-button")
    assert page.get_attribute("#board", "data-chain") == "2-11"
    assert board_squares(page, ".ck-piece.taken") == [7]
    square(page, 18).click()
    picture(page, "checkers-chain.png")
    square(page, 27).click()
    wait_idle(page)
    state = api(server, table, side="white")["state"]
    assert state["moves"] == ["2x11x18x27"]
    assert state["last_move"] == {"path": [2, 11, 18, 27], "captures": [7, 15, 23]}
    assert board_squares(page, ".ck-sq.last-captured") == [7, 15, 23]
    assert moves_shown(page) == ["2x11x18x27"]
    # Pass & play: White moves now, on the same screen.
    assert page.inner_text("#status") == "White to move."
    assert board_squares(page, ".ck-piece.movable") == sorted({p[0] for p in state["legal"]})
    assert page.locator("#error").is_hidden()


def test_a_multi_jump_by_drag_against_the_computer(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page()
    start(page, mode="computer", level="easy", side="black", fen=FORCED)
    table = table_of(page)
    assert board_squares(page, ".ck-piece.movable") == [2, 17]
    drag(page, 2, 11)
    assert page.get_attribute("#board", "data-chain") == "2-11"
    drag(page, 11, 18)
    assert page.get_attribute("#board", "data-chain") == "2-11-18"
    drag(page, 18, 25)
    wait_idle(page)
    state = api(server, table)["state"]
    assert state["moves"][0] == "2x11x18x25"
    assert len(state["moves"]) == 2  # the computer answered
    assert page.get_attribute("#board", "data-fen") == state["fen"]
    assert moves_shown(page) == state["moves"]
    # A drag dropped where the piece cannot go changes nothing.
    movable = board_squares(page, ".ck-piece.movable")
    assert movable
    drag(page, movable[0], movable[0])
    assert page.get_attribute("#board", "data-fen") == state["fen"]


def test_a_reload_picks_up_the_same_position_and_clocks(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page()
    start(page, mode="computer", level="easy", side="black", clock="blitz")
    table = table_of(page)
    assert page.locator("#clocks").is_visible()
    for _ in range(2):
        path = api(server, table)["state"]["legal"][0]
        click_path(page, path)
        wait_idle(page)
    before = api(server, table)
    assert before["clock"]["running"] == "black"
    fen = page.get_attribute("#board", "data-fen")
    moves = moves_shown(page)
    time.sleep(1.2)
    page.reload()
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    wait_idle(page)
    assert page.locator("#new-game-dialog").is_hidden()
    assert table_of(page)["id"] == table["id"]
    assert page.get_attribute("#board", "data-fen") == fen
    assert moves_shown(page) == moves
    after = api(server, table)
    # The clocks as the server has them: Black's running down, White's standing still.
    assert page.get_attribute('#clocks .clock[data-color="black"]', "class") == "clock running"
    assert abs(clock_seconds(page, "white") - after["clock"]["remaining"]["white"]) < 0.2
    assert abs(clock_seconds(page, "black") - after["clock"]["remaining"]["black"]) < 1.0
    assert clock_seconds(page, "black") < before["clock"]["remaining"]["black"] - 1.0
    assert board_squares(page, ".ck-piece.movable") == sorted(
        {p[0] for p in after["state"]["legal"]})
    picture(page, "checkers-reloaded.png")


def test_the_clock_stops_while_the_page_is_closed(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page()
    beats: list[dict[str, Any]] = []
    page.on("request", lambda r: beats.append({"url": r.url, "body": r.post_data_json})
            if r.method == "POST" and r.url.endswith("/clock") else None)
    start(page, mode="computer", level="easy", side="black", clock="blitz")
    table = table_of(page)
    click_path(page, api(server, table)["state"]["legal"][0])
    wait_idle(page)
    page.wait_for_selector('#clocks .clock[data-color="black"].running', timeout=5_000)
    # the page says it watches: its heartbeat, with its own id and the table's token
    url = f"{server.url}/api/tables/{table['id']}/clock"
    assert any(b["url"] == url and set(b["body"]) == {"page"} for b in beats), beats
    left_at_close = api(server, table)["clock"]["remaining"]["black"]
    page.goto(server.url + "/health")  # the page goes away (its pagehide tells the server)
    time.sleep(4)
    page.goto(server.url + "/checkers")  # back: the same game, from this browser's storage
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    wait_idle(page)
    view = api(server, table)
    left = view["clock"]["remaining"]["black"]
    # Only the moments of leaving and of coming back (a whole page load, which can take about
    # a second on a busy 2-core machine) are charged, not the 4 s without a page (nor the
    # grace): a clock that ran on would have lost more than 4 s.
    assert left_at_close - 2.0 < left <= left_at_close
    assert view["clock"]["running"] == "black" and view["clock"]["paused"] is None
    assert abs(clock_seconds(page, "black") - left) < 1.0
    assert page.get_attribute('#clocks .clock[data-color="black"]', "class") == "clock running"
    picture(page, "checkers-clock-after-closing.png")


def test_a_bullet_game_is_lost_on_time(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page()
    # The computer (Black) moves first: White's 3 s run from then.
    start(page, mode="computer", level="easy", side="white", clock="bullet")
    table = table_of(page)
    assert "running" in (page.get_attribute('#clocks .clock[data-color="white"]', "class") or "")
    # Nobody touches the page: when its clock shows zero it reads the table, which records
    # the loss.
    page.wait_for_selector("#result:not([hidden])", timeout=10_000)
    assert page.inner_text("#result-title") == "The computer wins"
    assert page.inner_text("#result-text") == "You ran out of time."
    view = api(server, table)
    assert view["outcome"] == {"winner": "black", "reason": "time", "points": 1}
    assert page.get_attribute('#clocks .clock[data-color="white"]', "class") == (
        "clock warning flagged")
    assert page.locator("#board.interactive").count() == 0
    assert page.is_disabled("#resign-button") and page.is_disabled("#draw-button")
    picture(page, "checkers-lost-on-time.png")


def test_draws_resignation_and_a_rematch(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page()
    start(page, mode="pass_and_play")
    table = table_of(page)
    click_path(page, [11, 15])
    wait_idle(page)
    # Black... no: White is to move; White offers a draw, Black answers on the same screen.
    page.click("#draw-button")
    wait_idle(page)
    assert page.inner_text("#offer-text") == "White offers a draw. Black, do you accept?"
    assert page.inner_text("#status") == "Black: answer White's draw offer."
    assert page.locator("#board.interactive").count() == 0
    page.click("#decline-button")
    wait_idle(page)
    assert page.locator("#offer").is_hidden()
    assert page.inner_text("#status") == "White to move."
    # one offer between two of one's own moves: White moves before it may offer again
    assert page.is_disabled("#draw-button")
    click_path(page, [22, 18])
    wait_idle(page)
    page.click("#draw-button")  # Black offers, White accepts
    wait_idle(page)
    assert page.inner_text("#offer-text") == "Black offers a draw. White, do you accept?"
    page.click("#accept-button")
    page.wait_for_selector("#result:not([hidden])")
    assert page.inner_text("#result-title") == "Draw"
    assert page.inner_text("#result-text") == "The game is drawn by agreement."
    assert api(server, table)["outcome"]["reason"] == "agreement"

    # Against the computer: a draw offer at the start is declined; resigning loses.
    start(page, mode="computer", level="easy", side="black", clock="rapid")
    table = table_of(page)
    page.click("#draw-button")
    wait_idle(page)
    assert page.inner_text("#status").startswith("The computer declines the draw.")
    page.click("#resign-button")
    assert "The computer wins it" in page.inner_text("#resign-text")
    page.click("#resign-confirm")
    page.wait_for_selector("#result:not([hidden])")
    assert page.inner_text("#result-title") == "The computer wins"
    assert page.inner_text("#result-text") == "You resigned."
    assert api(server, table)["outcome"] == {"winner": "white", "reason": "resignation",
                                             "points": 1}
    # A rematch: a new table with the same settings.
    page.click("#rematch-button")
    wait_idle(page)
    again = table_of(page)
    assert again["id"] != table["id"]
    assert {k: again[k] for k in ("mode", "level", "side", "timeControl")} == {
        "mode": "computer", "level": "easy", "side": "black", "timeControl": "rapid"}
    view = api(server, again)
    assert view["outcome"] is None and view["clock"]["control"] == "rapid"
    assert page.locator("#result").is_hidden()


def test_pdn_export_copy_and_download(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    context, page, _ = open_page()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    start(page, mode="computer", level="easy", side="black")
    table = table_of(page)
    for _ in range(2):
        click_path(page, api(server, table)["state"]["legal"][-1])
        wait_idle(page)
    expected = api(server, table, "/export.pdn")
    moves = api(server, table)["state"]["moves"]
    assert all(move in expected for move in moves)
    page.click("#pdn-copy")
    page.wait_for_function(
        "() => document.getElementById('pdn-status').textContent.includes('copied')")
    assert page.evaluate("() => navigator.clipboard.readText()") == expected
    with page.expect_download() as info:
        page.click("#pdn-download")
    download = info.value
    assert download.suggested_filename == f"checkers-{table['id']}.pdn"
    path = download.path()
    assert path is not None
    assert path.read_text(encoding="utf-8") == expected


def test_a_phone_in_the_dark_theme(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page(viewport=PHONE, color_scheme="dark")
    picture(page, "checkers-phone-dialog.png")
    start(page, mode="pass_and_play", fen=KINGS)
    # The system's dark scheme applies; nothing is wider than the phone.
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(21, 23, 26)"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    header = page.locator("header.topbar").bounding_box()
    assert header is not None and header["height"] <= 56  # the title and buttons: one row
    box = page.locator("#board").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert box["width"] > 0.9 * PHONE["width"]
    # Kings wear a crown, men do not.
    assert page.locator('#board .ck-piece[data-king="1"] .ck-crown').count() == 4
    assert page.locator('#board .ck-piece[data-king="0"] .ck-crown').count() == 0
    # A jump in hand, then the picture.
    state = api(server, table_of(page))["state"]
    assert state["capture_forced"]
    path = max(state["legal"], key=len)
    square(page, path[0]).click()
    picture(page, "checkers-phone-dark.png")
    # The theme and the square numbers are settings.
    page.click("#settings-button")
    page.select_option("#theme-select", "light")
    assert page.get_attribute("html", "data-theme") == "light"
    page.uncheck("#numbers-input")
    page.click("#settings-close")
    assert page.locator("#board .ck-num").first.is_hidden()
    assert json.loads(page.evaluate("() => localStorage.getItem('checkers.settings')"))[
        "numbers"] is False
    picture(page, "checkers-phone-light.png")
    page.click("#settings-button")
    page.select_option("#theme-select", "dark")
    page.check("#numbers-input")
    page.click("#settings-close")
    assert page.locator("#board .ck-num").first.is_visible()
