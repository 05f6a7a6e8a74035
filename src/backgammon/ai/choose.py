"""Choosing a play: rank a roll's plays by search, then pick one as a level does.

The plain functions that outside tools use::

    from backgammon.ai import choose_play
    play = choose_play(position, (3, 1), level="hard", seed=7)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import NamedTuple

from backgammon.ai.levels import Level, get_level
from backgammon.ai.search import Evaluator, Scored, score_plays, shared_evaluator
from backgammon.ai.winprob import equity_per_pip
from backgammon.core.moves import LegalPlays, Play, legal_plays
from backgammon.core.position import Position
from backgammon.core.types import BLACK, WHITE


class RankedPlay(NamedTuple):
    """A play with its score.

    Attributes:
        play: the play.
        equity: cubeless money equity after it, for the side that played, in points.
        ply: the search depth that produced ``equity`` (1 or 2).
    """

    play: Play
    equity: float
    ply: int


def rank_plays(
    position: Position,
    dice: Sequence[int],
    level: Level | str = "hard",
    evaluator: Evaluator | None = None,
) -> list[RankedPlay]:
    """Every legal play of ``dice``, best first, scored at ``level``'s depth (no randomness).

    With a 2-ply level the shortlisted plays come first, ranked by their 2-ply equity, then the
    rest by 1-ply equity. Empty when the roll cannot be played.

    Raises:
        InvalidDiceError: ``dice`` is not two ints 1..6.
        ValueError: unknown level name.
    """
    chosen = get_level(level)
    legal = legal_plays(position, dice)
    scored = _score(legal, chosen, evaluator or shared_evaluator())
    return [RankedPlay(_play(legal, s.play_index), s.equity, s.ply) for s in scored]


def _play(legal: LegalPlays, index: int) -> Play:
    play: Play = legal[index]
    return play


def _score(legal: LegalPlays, level: Level, evaluator: Evaluator) -> list[Scored]:
    return score_plays(
        legal.own_boards(), evaluator, level.depth, level.shortlist, level.margin
    )


def pick(
    legal: LegalPlays, level: Level, rng: random.Random, evaluator: Evaluator
) -> Play:
    """The play ``level`` chooses among ``legal``: uniformly at random, with ``rng``, among
    those scored within the level's window of the best (the best when the window is 0).
    The only play without searching when there is one; when the roll cannot be played, the
    empty play (no moves, the position unchanged)."""
    if not legal:
        return Play(legal.position, (), legal.position)
    if len(legal) == 1:
        return _play(legal, 0)
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
    level: Level | str = "hard",
    seed: int | random.Random | None = None,
) -> Play:
    """The play the computer makes at ``level`` with ``dice`` in ``position``.

    Args:
        position: the position, its side to move having rolled ``dice``.
        dice: two ints 1..6.
        level: ``"easy"``, ``"medium"``, ``"hard"`` or a :class:`~backgammon.ai.levels.Level`.
        seed: an int seed or a ``random.Random`` for the level's randomness; the same seed
            gives the same play. None uses a fresh ``random.Random()`` (only Easy and Medium
            use randomness).

    Returns:
        The chosen :class:`~backgammon.core.moves.Play`; when the roll cannot be played, the
        empty play (``len(play) == 0``, its result the position itself: the turn passes).
    """
    chosen = get_level(level)
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    return pick(legal_plays(position, dice), chosen, rng, shared_evaluator())


__all__ = ["RankedPlay", "choose_play", "pick", "rank_plays"]
