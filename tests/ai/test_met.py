"""The match equity table computed from the gammon-rate model."""

from __future__ import annotations

import pytest

from backgammon.ai.met import MatchEquityTable, linear, match_equity_table, solve


@pytest.fixture(scope="module")
def met() -> MatchEquityTable:
    return MatchEquityTable(gammon_rate=0.25, size=11)


def test_both_sides_add_up_to_one(met: MatchEquityTable) -> None:
    for a in range(1, 12):
        for b in range(1, 12):
            assert met.equity(a, b) + met.equity(b, a) == pytest.approx(1.0)
        assert met.equity(a, a) == pytest.approx(0.5)


def test_crawford_game_by_hand(met: MatchEquityTable) -> None:
    # 1-away v 2-away, Crawford game, no cube: the leader wins with 1/2; the trailer's
    # single win leads to 1-away v 1-away (1/2 each), its gammon wins the match:
    # 1/2 + 1/2 * (0.75 * 1/2) = 0.6875.
    assert met.equity(1, 2) == pytest.approx(0.6875)
    # post-Crawford 1-away v 2-away: the trailer doubles at once, the leader can drop
    # freely: one game for the match either way, 1/2.
    assert met.equity(1, 2, post_crawford=True) == pytest.approx(0.5)


def test_needing_fewer_points_is_better(met: MatchEquityTable) -> None:
    for a in range(1, 11):
        for b in range(1, 12):
            assert met.equity(a, b) > met.equity(a + 1, b)


def test_plausible_values(met: MatchEquityTable) -> None:
    # Not a copied table, so no exact published numbers: the model's values sit where
    # match players know them to be.
    assert 0.58 < met.equity(2, 3) < 0.64
    assert 0.64 < met.equity(2, 4) < 0.72
    assert 0.55 < met.equity(3, 4) < 0.61
    assert 0.12 < met.equity(7, 3) < 0.3


def test_finished_scores(met: MatchEquityTable) -> None:
    assert met.equity(0, 3) == 1.0
    assert met.equity(-1, 3) == 1.0
    assert met.equity(3, 0) == 0.0
    with pytest.raises(ValueError, match="beyond the table"):
        met.equity(12, 3)


def test_more_gammons_help_the_trailer_in_the_crawford_game() -> None:
    few = MatchEquityTable(gammon_rate=0.1, size=5)
    many = MatchEquityTable(gammon_rate=0.4, size=5)
    assert many.equity(1, 4) < few.equity(1, 4)


def test_default_table_is_cached() -> None:
    assert match_equity_table() is match_equity_table()
    table = match_equity_table()
    assert table.size == 64  # as GNU Backgammon's tables
    assert table.equity(64, 64) == pytest.approx(0.5)
    assert table.equity(30, 20) < table.equity(30, 25) < 0.5  # nearer the end, the leader
    assert table.equity(5, 3) == pytest.approx(MatchEquityTable(size=25).equity(5, 3))
    with pytest.raises(ValueError, match="beyond the table"):
        table.equity(65, 3)


def test_curve_helpers() -> None:
    curve = linear([(0.0, -1.0), (0.5, 0.0), (1.0, 2.0)])
    assert curve(0.25) == pytest.approx(-0.5)
    assert curve(0.75) == pytest.approx(1.0)
    assert solve(curve, 1.0) == pytest.approx(0.75)
    assert solve(curve, -5.0) == 0.0
    assert solve(curve, 5.0) == 1.0
