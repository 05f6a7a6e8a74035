"""Hints with the computer's evaluation, the cube hint, and analysis in the page (Playwright
driving Debian's chromium against ``backgammon serve``); no console errors (``GamePage``
records them and the fixture checks there are none)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    ServerProcess,
    console_errors,
    expected_rows,
    launched_chromium,
    ranked_rows,
    served,
)
from test_assist import get_text, open_page, play_turn, store  # noqa: F401 - the fixture, helpers

from backgammon.analysis import analyze
from backgammon.core.match import Match
from backgammon.core.xgid import Xgid
from backgammon.records import read_mat
from backgammon.services.analysis_jobs import position_evaluation
from backgammon.services.review import review_match
from conftest import shared_path
from scenarios import random_match

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "server-analysis")


def test_the_hint_shows_ranked_plays_with_equities_and_chances(open_page: Any) -> None:  # noqa: F811
    game = open_page()
    game.start(mode="pass_and_play", cube=True)
    page = game.page
    # before the opening roll there is no cube; roll, then the plays are ranked
    game.press("#roll-button")
    page.wait_for_selector('#hints-eval[data-kind="plays"] #hints-ranked tr[data-play]',
                           timeout=60_000)
    rows = page.eval_on_selector_all(
        "#hints-ranked tr[data-play]",
        "rows => rows.map(r => [...r.children].map(c => c.textContent))")
    assert len(rows) >= 3
    assert [r[0] for r in rows[:3]] == ["1", "2", "3"]
    assert rows[0][4] == ""  # the best has no difference
    assert all(r[4].startswith("-") or r[4] == "0.000" for r in rows[1:])
    win = float(rows[0][5].rstrip("%"))
    assert 0.0 < win < 100.0 and rows[0][3][0] in "+-" and rows[0][2].endswith("-ply")
    game.screenshot("hint-ranked")


def test_the_cube_hint_before_the_roll(open_page: Any) -> None:  # noqa: F811
    game = open_page()
    game.start(mode="pass_and_play", cube=True)
    page = game.page
    game.press("#roll-button")
    page.wait_for_selector("#hints-ranked tr[data-play]", timeout=60_000)
    state = game.state()
    while state["legal"]:  # any play will do: the next player's cube hint is what is tested
        entry = state["legal"][0]
        game.click_move(state["turn"], entry["from"], entry["destinations"][0]["to"])
        state = game.state()
    game.press("#done-button")
    page.wait_for_selector("#hints-cube", timeout=60_000)
    text = page.inner_text("#hints-cube")
    assert text.startswith("Cube: no double, take")
    assert "Double/pass +1.000" in page.inner_text("#hints-eval")


def open_review(opener: Any, gid: str) -> tuple[Any, list[str], list[str]]:
    """The saved game ``gid`` opened and put in review; its console errors and the bodies of
    the evaluation requests it makes from then on (both lists fill as the page runs)."""
    game = opener(f"/#game={gid}")
    page = game.page
    errors = console_errors(page)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.post_data or "")
            if r.url.endswith("/api/positions/evaluation") else None)
    page.keyboard.press("v")
    page.wait_for_function("() => document.body.classList.contains('reviewing')")
    return game, errors, asked


def test_review_shows_the_computers_evaluation_of_each_turn(
        open_page: Any, server: ServerProcess) -> None:  # noqa: F811
    """Issue 15: with hints on, a reviewed turn shows the cube hint before its roll and the
    ranked plays of its roll (the play made marked), as the server evaluates the frame's
    XGIDs at Expert; the start of the game has no decision, and no request is made for it."""
    match = random_match(21, games=1, cube=True)
    gid = store(server, "reviewhints", match)
    frames = review_match(match)["frames"]
    index = next(i for i, f in enumerate(frames) if len(f["decisions"]) == 2)
    frame = frames[index]
    cube, plays = (position_evaluation(Xgid.parse(x)) for x in frame["decisions"])
    game, errors, asked = open_review(open_page, gid)
    page = game.page
    page.keyboard.press("Home")
    page.wait_for_function("() => document.body.dataset.reviewIndex === '0'")
    page.wait_for_selector('#hints-panel[data-for^="review:1:null:"]')
    assert page.inner_text("#hints-text").startswith("No decision here")
    assert page.inner_text("#hints-eval") == ""
    page.locator("#move-list li").nth(frame["history_index"]).click()
    page.wait_for_function(f"() => document.body.dataset.reviewIndex === '{index}'")
    page.wait_for_selector('#hints-eval[data-kind="cube plays"] #hints-ranked tr[data-play]',
                           timeout=60_000)
    assert page.inner_text("#hints-text") == f"{frame['text']}: the computer's evaluation."
    assert page.inner_text("#hints-cube") == f"Cube before the roll: {cube['text']}."
    e = cube["equities"]
    assert f"No double {e['no_double']:+.3f} · Double/take {e['double_take']:+.3f}" in \
        page.inner_text("#hints-eval")
    assert ranked_rows(page) == expected_rows(plays)
    roll = f"{max(frame['dice'])}-{min(frame['dice'])}"
    assert page.inner_text("#hints-eval .hints-plays-title") == \
        f"Best plays for {roll} (equity in EMG, deepest search first):"
    made = frame["text"].rsplit(": ", 1)[1]
    marked = page.eval_on_selector_all("#hints-ranked tr[data-played]",
                                       "rows => rows.map(r => r.dataset.play)")
    assert marked == ([made] if made in [p["play"] for p in plays["plays"]] else [])
    # Only the frame's own decisions were asked for (the start has none).
    assert sorted(asked) == sorted(json.dumps({"position": x, "gammons": True},
                                              separators=(",", ":"))
                                   for x in frame["decisions"])
    game.screenshot("review-hints")
    # Leaving review brings the live hints back; hints off hides the panel in review too.
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.body.classList.contains('reviewing')")
    assert not page.inner_text("#hints-text").endswith("the computer's evaluation.")
    page.keyboard.press("v")
    page.wait_for_function("() => document.body.classList.contains('reviewing')")
    page.keyboard.press("h")
    assert not page.locator("#hints-panel").is_visible()
    assert errors == []


def test_review_of_a_game_without_gammons_asks_for_it_so(
        open_page: Any, server: ServerProcess) -> None:  # noqa: F811
    """An XGID cannot say that gammons are off: the review's frames say it, the page sends
    it with each evaluation, and the plays shown are valued without gammons."""
    match = random_match(23, games=1, gammons=False)
    gid = store(server, "reviewnogammons", match)
    frames = review_match(match)["frames"]
    index = next(i for i, f in enumerate(frames) if f["kind"] == "play" and f["decisions"])
    frame = frames[index]
    assert frame["gammons"] is False
    plays = position_evaluation(Xgid.parse(frame["decisions"][0]), gammons=False)
    game, errors, asked = open_review(open_page, gid)
    page = game.page
    page.locator("#move-list li").nth(frame["history_index"]).click()
    page.wait_for_function(f"() => document.body.dataset.reviewIndex === '{index}'")
    page.wait_for_selector("#hints-ranked tr[data-play]", timeout=60_000)
    assert ranked_rows(page) == expected_rows(plays)
    assert asked == [json.dumps({"position": frame["decisions"][0], "gammons": False},
                                separators=(",", ":"))]
    assert errors == []


def test_analysis_after_a_game_marks_summary_graph(open_page: Any, server: ServerProcess) -> None:  # noqa: F811
    # a short game (37 turns: 19 very bad, 5 bad and 3 doubtful marks, a cube turned) so the
    # expert analysis, made here and on the server, stays quick
    match = random_match(37, games=1, cube=True, double=0.1)
    gid = store(server, "analysedgame", match)
    expected = analyze(match, "expert")
    marked_lines = _expected_marks(match, expected)
    game = open_page(f"/#game={gid}")
    page = game.page
    page.click("#analyze-button")
    page.wait_for_selector('#analysis-panel[data-state="done"]', timeout=240_000)
    shown = page.eval_on_selector_all(
        "#move-list li[data-mark]", "n => n.map(x => [[...x.parentNode.children].indexOf(x),"
        " x.dataset.mark])")
    assert {line: m for line, m in shown} == marked_lines
    summary = summary_figures(page)
    assert summary["pr"] == [f"{p.pr:.1f}" for p in expected.players]
    assert summary["rating"] == [p.rating or "no decisions" for p in expected.players]
    assert summary["luck"][0] == f"{expected.players[0].luck_emg:+.3f}"
    points = page.locator("#analysis-graph svg circle.win-point")
    assert points.count() >= 10
    target = points.nth(5)
    line = int(target.get_attribute("data-line") or "-1")
    target.click()
    page.wait_for_function(
        f"() => document.querySelector('#move-list').children[{line}]"
        ".classList.contains('current')")
    assert page.get_attribute("#analysis-detail", "data-line") == str(line)
    # a click on the graph away from any dot (at the top or bottom edge, across from the 8th
    # point, on the side away from it) goes to the turn nearest it across
    other = points.nth(7)
    line = int(other.get_attribute("data-line") or "-1")
    svg = page.locator("#analysis-graph svg")
    dot, graph = other.bounding_box(), svg.bounding_box()
    assert dot is not None and graph is not None
    high = dot["y"] + dot["height"] / 2 < graph["y"] + graph["height"] / 2
    # relative to the graph, clicked where it is then: the review's evaluation, which can come
    # in after the jump above, may change the layout around the graph and move it on the page
    svg.click(position={"x": dot["x"] + dot["width"] / 2 + 0.5 - graph["x"],
                        "y": graph["height"] - 2 if high else 2})
    page.wait_for_function(
        f"() => document.querySelector('#move-list').children[{line}]"
        ".classList.contains('current')")
    game.screenshot("analysis-game")


def test_analysis_at_master_from_the_settings(open_page: Any, server: ServerProcess) -> None:  # noqa: F811
    """Settings, "Analyse at": Master (3-ply) is kept in the browser and sent with Analyze; the
    panel says the level and depth the server analysed at, and marks what the library's own
    3-ply analysis marks."""
    match = Match(0, cube=False)  # one turn: a 3-ply analysis takes seconds a turn
    match.current.roll((3, 1))
    match.current.play("8/7 8/5")
    gid = store(server, "masteranalysis", match)
    expected = analyze(match, "master")
    game = open_page(f"/#game={gid}")
    page = game.page
    page.click("#settings-button")
    assert page.input_value("#analysis-level-select") == "expert"
    page.select_option("#analysis-level-select", "master")
    game.screenshot("settings-analysis-level")
    page.click("#settings-close")
    saved = json.loads(page.evaluate("localStorage.getItem('backgammon.settings')"))
    assert saved["analysis_level"] == "master"
    with page.expect_request(lambda r: r.url.endswith("/api/analysis")
                             and r.method == "POST") as sent:
        page.click("#analyze-button")
    assert json.loads(sent.value.post_data or "{}")["level"] == "master"
    page.wait_for_selector('#analysis-panel[data-state="done"]', timeout=240_000)
    assert page.inner_text("#analysis-status").startswith("Analysed at Master (3-ply): ")
    shown = page.eval_on_selector_all(
        "#move-list li[data-mark]", "n => n.map(x => [[...x.parentNode.children].indexOf(x),"
        " x.dataset.mark])")
    assert {line: m for line, m in shown} == _expected_marks(match, expected) != {}
    game.screenshot("analysis-master")


def summary_figures(page: Any) -> dict[str, list[str]]:
    """The analysis summary as the page shows it: each figure's row, one text per player."""
    rows: list[tuple[str, list[str]]] = page.eval_on_selector_all(
        "#analysis-summary tr[data-figure]",
        "rows => rows.map(r => [r.dataset.figure,"
        " [...r.querySelectorAll('td')].map(c => c.textContent)])")
    return dict(rows)


def _expected_marks(match: Any, result: Any) -> dict[int, str]:
    """The worst mark of each move-list line, as the page must show it."""
    order = {"doubtful": 1, "bad": 2, "very bad": 3}
    lines: dict[int, str] = {}
    offset = 0
    several = len(match.games) > 1
    for index, g in enumerate(match.games):
        offset += 1 if several else 0
        for d in result.games[index].decisions:
            if d.mark and d.turn < len(g.history):
                line = offset + d.turn
                if order[d.mark] > order.get(lines.get(line, ""), 0):
                    lines[line] = d.mark
        offset += len(g.history) + (1 if g.outcome is not None else 0)
    return lines


def test_an_opened_mat_is_analysed(open_page: Any, server: ServerProcess,  # noqa: F811
                                   tmp_path: Path) -> None:
    source = shared_path("mat", "gnubg_selfplay_1p_s1020.mat")
    path = copied_mat(tmp_path, source.name)
    gid = store(server, "beforeimport", random_match(3, games=1))
    game = open_page(f"/#game={gid}")
    page = game.page
    page.set_input_files("#import-file", str(path))
    page.wait_for_function("() => document.body.dataset.reviewSource === 'record'")
    page.click("#analyze-button")
    page.wait_for_selector('#analysis-panel[data-state="done"]', timeout=240_000)
    expected = analyze(read_mat(source.read_text(encoding="utf-8")), "expert")
    players = page.eval_on_selector_all("#analysis-summary th[data-player]",
                                        "cells => cells.map(c => c.dataset.player)")
    assert players == ["gnubg", "root"]
    assert page.inner_text("#analysis-graph .graph-caption").startswith(
        "gnubg's chances of winning the game, turn by turn")
    assert summary_figures(page)["checker"] == [f"{p.chequer_error_rate_memg:.1f}"
                                                for p in expected.players]
    assert page.locator("#analysis-graph svg circle.win-point").count() >= 10
    game.screenshot("analysis-mat")


def test_the_graph_draws_each_game_of_a_session_apart(
        open_page: Any, server: ServerProcess) -> None:  # noqa: F811
    """A money session of three games: one line per game and a rule between games, not one
    line jumping from one game's end to the next one's start."""
    match = random_match(3, games=3)
    assert len(match.games) == 3
    game = open_page(f"/#game={store(server, 'threegames', match, kind='money')}")
    page = game.page
    page.click("#analyze-button")
    page.wait_for_selector('#analysis-panel[data-state="done"]', timeout=240_000)
    lines = page.eval_on_selector_all("#analysis-graph svg polyline.win-line",
                                      "lines => lines.map(l => l.dataset.game)")
    assert lines == ["0", "1", "2"]
    assert page.locator("#analysis-graph svg line.win-game-rule").count() == 2
    game.screenshot("analysis-session")


def copied_mat(tmp_path: Path, name: str) -> Path:
    """The shared match file ``name``, copied where the page's file input can take it."""
    path = tmp_path / name
    path.write_text(shared_path("mat", name).read_text(encoding="utf-8"), encoding="utf-8")
    return path


def open_and_analyse(page: Any, path: Path) -> str:
    """Open the .mat at ``path``, start its analysis and wait for its first turns; its job.
    (The review index is cleared first: the opened record shows its frame 0 once read, even
    when the same file was on screen already.)"""
    page.evaluate("delete document.body.dataset.reviewIndex")
    page.set_input_files("#import-file", str(path))
    page.wait_for_function("() => document.body.dataset.reviewIndex === '0' && document"
                           f".getElementById('review-title').textContent.endsWith('({path.name})')")
    with page.expect_response(lambda r: r.url.endswith("/api/analysis")
                              and r.request.method == "POST") as posted:
        page.click("#analyze-button")
    page.wait_for_function(
        "() => /Analysing… [1-9]\\d* of \\d+ turns/.test("
        "document.getElementById('analysis-status').textContent)", timeout=60_000)
    job_id: str = posted.value.json()["id"]
    return job_id


def ends_cancelled(server: ServerProcess, job_id: str) -> None:
    """The job is (or within 30 s becomes) cancelled on the server."""
    deadline = time.monotonic() + 30
    status = ""
    while time.monotonic() < deadline:
        status = json.loads(get_text(server, f"/api/analysis/{job_id}"))["status"]
        if status == "cancelled":
            return
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} is {status}, not cancelled")


def test_an_analysis_is_stopped_by_its_button_and_by_leaving_the_page(
        open_page: Any, server: ServerProcess, tmp_path: Path) -> None:  # noqa: F811
    """Stop ends the job on the server (its worker is freed) and says so; a page reloaded
    mid-analysis cancels its job as it goes."""
    path = copied_mat(tmp_path, "gnubg_selfplay_7p_s1005.mat")
    game = open_page(f"/#game={store(server, 'beforestop', random_match(3, games=1))}")
    page = game.page
    first = open_and_analyse(page, path)
    assert page.locator("#analysis-stop").is_visible()
    page.click("#analysis-stop")
    page.wait_for_selector('#analysis-panel[data-state="cancelled"]', timeout=30_000)
    assert page.inner_text("#analysis-status") == "Analysis stopped."
    assert not page.locator("#analysis-stop").is_visible()
    ends_cancelled(server, first)

    second = open_and_analyse(page, path)
    page.reload()
    ends_cancelled(server, second)


def test_an_analysis_is_dropped_when_the_page_moves_on_before_it_ends(
        open_page: Any, server: ServerProcess, tmp_path: Path) -> None:  # noqa: F811
    """An analysis belongs to what was on screen when it started: opening another .mat, or
    going back to the game, stops it on the server, and its marks are never drawn on the
    moves now shown."""
    long, short = (copied_mat(tmp_path, name) for name in
                   ("gnubg_selfplay_7p_s1011.mat", "gnubg_selfplay_1p_s1020.mat"))
    game = open_page(f"/#game={store(server, 'beforemoveon', random_match(5, games=1))}")
    page = game.page
    first = open_and_analyse(page, long)
    page.set_input_files("#import-file", str(short))  # another record, mid-analysis
    page.wait_for_function("() => document.getElementById('review-title').textContent"
                           f".endsWith('({short.name})')")
    ends_cancelled(server, first)
    page.wait_for_selector("#analysis-panel", state="hidden")
    assert page.locator("#move-list li[data-mark]").count() == 0

    second = open_and_analyse(page, long)
    page.keyboard.press("Escape")  # back to the game, mid-analysis
    page.wait_for_function("() => !document.body.classList.contains('reviewing')")
    ends_cancelled(server, second)
    page.wait_for_selector("#analysis-panel", state="hidden")
    assert page.locator("#move-list li[data-mark]").count() == 0


def test_a_review_frame_asks_again_while_the_evaluations_are_busy(
        open_page: Any, server: ServerProcess) -> None:  # noqa: F811
    """A 503 busy (every evaluation slot taken, as when stepping quickly through a review) is
    not the frame's answer: the frame on screen asks again and shows its evaluation."""
    match = random_match(21, games=1, cube=True)
    gid = store(server, "reviewbusy", match)
    frames = review_match(match)["frames"]
    index = next(i for i, f in enumerate(frames) if len(f["decisions"]) == 2)
    game = open_page(f"/#game={gid}")
    page = game.page
    refused: list[str] = []

    def busy_twice(route: Any) -> None:
        if len(refused) < 2:
            refused.append(route.request.post_data or "")
            route.fulfill(status=503, content_type="application/json", body=json.dumps(
                {"error": {"code": "busy", "message": "the computer is busy"}}))
        else:
            route.continue_()

    page.route("**/api/positions/evaluation", busy_twice)
    page.keyboard.press("v")
    page.wait_for_function("() => document.body.classList.contains('reviewing')")
    page.locator("#move-list li").nth(frames[index]["history_index"]).click()
    page.wait_for_function(f"() => document.body.dataset.reviewIndex === '{index}'")
    page.wait_for_selector('#hints-eval[data-kind="cube plays"] #hints-ranked tr[data-play]',
                           timeout=60_000)
    assert len(refused) == 2
    assert "busy" not in page.inner_text("#hints-eval")


def test_an_analysis_of_the_live_game_says_when_the_game_has_gone_on(
        open_page: Any) -> None:  # noqa: F811
    """The analysis of a game in progress covers the moves played then: once more are played
    it says so, and a new game puts it away."""
    game = open_page()
    game.start(mode="pass_and_play", cube=False)
    page = game.page

    game.press("#roll-button")
    play_turn(game)
    lines = len(game.state()["history"])
    page.click("#analyze-button")
    page.wait_for_selector('#analysis-panel[data-state="done"]', timeout=120_000)
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.body.classList.contains('reviewing')")
    play_turn(game)
    page.wait_for_selector('#analysis-panel[data-state="stale"]')
    assert page.inner_text("#analysis-status") == (
        f"This analysis covers the first {lines} lines of the move list: Analyze again for "
        "the moves played since.")
    page.click("#new-game-button")  # a game in progress: its replacement is confirmed first
    page.wait_for_selector("#replace-dialog[open]")
    page.click("#replace-confirm")
    page.wait_for_selector("#new-game-dialog[open]")
    game.start(mode="pass_and_play", cube=False)
    page.wait_for_selector("#analysis-panel", state="hidden")
