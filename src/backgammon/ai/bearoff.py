"""One-sided bear-off table: how many rolls one side needs to bear off, computed by our own code.

A *home position* is 6 ints ``(on_1, on_2, ..., on_6)``: one side's checkers on its own points
1..6 (0..15 in all), nothing outside the home board. For each of the 54,264 home positions the
table holds the exact distribution of the number of rolls needed to bear every checker off when
each roll is played to minimise the expected number of rolls still needed (a one-sided table:
the other side is ignored, as it cannot touch checkers that are all home once contact is broken).
A second table gives the same for bearing off the *first* checker (for saving a gammon).

How it is computed, by dynamic programming over the 21 rolls (:data:`~backgammon.core.types.ROLLS`):

    E(empty) = 0,    E(h) = 1 + sum over rolls r of P(r) * min over plays h -> h' of E(h'),

with the plays generated on the home position by the bear-off rules (WBF rules 4.1-4.3: a die
bears off from its own point, a larger die from the highest point when no checker stands
higher; both dice, four for doubles). A side with every checker home can always play any die,
so the best play of ``(a, b)`` is the better of "a, then the best b" and "b, then the best a",
and of a double four steps of the best continuation: the table is filled pip level by pip level
(every move lowers the pip count) with numpy, all positions of a level at once. The whole table
takes about a second on first use and is then kept in memory (:func:`default_table`).

Sources: the recursion is the standard one-sided bear-off database (Hugh Sconyers' bear-off
databases; GNU Backgammon's ``makebearoff``); every number is computed here, none copied.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from backgammon.core.types import ROLLS

#: A home position: checkers on the side's own points 1..6 (index 0 the 1-point).
Home = tuple[int, int, int, int, int, int]

#: The empty home board: every checker off.
EMPTY: Final[Home] = (0, 0, 0, 0, 0, 0)

#: Most checkers a side has (WBF rules 1.1).
_MAX_CHECKERS: Final = 15

#: The 21 rolls (higher die first) and how many of the 36 throws give each (1 or 2): sums are
#: taken in 36ths and divided once, so that certainties come out exactly 1.
_ROLL_DICE: Final = tuple(roll for roll, _ in ROLLS)
_ROLL_COUNT: Final = np.array([float(p * 36) for _, p in ROLLS])

#: Longest distribution kept: no home position needs more rolls than this (15 checkers on the
#: 6-point need at most 15; the computation checks that nothing is cut off).
_MAX_ROLLS: Final = 40


def _die_moves(h: Home, die: int) -> list[Home]:
    """Every home position after moving one checker of ``h`` with ``die`` (WBF 4.2)."""
    out: list[Home] = []
    highest = 0
    for point in range(6, 0, -1):
        if h[point - 1]:
            highest = point
            break
    for point in range(1, 7):
        if not h[point - 1]:
            continue
        if point > die:
            new = list(h)
            new[point - 1] -= 1
            new[point - die - 1] += 1
            out.append(tuple(new))  # type: ignore[arg-type]
        elif point in (die, highest):
            new = list(h)
            new[point - 1] -= 1
            out.append(tuple(new))  # type: ignore[arg-type]
    return out


def home_plays(h: Home, roll: tuple[int, int]) -> set[Home]:
    """The distinct home positions a legal play of ``roll`` can reach from ``h``.

    A plain, slow generator (the table does not use it) for tests and for :meth:`best_play`.
    A side with every checker home can always play any die, so every play uses both dice (four
    for doubles) unless the last checker comes off first.

    Args:
        h: checkers on points 1..6 of the mover's home board.
        roll: two dice 1..6.
    """
    h = _check(h)
    d1, d2 = roll
    steps = (d1,) * 4 if d1 == d2 else None
    if steps is None:
        out: set[Home] = set()
        for first, second in ((d1, d2), (d2, d1)):
            for mid in _die_moves(h, first):
                out.update(_die_moves(mid, second) if mid != EMPTY else [mid])
        return out or {h}
    level = {h}
    for die in steps:
        level = {nxt for pos in level for nxt in (_die_moves(pos, die) if pos != EMPTY else [pos])}
    return level


class BearoffTable:
    """The one-sided bear-off tables for every home position of up to 15 checkers.

    Build it with :meth:`compute` (about a second); :func:`default_table` keeps one per process.

    Attributes:
        homes: ``(N, 6)`` ints, every home position, in order of pip count.
        expected: ``(N,)`` expected rolls to bear off every checker.
        dist: ``(N, L)`` ``P(exactly n rolls)`` to bear off every checker, n = 0..L-1.
        first_dist: ``(N, L)`` the same for bearing off the first checker.
    """

    def __init__(
        self,
        homes: npt.NDArray[np.int64],
        expected: npt.NDArray[np.float64],
        dist: npt.NDArray[np.float64],
        first_expected: npt.NDArray[np.float64],
        first_dist: npt.NDArray[np.float64],
    ) -> None:
        self.homes = homes
        self.expected = expected
        self.dist = dist
        self.first_expected = first_expected
        self.first_dist = first_dist
        self._index = {_encode(tuple(row)): i for i, row in enumerate(homes.tolist())}
        # Python-level copies for the evaluator's hot path (numpy scalars are slow to use).
        self._expected_list: list[float] = expected.tolist()

    def __len__(self) -> int:
        return len(self.homes)

    @classmethod
    def compute(cls) -> BearoffTable:
        """Fill both tables for all 54,264 home positions (see the module docstring)."""
        homes = _all_homes()
        succ = _successors(homes)
        counts = homes.sum(axis=1)
        expected, dist = _solve(homes, succ, first_off=False)
        # First-off table: a successor with fewer checkers than where the play started is done.
        first_expected, first_dist = _solve(homes, succ, first_off=True, counts=counts)
        return cls(homes, expected, dist, first_expected, first_dist)

    def index(self, h: Home) -> int:
        """The row of ``h`` in the arrays.

        Raises:
            ValueError: ``h`` is not 6 counts >= 0 summing to at most 15.
        """
        found = self._index.get(_encode(h))
        if found is None:
            raise ValueError(f"a home position is 6 counts >= 0 summing to at most 15, got {h!r}")
        return found

    def expected_rolls(self, h: Home) -> float:
        """Expected number of rolls to bear off every checker of ``h`` (0 for the empty board)."""
        return self._expected_list[self.index(h)]

    def distribution(self, h: Home) -> tuple[float, ...]:
        """``P(exactly n rolls)`` to bear off ``h``, n = 0, 1, ... (trailing zeros dropped)."""
        return _trim(self.dist[self.index(h)])

    def first_off_distribution(self, h: Home) -> tuple[float, ...]:
        """``P(exactly n rolls)`` until at least one checker of ``h`` is off, playing to bear
        one off as soon as possible; ``(1.0,)`` for the empty board."""
        return _trim(self.first_dist[self.index(h)])

    def best_play(self, h: Home, roll: tuple[int, int]) -> Home:
        """The result of the play of ``roll`` that minimises the expected rolls still needed
        (the lowest such tuple when several tie)."""
        return min(sorted(home_plays(h, roll)), key=self.expected_rolls)


def _trim(row: npt.NDArray[np.float64]) -> tuple[float, ...]:
    values: list[float] = row.tolist()
    while len(values) > 1 and values[-1] == 0.0:
        values.pop()
    return tuple(values)


def _encode(h: tuple[int, ...]) -> int:
    if len(h) != 6 or any(not 0 <= c <= _MAX_CHECKERS for c in h):
        return -1
    return sum(int(c) << (4 * i) for i, c in enumerate(h))


def _check(h: Home) -> Home:
    if len(h) != 6 or any(c < 0 for c in h) or sum(h) > _MAX_CHECKERS:
        raise ValueError(f"a home position is 6 counts >= 0 summing to at most 15, got {h!r}")
    return tuple(int(c) for c in h)  # type: ignore[return-value]


def _all_homes() -> npt.NDArray[np.int64]:
    """Every home position of 0..15 checkers, ``(54264, 6)``, sorted by pip count."""
    rows: list[tuple[int, ...]] = [()]
    for _ in range(6):
        rows = [(*row, c) for row in rows for c in range(_MAX_CHECKERS + 1 - sum(row))]
    homes = np.array(rows, dtype=np.int64)
    pips = homes @ np.arange(1, 7)
    return homes[np.argsort(pips, kind="stable")]


def _successors(homes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``(N + 2, 7, 6)``: row i, die d, slot p-1: the position after moving a checker from
    point p with die d, or ``INVALID`` (row N + 1) when there is no such move.

    Row N is ``DONE`` (used by the first-off table), row N + 1 ``INVALID``; both lead to
    themselves. The empty position leads to itself (a finished side stays finished).
    """
    n = len(homes)
    done, invalid = n, n + 1
    weights = np.array([1 << (4 * i) for i in range(6)], dtype=np.int64)
    codes = homes @ weights
    order = np.argsort(codes)
    sorted_codes = codes[order]
    succ = np.full((n + 2, 7, 6), invalid, dtype=np.int64)
    succ[done] = done
    succ[invalid] = invalid
    # highest occupied point of each position (0 for the empty board)
    occupied = homes > 0
    highest = np.where(occupied.any(axis=1), 6 - np.argmax(occupied[:, ::-1], axis=1), 0)
    for die in range(1, 7):
        for point in range(1, 7):
            has = homes[:, point - 1] > 0
            if point > die:
                ok = has
                new = codes - weights[point - 1] + weights[point - die - 1]
            else:
                ok = has & ((point == die) | (highest == point))
                new = codes - weights[point - 1]
            rows = np.nonzero(ok)[0]
            found = order[np.searchsorted(sorted_codes, new[rows])]
            succ[rows, die, point - 1] = found
    empty = int(np.nonzero(codes == 0)[0][0])
    succ[empty, :, 0] = empty
    return succ


def _solve(
    homes: npt.NDArray[np.int64],
    succ: npt.NDArray[np.int64],
    *,
    first_off: bool,
    counts: npt.NDArray[np.int64] | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Expected rolls and their distribution for every position, pip level by pip level."""
    n = len(homes)
    done, invalid = n, n + 1
    if first_off:
        assert counts is not None
        all_counts = np.concatenate([counts, [0, 0]])
        # a move that lowers the checker count finishes the first-off goal
        dropped = (all_counts[succ] < all_counts[:, None, None]) & (succ != invalid)
        succ = np.where(dropped, done, succ)
    expected = np.full(n + 2, np.inf)
    expected[done] = 0.0
    dist = np.zeros((n + 2, _MAX_ROLLS))
    dist[done, 0] = 1.0
    # best[k][i, d]: the final row reached from row i by the best k moves of die d
    best = np.empty((5, n + 2, 7), dtype=np.int64)
    best[0] = np.arange(n + 2)[:, None]
    pips = homes @ np.arange(1, 7)
    bounds = np.flatnonzero(np.diff(pips)) + 1
    starts = np.concatenate([[0], bounds])
    ends = np.concatenate([bounds, [n]])
    count = _ROLL_COUNT
    non_doubles = [(i, a, b) for i, (a, b) in enumerate(_ROLL_DICE) if a != b]
    doubles = [(i, a) for i, (a, b) in enumerate(_ROLL_DICE) if a == b]
    for k in range(1, 5):
        best[k, done] = done
        best[k, invalid] = invalid
    for lo, hi in zip(starts, ends, strict=True):
        rows = np.arange(lo, hi)
        if pips[lo] == 0:
            # the empty board: all off already (first-off: nothing to bear off either)
            expected[rows] = 0.0
            dist[rows, 0] = 1.0
            for k in range(1, 5):
                best[k, rows] = rows[:, None]
            continue
        for k in range(1, 5):
            for die in range(1, 7):
                cand = best[k - 1, succ[rows, die], die]  # (m, 6)
                pick = np.argmin(expected[cand], axis=1)
                best[k, rows, die] = cand[np.arange(len(rows)), pick]
        finals = np.empty((len(rows), 21), dtype=np.int64)
        for i, a, b in non_doubles:
            cand = np.concatenate(
                [best[1, succ[rows, a], b], best[1, succ[rows, b], a]], axis=1
            )  # (m, 12)
            pick = np.argmin(expected[cand], axis=1)
            finals[:, i] = cand[np.arange(len(rows)), pick]
        for i, a in doubles:
            finals[:, i] = best[4, rows, a]
        expected[rows] = 1.0 + (expected[finals] @ count) / 36.0
        dist[rows, 1:] = np.einsum("r,mrl->ml", count, dist[finals, :-1]) / 36.0
    if not np.isfinite(expected[:n]).all() or dist[:n, -1].any():
        raise AssertionError("bear-off table incomplete")  # pragma: no cover - a bug
    return expected[:n], dist[:n]


_DEFAULT: BearoffTable | None = None


def default_table() -> BearoffTable:
    """The process-wide table, computed on first use (about a second) and then kept."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = BearoffTable.compute()
    return _DEFAULT


__all__ = ["EMPTY", "BearoffTable", "Home", "default_table", "home_plays"]
