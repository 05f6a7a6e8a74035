"""Setting up positions and saving them, in a real browser (Debian's chromium under
Playwright against ``backgammon serve``): a setup read from an XGID, one made by clicks on the
board, an invalid one refused with its reason, the hint, saved positions kept across a reload
and a server restart (loaded, deleted, the seventh refused), and the IDs shown and copied."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from browser_support import ARTIFACTS, ServerProcess, launched_chromium, served

from backgammon.core.position import Position
from backgammon.core.xgid import Xgid

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser
Page = sync_api.Page

BASE_SETTINGS = {"speed": "instant", "theme": "light", "mode": "computer", "level": "easy"}
XGID = "XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:2:1:0:5:10"
#: A race: White 3 on its 6-point, 2 on its 5-point, 10 off; Black 2 on its 1-point, 13 off.
RACE_XGID = "XGID=-----BC-----------------b-:0:0:1:00:0:0:0:0:10"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "server-positions")


class PositionsPage:
    """A page of the game, with the steps of setting up and saving positions."""

    def __init__(self, page: Page, server: ServerProcess) -> None:
        self.page = page
        self.server = server
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def wait_idle(self) -> None:
        self.page.wait_for_function(
            "() => document.body.dataset.version && !document.body.classList.contains('busy')")

    def game_id(self) -> str:
        fragment: str = self.page.evaluate("location.hash")
        return fragment.split("game=", 1)[1]

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.server.get(f"/api/games/{self.game_id()}")
        return state

    def board(self) -> list[tuple[str, str]]:
        items = self.page.eval_on_selector_all(
            "#board .checker", "nodes => nodes.map(n => [n.dataset.color, n.dataset.point])")
        return sorted((color, where) for color, where in items)

    def close_new_game(self) -> None:
        if self.page.locator("#new-game-dialog").is_visible():
            self.page.click("#new-game-cancel")

    def open_setup(self) -> None:
        self.page.click("#setup-button")
        self.page.wait_for_selector("#setup-panel:not([hidden])")
        self.wait_checked()

    def wait_checked(self) -> None:
        """Until the server has checked the editor's setup."""
        self.page.wait_for_function("() => document.body.dataset.setupValid !== undefined")

    def click(self, selector: str) -> None:
        before = self.page.get_attribute("body", "data-setup-sequence") or "0"
        self.page.click(selector)
        self.page.wait_for_function(
            f"() => Number(document.body.dataset.setupSequence || 0) > {int(before)}")

    def status(self) -> str:
        return self.page.text_content("#setup-status") or ""

    def screenshot(self, name: str) -> None:
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def checkers(position: Position) -> list[tuple[str, str]]:
    found = []
    for point in range(1, 25):
        count = position.points[point]
        found += [("white" if count > 0 else "black", str(point))] * abs(count)
    found += [("white", "bar")] * position.points[25] + [("black", "bar")] * -position.points[0]
    found += [("white", "off")] * position.off[0] + [("black", "off")] * position.off[1]
    return sorted(found)


@pytest.fixture
def open_page(browser: Browser, server: ServerProcess) -> Iterator[Any]:
    contexts = []
    pages: list[PositionsPage] = []

    def open_(path: str = "/", browser_id: str | None = None) -> PositionsPage:
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
        script = (f"localStorage.setItem('backgammon.settings', "
                  f"{json.dumps(json.dumps(BASE_SETTINGS))});")
        if browser_id:
            script += f"localStorage.setItem('backgammon.browser', {json.dumps(browser_id)});"
        context.add_init_script(script)
        contexts.append(context)
        page = context.new_page()
        positions = PositionsPage(page, server)
        page.goto(server.url + path)
        page.wait_for_function("() => document.querySelector('#new-game-dialog[open]') || "
                               "document.body.dataset.version")
        pages.append(positions)
        return positions

    yield open_
    for positions in pages:
        assert positions.errors == [], positions.errors
    for context in contexts:
        context.close()


def test_a_setup_from_an_xgid_played_in_pass_and_play(open_page: Any) -> None:
    game = open_page()
    game.close_new_game()
    game.open_setup()
    page = game.page
    page.fill("#setup-id-input", XGID)
    game.click("#setup-read")
    assert game.status() == "Ready: White to play 5-2; cube 2 owned by Black; 5-point match " \
                            "at 2-1."
    expected = Xgid.parse(XGID).position
    assert game.board() == checkers(expected)
    assert page.input_value('#setup-ids input[data-id="xgid"]') == XGID
    assert page.input_value("#setup-cube-value") == "2"
    assert page.input_value("#setup-cube-owner") == "black"
    assert page.input_value("#setup-score-white") == "2"
    game.screenshot("setup-xgid")
    page.click("#setup-play-pass")
    game.wait_idle()
    state = game.state()
    assert state["settings"]["mode"] == "pass_and_play" and state["settings"]["length"] == 5
    assert state["dice"] == [5, 2] and state["phase"] == "move" and state["turn"] == "white"
    assert state["cube"]["value"] == 2 and state["cube"]["owner"] == "black"
    assert (state["score"]["white"], state["score"]["black"]) == (2, 1)
    assert state["ids"]["xgid"] == XGID
    assert game.board() == checkers(expected)


def test_the_form_shows_what_is_played(open_page: Any) -> None:
    """A match length of -1 reads 0 (money); a money game has no score: the score fields are
    0 and disabled, and come back for a match."""
    game = open_page()
    game.close_new_game()
    game.open_setup()
    page = game.page
    page.fill("#setup-length", "5")
    page.dispatch_event("#setup-length", "change")
    page.fill("#setup-score-white", "2")
    page.dispatch_event("#setup-score-white", "change")
    assert page.is_enabled("#setup-score-white")
    page.fill("#setup-length", "-1")
    page.dispatch_event("#setup-length", "change")
    assert page.input_value("#setup-length") == "0"
    assert page.input_value("#setup-score-white") == "0"
    assert page.is_disabled("#setup-score-white") and page.is_disabled("#setup-score-black")
    page.fill("#setup-length", "3")
    page.dispatch_event("#setup-length", "change")
    assert page.is_enabled("#setup-score-white")
    # one die chosen is said, not left out in silence
    page.select_option("#setup-die1", "3")
    page.wait_for_function("() => document.querySelector('#setup-status').textContent"
                           ".endsWith('(one die chosen: choose both for a roll).')")
    assert game.status().startswith("Ready: White to roll")


def test_a_bad_id_says_what_is_wrong(open_page: Any) -> None:
    game = open_page()
    game.close_new_game()
    game.open_setup()
    page = game.page
    page.fill("#setup-id-input", "XGID=-b----E-C---eE---c-e----B-:0:0:1:78:0:0:0:0:10")
    page.click("#setup-read")
    page.wait_for_selector("#setup-id-error:not([hidden])")
    assert "field 5 (dice): '78' is not 00, two dice" in (
        page.text_content("#setup-id-error") or "")


def test_a_setup_by_clicks_refused_then_played_vs_the_computer_with_a_hint(
    open_page: Any,
) -> None:
    game = open_page()
    game.close_new_game()
    game.open_setup()
    page = game.page
    # Every checker to the trays: nothing on the board is a finished game, refused.
    game.click("#setup-empty")
    assert game.status() == "White has borne off all 15 checkers: the game is over"
    assert page.is_disabled("#setup-play-computer") and page.is_disabled("#setup-hint")
    # White: 3 on the 6-point, 2 on the 5-point; the clicks take them from White's tray.
    page.check('input[name="setup-tool"][value="white"]')
    for point in (6, 6, 6, 5, 5):
        game.click(f'#board .point[data-point="{point}"]')
    assert game.status() == "Black has borne off all 15 checkers: the game is over"
    # Black: 2 on its 1-point (White's 24).
    page.check('input[name="setup-tool"][value="black"]')
    game.click('#board .point[data-point="24"]')
    game.click('#board .point[data-point="24"]')
    assert game.status().startswith("Ready: White to roll")
    # A sixteenth White checker is refused with the count.
    page.check('input[name="setup-tool"][value="white"]')
    game.click('#board .point[data-point="4"]')
    game.click('#board .checker[data-color="white"][data-point="off"] >> nth=0')
    assert game.status() == ("White has 16 checkers (6 on the points, 10 borne off): each "
                             "side has 15")
    assert page.is_disabled("#setup-play-computer")
    game.screenshot("setup-invalid")
    page.check('input[name="setup-tool"][value="remove"]')
    game.click('#board .point[data-point="4"]')
    assert game.status().startswith("Ready: White to roll")
    game.click('#board .checker[data-color="white"][data-point="off"] >> nth=0')
    assert game.status() == ("White has 14 checkers (5 on the points, 9 borne off): each "
                             "side has 15")
    page.check('input[name="setup-tool"][value="white"]')
    game.click('#board .checker[data-color="white"][data-point="off"] >> nth=0')
    assert game.status().startswith("Ready: White to roll")
    assert page.input_value('#setup-ids input[data-id="xgid"]') == RACE_XGID
    # The dice, then the hint.
    page.select_option("#setup-die1", "6")
    page.wait_for_timeout(100)
    before = page.get_attribute("body", "data-setup-sequence") or "0"
    page.select_option("#setup-die2", "5")
    page.wait_for_function(
        f"() => Number(document.body.dataset.setupSequence || 0) > {int(before)}")
    assert game.status() == "Ready: White to play 6-5; cube 1; money play."
    page.click("#setup-hint")
    page.wait_for_selector("#setup-hint-box[data-ready]")
    from backgammon.ai import rank_plays

    race = Xgid.parse(RACE_XGID).position
    best = [str(r.play) for r in rank_plays(race, (6, 5), "expert")]  # as the game's hints
    assert page.text_content("#setup-hint-text") == f"Best for White with 6-5: {best[0]}"
    # the plays in the game's hint table (hints.js), the deepest search first
    hinted = page.eval_on_selector_all("#setup-hint-box tr[data-play]",
                                       "rows => rows.map(r => r.dataset.play)")
    assert hinted == best[:len(hinted)] and len(hinted) >= min(5, len(best))
    page.select_option("#setup-side", "white")
    page.click("#setup-play-computer")
    game.wait_idle()
    state = game.state()
    assert state["settings"]["mode"] == "computer" and state["settings"]["human"] == "white"
    assert state["dice"] == [6, 5] and state["turn"] == "white"
    assert state["board"]["off"] == {"white": 10, "black": 13}
    assert state["ids"]["xgid"] == RACE_XGID.replace(":1:00:", ":1:65:")


def test_saved_positions_across_a_reload_and_a_restart(
    open_page: Any, server: ServerProcess,
) -> None:
    browser_id = "e2e-saved-positions-1"
    game = open_page(browser_id=browser_id)
    game.close_new_game()
    game.open_setup()
    page = game.page
    page.fill("#setup-id-input", XGID)
    game.click("#setup-read")
    page.click("#setup-play-pass")
    game.wait_idle()
    first_game = game.game_id()
    # Save the position on the board: it keeps its board, dice, side on roll, cube, score.
    page.click("#save-position-button")
    page.wait_for_selector("#saved-dialog[data-ready]")
    page.fill("#saved-name", "Opening 5-2 at 2-1")
    page.click("#saved-save")
    page.wait_for_selector(".saved-item")
    assert page.text_content("#saved-status") == "Saved “Opening 5-2 at 2-1”."
    item = page.locator(".saved-item").first
    assert item.locator(".saved-name").text_content() == "Opening 5-2 at 2-1"
    assert (item.locator(".saved-summary").text_content() or "").startswith("White to play 5-2")
    assert (item.locator(".saved-board").text_content() or "").startswith(" +13-14-15-16")
    for n in range(2, 7):
        page.fill("#saved-name", f"Position {n}")
        page.click("#saved-save")
        page.wait_for_function(f"() => document.querySelectorAll('.saved-item').length === {n}")
    page.fill("#saved-name", "Position 7")
    page.click("#saved-save")
    page.wait_for_function("() => document.getElementById('saved-status').textContent"
                           ".startsWith('You can keep')")
    assert page.text_content("#saved-status") == \
        "You can keep up to 6 positions: delete one to save this one."
    assert page.locator(".saved-item").count() == 6
    game.screenshot("saved-positions")
    page.click("#saved-close")

    # The game moves on; then the server restarts and the page reloads.
    page.click('#board .checker.top[data-color="white"][data-point="13"]')
    page.click('#board .landing-ring[data-point="8"]')
    game.wait_idle()
    server.restart()
    page.reload()
    game.wait_idle()
    page.click("#saved-button")
    page.wait_for_selector("#saved-dialog[data-ready]")
    names = page.eval_on_selector_all(".saved-name", "nodes => nodes.map(n => n.textContent)")
    assert names == ["Opening 5-2 at 2-1"] + [f"Position {n}" for n in range(2, 7)]

    # Loading one asks first (a game is in progress); keeping the game changes nothing.
    page.locator(".saved-item").first.locator(".saved-load").click()
    page.wait_for_selector("#replace-dialog[open]")
    page.click("#replace-cancel")
    assert game.game_id() == first_game
    page.click("#saved-button")
    page.wait_for_selector("#saved-dialog[data-ready]")
    page.locator(".saved-item").first.locator(".saved-load").click()
    page.wait_for_selector("#replace-dialog[open]")
    page.click("#replace-confirm")
    page.wait_for_selector("#play-position-dialog[open]")  # then who plays it
    page.click("#play-position-computer")
    page.wait_for_function(f"() => !location.hash.includes('{first_game}')")
    game.wait_idle()
    state = game.state()
    assert state["ids"]["xgid"] == XGID and state["dice"] == [5, 2]
    assert game.board() == checkers(Xgid.parse(XGID).position)

    # Deleting one leaves five; another browser has its own (none).
    page.click("#saved-button")
    page.wait_for_selector("#saved-dialog[data-ready]")
    page.locator(".saved-item").nth(1).locator(".saved-delete").click()
    page.wait_for_function("() => document.querySelectorAll('.saved-item').length === 5")
    assert page.text_content("#saved-status") == "Deleted “Position 2”."
    other = open_page(browser_id="e2e-another-browser")
    other.close_new_game()
    other.page.click("#saved-button")
    other.page.wait_for_selector("#saved-dialog[data-ready]")
    assert other.page.locator(".saved-item").count() == 0
    assert other.page.is_visible("#saved-empty")


def test_the_ids_are_shown_and_copied(open_page: Any) -> None:
    game = open_page()
    page = game.page
    if not page.locator("#new-game-dialog").is_visible():
        page.click("#new-game-button")
    page.check("input[name=mode][value=pass_and_play]")
    page.select_option("#kind-select", "match")
    page.fill("#length-input", "7")
    page.click("#new-game-start")
    game.wait_idle()
    page.click("#ids-details summary")
    ids = game.state()["ids"]
    shown = {key: page.input_value(f'#game-ids input[data-id="{key}"]')
             for key in ("position_id", "match_id", "xgid")}
    assert shown == ids and shown["xgid"].endswith(":0:0:1:00:0:0:0:7:10")
    for key, label in (("xgid", "XGID"), ("match_id", "Match ID"),
                       ("position_id", "Position ID")):
        page.click(f'#game-ids button[data-copy="{key}"]')
        page.wait_for_function(
            f"() => document.getElementById('game-ids-status').textContent === "
            f"'{label} copied.'")
        assert page.evaluate("navigator.clipboard.readText()") == ids[key]
    page.click("#roll-button")
    game.wait_idle()
    rolled = game.state()["ids"]
    assert page.input_value('#game-ids input[data-id="xgid"]') == rolled["xgid"] != ids["xgid"]
    game.screenshot("position-ids")

