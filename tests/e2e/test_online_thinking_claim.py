"""A player who keeps an untimed online game waiting on its turn (connected, never playing) is
warned, then claimed against (issue 34's claim after a long silence, at the shared door): the
server runs with ``--claim-thinking-after 8`` (the player warned halfway, 4 s before), in two
real browsers. Screenshots: ``test-artifacts/e2e/tables-page-thinking-*.png``."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from browser_support import ServerProcess, served
from test_online_tables_backgammon import (  # noqa: F401 - the fixtures
    Player,
    browser,
    mover,
    open_player,
)
from test_online_tables_page import shot, start

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "tables-thinking-server",
                      args=["--claim-thinking-after", "8"])


def test_a_player_who_keeps_the_game_waiting_is_warned_then_claimed_against(
        open_player: Callable[..., Player]) -> None:  # noqa: F811
    alice, bob, _code = start(open_player, cube=False)
    first, second = mover(alice, bob)  # the first to play, connected, never plays
    note = first.page.locator("#online-note[data-think='1']")
    note.wait_for(timeout=15_000)
    assert note.inner_text().startswith(
        "You have kept the game waiting on your turn a long time: play within 0:0")
    assert not second.visible("#online-claim-button")
    shot(first, "thinking-1-warned")
    second.page.wait_for_function(
        "() => document.getElementById('online-opponent').dataset.claim === 'open'",
        timeout=15_000)
    assert second.text("#online-opponent").endswith(
        f"({first.color}) has kept the game waiting on their turn a long time: you may claim "
        "the game (Claim the game), or wait.")
    second.page.click("#online-claim-button")
    for player in (first, second):
        player.page.wait_for_function(
            "() => document.body.dataset.onlinePhase === 'finished'")
    assert second.text("#result-text").endswith(
        "by forfeit: you claimed the game: "
        f"{'Alice' if first is alice else 'Bob'} kept it waiting too long.")
    assert first.text("#result-text").endswith(
        "by forfeit: you kept the game waiting too long: "
        f"{'Bob' if first is alice else 'Alice'} claimed it.")
    assert first.page.locator("#online-note[data-think='1']").count() == 0
    shot(second, "thinking-2-claimed")
