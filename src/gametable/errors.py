"""The table's exceptions: one base class, narrow subclasses, a stable code for the wire."""

from __future__ import annotations


class TableError(Exception):
    """Base class of every error the ``gametable`` package raises on purpose."""


class ClockError(TableError, ValueError):
    """A clock action that does not fit its state, or a malformed saved clock."""


class ActionRefused(TableError, ValueError):
    """An action the table or the game refuses; nothing changed.

    Attributes:
        code: a stable word for the wire (``"not_your_turn"``, ``"illegal_move"``,
            ``"not_allowed"``, ``"invalid_action"``, ``"game_over"``).
    """

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        #: The ``ref`` of the WebSocket frame refused, when it could be read.
        self.ref: int | str | None = None
        super().__init__(message)
