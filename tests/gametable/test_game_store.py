"""gametable/game_store.py, the one store of local play: round trips, transactions, damaged
rows refused, bounds; the old TableStore's rows moved in; each local door refusing the other's
rows (backgammon's GameService, the table's TableService)."""

from __future__ import annotations

import hashlib
import json
import random
import sqlite3
import threading
from pathlib import Path

import pytest

from backgammon.adapter import RULES as BACKGAMMON
from backgammon.server.settings import default_db_path
from backgammon.services.session import GameOptions, GameService
from checkers.adapter import RULES as CHECKERS
from fake_clock import FakeNow
from gametable.errors import ActionRefused, TableError
from gametable.game_store import (
    RECORD_FORMAT,
    TOKEN_HASH_KEY,
    GameNotFoundError,
    GameStore,
    StorageFullError,
    StoredGame,
    StoredGameError,
)
from gametable.service import NotYourTableError, TableNotFoundError, TableService

RECORD = {"settings": {"mode": "pass_and_play"}, "log": {"games": [{"events": []}]}}


def test_save_then_load_gives_the_record_back(tmp_path: Path) -> None:
    clock = FakeNow(tick=1.0)
    with GameStore(tmp_path / "g.sqlite3", now=clock) as store:
        store.save("abc", RECORD)
        assert store.load("abc") == StoredGame("abc", 1001.0, 1001.0, RECORD)
        store.save("abc", {**RECORD, "version": 2})
        loaded = store.load("abc")
        assert (loaded.created_at, loaded.updated_at) == (1001.0, 1002.0)
        assert loaded.record["version"] == 2
        assert json.loads(store.read_raw("abc"))["format"] == RECORD_FORMAT


def test_games_survive_closing_the_database(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "folder" / "g.sqlite3"
    with GameStore(path) as store:
        store.save("one", RECORD)
    with GameStore(path) as store:
        assert store.load("one").record == RECORD
        assert store.exists("one") and not store.exists("two")


def test_list_newest_first_and_delete(tmp_path: Path) -> None:
    with GameStore(tmp_path / "g.sqlite3", now=FakeNow(tick=1.0)) as store:
        for name in ("a", "b", "c"):
            store.save(name, RECORD)
        store.save("a", RECORD)
        assert store.list_ids() == [("a", 1004.0), ("c", 1003.0), ("b", 1002.0)]
        assert store.list_ids(limit=1) == [("a", 1004.0)]
        assert store.delete("b") is True and store.delete("b") is False
        with pytest.raises(GameNotFoundError, match="no saved game has the id 'b'"):
            store.load("b")


def test_a_record_of_the_wrong_shape_is_not_written(tmp_path: Path) -> None:
    with GameStore(":memory:") as store:
        with pytest.raises(StoredGameError, match="the record has no settings object"):
            store.save("x", {"log": []})
        with pytest.raises(StoredGameError, match="the record has no event log"):
            store.save("x", {"settings": {}, "log": "moves"})
        assert not store.exists("x")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("{not json", "saved game 'x' is damaged: its record is not valid JSON"),
        ("[1, 2]", "saved game 'x' is damaged: its record is list, not a JSON object"),
        ('{"format": 99, "settings": {}, "log": []}',
         "saved game 'x' has record format 99; this program reads format 1"),
        ('{"format": 1, "log": []}', "saved game 'x' is damaged: the record has no settings"),
        ('{"format": 1, "settings": {}}', "saved game 'x' is damaged: the record has no event"),
    ],
)
def test_damaged_rows_are_refused_with_their_problem(raw: str, message: str) -> None:
    with GameStore(":memory:") as store:
        store.write_raw("x", raw)
        with pytest.raises(StoredGameError) as caught:
            store.load("x")
        assert str(caught.value).startswith(message)
        assert store.read_raw("x") == raw  # left as it was


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("these are not games " * 200)
    with pytest.raises(StoredGameError, match=r"notes\.txt is not a games database"):
        GameStore(path)


def test_a_database_of_another_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 7")
    with pytest.raises(StoredGameError, match="database schema version 7 is not one"):
        GameStore(path)


def test_threads_can_share_the_store(tmp_path: Path) -> None:
    with GameStore(tmp_path / "g.sqlite3") as store:
        def work(n: int) -> None:
            for i in range(20):
                store.save(f"g{n}-{i}", {**RECORD, "version": i})
                assert store.load(f"g{n}-{i}").record["version"] == i

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(store.list_ids(limit=1000)) == 80


def test_default_path_is_in_the_users_data_directory(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "backgammon" / "games.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_db_path() == tmp_path / ".local" / "share" / "backgammon" / "games.sqlite3"


def test_the_store_bounds_a_record_a_browser_and_an_owner(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "g.sqlite3", max_record_bytes=600, max_browser_bytes=1000,
                      max_owner_bytes=1500)
    small = {**RECORD, "browser": "browser-aaaaaaaa", "pad": "x" * 300}
    size = len(store_text(small))
    store.save("a1", small, owner="10.0.0.1")
    store.save("a2", small, owner="10.0.0.1")
    assert store.usage(browser="browser-aaaaaaaa") == 2 * size
    with pytest.raises(StorageFullError, match="this browser's games hold 1,000 bytes, their "
                                               "most"):
        store.save("a3", small, owner="10.0.0.1")
    assert not store.exists("a3")
    other = {**small, "browser": "browser-bbbbbbbb"}
    store.save("b1", other, owner="10.0.0.1")
    with pytest.raises(StorageFullError, match="the games started from your address hold "
                                               "1,500 bytes"):
        store.save("b2", other, owner="10.0.0.1")
    store.save("c1", other, owner="10.0.0.2")  # another address
    # a record that grows past its own bound is refused, the saved one kept
    big = {**small, "log": {"games": [{"events": ["x" * 600]}]}}
    with pytest.raises(StorageFullError, match="this game's record has reached 600 bytes"):
        store.save("a1", big)
    assert store.load("a1").record == small
    store.save("a1", small)  # a save that does not grow is written
    # deleting frees the room, also as counted after a restart
    store.delete("a2")
    store.close()
    again = GameStore(tmp_path / "g.sqlite3", max_record_bytes=600, max_browser_bytes=1000,
                      max_owner_bytes=1500)
    assert again.usage(owner="10.0.0.1") == 2 * size
    again.save("a3", small, owner="10.0.0.1")


def store_text(record: dict[str, object]) -> str:
    return json.dumps({"format": RECORD_FORMAT, **record}, separators=(",", ":"))


def test_a_version_1_file_is_brought_up_to_version_2(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE games (id TEXT PRIMARY KEY, created_at REAL NOT NULL, "
                     "updated_at REAL NOT NULL, format INTEGER NOT NULL, record TEXT NOT NULL)")
        conn.execute("INSERT INTO games VALUES ('old', 1.0, 2.0, 1, ?)",
                     (store_text({**RECORD, "browser": "browser-cccccccc"}),))
        conn.execute("PRAGMA user_version = 1")
    conn.close()
    with GameStore(path) as store:
        assert store.ids_for_browser("browser-cccccccc") == [("old", 2.0)]
        assert store.usage(browser="browser-cccccccc") == len(
            store_text({**RECORD, "browser": "browser-cccccccc"}))
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    conn.close()


# ---------------------------------------------------------------- the old TableStore's rows

#: The old ``gametable/store.py`` (``TableStore``)'s schema, as it made its table.
OLD_TABLES_SCHEMA = """
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
GAMES = {"backgammon": BACKGAMMON, "checkers": CHECKERS}
SEATS = {"black": {"kind": "person"}, "white": {"kind": "computer", "level": "easy"}}


def _old_table_file(path: Path) -> dict[str, tuple[str, dict[str, object]]]:
    """A database file as the old TableStore left it: two tables made (a checkers one, a
    backgammon one), each row written as its save() did, plus a row it could not have read
    back (a record that is not a JSON object). Returns each good table's token and record."""
    made: dict[str, tuple[str, dict[str, object]]] = {}
    memory = TableService(GAMES)
    with sqlite3.connect(path) as conn:
        conn.execute(OLD_TABLES_SCHEMA)
        for game, owner in (("checkers", "10.0.0.1"), ("backgammon", None)):
            table_id, token, table = memory.create(game, {}, SEATS, seed=7)
            record = table.to_record()
            conn.execute(
                "INSERT INTO tables (id, game, token_hash, owner, created_at, updated_at, "
                "record) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                "updated_at = excluded.updated_at, record = excluded.record",
                (table_id, game, hashlib.sha256(token.encode()).hexdigest(), owner, 5.0, 6.0,
                 json.dumps(record, separators=(",", ":"))))
            made[table_id] = (token, record)
        conn.execute("INSERT INTO tables VALUES ('broken', 'checkers', ?, '10.0.0.1', 1.0, "
                     "2.0, '[1, 2')", ("h" * 64,))
    conn.close()
    return made


def _old_rows(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT id, record FROM tables ORDER BY id").fetchall()
    conn.close()
    return rows


def test_the_old_table_stores_rows_move_into_the_one_store_when_it_opens(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "server.sqlite3"
    with GameStore(path) as store:  # a file that also holds a local game already
        store.save("local", {**RECORD, "browser": "browser-aaaaaaaa"}, owner="10.0.0.1")
    made = _old_table_file(path)
    with caplog.at_level("WARNING", logger="gametable.game_store"):
        store = GameStore(path)
    # the unreadable row stays where it was, logged; the others are moved
    assert _old_rows(path) == [("broken", "[1, 2")]
    assert "'broken' is left in 'tables'" in caplog.text
    for table_id, (token, record) in made.items():
        stored = store.load(table_id)
        assert stored.record == {**record, TOKEN_HASH_KEY:
                                 hashlib.sha256(token.encode()).hexdigest()}
        assert (stored.created_at, stored.updated_at) == (5.0, 6.0)
    assert store.count_by_owner("10.0.0.1", having=TOKEN_HASH_KEY) == 1  # the owner kept
    assert store.count_by_owner("10.0.0.1") == 2  # (and the local game)
    assert store.count_by_owner(None, having=TOKEN_HASH_KEY) == 1
    assert store.ids_for_browser("browser-aaaaaaaa") == [("local", store.load("local")
                                                          .updated_at)]
    # the table's door opens them with their tokens, and plays on
    tables = TableService(GAMES, store)
    for table_id, (token, record) in made.items():
        table = tables.read(table_id, token)
        assert table.to_record()["log"] == record["log"]
        with pytest.raises(NotYourTableError):
            tables.read(table_id, "another token")
    store.close()
    # opening it again moves nothing twice and loses nothing
    before = {row for row in sqlite3.connect(path).execute("SELECT * FROM games")}
    with GameStore(path) as again:
        assert {row for row in again._conn.execute("SELECT * FROM games")} == before
    assert _old_rows(path) == [("broken", "[1, 2")]


def test_the_old_tables_go_once_every_row_has_moved(tmp_path: Path) -> None:
    path = tmp_path / "server.sqlite3"
    made = _old_table_file(path)
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM tables WHERE id = 'broken'")
    conn.close()
    with GameStore(path) as store:
        assert all(store.exists(table_id) for table_id in made)
        assert store._conn.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'tables'").fetchone() is None


def test_the_move_is_one_transaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gametable.game_store as game_store

    path = tmp_path / "server.sqlite3"
    _old_table_file(path)
    real = game_store._check_record
    calls = []

    def fails_second(game_id: str, record: object, *, damaged: bool = False) -> None:
        calls.append(game_id)
        if len(calls) == 2:
            raise RuntimeError("the disk is gone")
        real(game_id, record, damaged=damaged)

    monkeypatch.setattr(game_store, "_check_record", fails_second)
    with pytest.raises(RuntimeError):
        GameStore(path)
    assert len(_old_rows(path)) == 3  # nothing moved, nothing made (the schema's too)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'games'").fetchone() \
            is None
    conn.close()
    monkeypatch.undo()
    with GameStore(path) as store:  # the next opening moves them
        assert len(store.list_ids()) == 2 and len(_old_rows(path)) == 1


# ---------------------------------------------------------------- one store, two doors


def test_the_local_backgammon_door_does_not_see_the_tables(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "server.sqlite3")
    games = GameService(store, rng=random.Random(3))
    tables = TableService(GAMES, store)
    mine = games.create(GameOptions(mode="pass_and_play"), browser="browser-aaaaaaaa")
    # a backgammon table, whose record names the same game as a local session's
    table_id, token, _ = tables.create("backgammon", {}, SEATS, owner="10.0.0.1")
    checkers_id, _, _ = tables.create("checkers", {}, SEATS, owner="10.0.0.1")
    assert [game["id"] for game in games.recent("browser-aaaaaaaa")] == [mine["id"]]
    for other in (table_id, checkers_id):
        with pytest.raises(GameNotFoundError, match="no saved game has the id"):
            games.state(other)
        assert games.forget(other, "browser-aaaaaaaa") is False  # (not "not yours")
        assert store.exists(other)
    assert tables.read(table_id, token).rules.name == "backgammon"


def test_the_tables_door_does_not_open_a_local_game(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "server.sqlite3")
    games = GameService(store, rng=random.Random(3))
    tables = TableService(GAMES, store)
    mine = games.create(GameOptions(mode="pass_and_play"), browser="browser-aaaaaaaa",
                        owner="10.0.0.1")
    before = store.read_raw(mine["id"])
    for token in ("", "anything"):
        with pytest.raises(TableNotFoundError, match="no table"):
            tables.read(mine["id"], token)
    store.write_raw("damaged", "{not json")
    with pytest.raises(TableNotFoundError, match="no table"):
        tables.read("damaged", "anything")
    assert store.read_raw(mine["id"]) == before
    assert games.state(mine["id"])["id"] == mine["id"]
    # a local game is not counted among an address's tables (read from the store)
    assert store.count_by_owner("10.0.0.1", having=TOKEN_HASH_KEY) == 0
    TableService(GAMES, store, max_per_owner=1).create("checkers", {}, SEATS,
                                                       owner="10.0.0.1")
    assert store.count_by_owner("10.0.0.1", having=TOKEN_HASH_KEY) == 1
    with pytest.raises(ActionRefused, match="at most 1 tables"):
        TableService(GAMES, store, max_per_owner=1).create("checkers", {}, SEATS,
                                                           owner="10.0.0.1")


def test_the_stores_errors_are_the_tables_own() -> None:
    assert issubclass(GameNotFoundError, TableError) and issubclass(GameNotFoundError,
                                                                     LookupError)
    assert issubclass(StoredGameError, TableError) and issubclass(StorageFullError, TableError)
