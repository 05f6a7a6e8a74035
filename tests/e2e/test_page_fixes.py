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
from test_web_game import (  # noqa: F401  (pytest fixtures, used by name)
    GamePage,
    browser,
    open_page,
    play_until,
    server,
)

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")


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
