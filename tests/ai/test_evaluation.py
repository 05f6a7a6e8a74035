"""The static evaluation: shot counting, the regimes, symmetry between the colours."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from backgammon import Position, legal_plays, outcome
from backgammon.ai.evaluation import contact_terms, effective_pips, race_terms
from backgammon.ai.features import (
    ROLL_DICE,
    ROLL_WEIGHT,
    board_of,
    flip,
    has_contact,
    hit_rolls,
    pip_counts,
)
from backgammon.ai.winprob import equity, invert, probabilities
from boards import diagram


def shots(board, target: int, shooters: list[int]) -> Fraction:
    """The chance (exact, in 36ths) that the opponent can hit ``target``."""
    found = hit_rolls(board, target, shooters)
    return sum((Fraction(1 if ROLL_DICE[i][0] == ROLL_DICE[i][1] else 2, 36) for i in found),
               Fraction(0))


def random_positions(count: int, seed: int) -> list[Position]:
    """Positions from seeded random games (random legal plays), both colours to move."""
    rng = random.Random(seed)
    found = []
    position = Position.start()
    while len(found) < count:
        legal = legal_plays(position, (rng.randint(1, 6), rng.randint(1, 6)))
        if legal:
            position = rng.choice(list(legal)).result
        position = position.with_turn(position.turn.opponent)
        if outcome(position) is not None:
            position = Position.start(rng.choice(["white", "black"]))
            continue
        found.append(position)
    return found


def test_roll_weights_sum_to_one() -> None:
    assert len(ROLL_DICE) == 21
    assert sum(ROLL_WEIGHT) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("distance", "chance"),
    [(1, Fraction(11, 36)), (2, Fraction(12, 36)), (3, Fraction(14, 36)),
     (4, Fraction(15, 36)), (5, Fraction(15, 36)), (6, Fraction(17, 36)),
     (7, Fraction(6, 36)), (8, Fraction(6, 36)), (11, Fraction(2, 36)), (12, Fraction(3, 36)),
     (16, Fraction(1, 36)), (24, Fraction(1, 36))],
)
def test_shots_in_an_open_board(distance: int, chance: Fraction) -> None:
    # the standard counts: a direct 6 is 17/36, a direct 1 is 11/36, 8 away 6/36
    board = [0] * 26
    board[24] = 1  # the mover's blot on its 24-point
    assert shots(tuple(board), 24, [24 - distance]) == chance


def test_blocked_points_stop_combination_shots() -> None:
    board = [0] * 26
    board[20] = 1  # blot 8 away from a shooter on point 12
    open_board = shots(tuple(board), 20, [12])
    board[18] = 2  # the mover holds 6 pips from the shooter: 6-2 must go 12/14/20
    board[16] = 2  # and 4 pips: 4-4 is blocked, 2-2 goes 14, 16 (held): blocked
    blocked = shots(tuple(board), 20, [12])
    assert open_board == Fraction(6, 36)  # 6-2, 5-3, 4-4, 2-2
    assert blocked == Fraction(4, 36)  # 6-2 via 14 and 5-3 either way remain


def test_a_checker_on_the_bar_must_enter_first() -> None:
    # The opponent has a checker on the bar: only shots from the bar count.
    board = [0] * 26
    board[0] = -1
    board[3] = 1  # the mover's blot on its 3-point: entering with a 3 hits it
    board[2] = -1  # a second opposing checker, 1 away, cannot hit first
    assert shots(tuple(board), 3, [0]) == Fraction(11 + 2 + 1, 36)  # any 3, 2-1, 1-1


def test_pip_counts_and_contact() -> None:
    start = board_of(Position.start())
    assert pip_counts(start) == (167, 167)
    assert has_contact(start)
    race = board_of(diagram(white="6:5 5:5 4:5", black="6:5 5:5 4:5"))
    assert not has_contact(race)


def test_start_is_even() -> None:
    terms = contact_terms(board_of(Position.start()))
    assert terms.score == pytest.approx(0.0)
    assert (terms.my_pips, terms.opp_pips) == (167, 167)
    p = probabilities(board_of(Position.start()))
    # the side that has "just moved" in the start position gives the opponent the roll
    assert 0.4 < p[0] < 0.5


def test_mirror_images_evaluate_the_same() -> None:
    for position in random_positions(400, seed=3):
        assert probabilities(board_of(position)) == probabilities(board_of(position.mirror()))


def test_probabilities_are_ordered() -> None:
    for position in random_positions(300, seed=5):
        p = probabilities(board_of(position))
        assert 0.0 <= p[2] <= p[1] <= p[0] <= 1.0
        assert 0.0 <= p[4] <= p[3] <= 1.0 - p[0] + 1e-12
        assert -3.0 <= equity(p) <= 3.0


def test_flip_twice_is_the_same_board() -> None:
    for position in random_positions(50, seed=8):
        board = board_of(position)
        assert flip(flip(board)) == board
        assert flip(board) == position.own_points(position.turn.opponent)


def test_invert_swaps_the_sides() -> None:
    p = (0.7, 0.2, 0.05, 0.1, 0.01)
    assert invert(p) == pytest.approx((0.3, 0.1, 0.01, 0.2, 0.05))
    assert equity(invert(p)) == pytest.approx(-equity(p))


def test_finished_game() -> None:
    # the mover has borne off its last checker: a win; a gammon when the opponent has none
    # off; a backgammon when one of them is still in the winner's home board
    board = [0] * 26
    board[24] = -15
    assert probabilities(tuple(board)) == (1.0, 1.0, 0.0, 0.0, 0.0)
    board[24] = -14
    board[3] = -1
    assert probabilities(tuple(board)) == (1.0, 1.0, 1.0, 0.0, 0.0)
    board[3] = 0
    assert probabilities(tuple(board)) == (1.0, 0.0, 0.0, 0.0, 0.0)


def test_bear_off_chances_are_exact() -> None:
    # Both with one checker on the 1-point: the opponent rolls first and wins.
    position = diagram(white="1:1", black="1:1", turn="white")
    assert probabilities(board_of(position))[0] == 0.0
    # The mover has one checker on the 1-point, the opponent two on its 6-point: the
    # opponent needs both off in one roll: 3-3, 4-4, 5-5 or 6-6 (4/36).
    position = diagram(white="1:1", black="6:2", turn="white")
    assert probabilities(board_of(position))[0] == pytest.approx(32 / 36)


def test_race_formula() -> None:
    mine = [0] * 26
    mine[1], mine[2], mine[6] = 3, 2, 4
    # pips 3 + 4 + 24 = 31; wastage 2*2 (1-point) + 1 (2-point) + 2 (empty 4-, 5-points)
    assert effective_pips(mine) == 31 + 4 + 1 + 2
    ahead = race_terms(board_of(diagram(white="6:5 5:5 4:5", black="6:5 8:5 9:5")))
    assert ahead.opp_epc > ahead.my_epc
    assert probabilities(board_of(diagram(white="6:5 5:5 4:5", black="6:5 8:5 9:5")))[0] > 0.5


def test_a_bigger_race_lead_is_better() -> None:
    values = []
    for black in ("6:5 5:5 4:5", "6:5 8:5 4:5", "6:5 8:5 9:5", "9:5 8:5 10:5"):
        values.append(probabilities(board_of(diagram(white="6:5 5:5 4:5", black=black)))[0])
    assert values == sorted(values)


def test_blots_cost_more_where_more_shots_hit_them() -> None:
    base = "6:5 8:3 13:5 24:2"
    safe = contact_terms(board_of(diagram(white="6:4 5:2 8:2 13:5 24:2", black=base)))
    exposed = contact_terms(board_of(diagram(white="6:5 5:1 8:2 13:5 24:2", black=base)))
    assert safe.score > exposed.score
