"""The SQLite store of saved games: round trips, transactions, damaged rows refused."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from backgammon.services.store import (
    RECORD_FORMAT,
    GameNotFoundError,
    GameStore,
    StoredGame,
    StoredGameError,
    default_db_path,
)
from fake_clock import FakeNow

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
    from backgammon.services.store import StorageFullError

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
