"""The checkers page's review in a real browser: the arrow keys, Home/End, the buttons under
the board and a click on a move of the PDN move list show an earlier position with its move
marked (read-only while the game goes on; End returns to it), and the same once it is over.

The fixtures and helpers are the page test's (``test_checkers_page.py``); every page is
watched for console errors.
"""

from __future__ import annotations

from collections.abc import Callable

import test_checkers_page as page_test
from browser_support import ServerProcess
from test_checkers_page import (
    Opened,
    api,
    board_squares,
    click_path,
    picture,
    pieces_on_board,
    start,
    table_of,
    wait_idle,
)

# The page test's fixtures: a browser and a server for this module, a watched page.
browser = page_test.browser
server = page_test.server
open_page = page_test.open_page

START = {**{str(n): "b" for n in range(1, 13)}, **{str(n): "w" for n in range(21, 33)}}
#: Four moves of pass & play: 1. 11-15 23-19 2. 8-11 22-17.
PLAYED = [[11, 15], [23, 19], [8, 11], [22, 17]]


def rows(page: object) -> list[str]:
    found: list[str] = page.eval_on_selector_all(  # type: ignore[attr-defined]
        "#move-list li", "nodes => nodes.map(n => n.innerText.replace(/\\s+/g, ' ').trim())")
    return found


def test_stepping_through_a_game_in_progress_and_over(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page()
    start(page, mode="pass_and_play")
    table = table_of(page)
    assert page.locator("#review-bar").is_hidden()  # nothing to review yet
    for path in PLAYED:
        click_path(page, path)
        wait_idle(page)
    # The move list is numbered as PDN numbers it.
    assert rows(page) == ["1. 11-15 23-19", "2. 8-11 22-17"]
    assert page.inner_text("#review-place") == "4 moves"
    live_fen = page.get_attribute("#board", "data-fen")
    live = pieces_on_board(page)

    # ← : the position after move 3 (Black's 8-11), its move marked, nobody may move.
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#board[data-ply='3']")
    assert page.locator("#board.interactive").count() == 0
    assert page.inner_text("#status").startswith("After 3 of 4 moves: Black's 8-11 (move 2).")
    assert page.inner_text("#move-list .ck-mv.current") == "8-11"
    assert board_squares(page, ".ck-sq.last-path") == [8, 11]
    after_three = dict(live)
    del after_three["17"]
    after_three["22"] = "w"
    assert pieces_on_board(page) == after_three
    assert page.inner_text("#review-place") == "3 / 4"
    # Home: the start, nothing marked; the pieces table counts the frame's pieces.
    page.keyboard.press("Home")
    page.wait_for_selector("#board[data-ply='0']")
    assert pieces_on_board(page) == START
    assert board_squares(page, ".ck-sq.last-path") == []
    assert page.is_disabled("#review-prev") and page.is_disabled("#review-first")
    assert page.inner_text("#pieces-black .men") == "12"
    # → and a click on a move of the list.
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#board[data-ply='1']")
    assert board_squares(page, ".ck-sq.last-path") == [11, 15]
    page.click("#move-list button[data-ply='2']")
    page.wait_for_selector("#board[data-ply='2']")
    assert page.inner_text("#move-list .ck-mv.current") == "23-19"
    assert page.get_attribute("#move-list .ck-mv.current", "aria-current") == "step"
    picture(page, "checkers-review.png")
    # Nothing was sent: the table still has its four moves.
    assert api(server, table)["state"]["moves"] == ["11-15", "23-19", "8-11", "22-17"]
    # End: back to the game, which goes on.
    page.keyboard.press("End")
    page.wait_for_function("() => !('ply' in document.getElementById('board').dataset)")
    assert page.get_attribute("#board", "data-fen") == live_fen
    assert page.locator("#board.interactive").count() == 1
    assert page.inner_text("#status") == "Black to move."
    # The buttons under the board do as the keys do; the last move returns to the game.
    page.click("#review-prev")
    page.wait_for_selector("#board[data-ply='3']")
    page.click("#move-list button[data-ply='4']")
    page.wait_for_function("() => !('ply' in document.getElementById('board').dataset)")

    # Once the game is over: Black resigns, the review goes on the same way.
    page.click("#resign-button")
    page.click("#resign-confirm")
    page.wait_for_selector("#result:not([hidden])")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#board[data-ply='3']")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#board[data-ply='2']")
    assert board_squares(page, ".ck-sq.last-path") == [19, 23]
    assert page.locator("#result").is_visible()


def test_a_jump_is_marked_in_review(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page()
    start(page, mode="pass_and_play", fen="B:W7,9,13,15,22,23:B2,4,6,17")
    click_path(page, [2, 11, 18, 27])
    wait_idle(page)
    click_path(page, [9, 2])  # White must jump back at once, and is crowned
    wait_idle(page)
    assert board_squares(page, ".ck-sq.last-captured") == [6]
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#board[data-ply='1']")
    assert board_squares(page, ".ck-sq.last-path") == [2, 11, 18, 27]
    assert board_squares(page, ".ck-sq.last-captured") == [7, 15, 23]
    page.keyboard.press("Home")
    page.wait_for_selector("#board[data-ply='0']")
    assert pieces_on_board(page) == {"2": "b", "4": "b", "6": "b", "17": "b", "7": "w",
                                     "9": "w", "13": "w", "15": "w", "22": "w", "23": "w"}
