"""Dice that tumble: each new roll lands with a short animation that shows, all along, the
faces the server drew; with prefers-reduced-motion there is none.

A script installed before the page's own records every die the board adds (its value, its
pips, whether it tumbles) and, frame by frame, the dice on the board while any tumbles.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser_support import ServerProcess, launched_chromium, served

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser
Page = sync_api.Page

BASE_SETTINGS = {"speed": "instant", "theme": "light"}

WATCH_DICE = """
window.__dice = {added: [], frames: []};
(function () {
  const pips = (node) => node.querySelectorAll(".pip").length;
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1 || !node.classList.contains("die")) continue;
        window.__dice.added.push({value: Number(node.dataset.value), pips: pips(node),
          tumbling: node.classList.contains("tumbling"),
          animations: node.getAnimations().length});
      }
    }
  }).observe(document, {subtree: true, childList: true});
  function frame() {
    const dice = Array.from(document.querySelectorAll("#board .die"));
    const moving = dice.filter((d) => d.getAnimations().some((a) => a.playState === "running"));
    if (moving.length) {
      window.__dice.frames.push({values: dice.map((d) => Number(d.dataset.value)),
        pips: dice.map(pips), moving: moving.length});
    }
    requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);
})();
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "server-dice")


@pytest.fixture
def open_page(browser: Browser, server: ServerProcess) -> Iterator[Callable[..., Page]]:
    contexts = []
    errors: list[str] = []

    def open_(reduced_motion: str = "no-preference") -> Page:
        context = browser.new_context(viewport={"width": 1280, "height": 860},
                                      reduced_motion=reduced_motion)
        context.add_init_script(
            "localStorage.setItem('backgammon.settings', "
            f"{json.dumps(json.dumps(BASE_SETTINGS))});")
        context.add_init_script(WATCH_DICE)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url + "/")
        return page

    yield open_
    assert errors == []
    for context in contexts:
        context.close()


def wait_idle(page: Page) -> None:
    page.wait_for_function(
        "() => document.body.dataset.version && !document.body.classList.contains('busy')")


def state_of(page: Page, server: ServerProcess) -> dict[str, Any]:
    game_id = str(page.evaluate("location.hash")).split("game=", 1)[1]
    state: dict[str, Any] = server.get(f"/api/games/{game_id}")
    return state


def shown(page: Page) -> list[int]:
    values = page.eval_on_selector_all("#board .die", "nodes => nodes.map(n => "
                                                      "Number(n.dataset.value))")
    return [int(v) for v in values]


def faces(page: Page) -> list[int]:
    counts = page.eval_on_selector_all("#board .die", "nodes => nodes.map(n => "
                                                      "n.querySelectorAll('.pip').length)")
    return [int(c) for c in counts]


def expanded(dice: list[int]) -> list[int]:
    return dice * 2 if dice[0] == dice[1] else list(dice)


def play_rolls(page: Page, server: ServerProcess, turns: int) -> list[list[int]]:
    """Pass & play: roll, check the dice shown against the server's, play the first moves
    listed, Done; ``turns`` times. Returns the rolls as shown (doubles four times)."""
    page.check("input[name=mode][value=pass_and_play]")
    page.select_option("#kind-select", "single")
    page.set_checked("#cube-input", False)
    page.click("#new-game-start")
    wait_idle(page)
    rolls = []
    for _ in range(turns):
        page.click("#roll-button")
        wait_idle(page)
        state = state_of(page, server)
        if state["dice"] is None:  # no legal move: the turn passed
            continue
        roll = expanded(state["dice"])
        if state["opening"]:  # each side's die on its own half of the board (turnshow.js)
            assert sorted(shown(page)) == sorted(roll) == sorted(faces(page))
        else:
            assert shown(page) == roll  # the faces drawn are the roll
            assert faces(page) == roll
        rolls.append(roll)
        while state["legal"]:
            entry = state["legal"][0]
            target = entry["destinations"][-1]["to"]
            ring = f'#board .landing-ring[data-from="{entry["from"]}"][data-point="{target}"]'
            if not page.locator(ring).count():
                page.click(f'#board .checker.top[data-color="{state["turn"]}"]'
                           f'[data-point="{entry["from"]}"]')
            page.click(ring)
            wait_idle(page)
            state = state_of(page, server)
            # The used dice stay the same faces, only dimmed.
            assert sorted(shown(page)) == sorted(roll) == sorted(faces(page))
        if state["can"]["done"]:
            page.click("#done-button")
            wait_idle(page)
    return rolls


def test_the_dice_tumble_and_always_show_the_roll(open_page: Callable[..., Page],
                                                  server: ServerProcess) -> None:
    page = open_page()
    rolls = play_rolls(page, server, 4)
    assert len(rolls) >= 2
    record = page.evaluate("window.__dice")
    added = record["added"]
    # Every die ever put on the board shows its number, in pips, from the moment it is there.
    assert added and all(d["pips"] == d["value"] for d in added)
    # A new roll tumbles (an animation running from the start, with the final face drawn).
    tumbling = [d for d in added if d["tumbling"]]
    assert len(tumbling) >= 2 * len(rolls)
    assert all(d["animations"] >= 1 for d in tumbling)
    assert {d["value"] for d in tumbling} <= {v for roll in rolls for v in roll}
    # Frame by frame during a tumble: the dice shown are a roll the server drew, face and all.
    allowed = {tuple(sorted(roll)) for roll in rolls}
    for frame in record["frames"]:
        assert tuple(sorted(frame["values"])) in allowed
        assert frame["pips"] == frame["values"]
    # At rest, nothing tumbles.
    page.wait_for_function("() => !document.querySelector('#board .die.tumbling')")
    assert page.evaluate(
        "Array.from(document.querySelectorAll('#board .die')).every("
        "d => d.getAnimations().length === 0)")


def test_no_animation_with_reduced_motion(open_page: Callable[..., Page],
                                          server: ServerProcess) -> None:
    page = open_page(reduced_motion="reduce")
    assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches") is True
    rolls = play_rolls(page, server, 3)
    assert rolls
    record = page.evaluate("window.__dice")
    assert record["added"] and all(d["pips"] == d["value"] for d in record["added"])
    assert [d for d in record["added"] if d["tumbling"] or d["animations"]] == []
    assert record["frames"] == []
