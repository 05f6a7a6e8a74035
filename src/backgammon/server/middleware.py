"""ASGI middleware: security headers on every response, a limit on request bodies, and each
client's share of the requests and WebSockets at once.

Both are plain ASGI (no Starlette ``BaseHTTPMiddleware``), so they add no task or buffering
and work for streaming bodies too.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: The page may load scripts, styles, images and data only from its own origin, and may not be
#: framed. ``img-src data:`` allows the small inline images the browser makes for drag-and-drop.
PAGE_CSP: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)



def page_csp(analytics_origin: str | None = None) -> str:
    """The page's policy: :data:`PAGE_CSP`, or with analytics on, the same with
    ``analytics_origin`` (``scheme://host[:port]``, from
    :func:`backgammon.server.analytics.script_origin`) allowed for scripts (the analytics
    script) and connections (the events it sends), and nothing else."""
    if analytics_origin is None:
        return PAGE_CSP
    if not analytics_origin.isascii() or any(c in analytics_origin for c in " ;,'\""):
        raise ValueError(f"not an origin for a CSP: {analytics_origin!r}")
    policy = PAGE_CSP.replace("script-src 'self';", f"script-src 'self' {analytics_origin};")
    return policy.replace("connect-src 'self';", f"connect-src 'self' {analytics_origin};")


#: The interactive docs load Swagger UI and ReDoc from this server (the fastapi-offline
#: package's copies, under ``/static-docs``: no CDN) and start them with an inline script and
#: inline styles; only those pages get this policy, and it names no other origin.
DOCS_CSP: Final = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; font-src 'self'; img-src 'self' data:; "
    "worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'self'; "
    "frame-ancestors 'none'"
)

#: Paths served with :data:`DOCS_CSP`.
DOCS_PATHS: Final = frozenset({"/docs", "/redoc", "/docs/oauth2-redirect"})

_COMMON_HEADERS: Final = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
)


class SecurityHeadersMiddleware:
    """Adds a Content-Security-Policy (own origin only) and the usual hardening headers.

    Headers already set by the endpoint are kept; the CSP is :data:`PAGE_CSP` (with
    ``analytics_origin`` allowed, when given: :func:`page_csp`) except on the interactive docs
    (:data:`DOCS_PATHS`), which get :data:`DOCS_CSP`.
    """

    def __init__(self, app: ASGIApp, analytics_origin: str | None = None) -> None:
        self.app = app
        self.page_csp = page_csp(analytics_origin)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        csp = DOCS_CSP if scope.get("path") in DOCS_PATHS else self.page_csp
        extra = ((b"content-security-policy", csp.encode("ascii")), *_COMMON_HEADERS)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers: list[tuple[bytes, bytes]] = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend((k, v) for k, v in extra if k not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodySizeLimitMiddleware:
    """Refuses request bodies over ``max_bytes`` with ``413``, and bodies that do not arrive
    whole within ``timeout`` seconds with ``408``, each with a JSON error.

    A declared ``Content-Length`` over the limit is refused before the app runs. Any other
    body is read here, up to the limit and within the time, and handed on whole: the bodies
    this server takes are small, so holding one in memory costs nothing, and a client that
    declares a body and sends part of it (or sends it a byte at a time) keeps no request
    open past ``timeout``.

    Args:
        app: the application.
        max_bytes: the largest body accepted, in bytes.
        overrides: other limits for some paths, in bytes, by exact path (the ``.mat`` import
            takes whole transcripts).
        timeout: the most seconds a body may take to arrive, counted from the end of the
            request's headers (``None``: no limit); the 408 closes the connection, whose
            body is still owed.
    """

    def __init__(self, app: ASGIApp, max_bytes: int,
                 overrides: Mapping[str, int] | None = None,
                 timeout: float | None = None) -> None:
        if timeout is not None and not timeout > 0:
            raise ValueError(f"the body timeout must be seconds > 0, got {timeout!r}")
        self.app = app
        self.max_bytes = max_bytes
        self.overrides = dict(overrides or {})
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.overrides.get(scope.get("path", ""), self.max_bytes)
        length = _header(scope["headers"], b"content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                await _send_error(send, 400, "bad_request", "Content-Length is not a number",
                                  close=True)
                return
            if declared > limit:
                await self._refuse(send, limit)
                return
        try:
            async with asyncio.timeout(self.timeout):
                first = await self._read(receive, limit)
        except TimeoutError:
            await _send_error(send, 408, "request_timeout",
                              f"the request body did not arrive within {self.timeout:g} "
                              "seconds", close=True)
            return
        if first is None:
            await self._refuse(send, limit)
            return
        await self.app(scope, _replay([first], receive), send)

    @staticmethod
    async def _read(receive: Receive, limit: int) -> Message | None:
        """The whole body as one message (or the disconnect that came instead); None past
        ``limit`` bytes."""
        chunks: list[bytes] = []
        received = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return message
            chunk = message.get("body", b"")
            received += len(chunk)
            if received > limit:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

    async def _refuse(self, send: Send, limit: int) -> None:
        """413, closing the connection: the rest of the body is not read."""
        await _send_error(
            send,
            413,
            "body_too_large",
            f"the request body is larger than the {limit} bytes this server accepts",
            close=True,
        )


class ClientShareMiddleware:
    """Refuses a request, or a WebSocket, from a client address that has ``per_client`` in
    progress or open already: 503 ``too_many_connections`` (a WebSocket is closed with 1013,
    try again later, before it is accepted). The client is the one the app sees (a trusted
    proxy's ``X-Forwarded-For``), so that behind a proxy each client has its share, as the
    transport gives each address its own (:class:`~backgammon.server.runtime.AddressShare`).

    Args:
        app: the application.
        per_client: requests and WebSockets one client may have at once (at least 1).
    """

    def __init__(self, app: ASGIApp, per_client: int) -> None:
        if per_client < 1:
            raise ValueError(f"per_client must be at least 1, got {per_client!r}")
        self.app = app
        self.per_client = per_client
        self.open: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if scope["type"] not in ("http", "websocket") or not client:
            await self.app(scope, receive, send)
            return
        address = str(client[0])
        held = self.open.get(address, 0)
        if held >= self.per_client:
            message = (f"your address has {self.per_client} connections open, its most: "
                       "close some and try again")
            if scope["type"] == "http":
                await _send_error(send, 503, "too_many_connections", message)
            else:
                await send({"type": "websocket.close", "code": 1013, "reason": message[:120]})
            return
        self.open[address] = held + 1
        try:
            await self.app(scope, receive, send)
        finally:
            left = self.open[address] - 1
            if left:
                self.open[address] = left
            else:
                del self.open[address]


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that gives ``messages`` first, then what ``receive`` gives."""
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


def _header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key.lower() == name:
            return value.decode("latin-1")
    return None


async def _send_error(send: Send, status: int, code: str, message: str, *,
                      close: bool = False) -> None:
    """A JSON error; with ``close``, ``Connection: close`` (the server then closes it)."""
    body: dict[str, Any] = {"error": {"code": code, "message": message}}
    data = json.dumps(body).encode("utf-8")
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(data)).encode("ascii"))]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


__all__ = [
    "DOCS_CSP",
    "PAGE_CSP",
    "BodySizeLimitMiddleware",
    "ClientShareMiddleware",
    "SecurityHeadersMiddleware",
    "page_csp",
]
