"""Online rooms that several server processes share, kept in Redis (``serve --redis URL``).

Each process runs the same door (:mod:`gametable.online`) over a :class:`SharedRoomService`:
a :class:`~gametable.rooms.RoomService` whose rooms live in Redis (:class:`RedisRoomStore`,
redis-py's asyncio client, so the event loop never waits on a socket) and whose local copies
are caches. Nothing needs sticky sessions: any process takes any request and any player's
reconnect.

What Redis holds, under a prefix (default ``gt:``; ``{code}`` is the room's code):

* ``room:{code}`` (hash): ``version`` (one more per accepted action), ``record``
  (:meth:`~gametable.room.Room.to_record`, JSON), ``game``, ``owner`` (the creator's
  address), ``saved_at`` (the writer's wall clock, seconds), ``over``, ``token_white`` and
  ``token_black`` (the seats' token hashes, also in the record), ``deadline``.
* ``room:{code}:events`` (stream, capped): one entry per accepted action (``v``: the new
  version, ``e``: JSON ``{"kind": "create" | "join" | "action" | "tick", "side", "message",
  "extra"}``, an action or a tick also ``"at"``, the writer's wall clock when it took the
  step, and ``"rv"``, the room's version after it) and per seat opened or closed
  (``{"kind": "seat", "side", "on", "proc"}``).
* ``room:{code}:seats`` (hash): ``white`` / ``black`` → ``on|PROCESS|EXPIRY`` (connected to
  that process; refreshed every :data:`PRESENCE_REFRESH` seconds) or ``off|SINCE``.
* ``bell:{code}`` (pub/sub channel): rung after each entry, with the version stored
  (``seat`` for a seat's entry) only so that a process need not read its own steps back.
* ``rooms`` and ``owner:{address}`` (sorted sets, score = expiry): the server-wide and
  per-address room counts; ``made:{address}`` (score = when), ``waiting:{address}`` (score =
  until when a room nobody has joined counts) and ``misses:{address}`` (score = when): an
  address's rooms made in the last minute, its rooms nobody has joined and its lookups of
  rooms that do not exist, one count for every process (the create script, the act script
  and :class:`SharedMisses`); ``deadlines`` (sorted set, score = wall-clock instant of the next
  flag); ``outages`` (sorted set of ``START|END|PROCESS``, score = END: the windows a process
  could not reach Redis, wall clock, kept as long as a room may live).

**One atomic step per action**: a registered Lua script checks the room's version, then
stores the new record, appends the event to the stream, refreshes the TTLs (rooms expire by
Redis TTLs: ``idle_expiry``, ``over_expiry`` once the game is over), sets the flag deadline
and rings the doorbell. Every check comes before the first write (a script does not roll
back), so of two processes racing for the same version exactly one is accepted; the other
gets :class:`~gametable.room_store.StaleRoomError`, brings its copy up to date and tries once
more (a refusal then says why, or ``conflict``).

**Fan-out**: each process subscribes to the doorbells of the rooms it has players in, and on
a ring (and every :data:`POLL_INTERVAL` seconds, so a lost ring costs latency, never an event)
reads each room's stream from the last entry it saw. When the stream holds exactly the next
versions, each an action or a tick, the copy applies them itself at the writer's instants
(checked: each must be accepted and reach the writer's room version); otherwise (a join, a
gap, a refusal) it is rebuilt from the stored record, which replays the whole game. Each
local seat is pushed its view once per new action, in order. A
flag that falls or a claim is an ordinary action through the same script, so exactly one
process applies it; every process also sweeps ``deadlines`` for rooms nobody holds.

**Redis unreachable**: every action is refused with ``unavailable`` and the local copy goes
back to its last stored state (nothing half-applies); the client reconnects by itself, and
the rooms catch up from their streams when Redis answers again. The time between a record's
save and its rebuild in another process is charged to the side whose clock ran, from the
writer's wall clock (processes on machines with synchronised clocks), **less the outages**:
a process's first failed call opens an outage (at the instant it was made), its first
answered call closes it; it then gives the outage back to each copy it holds (the running
clock, :meth:`Clock.credit <gametable.clock.Clock.credit>`, and a round's waits) and records
the window in ``outages``, which every process reads with each room it loads, so a room
rebuilt anywhere from a record saved before the outage is charged the time since the save
less the outages in between (several processes' windows of one outage count once). An
outage that only some processes saw (a partition) is given back to every room rebuilt after
it all the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from gametable.clock import TIME_CONTROLS, TimeControl
from gametable.errors import ActionRefused, TableError
from gametable.room import CLAIM_AFTER, THINK_AFTER, Outgoing, Room
from gametable.room_store import DEFAULT_MAX_RECORD_BYTES, StaleRoomError
from gametable.rooms import (
    CREATE_WINDOW,
    DEFAULT_CREATE_RATE,
    DEFAULT_MAX_PER_OWNER,
    DEFAULT_MAX_ROOM_BYTES,
    DEFAULT_MAX_ROOM_MESSAGES,
    DEFAULT_MAX_ROOMS,
    DEFAULT_MAX_WAITING,
    IDLE_EXPIRY,
    OVER_EXPIRY,
    WAITING_EXPIRY,
    MissCounter,
    RoomService,
    check_name,
    check_room_space,
    creations_refused,
    misses_refused,
    new_code,
    room_info,
    waiting_refused,
)
from gametable.seam import SIDES, GameRules, Side, other

LOG = logging.getLogger(__name__)

#: Seconds a process's mark on a seat lives without a refresh (a killed process's players
#: count as gone this long after its last refresh).
PRESENCE_TTL: Final = 15.0
#: Seconds between two refreshes of a process's seats.
PRESENCE_REFRESH: Final = 5.0
#: Seconds between two reads of every held room's stream (what a lost doorbell costs).
POLL_INTERVAL: Final = 1.0
#: Seconds between two sweeps of the flag deadlines.
SWEEP_INTERVAL: Final = 0.5
#: Entries kept in a room's stream (approximately: ``XADD MAXLEN ~``).
STREAM_LENGTH: Final = 256
#: Seconds one Redis command may take before the action is refused as ``unavailable``.
COMMAND_TIMEOUT: Final = 2.0
#: Stream entries one catch-up reads at a time.
EVENTS_BATCH: Final = 100
#: Outage windows kept in Redis at most (the latest).
MAX_OUTAGES: Final = 256
#: Connections one process opens to Redis at most; a command waits (``POOL_TIMEOUT`` at
#: most) for a free one rather than fail. A burst (hundreds of players connecting at once)
#: queues here, in the process's own event loop, not in Redis.
MAX_CONNECTIONS: Final = 256
#: Seconds a command may wait for a free connection before the action is refused as
#: ``unavailable`` (:class:`RoomStoreBusy`: the process's overload, not an outage).
POOL_TIMEOUT: Final = 5.0

_ACT: Final = """
-- KEYS: room, events, deadlines, rooms, owner, seats, owner's rooms nobody has joined
-- ARGV: expected version, record, event, ttl, deadline ('' none), code, saved_at, over,
--       maxlen, bell, token_white, token_black, swap the seats' marks ('1': a rematch),
--       '1': the room no longer waits for a guest (joined or closed)
local stored = redis.call('HGET', KEYS[1], 'version')
if not stored then return {'missing'} end
if tonumber(stored) ~= tonumber(ARGV[1]) then return {'stale', stored} end
local version = tonumber(stored) + 1
redis.call('HSET', KEYS[1], 'version', version, 'record', ARGV[2], 'saved_at', ARGV[7],
           'over', ARGV[8], 'token_white', ARGV[11], 'token_black', ARGV[12],
           'deadline', ARGV[5])
if ARGV[14] == '1' then
  redis.call('ZREM', KEYS[7], ARGV[6])
end
if ARGV[13] == '1' then
  local white = redis.call('HGET', KEYS[6], 'white')
  local black = redis.call('HGET', KEYS[6], 'black')
  redis.call('HDEL', KEYS[6], 'white', 'black')
  if black then redis.call('HSET', KEYS[6], 'white', black) end
  if white then redis.call('HSET', KEYS[6], 'black', white) end
end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[9], '*', 'v', version, 'e', ARGV[3])
local ttl = tonumber(ARGV[4])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
if ARGV[5] == '' then
  redis.call('ZREM', KEYS[3], ARGV[6])
else
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])
end
local now = tonumber(redis.call('TIME')[1])
redis.call('ZADD', KEYS[4], 'XX', now + ttl, ARGV[6])
if KEYS[5] ~= KEYS[4] then
  redis.call('ZADD', KEYS[5], 'XX', now + ttl, ARGV[6])
end
redis.call('PUBLISH', ARGV[10], version)
return {'ok', id, version}
"""

_CREATE: Final = """
-- KEYS: room, events, rooms, owner, owner's rooms made (score: when), owner's rooms nobody
--       has joined (score: until when they count)
-- ARGV: record, game, owner, ttl, max rooms, max per owner, code, saved_at, event, maxlen,
--       bell, token_white, token_black, '1': the owner's limits apply, wall clock now,
--       the creation window, rooms made in it at most, rooms nobody has joined at most,
--       seconds such a room counts
local now = tonumber(redis.call('TIME')[1])
local limited = ARGV[14] == '1'
local wall = tonumber(ARGV[15])
if redis.call('EXISTS', KEYS[1]) == 1 then return {'exists'} end
if limited then
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', wall - tonumber(ARGV[16]))
  local made = redis.call('ZCARD', KEYS[5])
  if made >= tonumber(ARGV[17]) then
    local first = redis.call('ZRANGE', KEYS[5], 0, 0, 'WITHSCORES')
    return {'rate_limited', made, first[2]}
  end
end
if redis.call('ZCOUNT', KEYS[3], now, '+inf') >= tonumber(ARGV[5]) then
  return {'too_many_rooms'}
end
if KEYS[4] ~= KEYS[3] and redis.call('ZCOUNT', KEYS[4], now, '+inf') >= tonumber(ARGV[6]) then
  return {'too_many_owner'}
end
if limited then
  redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', wall)
  local waiting = redis.call('ZCARD', KEYS[6])
  if waiting >= tonumber(ARGV[18]) then return {'waiting', waiting} end
end
local ttl = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
redis.call('HSET', KEYS[1], 'version', 1, 'record', ARGV[1], 'game', ARGV[2], 'owner', ARGV[3],
           'saved_at', ARGV[8], 'over', 0, 'token_white', ARGV[12], 'token_black', ARGV[13],
           'deadline', '')
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[10], '*', 'v', 1, 'e', ARGV[9])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('ZADD', KEYS[3], now + ttl, ARGV[7])
if KEYS[4] ~= KEYS[3] then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
  redis.call('ZADD', KEYS[4], now + ttl, ARGV[7])
  redis.call('EXPIRE', KEYS[4], ttl)
end
if limited then
  redis.call('ZADD', KEYS[5], wall, ARGV[7])
  redis.call('EXPIRE', KEYS[5], math.ceil(tonumber(ARGV[16])) + 1)
  redis.call('ZADD', KEYS[6], wall + tonumber(ARGV[19]), ARGV[7])
  redis.call('EXPIRE', KEYS[6], math.ceil(tonumber(ARGV[19])) + 1)
end
redis.call('PUBLISH', ARGV[11], 1)
return {'ok', id}
"""

_MISSES: Final = """
-- KEYS: the address's misses (sorted set, score: when)
-- ARGV: wall clock now, the window, '1': count one more (else only read), misses kept at
--       most, the new miss's member (unique)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if ARGV[3] == '1' then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[5])
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -tonumber(ARGV[4]) - 1)
  redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2])) + 1)
end
local count = redis.call('ZCARD', KEYS[1])
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {count, first[2] or ''}
"""

_SEAT: Final = """
-- KEYS: room, seats, events
-- ARGV: side, 'on' | 'off' | 'refresh', process, expiry or gone-since, ttl, maxlen, bell, event
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local current = redis.call('HGET', KEYS[2], ARGV[1])
local mine = current and string.find(current, 'on|' .. ARGV[3] .. '|', 1, true) == 1
if ARGV[2] == 'refresh' then
  if mine then
    redis.call('HSET', KEYS[2], ARGV[1], 'on|' .. ARGV[3] .. '|' .. ARGV[4])
    redis.call('EXPIRE', KEYS[2], ARGV[5])
  end
  return 1
end
if ARGV[2] == 'off' then
  if not mine then return 0 end
  redis.call('HSET', KEYS[2], ARGV[1], 'off|' .. ARGV[4])
else
  redis.call('HSET', KEYS[2], ARGV[1], 'on|' .. ARGV[3] .. '|' .. ARGV[4])
end
redis.call('EXPIRE', KEYS[2], ARGV[5])
local version = redis.call('HGET', KEYS[1], 'version')
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[6], '*', 'v', version, 'e', ARGV[8])
redis.call('PUBLISH', ARGV[7], 'seat')
return 1
"""


class RoomStoreUnavailable(TableError, ConnectionError):
    """Redis did not answer (down, restarting, loading its data, or too slow)."""


class RoomStoreBusy(RoomStoreUnavailable):
    """This process had no free connection to Redis within the timeout: its own overload,
    not an outage of Redis (other processes go on)."""


@dataclass(frozen=True, slots=True)
class LoadedRoom:
    """A room as stored: ``version``, ``record``, ``owner``, ``saved_at`` (wall clock),
    ``seats`` (the presence hash, side → value), ``last_id`` (its stream's last entry,
    ``"0-0"`` for none) and ``outages`` (the windows Redis was out of reach, see
    :meth:`RedisRoomStore.record_outage`), read in one transaction."""

    code: str
    version: int
    record: dict[str, Any]
    owner: str | None
    saved_at: float
    seats: dict[str, str]
    last_id: str
    outages: list[tuple[float, float]] = field(default_factory=list)
    size: int = 0  # the stored record's bytes


@dataclass(frozen=True, slots=True)
class RoomEvent:
    """One stream entry: its ``id``, the room ``version`` after it and its ``event``."""

    id: str
    version: int
    event: dict[str, Any]


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class RedisRoomStore:
    """The rooms in one Redis database (redis-py's asyncio client).

    Args:
        url: ``redis://HOST:PORT/DB`` (``rediss://`` for TLS, a password in the URL).
        prefix: the keys' prefix (several sites may share a database).
        max_record_bytes: the bound on one record (a larger one is refused, nothing written).
        stream_length: entries kept in a room's stream.
        timeout: seconds one command may take (connecting included).
        max_connections: the connections kept to Redis at most (a command waits for one).
        pool_timeout: seconds a command may wait for a free connection.

    Every method raises :class:`RoomStoreUnavailable` when Redis does not answer.
    """

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "gt:",
        max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
        stream_length: int = STREAM_LENGTH,
        timeout: float = COMMAND_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
        pool_timeout: float = POOL_TIMEOUT,
    ) -> None:
        self.url = url
        self.prefix = prefix
        self.max_record_bytes = max_record_bytes
        self.stream_length = stream_length
        pool = BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections,
            timeout=pool_timeout,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), 1),
            health_check_interval=30,
        )
        self.redis: Any = Redis.from_pool(pool)  # closes the pool with the client
        self._act = self.redis.register_script(_ACT)
        self._create = self.redis.register_script(_CREATE)
        self._seat = self.redis.register_script(_SEAT)
        self._misses = self.redis.register_script(_MISSES)

    # ---------------------------------------------------------------- keys

    def room_key(self, code: str) -> str:
        """The room's hash."""
        return f"{self.prefix}room:{code}"

    def events_key(self, code: str) -> str:
        """The room's stream."""
        return f"{self.prefix}room:{code}:events"

    def seats_key(self, code: str) -> str:
        """The room's presence hash."""
        return f"{self.prefix}room:{code}:seats"

    def bell(self, code: str) -> str:
        """The room's doorbell channel."""
        return f"{self.prefix}bell:{code}"

    def outages_key(self) -> str:
        """The sorted set of the windows Redis was out of reach."""
        return f"{self.prefix}outages"

    def _owner_key(self, owner: str | None) -> str:
        return f"{self.prefix}rooms" if owner is None else f"{self.prefix}owner:{owner}"

    def _made_key(self, owner: str | None) -> str:
        """The address's rooms made lately (sorted set, score: the wall-clock instant)."""
        return f"{self.prefix}made:{owner or ''}"

    def _waiting_key(self, owner: str | None) -> str:
        """The address's rooms nobody has joined (sorted set, score: until when they
        count)."""
        return f"{self.prefix}waiting:{owner or ''}"

    def misses_key(self, address: str) -> str:
        """The address's lookups of rooms that do not exist (sorted set, score: when)."""
        return f"{self.prefix}misses:{address}"

    # ---------------------------------------------------------------- writes

    def encoded(self, record: Mapping[str, Any]) -> str:
        """``record`` as stored (compact JSON, ASCII).

        Raises:
            ActionRefused: ``room_full``: it would pass ``max_record_bytes``.
        """
        text = json.dumps(record, separators=(",", ":"))
        if len(text) > self.max_record_bytes:
            raise ActionRefused(
                "room_full", f"this room holds all a room may store ({self.max_record_bytes:,}"
                " bytes): start a new room to play on",
            )
        return text

    async def create(
        self,
        code: str,
        game: str,
        owner: str | None,
        record: Mapping[str, Any],
        *,
        ttl: int,
        max_rooms: int,
        max_per_owner: int,
        saved_at: float,
        create_rate: int | None = None,
        create_window: float = CREATE_WINDOW,
        max_waiting: int = DEFAULT_MAX_WAITING,
        waiting_expiry: float = WAITING_EXPIRY,
    ) -> str:
        """Store a new room at version 1 (its ``create`` event in its stream); returns the
        event's stream id. With a ``create_rate`` (None: a room moved here, not made by a
        client: neither limited nor counted) and an ``owner`` (a client address), the
        address's limits are checked in the same script, one count for every process: at
        most ``create_rate`` rooms made in ``create_window`` seconds (by ``saved_at``, the
        wall clock) and ``max_waiting`` rooms nobody has joined (each counted until a guest
        joins it, it is closed, or ``waiting_expiry`` seconds after it was made).

        Raises:
            ActionRefused: ``too_many_rooms`` (the server's or the address's share),
                ``rate_limited`` (the address's rate, or its rooms nobody has joined),
                ``room_full`` (the record is too large).
            StaleRoomError: the code is taken.
            RoomStoreUnavailable: Redis did not answer.
        """
        text = self.encoded(record)
        tokens = record.get("tokens", {})
        args = [text, game, owner or "", ttl, max_rooms, max_per_owner, code, repr(saved_at),
                json.dumps({"kind": "create"}), self.stream_length, self.bell(code),
                tokens.get("white") or "", tokens.get("black") or "",
                "0" if owner is None or create_rate is None else "1", repr(saved_at),
                repr(create_window), create_rate or 0, max_waiting, repr(waiting_expiry)]
        keys = [self.room_key(code), self.events_key(code), f"{self.prefix}rooms",
                self._owner_key(owner), self._made_key(owner), self._waiting_key(owner)]
        answer = await self._call(self._create(keys=keys, args=args))
        status = _text(answer[0])
        if status == "exists":
            raise StaleRoomError(f"room {code} exists already")
        if status == "rate_limited":
            made, first = int(answer[1]), float(_text(answer[2]))
            raise creations_refused(made, create_window, create_window - (saved_at - first))
        if status == "waiting":
            raise waiting_refused(int(answer[1]))
        if status == "too_many_rooms":
            raise ActionRefused("too_many_rooms", "the server has no room for another game")
        if status == "too_many_owner":
            raise ActionRefused(
                "too_many_rooms", f"at most {max_per_owner} open rooms from one address"
            )
        return _text(answer[1])

    async def save(
        self,
        code: str,
        owner: str | None,
        version: int,
        record: Mapping[str, Any],
        event: Mapping[str, Any],
        *,
        ttl: int,
        deadline: float | None,
        saved_at: float,
        over: bool,
        swap_seats: bool = False,
        waiting: bool = True,
    ) -> tuple[str, int]:
        """Store ``record`` as the room's ``version`` (one more than the stored one), append
        ``event`` to its stream, refresh its TTLs, set its flag deadline (wall clock) and ring
        its doorbell: one script. With ``swap_seats`` (a rematch: the players swap sides) the
        seats' presence marks swap sides in the same script, so each process's refresh
        finds the mark of the side its connection plays now. The event is stored with the
        record's size (``size``: bytes), so that every process's copy knows it. Returns the
        event's stream id and that size.

        Raises:
            StaleRoomError: the stored version is not ``version - 1``; nothing written.
            ActionRefused: ``not_found`` (the room expired), ``room_full`` (the record is
                too large).
            RoomStoreUnavailable: Redis did not answer; nothing written, or all of it (the
                script ran but its answer was lost: the next action sees the version).

        ``waiting`` False (a guest joined, or the room was closed) takes the room off its
        owner's rooms nobody has joined.
        """
        text = self.encoded(record)
        event = {**event, "size": len(text)}
        tokens = record.get("tokens", {})
        keys = [self.room_key(code), self.events_key(code), f"{self.prefix}deadlines",
                f"{self.prefix}rooms", self._owner_key(owner), self.seats_key(code),
                self._waiting_key(owner)]
        args = [version - 1, text, json.dumps(event, separators=(",", ":")), ttl,
                "" if deadline is None else repr(deadline), code, repr(saved_at),
                1 if over else 0, self.stream_length, self.bell(code),
                tokens.get("white") or "", tokens.get("black") or "",
                "1" if swap_seats else "0", "0" if waiting or owner is None else "1"]
        answer = await self._call(self._act(keys=keys, args=args))
        status = _text(answer[0])
        if status == "missing":
            raise ActionRefused("not_found", f"no room {code!r} (it expired)")
        if status == "stale":
            raise StaleRoomError(f"room {code} is at version {_text(answer[1])}, not {version - 1}")
        return _text(answer[1]), len(text)

    async def seat(
        self, code: str, side: Side, state: str, process: str, instant: float, ttl: int
    ) -> bool:
        """Mark ``side`` ``"on"`` (connected to ``process`` until ``instant``), ``"off"``
        (gone since ``instant``; only while ``process`` holds it) or ``"refresh"`` (the
        mark's expiry moved to ``instant`` while ``process`` holds it). On and off append a
        ``seat`` event and ring the doorbell. False: the room is gone, or the seat is not
        this process's to close.

        Raises:
            RoomStoreUnavailable: Redis did not answer.
        """
        event = json.dumps({"kind": "seat", "side": side, "on": state == "on",
                            "proc": process})  # fmt: skip
        answer = await self._call(self._seat(
            keys=[self.room_key(code), self.seats_key(code), self.events_key(code)],
            args=[side, state, process, repr(instant), ttl, self.stream_length,
                  self.bell(code), event],
        ))  # fmt: skip
        return bool(answer)

    async def refresh_seats(
        self, seats: list[tuple[str, Side]], process: str, instant: float, ttl: int
    ) -> None:
        """:meth:`seat` ``"refresh"`` for many seats, in one round trip."""
        if not seats:
            return
        pipe = self.redis.pipeline(transaction=False)
        for code, side in seats:
            await self._seat(
                keys=[self.room_key(code), self.seats_key(code), self.events_key(code)],
                args=[side, "refresh", process, repr(instant), ttl, self.stream_length,
                      self.bell(code), "{}"],
                client=pipe,
            )
        await self._call(pipe.execute())

    async def misses(
        self, address: str, instant: float, window: float, *, note: bool = False,
        keep: int = 64,
    ) -> tuple[int, float | None]:
        """The lookups of rooms that do not exist that ``address`` made in the ``window``
        seconds before ``instant`` (wall clock), one more counted first with ``note`` (the
        latest ``keep`` kept): ``(how many, the instant of the oldest)``. One script.

        Raises:
            RoomStoreUnavailable: Redis did not answer.
        """
        answer = await self._call(self._misses(
            keys=[self.misses_key(address)],
            args=[repr(instant), repr(window), "1" if note else "0", keep,
                  f"{instant!r}|{secrets.token_hex(6)}"],
        ))  # fmt: skip
        first = _text(answer[1])
        return int(answer[0]), float(first) if first else None

    # ---------------------------------------------------------------- reads

    async def load(self, code: str) -> LoadedRoom | None:
        """The stored room, or None (no such room, or it expired).

        Raises:
            RoomStoreUnavailable: Redis did not answer.
        """
        pipe = self.redis.pipeline(transaction=True)
        pipe.hgetall(self.room_key(code))
        pipe.hgetall(self.seats_key(code))
        pipe.xrevrange(self.events_key(code), count=1)
        pipe.zrange(self.outages_key(), 0, -1)
        fields, seats, last, outages = await self._call(pipe.execute())
        if not fields:
            return None
        data = {_text(k): _text(v) for k, v in fields.items()}
        try:
            record = json.loads(data["record"])
            version = int(data["version"])
            saved_at = float(data.get("saved_at", "0"))
        except (KeyError, ValueError):
            LOG.error("room %s: its stored hash cannot be read", code)
            return None
        return LoadedRoom(
            code,
            version,
            record if isinstance(record, dict) else {},
            data.get("owner") or None,
            saved_at,
            {_text(k): _text(v) for k, v in seats.items()},
            _text(last[0][0]) if last else "0-0",
            _windows(outages),
            len(data["record"]),
        )

    async def version(self, code: str) -> int | None:
        """The room's stored version, or None.

        Raises:
            RoomStoreUnavailable: Redis did not answer.
        """
        value = await self._call(self.redis.hget(self.room_key(code), "version"))
        return None if value is None else int(value)

    async def seats(self, code: str) -> dict[str, str]:
        """The room's presence hash.

        Raises:
            RoomStoreUnavailable: Redis did not answer.
        """
        seats = await self._call(self.redis.hgetall(self.seats_key(code)))
        return {_text(k): _text(v) for k, v in seats.items()}

    async def seats_many(self, codes: list[str]) -> dict[str, dict[str, str]]:
        """:meth:`seats` of each room of ``codes``, in one round trip.

        Raises:
            RoomStoreUnavailable: Redis did not answer.
        """
        if not codes:
            return {}
        pipe = self.redis.pipeline(transaction=False)
        for code in codes:
            pipe.hgetall(self.seats_key(code))
        answers = await self._call(pipe.execute())
        return {code: {_text(k): _text(v) for k, v in seats.items()}
                for code, seats in zip(codes, answers, strict=True)}  # fmt: skip

    async def events(self, code: str, after: str, count: int = 100) -> list[RoomEvent]:
        """The room's stream entries after ``after`` (oldest first, ``count`` at most).

        Raises:
            RoomStoreUnavailable: Redis did not answer.
        """
        entries = await self._call(
            self.redis.xrange(self.events_key(code), min=f"({after}", count=count)
        )
        return [_event(entry) for entry in entries]

    async def news(self, last_ids: Mapping[str, str]) -> list[str]:
        """The codes whose streams hold an entry after the id given (one XREAD).

        Raises:
            RoomStoreUnavailable: Redis did not answer.
        """
        if not last_ids:
            return []
        streams = {self.events_key(code): last for code, last in last_ids.items()}
        answer = await self._call(self.redis.xread(streams, count=1))
        prefix, suffix = f"{self.prefix}room:", ":events"
        codes = []
        for key, _entries in answer or []:
            name = _text(key)
            codes.append(name[len(prefix):-len(suffix)])
        return codes

    async def due(self, instant: float, limit: int = 32) -> list[str]:
        """The rooms whose flag deadline (wall clock) is at or before ``instant``.

        Raises:
            RoomStoreUnavailable: Redis did not answer.
        """
        codes = await self._call(self.redis.zrangebyscore(
            f"{self.prefix}deadlines", "-inf", repr(instant), start=0, num=limit
        ))  # fmt: skip
        return [_text(code) for code in codes]

    async def set_deadline(self, code: str, deadline: float | None) -> None:
        """Move (or drop) a room's flag deadline in the sweep's set.

        Raises:
            RoomStoreUnavailable: Redis did not answer.
        """
        key = f"{self.prefix}deadlines"
        if deadline is None:
            await self._call(self.redis.zrem(key, code))
        else:
            await self._call(self.redis.zadd(key, {code: deadline}, xx=True))

    async def record_outage(
        self, start: float, end: float, process: str, keep: float
    ) -> list[tuple[float, float]]:
        """Add the window ``[start, end]`` (wall clock) during which ``process`` could not
        reach Redis to the set every process reads (score: its end), drop the windows that
        ended more than ``keep`` seconds before ``end`` (no stored room is older), and return
        every window kept (the latest :data:`MAX_OUTAGES`), ``(start, end)`` pairs sorted by
        start.

        Raises:
            RoomStoreUnavailable: Redis did not answer.
        """
        key = self.outages_key()
        pipe = self.redis.pipeline(transaction=True)
        pipe.zadd(key, {f"{start!r}|{end!r}|{process}": end})
        pipe.zremrangebyscore(key, "-inf", repr(end - keep))
        pipe.zremrangebyrank(key, 0, -MAX_OUTAGES - 1)
        pipe.zrange(key, 0, -1)
        *_done, members = await self._call(pipe.execute())
        return _windows(members)

    async def outages(self) -> list[tuple[float, float]]:
        """The windows kept by :meth:`record_outage`, sorted by start.

        Raises:
            RoomStoreUnavailable: Redis did not answer.
        """
        return _windows(await self._call(self.redis.zrange(self.outages_key(), 0, -1)))

    async def probe(self) -> None:
        """One PING.

        Raises:
            RoomStoreUnavailable: Redis did not answer.
        """
        await self._call(self.redis.ping())

    async def ping(self) -> bool:
        """True when Redis answers."""
        try:
            return bool(await self._call(self.redis.ping()))
        except RoomStoreUnavailable:
            return False

    async def close(self) -> None:
        """Close the client's connections."""
        with contextlib.suppress(RedisError, OSError):
            await self.redis.aclose()

    @staticmethod
    async def _call(awaitable: Any) -> Any:
        try:
            return await awaitable
        except (TimeoutError, RedisConnectionError, RedisTimeoutError, OSError) as error:
            if isinstance(error, RedisConnectionError) \
                    and isinstance(error.__cause__, asyncio.TimeoutError):  # fmt: skip
                raise RoomStoreBusy(f"no free connection to Redis: {error}") from error
            raise RoomStoreUnavailable(f"Redis did not answer: {error}") from error
        except RedisError as error:
            if "LOADING" in str(error) or "MASTERDOWN" in str(error):
                raise RoomStoreUnavailable(f"Redis is not ready: {error}") from error
            raise


def _windows(members: Any) -> list[tuple[float, float]]:
    """``start|end|process`` members as ``(start, end)`` pairs, sorted, each once (several
    processes record the same outage; bad members left out)."""
    windows: set[tuple[float, float]] = set()
    for member in members or []:
        parts = _text(member).split("|")
        try:
            start, end = float(parts[0]), float(parts[1])
        except (IndexError, ValueError):
            continue
        if end > start:
            windows.add((start, end))
    return sorted(windows)


def _event(entry: Any) -> RoomEvent:
    ident, fields = entry
    data = {_text(k): _text(v) for k, v in fields.items()}
    try:
        event = json.loads(data.get("e", "{}"))
        version = int(data.get("v", "0"))
    except ValueError:
        event, version = {}, 0
    return RoomEvent(_text(ident), version, event if isinstance(event, dict) else {})


# -------------------------------------------------------------------- the service


@dataclass(eq=False, slots=True)
class _Held:
    """A process's copy of a room: the room, its stored version, the last stream entry read,
    the last version pushed to the seats here, the seats' marks, the seats connected here and
    what the copy goes back to when a step is not stored: ``record`` (a record of version
    ``record_version``, snapshot at the wall-clock instant ``record_at``) and ``tail`` (the
    stream's events applied to the copy since). ``saved_at``: the wall-clock instant the
    stored version was made (its clock has run since then at the latest)."""

    room: Room
    owner: str | None
    stored: int
    last_id: str
    pushed: int
    seats: dict[str, str] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)
    local: dict[Side, int] = field(default_factory=lambda: {side: 0 for side in SIDES})
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    used: float = 0.0
    saved_at: float = 0.0
    record_at: float = 0.0
    record_version: int = 0
    tail: list[dict[str, Any]] = field(default_factory=list)
    #: Bytes of the last record this copy stored or read (the stored one may be larger
    #: since: its events applied here; the next store measures it).
    size: int = 0

    def held_here(self) -> bool:
        """Whether a seat of this room is connected to this process (its copy is kept
        current, and its doorbell heard, only while one is)."""
        return any(self.local.values())


class SharedRoomService(RoomService):
    """Online rooms shared by several server processes through Redis (see the module).

    Args:
        games: the games played here, by name.
        store: the Redis store.
        now: the monotonic clock (injected in tests).
        wall: the wall clock shared by the processes (seconds since the epoch; injected in
            tests: the same fake for every process).
        process: this process's name in the seats' marks (default: a random one).
        create_rate, max_waiting: an address's rate of making rooms and its rooms nobody has
            joined (:class:`~gametable.rooms.RoomService`'s), counted in Redis for every
            process (the create script), as are the lookups of rooms that do not exist
            (:meth:`miss_counter`); a room nobody has joined counts ``waiting_expiry``
            seconds from when it was made at most.
        max_room_messages, max_room_bytes: what one room takes (``room_full`` past them:
            :func:`~gametable.rooms.check_room_space`; its record is what is stored, the
            games before its rematch included). What one address's rooms store is bounded
            by ``max_per_owner`` rooms (the rooms counted in Redis, finished ones too, until
            they expire) times ``max_room_bytes`` (and the one message that passes it, then a
            leave, a claim or a flag), with each room's stream of at most ``STREAM_LENGTH``
            entries: no byte budget of its own is needed (the in-process service's
            ``max_owner_bytes``, whose count of open rooms leaves finished games out).
        poll_interval, sweep_interval, presence_refresh: the background loops' periods.

        apply_events: take the other processes' actions into a copy by applying their
            stream events (False: by rebuilding it from the stored record each time, the
            slower way kept for comparison).

    ``applied`` and ``rebuilt`` count the other processes' actions this process took into
    its copies by applying the stream's event and by rebuilding from the stored record.

    The door's calls (:meth:`open_room`, :meth:`message`, ...) raise
    :class:`~gametable.errors.ActionRefused` with the in-process service's codes, and
    ``unavailable`` while Redis does not answer (nothing changed) or ``conflict`` when
    another process kept winning the same room.
    """

    def __init__(
        self,
        games: Mapping[str, GameRules],
        store: RedisRoomStore,
        *,
        now: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        time_controls: Mapping[str, TimeControl | None] = TIME_CONTROLS,
        max_rooms: int = DEFAULT_MAX_ROOMS,
        max_per_owner: int = DEFAULT_MAX_PER_OWNER,
        claim_after: float = CLAIM_AFTER,
        think_after: float = THINK_AFTER,
        idle_expiry: float = IDLE_EXPIRY,
        over_expiry: float = OVER_EXPIRY,
        create_rate: int = DEFAULT_CREATE_RATE,
        max_waiting: int = DEFAULT_MAX_WAITING,
        process: str | None = None,
        poll_interval: float = POLL_INTERVAL,
        sweep_interval: float = SWEEP_INTERVAL,
        presence_refresh: float = PRESENCE_REFRESH,
        apply_events: bool = True,
        waiting_expiry: float = WAITING_EXPIRY,
        max_room_messages: int = DEFAULT_MAX_ROOM_MESSAGES,
        max_room_bytes: int = DEFAULT_MAX_ROOM_BYTES,
    ) -> None:
        self._mono = now
        self._shift = 0.0
        super().__init__(
            games, None, now=self._shifted, time_controls=time_controls, max_rooms=max_rooms,
            max_per_owner=max_per_owner, claim_after=claim_after, think_after=think_after,
            idle_expiry=idle_expiry,
            over_expiry=over_expiry, create_rate=create_rate, max_waiting=max_waiting,
            waiting_expiry=waiting_expiry, max_room_messages=max_room_messages,
            max_room_bytes=max_room_bytes,
        )
        self.redis_store = store
        self._wall = wall
        self.process = process or secrets.token_hex(6)
        self.poll_interval = poll_interval
        self.sweep_interval = sweep_interval
        self.presence_refresh = presence_refresh
        self._held: dict[str, _Held] = {}
        self._outages: list[tuple[float, float]] = []
        self._down_since: float | None = None
        self._unpublished: list[tuple[float, float]] = []
        self.applied = 0
        self.rebuilt = 0
        self.apply_events = apply_events
        self._deliver: Callable[[str, list[Outgoing]], None] = lambda code, out: None
        self._replaced: Callable[[str, Side], None] = lambda code, side: None
        self._tasks: list[asyncio.Task[None]] = []
        self._kicks: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self.available = True

    def __len__(self) -> int:
        return len(self._held)

    # ---------------------------------------------------------------- the copies

    def _shifted(self) -> float:
        """The monotonic clock, ``_shift`` seconds back (the rooms' clock: the shift is set
        only while a room is rebuilt or an event applied at the writer's instant)."""
        return self._mono() - self._shift

    def _since(self, instant: float) -> float:
        """Seconds to charge from the wall-clock ``instant`` to now: the time elapsed less
        the outages known in between."""
        wall = self._wall()
        return max(0.0, wall - instant - self._overlap(instant, wall))

    def _overlap(self, start: float, end: float) -> float:
        """Seconds of ``[start, end]`` (wall clock) that fall in a known outage (their
        union: windows that several processes recorded count once)."""
        total, cursor = 0.0, start
        for low, high in self._outages:
            low, high = max(low, cursor), min(high, end)
            if high > low:
                total += high - low
                cursor = high
        return total

    def _learn_outages(self, windows: list[tuple[float, float]]) -> None:
        """Merge windows read from Redis into the known ones (those older than any stored
        room forgotten)."""
        oldest = self._wall() - self._outage_keep()
        self._outages = sorted({w for w in [*self._outages, *windows] if w[1] >= oldest})

    def _outage_keep(self) -> float:
        return max(self.idle_expiry, self.over_expiry) + 60.0

    def _rebuild(self, record: Mapping[str, Any], saved_at: float) -> Room:
        """The room of ``record``, its running clock (or round's waits) charged from
        ``saved_at`` (the writer's wall clock) rather than from now, less the outages known
        since."""
        self._shift = self._since(saved_at) if saved_at else 0.0
        try:
            return Room.from_record(record, self.games, self._now, self.claim_after,
                                    self.think_after)
        finally:
            self._shift = 0.0

    def _apply(self, room: Room, event: Mapping[str, Any]) -> bool:
        """Apply a stream event (an ``action`` or a ``tick``) to ``room`` at the writer's
        instant (its ``at``, wall clock, less the outages since). True when it was accepted
        and left the room at the writer's room version (``rv``); False otherwise (the copy
        may then be half-changed: rebuild it)."""
        kind, at, expected = event.get("kind"), event.get("at"), event.get("rv")
        if kind not in ("action", "tick") or not isinstance(at, (int, float)) \
                or not isinstance(expected, int):  # fmt: skip
            return False
        side, message = event.get("side"), event.get("message")
        if kind == "action" and (side not in SIDES or not isinstance(message, dict)):
            return False
        message = message if isinstance(message, dict) else {}
        self._shift = self._since(float(at))
        try:
            with room.unseen():
                if kind == "tick":
                    out = room.tick()
                else:
                    out = room.handle("white" if side == "white" else "black", message)
        except Exception as error:  # any deviation means: rebuild
            LOG.debug("room %s: event not applied (%r): rebuilt", room.code, error)
            return False
        finally:
            self._shift = 0.0
        return bool(out) and room.version == expected

    def _apply_events(self, held: _Held, events: list[RoomEvent]) -> bool:
        """Take the other processes' new versions into the copy by applying their events,
        when the stream holds exactly the next versions, each an action or a tick. False:
        rebuild the copy from the stored record."""
        steps = [e for e in events if e.version > held.stored and e.event.get("kind") != "seat"]
        if not self.apply_events or not steps or [e.version for e in steps] != list(
            range(held.stored + 1, held.stored + 1 + len(steps))
        ):
            return False
        for e in steps:
            if not self._apply(held.room, e.event):
                return False
            held.stored = e.version
            held.saved_at = float(e.event["at"])
            size = e.event.get("size")
            if isinstance(size, int):
                held.size = size
            held.tail.append(e.event)
            self.applied += 1
        return True

    def _presence(self, held: _Held) -> None:
        """Merge the stored seats' marks with the seats connected here into the room (a
        gone side's wait for a claim counted from its mark, less the known outages since)."""
        wall, mono = self._wall(), self._now()
        connections: dict[Side, int] = {}
        gone: dict[Side, float] = {}
        for side in SIDES:
            count = held.local[side]
            mark = held.seats.get(side, "")
            parts = mark.split("|")
            since: float | None = None
            try:
                if parts[0] == "on" and len(parts) == 3:
                    expiry = float(parts[2])
                    if parts[1] != self.process and expiry > wall:
                        count += 1
                    elif parts[1] != self.process:
                        since = expiry - PRESENCE_TTL
                elif parts[0] == "off" and len(parts) == 2:
                    since = float(parts[1])
            except ValueError:
                since = None
            connections[side] = count
            if count == 0 and since is not None:  # (an outage since is not counted)
                gone[side] = mono - self._since(since)
        held.room.set_presence(connections, gone)

    async def _load(self, code: str) -> _Held:
        """The stored room, as a fresh copy (not yet held by any seat here).

        Raises:
            ActionRefused: ``not_found``, ``invalid_record``, ``unavailable``.
        """
        loaded = await self._store(self.redis_store.load(code))
        if loaded is None:
            raise ActionRefused("not_found", f"no room {code!r}")
        self._learn_outages(loaded.outages)
        room = self._rebuild(loaded.record, loaded.saved_at)
        held = _Held(room, loaded.owner, loaded.version, loaded.last_id, loaded.version,
                     dict(loaded.seats), loaded.record, used=self._now(),
                     saved_at=loaded.saved_at, record_at=loaded.saved_at,
                     record_version=loaded.version, size=loaded.size)  # fmt: skip
        self._presence(held)
        return held

    async def _fresh(self, code: object, *, sync: bool = True) -> _Held:
        """The up-to-date copy of room ``code``: a held room caught up from its stream (with
        ``sync``; else as the doorbells left it: a stale copy is caught by the script's version
        check), any other reloaded when its stored version moved.

        Raises:
            ActionRefused: ``not_found``, ``unavailable``.
        """
        key = code.upper() if isinstance(code, str) else ""
        if not key or len(key) > 16 or not key.isalnum():
            raise ActionRefused("not_found", f"no room {code!r}")
        held = self._held.get(key)
        if held is None:
            held = await self._load(key)
            current = self._held.get(key)
            if current is not None:  # loaded meanwhile by another task
                held = current
            else:
                self._held[key] = held
        elif held.held_here():
            if sync:
                await self._catch_up(key, held)
        else:
            version = await self._store(self.redis_store.version(key))
            if version is None:
                self._held.pop(key, None)
                raise ActionRefused("not_found", f"no room {code!r}")
            if version != held.stored:
                fresh = await self._load(key)
                held.room, held.stored, held.pushed = fresh.room, fresh.stored, fresh.stored
                held.last_id, held.seats, held.owner = fresh.last_id, fresh.seats, fresh.owner
                held.record, held.record_at, held.tail = fresh.record, fresh.record_at, []
                held.record_version, held.saved_at = fresh.record_version, fresh.saved_at
                held.size = fresh.size
        held.used = self._now()
        return held

    async def _store(self, awaitable: Any) -> Any:
        """Await a store call; Redis out of reach becomes ``unavailable``. The first call
        that fails opens an outage (from the instant it was made); the first that answers
        after it closes the outage (:meth:`_recovered`)."""
        began = self._wall()
        try:
            result = await awaitable
        except RoomStoreUnavailable as error:
            if self.available:
                LOG.warning("online rooms: Redis is out of reach (%s)", error)
            self.available = False
            if self._down_since is None and not isinstance(error, RoomStoreBusy):
                self._down_since = began
            raise ActionRefused(
                "unavailable",
                "the game server cannot reach its room store just now: nothing was done; "
                "try again in a moment",
            ) from error
        if not self.available:
            LOG.warning("online rooms: Redis answers again")
            self.available = True
        if self._down_since is not None:
            await self._recovered(self._down_since, self._wall())
        return result

    async def _recovered(self, start: float, end: float) -> None:
        """Redis answers again after failing from ``start`` to ``end`` (wall clock): give
        the outage back to every copy's running clock and round's waits (the part after the
        copy's stored version was made), then record it in Redis, where every process reads
        it before rebuilding a room from a record saved before it."""
        self._down_since = None
        if end <= start:
            return
        for held in self._held.values():
            held.room.give_back(end - max(start, held.saved_at))
        self._unpublished.append((start, end))
        self._learn_outages([(start, end)])
        await self._publish_outages()

    async def _publish_outages(self) -> None:
        """Record the outages this process saw in Redis (kept for later when it fails)."""
        for window in list(self._unpublished):
            try:
                windows = await self._store(self.redis_store.record_outage(
                    window[0], window[1], self.process, self._outage_keep()
                ))  # fmt: skip
            except ActionRefused:
                return
            if window in self._unpublished:  # (a nested recovery may have recorded it)
                self._unpublished.remove(window)
            self._learn_outages(windows)

    async def _commit(self, code: str, held: _Held, event: Mapping[str, Any]) -> None:
        """Store the copy's room as the next version (the script's one step).

        Raises:
            StaleRoomError: another process stored that version first.
            ActionRefused: ``unavailable``, ``not_found``, ``room_full`` (the record would
                pass the store's bound on a record).
        """
        room = held.room
        record = room.to_record()
        over = room.table.game.outcome() is not None
        record["over"] = over
        ttl = int(self.over_expiry if over else self.idle_expiry)
        saved_at = self._wall()
        extra = event.get("extra")
        _id, size = await self._store(self.redis_store.save(
            code, held.owner, held.stored + 1, record, event, ttl=max(1, ttl),
            deadline=self._flag_deadline(room), saved_at=saved_at, over=over,
            swap_seats=isinstance(extra, dict) and bool(extra.get("rematch")),
            waiting=room.free_seat() is not None and not room.closed,
        ))  # fmt: skip
        held.stored += 1
        held.size = size
        held.pushed = max(held.pushed, held.stored)
        held.record, held.record_at, held.record_version = record, saved_at, held.stored
        held.saved_at, held.tail = saved_at, []

    def _flag_deadline(self, room: Room) -> float | None:
        """The wall-clock instant a flag falls or a claim opens (timed games only: a claim
        before the clock starts), or None."""
        if room.table.clock is None:
            return None
        deadline = room.next_deadline()
        if deadline is None:
            return None
        return self._wall() + (deadline - self._now())

    async def _act(
        self,
        code: str,
        step: Callable[[_Held], list[Outgoing]],
        event: Callable[[list[Outgoing]], dict[str, Any]],
        *,
        sync: bool = True,
    ) -> tuple[_Held, list[Outgoing]]:
        """Apply ``step`` to the copy and store it; a step that changes nothing (no views)
        is not stored. On a stale version: catch up and apply it once more. All or nothing.

        Raises:
            ActionRefused: the step's refusal, ``unavailable``, ``conflict``.
        """
        held = await self._fresh(code, sync=sync)
        if not self.available:  # Redis answers again before a step charges the clocks
            await self._store(self.redis_store.probe())
        key = held.room.code
        for attempt in range(2):
            async with held.lock:
                before = (held.record, held.record_at, held.record_version, list(held.tail))
                at = self._wall()
                with held.room.unseen():
                    changed = step(held)
                if not changed:
                    return held, changed
                try:
                    stored_event = {**event(changed), "at": at, "rv": held.room.version}
                    await self._commit(key, held, stored_event)
                    return held, self._views(held, changed[0].payload) or changed
                except StaleRoomError:
                    self._restore(held, *before)
                except ActionRefused:
                    self._restore(held, *before)
                    raise
            await self._catch_up(key, held, force=True)
            if attempt == 1:
                raise ActionRefused(
                    "conflict",
                    "the room changed on another server at the same moment: look again and "
                    "retry",
                )
        raise AssertionError("unreachable")  # pragma: no cover

    def _views(self, held: _Held, payload: Mapping[str, Any], *,
               marks_read: bool = False) -> list[Outgoing]:
        """The views of a step that changed the room (``payload``: its ``changed`` message,
        :meth:`Room.unseen`) for the seats connected here; after a rematch the seats here
        play the other sides (as the door swaps them), and so do the copy's presence marks
        (as the rematch's script swapped them in Redis; ``marks_read``: the copy's marks
        were read from Redis since, swapped already)."""
        extra = {k: v for k, v in payload.items() if k != "type"}
        if extra.get("rematch"):
            held.local = {side: held.local[other(side)] for side in SIDES}
            if not marks_read:
                held.seats = {side: held.seats[other(side)] for side in SIDES
                              if other(side) in held.seats}  # fmt: skip
            self._presence(held)
        here = [side for side in SIDES if held.local[side] > 0]
        return held.room.views(extra or None, here)

    def _restore(
        self, held: _Held, record: dict[str, Any], record_at: float, record_version: int,
        tail: list[dict[str, Any]],
    ) -> None:
        """Put the copy back to what it held before a step that was not stored: ``record``
        (snapshot at ``record_at``, wall clock) and the events of ``tail`` applied since,
        its presence kept. Should an event not apply again, the copy stays at ``record``
        and its stream is read again from the start (the next catch-up brings it up)."""
        old = held.room
        held.room = self._rebuild(record, record_at)
        held.room.adopt_presence(old)
        held.record, held.record_at, held.record_version = record, record_at, record_version
        held.tail = []
        for event in tail:
            if not self._apply(held.room, event):
                LOG.error("room %s: an applied event did not apply again", held.room.code)
                held.room = self._rebuild(record, record_at)
                held.room.adopt_presence(old)
                held.stored, held.last_id = record_version, "0-0"
                return
            held.tail.append(event)

    # ---------------------------------------------------------------- fan-out

    async def _catch_up(self, code: str, held: _Held, *, force: bool = False) -> None:
        """Read the room's stream past the last entry seen; rebuild the copy when a newer
        version was stored (with ``force`` also when the stream says nothing: its entries
        may have been trimmed); push each seat here its view for each new action, in order;
        close a seat here that was opened on another process.

        Raises:
            ActionRefused: ``unavailable``.
        """
        async with held.lock:
            while True:
                events = await self._store(
                    self.redis_store.events(code, held.last_id, EVENTS_BATCH)
                )
                if not events and not force:
                    return
                if events:
                    held.last_id = events[-1].id
                top = max((e.version for e in events), default=held.stored + 1)
                force = False
                seated = [e for e in events if e.event.get("kind") == "seat"
                          and e.event.get("proc") != self.process]  # fmt: skip
                marks_read = False
                if top > held.stored and not self._apply_events(held, events):
                    loaded = await self._store(self.redis_store.load(code))
                    if loaded is None:
                        self._held.pop(code, None)
                        return
                    self._learn_outages(loaded.outages)
                    old = held.room
                    held.room = self._rebuild(loaded.record, loaded.saved_at)
                    held.room.adopt_presence(old)
                    held.stored, held.seats = loaded.version, dict(loaded.seats)
                    held.record, held.record_at = loaded.record, loaded.saved_at
                    held.record_version, held.saved_at = loaded.version, loaded.saved_at
                    held.tail, held.size = [], loaded.size
                    self.rebuilt += 1
                    marks_read = True
                elif seated:
                    held.seats = await self._store(self.redis_store.seats(code))
                    marks_read = True
                for e in seated:
                    side = e.event.get("side")
                    if (e.event.get("on") and e.event.get("proc") != self.process
                            and side in SIDES and held.local[side] > 0):  # fmt: skip
                        held.local[side] = 0
                        self._replaced(code, side)
                self._presence(held)
                fresh = [e for e in events if e.version > held.pushed and e.event.get("kind")
                         != "seat"]  # fmt: skip
                out: list[Outgoing] = []
                for e in fresh:
                    extra = e.event.get("extra")
                    if (isinstance(extra, dict) and extra) or e is fresh[-1]:
                        out.extend(self._views(held, extra if isinstance(extra, dict) else {},
                                               marks_read=marks_read))
                here = [side for side in SIDES if held.local[side] > 0]
                if not fresh and seated:
                    out.extend(held.room.views(None, here))
                held.pushed = max(held.pushed, held.stored)
                if out:
                    self._deliver(code, out)
                if len(events) < EVENTS_BATCH:  # the stream's end (a later entry rings again)
                    return

    def _kick(self, code: str) -> None:
        """Catch room ``code`` up soon (a doorbell rang): one task per room at a time."""
        if code in self._kicks:
            self._again.add(code)
            return
        self._kicks[code] = asyncio.get_running_loop().create_task(self._kicked(code))

    async def _kicked(self, code: str) -> None:
        try:
            while True:
                self._again.discard(code)
                held = self._held.get(code)
                if held is not None and held.held_here():
                    with contextlib.suppress(ActionRefused):
                        await self._catch_up(code, held)
                if code not in self._again:
                    return
        finally:
            self._kicks.pop(code, None)

    def _rang(self, code: str, data: str) -> None:
        """Room ``code``'s doorbell rang with ``data`` (the version stored, or ``seat``):
        catch up, unless this process stored that version itself (its own step: the stream
        is read at the next ring or poll)."""
        held = self._held.get(code)
        if held is not None and data.isdigit() and int(data) <= held.stored:
            return
        self._kick(code)

    async def _bells(self) -> None:
        """Subscribe to the doorbells of the rooms held here; ring → catch up."""
        pubsub: Any = None
        subscribed: set[str] = set()
        while True:
            try:
                if pubsub is None:
                    pubsub = self.redis_store.redis.pubsub(ignore_subscribe_messages=True)
                    subscribed = set()
                wanted = {self.redis_store.bell(code) for code, held in self._held.items()
                          if held.held_here()}  # fmt: skip
                if wanted - subscribed:
                    await pubsub.subscribe(*(wanted - subscribed))
                    for channel in wanted - subscribed:  # what rang before: read it now
                        self._kick(channel.rsplit(":", 1)[1])
                if subscribed - wanted:
                    await pubsub.unsubscribe(*(subscribed - wanted))
                subscribed = wanted
                if not subscribed:
                    await asyncio.sleep(0.05)
                    continue
                message = await pubsub.get_message(timeout=0.05)
                while message is not None:
                    if message.get("type") == "message":
                        self._rang(_text(message["channel"]).rsplit(":", 1)[1],
                                   _text(message.get("data", "")))  # fmt: skip
                    message = await pubsub.get_message(timeout=0.0)
            except asyncio.CancelledError:
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
                raise
            except (RedisError, OSError) as error:
                LOG.debug("doorbells: %s", error)
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
                pubsub = None
                await asyncio.sleep(0.25)

    async def _poll(self) -> None:
        """Every ``poll_interval``: one XREAD over the held rooms' streams, so that a lost
        doorbell costs latency, never an event."""
        while True:
            await asyncio.sleep(self.poll_interval)
            last = {code: held.last_id for code, held in self._held.items()
                    if held.held_here()}  # fmt: skip
            try:
                codes = await self._store(self.redis_store.news(last))
            except ActionRefused:
                continue
            for code in codes:
                self._kick(code)

    async def _sweep(self) -> None:
        """Every ``sweep_interval``: flags due in any room (held here or not) fall, each by
        one process (the version check)."""
        while True:
            await asyncio.sleep(self.sweep_interval)
            try:
                codes = await self._store(self.redis_store.due(self._wall() - 0.05))
            except ActionRefused:
                continue
            for code in codes:
                with contextlib.suppress(ActionRefused):
                    for room_code, out in await self.due(code):
                        self._deliver(room_code, out)

    async def _heartbeat(self) -> None:
        """Every ``presence_refresh``: record the outages not recorded yet; refresh this
        process's seat marks; forget copies no seat here has used for a minute."""
        while True:
            await asyncio.sleep(self.presence_refresh)
            if self._unpublished:
                await self._publish_outages()
            seats = [(code, side) for code, held in self._held.items() for side in SIDES
                     if held.local[side] > 0]  # fmt: skip
            with contextlib.suppress(ActionRefused):
                await self._store(self.redis_store.refresh_seats(
                    seats, self.process, self._wall() + PRESENCE_TTL, int(self.idle_expiry)
                ))  # fmt: skip
            now = self._now()
            for code, held in list(self._held.items()):
                if not held.held_here() and now - held.used > 60.0:
                    del self._held[code]
            here = [code for code, held in self._held.items() if held.held_here()]
            try:  # a killed process's seats: counted gone (one round trip for all)
                marks = await self._store(self.redis_store.seats_many(here))
            except ActionRefused:
                continue
            for code, seats in marks.items():
                copy = self._held.get(code)
                if copy is None or not copy.held_here():
                    continue
                copy.seats = seats
                connected = dict(copy.room.connections)
                self._presence(copy)
                if connected != copy.room.connections:
                    self._deliver(code, copy.room.views())

    # ---------------------------------------------------------------- the door's calls

    def bind(self, deliver: Callable[[str, list[Outgoing]], None],
             replaced: Callable[[str, Side], None]) -> None:
        """The door's hooks (see :meth:`RoomService.bind`)."""
        self._deliver, self._replaced = deliver, replaced

    async def start(self) -> None:
        """Start the doorbells' reader, the stream poll, the flag sweep and the seats'
        heartbeat (Redis may be down: they wait for it)."""
        loop = asyncio.get_running_loop()
        for loop_body in (self._bells, self._poll, self._sweep, self._heartbeat):
            self._tasks.append(loop.create_task(loop_body()))
        if not await self.redis_store.ping():
            LOG.warning("online rooms: Redis at %s does not answer yet", self.redis_store.url)

    async def stop(self) -> None:
        """Stop the background tasks and close the client."""
        tasks = self._tasks + list(self._kicks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        await self.redis_store.close()

    def room(self, code: str) -> Room:
        """This process's copy of room ``code`` (as of the last action or doorbell).

        Raises:
            ActionRefused: ``not_found`` (not held here).
        """
        held = self._held.get(code.upper() if isinstance(code, str) else "")
        if held is None:
            raise ActionRefused("not_found", f"no room {code!r} here")
        return held.room

    def miss_counter(self, limit: int, window: float) -> MissCounter:
        """The lookups of rooms that do not exist, counted in Redis for every process
        sharing the rooms (``limit`` in ``window`` seconds an address)."""
        return SharedMisses(self, limit, window)

    async def open_room(
        self, game: str, settings: Mapping[str, Any], time_control: str, *, name: object,
        side: str, owner: str | None,
    ) -> tuple[str, str, Side, dict[str, Any]]:
        """Make a room in Redis (the server-wide and per-address counts, the address's rate
        of creation and its rooms nobody has joined checked there, one count for every
        process)."""
        table, host, names = self._new_table(game, settings, time_control, name, side)
        for _ in range(3):
            code = new_code()
            token, room = self._seated_room(code, table, host, names, time_control)
            record = room.to_record()
            record["over"] = False
            saved_at = self._wall()
            try:
                last_id = await self._store(self.redis_store.create(
                    code, table.rules.name, owner, record, ttl=int(self.idle_expiry),
                    max_rooms=self.max_rooms, max_per_owner=self.max_per_owner,
                    saved_at=saved_at, create_rate=self.create_rate,
                    create_window=CREATE_WINDOW, max_waiting=self.max_waiting,
                    waiting_expiry=self.waiting_expiry,
                ))  # fmt: skip
            except StaleRoomError:
                continue
            self._held[code] = _Held(room, owner, 1, last_id, 1, record=record,
                                     used=self._now(), saved_at=saved_at, record_at=saved_at,
                                     record_version=1)  # fmt: skip
            return code, token, host, room.view(host)
        raise ActionRefused("conflict", "no free room code: try again")

    async def room_details(self, code: str) -> dict[str, Any]:
        """What a guest may see (read from Redis)."""
        return room_info((await self._fresh(code)).room)

    async def join_room(
        self, code: str, name: object
    ) -> tuple[str, str, Side, list[Outgoing], dict[str, Any]]:
        """A guest takes the free seat (stored by the script).

        Raises:
            ActionRefused: ``not_found``, ``room_closed``, ``seats_taken`` (both seats are
                taken), ``room_full`` (the record would pass the store's bound),
                ``invalid_name``, ``unavailable``, ``conflict``; the seat is still free.
        """
        checked = check_name(name)
        token = secrets.token_urlsafe(24)
        taken: list[Side] = []

        def step(held: _Held) -> list[Outgoing]:
            side, out = held.room.join(token, checked)
            taken[:] = [side]
            return out

        held, out = await self._act(code, step, lambda out: {"kind": "join", "extra": {}})
        side = taken[0]
        return held.room.code, token, side, out, held.room.view(side)

    async def open_seat(self, code: str, token: str) -> Side:
        """The side ``token`` opens (the seats' hashes read from Redis)."""
        held = await self._fresh(code)
        return held.room.seat_for(token)

    async def seat_connected(self, code: str, side: Side) -> list[Outgoing]:
        """A connection here opened ``side``: marked in Redis (a connection of the seat on
        another process is closed there), the room held here."""
        held = await self._fresh(code)
        await self._store(self.redis_store.seat(
            held.room.code, side, "on", self.process, self._wall() + PRESENCE_TTL,
            int(self.idle_expiry),
        ))  # fmt: skip
        held.local[side] += 1
        held.seats[side] = f"on|{self.process}|{self._wall() + PRESENCE_TTL!r}"
        self._presence(held)
        return held.room.views()

    async def seat_disconnected(self, code: str, side: Side) -> list[Outgoing]:
        """A connection here of ``side`` closed."""
        held = self._held.get(code)
        if held is None or held.local[side] == 0:
            return []
        held.local[side] -= 1
        if held.local[side] > 0:
            return []
        gone = self._wall()
        with contextlib.suppress(ActionRefused):
            await self._store(self.redis_store.seat(
                code, side, "off", self.process, gone, int(self.idle_expiry)
            ))  # fmt: skip
        held.seats[side] = f"off|{gone!r}"
        self._presence(held)
        return held.room.views()

    async def before_message(self, code: str) -> list[Outgoing]:
        """A flag that fell ends the game first (stored as a ``tick``)."""
        _held, out = await self._act(
            code, lambda held: held.room.tick(), lambda out: {"kind": "tick", "extra": {}},
            sync=False,
        )
        return out

    async def message(self, code: str, side: Side, message: Mapping[str, Any]) -> list[Outgoing]:
        """One checked message from ``side``, stored (one script) before its views are
        returned."""
        if message["type"] == "state":
            held = await self._fresh(code)
            return [Outgoing(side, {"type": "view", "view": held.room.view(side)})]

        def event(out: list[Outgoing]) -> dict[str, Any]:
            extra = {} if not out else {k: v for k, v in out[0].payload.items()
                                         if k not in ("type", "view", "ref")}  # fmt: skip
            return {"kind": "action", "side": side, "message": dict(message), "extra": extra}

        def step(held: _Held) -> list[Outgoing]:
            check_room_space(held.room, message["type"], held.size,
                             max_messages=self.max_room_messages, max_bytes=self.max_room_bytes)
            out = held.room.handle(side, message)
            if held.room.version >= self.max_room_messages:  # full from this message on
                held.room.full = True
            return out

        _held, out = await self._act(code, step, event, sync=False)
        return out

    async def due(self, code: str) -> list[tuple[str, list[Outgoing]]]:
        """Room ``code``'s deadline came: a flag falls (stored as a ``tick``; exactly one
        process stores it), or a claim opens (the views say so, once: :meth:`Room.open_claims`)."""
        held, out = await self._act(
            code, lambda held: held.room.tick(), lambda out: {"kind": "tick", "extra": {}}
        )
        if out:
            return [(held.room.code, out)]
        room = held.room
        opened = room.open_claims()  # announced once: no deadline for it after this
        if room.table.clock is not None:  # the next flag or claim: the sweep looks again then
            with contextlib.suppress(ActionRefused):
                await self._store(
                    self.redis_store.set_deadline(room.code, self._flag_deadline(room))
                )
        return [(room.code, room.views())] if opened and held.held_here() else []

    def deadline(self, code: str) -> float | None:
        """The next deadline of this process's copy, or None."""
        held = self._held.get(code)
        return None if held is None else held.room.next_deadline()


class SharedMisses:
    """The door's count of lookups of rooms that do not exist (a
    :class:`~gametable.rooms.MissCounter`), one per client address for every process: a
    sorted set in Redis per address, read and added to by one script (the misses of the
    ``window`` seconds before the service's wall clock).

    Redis out of reach: a check is refused ``unavailable`` (the lookup would be too); a miss
    not counted then is lost."""

    def __init__(self, service: SharedRoomService, limit: int, window: float) -> None:
        self.service = service
        self.limit = limit
        self.window = window

    async def check(self, address: str | None) -> None:
        """Refuse ``address`` while it has used up its misses.

        Raises:
            ActionRefused: ``rate_limited``; ``unavailable``.
        """
        if address is None:
            return
        now = self.service._wall()
        count, first = await self.service._store(
            self.service.redis_store.misses(address, now, self.window, keep=self.limit)
        )
        if count >= self.limit and first is not None:
            raise misses_refused(count, self.window - (now - first))

    async def note(self, address: str | None) -> None:
        """Count a miss of ``address`` (nothing when Redis is out of reach)."""
        if address is None:
            return
        with contextlib.suppress(ActionRefused):
            await self.service._store(self.service.redis_store.misses(
                address, self.service._wall(), self.window, note=True, keep=self.limit
            ))  # fmt: skip


__all__ = [
    "LoadedRoom",
    "RedisRoomStore",
    "RoomEvent",
    "RoomStoreBusy",
    "RoomStoreUnavailable",
    "SharedMisses",
    "SharedRoomService",
]
