"""The 32 playable squares, their PDN numbers, and the bit layout the engine computes on.

PDN numbers the dark squares 1-32 from Black's side (Portable Draughts Notation, the
American Checker Federation's numbering): Black's men start on 1-12 and move towards 32,
White's start on 21-32 and move towards 1. Seen from White's side of the board, row 0 at the
top holds squares 1-4 (square 1 is in Black's double corner with 5, square 4 in Black's
single corner) and row 7 at the bottom holds 29-32 (29 is White's single corner).

**The bit layout.** Positions are three Python ints used as bit sets ("bitboards"). Each
square has a bit chosen so that every diagonal step is a shift by 4 or 5 (towards 32: left
shifts, ``<< 4`` and ``<< 5``; towards 1: right shifts): rows are 4 bits each, and after
every second row one unused "ghost" bit (8, 17 and 26) stands where a step would run off the
board's edge. So a step or jump never wraps round an edge: it lands on a ghost bit or beyond
bit 34, neither of which is in :data:`VALID`. This is the layout many checkers programs use
(e.g. Gil Dodgen's and the "45-bit" boards, here with 35 bits), because one shift moves every
piece at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

#: The PDN squares, 1..32.
SQUARES: Final = tuple(range(1, 33))


def _bit_index(square: int) -> int:
    row, place = divmod(square - 1, 4)
    pair, odd = divmod(row, 2)
    return 9 * pair + (4 if odd else 0) + place


#: ``INDEX[square]``: the bit index (0..34) of a PDN square; ``INDEX[0]`` is unused.
INDEX: Final[tuple[int, ...]] = (-1, *(_bit_index(s) for s in SQUARES))
#: ``SQUARE_AT[index]``: the PDN square of a bit index, 0 for a ghost bit.
SQUARE_AT: Final[tuple[int, ...]] = tuple(INDEX.index(i) if i in INDEX else 0 for i in range(35))
#: ``BIT[square]``: the single-bit mask of a PDN square; ``BIT[0]`` is 0.
BIT: Final[tuple[int, ...]] = (0, *(1 << INDEX[s] for s in SQUARES))
#: Every playable square's bit.
VALID: Final = sum(BIT)
#: The row a black man is crowned on (29-32) and the row a white man is crowned on (1-4).
BLACK_CROWN: Final = BIT[29] | BIT[30] | BIT[31] | BIT[32]
WHITE_CROWN: Final = BIT[1] | BIT[2] | BIT[3] | BIT[4]
#: Black's back row (1-4) and White's (29-32): the rows a side guards against crowning.
BLACK_BACK_ROW: Final = WHITE_CROWN
WHITE_BACK_ROW: Final = BLACK_CROWN


def row_col(square: int) -> tuple[int, int]:
    """The (row, column) of a PDN square on the 8x8 board seen from White's side.

    Row 0 is the top (squares 1-4), column 0 the left. Dark squares only: in even rows the
    playable columns are 1, 3, 5, 7; in odd rows 0, 2, 4, 6.

    Raises:
        ValueError: when ``square`` is not in 1..32.
    """
    if not 1 <= square <= 32:
        raise ValueError(f"square {square} is not in 1-32")
    row, place = divmod(square - 1, 4)
    return row, 2 * place + (1 if row % 2 == 0 else 0)


def square_at(row: int, col: int) -> int:
    """The PDN square at (row, column) seen from White's side, 0 for a light square or off the
    board."""
    if not (0 <= row < 8 and 0 <= col < 8) or (row + col) % 2 == 0:
        return 0
    return 4 * row + col // 2 + 1


def _steps(direction: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """For each bit index: the (step bit, jump landing index) pairs one way (+1 towards 32)."""
    table = []
    for index in range(35):
        pairs = []
        for shift in (4, 5):
            middle, land = index + direction * shift, index + direction * 2 * shift
            if SQUARE_AT[index] and 0 <= land < 35 and SQUARE_AT[middle] and SQUARE_AT[land]:
                pairs.append((1 << middle, land))
        table.append(tuple(pairs))
    return tuple(table)


#: ``JUMPS_DOWN[index]``: (jumped bit, landing index) for the jumps towards 32 from a square.
JUMPS_DOWN: Final = _steps(+1)
#: ``JUMPS_UP[index]``: the same towards 1.
JUMPS_UP: Final = _steps(-1)
#: Both ways: a king's jumps.
JUMPS_BOTH: Final = tuple(d + u for d, u in zip(JUMPS_DOWN, JUMPS_UP, strict=True))


def neighbours(square: int) -> tuple[int, ...]:
    """The PDN squares diagonally adjacent to ``square`` (2 to 4 of them), in ascending order."""
    row, col = row_col(square)
    found = (square_at(row + dr, col + dc) for dr in (-1, 1) for dc in (-1, 1))
    return tuple(sorted(s for s in found if s))


def squares_of(mask: int) -> list[int]:
    """The PDN squares of a bit set, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(SQUARE_AT[low.bit_length() - 1])
        mask ^= low
    return sorted(out)


def mask_of(squares: Iterable[int]) -> int:
    """The bit set of some PDN squares."""
    mask = 0
    for square in squares:
        mask |= BIT[square]
    return mask
