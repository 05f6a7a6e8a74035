"""Every answer is in the ``{"error": {"code", "message"}}`` shape, a defect of the server's
too (500 ``internal_error``, no traceback sent), and a request with no body says so."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings


def test_a_defect_is_answered_as_json_without_its_traceback(tmp_path: Path) -> None:
    app = create_app(ServerSettings(db_path=tmp_path / "games.sqlite3"))

    @app.get("/api/_boom")
    async def boom() -> None:
        raise RuntimeError("secret detail of a defect")

    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/api/_boom")
        assert answer.status_code == 500
        assert answer.json() == {"error": {
            "code": "internal_error", "message": "the server failed on this request (its log "
                                                 "says why)"}}
        assert "secret detail" not in answer.text
        missing = client.post("/api/rooms")
        assert missing.status_code == 422
        assert missing.json()["error"] == {
            "code": "invalid_request", "message": "invalid request: the request has no body: "
                                                  "send a JSON object, Content-Type "
                                                  "application/json"}
