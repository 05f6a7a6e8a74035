"""Expectimax over the dice on the neural evaluation: 0- to 3-ply, with move filters.

Plies follow GNU Backgammon's convention:

* **0-ply** scores a play by the nets on the position after it (the opponent to roll):
  :meth:`NetEvaluator.probs0`, one batched net call for every play of a roll.
* **1-ply** scores it by the mean, over the opponent's 21 rolls (weights 1/36 and 2/36), of
  the position after the opponent's best reply, the reply chosen at 0-ply
  (:meth:`NetEvaluator.probs1`).
* **2-ply** is the same mean with the position after each roll's best reply (chosen at 0-ply,
  :data:`REPLY_FILTER`) scored at 1-ply (:meth:`NetEvaluator.probs2`): as GNU Backgammon's
  n-ply evaluation picks each roll's move at 0-ply and looks at its result n - 1 plies deep.
* **3-ply** is the same mean with each roll's best reply (chosen at 0-ply) scored at 2-ply
  (:meth:`NetEvaluator.probs3`): GNU Backgammon's "grandmaster" depth, about 21 times a
  2-ply evaluation's cost (one to two seconds a play on one core), so the game's levels do
  not use it; the analysis can (``analyze(..., plies=3)``).

At the root, :func:`rank` screens a roll's plays with move filters as GNU Backgammon does:
every play at 0-ply, then at each deeper ply only the best few within a margin of the best
(:class:`MoveFilter`). Scores are utilities of the 5 probabilities (:class:`Utility`): cubeless
money equity by default, or match-winning chances at a match score (:func:`match_utility`), so
that in match play gammons are valued by the score. Results are cached by board (the
position and the side to roll; the nets are fixed), the equivalent of caching by Position ID.

Boards are 26-tuples in the mover's own numbering (:mod:`backgammon.ai.features`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from backgammon.ai.features import ROLL_DICE, ROLL_WEIGHT, Board, flip
from backgammon.ai.nets import NetSet, default_nets, single_threaded_blas
from backgammon.ai.neural import after_play_probabilities
from backgammon.core.moves import legal_plays
from backgammon.core.position import Position
from backgammon.core.types import WHITE

Floats = npt.NDArray[np.float64]
_WEIGHTS: Final = np.asarray(ROLL_WEIGHT, dtype=np.float64)


class Utility(NamedTuple):
    """The value of 5 probabilities to the side they belong to: ``const + weights . p``.

    Every result of a game is linear in the probabilities (win single = P(win) - P(wg), ...),
    so money equity and match-winning chances both have this form.
    """

    const: float
    weights: tuple[float, float, float, float, float]

    def of(self, p: npt.NDArray[np.floating]) -> Floats:
        """Values of ``(N, 5)`` probabilities, shape ``(N,)``."""
        value: Floats = self.const + p.astype(np.float64) @ np.asarray(self.weights)
        return value

    def opposite(self) -> Utility:
        """The other side's utility when this one is zero-sum with it: ``-self`` of the
        probabilities turned round (money equity is its own opposite)."""
        c, w = self.const, self.weights
        return Utility(-c - w[0], (w[0], -w[3], -w[4], -w[1], -w[2]))


#: Cubeless money equity in points: 2 P(win) - 1 + P(wg) - P(lg) + P(wbg) - P(lbg).
MONEY: Final = Utility(-1.0, (2.0, 1.0, 1.0, -1.0, -1.0))


def outcome_utility(win: Sequence[float], lose: Sequence[float]) -> Utility:
    """The utility whose values for a single game, gammon and backgammon won are ``win[0..2]``
    and lost ``lose[0..2]``: ``L1 + p0 (W1 - L1) + p1 (W2 - W1) + p2 (W3 - W2) +
    p3 (L2 - L1) + p4 (L3 - L2)``."""
    w1, w2, w3 = win
    l1, l2, l3 = lose
    return Utility(l1, (w1 - l1, w2 - w1, w3 - w2, l2 - l1, l3 - l2))


@dataclass(frozen=True)
class MoveFilter:
    """Which plays go on to the next ply: the best ``accept`` whatever their score, and of
    the best ``keep`` those within ``margin`` (utility, e.g. points of money equity) of the
    best. GNU Backgammon's ``movefilter`` (``eval.h``) has the same parts: "Accept" plays
    always, then up to "Extra" more within "Threshold"; here ``keep`` counts every play the
    margin lets through, accepted ones included.

    ``accept`` keeps a play the shallower ply misjudges by more than ``margin`` in the search:
    of Expert's costliest errors on gnubg's self-play matches, several were plays the deeper
    ply finds best that the margin had cut (``docs/performance.md``).
    """

    keep: int
    margin: float
    accept: int = 0

    def __post_init__(self) -> None:
        """Raises ValueError when ``keep``, ``margin`` or ``accept`` is negative, or when the
        filter would let no play through (``keep`` and ``accept`` both 0)."""
        if self.keep < 0 or self.accept < 0 or self.margin < 0:
            raise ValueError(f"a move filter's keep, margin and accept are at least 0: {self}")
        if self.keep == 0 and self.accept == 0:
            raise ValueError(f"a move filter that keeps no play: {self}")

    def kept(self, scores: Floats) -> list[int]:
        """Indices of the plays that go on, best first: ``scores`` is one utility a play
        (shape ``(n,)``, n >= 1)."""
        order = np.argsort(-scores, kind="stable")
        best = scores[order[0]]
        within = sum(1 for i in order[: self.keep] if scores[i] >= best - self.margin)
        return [int(i) for i in order[: max(within, self.accept)]]


#: 2- and 3-ply: the opponent's replies of each roll screened at 0-ply, at most this many
#: compared one ply shallower (1: the 0-ply choice alone, GNU Backgammon's way; 2 costs twice
#: as much).
REPLY_FILTER: Final = MoveFilter(1, 0.0)
#: Bytes the caches of one evaluator hold at most, estimated (:data:`ENTRY_BYTES`): a
#: 2-ply decision at Expert fills some tens of thousands of 0-ply entries, so this keeps the
#: last few decisions' (an evaluator bounded by entries, 500,000 in each cache, grew past
#: 2 GB of memory after some 140 heavy evaluations).
DEFAULT_CACHE_BYTES: Final = 96 << 20
#: What one entry of each cache holds, bytes (``sys.getsizeof`` of the dict's share, its key
#: and its value on 64-bit CPython 3.11): a 26-int board, its row number and a row of 5
#: float32 (0-ply); a utility and a board and 5 float64 (1- to 3-ply).
ENTRY_BYTES: Final = {"p0": 330, "p1": 490, "p2": 490, "p3": 490}
#: The share of the bytes each cache may hold (the 0-ply one is the busiest by far; a 3-ply
#: entry is one play of an analysed decision).
CACHE_SHARES: Final = {"p0": 0.6, "p1": 0.3, "p2": 0.095, "p3": 0.005}
#: Entries kept in each cache before it is emptied, when a count is asked for instead of
#: bytes (:class:`NetEvaluator`'s ``cache_size``).
DEFAULT_CACHE_SIZE: Final = 500_000


class NetEvaluator:
    """The nets with caches keyed by board, and the plies of search on them.

    Each cache is emptied when one more entry would take it past its share of the bytes
    (:data:`CACHE_SHARES` of ``cache_bytes``, each entry counted at :data:`ENTRY_BYTES`):
    cheap, and in a game the positions of the last few turns are the ones that repeat.

    Args:
        nets: the nets; default the shipped ones (:func:`backgammon.ai.nets.default_nets`).
        cache_size: the most entries kept in each cache (None: as ``cache_bytes`` allows).
        cache_bytes: the most bytes the caches hold together, estimated.

    Raises:
        WeightsError: the shipped weights file is missing or corrupt.
    """

    def __init__(self, nets: NetSet | None = None, cache_size: int | None = None, *,
                 cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        single_threaded_blas()
        self.nets = nets if nets is not None else default_nets()
        self.max_bytes = cache_bytes
        #: the most entries of each cache
        self.limits = {name: max(1, int(cache_bytes * CACHE_SHARES[name]) // size)
                       for name, size in ENTRY_BYTES.items()}
        if cache_size is not None:
            self.limits = {name: min(cache_size, most) for name, most in self.limits.items()}
        self.cache_size = max(self.limits.values())
        self._lock = threading.Lock()
        self._p0 = _Rows(self.limits["p0"])
        self._p1: dict[tuple[Utility, Board], Floats] = {}
        self._p2: dict[tuple[Utility, Board], Floats] = {}
        self._p3: dict[tuple[Utility, Board], Floats] = {}

    def cache_bytes(self) -> int:
        """The bytes the caches hold now, estimated (:data:`ENTRY_BYTES` an entry)."""
        return (len(self._p0.index) * ENTRY_BYTES["p0"] + len(self._p1) * ENTRY_BYTES["p1"]
                + len(self._p2) * ENTRY_BYTES["p2"] + len(self._p3) * ENTRY_BYTES["p3"])

    def clear(self) -> None:
        """Empty every cache."""
        self._p0 = _Rows(self.limits["p0"])
        self._p1.clear()
        self._p2.clear()
        self._p3.clear()

    def probs0(self, boards: Sequence[Board]) -> npt.NDArray[np.float32]:
        """0-ply: ``(N, 5)`` probabilities of each board, mover's view, opponent to roll."""
        # a table is never emptied, only replaced (:meth:`_remember`), and its rows are read
        # after its index: the answer stays right while another thread (players on several
        # threads share one evaluator) adds rows or starts a new table
        table = self._p0
        get = table.index.get
        n = len(boards)
        index = np.fromiter([get(b, -1) for b in boards], dtype=np.int64, count=n)
        out: npt.NDArray[np.float32] = table.rows[np.maximum(index, 0)]
        missing = np.flatnonzero(index < 0)
        if len(missing):
            unique: dict[Board, int] = {}  # each board once, however often it comes
            slot = [unique.setdefault(boards[i], len(unique)) for i in missing.tolist()]
            new = list(unique)
            values = after_play_probabilities(new, self.nets)
            out[missing] = values[slot]
            self._remember(new, values)
        return out

    def _remember(self, boards: list[Board], values: npt.NDArray[np.float32]) -> None:
        """Keep the 0-ply probabilities of new ``boards`` (a batch larger than the cache: its
        first ones), in a new table when the current one has no room left."""
        with self._lock:
            table = self._p0
            if table.used + len(boards) > table.most:
                table = self._p0 = _Rows(table.most)
            start = table.used
            end = start + min(len(boards), table.most - start)
            if end > len(table.rows):  # grown by doubling, so that a new table costs little
                grown = np.zeros((min(table.most, max(end, 2 * len(table.rows))), 5),
                                 dtype=np.float32)
                grown[:start] = table.rows[:start]
                table.rows = grown
            table.rows[start:end] = values[:end - start]
            table.used = end
            table.index.update(zip(boards[:end - start], range(start, end), strict=True))

    def _replies(self, board: Board) -> list[list[Board]]:
        """For each of the 21 rolls, the opponent's plays from ``board`` (in its numbering;
        the board itself, as the opponent sees it, when the roll cannot be played)."""
        opponent = flip(board)
        position = Position.from_points(opponent, WHITE)
        return [legal_plays(position, roll).own_boards() or [opponent] for roll in ROLL_DICE]

    def probs1(self, board: Board, utility: Utility = MONEY) -> Floats:
        """1-ply: the 5 probabilities of ``board`` (mover's view, opponent to roll) as the
        mean over the opponent's rolls of its best reply at 0-ply (best by its utility, the
        opposite of ``utility``)."""
        probs: Floats = self.probs1_many([board], utility)[0]
        return probs

    def probs1_many(self, boards: Sequence[Board], utility: Utility = MONEY) -> Floats:
        """:meth:`probs1` of each board, ``(N, 5)``; every reply of every board is scored in
        one batched net call (far cheaper than one call per board)."""
        out = np.empty((len(boards), 5), dtype=np.float64)
        todo: list[int] = []
        for i, board in enumerate(boards):
            found = self._p1.get((utility, board))
            if found is not None:
                out[i] = found
            elif not any(c > 0 for c in board):  # the mover has borne off: the game is over
                out[i] = self.probs0([board])[0]
            else:
                todo.append(i)
        if todo:
            groups = [group for i in todo for group in self._replies(boards[i])]
            flat = [b for group in groups for b in group]
            p = self.probs0(flat)  # the opponent's view
            scores = utility.opposite().of(p)
            lengths = np.fromiter((len(g) for g in groups), dtype=np.int64, count=len(groups))
            starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
            segment = np.repeat(np.arange(len(groups)), lengths)
            # the best reply of each roll: sort by (segment, -score), take each segment's first
            best = np.lexsort((-scores, segment))[starts]
            chosen = p[best].astype(np.float64).reshape(len(todo), len(ROLL_DICE), 5)
            means = np.einsum("r,nrk->nk", _WEIGHTS, chosen)
            if len(self._p1) + len(todo) > self.limits["p1"]:
                self._p1.clear()
            room = self.limits["p1"] - len(self._p1)
            for j, i in enumerate(todo):
                value = _invert1(means[j])
                out[i] = value
                if j < room:
                    self._p1[(utility, boards[i])] = value
        return out

    def probs2(self, board: Board, utility: Utility = MONEY) -> Floats:
        """2-ply: like :meth:`probs1`, each roll's replies screened at 0-ply and the best
        (:data:`REPLY_FILTER`) compared at 1-ply, the best reply's 1-ply probabilities."""
        return self._deeper(board, 2, utility)

    def probs3(self, board: Board, utility: Utility = MONEY) -> Floats:
        """3-ply: the same with each roll's best reply (chosen at 0-ply, as GNU Backgammon's
        n-ply evaluation chooses; :data:`REPLY_FILTER`) scored at 2-ply (:meth:`probs2`);
        mover's view, ``(5,)``. Costs about 21 2-ply evaluations."""
        return self._deeper(board, 3, utility)

    def _deeper(self, board: Board, plies: int, utility: Utility) -> Floats:
        """:meth:`probs2` (``plies`` 2) or :meth:`probs3` (3), cached."""
        cache = self._p2 if plies == 2 else self._p3
        key = (utility, board)
        found = cache.get(key)
        if found is not None:
            return found
        if not any(c > 0 for c in board):
            value: Floats = self.probs0([board])[0].astype(np.float64)
        else:
            replies = self._replies(board)
            flat = [b for group in replies for b in group]
            p = self.probs0(flat)  # the opponent's view
            theirs = utility.opposite()
            scores = theirs.of(p)
            picked: list[list[Board]] = []
            start = 0
            for group in replies:
                end = start + len(group)
                picked.append([group[i] for i in REPLY_FILTER.kept(scores[start:end])])
                start = end
            q = self.probs_many([b for chosen in picked for b in chosen], plies - 1, theirs)
            values = theirs.of(q)
            acc = np.zeros(5, dtype=np.float64)
            start = 0
            for weight, chosen in zip(_WEIGHTS, picked, strict=True):
                end = start + len(chosen)
                acc += weight * q[start + int(np.argmax(values[start:end]))]
                start = end
            value = _invert1(acc)
        if len(cache) >= self.limits[f"p{plies}"]:
            cache.clear()
        cache[key] = value
        return value

    def probs(self, board: Board, plies: int, utility: Utility = MONEY) -> Floats:
        """The probabilities of one board at ``plies`` (0, 1, 2 or 3; deeper counts as 3)."""
        if plies <= 0:
            zero: Floats = self.probs0([board])[0].astype(np.float64)
            return zero
        if plies == 1:
            return self.probs1(board, utility)
        if plies == 2:
            return self.probs2(board, utility)
        return self.probs3(board, utility)

    def probs_many(self, boards: Sequence[Board], plies: int, utility: Utility = MONEY
                   ) -> Floats:
        """:meth:`probs` of each board, ``(N, 5)`` float64 (0 and 1 ply in one batched
        call)."""
        if plies <= 0:
            return self.probs0(boards).astype(np.float64)
        if plies == 1:
            return self.probs1_many(boards, utility)
        return np.asarray([self.probs(b, plies, utility) for b in boards], dtype=np.float64
                          ).reshape(-1, 5)


class _Rows:
    """A 0-ply cache: each board's row number in a float32 array of probabilities (5 a row)
    that grows up to ``most`` rows; ``used`` rows are taken. A row is written before its
    board is entered, and a grown array holds every row of the one before, so a board found
    always has its row in ``rows``."""

    __slots__ = ("index", "most", "rows", "used")

    def __init__(self, most: int) -> None:
        self.index: dict[Board, int] = {}
        self.most = max(1, most)
        self.rows = np.zeros((min(self.most, 4096), 5), dtype=np.float32)
        self.used = 0


def _invert1(p: Floats) -> Floats:
    return np.array([1.0 - p[0], p[3], p[4], p[1], p[2]], dtype=np.float64)


class Ranked(NamedTuple):
    """One play's score at the root.

    Attributes:
        index: the play's index in its :class:`~backgammon.core.moves.LegalPlays`.
        value: its utility (money equity in points unless another utility was asked for).
        probs: its 5 probabilities, mover's view.
        ply: the depth that produced ``value``.
    """

    index: int  # type: ignore[assignment]  # the field shadows tuple.index, as intended
    value: float
    probs: tuple[float, float, float, float, float]
    ply: int


def rank(
    boards: Sequence[Board],
    evaluator: NetEvaluator,
    plies: int,
    filters: Sequence[MoveFilter] = (),
    utility: Utility = MONEY,
) -> list[Ranked]:
    """Score a roll's plays (their result boards, mover's numbering), best first.

    Args:
        boards: ``LegalPlays.own_boards()``.
        evaluator: the nets and caches.
        plies: the deepest ply (0 to 3).
        filters: ``filters[k]`` chooses which plays scored at ply k go on to ply k + 1; a
            missing filter keeps every play (at 3 plies, a second or two each).
        utility: what a play is worth (default money equity).

    Returns:
        Every play: those that reached the deepest ply first, best first, then the others by
        their deepest score; ties keep the order of ``boards``.
    """
    if not boards:
        return []
    p0 = evaluator.probs0(boards).astype(np.float64)
    scored = [Ranked(i, float(v), _tuple(p0[i]), 0) for i, v in enumerate(utility.of(p0))]
    scored.sort(key=lambda r: -r.value)
    for ply in range(1, plies + 1):
        if len(scored) < 2:
            break
        move_filter = filters[ply - 1] if ply - 1 < len(filters) else MoveFilter(len(boards), 9.0)
        values = np.asarray([r.value for r in scored if r.ply == ply - 1])
        top = [r for r in scored if r.ply == ply - 1]
        chosen = [top[i] for i in move_filter.kept(values)]
        if len(chosen) < 2 and ply > 1:
            break
        found = evaluator.probs_many([boards[r.index] for r in chosen], ply, utility)
        values = utility.of(found)
        deeper = [Ranked(r.index, float(v), _tuple(p), ply)
                  for r, v, p in zip(chosen, values, found, strict=True)]
        deeper.sort(key=lambda r: -r.value)
        done = {r.index for r in chosen}
        scored = deeper + [r for r in scored if r.index not in done]
    return scored


def _tuple(p: Floats) -> tuple[float, float, float, float, float]:
    return (float(p[0]), float(p[1]), float(p[2]), float(p[3]), float(p[4]))


def preroll(
    position: Position,
    evaluator: NetEvaluator,
    plies: int,
    filters: Sequence[MoveFilter] = (),
    utility: Utility = MONEY,
) -> Floats:
    """The 5 probabilities of ``position`` for its side to move, before it rolls.

    plies 0: the nets on the position itself; n >= 1: the mean over the 21 rolls of the best
    play's (n - 1)-ply probabilities, the plays screened by ``filters`` as in :func:`rank`.
    """
    board = position.own_points(position.turn)
    if plies <= 0:
        return _invert1(evaluator.probs0([flip(board)])[0].astype(np.float64))
    acc = np.zeros(5, dtype=np.float64)
    for roll, weight in zip(ROLL_DICE, ROLL_WEIGHT, strict=True):
        boards = legal_plays(position, roll).own_boards()
        if not boards:  # the roll cannot be played: the board stands, the opponent to roll
            acc += weight * evaluator.probs0([board])[0].astype(np.float64)
            continue
        best = rank(boards, evaluator, plies - 1, filters, utility)[0]
        acc += weight * np.asarray(best.probs)
    return acc


_SHARED: NetEvaluator | None = None


def shared_net_evaluator() -> NetEvaluator:
    """The process-wide :class:`NetEvaluator` on the default nets: the shipped ones, or those
    :func:`backgammon.ai.nets.use_weights` made the default (a new evaluator, with empty
    caches, from the first call after it)."""
    global _SHARED
    nets = default_nets()
    if _SHARED is None or _SHARED.nets is not nets:
        _SHARED = NetEvaluator(nets)
    return _SHARED


__all__ = [
    "CACHE_SHARES",
    "DEFAULT_CACHE_BYTES",
    "DEFAULT_CACHE_SIZE",
    "ENTRY_BYTES",
    "MONEY",
    "REPLY_FILTER",
    "MoveFilter",
    "NetEvaluator",
    "Ranked",
    "Utility",
    "outcome_utility",
    "preroll",
    "rank",
    "shared_net_evaluator",
]
