"""The HTTP and WebSocket endpoints of online play, as one ``APIRouter``.

* ``POST /api/online/rooms``: create a room (the host's settings); answers the invite code and
  the host's seat token.
* ``GET /api/online/rooms/{code}``: a room's settings and whether its guest seat is free.
* ``POST /api/online/moved``: which of the codes asked the server moved to the table's door
  at start (``services/room_migration.py``), and their codes there.
* ``WS /api/online/rooms/{code}/ws``: one connection per player; the protocol is in
  :mod:`backgammon.services.online.protocol`.

The rooms live in an :class:`OnlineHub` at ``app.state.online``, made on first use with the
defaults; an app (or a test) sets its own before serving to choose the expiry or inject
``now()``. Handlers are thin: they check and parse, call the synchronous :class:`~.rooms.Room`
(one short engine action, on the event loop, so a room's messages are handled one at a time in
arrival order), then queue the answers. The reads whose cost grows with a room's history
(``review``, ``export``: :data:`~.rooms.HEAVY_READS`) are made from a snapshot in a worker
thread, :data:`HEAVY_READERS` at once for the whole server and one at a time per connection,
so a long money session's review holds up nobody else's game. Each connection has one writer
task draining its queue, so every player receives the room's events in order. A room is
called through its manager (``hub.rooms.handle``, ``tick``, ``join``, ...): the app's
:class:`~.persist.PersistentRooms` commits each accepted action to the store there, before its
answers are queued.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Annotated, Any, Final

import anyio
import anyio.to_thread
from fastapi import APIRouter, Body, FastAPI, Request, WebSocket
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from backgammon.core.errors import BackgammonError, InvalidSettingsError
from backgammon.server.errors import http_error, ws_error
from backgammon.services.online.protocol import (
    CLOSE_REFUSED,
    MAX_NAME,
    OnlineError,
    parse_message,
)
from backgammon.services.online.rooms import (
    HEAVY_READS,
    OnlineSettings,
    Outgoing,
    Room,
    RoomManager,
    Seat,
)
from backgammon.services.online.wire import ServerMessage, WelcomeHead
from gametable.outbox import Outbox

__all__ = ["HEAVY_READERS", "HELLO_TIMEOUT", "OnlineHub", "router"]

#: Seconds a new connection has to say hello before it is closed.
HELLO_TIMEOUT: Final = 15.0
#: Heavy reads (reviews, transcripts) made at once in worker threads, all rooms together;
#: more wait their turn (each connection has at most one waiting: it reads its next message
#: once its read is answered). One: the threads share the interpreter, so a second would add
#: nothing but another thread the event loop waits on.
HEAVY_READERS: Final = 1

router = APIRouter(prefix="/api/online", tags=["online"])


class _Connection(Outbox):
    """One player's WebSocket, its ordered outbox (:class:`gametable.outbox.Outbox`), and
    the seat it opened."""

    def __init__(self, websocket: WebSocket) -> None:
        super().__init__(websocket)
        self.seat: Seat | None = None
        self.room: Room | None = None
        self.id = 0

    def send(self, payload: ServerMessage) -> None:
        """Queue one message of the protocol."""
        super().send(payload)


class OnlineHub:
    """The rooms of a server and the live connection of each seat.

    Args:
        rooms: the rooms; default a :class:`~.rooms.RoomManager` with its defaults.
    """

    def __init__(self, rooms: RoomManager | None = None) -> None:
        self.rooms = rooms if rooms is not None else RoomManager()
        self._live: dict[tuple[str, Seat], _Connection] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._readers: anyio.CapacityLimiter | None = None  # made on the event loop

    async def read_off_loop(self, work: Callable[[], list[Outgoing]]) -> list[Outgoing]:
        """Run a heavy read (:meth:`Room.heavy_read <.rooms.Room.heavy_read>`) in a worker
        thread, :data:`HEAVY_READERS` at once."""
        if self._readers is None:
            self._readers = anyio.CapacityLimiter(HEAVY_READERS)
        return await anyio.to_thread.run_sync(work, limiter=self._readers)

    def dispatch(self, room: Room, messages: list[Outgoing]) -> None:
        """Queue each message for its seat's live connection (a seat not connected misses it
        and gets the full state when it comes back). A payload sent to both seats is encoded
        once."""
        encoded: dict[int, str] = {}
        for seat, payload in messages:
            connection = self._live.get((room.code, seat))
            if connection is not None:
                text = getattr(payload, "text", None) or encoded.get(id(payload))
                if text is None:
                    text = encoded[id(payload)] = json.dumps(payload, separators=(",", ":"))
                connection.send_text(text)

    def attach(self, room: Room, seat: Seat, connection: _Connection) -> None:
        """Make ``connection`` the seat's live one; an older one is told and closed."""
        old = self._live.get((room.code, seat))
        if old is not None and old is not connection:
            old.send(ws_error(OnlineError(
                "replaced", "this seat was opened in another window: this one is closed")))
            old.close(CLOSE_REFUSED)
        connection.id, messages = room.connect(seat)
        connection.seat = seat
        connection.room = room
        self._live[(room.code, seat)] = connection
        self.dispatch(room, messages)

    def detach(self, connection: _Connection) -> None:
        """The connection closed: tell the opponent, and let an empty room expire."""
        room, seat = connection.room, connection.seat
        if room is None or seat is None:
            return
        if self._live.get((room.code, seat)) is connection:
            del self._live[(room.code, seat)]
        self.dispatch(room, room.disconnect(seat, connection.id))
        self.schedule(room)  # a side gone may be claimed against sooner
        if room.empty_since is not None:
            self._schedule_sweep()

    def schedule(self, room: Room) -> None:
        """(Re)arm the room's timer for the moment the running side's time runs out."""
        timer = self._timers.pop(room.code, None)
        if timer is not None:
            timer.cancel()
        deadline = room.next_deadline()
        if deadline is None:
            return
        delay = max(0.0, deadline - self.rooms.now_of(room)) + 0.005
        loop = asyncio.get_running_loop()
        self._timers[room.code] = loop.call_later(delay, self._flag, room)

    def _flag(self, room: Room) -> None:
        self._timers.pop(room.code, None)
        self.dispatch(room, self.rooms.tick(room))
        self.schedule(room)

    def _schedule_sweep(self) -> None:
        loop = asyncio.get_running_loop()
        loop.call_later(self.rooms.expiry + 0.01, self._sweep)

    def _sweep(self) -> None:
        for code in self.rooms.sweep():
            timer = self._timers.pop(code, None)
            if timer is not None:
                timer.cancel()


def hub_of(app: FastAPI | Any) -> OnlineHub:
    """The app's :class:`OnlineHub` (``app.state.online``), made on first use."""
    hub = getattr(app.state, "online", None)
    if hub is None:
        hub = OnlineHub()
        app.state.online = hub
    return hub


class CreateRoom(BaseModel):
    """The host's settings for a new room."""

    model_config = ConfigDict(extra="forbid")

    cube: bool = Field(False, description="Play with the doubling cube.")
    time_control: str = Field("none", description="none, bullet, blitz or rapid.")
    match_length: int = Field(0, description="0: a single game (or money play); 1-25: a "
                                             "match to that many points.")
    money: bool = Field(False, description="Money play: games one after another with a "
                                           "running total (match_length 0).")
    jacoby: bool = Field(False, description="The Jacoby rule (money play with the cube).")
    beavers: bool = Field(False, description="Beavers (money play with the cube).")
    name: str | None = Field(None, max_length=MAX_NAME, description="The host's name.")


class RoomCreated(BaseModel):
    """The new room: the invite code to share and the host's private seat token."""

    code: str
    token: str
    seat: str
    color: str
    settings: dict[str, Any]
    invite_path: str
    ws_path: str


class RoomInfo(BaseModel):
    """What a joiner may see before joining."""

    code: str
    phase: str
    settings: dict[str, Any]
    host: str
    open: bool


@router.post("/rooms", status_code=201, response_model=RoomCreated,
             summary="Create a room for online play")
async def create_room(request: Request,
                      body: Annotated[CreateRoom, Body()]) -> RoomCreated | JSONResponse:
    """The host creates a room with its settings and gets the invite code and its seat token.

    Refused with 429 ``rate_limited`` when the client's address (as uvicorn gives it: the
    proxy's ``X-Forwarded-For`` only from a trusted proxy) created 10 rooms in the last
    minute or holds 5 rooms nobody has joined; 503 ``too_many_rooms`` when the server is full.

    The invite link is ``invite_path`` on this server (a fragment, so the code stays out of
    server logs and Referer headers); both players then connect to ``ws_path``.
    """
    hub = hub_of(request.app)
    try:
        settings = OnlineSettings(cube=body.cube, time_control=body.time_control,
                                  match_length=body.match_length, money=body.money,
                                  jacoby=body.jacoby, beavers=body.beavers)
    except InvalidSettingsError as exc:
        return http_error(OnlineError("invalid_settings", str(exc)))
    name = body.name.strip() if body.name and body.name.strip() else None
    if name is not None and not name.isprintable():
        return http_error(OnlineError("invalid_settings",
                                      f"name must be printable text, got {name!r}"))
    address = request.client.host if request.client is not None else None
    try:
        room, token = hub.rooms.create(settings, name, address)
    except OnlineError as exc:
        return http_error(exc)
    hub._schedule_sweep()
    return RoomCreated(code=room.code, token=token, seat="host",
                       color=str(room.colors[Seat.HOST]),
                       settings=settings.to_dict(room.controls),
                       invite_path=f"/#join={room.code}",
                       ws_path=f"/api/online/rooms/{room.code}/ws")


@router.get("/rooms/{code}", response_model=RoomInfo, summary="A room's settings")
async def room_info(request: Request, code: str) -> RoomInfo | JSONResponse:
    """The host's settings and whether the guest seat is still free (404 when there is no such
    room or it expired)."""
    try:
        room = hub_of(request.app).rooms.get(code)
    except OnlineError as exc:
        return http_error(exc)
    return RoomInfo(code=room.code, phase=str(room.phase),
                    settings=room.settings.to_dict(room.controls),
                    host=room.names[Seat.HOST], open=room.phase == "waiting")


class MovedRooms(BaseModel):
    """Codes of this door's rooms, to learn which moved to the table's door."""

    model_config = ConfigDict(extra="forbid")

    codes: list[Annotated[str, Field(max_length=64)]] = Field(
        max_length=64, description="Room codes of this door (a browser's kept seats).")


class MovedAnswer(BaseModel):
    """Each code asked whose room the server moved to the table's door: its code there."""

    moved: dict[str, str]


@router.post("/moved", response_model=MovedAnswer,
             summary="Which rooms moved to the table's door")
async def moved_rooms(request: Request, body: Annotated[MovedRooms, Body()]) -> MovedAnswer:
    """For each code asked whose room the server moved to the table's door at start
    (``services/room_migration.py``), its code there (``/api/rooms/{code}``); rooms still
    here, gone, or never made are left out. Always 200 (the page asks about every seat it
    kept, ``js/seat_migration.js``: a seat of a room that ended is no error)."""
    rooms = hub_of(request.app).rooms
    moved: dict[str, str] = {}
    for code in dict.fromkeys(body.codes):
        try:
            rooms.get(code)
        except OnlineError as exc:
            where = getattr(rooms, "moved_to", None)
            if exc.code == "room_moved" and where is not None:
                found = where(code)
                if found is not None:
                    moved[code] = found
    return MovedAnswer(moved=moved)


@router.websocket("/rooms/{code}/ws")
async def room_socket(websocket: WebSocket, code: str) -> None:
    """One player's connection to a room (protocol: :mod:`~.protocol`)."""
    hub = hub_of(websocket.app)
    await websocket.accept()
    connection = _Connection(websocket)
    try:
        await _serve(hub, connection, code)
    finally:
        hub.detach(connection)
        connection.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await connection.writer


async def _serve(hub: OnlineHub, connection: _Connection, code: str) -> None:
    websocket = connection.websocket
    first = True
    while not connection.closing:
        try:
            if first:
                message = await asyncio.wait_for(websocket.receive(), HELLO_TIMEOUT)
            else:
                message = await websocket.receive()
        except TimeoutError:
            connection.send(ws_error(OnlineError(
                "hello_first", f"no hello within {HELLO_TIMEOUT:g} seconds")))
            connection.close(CLOSE_REFUSED)
            return
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        ref: int | str | None = None
        try:
            if text is None:
                raise OnlineError("malformed", "send JSON text frames, not binary ones")
            parsed = parse_message(text)
            ref = parsed.ref
            if connection.room is None:
                if parsed.type != "hello":
                    raise OnlineError("hello_first", f"say hello first (got {parsed.type!r})")
                _hello(hub, connection, code, parsed.get("token"), parsed.get("name"))
                first = False
                continue
            if parsed.type == "hello":
                raise OnlineError("already_joined", "this connection has already said hello")
            room, seat = connection.room, connection.seat
            assert seat is not None
            hub.dispatch(room, hub.rooms.tick(room))
            if parsed.type in HEAVY_READS:
                for _, payload in await hub.read_off_loop(room.heavy_read(seat, parsed)):
                    connection.send_text(getattr(payload, "text", "") or json.dumps(
                        payload, separators=(",", ":")))
                continue
            hub.dispatch(room, hub.rooms.handle(room, seat, parsed, text))
            hub.schedule(room)
            if parsed.type == "leave":
                connection.close()
        except BackgammonError as exc:  # an OnlineError, or the engine's refusal
            connection.send(ws_error(exc, ref))
            if getattr(exc, "fatal", False):
                connection.close(CLOSE_REFUSED)


def _hello(hub: OnlineHub, connection: _Connection, code: str, token: str | None,
           name: str | None) -> None:
    room = hub.rooms.get(code)
    if token is None:
        token = hub.rooms.join(room, name)
        seat = Seat.GUEST
    else:
        seat = hub.rooms.seat_for(room, token)
    restarted = hub.rooms.restarted(room, seat)
    hub.attach(room, seat, connection)
    hub.dispatch(room, hub.rooms.tick(room))
    _, state = room.state_encoded(seat)  # (its text made at the cost of the current game)
    welcome: WelcomeHead = {"type": "welcome", "seat": str(seat),
                            "color": str(room.colors[seat]), "token": token, "code": room.code,
                            "settings": room.settings.to_dict(room.controls),
                            "restarted": restarted}
    head = json.dumps(welcome, separators=(",", ":"))
    connection.send_text(f'{head[:-1]},"state":{state}}}')
    hub.schedule(room)
