"""Choosing a play: rank a roll's plays by search, then pick one as a level does.

The plain functions that outside tools use::

    from backgammon.ai import choose_play
    play = choose_play(position, (3, 1), level="expert", seed=7)

In match play a play's worth is its match-winning chance at the score, the cube's value and
the match equity table deciding what a gammon is worth (:func:`play_utility`); in money play
it is cubeless money equity (with the Jacoby rule and the cube centred gammons count nothing).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, NamedTuple

from backgammon.ai.levels import Level, get_level
from backgammon.ai.netsearch import (
    MONEY,
    NetEvaluator,
    Utility,
    outcome_utility,
    rank,
    shared_net_evaluator,
)
from backgammon.ai.search import Evaluator, Scored, score_plays, shared_evaluator
from backgammon.ai.winprob import equity_per_pip
from backgammon.core.moves import LegalPlays, Play, legal_plays
from backgammon.core.position import Position
from backgammon.core.types import BLACK, WHITE, Color

if TYPE_CHECKING:
    from backgammon.ai.cube import CubeState

AnyEvaluator = Evaluator | NetEvaluator


class RankedPlay(NamedTuple):
    """A play with its score.

    Attributes:
        play: the play.
        equity: its worth to the side that played: cubeless money equity in points, or in
            match play the match-winning chance (0..1).
        ply: the search depth that produced ``equity`` (GNU Backgammon's count for the net
            levels; 1 or 2 for the classic level).
        probs: the 5 probabilities after the play, the player's view (win, win gammon, win
            backgammon, lose gammon, lose backgammon); None for the classic level.
    """

    play: Play
    equity: float
    ply: int
    probs: tuple[float, float, float, float, float] | None = None


#: Gammons count nothing: the Jacoby rule with the cube centred.
_NO_GAMMONS = Utility(-1.0, (2.0, 0.0, 0.0, 0.0, 0.0))


def play_utility(cube: CubeState | None, color: Color) -> Utility:
    """What a play's 5 probabilities are worth to ``color`` with ``cube`` (None: money).

    Money: cubeless equity (gammons ignored under the Jacoby rule while the cube is centred, and
    when gammons are off).
    Match: the match-winning chance after the game ends each way with the cube's value, from
    the match equity table (:func:`backgammon.ai.met.match_equity_table`).
    """
    if cube is None or not cube.is_match:
        if cube is not None and (not cube.gammons or (cube.jacoby and cube.owner is None)):
            return _NO_GAMMONS
        return MONEY
    from backgammon.ai.met import match_equity_table

    table = match_equity_table()
    a, b = cube.away(color)
    v = cube.value
    kind = "crawford" if cube.crawford else ("post" if cube.post_crawford() else "normal")
    counted = (1, 2, 3) if cube.gammons else (1, 1, 1)
    win = [table.after(a - k * v, b, kind) for k in counted]
    lose = [table.after(a, b - k * v, kind) for k in counted]
    return outcome_utility(win, lose)


def default_evaluator(level: Level) -> AnyEvaluator:
    """The process-wide evaluator that ``level`` plays on."""
    if level.evaluation == "classic":
        return shared_evaluator()
    return shared_net_evaluator()


def _ranked(
    legal: LegalPlays, level: Level, evaluator: AnyEvaluator, utility: Utility
) -> list[tuple[int, float, int, tuple[float, float, float, float, float] | None]]:
    """``(index, score, ply, probs)`` of every play, best first."""
    if isinstance(evaluator, NetEvaluator):
        return [(r.index, r.value, r.ply, r.probs) for r in
                rank(legal.own_boards(), evaluator, level.plies, level.filters, utility)]
    return [(s.play_index, s.equity, s.ply, None) for s in _score(legal, level, evaluator)]


#: ``settle`` for :func:`rank_plays`: every play in order.
EVERY_PLAY: Final = sys.maxsize


def rank_plays(
    position: Position,
    dice: Sequence[int],
    level: Level | str = "expert",
    evaluator: AnyEvaluator | None = None,
    cube: CubeState | None = None,
    settle: int = 0,
) -> list[RankedPlay]:
    """Every legal play of ``dice``, best first, scored at ``level``'s depth (no noise).

    The plays that reached the level's deepest ply come first, ranked by it, then the rest by
    their last score. Empty when the roll cannot be played.

    A play cut at a shallower ply can score above a deeper one (the plies do not agree to
    the last hundredth): with ``settle`` N, each of the first N plays that does is scored at
    the deepest ply too and ranked with the others there, so that a list of the first N
    never shows a lower row worth more than a higher one (what a hint shows).

    Args:
        position: the position, its side to move having rolled ``dice``.
        dice: two ints 1..6.
        level: a level or its name (default ``"expert"``).
        evaluator: the evaluator to use (default the process-wide one for the level).
        cube: the cube and match score (None: money play, cubeless).
        settle: how many of the first plays to keep in order (see above; 0: none,
            :data:`EVERY_PLAY`: all).

    Raises:
        InvalidDiceError: ``dice`` is not two ints 1..6.
        ValueError: unknown level name.
        WeightsError: the nets' weights file is missing or corrupt.
    """
    chosen = get_level(level)
    legal = legal_plays(position, dice)
    ev = evaluator or default_evaluator(chosen)
    utility = play_utility(cube, position.turn)
    ranked = _ranked(legal, chosen, ev, utility)
    if settle and ranked and isinstance(ev, NetEvaluator):
        ranked = _settled(ranked, legal, ev, utility, settle)
    return [RankedPlay(_play(legal, i), value, ply, probs) for i, value, ply, probs in ranked]


def _settled(
    ranked: list[tuple[int, float, int, tuple[float, float, float, float, float] | None]],
    legal: LegalPlays, evaluator: NetEvaluator, utility: Utility, first: int,
) -> list[tuple[int, float, int, tuple[float, float, float, float, float] | None]]:
    """``ranked`` with each of its first ``first`` plays cut at a shallower ply whose score
    is at least the lowest of the deepest ply scored there too, deepest first again."""
    top = ranked[0][2]
    floor = min(r[1] for r in ranked if r[2] == top)
    redo = [r for r in ranked[:first] if r[2] < top and r[1] >= floor]
    if not redo:
        return ranked
    boards = legal.own_boards()
    found = evaluator.probs_many([boards[r[0]] for r in redo], top, utility)
    values = utility.of(found)
    new = {r[0]: (r[0], float(v), top, (float(p[0]), float(p[1]), float(p[2]), float(p[3]),
                                        float(p[4])))
           for r, v, p in zip(redo, values, found, strict=True)}
    rows = [new.get(r[0], r) for r in ranked]
    rows.sort(key=lambda r: (-r[2], -r[1]))
    return rows


def _play(legal: LegalPlays, index: int) -> Play:
    play: Play = legal[index]
    return play


def _score(legal: LegalPlays, level: Level, evaluator: Evaluator) -> list[Scored]:
    return score_plays(
        legal.own_boards(), evaluator, level.depth, level.shortlist, level.margin
    )


def pick(
    legal: LegalPlays,
    level: Level,
    rng: random.Random,
    evaluator: AnyEvaluator,
    cube: CubeState | None = None,
) -> Play:
    """The play ``level`` chooses among ``legal``.

    Net levels: the best score after Gaussian noise of sigma ``level.noise`` (drawn from
    ``rng``) is added to each play's score. Classic: uniformly at random, with ``rng``, among
    the plays scored within the level's window of the best. The only play without searching
    when there is one; when the roll cannot be played, the empty play (no moves, the position
    unchanged).
    """
    if not legal:
        return Play(legal.position, (), legal.position)
    if len(legal) == 1:
        return _play(legal, 0)
    if isinstance(evaluator, NetEvaluator):
        ranked = _ranked(legal, level, evaluator, play_utility(cube, legal.position.turn))
        if level.noise <= 0:
            return _play(legal, ranked[0][0])
        noisy = max(ranked, key=lambda r: r[1] + rng.gauss(0.0, level.noise))
        return _play(legal, noisy[0])
    scored = _score(legal, level, evaluator)
    if level.window <= 0:
        return _play(legal, scored[0].play_index)
    position = legal.position
    tolerance = level.window * equity_per_pip(
        position.pip_count(WHITE) + position.pip_count(BLACK)
    )
    best = scored[0].equity
    pool = [s for s in scored if s.equity >= best - tolerance]
    return _play(legal, rng.choice(pool).play_index)


def choose_play(
    position: Position,
    dice: Sequence[int],
    level: Level | str = "expert",
    seed: int | random.Random | None = None,
    cube: CubeState | None = None,
) -> Play:
    """The play the computer makes at ``level`` with ``dice`` in ``position``.

    Args:
        position: the position, its side to move having rolled ``dice``.
        dice: two ints 1..6.
        level: ``"easy"``, ``"medium"``, ``"hard"``, ``"expert"`` (default), ``"master"``,
            ``"classic"`` or a :class:`~backgammon.ai.levels.Level`.
        seed: an int seed or a ``random.Random`` for the level's randomness; the same seed
            gives the same play. None uses a fresh ``random.Random()`` (only Easy and Medium
            use randomness).
        cube: the cube and match score (None: money play, cubeless).

    Returns:
        The chosen :class:`~backgammon.core.moves.Play`; when the roll cannot be played, the
        empty play (``len(play) == 0``, its result the position itself: the turn passes).

    Raises:
        InvalidDiceError: ``dice`` is not two ints 1..6.
        ValueError: unknown level name.
        WeightsError: the nets' weights file is missing or corrupt.
    """
    chosen = get_level(level)
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    return pick(legal_plays(position, dice), chosen, rng, default_evaluator(chosen), cube)


__all__ = ["RankedPlay", "choose_play", "default_evaluator", "pick", "play_utility",
           "rank_plays"]
