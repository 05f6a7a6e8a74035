"""A scripted browser on the online door's WebSocket, for the tests that drive it through
Starlette's ``TestClient``.

:class:`WsPeer` sends JSON messages and reads them back one at a time; a test that waits for a
message that never comes fails after 5 s instead of hanging (the session's own receive has no
timeout). Tests subclass it to add their own steps.
"""

from __future__ import annotations

import json
from typing import Any

import anyio

#: How long :meth:`WsPeer.recv` waits for the next message (seconds).
RECEIVE_TIMEOUT = 5.0


class WsPeer:
    """One WebSocket session of the online door (``ws``: a ``TestClient`` WebSocket)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.color = ""

    def send(self, **fields: Any) -> None:
        self.ws.send_text(json.dumps(fields))

    def recv(self) -> dict[str, Any]:
        async def receive() -> Any:
            with anyio.fail_after(RECEIVE_TIMEOUT):
                return await self.ws._send_rx.receive()

        message = self.ws.portal.call(receive)
        self.ws._raise_on_close(message)
        return dict(json.loads(message["text"]))

    def expect(self, kind: str) -> dict[str, Any]:
        message = self.recv()
        assert message["type"] == kind, message
        return message
