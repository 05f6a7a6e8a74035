"""The one store of local play, for every game: a JSON record per id in SQLite (standard
library :mod:`sqlite3`), the server's database file, table ``games``.

Both local doors keep their games here: backgammon's (``/api/games``,
:class:`backgammon.services.session.GameService`: a session's settings and event log, DESIGN.md
"A game is its event log") and the table's own (``/api/tables``,
:class:`gametable.service.TableService`: :meth:`gametable.table.Table.to_record` with the hash
of the table's token under :data:`TOKEN_HASH_KEY`). Each game is one row holding its *record*;
the whole record is written after every action, in one transaction, so a game survives a
reload, a browser restart and a server restart with the dice already thrown. The store checks
that a record is well-formed JSON of the right shape; the door that reads it checks that its
log replays (and refuses it with a clear message when it does not), and each door refuses the
other's rows: a table's record holds a token's hash, a local backgammon session's never does.

What is stored is bounded: one game's record at most ``max_record_bytes``, the games of one
browser (``record["browser"]``) ``max_browser_bytes`` together, and the games one client
address started (its *owner*, kept beside the record) ``max_owner_bytes``. A save that would
pass a bound (a new game, or a record growing) is refused with :class:`StorageFullError` and
nothing is written: the game stays as it was last saved.

The file is opened by :class:`gametable.sqlite.Database` (WAL, ``synchronous=NORMAL``, a busy
timeout; a file of another schema version is refused before anything is written to it). The
tables the old ``TableStore`` kept in a table of their own (``tables``) are moved into this one
when the file is opened, in the same transaction as the schema (:func:`_migrate_tables`); a row
that cannot be read stays where it was, logged.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from gametable.errors import TableError
from gametable.sqlite import Database

_LOG = logging.getLogger(__name__)

#: Version of the record format written by this code; older or newer records are refused.
RECORD_FORMAT: Final = 1
#: Version of the database schema (SQLite ``PRAGMA user_version``): 2 adds each game's owner
#: (the client address that started it), its browser and its size, for the bounds (a file of
#: version 1 is brought up to 2 when opened).
SCHEMA_VERSION: Final = 2
#: The most bytes one game's record may hold (a money session of some hundreds of games).
DEFAULT_MAX_RECORD_BYTES: Final = 4 * 1024 * 1024
#: The most bytes the games of one browser may hold together.
DEFAULT_MAX_BROWSER_BYTES: Final = 16 * 1024 * 1024
#: The most bytes the games one client address started may hold together.
DEFAULT_MAX_OWNER_BYTES: Final = 32 * 1024 * 1024
#: The key under which a table's record (:class:`gametable.service.TableService`) holds the
#: SHA-256 hash of its token; no other door's record has it.
TOKEN_HASH_KEY: Final = "token_hash"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id         TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    format     INTEGER NOT NULL,
    record     TEXT NOT NULL
)
"""
#: Version 2: who stored each game and how large it is (for the bounds).
_SCHEMA_2: Final = (
    "ALTER TABLE games ADD COLUMN owner TEXT",
    "ALTER TABLE games ADD COLUMN browser TEXT",
    "ALTER TABLE games ADD COLUMN size INTEGER NOT NULL DEFAULT 0",
    "UPDATE games SET size = LENGTH(CAST(record AS BLOB)), browser = CASE WHEN "
    "json_valid(record) AND json_type(record, '$.browser') = 'text' THEN "
    "json_extract(record, '$.browser') END",
    "CREATE INDEX IF NOT EXISTS games_owner ON games (owner)",
    "CREATE INDEX IF NOT EXISTS games_browser ON games (browser)",
)


class StoredGameError(TableError):
    """A saved game that cannot be used: unreadable JSON, a wrong shape, or a log that does
    not replay. The message names the game and the problem; the row is left as it is."""


class GameNotFoundError(TableError, LookupError):
    """No saved game has the id asked for."""


class StorageFullError(TableError):
    """A save refused because it would pass a bound of the store (a game's record, a
    browser's games, a client address's games); nothing was written. The message says which
    and what to do."""


@dataclass(frozen=True, slots=True)
class StoredGame:
    """One row of the store.

    Attributes:
        id: the game's id (URL-safe text).
        created_at: when it was first saved, seconds since the epoch.
        updated_at: when it was last saved, seconds since the epoch.
        record: the JSON object saved: at least ``"settings"`` (an object) and ``"log"`` (the
            event log: an object or a list).
        size: the bytes the record takes in the store (not compared).
    """

    id: str
    created_at: float
    updated_at: float
    record: dict[str, Any]
    size: int = field(default=0, compare=False)


class GameStore:
    """Saved games, one SQLite database; safe to share between threads.

    Args:
        path: the database file (its folder is created when missing), or ``":memory:"`` for a
            store that lives as long as this object.
        now: the clock for the timestamps, seconds since the epoch (injected for tests).
        max_record_bytes: the most bytes one game's record may hold.
        max_browser_bytes: the most bytes the games of one browser may hold together.
        max_owner_bytes: the most bytes the games of one owner (a client address) may hold
            together.

    Raises:
        StoredGameError: the file is not an SQLite database, or one of another schema version.
        sqlite3.Error: the file cannot be opened (a folder that cannot be written, ...).
    """

    def __init__(self, path: str | Path, *, now: Callable[[], float] = time.time,
                 max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
                 max_browser_bytes: int = DEFAULT_MAX_BROWSER_BYTES,
                 max_owner_bytes: int = DEFAULT_MAX_OWNER_BYTES) -> None:
        self.path = str(path)
        self._now = now
        self.max_record_bytes = max_record_bytes
        self.max_browser_bytes = max_browser_bytes
        self.max_owner_bytes = max_owner_bytes
        # Bytes stored by each browser and owner met so far (read once from the file, then
        # kept up to date by this store's writes: it is the file's only writer of games).
        self._usage: dict[tuple[str, str], int] = {}
        try:
            self._db = Database(self.path, self._setup, check=self._check)
        except sqlite3.OperationalError:
            raise  # (the file cannot be opened)
        except sqlite3.DatabaseError as exc:
            raise StoredGameError(f"{self.path} is not a games database: {exc}") from None
        # One connection shared by the worker threads, serialised by the lock.
        self._conn, self._lock = self._db.conn, self._db.lock

    def _check(self, conn: sqlite3.Connection) -> None:
        """Refuse a file of another schema version before anything is written to it."""
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, 1, SCHEMA_VERSION):
            raise StoredGameError(
                f"{self.path}: database schema version {version} is not one this program "
                f"reads (expected {SCHEMA_VERSION})"
            )

    @staticmethod
    def _setup(conn: sqlite3.Connection) -> None:
        """The games' table, upgraded from version 1 (each game's owner, browser and size),
        and the old ``TableStore``'s rows moved in (one transaction)."""
        conn.execute(_SCHEMA)
        if "owner" not in {row[1] for row in conn.execute("PRAGMA table_info(games)")}:
            for statement in _SCHEMA_2:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        _migrate_tables(conn)

    def close(self) -> None:
        """Close the database; the store cannot be used afterwards."""
        self._db.close()

    def __enter__(self) -> GameStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def save(self, game_id: str, record: dict[str, Any], *, owner: str | None = None) -> int:
        """Write a game's whole record (insert or replace) in one transaction.

        Args:
            game_id: the game's id.
            record: a JSON-serialisable object with ``"settings"`` (an object) and ``"log"``
                (an object or a list).
            owner: the client address that started the game (kept from its first save; a
                later save's is ignored); None: the server's own, bounded per browser only.

        Raises:
            StoredGameError: the record does not have that shape (nothing is written).
            StorageFullError: the record would pass a bound (nothing is written; a record
                that does not grow is always written).

        Returns:
            The bytes the record takes in the store.
        """
        _check_record(game_id, record)
        text = json.dumps({"format": RECORD_FORMAT, **record}, separators=(",", ":"))
        size = len(text.encode())
        browser = record.get("browser")
        browser = browser if isinstance(browser, str) else None
        stamp = self._now()
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                row = self._conn.execute("SELECT owner, browser, size FROM games WHERE id = ?",
                                         (game_id,)).fetchone()
                old_owner, old_browser, old_size = (owner, None, 0) if row is None else row
                changes = self._bounded(game_id, size, old_size, (
                    ("browser", browser, old_browser, self.max_browser_bytes),
                    ("owner", old_owner, old_owner, self.max_owner_bytes)))
                self._conn.execute(
                    "INSERT INTO games (id, created_at, updated_at, format, record, owner, "
                    "browser, size) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT(id) DO UPDATE SET updated_at = excluded.updated_at, "
                    "format = excluded.format, record = excluded.record, "
                    "browser = excluded.browser, size = excluded.size",
                    (game_id, stamp, stamp, RECORD_FORMAT, text, old_owner, browser, size),
                )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            for key, delta in changes:
                self._usage[key] = self._usage[key] + delta
        return size

    def _bounded(self, game_id: str, size: int, old_size: int,
                 keys: tuple[tuple[str, str | None, str | None, int], ...]
                 ) -> list[tuple[tuple[str, str], int]]:
        """Check a save of ``size`` bytes over ``old_size`` against the bounds (the lock
        held); returns the changes to the usage to make once it is written.

        Raises:
            StorageFullError: the record grows past a bound.
        """
        grows = size > old_size
        if grows and size > self.max_record_bytes:
            raise StorageFullError(
                f"this game's record has reached {self.max_record_bytes:,} bytes, the most "
                "one game may keep: start a new game to play on")
        changes: list[tuple[tuple[str, str], int]] = []
        for kind, value, old_value, limit in keys:
            if value is not None:
                key = (kind, value)
                had = old_size if old_value == value else 0
                used = self._used(key)
                if size > had and used - had + size > limit:
                    whose = "this browser's games" if kind == "browser" else \
                        "the games started from your address"
                    raise StorageFullError(
                        f"{whose} hold {limit:,} bytes, their most: start over (or finish "
                        "a game) in place of starting another")
                changes.append((key, size - had))
            if old_value is not None and old_value != value:
                self._used((kind, old_value))
                changes.append(((kind, old_value), -old_size))
        return changes

    def _used(self, key: tuple[str, str]) -> int:
        """Bytes the games of a browser or owner hold (the lock held)."""
        if key not in self._usage:
            column = "browser" if key[0] == "browser" else "owner"
            (total,) = self._conn.execute(
                f"SELECT COALESCE(SUM(size), 0) FROM games WHERE {column} = ?",
                (key[1],)).fetchone()
            self._usage[key] = int(total)
        return self._usage[key]

    def load(self, game_id: str) -> StoredGame:
        """Read one saved game and check its shape (not its rules: the game service replays).

        Raises:
            GameNotFoundError: no game has this id.
            StoredGameError: the row is not valid JSON of the expected shape or format.
        """
        with self._lock:
            row = self._conn.execute(
                "SELECT id, created_at, updated_at, format, record FROM games WHERE id = ?",
                (game_id,),
            ).fetchone()
        if row is None:
            raise GameNotFoundError(f"no saved game has the id {game_id!r}")
        stored_id, created, updated, fmt, text = row
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise StoredGameError(
                f"saved game {game_id!r} is damaged: its record is not valid JSON ({exc})"
            ) from None
        if not isinstance(data, dict):
            raise StoredGameError(
                f"saved game {game_id!r} is damaged: its record is "
                f"{type(data).__name__}, not a JSON object"
            )
        if fmt != RECORD_FORMAT or data.get("format") != RECORD_FORMAT:
            raise StoredGameError(
                f"saved game {game_id!r} has record format {data.get('format', fmt)!r}; "
                f"this program reads format {RECORD_FORMAT}"
            )
        data.pop("format")
        _check_record(game_id, data, damaged=True)
        return StoredGame(str(stored_id), float(created), float(updated), data,
                          len(text.encode()) if isinstance(text, str) else 0)

    def exists(self, game_id: str) -> bool:
        """Whether a game with this id is saved."""
        with self._lock:
            row = self._conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone()
        return row is not None

    def delete(self, game_id: str) -> bool:
        """Remove a saved game; returns whether there was one."""
        with self._lock:
            self._usage.clear()  # (read again when next needed)
            cursor = self._conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
        return cursor.rowcount > 0

    def usage(self, *, browser: str | None = None, owner: str | None = None) -> int:
        """Bytes the games of ``browser`` (or of ``owner``, a client address) hold."""
        with self._lock:
            if browser is not None:
                return self._used(("browser", browser))
            return 0 if owner is None else self._used(("owner", owner))

    def count_by_owner(self, owner: str | None, *, having: str | None = None) -> int:
        """How many games ``owner`` (a client address; None: the server's own) stored; with
        ``having``, only those whose record has that key (``TOKEN_HASH_KEY``: the tables)."""
        sql = "SELECT COUNT(*) FROM games WHERE owner IS ?"
        parameters: tuple[str | None, ...] = (owner,)
        if having is not None:
            sql += " AND json_valid(record) AND json_type(record, ?) IS NOT NULL"
            parameters += (f"$.{json.dumps(having)}",)
        with self._lock:
            (count,) = self._conn.execute(sql, parameters).fetchone()
        return int(count)

    def list_ids(self, limit: int = 20) -> list[tuple[str, float]]:
        """The most recently saved games: ``(id, updated_at)``, newest first, at most ``limit``."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, updated_at FROM games ORDER BY updated_at DESC, id LIMIT ?",
                (limit,),
            ).fetchall()
        return [(str(i), float(u)) for i, u in rows]

    def ids_for_browser(self, browser: str, limit: int = 20) -> list[tuple[str, float]]:
        """The games saved with ``record["browser"] == browser`` (the page's anonymous id),
        newest first: ``(id, updated_at)``, at most ``limit`` (by the indexed ``browser``
        column, which each save sets from the record)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, updated_at FROM games WHERE browser = ? "
                "ORDER BY updated_at DESC, id LIMIT ?",
                (browser, limit),
            ).fetchall()
        return [(str(i), float(u)) for i, u in rows]

    def write_raw(self, game_id: str, text: str) -> None:
        """Store ``text`` as a game's record unchecked: for tests of damaged saves and repairs."""
        stamp = self._now()
        try:
            browser = json.loads(text).get("browser")
        except (ValueError, AttributeError):
            browser = None
        with self._lock:
            self._usage.clear()
            self._conn.execute(
                "INSERT OR REPLACE INTO games (id, created_at, updated_at, format, record, "
                "browser, size) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, stamp, stamp, RECORD_FORMAT, text,
                 browser if isinstance(browser, str) else None, len(text.encode())),
            )

    def read_raw(self, game_id: str) -> str:
        """A game's record exactly as stored.

        Raises:
            GameNotFoundError: no game has this id.
        """
        with self._lock:
            row = self._conn.execute(
                "SELECT record FROM games WHERE id = ?", (game_id,)
            ).fetchone()
        if row is None:
            raise GameNotFoundError(f"no saved game has the id {game_id!r}")
        return str(row[0])


def _check_record(game_id: str, record: object, *, damaged: bool = False) -> None:
    prefix = f"saved game {game_id!r} is damaged: " if damaged else f"game {game_id!r}: "
    if not isinstance(record, dict):
        raise StoredGameError(f"{prefix}a record must be a JSON object")
    if not isinstance(record.get("settings"), dict):
        raise StoredGameError(f"{prefix}the record has no settings object")
    if not isinstance(record.get("log"), dict | list):
        raise StoredGameError(f"{prefix}the record has no event log")


def _migrate_tables(conn: sqlite3.Connection) -> None:
    """Move the rows the old ``TableStore`` kept (table ``tables``: id, game, token_hash,
    owner, created_at, updated_at, record) into ``games`` (in the caller's transaction): each
    record with its token's hash (:data:`TOKEN_HASH_KEY`) and its game's name inside, its
    maker as the row's owner, its times kept. A moved row leaves ``tables``; one that cannot
    be read (not a JSON object of the shape :func:`_check_record` wants, a token hash that is
    not text, an id the store already holds) stays there, logged, and is tried again at the
    next opening; ``tables`` is dropped once empty. Running it again changes nothing."""
    known = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tables'").fetchone()
    if known is None:
        return
    rows = conn.execute("SELECT id, game, token_hash, owner, created_at, updated_at, record "
                        "FROM tables ORDER BY created_at, id").fetchall()
    moved = 0
    for table_id, game, token_hash, owner, created, updated, text in rows:
        try:
            record = json.loads(text)
            if not isinstance(record, dict):
                raise StoredGameError(f"table {table_id!r}: its record is not a JSON object")
            if not isinstance(token_hash, str) or not token_hash:
                raise StoredGameError(f"table {table_id!r}: its token's hash is not text")
            record.pop("format", None)
            record.setdefault("game", game)
            record[TOKEN_HASH_KEY] = token_hash
            record.pop("browser", None)  # (a table is no browser's: never a local game)
            _check_record(str(table_id), record)
            if conn.execute("SELECT 1 FROM games WHERE id = ?", (table_id,)).fetchone():
                raise StoredGameError(f"table {table_id!r}: a game of that id is stored")
        except (TypeError, ValueError, StoredGameError) as exc:
            _LOG.warning("the old store's table %r is left in 'tables', not moved: %s",
                         table_id, exc)
            continue
        stored = json.dumps({"format": RECORD_FORMAT, **record}, separators=(",", ":"))
        conn.execute(
            "INSERT INTO games (id, created_at, updated_at, format, record, owner, browser, "
            "size) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)",
            (table_id, created, updated, RECORD_FORMAT, stored, owner, len(stored.encode())))
        conn.execute("DELETE FROM tables WHERE id = ?", (table_id,))
        moved += 1
    if moved:
        _LOG.info("moved %d tables of the old store into 'games'", moved)
    if moved == len(rows):
        conn.execute("DROP TABLE tables")


__all__ = [
    "DEFAULT_MAX_BROWSER_BYTES",
    "DEFAULT_MAX_OWNER_BYTES",
    "DEFAULT_MAX_RECORD_BYTES",
    "RECORD_FORMAT",
    "TOKEN_HASH_KEY",
    "GameNotFoundError",
    "GameStore",
    "StorageFullError",
    "StoredGame",
    "StoredGameError",
]
