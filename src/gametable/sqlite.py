"""One way to open the games' SQLite file, for every store that keeps a table of its own in it.

The server's stores (saved games, saved positions, the browsers' records, tables, rooms) share
one database file and each holds one connection to it, used by the server's worker threads
one at a time. :class:`Database` opens that connection the same way for all of them:

* ``check_same_thread=False`` and one :class:`threading.Lock` (:attr:`Database.lock`) around
  every use: the connection is shared by the threads, never used by two at once.
* ``isolation_level=None``: autocommit; a store that needs several statements at once takes
  :meth:`Database.transaction` (``BEGIN IMMEDIATE``: the write lock is taken at the start, so
  a transaction never fails half-way for a lock another connection holds).
* A busy timeout (:data:`BUSY_TIMEOUT` seconds): a write waits that long for another
  connection's (another store's, another process's) before ``database is locked``.
* ``journal_mode=WAL`` for a file (not ``":memory:"``): readers do not block the writer nor
  the writer the readers; the mode is the file's, kept once set.
* ``synchronous=NORMAL`` (the connection's): in WAL mode a commit is not synced to disk until
  the next checkpoint. The file cannot be corrupted; a power cut (not a crash of the
  process) may lose the last commits. The records kept here are worth a faster write.
* ``wal_autocheckpoint`` when a store asks for it (the connection's): 0 for a store that
  checkpoints the WAL itself, off its writers' thread (:class:`gametable.room_store.RoomStore`),
  so that no commit pays for a checkpoint.
* The schema: the store's statements (``CREATE TABLE IF NOT EXISTS ...``, or a function that
  also upgrades an older file), run in one transaction when the file is opened.

The folder of the file is made when missing. A store that must refuse a file before anything
is written to it (a file of another program, of a newer schema) passes ``check``: it reads
the connection before the journal mode or the schema change anything.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

__all__ = ["BUSY_TIMEOUT", "Database"]

#: Seconds a statement waits for another connection's write lock before it fails.
BUSY_TIMEOUT: Final = 10.0

#: What :class:`Database` runs to make (or upgrade) a store's tables: statements, or a function
#: of the connection.
Setup = Sequence[str] | Callable[[sqlite3.Connection], None]


class Database:
    """One store's connection to an SQLite file, and the lock its threads share it by.

    Args:
        path: the file (its folder is made when missing), or ``":memory:"`` (a database that
            lives as long as this object).
        setup: the store's schema: statements, or a function of the connection; run in one
            transaction (rolled back if it raises).
        check: run first, on the bare connection (for a store that refuses a file before
            changing it); what it raises is raised.
        busy_timeout: seconds a statement waits for another connection's lock.
        wal_autocheckpoint: the connection's ``PRAGMA wal_autocheckpoint`` (pages of WAL
            after which a commit checkpoints it; 0: never), or None for SQLite's own (1000).

    Raises:
        sqlite3.Error: the file cannot be opened, or is not an SQLite database (the
            connection is closed).
        whatever ``check`` or ``setup`` raises (the connection is closed).
    """

    def __init__(self, path: str | Path, setup: Setup = (), *,
                 check: Callable[[sqlite3.Connection], None] | None = None,
                 busy_timeout: float = BUSY_TIMEOUT,
                 wal_autocheckpoint: int | None = None) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()
        self.conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                    timeout=busy_timeout)
        try:
            with self.lock:
                if check is not None:
                    check(self.conn)
                if self.path != ":memory:":
                    self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
                if wal_autocheckpoint is not None:
                    self.conn.execute(f"PRAGMA wal_autocheckpoint={int(wal_autocheckpoint)}")
            with self.transaction() as conn:
                if callable(setup):
                    setup(conn)
                else:
                    for statement in setup:
                        conn.execute(statement)
        except BaseException:
            self.conn.close()
            raise

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock and one ``BEGIN IMMEDIATE`` transaction: committed when the block
        ends, rolled back (and the error raised) when it raises."""
        with self.lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def write(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        """Run one statement under the lock; how many rows it changed."""
        with self.lock:
            return self.conn.execute(sql, parameters).rowcount

    def read(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        """Run one query under the lock; all its rows."""
        with self.lock:
            return self.conn.execute(sql, parameters).fetchall()

    def close(self) -> None:
        """Close the connection (after the statement in progress, if any)."""
        with self.lock:
            self.conn.close()
