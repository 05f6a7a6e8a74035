"""Perft from the start against Aart J. C. Bik's published counts for American checkers
(depths 7-9 are in bench/checkers_perft.py)."""

from __future__ import annotations

import pytest

from checkers import Position, divide, perft

BIK = {1: 7, 2: 49, 3: 302, 4: 1469, 5: 7361, 6: 36768}


@pytest.mark.parametrize(("depth", "count"), sorted(BIK.items()))
def test_perft_from_the_start_equals_bik_s_counts(depth: int, count: int) -> None:
    assert perft(Position.start(), depth) == count


def test_divide_splits_the_count_by_first_move() -> None:
    rows = divide(Position.start(), 3)
    assert [move for move, _ in rows] == [
        "9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16",
    ]  # fmt: skip
    assert sum(count for _, count in rows) == 302
    assert dict(rows)["9-13"] == perft(Position.from_fen("W:W21-32:B1-8,10,11,12,13"), 2)


def test_perft_of_a_position_with_multi_jumps_and_kings() -> None:
    # the king's two circular jumps are two moves: perft 1 counts both
    position = Position.from_fen("B:W14,15,22,23:BK10")
    assert perft(position, 1) == 2
    assert perft(position, 0) == 1
    # after either jump White has no piece: nothing below
    assert perft(position, 2) == 0
    with pytest.raises(ValueError, match="negative"):
        perft(position, -1)
