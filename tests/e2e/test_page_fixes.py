"""The page fixes from a new user's trial (issue 18, point 8), in a real browser: the dice of
every turn shown (the opening roll the computer won, the computer's dice during and after its
playback, a roll that cannot be played), "New game" asking first and the recent games, phone
touch targets, the review's caption, the first visit, the wording against the computer, the
settings (auto-roll, auto-confirm, board flip) and the gammons setting of a set-up game.

The fixtures (the server, chromium, :class:`GamePage`) are those of ``test_web_game.py``.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
import test_web_game
from test_web_game import GamePage, play_until

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")

# The fixtures of test_web_game.py, by the names the tests ask for.
browser = test_web_game.browser
server = test_web_game.server
open_page = test_web_game.open_page


def close_new_game(game: GamePage) -> None:
    # the page opens the New game dialog once its start-up requests are answered: wait for
    # that (or a game shown) first, so the dialog cannot open later over the next click
    game.page.wait_for_function("() => document.querySelector('#new-game-dialog[open]') || "
                                "document.body.dataset.version")
    if game.visible("#new-game-dialog"):
        game.page.click("#new-game-cancel")


#: Records what the board shows at every change: the dice (colour, value, used), the label on
#: the board, the status line, whether the board is the starting position, and whether the
#: page holds a roll for a moment.
RECORDER = """
window.__shown = [];
new MutationObserver(() => {
  const board = document.getElementById('board');
  if (!board) return;
  const dice = [...board.querySelectorAll('.die')].map(
    d => [d.dataset.color, Number(d.dataset.value), d.classList.contains('used')]);
  const label = board.querySelector('.dice-label');
  const status = document.getElementById('status');
  const shown = {
    dice, label: label ? label.textContent : null, status: status ? status.textContent : '',
    checkers: [...board.querySelectorAll('.checker')].map(
      c => c.dataset.color + c.dataset.point).sort().join(' '),
    holding: document.body.dataset.holding || null,
  };
  const last = window.__shown[window.__shown.length - 1];
  if (!last || JSON.stringify(last) !== JSON.stringify(shown)) window.__shown.push(shown);
}).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
"""


def open_game(game: GamePage, game_id: str, record: bool = False) -> None:
    """Show the saved game ``game_id`` on the page (as its link does)."""
    page = game.page
    if record:
        page.add_init_script(RECORDER)
    page.goto(f"{game.server.url}/health")  # then a new document: the game first shown here
    page.goto(f"{game.server.url}/#game={game_id}")
    game.wait_idle()


def computer_won_opening(game: GamePage) -> dict[str, Any]:
    """A new game against the computer (the person White) whose opening roll the computer
    won, not yet shown on any page: its state."""
    for _ in range(40):
        state: dict[str, Any] = game.server.post(
            "/api/games", {"mode": "computer", "level": "easy", "side": "white", "cube": False})
        state = game.server.post(f"/api/games/{state['id']}/roll")
        if state["turn"] == "black":
            return state
    raise AssertionError("the computer never won the opening roll")


# --------------------------------------------------------------------------------------------
# A set-up game keeps the gammons setting


def test_a_set_up_game_plays_with_gammons_off_when_asked(open_page: Any) -> None:
    game = open_page(settings={"gammons": False})
    close_new_game(game)
    page = game.page
    page.click("#setup-button")
    page.wait_for_selector("#setup-panel:not([hidden])")
    page.wait_for_function("() => document.body.dataset.setupValid === 'true'")
    # the editor starts from the settings' choice, and it can be changed there
    assert not page.is_checked("#setup-gammons-on")
    page.click("#setup-play-computer")
    game.wait_idle()
    state = game.state()
    assert state["settings"]["gammons"] is False
    assert state["score"]["description"].endswith("gammons off")

    page.click("#setup-button")
    page.wait_for_selector("#setup-panel:not([hidden])")
    page.wait_for_function("() => document.body.dataset.setupValid === 'true'")
    page.set_checked("#setup-gammons-on", True)
    page.click("#setup-play-pass")
    page.wait_for_function(f"() => !location.hash.includes('{state['id']}')")
    game.wait_idle()
    assert game.state()["settings"]["gammons"] is True


# --------------------------------------------------------------------------------------------
# Review: the caption is what is reviewed; a long file name wraps

FIVE_POINT_MATCH = """ 5 point match

 Game 1
 Alice : 0                      Bob : 0
  1) 31: 8/5 6/5                 Doubles => 2
  2)  Drops
                                  Wins 1 point

 Game 2
 Alice : 0                      Bob : 1
  1)                             31: 8/5 6/5
  2)  Doubles => 2               Drops
      Wins 1 point
"""


def test_review_caption_is_the_reviewed_match_and_a_long_name_wraps(
    open_page: Any, tmp_path: Any
) -> None:
    game = open_page(viewport=(390, 844))
    if not game.visible("#new-game-dialog"):
        game.page.click("#new-game-button")
    game.start(mode="computer", kind="single")
    page = game.page
    assert page.inner_text("#score-caption").startswith("Single game")
    name = "a-five-point-match-between-alice-and-bob-played-on-the-first-of-december-2026.mat"
    path = tmp_path / name
    path.write_text(FIVE_POINT_MATCH, encoding="utf-8")
    page.set_input_files("#import-file", str(path))
    page.wait_for_function("() => document.body.dataset.reviewSource === 'record'")
    assert page.inner_text("#score-caption") == "5-point match, game 1"
    page.click("#review-last")
    page.wait_for_function("() => document.querySelector('#score-caption').textContent"
                           " === '5-point match, game 2'")
    assert name in page.inner_text("#review-title")
    box = page.locator("#review-title").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390.5
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    game.screenshot("review-long-name-phone")
    page.click("#review-exit")
    page.wait_for_function("() => !document.body.classList.contains('reviewing')")
    assert page.inner_text("#score-caption").startswith("Single game")


# --------------------------------------------------------------------------------------------
# First visit: a start screen when the New game dialog is closed


def test_a_first_visit_whose_dialog_is_cancelled_shows_a_start_screen(open_page: Any) -> None:
    game = open_page()
    page = game.page
    page.wait_for_selector("#new-game-dialog[open]")
    page.click("#new-game-cancel")
    page.wait_for_selector("#start-panel:not([hidden])")
    status = page.inner_text("#status")
    assert "Loading" not in status
    assert "New game" in status
    assert len(game.board()) == 30  # the starting position, not an empty board
    assert page.locator("#start-new-game").is_visible()
    page.click("#start-new-game")
    page.wait_for_selector("#new-game-dialog[open]")
    state = game.start(mode="pass_and_play")
    assert state["phase"] == "opening"
    assert not game.visible("#start-panel")


# --------------------------------------------------------------------------------------------
# "New game" asks first; the old game is kept in Recent games and can be resumed


def test_new_game_asks_first_and_the_old_game_can_be_resumed(open_page: Any) -> None:
    game = open_page()
    page = game.page
    game.start(mode="pass_and_play", cube=False)
    game.press("#roll-button")
    old = game.state()
    assert old["phase"] == "move"

    page.click("#new-game-button")
    page.wait_for_selector("#replace-dialog[open]")
    assert page.inner_text("#replace-title") == "Start a new game?"
    page.click("#replace-cancel")  # keep playing: nothing changes
    assert not game.visible("#new-game-dialog")
    assert game.game_id == old["id"] and game.state() == old

    page.click("#new-game-button")
    page.wait_for_selector("#replace-dialog[open]")
    page.click("#replace-confirm")
    page.wait_for_selector("#new-game-dialog[open]")
    page.check("input[name=mode][value=computer]")
    page.select_option("#level-select", "easy")
    page.select_option("#side-select", "white")
    page.click("#new-game-start")
    page.wait_for_function(f"() => !location.hash.includes('{old['id']}')")
    game.wait_idle()
    new = game.state()
    assert new["id"] != old["id"] and new["settings"]["mode"] == "computer"

    # a game at its opening roll is not in progress: New game opens the dialog at once,
    # and it lists the older game to resume
    page.click("#new-game-button")
    page.wait_for_selector("#new-game-dialog[open]")
    page.wait_for_selector(f'#recent-list li[data-id="{old["id"]}"]')
    assert page.locator(f'#recent-list li[data-id="{new["id"]}"]').count() == 0
    item = page.locator(f'#recent-list li[data-id="{old["id"]}"]')
    assert "Pass & play" in item.inner_text() and "Single game" in item.inner_text()
    item.locator("button.recent-resume").click()
    page.wait_for_function(f"() => location.hash.includes('{old['id']}')")
    game.wait_idle()
    assert not game.visible("#new-game-dialog")
    assert game.state() == old
    assert sorted(game.dice()) == sorted((str(d), False) for d in old["dice"])  # the opening


# --------------------------------------------------------------------------------------------
# The dice you never see


def test_the_opening_roll_the_computer_won_is_shown_while_it_plays(open_page: Any) -> None:
    game = open_page(settings={"speed": "fast"})
    state = computer_won_opening(game)
    opening = state["opening"]
    open_game(game, state["id"], record=True)
    shown = game.page.evaluate("window.__shown")
    both = sorted([["white", opening["white"]], ["black", opening["black"]]])
    start = next(s["checkers"] for s in shown if len(s["checkers"].split()) == 30)
    words = f"Opening roll: Computer (Easy) {opening['black']}, You {opening['white']}."
    with_opening = [s for s in shown
                    if sorted([c, v] for c, v, _ in s["dice"]) == both and words in s["status"]]
    assert with_opening, shown
    # ... before its play (held a moment) and while its play is shown checker by checker
    assert any(s["holding"] == "opening" and s["checkers"] == start for s in with_opening), shown
    assert any(s["checkers"] != start for s in with_opening)


def test_the_computers_dice_stay_on_the_board_and_in_the_move_list(open_page: Any) -> None:
    game = open_page(settings={"speed": "fast"})
    state = computer_won_opening(game)
    open_game(game, state["id"], record=True)
    after = game.state()
    assert after["phase"] == "roll" and after["turn"] == "white"
    roll = after["last_turn"]["dice"]
    # every step of the playback had the dice on the board
    shown = game.page.evaluate("window.__shown")
    start = next(s["checkers"] for s in shown if len(s["checkers"].split()) == 30)
    moving = [s for s in shown if s["checkers"] != start and s["checkers"]]
    assert moving and all(len(s["dice"]) == 2 for s in moving)
    # ... and they stay after it, faded, until the person rolls
    dice = game.page.eval_on_selector_all(
        "#board .die", "ns => ns.map(n => [n.dataset.color, Number(n.dataset.value),"
        " n.classList.contains('last')])")
    assert sorted(dice) == sorted(["black", v, True] for v in roll)
    line = game.page.locator("#move-list li").all_inner_texts()[-1]
    high, low = max(roll), min(roll)
    assert line.startswith(f"Computer {high}-{low}: "), line
    assert line == after["history"][-1]["text"]
    game.press("#roll-button")
    assert all(color == "white" for color, _, _ in game.page.eval_on_selector_all(
        "#board .die", "ns => ns.map(n => [n.dataset.color, n.dataset.value, 0])"))


#: Both sides on the bar against a closed board: no roll can ever be played.
BLOCKED = {
    "board": {"points": [-1, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -2,
                         -2, -2, -2, -2, -2, -2, 1],
              "off": {"white": 0, "black": 0}},
    "turn": "white", "dice": None, "cube": {"value": 1, "owner": None},
    "match_length": 0, "score": {"white": 0, "black": 0},
}


def test_a_roll_that_cannot_be_played_is_shown_before_the_turn_passes(open_page: Any) -> None:
    game = open_page(settings={"speed": "normal"})
    state = game.server.post("/api/games", {"mode": "computer", "side": "white",
                                            "setup": BLOCKED})
    open_game(game, state["id"])
    page = game.page
    page.click("#roll-button")
    # the person's roll: held with "No legal move", the computer not yet asked
    page.wait_for_function("() => document.body.dataset.holding === 'pass'")
    held = game.state()
    assert held["computer_to_act"] is True and held["last_turn"]["color"] == "white"
    assert page.inner_text("#board .dice-label") == "No legal move"
    dice = page.eval_on_selector_all("#board .die", "ns => ns.map(n => n.dataset.color)")
    assert set(dice) == {"white"} and len(dice) in (2, 4)  # 4 for doubles
    assert "cannot move" in page.inner_text("#status")
    page.mouse.click(5, 5)  # acknowledged: the turn passes on at once
    # the computer's roll: held too, with its dice
    page.wait_for_function(
        "() => document.body.dataset.holding === 'pass' && [...document.querySelectorAll("
        "'#board .die')].every(d => d.dataset.color === 'black')")
    assert page.inner_text("#board .dice-label") == "No legal move"
    assert "cannot move" in page.inner_text("#status")
    game.wait_idle()  # not acknowledged: it passes by itself after a moment
    after = game.state()
    assert after["turn"] == "white" and after["phase"] == "roll"
    assert after["last_turn"]["color"] == "black" and after["last_turn"]["cannot_move"]
    # the computer's dice stay with the words until the person rolls
    assert page.inner_text("#board .dice-label") == "No legal move"
    assert page.locator("#move-list li").all_inner_texts()[-2:] == [
        held["history"][-1]["text"], after["history"][-1]["text"]]


# --------------------------------------------------------------------------------------------
# Wording: against the computer the page says You and Computer


WORDS = """
window.__words = [];
new MutationObserver(() => {
  for (const id of ['status', 'computer-note', 'move-list', 'announcer', 'result']) {
    const node = document.getElementById(id);
    if (node && node.textContent) window.__words.push(node.textContent);
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def test_against_the_computer_the_words_are_you_and_computer(open_page: Any) -> None:
    game = open_page()
    game.page.add_init_script(WORDS)
    game.page.reload()
    game.start(mode="computer", level="easy", side="black", cube=False)
    state = play_until(game, lambda s: len(s["history"]) >= 6 or s["result"] is not None)
    game.page.click("#resign-button")
    game.page.click('#resign-dialog [data-resign="single"]')
    game.wait_idle()
    game.page.wait_for_function("() => document.querySelector('#result-text').textContent")
    words = game.page.evaluate("window.__words")
    assert any("Computer" in w for w in words) and any("You" in w for w in words)
    for text in words:
        assert "White" not in text and "Black" not in text, text
    lines = game.page.locator("#move-list li").all_inner_texts()
    assert len(lines) >= len(state["history"])
    assert all(line.startswith(("You ", "Computer ")) for line in lines), lines


# --------------------------------------------------------------------------------------------
# Settings: auto-roll, auto-confirm of a forced play, the board flip


def test_auto_roll_rolls_only_when_no_double_is_possible(open_page: Any) -> None:
    game = open_page(settings={"auto_roll": True})
    page = game.page
    close_new_game(game)
    page.click("#settings-button")
    assert page.is_checked("#auto-roll-input")
    page.click("#settings-close")
    # with the cube: the first roll after the opening could be a double: no auto-roll
    game.start(mode="pass_and_play", cube=True)
    assert game.state()["phase"] == "opening"  # never the opening roll
    state = play_until(game, lambda s: s["phase"] == "roll")
    assert state["can"]["double"] is True and game.visible("#roll-button")
    game.page.wait_for_timeout(300)
    assert game.state()["version"] == state["version"]
    # without the cube: the next player's dice are rolled by themselves
    page.click("#new-game-button")
    page.click("#replace-confirm")
    # the confirmation opens the New game form once it has closed: wait for it, so that
    # start() fills it in instead of clicking New game under it
    page.wait_for_selector("#new-game-dialog[open]")
    game.start(mode="pass_and_play", cube=False)
    game.press("#roll-button")
    first = game.state()
    while first["legal"]:
        entry = first["legal"][0]
        game.click_move(first["turn"], entry["from"], entry["destinations"][0]["to"])
        first = game.state()
    page.click("#done-button")
    page.wait_for_function(
        "() => document.body.dataset.phase === 'move' && "
        "!document.body.classList.contains('busy')")
    state = game.state()
    assert state["phase"] == "move" and state["turn"] != first["turn"]
    assert len(state["history"]) == len(first["history"]) + 1


#: White bears off: 3 checkers on its 1-point, 12 off, 6-5 to play: 1/off(2) is the only play.
FORCED = {
    "board": {"points": [0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                         -15, 0, 0, 0, 0, 0, 0],
              "off": {"white": 12, "black": 0}},
    "turn": "white", "dice": [6, 5], "cube": {"value": 1, "owner": None},
    "match_length": 0, "score": {"white": 0, "black": 0},
}


@pytest.mark.parametrize("auto", [False, True])
def test_auto_confirm_plays_a_forced_play_by_itself(open_page: Any, auto: bool) -> None:
    game = open_page(settings={"auto_confirm": auto, "speed": "instant"})
    state = game.server.post("/api/games", {"mode": "computer", "side": "white",
                                            "cube": False, "setup": FORCED})
    assert [m["text"] for m in state["forced_play"]] == ["1/off", "1/off"]
    open_game(game, state["id"])
    if not auto:
        assert game.state()["phase"] == "move" and game.visible("#board .checker.top.movable")
        return
    game.page.wait_for_function("() => document.querySelector('#move-list li')")
    game.wait_idle()
    after = game.state()
    assert after["history"][0]["text"] == "You 6-5: 1/off(2)"
    assert after["board"]["off"]["white"] == 14
    assert after["turn"] == "white" and after["phase"] in ("roll", "move")  # the computer played


def test_the_board_flip_puts_the_home_board_on_the_left(open_page: Any) -> None:
    game = open_page(settings={"home": "left"})
    game.start(mode="pass_and_play", cube=False)
    page = game.page

    def x(selector: str) -> float:
        box = page.locator(selector).bounding_box()
        assert box is not None, selector
        return float(box["x"])

    assert page.get_attribute("#board", "data-home") == "left"
    bar = x("#board .bar-zone")
    assert x('#board .point[data-point="1"]') < x('#board .point[data-point="6"]') < bar
    assert x('#board .point[data-point="7"]') > bar
    assert x('#board .point[data-point="24"]') < bar
    assert x('#board .tray[data-color="white"]') < x('#board .point[data-point="1"]')
    # a move played by clicks on the flipped board
    game.press("#roll-button")
    state = game.state()
    entry = state["legal"][0]
    game.click_move(state["turn"], entry["from"], entry["destinations"][0]["to"])
    assert len(game.state()["played"]) == 1
    # the setting, changed back, redraws the board with the home board on the right
    page.click("#settings-button")
    page.select_option("#home-select", "right")
    page.click("#settings-close")
    assert page.get_attribute("#board", "data-home") == "right"
    assert x('#board .point[data-point="1"]') > x("#board .bar-zone")
    assert len(game.board()) == 30
    # kept in the settings (the test's page sets its own on every load, so read them)
    assert page.evaluate("JSON.parse(localStorage.getItem('backgammon.settings')).home") == "right"


# --------------------------------------------------------------------------------------------
# Phone touch targets


def test_phone_tap_zones_are_at_least_40_px_and_a_move_is_played_by_taps(
    browser: Any, server: Any
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True, device_scale_factor=2)
    try:
        context.add_init_script(
            "localStorage.setItem('backgammon.settings', JSON.stringify({speed: 'instant'}));")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        game = GamePage(page, server)
        state = server.post("/api/games", {"mode": "pass_and_play", "cube": False})
        page.goto(f"{server.url}/#game={state['id']}")
        game.wait_idle()
        page.tap("#roll-button")
        game.wait_idle()
        checker = page.locator("#board .checker").first.bounding_box()
        assert checker is not None and checker["width"] < 30  # the checkers are small here

        zones = page.eval_on_selector_all(
            "#board .tap-zone", "ns => ns.map(n => { const r = n.getBoundingClientRect();"
            " return [n.dataset.point, n.dataset.color || '', r.x, r.y, r.width, r.height]; })")
        places = sorted({where for where, *_ in zones})
        assert places == sorted([str(p) for p in range(1, 25)] + ["bar", "off"])
        for where, _, x, _, w, h in zones:
            assert max(w, h) >= 40, (where, w, h)
            assert x >= -0.5 and x + w <= 390.5, where
        trays = [z for z in zones if z[0] == "off"]
        assert len(trays) == 2 and all(w >= 40 and h >= 40 for *_, w, h in trays)
        # the zones of neighbouring points do not overlap
        points = sorted((x, y, w, h) for where, _, x, y, w, h in zones if where.isdigit())
        for (x1, y1, w1, _), (x2, y2, _, _) in itertools.pairwise(points):
            assert x1 + w1 <= x2 + 0.5 or y1 != y2

        # a move by two taps, each at the far end of its column, away from any checker
        state = game.state()
        entry = state["legal"][0]
        source, target = str(entry["from"]), str(entry["destinations"][0]["to"])

        def tap_zone_end(where: str) -> None:
            box = next(z for z in zones if z[0] == where)
            x, y, w, h = box[2:]
            top = y < 844 / 4
            page.touchscreen.tap(x + w / 2, y + h - 3 if top else y + 3)

        tap_zone_end(source)
        page.wait_for_selector(f'#board .landing-ring[data-point="{target}"]')
        tap_zone_end(target)
        game.wait_idle()
        after = game.state()
        assert after["played"][0]["from"] == entry["from"]
        assert after["played"][-1]["to"] == entry["destinations"][0]["to"]
        assert errors == []
    finally:
        context.close()
