"""The online server's limits, whatever the door: the deadline for a request's headers (on a
real uvicorn server with a short deadline), the open-file limit, one client's share of the
connections behind a proxy, and the settings ``backgammon serve`` gives the table's online
rooms (``/api/rooms``, ``/ws/rooms``): the thinking time before a claim, the time controls.

(The rooms' own guards, per-address room limits and hostile frames among them, are tested at
the door: ``tests/gametable/test_door_guards.py``.)"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from backgammon.server import ServerSettings, create_app
from backgammon.server.runtime import header_deadline_protocol, raise_open_file_limit
from gametable.clock import TIME_CONTROLS, TimeControl
from gametable.room import THINK_AFTER
from serve_support import running_uvicorn


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


def test_a_request_whose_body_does_not_arrive_in_time_is_refused_with_408(
        tmp_path: Path) -> None:
    """A client that declares a body and sends part of it (or trickles it) holds its request
    for ``body_timeout`` at most, and is told why; the server answers others meanwhile."""
    app = create_app(ServerSettings(db_path=tmp_path / "games.sqlite3", body_timeout=0.5))
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                            http=header_deadline_protocol(5.0), lifespan="on")

    def ask(sock: socket.socket) -> bytes:
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
        return answer

    evaluation = b"/api/positions/evaluation"
    body = b'{"position": "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"}'
    with running_uvicorn(config) as port:
        for sent in (body[:10], b""):  # part of the body, or none of it
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                # (kept alive: the server closes it itself, the body still owed)
                sock.sendall(b"POST " + evaluation + b" HTTP/1.1\r\nHost: x\r\n"
                             b"Content-Type: application/json\r\n"
                             b"Content-Length: %d\r\n\r\n" % len(body) + sent)
                started = time.monotonic()
                answer = ask(sock)
                waited = time.monotonic() - started
            assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
            assert b'"code": "request_timeout"' in answer
            assert b"did not arrive within 0.5 seconds" in answer
            assert 0.4 <= waited < 0.5 + 3.0
        # a body declared too large is refused unread, and the connection closed
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"POST " + evaluation + b" HTTP/1.1\r\nHost: x\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 9999999\r\n\r\n")
            answer = ask(sock)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        # the same request whole is answered
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(b"POST " + evaluation + b" HTTP/1.1\r\nHost: x\r\n"
                         b"Content-Type: application/json\r\nConnection: close\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(body) + body)
            answer = ask(sock)
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
        assert b'"8/5 6/5"' in answer
    with pytest.raises(ValueError, match="body timeout"):
        from backgammon.server.middleware import BodySizeLimitMiddleware

        BodySizeLimitMiddleware(app, 10, timeout=0)


def test_the_open_file_limit_is_raised_but_never_lowered() -> None:
    resource = pytest.importorskip("resource")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    got = raise_open_file_limit(1)
    assert got == soft  # asking for less lowers nothing
    assert resource.getrlimit(resource.RLIMIT_NOFILE) == (soft, hard)
    with pytest.raises(ValueError, match="header deadline"):
        header_deadline_protocol(0)


def test_one_client_behind_a_proxy_has_its_share_of_websockets(tmp_path: Path) -> None:
    """The app counts each client (as a trusted proxy names it) too: past its share of open
    WebSockets and requests in progress, one more is refused (closed with 1013 before it is
    accepted; 503 ``too_many_connections`` for a request), another client is not."""
    app = create_app(ServerSettings(db_path=tmp_path / "g.sqlite3", connections_per_address=2))
    with TestClient(app, client=("198.51.100.7", 1000)) as crowd, \
            TestClient(app, client=("198.51.100.8", 1000)) as other:
        room = crowd.post("/api/rooms", json={"game": "backgammon", "name": "Ann"}).json()
        path = f"/ws/rooms/{room['code']}"
        with crowd.websocket_connect(path), crowd.websocket_connect(path):
            with pytest.raises(WebSocketDisconnect) as refused, crowd.websocket_connect(path):
                pass
            assert refused.value.code == 1013
            busy = crowd.get("/health")
            assert busy.status_code == 503
            assert busy.json()["error"]["code"] == "too_many_connections"
            with other.websocket_connect(path) as ws:
                ws.send_json({"type": "hello", "token": room["token"]})
                assert ws.receive_json()["type"] == "view"
        assert crowd.get("/health").status_code == 200  # the two closed: room again


def test_the_thinking_time_before_a_claim_is_a_server_setting(tmp_path: Path) -> None:
    assert ServerSettings().claim_thinking_after == THINK_AFTER == 600.0
    app = create_app(ServerSettings(db_path=tmp_path / "games.sqlite3",
                                    claim_thinking_after=300.0))
    with TestClient(app) as client:
        service = app.state.rooms.service
        assert service.think_after == 300.0
        made = client.post("/api/rooms", json={"game": "backgammon", "name": "Ann"}).json()
        assert service.room(made["code"]).think_after == 300.0


def test_the_online_rooms_play_the_configured_time_controls(tmp_path: Path) -> None:
    controls = {**TIME_CONTROLS, "blitz": TimeControl("blitz", 20.0, 2.0)}
    app = create_app(ServerSettings(db_path=tmp_path / "games.sqlite3", time_controls=controls))
    with TestClient(app) as client:
        made = client.post("/api/rooms", json={"game": "backgammon", "name": "Ann",
                                               "time_control": "blitz"})
        assert made.status_code == 201, made.text
        code = made.json()["code"]
        assert client.get(f"/api/rooms/{code}").json()["time_control"] == "blitz"
        clock = app.state.rooms.service.room(code).table.clock
        assert clock is not None
        assert (clock.control.reserve, clock.control.increment) == (20.0, 2.0)
        assert clock.remaining("white") == clock.remaining("black") == 20.0
