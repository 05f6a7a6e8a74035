"""The computer player of American checkers: search, evaluation, levels, endgame database.

Imports only the standard library and the checkers engine.

* :func:`choose_move` (position, level, rng, history, time limit) -> :class:`SearchResult`.
* :class:`ComputerPlayer`: a level and a seed, ``.choose(game)`` -> :class:`~checkers.Move`.
* :data:`LEVELS`: ``("easy", "medium", "hard", "expert")``, weakest first.

The modules: :mod:`~checkers.ai.search` (negamax alpha-beta, iterative deepening,
transposition table, exact quiescence), :mod:`~checkers.ai.evaluation` (the static
evaluation), :mod:`~checkers.ai.zobrist` (hash keys), :mod:`~checkers.ai.endgame` (the
kings-only database, computed by our own retrograde analysis), :mod:`~checkers.ai.levels`.

>>> from checkers import Position
>>> from checkers.ai import choose_move
>>> str(choose_move(Position.from_fen("B:W18:B14"), "easy").move)
'14x23'
"""

from checkers.ai.levels import LEVELS, Level, get_level
from checkers.ai.player import (
    ComputerPlayer,
    SearchResult,
    accepts_draw,
    choose_move,
    claims_draw,
)

__all__ = [
    "LEVELS",
    "ComputerPlayer",
    "Level",
    "SearchResult",
    "accepts_draw",
    "choose_move",
    "claims_draw",
    "get_level",
]
