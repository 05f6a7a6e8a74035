"""Rooms of backgammon's old online door carried to the table's door
(:mod:`backgammon.services.room_migration`, reading them with the frozen reader
:mod:`backgammon.services.old_rooms`): a room mid-match (dice rolled, a double taken, a clock
running, a score) goes on at the table's door with the same seat tokens, position, cube,
score, names, clock and ``.mat`` transcript, and is finished there; a room that cannot convert
stays in the old store; running twice (or after a run that stopped between writing and
deleting) changes nothing; ``backgammon serve`` migrates at start.

The old rooms are ``tests/data/old_rooms/old_rooms.sqlite3`` (each test copies it to its
``tmp_path`` and keeps the rooms it wants): the old door's own rows, made through the old
door's API (``PersistentRooms``, its ``create``/``join``/``handle``/``tick``, as its WebSocket
door called them, the clock a ``FakeNow`` moved 1.5 s before each message, the secrets from
``random.Random(7)``, wall time 1.7e9) at commit 4dedb8fa15b4a7c28877791dad8ddd8023663d38,
before the old door was deleted. ``old_rooms.json`` names each room (``mid_match``: a 3-point
blitz match, game 1 dropped, game 2 with the cube taken at 2 and a checker of a play moved;
``unjoined``: money play with the Jacoby rule and beavers, nobody joined; ``closed``: the
guest left; ``roll_round``: a roll's commitment sent, its secret not; ``single``: the old
door's single game after the opening play; ``rematch_swapped``: a rematch both asked, sides
swapped; ``rematch_asked``: a 1-point match over, White asked for a rematch;
``opening_round``: both opening commitments in, no reveal; ``damaged``: a header and an
action of unknown kind) and keeps, from the old door at that commit, its code, the seats'
tokens, its phase, its ``.mat`` transcript (``match_mat``) and ``record``: the table's record
that the migration made of it then (with the old door's own replay), or why it was not
carried.
"""

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
from backgammon.core.game import Phase
from backgammon.core.match import Match
from backgammon.core.types import WHITE
from backgammon.records.mat import format_mat
from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings
from backgammon.services.old_rooms import read_rooms
from backgammon.services.room_migration import (
    MigrationError,
    MigrationReport,
    convert_room,
    migrate_rooms,
    migrate_to_redis,
    table_code,
)
from backgammon.services.stats import StatsStore, finished_game, online_session, room_session
from fake_clock import FakeNow
from gametable.fair import commitment_of
from gametable.redis_rooms import RedisRoomStore, SharedRoomService
from gametable.room_store import RoomStore
from gametable.rooms import RoomService
from gametable.seam import Outcome, Side

#: The wall time the old rooms were written at (their rows' ``updated_at`` and ``wall``).
WALL = 1.7e9
FIXTURE = Path(__file__).resolve().parents[1] / "data" / "old_rooms"
ROOMS: dict[str, dict[str, Any]] = json.loads((FIXTURE / "old_rooms.json").read_text())


def _old_db(tmp_path: Path, *names: str, wall: float | None = None) -> Path:
    """A copy of the old rooms' database in ``tmp_path`` holding only the rooms ``names``
    (``wall``: their rows written then, instead of at :data:`WALL`)."""
    path = tmp_path / "games.sqlite3"
    shutil.copy(FIXTURE / "old_rooms.sqlite3", path)
    codes = [ROOMS[name]["code"] for name in names]
    marks = ", ".join("?" * len(codes))
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute(f"DELETE FROM online_actions WHERE code NOT IN ({marks})", codes)
        db.execute(f"DELETE FROM online_rooms WHERE code NOT IN ({marks})", codes)
        if wall is not None:
            db.execute("UPDATE online_rooms SET updated_at = ?", (wall,))
            db.execute("UPDATE online_actions SET wall = ?", (wall,))
    return path


def _old_codes(path: Path) -> list[str]:
    """The codes of the rooms left in the old door's store, oldest first."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        return [str(row[0]) for row in db.execute(
            "SELECT code FROM online_rooms ORDER BY created_at, code")]


def _old_match(name: str) -> Match:
    """The match of old room ``name`` as the old door had it (its record's log, the half-made
    play taken back)."""
    record = ROOMS[name]["record"]
    table = record["table"]
    match: Match = RULES.replay(table["settings"], 0, table["log"]).match  # type: ignore[attr-defined]
    return match


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


def _without_rule_tags(text: str) -> str:
    """A ``.mat`` text less the rules' header tags the writer has added since the old door
    wrote its files (``; [Cube "Off"]``, ``; [Gammons "Off"]``, ``; [Beaver "On"]``)."""
    tags = ('; [Cube "Off"]', '; [Gammons "Off"]', '; [Beaver "On"]')
    lines = [line for line in text.split("\n") if line not in tags]
    if lines and lines[0] == "" and text.split("\n")[0] in tags:
        lines = lines[1:]  # (the blank line after a header that held only those)
    return "\n".join(lines)


def test_each_old_room_converts_as_the_old_door_converted_it(tmp_path: Path) -> None:
    path = _old_db(tmp_path, *ROOMS)
    rows = dict(read_rooms(path))
    assert set(rows) == {room["code"] for room in ROOMS.values()}
    for name, room in ROOMS.items():
        item = rows[room["code"]]
        assert not isinstance(item, Exception)
        if name == "damaged":
            with pytest.raises(MigrationError) as refused:
                convert_room(item)
            assert str(refused.value) == room["kept"]
            continue
        if name == "closed":
            with pytest.raises(ValueError, match="it is closed: no play can follow"):
                convert_room(item)
            continue
        converted = convert_room(item)
        assert converted.record == room["record"], name
        assert converted.code == table_code(room["code"])
        assert _without_rule_tags(format_mat(_old_match(name))) == room["mat"], name


def test_a_room_mid_match_goes_on_at_the_tables_door_with_its_seats(tmp_path: Path) -> None:
    old = ROOMS["mid_match"]
    path = _old_db(tmp_path, "mid_match")
    report = migrate_rooms(path, RoomStore(path), wall=WALL + 60)
    code = table_code(old["code"])
    assert report.moved == {old["code"]: code} and report.kept == {} and report.ended == []
    assert _old_codes(path) == []  # gone from the old store
    assert RoomStore(path).load_all()[0].owner == "127.0.0.2"

    now = FakeNow(5.0)  # a new process: its monotonic clock starts elsewhere
    svc = RoomService({"backgammon": RULES}, RoomStore(path), now=now)
    assert svc.restore() == [code]
    assert svc.seat_for(code.lower(), old["host_token"]) == "white"  # the old tokens
    assert svc.seat_for(code, old["guest_token"]) == "black"
    room = svc.room(code)
    match = room.table.game.match  # type: ignore[attr-defined]
    current = match.current
    # the old door's game 2: White doubled, Black took, White rolled 2-2 and moved a checker
    # (the half-made play is taken back: the dice stay)
    assert current.phase is Phase.MOVE and current.dice == (2, 2) and not current.played
    assert (current.cube_value, str(current.cube_owner)) == (2, "black")
    assert match.score == (0, 1) and match.length == 3
    assert current.position == _old_match("mid_match").current.position
    assert room.names == {"white": "Ann", "black": "Bob"}
    clock = room.table.clock_view()
    assert clock is not None and clock["control"] == "blitz"
    # as at the old room's last stored action (White 4.5 s into its turn): nothing charged
    # for the downtime nor the migration
    assert clock["remaining"] == pytest.approx({"white": 169.0, "black": 171.5})
    assert clock["running"] == "white"
    assert room.round is None and room.next_round == 6
    assert format_mat(match) == old["mat"]
    assert svc.info(code)["settings"] == {"length": 3, "cube": True, "gammons": True,
                                          "jacoby": False, "beavers": False, "single": False}
    view = room.view("white")
    assert view["room"]["names"] == {"white": "Ann", "black": "Bob"}
    state = view["state"]
    assert state["dice"] == [2, 2] and state["cube"]["value"] == 2
    assert state["score"]["white"] + state["score"]["black"] == 1 and state["legal"]

    now.advance(2.0)  # the clock runs from the restore
    assert room.table.clock is not None
    assert room.table.clock.remaining("white") == pytest.approx(169.0 - 2.0)
    _finish(svc, code)
    outcome = svc.room(code).view(None)["outcome"]
    assert outcome is not None and outcome["points"] >= 3
    final = svc.room(code).table.game.match  # type: ignore[attr-defined]
    assert final.games[0].to_log() == _old_match("mid_match").games[0].to_log()
    assert max(final.score) >= 3


def test_a_room_nobody_joined_keeps_its_free_seat_and_its_invitation(tmp_path: Path) -> None:
    old = ROOMS["unjoined"]
    path = _old_db(tmp_path, "unjoined")
    migrate_rooms(path, RoomStore(path), wall=WALL)
    code = table_code(old["code"])
    svc = RoomService({"backgammon": RULES}, RoomStore(path), now=FakeNow())
    svc.restore()
    assert svc.info(code) == {
        "code": code, "game": "backgammon",
        "settings": {"length": 0, "cube": True, "gammons": True, "jacoby": True,
                     "beavers": True, "single": False},
        "time_control": "none", "names": {"white": "Ann", "black": ""}, "open": True,
        "closed": False}
    assert svc.seat_for(code, old["host_token"]) == "white"
    token, side, _ = svc.join(code, "Bob")
    assert side == "black" and svc.seat_for(code, token) == "black"


def test_a_room_that_cannot_convert_stays_in_the_old_store(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = _old_db(tmp_path, "mid_match", "damaged")
    good = ROOMS["mid_match"]["code"]
    report = migrate_rooms(path, RoomStore(path), wall=WALL + 60)
    assert list(report.moved) == [good]
    assert list(report.kept) == ["brokenroom123456"]
    assert "unknown kind 'nonsense'" in report.kept["brokenroom123456"]
    assert "brokenroom123456" in caplog.text and "stays in the old door's store" in caplog.text
    assert _old_codes(path) == ["brokenroom123456"]  # kept, rows as they were
    assert [row.code for row in RoomStore(path).load_all()] == [table_code(good)]


def test_running_twice_or_after_a_stop_half_way_changes_nothing(tmp_path: Path) -> None:
    old = ROOMS["mid_match"]["code"]
    path = _old_db(tmp_path, "mid_match")
    # a run that stopped after writing the new room, before deleting the old one
    [(_, item)] = read_rooms(path)
    assert not isinstance(item, Exception)
    converted = convert_room(item)
    target = RoomStore(path)
    target.save(converted.code, "backgammon", converted.owner, 1, converted.record)
    before = [(row.code, row.version, row.record) for row in target.load_all()]
    report = migrate_rooms(path, target, wall=WALL + 60)
    assert report.moved == {old: converted.code}
    assert _old_codes(path) == []
    assert [(row.code, row.version, row.record) for row in target.load_all()] == before
    again = migrate_rooms(path, target, wall=WALL + 60)
    assert again == MigrationReport()
    assert [(row.code, row.version, row.record) for row in target.load_all()] == before


def test_rooms_closed_or_past_the_old_doors_expiry_are_deleted(tmp_path: Path) -> None:
    path = _old_db(tmp_path, "closed", "rematch_asked", "mid_match")
    closed, over = ROOMS["closed"]["code"], ROOMS["rematch_asked"]["code"]
    # the match over was last written 10 minutes ago (the old door's expiry of a room over),
    # the match in play too (it goes on)
    report = migrate_rooms(path, RoomStore(path), wall=WALL + 600)
    assert sorted(report.ended) == sorted([closed, over]) and not report.kept
    assert list(report.moved) == [ROOMS["mid_match"]["code"]]
    assert _old_codes(path) == []
    # a day without a write: the old door dropped any room at start
    later = tmp_path / "later"
    later.mkdir()
    path = _old_db(later, "mid_match")
    report = migrate_rooms(path, RoomStore(path), wall=WALL + 24 * 3600)
    assert report.ended == [ROOMS["mid_match"]["code"]] and not report.moved
    assert _old_codes(path) == [] and RoomStore(path).load_all() == []


def test_serve_migrates_at_start_and_the_old_seat_opens_at_the_new_door(
        tmp_path: Path) -> None:
    old = ROOMS["mid_match"]
    path = _old_db(tmp_path, "mid_match", wall=time.time())
    code = table_code(old["code"])
    # game 1 counted at the old door in the host's browser's record (the old page asked)
    browser = "ab12" * 6
    first = _old_match("mid_match").games[0]
    assert first.outcome is not None and first.outcome.winner is not WHITE  # Black won it
    records = StatsStore(path)
    records.record(finished_game(first, WHITE, browser=browser,
                                 session=online_session(old["code"], 1), number=1,
                                 opponent="online", mode="match", match_over=False))
    records.close()
    app = create_app(ServerSettings(db_path=path))
    with TestClient(app) as client:
        assert _old_codes(path) == []
        # ... is counted under the new door's session of the host's seat, so not again
        records = StatsStore(path)
        assert records.browsers(room_session(code, 0, "white")) == {browser}
        assert records.browsers(online_session(old["code"], 1)) == set()
        records.close()
        for who, token in ((browser, old["host_token"]), ("cd34" * 6, old["guest_token"])):
            counted = client.post("/api/stats/rooms", json={"browser": who, "code": code,
                                                            "token": token})
            assert counted.status_code == 200
            total = client.get(f"/api/stats?browser={who}").json()["total"]
            assert total["games"] == 1 and total["won"] == int(who != browser)
        info = client.get(f"/api/rooms/{code}").json()
        assert info["names"] == {"white": "Ann", "black": "Bob"} and info["open"] is False
        with client.websocket_connect(f"/ws/rooms/{code}") as ws:
            ws.send_json({"type": "hello", "token": old["host_token"]})
            frame = ws.receive_json()
            while frame.get("type") != "view":
                frame = ws.receive_json()
            assert frame["view"]["room"]["you"] == "white"
            assert frame["view"]["room"]["code"] == code
        exported = client.get(f"/api/rooms/{code}/export.mat",
                              headers={"X-Seat-Token": old["host_token"]})
        assert exported.status_code == 200 and exported.text == old["mat"]
        # a page that kept the old seat hears where its room went
        asked = client.post("/api/online/moved",
                            json={"codes": [old["code"], "nosuchroomatall"]})
        assert asked.status_code == 200 and asked.json() == {"moved": {old["code"]: code}}
        # the old door is gone
        assert client.get(f"/api/online/rooms/{old['code']}").status_code == 404
    # at the next start the room is at the table's door already: still said moved
    with TestClient(create_app(ServerSettings(db_path=path))) as client:
        asked = client.post("/api/online/moved", json={"codes": [old["code"]]})
        assert asked.json() == {"moved": {old["code"]: code}}


def test_a_dice_round_in_progress_is_restarted_before_its_roll(tmp_path: Path) -> None:
    old = ROOMS["roll_round"]
    path = _old_db(tmp_path, "roll_round")
    migrate_rooms(path, RoomStore(path), wall=WALL)
    svc = RoomService({"backgammon": RULES}, RoomStore(path), now=FakeNow())
    code = table_code(old["code"])
    assert svc.restore() == [code]
    new = svc.room(code)
    # Black had committed to round 2 (its roll), White's secret not sent yet
    assert new.round is None and new.next_round == 2
    assert new.table.chance_due() == {"black"}  # the roller commits again
    match = new.table.game.match  # type: ignore[attr-defined]
    assert match.current.position == _old_match("roll_round").current.position
    assert match.current.phase is Phase.ROLL
    assert new.table.clock is not None and new.table.clock.running == "black"
    assert svc.seat_for(code, old["host_token"]) == "white"
    _finish(svc, code)
    outcome = svc.room(code).view(None)["outcome"]
    assert outcome["reason"] == "match" and outcome["points"] >= 1  # (a gammon scores 2)


def test_the_old_doors_single_game_is_the_tables_single_game(tmp_path: Path) -> None:
    old = ROOMS["single"]
    path = _old_db(tmp_path, "single")
    migrate_rooms(path, RoomStore(path), wall=WALL)
    svc = RoomService({"backgammon": RULES}, RoomStore(path), now=FakeNow())
    code = table_code(old["code"])
    svc.restore()
    match = svc.room(code).table.game.match  # type: ignore[attr-defined]
    assert match.length == 0 and match.cube and format_mat(match) == old["mat"]
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
        old = ROOMS["mid_match"]
        path = _old_db(tmp_path, "mid_match", wall=time.time())
        code = table_code(old["code"])
        report = migrate_to_redis(path, url)
        assert report.moved == {old["code"]: code} and not report.kept
        assert _old_codes(path) == []
        assert migrate_to_redis(path, url) == MigrationReport()  # twice: nothing more

        async def seats() -> tuple[Side, Side, str]:
            service = SharedRoomService({"backgammon": RULES}, RedisRoomStore(url),
                                        now=FakeNow())
            try:
                sides = (await service.open_seat(code, old["host_token"]),
                         await service.open_seat(code, old["guest_token"]))
                _, text = await service.export(code, old["host_token"], "mat")
            finally:
                await service.redis_store.close()
            return sides[0], sides[1], text

        host_side, guest_side, mat = asyncio.run(seats())
        assert (host_side, guest_side) == ("white", "black")
        assert mat == old["mat"]
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
    old = ROOMS["mid_match"]["code"]
    path = _old_db(tmp_path, "mid_match")
    _copy_room(path, old, "ab-cdEFGH1234567", "abcdefgh1234567_")  # both ABCDEFGH1234567
    report = migrate_rooms(path, RoomStore(path, max_record_bytes=200), wall=WALL + 60)
    assert report.moved == {}
    assert set(report.kept) == {old, "ab-cdEFGH1234567", "abcdefgh1234567_"}
    assert report.kept["abcdefgh1234567_"] == (
        "its code at the table's door, ABCDEFGH1234567, is also room 'ab-cdEFGH1234567''s")
    assert report.kept[old].startswith("the table's store refused it: ")
    assert sorted(_old_codes(path)) == sorted(report.kept)  # all still there
    assert RoomStore(path).load_all() == []
    # a room of the table's door holding the code already: the old room stays
    target = RoomStore(path)
    rows = dict(read_rooms(path))
    item = rows[old]
    assert not isinstance(item, Exception)
    other = convert_room(item)
    taken = {**other.record, "tokens": {"white": "1" * 64, "black": "2" * 64}}
    target.save("ABCDEFGH1234567", "backgammon", None, 1, taken)
    again = migrate_rooms(path, target, wall=WALL + 60)
    assert again.moved == {old: table_code(old)}
    assert again.kept["ab-cdEFGH1234567"] == (
        "its code at the table's door, ABCDEFGH1234567, is another room's")
    assert sorted(_old_codes(path)) == ["ab-cdEFGH1234567", "abcdefgh1234567_"]


def test_redis_out_of_reach_keeps_the_rooms_for_the_next_start(tmp_path: Path) -> None:
    old = ROOMS["mid_match"]["code"]
    path = _old_db(tmp_path, "mid_match", wall=time.time())
    report = migrate_to_redis(path, f"redis://127.0.0.1:{_free_port()}/0")
    assert report.moved == {} and list(report.kept) == [old]
    assert report.kept[old].startswith("Redis did not answer")
    assert _old_codes(path) == [old]


def test_sides_after_a_rematch_and_a_rematch_asked_carry_over(tmp_path: Path) -> None:
    swapped, asked = ROOMS["rematch_swapped"], ROOMS["rematch_asked"]
    path = _old_db(tmp_path, "rematch_swapped", "rematch_asked")
    report = migrate_rooms(path, RoomStore(path), wall=WALL)
    assert len(report.moved) == 2
    svc = RoomService({"backgammon": RULES}, RoomStore(path), now=FakeNow())
    svc.restore()
    code = table_code(swapped["code"])  # both asked: a new match, Ann (the host) now Black
    assert svc.seat_for(code, swapped["host_token"]) == "black"
    assert svc.seat_for(code, swapped["guest_token"]) == "white"
    assert svc.room(code).names == {"white": "Bob", "black": "Ann"}
    assert svc.room(code).table.game.outcome() is None  # the new match, from its opening
    code = table_code(asked["code"])
    room = svc.room(code)
    assert room.table.game.outcome() is not None and room.rematch == {"white"}
    svc.handle(code, "black", {"type": "rematch"})  # Bob answers at the new door
    assert svc.seat_for(code, asked["guest_token"]) == "white"  # sides swapped there
    assert svc.room(code).table.game.outcome() is None


def test_an_opening_round_in_progress_starts_again(tmp_path: Path) -> None:
    old = ROOMS["opening_round"]
    path = _old_db(tmp_path, "opening_round")
    migrate_rooms(path, RoomStore(path), wall=WALL)
    svc = RoomService({"backgammon": RULES}, RoomStore(path), now=FakeNow())
    code = table_code(old["code"])
    svc.restore()
    new = svc.room(code)
    assert new.round is None and new.table.chance_due() == {"white", "black"}
    clock = new.table.clock_view()
    assert clock is not None and clock["running"] is None
    # each commitment's wait charged at the old door (1.5 s for White, 3 s for Black); the
    # reveals' waits start again
    assert clock["remaining"] == {"white": 178.5, "black": 177.0}
    _finish(svc, code)
    assert max(svc.room(code).table.game.match.score) >= 5  # type: ignore[attr-defined]


def test_a_room_kept_in_the_old_store_is_not_said_moved(tmp_path: Path) -> None:
    """A page asking where its kept seats' rooms went hears of the rooms moved only: not of
    one left in the old store because its code at the table's door is another room's."""
    old = ROOMS["mid_match"]["code"]
    path = _old_db(tmp_path, "mid_match", wall=time.time())
    _copy_room(path, old, "ab-cdEFGH1234567")
    rows = dict(read_rooms(path))
    item = rows[old]
    assert not isinstance(item, Exception)
    taken = {**convert_room(item).record, "tokens": {"white": "1" * 64, "black": "2" * 64}}
    target = RoomStore(path)
    target.save("ABCDEFGH1234567", "backgammon", None, 1, taken)
    target.close()
    with TestClient(create_app(ServerSettings(db_path=path))) as client:
        assert _old_codes(path) == ["ab-cdEFGH1234567"]
        asked = client.post("/api/online/moved",
                            json={"codes": [old, "ab-cdEFGH1234567", "ABCDEFGH1234567"]})
        assert asked.status_code == 200
        assert asked.json() == {"moved": {old: table_code(old)}}
        too_many = client.post("/api/online/moved", json={"codes": ["a"] * 65})
        assert too_many.status_code == 422
        assert too_many.json()["error"]["code"] == "invalid_request"
