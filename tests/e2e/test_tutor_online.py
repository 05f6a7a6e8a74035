"""Tutor mode never warns in an online game: with the setting on, two people play turns and
double, and the pages ask the tutor nothing and show no warning (Playwright driving Debian's
chromium against ``backgammon serve``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import test_online_game
from browser_support import ServerProcess
from test_online_game import (  # noqa: F401 - the fixtures
    OnlinePage,
    browser,
    open_page,
    play_turns,
    server,
    settle,
    start_room,
)


def test_the_online_page_never_warns(open_page: Callable[..., OnlinePage],  # noqa: F811
                                     server: ServerProcess,  # noqa: F811
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(test_online_game.BASE_SETTINGS, "tutor", True)
    monkeypatch.setitem(test_online_game.BASE_SETTINGS, "tutor_threshold", 0.04)
    host, guest = start_room(open_page, cube=True)
    asked: list[str] = []
    for online in (host, guest):
        assert online.page.evaluate(
            "JSON.parse(localStorage.getItem('backgammon.settings')).tutor") is True
        online.page.on("request", lambda r: asked.append(r.url)
                       if r.url.endswith("/tutor") else None)
    play_turns((host, guest), 3)
    # a double at the start of a turn: a very bad error by the tutor's measure, not asked
    roller = next(o for o in (host, guest) if o.visible("#double-button"))
    roller.page.click("#double-button")
    settle(host, guest)
    answerer = guest if roller is host else host
    assert answerer.visible("#take-button")
    answerer.page.click("#take-button")
    settle(host, guest)
    play_turns((host, guest), 1)
    assert asked == []
    for online in (host, guest):
        assert not online.page.locator("#tutor-dialog").is_visible()
