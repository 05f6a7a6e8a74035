"""The online rooms' store: headers and actions round trip, one transaction per write, WAL,
and damaged rows refused with their room and row named, the other rooms still read."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from backgammon.services.room_store import (
    ROOM_FORMAT,
    RoomStore,
    StoredAction,
    StoredRoom,
    StoredRoomError,
)
from backgammon.services.store import GameStore

HEADER = {"settings": {"cube": True, "time_control": "blitz", "match_length": 3},
          "host_name": "Ann", "host_token": "ab" * 32, "address": "127.0.0.2"}


class Wall:
    def __init__(self) -> None:
        self.t = 1_700_000_000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def store(tmp_path: Path) -> RoomStore:
    return RoomStore(tmp_path / "games.sqlite3", now=Wall())


def test_a_room_and_its_actions_round_trip_in_order(store: RoomStore) -> None:
    store.create("room1", HEADER)
    actions = [{"kind": "join", "name": "Bob", "token": "cd" * 32},
               {"kind": "message", "seat": "host", "text": '{"type":"commit"}'},
               {"kind": "tick"}]
    for seq, action in enumerate(actions, start=1):
        store.append("room1", seq, 100.0 + seq / 4, action)
    loaded = store.load("room1")
    assert loaded == StoredRoom("room1", 1_700_000_000.0, 1_700_000_000.0, HEADER, (
        StoredAction(1, 100.25, actions[0]), StoredAction(2, 100.5, actions[1]),
        StoredAction(3, 100.75, actions[2])))
    assert store.codes() == ["room1"]
    assert store.count_actions("room1") == 3


def test_the_same_file_as_the_local_games_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    games = GameStore(path)
    rooms = RoomStore(path)
    assert rooms.journal_mode == "wal"
    assert rooms.synchronous == 1  # NORMAL: durable when the process is killed
    assert RoomStore(path, synchronous="full").synchronous == 2
    games.save("g1", {"settings": {}, "log": []})
    rooms.create("room1", HEADER)
    assert games.exists("g1") and rooms.codes() == ["room1"]
    tables = {row[0] for row in sqlite3.connect(path).execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"games", "online_rooms", "online_actions"} <= tables
    with pytest.raises(ValueError, match="synchronous must be one of OFF, NORMAL, FULL, EXTRA"):
        RoomStore(path, synchronous="sometimes")


def test_each_write_is_one_transaction(store: RoomStore) -> None:
    statements: list[str] = []
    store._conn.set_trace_callback(statements.append)
    store.create("room1", HEADER)
    store.append("room1", 1, 1.0, {"kind": "tick"})
    store.append("room1", 2, 2.0, {"kind": "tick"})
    store.delete("room1")
    kinds = [s.split()[0] for s in statements]
    assert kinds == ["BEGIN", "INSERT", "COMMIT",
                     "BEGIN", "INSERT", "COMMIT",
                     "BEGIN", "INSERT", "COMMIT",
                     "BEGIN", "DELETE", "DELETE", "COMMIT"]


def test_a_failed_write_leaves_nothing_behind(store: RoomStore) -> None:
    store.create("room1", HEADER)
    store.append("room1", 1, 1.0, {"kind": "tick"})
    with pytest.raises(sqlite3.IntegrityError):
        store.append("room1", 1, 2.0, {"kind": "tick"})  # number 1 is stored already
    with pytest.raises(StoredRoomError, match="action 2: an action is a JSON object with a "
                                              "kind"):
        store.append("room1", 2, 2.0, {"no": "kind"})
    with pytest.raises(StoredRoomError, match="not JSON"):
        store.append("room1", 2, 2.0, {"kind": "tick", "x": float("nan")})
    with pytest.raises(sqlite3.IntegrityError):
        store.create("room1", HEADER)
    assert store.load("room1").actions == (StoredAction(1, 1.0, {"kind": "tick"}),)


@pytest.mark.parametrize(("table", "row", "message"), [
    ("online_rooms", ("bad", 1.0, 1.0, ROOM_FORMAT, "{not json"),
     "stored room 'bad' is damaged: its header is not valid JSON"),
    ("online_rooms", ("bad", 1.0, 1.0, ROOM_FORMAT, "[1, 2]"),
     "stored room 'bad' is damaged: its header is not a JSON object"),
    ("online_rooms", ("bad", 1.0, 1.0, ROOM_FORMAT, '{"host_name": "Ann"}'),
     "stored room 'bad' is damaged: its header has no settings object"),
    ("online_rooms", ("bad", 1.0, 1.0, 99, json.dumps(HEADER)),
     "stored room 'bad' has format 99; this program reads format 1"),
    ("online_actions", ("bad", 1, 1.0, 1.0, "\x00garbage"),
     "stored room 'bad' is damaged: its action 1 is not valid JSON"),
    ("online_actions", ("bad", 1, 1.0, 1.0, '{"seat": "host"}'),
     "stored room 'bad' is damaged: action 1 has no kind"),
    ("online_actions", ("bad", 1, "soon", 1.0, '{"kind": "tick"}'),
     "stored room 'bad' is damaged: action 1 has no time"),
    ("online_actions", ("bad", 1, 1.0, "later", '{"kind": "tick"}'),
     "stored room 'bad' is damaged: action 1 has no time"),
    ("online_actions", ("bad", 2, 1.0, 1.0, '{"kind": "tick"}'),
     "stored room 'bad' is damaged: action 1 is missing \\(found 2\\)"),
])
def test_a_damaged_row_is_refused_and_the_other_rooms_are_still_read(
        store: RoomStore, table: str, row: tuple[object, ...], message: str) -> None:
    store.create("good", HEADER)
    store.append("good", 1, 5.0, {"kind": "tick"})
    if table == "online_actions":
        store.create("bad", HEADER)
    store.write_raw(table, row)
    with pytest.raises(StoredRoomError, match=message):
        store.load("bad")
    found = dict(store.load_all())
    assert set(found) == {"good", "bad"}
    assert isinstance(found["bad"], StoredRoomError)
    assert isinstance(found["good"], StoredRoom)
    assert found["good"].actions == (StoredAction(1, 5.0, {"kind": "tick"}),)


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database " * 300)
    with pytest.raises(StoredRoomError, match="is not a games database"):
        RoomStore(notes)


def test_stale_rooms_are_deleted_with_their_actions(tmp_path: Path) -> None:
    wall = Wall()
    store = RoomStore(tmp_path / "games.sqlite3", now=wall)
    store.create("old", HEADER)
    store.append("old", 1, 1.0, {"kind": "tick"})
    store.create("busy", HEADER)
    wall.t += 1000
    store.append("busy", 1, 1.0, {"kind": "tick"})  # written lately: its action's time counts
    assert store.load("busy").updated_at == wall.t
    store.create("new", HEADER)
    store.write_raw("online_actions", ("orphan", 1, 1.0, wall.t, '{"kind": "tick"}'))
    assert store.delete_stale(wall.t - 10) == ["old"]
    assert store.codes() == ["busy", "new"]
    assert store.count_actions("old") == 0
    assert store.count_actions("orphan") == 0
    assert store.delete("new") is True
    assert store.delete("new") is False
    with pytest.raises(StoredRoomError, match="no stored room 'new'"):
        store.load("new")
