"""Online play between two browsers: rooms, commit-reveal dice, clocks, the server referees.

* :mod:`.protocol`: the wire protocol (every message, its fields and the errors) and the parser.
* :mod:`.rooms`: :class:`~.rooms.Room`, a synchronous state machine around a
  :class:`~backgammon.core.match.Match`, and :class:`~.rooms.RoomManager` (invite codes, expiry).
* :mod:`.routes`: ``router``, the HTTP and WebSocket endpoints, and :class:`~.routes.OnlineHub`.
* :mod:`.persist`: :class:`~.persist.PersistentRooms`, rooms committed action by action to the
  games' SQLite file and rebuilt from it after a restart (what ``create_app`` uses).

Mount it with ``app.include_router(router)``; the rooms live at ``app.state.online`` (made on
first use, or set your own ``OnlineHub(RoomManager(expiry=..., now=...))``).
"""

from backgammon.server.online.rooms import OnlineSettings, Room, RoomManager, RoomPhase, Seat
from backgammon.server.online.routes import OnlineHub, router

__all__ = ["OnlineHub", "OnlineSettings", "Room", "RoomManager", "RoomPhase", "Seat", "router"]
