"""What the shared door tells a page so that it can say what the old door said (issue 33): the
answer to a hello says when the server process opened its door (``server``: a page that
reconnects after a restart learns that the room was kept across it), and a seat that leaves
has the other seat told (``left``: the room is closed to it), which the room's view keeps
(``room.left``)."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from backgammon.adapter import RULES as BACKGAMMON
from checkers.adapter import RULES as CHECKERS
from fake_clock import FakeNow
from gametable.online import install
from gametable.room_store import RoomStore
from gametable.rooms import RoomService
from ws_peer import WsPeer

GAMES = {"backgammon": BACKGAMMON, "checkers": CHECKERS}


class Wall:
    """An injected wall clock (Unix seconds)."""

    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def _door(svc: RoomService, wall: Wall) -> TestClient:
    app = FastAPI()
    hub = install(app, svc)
    hub.wall = wall
    hub.started = wall()
    return TestClient(app)


def test_a_hellos_answer_says_when_the_door_opened_and_a_restart_shows(tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    now = FakeNow()
    wall = Wall(1_000.0)
    client = _door(RoomService(GAMES, RoomStore(path), now=now), wall)
    host = client.post("/api/rooms", json={"game": "checkers", "name": "Ann"}).json()
    code = host["code"]
    with client.websocket_connect(f"/ws/rooms/{code}") as ws:
        peer = WsPeer(ws)
        wall.t = 1_010.0
        peer.send(type="hello", token=host["token"], patch=True)
        first = peer.expect("view")
        assert first["server"] == {"started": 1_000.0, "now": 1_010.0}
        peer.send(type="state", ref=1)
        again = peer.expect("patch")  # later frames do not carry it
        assert "server" not in again
    last = first["server"]["now"]
    # the server restarts: a new door over the same store keeps the room
    wall.t = 1_100.0
    svc = RoomService(GAMES, RoomStore(path), now=now)
    assert svc.restore() == [code]
    client = _door(svc, wall)
    with client.websocket_connect(f"/ws/rooms/{code}") as ws:
        peer = WsPeer(ws)
        peer.send(type="hello", token=host["token"], patch=True)
        answer = peer.expect("view")
        assert answer["server"]["started"] == 1_100.0 > last  # a restart since the last hello
        assert answer["view"]["room"]["code"] == code


def test_the_seat_still_there_is_told_when_the_other_leaves() -> None:
    now = FakeNow()
    # one event loop for both sockets, as a server has (a TestClient not entered gives each
    # socket its own loop, and a frame queued from the other's may wait there for ever)
    with _door(RoomService(GAMES, None, now=now), Wall(5.0)) as client:
        _leave_a_finished_room(client)


def _leave_a_finished_room(client: TestClient) -> None:
    host = client.post("/api/rooms", json={"game": "checkers", "name": "Ann",
                                           "side": "white"}).json()  # fmt: skip
    code = host["code"]
    guest = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
    with client.websocket_connect(f"/ws/rooms/{code}") as a, client.websocket_connect(
        f"/ws/rooms/{code}"
    ) as b:
        ann, bob = WsPeer(a), WsPeer(b)
        ann.send(type="hello", token=host["token"])
        assert ann.expect("view")["server"]["started"] == 5.0
        bob.send(type="hello", token=guest["token"])
        assert "server" in bob.expect("view")
        assert "server" not in ann.expect("view")  # Bob came: Ann's view, not her answer
        # the game is over (Ann resigns), then Bob leaves the finished room
        ann.send(type="action", action={"type": "resign"}, ref=1)
        ann.expect("view")
        bob.expect("view")
        bob.send(type="leave", ref=2)
        # the room keeps who left (its view says it, here and after a reload), and the
        # door tells the seat still there at once
        assert ann.expect("view")["view"]["room"]["left"] == ["black"]
        assert ann.expect("left") == {"type": "left", "side": "black"}
        assert ann.expect("view")["view"]["room"]["connected"] == {"white": True, "black": False}
