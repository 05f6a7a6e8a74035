"""The online rooms a server keeps, for every game: made, joined, acted in, saved, restored.

:class:`RoomService` is what the online door (:mod:`gametable.online`) calls. The host makes
a room (game, settings, time control, a side or a random one) and receives its code and a
seat token; a guest joins with the code and receives the other seat's token (only tokens'
SHA-256 hashes are kept). Every accepted message is saved before it is relayed
(:class:`~gametable.room_store.RoomStore`), so a restart rebuilds every room (:meth:`restore`)
and downtime is charged to no one (clocks come back paused at the instant of the last save
and run again from the restore).

What is saved is a snapshot (the room's whole record, :meth:`Room.to_record`) when the room
is made, at a join, a claim, a flag that falls, a new table (a rematch) and every
``snapshot_every`` messages (once no dice round is open), and between snapshots one small
step a message: the message, its side and the instant it was taken on the room's timeline
(the service's clock less the downtime of the restarts since the room was made). A restore,
and a failed save's rollback, replay the steps onto the snapshot at their instants
(:meth:`RoomService.replayed`), so the room is the one the players last saw, its clocks as at
the last save.

The service is a security boundary: codes and tokens are unguessable, tokens are compared in
constant time, each client address may make at most ``max_per_owner`` rooms, the server at
most ``max_rooms``; a room with no message for ``idle_expiry`` seconds is dropped (finished
rooms after ``over_expiry``). What is stored is bounded: a room takes ``max_room_messages``
messages over all its games and stores ``max_room_bytes``; past them a message is refused
``room_full`` (:func:`check_room_space`), all but what ends the game. The rooms of one
address store ``max_owner_bytes`` together: past it the address makes no room and its rooms
start no new game (a rematch), each game in play going on to its own room's bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import sqlite3
import time
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, Protocol

from gametable.clock import TIME_CONTROLS, TimeControl
from gametable.errors import ActionRefused
from gametable.room import CLAIM_AFTER, THINK_AFTER, Outgoing, Room, remote_seats, token_hash
from gametable.room_store import RoomStore, RoomStoreFullError, StaleRoomError
from gametable.seam import SIDES, GameRules, Side
from gametable.table import Table

LOG = logging.getLogger(__name__)

#: Rooms one server keeps.
DEFAULT_MAX_ROOMS: Final = 5000
#: Rooms one client address may make (open at once).
DEFAULT_MAX_PER_OWNER: Final = 10
#: Seconds without a message after which a room is dropped.
IDLE_EXPIRY: Final = 24 * 3600.0
#: Seconds a finished room is kept after its last message.
OVER_EXPIRY: Final = 2 * 3600.0
#: Seconds a room nobody has joined is kept once nobody is connected to it (the old door's
#: expiry of a room left empty).
WAITING_EXPIRY: Final = 600.0
#: Rooms one client address may make in :data:`CREATE_WINDOW` seconds (as the old door).
DEFAULT_CREATE_RATE: Final = 10
CREATE_WINDOW: Final = 60.0
#: Rooms nobody has joined that one client address may hold at once (as the old door).
DEFAULT_MAX_WAITING: Final = 5
#: Seconds between two sweeps of the expired rooms (on a timer, and before a room is made).
SWEEP_EVERY: Final = 60.0
#: Messages one room takes, at most, over all its games (its rematches' included: the room's
#: version counts every accepted change since it was made); past it, ``room_full``.
DEFAULT_MAX_ROOM_MESSAGES: Final = 50_000
#: Bytes stored for one room, at most (its record, the games before its rematch included, and
#: the steps since its snapshot); past it, ``room_full``. Below the store's bound on one
#: record (:data:`~gametable.room_store.DEFAULT_MAX_RECORD_BYTES`, 2 MiB), so that what may
#: still come past it (a leave, a claim, a flag: :data:`ENDING_MESSAGES`) is stored.
DEFAULT_MAX_ROOM_BYTES: Final = 1536 * 1024
#: Bytes stored for the rooms one client address made, at most, over all of them, by
#: default: its share of open rooms full (:data:`DEFAULT_MAX_PER_OWNER` times
#: :data:`DEFAULT_MAX_ROOM_BYTES`, 15 MiB), counted over finished games too, which the share
#: leaves out (made 10 a minute and kept 2 hours, full rooms would otherwise add up to 1,200);
#: past it, a room made from the address takes no message but what ends its game
#: (``room_full``) and the address makes no room (``too_many_rooms``) until some expire.
DEFAULT_MAX_OWNER_BYTES: Final = DEFAULT_MAX_PER_OWNER * DEFAULT_MAX_ROOM_BYTES
#: What a full room still takes: the messages that end its game (at most one each a game, and
#: no rematch follows in a full room), so a full room can always be finished.
ENDING_MESSAGES: Final = frozenset({"leave", "claim"})
#: Seconds before a room whose save failed when its deadline came (a flag falling) is tried
#: again: its timer stays armed, never in the past while the store is out of reach.
STORE_RETRY: Final = 1.0
#: What a failing store raises (a full disk, a locked or damaged database, a record too
#: large, another writer): a save that fails so is refused as ``unavailable``.
STORE_ERRORS: Final = (OSError, sqlite3.Error, RoomStoreFullError, StaleRoomError)
#: Messages saved as steps between two snapshots of a room's whole record, at most (a
#: snapshot waits for a dice round in progress to end: a round's waits are not recorded).
SNAPSHOT_EVERY: Final = 50
#: The messages saved as steps (replayed onto the snapshot): the others (a claim, which
#: depends on who was connected when, and a rematch that starts a new table) are snapshots.
STEP_MESSAGES: Final = frozenset({"action", "commit", "secret", "reveal", "leave", "rematch"})
#: Files (``export``) written at once, each in a worker thread, and more waiting their turn.
EXPORT_WORKERS: Final = 2
EXPORT_QUEUE: Final = 8
#: Letters of a room code (no 0/O, 1/I/L): easy to read aloud and type.
CODE_ALPHABET: Final = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
#: A room code's length: 31**8 > 8 * 10**11 codes.
CODE_LENGTH: Final = 8
#: A player's name, at most.
MAX_NAME: Final = 40


def new_code() -> str:
    """A fresh room code."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def check_name(name: object) -> str:
    """A player's name, trimmed (empty allowed).

    Raises:
        ActionRefused: ``invalid_name`` for a name that is not text, too long, or holds
            control characters (C0 and C1), line or paragraph separators, or invisible
            format characters (Unicode category Cf: the bidirectional overrides that make a
            name read as another, zero-width spaces; the zero-width joiner of emoji is
            allowed).
    """
    if name is None:
        return ""
    if not isinstance(name, str) or len(name) > MAX_NAME:
        raise ActionRefused("invalid_name", f"a name is text of at most {MAX_NAME} characters")
    for c in name:
        category = unicodedata.category(c)
        if category in ("Cc", "Cs", "Zl", "Zp") or (category == "Cf" and not _emoji_part(c)):
            raise ActionRefused("invalid_name", f"a name holds no control or invisible "
                                                f"characters (U+{ord(c):04X})")
    if name.strip() and not any(_visible(c) for c in name):
        raise ActionRefused("invalid_name", "a name holds at least one visible character")
    return name.strip()


def _emoji_part(c: str) -> bool:
    """The format characters emoji are made of: the zero-width joiner, and the tag
    characters of a subdivision flag (U+E0020-U+E007F)."""
    return c == "\u200d" or "\U000e0020" <= c <= "\U000e007f"


def _visible(c: str) -> bool:
    """A character that shows: a letter, number, punctuation or symbol, less the blank ones
    (the Hangul fillers, the Braille blank)."""
    return unicodedata.category(c)[0] in "LNPS" and c not in _BLANKS


_BLANKS: Final = frozenset("\u115f\u1160\u3164\uffa0\u2800")


class MissCounter(Protocol):
    """Counts each client address's lookups and joins of rooms that do not exist, for the
    door (:class:`gametable.online.MissLimiter` in one process; one count in Redis for every
    process with :class:`gametable.redis_rooms.SharedRoomService`)."""

    async def check(self, address: str | None) -> None:
        """Refuse ``address`` (None: not limited) while it has used up its misses.

        Raises:
            ActionRefused: ``rate_limited`` (:func:`misses_refused`).
        """

    async def note(self, address: str | None) -> None:
        """Count a miss of ``address``."""


def misses_refused(count: int, wait: float) -> ActionRefused:
    """The refusal of an address that asked for ``count`` rooms that do not exist within the
    window, which has room again in ``wait`` seconds."""
    return ActionRefused(
        "rate_limited",
        f"{count} rooms asked for from your address do not exist: check the code, and try"
        f" again in {max(1, round(wait))} s",
    )


def creations_refused(count: int, window: float, wait: float) -> ActionRefused:
    """The refusal of an address that made ``count`` rooms in the last ``window`` seconds,
    which has room again in ``wait`` seconds."""
    return ActionRefused(
        "rate_limited",
        f"{count} rooms made from your address in the last {window:g} s: try again in"
        f" {max(1, round(wait))} s",
    )


def waiting_refused(count: int) -> ActionRefused:
    """The refusal of an address that holds ``count`` rooms nobody has joined."""
    return ActionRefused(
        "rate_limited", f"your address has {count} rooms nobody has joined: share one, or"
        " wait until they expire",
    )


def check_room_space(
    room: Room, kind: str, stored_bytes: int, *, max_messages: int, max_bytes: int
) -> None:
    """Refuse a message of type ``kind`` to ``room`` when the room is full: it has taken
    ``max_messages`` messages (its version: every change since it was made, over all its
    games) or ``stored_bytes`` (what is stored for it) reached ``max_bytes``. What ends the
    game (:data:`ENDING_MESSAGES`) is still taken. Checked before the room acts, so a full
    room costs nothing more than the refusal. Marks the room :attr:`~gametable.room.Room.full`
    or not: in a full room a claim opens only against a player who has gone, not against one
    whose messages the room refuses.

    Raises:
        ActionRefused: ``room_full``; nothing changed.
    """
    room.full = room.version >= max_messages or stored_bytes >= max_bytes
    if kind in ENDING_MESSAGES:
        return
    if room.version >= max_messages:
        raise ActionRefused(
            "room_full", f"this room has taken all the {max_messages:,} messages a room"
            " takes: start a new room to play on (this game can still be left or claimed)",
        )
    if stored_bytes >= max_bytes:
        raise ActionRefused(
            "room_full", f"this room holds all a room may store ({max_bytes // 1024:,} KiB):"
            " start a new room to play on (this game can still be left or claimed)",
        )


def room_info(room: Room) -> dict[str, Any]:
    """What a guest may see of ``room`` before joining."""
    return {
        "code": room.code,
        "game": room.table.rules.name,
        "settings": room.table.settings,
        "time_control": room.time_control,
        "names": room.names,
        "open": room.free_seat() is not None and not room.closed,
        # its host left before anyone joined: it takes no guest (a join: ``room_closed``)
        "closed": room.closed,
    }


def _write_file(
    write: Callable[[Any, Mapping[str, str]], str],
    record: Mapping[str, Any],
    games: Mapping[str, GameRules],
    tags: Mapping[str, str],
) -> str:
    """A table's file (in a worker thread): the table rebuilt from ``record``
    (:meth:`Table.from_record`), written by ``write(game, tags)``."""
    return write(Table.from_record(record, games).game, tags)


class _Entry:
    """A room kept here: its owner (the creator's address), the instant of its last message,
    the version stored, what is stored since its snapshot (the snapshot's JSON text and each
    step's, text: nothing the collector walks) with the ``now()`` reading of the last save
    (what the room goes back to when a save fails), the ``now()`` reading before which its
    deadline is not tried again after a failed save (``retry_at``), and ``offset``: the
    room's timeline (the instants its steps are stored at) is ``now() - offset``."""

    __slots__ = ("last", "offset", "owner", "retry_at", "room", "saved_at", "snapshot",
                 "steps", "stored")

    def __init__(self, room: Room, owner: str | None, last: float, stored: int) -> None:
        self.room = room
        self.owner = owner
        self.last = last
        self.stored = stored
        self.snapshot: str | None = None
        self.steps: list[str] = []
        self.saved_at = last
        self.retry_at = float("-inf")
        self.offset = 0.0

    def stored_bytes(self) -> int:
        """Bytes stored for the room: its snapshot and the steps since (ASCII JSON)."""
        return len(self.snapshot or "") + sum(len(step) for step in self.steps)


class RoomService:
    """Online rooms by code, for the door.

    Args:
        games: the games played here, by name.
        store: where rooms are saved (None: memory only).
        now: the monotonic clock (injected in tests).
        time_controls: the time controls offered, by name (``"none"`` for no clock).
        max_rooms: rooms kept at once.
        max_per_owner: rooms one client address may have open (games not over).
        claim_after: seconds a player must be gone before its opponent may claim.
        think_after: seconds an untimed game may wait on a connected player's turn before its
            opponent may claim (:data:`~gametable.room.THINK_AFTER`).
        idle_expiry: seconds without a message after which a room is dropped.
        over_expiry: the same for a finished game.
        waiting_expiry: seconds a room nobody joined is kept with nobody connected.
        create_rate: rooms one client address may make in :data:`CREATE_WINDOW` seconds.
        max_waiting: rooms nobody has joined one client address may hold at once.
        snapshot_every: messages saved as steps between two snapshots, at most.
        max_room_messages: messages one room takes over all its games (``room_full``
            past it; :data:`DEFAULT_MAX_ROOM_MESSAGES`).
        max_room_bytes: bytes stored for one room (its snapshot and the steps since,
            the games before its rematch included), ``room_full`` past it
            (:data:`DEFAULT_MAX_ROOM_BYTES`).
        max_owner_bytes: bytes stored for all the rooms one client address made, finished
            ones included (None: ``max_per_owner`` times ``max_room_bytes``,
            :data:`DEFAULT_MAX_OWNER_BYTES` by default).

    What one room stores is bounded by ``max_room_bytes`` (the message that passes it is
    the last one taken, and past it only what ends the game: :func:`check_room_space`),
    and what one address's rooms store by ``max_owner_bytes``: the address's share of open
    rooms (``max_per_owner``) leaves finished games out, which a full room's players could
    otherwise make over and over (10 a minute, each kept ``over_expiry``).
    """

    def __init__(
        self,
        games: Mapping[str, GameRules],
        store: RoomStore | None = None,
        *,
        now: Callable[[], float] = time.monotonic,
        time_controls: Mapping[str, TimeControl | None] = TIME_CONTROLS,
        max_rooms: int = DEFAULT_MAX_ROOMS,
        max_per_owner: int = DEFAULT_MAX_PER_OWNER,
        claim_after: float = CLAIM_AFTER,
        think_after: float = THINK_AFTER,
        idle_expiry: float = IDLE_EXPIRY,
        over_expiry: float = OVER_EXPIRY,
        waiting_expiry: float = WAITING_EXPIRY,
        create_rate: int = DEFAULT_CREATE_RATE,
        max_waiting: int = DEFAULT_MAX_WAITING,
        snapshot_every: int = SNAPSHOT_EVERY,
        max_room_messages: int = DEFAULT_MAX_ROOM_MESSAGES,
        max_room_bytes: int = DEFAULT_MAX_ROOM_BYTES,
        max_owner_bytes: int | None = None,
    ) -> None:
        self.games = dict(games)
        self.max_room_messages = max_room_messages
        self.max_room_bytes = max_room_bytes
        self.max_owner_bytes = (max_per_owner * max_room_bytes if max_owner_bytes is None
                                else max_owner_bytes)
        self._owner_bytes: dict[str | None, int] = {}  # what each address's rooms store
        self.snapshot_every = snapshot_every
        self.store = store
        self._now = now
        self.time_controls = dict(time_controls)
        self.max_rooms = max_rooms
        self.max_per_owner = max_per_owner
        self.claim_after = claim_after
        self.think_after = think_after
        self.idle_expiry = idle_expiry
        self.over_expiry = over_expiry
        self.waiting_expiry = waiting_expiry
        self.create_rate = create_rate
        self.max_waiting = max_waiting
        self._created: dict[str, list[float]] = {}  # each address's creations in the window
        self._swept = now()
        self._sweeper: asyncio.Task[None] | None = None
        self._rooms: dict[str, _Entry] = {}
        #: The stored rooms :meth:`restore` could not rebuild: code -> the reason.
        self.refused: dict[str, str] = {}
        self._export_limiter = asyncio.Semaphore(EXPORT_WORKERS)
        self._exports = 0  # files being written or waiting

    def __len__(self) -> int:
        return len(self._rooms)

    def now(self) -> float:
        """The service's monotonic clock reading."""
        return self._now()

    # ---------------------------------------------------------------- making and joining

    def create(
        self,
        game: str,
        settings: Mapping[str, Any],
        time_control: str = "none",
        *,
        name: object = "",
        side: str = "white",
        owner: str | None = None,
    ) -> tuple[str, str, Side, Room]:
        """Make a room; returns ``(code, token, side, room)``: the host's seat token and side.

        Args:
            side: ``"white"``, ``"black"`` or ``"random"``: the host's side.

        Raises:
            ActionRefused: ``unknown_game``, ``invalid_settings``, ``invalid_time_control``,
                ``invalid_seat`` (a side that is none of the three), ``invalid_name``,
                ``too_many_rooms`` (the address's share of games not over, or the
                server's), ``rate_limited`` (the address made ``create_rate`` rooms in the
                last :data:`CREATE_WINDOW` seconds, or holds ``max_waiting`` rooms nobody
                has joined), ``unavailable`` (the store failed: nothing kept).
        """
        table, host, names = self._new_table(game, settings, time_control, name, side)
        now = self._now()
        if len(self._rooms) >= self.max_rooms or now - self._swept >= SWEEP_EVERY:
            self.sweep()
        self.check_rate(owner)
        if len(self._rooms) >= self.max_rooms:
            raise ActionRefused("too_many_rooms", "the server has no room for another game")
        live = [e.room for e in self._rooms.values()
                if e.owner == owner and e.room.table.game.outcome() is None]
        if len(live) >= self.max_per_owner:
            raise ActionRefused(
                "too_many_rooms", f"at most {self.max_per_owner} open rooms from one address"
            )
        if owner is not None and self._owner_bytes.get(owner, 0) >= self.max_owner_bytes:
            raise ActionRefused(
                "too_many_rooms", "the rooms made from your address hold all the server"
                " keeps for one address: try again when older ones have expired",
            )
        waiting = sum(1 for r in live if r.free_seat() is not None and not r.closed)
        if owner is not None and waiting >= self.max_waiting:
            raise waiting_refused(waiting)
        code = new_code()
        while code in self._rooms:
            code = new_code()
        token, room = self._seated_room(code, table, host, names, time_control)
        entry = _Entry(room, owner, self._now(), 0)
        self._save(entry)
        self._rooms[code] = entry
        self.note_creation(owner)
        return code, token, host, room

    def check_rate(self, owner: str | None) -> None:
        """Refuse a room from ``owner`` (a client address; None: not limited) that made
        ``create_rate`` rooms in the last :data:`CREATE_WINDOW` seconds.

        Raises:
            ActionRefused: ``rate_limited``, saying in how many seconds to try again.
        """
        if owner is None:
            return
        now = self._now()
        recent = [t for t in self._created.get(owner, []) if now - t < CREATE_WINDOW]
        if recent:
            self._created[owner] = recent
        else:
            self._created.pop(owner, None)
        if len(recent) >= self.create_rate:
            raise creations_refused(len(recent), CREATE_WINDOW,
                                    CREATE_WINDOW - (now - recent[0]))

    def note_creation(self, owner: str | None) -> None:
        """Count a room made by ``owner`` towards :meth:`check_rate`."""
        if owner is not None:
            self._created.setdefault(owner, []).append(self._now())

    def miss_counter(self, limit: int, window: float) -> MissCounter | None:
        """The count of lookups of rooms that do not exist that the door keeps (``limit``
        in ``window`` seconds an address): None here, where the door counts them in its
        own process; a service shared by several processes counts them for all of them."""
        return None

    def _new_table(
        self, game: str, settings: Mapping[str, Any], time_control: str, name: object, side: str
    ) -> tuple[Table, Side, dict[Side, str]]:
        """The checked request's table, the host's side and the names (nothing kept yet).

        Raises:
            ActionRefused: as :meth:`create`, the limits aside.
        """
        rules = self.games.get(game)
        if rules is None:
            raise ActionRefused(
                "unknown_game", f"unknown game {game!r}: one of {', '.join(self.games)}"
            )
        if time_control not in self.time_controls:
            raise ActionRefused(
                "invalid_time_control",
                f"time control {time_control!r} is not one of {', '.join(self.time_controls)}",
            )
        if side not in ("white", "black", "random"):
            raise ActionRefused("invalid_seat", "the host's side is white, black or random")
        host: Side
        if side == "random":
            host = secrets.choice(SIDES)
        else:
            host = "white" if side == "white" else "black"
        host_name = check_name(name)
        names: dict[Side, str] = {s: (host_name if s == host else "") for s in SIDES}
        table = Table(
            rules,
            settings,
            remote_seats(names),
            time_control=self.time_controls[time_control],
            now=self._now,
            seed=secrets.randbits(31),
            fair=True,
        )
        return table, host, names

    def _seated_room(
        self, code: str, table: Table, host: Side, names: Mapping[Side, str], time_control: str
    ) -> tuple[str, Room]:
        """A new room with the host seated: ``(the host's token, room)``."""
        token = secrets.token_urlsafe(24)
        tokens: dict[Side, str | None] = {s: (token_hash(token) if s == host else None)
                                          for s in SIDES}
        room = Room(
            code, table, tokens, names, now=self._now, time_control=time_control,
            claim_after=self.claim_after, think_after=self.think_after,
        )
        return token, room

    def room(self, code: str) -> Room:
        """The room of ``code``.

        Raises:
            ActionRefused: ``not_found``, ``room_not_restored`` (:meth:`restore`).
        """
        return self._entry(code).room

    def join(self, code: str, name: object = "") -> tuple[str, Side, list[Outgoing]]:
        """A guest takes the free seat; returns ``(token, side, views to send)``.

        Raises:
            ActionRefused: ``not_found``, ``room_closed`` (its host left before anyone
                joined), ``seats_taken`` (both seats are taken), ``room_full`` (the record
                would pass the store's bound: the seat is still free), ``invalid_name``,
                ``unavailable`` (the store failed: the seat is still free).
        """
        entry = self._entry(code)
        token = secrets.token_urlsafe(24)
        side, out = entry.room.join(token, check_name(name))
        try:
            self._save(entry)
        except ActionRefused:
            self._roll_back(entry)
            raise
        return token, side, out

    def seat_for(self, code: str, token: str) -> Side:
        """The side ``token`` opens in room ``code``.

        Raises:
            ActionRefused: ``not_found``, ``not_your_room``.
        """
        return self._entry(code).room.seat_for(token)

    # ---------------------------------------------------------------- messages

    def handle(self, code: str, side: Side, message: Mapping[str, Any]) -> list[Outgoing]:
        """One checked message (:func:`gametable.wire.parse_message`) from ``side``; saved
        before the views are returned.

        Raises:
            ActionRefused: the room's, the table's or the game's refusal, or ``unavailable``
                (the store failed); nothing changed.
        """
        entry = self._entry(code)
        if message["type"] == "state":
            return [Outgoing(side, {"type": "view", "view": entry.room.view(side)})]
        room = entry.room
        self._check_space(entry, message["type"])
        table = room.table
        out = room.handle(side, message)
        entry.last = self._now()
        step = ({"side": side, "message": dict(message)}
                if message["type"] in STEP_MESSAGES and room.table is table else None)
        try:
            self._save(entry, step)
        except Exception:
            self._roll_back(entry)
            raise
        self._mark_full(entry)  # (from this message on, before the next one asks)
        return out

    def _mark_full(self, entry: _Entry) -> None:
        """Mark the room :attr:`~gametable.room.Room.full` when it has taken all it may."""
        entry.room.full = (entry.room.version >= self.max_room_messages
                           or entry.stored_bytes() >= self.max_room_bytes)

    def _check_space(self, entry: _Entry, kind: str) -> None:
        """Refuse a message of type ``kind`` to a full room (:func:`check_room_space`), or a
        rematch in a room of an address whose rooms hold ``max_owner_bytes``.

        Raises:
            ActionRefused: ``room_full``.
        """
        check_room_space(entry.room, kind, entry.stored_bytes(),
                         max_messages=self.max_room_messages, max_bytes=self.max_room_bytes)
        # (an address's share bounds the games it starts: a game in play goes on to its own
        # room's bound, so that nobody stops a game, and its claims, by filling other rooms)
        if (kind == "rematch" and entry.owner is not None
                and self._owner_bytes.get(entry.owner, 0) >= self.max_owner_bytes):
            raise ActionRefused(
                "room_full", "the rooms made from this room's address hold all the server"
                " keeps for one address: start a new room later, when older ones have"
                " expired",
            )

    def _count_bytes(self, owner: str | None, change: int) -> None:
        """Add ``change`` to what ``owner``'s rooms store."""
        total = self._owner_bytes.get(owner, 0) + change
        if total > 0:
            self._owner_bytes[owner] = total
        else:
            self._owner_bytes.pop(owner, None)

    def _roll_back(self, entry: _Entry) -> None:
        """What is not stored did not happen: the room goes back to what was stored last
        (every change is stored before it is relayed: the snapshot and the steps since,
        replayed), rebuilt as of the instant of the last save, so the clock that ran since (a
        running turn, a round's waits) is charged the time up to now as if nothing had been
        refused."""
        if entry.snapshot is None:
            return
        record, _ = self.replayed(json.loads(entry.snapshot),
                                  [json.loads(step) for step in entry.steps])
        old = entry.room
        shift = max(0.0, self._now() - entry.saved_at)
        offset = [shift]

        def now() -> float:
            return self._now() - offset[0]

        room = Room.from_record(record, self.games, now, self.claim_after, self.think_after)
        offset[0] = 0.0
        room.adopt_presence(old)
        entry.room = room

    def connect(self, code: str, side: Side) -> list[Outgoing]:
        """A connection of ``side`` opened."""
        return self._entry(code).room.connect(side)

    def disconnect(self, code: str, side: Side) -> list[Outgoing]:
        """A connection of ``side`` closed."""
        entry = self._rooms.get(code)
        return [] if entry is None else entry.room.disconnect(side)

    def tick_room(self, code: str) -> list[Outgoing]:
        """Check one room's clocks before a message is handled (a flag that fell ends the
        game first, saved); returns the views to send when something changed.

        Raises:
            ActionRefused: ``not_found``; ``unavailable`` (the fallen flag could not be
                saved: the room is as it was, the flag falls again at the next look).
        """
        entry = self._entry(code)
        out = entry.room.tick()
        if out:
            try:
                self._save(entry)
            except ActionRefused:
                self._roll_back(entry)
                raise
        return out

    def tick(self) -> list[tuple[str, list[Outgoing]]]:
        """Check every room's clocks (flags fall; claims open, each announced once:
        :meth:`Room.open_claims`); returns the views to send, by room. A room whose fallen
        flag cannot be saved stays as it was and is tried again ``STORE_RETRY`` seconds
        later (its :meth:`deadline` says so)."""
        now = self._now()
        result = []
        for code, entry in list(self._rooms.items()):
            room = entry.room
            deadline = room.next_deadline()
            if deadline is None or deadline > now:
                continue
            if entry.retry_at > now:
                continue
            out = room.tick()
            if out:
                try:
                    self._save(entry)
                except ActionRefused:  # logged; the room as it was, tried again later
                    self._roll_back(entry)
                    entry.retry_at = now + STORE_RETRY
                    continue
            elif room.open_claims():
                out = room.views()  # a claim opened: the pages show its button, once
            result.append((code, out))
        return result

    def sweep(self) -> list[str]:
        """Drop the rooms past their expiry, nobody connected to them: a game over
        ``over_expiry`` seconds after its last message, one in play ``idle_expiry``, a room
        nobody joined ``waiting_expiry`` seconds after its last connection closed; returns
        their codes. The addresses' counts of recent creations are pruned too."""
        now = self._now()
        self._swept = now
        gone = []
        for owner in [o for o, times in self._created.items()
                      if not times or now - times[-1] >= CREATE_WINDOW]:
            del self._created[owner]
        for code, entry in list(self._rooms.items()):
            room = entry.room
            if any(room.connections.values()):
                continue
            over = room.table.game.outcome() is not None
            limit = self.over_expiry if over else self.idle_expiry
            empty = min((room.gone_for(s) or 0.0) for s in SIDES)
            waiting = room.free_seat() is not None and (
                room.closed or empty >= self.waiting_expiry
            )
            if now - entry.last > limit or waiting:
                gone.append(code)
                del self._rooms[code]
                self._count_bytes(entry.owner, -entry.stored_bytes())
                if self.store is not None:
                    try:
                        self.store.delete(code)
                    except STORE_ERRORS as error:  # its row is dropped at a restore
                        LOG.error("room %s could not be deleted: %s", code, error)
        return gone

    # ---------------------------------------------------------------- what a guest sees

    def info(self, code: str) -> dict[str, Any]:
        """What a guest may see before joining: ``{"code", "game", "settings",
        "time_control", "names", "open", "closed"}`` (``closed``: its host left before
        anyone joined).

        Raises:
            ActionRefused: ``not_found``.
        """
        return room_info(self.room(code))

    # ---------------------------------------------------------------- the door's calls

    # The door (gametable.online) awaits these; here they call the methods above at once.
    # A service whose rooms live elsewhere (gametable.redis_rooms) overrides them.

    def bind(self, deliver: Callable[[str, list[Outgoing]], None],
             replaced: Callable[[str, Side], None]) -> None:
        """The door's hooks: ``deliver(code, messages)`` queues views for the seats connected
        here, ``replaced(code, side)`` closes a seat opened elsewhere (unused here)."""

    async def start(self) -> None:
        """Start what the service runs beside the door: a sweep of the expired rooms every
        :data:`SWEEP_EVERY` seconds (:meth:`sweep`)."""
        running = self._sweeper
        if running is None or running.done() or running.get_loop().is_closed():
            self._sweeper = asyncio.get_running_loop().create_task(self._sweeps())

    async def stop(self) -> None:
        """Stop it: only from the event loop that started it (an app served by two loops at
        once, as two test clients do, is swept by the first and stopped by it)."""
        task = self._sweeper
        if task is None or task.get_loop() is not asyncio.get_running_loop():
            return
        self._sweeper = None
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def _sweeps(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY)
            try:
                self.sweep()
            except Exception:  # the next sweep tries again
                LOG.exception("online rooms: the sweep failed")

    async def open_room(
        self, game: str, settings: Mapping[str, Any], time_control: str, *, name: object,
        side: str, owner: str | None,
    ) -> tuple[str, str, Side, dict[str, Any]]:
        """:meth:`create`; returns ``(code, token, side, the host's view)``."""
        code, token, host, room = self.create(
            game, settings, time_control, name=name, side=side, owner=owner
        )
        return code, token, host, room.view(host)

    async def room_details(self, code: str) -> dict[str, Any]:
        """:meth:`info`."""
        return self.info(code)

    async def join_room(
        self, code: str, name: object
    ) -> tuple[str, str, Side, list[Outgoing], dict[str, Any]]:
        """:meth:`join`; returns ``(code, token, side, views to send, the guest's view)``."""
        token, side, out = self.join(code, name)
        room = self.room(code)
        return room.code, token, side, out, room.view(side)

    async def open_seat(self, code: str, token: str) -> Side:
        """:meth:`seat_for`."""
        return self.seat_for(code, token)

    async def export(self, code: str, token: str, fmt: str) -> tuple[str, str]:
        """The game in play in room ``code`` as a file, for a seat's token: ``(file name,
        text)``, the players named by their names in the room (tags ``White``, ``Black``).

        The file is written in a worker thread (at most :data:`EXPORT_WORKERS` at once,
        :data:`EXPORT_QUEUE` more waiting), from a snapshot of the table's record taken now,
        so that a long game's file never holds up the rooms.

        Raises:
            ActionRefused: ``not_found``, ``not_your_room``, ``unknown_format``,
                ``unavailable`` (too many files being written: try again).
        """
        await self.open_seat(code, token)
        room = self.room(code)
        writers = room.table.rules.exports()
        if fmt not in writers:
            raise ActionRefused(
                "unknown_format",
                f"{room.table.rules.name} exports {', '.join(writers)}, not {fmt}",
            )
        # the players' names as the files' own tags name them (PDN's and the .mat writer's)
        named: tuple[tuple[str, Side], ...] = (("White", "white"), ("Black", "black"))
        tags = {tag: room.names[side] for tag, side in named if room.names[side]}
        record = room.table.to_record()
        if self._exports >= EXPORT_WORKERS + EXPORT_QUEUE:
            raise ActionRefused("unavailable", "too many files are being written: try again")
        self._exports += 1
        try:
            async with self._export_limiter:
                text = await asyncio.to_thread(
                    _write_file, writers[fmt], record, self.games, tags
                )
        finally:
            self._exports -= 1
        return f"{room.table.rules.name}-{room.code}.{fmt}", text

    async def seat_connected(self, code: str, side: Side) -> list[Outgoing]:
        """:meth:`connect`."""
        return self.connect(code, side)

    async def seat_disconnected(self, code: str, side: Side) -> list[Outgoing]:
        """:meth:`disconnect`."""
        return self.disconnect(code, side)

    async def before_message(self, code: str) -> list[Outgoing]:
        """:meth:`tick_room`."""
        return self.tick_room(code)

    async def message(self, code: str, side: Side, message: Mapping[str, Any]) -> list[Outgoing]:
        """:meth:`handle`."""
        return self.handle(code, side, message)

    async def due(self, code: str) -> list[tuple[str, list[Outgoing]]]:
        """A room's timer fired: :meth:`tick`."""
        return self.tick()

    def deadline(self, code: str) -> float | None:
        """The room's next deadline (:meth:`Room.next_deadline`; after a failed save at its
        deadline, not before it is tried again), or None (also for a room not kept here)."""
        entry = self._rooms.get(code)
        if entry is None:
            return None
        deadline = entry.room.next_deadline()
        return None if deadline is None else max(deadline, entry.retry_at)

    # ---------------------------------------------------------------- restart

    def restore(self) -> list[str]:
        """Rebuild the stored rooms (at start); returns the codes restored. A room that
        cannot be rebuilt is logged with its code and reason and left out, its row kept; its
        code is then answered ``room_not_restored`` with the reason (:attr:`refused`), not
        ``not_found``, so its players' pages keep the seat. Rooms past their expiry are
        dropped. The counts restored and refused are logged."""
        if self.store is None:
            return []
        restored: list[str] = []
        wall = time.time()
        for stored in self.store.load_all():
            over = (stored.steps[-1] if stored.steps else stored.record).get("over", False)
            if wall - stored.updated_at > (self.over_expiry if over else self.idle_expiry):
                self.store.delete(stored.code)
                continue
            try:
                record, at = self.replayed(stored.record, stored.steps)
                room = Room.from_record(record, self.games, self._now, self.claim_after,
                                        self.think_after)
            except Exception as error:  # any damage refuses this room, not the start
                LOG.error("room %s cannot be restored: %s", stored.code, error)
                self.refused[stored.code.upper()] = str(error) or type(error).__name__
                continue
            entry = _Entry(room, stored.owner, self._now(), stored.version)
            entry.snapshot = json.dumps(stored.record, separators=(",", ":"))
            entry.steps = [json.dumps(step, separators=(",", ":")) for step in stored.steps]
            entry.offset = entry.last - at  # the timeline goes on from the last save
            self._rooms[stored.code] = entry
            self._count_bytes(entry.owner, entry.stored_bytes())
            restored.append(stored.code)
        for code in restored:
            self._mark_full(self._rooms[code])
        (LOG.warning if self.refused else LOG.info)(
            "online rooms: %d restored, %d refused%s", len(restored), len(self.refused),
            "".join(f"; {code}: {why}" for code, why in list(self.refused.items())[:20]),
        )
        return restored

    # ---------------------------------------------------------------- keeping

    def _entry(self, code: str) -> _Entry:
        """The room kept under ``code`` (any case).

        Raises:
            ActionRefused: ``room_not_restored`` (a stored room refused at the start, with
                the reason), ``not_found``.
        """
        key = code.upper() if isinstance(code, str) else ""
        entry = self._rooms.get(key)
        if entry is None:
            why = self.refused.get(key)
            if why is not None:
                raise ActionRefused(
                    "room_not_restored",
                    f"room {key} could not be brought back after the server restarted"
                    f" ({why}): it cannot be played on; its record is kept",
                )
            raise ActionRefused("not_found", f"no room {code!r}")
        return entry

    def replayed(
        self, snapshot: Mapping[str, Any], steps: Iterable[Mapping[str, Any]]
    ) -> tuple[dict[str, Any], float]:
        """The record of a room as stored (``snapshot``, a record of :meth:`Room.to_record`
        with its ``"at"``, and the ``steps`` saved since: each ``{"side", "message", "at",
        "rv"}``), and the instant of its last save on the room's timeline: the steps are
        replayed onto the snapshot, each at its instant, and each must be accepted and leave
        the room at its version (``rv``). A snapshot without steps is its own record.

        Raises:
            ActionRefused: ``invalid_record`` naming what is wrong.
        """
        at = snapshot.get("at", 0.0)
        if not isinstance(at, int | float) or isinstance(at, bool):
            raise ActionRefused("invalid_record", f"bad snapshot instant {at!r}")
        steps = list(steps)
        if not steps:
            return dict(snapshot), float(at)
        instant = [float(at)]
        room = Room.from_record(snapshot, self.games, lambda: instant[0], self.claim_after,
                                self.think_after)
        with room.unseen():
            for number, step in enumerate(steps, start=1):
                side, message, when = step.get("side"), step.get("message"), step.get("at")
                if (side not in SIDES or not isinstance(message, dict)
                        or message.get("type") not in STEP_MESSAGES
                        or not isinstance(when, int | float) or isinstance(when, bool)):
                    raise ActionRefused("invalid_record", f"bad step {number}: {step!r}")
                instant[0] = float(when)
                try:
                    room.handle("white" if side == "white" else "black", message)
                except (ActionRefused, KeyError, TypeError, ValueError) as error:
                    raise ActionRefused(
                        "invalid_record", f"step {number} does not replay: {error}"
                    ) from error
                if message.get("type") == "leave" and step.get("rv") == room.version - 1:
                    room.version -= 1  # stored before a room kept who left: the leave of a
                    # finished game changed no version then
                if room.version != step.get("rv"):
                    raise ActionRefused(
                        "invalid_record",
                        f"step {number} leaves the room at version {room.version},"
                        f" not {step.get('rv')!r}",
                    )
        return room.to_record(), instant[0]

    def _save(self, entry: _Entry, step: Mapping[str, Any] | None = None) -> None:
        """Store the room's change (one version more): ``step`` (a message that replays:
        ``{"side", "message"}``) as a step, else, or when ``snapshot_every`` steps have been
        stored since the snapshot and no dice round is open, a snapshot of its whole record.

        Raises:
            ActionRefused: ``unavailable`` when the store fails (:data:`STORE_ERRORS`,
                logged); the caller puts the room back as it was stored.
        """
        store = self.store
        if store is None:
            return
        room = entry.room
        saved_at = self._now()
        at = saved_at - entry.offset
        over = room.table.game.outcome() is not None
        version = entry.stored + 1
        text: str | None = None
        try:
            if step is None or (len(entry.steps) >= self.snapshot_every and room.round is None):
                record = room.to_record()
                record["over"] = over
                record["at"] = at
                snapshot = store.save(
                    room.code, room.table.rules.name, entry.owner, version, record
                )
            else:
                text = json.dumps({**step, "at": at, "rv": room.version, "over": over},
                                  separators=(",", ":"))
                store.append(room.code, version, text)
        except RoomStoreFullError as error:  # past the store's bound: as a full room
            LOG.warning("room %s is full: %s", entry.room.code, error)
            raise ActionRefused(
                "room_full", "this room holds all a room may store: start a new room to"
                " play on",
            ) from error
        except StaleRoomError as error:
            LOG.error("room %s was written by another process", entry.room.code)
            raise ActionRefused(
                "unavailable", "the game could not be saved: reload the page"
            ) from error
        except STORE_ERRORS as error:
            LOG.error("room %s could not be saved: %s", entry.room.code, error)
            raise ActionRefused(
                "unavailable", "the game could not be saved: try again in a moment"
            ) from error
        entry.stored = version
        entry.retry_at = float("-inf")
        entry.saved_at = saved_at
        before = entry.stored_bytes()
        if text is None:
            entry.snapshot, entry.steps = snapshot, []
        else:
            entry.steps.append(text)
        self._count_bytes(entry.owner, entry.stored_bytes() - before)

