"""Keyboard play, the live region, captured pieces and settings kept, on the checkers page in a
real browser: a multi-jump made with the arrow keys and Enter, each move and the result said
for screen readers, the pieces each side has taken counted (in review too), the square numbers
and the theme kept across a reload.

The fixtures and helpers are the page test's (``test_checkers_page.py``); every page is
watched for console errors.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import test_checkers_page as page_test
from browser_support import ServerProcess
from test_checkers_page import (
    FORCED,
    Opened,
    api,
    click_path,
    picture,
    start,
    table_of,
    wait_idle,
)

# The page test's fixtures: a browser and a server for this module, a watched page.
browser = page_test.browser
server = page_test.server
open_page = page_test.open_page


def screen_xy(square: int, viewer: str = "white") -> tuple[int, int]:
    """Where PDN square ``square`` is drawn, [column, row] from the top left."""
    row, place = divmod(square - 1, 4)
    col = 2 * place + 1 if row % 2 == 0 else 2 * place
    return (7 - col, 7 - row) if viewer == "black" else (col, row)


def cursor_to(page: Any, square: int, viewer: str = "white") -> None:
    """Walk the keyboard's cursor to ``square`` with the arrow keys."""
    x0, y0 = screen_xy(int(page.get_attribute("#board", "data-cursor")), viewer)
    x1, y1 = screen_xy(square, viewer)
    for _ in range(abs(x1 - x0)):
        page.keyboard.press("ArrowRight" if x1 > x0 else "ArrowLeft")
    for _ in range(abs(y1 - y0)):
        page.keyboard.press("ArrowDown" if y1 > y0 else "ArrowUp")
    assert page.get_attribute("#board", "data-cursor") == str(square)


def test_a_multi_jump_by_keyboard_said_aloud_and_the_pieces_taken(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page()
    start(page, mode="pass_and_play", fen=FORCED)
    table = table_of(page)
    page.focus("#board")
    # The cursor starts on the first piece that can move, and says what is there.
    assert page.get_attribute("#board", "data-cursor") == "2"
    assert page.inner_text("#cursor-words") == "Square 2: black man, can move."
    page.keyboard.press("Enter")
    assert page.get_attribute("#board", "data-chain") == "2"
    cursor_to(page, 11)
    assert page.inner_text("#cursor-words") == (
        "Square 11: empty, the piece in hand can land here.")
    page.keyboard.press("Enter")
    assert page.get_attribute("#board", "data-chain") == "2-11"
    cursor_to(page, 18)
    page.keyboard.press(" ")
    assert page.get_attribute("#board", "data-chain") == "2-11-18"
    # Escape puts the piece back; the hops are made again.
    page.keyboard.press("Escape")
    assert page.get_attribute("#board", "data-chain") == ""
    cursor_to(page, 2)
    page.keyboard.press("Enter")
    for square in (11, 18):
        cursor_to(page, square)
        page.keyboard.press("Enter")
    cursor_to(page, 27)
    picture(page, "checkers-keyboard.png")
    page.keyboard.press("Enter")
    wait_idle(page)
    assert api(server, table, side="white")["state"]["moves"] == ["2x11x18x27"]
    # The live region says the move and whose turn it is.
    assert page.inner_text("#announce") == "Black took 3 pieces: 2x11x18x27. White to move."
    # Black has taken three of White's men; nobody has taken a black piece.
    assert page.inner_text("#pieces-black .ck-taken-count") == "3"
    assert page.locator("#pieces-black .ck-taken-chips .ck-mini.white").count() == 3
    assert page.inner_text("#pieces-white .ck-taken-count") == "0"
    assert api(server, table, side="white")["state"]["captured"] == {"black": 3, "white": 0}
    # White moves by keyboard too: the cursor goes to a piece that can move.
    page.focus("#board")
    assert page.get_attribute("#board", "data-cursor") == str(min(
        p[0] for p in api(server, table, side="white")["state"]["legal"]))
    # In review the counts are the position's.
    page.focus("#status")
    page.keyboard.press("Home")
    page.wait_for_selector("#board[data-ply='0']")
    assert page.inner_text("#pieces-black .ck-taken-count") == "0"
    page.keyboard.press("End")
    page.wait_for_function("() => !('ply' in document.getElementById('board').dataset)")
    assert page.inner_text("#pieces-black .ck-taken-count") == "3"


def test_the_live_region_says_the_computers_move_and_the_result(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page()
    start(page, mode="computer", level="easy", side="black")
    table = table_of(page)
    assert page.inner_text("#announce") == ""
    click_path(page, [11, 15])
    wait_idle(page)
    reply = api(server, table)["state"]["moves"][1]
    assert page.inner_text("#announce") == (
        f"You played 11-15. The computer played {reply}. Your move.")
    # A reload says nothing (the moves were said).
    page.reload()
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    wait_idle(page)
    assert page.inner_text("#announce") == ""
    page.click("#resign-button")
    page.click("#resign-confirm")
    page.wait_for_selector("#result:not([hidden])")
    assert page.inner_text("#announce") == "The computer wins: You resigned."


def test_the_square_numbers_and_the_theme_are_kept(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page()
    start(page, mode="pass_and_play")
    page.click("#settings-button")
    page.uncheck("#numbers-input")
    page.select_option("#theme-select", "dark")
    page.click("#settings-close")
    page.reload()
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    assert page.get_attribute("html", "data-theme") == "dark"
    assert page.locator("#board .ck-num").first.is_hidden()
    assert json.loads(page.evaluate("() => localStorage.getItem('checkers.settings')"))[
        "numbers"] is False
    page.click("#settings-button")
    assert page.input_value("#theme-select") == "dark"
    assert not page.is_checked("#numbers-input")
    page.select_option("#theme-select", "system")
    page.check("#numbers-input")
    page.click("#settings-close")
    page.reload()
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    assert page.get_attribute("html", "data-theme") == "system"
    assert page.locator("#board .ck-num").first.is_visible()
