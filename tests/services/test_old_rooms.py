"""The frozen reader of the old online door's rooms (:mod:`backgammon.services.old_rooms`):
damaged rows are refused with their room and row named, the other rooms still read; a file
without the old door's tables holds no rooms and gets none; a header or action the old door
would not have written does not replay. (The rooms themselves, and their replay, are tested
through the migration on the old door's own rows: ``test_room_migration.py``.)"""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from backgammon.services.old_rooms import (
    OldRoomError,
    StoredRow,
    delete_room,
    read_rooms,
    replay_room,
)
from gametable.clock import TIME_CONTROLS

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "old_rooms" / "old_rooms.sqlite3"
HEADER = {"settings": {"cube": True, "time_control": "blitz", "match_length": 3},
          "host_name": "Ann", "host_token": "ab" * 32, "address": "127.0.0.2", "created": 5.0}
ROOMS_SCHEMA = ("CREATE TABLE online_rooms (code TEXT PRIMARY KEY, created_at REAL NOT NULL, "
                "updated_at REAL NOT NULL, format INTEGER NOT NULL, header TEXT NOT NULL)")
ACTIONS_SCHEMA = ("CREATE TABLE online_actions (code TEXT NOT NULL, seq INTEGER NOT NULL, "
                  "at REAL NOT NULL, wall REAL NOT NULL, action TEXT NOT NULL, "
                  "PRIMARY KEY (code, seq)) WITHOUT ROWID")


def _rows(path: Path, *rows: tuple[str, tuple[object, ...]]) -> None:
    """The old door's two tables in ``path`` (as it made them), with ``rows``."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute(ROOMS_SCHEMA)
        db.execute(ACTIONS_SCHEMA)
        for table, row in rows:
            marks = ", ".join("?" * len(row))
            db.execute(f"INSERT INTO {table} VALUES ({marks})", row)


GOOD = (("online_rooms", ("good", 1.0, 1.0, 1, json.dumps(HEADER))),
        ("online_actions", ("good", 1, 5.0, 2.0, '{"kind": "tick"}')))


@pytest.mark.parametrize(("table", "row", "message"), [
    ("online_rooms", ("bad", 1.0, 1.0, 1, "{not json"),
     "stored room 'bad' is damaged: its header is not valid JSON"),
    ("online_rooms", ("bad", 1.0, 1.0, 1, "[1, 2]"),
     "stored room 'bad' is damaged: its header is not a JSON object"),
    ("online_rooms", ("bad", 1.0, 1.0, 1, '{"host_name": "Ann"}'),
     "stored room 'bad' is damaged: its header has no settings object"),
    ("online_rooms", ("bad", 1.0, 1.0, 99, json.dumps(HEADER)),
     "stored room 'bad' has format 99; the old door wrote format 1"),
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
        tmp_path: Path, table: str, row: tuple[object, ...], message: str) -> None:
    path = tmp_path / "games.sqlite3"
    bad_room = ("online_rooms", ("bad", 2.0, 2.0, 1, json.dumps(HEADER)))
    _rows(path, *GOOD, *((bad_room,) if table == "online_actions" else ()), (table, row))
    found = dict(read_rooms(path))
    assert set(found) == {"good", "bad"}
    assert isinstance(found["bad"], OldRoomError)
    with pytest.raises(OldRoomError, match=message):
        raise found["bad"]
    good = found["good"]
    assert good == StoredRow("good", 2.0, HEADER, [(5.0, {"kind": "tick"})])


def test_a_file_without_the_old_tables_holds_no_rooms_and_gets_none(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE other (x)")
    assert read_rooms(path) == []
    assert delete_room(path, "any") is False
    with contextlib.closing(sqlite3.connect(path)) as db:
        tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master")]
    assert tables == ["other"]
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database " * 300)
    with pytest.raises(sqlite3.DatabaseError):
        read_rooms(notes)


def test_deleting_a_room_takes_its_actions_and_leaves_the_others(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    shutil.copy(FIXTURE, path)
    codes = [code for code, _ in read_rooms(path)]
    assert len(codes) == 9
    assert delete_room(path, codes[0]) is True
    assert delete_room(path, codes[0]) is False
    assert [code for code, _ in read_rooms(path)] == codes[1:]
    with contextlib.closing(sqlite3.connect(path)) as db:
        left = db.execute("SELECT COUNT(*) FROM online_actions WHERE code = ?",
                          (codes[0],)).fetchone()[0]
    assert left == 0


@pytest.mark.parametrize(("header", "actions", "message"), [
    ({**HEADER, "settings": {"cube": "yes"}}, [],
     "has a header this program cannot use: ValueError: cube is not true or false"),
    ({**HEADER, "settings": {"time_control": "hourglass"}}, [],
     "has a header this program cannot use: ValueError: no time control 'hourglass'"),
    ({**HEADER, "settings": {"match_length": 99}}, [],
     "has a header this program cannot use: ValueError: match_length 99 is not 0 to 25"),
    ({**HEADER, "host_token": "secret"}, [],
     "has a header this program cannot use: ValueError: a seat token hash is not 64 hex"),
    (HEADER, [(6.0, {"kind": "join", "name": "Bob", "token": "cd" * 32}),
              (7.0, {"kind": "message", "seat": "guest",
                     "message": {"type": "play", "moves": [[24, 23, 1]]}})],
     "does not replay: action 2 \\(message\\) is refused: ValueError: the dice come first"),
    (HEADER, [(6.0, {"kind": "join", "name": "Bob", "token": "cd" * 32}),
              (4.0, {"kind": "tick"})],
     "does not replay: action 2 \\(tick\\) is refused: ValueError: its time 4.0 is before"),
    (HEADER, [(6.0, {"kind": "message", "seat": "host", "message": {"type": "commit",
                                                                     "round": 1}})],
     "does not replay: action 1 \\(message\\) is refused: ValueError: no game is in play"),
])
def test_what_the_old_door_would_not_have_written_does_not_replay(
        header: dict[str, object], actions: list[tuple[float, dict[str, object]]],
        message: str) -> None:
    with pytest.raises(OldRoomError, match=f"stored room 'room' {message}"):
        replay_room(StoredRow("room", 1.0, dict(header), actions), TIME_CONTROLS)


def test_a_header_alone_is_a_room_nobody_joined() -> None:
    room = replay_room(StoredRow("room", 1.0, HEADER, []), TIME_CONTROLS)
    assert (room.phase, room.names, room.address) == ("waiting", {"host": "Ann"}, "127.0.0.2")
    assert room.hashes == {"host": "ab" * 32} and room.settings.match_length == 3
    assert room.clock is not None and room.clock.remaining("white") == 180.0
    assert room.match.length == 3 and room.next_round == 1 and not room.round_open
