"""Online rooms saved in SQLite (standard library :mod:`sqlite3`), for every game.

Each room is one row: its code, game, creator's address, wall-clock times and its record
(:meth:`gametable.room.Room.to_record`: the table's record, which replays the game from its
event log, with the room's seats, names and round), written whole after every accepted
message in one transaction, before the door relays it: a restart rebuilds every room as the
players last saw it. The version number goes up by one with every write, and a write whose
expected version is not the stored one is refused (:class:`StaleRoomError`), so two writers
never both win.

What is stored is bounded: one record at most ``max_record_bytes``; a save past it is refused
with :class:`RoomStoreFullError` and the row keeps the last record saved.
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

#: The most bytes one room's record may hold.
DEFAULT_MAX_RECORD_BYTES: Final = 2 * 1024 * 1024

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS table_rooms (
    code       TEXT PRIMARY KEY,
    game       TEXT NOT NULL,
    owner      TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    version    INTEGER NOT NULL,
    record     TEXT NOT NULL
)
"""


class RoomStoreFullError(TableError, ValueError):
    """A record larger than the store takes; nothing was written."""


class StaleRoomError(TableError, RuntimeError):
    """A write from a writer that did not see the room's last version; nothing was written."""


@dataclass(frozen=True, slots=True)
class StoredRoom:
    """A row: the room's code, game, creator's address, wall-clock times (seconds since the
    epoch), version and record (a record that is not a JSON object reads as ``{}``)."""

    code: str
    game: str
    owner: str | None
    created_at: float
    updated_at: float
    version: int
    record: dict[str, Any]


class RoomStore:
    """The rooms of one SQLite file (the server's database file; a table of its own).

    Args:
        path: the database file (``":memory:"`` for tests).
        max_record_bytes: the bound on one record.
    """

    def __init__(
        self, path: str | Path, *, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
    ) -> None:
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self.max_record_bytes = max_record_bytes
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)

    def save(
        self, code: str, game: str, owner: str | None, version: int, record: dict[str, Any]
    ) -> None:
        """Write a room's row at ``version`` (1 for a new room; else one more than the stored
        one), in one transaction.

        Raises:
            RoomStoreFullError: the record is larger than ``max_record_bytes``.
            StaleRoomError: the stored version is not ``version - 1``.
        """
        text = json.dumps(record, separators=(",", ":"))
        size = len(text.encode())
        if size > self.max_record_bytes:
            raise RoomStoreFullError(
                f"the room's record would hold {size} bytes, more than {self.max_record_bytes}"
            )
        now = time.time()
        with self._lock:
            if version == 1:
                try:
                    self._db.execute(
                        "INSERT INTO table_rooms (code, game, owner, created_at, updated_at,"
                        " version, record) VALUES (?, ?, ?, ?, ?, 1, ?)",
                        (code, game, owner, now, now, text),
                    )
                except sqlite3.IntegrityError:
                    raise StaleRoomError(f"room {code} exists already") from None
                return
            cursor = self._db.execute(
                "UPDATE table_rooms SET updated_at = ?, version = ?, record = ?"
                " WHERE code = ? AND version = ?",
                (now, version, text, code, version - 1),
            )
            if cursor.rowcount != 1:
                raise StaleRoomError(f"room {code} is not at version {version - 1}")

    def load_all(self) -> list[StoredRoom]:
        """Every stored room, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT code, game, owner, created_at, updated_at, version, record"
                " FROM table_rooms ORDER BY created_at"
            ).fetchall()
        result = []
        for code, game, owner, created, updated, version, text in rows:
            try:
                record = json.loads(text)
            except ValueError:
                record = {}
            result.append(
                StoredRoom(
                    code, game, owner, created, updated, version,
                    record if isinstance(record, dict) else {},
                )
            )
        return result

    def delete(self, code: str) -> None:
        """Forget a room."""
        with self._lock:
            self._db.execute("DELETE FROM table_rooms WHERE code = ?", (code,))

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._db.close()
