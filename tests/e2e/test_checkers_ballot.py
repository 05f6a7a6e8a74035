"""A three-move ballot start on the checkers page, in a real browser: drawn at random (against
the computer, which answers as White at once) and chosen from the list (pass & play), the
ballot named on the page, its moves the game's first, kept for the rematch and a reload.

The fixtures and helpers are the page test's (``test_checkers_page.py``); every page is
watched for console errors.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import test_checkers_page as page_test
from browser_support import ServerProcess
from test_checkers_page import Opened, api, click_path, moves_shown, picture, table_of, wait_idle

# The page test's fixtures: a browser and a server for this module, a watched page.
browser = page_test.browser
server = page_test.server
open_page = page_test.open_page


def start_ballot(page: object, opening: str, mode: str = "pass_and_play",
                 ballot: str | None = None) -> None:
    p = page  # a playwright Page
    if not p.locator("#new-game-dialog").is_visible():  # type: ignore[attr-defined]
        p.click("#new-game-button")  # type: ignore[attr-defined]
    p.check(f"input[name=mode][value={mode}]")  # type: ignore[attr-defined]
    if mode == "computer":
        p.select_option("#level-select", "easy")  # type: ignore[attr-defined]
        p.select_option("#side-select", "black")  # type: ignore[attr-defined]
    p.select_option("#opening-select", opening)  # type: ignore[attr-defined]
    if ballot is not None:
        p.wait_for_function(  # type: ignore[attr-defined]
            "() => document.querySelectorAll('#ballot-select option').length === 156")
        p.select_option("#ballot-select", ballot)  # type: ignore[attr-defined]
    p.click("#new-game-start")  # type: ignore[attr-defined]
    p.wait_for_function(  # type: ignore[attr-defined]
        "() => !document.querySelector('#new-game-dialog').open")
    wait_idle(p)  # type: ignore[arg-type]


def test_a_random_ballot_against_the_computer(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page()
    page.select_option("#opening-select", "random")
    assert page.locator("#ballot-help").is_visible()
    assert page.locator("#fen-details").is_hidden()  # a ballot starts from the usual position
    assert page.locator("#ballot-row").is_hidden()
    start_ballot(page, "random", mode="computer")
    table = table_of(page)
    assert table["ballot"] == "random"
    view = api(server, table)
    ballot = view["state"]["ballot"]
    assert ballot is not None and ballot["label"].startswith(f"ACF {ballot['number']}: ")
    assert page.inner_text("#ballot-note") == f"Three-move ballot {ballot['label']}"
    # each move kept whole on its line
    assert page.eval_on_selector_all("#ballot-note .ck-nowrap",
                                     "spans => spans.map(s => s.textContent)") == ballot["moves"]
    # The ballot's three moves, then the computer's answer as White: Black (the person) moves.
    state = view["state"]
    assert state["moves"][:3] == ballot["moves"] and len(state["moves"]) == 4
    assert moves_shown(page) == state["moves"]
    assert page.inner_text("#status") == "Your move (Black)."
    click_path(page, state["legal"][0])
    wait_idle(page)
    assert len(api(server, table)["state"]["moves"]) == 6
    picture(page, "checkers-ballot.png")
    # A reload keeps the ballot's name; a rematch draws a ballot again.
    page.reload()
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    assert page.inner_text("#ballot-note") == f"Three-move ballot {ballot['label']}"
    page.click("#resign-button")
    page.click("#resign-confirm")
    page.wait_for_selector("#result:not([hidden])")
    page.click("#rematch-button")
    wait_idle(page)
    again = table_of(page)
    assert again["id"] != table["id"] and again["ballot"] == "random"
    assert api(server, again)["state"]["ballot"] is not None
    # The New game dialog remembers the choice.
    saved = json.loads(page.evaluate("() => localStorage.getItem('checkers.settings')"))
    assert saved["opening"] == "random"


def test_a_ballot_chosen_from_the_list(
        open_page: Callable[..., Opened], server: ServerProcess) -> None:
    _, page, _ = open_page()
    start_ballot(page, "choose", ballot="9-14 23-18 14x23")
    table = table_of(page)
    assert page.inner_text("#ballot-note") == (
        "Three-move ballot ACF 46: 9-14 23-18 14x23 (Double Cross)")
    assert moves_shown(page) == ["9-14", "23-18", "14x23"]
    assert page.inner_text("#status") == "White to move."
    # White must retake on 23: the page says so.
    assert page.locator("#capture-note").is_visible()
    click_path(page, [27, 18])
    wait_idle(page)
    assert api(server, table, side="black")["state"]["moves"] == ["9-14", "23-18", "14x23",
                                                                   "27x18"]
    # The list is the deck's 156, and the dialog offers the last choice again.
    page.click("#new-game-button")
    assert page.input_value("#opening-select") == "choose"
    assert page.input_value("#ballot-select") == "9-14 23-18 14x23"
    page.click("#new-game-cancel")
