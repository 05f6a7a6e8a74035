"""The shared door's guards (issue 33): what a hostile or stalling player, a failing store or
time itself must not do to the rooms' door (gametable.online, gametable.rooms)."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, WebSocketDisconnect
from fastapi.testclient import TestClient

from backgammon.adapter import RULES as BACKGAMMON
from checkers.adapter import RULES as CHECKERS
from fake_clock import FakeNow
from gametable.errors import ActionRefused
from gametable.fair import commitment_of
from gametable.online import RoomHub, install
from gametable.room import THINK_AFTER, THINK_WARNING, Outgoing, token_hash
from gametable.room_store import RoomStore, RoomStoreFullError
from gametable.rooms import RoomService
from ws_peer import WsPeer

GAMES = {"backgammon": BACKGAMMON, "checkers": CHECKERS}


def seated(svc: RoomService, game: str = "checkers", control: str = "none") -> str:
    """A room with both players joined and connected: White hosts."""
    code, _, _, _ = svc.create(game, {}, control, name="Ann", side="white")
    svc.join(code, "Bob")
    for side in ("white", "black"):
        svc.connect(code, side)
    return code


def test_an_opened_claim_is_announced_once_then_gives_no_deadline() -> None:
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now, claim_after=120)
    code = seated(svc)
    svc.disconnect(code, "black")  # Black, to move, is gone
    assert svc.deadline(code) == now.t + 120
    now.advance(121)
    due = svc.tick()
    assert [c for c, out in due if out] == [code]  # the claim opened: the views, once
    assert svc.room(code).view("white")["room"]["can_claim"] is True
    assert svc.deadline(code) is None  # no deadline in the past for the timer to loop on
    now.advance(5)
    assert [out for _, out in svc.tick() if out] == []
    # back and gone again: a new claim, announced once more
    svc.connect(code, "black")
    svc.disconnect(code, "black")
    assert svc.deadline(code) == now.t + 120
    now.advance(120)
    assert [c for c, out in svc.tick() if out] == [code]
    assert svc.deadline(code) is None


def test_a_room_nobody_joined_gives_no_claim_deadline() -> None:
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now, claim_after=120)
    code, _, _, _ = svc.create("checkers", {}, "none", name="Ann", side="white")
    svc.connect(code, "white")  # Black (to move) has not joined: nothing to claim or time
    now.advance(500)
    assert svc.deadline(code) is None
    assert [out for _, out in svc.tick() if out] == []


class FailingStore(RoomStore):
    """A room store whose saves raise ``fail`` while it is set."""

    def __init__(self) -> None:
        super().__init__(":memory:")
        self.fail: Exception | None = None

    def save(self, code: str, game: str, owner: str | None, version: int,
             record: dict[str, Any]) -> str:
        if self.fail is not None:
            raise self.fail
        return super().save(code, game, owner, version, record)

    def append(self, code: str, version: int, step: str) -> None:
        if self.fail is not None:
            raise self.fail
        super().append(code, version, step)


def _door(svc: RoomService) -> TestClient:
    app = FastAPI()
    install(app, svc)
    return TestClient(app)


def test_a_failing_store_is_refused_in_words_and_the_game_left_as_it_was() -> None:
    store = FailingStore()
    svc = RoomService(GAMES, store, now=FakeNow())
    client = _door(svc)
    store.fail = OSError(28, "No space left on device")
    made = client.post("/api/rooms", json={"game": "checkers", "name": "Ann"})
    assert made.status_code == 503
    assert made.json()["error"]["code"] == "unavailable" and len(svc) == 0
    store.fail = None
    host = client.post("/api/rooms", json={"game": "checkers", "name": "Ann"}).json()
    code = host["code"]
    store.fail = RoomStoreFullError("too large")  # past the store's bound: the room is full
    joined = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
    assert joined.status_code == 409 and joined.json()["error"] == {
        "code": "room_full",
        "message": "this room holds all a room may store: start a new room to play on"}
    assert client.get(f"/api/rooms/{code}").json()["open"] is True  # the seat is still free
    store.fail = None
    guest = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
    with client.websocket_connect(f"/ws/rooms/{code}") as ws:
        peer = WsPeer(ws)
        peer.send(type="hello", token=guest["token"])
        peer.expect("view")
        store.fail = sqlite3.OperationalError("database is locked")
        peer.send(type="action", action={"type": "move", "path": [11, 15]}, ref=1)
        refused = peer.expect("error")
        assert refused["code"] == "unavailable" and refused["ref"] == 1 and refused["message"]
        peer.send(type="state", ref=2)  # the connection is open, the move not made
        assert peer.expect("view")["view"]["state"]["moves"] == []
        store.fail = None
        peer.send(type="action", action={"type": "move", "path": [11, 15]}, ref=3)
        assert peer.expect("view")["view"]["state"]["moves"] == ["11-15"]


def test_a_flag_that_cannot_be_saved_keeps_the_timer_alive() -> None:
    now = FakeNow()
    store = FailingStore()
    svc = RoomService(GAMES, store, now=now)
    code = seated(svc, control="blitz")
    svc.handle(code, "black", {"type": "action", "action": {"type": "move", "path": [11, 15]}})
    now.advance(10_000)  # White's flag falls
    store.fail = OSError(5, "I/O error")
    assert [out for _, out in svc.tick() if out] == []  # not saved: not fallen
    assert svc.room(code).table.game.outcome() is None
    deadline = svc.deadline(code)
    assert deadline is not None and deadline >= now.t + 1  # tried again a second later
    store.fail = None
    now.advance(1)
    assert [c for c, out in svc.tick() if out] == [code]
    assert svc.room(code).table.game.outcome() is not None

    async def broken_due(code: str) -> list[tuple[str, list[Outgoing]]]:
        raise sqlite3.DatabaseError("database disk image is malformed")

    async def hub_tick() -> bool:
        other = seated(svc, control="blitz")
        svc.handle(other, "black", {"type": "action",
                                    "action": {"type": "move", "path": [11, 15]}})
        hub = RoomHub(svc)
        svc.due = broken_due  # type: ignore[method-assign]
        await hub._tick(other)  # logged, not raised
        armed = other in hub._timers
        for timer in hub._timers.values():
            timer.cancel()
        return armed

    assert asyncio.run(hub_tick())  # the timer is armed again


def test_finished_rooms_free_the_address_and_rooms_expire_below_capacity() -> None:
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now, max_per_owner=3, create_rate=100)
    codes = [svc.create("checkers", {}, name="Ann", owner="10.0.0.9")[0] for _ in range(3)]
    with pytest.raises(ActionRefused, match="at most 3 open rooms") as refused:
        svc.create("checkers", {}, owner="10.0.0.9")
    assert refused.value.code == "too_many_rooms"
    svc.join(codes[0], "Bob")
    svc.handle(codes[0], "black", {"type": "action", "action": {"type": "resign"}})
    code, _, _, _ = svc.create("checkers", {}, owner="10.0.0.9")  # a game over counts not
    codes.append(code)
    # nobody joined, nobody connected: dropped after the old door's 600 s, far below
    # the server's capacity; the finished game after its own expiry
    now.advance(599)
    assert svc.sweep() == []
    now.advance(2)
    assert sorted(svc.sweep()) == sorted(codes[1:])
    assert len(svc) == 1
    now.advance(2 * 3600)
    svc.create("checkers", {}, owner="10.0.0.8")  # a creation sweeps, a minute after the last
    with pytest.raises(ActionRefused) as gone:
        svc.room(codes[0])
    assert gone.value.code == "not_found"


def test_a_room_nobody_joined_lives_while_its_host_waits_in_it() -> None:
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now)
    code, _, _, _ = svc.create("checkers", {}, owner="10.0.0.9")
    svc.connect(code, "white")
    now.advance(3600)
    assert svc.sweep() == []  # the host is there
    svc.disconnect(code, "white")
    now.advance(599)
    assert svc.sweep() == []  # 600 s from when the host left, not from the creation
    now.advance(1)
    assert svc.sweep() == [code]


def test_room_creation_is_limited_per_address_per_minute() -> None:
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now, max_per_owner=100, max_waiting=100)
    client = _door(svc)
    for _ in range(10):
        assert client.post("/api/rooms", json={"game": "checkers"}).status_code == 201
        now.advance(3)
    refused = client.post("/api/rooms", json={"game": "checkers"})
    assert refused.status_code == 429
    assert refused.json()["error"] == {
        "code": "rate_limited",
        "message": "10 rooms made from your address in the last 60 s: try again in 30 s"}
    other = TestClient(client.app, client=("10.1.2.3", 5000))
    assert other.post("/api/rooms", json={"game": "checkers"}).status_code == 201
    now.advance(30)
    assert client.post("/api/rooms", json={"game": "checkers"}).status_code == 201


def test_a_room_its_host_left_takes_no_guest(tmp_path: Path) -> None:
    now = FakeNow()
    svc = RoomService(GAMES, RoomStore(tmp_path / "rooms.sqlite3"), now=now)
    client = _door(svc)
    host = client.post("/api/rooms", json={"game": "checkers", "name": "Ann"}).json()
    code = host["code"]
    looked = client.get(f"/api/rooms/{code}").json()
    assert (looked["open"], looked["closed"]) == (True, False)
    with client.websocket_connect(f"/ws/rooms/{code}") as ws:
        peer = WsPeer(ws)
        peer.send(type="hello", token=host["token"])
        peer.expect("view")
        peer.send(type="leave", ref=1)
        assert peer.expect("view")["view"]["room"]["left"] == ["white"]
    # the lookup says it is closed (not that it has two players), the join is refused so
    looked = client.get(f"/api/rooms/{code}").json()
    assert (looked["open"], looked["closed"], looked["names"]) == (
        False, True, {"white": "Ann", "black": ""})
    joined = client.post(f"/api/rooms/{code}/join", json={"name": "Mallory"})
    assert joined.status_code == 410
    assert joined.json()["error"] == {
        "code": "room_closed", "message": "the host has left this room: ask for a new one"}
    # closed across a restart too, and the sweep drops it with nobody there
    again = RoomService(GAMES, RoomStore(tmp_path / "rooms.sqlite3"), now=now)
    assert again.restore() == [code]
    assert again.info(code)["closed"] is True
    with pytest.raises(ActionRefused, match="host has left"):
        again.join(code, "Mallory")
    assert again.sweep() == [code]


def test_a_room_refused_at_restore_is_not_answered_as_not_found(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "rooms.sqlite3"
    svc = RoomService(GAMES, RoomStore(path), now=FakeNow())
    broken, token, _, _ = svc.create("checkers", {}, name="Ann")
    kept, _, _, _ = svc.create("checkers", {}, name="Bob")
    db = sqlite3.connect(path)
    db.execute("UPDATE table_rooms SET record = json_set(record, '$.version', 99)"
               " WHERE code = ?", (broken,))
    db.commit()
    db.close()
    again = RoomService(GAMES, RoomStore(path), now=FakeNow())
    with caplog.at_level("INFO", logger="gametable.rooms"):
        assert again.restore() == [kept]
    assert "online rooms: 1 restored, 1 refused; " + broken in caplog.text
    assert again.refused == {broken: "room version 99"}
    client = _door(again)
    answer = client.get(f"/api/rooms/{broken.lower()}")
    assert answer.status_code == 410
    assert answer.json()["error"] == {
        "code": "room_not_restored",
        "message": f"room {broken} could not be brought back after the server restarted"
                   " (room version 99): it cannot be played on; its record is kept"}
    with client.websocket_connect(f"/ws/rooms/{broken}") as ws:
        peer = WsPeer(ws)
        peer.send(type="hello", token=token)
        assert peer.expect("error")["code"] == "room_not_restored"
    assert client.get("/api/rooms/ZZZZZZZZ").json()["error"]["code"] == "not_found"


def test_a_file_is_written_in_a_worker_thread_from_a_snapshot(tmp_path: Path) -> None:
    in_loop: list[bool] = []  # for each file written: on the event loop's thread?

    class Spied(type(CHECKERS)):  # type: ignore[misc]
        def exports(self) -> dict[str, Any]:
            pdn = super().exports()["pdn"]

            def spied(game: Any, tags: Mapping[str, str]) -> str:
                try:
                    asyncio.get_running_loop()
                    in_loop.append(True)
                except RuntimeError:
                    in_loop.append(False)
                return str(pdn(game, tags))

            return {"pdn": spied}

    spied_games = {**GAMES, "checkers": Spied()}
    for store in (None, RoomStore(tmp_path / "rooms.sqlite3")):
        svc = RoomService(spied_games, store, now=FakeNow())
        client = _door(svc)
        host = client.post("/api/rooms", json={"game": "checkers", "name": "Ann"}).json()
        code = host["code"]
        svc.join(code, "Bob")
        svc.handle(code, "black", {"type": "action", "action": {"type": "move",
                                                                "path": [11, 15]}})
        got = client.get(f"/api/rooms/{code}/export.pdn",
                         headers={"X-Seat-Token": host["token"]})
        assert got.status_code == 200 and "1. 11-15" in got.text
        assert in_loop == [False]  # a worker thread
        in_loop.clear()
        svc._exports = 10  # two being written, eight waiting: the next one is refused
        busy = client.get(f"/api/rooms/{code}/export.pdn",
                          headers={"X-Seat-Token": host["token"]})
        assert busy.status_code == 503 and busy.json()["error"]["code"] == "unavailable"
        assert in_loop == []


W, B = bytes(range(32)), bytes(range(32, 64))


def test_a_connected_player_who_withholds_a_dice_step_can_be_claimed_against() -> None:
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now, claim_after=120)
    code = seated(svc, "backgammon")  # untimed, both connected
    room = svc.room(code)
    # the opening roll: White commits, Black's page (connected) never sends its commitment
    svc.handle(code, "white", {"type": "commit", "round": 0, "commitment": commitment_of(W)})
    assert svc.deadline(code) == now.t + 120
    now.advance(119)
    assert room.claimable() is None
    assert room.view("white")["room"]["claim_in"] is None  # no countdown: Black is here
    with pytest.raises(ActionRefused, match="only when your opponent is gone"):
        svc.handle(code, "white", {"type": "claim"})
    now.advance(1)
    assert [c for c, out in svc.tick() if out] == [code]  # announced once
    assert svc.deadline(code) is None
    assert room.view("white")["room"]["can_claim"] is True
    assert room.view("black")["room"]["can_claim"] is False
    svc.handle(code, "white", {"type": "claim"})
    outcome = room.view(None)["outcome"]
    assert outcome["winner"] == "white" and outcome["reason"] == "forfeit"


def test_a_step_taken_restarts_the_wait_and_a_roll_not_asked_for_is_no_step() -> None:
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now, claim_after=120)
    code = seated(svc, "backgammon")
    room = svc.room(code)
    svc.handle(code, "white", {"type": "commit", "round": 0, "commitment": commitment_of(W)})
    now.advance(100)
    svc.handle(code, "black", {"type": "commit", "round": 0, "commitment": commitment_of(B)})
    now.advance(100)  # each owes its reveal since Black's commit, 100 s ago
    svc.handle(code, "white", {"type": "reveal", "round": 0, "secret": W.hex()})
    assert room.claimable() is None
    now.advance(20)
    assert room.claimable() == "black"  # Black withheld its reveal for 120 s
    svc.handle(code, "black", {"type": "reveal", "round": 0, "secret": B.hex()})
    while room.table.game.match.current.phase.value == "opening":  # a tie: again
        number = room.next_round
        for side, secret in (("white", W), ("black", B)):
            svc.handle(code, side, {"type": "commit", "round": number,
                                    "commitment": commitment_of(secret)})
        for side, secret in (("white", W), ("black", B)):
            svc.handle(code, side, {"type": "reveal", "round": number, "secret": secret.hex()})
    game = room.table.game
    mover = next(iter(game.to_act()))
    play = BACKGAMMON.computer_action(game, mover, "easy", random.Random(1))
    svc.handle(code, mover, {"type": "action", "action": play})
    # the next player, connected, may think before rolling (or doubling): no step claim, only
    # the thinking one, warned 2 minutes before it opens after 10 minutes of its turn
    roller = next(iter(game.to_act()))
    opponent = "black" if roller == "white" else "white"
    start = now()
    assert svc.deadline(code) == start + THINK_AFTER - THINK_WARNING
    now.advance(THINK_AFTER - THINK_WARNING - 1)
    assert room.round is None and room.claimable() is None
    assert room.view(roller)["room"]["think_claim_in"] is None
    now.advance(1)
    assert room.open_claims() is True and room.open_claims() is False  # the warning, once
    assert room.view(roller)["room"]["think_claim_in"] == THINK_WARNING
    assert room.view(opponent)["room"]["think_claim_in"] is None
    assert svc.deadline(code) == start + THINK_AFTER
    now.advance(THINK_WARNING)
    assert room.claimable() == roller
    assert room.view(opponent)["room"]["can_claim"] is True
    assert room.view(opponent)["room"]["claim_cause"] == "thinking"
    assert room.open_claims() is True and svc.deadline(code) is None


def _two_seats(client: TestClient) -> tuple[str, dict[str, Any], dict[str, Any]]:
    host = client.post("/api/rooms", json={"game": "checkers", "name": "Ann"}).json()
    guest = client.post(f"/api/rooms/{host['code']}/join", json={"name": "Bob"}).json()
    return host["code"], host, guest


def test_the_hello_is_due_from_when_the_connection_opens(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Frames that are not a hello do not put the hello off: the connection is closed
    HELLO_TIMEOUT after it opened, however many came before."""
    import time

    import gametable.online as online

    monkeypatch.setattr(online, "HELLO_TIMEOUT", 0.6)
    svc = RoomService(GAMES, RoomStore(":memory:"), now=FakeNow())
    client = _door(svc)
    code, _, _ = _two_seats(client)
    with client.websocket_connect(f"/ws/rooms/{code}") as ws:
        peer = WsPeer(ws)
        opened = time.monotonic()
        refusals = 0
        while True:
            peer.send(type="state")
            error = peer.expect("error")
            assert error["code"] == "hello_first"
            if error["message"] == "no hello in time":
                break
            refusals += 1
            assert time.monotonic() - opened < 3.0, "a frame a while put the hello off"
            time.sleep(0.2)
        assert refusals >= 2 and 0.5 <= time.monotonic() - opened < 2.0
        with pytest.raises(WebSocketDisconnect) as closed:
            peer.recv()
        assert closed.value.code == 1008


def test_hostile_frames_are_refused_in_words_and_the_connection_stays_open() -> None:
    svc = RoomService(GAMES, RoomStore(":memory:"), now=FakeNow())
    client = _door(svc)
    code, _, guest = _two_seats(client)
    with client.websocket_connect(f"/ws/rooms/{code}") as ws:
        peer = WsPeer(ws)
        peer.send(type="state", ref=1)  # before hello
        assert peer.expect("error")["code"] == "hello_first"
        ws.send_bytes(b'{"type": "hello"}')  # a binary frame
        assert peer.expect("error") == {"type": "error", "code": "invalid_message",
                                        "message": "send JSON text frames", "ref": None}
        peer.send(type="hello", token=guest["token"])
        peer.expect("view")
        peer.send(type="hello", token=guest["token"], ref="again")
        again = peer.expect("error")
        assert again["code"] == "already_joined" and again["ref"] == "again"
        deep = "[" * 2000 + "]" * 2000  # nested past what the parser follows
        ws.send_text('{"type": "action", "action": ' + deep + "}")
        assert peer.expect("error")["message"] == "the frame is not JSON"
        nested = "[" * 900 + "]" * 900  # parsed, then refused by the game's check
        ws.send_text('{"type": "action", "ref": 7, "action": {"type": "move", '
                     '"path": [11, 15], "x": ' + nested + "}}")
        refused = peer.expect("error")
        assert refused["code"] == "invalid_action" and refused["ref"] == 7
        ws.send_bytes(b"\xff" * 10)
        assert peer.expect("error")["code"] == "invalid_message"
        peer.send(type="state", ref=2)  # still open, nothing changed
        view = peer.expect("view")
        assert view["ref"] == 2 and view["view"]["state"]["moves"] == []


def test_a_forged_token_is_refused_and_the_connection_closed() -> None:
    svc = RoomService(GAMES, None, now=FakeNow())
    client = _door(svc)
    code, _, _ = _two_seats(client)
    with client.websocket_connect(f"/ws/rooms/{code}") as ws:
        ws.send_json({"type": "hello", "token": "forged-token-0123456789"})
        assert ws.receive_json()["code"] == "not_your_room"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 1008


def test_the_store_holds_token_hashes_only_and_nothing_for_reads_or_refusals(
    tmp_path: Path,
) -> None:
    path = tmp_path / "rooms.sqlite3"
    svc = RoomService(GAMES, RoomStore(path), now=FakeNow())
    client = _door(svc)
    code, host, guest = _two_seats(client)

    def row() -> tuple[int, str]:
        """The room's stored version (its snapshot's or its last step's) and all its text."""
        db = sqlite3.connect(path)
        try:
            version, record = db.execute(
                "SELECT version, record FROM table_rooms WHERE code = ?", (code,)
            ).fetchone()
            steps = db.execute(
                "SELECT version, step FROM table_room_steps WHERE code = ? ORDER BY version",
                (code,),
            ).fetchall()
        finally:
            db.close()
        return max([int(version), *(v for v, _ in steps)]), str(record) + "".join(
            text for _, text in steps)

    version, record = row()
    for token in (host["token"], guest["token"]):
        assert token not in record and token_hash(token) in record
    with client.websocket_connect(f"/ws/rooms/{code}") as ws:
        peer = WsPeer(ws)
        peer.send(type="hello", token=guest["token"])
        peer.expect("view")
        peer.send(type="state", ref=1)
        peer.expect("view")
        peer.send(type="action", action={"type": "move", "path": [1, 2]}, ref=2)
        assert peer.expect("error")["code"] != "unavailable"
        peer.send(type="claim", ref=3)
        assert peer.expect("error")["code"] == "not_claimable"
        peer.send(type="rematch", ref=4)
        assert peer.expect("error")["code"] == "no_rematch"
    assert row() == (version, record)  # a connection, a read, refusals: nothing written
    with client.websocket_connect(f"/ws/rooms/{code}") as ws:
        peer = WsPeer(ws)
        peer.send(type="hello", token=guest["token"])
        peer.expect("view")
        peer.send(type="action", action={"type": "move", "path": [11, 15]}, ref=5)
        peer.expect("view")
    version_after, text = row()
    assert version_after == version + 1  # an accepted move: one write (a step)
    for token in (host["token"], guest["token"]):
        assert token not in text


def test_an_address_share_holds_across_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    now = FakeNow()
    svc = RoomService(GAMES, RoomStore(path), now=now, max_per_owner=2)
    for _ in range(2):
        svc.create("checkers", {}, owner="10.0.0.9")
    again = RoomService(GAMES, RoomStore(path), now=now, max_per_owner=2)
    assert len(again.restore()) == 2
    with pytest.raises(ActionRefused, match="at most 2 open rooms") as refused:
        again.create("checkers", {}, owner="10.0.0.9")
    assert refused.value.code == "too_many_rooms"
    again.create("checkers", {}, owner="10.0.0.10")  # another address is not held up


def test_an_address_holds_at_most_five_rooms_nobody_joined() -> None:
    svc = RoomService(GAMES, None, now=FakeNow())
    codes = [svc.create("checkers", {}, owner="10.0.0.9")[0] for _ in range(5)]
    with pytest.raises(ActionRefused) as refused:
        svc.create("checkers", {}, owner="10.0.0.9")
    assert (refused.value.code, str(refused.value)) == (
        "rate_limited",
        "your address has 5 rooms nobody has joined: share one, or wait until they expire")
    svc.join(codes[0], "Bob")  # a joined room is no longer waiting
    svc.create("checkers", {}, owner="10.0.0.9")
