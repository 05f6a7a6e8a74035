"""gametable.sqlite: the one way the stores open the games' SQLite file (WAL, synchronous
NORMAL, a busy timeout, the schema in one transaction, a lock around the shared connection)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from gametable.sqlite import BUSY_TIMEOUT, Database

SCHEMA = ("CREATE TABLE IF NOT EXISTS things (name TEXT PRIMARY KEY)",
          "CREATE INDEX IF NOT EXISTS things_name ON things (name)")


def test_a_file_opens_in_wal_with_normal_sync_a_busy_timeout_and_its_schema(
    tmp_path: Path,
) -> None:
    path = tmp_path / "deep" / "folder" / "db.sqlite3"  # the folder is made
    db = Database(path, SCHEMA)
    assert db.path == str(path) and path.exists()
    assert db.read("PRAGMA journal_mode") == [("wal",)]
    assert db.read("PRAGMA synchronous") == [(1,)]  # NORMAL
    assert db.read("PRAGMA busy_timeout") == [(int(BUSY_TIMEOUT * 1000),)]
    assert BUSY_TIMEOUT == 10.0
    assert db.write("INSERT INTO things VALUES (?)", ("a",)) == 1
    assert db.write("INSERT OR IGNORE INTO things VALUES (?)", ("a",)) == 0
    assert db.read("SELECT name FROM things") == [("a",)]
    assert isinstance(db.lock, type(threading.Lock()))
    db.close()
    again = Database(path, SCHEMA)  # the schema again changes nothing
    assert again.read("SELECT name FROM things") == [("a",)]
    again.close()


def test_memory_keeps_its_journal_and_a_setup_function_runs_in_one_transaction(
    tmp_path: Path,
) -> None:
    def make(conn: sqlite3.Connection) -> None:
        conn.execute(SCHEMA[0])

    db = Database(":memory:", make)
    assert db.read("PRAGMA journal_mode") == [("memory",)]
    assert db.read("SELECT COUNT(*) FROM things") == [(0,)]
    db.close()

    def half(conn: sqlite3.Connection) -> None:
        conn.execute(SCHEMA[0])
        raise ValueError("the second step fails")

    path = tmp_path / "half.sqlite3"
    with pytest.raises(ValueError, match="second step"):
        Database(path, half)
    left = sqlite3.connect(path)
    assert left.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall() == []
    left.close()


def test_a_transaction_commits_or_rolls_back_whole(tmp_path: Path) -> None:
    db = Database(tmp_path / "db.sqlite3", SCHEMA)
    with db.transaction() as conn:
        conn.execute("INSERT INTO things VALUES ('a')")
        conn.execute("INSERT INTO things VALUES ('b')")
    with pytest.raises(sqlite3.IntegrityError), db.transaction() as conn:
        conn.execute("INSERT INTO things VALUES ('c')")
        conn.execute("INSERT INTO things VALUES ('a')")  # taken: nothing of this one stays
    assert db.read("SELECT name FROM things ORDER BY name") == [("a",), ("b",)]
    assert not db.lock.locked()
    db.close()


def test_check_refuses_a_file_before_anything_is_written(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite3"
    other = sqlite3.connect(path)
    other.execute("PRAGMA user_version = 9")
    other.close()

    def ours(conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != 0:
            raise LookupError(f"schema version {version}")

    with pytest.raises(LookupError, match="schema version 9"):
        Database(path, SCHEMA, check=ours)
    untouched = sqlite3.connect(path)
    assert untouched.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert untouched.execute("SELECT COUNT(*) FROM sqlite_master").fetchone() == (0,)
    untouched.close()
    # a file that is not a database: sqlite3's error, the connection closed
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(sqlite3.DatabaseError):
        Database(junk, SCHEMA)


def test_a_store_may_turn_the_connections_autocheckpoint_off(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    plain = Database(path, SCHEMA)
    assert plain.read("PRAGMA wal_autocheckpoint") == [(1000,)]  # SQLite's own
    off = Database(path, SCHEMA, wal_autocheckpoint=0)  # (the connection's, not the file's)
    assert off.read("PRAGMA wal_autocheckpoint") == [(0,)]
    assert plain.read("PRAGMA wal_autocheckpoint") == [(1000,)]
    off.close()
    plain.close()


def test_the_game_and_room_stores_open_their_file_through_it(tmp_path: Path) -> None:
    from gametable.game_store import TOKEN_HASH_KEY, GameStore
    from gametable.room_store import RoomStore

    path = tmp_path / "server.sqlite3"
    tables = GameStore(path)
    rooms = RoomStore(path)
    unchecked = RoomStore(path, checkpoint_every=0)
    for store in (tables, rooms, unchecked):
        db = store._db if isinstance(store, GameStore) else store._database
        assert isinstance(db, Database)
        assert db.read("PRAGMA journal_mode") == [("wal",)]
        assert db.read("PRAGMA synchronous") == [(1,)]
        assert db.read("PRAGMA busy_timeout") == [(int(BUSY_TIMEOUT * 1000),)]
    # the room store's writer never checkpoints by itself (its worker does), unless told to
    assert rooms._database.read("PRAGMA wal_autocheckpoint") == [(0,)]
    assert unchecked._database.read("PRAGMA wal_autocheckpoint") == [(1000,)]
    assert rooms._lock is rooms._database.lock  # the checkpoint holds the writers by it
    record = {"game": "checkers", "settings": {}, "log": [], TOKEN_HASH_KEY: "h" * 64}
    tables.save("t1", record, owner="10.0.0.1")
    assert tables.load("t1").record == record and not tables.exists("t2")
    assert tables.count_by_owner("10.0.0.1", having=TOKEN_HASH_KEY) == 1
    rooms.save("ROOMCODE", "checkers", None, 1, {"v": 1})
    rooms.append("ROOMCODE", 2, '{"s":1}')
    rooms.save("ROOMCODE", "checkers", None, 3, {"v": 3})
    assert [(r.code, r.version, r.record, r.steps) for r in unchecked.load_all()] == [
        ("ROOMCODE", 3, {"v": 3}, ())]
    rooms.delete("ROOMCODE")
    assert unchecked.load_all() == []
    for store in (tables, rooms, unchecked):
        store.close()
