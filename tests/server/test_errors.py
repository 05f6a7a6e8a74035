"""server/errors.py: one mapping from a refusal to the HTTP answer and the WebSocket message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from backgammon.core.errors import IllegalActionError, IllegalMoveError, InvalidDiceError
from backgammon.server import ServerSettings, create_app
from backgammon.server.errors import error_code, http_error, ws_error
from backgammon.services.online.protocol import OnlineError
from backgammon.services.store import GameNotFoundError, StoredGameError


@pytest.mark.parametrize(("exc", "status", "code"), [
    (IllegalActionError("you cannot roll now"), 409, "not_allowed"),
    (IllegalMoveError("13/7 is blocked"), 422, "illegal_move"),
    (InvalidDiceError("a die is 1..6"), 422, "invalid"),
    (GameNotFoundError("no game 'x'"), 404, "not_found"),
    (StoredGameError("saved game 'x' is damaged"), 409, "stored_game_invalid"),
    (OnlineError("rate_limited", "10 rooms in a minute"), 429, "rate_limited"),
    (OnlineError("too_many_rooms", "full"), 503, "too_many_rooms"),
    (OnlineError("room_not_found", "no room", fatal=True), 404, "room_not_found"),
    (OnlineError("not_now", "wait"), 409, "not_now"),
])
def test_both_doors_answer_a_refusal_with_the_same_code_and_words(
        exc: Exception, status: int, code: str) -> None:
    response = http_error(exc)
    assert response.status_code == status
    assert json.loads(response.body) == {"error": {"code": code, "message": str(exc)}}
    assert error_code(exc) == code
    assert ws_error(exc, ref=7) == {"type": "error", "code": code, "message": str(exc),
                                    "ref": 7}
    assert "ref" not in ws_error(exc)


@pytest.mark.parametrize(("body", "reason"), [
    (b'{"mode": "pass_and_play"', "Expecting ',' delimiter, at character 24"),
    (b'{"mode": "\xff"}', "not UTF-8: 'utf-8' codec can't decode byte 0xff in position 10: "
                         "invalid start byte"),
    (b"[" * 10_000, "nested too deeply to read"),
])
def test_a_body_that_cannot_be_read_as_json_answers_one_shape(tmp_path: Path, body: bytes,
                                                              reason: str) -> None:
    """Invalid JSON, a body that is not UTF-8 (Starlette's "400 There was an error parsing
    the body" before) and JSON nested too deeply: one status, one code, the reason in
    words."""
    with TestClient(create_app(ServerSettings(db_path=tmp_path / "games.sqlite3"))) as client:
        response = client.post("/api/games", content=body,
                               headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert response.json() == {"error": {
        "code": "invalid_request",
        "message": f"invalid request: the body is not JSON ({reason})"}}
