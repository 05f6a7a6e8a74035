"""Board facts the evaluation needs, on boards in the mover's own numbering.

The AI works on one shape of board everywhere (DESIGN.md "Habits" 6): a 26-tuple of ints in the
numbering of the side that has just moved (:meth:`LegalPlays.own_boards
<backgammon.core.moves.LegalPlays.own_boards>` gives exactly these): index 1..24 that side's
points (positive: its checkers, negative: the opponent's), 25 its bar (>= 0), 0 the opponent's
bar (<= 0). The opponent is the side to roll next. White and Black share this one code path, so
a position and its mirror image evaluate the same.
"""

from __future__ import annotations

from typing import Final

from backgammon.core.position import Position
from backgammon.core.types import ROLLS

#: A board in the mover's own numbering (see the module docstring).
Board = tuple[int, ...]

#: The 21 distinct rolls, higher die first, and their probabilities as floats (1/36, 2/36).
ROLL_DICE: Final[tuple[tuple[int, int], ...]] = tuple(roll for roll, _ in ROLLS)
ROLL_WEIGHT: Final[tuple[float, ...]] = tuple(float(p) for _, p in ROLLS)


def flip(board: Board) -> Board:
    """The same board in the other side's numbering: slot i becomes minus slot 25 - i."""
    return tuple([-c for c in reversed(board)])


def board_of(position: Position) -> Board:
    """``position`` in the numbering of its side to move (that side as "the mover")."""
    return position.own_points(position.turn)


def pip_counts(board: Board) -> tuple[int, int]:
    """``(mover's pips, opponent's pips)``: bar counts 25 (DESIGN.md "The board")."""
    mine = 25 * board[25]
    theirs = -25 * board[0]
    for i in range(1, 25):
        c = board[i]
        if c > 0:
            mine += i * c
        elif c < 0:
            theirs -= (25 - i) * c
    return mine, theirs


def has_contact(board: Board) -> bool:
    """True while some checker of one side still has to pass one of the other side."""
    if board[25] > 0 or board[0] < 0:
        return True
    back = 0
    for i in range(24, 0, -1):
        if board[i] > 0:
            back = i
            break
    return any(board[i] < 0 for i in range(1, back))


def home(board: Board) -> tuple[int, int, int, int, int, int] | None:
    """The mover's checkers on its points 1..6 when every one of them is home, else None."""
    if board[25] > 0 or any(board[i] > 0 for i in range(7, 25)):
        return None
    return (
        max(board[1], 0), max(board[2], 0), max(board[3], 0),
        max(board[4], 0), max(board[5], 0), max(board[6], 0),
    )


def checkers_off(board: Board) -> tuple[int, int]:
    """``(mover's, opponent's)`` checkers borne off (15 minus those on the board and bar)."""
    mine = 15 - sum(c for c in board if c > 0)
    theirs = 15 + sum(c for c in board if c < 0)
    return mine, theirs


def _shot_paths() -> tuple[tuple[tuple[int, tuple[tuple[int, ...], ...]], ...], ...]:
    """``SHOT_PATHS[d]``: for each roll that can move one checker exactly d pips, the roll's
    index in :data:`ROLL_DICE` and the landing offsets on the way (each path's intermediate
    points; one open path suffices). ``()`` is a direct shot with one die."""
    table: list[list[tuple[int, tuple[tuple[int, ...], ...]]]] = [[] for _ in range(25)]
    for index, (hi, lo) in enumerate(ROLL_DICE):
        by_distance: dict[int, list[tuple[int, ...]]] = {}
        if hi == lo:
            for steps in range(1, 5):
                by_distance.setdefault(hi * steps, []).append(
                    tuple(hi * k for k in range(1, steps))
                )
        else:
            by_distance.setdefault(hi, []).append(())
            by_distance.setdefault(lo, []).append(())
            by_distance.setdefault(hi + lo, []).extend([(hi,), (lo,)])
        for distance, paths in by_distance.items():
            if distance <= 24:
                # a direct shot needs no open intermediate point: keep only it
                kept = ((),) if () in paths else tuple(paths)
                table[distance].append((index, kept))
    return tuple(tuple(row) for row in table)


#: See :func:`_shot_paths`; index 0 is empty.
SHOT_PATHS: Final = _shot_paths()


def hit_rolls(board: Board, target: int, shooters: list[int]) -> set[int]:
    """The indices of the rolls (into :data:`ROLL_DICE`) with which the opponent, moving up
    the mover's numbering from the points ``shooters`` (0 = the opponent's bar), can reach
    ``target``; points the mover holds (two or more checkers) cannot be landed on.

    Weighted by :data:`ROLL_WEIGHT`, a direct 6 away in an open board is 17/36, 1 away 11/36.
    """
    found: set[int] = set()
    for origin in shooters:
        distance = target - origin
        if not 0 < distance <= 24:
            continue
        for index, paths in SHOT_PATHS[distance]:
            if index in found:
                continue
            for path in paths:
                for step in path:
                    if board[origin + step] >= 2:
                        break
                else:
                    found.add(index)
                    break
    return found


__all__ = [
    "ROLL_DICE",
    "ROLL_WEIGHT",
    "SHOT_PATHS",
    "Board",
    "board_of",
    "checkers_off",
    "flip",
    "has_contact",
    "hit_rolls",
    "home",
    "pip_counts",
]
