"""Tables saved in SQLite (opened by :class:`gametable.sqlite.Database`): each table is one row
holding its record (:meth:`gametable.table.Table.to_record`), written whole after every action
in one transaction, so a table survives a reload and a server restart.

What is stored is bounded: one record at most ``max_record_bytes``; a save past it is refused
with :class:`TableStoreFullError` and the row keeps the last record saved.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from gametable.errors import TableError
from gametable.sqlite import Database

#: The most bytes one table's record may hold.
DEFAULT_MAX_RECORD_BYTES: Final = 2 * 1024 * 1024

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS tables (
    id         TEXT PRIMARY KEY,
    game       TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    owner      TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    record     TEXT NOT NULL
)
"""


class TableStoreFullError(TableError, ValueError):
    """A record larger than the store takes; nothing was written."""


@dataclass(frozen=True, slots=True)
class StoredTable:
    """A row: the table's id, its game, the hash of its token, who made it, and its record."""

    id: str
    game: str
    token_hash: str
    owner: str | None
    record: dict[str, Any]


class TableStore:
    """The tables of one SQLite file (the server's database file; a table of its own).

    Args:
        path: the database file (``":memory:"`` for tests).
        max_record_bytes: the bound on one record.
    """

    def __init__(
        self, path: str | Path, *, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES
    ) -> None:
        self._db = Database(path, (_SCHEMA,))
        self.max_record_bytes = max_record_bytes

    def save(self, stored: StoredTable) -> None:
        """Write a table's row (insert or replace), in one transaction.

        Raises:
            TableStoreFullError: the record is larger than ``max_record_bytes``.
        """
        text = json.dumps(stored.record, separators=(",", ":"))
        if len(text.encode()) > self.max_record_bytes:
            raise TableStoreFullError(
                f"the table's record would hold {len(text.encode())} bytes, "
                f"more than {self.max_record_bytes}"
            )
        now = time.time()
        self._db.write(
            "INSERT INTO tables (id, game, token_hash, owner, created_at, updated_at, record)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET"
            " updated_at = excluded.updated_at, record = excluded.record",
            (stored.id, stored.game, stored.token_hash, stored.owner, now, now, text),
        )

    def load(self, table_id: str) -> StoredTable | None:
        """The row of ``table_id``, or None. A record that is not a JSON object reads as
        ``{}`` (the caller refuses it when it rebuilds the table)."""
        rows = self._db.read(
            "SELECT id, game, token_hash, owner, record FROM tables WHERE id = ?", (table_id,)
        )
        if not rows:
            return None
        row = rows[0]
        try:
            record = json.loads(row[4])
        except ValueError:
            record = {}
        if not isinstance(record, dict):
            record = {}
        return StoredTable(row[0], row[1], row[2], row[3], record)

    def count_by_owner(self, owner: str | None) -> int:
        """How many tables ``owner`` (a client address) has made."""
        ((count,),) = self._db.read("SELECT COUNT(*) FROM tables WHERE owner IS ?", (owner,))
        return int(count)

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()
