"""Rollouts in the page (js/rollout.js): "Roll out" beside a hint and beside a reviewed
decision, the table filling in as trials come in, Stop (Playwright driving Debian's chromium
against ``backgammon serve``; no console errors)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from browser_support import ServerProcess, launched_chromium, served
from test_assist import open_page, store  # noqa: F401 - the fixture, a helper

from backgammon.services.review import review_match
from scenarios import random_match

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")

#: Every distinct (status, trials done) the rollout panel shows, in order.
WATCH = """() => {
  window.rolloutSeen = [];
  const panel = document.getElementById('rollout-panel');
  const note = () => {
    const rows = document.querySelectorAll('#rollout-table tr[data-candidate]').length;
    const last = window.rolloutSeen[window.rolloutSeen.length - 1];
    const now = [panel.dataset.status || '', panel.dataset.done || '', rows];
    if (!last || last.join() !== now.join()) window.rolloutSeen.push(now);
  };
  new MutationObserver(note).observe(panel, { attributes: true, subtree: true, childList: true });
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "server-rollout")


def table_rows(page: Any) -> list[list[str]]:
    rows: list[list[str]] = page.eval_on_selector_all(
        "#rollout-table tr[data-candidate]",
        "rows => rows.map(r => [...r.children].map(c => c.textContent))")
    return rows


def test_a_hints_plays_are_rolled_out_and_the_table_fills_in(open_page: Any) -> None:  # noqa: F811
    game = open_page()
    game.start(mode="pass_and_play", cube=True)
    page = game.page
    game.press("#roll-button")
    button = page.locator('#hints-eval button[data-rollout="plays"]')
    button.wait_for(timeout=60_000)
    hinted: list[str] = page.eval_on_selector_all("#hints-ranked tr[data-play]",
                                                  "rows => rows.map(r => r.dataset.play)")
    button.click()
    assert page.locator("#rollout-panel").is_visible()
    assert page.locator("#rollout-cubeful").is_visible()  # checker play: cubeful or not
    page.select_option("#rollout-trials", "72")
    page.select_option("#rollout-truncate", "5")
    page.select_option("#rollout-plays", "3")
    page.evaluate(WATCH)
    page.click("#rollout-start")
    page.wait_for_selector('#rollout-panel[data-status="done"]', timeout=120_000)
    seen = page.evaluate("window.rolloutSeen")
    # 3 plays: blocks of 36 trials; the table showed the first block's figures while the
    # second ran, then the whole rollout's
    assert ["running", "36", 3] in seen, seen
    assert seen[-1] == ["done", "72", 3], seen
    rows = table_rows(page)
    assert [r[0] for r in rows] == ["1", "2", "3"]
    assert {r[1] for r in rows} == set(hinted[:3])  # the hint's best three, not others
    equities = [float(r[3]) for r in rows]
    assert equities == sorted(equities, reverse=True)
    assert rows[0][4] == "" and all(float(r[4]) <= 0 for r in rows[1:])
    assert all(0 < float(r[2]) < 0.5 for r in rows)  # a standard error
    assert all(0 < float(r[5].rstrip("%")) < 100 for r in rows)
    status = page.text_content("#rollout-status") or ""
    assert status.startswith("Done: 72 trials"), status
    verdict = page.text_content("#rollout-verdict") or ""
    assert verdict.startswith(f"{rows[0][1]} leads {rows[1][1]} by "), verdict
    assert page.locator("#rollout-stop").is_hidden()
    game.screenshot("rollout-hint")
    # a checker moved is the same decision: the rollout stays; the turn played, the next
    # decision's hints come, and the rollout of the turn gone by closes with them
    state = game.state()
    entry = state["legal"][0]
    game.click_move(state["turn"], entry["from"], entry["destinations"][0]["to"])
    game.wait_idle()
    page.wait_for_selector('#hints-eval button[data-rollout="plays"]', timeout=60_000)
    assert page.locator("#rollout-panel").is_visible()
    assert table_rows(page) == rows
    page.click('#hints-ranked tr[data-play].playable >> nth=0')
    game.wait_idle()
    game.press("#done-button")
    game.wait_idle()
    page.wait_for_selector("#rollout-panel", state="hidden", timeout=30_000)
    # Roll out again: a fresh panel for the new decision, none of the old figures
    game.press("#roll-button")
    page.locator('#hints-eval button[data-rollout="plays"]').click(timeout=60_000)
    assert page.locator("#rollout-panel").is_visible() and table_rows(page) == []
    page.click("#rollout-close")
    assert page.locator("#rollout-panel").is_hidden()


def test_a_reviewed_cube_decision_is_rolled_out_and_stopped(
        open_page: Any, server: ServerProcess) -> None:  # noqa: F811
    """In review, a turn's cube hint and its ranked plays each have their Roll out; the cube
    decision's rollout (cubeful, no plays to choose) runs until Stop, which keeps the trials
    done."""
    match = random_match(21, games=1, cube=True)
    gid = store(server, "rolloutreview", match)
    frames = review_match(match)["frames"]
    index = next(i for i, f in enumerate(frames) if len(f["decisions"]) == 2)
    game = open_page(f"/#game={gid}")
    page = game.page
    page.keyboard.press("v")
    page.wait_for_function("() => document.body.classList.contains('reviewing')")
    page.locator("#move-list li").nth(frames[index]["history_index"]).click()
    page.wait_for_function(f"() => document.body.dataset.reviewIndex === '{index}'")
    page.wait_for_selector('#hints-eval[data-kind="cube plays"] #hints-ranked tr[data-play]',
                           timeout=60_000)
    kinds = page.eval_on_selector_all("#hints-eval button[data-rollout]",
                                      "nodes => nodes.map(n => n.dataset.rollout)")
    assert kinds == ["cube", "plays"]
    page.click('#hints-eval button[data-rollout="cube"]')
    assert page.locator("#rollout-plays-row").is_hidden()
    assert page.locator("#rollout-cubeful-row").is_hidden()
    page.select_option("#rollout-trials", "1296")
    page.select_option("#rollout-truncate", "0")
    page.click("#rollout-start")
    page.wait_for_selector('#rollout-panel[data-status="running"] #rollout-table',
                           timeout=120_000)
    page.click("#rollout-stop")
    page.wait_for_selector('#rollout-panel[data-status="stopped"]', timeout=60_000)
    rows = table_rows(page)
    assert [r[1] for r in rows] == ["no double", "double, take", "double, pass"]
    assert rows[2][2] == "exact"
    status = page.text_content("#rollout-status") or ""
    assert status.startswith("Stopped after ") and status.endswith(" of 1296 trials."), status
    assert (page.text_content("#rollout-verdict") or "").startswith("Proper cube action: ")
    game.screenshot("rollout-review-cube")


def test_a_reviewed_play_is_rolled_out_beside_the_best(
        open_page: Any, server: ServerProcess) -> None:  # noqa: F811
    """In review, the plays rolled out are the evaluation's best and the play made, even a
    play far down the list (a random player's), which the players' own ranking leaves out."""
    match = random_match(21, games=1, cube=True)
    gid = store(server, "rolloutplayed", match)
    frames = review_match(match)["frames"]
    game = open_page(f"/#game={gid}")
    page = game.page
    page.keyboard.press("v")
    page.wait_for_function("() => document.body.classList.contains('reviewing')")
    ranked = "#hints-ranked tr[data-play]"
    for index in (i for i, f in enumerate(frames) if f["kind"] == "play" and i > 2):
        page.locator("#move-list li").nth(frames[index]["history_index"]).click()
        page.wait_for_function(f"() => document.body.dataset.reviewIndex === '{index}'")
        page.locator('#hints-eval button[data-rollout="plays"]').wait_for(timeout=60_000)
        rows: list[list[str]] = page.eval_on_selector_all(
            ranked, "rows => rows.map(r => [r.dataset.play, r.dataset.played || ''])")
        at = [i for i, (_, mark) in enumerate(rows) if mark == "true"]
        if at and at[0] >= 3:  # the play made stands third or lower: a real test
            break
    else:
        pytest.fail("no play of the random match stands third or lower")
    best, played = rows[0][0], rows[at[0]][0]
    page.click('#hints-eval button[data-rollout="plays"]')
    page.select_option("#rollout-trials", "36")
    page.select_option("#rollout-truncate", "5")
    page.select_option("#rollout-plays", "2")
    page.click("#rollout-start")
    page.wait_for_selector('#rollout-panel[data-status="done"]', timeout=120_000)
    assert {r[1] for r in table_rows(page)} == {best, played}
