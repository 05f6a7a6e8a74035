"""The search: negamax with alpha-beta, iterative deepening, a transposition table and exact
quiescence, on the raw bit sets of :mod:`checkers.moves`.

The techniques are the standard ones of game-tree search; the checkers-specific choices follow
Chinook (J. Schaeffer et al., "A world championship caliber checkers program", Artificial
Intelligence 53, 1992, and *One Jump Ahead*, 1997):

* **Negamax alpha-beta** (D. E. Knuth and R. W. Moore, "An analysis of alpha-beta pruning",
  Artificial Intelligence 6, 1975) with principal-variation (null-window) searches of every
  move after the first (J. Pearl's Scout, 1980; T. A. Marsland's PVS).
* **Iterative deepening** to the level's depth, stopped by a node budget or the clock: the
  move of the deepest *completed* iteration is played (or a better root move that a cut-off
  iteration already proved), so no move overruns its time.
* **Transposition table** keyed by :mod:`~checkers.ai.zobrist` keys: depth, bound type, score
  and best move of each searched position; win scores are stored relative to the node.
* **Move ordering**: the table's move first; among jumps, those taking more pieces (and
  kings) first; then the two killer moves of the ply (S. Akl and M. Newborn, 1977); then the
  history heuristic (J. Schaeffer, "The history heuristic", ICCA Journal 6(3), 1983).
* **Exact quiescence**: a position is quiet exactly when the side to move has no jump. At the
  horizon a quiet position gets the static :mod:`~checkers.ai.evaluation`; a position with a
  jump is searched on (every legal move is then a jump, since capture is mandatory) until it
  is quiet. A position with a single legal move is searched one ply deeper (a forced move
  costs no depth), as Chinook does.
* **Game rules in the tree**: a side with no legal move has lost: ``-(WIN - ply)``, so the
  search prefers the fastest win and the slowest loss. A position that repeats one of the
  game's earlier positions or one earlier in the search path scores as a draw (0), and so
  does a position after 80 plies without a capture or a man's move (the 40-move rule).
* **Endgame database** (optional): a kings-only position of at most 5 pieces takes its exact
  result from :mod:`~checkers.ai.endgame` (a win in ``d`` plies scores ``WIN - ply - d``).

Scores are hundredths of a man from the side to move's view.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from math import comb
from typing import Final

from checkers.ai.endgame import RANK, EndgameDatabase
from checkers.ai.evaluation import evaluate_raw
from checkers.ai.zobrist import child_key, key_of
from checkers.game import FORTY_MOVE_PLIES
from checkers.moves import RawMove, apply_raw, jumpers, raw_moves
from checkers.squares import VALID

#: The score of a win now (the other side has no legal move); a win in ``p`` plies from the
#: root scores ``WIN - p``, a loss ``-(WIN - p)``.
WIN: Final = 100_000
#: Scores beyond this are wins or losses (no evaluation comes near it).
WIN_BOUND: Final = WIN - 1_000
#: Above any score.
INFINITY: Final = WIN + 1
#: Deepest ply searched (forced moves and jumps extend the search; this bounds them).
MAX_PLY: Final = 128

_EXACT, _LOWER, _UPPER = 0, 1, 2
#: How often (in nodes) the clock and the node budget are looked at.
_CHECK_EVERY: Final = 511
#: The transposition table is emptied when it grows past this many entries (memory bound:
#: about 200 bytes an entry).
TABLE_LIMIT: Final = 1_000_000


class SearchTimeout(Exception):
    """Raised inside the search when the clock or the node budget runs out."""


@dataclass(frozen=True, slots=True)
class RootResult:
    """What :meth:`Searcher.search` found: ``move`` (a raw move), its ``score`` (centi-men,
    side to move's view), ``depth`` (the deepest completed iteration, 0 if none completed),
    ``nodes`` searched, ``seconds`` taken, and ``candidates``: the raw moves within the
    randomness window of the best (the best first), with their scores."""

    move: RawMove
    score: int
    depth: int
    nodes: int
    seconds: float
    candidates: tuple[tuple[RawMove, int], ...]


def is_win_score(score: int) -> bool:
    """True for a score that announces a forced win (or, negative, a forced loss)."""
    return abs(score) > WIN_BOUND


class Searcher:
    """One search's state: the transposition table, killers, history and counters.

    Args:
        endgame: the endgame database to probe, or None to search without it.
        clock: seconds, monotonic (injected for tests; :func:`time.perf_counter` by default).
    """

    def __init__(
        self,
        endgame: EndgameDatabase | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.endgame = endgame
        self.clock = clock
        self.table: dict[int, tuple[int, int, int, tuple[int, ...] | None]] = {}
        self.killers: list[list[tuple[int, ...] | None]] = [[None, None] for _ in range(MAX_PLY)]
        self.history: dict[tuple[int, int], int] = {}
        self.nodes = 0
        self._deadline = float("inf")
        self._node_limit = 1 << 62
        self._game_keys: frozenset[int] = frozenset()
        self._path: list[int] = []
        self._db_tables: dict[tuple[int, int], bytes | bytearray] = {}

    # ------------------------------------------------------------------ the tree

    def _check(self) -> None:
        if self.nodes >= self._node_limit or self.clock() >= self._deadline:
            raise SearchTimeout

    def _probe(self, own: int, opp: int, ply: int) -> int | None:
        """The endgame database's score of a kings-only position, or None."""
        table = self._db_tables.get((own.bit_count(), opp.bit_count()))
        if table is None:
            return None
        code = table[RANK[own] * comb(32, opp.bit_count()) + RANK[opp]]
        if code == 0:
            return 0
        plies = code - 1
        return WIN - ply - plies if plies % 2 else -(WIN - ply - plies)

    def negamax(
        self,
        own: int,
        opp: int,
        kings: int,
        black: bool,
        key: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        quiet: int,
    ) -> int:
        """The score of a position for its side to move (``own``; Black when ``black``),
        searched ``depth`` plies (then exact quiescence), within ``(alpha, beta)``.

        ``key`` is its Zobrist key, ``ply`` its distance from the root, ``quiet`` the plies
        since the last capture or man's move.

        Raises:
            SearchTimeout: when the node budget or the clock runs out.
        """
        self.nodes += 1
        if not self.nodes & _CHECK_EVERY:
            self._check()
        if key in self._game_keys or key in self._path:
            return 0
        if self._db_tables and kings == own | opp:
            found = self._probe(own, opp, ply)
            if found is not None:
                if quiet >= FORTY_MOVE_PLIES and found != ply - WIN:
                    return 0  # drawn by the 40-move rule unless the mover cannot move
                return found
        if depth <= 0:
            # the horizon: a quiet position is evaluated, without generating its moves
            empty = VALID & ~(own | opp)
            if not jumpers(own, opp, kings, empty, black):
                mine = own & kings
                if black:
                    movable = ((own << 4) | (own << 5) | (mine >> 4) | (mine >> 5)) & empty
                else:
                    movable = ((own >> 4) | (own >> 5) | (mine << 4) | (mine << 5)) & empty
                if not movable:
                    return ply - WIN
                if quiet >= FORTY_MOVE_PLIES:
                    return 0
                return evaluate_raw(own, opp, kings, black)
        moves = raw_moves(own, opp, kings, black)
        if not moves:
            return ply - WIN
        if quiet >= FORTY_MOVE_PLIES:
            return 0
        capture = moves[0][1] != 0
        if ply >= MAX_PLY - 1:
            return evaluate_raw(own, opp, kings, black) if not capture else 0
        if depth < 0:
            depth = 0

        table = self.table
        entry = table.get(key)
        best_path: tuple[int, ...] | None = None
        if entry is not None:
            e_depth, e_flag, e_score, best_path = entry
            if e_depth >= depth:
                if e_score > WIN_BOUND:
                    e_score -= ply
                elif e_score < -WIN_BOUND:
                    e_score += ply
                if e_flag == _EXACT:
                    return e_score
                if e_flag == _LOWER:
                    if e_score >= beta:
                        return e_score
                elif e_score <= alpha:
                    return e_score

        if len(moves) > 1:
            self._order(moves, best_path, ply, capture, kings)
            child_depth = depth - 1
        else:
            child_depth = depth if depth > 0 else -1
        original_alpha = alpha
        best = -INFINITY
        best_move: tuple[int, ...] | None = None
        path_keys = self._path
        path_keys.append(key)
        try:
            first = True
            for raw in moves:
                path, captured = raw
                child = child_key(key, kings, black, raw)
                child_quiet = 0 if captured or not kings >> path[0] & 1 else quiet + 1
                c_own, c_opp, c_kings = apply_raw(own, opp, kings, black, raw)
                if first:
                    score = -self.negamax(
                        c_opp, c_own, c_kings, not black, child, child_depth,
                        -beta, -alpha, ply + 1, child_quiet,
                    )  # fmt: skip
                    first = False
                else:
                    score = -self.negamax(
                        c_opp, c_own, c_kings, not black, child, child_depth,
                        -alpha - 1, -alpha, ply + 1, child_quiet,
                    )  # fmt: skip
                    if alpha < score < beta:
                        score = -self.negamax(
                            c_opp, c_own, c_kings, not black, child, child_depth,
                            -beta, -alpha, ply + 1, child_quiet,
                        )  # fmt: skip
                if score > best:
                    best = score
                    best_move = path
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            if not captured:
                                self._reward(path, ply, depth)
                            break
        finally:
            path_keys.pop()

        stored = best
        if stored > WIN_BOUND:
            stored += ply
        elif stored < -WIN_BOUND:
            stored -= ply
        if best >= beta:
            flag = _LOWER
        elif best > original_alpha:
            flag = _EXACT
        else:
            flag = _UPPER
        if len(table) >= TABLE_LIMIT:
            table.clear()
        table[key] = (depth, flag, stored, best_move)
        return best

    def _order(
        self,
        moves: list[RawMove],
        best_path: tuple[int, ...] | None,
        ply: int,
        capture: bool,
        kings: int,
    ) -> None:
        """Sort ``moves`` best-first: the table's move; among jumps (all moves are jumps when
        one is), those taking more pieces, then more kings; among plain moves, the killers,
        then by history."""
        if capture:

            def capture_rank(raw: RawMove) -> int:
                if raw[0] == best_path:
                    return 1 << 30
                return 4 * raw[1].bit_count() + (raw[1] & kings).bit_count()

            moves.sort(key=capture_rank, reverse=True)
            return
        first, second = self.killers[ply]
        history = self.history

        def rank(raw: RawMove) -> int:
            path = raw[0]
            if path == best_path:
                return 1 << 30
            if path == first:
                return 1 << 28
            if path == second:
                return (1 << 28) - 1
            return history.get((path[0], path[-1]), 0)

        moves.sort(key=rank, reverse=True)

    def _reward(self, path: tuple[int, ...], ply: int, depth: int) -> None:
        """A quiet move caused a cut-off: make it a killer and raise its history."""
        killers = self.killers[ply]
        if killers[0] != path:
            killers[1] = killers[0]
            killers[0] = path
        move = (path[0], path[-1])
        self.history[move] = self.history.get(move, 0) + depth * depth

    # ------------------------------------------------------------------ the root

    def search(
        self,
        own: int,
        opp: int,
        kings: int,
        black: bool,
        *,
        max_depth: int,
        window: int = 0,
        rng: random.Random | None = None,
        game_keys: Iterable[int] = (),
        quiet: int = 0,
        node_limit: int | None = None,
        time_limit: float | None = None,
        soft_time: float | None = None,
    ) -> RootResult:
        """Search the root position to ``max_depth`` plies by iterative deepening.

        Args:
            own, opp, kings, black: the position (``own`` the side to move's pieces).
            max_depth: the deepest iteration, plies (at least 1).
            window: centi-men; the move is drawn (by ``rng``) among the root moves scoring
                within ``window`` of the best; 0 plays the best (the first found on ties).
            rng: the random source for the window (``random.Random(0)`` when None).
            game_keys: Zobrist keys of the game's earlier positions (a child repeating one
                scores as a draw).
            quiet: the plies since the last capture or man's move before this position.
            node_limit: stop after about this many nodes (None: no budget).
            time_limit: stop after this many seconds (None: no limit); a cut-off iteration
                is discarded unless it already proved a better root move.
            soft_time: start no new iteration after this many seconds.

        Raises:
            ValueError: when the side to move has no legal move.
        """
        started = self.clock()
        self.nodes = 0
        self._deadline = started + time_limit if time_limit is not None else float("inf")
        self._node_limit = node_limit if node_limit is not None else 1 << 62
        root_key = key_of(*((own, opp) if black else (opp, own)), kings, black)
        self._game_keys = frozenset(game_keys) - {root_key}
        self._path = [root_key]
        self._db_tables = dict(self.endgame.tables) if self.endgame is not None else {}
        moves = raw_moves(own, opp, kings, black)
        if not moves:
            raise ValueError("the side to move has no legal move")
        if len(moves) == 1:
            max_depth = min(max_depth, 4)
        rng = rng if rng is not None else random.Random(0)
        scores: dict[tuple[int, ...], int] = {}
        best_raw, best_score, completed = moves[0], 0, 0
        candidates: tuple[tuple[RawMove, int], ...] = ((moves[0], 0),)
        depth = 1
        empty = VALID & ~(own | opp)
        in_capture = bool(jumpers(own, opp, kings, empty, black))
        while depth <= max_depth:
            if soft_time is not None and depth > 1 and self.clock() - started >= soft_time:
                break
            if depth > 1:  # the previous iteration's order: best first
                moves.sort(key=lambda raw: scores.get(raw[0], -INFINITY), reverse=True)
            elif len(moves) > 1:
                self._order(moves, None, 0, in_capture, kings)
            try:
                result = self._root(own, opp, kings, black, root_key, moves, depth, window, quiet)
            except _PartialRoot as partial:
                if partial.best is not None and (
                    not completed or partial.best[0][0] != best_raw[0]
                ):
                    # a cut-off iteration proved this move better than the last best (or
                    # is all there is)
                    best_raw, best_score = partial.best
                    candidates = (partial.best,)
                break
            scores = {raw[0]: score for raw, score in result}
            best_raw, best_score = result[0]
            candidates = tuple(
                (raw, score) for raw, score in result if score >= best_score - window
            )
            completed = depth
            if is_win_score(best_score) and WIN - abs(best_score) <= depth:
                break  # a forced result no deeper search changes
            depth += 1
        if window > 0 and len(candidates) > 1:
            ordered = sorted(candidates, key=lambda item: item[0][0])
            choice = rng.choice(ordered)
            best_raw, best_score = choice
            candidates = (choice, *(c for c in candidates if c is not choice))
        return RootResult(
            best_raw, best_score, completed, self.nodes, self.clock() - started, candidates
        )

    def _root(
        self,
        own: int,
        opp: int,
        kings: int,
        black: bool,
        key: int,
        moves: Sequence[RawMove],
        depth: int,
        window: int,
        quiet: int,
    ) -> list[tuple[RawMove, int]]:
        """One iteration at the root: each move's score, exact for the moves within
        ``window`` of the best (the others are upper bounds), best first.

        Raises:
            _PartialRoot: when time runs out, carrying the best fully searched move.
        """
        results: list[tuple[RawMove, int]] = []
        best = -INFINITY
        best_item: tuple[RawMove, int] | None = None
        for raw in moves:
            path, captured = raw
            child = child_key(key, kings, black, raw)
            child_quiet = 0 if captured or not kings >> path[0] & 1 else quiet + 1
            c_own, c_opp, c_kings = apply_raw(own, opp, kings, black, raw)
            child_depth = depth - 1
            try:
                if best_item is None:
                    score = -self.negamax(
                        c_opp, c_own, c_kings, not black, child, child_depth,
                        -INFINITY, INFINITY, 1, child_quiet,
                    )  # fmt: skip
                else:
                    floor = best - window - 1
                    score = -self.negamax(
                        c_opp, c_own, c_kings, not black, child, child_depth,
                        -floor - 1, -floor, 1, child_quiet,
                    )  # fmt: skip
                    if score > floor:
                        score = -self.negamax(
                            c_opp, c_own, c_kings, not black, child, child_depth,
                            -INFINITY, -floor, 1, child_quiet,
                        )  # fmt: skip
            except SearchTimeout:
                raise _PartialRoot(best_item) from None
            results.append((raw, score))
            if score > best:
                best = score
                best_item = (raw, score)
        results.sort(key=lambda item: item[1], reverse=True)
        return results


class _PartialRoot(Exception):
    """An iteration cut off by the clock; ``best`` is its best fully searched move."""

    def __init__(self, best: tuple[RawMove, int] | None) -> None:
        super().__init__()
        self.best = best
