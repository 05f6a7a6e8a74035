"""Zobrist keys: a 64-bit hash of a position, updated move by move during the search.

A. L. Zobrist, "A new hashing method with application for game playing", University of
Wisconsin technical report 88 (1970): one random 64-bit number per (piece kind, square) and
one for the side to move; a position's key is the XOR of the numbers of what is on the
board, so a move changes it by XOR-ing out what left and in what arrived. The numbers come
from a fixed-seed :class:`random.Random`, so keys are the same in every process (the search
is reproducible).

Piece kinds: 0 a black man, 1 a black king, 2 a white man, 3 a white king. Squares are the
bit indices of :mod:`checkers.squares` (0..34; the ghost bits get numbers too, never used).
"""

from __future__ import annotations

import random
from typing import Final

from checkers.moves import RawMove
from checkers.position import BLACK, Position
from checkers.squares import BLACK_CROWN, WHITE_CROWN

_rng = random.Random(0x5EED_C4EC)
#: ``PIECE[kind][index]``: the number of a piece kind on a bit index.
PIECE: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(_rng.getrandbits(64) for _ in range(35)) for _ in range(4)
)
#: XOR-ed in when Black is to move.
BLACK_TO_MOVE: Final = _rng.getrandbits(64)
del _rng


def _chunk_tables(numbers: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """``out[c][byte]``: the XOR of ``numbers[8 * c + b]`` over the bits ``b`` of ``byte``
    (so a whole bit set hashes in 5 look-ups)."""
    tables = []
    for chunk in range(5):
        row = [0] * 256
        for byte in range(1, 256):
            low = byte & -byte
            index = 8 * chunk + low.bit_length() - 1
            row[byte] = row[byte ^ low] ^ (numbers[index] if index < 35 else 0)
        tables.append(tuple(row))
    return tuple(tables)


_CHUNKS: Final = tuple(_chunk_tables(numbers) for numbers in PIECE)


def _mask_key(kind: int, mask: int) -> int:
    t0, t1, t2, t3, t4 = _CHUNKS[kind]
    return (
        t0[mask & 255]
        ^ t1[(mask >> 8) & 255]
        ^ t2[(mask >> 16) & 255]
        ^ t3[(mask >> 24) & 255]
        ^ t4[mask >> 32]
    )


def key_of(black: int, white: int, kings: int, black_to_move: bool) -> int:
    """The key of a position given as bit sets (64-bit, non-negative)."""
    key = (
        _mask_key(0, black & ~kings)
        ^ _mask_key(1, black & kings)
        ^ _mask_key(2, white & ~kings)
        ^ _mask_key(3, white & kings)
    )
    return key ^ BLACK_TO_MOVE if black_to_move else key


def position_key(position: Position) -> int:
    """The key of a :class:`~checkers.Position`."""
    return key_of(position.black, position.white, position.kings, position.turn is BLACK)


def child_key(key: int, kings: int, black: bool, raw: RawMove) -> int:
    """The key after a raw move of the side to move (``black`` when Black), given the key and
    the kings before it: the mover's piece leaves its origin and arrives (a king if it was one
    or is crowned), the captured pieces leave, and the side to move changes."""
    path, captured = raw
    start, end = path[0], path[-1]
    man, king, opp_man, opp_king = (0, 1, 2, 3) if black else (2, 3, 0, 1)
    if kings >> start & 1:
        key ^= PIECE[king][start] ^ PIECE[king][end]
    elif (1 << end) & (BLACK_CROWN if black else WHITE_CROWN):
        key ^= PIECE[man][start] ^ PIECE[king][end]
    else:
        key ^= PIECE[man][start] ^ PIECE[man][end]
    while captured:
        low = captured & -captured
        captured ^= low
        index = low.bit_length() - 1
        key ^= PIECE[opp_king if kings & low else opp_man][index]
    return key ^ BLACK_TO_MOVE
