"""The page fixes from a new user's trial (issue 18, point 8), in a real browser: the dice of
every turn shown (the opening roll the computer won, the computer's dice during and after its
playback, a roll that cannot be played), "New game" asking first and the recent games, phone
touch targets, the review's caption, the first visit, the wording against the computer, the
settings (auto-roll, auto-confirm, board flip) and the gammons setting of a set-up game.

The fixtures (the server, chromium, :class:`GamePage`) are those of ``test_web_game.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
import test_web_game
from test_web_game import GamePage

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")

# The fixtures of test_web_game.py, by the names the tests ask for.
browser = test_web_game.browser
server = test_web_game.server
open_page = test_web_game.open_page


def close_new_game(game: GamePage) -> None:
    if game.visible("#new-game-dialog"):
        game.page.click("#new-game-cancel")


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
    assert game.dice() == [(str(d), False) for d in
                           ([old["dice"][0]] * 4 if old["dice"][0] == old["dice"][1]
                            else old["dice"])]
