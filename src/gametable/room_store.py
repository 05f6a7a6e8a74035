"""Online rooms saved in SQLite (opened by :class:`gametable.sqlite.Database`), for every game.

A room is stored as a **snapshot and the steps since**, written before the door relays each
accepted message:

* ``table_rooms``, one row a room: its code, game, creator's address, wall-clock times, and
  a snapshot (:meth:`gametable.room.Room.to_record`: the table's record, which replays the
  game from its event log, with the room's seats, names and round) at the version it was
  taken, written whole (:meth:`RoomStore.save`) when the room is made, at a new game, at a
  step that cannot be replayed (a join, a claim, a flag) and every so many steps;
* ``table_room_steps``, one small row an accepted message since the snapshot
  (:meth:`RoomStore.append`: the message and the instant it was taken, which
  :class:`~gametable.rooms.RoomService` replays onto the snapshot at a restore). A snapshot
  deletes the steps it holds.

So a message costs one short row, not the whole record rewritten (which grows with the game).
A store written before steps existed (snapshots only) reads as it was.

The version number goes up by one with every write (a snapshot or a step), and a write whose
expected version is not the stored one is refused (:class:`StaleRoomError`), so two writers
never both win.

The WAL is checkpointed off the writer's thread: the writing connection never checkpoints by
itself (``wal_autocheckpoint`` off, an option of :class:`~gametable.sqlite.Database`); every
:data:`CHECKPOINT_EVERY` writes a worker thread runs a passive checkpoint on a connection of
its own, which blocks no writer, then copies what was written meanwhile (a few pages) with
the writers held (the :class:`~gametable.sqlite.Database`'s lock), so that the next write
starts the WAL over: a WAL that writes keep growing is never checkpointed whole, and never
starts over.

What is stored is bounded: one record (a snapshot, or a step) at most ``max_record_bytes``; a
write past it is refused with :class:`RoomStoreFullError` and nothing is written.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from gametable.errors import TableError
from gametable.sqlite import Database

#: The most bytes one room's record may hold.
DEFAULT_MAX_RECORD_BYTES: Final = 2 * 1024 * 1024
#: Writes between two checkpoints of the WAL (each in a worker thread).
CHECKPOINT_EVERY: Final = 500

_SCHEMA: Final = (
    """
CREATE TABLE IF NOT EXISTS table_rooms (
    code       TEXT PRIMARY KEY,
    game       TEXT NOT NULL,
    owner      TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    version    INTEGER NOT NULL,
    record     TEXT NOT NULL
)
""",
    """
CREATE TABLE IF NOT EXISTS table_room_steps (
    code     TEXT NOT NULL,
    version  INTEGER NOT NULL,
    saved_at REAL NOT NULL,
    step     TEXT NOT NULL,
    PRIMARY KEY (code, version)
) WITHOUT ROWID
""",
)

# The stored version of a room is its snapshot's, or its last step's: a write at ``version``
# needs ``version - 1`` stored and ``version`` not (the steps' key refuses a second one).
_AT_PREVIOUS: Final = (
    "((SELECT version FROM table_rooms WHERE code = :code) = :version - 1"
    " OR EXISTS (SELECT 1 FROM table_room_steps WHERE code = :code"
    " AND version = :version - 1))"
    " AND NOT EXISTS (SELECT 1 FROM table_room_steps WHERE code = :code"
    " AND version >= :version)"
)


class RoomStoreFullError(TableError, ValueError):
    """A record larger than the store takes; nothing was written."""


class StaleRoomError(TableError, RuntimeError):
    """A write from a writer that did not see the room's last version; nothing was written."""


@dataclass(frozen=True, slots=True)
class StoredRoom:
    """A room as stored: its code, game, creator's address, wall-clock times (seconds since
    the epoch: ``updated_at`` is its last write's), version (its last write's), snapshot
    ``record`` (a record that is not a JSON object reads as ``{}``) and the ``steps`` since
    the snapshot, oldest first (each a JSON object, ``{}`` where it is not one)."""

    code: str
    game: str
    owner: str | None
    created_at: float
    updated_at: float
    version: int
    record: dict[str, Any]
    steps: tuple[dict[str, Any], ...] = ()

    @property
    def snapshot_version(self) -> int:
        """The snapshot's version (the first step's is one more)."""
        return self.version - len(self.steps)


def _object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class RoomStore:
    """The rooms of one SQLite file (the server's database file; tables of their own).

    Args:
        path: the database file (``":memory:"`` for tests).
        max_record_bytes: the bound on one record.
        checkpoint_every: writes between two checkpoints in a worker thread (0: SQLite's own,
            in the writer's thread).
    """

    def __init__(
        self, path: str | Path, *, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
        checkpoint_every: int = CHECKPOINT_EVERY,
    ) -> None:
        self._path = str(path)
        self.max_record_bytes = max_record_bytes
        self._memory = self._path == ":memory:" or self._path.startswith("file::memory:")
        self.checkpoint_every = 0 if self._memory else max(0, checkpoint_every)
        # the writer never checkpoints by itself when the worker does (wal_autocheckpoint 0)
        self._database = Database(self._path, _SCHEMA,
                                  wal_autocheckpoint=0 if self.checkpoint_every else None)
        self._db, self._lock = self._database.conn, self._database.lock
        self._writes = 0
        self._checkpointing: threading.Thread | None = None
        self._checkpoint_db: sqlite3.Connection | None = None
        #: Checkpoints run, and how many failed (logged by nobody: the next one tries again).
        self.checkpoints = 0

    def _checked(self, text: str, what: str) -> None:
        size = len(text.encode())
        if size > self.max_record_bytes:
            raise RoomStoreFullError(
                f"the room's {what} would hold {size} bytes, more than {self.max_record_bytes}"
            )

    def save(
        self, code: str, game: str, owner: str | None, version: int, record: dict[str, Any]
    ) -> str:
        """Write a room's snapshot at ``version`` (1 for a new room; else one more than the
        stored one), its steps dropped, in one transaction; returns the record's JSON text.

        Raises:
            RoomStoreFullError: the record is larger than ``max_record_bytes``.
            StaleRoomError: the stored version is not ``version - 1``.
        """
        text = json.dumps(record, separators=(",", ":"))
        self._checked(text, "record")
        now = time.time()
        if version == 1:
            with self._lock:
                try:
                    self._db.execute(
                        "INSERT INTO table_rooms (code, game, owner, created_at, updated_at,"
                        " version, record) VALUES (?, ?, ?, ?, ?, 1, ?)",
                        (code, game, owner, now, now, text),
                    )
                except sqlite3.IntegrityError:
                    raise StaleRoomError(f"room {code} exists already") from None
                self._wrote()
            return text
        with self._database.transaction() as db:
            cursor = db.execute(
                "UPDATE table_rooms SET updated_at = :now, version = :version,"
                f" record = :record WHERE code = :code AND {_AT_PREVIOUS}",
                {"now": now, "version": version, "record": text, "code": code},
            )
            if cursor.rowcount != 1:
                raise StaleRoomError(f"room {code} is not at version {version - 1}")
            db.execute("DELETE FROM table_room_steps WHERE code = ?", (code,))
            self._wrote()
        return text

    def append(self, code: str, version: int, step: str) -> None:
        """Write one step of a room at ``version`` (one more than the stored one): ``step``
        is its JSON text (an object), kept as it is.

        Raises:
            RoomStoreFullError: the step is larger than ``max_record_bytes``.
            StaleRoomError: the stored version is not ``version - 1``.
        """
        self._checked(step, "step")
        with self._lock:
            try:
                cursor = self._db.execute(
                    "INSERT INTO table_room_steps (code, version, saved_at, step)"
                    f" SELECT :code, :version, :now, :step WHERE {_AT_PREVIOUS}",
                    {"code": code, "version": version, "now": time.time(), "step": step},
                )
            except sqlite3.IntegrityError:
                raise StaleRoomError(f"room {code} has a version {version} already") from None
            if cursor.rowcount != 1:
                raise StaleRoomError(f"room {code} is not at version {version - 1}")
            self._wrote()

    def _wrote(self) -> None:
        """Count a write (the lock held); every ``checkpoint_every`` writes, a checkpoint in
        a worker thread unless one is running."""
        if not self.checkpoint_every:
            return
        self._writes += 1
        if self._writes < self.checkpoint_every:
            return
        running = self._checkpointing
        if running is not None and running.is_alive():
            return
        self._writes = 0
        self._checkpointing = threading.Thread(
            target=self._checkpoint, name="room-store-checkpoint", daemon=True
        )
        self._checkpointing.start()

    def _checkpoint(self) -> None:
        """A passive checkpoint (it waits on no writer and blocks none) on the worker's own
        connection, then another of the frames written meanwhile with this store's writers
        held (the next write then starts the WAL over); a failure is left for the next
        one."""
        try:
            if self._checkpoint_db is None:
                self._checkpoint_db = sqlite3.connect(
                    self._path, check_same_thread=False, isolation_level=None
                )
            db = self._checkpoint_db
            db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            with self._lock:  # what was written meanwhile: the next write starts the WAL over
                db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            self.checkpoints += 1
        except sqlite3.Error:
            pass

    def load_all(self) -> list[StoredRoom]:
        """Every stored room, oldest first, with its steps since its snapshot."""
        with self._lock:
            rows = self._db.execute(
                "SELECT code, game, owner, created_at, updated_at, version, record"
                " FROM table_rooms ORDER BY created_at"
            ).fetchall()
            step_rows = self._db.execute(
                "SELECT code, version, saved_at, step FROM table_room_steps"
                " ORDER BY code, version"
            ).fetchall()
        steps: dict[str, list[tuple[int, float, str]]] = {}
        for code, version, saved_at, text in step_rows:
            steps.setdefault(code, []).append((version, saved_at, text))
        result = []
        for code, game, owner, created, updated, version, text in rows:
            after = [s for s in steps.get(code, []) if s[0] > version]
            if after:
                version, updated = after[-1][0], max(updated, after[-1][1])
            result.append(
                StoredRoom(
                    code, game, owner, created, updated, version, _object(text),
                    tuple(_object(s[2]) for s in after),
                )
            )
        return result

    def delete(self, code: str) -> None:
        """Forget a room (its snapshot and its steps)."""
        with self._database.transaction() as db:
            db.execute("DELETE FROM table_room_steps WHERE code = ?", (code,))
            db.execute("DELETE FROM table_rooms WHERE code = ?", (code,))

    def close(self) -> None:
        """Close the database connections (a checkpoint running is waited for)."""
        running = self._checkpointing
        if running is not None:
            running.join()
        with self._lock:
            if self._checkpoint_db is not None:
                self._checkpoint_db.close()
                self._checkpoint_db = None
        self._database.close()
