"""The checkers engine's exceptions: one base class, narrow subclasses, the input quoted.

Every exception raised for bad input is also a :class:`ValueError`, so a caller that only asks
"was this input bad?" can catch that.
"""

from __future__ import annotations


class CheckersError(Exception):
    """Base class of every error the ``checkers`` package raises on purpose."""


class FenError(CheckersError, ValueError):
    """A PDN FEN string that cannot be read; the message names the part that is wrong."""


class InvalidPositionError(CheckersError, ValueError):
    """A position that cannot be set up: a square outside 1-32, or one square given twice."""


class NotationError(CheckersError, ValueError):
    """Text that is not a move in PDN notation (``11-15``, ``15x22x31``)."""


class IllegalMoveError(CheckersError, ValueError):
    """A move that is not among the legal moves of the position; the message says why."""


class IllegalActionError(CheckersError, ValueError):
    """A game action that is not allowed now (a move after the game ended, an answer to a
    draw offer nobody made)."""


class InvalidLogError(CheckersError, ValueError):
    """An event log that is not a legal game; the message names the index of the first bad
    event."""


class PdnError(CheckersError, ValueError):
    """A PDN text that cannot be read; the message names the line and the problem."""
