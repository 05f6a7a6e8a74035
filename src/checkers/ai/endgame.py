"""An endgame database of kings-only endings, computed by our own retrograde analysis.

**What it holds.** For every position in which both sides have only kings, the side to move
has ``m`` and the other side ``n`` of them, with ``1 <= m, n <= 3`` and ``m + n <= 5`` (the
endings 1v1, 2v1, 1v2, 2v2, 3v1, 1v3, 3v2 and 2v3: 4.56 million positions), the exact result
with best play and its distance: a win or a loss in ``d`` plies (``d`` counted to the moment
the loser has no legal move), or a draw. Only kings are on the board, so a position looks the
same whichever colour moves (kings move both ways): the tables are keyed by the mover's and
the other side's squares, not by colour.

**How it is computed** (:func:`build`): retrograde analysis, as in Chinook's databases
(J. Schaeffer et al., "Solving checkers", IJCAI 2005, and Lake, Schaeffer and Lu, "Solving
large retrograde analysis problems using a network of workstations", 1994) and in the
standard construction of chess endgame tables (K. Thompson, "Retrograde analysis of certain
endgames", ICCA Journal 1986). Each ending is computed after the smaller ones it converts
into (a capture always leaves fewer pieces):

1. A position whose mover has a jump (capture is mandatory, so every legal move is a jump) is
   decided at once from the smaller endings the jumps lead to; a mover with no legal move has
   lost in 0 plies; any other position counts its legal moves.
2. Results then spread backwards ply by ply through un-moves (a king's step is its own
   reverse): a position one of whose moves reaches a lost position is won one ply later; a
   position each of whose moves reaches a won position is lost one ply after the last of
   them (processing distances in increasing order makes wins the shortest and losses the
   longest). What is never decided is a draw.

Every figure is computed here; none is copied from another database. The 40-move rule and
repetitions are not part of the tables (their draws are the search's business); the longest
win is short enough that the 40-move rule never interferes (``max_distance`` is recorded in
the file and checked by the tests).

**The file.** ``endgame_kings.xz`` beside this module (1.4 MB), an LZMA-compressed
sequence of tables, one byte a position: 0 a draw (or an impossible index, where the sides
would share a square), else ``d + 1`` for a result in ``d`` plies (``d`` odd: the mover wins,
``d`` even: the mover loses). Rebuild it with ``python -m checkers.ai.endgame`` (about
16 seconds on the project's 2-core machine, pure Python); :func:`build` with ``max_pieces=4``
recomputes the smaller endings in about 1.5 seconds, which the tests compare with the shipped
file.

**Indexing.** A set of ``k`` squares (PDN numbers ``s``, written ``c = s - 1``) has the rank
``sum(C(c_i, i + 1))`` over its squares in increasing order (the combinatorial number
system), and a position of the ``(m, n)`` table the index ``rank(mover) * C(32, n) +
rank(other)``.
"""

from __future__ import annotations

import argparse
import itertools
import lzma
import struct
import time
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from math import comb
from pathlib import Path
from typing import Final, Literal

from checkers.moves import apply_raw, raw_moves
from checkers.position import BLACK, Position
from checkers.squares import BIT, INDEX, SQUARES

#: The shipped file, beside this module.
DATA_FILE: Final = Path(__file__).with_name("endgame_kings.xz")
#: The file's first bytes (format version 1).
MAGIC: Final = b"CKEG1\n"
#: Most kings a side has in the tables, and most pieces on the board.
MAX_SIDE: Final = 3
MAX_PIECES: Final = 5

#: Endings in the order they are built: each needs only endings of fewer pieces.
Ending = tuple[int, int]


def endings(max_pieces: int = MAX_PIECES, max_side: int = MAX_SIDE) -> list[Ending]:
    """The ``(mover kings, other kings)`` endings of at most ``max_pieces`` pieces and
    ``max_side`` a side, smaller endings first."""
    return [
        (m, n)
        for total in range(2, max_pieces + 1)
        for m in range(max_side, 0, -1)
        for n in [total - m]
        if 1 <= n <= max_side
    ]


# ---------------------------------------------------------------- indexing


def _subsets(k: int) -> list[int]:
    """Every ``k``-square bit set, listed by rank."""
    out = [0] * comb(32, k)
    for squares in itertools.combinations(SQUARES, k):
        rank = sum(comb(s - 1, i + 1) for i, s in enumerate(squares))
        mask = 0
        for s in squares:
            mask |= BIT[s]
        out[rank] = mask
    return out


#: ``SUBSETS[k][rank]``: the bit set of that rank among the ``k``-square sets (k = 0..3).
SUBSETS: Final[tuple[list[int], ...]] = tuple(_subsets(k) for k in range(MAX_SIDE + 1))
#: ``RANK[mask]``: the rank of a bit set of 1 to 3 squares among the sets of its size.
RANK: Final[dict[int, int]] = {
    mask: rank for k in range(1, MAX_SIDE + 1) for rank, mask in enumerate(SUBSETS[k])
}


def _steps() -> tuple[tuple[int, ...], ...]:
    """``out[index]``: the bits a king on that bit index steps to (2 to 4 of them)."""
    valid = {INDEX[s] for s in SQUARES}
    table = []
    for i in range(35):
        found = []
        if i in valid:
            for shift in (-5, -4, 4, 5):
                j = i + shift
                if j in valid:
                    found.append(1 << j)
        table.append(tuple(found))
    return tuple(table)


#: ``STEPS[index]``: the bits a king on bit ``index`` steps to (its un-moves too).
STEPS: Final = _steps()


def index_of(mover: int, other: int) -> int:
    """The index of a kings-only position in its ``(popcount(mover), popcount(other))``
    table (bit sets in the layout of :mod:`checkers.squares`).

    Raises:
        KeyError: when a side has no king or more than 3.
    """
    return RANK[mover] * comb(32, other.bit_count()) + RANK[other]


# ---------------------------------------------------------------- the results


#: A result in a table: ``d + 1`` for a result in ``d`` plies (odd: the mover wins), 0 a draw.
Code = int


def decode(code: Code) -> tuple[Literal["win", "loss", "draw"], int]:
    """``("win" | "loss" | "draw", plies)`` for a table byte (plies 0 for a draw)."""
    if code == 0:
        return "draw", 0
    plies = code - 1
    return ("win" if plies % 2 else "loss"), plies


@dataclass(frozen=True, slots=True)
class EndgameResult:
    """A database answer: ``outcome`` for the side to move (``"win"``, ``"loss"`` or
    ``"draw"``) and ``plies``, the number of plies to the end with best play (0 for a draw;
    a loss in 0 plies means the side to move has no legal move now)."""

    outcome: Literal["win", "loss", "draw"]
    plies: int


# ---------------------------------------------------------------- the construction


def _build_pair(
    ending: Ending, tables: dict[Ending, bytearray], log: bool = False
) -> dict[Ending, bytearray]:
    """Compute the ending ``(m, n)`` and its reverse ``(n, m)`` together (a plain move of one
    leads to the other), using the smaller endings in ``tables``."""
    m, n = ending
    pair = [(m, n)] if m == n else [(m, n), (n, m)]
    vals = {e: bytearray(comb(32, e[0]) * comb(32, e[1])) for e in pair}
    counts = {e: bytearray(len(vals[e])) for e in pair}
    buckets: list[list[array[int]]] = []

    def push(d: int, which: int, idx: int) -> None:
        while len(buckets) <= d:
            buckets.append([array("q") for _ in pair])
        buckets[d][which].append(idx)

    # 1. jumps, positions without moves, move counts
    for which, (p, q) in enumerate(pair):
        val, cnt = vals[(p, q)], counts[(p, q)]
        others = SUBSETS[q]
        width = len(others)
        for ra, mover in enumerate(SUBSETS[p]):
            base = ra * width
            for rb, other in enumerate(others):
                if mover & other:
                    continue
                idx = base + rb
                everyone = mover | other
                moves = raw_moves(mover, other, everyone, True)
                if not moves:
                    val[idx] = 1  # lost in 0 plies
                    push(0, which, idx)
                elif moves[0][1]:
                    best_win = best_loss = -1
                    drawn = False
                    for raw in moves:
                        after_mover, after_other, _ = apply_raw(mover, other, everyone, True, raw)
                        if not after_other:
                            child = 1  # the other side has no piece left: lost in 0
                        else:
                            table = tables[(after_other.bit_count(), p)]
                            child = table[index_of(after_other, after_mover)]
                        if child == 0:
                            drawn = True
                        elif (child - 1) % 2 == 0:  # the child's mover loses: we win
                            d = child  # (child - 1) + 1
                            if best_win < 0 or d < best_win:
                                best_win = d
                        else:
                            d = child
                            best_loss = max(best_loss, d)
                    if best_win >= 0:
                        val[idx] = best_win + 1
                        push(best_win, which, idx)
                    elif not drawn:
                        val[idx] = best_loss + 1
                        push(best_loss, which, idx)
                else:
                    cnt[idx] = len(moves)
        if log:
            print(f"  {p}v{q}: initialised")

    # 2. backwards, distance by distance
    d = 0
    while d < len(buckets):
        for which, (p, q) in enumerate(pair):
            # positions of (p, q) decided at distance d; predecessors lie in (q, p)
            target = pair.index((q, p))
            tval, tcnt = vals[(q, p)], counts[(q, p)]
            movers = SUBSETS[p]
            others = SUBSETS[q]
            width_here = len(others)
            width_there = comb(32, p)
            won = d % 2 == 1
            code = d + 2
            for idx in buckets[d][which]:
                ra, rb = divmod(idx, width_here)
                mover, other = movers[ra], others[rb]
                occupied = mover | other
                rx = RANK[mover]
                left = other
                while left:
                    low = left & -left
                    left ^= low
                    rest = other ^ low
                    for step in STEPS[low.bit_length() - 1]:
                        if step & occupied:
                            continue
                        qi = RANK[rest | step] * width_there + rx
                        if tcnt[qi] == 0:
                            continue  # decided, a jump position, or impossible
                        if won:
                            tcnt[qi] -= 1
                            if tcnt[qi] == 0:
                                tval[qi] = code
                                push(d + 1, target, qi)
                        else:
                            tcnt[qi] = 0
                            tval[qi] = code
                            push(d + 1, target, qi)
        buckets[d] = []
        d += 1
    # undecided positions keep a move count; they are draws (0)
    if log:
        print(f"  {m}v{n}: longest result {len(buckets) - 1} plies")
    return vals


def build(max_pieces: int = MAX_PIECES, log: bool = False) -> dict[Ending, bytearray]:
    """Compute every ending of :func:`endings` up to ``max_pieces`` pieces.

    Returns ``{(m, n): table}`` with one byte a position (see the module docstring). The whole
    database (5 pieces) takes about 16 seconds on the project's 2-core machine; up to 4
    pieces, about 1.5 seconds.
    """
    tables: dict[Ending, bytearray] = {}
    for ending in endings(max_pieces):
        if ending in tables:
            continue
        start = time.perf_counter()
        tables.update(_build_pair(ending, tables, log))
        if log:
            print(f"{ending[0]}v{ending[1]}: {time.perf_counter() - start:.1f} s")
    return tables


def longest(table: bytearray) -> int:
    """The longest result in a table, in plies (0 when every position is drawn)."""
    return max(table) - 1 if any(table) else 0


def save(tables: dict[Ending, bytearray], path: Path = DATA_FILE) -> None:
    """Write tables as the LZMA-compressed file :func:`load` reads: the magic, then per table
    ``m, n, max_distance`` (3 bytes) and its ``C(32, m) * C(32, n)`` bytes."""
    payload = bytearray(MAGIC)
    payload += struct.pack("<B", len(tables))
    for (m, n), table in sorted(tables.items()):
        payload += struct.pack("<BBB", m, n, longest(table))
        payload += table
    path.write_bytes(lzma.compress(bytes(payload), preset=9 | lzma.PRESET_EXTREME))


def load(path: Path = DATA_FILE) -> dict[Ending, bytes]:
    """Read the tables :func:`save` wrote.

    Raises:
        ValueError: when the file is not an endgame file of this format or is cut short.
    """
    raw = lzma.decompress(path.read_bytes())
    if not raw.startswith(MAGIC):
        raise ValueError(f"{path}: not a checkers endgame file (bad magic)")
    at = len(MAGIC)
    (count,) = struct.unpack_from("<B", raw, at)
    at += 1
    tables: dict[Ending, bytes] = {}
    for _ in range(count):
        m, n, _longest = struct.unpack_from("<BBB", raw, at)
        at += 3
        size = comb(32, m) * comb(32, n)
        if at + size > len(raw):
            raise ValueError(f"{path}: the {m}v{n} table is cut short")
        tables[(m, n)] = raw[at : at + size]
        at += size
    return tables


class EndgameDatabase:
    """The kings-only tables in memory, probed by position or by bit sets.

    Args:
        tables: ``{(m, n): table}`` as :func:`build` or :func:`load` give; by default the
            shipped file (about 0.1 s to read; 5.5 MB of memory).
    """

    def __init__(self, tables: dict[Ending, bytes] | dict[Ending, bytearray] | None = None):
        self._tables: dict[Ending, bytes | bytearray] = dict(tables if tables else load())

    @property
    def tables(self) -> dict[Ending, bytes | bytearray]:
        """The tables by ending (read only by convention: the search probes them directly)."""
        return self._tables

    @property
    def endings(self) -> list[Ending]:
        """The ``(mover kings, other kings)`` endings held."""
        return sorted(self._tables)

    def code(self, mover: int, other: int, kings: int) -> Code | None:
        """The table byte of a position given as the mover's and the other side's bit sets,
        or None when it is not in the database (a man on the board, or too many pieces)."""
        if kings != mover | other:
            return None
        table = self._tables.get((mover.bit_count(), other.bit_count()))
        if table is None:
            return None
        return table[RANK[mover] * comb(32, other.bit_count()) + RANK[other]]

    def probe(self, position: Position) -> EndgameResult | None:
        """The result of ``position`` for the side to move, or None when it is not in the
        database."""
        if position.turn is BLACK:
            mover, other = position.black, position.white
        else:
            mover, other = position.white, position.black
        code = self.code(mover, other, position.kings)
        if code is None:
            return None
        outcome, plies = decode(code)
        return EndgameResult(outcome, plies)


@cache
def default_database() -> EndgameDatabase:
    """The shipped database, loaded once per process."""
    return EndgameDatabase()


def positions(ending: Ending) -> Iterator[tuple[int, int, int]]:
    """Every ``(index, mover, other)`` of an ending's table (the impossible indices left
    out), in index order."""
    m, n = ending
    width = comb(32, n)
    for ra, mover in enumerate(SUBSETS[m]):
        for rb, other in enumerate(SUBSETS[n]):
            if not mover & other:
                yield ra * width + rb, mover, other


def main(argv: list[str] | None = None) -> None:
    """Build the database and write it (``python -m checkers.ai.endgame [--out PATH]``)."""
    parser = argparse.ArgumentParser(description="Build the kings-only endgame database.")
    parser.add_argument("--out", type=Path, default=DATA_FILE)
    parser.add_argument("--max-pieces", type=int, default=MAX_PIECES)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    tables = build(args.max_pieces, log=True)
    built = time.perf_counter() - start
    save(tables, args.out)
    for (m, n), table in sorted(tables.items()):
        results = [decode(c)[0] for c in table]
        print(
            f"{m}v{n}: {len(table):>9} entries, wins {results.count('win'):>8}, "
            f"losses {results.count('loss'):>8}, longest {longest(table)} plies"
        )
    print(f"built in {built:.1f} s; {args.out} is {args.out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
