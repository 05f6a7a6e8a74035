"""A browser's record and stats, and "Start over".

* ``GET /api/stats?browser=B``: the browser's stats (:class:`~backgammon.services.stats.StatsJSON`):
  by opponent and kind of session, games won and lost, points, gammons, backgammons, matches.
* ``DELETE /api/stats?browser=B``: forget the browser's record (``{"cleared": n}``).
* ``POST /api/stats/rooms`` (``{browser, code, token}``): count the finished games of a
  backgammon room of the shared table's door (``/api/rooms``, :mod:`gametable.online`): the
  seat's token opens its side, the results are the room's (its table's match).
* ``POST /api/start-over`` (``{browser, game}``): forget the game in progress (``game``, its
  id, or null) and the browser's saved positions (``{"game": bool, "positions": n}``); 403
  ``not_your_game`` for a game another browser started.

The record is written by the game service when a game the browser started ends
(:meth:`~backgammon.services.session.GameService.create` with ``browser``). A malformed
browser id answers 422 with ``code`` ``"invalid_browser"``; a malformed seed (``POST
/api/games``) 422 with ``code`` ``"invalid_seed"``. Nothing is sent anywhere else.
"""

from __future__ import annotations

from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from backgammon.adapter import TableMatch
from backgammon.core.game import Game
from backgammon.core.types import BLACK, WHITE, Color
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
    room_session,
)
from gametable.errors import ActionRefused
from gametable.online import STATUS as ROOM_STATUS
from gametable.online import RoomHub

__all__ = ["install_stats", "router"]

Browser = Annotated[str, Query(max_length=200, description="the browser's own random id")]
#: The browsers whose records one seat of an online room may count its games in (the player's
#: own, and another device of theirs): a seat token cannot fill the database with the records
#: of made-up browser ids.
MAX_RECORDS_PER_SEAT = 2


class ClearedJSON(TypedDict):
    """How many finished games the record held."""

    cleared: int


class StartOver(BaseModel):
    """Forget the game in progress and the saved positions of a browser."""

    model_config = ConfigDict(extra="forbid")

    browser: str = Field(max_length=200, description="the browser's own random id")
    game: str | None = Field(None, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                             description="the id of the game in progress, or null")


class RoomGames(BaseModel):
    """Count the finished games of a room of the shared table's door (``/api/rooms``) in a
    browser's record."""

    model_config = ConfigDict(extra="forbid")

    browser: str = Field(max_length=200, description="the browser's own random id")
    code: str = Field(min_length=4, max_length=16, pattern=r"^[A-Za-z0-9]+$",
                      description="the room's code")
    token: str = Field(min_length=8, max_length=80, description="this browser's seat token")


class CountedJSON(TypedDict):
    """How many of the room's finished games the record holds now (each counted once)."""

    counted: int


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


def _count_games(stats: StatsStore, games: list[Game], player: Color, browser: str,
                 session: str, kind: str, last: int, over: bool) -> int:
    """Record the finished ``games`` of one online room's match in ``browser``'s record (each once,
    keyed by ``session`` and number); ``last``: how many games the session has, ``over``:
    whether it is over (its last game then closes a match). Returns how many were new."""
    counted = 0
    for number, game in enumerate(games, start=1):
        finished = finished_game(
            game, player, browser=browser, session=session, number=number,
            opponent="online", mode=kind,
            match_over=kind == "match" and number == last and over)
        if finished is not None:
            stats.record(finished)
            counted += 1
    return counted


@router.post("/stats/rooms", response_model=CountedJSON,
             summary="Count a shared-door room's finished backgammon games")
async def count_room(request: Request, body: RoomGames) -> CountedJSON | JSONResponse:
    """Count the games of a backgammon room of the shared table's door (``/api/rooms``) that
    are over in the record of the browser that holds this seat (its page asks after each
    game). The results are the room's, read from the match its table refereed, never the
    page's; the seat is the one the token opens. A game is counted once however often this
    is asked (the record keys it by room, match of the room, seat and game number).

    Raises (as answers): 422 a malformed browser id or request, ``not_backgammon`` for a
    room of another game; 404 ``not_found`` no such room; 403 ``not_your_room`` a token that
    is not one of the room's seats; 503 ``unavailable`` the rooms' store out of reach; 507
    ``storage_full`` for a third browser of one seat."""
    browser = check_browser_id(body.browser)
    hub: RoomHub = request.app.state.rooms
    code = body.code.upper()
    try:
        side = await hub.service.open_seat(code, body.token)
        room = hub.service.room(code)
    except ActionRefused as error:
        return JSONResponse({"error": {"code": error.code, "message": str(error)}},
                            status_code=ROOM_STATUS.get(error.code, 409))
    table_match = room.table.game
    if not isinstance(table_match, TableMatch):
        return JSONResponse({"error": {
            "code": "not_backgammon",
            "message": f"room {code} plays {room.table.rules.name}: its games are not "
                       "counted in backgammon's record"}}, status_code=422)
    match = table_match.match
    length = room.table.settings.get("length", 1)
    kind = ("single" if table_match.single or length == 1
            else "money" if length == 0 else "match")
    # one match of the room (a rematch is the next), one seat: each seat's games are counted
    # in at most MAX_RECORDS_PER_SEAT browsers' records
    session = room_session(room.code, len(room.history), side)
    stats = _stats(request)
    counted_by = await anyio.to_thread.run_sync(stats.browsers, session)
    if browser not in counted_by and len(counted_by) >= MAX_RECORDS_PER_SEAT:
        return JSONResponse({"error": {
            "code": "storage_full",
            "message": f"this seat's games are counted in {MAX_RECORDS_PER_SEAT} browsers' "
                       "records already"}}, status_code=507)
    player = WHITE if side == "white" else BLACK
    # the games over no longer change: read in a worker thread; the one in play is not
    games = [game for game in match.games if game.is_over]
    last, over = len(match.games), table_match.outcome() is not None

    return {"counted": await anyio.to_thread.run_sync(
        _count_games, stats, games, player, browser, session, kind, last, over)}


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
    malformed browser id or seed (422, ``invalid_browser`` / ``invalid_seed``)."""
    app.state.stats = stats

    @app.exception_handler(BrowserIdError)
    async def bad_browser(request: Request, exc: BrowserIdError) -> JSONResponse:
        return JSONResponse({"error": {"code": "invalid_browser", "message": str(exc)}},
                            status_code=422)

    @app.exception_handler(SeedError)
    async def bad_seed(request: Request, exc: SeedError) -> JSONResponse:
        return JSONResponse({"error": {"code": "invalid_seed", "message": str(exc)}},
                            status_code=422)

    app.include_router(router)
