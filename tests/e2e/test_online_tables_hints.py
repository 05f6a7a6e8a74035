"""Issue 15 at the shared door (js/online_tables.js), in real browsers: during a game against a
person the hints panel says there are none, and reviewing the game in progress asks the
server for no evaluation (the page's view says ``hints`` false until the room's game is
over); once it is over (a resignation) hints are back and the review shows the computer's
evaluation of a turn; Analyze is off while the game is played, then analyses the finished game
for both players (the room's ``.mat`` transcript, read by the server as an opened file);
both browsers' records count the game. Screenshot: ``test-artifacts/e2e/tables-hints-*.png``.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from browser_support import ARTIFACTS, expected_rows, ranked_rows
from test_online_tables_backgammon import (  # noqa: F401 - the fixtures
    Player,
    browser,
    open_player,
    server,
    settle,
)
from test_online_tables_network import create, join, take_turn

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")

NONE = "No hints in a game against a person until the game is over."


def start(open_player: Callable[..., Player], *, cube: bool) -> tuple[Player, Player]:  # noqa: F811
    """Alice makes a single game, Bob joins; both browsers have the hints panel on."""
    players = []
    for _ in range(2):
        player = open_player("/health")
        player.page.evaluate("() => localStorage.setItem('backgammon.hints', 'on')")
        players.append(player)
    alice, bob = players
    alice.page.goto(alice.base + "/")
    link = create(alice, cube=cube)
    join(bob, link)
    settle(alice, bob)
    return alice, bob


def resign(alice: Player, bob: Player) -> tuple[Player, Player]:
    """The player on roll resigns a single game, the other accepts: (resigner, winner)."""
    resigner = alice if alice.visible("#resign-button") else bob
    other = bob if resigner is alice else alice
    resigner.page.click("#resign-button")
    resigner.page.click('#resign-dialog button[value="single"]')
    settle(alice, bob)
    other.page.click("#online-accept-button")
    settle(alice, bob)
    return resigner, other


def test_no_hints_while_the_online_game_is_played_then_hints_in_its_review(
        open_player: Callable[..., Player]) -> None:  # noqa: F811
    from backgammon.core.position import Position
    from backgammon.core.xgid import Xgid
    from backgammon.services.analysis_jobs import position_evaluation

    alice, bob = start(open_player, cube=True)
    for _ in range(2):
        take_turn(alice, bob)
    watcher = bob
    page = watcher.page
    asked: list[tuple[str, str]] = []
    page.on("request", lambda r: asked.append((r.url, r.post_data or ""))
            if "evaluation" in r.url or r.url.endswith("/hints") else None)
    assert watcher.visible("#hints-panel") and watcher.text("#hints-text") == NONE
    assert page.locator("#board.hints").count() == 0  # not even the movable checkers marked

    def review_opening_play() -> None:
        page.click("#review-button")
        page.wait_for_selector("body.reviewing")
        page.click("#review-first")
        page.click("#review-next")
        page.wait_for_function("() => document.body.dataset.reviewIndex === '1'")
        page.wait_for_selector('#hints-panel[data-for^="review:1:0:"]')

    review_opening_play()
    assert watcher.text("#hints-text") == NONE and watcher.text("#hints-eval") == ""
    page.wait_for_timeout(600)  # well past the moment the panel would ask (120 ms)
    assert watcher.text("#hints-text") == NONE and asked == []
    page.click("#review-exit")
    settle(alice, bob)

    resign(alice, bob)
    assert asked == []  # nothing was evaluated while the game was on
    page.wait_for_function("() => document.getElementById('hints-text').textContent"
                           ".startsWith('The game is over: hints are back.')")
    review_opening_play()
    page.wait_for_selector('#hints-eval[data-kind="plays"] #hints-ranked tr[data-play]',
                           timeout=60_000)
    posted = [json.loads(body)["position"] for url, body in asked
              if url.endswith("/api/positions/evaluation")]
    assert len(posted) == 1
    xgid = Xgid.parse(posted[0])  # the opening position, the opening roll, money play
    assert list(xgid.position.points) == list(Position.start().points)
    assert xgid.dice is not None
    assert (xgid.match_length, xgid.cube_value, xgid.cube_owner) == (0, 1, None)
    assert ranked_rows(page) == expected_rows(position_evaluation(xgid))
    page.screenshot(path=str(ARTIFACTS / "tables-hints-review.png"), full_page=True,
                    animations="disabled")


def test_both_players_analyse_the_finished_online_game(
        open_player: Callable[..., Player]) -> None:  # noqa: F811
    alice, bob = start(open_player, cube=False)
    for _ in range(4):
        take_turn(alice, bob)
    asked: list[str] = []
    alice.page.on("request", lambda r: asked.append(r.url) if "/api/analysis" in r.url else None)
    # while the game is played Analyze is off, and says when it comes
    assert alice.page.is_disabled("#analyze-button")
    assert "once the game is over" in (alice.page.get_attribute("#analyze-button", "title") or "")
    assert asked == []
    resigner, winner = resign(alice, bob)
    for player in (alice, bob):
        assert player.visible("#result")
    # each browser's record counts the online game, as the room refereed it (issue 18)
    for player, won in ((resigner, 0), (winner, 1)):
        player.page.wait_for_function(
            "async () => (await (await fetch('/api/stats?browser=' + localStorage.getItem("
            "'backgammon.browser'))).json()).total.games === 1")
        stats = player.page.evaluate(
            "async () => (await fetch('/api/stats?browser=' + localStorage.getItem("
            "'backgammon.browser'))).json()")
        row = [r for r in stats["by_opponent"] if r["opponent"] == "online"]
        assert row and row[0]["games"] == 1 and row[0]["won"] == won
    for player in (alice, bob):
        player.page.click("#analyze-button")
    for player in (alice, bob):
        player.page.wait_for_selector('#analysis-panel[data-state="done"]', timeout=240_000)
        names = player.page.eval_on_selector_all(
            "#analysis-summary th[data-player]", "cells => cells.map(c => c.dataset.player)")
        assert sorted(names) == ["Alice", "Bob"]
        assert player.page.locator("#analysis-graph svg circle.win-point").count() >= 2
