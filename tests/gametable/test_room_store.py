"""The rooms' SQLite store (gametable.room_store) as the room service uses it: a snapshot of
a room's whole record now and then, one small step a message in between, replayed onto the
snapshot at a restart and after a failed save; a stale writer refused; a store written before
steps existed still read; the WAL checkpointed off the writer's thread."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from backgammon.adapter import RULES as BACKGAMMON
from backgammon.core.moves import legal_plays
from backgammon.core.position import Position
from checkers.adapter import RULES as CHECKERS
from fake_clock import FakeNow
from gametable.errors import ActionRefused
from gametable.fair import commitment_of
from gametable.room_store import RoomStore, StaleRoomError
from gametable.rooms import RoomService
from gametable.seam import Side

GAMES = {"backgammon": BACKGAMMON, "checkers": CHECKERS}


def service(now: FakeNow, store: RoomStore | None, **kwargs: Any) -> RoomService:
    return RoomService(GAMES, store, now=now, **kwargs)


def seated(svc: RoomService, game: str = "backgammon", control: str = "blitz") -> str:
    code, _, _, _ = svc.create(game, {}, control, name="Ann", side="white")
    svc.join(code, "Bob")
    return code


def next_messages(svc: RoomService, code: str, rng: random.Random
                  ) -> list[tuple[Side, dict[str, Any]]]:
    """The messages of the room's next step of play: a dice round (its commits, secret and
    reveals) or a move (backgammon: a random whole play; checkers: a random legal path)."""
    view = svc.room(code).view("white")
    room = view["room"]
    if room["round"] is None and room["chance_due"]:
        number, due = room["next_round"], room["chance_due"]
        if len(due) == 2:
            secrets = {side: rng.randbytes(32) for side in ("white", "black")}
            return [*((side, {"type": "commit", "round": number,
                              "commitment": commitment_of(secrets[side])})
                      for side in ("white", "black")),
                    *((side, {"type": "reveal", "round": number,
                              "secret": secrets[side].hex()})
                      for side in ("white", "black"))]  # fmt: skip
        roller: Side = due[0]
        opponent: Side = "black" if roller == "white" else "white"
        mine, theirs = rng.randbytes(32), rng.randbytes(32)
        return [(roller, {"type": "commit", "round": number, "commitment": commitment_of(mine)}),
                (opponent, {"type": "secret", "round": number, "secret": theirs.hex()}),
                (roller, {"type": "reveal", "round": number, "secret": mine.hex()})]
    mover: Side = view["to_act"][0]
    state = svc.room(code).view(mover)["state"]
    if svc.room(code).table.rules.name == "checkers":
        legal = state["legal"]
        return [(mover, {"type": "action",
                         "action": {"type": "move", "path": legal[rng.randrange(len(legal))]}})]
    position = Position.from_points(state["board"]["points"], state["turn"])
    plays = legal_plays(position, (int(state["dice"][0]), int(state["dice"][1])))
    play = str(plays[rng.randrange(len(plays))])
    return [(mover, {"type": "action", "action": {"type": "move", "play": play}})]


class Players:
    """Both players of a room: a second or two between two messages; what is left of a
    round's messages is kept across calls (and across a restart)."""

    def __init__(self, seed: int = 1) -> None:
        self.rng = random.Random(seed)
        self.pending: list[tuple[Side, dict[str, Any]]] = []

    def play(self, svc: RoomService, code: str, now: FakeNow, messages: int) -> None:
        """``messages`` messages of play (fewer if the game ends)."""
        for _ in range(messages):
            if not self.pending:
                if svc.room(code).table.game.outcome() is not None:
                    return
                self.pending = next_messages(svc, code, self.rng)
            side, message = self.pending.pop(0)
            now.advance(self.rng.choice((0.5, 1.25, 2.0)))
            svc.handle(code, side, message)


def play(svc: RoomService, code: str, now: FakeNow, messages: int, seed: int = 1) -> None:
    """``messages`` messages of play from a room between two steps of play."""
    Players(seed).play(svc, code, now, messages)


def stored(path: Path, code: str) -> tuple[int, int]:
    """The room's snapshot version and how many steps are stored after it."""
    db = sqlite3.connect(path)
    try:
        (version,) = db.execute("SELECT version FROM table_rooms WHERE code = ?",
                                (code,)).fetchone()
        (steps,) = db.execute("SELECT COUNT(*) FROM table_room_steps WHERE code = ?",
                              (code,)).fetchone()
    finally:
        db.close()
    return int(version), int(steps)


def test_a_message_is_one_step_and_a_restart_replays_the_steps_onto_the_snapshot(
    tmp_path: Path,
) -> None:
    path = tmp_path / "rooms.sqlite3"
    now = FakeNow()
    svc = service(now, RoomStore(path))
    code = seated(svc)
    assert stored(path, code) == (2, 0)  # made, joined: snapshots
    players = Players()
    players.play(svc, code, now, 30)
    room = svc.room(code)
    assert stored(path, code) == (2, 30)  # each message one step, the snapshot untouched
    record = room.to_record()
    seen = room.view("black")
    now.advance(600)  # the server is down ten minutes
    again = service(now, RoomStore(path))
    assert again.restore() == [code]
    back = again.room(code)
    assert back.to_record() == record  # the clocks as at the last save: downtime not charged
    assert back.view("black")["clock"] == seen["clock"]
    assert back.view("black")["state"] == seen["state"]
    # play goes on after the restart, and a second restart replays the steps of both runs
    players.play(again, code, now, 20)
    record = again.room(code).to_record()
    now.advance(60)
    third = service(now, RoomStore(path))
    assert third.restore() == [code]
    assert third.room(code).to_record() == record


def test_a_snapshot_every_n_messages_once_no_round_is_open(tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    now = FakeNow()
    svc = service(now, RoomStore(path), snapshot_every=5)
    code = seated(svc)
    room = svc.room(code)
    seen = 0
    players = Players()
    for _ in range(60):
        players.play(svc, code, now, 1)
        version, steps = stored(path, code)
        assert version + steps == room.version + 1  # one write a message (made: version 1)
        if steps > 5:  # past the bound only while a round is open
            assert room.round is not None
        if steps == 0:
            seen += 1
    assert seen >= 5
    record = room.to_record()
    again = service(now, RoomStore(path))
    assert again.restore() == [code]
    assert again.room(code).to_record() == record


def test_a_failed_step_sends_the_room_back_to_its_last_step_not_its_snapshot(
    tmp_path: Path,
) -> None:
    class Failing(RoomStore):
        fail = False

        def append(self, code: str, version: int, step: str) -> None:
            if self.fail:
                raise sqlite3.OperationalError("database is locked")
            super().append(code, version, step)

    now = FakeNow()
    store = Failing(tmp_path / "rooms.sqlite3")
    svc = service(now, store)
    code = seated(svc)
    players = Players()
    players.play(svc, code, now, 13)
    room = svc.room(code)
    record, version = room.to_record(), room.version
    side, message = players.pending[0] if players.pending else next_messages(
        svc, code, players.rng)[0]
    store.fail = True
    now.advance(3)
    with pytest.raises(ActionRefused) as refused:
        svc.handle(code, side, message)
    assert refused.value.code == "unavailable"
    back = svc.room(code)
    assert back.version == version
    clock = back.table.clock
    assert clock is not None and clock.running is not None
    # as stored last, the 3 s since charged to the side whose clock runs
    expected = record["table"]["clock"]["remaining"][clock.running] - 3
    assert clock.remaining(clock.running) == pytest.approx(expected)
    store.fail = False
    svc.handle(code, side, message)
    assert svc.room(code).version == version + 1


def test_a_store_of_whole_records_only_is_read_and_played_on(tmp_path: Path) -> None:
    """A room stored before steps existed: one row, its whole record (no ``"at"``), in a
    file with no steps table."""
    path = tmp_path / "rooms.sqlite3"
    now = FakeNow()
    live = service(now, None)
    code = seated(live, "checkers", "none")
    play(live, code, now, 6)
    record = live.room(code).to_record()
    record["over"] = False
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE table_rooms (code TEXT PRIMARY KEY, game TEXT NOT NULL,"
               " owner TEXT, created_at REAL NOT NULL, updated_at REAL NOT NULL,"
               " version INTEGER NOT NULL, record TEXT NOT NULL)")
    db.execute("INSERT INTO table_rooms VALUES (?, 'checkers', NULL, strftime('%s'),"
               " strftime('%s'), 9, ?)", (code, json.dumps(record)))
    db.commit()
    db.close()
    svc = service(now, RoomStore(path))
    assert svc.restore() == [code]
    del record["over"]
    assert svc.room(code).to_record() == record
    play(svc, code, now, 4, seed=3)
    assert stored(path, code) == (9, 4)
    record = svc.room(code).to_record()
    again = service(now, RoomStore(path))
    assert again.restore() == [code]
    assert again.room(code).to_record() == record


def test_a_step_that_does_not_replay_refuses_its_room_only(tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    now = FakeNow()
    svc = service(now, RoomStore(path))
    bad, good = seated(svc, "checkers", "none"), seated(svc, "checkers", "none")
    play(svc, bad, now, 3)
    play(svc, good, now, 3)
    db = sqlite3.connect(path)
    db.execute("UPDATE table_room_steps SET step = json_set(step, '$.message.action.path',"
               " json('[1, 2]')) WHERE code = ? AND version = 4", (bad,))
    db.commit()
    db.close()
    again = service(now, RoomStore(path))
    assert again.restore() == [good]
    assert again.refused[bad].startswith("step 2 does not replay")


def test_a_stale_writer_is_refused_for_a_step_and_for_a_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    first, second = RoomStore(path), RoomStore(path)
    record = {"version": 1}
    first.save("ROOM", "checkers", None, 1, record)
    first.append("ROOM", 2, '{"n":2}')
    with pytest.raises(StaleRoomError):
        second.append("ROOM", 2, '{"n":"other"}')  # the version is taken
    with pytest.raises(StaleRoomError):
        second.append("ROOM", 4, '{"n":4}')  # version 3 is not stored
    with pytest.raises(StaleRoomError):
        second.save("ROOM", "checkers", None, 2, record)  # a snapshot over a stored step
    second.save("ROOM", "checkers", None, 3, {"version": 3})
    with pytest.raises(StaleRoomError):
        first.append("ROOM", 3, '{"n":3}')
    first.append("ROOM", 4, '{"n":4}')
    (room,) = first.load_all()
    assert (room.version, room.record, room.steps) == (4, {"version": 3}, ({"n": 4},))
    assert room.snapshot_version == 3
    first.delete("ROOM")
    assert second.load_all() == []
    first.close()
    second.close()


def test_the_wal_is_checkpointed_in_a_worker_thread(tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    store = RoomStore(path, checkpoint_every=3)
    store.save("ROOM", "checkers", None, 1, {"version": 1})
    for version in range(2, 12):
        store.append("ROOM", version, "{}")
    store.close()  # waits for a checkpoint in progress
    assert store.checkpoints >= 1
    db = sqlite3.connect(path)
    try:
        assert db.execute("SELECT COUNT(*) FROM table_room_steps").fetchone() == (10,)
    finally:
        db.close()


def test_a_checkpoint_lets_the_wal_start_over_however_busy_the_writer(tmp_path: Path) -> None:
    """The worker's checkpoint copies what was written during its passive pass with the
    writers held, so the next write starts the WAL over: the file stops growing. (A passive
    checkpoint alone, with a write always arriving while it runs, never finds the WAL copied
    whole: it grew by hundreds of megabytes in a bench.)"""
    path = tmp_path / "rooms.sqlite3"
    wal = tmp_path / "rooms.sqlite3-wal"
    store = RoomStore(path, checkpoint_every=10**9)  # no checkpoint but the test's
    version = 1
    store.save("ROOM", "checkers", None, version, {"version": 1})

    def write() -> None:
        nonlocal version
        version += 1
        store.append("ROOM", version, json.dumps({"step": version, "pad": "x" * 300}))

    class Busy:
        """The worker's connection: while its pass without the writers runs, a write comes
        (a reader's snapshot holds the pass before it, as a write during the pass would)."""

        def __init__(self) -> None:
            self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)

        def execute(self, sql: str) -> Any:
            if store._lock.locked():  # the pass with the writers held
                row = self.db.execute(sql).fetchone()
            else:
                reader = sqlite3.connect(path, isolation_level=None)
                reader.execute("BEGIN")
                reader.execute("SELECT COUNT(*) FROM table_room_steps").fetchone()
                write()
                row = self.db.execute(sql).fetchone()
                assert row[1] > row[2]  # (the write is not copied by this pass)
                reader.execute("COMMIT")
                reader.close()
            return SimpleNamespace(fetchone=lambda: row)

        def close(self) -> None:
            self.db.close()

    store._checkpoint_db = Busy()  # type: ignore[assignment]
    for _ in range(200):
        write()
    size = wal.stat().st_size
    for _ in range(3):
        store._checkpoint()
        for _ in range(200):
            write()
        assert wal.stat().st_size < 1.5 * size  # written over (it would be 2, 3, 4 times)
    store.close()
    assert store.checkpoints == 3
    (room,) = RoomStore(path).load_all()
    assert room.version == version and len(room.steps) == version - 1
