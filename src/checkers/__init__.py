"""American checkers (English draughts): the rules engine.

The engine (this package's top level: ``squares``, ``position``, ``moves``, ``game``,
``perft``) imports only the standard library. The computer player lives in
:mod:`checkers.ai`, PDN files in :mod:`checkers.pdn`, the ``checkers`` command in
:mod:`checkers.cli`.

>>> from checkers import Position, legal_moves, perft
>>> [str(m) for m in sorted(legal_moves(Position.start()), key=lambda m: m.path)][:3]
['9-13', '9-14', '10-14']
>>> perft(Position.start(), 4)
1469
"""

from checkers.errors import (
    CheckersError,
    FenError,
    IllegalActionError,
    IllegalMoveError,
    InvalidLogError,
    InvalidPositionError,
    NotationError,
    PdnError,
)
from checkers.game import Game, Outcome, Reason
from checkers.moves import Move, apply_move, children, has_legal_move, legal_moves, parse_move
from checkers.perft import divide, perft
from checkers.position import BLACK, WHITE, Color, Piece, Position

__all__ = [
    "BLACK",
    "WHITE",
    "CheckersError",
    "Color",
    "FenError",
    "Game",
    "IllegalActionError",
    "IllegalMoveError",
    "InvalidLogError",
    "InvalidPositionError",
    "Move",
    "NotationError",
    "Outcome",
    "PdnError",
    "Piece",
    "Position",
    "Reason",
    "apply_move",
    "children",
    "divide",
    "has_legal_move",
    "legal_moves",
    "parse_move",
    "perft",
]
