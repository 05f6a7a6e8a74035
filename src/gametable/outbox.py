"""One WebSocket's ordered outbox: frames queued, one writer task sending them in order.

The rooms' door (:mod:`gametable.online`) gives each connection an :class:`Outbox`: handlers
queue frames without awaiting the network, so a slow reader never holds up a room, and a
reader that falls :data:`MAX_QUEUE` frames behind is closed (WebSocket code 1008, policy
violation) rather than buffered without bound.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

#: Frames queued for one connection before it is dropped as too slow to read them.
MAX_QUEUE: Final = 256
#: The close code of a connection that fell too far behind (policy violation).
CLOSE_TOO_SLOW: Final = 1008


class Outbox:
    """A WebSocket and its queue of frames; the writer task starts at once (on the running
    event loop)."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.closing = False
        self.close_code = 1000
        self.writer = asyncio.create_task(self._write())

    def send(self, payload: Any) -> None:
        """Queue one JSON frame (dropped once the connection is closing)."""
        self.send_text(json.dumps(payload, separators=(",", ":")))

    def send_text(self, text: str) -> None:
        """Queue one text frame (dropped once the connection is closing; past
        :data:`MAX_QUEUE` the connection is closed instead)."""
        if self.closing:
            return
        if self.queue.qsize() >= MAX_QUEUE:
            self.close(CLOSE_TOO_SLOW)
            return
        self.queue.put_nowait(text)

    def close(self, code: int = 1000) -> None:
        """Send what is queued, then close the WebSocket with ``code``."""
        if not self.closing:
            self.closing = True
            self.close_code = code
            self.queue.put_nowait(None)

    async def _write(self) -> None:
        websocket = self.websocket
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    break
                await websocket.send_text(text)
            if websocket.application_state is WebSocketState.CONNECTED:
                await websocket.close(code=self.close_code)
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass  # the peer went away; the reader sees it too
