"""The one place that turns a refusal of backgammon's own routes (the local door, ``/api/games``,
and the pages' API) into what the client reads.

Services and the engine raise narrow exceptions (DESIGN.md "Errors"); they are answered with a
code and words, ``{"error": {"code", "message"}}``, with the status of :data:`HTTP_STATUS`. The
table's doors (``/api/tables``, ``/api/rooms``, ``/ws/rooms``) answer their
:class:`gametable.errors.ActionRefused` in the same shape with the same statuses: one set of
codes, :data:`gametable.errors.HTTP_STATUS`.
"""

from __future__ import annotations

from typing import Final

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from backgammon.core.errors import (
    BackgammonError,
    IllegalActionError,
    IllegalMoveError,
    IllegalPlayError,
)
from backgammon.services.analysis_jobs import EvaluatorBusyError
from backgammon.services.session import NotYourGameError
from backgammon.services.setup import SetupError
from gametable.errors import HTTP_STATUS as GAMETABLE_STATUS
from gametable.errors import ActionRefused, http_status
from gametable.game_store import GameNotFoundError, StorageFullError, StoredGameError

#: Each kind of refusal (the most specific first) and its code.
_CODES: Final[tuple[tuple[type[BaseException], str], ...]] = (
    (GameNotFoundError, "not_found"),
    (NotYourGameError, "not_your_game"),
    (EvaluatorBusyError, "busy"),
    (StorageFullError, "storage_full"),
    (StoredGameError, "stored_game_invalid"),
    (IllegalActionError, "not_allowed"),
    (IllegalMoveError, "illegal_move"),
    (IllegalPlayError, "illegal_move"),
    (SetupError, "invalid_setup"),
    (BackgammonError, "invalid"),
)
#: The HTTP status of each code: the one set every door answers with
#: (:data:`gametable.errors.HTTP_STATUS`; any other code: 409, the action does not fit now).
HTTP_STATUS: Final = GAMETABLE_STATUS


def error_code(exc: BaseException) -> str:
    """The code of a refusal: the table's own (:class:`~gametable.errors.ActionRefused`
    carries it), else by the exception's kind (:data:`_CODES`)."""
    if isinstance(exc, ActionRefused):
        return exc.code
    for kind, code in _CODES:
        if isinstance(exc, kind):
            return code
    return "invalid"


def error_response(status: int, code: str, message: str) -> JSONResponse:
    """The JSON every refused request answers: ``{"error": {"code", "message"}}``."""
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def http_error(exc: BaseException) -> JSONResponse:
    """The HTTP answer to a refusal: its status, code and words."""
    code = error_code(exc)
    return error_response(http_status(code), code, str(exc))


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for error in exc.errors():
        if error.get("type") == "json_invalid":  # its loc is a character offset
            ctx = error.get("ctx") or {}
            reason = ctx.get("error", "")
            parts.append(f"the body is not JSON ({reason}, at character {error['loc'][-1]})"
                         if reason else "the body is not JSON")
            continue
        if tuple(error.get("loc", ())) == ("body",) and error.get("type") == "missing":
            parts.append("the request has no body: send a JSON object, Content-Type "
                         "application/json")
            continue
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
        text = str(error.get("msg", "invalid"))
        parts.append(f"{where}: {text}" if where else text)
    return "invalid request: " + "; ".join(parts)


def _unreadable_body(exc: StarletteHTTPException) -> str | None:
    """Why a request's body could not be read, when ``exc`` is FastAPI's refusal of it: a 400
    raised from the error of reading the body (``"There was an error parsing the body"``),
    which happens where the body is not UTF-8 or is JSON nested too deeply for the parser
    (invalid JSON is a :class:`RequestValidationError`). None for any other HTTP error."""
    cause = exc.__cause__
    if exc.status_code != 400 or cause is None:
        return None
    if isinstance(cause, UnicodeDecodeError):
        return f"the body is not JSON (not UTF-8: {cause})"
    if isinstance(cause, RecursionError):
        return "the body is not JSON (nested too deeply to read)"
    return f"the body is not JSON ({cause})"


async def _stored_refused(request: Request, exc: Exception) -> Response:
    return http_error(exc)


def install(app: FastAPI) -> None:
    """Answer every refusal of ``app``'s routes through :func:`http_error` (and malformed
    requests and HTTP errors in the same ``{"error"}`` shape: a body that cannot be read as
    JSON, whatever the reason, is 422 ``invalid_request``; a defect of the server is 500
    ``internal_error``, its traceback logged)."""

    @app.exception_handler(BackgammonError)
    async def refused(request: Request, exc: BackgammonError) -> JSONResponse:
        return http_error(exc)

    # the local store's refusals (gametable.game_store, shared with the table's door): no
    # BackgammonError, each answered by its code in _CODES
    for stored in (GameNotFoundError, StorageFullError, StoredGameError):
        app.add_exception_handler(stored, _stored_refused)

    @app.exception_handler(ActionRefused)
    async def table_refused(request: Request, exc: ActionRefused) -> JSONResponse:
        return http_error(exc)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        if any(tuple(error.get("loc", ())) == ("body",)
               and error.get("type") in ("model_attributes_type", "dict_type")
               for error in exc.errors()):
            # a form, plain text or a JSON array where a JSON object belongs: say that, not
            # pydantic's words
            kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind == "application/json" or kind.endswith("+json"):
                return error_response(422, "invalid_request",
                                      "invalid request: the body must be a JSON object")
            sent = f"Content-Type {kind}" if kind else "no Content-Type"
            return error_response(422, "invalid_request", "invalid request: the body is "
                                  f"not a JSON object ({sent}): send JSON, Content-Type "
                                  "application/json")
        return error_response(422, "invalid_request", _validation_message(exc))

    @app.exception_handler(Exception)
    async def failed(request: Request, exc: Exception) -> JSONResponse:
        # a defect, not a refusal: in the same shape as every other answer (the traceback
        # goes to the server's log, not to the client)
        return error_response(500, "internal_error", "the server failed on this request "
                              "(its log says why)")

    @app.exception_handler(StarletteHTTPException)
    async def http_exception(request: Request, exc: StarletteHTTPException) -> Response:
        unreadable = _unreadable_body(exc)
        if unreadable is not None:  # (the same answer as invalid JSON)
            return error_response(422, "invalid_request", f"invalid request: {unreadable}")
        return error_response(exc.status_code, f"http_{exc.status_code}", str(exc.detail))


__all__ = ["HTTP_STATUS", "error_code", "error_response", "http_error", "install"]
