"""Online rooms in SQLite: each room's header and the append-only list of its accepted actions.

A room is stored as what it was made from, not as a picture of its state, so that a stored room
outlives changes to the code that runs it (the same idea as "a game is its event log",
DESIGN.md):

* one row of ``online_rooms``: the room's *header*, a JSON object (the host's settings, the
  hash of each seat token, names, the creating client's address, when it was made);
* one row of ``online_actions`` per accepted action, numbered 1, 2, ... in the order the room
  accepted them: a JSON object (a player's message as it arrived, a guest joining, a clock
  flag), with the room's clock reading when it was accepted (``at``, seconds).

Rebuilding a room replays its actions (:mod:`backgammon.services.online.persist`). This module
knows nothing of rooms: it stores and checks plain JSON.

The file is the local games' database (:class:`~backgammon.services.store.GameStore`) in WAL
mode. Every write is one transaction. The room store's own connection runs with
``synchronous=NORMAL`` by default: in WAL mode a commit then survives the server process being
killed (SIGKILL) but not the machine losing power, and costs no ``fsync``;
``synchronous="FULL"`` syncs each commit to disk.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from backgammon.core.errors import BackgammonError

#: Version of the stored room format (headers and actions) written by this code.
ROOM_FORMAT: Final = 1
#: The ``synchronous`` settings the store accepts (SQLite's names).
SYNCHRONOUS: Final = ("OFF", "NORMAL", "FULL", "EXTRA")

_SCHEMA: Final = (
    """
    CREATE TABLE IF NOT EXISTS online_rooms (
        code       TEXT PRIMARY KEY,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,  -- when the header was written; an action's own is its wall
        format     INTEGER NOT NULL,
        header     TEXT NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS online_actions (
        code   TEXT NOT NULL,
        seq    INTEGER NOT NULL,
        at     REAL NOT NULL,
        wall   REAL NOT NULL,
        action TEXT NOT NULL,
        PRIMARY KEY (code, seq)
    ) WITHOUT ROWID
    """,
)


class StoredRoomError(BackgammonError):
    """A stored room that cannot be used: a header or an action that is not JSON of the right
    shape, a gap in the numbering, an unknown format. The message names the room and the row;
    the rows are left as they are."""


@dataclass(frozen=True, slots=True)
class StoredAction:
    """One accepted action of a room.

    Attributes:
        seq: its number in the room (1, 2, ...).
        at: the room's clock when it was accepted, seconds (the clock the room runs on: the
            server's monotonic time, carried over a restart).
        action: the JSON object stored (at least ``"kind"``, a string).
    """

    seq: int
    at: float
    action: dict[str, Any]


@dataclass(frozen=True, slots=True)
class StoredRoom:
    """One stored room, checked for shape (not for whether it replays).

    Attributes:
        code: the room's invite code.
        created_at: when it was stored, seconds since the epoch.
        updated_at: when its last action was stored, seconds since the epoch.
        header: the JSON object stored at creation.
        actions: its actions in order.
    """

    code: str
    created_at: float
    updated_at: float
    header: dict[str, Any]
    actions: tuple[StoredAction, ...]


class RoomStore:
    """The online rooms of one database file; safe to share between threads.

    Args:
        path: the SQLite file (the local games' one; its folder is created when missing), or
            ``":memory:"`` for a store that lives as long as this object.
        synchronous: SQLite's ``synchronous`` for this connection: ``"NORMAL"`` (default;
            durable when the process dies, not when the power fails) or ``"FULL"``.
        now: wall-clock time for ``created_at``/``updated_at``, seconds since the epoch.

    Raises:
        StoredRoomError: the file is not an SQLite database.
        ValueError: ``synchronous`` is not one of :data:`SYNCHRONOUS`.
    """

    def __init__(self, path: str | Path, *, synchronous: str = "NORMAL",
                 now: Callable[[], float] = time.time) -> None:
        mode = str(synchronous).upper()
        if mode not in SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS)}, got "
                             f"{synchronous!r}")
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._now = now
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            with self._lock:
                if self.path != ":memory:":
                    self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute(f"PRAGMA synchronous={mode}")
                self._conn.execute("PRAGMA busy_timeout=5000")
                with self._transaction():
                    for statement in _SCHEMA:
                        self._conn.execute(statement)
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise StoredRoomError(f"{self.path} is not a games database: {exc}") from None

    @property
    def journal_mode(self) -> str:
        """SQLite's journal mode of the file (``"wal"`` for a file, ``"memory"`` in memory)."""
        with self._lock:
            return str(self._conn.execute("PRAGMA journal_mode").fetchone()[0])

    @property
    def synchronous(self) -> int:
        """SQLite's ``synchronous`` of this connection (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA)."""
        with self._lock:
            return int(self._conn.execute("PRAGMA synchronous").fetchone()[0])

    def close(self) -> None:
        """Close the database; the store cannot be used afterwards."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> RoomStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """One transaction (the caller holds the lock): committed, or rolled back on error."""
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    # Writes: each one transaction ------------------------------------------------------------

    def create(self, code: str, header: dict[str, Any]) -> None:
        """Store a new room's header (a room of that code must not be stored yet).

        Raises:
            StoredRoomError: ``header`` is not a JSON object (nothing is written).
            sqlite3.Error: the write failed (nothing is written).
        """
        text = _dumps(code, "header", header)
        stamp = self._now()
        with self._lock, self._transaction():
            self._conn.execute(
                "INSERT INTO online_rooms (code, created_at, updated_at, format, header) "
                "VALUES (?, ?, ?, ?, ?)", (code, stamp, stamp, ROOM_FORMAT, text))

    def append(self, code: str, seq: int, at: float, action: dict[str, Any]) -> None:
        """Store the room's action number ``seq`` (the next one) in one transaction.

        Args:
            code: the room.
            seq: the action's number: 1 + the number of actions stored for the room.
            at: the room's clock when it accepted the action, seconds.
            action: a JSON object with ``"kind"``.

        Raises:
            StoredRoomError: ``action`` is not a JSON object with a kind (nothing written).
            sqlite3.Error: the write failed, or ``seq`` is stored already (nothing written).
        """
        if not isinstance(action, dict) or not isinstance(action.get("kind"), str):
            raise StoredRoomError(f"room {code!r} action {seq}: an action is a JSON object "
                                  f"with a kind")
        text = _dumps(code, f"action {seq}", action)
        # One statement: when the room was last written is its newest action's wall time.
        with self._lock, self._transaction():
            self._conn.execute("INSERT INTO online_actions (code, seq, at, wall, action) "
                               "VALUES (?, ?, ?, ?, ?)", (code, seq, float(at), self._now(),
                                                          text))

    def delete(self, code: str) -> bool:
        """Forget a room and its actions (one transaction); returns whether it was stored."""
        with self._lock, self._transaction():
            self._conn.execute("DELETE FROM online_actions WHERE code = ?", (code,))
            cursor = self._conn.execute("DELETE FROM online_rooms WHERE code = ?", (code,))
        return cursor.rowcount > 0

    def delete_stale(self, before: float) -> list[str]:
        """Forget every room whose last write is older than ``before`` (seconds since the
        epoch), damaged ones included; returns their codes."""
        with self._lock, self._transaction():
            codes = [str(row[0]) for row in self._conn.execute(
                "SELECT code FROM online_rooms AS r WHERE COALESCE((SELECT MAX(wall) FROM "
                "online_actions AS a WHERE a.code = r.code), r.updated_at) < ?", (before,))]
            for code in codes:
                self._conn.execute("DELETE FROM online_actions WHERE code = ?", (code,))
                self._conn.execute("DELETE FROM online_rooms WHERE code = ?", (code,))
            # actions whose room row is gone (never written by this code; a damaged file)
            self._conn.execute("DELETE FROM online_actions WHERE code NOT IN "
                               "(SELECT code FROM online_rooms)")
        return codes

    def write_raw(self, table: str, row: tuple[Any, ...]) -> None:
        """Insert ``row`` into ``online_rooms`` or ``online_actions`` unchecked: for tests of
        damaged rows."""
        if table not in ("online_rooms", "online_actions"):
            raise ValueError(f"no table {table!r}")
        marks = ", ".join("?" * len(row))
        with self._lock:
            self._conn.execute(f"INSERT OR REPLACE INTO {table} VALUES ({marks})", row)

    # Reads --------------------------------------------------------------------------------

    def codes(self) -> list[str]:
        """Every stored room's code, oldest first."""
        with self._lock:
            return [str(row[0]) for row in self._conn.execute(
                "SELECT code FROM online_rooms ORDER BY created_at, code")]

    def count_actions(self, code: str) -> int:
        """How many actions are stored for the room."""
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM online_actions WHERE code = ?",
                                          (code,)).fetchone()[0])

    def load(self, code: str) -> StoredRoom:
        """One room with its actions, checked for shape.

        Raises:
            StoredRoomError: no such room, or a row that is damaged (the message names it).
        """
        with self._lock:
            row = self._conn.execute(
                "SELECT code, created_at, updated_at, format, header FROM online_rooms "
                "WHERE code = ?", (code,)).fetchone()
            actions = self._conn.execute(
                "SELECT seq, at, wall, action FROM online_actions WHERE code = ? ORDER BY seq",
                (code,)).fetchall()
        if row is None:
            raise StoredRoomError(f"no stored room {code!r}")
        return _checked(row, actions)

    def load_all(self) -> Iterator[tuple[str, StoredRoom | StoredRoomError]]:
        """Every stored room, oldest first: its code and the room checked, or the error that
        refuses it (one damaged room does not stop the others)."""
        for code in self.codes():
            try:
                yield code, self.load(code)
            except StoredRoomError as exc:
                yield code, exc


def _dumps(code: str, what: str, value: object) -> str:
    if not isinstance(value, dict):
        raise StoredRoomError(f"room {code!r} {what}: must be a JSON object, got "
                              f"{type(value).__name__}")
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoredRoomError(f"room {code!r} {what}: not JSON ({exc})") from None


def _object(code: str, what: str, text: object) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str | bytes) else None
    except ValueError as exc:
        raise StoredRoomError(f"stored room {code!r} is damaged: its {what} is not valid JSON "
                              f"({exc})") from None
    if not isinstance(value, dict):
        raise StoredRoomError(f"stored room {code!r} is damaged: its {what} is not a JSON "
                              f"object")
    return value


def _checked(row: tuple[Any, ...], rows: list[tuple[Any, ...]]) -> StoredRoom:
    code, created, updated, fmt, header_text = row
    code = str(code)
    if fmt != ROOM_FORMAT:
        raise StoredRoomError(f"stored room {code!r} has format {fmt!r}; this program reads "
                              f"format {ROOM_FORMAT}")
    header = _object(code, "header", header_text)
    if not isinstance(header.get("settings"), dict):
        raise StoredRoomError(f"stored room {code!r} is damaged: its header has no settings "
                              f"object")
    actions = []
    walls = [updated]
    for index, (seq, at, wall, text) in enumerate(rows, start=1):
        if seq != index:
            raise StoredRoomError(f"stored room {code!r} is damaged: action {index} is "
                                  f"missing (found {seq!r})")
        for value in (at, wall):
            if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
                raise StoredRoomError(f"stored room {code!r} is damaged: action {seq} has no "
                                      f"time")
        walls.append(wall)
        action = _object(code, f"action {seq}", text)
        if not isinstance(action.get("kind"), str):
            raise StoredRoomError(f"stored room {code!r} is damaged: action {seq} has no "
                                  f"kind")
        actions.append(StoredAction(int(seq), float(at), action))
    try:
        stamps = float(created), max(float(w) for w in walls)
    except (TypeError, ValueError):
        raise StoredRoomError(f"stored room {code!r} is damaged: its times are not "
                              f"numbers") from None
    return StoredRoom(code, stamps[0], stamps[1], header, tuple(actions))


__all__ = [
    "ROOM_FORMAT",
    "SYNCHRONOUS",
    "RoomStore",
    "StoredAction",
    "StoredRoom",
    "StoredRoomError",
]
