"""The rooms' door (gametable.online) in the real app: after a rematch each connection plays
its new side; a seat's token downloads the game in play; refusals in the one shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings


def _until(ws: WebSocketTestSession, ref: str) -> dict[str, Any]:
    while True:
        frame: dict[str, Any] = ws.receive_json()
        assert frame["type"] != "error", frame
        if frame.get("ref") == ref:
            return frame


def test_after_a_rematch_each_connection_plays_its_new_side(tmp_path: Path) -> None:
    app = create_app(ServerSettings(db_path=tmp_path / "db.sqlite3"))
    with TestClient(app) as client:
        host = client.post("/api/rooms", json={"game": "checkers", "side": "white",
                                               "name": "Ann"}).json()  # fmt: skip
        code = host["code"]
        guest = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
        with client.websocket_connect(f"/ws/rooms/{code}") as ann, client.websocket_connect(
            f"/ws/rooms/{code}"
        ) as bob:
            ann.send_json({"type": "hello", "token": host["token"]})
            bob.send_json({"type": "hello", "token": guest["token"]})
            bob.send_json({"type": "action", "action": {"type": "resign"}, "ref": "r"})
            _until(bob, "r")
            ann.send_json({"type": "rematch", "ref": "a"})
            _until(ann, "a")
            bob.send_json({"type": "rematch", "ref": "b"})
            frame = _until(bob, "b")
            assert frame["rematch"] is True
            assert frame["view"]["room"]["you"] == "white"  # Bob now plays White
            # Black moves first: Ann, now Black, moves from her own connection
            ann.send_json({"type": "action", "action": {"type": "move", "path": [11, 15]},
                           "ref": "m"})  # fmt: skip
            moved = _until(ann, "m")
            assert moved["view"]["room"]["you"] == "black"
            assert moved["view"]["state"]["moves"] == ["11-15"]
            assert moved["view"]["room"]["names"] == {"white": "Bob", "black": "Ann"}
            exported = client.get(
                f"/api/rooms/{code}/export.pdn", headers={"X-Seat-Token": host["token"]}
            )
            assert exported.status_code == 200 and "1. 11-15" in exported.text
            assert '[Black "Ann"]' in exported.text and '[White "Bob"]' in exported.text
            wrong = client.get(
                f"/api/rooms/{code}/export.pdn", headers={"X-Seat-Token": "x" * 32}
            )
            assert wrong.status_code == 403
            assert wrong.json()["error"]["code"] == "not_your_room"
            unknown = client.get(
                f"/api/rooms/{code}/export.mat", headers={"X-Seat-Token": host["token"]}
            )
            assert unknown.status_code == 404
            assert unknown.json()["error"] == {
                "code": "unknown_format", "message": "checkers exports pdn, not mat"}  # fmt: skip
