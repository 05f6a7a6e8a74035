"""A browser's record of the games it finished at the shared table, for any game: against the
computer (``/api/tables``) and against a person online (``/api/rooms``); won, lost and drawn
by opponent (checkers' page shows it).

* ``POST /api/stats/tables`` ``{browser, table, token}``: count the table's game in the
  browser's record, once the game is over (the result is the table's, refereed by the
  server: the person's side won, lost or drew). A table is counted once, in the first
  browser's record that asks; ``{"counted": bool, "record": {...}}``. Refusals: 404
  ``not_found``, 403 ``not_your_table``, 409 ``not_over`` for a game still going on, 422
  ``not_against_computer`` for a table without one person and one computer.
* ``GET /api/stats/tables?browser=B&game=checkers``: the browser's record of that game
  (:class:`~gametable.stats.TableRecordJSON`: against the computer by level, and
  ``"online"``).
* ``DELETE /api/stats/tables?browser=B&game=checkers``: forget it (``{"cleared": n}``).
* ``POST /api/stats/rooms`` ``{browser, code, token}``: count the finished games of the seat
  the token opens in an online room, in the browser's record (the page asks after each game;
  the results are the room's, refereed by the server, never the page's). One route for every
  game: a game that keeps a record of its own registers a :class:`RoomRecord` for its rooms
  (:func:`add_room_record`: backgammon's points, gammons and matches); any other game's rooms
  count in this record, won, lost or drawn against :data:`~gametable.stats.ROOM_OPPONENT`
  (:class:`TableRoomRecord`). Each game of the room (a rematch is the next) counts once per
  browser however often it is asked, in at most :data:`MAX_RECORDS_PER_SEAT` browsers'
  records per seat. ``{"counted": n}``: how many of the seat's finished games of the game or
  match in play the browser's record holds. Refusals: 422 ``invalid_browser`` (or a
  malformed request), 404 ``not_found``, 403 ``not_your_room``, 503 ``unavailable`` (the
  rooms' store out of reach), 507 ``storage_full`` for a third browser of one seat.

The module imports no game: it reads the table through :mod:`gametable` (its seats, its
outcome, its game's name and levels), and a room through the rooms' service
(:meth:`~gametable.rooms.RoomService.open_seat`, :meth:`~gametable.rooms.RoomService.room`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Final, Protocol

import anyio.to_thread
from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from gametable.errors import ActionRefused
from gametable.http import refusal
from gametable.online import RoomHub
from gametable.room import Room
from gametable.seam import SIDES, Side
from gametable.service import TableService
from gametable.stats import (
    ROOM_OPPONENT,
    TableRecordJSON,
    TableResult,
    TableStatsStore,
    check_browser_id,
    room_session,
)

__all__ = [
    "MAX_RECORDS_PER_SEAT",
    "RoomRecord",
    "TableRoomRecord",
    "add_room_record",
    "install_table_stats",
]

#: The browsers whose records one seat of an online room may count its games in (the player's
#: own, and another device of theirs): a seat token cannot fill the database with the records
#: of made-up browser ids.
MAX_RECORDS_PER_SEAT: Final = 2

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


class RoomGames(BaseModel):
    """Count the finished games of an online room's seat (``/api/rooms``) in a browser's
    record."""

    model_config = ConfigDict(extra="forbid")

    browser: str = Field(max_length=200, description="the browser's own random id")
    code: str = Field(min_length=4, max_length=16, pattern=r"^[A-Za-z0-9]+$",
                      description="the room's code")
    token: str = Field(min_length=8, max_length=80, description="this browser's seat token")


class RoomCountedJSON(TypedDict):
    """How many of the seat's finished games (of the game or match in play) the record holds
    now, each counted once."""

    counted: int


class RoomRecord(Protocol):
    """How one game's record counts the finished games of an online room's seat."""

    def browsers(self, session: str) -> set[str]:
        """The browsers whose records hold a game of ``session`` (run in a worker thread)."""
        ...

    def count(self, room: Room, side: Side, browser: str, session: str) -> Callable[[], int]:
        """Read the seat's finished games of the game or match in play from ``room`` (on the
        event loop, where the room changes) and return the write that counts them under
        ``session`` in ``browser``'s record, each once (run in a worker thread; it returns how
        many of them the record holds). Raises ActionRefused (answered 422) for a room whose
        games this record does not count."""
        ...


class TableRoomRecord:
    """A room's game in the shared table's record: won, lost or drawn by the seat, against
    :data:`~gametable.stats.ROOM_OPPONENT`, the result the room's table gave."""

    def __init__(self, store: TableStatsStore) -> None:
        self.store = store

    def browsers(self, session: str) -> set[str]:
        """:meth:`TableStatsStore.browsers`."""
        return self.store.browsers(session)

    def count(self, room: Room, side: Side, browser: str, session: str) -> Callable[[], int]:
        """The game in play, once it is over (a room plays one game at a time: a rematch is
        the next, under its own session)."""
        outcome = room.table.game.outcome()
        if outcome is None or room.table.rules.set_up(room.table.settings):
            return lambda: 0
        result = "drawn" if outcome.winner is None else (
            "won" if outcome.winner == side else "lost")
        finished = TableResult(room.table.rules.name, session, browser, ROOM_OPPONENT, result,
                               outcome.reason)

        def write() -> int:
            self.store.record_seat(finished)
            return 1

        return write


def add_room_record(app: FastAPI, game: str, record: RoomRecord) -> None:
    """Count the rooms of ``game`` in ``record`` (``POST /api/stats/rooms``), not in the
    shared table's; before or after :func:`install_table_stats`."""
    records: dict[str, RoomRecord] = dict(getattr(app.state, "room_records", {}))
    records[game] = record
    app.state.room_records = records


def _refused(error: ActionRefused, status: int) -> JSONResponse:
    return JSONResponse({"error": {"code": error.code, "message": str(error)}},
                        status_code=status)


class ClearedJSON(TypedDict):
    """How many finished games the record of that game held."""

    cleared: int


def _levels(service: TableService, game: str) -> tuple[str, ...]:
    rules = service.games.get(game)
    return tuple(rules.levels) if rules is not None else ()


def install_table_stats(app: FastAPI, store: TableStatsStore) -> None:
    """Add the routes above to ``app`` (whose ``state.tables`` is the table service and
    ``state.rooms`` the rooms' door, :class:`~gametable.online.RoomHub`), with ``store`` as
    the record."""
    app.state.table_stats = store
    in_table = TableRoomRecord(store)
    # a seat's browsers are checked and the game written as one step (in this process: two
    # new browsers asking at once cannot both pass the bound)
    seat_guard = anyio.Lock()
    api = APIRouter(prefix="/api/stats/tables", tags=["stats"])

    def tables(request: Request) -> TableService:
        service: TableService = request.app.state.tables
        return service

    @api.post("", response_model=CountedJSON, summary="Count a finished game at a table")
    async def count(request: Request, body: CountTable) -> CountedJSON | JSONResponse:
        """Count the game at this table (against the computer, over) in the browser's record.
        A table already counted, here or in another browser's record, is not counted again;
        a game from a set-up position (:meth:`~gametable.seam.GameRules.set_up`) is not
        counted at all (``counted`` false)."""
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
            counted = not table.rules.set_up(table.settings) and store.record(
                TableResult(game, body.table, browser, level, result, outcome.reason))
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
    rooms = APIRouter(prefix="/api/stats/rooms", tags=["stats"])

    @rooms.post("", response_model=RoomCountedJSON,
                summary="Count an online room's finished games")
    async def count_room(request: Request, body: RoomGames) -> RoomCountedJSON | JSONResponse:
        """Count the games of an online room (``/api/rooms``) that are over in the record of
        the browser that holds this seat (its page asks after each game). The results are the
        room's, read from the game its table refereed, never the page's; the seat is the one
        the token opens. A game is counted once however often this is asked.

        Raises (as answers): 422 ``invalid_browser`` or a malformed request; 404
        ``not_found`` no such room; 403 ``not_your_room`` a token that is not one of the
        room's seats; 429 ``rate_limited`` an address past its lookups of rooms that do not
        exist (each such 404 is one, as at the rooms' own door); 503 ``unavailable`` the
        rooms' store out of reach; 507 ``storage_full`` for a third browser of one seat."""
        hub: RoomHub = request.app.state.rooms
        code = body.code.upper()
        address = request.client.host if request.client is not None else None
        try:
            browser = check_browser_id(body.browser)
            # a code that does not exist counts against the address's lookups, as at the
            # rooms' own door: else any token would tell which codes exist
            if hub.misses is not None:
                await hub.misses.check(address)
            try:
                side = await hub.service.open_seat(code, body.token)
            except ActionRefused as error:
                if error.code == "not_found" and hub.misses is not None:
                    await hub.misses.note(address)
                raise
            room = hub.service.room(code)
        except ActionRefused as error:
            return refusal(error.code, str(error))
        records: dict[str, RoomRecord] = getattr(request.app.state, "room_records", {})
        record = records.get(room.table.rules.name, in_table)
        # one game or match of the room (a rematch is the next), one seat: its games are
        # counted in at most MAX_RECORDS_PER_SEAT browsers' records
        session = room_session(room.code, len(room.history), side)
        try:
            write = record.count(room, side, browser, session)  # (read here: the loop's room)
        except ActionRefused as error:
            return _refused(error, 422)
        async with seat_guard:
            counted_by = await anyio.to_thread.run_sync(record.browsers, session)
            if browser not in counted_by and len(counted_by) >= MAX_RECORDS_PER_SEAT:
                return _refused(ActionRefused(
                    "storage_full", f"this seat's games are counted in {MAX_RECORDS_PER_SEAT} "
                                    "browsers' records already"), 507)
            return {"counted": await anyio.to_thread.run_sync(write)}

    app.include_router(rooms)
