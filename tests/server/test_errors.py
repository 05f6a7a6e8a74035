"""server/errors.py: one mapping from a refusal of backgammon's own routes to the HTTP answer
(the table's doors answer their own refusals in the same shape: tests/gametable)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from backgammon.core.errors import IllegalActionError, IllegalMoveError, InvalidDiceError
from backgammon.server import ServerSettings, create_app
from backgammon.server.errors import error_code, http_error
from backgammon.services.analysis_jobs import EvaluatorBusyError
from backgammon.services.session import NotYourGameError
from gametable.game_store import GameNotFoundError, StorageFullError, StoredGameError


@pytest.mark.parametrize(("exc", "status", "code"), [
    (IllegalActionError("you cannot roll now"), 409, "not_allowed"),
    (IllegalMoveError("13/7 is blocked"), 422, "illegal_move"),
    (InvalidDiceError("a die is 1..6"), 422, "invalid"),
    (GameNotFoundError("no game 'x'"), 404, "not_found"),
    (StoredGameError("saved game 'x' is damaged"), 409, "stored_game_invalid"),
    (NotYourGameError("another browser's game"), 403, "not_your_game"),
    (EvaluatorBusyError("every evaluation slot is taken"), 503, "busy"),
    (StorageFullError("this browser's games fill its share"), 507, "storage_full"),
])
def test_a_refusal_answers_its_code_words_and_status(
        exc: Exception, status: int, code: str) -> None:
    response = http_error(exc)
    assert response.status_code == status
    assert json.loads(response.body) == {"error": {"code": code, "message": str(exc)}}
    assert error_code(exc) == code


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


@pytest.mark.parametrize(("body", "kind", "message"), [
    (b"mode=pass_and_play", "application/x-www-form-urlencoded",
     "the body is not a JSON object (Content-Type application/x-www-form-urlencoded): send "
     "JSON, Content-Type application/json"),
    (b'{"mode": "pass_and_play"}', "text/plain",
     "the body is not a JSON object (Content-Type text/plain): send JSON, Content-Type "
     "application/json"),
    (b"[1, 2]", "application/json", "the body must be a JSON object"),
])
def test_a_body_that_is_not_a_json_object_is_told_so(tmp_path: Path, body: bytes, kind: str,
                                                     message: str) -> None:
    """A form or plain text where a JSON object belongs is told to send JSON, in words."""
    with TestClient(create_app(ServerSettings(db_path=tmp_path / "games.sqlite3"))) as client:
        response = client.post("/api/positions/evaluation", content=body,
                               headers={"content-type": kind})
    assert response.status_code == 422
    assert response.json() == {"error": {"code": "invalid_request",
                                         "message": f"invalid request: {message}"}}
