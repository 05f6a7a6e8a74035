"""The checkers page in a real browser: choosing the game (the root address remembers the last
one played; each New game dialog offers the other; each page has its own title, icons,
manifest and social card), the computer's thinking time at each level, a whole game against
the computer (Easy) to the end, and the record of games against the computer (counted once,
by level, cleared by the player). Every page is watched for console errors.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser_support import ARTIFACTS, ServerProcess, launched_chromium

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser
BrowserContext = sync_api.BrowserContext
Page = sync_api.Page

DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}
#: The most moves (both sides') the whole game may take before the test gives up.
MAX_MOVES = 300


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    folder = tmp_path_factory.mktemp("checkers-game")
    process = ServerProcess(folder / "games.sqlite3", ARTIFACTS / "checkers-game-server.log")
    process.start()
    yield process
    process.stop()


Opened = tuple[BrowserContext, Page, list[str]]


@pytest.fixture
def new_context(browser: Browser) -> Iterator[Callable[..., tuple[BrowserContext, list[str]]]]:
    """A new browser context (a browser of its own: its own storage); the console errors of
    its pages are collected and must be none at the end of the test."""
    made: list[tuple[BrowserContext, list[str]]] = []

    def maker(viewport: dict[str, int] | None = None,
              color_scheme: str = "light") -> tuple[BrowserContext, list[str]]:
        context = browser.new_context(viewport=viewport or DESKTOP, color_scheme=color_scheme)
        errors: list[str] = []
        context.on("page", lambda page: watch(page, errors))
        made.append((context, errors))
        return context, errors

    yield maker
    for context, errors in made:
        assert errors == []
        context.close()


def watch(page: Page, errors: list[str]) -> None:
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))


def open_checkers(context: BrowserContext, server: ServerProcess) -> Page:
    page = context.new_page()
    page.goto(server.url + "/checkers")
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    return page


def wait_idle(page: Page) -> None:
    page.wait_for_function(
        "() => document.body.dataset.ready === '1' && document.body.dataset.state === 'idle'")


def start(page: Page, level: str = "easy", side: str = "black") -> None:
    if not page.locator("#new-game-dialog").is_visible():
        page.click("#new-game-button")
    page.check("input[name=mode][value=computer]")
    page.select_option("#level-select", level)
    page.select_option("#side-select", side)
    page.select_option("#clock-select", "none")
    page.select_option("#opening-select", "usual")
    page.click("#new-game-start")
    page.wait_for_function("() => !document.querySelector('#new-game-dialog').open")
    wait_idle(page)


def table_of(page: Page) -> dict[str, Any]:
    stored: dict[str, Any] = json.loads(
        page.evaluate("() => localStorage.getItem('checkers.table')"))
    return stored


def view_of(server: ServerProcess, table: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(f"{server.url}/api/tables/{table['id']}",
                                     headers={"X-Table-Token": table["token"]})
    with urllib.request.urlopen(request, timeout=10) as response:
        view: dict[str, Any] = json.loads(response.read())["view"]
    return view


def export_pdn(server: ServerProcess, table: dict[str, Any]) -> str:
    request = urllib.request.Request(f"{server.url}/api/tables/{table['id']}/export.pdn",
                                     headers={"X-Table-Token": table["token"]})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


def click_path(page: Page, path: list[int]) -> None:
    for number in path:
        page.click(f'.ck-sq[data-square="{number}"]')


def first_legal_move(page: Page) -> list[int]:
    """The first legal move as the page shows it: the first piece marked movable (in square
    order), then, hop by hop, the first square marked as a landing."""
    movable = page.eval_on_selector_all(
        "#board .ck-piece.movable", "nodes => nodes.map(n => Number(n.dataset.square))")
    assert movable, "no piece marked movable on the person's move"
    return [min(movable)]


def play_first_move(page: Page) -> list[int]:
    """Play the page's first legal move by clicks: the lowest movable piece, then the lowest
    target square offered after each hop, until the move is sent. Returns the path."""
    path = first_legal_move(page)
    page.click(f'.ck-sq[data-square="{path[0]}"]')
    while True:
        targets = page.eval_on_selector_all(
            "#board .ck-sq.target", "nodes => nodes.map(n => Number(n.dataset.square))")
        if not targets:
            break
        landing = min(targets)
        path.append(landing)
        page.click(f'.ck-sq[data-square="{landing}"]')
        if page.evaluate("() => document.body.dataset.state") == "busy":
            break  # the move is complete: sent
    return path


def record_rows(page: Page) -> dict[str, list[int]]:
    found: dict[str, list[int]] = page.eval_on_selector_all(
        "#record-body tr", "rows => Object.fromEntries(rows.map(r => [r.dataset.level || 'total',"
        " [...r.querySelectorAll('td')].map(td => Number(td.textContent))]))")
    return found


def picture(page: Page, name: str) -> None:
    page.wait_for_timeout(450)
    page.screenshot(path=str(ARTIFACTS / name))


# -------------------------------------------------------------------------------- choosing


def test_the_root_address_opens_the_last_game_played(
        new_context: Callable[..., tuple[BrowserContext, list[str]]],
        server: ServerProcess) -> None:
    context, _ = new_context()
    page = context.new_page()
    page.goto(server.url + "/")
    page.wait_for_selector("#new-game-dialog[open]")
    assert page.title() == "Backgammon"
    # backgammon's first screen offers checkers, and names backgammon as this page's game
    assert page.locator("#new-game-dialog .game-choice [aria-current=page]").inner_text() \
        == "Backgammon"
    assert page.get_attribute("#new-game-checkers", "href") == "/checkers"
    assert page.evaluate("() => localStorage.getItem('site.game')") == "backgammon"
    page.click("#new-game-checkers")
    page.wait_for_url(server.url + "/checkers")
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    assert page.title() == "Checkers"
    assert page.evaluate("() => localStorage.getItem('site.game')") == "checkers"
    # the checkers page: its own icons, manifest and social card, no backgammon control
    assert page.get_attribute("link[rel=icon][type='image/svg+xml']", "href") \
        == "/static/checkers_mark.svg"
    assert page.get_attribute("link[rel=manifest]", "href") == "/static/checkers.webmanifest"
    assert page.get_attribute("meta[property='og:image']", "content") \
        == "/static/icons/checkers-og-image.png"
    assert page.get_attribute("meta[property='og:title']", "content") == "Checkers"
    assert page.locator("#new-game-dialog .game-choice [aria-current=page]").inner_text() \
        == "Checkers"
    nav = page.eval_on_selector_all(".topnav > *", "nodes => nodes.map(n => n.textContent.trim())")
    assert nav == ["New game", "Record", "Settings", "Backgammon"]
    for forbidden in ("#roll-button", "#double-button", "#cube", "#setup-button"):
        assert page.locator(forbidden).count() == 0
    picture(page, "checkers-choose-game.png")
    # the root address now opens checkers ...
    page.goto(server.url + "/")
    page.wait_for_url(server.url + "/checkers")
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    assert page.title() == "Checkers"
    # ... and the page's Backgammon link brings backgammon back, kept for the root address
    page.click("#new-game-cancel")
    page.click("#backgammon-link")
    page.wait_for_selector("#new-game-dialog[open]")
    assert page.url == server.url + "/"  # the ?game=backgammon is dropped
    assert page.title() == "Backgammon"
    assert page.evaluate("() => localStorage.getItem('site.game')") == "backgammon"
    page.goto(server.url + "/")
    page.wait_for_selector("#new-game-dialog[open]")
    assert page.url == server.url + "/" and page.title() == "Backgammon"
    # an invite link to a backgammon room opens backgammon whatever the setting
    page.evaluate("() => localStorage.setItem('site.game', 'checkers')")
    page.goto(server.url + "/?game=backgammon")
    page.wait_for_selector("#new-game-dialog[open]")
    assert page.url == server.url + "/"
    # the icons and the manifest are served
    for path in ("/static/checkers_mark.svg", "/static/icons/checkers-favicon-32.png",
                 "/static/icons/checkers-og-image.png", "/static/icons/checkers-icon-512.png"):
        with urllib.request.urlopen(server.url + path, timeout=10) as response:
            assert response.status == 200
    with urllib.request.urlopen(server.url + "/static/checkers.webmanifest", timeout=10) as got:
        manifest = json.loads(got.read())
    assert manifest["name"] == "Checkers" and manifest["start_url"] == "/checkers"


# -------------------------------------------------------------------------------- thinking


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert"])
def test_the_computers_thinking_time_is_shown(
        level: str, new_context: Callable[..., tuple[BrowserContext, list[str]]],
        server: ServerProcess) -> None:
    context, _ = new_context()
    page = open_checkers(context, server)
    start(page, level=level, side="black")
    assert page.locator("#thought-note").is_hidden()  # the computer has not moved yet
    play_first_move(page)
    # while it thinks, the page says so
    page.wait_for_function(
        "() => document.body.dataset.state === 'idle' || "
        "document.querySelector('#status').textContent.includes('The computer is thinking')")
    wait_idle(page)
    view = view_of(server, table_of(page))
    state, thought = view["state"], view["thought"]
    assert thought["actions"] == 2 == view["actions"] and thought["side"] == "white"
    note = page.locator("#thought-note")
    assert note.is_visible()
    name = level.capitalize()
    text = note.inner_text()
    said = r"(less than 0\.01|\d+(\.\d+)?)"
    assert re.fullmatch(rf"The computer \({name}\) thought {said} s for {state['moves'][1]}\.",
                        text), text
    assert float(note.get_attribute("data-seconds") or "-1") == thought["seconds"]
    assert 0 < thought["seconds"] < 5
    if level == "expert":
        picture(page, "checkers-thought-expert.png")


# -------------------------------------------------------------------------------- a whole game


def test_a_whole_game_against_the_computer_to_the_end_and_the_record(
        new_context: Callable[..., tuple[BrowserContext, list[str]]],
        server: ServerProcess) -> None:
    context, _ = new_context()
    page = open_checkers(context, server)
    start(page, level="easy", side="black")
    table = table_of(page)
    played = 0
    while page.locator("#result").is_hidden():
        assert played < MAX_MOVES, "the game did not end"
        state = view_of(server, table)["state"]
        path = play_first_move(page)
        assert path in state["legal"], (path, state["legal"])  # the page's first legal move
        wait_idle(page)
        played += 1
    view = view_of(server, table)
    outcome = view["outcome"]
    moves = view["state"]["moves"]
    assert outcome is not None and len(moves) >= 2 * played - 1
    title = {"black": "You win", "white": "The computer wins", None: "Draw"}[outcome["winner"]]
    assert page.inner_text("#result-title") == title
    assert page.get_attribute("#result", "data-winner") == (outcome["winner"] or "draw")
    assert page.inner_text("#status") == f"{title}."
    if outcome["reason"] == "no legal move":
        assert page.inner_text("#result-text") in (
            "You have no pieces left.", "You have no legal move left.",
            "The computer has no pieces left.", "The computer has no legal move left.")
    # the move list shows every move, numbered as PDN numbers them, and so does the export
    shown = page.eval_on_selector_all("#move-list button.ck-mv", "nodes => nodes.length")
    assert shown == len(moves)
    assert page.locator("#move-list li").count() == (len(moves) + 1) // 2
    pdn = export_pdn(server, table)
    result = {"black": "1-0", "white": "0-1", None: "1/2-1/2"}[outcome["winner"]]
    assert f'[Result "{result}"]' in pdn
    body = re.sub(r"\[[^\]]*\]", " ", pdn).strip()
    # the movetext ends with the result (after a space or the line break that wraps it)
    assert re.search(rf"\s{re.escape(result)}$", body), body[-80:]
    body = body.removesuffix(result)
    assert len(re.findall(r"\b\d+(?:[-x]\d+)+\b", body)) == len(moves)
    picture(page, "checkers-whole-game.png")

    # the game is counted in this browser's record, once
    mine = {"black": "won", "white": "lost", None: "drawn"}[outcome["winner"]]
    counts = {"won": 0, "lost": 0, "drawn": 0, mine: 1}
    line = page.locator("#result-record")
    line.wait_for(state="visible")
    assert line.inner_text() == ("Your record against the computer (Easy): "
                                 f"{counts['won']} won, {counts['lost']} lost, "
                                 f"{counts['drawn']} drawn.")
    page.reload()
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    page.locator("#result-record").wait_for(state="visible")
    assert page.get_attribute("#result-record", "data-games") == "1"  # not counted again
    # a second game, resigned at Hard
    start(page, level="hard", side="white")
    page.click("#resign-button")
    page.click("#resign-confirm")
    page.locator("#result-record").wait_for(state="visible")
    assert page.inner_text("#result-record") == (
        "Your record against the computer (Hard): 0 won, 1 lost, 0 drawn.")
    page.click("#record-button")
    page.wait_for_selector("#record-dialog[open]:not([aria-busy])")
    page.locator("#record-table").wait_for(state="visible")
    rows = record_rows(page)
    assert rows == {"easy": [1, counts["won"], counts["lost"], counts["drawn"]],
                    "hard": [1, 0, 1, 0],
                    "total": [2, counts["won"], counts["lost"] + 1, counts["drawn"]]}
    assert page.locator("#record-body tr").first.locator("th").inner_text() == "Computer (Easy)"
    picture(page, "checkers-record.png")
    # cleared after asking
    page.click("#record-clear")
    assert page.locator("#record-confirm").is_visible()
    page.click("#record-clear-no")
    assert page.locator("#record-table").is_visible()
    page.click("#record-clear")
    page.click("#record-clear-yes")
    page.locator("#record-empty").wait_for(state="visible")
    assert page.inner_text("#record-status") == "The record is cleared (2 games forgotten)."
    assert page.locator("#record-table").is_hidden()
    page.click("#record-close")
    # another browser has its own record
    other, _ = new_context(viewport=PHONE, color_scheme="dark")
    phone = open_checkers(other, server)
    phone.click("#new-game-cancel")
    phone.click("#record-button")
    phone.locator("#record-empty").wait_for(state="visible")
    picture(phone, "checkers-record-phone-dark.png")
