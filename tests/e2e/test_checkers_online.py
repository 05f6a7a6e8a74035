"""Online checkers in a real browser: two browser contexts at one room of the shared table
(``/api/rooms``, ``/ws/rooms``) through the checkers page (``js/checkers_online.js`` on the
game-agnostic ``js/room_client.js``).

* An invite made in the New game dialog, joined by its link; a game with a resignation, a
  rematch (sides swapped), then a draw offer declined and one accepted.
* A reload mid-game: the same position and clocks, and the game goes on.
* A server restart mid-game (stopped, then started again on the same database file): both
  pages reconnect by themselves to the same position and clocks.
* A Bullet game lost on time with nobody touching the page.
* The record: a game resigned and its rematch drawn count in both browsers' Record dialogs
  ("A person online"), once each, a reload asking again.
* A room its host left before anyone joined: its link says the game was closed by its host;
  a room whose seats are taken: its link says so in the backgammon page's words; an opponent
  who left a finished game: the page says the room is closed, after a reload
  too (the room's ``room.left``), and offers no rematch.

The server runs with ``BACKGAMMON_TEST_TIME_CONTROLS`` shortening Bullet to 3 s + 1 s and Blitz
to 30 s + 1 s (the rooms' clocks take the server's time controls), so the flag falls in
seconds. Every page is watched for console errors; screenshots (desktop light, phone dark)
go to test-artifacts/e2e.
"""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser_support import ARTIFACTS, ServerProcess, launched_chromium

from checkers import Position, apply_move, legal_moves
from gametable.clock import TEST_CONTROLS_ENV

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser
BrowserContext = sync_api.BrowserContext
Page = sync_api.Page

CONTROLS = "bullet=3+1,blitz=30+1"
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


def start_server(process: ServerProcess) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(TEST_CONTROLS_ENV, CONTROLS)
        process.start()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    folder = tmp_path_factory.mktemp("checkers-online")
    process = ServerProcess(folder / "games.sqlite3", ARTIFACTS / "checkers-online-server.log")
    start_server(process)
    yield process
    process.stop()


Opener = Callable[..., Page]


@pytest.fixture
def open_page(browser: Browser, server: ServerProcess) -> Iterator[Opener]:
    """Opens /checkers (with ``fragment``) in a new browser context (``name``: the player's
    name kept in that browser); every page's console errors are checked at the end."""
    opened: list[tuple[BrowserContext, list[str]]] = []

    def opener(fragment: str = "", name: str = "", viewport: dict[str, int] | None = None,
               color_scheme: str = "light") -> Page:
        context = browser.new_context(viewport=viewport or DESKTOP, color_scheme=color_scheme)
        if name:
            context.add_init_script(
                f"localStorage.setItem('checkers.online.name', {name!r});")
        errors: list[str] = []
        opened.append((context, errors))
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url + "/checkers" + fragment)
        page.wait_for_function("() => document.body.dataset.ready === '1'")
        return page

    yield opener
    for context, errors in opened:
        # (the WebSocket refused while the server restarts is the one error a page may log)
        assert [e for e in errors if "WebSocket connection" not in e] == []
        context.close()


# -------------------------------------------------------------------------------- helpers


def wait_open(page: Page) -> None:
    page.wait_for_function(
        "() => document.body.dataset.online === 'open' && document.body.dataset.state === 'idle'")


def host(page: Page, side: str = "black", clock: str = "none", name: str = "Ann") -> str:
    """Make an online game in the New game dialog; its code."""
    if not page.locator("#new-game-dialog").is_visible():
        page.click("#new-game-button")
    page.check("input[name=mode][value=online]")
    assert page.locator("#online-side-select").is_visible()
    assert not page.locator("#level-select").is_visible()
    page.select_option("#online-side-select", side)
    page.fill("#online-name", name)
    page.select_option("#clock-select", clock)
    page.click("#new-game-start")
    page.wait_for_function("() => !document.querySelector('#new-game-dialog').open")
    wait_open(page)
    code: str = page.evaluate("() => document.body.dataset.room")
    return code


def join(open_page: Opener, code: str, name: str = "Bob", **options: Any) -> Page:
    page = open_page(f"#join={code}", name=name, **options)
    wait_open(page)
    return page


def fen(page: Page) -> str:
    return page.get_attribute("#board", "data-fen") or ""


def moves_shown(page: Page) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        "#move-list .ck-mv", "nodes => nodes.map(n => n.textContent).filter(t => t && t !== '…')")
    return found


def square(page: Page, number: int) -> Any:
    return page.locator(f'.ck-sq[data-square="{number}"]')


def same_position(pages: list[Page], wanted: str) -> None:
    for page in pages:
        page.wait_for_function(
            "(f) => document.querySelector('#board').dataset.fen === f"
            " && document.body.dataset.state === 'idle'", arg=wanted)


def play(pages: dict[str, Page], count: int) -> list[str]:
    """Play ``count`` moves by clicks, each on the page of the side to move (the first legal
    move of the position, as the engine orders them); both boards follow. The moves' paths."""
    played: list[str] = []
    for _ in range(count):
        position = Position.from_fen(fen(pages["black"]))
        side = "black" if fen(pages["black"]).startswith("B") else "white"
        move = legal_moves(position)[0]
        page = pages[side]
        page.wait_for_function("() => document.querySelectorAll('#board .ck-piece.movable').length")
        for number in move.path:
            square(page, number).click()
        same_position(list(pages.values()), apply_move(position, move).fen())
        played.append(str(move))
    return played


def clock_seconds(page: Page, side: str) -> float:
    return float(page.get_attribute(f'#clocks .clock[data-color="{side}"]', "data-seconds") or -1)


def text(page: Page, selector: str) -> str:
    return page.inner_text(selector).strip()


def wait_text(page: Page, selector: str, wanted: str) -> None:
    page.wait_for_function(
        "([s, w]) => document.querySelector(s).textContent === w", arg=[selector, wanted])


def picture(page: Page, name: str) -> None:
    page.wait_for_timeout(450)
    page.screenshot(path=str(ARTIFACTS / name))


def wait_result(page: Page, reason: str) -> None:
    page.wait_for_function(
        "(r) => !document.querySelector('#result').hidden"
        " && document.querySelector('#result').dataset.reason === r", arg=reason)


# -------------------------------------------------------------------------------- the tests


def test_an_online_game_resigned_then_a_rematch_drawn_by_agreement(
        open_page: Opener, server: ServerProcess) -> None:
    ann = open_page()
    assert ann.locator("#new-game-dialog").is_visible()
    code = host(ann, side="black", name="Ann")
    assert text(ann, "#online-code") == code and len(code) == 8
    assert ann.input_value("#online-link") == f"{server.url}/checkers#join={code}"
    assert ann.url.endswith(f"#room={code}")
    assert text(ann, "#status") == "Waiting for your opponent to join: send them the invite link."
    assert ann.locator("#online-invite").is_visible()
    assert not ann.locator("#board .ck-piece.movable").count()  # nobody to play yet
    picture(ann, "checkers-online-invite.png")

    # Bob opens the link on a phone in the dark theme: he joins as White.
    bob = join(open_page, code, "Bob", viewport=PHONE, color_scheme="dark")
    assert bob.evaluate("() => document.body.dataset.side") == "white"
    assert bob.url.endswith(f"#room={code}")
    wait_text(ann, "#status", "Your move (Black).")
    assert text(bob, "#status") == "Ann (Black) to move."
    wait_text(ann, "#online-presence", "Bob is here.")
    assert text(bob, "#online-presence") == "Ann is here."
    assert not ann.locator("#online-invite").is_visible()
    assert text(ann, "#online-players") == "You (Ann): Black. Bob: White."
    assert text(ann, "#pieces-black .name") == "You" and text(ann, "#pieces-white .name") == "Bob"
    assert text(bob, "#pieces-white .name") == "You" and text(bob, "#pieces-black .name") == "Ann"
    # Each board is seen from its player's side: Black's from square 1, White's from 32.
    a1, a32 = square(ann, 1).bounding_box(), square(ann, 32).bounding_box()
    b1, b32 = square(bob, 1).bounding_box(), square(bob, 32).bounding_box()
    assert a1 and a32 and b1 and b32 and a1["y"] > a32["y"] and b1["y"] < b32["y"]
    # Only the side to move is offered moves.
    assert ann.locator("#board .ck-piece.movable").count() > 0
    assert bob.locator("#board .ck-piece.movable").count() == 0

    pages = {"black": ann, "white": bob}
    played = play(pages, 4)
    assert moves_shown(ann) == moves_shown(bob) == played
    assert text(ann, "#status") == "Your move (Black)."
    assert text(ann, "#announce") == f"Bob played {played[-1]}. Your move."
    picture(bob, "checkers-online-phone-dark.png")

    # Bob resigns.
    bob.click("#resign-button")
    bob.click("#resign-confirm")
    for page in (ann, bob):
        wait_result(page, "resignation")
    assert text(ann, "#result-title") == "You win"
    assert text(ann, "#result-text") == "Bob resigned."
    assert text(bob, "#result-title") == "Ann wins"
    assert text(bob, "#result-text") == "You resigned."
    assert ann.get_attribute("#result", "data-winner") == "black"
    # The finished game's PDN, as the room writes it, copied and downloaded from the page.
    ann.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    expected = _pdn(server, code, ann)
    assert all(move in expected for move in played) and '[Black "Ann"]' in expected
    ann.click("#pdn-copy")
    ann.wait_for_function(
        "() => document.getElementById('pdn-status').textContent.includes('copied')")
    assert ann.evaluate("() => navigator.clipboard.readText()") == expected
    with ann.expect_download() as info:
        ann.click("#pdn-download")
    assert info.value.suggested_filename == f"checkers-{code}.pdn"
    saved = info.value.path()
    assert saved is not None and saved.read_text(encoding="utf-8") == expected

    # A rematch: Ann asks, Bob accepts; the sides swap.
    ann.click("#rematch-button")
    ann.wait_for_function("() => document.querySelector('#rematch-button').disabled")
    assert text(ann, "#rematch-button") == "Rematch asked…"
    bob.wait_for_function(
        "() => document.querySelector('#rematch-button').textContent === 'Accept the rematch'")
    assert text(bob, "#result-text") == (
        "You resigned. Ann asks for a rematch (you would swap sides).")
    bob.click("#rematch-button")
    for page, side in ((ann, "white"), (bob, "black")):
        page.wait_for_function(
            "(s) => document.body.dataset.side === s && document.querySelector('#result').hidden",
            arg=side)
    start = Position.start().fen()
    same_position([ann, bob], start)
    assert text(bob, "#status").endswith("Your move (Black).")
    assert text(ann, "#status").endswith("Bob (Black) to move.")
    assert moves_shown(ann) == []
    pages = {"black": bob, "white": ann}
    play(pages, 3)

    # Bob (Black) offers a draw: Ann declines. Then Ann offers one: Bob accepts.
    bob.click("#draw-button")
    ann.wait_for_selector("#offer:not([hidden])")
    assert text(ann, "#offer-text") == "Bob offers a draw. Do you accept?"
    assert text(bob, "#status") == "You offered a draw: waiting for Ann's answer."
    assert not bob.locator("#offer").is_visible()
    ann.click("#decline-button")
    ann.wait_for_function(
        "() => document.querySelector('#offer').hidden"
        " && !document.querySelector('#status').textContent.includes('draw')")
    assert text(ann, "#status") == "Your move (White)."
    # the side that offered hears the answer
    bob.wait_for_function("() => document.querySelector('#status').textContent"
                          " === 'Ann declined your draw offer. Ann (White) to move.'")
    assert text(bob, "#announce") == "Ann declined your draw offer."
    # Ann offers on her move and then moves: her own move lets it lapse, nobody declined
    ann.click("#draw-button")
    bob.wait_for_selector("#offer:not([hidden])")
    play(pages, 1)
    ann.wait_for_function("() => document.querySelector('#status').textContent"
                          " === 'Bob (Black) to move.'")
    assert bob.locator("#offer").is_hidden()
    # Ann offers on Bob's move and Bob plays on: she is told, and the notice goes with the
    # next move
    ann.click("#draw-button")
    bob.wait_for_selector("#offer:not([hidden])")
    play(pages, 1)
    ann.wait_for_function("() => document.querySelector('#status').textContent"
                          " === 'Bob played on: your draw offer lapsed. Your move (White).'")
    play(pages, 2)
    ann.wait_for_function("() => document.querySelector('#status').textContent"
                          " === 'Your move (White).'")
    ann.click("#draw-button")
    bob.wait_for_selector("#offer:not([hidden])")
    assert text(bob, "#offer-text") == "Ann offers a draw. Do you accept?"
    picture(bob, "checkers-online-draw-offer-phone-dark.png")
    bob.click("#accept-button")
    for page in (ann, bob):
        wait_result(page, "agreement")
        assert text(page, "#result-title") == "Draw"
        assert text(page, "#result-text") == "The game is drawn by agreement."
    picture(ann, "checkers-online-draw.png")


def test_a_reload_mid_game_picks_up_the_position_and_the_clocks(open_page: Opener) -> None:
    ann = open_page()
    code = host(ann, side="black", clock="blitz")
    bob = join(open_page, code)
    pages = {"black": ann, "white": bob}
    played = play(pages, 3)  # White's clock runs
    bob.wait_for_function("() => Number(document.querySelector("
                          "'#clocks .clock[data-color=\"white\"]').dataset.seconds) < 30.5")
    position, black_left = fen(bob), clock_seconds(bob, "black")
    white_before, reloaded_at = clock_seconds(bob, "white"), time.monotonic()
    assert 27 < black_left <= 33 and white_before <= 31

    bob.reload()
    bob.wait_for_function("() => document.body.dataset.ready === '1'")
    wait_open(bob)
    assert fen(bob) == position and moves_shown(bob) == played
    assert bob.evaluate("() => document.body.dataset.side") == "white"
    assert abs(clock_seconds(bob, "black") - black_left) < 0.15  # a stopped clock stays put
    white_after = clock_seconds(bob, "white")
    assert white_before - (time.monotonic() - reloaded_at) - 0.5 <= white_after <= white_before
    assert bob.locator("#clocks .clock[data-color=white].running").count() == 1
    assert text(bob, "#status") == "Your move (White)."
    # The game goes on from the reloaded page.
    more = play(pages, 1)
    assert moves_shown(ann) == played + more
    picture(bob, "checkers-online-reloaded.png")
    # Bob goes away on Ann's move: the game waits on her, not on him.
    bob.close()
    wait_text(ann, "#online-presence", "Bob is away.")


def test_a_server_restart_mid_game_both_pages_reconnect(
        open_page: Opener, server: ServerProcess) -> None:
    ann = open_page()
    code = host(ann, side="white", clock="blitz")
    bob = join(open_page, code)
    pages = {"black": bob, "white": ann}
    played = play(pages, 4)  # Black's clock runs
    position = fen(ann)
    white_left = clock_seconds(ann, "white")

    server.stop()
    stopped_at = time.monotonic()
    for page in (ann, bob):
        page.wait_for_function("() => document.body.dataset.online === 'reconnecting'")
        page.wait_for_function(
            "() => document.querySelector('#online-connection').textContent"
            " === 'Connection lost: reconnecting…'")
    black_at_stop = clock_seconds(bob, "black")
    picture(ann, "checkers-online-reconnecting.png")
    time.sleep(1.0)
    start_server(server)
    for page in (ann, bob):
        page.wait_for_function("() => document.body.dataset.online === 'open'", timeout=20_000)
        assert fen(page) == position and moves_shown(page) == played
        assert text(page, "#online-connection") == "The server restarted; reconnected."
    assert abs(clock_seconds(ann, "white") - white_left) < 0.15
    # The server charged the downtime to no one: Black's clock is back near where it stood.
    downtime = time.monotonic() - stopped_at
    black_now = clock_seconds(bob, "black")
    assert black_now > black_at_stop - downtime + 0.5, (black_now, black_at_stop, downtime)
    wait_text(ann, "#online-presence", "Bob is here.")
    more = play(pages, 2)
    assert moves_shown(ann) == moves_shown(bob) == played + more


def test_a_bullet_game_lost_on_time(open_page: Opener) -> None:
    ann = open_page(viewport=PHONE, color_scheme="dark")
    assert ann.locator("#new-game-dialog").is_visible()  # nothing kept in this browser yet
    ann.check("input[name=mode][value=online]")
    picture(ann, "checkers-online-dialog-phone-dark.png")
    code = host(ann, side="black", clock="bullet")
    bob = join(open_page, code)
    for page in (ann, bob):
        page.wait_for_selector("#clocks:not([hidden])")
        assert "Bullet: 3 s each" in text(page, "#clocks .clock-caption")
    # The clocks start with the first move: Black plays, then White never answers.
    play({"black": ann, "white": bob}, 1)
    for page in (ann, bob):
        wait_result(page, "time")
    assert text(ann, "#result-title") == "You win"
    assert text(ann, "#result-text") == "Bob ran out of time."
    assert text(bob, "#result-title") == "Ann wins"
    assert text(bob, "#result-text") == "You ran out of time."
    assert clock_seconds(bob, "white") == 0.0
    assert bob.locator("#clocks .clock[data-color=white].flagged").count() == 1
    assert clock_seconds(ann, "black") == 3.0  # the clocks started with Black's first move
    picture(ann, "checkers-online-flag-phone-dark.png")


def record_rows(page: Page) -> list[list[str]]:
    """The Record dialog's rows, opened afresh (asks the server): [name, games, won, lost,
    drawn] each, the total last."""
    if page.locator("#record-dialog").is_visible():
        page.click("#record-close")
    page.click("#record-button")
    page.wait_for_selector("#record-dialog[open]:not([aria-busy])", timeout=10_000)
    page.locator("#record-table").wait_for(state="visible", timeout=10_000)
    page.wait_for_function("() => document.querySelectorAll('#record-body tr').length",
                           timeout=10_000)
    rows: list[list[str]] = page.eval_on_selector_all(
        "#record-body tr",
        "rows => rows.map(r => [...r.children].map(c => c.textContent.trim()))")
    return rows


def wait_recorded(page: Page, key: str) -> None:
    """Until the page has counted the room's game ``key`` ("CODE:games_before")."""
    page.wait_for_function("(k) => document.body.dataset.recorded === k", arg=key,
                           timeout=10_000)


def test_online_games_count_in_the_record_dialog_once_each(open_page: Opener) -> None:
    ann = open_page()
    code = host(ann, side="black", name="Ann")
    bob = join(open_page, code, "Bob")
    # game 1: Bob resigns after a move each; the server counts it in both browsers' records
    play({"black": ann, "white": bob}, 2)
    bob.click("#resign-button")
    bob.click("#resign-confirm")
    for page in (ann, bob):
        wait_result(page, "resignation")
        wait_recorded(page, f"{code}:0")
    assert record_rows(ann) == [["A person online", "1", "1", "0", "0"],
                                ["Total", "1", "1", "0", "0"]]
    assert record_rows(bob)[0] == ["A person online", "1", "0", "1", "0"]
    for page in (ann, bob):
        page.click("#record-close")

    # game 2, the rematch (sides swap): drawn by agreement, counted as the room's next game
    ann.click("#rematch-button")
    bob.wait_for_function(
        "() => document.querySelector('#rematch-button').textContent === 'Accept the rematch'")
    bob.click("#rematch-button")
    for page, side in ((ann, "white"), (bob, "black")):
        page.wait_for_function(
            "(s) => document.body.dataset.side === s && document.querySelector('#result').hidden",
            arg=side)
    play({"black": bob, "white": ann}, 1)
    ann.click("#draw-button")
    bob.wait_for_selector("#offer:not([hidden])")
    bob.click("#accept-button")
    for page in (ann, bob):
        wait_result(page, "agreement")
        wait_recorded(page, f"{code}:1")
    assert record_rows(ann) == [["A person online", "2", "1", "0", "1"],
                                ["Total", "2", "1", "0", "1"]]
    assert ann.inner_text("#record-empty").strip() == "No game finished in this browser yet."
    assert not ann.locator("#record-empty").is_visible()
    picture(ann, "checkers-online-record.png")

    # a reload shows the finished game again and the page asks again: counted once all the same
    bob.reload()
    bob.wait_for_function("() => document.body.dataset.ready === '1'")
    wait_open(bob)
    wait_recorded(bob, f"{code}:1")
    assert record_rows(bob) == [["A person online", "2", "0", "1", "1"],
                                ["Total", "2", "0", "1", "1"]]
    picture(bob, "checkers-online-record-after-reload.png")


def _left(server: ServerProcess, code: str, token: str) -> None:
    """The seat of ``token`` leaves room ``code`` (what a page's Leave sends)."""
    from websockets.sync.client import connect

    with connect(server.url.replace("http", "ws", 1) + f"/ws/rooms/{code}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        assert json.loads(ws.recv(timeout=10))["type"] == "view"
        ws.send(json.dumps({"type": "leave", "ref": 1}))
        assert json.loads(ws.recv(timeout=10))["type"] == "view"


def _pdn(server: ServerProcess, code: str, page: Page) -> str:
    """Room ``code``'s PDN as the server writes it, read with ``page``'s seat token."""
    token = page.evaluate(
        "(c) => JSON.parse(localStorage.getItem('gametable.seats'))[c].token", code)
    request = urllib.request.Request(server.url + f"/api/rooms/{code}/export.pdn",
                                     headers={"X-Seat-Token": token})
    with urllib.request.urlopen(request, timeout=10) as answer:
        text: str = answer.read().decode("utf-8")
    return text


def _room(server: ServerProcess, body: dict[str, Any] | None, path: str = "/api/rooms"
          ) -> dict[str, Any]:
    """POST ``body`` to ``path`` (GET when None); the answer's JSON."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.url + path, data=data,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        made: dict[str, Any] = json.loads(answer.read())
    return made


def test_a_room_closed_by_its_host_and_one_its_opponent_left(
        open_page: Opener, server: ServerProcess) -> None:
    made = _room(server, {"game": "checkers", "name": "Ann", "side": "black"})
    _left(server, made["code"], made["token"])
    page = open_page(f"#join={made['code']}", name="Bob")
    wait_text(page, "#error", "That game was closed by its host: ask them for a new invitation.")
    # Ann (black) resigns a game with Bob on the page, then leaves the room
    made = _room(server, {"game": "checkers", "name": "Ann", "side": "black"})
    bob = join(open_page, made["code"])
    with_ann = _room(server, None, f"/api/rooms/{made['code']}")
    assert with_ann["closed"] is False and with_ann["open"] is False
    # a third person at the link of a room whose seats are taken: the words both games say
    # (room_client.js SEATS_TAKEN, a join refused with seats_taken)
    carol = open_page(f"#join={made['code']}", name="Carol")
    wait_text(carol, "#error", "That game already has two players.")
    assert carol.evaluate("() => document.body.dataset.online") is None
    from websockets.sync.client import connect

    url = server.url.replace("http", "ws", 1) + f"/ws/rooms/{made['code']}"
    with connect(url) as ws:
        ws.send(json.dumps({"type": "hello", "token": made["token"]}))
        ws.recv(timeout=10)
        ws.send(json.dumps({"type": "action", "action": {"type": "resign"}, "ref": 1}))
        ws.send(json.dumps({"type": "leave", "ref": 2}))
        while json.loads(ws.recv(timeout=10)).get("ref") != 2:
            pass
    closed = "Room closed: Ann (Black) left the room."
    for _ in range(2):  # as pushed, then after a reload
        wait_text(page=bob, selector="#online-presence", wanted=closed)
        assert closed in text(bob, "#result-text")
        assert bob.locator("#rematch-button").is_disabled()
        bob.reload()
        wait_open(bob)


def test_joining_by_code_takes_the_name_typed_in_the_dialog(
        open_page: Opener, server: ServerProcess) -> None:
    """A guest who types a name and a code in the New game dialog joins under that name (the
    page sent the name kept from before, none here), and the name is kept for next time."""
    made = _room(server, {"game": "checkers", "name": "Ann", "side": "black"})
    page = open_page()
    if not page.locator("#new-game-dialog").is_visible():
        page.click("#new-game-button")
    page.check("input[name=mode][value=online]")
    page.fill("#online-name", "Dave")
    page.fill("#join-code-input", made["code"])
    page.click("#join-code-button")
    wait_open(page)
    from websockets.sync.client import connect

    with connect(server.url.replace("http", "ws", 1) + f"/ws/rooms/{made['code']}") as ws:
        ws.send(json.dumps({"type": "hello", "token": made["token"]}))
        view = json.loads(ws.recv(timeout=10))["view"]
    assert view["room"]["names"] == {"black": "Ann", "white": "Dave"}
    assert page.evaluate("() => localStorage.getItem('checkers.online.name')") == "Dave"


def test_the_host_withdraws_an_invitation_nobody_took(
        open_page: Opener, server: ServerProcess) -> None:
    """Before anyone joined, the host may take the invitation back: the room is closed (the
    link tells a friend so), the seat forgotten, and the New game dialog opens."""
    ann = open_page()
    code = host(ann, name="Ann")
    assert ann.locator("#online-withdraw").is_visible()
    picture(ann, "checkers-online-invite-withdraw.png")
    ann.click("#online-withdraw")
    ann.wait_for_selector("#new-game-dialog[open]")
    assert text(ann, "#status") == "You withdrew the invitation: its link opens no game now."
    assert ann.evaluate("() => document.body.dataset.online") is None
    assert code not in ann.evaluate("() => JSON.parse(localStorage.getItem('gametable.seats'))")
    assert _room(server, None, f"/api/rooms/{code}")["closed"] is True
    bob = open_page(f"#join={code}", name="Bob")
    wait_text(bob, "#error", "That game was closed by its host: ask them for a new invitation.")
