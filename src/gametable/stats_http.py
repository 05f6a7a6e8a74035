"""A browser's record of the games it finished against the computer at the shared table
(``/api/tables``), for any game: won, lost and drawn by level (checkers' page shows it).

* ``POST /api/stats/tables`` ``{browser, table, token}``: count the table's game in the
  browser's record, once the game is over (the result is the table's, refereed by the
  server: the person's side won, lost or drew). A table is counted once, in the first
  browser's record that asks; ``{"counted": bool, "record": {...}}``. Refusals: 404
  ``not_found``, 403 ``not_your_table``, 409 ``not_over`` for a game still going on, 422
  ``not_against_computer`` for a table without one person and one computer.
* ``GET /api/stats/tables?browser=B&game=checkers``: the browser's record of that game
  (:class:`~backgammon.services.table_stats.TableRecordJSON`).
* ``DELETE /api/stats/tables?browser=B&game=checkers``: forget it (``{"cleared": n}``).

The module imports no game: it reads the table through :mod:`gametable` (its seats, its
outcome, its game's name and levels).
"""

from __future__ import annotations

from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from gametable.errors import ActionRefused
from gametable.seam import SIDES
from gametable.service import TableService
from gametable.stats import TableRecordJSON, TableResult, TableStatsStore, check_browser_id

__all__ = ["install_table_stats"]

Browser = Annotated[str, Query(max_length=200, description="the browser's own random id")]
GameName = Annotated[str, Query(max_length=40, pattern=r"^[a-z_]+$", description="the game")]


class CountTable(BaseModel):
    """Count a finished table's game in a browser's record."""

    model_config = ConfigDict(extra="forbid")

    browser: str = Field(max_length=200, description="the browser's own random id")
    table: str = Field(min_length=8, max_length=40, pattern=r"^[A-Za-z0-9_-]+$",
                       description="the table's id")
    token: str = Field(min_length=8, max_length=80, description="the table's token")


class CountedJSON(TypedDict):
    """Whether the game was new to the record, and the browser's record of that game now."""

    counted: bool
    record: TableRecordJSON


class ClearedJSON(TypedDict):
    """How many finished games the record of that game held."""

    cleared: int


def _levels(service: TableService, game: str) -> tuple[str, ...]:
    rules = service.games.get(game)
    return tuple(rules.levels) if rules is not None else ()


def install_table_stats(app: FastAPI, store: TableStatsStore) -> None:
    """Add the routes above to ``app`` (whose ``state.tables`` is the table service), with
    ``store`` as the record."""
    app.state.table_stats = store
    api = APIRouter(prefix="/api/stats/tables", tags=["stats"])

    def tables(request: Request) -> TableService:
        service: TableService = request.app.state.tables
        return service

    @api.post("", response_model=CountedJSON, summary="Count a finished game at a table")
    async def count(request: Request, body: CountTable) -> CountedJSON | JSONResponse:
        """Count the game at this table (against the computer, over) in the browser's record.
        A table already counted, here or in another browser's record, is not counted again."""
        browser = check_browser_id(body.browser)
        service = tables(request)

        def work() -> CountedJSON:
            table = service.read(body.table, body.token)
            people = [side for side in SIDES if table.seats[side].kind == "person"]
            computers = [side for side in SIDES if table.seats[side].kind == "computer"]
            if len(people) != 1 or len(computers) != 1:
                raise ActionRefused("not_against_computer",
                                    "only a game between a person and the computer is counted")
            outcome = table.game.outcome()
            if outcome is None:
                raise ActionRefused("not_over", "the game is not over yet")
            me = people[0]
            result = "drawn" if outcome.winner is None else (
                "won" if outcome.winner == me else "lost")
            level = table.seats[computers[0]].level or "computer"
            game = table.rules.name
            counted = store.record(TableResult(game, body.table, browser, level, result,
                                               outcome.reason))
            return {"counted": counted,
                    "record": store.summary(browser, game, _levels(service, game))}

        try:
            return await anyio.to_thread.run_sync(work)
        except ActionRefused as error:
            status = 409 if error.code == "not_over" else 422
            return JSONResponse({"error": {"code": error.code, "message": str(error)}},
                                status_code=status)

    @api.get("", response_model=TableRecordJSON, summary="A browser's record of a game")
    async def read(request: Request, browser: Browser, game: GameName) -> TableRecordJSON:
        """The games of ``game`` this browser finished against the computer: won, lost and
        drawn by level, and in total."""
        check_browser_id(browser)
        levels = _levels(tables(request), game)
        return await anyio.to_thread.run_sync(store.summary, browser, game, levels)

    @api.delete("", response_model=ClearedJSON, summary="Clear a browser's record of a game")
    async def clear(browser: Browser, game: GameName) -> ClearedJSON:
        """Forget every game of ``game`` this browser's record holds."""
        check_browser_id(browser)
        return {"cleared": await anyio.to_thread.run_sync(store.clear, browser, game)}

    app.include_router(api)
