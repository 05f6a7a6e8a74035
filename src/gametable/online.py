"""The online rooms' door, for every game: HTTP to make and join a room, a WebSocket to play.

Routes (``install(app, service)``; every refusal is ``{"error": {"code", "message"}}`` with a
4xx status over HTTP, an ``error`` frame on the WebSocket; nothing changes):

* ``POST /api/rooms`` ``{"game": "checkers", "settings": {...}, "time_control": "blitz",
  "side": "white" | "black" | "random", "name": "Ann"}`` → 201 ``{"code", "token", "side",
  "view"}``: the host's seat token (keep it private) and the code to share.
* ``GET /api/rooms/{code}`` → what a guest may see before joining: ``{"code", "game",
  "settings", "time_control", "names", "open", "closed"}`` (``open``: a seat is free to take;
  ``closed``: the host left before anyone joined, so a join is refused, ``room_closed``).
* ``POST /api/rooms/{code}/join`` ``{"name"}`` → ``{"code", "token", "side", "view"}``
  (``seats_taken`` when both seats are taken; ``room_full`` is the room's storage used up).
* ``WS /ws/rooms/{code}``: the first frame is ``hello`` with the seat's token; then the
  messages of :mod:`gametable.wire`. Each accepted message's views are pushed to both seats,
  each from its own side (to a connection whose hello asked for patches, each view after its
  first as the patch from the view sent before: :func:`gametable.wire.view_patch`); a
  refusal is answered to its sender only. The hello's answer (the connection's first view)
  carries ``server`` (:func:`gametable.wire.server_info`: when this process opened its door,
  so a page that reconnects can tell that the server restarted and kept its room); a seat
  that leaves (``leave``) has the other seat told, ``left`` (:func:`gametable.wire.left_message`).

A room's messages are handled one at a time, in arrival order (each is one short engine
action, and with a shared store one atomic write: :mod:`gametable.redis_rooms`); each
connection has one writer task draining its queue, so every player receives the room's views
in order; a connection that does not read them is closed.
A seat has one live connection: a newer one replaces it. Flags fall on a timer set at each
room's next deadline, so a stalled player loses on time with nobody sending anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from typing import Annotated, Any, Final

from fastapi import APIRouter, FastAPI, Header, Path, Request, WebSocket
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field

from gametable.errors import ActionRefused
from gametable.http import refusal
from gametable.outbox import Outbox
from gametable.room import Outgoing
from gametable.rooms import MissCounter, RoomService, misses_refused
from gametable.seam import Side, other
from gametable.wire import error_message, left_message, parse_message, server_info, view_patch

LOG = logging.getLogger(__name__)

#: Seconds a new connection has to say hello before it is closed (from when it opens, whatever
#: it sends before).
HELLO_TIMEOUT: Final = 15.0
#: The WebSocket close code for a refused connection (policy violation).
CLOSE_REFUSED: Final = 1008

RoomCode = Annotated[str, Path(min_length=4, max_length=16, pattern=r"^[A-Za-z0-9]+$")]


class NewRoom(BaseModel):
    """A room to make (a field not named here is refused: a misspelt one would be lost)."""

    model_config = ConfigDict(extra="forbid")

    game: str = Field(max_length=40)
    settings: dict[str, Any] = Field(default_factory=dict, max_length=16)
    time_control: str = Field(default="none", max_length=40)
    side: str = Field(default="white", max_length=8)
    name: str = Field(default="", max_length=40)


class JoinRoom(BaseModel):
    """A guest joining."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(default="", max_length=40)


class _Connection(Outbox):
    """One player's WebSocket, its outbox, the seat it opened, and for a connection that
    asked for patches (``hello`` with ``"patch": true``) the last view sent on it."""

    def __init__(self, websocket: WebSocket) -> None:
        super().__init__(websocket)
        self.code: str | None = None
        self.side: Side | None = None
        self.patches = False
        self.last_view: dict[str, Any] | None = None

    def send_patch(self, payload: dict[str, Any]) -> None:
        """Queue a ``view`` frame as a ``patch`` frame: the changes from the last view sent
        here (:func:`gametable.wire.view_patch`), the frame's other fields as they are."""
        view = payload["view"]
        base = self.last_view
        if base is None:
            raise ValueError("a patch needs a view sent before it")
        frame: dict[str, Any] = {k: v for k, v in payload.items() if k != "view"}
        frame["type"] = "patch"
        frame["patch"] = view_patch(base, view)
        self.last_view = view
        self.send(frame)


class RoomHub:
    """The live connection of each seat, and the rooms' flag timers."""

    def __init__(self, service: RoomService, wall: Callable[[], float] = time.time) -> None:
        self.service = service
        #: Wall-clock seconds: when this door opened (a hello's answer says it), and now.
        self.wall = wall
        self.started = wall()
        self._live: dict[tuple[str, Side], _Connection] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: The limit on lookups of rooms that do not exist, per client address (set by
        #: :func:`router`; every door that takes a room code counts its misses there).
        self.misses: MissCounter | None = None
        service.bind(self.deliver, self.replaced)

    def deliver(self, code: str, messages: list[Outgoing]) -> None:
        """Views the service brings from elsewhere (another process's action): queued for
        the seats connected here, the room's timer re-armed."""
        self.swap_sides(code, messages)
        self.dispatch(code, messages)
        self.schedule(code)

    def replaced(self, code: str, side: Side) -> None:
        """The seat was opened on another server process: its connection here is closed."""
        connection = self._live.pop((code, side), None)
        if connection is not None:
            connection.send(
                error_message(ActionRefused("replaced", "this seat was opened in another window"))
            )
            connection.close(CLOSE_REFUSED)

    def swap_sides(self, code: str, messages: list[Outgoing]) -> None:
        """After a rematch (a view marked ``rematch``), the seats' sides are swapped: each
        connection here now plays the other side, so it is keyed and told as such."""
        if not any(m.payload.get("rematch") for m in messages):
            return
        white = self._live.pop((code, "white"), None)
        black = self._live.pop((code, "black"), None)
        if white is not None:
            white.side = "black"
            self._live[(code, "black")] = white
        if black is not None:
            black.side = "white"
            self._live[(code, "white")] = black

    def dispatch(self, code: str, messages: list[Outgoing]) -> None:
        """Queue each message for its seat's live connection (a seat not connected gets the
        view when it comes back): its JSON made once for the connections sent it whole, a
        patch for each connection that asked for patches and was sent a view before."""
        for message in messages:
            sides: tuple[Side, ...] = (
                ("white", "black") if message.side is None else (message.side,)
            )
            text: str | None = None  # the whole frame's JSON, made once if wanted
            is_view = message.payload.get("type") == "view"
            for side in sides:
                connection = self._live.get((code, side))
                if connection is None:
                    continue
                if is_view and connection.last_view is not None:
                    connection.send_patch(message.payload)
                    continue
                if text is None:
                    text = json.dumps(message.payload, separators=(",", ":"))
                connection.send_text(text)
                if is_view and connection.patches:
                    connection.last_view = message.payload["view"]

    async def attach(self, code: str, side: Side, connection: _Connection) -> None:
        """Make ``connection`` the live one of ``side`` in room ``code``: a connection the seat
        had before is told ``replaced`` and closed, the room is told the seat is here, and the
        seat is sent its first view (the hello's answer, with ``server``: when this door
        opened).

        Raises:
            ActionRefused: the room refused the seat (``not_found``, ...); nothing attached.
        """
        old = self._live.get((code, side))
        if old is not None and old is not connection:
            old.send(
                error_message(ActionRefused("replaced", "this seat was opened in another window"))
            )
            old.close(CLOSE_REFUSED)
            del self._live[(code, side)]
            await self.service.seat_disconnected(code, side)
        views = await self.service.seat_connected(code, side)  # refused: not attached
        connection.code, connection.side = code, side
        self._live[(code, side)] = connection
        # the hello's answer: this seat's first view says when this door opened
        info = server_info(self.started, self.wall())
        self.dispatch(code, [
            Outgoing(m.side, {**m.payload, "server": info})
            if m.side == side and m.payload.get("type") == "view" else m
            for m in views
        ])
        self.schedule(code)

    async def detach(self, connection: _Connection) -> None:
        """``connection`` closed: when it was its seat's live one, the room is told the seat
        is gone (the other seat sent its view) and the room's timer armed again; else
        nothing."""
        code, side = connection.code, connection.side
        if code is None or side is None or self._live.get((code, side)) is not connection:
            return
        del self._live[(code, side)]
        with contextlib.suppress(ActionRefused):
            self.dispatch(code, await self.service.seat_disconnected(code, side))
        self.schedule(code)

    def schedule(self, code: str) -> None:
        """(Re)arm the room's timer for its next deadline (a flag, a claim opening)."""
        timer = self._timers.pop(code, None)
        if timer is not None:
            timer.cancel()
        deadline = self.service.deadline(code)
        if deadline is None:
            return
        delay = max(0.0, deadline - self.service.now()) + 0.005
        self._timers[code] = asyncio.get_running_loop().call_later(delay, self._due, code)

    def _due(self, code: str) -> None:
        self._timers.pop(code, None)
        task = asyncio.get_running_loop().create_task(self._tick(code))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _tick(self, code: str) -> None:
        """The room's timer fired: what is due is sent, the timers armed again. Whatever
        fails (the store out of reach, or worse: logged) leaves the timer armed, a second
        later when the room still has a deadline."""
        try:
            due = await self.service.due(code)
        except Exception as error:  # the timer must outlive any failure
            if not isinstance(error, ActionRefused):
                LOG.exception("room %s: its timer failed", code)
            due = []  # the store is out of reach: the timer is armed again below
            if self.service.deadline(code) is not None:
                self._timers[code] = asyncio.get_running_loop().call_later(
                    1.0, self._due, code
                )
                return
        for room_code, messages in due:
            self.dispatch(room_code, messages)
            if room_code != code:
                self.schedule(room_code)
        self.schedule(code)


def _refusal(error: ActionRefused) -> JSONResponse:
    return refusal(error.code, str(error))


#: Lookups and joins of rooms that do not exist one client address may make in
#: :data:`MISS_WINDOW` seconds; past that it is refused (``rate_limited``) until the window
#: has room again, so that room codes cannot be found by trying them.
MAX_MISSES: Final = 30
MISS_WINDOW: Final = 60.0
#: The most addresses whose misses are remembered (the oldest forgotten first).
MAX_TRACKED: Final = 10_000


class MissLimiter:
    """Counts each client address's lookups of rooms that do not exist (``not_found``), in
    this process (:class:`~gametable.rooms.MissCounter`; rooms shared by several processes
    count them in Redis instead: :meth:`RoomService.miss_counter
    <gametable.rooms.RoomService.miss_counter>`).

    Args:
        limit: misses allowed in ``window`` seconds.
        window: seconds.
        now: a monotonic clock in seconds (injected for tests).
    """

    def __init__(self, limit: int = MAX_MISSES, window: float = MISS_WINDOW,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self._now = now
        self._misses: dict[str, list[float]] = {}

    async def check(self, address: str | None) -> None:
        """Refuse ``address`` (None: not limited) while it has used up its misses.

        Raises:
            ActionRefused: ``rate_limited``, saying in how many seconds to try again.
        """
        if address is None or address not in self._misses:
            return
        now = self._now()
        recent = [t for t in self._misses[address] if now - t < self.window]
        if not recent:
            del self._misses[address]
            return
        self._misses[address] = recent
        if len(recent) >= self.limit:
            raise misses_refused(len(recent), self.window - (now - recent[0]))

    async def note(self, address: str | None) -> None:
        """Count a miss of ``address``."""
        if address is None:
            return
        self._misses.setdefault(address, []).append(self._now())
        while len(self._misses) > MAX_TRACKED:
            del self._misses[next(iter(self._misses))]


def router(hub: RoomHub, misses: MissCounter | None = None) -> APIRouter:
    """The routes of the rooms' door (``misses``: the limit on lookups of rooms that do not
    exist, per client address; by default the service's
    (:meth:`~gametable.rooms.RoomService.miss_counter`: one count in Redis for all the
    processes sharing the rooms), else a fresh :class:`MissLimiter` of this process)."""
    api = APIRouter(tags=["rooms"])
    service = hub.service
    limiter: MissCounter
    if misses is not None:
        limiter = misses
    else:
        limiter = service.miss_counter(MAX_MISSES, MISS_WINDOW) or MissLimiter()
    hub.misses = limiter

    def _address(request: Request) -> str | None:
        return request.client.host if request.client is not None else None

    async def _missed(error: ActionRefused, address: str | None) -> JSONResponse:
        if error.code == "not_found":
            await limiter.note(address)
        return _refusal(error)

    @api.post("/api/rooms", status_code=201, summary="Make an online room for a game")
    async def create(body: NewRoom, request: Request) -> Any:
        owner = request.client.host if request.client is not None else None
        try:
            code, token, side, view = await service.open_room(
                body.game, body.settings, body.time_control, name=body.name, side=body.side,
                owner=owner,
            )
        except ActionRefused as error:
            return _refusal(error)
        return {"code": code, "token": token, "side": side, "view": view}

    @api.get("/api/rooms/{code}/export.{fmt}", summary="Download the game in play as a file")
    async def export(
        code: RoomCode,
        fmt: Annotated[str, Path(max_length=8)],
        token: Annotated[str, Header(alias="X-Seat-Token", min_length=8, max_length=80)],
        request: Request,
    ) -> Any:
        address = _address(request)
        try:  # (a code that does not exist is a miss: else any token would tell which do)
            await limiter.check(address)
            name, text = await service.export(code, token, fmt)
        except ActionRefused as error:
            return await _missed(error, address)
        return PlainTextResponse(
            text, headers={"Content-Disposition": f'attachment; filename="{name}"'}
        )

    @api.get("/api/rooms/{code}", summary="What a guest sees before joining")
    async def info(code: RoomCode, request: Request) -> Any:
        address = _address(request)
        try:
            await limiter.check(address)
            return await service.room_details(code)
        except ActionRefused as error:
            return await _missed(error, address)

    @api.post("/api/rooms/{code}/join", summary="Take the free seat of a room")
    async def join(code: RoomCode, body: JoinRoom, request: Request) -> Any:
        address = _address(request)
        try:
            await limiter.check(address)
            code, token, side, out, view = await service.join_room(code, body.name)
        except ActionRefused as error:
            return await _missed(error, address)
        hub.dispatch(code, out)
        return {"code": code, "token": token, "side": side, "view": view}

    @api.websocket("/ws/rooms/{code}")
    async def socket(websocket: WebSocket, code: str) -> None:
        await websocket.accept()
        connection = _Connection(websocket)
        try:
            await _serve(hub, connection, code.upper()[:16], limiter)
        finally:
            await hub.detach(connection)
            connection.close()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await connection.writer

    return api


async def _serve(hub: RoomHub, connection: _Connection, code: str,
                 misses: MissCounter) -> None:
    """Serve one connection; its hello counts against its address's ``misses`` (a room
    that does not exist, a hello to it refused ``not_found``, is one: else a hello with any
    token would tell which codes exist, ``not_your_room``, at no cost). A hello refused while
    its address is past its misses is refused ``rate_limited``, whatever the reason; a hello
    with the seat's own token opens the seat all the same (a token is no guess, and a player
    behind the same address as a guesser keeps its game)."""
    websocket = connection.websocket
    service = hub.service
    address = websocket.client.host if websocket.client is not None else None
    # the hello is due HELLO_TIMEOUT after the connection opens, however many frames come
    # before it (each refused hello_first)
    hello_due = asyncio.get_running_loop().time() + HELLO_TIMEOUT
    while not connection.closing:
        try:
            if connection.side is None:
                remaining = hello_due - asyncio.get_running_loop().time()
                if remaining <= 0:
                    raise TimeoutError
                frame = await asyncio.wait_for(websocket.receive(), remaining)
            else:
                frame = await websocket.receive()
        except TimeoutError:
            connection.send(error_message(ActionRefused("hello_first", "no hello in time")))
            connection.close(CLOSE_REFUSED)
            return
        if frame["type"] == "websocket.disconnect":
            return
        text = frame.get("text")
        ref: int | str | None = None
        try:
            if text is None:
                raise ActionRefused("invalid_message", "send JSON text frames")
            message, ref = parse_message(text)
            if connection.side is None:
                if message["type"] != "hello":
                    raise ActionRefused("hello_first", "say hello with your seat's token first")
                try:
                    side = await service.open_seat(code, message["token"])
                except ActionRefused as error:
                    # an address past its misses learns nothing of the room (found or not,
                    # the token wrong); a seat's own token is no guess and always opens it
                    await misses.check(address)
                    if error.code == "not_found":
                        await misses.note(address)
                    raise
                connection.patches = message.get("patch", False)
                await hub.attach(code, side, connection)
                continue
            if message["type"] == "hello":
                raise ActionRefused("already_joined", "this connection has said hello")
            hub.dispatch(code, await service.before_message(code))
            out = await service.message(code, connection.side, message)
            hub.swap_sides(code, out)
            if ref is not None:
                out = [
                    Outgoing(m.side, {**m.payload, "ref": ref})
                    if m.side == connection.side
                    else m
                    for m in out
                ]
            hub.dispatch(code, out)
            hub.schedule(code)
            if message["type"] == "leave":
                # the other seat is told (its page says the room is closed to it)
                left = Outgoing(other(connection.side), dict(left_message(connection.side)))
                hub.dispatch(code, [left])
                connection.close()
        except ActionRefused as error:
            connection.send(error_message(error, ref if error.ref is None else error.ref))
            if connection.side is None and error.code in (
                "not_found", "not_your_room", "room_not_restored", "rate_limited"
            ):
                connection.close(CLOSE_REFUSED)


def install(app: FastAPI, service: RoomService, misses: MissCounter | None = None) -> RoomHub:
    """Mount the rooms' door on ``app`` (``misses``: see :func:`router`); returns its hub."""
    hub = RoomHub(service)
    app.state.rooms = hub
    app.include_router(router(hub, misses))
    return hub
