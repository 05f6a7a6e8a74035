"""The online server's limits against a hostile client: rooms per client address, nested JSON,
and the deadline for a request's headers (on a real uvicorn server with a short deadline)."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from backgammon.server.online import OnlineHub, RoomManager, router
from backgammon.server.runtime import header_deadline_protocol, raise_open_file_limit, tune_gc
from fake_clock import FakeNow
from serve_support import gc_restored, running_uvicorn


@pytest.fixture
def app_and_now() -> tuple[FastAPI, FakeNow]:
    now = FakeNow()
    app = FastAPI()
    app.include_router(router)
    app.state.online = OnlineHub(RoomManager(now=now, create_rate=10, max_waiting=5,
                                             max_per_address=20))
    return app, now


def test_room_creation_is_limited_per_client_address(app_and_now: tuple[FastAPI, FakeNow]
                                                     ) -> None:
    app, now = app_and_now
    attacker = TestClient(app, client=("127.0.0.2", 40000))
    player = TestClient(app, client=("127.0.0.3", 40001))
    codes = []
    for _ in range(5):
        response = attacker.post("/api/online/rooms", json={})
        assert response.status_code == 201
        codes.append(response.json()["code"])
    # Five rooms nobody has joined: the sixth is refused, the other address is not held up.
    response = attacker.post("/api/online/rooms", json={})
    assert response.status_code == 429
    assert response.json() == {"error": {
        "code": "rate_limited",
        "message": "your address has 5 rooms nobody has joined: share one, or wait until "
                   "they expire"}}
    assert player.post("/api/online/rooms", json={}).status_code == 201
    # A joined room no longer counts against the cap; the rate still does: 10 a minute.
    with attacker.websocket_connect(f"/api/online/rooms/{codes[0]}/ws") as ws:
        ws.send_text(json.dumps({"type": "hello"}))
        assert json.loads(ws.receive_text())["type"] == "welcome"
    created = 5
    for _ in range(5):
        response = attacker.post("/api/online/rooms", json={})
        if response.status_code == 201:
            created += 1
            with attacker.websocket_connect(response.json()["ws_path"]) as ws:
                ws.send_text(json.dumps({"type": "hello"}))
                ws.receive_text()
    assert created == 10
    now.t += 30
    response = attacker.post("/api/online/rooms", json={})
    assert response.status_code == 429
    assert response.json()["error"]["message"] == (
        "10 rooms created from your address in the last 60 s: try again in 30 s")
    assert player.post("/api/online/rooms", json={}).status_code == 201
    now.t += 30  # a minute after the first ones, and the room the guest joined is not waiting
    assert attacker.post("/api/online/rooms", json={}).status_code == 201


def test_deeply_nested_json_is_refused_and_the_connection_stays_open(
        app_and_now: tuple[FastAPI, FakeNow]) -> None:
    app, _ = app_and_now
    client = TestClient(app)
    room = client.post("/api/online/rooms", json={}).json()
    with client.websocket_connect(room["ws_path"]) as ws:
        ws.send_text(json.dumps({"type": "hello", "token": room["token"]}))
        assert json.loads(ws.receive_text())["type"] == "welcome"
        ws.send_text("[" * 4000)
        error = json.loads(ws.receive_text())
        assert error == {"type": "error", "code": "malformed",
                         "message": "the message is nested too deeply to read (no message "
                                    "nests more than 3 levels)"}
        ws.send_text('{"type": "state"}')
        assert json.loads(ws.receive_text())["type"] == "state"


@pytest.fixture
def deadline_server() -> Iterator[int]:
    """A real uvicorn server on 127.0.0.1 with a 0.5 s header deadline; yields its port."""
    app = FastAPI()

    @app.get("/ping")
    def ping() -> dict[str, str]:
        return {"pong": "yes"}

    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                            http=header_deadline_protocol(0.5), lifespan="off")
    with running_uvicorn(config) as port:
        yield port


def test_a_request_whose_headers_do_not_arrive_in_time_is_dropped(deadline_server: int
                                                                   ) -> None:
    with socket.create_connection(("127.0.0.1", deadline_server), timeout=5) as sock:
        sock.sendall(b"GET /ping HT")  # half a request line, then nothing
        started = time.monotonic()
        assert sock.recv(1024) == b""  # closed by the server, no answer
        waited = time.monotonic() - started
    assert 0.4 <= waited < 0.5 + 2.0
    # A request that arrives whole is answered, on the same server.
    with socket.create_connection(("127.0.0.1", deadline_server), timeout=5) as sock:
        sock.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b'{"pong":"yes"}')


def test_the_open_file_limit_is_raised_but_never_lowered() -> None:
    resource = pytest.importorskip("resource")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    got = raise_open_file_limit(1)
    assert got == soft  # asking for less lowers nothing
    assert resource.getrlimit(resource.RLIMIT_NOFILE) == (soft, hard)
    with pytest.raises(ValueError, match="header deadline"):
        header_deadline_protocol(0)


def _long_money_room(rooms: RoomManager, games: int, seed: int = 1) -> tuple[Any, str]:
    """A money session of ``games`` short games (each resigned after the opening roll), made
    through the room's own messages; returns the room and the host's token."""
    from backgammon.core.dice import commitment
    from backgammon.core.types import BLACK, WHITE
    from backgammon.services.online.protocol import parse_message
    from backgammon.services.online.rooms import OnlineSettings, Seat

    rng = random.Random(seed)
    room, token = rooms.create(OnlineSettings(money=True, cube=True), "Ann", None)
    room.join("Bob")

    def send(seat: Seat, **fields: Any) -> None:
        room.handle(seat, parse_message(json.dumps(fields)))

    for number in range(games):
        while room.game.phase.value == "opening":
            n = room.next_round
            secrets = {c: rng.randbytes(32) for c in (WHITE, BLACK)}
            for color in (WHITE, BLACK):
                send(room.seat_of(color), type="commit", round=n,
                     commitment=commitment(secrets[color]))
            for color in (WHITE, BLACK):
                send(room.seat_of(color), type="reveal", round=n, secret=secrets[color].hex())
        mover = room.seat_of(room.game.on_roll)
        send(mover, type="resign", level="single")
        send(mover.other, type="accept")
        if number < games - 1:
            send(Seat.HOST, type="next_game")
    return room, token


@pytest.fixture
def online_server() -> Iterator[tuple[int, OnlineHub]]:
    """A real uvicorn server on 127.0.0.1 with the online rooms; yields its port and hub."""
    app = FastAPI()
    app.include_router(router)
    hub = OnlineHub(RoomManager())
    app.state.online = hub
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                            lifespan="off")
    with running_uvicorn(config) as port:
        yield port, hub


@pytest.fixture
def served_gc() -> Iterator[None]:
    """The collector as ``backgammon serve`` sets it (:func:`tune_gc`), put back after."""
    with gc_restored():
        tune_gc()
        yield


def test_a_long_rooms_review_does_not_hold_up_another_room(
        online_server: tuple[int, OnlineHub], served_gc: None) -> None:
    from websockets.sync.client import connect

    port, hub = online_server
    big, big_token = _long_money_room(hub.rooms, 3000)
    base = f"ws://127.0.0.1:{port}/api/online/rooms"
    honest = json.loads(urllib.request.urlopen(urllib.request.Request(
        f"http://127.0.0.1:{port}/api/online/rooms", data=b"{}", method="POST",
        headers={"content-type": "application/json"}), timeout=10).read())
    with connect(f"{base}/{honest['code']}/ws") as player, \
            connect(f"{base}/{big.code}/ws", max_size=None) as reader:
        player.send(json.dumps({"type": "hello", "token": honest["token"]}))
        assert json.loads(player.recv(timeout=10))["type"] == "welcome"
        reader.send(json.dumps({"type": "hello", "token": big_token}))
        assert json.loads(reader.recv(timeout=30))["type"] == "welcome"

        def round_trip() -> float:
            started = time.perf_counter()
            player.send(json.dumps({"type": "state"}))
            assert json.loads(player.recv(timeout=30))["type"] == "state"
            return time.perf_counter() - started

        baseline = sorted(round_trip() for _ in range(5))[2]
        for kind in ("review", "export", "review", "export"):
            reader.send(json.dumps({"type": kind, "ref": kind}))
        raw: list[Any] = []
        waits: list[float] = []
        done = threading.Event()

        def read_answers() -> None:  # (read here, parsed after: the test shares the GIL)
            while len(raw) < 4:
                raw.append(reader.recv(timeout=60))
            done.set()

        collector = threading.Thread(target=read_answers, daemon=True)
        collector.start()
        deadline = time.monotonic() + 60
        while not done.is_set() and time.monotonic() < deadline:
            waits.append(round_trip())
        collector.join(5)
    answers = [json.loads(text) for text in raw]
    assert [a["type"] for a in answers] == ["review", "export", "review", "export"]
    review = answers[0]["review"]
    assert len([f for f in review["frames"] if f["kind"] == "start"]) == 3000
    assert answers[1]["text"].count("Game") >= 3000
    assert len(waits) >= 3  # the other room was served while the reads were made
    assert max(waits) < baseline + 0.25, (baseline, sorted(waits)[-5:])  # it was 1.8 s


def test_one_client_behind_a_proxy_has_its_share_of_websockets(tmp_path: Any) -> None:
    """The app counts each client (as a trusted proxy names it) too: past its share of open
    WebSockets and requests in progress, one more is refused (closed with 1013 before it is
    accepted; 503 ``too_many_connections`` for a request), another client is not."""
    from starlette.websockets import WebSocketDisconnect

    from backgammon.server import ServerSettings, create_app

    app = create_app(ServerSettings(db_path=tmp_path / "g.sqlite3", connections_per_address=2))
    with TestClient(app, client=("198.51.100.7", 1000)) as crowd, \
            TestClient(app, client=("198.51.100.8", 1000)) as other:
        room = crowd.post("/api/online/rooms", json={}).json()
        with crowd.websocket_connect(room["ws_path"]), crowd.websocket_connect(room["ws_path"]):
            with pytest.raises(WebSocketDisconnect) as refused, \
                    crowd.websocket_connect(room["ws_path"]):
                pass
            assert refused.value.code == 1013
            with other.websocket_connect(room["ws_path"]) as ws:
                ws.send_text(json.dumps({"type": "hello"}))
                assert json.loads(ws.receive_text())["type"] == "welcome"
        assert crowd.get("/health").status_code == 200  # the two closed: room again


def test_one_address_holds_a_share_of_the_rooms_joined_or_not() -> None:
    from backgammon.services.online.protocol import OnlineError
    from backgammon.services.online.rooms import DEFAULT_MAX_PER_ADDRESS, OnlineSettings

    rooms = RoomManager(create_rate=100, max_waiting=100, max_per_address=3)
    for _ in range(3):
        room, _ = rooms.create(OnlineSettings(), "Ann", "192.0.2.1")
        rooms.join(room, "Bob")  # joined rooms count too
    with pytest.raises(OnlineError) as refused:
        rooms.create(OnlineSettings(), "Ann", "192.0.2.1")
    assert refused.value.code == "rate_limited"
    assert str(refused.value) == ("your address has 3 rooms open, its most: leave one (a "
                                  "room left empty is forgotten) to open another")
    rooms.create(OnlineSettings(), "Cy", "192.0.2.2")  # another address is not held up
    assert RoomManager().max_rooms >= DEFAULT_MAX_PER_ADDRESS * 100  # a hundredth at most


def test_the_thinking_time_before_a_claim_is_a_server_setting(tmp_path: Any) -> None:
    from backgammon.server import ServerSettings, create_app
    from backgammon.services.online.rooms import DEFAULT_SILENT_AFTER, OnlineSettings

    assert ServerSettings().claim_thinking_after == DEFAULT_SILENT_AFTER == 600.0
    for persist in (True, False):
        app = create_app(ServerSettings(db_path=tmp_path / f"{persist}.sqlite3",
                                        persist_rooms=persist, claim_thinking_after=300.0))
        rooms = app.state.online.rooms
        room, _ = rooms.create(OnlineSettings(), "Ann", None)
        assert (rooms.silent_after, room.silent_after) == (300.0, 300.0)
