"""Search over the dice: 1-ply and 2-ply expectimax, with a cache keyed by position.

Backgammon needs breadth over the dice rather than depth (DESIGN.md "Habits" 8):

* **1-ply** scores every distinct play of the roll by the static evaluation of its result
  (:func:`backgammon.ai.winprob.probabilities`, opponent to roll), as cubeless money equity.
* **2-ply** takes a shortlist of the best 1-ply plays and scores each by the expectation over
  the opponent's 21 rolls (weights 1/36 and 2/36) of the opponent's best reply, the reply
  chosen by the opponent's own 1-ply evaluation: expectation over the dice, not worst case.

Boards are 26-tuples in the mover's own numbering (:mod:`backgammon.ai.features`); plays are
never built in the inner loops (:meth:`LegalPlays.own_boards
<backgammon.core.moves.LegalPlays.own_boards>`), only the chosen one is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

from backgammon.ai.features import ROLL_DICE, ROLL_WEIGHT, Board, flip
from backgammon.ai.winprob import Probs, probabilities
from backgammon.core.moves import legal_plays
from backgammon.core.position import Position
from backgammon.core.types import WHITE

#: Bytes each cache of an evaluator holds at most, estimated (:data:`ENTRY_BYTES`).
DEFAULT_CACHE_BYTES: Final = 16 << 20
#: What one entry holds, bytes (``sys.getsizeof`` of a 26-int board key, its value and the
#: dict's share, 64-bit CPython 3.11): 5 floats (``probs``) or one float.
ENTRY_BYTES: Final = 520
#: Entries kept in each cache before it is emptied, when a count is asked for.
DEFAULT_CACHE_SIZE: Final = DEFAULT_CACHE_BYTES // ENTRY_BYTES


class Evaluator:
    """The static evaluation with caches keyed by board (a position and its side to move).

    One evaluator can serve many players and games: the values do not depend on who asks.
    Each cache is emptied when it reaches ``cache_size`` entries, what ``cache_bytes``
    holds at :data:`ENTRY_BYTES` an entry (cheap, and in a game the positions of the last
    few turns are the ones that repeat).

    Args:
        cache_size: the most entries kept in each cache (None: as ``cache_bytes`` allows).
        cache_bytes: the most bytes each cache holds, estimated.
    """

    __slots__ = ("_equity", "_probs", "_reply", "cache_size", "hits", "misses")

    def __init__(self, cache_size: int | None = None, *,
                 cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        most = max(1, cache_bytes // ENTRY_BYTES)
        self.cache_size = most if cache_size is None else min(cache_size, most)
        self._probs: dict[Board, Probs] = {}
        self._equity: dict[Board, float] = {}
        self._reply: dict[Board, float] = {}
        self.hits = 0
        self.misses = 0

    def probs(self, board: Board) -> Probs:
        """5 probabilities of ``board`` (mover's view, opponent to roll); see
        :func:`~backgammon.ai.winprob.probabilities`."""
        found = self._probs.get(board)
        if found is None:
            if len(self._probs) >= self.cache_size:
                self._probs.clear()
            found = probabilities(board)
            self._probs[board] = found
        return found

    def equity(self, board: Board) -> float:
        """Cubeless money equity of ``board`` for the side that has just moved, in points."""
        found = self._equity.get(board)
        if found is not None:
            self.hits += 1
            return found
        self.misses += 1
        p = self.probs(board)
        value = 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]
        if len(self._equity) >= self.cache_size:
            self._equity.clear()
        self._equity[board] = value
        return value

    def reply_equity(self, board: Board) -> float:
        """2-ply equity of ``board`` for the side that has just moved: the average over the
        opponent's 21 rolls of minus the equity of its best reply (by its 1-ply evaluation).
        A roll the opponent cannot play leaves the board as it is, the mover to roll."""
        found = self._reply.get(board)
        if found is not None:
            return found
        if not any(c > 0 for c in board):
            value = self.equity(board)  # the mover has borne off everything: game over
        else:
            opponent = flip(board)
            position = Position.from_points(opponent, WHITE)
            equity = self.equity
            value = 0.0
            for roll, weight in zip(ROLL_DICE, ROLL_WEIGHT, strict=True):
                boards = legal_plays(position, roll).own_boards()
                best = max(map(equity, boards)) if boards else equity(opponent)
                value -= weight * best
        if len(self._reply) >= self.cache_size:
            self._reply.clear()
        self._reply[board] = value
        return value

    def clear(self) -> None:
        """Empty every cache."""
        self._probs.clear()
        self._equity.clear()
        self._reply.clear()


class Scored(NamedTuple):
    """One play's score in a search.

    Attributes:
        play_index: the play's index in its :class:`~backgammon.core.moves.LegalPlays`.
        equity: cubeless money equity after the play, mover's view, in points.
        ply: the depth that produced ``equity`` (1 or 2).
    """

    play_index: int
    equity: float
    ply: int


def score_plays(
    boards: Sequence[Board],
    evaluator: Evaluator,
    depth: int = 1,
    shortlist: int = 4,
    margin: float = 0.12,
) -> list[Scored]:
    """Score the results of a roll's plays, best first.

    Args:
        boards: each play's result in the mover's numbering (``LegalPlays.own_boards()``).
        evaluator: the cached evaluation to use.
        depth: 1 scores every play 1-ply; 2 then rescores a shortlist 2-ply.
        shortlist: at most this many plays go to 2-ply ...
        margin: ... those within this much equity (points) of the best 1-ply score.

    Returns:
        Every play, the 2-ply ones first (best first), then the others by 1-ply score;
        ties keep the order of ``boards``.
    """
    equity = evaluator.equity
    first = sorted(
        (Scored(i, equity(board), 1) for i, board in enumerate(boards)),
        key=lambda s: -s.equity,
    )
    if depth < 2 or len(first) < 2:
        return first
    best = first[0].equity
    chosen = [s for s in first[:shortlist] if s.equity >= best - margin]
    if len(chosen) < 2:
        return first
    deep = sorted(
        (Scored(s.play_index, evaluator.reply_equity(boards[s.play_index]), 2) for s in chosen),
        key=lambda s: -s.equity,
    )
    return deep + first[len(chosen):]


def preroll_equity(position: Position, evaluator: Evaluator, depth: int = 1) -> float:
    """Cubeless money equity of ``position`` for its side to move, before it rolls, in points.

    depth 0: the static evaluation of the board seen from the opponent (who has just moved);
    depth 1: the average over the 21 rolls of the best play's 1-ply equity (a roll that cannot
    be played scores the board as it stands, the opponent to roll).
    """
    board = position.own_points(position.turn)
    if depth <= 0:
        return -evaluator.equity(flip(board))
    total = 0.0
    for roll, weight in zip(ROLL_DICE, ROLL_WEIGHT, strict=True):
        boards = legal_plays(position, roll).own_boards()
        total += weight * (max(map(evaluator.equity, boards)) if boards else
                           evaluator.equity(board))
    return total


def preroll_probabilities(position: Position, evaluator: Evaluator, depth: int = 1) -> Probs:
    """The 5 probabilities of ``position`` for its side to move, before it rolls.

    depth 0 is the static evaluation seen from the opponent; depth 1 averages, over the 21
    rolls, the probabilities of the play with the best 1-ply equity.
    """
    board = position.own_points(position.turn)
    if depth <= 0:
        p = evaluator.probs(flip(board))
        return (1.0 - p[0], p[3], p[4], p[1], p[2])
    acc = [0.0] * 5
    for roll, weight in zip(ROLL_DICE, ROLL_WEIGHT, strict=True):
        boards = legal_plays(position, roll).own_boards()
        best = max(boards, key=evaluator.equity) if boards else board
        p = evaluator.probs(best)
        for k in range(5):
            acc[k] += weight * p[k]
    return (acc[0], acc[1], acc[2], acc[3], acc[4])


#: One evaluator for the whole process, shared by the players that do not bring their own.
_SHARED: Evaluator | None = None


def shared_evaluator() -> Evaluator:
    """The process-wide :class:`Evaluator`."""
    global _SHARED
    if _SHARED is None:
        _SHARED = Evaluator()
    return _SHARED


__all__ = [
    "DEFAULT_CACHE_BYTES",
    "DEFAULT_CACHE_SIZE",
    "ENTRY_BYTES",
    "Evaluator",
    "Scored",
    "preroll_equity",
    "preroll_probabilities",
    "score_plays",
    "shared_evaluator",
]
