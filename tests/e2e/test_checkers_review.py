"""The checkers page's review in a real browser: the arrow keys, Home/End, the buttons under
the board and a click on a move of the PDN move list show an earlier position with its move
marked (read-only while the game goes on; End returns to it), and the same once it is over;
PDN files (an exported game, a file with a bad move, a real file from the shared archive)
opened in review.

The fixtures and helpers are the page test's (``test_checkers_page.py``); every page is
watched for console errors.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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

from conftest import shared_path

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
    assert page.inner_text("#review-place") == "4 half-moves"
    live_fen = page.get_attribute("#board", "data-fen")
    live = pieces_on_board(page)

    # ← : the position after move 3 (Black's 8-11), its move marked, nobody may move.
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#board[data-ply='3']")
    assert page.locator("#board.interactive").count() == 0
    assert page.inner_text("#status").startswith(
        "After 3 of 4 half-moves: Black's 8-11 (move 2).")
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


#: Three games; the second has a man moving backwards (White's 24-28 at move 3).
BAD_SECOND = """[Event "one"]
[Black "A"]
[White "B"]
1. 11-15 23-19 2. 8-11 22-17 1-0

[Event "two"]
1. 11-15 23-19 2. 8-11 22-17 3. 11-16 24-28 *

[Event "three"]
[Result "1/2-1/2"]
1. 9-14 22-18 1/2-1/2
"""


def options(page: object) -> list[str]:
    found: list[str] = page.eval_on_selector_all(  # type: ignore[attr-defined]
        "#file-game option", "nodes => nodes.map(n => n.textContent)")
    return found


def test_an_exported_game_a_file_with_a_bad_move_and_a_real_file_open_in_review(
        open_page: Callable[..., Opened], server: ServerProcess, tmp_path: Path) -> None:
    _, page, errors = open_page()
    start(page, mode="pass_and_play")
    table = table_of(page)
    for path in PLAYED:
        click_path(page, path)
        wait_idle(page)
    live = api(server, table)["state"]
    exported = tmp_path / "mine.pdn"
    exported.write_text(api(server, table, "/export.pdn"), encoding="utf-8")

    # The exported game, opened from the file chooser: the same moves, from the start.
    page.set_input_files("#pdn-file", str(exported))
    page.wait_for_selector("#file-box:not([hidden])")
    assert page.inner_text("#import-status") == "mine.pdn: 1 game opened."
    assert page.inner_text("#file-title") == "From mine.pdn"
    assert page.get_attribute("#board", "data-ply") == "0"
    assert pieces_on_board(page) == START
    assert rows(page) == ["1. 11-15 23-19", "2. 8-11 22-17"]
    assert page.inner_text("#file-result") == "No result (*)."
    # The table's controls are hidden while a file is reviewed.
    assert page.locator("#controls").is_hidden() and page.locator(".ck-export").is_hidden()
    page.keyboard.press("End")
    page.wait_for_selector("#board[data-ply='4']")
    assert pieces_on_board(page) == live["board"]
    assert board_squares(page, ".ck-sq.last-path") == [17, 22]

    # Pasted: three games, the second stopped by a bad move, the others open.
    page.click("#paste-details summary")
    page.fill("#paste-text", BAD_SECOND)
    page.click("#paste-open")
    page.wait_for_function(
        "() => document.querySelectorAll('#file-game option').length === 3")
    assert page.inner_text("#import-status") == "The PDN: 3 games opened, 1 with a problem."
    assert options(page) == ["1. A – B (one) 1-0", "2. Game 2 (two) * ⚠",
                             "3. Game 3 (three) 1/2-1/2"]
    assert page.inner_text("#file-result") == "Black won (1-0)."
    assert page.locator("#file-error").is_hidden()
    assert page.inner_text("#pieces-black .name") == "A"
    page.click("#file-problems summary")
    problem = page.inner_text("#file-problems-list li")
    assert problem.startswith("Game 2, move 3 (White, line 7): 24-28: ")
    page.select_option("#file-game", "1")
    page.wait_for_selector("#file-error:not([hidden])")
    assert page.inner_text("#file-error") == f"{problem}. The moves before it can be reviewed."
    assert rows(page) == ["1. 11-15 23-19", "2. 8-11 22-17", "3. 11-16"]
    picture(page, "checkers-import-problem.png")
    page.select_option("#file-game", "2")
    assert rows(page) == ["1. 9-14 22-18"]
    # another paste of as many games lists its own (not the last paste's titles)
    page.fill("#paste-text", BAD_SECOND.replace('"one"', '"uno"').replace('"two"', '"dos"'))
    page.click("#paste-open")
    page.wait_for_function(
        "() => document.querySelector('#file-game option').textContent.includes('uno')")
    assert options(page)[:2] == ["1. A – B (uno) 1-0", "2. Game 2 (dos) * ⚠"]

    # A real file from the shared archive.
    real = shared_path("checkers", "wiegerw_pdn__OCA_2.0.pdn")
    page.set_input_files("#pdn-file", str(real))
    page.wait_for_function(
        "() => document.querySelectorAll('#file-game option').length === 43")
    assert options(page)[0] == "1. Moorhead, W. – Wyllie, J. (Manchester 1841) 0-1"
    assert page.inner_text("#file-result") == "White won (0-1)."
    assert page.locator("#file-problems").is_hidden()
    page.keyboard.press("End")
    length = len(page.locator("#move-list button.ck-mv").all())
    page.wait_for_selector(f"#board[data-ply='{length}']")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector(f"#board[data-ply='{length - 1}']")
    picture(page, "checkers-import-real.png")

    # Closing the file returns to the game at the table, which goes on.
    page.click("#file-close")
    page.wait_for_function("() => !('ply' in document.getElementById('board').dataset)")
    assert page.get_attribute("#board", "data-fen") == live["fen"]
    assert page.locator("#file-box").is_hidden() and page.locator("#controls").is_visible()
    assert page.locator("#board.interactive").count() == 1
    assert errors == []
