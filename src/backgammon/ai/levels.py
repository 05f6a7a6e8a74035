"""The computer's levels: which evaluation, how deep a search, and how much noise.

The five levels the game offers play on the neural evaluation (:mod:`backgammon.ai.netsearch`,
plies as GNU Backgammon counts them):

* **Easy**: 0-ply, with Gaussian noise of sigma 0.25 points added to each play's equity (a
  beginner's errors; the noise is drawn from the player's injected ``random.Random``).
* **Medium**: 0-ply, noise sigma 0.06 (small slips; about an intermediate player).
* **Hard**: 1-ply on the best 0-ply candidates, no noise.
* **Expert**: 2-ply on the best 1-ply candidates, no noise; the default for hints and analysis.
* **Master**: Expert's search, then its best two 2-ply plays, when they are within 0.04 of
  each other, rescored at 3-ply (:meth:`~backgammon.ai.netsearch.NetEvaluator.probs3`). It
  loses about a sixth less than Expert judged by GNU Backgammon, at several times the think
  time (docs/performance.md: a median of 0.4 s a move on a 2-core machine, but several seconds
  on the hardest moves).

Hard, Expert and Master take their cube decisions on a 2-ply lookahead (the mean over their
own 21 rolls of the best play's 1-ply probabilities), Easy and Medium on the nets alone.

One more level, **classic**, is the hand-made evaluation of :mod:`backgammon.ai.evaluation`
with its 2-ply search (the project's strongest player before the nets); the benches and the
training use it as a fixed opponent. It is not offered in the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from backgammon.ai.netsearch import MoveFilter


@dataclass(frozen=True)
class Level:
    """A playing strength.

    Attributes:
        name: the level's name.
        evaluation: ``"net"`` (the neural nets) or ``"classic"`` (the hand-made evaluation).
        plies: net: the deepest ply of the search (0 to 3, GNU Backgammon's count).
        filters: net: ``filters[k]`` keeps the plays scored at ply k that go on to ply k + 1.
        noise: net: sigma, in points of equity, of the Gaussian noise added to each play's
            score before the best is chosen (0: none).
        cube_plies: net: plies of lookahead for cube decisions (0: the nets on the position;
            n: the mean over the 21 rolls of the best play at n - 1 plies). Even plies: the
            nets' odd-ply estimates lean towards the side that has just moved.
        cube_filters: net: the move filters of that lookahead.
        depth: classic: 1 (every play scored 1-ply) or 2 (a shortlist rescored 2-ply).
        window: classic: plays scored within this many pips of the best may be chosen.
        shortlist: classic 2-ply: at most this many of the best 1-ply plays are searched ...
        margin: ... those within this much cubeless equity (points) of the best 1-ply score.
        cube_depth: classic: plies of lookahead for cube decisions.
    """

    name: str
    evaluation: str = "net"
    plies: int = 0
    filters: tuple[MoveFilter, ...] = field(default=())
    noise: float = 0.0
    cube_plies: int = 0
    cube_filters: tuple[MoveFilter, ...] = field(default=())
    depth: int = 1
    window: float = 0.0
    shortlist: int = 4
    margin: float = 0.12
    cube_depth: int = 1


EASY: Final = Level("easy", plies=0, noise=0.25, cube_plies=0)
MEDIUM: Final = Level("medium", plies=0, noise=0.06, cube_plies=0)
HARD: Final = Level("hard", plies=1, filters=(MoveFilter(5, 0.12, accept=2),), cube_plies=2,
                    cube_filters=(MoveFilter(1, 0.0),))
EXPERT: Final = Level(
    "expert", plies=2, filters=(MoveFilter(8, 0.16, accept=5), MoveFilter(5, 0.08, accept=2)),
    cube_plies=2,
    cube_filters=(MoveFilter(2, 0.08),),
)
MASTER: Final = Level(
    "master", plies=3, filters=(*EXPERT.filters, MoveFilter(2, 0.04)),
    cube_plies=EXPERT.cube_plies, cube_filters=EXPERT.cube_filters,
)
#: The hand-made evaluation at its strongest (the project's Hard before the nets).
CLASSIC: Final = Level("classic", evaluation="classic", depth=2, window=0.0, shortlist=4,
                       margin=0.12, cube_depth=1)

#: The levels the game offers, weakest first.
LEVELS: Final[dict[str, Level]] = {level.name: level for level in (EASY, MEDIUM, HARD, EXPERT,
                                                                       MASTER)}
_ALL: Final[dict[str, Level]] = {**LEVELS, CLASSIC.name: CLASSIC}


def get_level(level: Level | str) -> Level:
    """A :class:`Level`, or the one named (any case): easy, medium, hard, expert, master or
    classic.

    Raises:
        ValueError: an unknown name, listing the known ones.
    """
    if isinstance(level, Level):
        return level
    found = _ALL.get(str(level).strip().lower())
    if found is None:
        raise ValueError(f"unknown level {level!r}: expected one of {', '.join(_ALL)}")
    return found


__all__ = ["CLASSIC", "EASY", "EXPERT", "HARD", "LEVELS", "MASTER", "MEDIUM", "Level", "get_level"]
