"""The engine's exceptions: one base class, narrow subclasses, the input quoted in the message.

Every exception raised for bad input is also a :class:`ValueError`, so callers that only care
"was this input bad?" can catch that.
"""

from __future__ import annotations


class BackgammonError(Exception):
    """Base class of every error this package raises on purpose."""


class InvalidPositionError(BackgammonError, ValueError):
    """A position that cannot occur: wrong checker counts, a bar of the wrong sign, a bad ID."""


class InvalidDiceError(BackgammonError, ValueError):
    """Dice that are not two (or, for what is left of a turn, up to four) values 1..6."""


class IllegalMoveError(BackgammonError, ValueError):
    """A single checker move that the rules forbid in the position and dice given."""


class IllegalPlayError(BackgammonError, ValueError):
    """A whole-turn play that is not one of the legal plays of the position and roll."""


class NotationError(BackgammonError, ValueError):
    """Text that is not a move or play in standard notation (e.g. ``"13/"``, ``"8-5"``)."""


class InvalidIdError(InvalidPositionError):
    """A malformed GNU Backgammon Position ID or Match ID, or an XGID."""


class IllegalActionError(BackgammonError, ValueError):
    """A game action that is not allowed now (``"Black cannot double: White owns the cube"``)."""


class InvalidLogError(BackgammonError, ValueError):
    """An event log that is not a legal game; the message names the index of the first bad event."""


class ProtocolError(BackgammonError, ValueError):
    """Bad input to the online dice protocol: a secret that is not 32 bytes, a bad round number."""


class DiceExhaustedError(BackgammonError, LookupError):
    """A :class:`~backgammon.core.dice.FixedDice` was asked for more rolls than it was given."""


class InvalidSettingsError(BackgammonError, ValueError):
    """Game or match settings that cannot be played (``"the Jacoby rule is for money play
    only"``, a score that has already won the match)."""
