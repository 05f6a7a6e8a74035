"""The computer's levels: a search depth and a randomness window in pips.

A level chooses among the plays whose score is within its window of the best score, uniformly
at random with the player's injected ``random.Random`` (so a given seed gives the same plays).
The window is given in pips of evaluation and turned into equity at the position's pip total
(:func:`backgammon.ai.winprob.equity_per_pip`): Easy plays anything within 14 pips of the best,
a beginner's errors; Medium within 3 pips, small slips; Hard searches 2-ply and plays the best.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Level:
    """A playing strength.

    Attributes:
        name: ``"easy"``, ``"medium"`` or ``"hard"``.
        depth: 1 (every play scored 1-ply) or 2 (a shortlist rescored 2-ply).
        window: plays scored within this many pips of the best may be chosen (0: the best).
        shortlist: 2-ply: at most this many of the best 1-ply plays are searched ...
        margin: ... those within this much cubeless equity (points) of the best 1-ply score.
        cube_depth: plies of lookahead for cube decisions (0: static, 1: over the 21 rolls).
    """

    name: str
    depth: int
    window: float
    shortlist: int = 4
    margin: float = 0.12
    cube_depth: int = 1


EASY: Final = Level("easy", depth=1, window=14.0, cube_depth=0)
MEDIUM: Final = Level("medium", depth=1, window=3.0, cube_depth=0)
HARD: Final = Level("hard", depth=2, window=0.0, shortlist=4, margin=0.12, cube_depth=1)

#: The levels by name.
LEVELS: Final[dict[str, Level]] = {level.name: level for level in (EASY, MEDIUM, HARD)}


def get_level(level: Level | str) -> Level:
    """A :class:`Level`, or the one named (any case).

    Raises:
        ValueError: an unknown name, listing the known ones.
    """
    if isinstance(level, Level):
        return level
    found = LEVELS.get(str(level).strip().lower())
    if found is None:
        raise ValueError(f"unknown level {level!r}: expected one of {', '.join(LEVELS)}")
    return found


__all__ = ["EASY", "HARD", "LEVELS", "MEDIUM", "Level", "get_level"]
