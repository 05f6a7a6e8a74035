"""Rooms of backgammon's own online door carried to the table's door
(:mod:`backgammon.services.room_migration`): a room built through the old door's own API
mid-match (dice rolled, a double taken, a clock running, a score) goes on at the table's door
with the same seat tokens, position, cube, score, names, clock and ``.mat`` transcript, and is
finished there; a room that cannot convert stays in the old store; running twice (or after a
run that stopped between writing and deleting) changes nothing; ``backgammon serve`` migrates
at start."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import shutil
import socket
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from backgammon.adapter import RULES
from backgammon.core.dice import commitment
from backgammon.core.game import Phase
from backgammon.core.types import BLACK, WHITE, Color
from backgammon.records.mat import format_mat
from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings
from backgammon.services.online.persist import PersistentRooms
from backgammon.services.online.protocol import parse_message
from backgammon.services.online.rooms import OnlineSettings, Room, RoomPhase, Seat
from backgammon.services.review import match_mat
from backgammon.services.room_migration import (
    MigrationReport,
    convert_room,
    migrate_rooms,
    migrate_to_redis,
    table_code,
)
from backgammon.services.room_store import RoomStore as OldRoomStore
from backgammon.services.stats import StatsStore, finished_game, online_session, room_session
from fake_clock import FakeNow
from gametable.fair import commitment_of
from gametable.redis_rooms import RedisRoomStore, SharedRoomService
from gametable.room_store import RoomStore
from gametable.rooms import RoomService
from gametable.seam import Outcome, Side

WALL = 1.7e9


class OldDriver:
    """Sends the old door's messages through its manager, as its WebSocket door does."""

    def __init__(self, rooms: PersistentRooms, room: Room, now: FakeNow) -> None:
        self.rooms, self.room, self.now = rooms, room, now
        self.rng = random.Random(7)
        self.round_secrets: dict[tuple[int, Color], bytes] = {}

    def send(self, color: Color, **fields: Any) -> None:
        self.now.advance(1.5)  # each message after some thought: the clocks move
        text = json.dumps(fields)
        seat = self.room.seat_of(color)
        self.rooms.tick(self.room)
        self.rooms.handle(self.room, seat, parse_message(text), text)

    def secret(self, number: int, color: Color) -> bytes:
        return self.round_secrets.setdefault((number, color), self.rng.randbytes(32))

    def opening(self) -> None:
        while self.room.game.phase is Phase.OPENING:
            number = self.room.next_round
            for color in (WHITE, BLACK):
                self.send(color, type="commit", round=number,
                          commitment=commitment(self.secret(number, color)))
            for color in (WHITE, BLACK):
                self.send(color, type="reveal", round=number,
                          secret=self.secret(number, color).hex())

    def roll(self) -> None:
        """The player on roll rolls (commit, the opponent's secret, reveal)."""
        roller = self.room.game.on_roll
        assert roller is not None and self.room.game.phase is Phase.ROLL
        number = self.room.next_round
        self.send(roller, type="commit", round=number,
                  commitment=commitment(self.secret(number, roller)))
        self.send(roller.opponent, type="secret", round=number,
                  secret=self.secret(number, roller.opponent).hex())
        self.send(roller, type="reveal", round=number, secret=self.secret(number, roller).hex())

    def play(self) -> None:
        """The player on roll plays its first legal play (after rolling, if it must)."""
        game = self.room.game
        if game.phase is Phase.ROLL:
            self.roll()
        if game.phase is not Phase.MOVE:
            return  # the roll passed
        color = game.on_roll
        assert color is not None
        play = game.legal_plays()[0]
        self.send(color, type="play",
                  moves=[[m.from_point, m.to_point, m.die] for m in play.moves])


def _old_rooms(path: Path, now: FakeNow, wall_time: float = WALL) -> PersistentRooms:
    wall = FakeNow(wall_time)
    return PersistentRooms(OldRoomStore(path, now=wall), now=now, wall=wall)


def _mid_match(path: Path, wall: float = WALL) -> tuple[Room, str, str]:
    """An old-door room of a 3-point match with the blitz clock: game 1 dropped (1-0),
    game 2 under way with the cube taken at 2, the player on roll's dice rolled, a checker of
    its play moved (the turn not ended)."""
    now = FakeNow(1000.0)
    rooms = _old_rooms(path, now, wall)
    room, host = rooms.create(OnlineSettings(cube=True, time_control="blitz",
                                             match_length=3), "Ann", "127.0.0.2")
    guest = rooms.join(room, "Bob")
    driver = OldDriver(rooms, room, now)
    driver.opening()
    driver.play()  # the opening roll's play
    doubler = room.game.on_roll
    assert doubler is not None
    driver.send(doubler, type="double")
    driver.send(doubler.opponent, type="drop")  # game 1: the doubler wins 1 point
    driver.send(doubler, type="next_game")
    driver.opening()
    for _ in range(3):
        driver.play()
    doubler = room.game.on_roll
    assert doubler is not None
    driver.send(doubler, type="double")
    driver.send(doubler.opponent, type="take")
    driver.roll()
    move = room.game.legal_plays()[0].moves[0]
    driver.send(doubler, type="move", moves=[[move.from_point, move.to_point, move.die]])
    assert room.game.played  # a play half made
    now.advance(4.0)  # the player on roll thinks on: its clock runs
    rooms.store.close()
    return room, host, guest


def _finish(svc: RoomService, code: str) -> None:
    """Play the match to its end at the table's door: rounds for the dice, the computer's
    easiest choices for the rest."""
    rng = random.Random(3)
    secrets: dict[tuple[int, Side], bytes] = {}

    def secret(number: int, side: Side) -> bytes:
        return secrets.setdefault((number, side), rng.randbytes(32))

    for _ in range(3000):
        room = svc.room(code)
        game = room.table.game
        if game.outcome() is not None:
            return
        due = sorted(room.table.chance_due())
        number = room.next_round
        if len(due) == 2:  # the opening round
            for side in due:
                svc.handle(code, side, {"type": "commit", "round": number,
                                        "commitment": commitment_of(secret(number, side))})
            for side in due:
                svc.handle(code, side, {"type": "reveal", "round": number,
                                        "secret": secret(number, side).hex()})
            continue
        waiting = sorted(game.to_act())
        if not waiting:
            svc.handle(code, "white", {"type": "action", "action": {"type": "next_game"}})
            continue
        side = waiting[0]
        action = RULES.computer_action(game, side, "easy", rng)
        if action["type"] == "roll":
            other: Side = "black" if side == "white" else "white"
            svc.handle(code, side, {"type": "commit", "round": number,
                                    "commitment": commitment_of(secret(number, side))})
            svc.handle(code, other, {"type": "secret", "round": number,
                                     "secret": secret(number, other).hex()})
            svc.handle(code, side, {"type": "reveal", "round": number,
                                    "secret": secret(number, side).hex()})
            continue
        svc.handle(code, side, {"type": "action", "action": action})
    raise AssertionError("the match did not end")


def test_a_room_mid_match_goes_on_at_the_tables_door_with_its_seats(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    old, host_token, guest_token = _mid_match(path)
    game = old.game
    mover = game.on_roll
    assert mover is not None
    # what the players saw at the old door (the half-made play taken back)
    while game.played:
        game.undo()
    board = game.position
    cube = (game.cube_value, game.cube_owner)
    assert cube[0] == 2 and cube[1] is mover.opponent
    assert old.match.score in ((1, 0), (0, 1))
    assert old.clock is not None and old.clock.running is mover
    left = {"white": old.clock.remaining(WHITE), "black": old.clock.remaining(BLACK)}
    assert left[str(mover)] < 180.0 - 4.0  # it has been thinking
    names = (old.names[old.seat_of(WHITE)], old.names[old.seat_of(BLACK)])
    mat = match_mat(old.match, names)
    dice = game.dice

    report = migrate_rooms(path, RoomStore(path), wall=WALL + 60)
    code = table_code(old.code)
    assert report.moved == {old.code: code} and report.kept == {} and report.ended == []
    assert OldRoomStore(path).codes() == []  # gone from the old store

    now = FakeNow(5.0)  # a new process: its monotonic clock starts elsewhere
    svc = RoomService({"backgammon": RULES}, RoomStore(path), now=now)
    assert svc.restore() == [code]
    assert svc.seat_for(code.lower(), host_token) == "white"  # the old tokens, their seats
    assert svc.seat_for(code, guest_token) == "black"
    room = svc.room(code)
    match = room.table.game.match  # type: ignore[attr-defined]
    current = match.current
    assert current.position == board
    assert current.phase is Phase.MOVE and current.dice == dice and not current.played
    assert (current.cube_value, current.cube_owner) == cube
    assert match.score == old.match.score and match.length == 3
    assert room.names == {"white": "Ann", "black": "Bob"}
    clock = room.table.clock_view()
    assert clock is not None and clock["control"] == "blitz"
    # as at the old room's last stored action: neither the 4 s thought since (the old door's
    # restart would not charge them either) nor the migration is charged
    left[str(mover)] += 4.0
    assert clock["remaining"] == pytest.approx(left)
    assert clock["running"] == str(mover)
    assert room.round is None and room.next_round == old.next_round
    assert format_mat(match) == mat
    assert svc.info(code)["settings"] == {"length": 3, "cube": True, "gammons": True,
                                          "jacoby": False, "beavers": False, "single": False}
    view = room.view(str(mover))  # type: ignore[arg-type]
    assert view["room"]["names"] == {"white": "Ann", "black": "Bob"}
    state = view["state"]
    assert state["dice"] == list(dice) and state["cube"]["value"] == 2
    assert state["score"]["white"] + state["score"]["black"] == 1 and state["legal"]

    now.advance(2.0)  # the clock runs from the restore
    assert room.table.clock is not None
    assert room.table.clock.remaining(str(mover)) == pytest.approx(left[str(mover)] - 2.0)
    _finish(svc, code)
    outcome = svc.room(code).view(None)["outcome"]
    assert outcome is not None and outcome["points"] >= 3
    final = svc.room(code).table.game.match  # type: ignore[attr-defined]
    assert final.games[0].to_log() == old.match.games[0].to_log()  # the games before kept
    assert max(final.score) >= 3


def test_a_room_nobody_joined_keeps_its_free_seat_and_its_invitation(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    rooms = _old_rooms(path, FakeNow(1000.0))
    room, host = rooms.create(OnlineSettings(cube=True, money=True, jacoby=True,
                                             beavers=True), "Ann", None)
    rooms.store.close()
    migrate_rooms(path, RoomStore(path), wall=WALL)
    code = table_code(room.code)
    svc = RoomService({"backgammon": RULES}, RoomStore(path), now=FakeNow())
    svc.restore()
    assert svc.info(code) == {
        "code": code, "game": "backgammon",
        "settings": {"length": 0, "cube": True, "gammons": True, "jacoby": True,
                     "beavers": True, "single": False},
        "time_control": "none", "names": {"white": "Ann", "black": ""}, "open": True}
    assert svc.seat_for(code, host) == "white"
    token, side, _ = svc.join(code, "Bob")
    assert side == "black" and svc.seat_for(code, token) == "black"


def test_a_room_that_cannot_convert_stays_in_the_old_store(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "games.sqlite3"
    good, _, _ = _mid_match(path)
    store = OldRoomStore(path, now=FakeNow(WALL))
    store.create("brokenroom123456", {"settings": {"cube": True}, "host_name": "Ann",
                                      "host_token": "0" * 64, "created": 0.0})
    store.write_raw("online_actions", ("brokenroom123456", 1, 1.0, WALL, '{"kind":"nonsense"}'))
    store.close()
    report = migrate_rooms(path, RoomStore(path), wall=WALL + 60)
    assert list(report.moved) == [good.code]
    assert list(report.kept) == ["brokenroom123456"]
    assert "unknown kind 'nonsense'" in report.kept["brokenroom123456"]
    assert "brokenroom123456" in caplog.text and "stays at backgammon's own door" in caplog.text
    assert OldRoomStore(path).codes() == ["brokenroom123456"]  # kept, rows as they were
    assert [row.code for row in RoomStore(path).load_all()] == [table_code(good.code)]


def test_running_twice_or_after_a_stop_half_way_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    old, _, _ = _mid_match(path)
    # a run that stopped after writing the new room, before deleting the old one
    item = OldRoomStore(path).load(old.code)
    converted = convert_room(item)
    target = RoomStore(path)
    target.save(converted.code, "backgammon", converted.owner, 1, converted.record)
    before = [(row.code, row.version, row.record) for row in target.load_all()]
    report = migrate_rooms(path, target, wall=WALL + 60)
    assert report.moved == {old.code: converted.code}
    assert OldRoomStore(path).codes() == []
    assert [(row.code, row.version, row.record) for row in target.load_all()] == before
    again = migrate_rooms(path, target, wall=WALL + 60)
    assert again == MigrationReport()
    assert [(row.code, row.version, row.record) for row in target.load_all()] == before


def test_rooms_over_or_closed_are_left_to_the_old_door(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    now = FakeNow(1000.0)
    rooms = _old_rooms(path, now)
    room, _ = rooms.create(OnlineSettings(), "Ann", None)
    rooms.join(room, "Bob")
    text = json.dumps({"type": "leave"})
    rooms.handle(room, Seat.GUEST, parse_message(text), text)
    assert room.phase is RoomPhase.CLOSED
    rooms.store.close()
    report = migrate_rooms(path, RoomStore(path), wall=WALL)
    assert report.ended == [room.code] and not report.moved and not report.kept
    assert OldRoomStore(path).codes() == [room.code]


def test_serve_migrates_at_start_and_the_old_seat_opens_at_the_new_door(
        tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    old, host_token, guest_token = _mid_match(path, time.time())
    code = table_code(old.code)
    # game 1 counted at the old door in the host's browser's record (online.js asks)
    browser = "ab12" * 6
    first = old.match.games[0]
    assert first.outcome is not None
    records = StatsStore(path)
    records.record(finished_game(first, WHITE, browser=browser,
                                 session=online_session(old.code, 1), number=1,
                                 opponent="online", mode="match", match_over=False))
    records.close()
    app = create_app(ServerSettings(db_path=path))
    with TestClient(app) as client:
        assert OldRoomStore(path).codes() == []
        # ... is counted under the new door's session of the host's seat, so not again
        records = StatsStore(path)
        assert records.browsers(room_session(code, 0, "white")) == {browser}
        assert records.browsers(online_session(old.code, 1)) == set()
        records.close()
        for who, token in ((browser, host_token), ("cd34" * 6, guest_token)):
            counted = client.post("/api/stats/rooms", json={"browser": who, "code": code,
                                                            "token": token})
            assert counted.status_code == 200
            total = client.get(f"/api/stats?browser={who}").json()["total"]
            assert total["games"] == 1
            assert total["won"] == int((first.outcome.winner is WHITE) == (who == browser))
        info = client.get(f"/api/rooms/{code}").json()
        assert info["names"] == {"white": "Ann", "black": "Bob"} and info["open"] is False
        with client.websocket_connect(f"/ws/rooms/{code}") as ws:
            ws.send_json({"type": "hello", "token": host_token})
            frame = ws.receive_json()
            while frame.get("type") != "view":
                frame = ws.receive_json()
            assert frame["view"]["room"]["you"] == "white"
            assert frame["view"]["room"]["code"] == code
        exported = client.get(f"/api/rooms/{code}/export.mat",
                              headers={"X-Seat-Token": host_token})
        assert exported.status_code == 200
        assert exported.text == match_mat(old.match, ("Ann", "Bob"))
        # a page back at the old door hears where its room went (and keeps its seat)
        gone = client.get(f"/api/online/rooms/{old.code}")
        assert gone.status_code == 404  # (not found here: the page looks for it at the new door)
        assert gone.json()["error"]["code"] == "room_moved"
        assert code in gone.json()["error"]["message"]
        asked = client.post("/api/online/moved", json={"codes": [old.code, "nosuchroomatall"]})
        assert asked.status_code == 200 and asked.json() == {"moved": {old.code: code}}
    # at the next start the old door still knows (the room is at the table's door)
    with TestClient(create_app(ServerSettings(db_path=path))) as client:
        assert client.get(f"/api/online/rooms/{old.code}").json()["error"]["code"] == (
            "room_moved")
        assert client.get("/api/online/rooms/nosuchroomatall").json()["error"]["code"] == (
            "room_not_found")


def test_a_dice_round_in_progress_is_restarted_before_its_roll(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    now = FakeNow(1000.0)
    rooms = _old_rooms(path, now)
    room, host = rooms.create(OnlineSettings(time_control="rapid", match_length=1), "Ann",
                              None)
    rooms.join(room, "Bob")
    driver = OldDriver(rooms, room, now)
    driver.opening()
    driver.play()
    roller = room.game.on_roll
    assert roller is not None
    number = room.next_round
    driver.send(roller, type="commit", round=number,
                commitment=commitment(driver.secret(number, roller)))
    assert room.round is not None and room.round.commitments  # waiting on the secret
    position = room.game.position
    rooms.store.close()
    migrate_rooms(path, RoomStore(path), wall=WALL)
    svc = RoomService({"backgammon": RULES}, RoomStore(path), now=FakeNow())
    code = table_code(room.code)
    assert svc.restore() == [code]
    new = svc.room(code)
    side: Side = "white" if roller is WHITE else "black"
    assert new.round is None and new.next_round == number
    assert new.table.chance_due() == {side}  # the roller commits again
    assert new.table.game.match.current.position == position  # type: ignore[attr-defined]
    assert new.table.clock is not None and new.table.clock.running == side
    assert svc.seat_for(code, host) == "white"
    _finish(svc, code)
    outcome = svc.room(code).view(None)["outcome"]
    assert outcome["reason"] == "match" and outcome["points"] >= 1  # (a gammon scores 2)


def test_the_old_doors_single_game_is_the_tables_single_game(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    now = FakeNow(1000.0)
    rooms = _old_rooms(path, now)
    room, _ = rooms.create(OnlineSettings(cube=True), "Ann", None)
    rooms.join(room, "Bob")
    driver = OldDriver(rooms, room, now)
    driver.opening()
    driver.play()
    mat = match_mat(room.match, ("Ann", "Bob"))
    rooms.store.close()
    migrate_rooms(path, RoomStore(path), wall=WALL)
    svc = RoomService({"backgammon": RULES}, RoomStore(path), now=FakeNow())
    code = table_code(room.code)
    svc.restore()
    match = svc.room(code).table.game.match  # type: ignore[attr-defined]
    assert match.length == 0 and match.cube and format_mat(match) == mat
    assert svc.info(code)["settings"]["length"] == 0 and svc.info(code)["settings"]["single"]
    # the one game is the whole room: a forfeit ends it (money play would go on)
    game = svc.room(code).table.game
    assert game.outcome() is None
    game.forfeit("white")
    assert game.outcome() == Outcome("black", "forfeit", 3)


REDIS = shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.skipif(REDIS is None, reason="redis-server is not installed")
def test_with_redis_the_rooms_move_to_redis(tmp_path: Path) -> None:
    assert REDIS is not None
    port = _free_port()
    server = subprocess.Popen([REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", str(tmp_path)],
                              stdout=subprocess.DEVNULL)
    try:
        url = f"redis://127.0.0.1:{port}/0"
        for _ in range(200):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port),
                                                                         timeout=0.5):
                break
            time.sleep(0.05)
        path = tmp_path / "games.sqlite3"
        old, host_token, guest_token = _mid_match(path, time.time())
        code = table_code(old.code)
        report = migrate_to_redis(path, url)
        assert report.moved == {old.code: code} and not report.kept
        assert OldRoomStore(path).codes() == []
        assert migrate_to_redis(path, url) == MigrationReport()  # twice: nothing more

        async def seats() -> tuple[Side, Side, str]:
            service = SharedRoomService({"backgammon": RULES}, RedisRoomStore(url),
                                        now=FakeNow())
            try:
                sides = (await service.open_seat(code, host_token),
                         await service.open_seat(code, guest_token))
                _, text = await service.export(code, host_token, "mat")
            finally:
                await service.redis_store.close()
            return sides[0], sides[1], text

        host_side, guest_side, mat = asyncio.run(seats())
        assert (host_side, guest_side) == ("white", "black")
        assert mat == match_mat(old.match, ("Ann", "Bob"))
    finally:
        server.terminate()
        server.wait(10)


def _copy_room(path: Path, code: str, *others: str) -> None:
    """Store old room ``code`` again under each of ``others`` (its rows copied)."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        for other in others:
            db.execute("INSERT INTO online_rooms SELECT ?, created_at, updated_at, format, "
                       "header FROM online_rooms WHERE code = ?", (other, code))
            db.execute("INSERT INTO online_actions SELECT ?, seq, at, wall, action FROM "
                       "online_actions WHERE code = ?", (other, code))


def test_codes_that_fold_together_or_a_store_that_refuses_keep_the_rooms_old(
        tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    old, _, _ = _mid_match(path)
    _copy_room(path, old.code, "ab-cdEFGH1234567", "abcdefgh1234567_")  # both ABCDEFGH1234567
    report = migrate_rooms(path, RoomStore(path, max_record_bytes=200), wall=WALL + 60)
    assert report.moved == {}
    assert set(report.kept) == {old.code, "ab-cdEFGH1234567", "abcdefgh1234567_"}
    assert report.kept["abcdefgh1234567_"] == (
        "its code at the table's door, ABCDEFGH1234567, is also room 'ab-cdEFGH1234567''s")
    assert report.kept[old.code].startswith("the table's store refused it: ")
    assert sorted(OldRoomStore(path).codes()) == sorted(report.kept)  # all still there
    assert RoomStore(path).load_all() == []
    # a room of the table's door holding the code already: the old room stays
    target = RoomStore(path)
    other = convert_room(OldRoomStore(path).load(old.code))
    taken = {**other.record, "tokens": {"white": "1" * 64, "black": "2" * 64}}
    target.save("ABCDEFGH1234567", "backgammon", None, 1, taken)
    again = migrate_rooms(path, target, wall=WALL + 60)
    assert again.moved == {old.code: table_code(old.code)}
    assert again.kept["ab-cdEFGH1234567"] == (
        "its code at the table's door, ABCDEFGH1234567, is another room's")
    assert sorted(OldRoomStore(path).codes()) == ["ab-cdEFGH1234567", "abcdefgh1234567_"]


def test_keep_old_rooms_leaves_them_at_the_old_door(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "games.sqlite3"
    old, _, _ = _mid_match(path, time.time())
    monkeypatch.setenv("BACKGAMMON_KEEP_OLD_ROOMS", "1")
    with TestClient(create_app(ServerSettings(db_path=path))) as client:
        info = client.get(f"/api/online/rooms/{old.code}")
        assert info.status_code == 200 and info.json()["code"] == old.code
    assert OldRoomStore(path).codes() == [old.code]


def test_redis_out_of_reach_keeps_the_rooms_for_the_next_start(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    old, _, _ = _mid_match(path, time.time())
    report = migrate_to_redis(path, f"redis://127.0.0.1:{_free_port()}/0")
    assert report.moved == {} and list(report.kept) == [old.code]
    assert report.kept[old.code].startswith("Redis did not answer")
    assert OldRoomStore(path).codes() == [old.code]


def test_sides_after_a_rematch_and_a_rematch_asked_carry_over(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    now = FakeNow(1000.0)
    rooms = _old_rooms(path, now)
    made = []
    for _ in range(2):
        room, host = rooms.create(OnlineSettings(match_length=1), "Ann", None)
        guest = rooms.join(room, "Bob")
        driver = OldDriver(rooms, room, now)
        driver.opening()
        mover = room.game.on_roll
        assert mover is not None
        driver.send(mover, type="resign", level="single")
        driver.send(mover.opponent, type="accept")
        assert room.phase is RoomPhase.FINISHED
        driver.send(WHITE, type="rematch")  # Ann asks
        made.append((room, host, guest, driver))
    swapped, asked = made[0], made[1]
    swapped[3].send(BLACK, type="rematch")  # Bob too: a new match, Ann now Black
    assert swapped[0].colors[Seat.HOST] is BLACK and swapped[0].phase is RoomPhase.PLAYING
    rooms.store.close()
    report = migrate_rooms(path, RoomStore(path), wall=WALL)
    assert len(report.moved) == 2
    svc = RoomService({"backgammon": RULES}, RoomStore(path), now=FakeNow())
    svc.restore()
    code = table_code(swapped[0].code)
    assert svc.seat_for(code, swapped[1]) == "black" and svc.seat_for(code, swapped[2]) == "white"
    assert svc.room(code).names == {"white": "Bob", "black": "Ann"}
    assert svc.room(code).table.game.outcome() is None  # the new match, from its opening
    code = table_code(asked[0].code)
    room = svc.room(code)
    assert room.table.game.outcome() is not None and room.rematch == {"white"}
    svc.handle(code, "black", {"type": "rematch"})  # Bob answers at the new door
    assert svc.seat_for(code, asked[1]) == "black"  # sides swapped there
    assert svc.room(code).table.game.outcome() is None


def test_an_opening_round_in_progress_starts_again(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    now = FakeNow(1000.0)
    rooms = _old_rooms(path, now)
    room, _ = rooms.create(OnlineSettings(time_control="blitz", match_length=5), "Ann", None)
    rooms.join(room, "Bob")
    driver = OldDriver(rooms, room, now)
    number = room.next_round
    for color in (WHITE, BLACK):  # both commitments in, no reveal yet
        driver.send(color, type="commit", round=number,
                    commitment=commitment(driver.secret(number, color)))
    assert room.round is not None and len(room.round.commitments) == 2
    assert room.clock is not None
    left = {"white": room.clock.remaining(WHITE), "black": room.clock.remaining(BLACK)}
    assert left == {"white": 178.5, "black": 177.0}  # each commitment's wait, charged
    rooms.store.close()
    migrate_rooms(path, RoomStore(path), wall=WALL)
    svc = RoomService({"backgammon": RULES}, RoomStore(path), now=FakeNow())
    code = table_code(room.code)
    svc.restore()
    new = svc.room(code)
    assert new.round is None and new.table.chance_due() == {"white", "black"}
    clock = new.table.clock_view()
    assert clock is not None and clock["running"] is None
    assert clock["remaining"] == left  # the reveals' waits start again
    _finish(svc, code)
    assert max(svc.room(code).table.game.match.score) >= 5  # type: ignore[attr-defined]
