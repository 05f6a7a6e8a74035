"""A browser's record and stats, and "Start over".

* ``GET /api/stats?browser=B``: the browser's stats (:class:`~backgammon.services.stats.StatsJSON`):
  by opponent and kind of session, games won and lost, points, gammons, backgammons, matches.
* ``DELETE /api/stats?browser=B``: forget the browser's record (``{"cleared": n}``).
* ``POST /api/stats/rooms`` (``{browser, code, token}``, :mod:`gametable.stats_http`, one
  route for every game's rooms): a backgammon room's finished games count in this record
  (:class:`BackgammonRoomRecord`): the seat's token opens its side, the results are the
  room's (its table's match).
* ``POST /api/start-over`` (``{browser, game}``): forget the game in progress (``game``, its
  id, or null) and the browser's saved positions (``{"game": bool, "positions": n}``); 403
  ``not_your_game`` for a game another browser started.

The record is written by the game service when a game the browser started ends
(:meth:`~backgammon.services.session.GameService.create` with ``browser``). A malformed
browser id answers 422 with ``code`` ``"invalid_browser"``; a malformed seed (``POST
/api/games``) 422 with ``code`` ``"invalid_seed"``. Nothing is sent anywhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from backgammon.adapter import TableMatch
from backgammon.core.types import BLACK, WHITE
from backgammon.server.api import ErrorResponse
from backgammon.services.saved_positions import PositionStore
from backgammon.services.seeds import SeedError
from backgammon.services.session import GameService
from backgammon.services.stats import (
    BrowserIdError,
    StatsJSON,
    StatsStore,
    check_browser_id,
    finished_game,
)
from gametable.errors import ActionRefused
from gametable.room import Room
from gametable.seam import Side
from gametable.stats_http import MAX_RECORDS_PER_SEAT, add_room_record

__all__ = ["MAX_RECORDS_PER_SEAT", "BackgammonRoomRecord", "install_stats", "router"]

Browser = Annotated[str, Query(max_length=200, description="the browser's own random id")]


class ClearedJSON(TypedDict):
    """How many finished games the record held."""

    cleared: int


class StartOver(BaseModel):
    """Forget the game in progress and the saved positions of a browser."""

    model_config = ConfigDict(extra="forbid")

    browser: str = Field(max_length=200, description="the browser's own random id")
    game: str | None = Field(None, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                             description="the id of the game in progress, or null")


class StartedOverJSON(TypedDict):
    """Whether a saved game was deleted, and how many saved positions were."""

    game: bool
    positions: int


def _stats(request: Request) -> StatsStore:
    stats: StatsStore = request.app.state.stats
    return stats


router = APIRouter(prefix="/api", tags=["stats"], responses={
    422: {"model": ErrorResponse, "description": "The browser id is malformed."}})


@router.get("/stats", response_model=StatsJSON, summary="A browser's stats")
async def read_stats(request: Request, browser: Browser) -> StatsJSON:
    """The record of the games this browser finished: by opponent (each computer level, pass
    & play, online) and kind of session (single game, match, money), and in total."""
    check_browser_id(browser)
    return await anyio.to_thread.run_sync(_stats(request).summary, browser)


@router.delete("/stats", response_model=ClearedJSON, summary="Clear a browser's record")
async def clear_stats(request: Request, browser: Browser) -> ClearedJSON:
    """Forget every game this browser's record holds."""
    check_browser_id(browser)
    cleared = await anyio.to_thread.run_sync(_stats(request).clear, browser)
    return {"cleared": cleared}


class BackgammonRoomRecord:
    """How backgammon's record counts a seat's finished games of an online room (``POST
    /api/stats/rooms``, :mod:`gametable.stats_http`): each game of the room's match (or money
    session, or single game) with its points and result as scored, against ``"online"``; the
    game that ends a match says whether the match was won.

    Args:
        stats: the browsers' records.
    """

    def __init__(self, stats: StatsStore) -> None:
        self.stats = stats

    def browsers(self, session: str) -> set[str]:
        """:meth:`StatsStore.browsers`."""
        return self.stats.browsers(session)

    def count(self, room: Room, side: Side, browser: str, session: str) -> Callable[[], int]:
        """The games of the room's match that are over (each keyed by ``session`` and its
        number in the match).

        Raises:
            ActionRefused: ``not_backgammon``, a room of another game.
        """
        table_match = room.table.game
        if not isinstance(table_match, TableMatch):
            raise ActionRefused("not_backgammon",
                                f"room {room.code} plays {room.table.rules.name}: its games are "
                                "not counted in backgammon's record")
        length = room.table.settings.get("length", 1)
        kind = ("single" if table_match.single or length == 1
                else "money" if length == 0 else "match")
        player = WHITE if side == "white" else BLACK
        games = table_match.match.games
        last, over = len(games), table_match.outcome() is not None
        finished = [finished_game(
            game, player, browser=browser, session=session, number=number, opponent="online",
            mode=kind, match_over=kind == "match" and number == last and over)
            for number, game in enumerate(games, start=1)]
        counted = [game for game in finished if game is not None]

        def write() -> int:
            for game in counted:
                self.stats.record(game)
            return len(counted)

        return write


@router.post("/start-over", response_model=StartedOverJSON, summary="Start over")
async def start_over(request: Request, body: StartOver) -> StartedOverJSON:
    """Forget the game in progress (deleted from the store: its link no longer opens it) and
    the browser's saved positions. The record and the settings stay (they have their own
    buttons). A game this browser did not start is refused (403 ``not_your_game``) and
    nothing is forgotten."""
    browser = check_browser_id(body.browser)
    service: GameService = request.app.state.games
    positions: PositionStore = request.app.state.positions
    deleted = False
    if body.game is not None:  # (another browser's game: 403, nothing done)
        deleted = await anyio.to_thread.run_sync(service.forget, body.game, browser)
    removed = await anyio.to_thread.run_sync(positions.clear, browser)
    return {"game": deleted, "positions": removed}


def install_stats(app: FastAPI, stats: StatsStore) -> None:
    """Add the routes above to ``app``, with ``stats`` as its record, and the answers to a
    malformed browser id or seed (422, ``invalid_browser`` / ``invalid_seed``); its online
    rooms' games count in ``stats`` (:class:`BackgammonRoomRecord`)."""
    app.state.stats = stats
    add_room_record(app, "backgammon", BackgammonRoomRecord(stats))

    @app.exception_handler(BrowserIdError)
    async def bad_browser(request: Request, exc: BrowserIdError) -> JSONResponse:
        return JSONResponse({"error": {"code": "invalid_browser", "message": str(exc)}},
                            status_code=422)

    @app.exception_handler(SeedError)
    async def bad_seed(request: Request, exc: SeedError) -> JSONResponse:
        return JSONResponse({"error": {"code": "invalid_seed", "message": str(exc)}},
                            status_code=422)

    app.include_router(router)
