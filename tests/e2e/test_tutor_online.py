"""Tutor mode never warns in an online game (the shared door, js/online_tables.js): with the
setting on, two people play turns, double and take, and the pages ask the tutor nothing and
show no warning (Playwright driving Debian's chromium against ``backgammon serve``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import test_online_tables_backgammon
from test_online_tables_backgammon import (  # noqa: F401 - the fixtures
    Player,
    browser,
    mover,
    open_player,
    server,
    settle,
)
from test_online_tables_network import create, join, take_turn


def test_the_online_page_never_warns(open_player: Callable[..., Player],  # noqa: F811
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(test_online_tables_backgammon.SETTINGS, "tutor", True)
    monkeypatch.setitem(test_online_tables_backgammon.SETTINGS, "tutor_threshold", 0.04)
    alice = open_player()
    link = create(alice, cube=True)
    bob = open_player(None)
    join(bob, link)
    settle(alice, bob)
    asked: list[str] = []
    for player in (alice, bob):
        assert player.page.evaluate(
            "JSON.parse(localStorage.getItem('backgammon.settings')).tutor") is True
        player.page.on("request", lambda r: asked.append(r.url)
                       if r.url.endswith("/tutor") else None)
    for _ in range(3):
        take_turn(alice, bob)
    # a double at the start of a turn: a very bad error by the tutor's measure, not asked
    roller, answerer = mover(alice, bob)
    assert roller.visible("#double-button")
    roller.page.click("#double-button")
    settle(alice, bob)
    assert answerer.visible("#take-button")
    answerer.page.click("#take-button")
    settle(alice, bob)
    take_turn(alice, bob)
    assert asked == []
    for player in (alice, bob):
        assert not player.page.locator("#tutor-dialog").is_visible()
