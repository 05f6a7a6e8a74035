"""The tutor over HTTP (``POST /api/games/{id}/tutor``, :mod:`backgammon.server.analysis_api`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from api_support import Clients, act, new_game
from fastapi.testclient import TestClient

from backgammon.core.xgid import Xgid
from backgammon.services.setup import setup_json, setup_match
from backgammon.services.tutor import tutor_check

OPENING_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with Clients(tmp_path / "games.sqlite3") as clients:
        yield clients.new()


def test_the_play_on_the_board_is_judged_before_done(client: TestClient) -> None:
    game_id = new_game(client, setup=setup_json(Xgid.parse(OPENING_31)), cube=True)["id"]
    act(client, game_id, "move", {"from": 13, "to": 10})
    act(client, game_id, "move", {"from": 10, "to": 9})
    answer = client.post(f"/api/games/{game_id}/tutor", json={"action": "done"})
    assert answer.status_code == 200, answer.text
    game = setup_match(Xgid.parse(OPENING_31)).current
    game.move("13/10")
    game.move("10/9")
    assert answer.json() == tutor_check(game, "done")
    assert answer.json()["played"] == "13/9" and answer.json()["loss"] > 0.04
    # the play is not made: the turn still waits for Done
    assert client.get(f"/api/games/{game_id}").json()["phase"] == "move"


def test_refusals(client: TestClient) -> None:
    game_id = new_game(client, setup=setup_json(Xgid.parse(OPENING_31)), cube=True)["id"]
    bad = client.post(f"/api/games/{game_id}/tutor", json={"action": "resign"})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_request"
    missing = client.post("/api/games/nosuchgame1/tutor", json={"action": "done"})
    assert missing.status_code == 404
    # the computer to act: no tutor
    vs_computer = new_game(client, mode="computer", side="black",
                           setup=setup_json(Xgid.parse(OPENING_31)))
    refused = client.post(f"/api/games/{vs_computer['id']}/tutor", json={"action": "done"})
    assert vs_computer["computer_to_act"]
    assert refused.status_code == 403
    assert refused.json()["error"] == {"code": "not_your_turn",
                                       "message": "no tutor while the computer is to act"}
