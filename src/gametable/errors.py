"""The table's exceptions: one base class, narrow subclasses, a stable code for the wire."""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

#: The HTTP status of each refusal code, one set for every door: the tables' and the rooms'
#: (``gametable.http``, ``gametable.online``, the records), and backgammon's local door
#: (``backgammon.server.errors``). Any other code answers 409: the action does not fit the
#: game or the room now.
HTTP_STATUS: Final = MappingProxyType({
    # the request itself is wrong
    "invalid": 422, "invalid_request": 422, "invalid_action": 422, "invalid_settings": 422,
    "invalid_setup": 422, "invalid_seat": 422, "invalid_time_control": 422,
    "invalid_name": 422, "invalid_browser": 422, "unknown_game": 422, "no_seat": 422,
    "illegal_move": 422,
    # nothing there, or not yours
    "not_found": 404, "unknown_format": 404, "not_your_game": 403, "not_your_table": 403,
    "not_your_room": 403, "room_not_restored": 410, "room_closed": 410,
    # it does not fit now
    "not_allowed": 409, "seats_taken": 409, "room_full": 409, "stored_game_invalid": 409,
    "invalid_record": 409,
    # too much, too often, or not now
    "too_many_tables": 429, "too_many_rooms": 429, "rate_limited": 429,
    "busy": 503, "unavailable": 503, "storage_full": 507,
})


def http_status(code: str) -> int:
    """The HTTP status of a refusal ``code`` (:data:`HTTP_STATUS`; any other: 409)."""
    return HTTP_STATUS.get(code, 409)


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
