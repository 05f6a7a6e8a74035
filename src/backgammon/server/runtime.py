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
from typing import Any, Final

from backgammon.services.online.protocol import MAX_MESSAGE_BYTES

__all__ = ["GC_THRESHOLDS", "HEADER_TIMEOUT", "OPEN_FILES", "WS_MAX_SIZE",
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
#: megabytes in memory. Four times the app's own limit (:data:`~backgammon.services.online.
#: protocol.MAX_MESSAGE_BYTES`), so a message a little over that one is still refused in words
#: (``too_large``) on a connection that stays open.
WS_MAX_SIZE: Final = 4 * MAX_MESSAGE_BYTES

#: Seconds a client has to send a request's headers (the request line and every header) before
#: its connection is dropped: uvicorn itself waits for them for ever.
HEADER_TIMEOUT: Final = 10.0
#: The open-file soft limit :func:`raise_open_file_limit` asks for by default (each connection
#: is one file descriptor).
OPEN_FILES: Final = 65536


def header_deadline_protocol(seconds: float = HEADER_TIMEOUT) -> type[Any]:
    """uvicorn's httptools HTTP protocol with a deadline for a request's headers.

    Each connection must deliver a request's headers within ``seconds`` of its first byte (of
    the connection, for the first request): a client that trickles a request in a byte at a
    time, or opens a connection and says nothing, is disconnected then instead of holding a
    file descriptor for ever. The body and WebSocket traffic after the headers are not timed
    here (the app and uvicorn's keep-alive timeout see to those). Pass the class as uvicorn's
    ``http=`` (``uvicorn.Config(app, http=header_deadline_protocol(10.0))``).

    Args:
        seconds: the deadline (> 0).

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

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm_header_deadline()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_header_deadline()
            super().connection_lost(exc)

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
