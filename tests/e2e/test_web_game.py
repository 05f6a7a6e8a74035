"""The web game in a real browser: Playwright drives Debian's chromium against the real server
(``backgammon serve`` in a subprocess on a free port).

The tests ask the API which moves are legal (the page lights them up the same way), then
play them on the board with clicks or drag and drop, as a person would. Screenshots go to
``test-artifacts/e2e/``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    ARTIFACTS,
    ServerProcess,
    launched_chromium,
    served,
)

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser
Page = sync_api.Page

#: Settings every test page starts with: no animation delay for the computer's moves.
BASE_SETTINGS = {"speed": "instant", "theme": "light"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "server")


class GamePage:
    """A browser page on the game, with the steps a person takes."""

    def __init__(self, page: Page, server: ServerProcess) -> None:
        self.page = page
        self.server = server
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    # -- reading ---------------------------------------------------------------------------

    def wait_idle(self) -> None:
        """Wait until no request is in flight and the computer's turn has been shown."""
        self.page.wait_for_function(
            "() => document.body.dataset.version && !document.body.classList.contains('busy')"
        )

    @property
    def game_id(self) -> str:
        fragment: str = self.page.evaluate("location.hash")
        return fragment.split("game=", 1)[1]

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.server.get(f"/api/games/{self.game_id}")
        return state

    def board(self) -> list[tuple[str, str]]:
        """Every checker on the page as (colour, place), sorted."""
        items = self.page.eval_on_selector_all(
            "#board .checker", "nodes => nodes.map(n => [n.dataset.color, n.dataset.point])")
        return sorted((color, where) for color, where in items)

    def dice(self) -> list[tuple[str, bool]]:
        """The dice drawn: (value, used?)."""
        items = self.page.eval_on_selector_all(
            "#board .die",
            "nodes => nodes.map(n => [n.dataset.value, n.classList.contains('used')])")
        return [(value, used) for value, used in items]

    def visible(self, selector: str) -> bool:
        return self.page.locator(selector).is_visible()

    # -- acting ----------------------------------------------------------------------------

    def start(self, **form: Any) -> dict[str, Any]:
        """Fill in the New game form and start; returns the state."""
        page = self.page
        if not self.visible("#new-game-dialog"):
            page.click("#new-game-button")
        page.check(f"input[name=mode][value={form.get('mode', 'computer')}]")
        if form.get("mode", "computer") == "computer":
            page.select_option("#level-select", form.get("level", "easy"))
            page.select_option("#side-select", form.get("side", "white"))
        page.select_option("#kind-select", form.get("kind", "single"))
        page.set_checked("#cube-input", form.get("cube", False))
        page.click("#new-game-start")
        self.wait_idle()
        return self.state()

    def press(self, button: str) -> None:
        self.page.click(button)
        self.wait_idle()

    def click_move(self, color: str, source: Any, target: Any) -> None:
        """Click the top checker on ``source``, then the landing ring on ``target``."""
        ring = f'#board .landing-ring[data-from="{source}"][data-point="{target}"]'
        if not self.page.locator(ring).count():
            self.page.click(f'#board .checker.top[data-color="{color}"][data-point="{source}"]')
        self.page.click(ring)
        self.wait_idle()

    def drag_move(self, color: str, source: Any, target: Any) -> None:
        """Drag the top checker on ``source`` and drop it on ``target``'s landing ring."""
        page = self.page
        checker = page.locator(f'#board .checker.top[data-color="{color}"][data-point="{source}"]')
        checker.hover()  # waits until the checker has stopped moving, then points at it
        page.mouse.down()
        ring = page.locator(f'#board .landing-ring[data-point="{target}"]')
        ring.wait_for(state="visible")
        end = ring.bounding_box()
        assert end is not None
        page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=8)
        assert page.locator("#board .checker.dragging").count() == 1
        page.mouse.up()
        self.wait_idle()

    def screenshot(self, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True, animations="disabled")
        return path


@pytest.fixture
def open_page(browser: Browser, server: ServerProcess) -> Iterator[Any]:
    """``open_page(viewport=(w, h), settings={...})``: a fresh browser context on the game."""
    contexts = []
    pages: list[GamePage] = []

    def open_(viewport: tuple[int, int] = (1280, 860), settings: dict[str, Any] | None = None,
              target: ServerProcess | None = None) -> GamePage:
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        chosen = {**BASE_SETTINGS, **(settings or {})}
        context.add_init_script(
            f"localStorage.setItem('backgammon.settings', {json.dumps(json.dumps(chosen))});")
        contexts.append(context)
        page = context.new_page()
        game_page = GamePage(page, target or server)
        page.goto((target or server).url + "/")
        pages.append(game_page)
        return game_page

    yield open_
    for game_page in pages:
        assert game_page.errors == [], game_page.errors
    for context in contexts:
        context.close()


def play_until(game: GamePage, stop: Any, *, limit: int = 600,
               drag: bool = False) -> dict[str, Any]:
    """Play the person's side (or both, in pass & play) until ``stop(state)`` is true: roll,
    then each turn's moves as the API lists them (the farthest place for the rearmost checker),
    then Done; take any double."""
    for _ in range(limit):
        game.wait_idle()
        state = game.state()
        if stop(state):
            return state
        can = state["can"]
        if can["roll"]:
            game.press("#roll-button")
        elif state["legal"]:
            entry = state["legal"][0]
            target = entry["destinations"][-1]["to"]
            mover = state["turn"]
            if drag:
                game.drag_move(mover, entry["from"], target)
            else:
                game.click_move(mover, entry["from"], target)
        elif can["done"]:
            game.press("#done-button")
        elif can["take"]:
            game.press("#take-button")
        else:
            raise AssertionError(f"nothing to do: {state['message']}")
    raise AssertionError("the game went on too long")


# --------------------------------------------------------------------------------------------


def test_a_complete_game_against_the_computer_by_clicks(open_page: Any) -> None:
    game = open_page()
    state = game.start(mode="computer", level="easy", side="white", cube=False)
    assert state["phase"] == "opening"
    assert len(game.board()) == 30
    assert game.visible("#roll-button")

    state = play_until(game, lambda s: s["result"] is not None)
    result = state["result"]
    assert game.visible("#result")
    assert game.page.inner_text("#result-title") == result["title"]
    assert result["title"] in ("You win", "The computer wins")
    assert game.page.inner_text("#result-text") == result["text"]
    winner = result["winner"]
    on_page = game.board()
    assert on_page.count((winner, "off")) == 15
    assert state["board"]["off"][winner] == 15
    assert game.page.inner_text(f"#score-{winner}-points") == str(result["points"])
    assert game.visible("#rematch-button")
    history = game.page.locator("#move-list li").all_inner_texts()
    points = f"{result['points']} point" + ("s" if result["points"] != 1 else "")
    assert history[-1] == (f"You win {points}" if winner == "white"
                           else f"Computer wins {points}")
    assert any(line.startswith("Computer ") for line in history)  # the computer's turns
    assert any(line.startswith("You ") for line in history)  # the person's
    assert not any(line.startswith(("White ", "Black ")) for line in history)
    game.screenshot("complete-game")


def test_master_is_offered_named_and_plays(open_page: Any) -> None:
    """The top level: offered in the New game form, named on the scoreboard, and it plays its
    turns (a 3-ply search on its closest plays, so a move can take seconds)."""
    game = open_page()
    offered = game.page.eval_on_selector_all("#level-select option", "os => os.map(o => o.value)")
    assert offered == ["easy", "medium", "hard", "expert", "master"]
    state = game.start(mode="computer", level="master", side="white", cube=False)
    assert state["settings"]["level"] == "master"
    assert state["players"]["black"]["name"] == "Computer (Master)"
    assert "Computer (Master)" in game.page.inner_text("#score-black")

    def computer_moved(_: dict[str, Any]) -> bool:
        lines = game.page.locator("#move-list li").all_inner_texts()
        return sum(line.startswith("Computer ") for line in lines) >= 2

    play_until(game, computer_moved, limit=60)
    game.screenshot("master-game")


def test_a_saved_level_the_form_does_not_offer_falls_back_to_the_default(
        open_page: Any) -> None:
    game = open_page(settings={"level": "grandmaster", "kind": "marathon"})
    if not game.visible("#new-game-dialog"):
        game.page.click("#new-game-button")
    assert game.page.input_value("#level-select") == "easy"
    assert game.page.input_value("#kind-select") == "single"


def test_pass_and_play_both_sides_move_by_drag_and_drop(open_page: Any) -> None:
    game = open_page()
    game.start(mode="pass_and_play", cube=False)
    game.press("#roll-button")
    movers = []
    for _ in range(2):
        state = game.state()
        mover = state["turn"]
        movers.append(mover)
        before = game.board()
        while state["legal"]:
            entry = state["legal"][0]
            target = entry["destinations"][0]["to"]
            game.drag_move(mover, entry["from"], target)
            after = game.state()
            assert len(after["played"]) > len(state["played"])
            state = after
        assert game.board() != before
        played = state["played"]
        dice = state["dice"]
        game.press("#done-button")
        state = game.state()
        entry = [h for h in state["history"] if h["kind"] == "play"][-1]
        assert entry["color"] == mover
        assert state["last_turn"] == {"color": mover, "moves": played, "dice": dice,
                                      "cannot_move": False, "reason": None}
        if state["can"]["roll"]:
            game.press("#roll-button")
    assert sorted(movers) == ["black", "white"]
    plays = [h for h in game.state()["history"] if h["kind"] == "play"]
    assert [h["color"] for h in plays] == movers


def test_reload_mid_turn_and_server_restart_keep_dice_and_position(
    open_page: Any, tmp_path: Path
) -> None:
    own = ServerProcess(tmp_path / "games.sqlite3", ARTIFACTS / "server-restart.log")
    own.start()
    try:
        game = open_page(target=own)
        game.start(mode="pass_and_play", cube=False)
        game.press("#roll-button")
        state = game.state()
        entry = state["legal"][0]
        game.click_move(state["turn"], entry["from"], entry["destinations"][0]["to"])
        during = game.state()
        assert len(during["played"]) == 1
        dice, board = game.dice(), game.board()
        assert any(used for _, used in dice)

        game.page.reload()
        game.wait_idle()
        assert game.dice() == dice
        assert game.board() == board
        assert game.state() == during

        own.restart()
        game.page.reload()
        game.wait_idle()
        assert game.dice() == dice
        assert game.board() == board
        assert game.state() == during
        assert game.page.locator("#move-list li").count() == len(during["history"])
        # ... and the game goes on from there.
        if during["legal"]:
            entry = during["legal"][0]
            game.click_move(during["turn"], entry["from"], entry["destinations"][0]["to"])
            assert len(game.state()["played"]) == 2
    finally:
        own.stop()


def test_double_and_the_computers_answer_is_shown(open_page: Any) -> None:
    game = open_page()
    game.start(mode="computer", level="easy", side="white", cube=True)
    state = play_until(game, lambda s: s["can"]["double"] or s["result"] is not None)
    assert state["result"] is None, "the game ended before White could double"
    cube = game.page.locator("#board .cube")
    assert cube.is_visible()
    value = state["cube"]["value"]
    game.press("#double-button")
    state = game.state()
    note = game.page.inner_text("#computer-note")
    if state["result"] is None:
        assert note.startswith(f"The computer takes: the cube is at {value * 2}")
        assert state["cube"] == {"enabled": True, "value": value * 2, "owner": "black",
                                 "offered_by": None}
        assert cube.get_attribute("data-value") == str(value * 2)
        assert cube.get_attribute("data-owner") == "black"
        assert cube.inner_text() == str(value * 2)
        history = game.page.locator("#move-list li").all_inner_texts()
        assert history[-2:] == [f"You double to {value * 2}", "Computer takes"]
    else:
        assert note.startswith("The computer drops")
        assert state["result"]["reason"] == "drop"
        assert game.page.inner_text("#result-title") == "You win"
    game.screenshot("double")


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] - 0.5 and b["x"] < a["x"] + a["width"] - 0.5
            and a["y"] < b["y"] + b["height"] - 0.5 and b["y"] < a["y"] + a["height"] - 0.5)


def test_phone_width_and_dark_theme_without_overlaps(open_page: Any) -> None:
    game = open_page(viewport=(360, 740), settings={"theme": "dark"})
    game.start(mode="pass_and_play", cube=True)
    game.press("#roll-button")
    state = game.state()
    entry = state["legal"][0]
    game.click_move(state["turn"], entry["from"], entry["destinations"][0]["to"])
    page = game.page
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(21, 23, 26)"
    assert page.evaluate("document.documentElement.scrollWidth") <= 360

    parts = ["header.topbar", "#board", "#status", "#scoreboard", ".history"]
    parts += [f"#{b}" for b in page.eval_on_selector_all(
        ".panel button", "nodes => nodes.filter(n => n.offsetParent !== null).map(n => n.id)")]
    assert "#undo-button" in parts and "#resign-button" in parts
    boxes = {}
    for selector in parts:
        box = page.locator(selector).bounding_box()
        assert box is not None, selector
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360 + 0.5, selector
        boxes[selector] = box
    for i, first in enumerate(parts):
        for second in parts[i + 1:]:
            assert not _overlap(boxes[first], boxes[second]), (first, second)

    board = boxes["#board"]
    things = page.eval_on_selector_all(
        "#board .checker, #board .die, #board .cube:not([hidden])",
        "nodes => nodes.map(n => { const r = n.getBoundingClientRect();"
        " return [n.className, r.x, r.y, r.width, r.height]; })")
    for name, x, y, w, h in things:
        assert board["x"] - 0.5 <= x and x + w <= board["x"] + board["width"] + 0.5, name
        assert board["y"] - 0.5 <= y and y + h <= board["y"] + board["height"] + 0.5, name
    dice = [t for t in things if t[0].startswith("die")]
    checkers = [t for t in things if t[0].startswith("checker")]
    assert len(dice) >= 2 and len(checkers) == 30
    for die in dice:
        for checker in checkers:
            assert not _overlap(dict(zip(("x", "y", "width", "height"), die[1:], strict=True)),
                                dict(zip(("x", "y", "width", "height"), checker[1:],
                                         strict=True))), (die, checker)
    game.screenshot("phone-360-dark")
    page.click("#menu-button")  # on a phone the header's buttons open from its menu
    page.click("#settings-button")
    game.screenshot("phone-360-dark-settings")


def test_gammons_off_in_the_new_game_form_a_gammon_scores_single(open_page: Any) -> None:
    game = open_page()
    if not game.visible("#new-game-dialog"):  # a first visit opens it at once
        game.page.click("#new-game-button")
    assert game.page.is_checked("#gammons-input")  # on by default
    game.page.set_checked("#gammons-input", False)
    state = game.start(mode="pass_and_play", cube=False)
    assert state["settings"]["gammons"] is False
    assert "gammons off" in game.page.inner_text("body")
    game.press("#roll-button")
    loser = game.state()["turn"]
    game.page.click("#resign-button")
    game.page.click('#resign-dialog [data-resign="gammon"]')
    game.wait_idle()
    # the page shows the result once the server has answered (later than idle on a busy machine)
    game.page.wait_for_function("() => document.querySelector('#result-text').textContent")
    result = game.state()["result"]
    assert result["kind"] == "gammon" and result["points"] == 1
    assert result["winner"] != loser
    assert game.page.inner_text("#result-text") == result["text"]
    assert result["text"].endswith("Gammons are off: every win scores a single game.")
    assert game.page.inner_text(f"#score-{result['winner']}-points") == "1"
    # the choice is kept for the next visit
    game.page.click("#new-game-button")
    assert not game.page.is_checked("#gammons-input")
