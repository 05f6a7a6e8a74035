"""Explanations of illegal moves: one case per rule, and never a word against a legal move."""

from __future__ import annotations

import random

import pytest

from backgammon import Move, Position, legal_moves, legal_plays
from backgammon.core.explain import explain_move, explain_pass, moves_along
from boards import diagram


def test_legal_moves_get_no_explanation() -> None:
    start = Position.start()
    assert explain_move(start, (3, 1), [], 8, 5) is None
    assert explain_move(start, (3, 1), [], 24, 20) is None  # one checker, both dice


def test_held_point() -> None:
    # White's 12-point is Black's 13-point, with five Black checkers.
    assert explain_move(Position.start(), (1, 2), [], 13, 12) == "the 12-point is held by Black"


def test_held_point_for_black_names_white() -> None:
    assert explain_move(Position.start("black"), (1, 2), [], 13, 12) == (
        "the 12-point is held by White"
    )


def test_bar_first() -> None:
    position = diagram(white="bar:1 13:14", black="24:2 1:13")
    assert explain_move(position, (3, 1), [], 13, 10) == "a checker on the bar must enter first"


def test_no_checker_there() -> None:
    assert explain_move(Position.start(), (3, 1), [], 7, 4) == "you have no checker on the 7-point"
    assert explain_move(Position.start(), (3, 1), [], 25, 22) == "you have no checker on the bar"


def test_no_such_die() -> None:
    assert explain_move(Position.start(), (3, 1), [], 13, 11) == (
        "no die shows 2: the dice left are 3 and 1"
    )


def test_backwards() -> None:
    assert explain_move(Position.start(), (3, 1), [], 6, 9) == (
        "checkers move forward only, towards your home board and off"
    )


def test_blocked_way_for_a_two_dice_move() -> None:
    # 6-1 from 24 to 17: via 18 (Black's 7-point) or via 23 (Black's 2-point), both held.
    closed = diagram(white="24:1 13:14", black="7:2 2:2 3:11")
    assert explain_move(closed, (6, 1), [], 24, 17) == (
        "the way is blocked: the 18-point is held by Black"
    )


def test_bearing_off_needs_all_home() -> None:
    position = diagram(white="7:1 6:14", black="1:15")
    assert explain_move(position, (6, 5), [], 6, 0) == (
        "bearing off needs all 15 checkers home: 1 is still outside your home board"
    )


def test_larger_die_bears_off_only_from_the_highest_point() -> None:
    position = diagram(white="5:1 3:1", black="1:15")
    assert explain_move(position, (6, 1), [], 3, 0) == (
        "a 6 bears off from the 3-point only when no checker stands higher: "
        "the 5-point is occupied"
    )


def test_must_use_both_dice() -> None:
    # 6-2 with 13/7 blocked: 6/4 first would leave the 6 unplayable.
    position = diagram(white="13:1 6:14", black="18:2 1:13")
    assert explain_move(position, (6, 2), [], 6, 4) == (
        "this would leave the 6 unplayable; you must use both dice"
    )


def test_larger_die_when_only_one_can_be_played() -> None:
    position = diagram(white="10:1", black="24:2 6:13")
    assert explain_move(position, (6, 3), [], 10, 7) == (
        "when only one die can be played it must be the larger: play the 6"
    )


def test_a_double_continued_legally_has_no_explanation() -> None:
    # 4-4: 13/9/5 is the only way to play two of the four dice.
    position = diagram(white="24:14 13:1", black="5:2 24:2 14:11")
    played = [Move(13, 9, 4)]
    assert explain_move(position, (4, 4, 4), played, 9, 5) is None


def test_turn_over_and_no_move() -> None:
    closed = diagram(white="bar:1 13:14", black="1:2 2:2 3:2 4:2 5:2 6:2 24:3")
    assert explain_move(closed, (6, 5), [], 25, 19) == (
        "no move is possible with these dice: the turn passes"
    )


def test_moves_along_finds_the_open_way() -> None:
    position = diagram(white="24:1 13:14", black="7:2 3:13")  # Black's 7 is White's 18
    assert moves_along(position, (6, 1), [], 24, 17) == [Move(24, 23, 1), Move(23, 17, 6)]


def test_random_positions_never_explain_a_legal_move() -> None:
    rng = random.Random(7)
    position = Position.start()
    for _ in range(60):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        options = legal_moves(position, dice)
        for move in options:
            assert explain_move(position, dice, [], move.from_point, move.to_point) is None
        own = position.own_points(position.turn)
        legal_pairs = {(m.from_point, m.to_point) for m in options}
        for src in range(1, 26):
            if own[src] <= 0:
                continue
            for die in set(dice):
                dst = max(src - die, 0)
                if (src, dst) not in legal_pairs and not moves_along(position, dice, [], src, dst):
                    reason = explain_move(position, dice, [], src, dst)
                    assert reason, (position, dice, src, dst)
        plays = legal_plays(position, dice)
        after = rng.choice(list(plays)).result if plays else position
        if 15 in after.off:
            break
        position = after.with_turn(position.turn.opponent)


@pytest.mark.parametrize("dice", [(3, 1), (6, 6)])
def test_explanations_do_not_change_the_position(dice: tuple[int, int]) -> None:
    start = Position.start()
    explain_move(start, dice, [], 13, 12)
    assert start == Position.start()


# --------------------------------------------------------------------------------------------
# Why a roll cannot be played at all


def test_a_roll_that_can_be_played_has_no_pass_reason() -> None:
    assert explain_pass(Position.start(), (6, 5)) is None


def test_no_entry_from_the_bar_names_the_held_points() -> None:
    closed = diagram(white="bar:1 13:14", black="1:2 2:2 3:2 4:2 5:2 6:2 24:3")
    assert explain_pass(closed, (6, 5)) == (
        "the 19-point and the 20-point are held by Black, so the checker on the bar cannot enter"
    )
    assert explain_pass(closed, (6, 6)) == (
        "the 19-point is held by Black, so the checker on the bar cannot enter"
    )
    two = diagram(white="bar:2 13:13", black="1:2 2:2 3:2 4:2 5:2 6:2 24:3")
    assert explain_pass(two, (2, 1)) == (
        "the 23-point and the 24-point are held by Black, so the checkers on the bar cannot enter"
    )


def test_no_entry_for_black_names_whites_points_in_blacks_numbering() -> None:
    closed = diagram(white="1:2 2:2 3:2 4:2 5:2 6:2 24:3", black="bar:1 13:14", turn="black")
    assert explain_pass(closed, (4, 3)) == (
        "the 21-point and the 22-point are held by White, so the checker on the bar cannot enter"
    )


def test_every_landing_point_held_and_no_bearing_off() -> None:
    # 6-6: 24/18 lands on Black's 7-point (held); the 6-point checkers cannot bear off while
    # two checkers are still outside.
    position = diagram(white="24:2 6:13", black="7:2 6:2 2:11")
    assert explain_pass(position, (6, 6)) == (
        "every point a 6 would reach is held by Black, and bearing off needs all 15 checkers home"
    )


def test_every_landing_point_held() -> None:
    # 2-1 with all of White on its 24-point: Black's 2- and 3-points are White's 23 and 22.
    position = diagram(white="24:15", black="2:2 3:2 6:11")
    assert explain_pass(position, (2, 1)) == "every point a 2 or a 1 would reach is held by Black"
