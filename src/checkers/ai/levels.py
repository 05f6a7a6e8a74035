"""The computer's levels: how deep it searches, how long it may think, how much it varies.

* **Easy**: 2 plies (then exact quiescence); plays any root move scoring within 120
  centi-men (1.2 men) of the best, drawn by the caller's ``random.Random``.
* **Medium**: 6 plies, window 30.
* **Hard**: 8 plies, window 0 (the best move). A node budget of 50,000 positions (about
  0.3 s on the project's 2-core machine) stops the 8th iteration where it would take longer
  (the 7th then decides), so that the move does not depend on the machine's speed; the clock
  stops the search at 0.45 s in any case (kings endings search fewer positions a second and
  sometimes reach it).
* Medium's node budget (40,000) and Easy's and Medium's clock (0.5 s) are guards they
  rarely reach.
* **Expert**: iterative deepening on a time budget of about 1 s a move (no new iteration
  after 0.5 s, a hard stop at 1 s; typically 9 to 12 plies), and the kings-only endgame
  database of :mod:`checkers.ai.endgame` (exact results and distances up to 5 pieces), so
  that it converts 2 kings against 1 and 3 against 2 and holds drawn endings.

A level's search always stops at its first limit reached: depth, nodes or time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from checkers.errors import IllegalActionError


@dataclass(frozen=True, slots=True)
class Level:
    """A playing strength.

    Attributes:
        name: the level's name.
        depth: the deepest iteration, plies (quiescence goes on beyond it).
        window: centi-men: root moves scoring within this of the best may be played.
        node_limit: stop after about this many nodes (None: no budget); it makes the move
            independent of the machine's speed.
        time_limit: seconds: the hard stop (None: none).
        soft_time: seconds: no new iteration starts after this (None: none).
        endgame: whether the search probes the endgame database.
    """

    name: str
    depth: int
    window: int = 0
    node_limit: int | None = None
    time_limit: float | None = None
    soft_time: float | None = None
    endgame: bool = False


EASY: Final = Level("easy", depth=2, window=120, time_limit=0.5)
MEDIUM: Final = Level("medium", depth=6, window=30, node_limit=40_000, time_limit=0.5)
HARD: Final = Level("hard", depth=8, node_limit=50_000, time_limit=0.45)
EXPERT: Final = Level("expert", depth=60, time_limit=1.0, soft_time=0.5, endgame=True)

#: The levels by name, weakest first.
LEVEL_TABLE: Final[dict[str, Level]] = {level.name: level for level in (EASY, MEDIUM, HARD, EXPERT)}
#: The level names in order: ``("easy", "medium", "hard", "expert")``.
LEVELS: Final[tuple[str, ...]] = tuple(LEVEL_TABLE)


def get_level(name: str | Level) -> Level:
    """The level of that name (case-insensitive), or the level itself.

    Raises:
        IllegalActionError: naming the levels, when there is none of that name.
    """
    if isinstance(name, Level):
        return name
    level = LEVEL_TABLE.get(str(name).strip().lower())
    if level is None:
        raise IllegalActionError(f"unknown level {name!r}: choose one of {', '.join(LEVELS)}")
    return level
