"""The transport of online play: the HTTP and WebSocket endpoints (:mod:`.routes`). The rooms
themselves (the protocol, commit-reveal dice, clocks) are :mod:`backgammon.services.online`.

Mount it with ``app.include_router(router)``; the rooms live at ``app.state.online`` (made on
first use, or set your own ``OnlineHub(RoomManager(expiry=..., now=...))``).
"""

from backgammon.server.online.routes import OnlineHub, router
from backgammon.services.online import OnlineSettings, Room, RoomManager, RoomPhase, Seat

__all__ = ["OnlineHub", "OnlineSettings", "Room", "RoomManager", "RoomPhase", "Seat", "router"]
