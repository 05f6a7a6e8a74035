"""The table's HTTP door: make a table, read it, act at it, export it, for any game.

Routes (``install(app, service)``; every body is JSON, every refusal
``{"error": {"code", "message"}}`` with a 4xx status and nothing changed):

* ``POST /api/tables`` ``{"game": "checkers", "settings": {...}, "seats": {"white": {"kind":
  "computer", "level": "hard"}, "black": {"kind": "person"}}, "time_control": "blitz"}`` →
  201 ``{"id", "token", "view"}``. Keep the token: every other request brings it in the
  ``X-Table-Token`` header.
* ``GET /api/tables/{id}`` → ``{"id", "view"}`` (the view of the person's side, or of both
  sides' spectator when two people share the screen: ``?side=white`` picks one).
* ``POST /api/tables/{id}/actions`` ``{"side": "black", "action": {"type": "move", ...}}`` →
  ``{"id", "view"}`` after the action and the computer's answer.
* ``POST /api/tables/{id}/clock`` ``{"page": "p1x2", "leave": false}`` → ``{"actions",
  "outcome", "clock"}``: the page's heartbeat (:meth:`TableService.clock_check`). A timed
  table's clock runs only while a page watches (:mod:`gametable.presence`): the page sends
  this every ``clock.heartbeat`` seconds while the game is in play, with its own random id,
  and with ``"leave": true`` when it closes. ``actions`` other than the view's, or an
  outcome, mean the page should read the table again.
* ``GET /api/tables/{id}/export.{format}`` → the game as a file (``pdn`` for checkers,
  ``mat`` for backgammon).

Every view's ``clock`` is :meth:`gametable.presence.Presence.clock_view`: the table's clock
plus ``paused`` (the side whose clock waits for a page to watch), ``heartbeat`` and
``warning`` (seconds), or None for a table without a clock.

The computer thinks in a worker thread, never on the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import anyio.to_thread
from fastapi import APIRouter, FastAPI, Header, Path, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from gametable.errors import ActionRefused, http_status
from gametable.game_store import StorageFullError
from gametable.presence import ANONYMOUS_PAGE
from gametable.seam import SIDES, Side
from gametable.service import NotYourTableError, TableNotFoundError, TableService
from gametable.table import Table

T = TypeVar("T")

TableId = Annotated[str, Path(min_length=8, max_length=40, pattern=r"^[A-Za-z0-9_-]+$")]
Token = Annotated[str, Header(alias="X-Table-Token", min_length=8, max_length=80)]


class NewTable(BaseModel):
    """A table to make (a field not named here is refused: a misspelt one would be lost)."""

    model_config = ConfigDict(extra="forbid")

    game: str = Field(max_length=40)
    settings: dict[str, Any] = Field(default_factory=dict, max_length=16)
    seats: dict[str, dict[str, Any]] = Field(max_length=2)
    time_control: str = Field(default="none", max_length=40)


class TableAction(BaseModel):
    """A side's action at a table."""

    model_config = ConfigDict(extra="forbid")

    side: str = Field(max_length=8)
    action: dict[str, Any] = Field(max_length=8)


class ClockCheck(BaseModel):
    """The page's heartbeat: which page it is, and whether it is going away."""

    model_config = ConfigDict(extra="forbid")

    page: str = Field(
        ANONYMOUS_PAGE,
        max_length=64,
        pattern=r"^[A-Za-z0-9_-]*$",
        description="the page's own random id",
    )
    leave: bool = Field(False, strict=True, description="the page is closing (sent on pagehide)")


def refusal(code: str, message: str) -> JSONResponse:
    """A refusal's answer at every door of the table: ``{"error": {"code", "message"}}``
    with the code's status (:func:`gametable.errors.http_status`)."""
    return JSONResponse(
        {"error": {"code": code, "message": message}}, status_code=http_status(code)
    )


def _viewer(table: Table, side: str | None) -> Side | None:
    if side in SIDES:
        return "white" if side == "white" else "black"
    people = [s for s in SIDES if table.seats[s].kind == "person"]
    return people[0] if len(people) == 1 else None


async def _in_thread(func: Callable[..., T], *args: Any) -> T:
    return await anyio.to_thread.run_sync(func, *args)


def router(service: TableService) -> APIRouter:
    """The routes of the table's door over ``service``."""
    api = APIRouter(prefix="/api/tables", tags=["tables"])

    @api.post("", status_code=201, summary="Make a table for a game")
    async def create(body: NewTable, request: Request) -> dict[str, Any]:
        owner = request.client.host if request.client is not None else None
        table_id, token, table = await _in_thread(
            lambda: service.create(
                body.game, body.settings, body.seats, body.time_control, owner=owner
            )
        )
        return {"id": table_id, "token": token, "view": service.view(table, _viewer(table, None))}

    @api.get("/{table_id}", summary="Read a table")
    async def read(
        table_id: TableId,
        token: Token,
        side: Annotated[str | None, Query(max_length=8)] = None,
    ) -> dict[str, Any]:
        def work() -> dict[str, Any]:
            table = service.read(table_id, token)
            return service.view(table, _viewer(table, side))

        return {"id": table_id, "view": await _in_thread(work)}

    @api.post("/{table_id}/actions", summary="Act at a table")
    async def act(table_id: TableId, token: Token, body: TableAction) -> dict[str, Any]:
        def work() -> dict[str, Any]:
            table = service.act(table_id, token, body.side, body.action)
            return service.view(table, _viewer(table, body.side))

        return {"id": table_id, "view": await _in_thread(work)}

    @api.post("/{table_id}/clock", summary="The page's heartbeat: the clock runs while watched")
    async def clock(table_id: TableId, token: Token, body: ClockCheck) -> dict[str, Any]:
        return await _in_thread(service.clock_check, table_id, token, body.page, body.leave)

    @api.get("/{table_id}/export.{fmt}", summary="Download the game as a file")
    async def export(
        table_id: TableId, token: Token, fmt: Annotated[str, Path(max_length=8)]
    ) -> PlainTextResponse:
        table = await _in_thread(service.read, table_id, token)
        writers = table.rules.exports()
        if fmt not in writers:
            raise ActionRefused(
                "unknown_format", f"{table.rules.name} exports {', '.join(writers)}, not {fmt}"
            )
        text = await _in_thread(writers[fmt], table.game, {})
        name = f"{table.rules.name}-{table_id}.{fmt}"
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="{name}"'}
        )

    return api


def install(app: FastAPI, service: TableService) -> None:
    """Mount the table's door on ``app`` and answer its refusals in the one error shape."""
    app.state.tables = service
    app.include_router(router(service))

    @app.exception_handler(ActionRefused)
    async def refused(request: Request, exc: ActionRefused) -> JSONResponse:
        return refusal(exc.code, str(exc))

    @app.exception_handler(TableNotFoundError)
    async def not_found(request: Request, exc: TableNotFoundError) -> JSONResponse:
        return refusal("not_found", str(exc))

    @app.exception_handler(StorageFullError)
    async def full(request: Request, exc: StorageFullError) -> JSONResponse:
        return refusal("storage_full", str(exc))

    @app.exception_handler(NotYourTableError)
    async def not_yours(request: Request, exc: NotYourTableError) -> JSONResponse:
        return refusal("not_your_table", str(exc))
