"""A raccoon on the page, against the computer, in a real browser: the Raccoon button beside
Beaver follows the view's ``can.raccoon``, the status line and the live region say it, and the
computer answers it (issue 34).

The fixtures (the server, chromium, :class:`GamePage`) are those of ``test_web_game.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
import test_web_game
from test_page_fixes import open_game

from scenarios import BEAVER_SETUP

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")

browser = test_web_game.browser
server = test_web_game.server
open_page = test_web_game.open_page


def announced(page: Any) -> list[str]:
    lines: list[str] = page.eval_on_selector_all(
        "#announcer p", "nodes => nodes.map(n => n.textContent)")
    return lines


def test_the_person_raccoons_the_computers_beaver(open_page: Any) -> None:
    """White (the person) doubles at 36% with beavers on (scenarios.BEAVER_SETUP): the
    computer beavers, the Raccoon button appears beside Take and Drop, and a click on it
    redoubles to 8; the computer takes, keeping the cube."""
    game = open_page()
    state = game.server.post("/api/games", {"mode": "computer", "level": "easy",
                                            "side": "white", "setup": BEAVER_SETUP})
    open_game(game, state["id"])
    page = game.page
    assert game.visible("#double-button") and not game.visible("#raccoon-button")
    game.press("#double-button")
    page.wait_for_function("() => !document.getElementById('raccoon-button').hidden")
    assert game.visible("#take-button") and game.visible("#drop-button")
    assert not game.visible("#beaver-button")  # no beaver of a beaver
    raccoon = page.locator("#raccoon-button")
    assert raccoon.inner_text() == "Raccoon"
    assert page.inner_text("#status") == "The computer beavers to 4: take, drop or raccoon?"
    cube = page.locator("#board .cube")
    assert (cube.get_attribute("data-value"), cube.get_attribute("data-owner")) == ("2", "black")
    game.press("#raccoon-button")
    page.wait_for_function(
        "() => [...document.querySelectorAll('#move-list li')].some("
        "li => li.textContent.includes('Computer takes'))")
    game.wait_idle()
    state = game.state()
    assert state["cube"] == {"enabled": True, "value": 8, "owner": "black", "offered_by": None}
    history = page.locator("#move-list li").all_inner_texts()
    assert [line.strip() for line in history[-3:]] == [
        "Computer beavers to 4", "You raccoon to 8", "Computer takes"]
    assert not game.visible("#raccoon-button")
    said = announced(page)
    assert "You raccoon to 8" in said
    assert any(line.startswith("The computer takes") for line in said), said
    assert (cube.get_attribute("data-value"), cube.get_attribute("data-owner")) == ("8", "black")
