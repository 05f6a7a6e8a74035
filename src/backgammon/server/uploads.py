"""Reading an uploaded ``.mat`` transcript (an import to review, an analysis): one way for
both endpoints.

The reading is CPU work on what anyone may send, so it runs in a worker thread, at most
:data:`UPLOADS_AT_ONCE` at once (the others wait without holding a thread), within the
reader's own limits (:class:`~backgammon.records.ReadLimits`: the server's ``upload_turns``,
so that a huge file is refused at its turn past them rather than read whole first, and
``upload_seconds``). The time limit is the reader's, checked at each line: a thread cannot
be stopped from outside: a deadline on the awaiting coroutine would answer the client but leave
the thread reading. (Each line is read in time growing with its length, so the reader reaches
its next check soon; a regular expression that backtracked would hold the interpreter, and every
thread with it, whatever the server did: ``tests/records/test_hostile_files.py``.)

A refused transcript answers ``{"error": {"code", "message", "line", "detail"}}``: ``code``
``mat_parse_error`` (not a transcript), ``mat_replay_error`` (a play or cube action the rules
refuse) or ``too_large`` (past the limits).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar

import anyio
import anyio.to_thread
from fastapi import Request
from fastapi.responses import JSONResponse

from backgammon.records import MatError, MatLimitError, MatParseError, ReadLimits
from backgammon.server.settings import ServerSettings

T = TypeVar("T")

#: Uploads read at once, from every client together.
UPLOADS_AT_ONCE: Final = 2


def _limiter(request: Request) -> anyio.CapacityLimiter:
    state = request.app.state
    limiter: anyio.CapacityLimiter | None = getattr(state, "upload_readers", None)
    if limiter is None:
        limiter = state.upload_readers = anyio.CapacityLimiter(UPLOADS_AT_ONCE)
    return limiter


def upload_limits(settings: ServerSettings) -> ReadLimits:
    """The limits an upload is read within."""
    return ReadLimits(turns=settings.upload_turns, seconds=settings.upload_seconds)


async def read_upload(request: Request, read: Callable[[str, ReadLimits], T], text: str) -> T:
    """``read(text, limits)`` in a worker thread, within the app's upload limits.

    Raises:
        MatError: what ``read`` raises for a refused transcript (see :func:`refused`).
    """
    settings: ServerSettings = request.app.state.settings
    return await anyio.to_thread.run_sync(read, text, upload_limits(settings),
                                          limiter=_limiter(request))


def refused(exc: MatError, name: str | None, status: int) -> JSONResponse:
    """The answer to a refused transcript: ``status`` with its code, the line and the reason
    (the file's ``name`` first in the message when it was given)."""
    if isinstance(exc, MatLimitError):
        code = "too_large"
    elif isinstance(exc, MatParseError):
        code = "mat_parse_error"
    else:
        code = "mat_replay_error"
    where = f"{name}, " if name else ""
    return JSONResponse({"error": {"code": code, "message": f"{where}{exc}", "line": exc.line,
                                   "detail": exc.detail}}, status_code=status)


__all__ = ["UPLOADS_AT_ONCE", "read_upload", "refused", "upload_limits"]
