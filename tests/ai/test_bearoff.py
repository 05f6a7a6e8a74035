"""The one-sided bear-off table: exact values, its move rules against the engine's, consistency."""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache

import pytest

from backgammon import Position, legal_plays
from backgammon.ai.bearoff import BearoffTable, default_table, home_plays
from backgammon.core.types import ROLLS


@pytest.fixture(scope="module")
def table() -> BearoffTable:
    return default_table()


def _position(home: tuple[int, ...]) -> Position:
    """White with ``home`` on its points 1..6, Black's checkers all on White's 24-point
    (Black's 1-point), out of the way."""
    points = [0] * 26
    for i, count in enumerate(home):
        points[i + 1] = count
    points[24] = -15
    return Position.from_points(points, "white")


def _engine_homes(home: tuple[int, ...], roll: tuple[int, int]) -> set[tuple[int, ...]]:
    """The home positions the engine's own move generator reaches: an independent source."""
    legal = legal_plays(_position(home), roll)
    return {tuple(max(c, 0) for c in board[1:7]) for board in legal.own_boards()}


@cache
def _exact(home: tuple[int, ...]) -> Fraction:
    """Expected rolls by exact rational recursion over the engine's legal plays."""
    if sum(home) == 0:
        return Fraction(0)
    total = Fraction(1)
    for roll, p in ROLLS:
        total += p * min(_exact(h) for h in _engine_homes(home, roll))
    return total


def test_one_checker_on_the_one_point_needs_exactly_one_roll(table: BearoffTable) -> None:
    assert table.expected_rolls((1, 0, 0, 0, 0, 0)) == 1.0
    assert table.distribution((1, 0, 0, 0, 0, 0)) == (0.0, 1.0)
    assert table.expected_rolls((0, 0, 0, 0, 0, 0)) == 0.0


def test_two_checkers_on_the_two_point_by_hand(table: BearoffTable) -> None:
    # Every roll bears both off except a 1 with a 2..6 (10 of 36 rolls: the 1 moves a checker
    # to the 1-point, the other die bears one off), which leaves one checker for one more
    # roll; 1-1 plays 2/1 2/1 1/off 1/off. So E = 1 + 10/36 = 23/18.
    assert table.expected_rolls((0, 2, 0, 0, 0, 0)) == pytest.approx(23 / 18, abs=1e-12)
    assert table.distribution((0, 2, 0, 0, 0, 0)) == pytest.approx((0.0, 26 / 36, 10 / 36))


def test_two_checkers_on_the_six_point_exactly(table: BearoffTable) -> None:
    # 49213/23328 (about 2.1096 rolls), from exact rational arithmetic over the engine's own
    # legal plays (an independent move generator and no floating point).
    exact = _exact((0, 0, 0, 0, 0, 2))
    assert exact == Fraction(49213, 23328)
    assert table.expected_rolls((0, 0, 0, 0, 0, 2)) == pytest.approx(float(exact), abs=1e-12)


@pytest.mark.parametrize("home", [(1, 1, 0, 0, 0, 0), (0, 0, 1, 0, 2, 0), (2, 0, 0, 1, 0, 1)])
def test_small_positions_match_exact_arithmetic(table: BearoffTable, home) -> None:
    assert table.expected_rolls(home) == pytest.approx(float(_exact(home)), abs=1e-12)


def test_home_plays_agree_with_the_engine() -> None:
    rng = random.Random(4)
    for _ in range(300):
        count = rng.randint(1, 15)
        home = [0] * 6
        for _ in range(count):
            home[rng.randrange(6)] += 1
        roll = ROLLS[rng.randrange(21)][0]
        assert home_plays(tuple(home), roll) == _engine_homes(tuple(home), roll), (home, roll)


def test_distributions_are_consistent(table: BearoffTable) -> None:
    rng = random.Random(9)
    for _ in range(50):
        home = [0] * 6
        for _ in range(rng.randint(1, 15)):
            home[rng.randrange(6)] += 1
        dist = table.distribution(tuple(home))
        assert sum(dist) == pytest.approx(1.0)
        assert sum(n * p for n, p in enumerate(dist)) == pytest.approx(
            table.expected_rolls(tuple(home))
        )
        first = table.first_off_distribution(tuple(home))
        assert sum(first) == pytest.approx(1.0)
        # the first checker comes off no later than the last
        assert sum(n * p for n, p in enumerate(first)) <= table.expected_rolls(tuple(home))


def test_fifteen_checkers_and_size(table: BearoffTable) -> None:
    assert len(table) == 54264  # every way to put 0..15 checkers on 6 points
    start = table.expected_rolls((0, 0, 0, 5, 5, 5))
    assert 9.5 < start < 10.5
    # more checkers, or checkers further back, never need fewer rolls
    assert table.expected_rolls((0, 0, 0, 5, 5, 4)) < start
    assert table.expected_rolls((0, 0, 0, 4, 6, 5)) > start


def test_best_play_bears_off_when_it_can(table: BearoffTable) -> None:
    # one checker each on the 6- and 1-points, 6-1: both off, rather than 6/5 5/off
    assert table.best_play((1, 0, 0, 0, 0, 1), (6, 1)) == (0, 0, 0, 0, 0, 0)


def test_bad_home_position_is_refused(table: BearoffTable) -> None:
    with pytest.raises(ValueError, match="6 counts"):
        table.expected_rolls((16, 0, 0, 0, 0, 0))
    with pytest.raises(ValueError, match="6 counts"):
        table.expected_rolls((1, 2, 3))  # type: ignore[arg-type]
