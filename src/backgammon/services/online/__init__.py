"""Online play between two browsers, the room logic (no web framework): rooms, commit-reveal
dice, clocks; the server referees.

* :mod:`.protocol`: the wire protocol (every message, its fields and the errors) and the parser.
* :mod:`.rooms`: :class:`~.rooms.Room`, a synchronous state machine around a
  :class:`~backgammon.core.match.Match` that shares the table's views and policies with local
  play (:mod:`backgammon.services.table`), and :class:`~.rooms.RoomManager` (invite codes,
  expiry, limits per address).

The transport (HTTP and WebSocket endpoints) is :mod:`backgammon.server.online`.
"""

from backgammon.services.online.protocol import OnlineError
from backgammon.services.online.rooms import (
    OnlineSettings,
    Room,
    RoomManager,
    RoomPhase,
    Seat,
)

__all__ = ["OnlineError", "OnlineSettings", "Room", "RoomManager", "RoomPhase", "Seat"]
