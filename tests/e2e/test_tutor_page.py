"""Tutor mode in the page (js/tutor.js): a warned play (Rethink, then Play anyway), a warned
cube action and its answer, Hint; off by default (Playwright driving Debian's chromium against
``backgammon serve``; no console errors). The online page never warns:
``test_tutor_online.py``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser_support import ServerProcess, launched_chromium, served
from test_assist import open_page  # noqa: F401 - the fixture

from backgammon.core.xgid import Xgid
from backgammon.services.setup import setup_json, setup_match
from backgammon.services.tutor import tutor_check

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")

#: The starting position, White to play 3-1; and before the roll, White on roll.
OPENING_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
START = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
TUTOR = {"tutor": True, "tutor_threshold": 0.04}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "server-tutor")


def game_from(server: ServerProcess, xgid: str) -> str:
    """A pass & play game with the cube started at ``xgid``; its id."""
    state = server.post("/api/games", {"mode": "pass_and_play", "cube": True,
                                       "setup": setup_json(Xgid.parse(xgid))})
    game_id: str = state["id"]
    return game_id


def watch_tutor(page: Any) -> list[str]:
    """The bodies of the page's tutor requests, as they are made."""
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.post_data or "")
            if r.url.endswith("/tutor") else None)
    return asked


def test_a_warned_play_rethink_then_play_anyway(open_page: Any, server: ServerProcess) -> None:  # noqa: F811
    gid = game_from(server, OPENING_31)
    game = open_page(f"/#game={gid}", settings=TUTOR)
    page = game.page
    asked = watch_tutor(page)
    game.click_move("white", 13, 10)
    game.click_move("white", 10, 9)
    before = game.state()["version"]
    page.click("#done-button")
    page.wait_for_selector("#tutor-dialog[open]", timeout=60_000)
    expected = setup_match(Xgid.parse(OPENING_31)).current
    expected.move("13/10")
    expected.move("10/9")
    verdict = tutor_check(expected, "done")
    assert verdict["loss"] > 0.04
    text = page.text_content("#tutor-text") or ""
    assert text == verdict["text"]
    assert text.startswith("This play is a ") and f"it loses {verdict['loss']:.3f} equity" in text
    assert asked == ['{"action":"done"}']
    game.screenshot("tutor-play")
    page.click("#tutor-rethink")
    game.wait_idle()
    assert not page.locator("#tutor-dialog").is_visible()
    state = game.state()
    assert (state["phase"], state["version"]) == ("move", before)  # nothing was sent
    assert len(state["played"]) == 2  # the checkers stay where they are
    page.click("#done-button")
    page.wait_for_selector("#tutor-dialog[open]", timeout=60_000)
    assert page.text_content("#tutor-anyway") == "Play anyway"
    page.click("#tutor-anyway")
    game.wait_idle()
    state = game.state()
    assert state["phase"] == "roll" and state["turn"] == "black"
    assert "13/9" in str(state["history"])


def test_a_warned_cube_action_and_a_hint(open_page: Any, server: ServerProcess) -> None:  # noqa: F811
    """Doubling at the start is a very bad error: warned, Double anyway doubles; the answer's
    pass is warned too, Hint opens the hints on the cube; a take loses nothing and goes on."""
    gid = game_from(server, START)
    game = open_page(f"/#game={gid}", settings={**TUTOR, "tutor_threshold": 0.16})
    page = game.page
    page.click("#hints-button")  # hints off: the tutor's Hint turns them on
    assert page.locator("#hints-panel").is_hidden()
    page.click("#double-button")
    page.wait_for_selector("#tutor-dialog[open]", timeout=60_000)
    text = page.text_content("#tutor-text") or ""
    assert text.startswith("Doubling is a very bad error: it loses "), text
    assert text.endswith(" equity (the best: no double).")
    game.screenshot("tutor-double")
    assert page.text_content("#tutor-anyway") == "Double anyway"
    page.click("#tutor-anyway")
    game.wait_idle()
    assert game.state()["phase"] == "cube"
    page.click("#drop-button")
    page.wait_for_selector("#tutor-dialog[open]", timeout=60_000)
    assert (page.text_content("#tutor-text") or "").startswith(
        "Passing is a very bad error: it loses ")
    assert page.text_content("#tutor-anyway") == "Pass anyway"
    page.click("#tutor-hint")
    game.wait_idle()
    assert game.state()["phase"] == "cube"  # not sent
    assert page.locator("#hints-panel").is_visible()
    page.wait_for_selector("#hints-cube", timeout=60_000)
    assert (page.text_content("#hints-cube") or "").startswith("Best answer: take.")
    page.click("#take-button")
    game.wait_idle()
    assert not page.locator("#tutor-dialog").is_visible()
    state = game.state()
    assert state["cube"]["value"] == 2 and state["phase"] == "roll"


def test_the_tutor_is_off_by_default(open_page: Any, server: ServerProcess) -> None:  # noqa: F811
    gid = game_from(server, START)
    game = open_page(f"/#game={gid}")
    asked = watch_tutor(game.page)
    game.page.click("#settings-button")
    assert not game.page.is_checked("#tutor-input")
    assert game.page.input_value("#tutor-threshold-select") == "0.04"
    game.page.click("#settings-close")
    game.press("#double-button")
    assert game.state()["phase"] == "cube" and asked == []
