"""Online rooms that survive a restart: every accepted action is committed before it is relayed.

:class:`PersistentRooms` is a :class:`~.rooms.RoomManager` that writes each room to a
:class:`~backgammon.services.room_store.RoomStore` (the local games' SQLite file, WAL mode, one
transaction per action) and rebuilds the rooms from it when the server starts:

* at creation, the room's *header*: the host's settings, the SHA-256 of the host's seat token
  (a token is 192 random bits: its hash authenticates it and the file does not give it away),
  the host's name and address, the room's clock reading;
* then each accepted action, in order, with the room's clock reading when it was accepted: a
  player's message (the checked message written compactly,
  :meth:`~.protocol.ClientMessage.to_json`, never the frame as it arrived, whose padding and
  ``ref`` are the sender's; read-only ones, ``state``, ``review``, ``export``, ``explain``,
  are not stored), the guest joining (its name and token hash), and a clock flag
  (:meth:`Room.tick <.rooms.Room.tick>` when it ended a game or made a side claimable).

What is stored is bounded (:meth:`PersistentRooms.handle` checks before the room acts, so a
refused action changes nothing): one room keeps at most ``max_actions`` actions and
``max_room_bytes`` bytes, and the rooms one client address created ``max_address_bytes``
together. Past a room's bound only the actions that can end the game are taken
(:data:`ENDING`, a few more at most: :data:`ENDING_RESERVE`), refused otherwise with
``room_log_full``; past its address's bound a room's actions, and new rooms, are refused with
``storage_full``. The game in progress stays as it was, and stored: a room is never dropped
for its size. The players are told before: once a room has stored :data:`WARN_SHARE` of what
it can keep, both get a ``notice`` (``room_log_nearly_full``), and the state says how much is
stored (``storage``, with the warning in words, also the view's ``notice``).

While a room handles an action its clock stands still (one reading for the whole action), so
replaying the actions at their stored readings rebuilds the room exactly: the position, the
open commit-reveal round, the cube, the score, the log with its seconds and the clock times.

Downtime is nobody's: a rebuilt room runs on its own clock, which carries on from the reading
of its last stored action. The running clock restarts when the server does; the time between
the last action and the stop is not charged either.

A stored room that is damaged, or whose actions no longer replay, is refused with an error in
the log naming the room and the action; the other rooms are restored. A room that is over
(finished, aborted or closed) and was last written longer ago than the expiry is dropped at
start, as it would have expired; every room not written for :data:`DEFAULT_STALE_AFTER`
seconds is dropped. Restored rooms count against the per-address limits as before the restart
(the rooms nobody has joined, the creations of the last minute).

When a write fails (a full disk, ...), the room carries on in memory and its rows are deleted:
it will not come back after a restart, rather than come back behind what the players saw; both
players are told (a ``notice``, ``not_saved``, and the state's ``storage.saved`` false). A room
refused at start answers ``room_not_restored`` (not ``room_not_found``) to a player coming
back.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import hmac
import json
import logging
import re
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

from backgammon.services.online.protocol import ClientMessage, OnlineError, parse_message
from backgammon.services.online.rooms import (
    CREATE_WINDOW,
    TOKEN_BYTES,
    OnlineSettings,
    Outgoing,
    Room,
    RoomManager,
    RoomPhase,
    Seat,
)
from backgammon.services.online.wire import NoticeMessage
from backgammon.services.room_store import RoomStore, StoredRoom, StoredRoomError
from backgammon.services.words import room_says

__all__ = ["DEFAULT_MAX_ACTIONS", "DEFAULT_MAX_ADDRESS_BYTES", "DEFAULT_MAX_ROOM_BYTES",
           "DEFAULT_STALE_AFTER", "ENDING", "ENDING_RESERVE", "READ_ONLY", "WARN_SHARE",
           "PersistentRooms", "open_rooms", "token_hash"]

logger = logging.getLogger("backgammon.online")

#: Seconds after its last write that a stored room is dropped at start, whatever its phase.
DEFAULT_STALE_AFTER: Final = 24 * 3600.0
#: The most actions stored for one room (a long match with rematches is some thousands): past
#: it (a player moving and undoing without end, say) the room goes on in memory only.
DEFAULT_MAX_ACTIONS: Final = 50_000
#: The most bytes of actions (compact JSON) stored for one room: a long match with rematches
#: is some hundreds of kilobytes.
DEFAULT_MAX_ROOM_BYTES: Final = 4 * 1024 * 1024
#: The most bytes of actions stored for the rooms one client address created, together.
DEFAULT_MAX_ADDRESS_BYTES: Final = 32 * 1024 * 1024
#: The messages that change nothing in a room: not stored.
READ_ONLY: Final = frozenset({"state", "review", "export", "explain"})
#: The messages still taken past a room's bounds: those that can end the game (a resignation
#: and its answer, a drop, a claim, leaving) or finish the dice round already open. None of
#: them can repeat without a turn being played, which the bounds refuse, so a few suffice.
ENDING: Final = frozenset({"resign", "accept", "decline", "drop", "claim", "leave", "secret",
                           "reveal"})
#: How many actions of :data:`ENDING`, and how many bytes, a room may store past its bounds.
ENDING_RESERVE: Final = (64, 16 * 1024)
#: The share of its actions or bytes at which a room's players are warned.
WARN_SHARE: Final = 0.9
_HASH_RE: Final = re.compile(r"[0-9a-f]{64}")


def token_hash(token: str) -> str:
    """The SHA-256 of a seat token, 64 hex digits: what the store keeps instead of the token."""
    return hashlib.sha256(token.encode()).hexdigest()


class _Now:
    """The manager's clock: the injected one, except that it stands still while a room handles
    one action (:meth:`frozen`), so that replaying the action at its stored reading does
    exactly what handling it did."""

    def __init__(self, base: Callable[[], float]) -> None:
        self.base = base
        self._frozen: float | None = None

    def __call__(self) -> float:
        return self.base() if self._frozen is None else self._frozen

    @contextlib.contextmanager
    def frozen(self) -> Iterator[None]:
        if self._frozen is not None:  # already inside an action
            yield
            return
        self._frozen = self.base()
        try:
            yield
        finally:
            self._frozen = None


class _RoomClock:
    """A restored room's clock: the stored readings while its actions replay (:attr:`at`),
    then the manager's clock shifted to carry on from the last of them (:meth:`go_live`)."""

    def __init__(self, manager: _Now, start: float) -> None:
        self.manager = manager
        self.at: float | None = start
        self.offset = 0.0

    def __call__(self) -> float:
        return self.manager() + self.offset if self.at is None else self.at

    def go_live(self) -> None:
        assert self.at is not None
        self.offset = self.at - self.manager()
        self.at = None


class PersistentRooms(RoomManager):
    """A :class:`~.rooms.RoomManager` whose rooms are committed to ``store`` action by action.

    Args:
        store: where the rooms are kept.
        now: the monotonic clock (seconds) of the rooms, as for :class:`~.rooms.RoomManager`.
        wall: wall-clock time, seconds since the epoch (for the per-address creation window
            and stale rooms across a restart).
        stale_after: seconds after its last write that a stored room is dropped at start.
        max_actions: the most actions stored for one room; past it only :data:`ENDING`
            actions are taken (``room_log_full``).
        max_room_bytes: the most bytes of actions stored for one room; past it only
            :data:`ENDING` actions are taken (``room_log_full``).
        max_address_bytes: the most bytes of actions stored for the rooms one client address
            created; past it their actions but :data:`ENDING`, and its new rooms, are
            refused (``storage_full``).
        timings: when a list, each commit's duration (seconds) is appended to it (the load
            bench reads the store's cost there).
        **options: the other :class:`~.rooms.RoomManager` options.
    """

    def __init__(self, store: RoomStore, *, now: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time,
                 stale_after: float = DEFAULT_STALE_AFTER,
                 max_actions: int = DEFAULT_MAX_ACTIONS,
                 max_room_bytes: int = DEFAULT_MAX_ROOM_BYTES,
                 max_address_bytes: int = DEFAULT_MAX_ADDRESS_BYTES,
                 timings: list[float] | None = None, **options: Any) -> None:
        self._clock = _Now(now)
        super().__init__(now=self._clock, **options)
        self.store = store
        self.wall = wall
        self.stale_after = float(stale_after)
        self.max_actions = max_actions
        self.max_room_bytes = max_room_bytes
        self.max_address_bytes = max_address_bytes
        self.timings = timings
        #: Stored rooms refused at start: code -> why.
        self.refused: dict[str, str] = {}
        #: Where a room not kept here went: its code -> its code at the table's door, or None
        #: (rooms moved there at start, :mod:`backgammon.services.room_migration`; ``backgammon
        #: serve`` sets it). Such a room answers ``room_moved``.
        self.moved_to: Callable[[str], str | None] = lambda code: None
        self._seq: dict[str, int] = {}  # actions stored, by room (a room not here: not stored)
        self._clocks: dict[str, _RoomClock] = {}  # the restored rooms' clocks
        self._hashes: dict[str, dict[Seat, str]] = {}  # the restored rooms' token hashes
        self._returning: dict[str, set[Seat]] = {}  # seats not back since the restart
        self._bytes: dict[str, int] = {}  # bytes of actions stored, by room
        self._address_bytes: dict[str, int] = {}  # bytes stored, by the creating address
        self._warned: set[str] = set()  # rooms whose players were told they near their bound

    # Writing --------------------------------------------------------------------------------

    def _write(self, write: Callable[..., Any], *args: Any) -> None:
        if self.timings is None:
            write(*args)
            return
        start = time.perf_counter()
        write(*args)
        self.timings.append(time.perf_counter() - start)

    def _check_room(self, room: Room, kind: str, size: int) -> None:
        """Refuse (before the room acts) an action of ``kind`` and ``size`` bytes that would
        take the room, or its address's rooms, past their bounds.

        Raises:
            OnlineError: ``room_log_full`` or ``storage_full``, in words.
        """
        code = room.code
        done = self._seq.get(code)
        if done is None:  # not stored (a write failed): nothing to bound
            return
        used = self._bytes.get(code, 0)
        address = self._hosts.get(code)
        if kind in ENDING:
            extra_actions, extra_bytes = ENDING_RESERVE
            if (done + 1 > self.max_actions + extra_actions
                    or used + size > self.max_room_bytes + extra_bytes):
                raise OnlineError("room_log_full", self._full_words(code))
            return
        if done + 1 > self.max_actions or used + size > self.max_room_bytes:
            raise OnlineError("room_log_full", self._full_words(code))
        if address is not None and (
                self._address_bytes.get(address, 0) + size > self.max_address_bytes):
            raise OnlineError("storage_full", room_says(
                "storage_full", size=f"{self.max_address_bytes:,} bytes"))

    def _full_words(self, code: str) -> str:
        """Why the room takes no more play: the bound it reached, in words."""
        if self._seq.get(code, 0) >= self.max_actions:
            return room_says("log_full", limit=f"{self.max_actions:,} actions")
        return room_says("log_full", limit=f"{self.max_room_bytes:,} bytes")

    def _storage(self, room: Room, out: list[Outgoing] | None = None) -> None:
        """Say on ``room`` what it has stored (its state's ``storage``) and, when it has just
        come near its bounds (:data:`WARN_SHARE`), tell both players once (``notice``
        messages appended to ``out``)."""
        code = room.code
        done = self._seq.get(code)
        if done is None:
            words = room_says("not_saved")
            room.storage = {**(room.storage or {}), "saved": False, "warning": words}
            return
        used = self._bytes.get(code, 0)
        warning = None
        if done >= self.max_actions or used >= self.max_room_bytes:
            warning = self._full_words(code)
        elif done >= WARN_SHARE * self.max_actions:
            warning = room_says("log_nearly_full", used=f"{done:,}",
                                limit=f"{self.max_actions:,} actions")
        elif used >= WARN_SHARE * self.max_room_bytes:
            warning = room_says("log_nearly_full", used=f"{used:,}",
                                limit=f"{self.max_room_bytes:,} bytes")
        room.storage = {"actions": done, "max_actions": self.max_actions, "bytes": used,
                        "max_bytes": self.max_room_bytes, "saved": True, "warning": warning}
        if warning is not None and code not in self._warned:
            self._warned.add(code)
            if out is not None:
                notice: NoticeMessage = {"type": "notice", "code": "room_log_nearly_full",
                                         "message": warning, "storage": room.storage}
                out.extend((seat, notice) for seat in (Seat.HOST, Seat.GUEST))

    def _count(self, code: str, size: int) -> None:
        """``size`` more bytes stored for the room (and its creator's address)."""
        self._bytes[code] = self._bytes.get(code, 0) + size
        address = self._hosts.get(code)
        if address is not None:
            self._address_bytes[address] = self._address_bytes.get(address, 0) + size

    def _uncount(self, code: str) -> None:
        """The room's rows are gone: its bytes no longer count."""
        size = self._bytes.pop(code, 0)
        address = self._hosts.get(code)
        if address is not None and address in self._address_bytes:
            left = self._address_bytes[address] - size
            if left > 0:
                self._address_bytes[address] = left
            else:
                del self._address_bytes[address]

    def _commit(self, room: Room, at: float, action: dict[str, Any]) -> list[Outgoing]:
        """Store the room's action; returns the notices for its players (it came near its
        bounds, or it could not be stored)."""
        code = room.code
        done = self._seq.get(code)
        if done is None:
            return []
        try:
            self._write(self.store.append, code, done + 1, at, action)
        except (sqlite3.Error, StoredRoomError) as exc:
            logger.error("online room %s: action %d (%s) could not be stored (%s); the room "
                         "goes on in memory only and will not survive a restart", code,
                         done + 1, action.get("kind"), exc)
            self._unstore(code)
            self._storage(room)
            notice: NoticeMessage = {"type": "notice", "code": "not_saved",
                                     "message": room_says("not_saved")}
            return [(seat, notice) for seat in (Seat.HOST, Seat.GUEST)]
        self._seq[code] = done + 1
        self._count(code, _size(action))
        out: list[Outgoing] = []
        self._storage(room, out)
        return out

    def _unstore(self, code: str) -> None:
        """The room goes on in memory only: no more writes, and its rows are deleted (it is not
        to come back behind what the players saw)."""
        del self._seq[code]
        self._uncount(code)
        with contextlib.suppress(sqlite3.Error):
            self.store.delete(code)

    def create(self, settings: OnlineSettings, host_name: str | None = None,
               address: str | None = None) -> tuple[Room, str]:
        """:meth:`RoomManager.create <.rooms.RoomManager.create>`, the room then stored.

        Raises:
            OnlineError: as :meth:`RoomManager.create <.rooms.RoomManager.create>`, and
                ``store_failed`` when the room cannot be stored (nothing is kept).
        """
        with self._clock.frozen():
            room, token = super().create(settings, host_name, address)
            header = {"settings": dataclasses.asdict(settings),
                      "host_name": room.names[Seat.HOST], "host_token": token_hash(token),
                      "address": address, "abandon_after": room.abandon_after,
                      "silent_after": room.silent_after,
                      "created": self._clock(), "wall": self.wall()}
        if address is not None and (self._address_bytes.get(address, 0) + _size(header)
                                    > self.max_address_bytes):
            self._drop_new(room.code)
            raise OnlineError("storage_full", room_says(
                "storage_full", size=f"{self.max_address_bytes:,} bytes"))
        try:
            self._write(self.store.create, room.code, header)
        except (sqlite3.Error, StoredRoomError) as exc:
            logger.error("online room %s could not be stored (%s): refused", room.code, exc)
            self._drop_new(room.code)
            raise OnlineError("store_failed", "the server could not save the new room: try "
                                              "again later") from None
        self._seq[room.code] = 0
        self._count(room.code, _size(header))
        self._storage(room)
        return room, token

    def _drop_new(self, code: str) -> None:
        """Forget a room just made, not stored (its creation still counts in the rate)."""
        self._rooms.pop(code, None)
        self._hosts.pop(code, None)

    def handle(self, room: Room, seat: Seat, message: ClientMessage, text: str
               ) -> list[Outgoing]:
        """:meth:`Room.handle <.rooms.Room.handle>`; an accepted message that can change the
        room is committed (the message written compactly, not its frame ``text``) before the
        answers go out.

        Raises:
            OnlineError: as :meth:`Room.handle <.rooms.Room.handle>`; ``room_log_full`` or
                ``storage_full`` when storing it would pass the room's or its address's
                bound (checked first: the room is left as it was).
        """
        action: dict[str, Any] | None = None
        if message.type not in READ_ONLY:
            action = {"kind": "message", "seat": str(seat), "message": message.to_json()}
            self._check_room(room, message.type, _size(action))
        with self._clock.frozen():
            at = self.now_of(room)
            out = room.handle(seat, message)
        if action is not None:
            out += self._commit(room, at, action)
        return out

    def tick(self, room: Room) -> list[Outgoing]:
        """:meth:`Room.tick <.rooms.Room.tick>`, committed when it did something."""
        with self._clock.frozen():
            at = self.now_of(room)
            out = room.tick()
        if out:
            out += self._commit(room, at, {"kind": "tick"})
        return out

    def join(self, room: Room, name: str | None) -> str:
        """:meth:`Room.join <.rooms.Room.join>`, committed with the token's hash."""
        with self._clock.frozen():
            at = self.now_of(room)
            token = room.join(name)
        self._commit(room, at, {"kind": "join", "name": name, "token": token_hash(token)})
        return token

    def get(self, code: str) -> Room:
        """:meth:`RoomManager.get <.rooms.RoomManager.get>`; a room refused at start (damaged,
        or its actions no longer replay) is said so, not taken for one that never was.

        Raises:
            OnlineError: ``room_not_restored`` (fatal) for a room refused at start;
                ``room_moved`` (fatal) for a room that goes on at the table's door
                (:attr:`moved_to`); ``room_not_found`` as the manager's.
        """
        if code in self.refused and code not in self._rooms:
            raise OnlineError("room_not_restored", room_says("not_restored"), fatal=True)
        if code not in self._rooms:
            where = self.moved_to(code)
            if where is not None:
                raise OnlineError("room_moved", room_says("moved", code=where), fatal=True)
        return super().get(code)

    def sweep(self) -> list[str]:
        """:meth:`RoomManager.sweep <.rooms.RoomManager.sweep>`, the dropped rooms deleted
        from the store."""
        gone = super().sweep()
        for code in gone:
            self._forget(code)
        return gone

    def _forget(self, code: str) -> None:
        self._uncount(code)
        self._warned.discard(code)
        self._seq.pop(code, None)
        self._clocks.pop(code, None)
        self._hashes.pop(code, None)
        self._returning.pop(code, None)
        try:
            self.store.delete(code)
        except sqlite3.Error as exc:
            logger.error("online room %s: could not delete it from the store (%s)", code, exc)

    # Seats and time of restored rooms --------------------------------------------------------

    def seat_for(self, room: Room, token: str) -> Seat:
        """The seat of ``token``: checked against the stored hashes for a restored room's
        seats (compared in constant time), else by the room.

        Raises:
            OnlineError: ``bad_token`` (fatal), as :meth:`Room.seat_for
                <.rooms.Room.seat_for>`.
        """
        hashes = self._hashes.get(room.code)
        if hashes is not None:
            digest = token_hash(token)
            found: Seat | None = None
            for seat, expected in hashes.items():
                if hmac.compare_digest(expected, digest):
                    found = seat
            if found is not None:
                return found
        return room.seat_for(token)

    def now_of(self, room: Room) -> float:
        """The room's clock: a restored room's own, else the manager's."""
        clock = self._clocks.get(room.code)
        return self._clock() if clock is None else clock()

    def restarted(self, room: Room, seat: Seat) -> bool:
        """True once for each seat of a restored room: on its first connection since."""
        seats = self._returning.get(room.code)
        if seats is None or seat not in seats:
            return False
        seats.discard(seat)
        return True

    # Loading --------------------------------------------------------------------------------

    def load(self) -> int:
        """Rebuild the stored rooms (at start, before serving).

        Damaged rooms and rooms that no longer replay are refused (an error in the log, the
        reason in :attr:`refused`, their rows left as they are); rooms over and past their
        expiry, and rooms not written for :attr:`stale_after` seconds, are deleted.

        Returns:
            How many rooms were restored.
        """
        wall = self.wall()
        try:
            for code in self.store.delete_stale(wall - self.stale_after):
                logger.warning("online room %s: not written for %g s, dropped", code,
                               self.stale_after)
            stored = list(self.store.load_all())
        except sqlite3.Error as exc:
            logger.error("online rooms: the store cannot be read (%s); none restored", exc)
            return 0
        restored = 0
        for code, item in stored:
            if isinstance(item, StoredRoomError):
                self._refuse(code, str(item))
                continue
            try:
                room, clock, hashes = self._replay(item)
            except StoredRoomError as exc:
                self._refuse(item.code, str(exc))
                continue
            if room.phase not in (RoomPhase.WAITING, RoomPhase.PLAYING) and (
                    wall - item.updated_at >= self.expiry):
                self._forget(item.code)
                continue
            self._rooms[room.code] = room
            self._seq[room.code] = len(item.actions)
            self._clocks[room.code] = clock
            self._hashes[room.code] = hashes
            self._returning[room.code] = set(hashes)
            self._count_creation(item)
            self._count(room.code, _size(item.header)
                        + sum(_size(stored.action) for stored in item.actions))
            self._storage(room)
            if room.storage is not None and room.storage["warning"] is not None:
                self._warned.add(room.code)  # (told before the restart)
            restored += 1
        for times in self._created.values():
            times.sort()
        return restored

    def _refuse(self, code: str, why: str) -> None:
        self.refused[code] = why
        logger.error("online room refused at start: %s", why)

    def _count_creation(self, item: StoredRoom) -> None:
        """The restored room counts against its creator's address as it did."""
        address = item.header.get("address")
        if not isinstance(address, str):
            return
        self._hosts[item.code] = address
        made = item.header.get("wall")
        if isinstance(made, int | float) and not isinstance(made, bool):
            age = self.wall() - made
            if 0 <= age < CREATE_WINDOW:
                self._created.setdefault(address, []).append(self._clock() - age)

    def _replay(self, item: StoredRoom) -> tuple[Room, _RoomClock, dict[Seat, str]]:
        """The room rebuilt from its header and actions, its clock gone live.

        Raises:
            StoredRoomError: the header is not one this code can use, or an action is refused
                on replay (the message names the room and the action).
        """
        code, header = item.code, item.header
        try:
            settings = OnlineSettings(**header["settings"])
            host_hash = _hash(header.get("host_token"))
            name = header.get("host_name")
            start = _number(header.get("created"))
            abandon_after = _number(header.get("abandon_after", self.abandon_after))
            silent_after = _number(header.get("silent_after", self.silent_after))
            if not isinstance(name, str):
                raise ValueError("no host name")
            clock = _RoomClock(self._clock, start)
            # Made as RoomManager.create makes a room (keep the two in step), with a token
            # nobody knows: the stored hashes authenticate the seats (seat_for).
            room = Room(code, settings, secrets.token_urlsafe(TOKEN_BYTES), now=clock,
                        host_name=name, abandon_after=abandon_after,
                        silent_after=silent_after,
                        controls=self.time_controls)
        except Exception as exc:  # anything a damaged header makes the code raise
            raise StoredRoomError(f"stored room {code!r} has a header this program cannot "
                                  f"use: {type(exc).__name__}: {exc}") from None
        hashes = {Seat.HOST: host_hash}
        for stored in item.actions:
            action = stored.action
            kind = action.get("kind")
            try:
                if clock.at is not None and stored.at < clock.at:
                    raise ValueError(f"its time {stored.at} is before the one before it")
                clock.at = stored.at
                if kind == "join":
                    guest = action.get("name")
                    if guest is not None and not isinstance(guest, str):
                        raise ValueError("the guest's name is not text")
                    hashes[Seat.GUEST] = _hash(action.get("token"))
                    room.join(guest)
                elif kind == "message":
                    text = action.get("text")  # (rooms stored before the compact form)
                    if "message" in action:
                        text = json.dumps(action["message"], separators=(",", ":"))
                    if not isinstance(text, str):
                        raise ValueError("no message text")
                    message = parse_message(text)
                    room.tick()
                    room.handle(Seat(str(action.get("seat"))), message)
                elif kind == "tick":
                    room.tick()
                else:
                    raise ValueError(f"unknown kind {kind!r}")
            except Exception as exc:  # a refusal, or anything a damaged action makes it raise
                raise StoredRoomError(f"stored room {code!r} does not replay: action "
                                      f"{stored.seq} ({kind}) is refused: "
                                      f"{type(exc).__name__}: {exc}") from None
        clock.go_live()
        for seat in hashes:  # seen before: a seat coming back is "back", not "joined"
            connection, _ = room.connect(seat)
            room.disconnect(seat, connection)
        return room, clock, hashes


def _size(action: dict[str, Any]) -> int:
    """The bytes an action takes in the store (its compact JSON, as the store writes it)."""
    return len(json.dumps(action, separators=(",", ":")).encode())


def _hash(value: object) -> str:
    if not isinstance(value, str) or not _HASH_RE.fullmatch(value):
        raise ValueError("a seat token hash is not 64 hex digits")
    return value


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ValueError(f"{value!r} is not a number")
    return float(value)


def open_rooms(db_path: str | Path, *, now: Callable[[], float] = time.monotonic,
               **options: Any) -> PersistentRooms:
    """The rooms of the database ``db_path``, restored (:meth:`PersistentRooms.load`).

    Raises:
        StoredRoomError: the file is not an SQLite database.
        sqlite3.Error: the file cannot be opened.
    """
    rooms = PersistentRooms(RoomStore(db_path), now=now, **options)
    count = rooms.load()
    if count or rooms.refused:
        logger.warning("online rooms: %d restored from %s, %d refused", count, db_path,
                       len(rooms.refused))
    return rooms
