"""Perft: the number of move sequences of a given depth, the standard check of a move generator.

Aart J. C. Bik published the counts from the starting position of American checkers
(7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, ... for depths 1-9); a generator
that gets them all right is very likely right (``tests/checkers/test_perft.py`` and
``bench/checkers_perft.py`` check them). A position without moves counts 0 at any depth.
"""

from __future__ import annotations

from checkers.moves import _sides, apply_raw, count_moves, legal_moves, raw_moves
from checkers.position import Position
from checkers.squares import SQUARE_AT


def _perft(own: int, opp: int, kings: int, black: bool, depth: int) -> int:
    if depth == 1:
        return count_moves(own, opp, kings, black)
    total = 0
    for raw in raw_moves(own, opp, kings, black):
        child_own, child_opp, child_kings = apply_raw(own, opp, kings, black, raw)
        total += _perft(child_opp, child_own, child_kings, not black, depth - 1)
    return total


def perft(position: Position, depth: int) -> int:
    """The number of leaf nodes of the move tree ``depth`` plies deep (1 for depth 0).

    Raises:
        TypeError: ``depth`` is not an int, or ``position`` not a :class:`Position`.
        ValueError: for a negative depth.
    """
    if isinstance(depth, bool) or not isinstance(depth, int):
        raise TypeError(f"depth is a whole number of plies, got {depth!r}")
    if depth < 0:
        raise ValueError(f"depth {depth} is negative")
    if depth == 0:
        return 1
    own, opp, black = _sides(position)
    return _perft(own, opp, position.kings, black, depth)


def divide(position: Position, depth: int) -> list[tuple[str, int]]:
    """Perft split by the first move: ``[(move in PDN, leaf count), ...]`` sorted by path.

    Raises:
        TypeError: ``depth`` is not an int, or ``position`` not a :class:`Position`.
        ValueError: when ``depth`` is less than 1.
    """
    if isinstance(depth, bool) or not isinstance(depth, int):
        raise TypeError(f"depth is a whole number of plies, got {depth!r}")
    if depth < 1:
        raise ValueError(f"divide needs depth 1 or more, not {depth}")
    own, opp, black = _sides(position)
    rows = []
    for raw in raw_moves(own, opp, position.kings, black):
        child_own, child_opp, child_kings = apply_raw(own, opp, position.kings, black, raw)
        count = 1 if depth == 1 else _perft(child_opp, child_own, child_kings, not black, depth - 1)
        path = tuple(SQUARE_AT[i] for i in raw[0])
        rows.append((path, count))
    rows.sort()
    moves = {m.path: str(m) for m in legal_moves(position)}
    return [(moves[path], count) for path, count in rows]
