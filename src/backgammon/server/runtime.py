"""Process settings for a long-running game server.

:func:`tune_gc` is applied by ``backgammon serve`` once the app is built, and by
``bench/online_load.py`` to its server and clients. ``backgammon serve`` also raises the
open-file limit (:func:`raise_open_file_limit`), serves HTTP through
:func:`header_deadline_protocol`, so a client that never finishes its request's headers is
dropped, and caps each WebSocket message at :data:`WS_MAX_SIZE` bytes in the transport.
"""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import Collection
from typing import Any, Final

from gametable.wire import MAX_MESSAGE_BYTES

__all__ = ["GC_THRESHOLDS", "HEADER_TIMEOUT", "OPEN_FILES", "WS_MAX_SIZE", "AddressShare",
           "header_deadline_protocol", "raise_open_file_limit", "tune_gc"]

#: The collector thresholds :func:`tune_gc` sets: Python's first two (700 allocations, 10
#: young collections), and 100 instead of 10 middle collections before a full one.
GC_THRESHOLDS: Final = (700, 10, 100)


def tune_gc() -> None:
    """Keep full garbage collections out of the way of live games.

    Measured with ``bench/online_load.py`` (200 rooms on a 2-core machine): with Python's
    defaults a full collection walks every tracked object (the imported framework, some 70,000
    objects, plus every game in memory) and paused the server 100-230 ms, about once every 12
    seconds: those pauses were the whole latency tail. ``gc.freeze()`` takes everything alive
    after start-up out of every future collection, and a third threshold of 100 makes full
    collections about ten times rarer (none in a 2-minute, 200-room run), leaving the young
    ones (~1-15 ms) as they were. Raising the first threshold instead made each young collection
    nearly as slow as a full one.

    Call it once, after the app is built and before serving. It changes this process's
    collector (:func:`gc.freeze`, :func:`gc.set_threshold`); nothing else.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


#: The largest WebSocket message the transport takes, in bytes (uvicorn's ``ws_max_size``; its
#: default is 16 MiB): a larger one closes the connection (1009, message too big) as it
#: arrives. The limit counts the message once inflated, and the transport stops inflating a
#: compressed (permessage-deflate) frame there, so a kilobyte on the wire cannot become
#: megabytes in memory. Four times the rooms' own limit (:data:`gametable.wire.MAX_MESSAGE_BYTES`),
#: so a message a little over that one is still refused in words (``too_large``) on a
#: connection that stays open.
WS_MAX_SIZE: Final = 4 * MAX_MESSAGE_BYTES

#: Seconds a client has to send a request's headers (the request line and every header) before
#: its connection is dropped: uvicorn itself waits for them for ever.
HEADER_TIMEOUT: Final = 10.0
#: The open-file soft limit :func:`raise_open_file_limit` asks for by default (each connection
#: is one file descriptor).
OPEN_FILES: Final = 65536


class AddressShare:
    """The connections open from each client address, and the most one address may hold, so
    that one address cannot take every connection the server serves at once (the rest of
    ``--max-connections`` is kept for the others).

    Args:
        per_address: the most connections one address may hold (at least 1).
        trusted: the peer addresses not counted: the reverse proxies whose
            ``X-Forwarded-For`` names the client (``"*"``: every peer), whose connections
            carry many clients (the app counts those by the client the header names:
            :class:`~backgammon.server.middleware.ClientShareMiddleware`).
    """

    def __init__(self, per_address: int, trusted: str | Collection[str] = ()) -> None:
        if per_address < 1:
            raise ValueError(f"per_address must be at least 1, got {per_address!r}")
        self.per_address = per_address
        names = trusted.split(",") if isinstance(trusted, str) else trusted
        self.trusted = frozenset(name.strip() for name in names if name.strip())
        self.open: dict[str, int] = {}

    def take(self, address: str) -> bool:
        """Count a connection from ``address``; False (nothing counted) when it holds its
        most already. A trusted peer is always let in, uncounted."""
        if "*" in self.trusted or address in self.trusted:
            return True
        held = self.open.get(address, 0)
        if held >= self.per_address:
            return False
        self.open[address] = held + 1
        return True

    def give_back(self, address: str) -> None:
        """A connection :meth:`take` counted is closed."""
        held = self.open.get(address, 0) - 1
        if held > 0:
            self.open[address] = held
        else:
            self.open.pop(address, None)

    def refusal(self) -> bytes:
        """The HTTP answer to a connection over the share: 503 ``too_many_connections``."""
        body = json.dumps({"error": {"code": "too_many_connections", "message": (
            f"your address has {self.per_address} connections open, its most: close some "
            "and try again")}}).encode()
        return (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
                b"connection: close\r\ncontent-length: " + str(len(body)).encode()
                + b"\r\n\r\n" + body)


def header_deadline_protocol(seconds: float = HEADER_TIMEOUT,
                             share: AddressShare | None = None) -> type[Any]:
    """uvicorn's httptools HTTP protocol with a deadline for a request's headers, and a share
    of the connections for each client address.

    Each connection must deliver a request's headers within ``seconds`` of its first byte (of
    the connection, for the first request): a client that trickles a request in a byte at a
    time, or opens a connection and says nothing, is disconnected then instead of holding a
    file descriptor for ever. The body and WebSocket traffic after the headers are not timed
    here (the app and uvicorn's keep-alive timeout see to those). Pass the class as uvicorn's
    ``http=`` (``uvicorn.Config(app, http=header_deadline_protocol(10.0))``).

    With ``share``, a connection from an address that holds its most already is answered 503
    ``too_many_connections`` and closed as it opens, before it counts against uvicorn's
    ``limit_concurrency``; a WebSocket keeps its place until it closes.

    Args:
        seconds: the deadline (> 0).
        share: the connections of each address (None: not limited per address).

    Returns:
        A subclass of ``uvicorn.protocols.http.httptools_impl.HttpToolsProtocol``.

    Raises:
        ValueError: ``seconds`` is not > 0.
    """
    if not seconds > 0:
        raise ValueError(f"the header deadline must be a number of seconds > 0, got "
                         f"{seconds!r}")
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class HeaderDeadlineProtocol(HttpToolsProtocol):
        header_timeout = float(seconds)
        _header_timer: asyncio.TimerHandle | None = None
        _counted: str | None = None  # the address this connection is counted for

        _refused: asyncio.Transport | None = None  # over its address's share

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if isinstance(peer, tuple) and peer else None
            if share is not None and address is not None:
                if not share.take(address):
                    # Never counted as served: answered 503 once its request comes (closing
                    # first would reset the connection under the answer), closed at the
                    # latest after a second.
                    self._refused = transport
                    self._refusal_timer = asyncio.get_running_loop().call_later(
                        min(1.0, self.header_timeout), transport.close)
                    return
                if "*" not in share.trusted and address not in share.trusted:
                    self._counted = address
            super().connection_made(transport)
            self._arm_header_deadline()

        def data_received(self, data: bytes) -> None:
            refused = self._refused
            if refused is None:
                super().data_received(data)
            elif share is not None and not refused.is_closing():
                refused.write(share.refusal())
                refused.close()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused is not None:
                self._refusal_timer.cancel()
                self._refused = None
                return
            self._disarm_header_deadline()
            self._release()
            super().connection_lost(exc)

        def _release(self) -> None:
            if share is not None and self._counted is not None:
                share.give_back(self._counted)
                self._counted = None

        def handle_websocket_upgrade(self) -> None:
            super().handle_websocket_upgrade()
            counted, self._counted = self._counted, None
            if share is None or counted is None:
                return
            # The WebSocket's own protocol now gets the connection's end: it gives the place
            # back then.
            protocol = self.transport.get_protocol()
            lost = protocol.connection_lost

            def connection_lost(exc: Exception | None) -> None:
                try:
                    lost(exc)
                finally:
                    share.give_back(counted)

            protocol.connection_lost = connection_lost  # type: ignore[method-assign]

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm_header_deadline()  # the next request on a kept-alive connection

        def on_headers_complete(self) -> None:
            self._disarm_header_deadline()
            super().on_headers_complete()

        def _arm_header_deadline(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(self.header_timeout,
                                                          self._headers_too_late)

        def _disarm_header_deadline(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_late(self) -> None:
            self._header_timer = None
            if not self.transport.is_closing():
                self.transport.close()

    return HeaderDeadlineProtocol


def raise_open_file_limit(wanted: int = OPEN_FILES) -> int:
    """Raise this process's open-file soft limit towards ``wanted`` (never above the hard
    limit, never lower than it is), so that many connections do not run out of descriptors.

    Returns:
        The soft limit now in force (-1: unlimited; the platform has no ``resource`` module:
        0, nothing done).
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):  # pragma: no cover - refused by the system
            pass
    return int(soft)
