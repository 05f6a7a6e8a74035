"""``POST /api/positions/turn/explain``: why a checker cannot go there in a turn the page
builds itself (the shared table's online door): the answer of the local game's
``POST /api/games/{id}/explain`` in the same turn, a pass explained, bad turns refused in
words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import Clients
from fastapi.testclient import TestClient

from backgammon.core.game import Game
from backgammon.core.types import START_POINTS
from backgammon.services.review import explain_attempt

START = {"points": list(START_POINTS), "off": {"white": 0, "black": 0}}
PLACES: list[int | str] = ["bar", *range(1, 25), "off"]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with Clients(tmp_path / "games.sqlite3") as opened:
        yield opened.new()


def explain(client: TestClient, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    answer = client.post("/api/positions/turn/explain", json=body)
    assert answer.status_code == status, answer.text
    data: dict[str, Any] = answer.json()
    return data


def test_a_blocked_point_and_a_pick_up_are_explained_as_the_local_game_does(
    client: TestClient,
) -> None:
    turn = {"board": START, "turn": "white", "dice": [3, 1], "moves": []}
    assert explain(client, {**turn, "from": 13, "to": 12}) == {
        "legal": False, "text": "13/12: the 12-point is held by Black",
        "reason": "the 12-point is held by Black", "rule": "open-point",
        "source": "WBF Rules of Backgammon 3.1"}
    assert explain(client, {**turn, "from": 8}) == {
        "legal": True, "text": "8 can move: 8/5, 8/7", "reason": None, "rule": None,
        "source": None}
    # after 8/5 with the 3, only the 1 is left
    made = {**turn, "moves": [{"from": 8, "to": 5, "die": 3}]}
    assert explain(client, {**made, "from": 8}) == {
        "legal": True, "text": "8 can move: 8/7", "reason": None, "rule": None, "source": None}
    assert explain(client, {**made, "from": 13, "to": 10})["legal"] is False


def test_every_attempt_in_a_turn_gets_the_local_games_answer(client: TestClient) -> None:
    # Black's turn with 6-4 after one move: each (from, to) answered as the engine's game
    # answers it after the same move
    game = Game()
    game.roll((4, 6))  # Black's opening roll wins: 6-4 to Black
    assert game.on_roll is not None and game.on_roll.name.lower() == "black"
    first = next(m for m in game.legal_moves() if m.die == 6 and m.from_point == 24)
    game.move(first)
    made = [{"from": 1, "to": 7, "die": 6}]  # Black's 24/18 in White's numbering
    body = {"board": START, "turn": "black", "dice": [6, 4], "moves": made}
    checked = 0
    for src in PLACES:
        for dst in [None, *PLACES]:
            answer = explain(client, {**body, "from": src, "to": dst})
            assert answer == explain_attempt(game, src, dst), (src, dst)  # type: ignore[arg-type]
            checked += 1
    assert checked == 26 * 27


def test_a_roll_that_cannot_be_played_says_why(client: TestClient) -> None:
    # White on the bar against a closed board: 6-6 cannot enter
    points = [0] * 26
    points[25] = 1  # White's bar
    points[14] = 14
    for point in range(19, 25):
        points[point] = -2
    points[1] = -3
    board = {"points": points, "off": {"white": 0, "black": 0}}
    answer = explain(client, {"board": board, "turn": "white", "dice": [6, 6], "moves": [],
                              "from": "bar", "to": 19})
    reason = "the 19-point is held by Black, so the checker on the bar cannot enter"
    assert answer == {**answer, "legal": False, "text": reason, "reason": reason}


def test_bad_turns_and_attempts_are_refused_in_words(client: TestClient) -> None:
    turn = {"board": START, "turn": "white", "dice": [3, 1], "moves": []}
    bad = explain(client, {**turn, "moves": [{"from": 13, "to": 12, "die": 1}], "from": 8},
                  status=422)
    assert bad["error"] == {"code": "invalid_turn",
                            "message": "move 1 (13 to 12 with a 1) is not legal there"}
    dice = explain(client, {**turn, "dice": [7, 1], "from": 8}, status=422)
    assert dice["error"]["code"] == "invalid_turn" and "dice" in dice["error"]["message"]
    assert explain(client, {**turn, "to": 5}, status=422)["error"]["code"] == "invalid_request"
    assert explain(client, {**turn, "from": "up"}, status=422)["error"]["code"] == (
        "invalid_request")
    nowhere = explain(client, {**turn, "from": 8, "to": 30})
    assert nowhere == {**nowhere, "legal": False}
