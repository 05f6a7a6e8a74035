"""``POST /api/positions/turn``: a turn built one checker at a time away from the game (the
shared table's online door takes whole plays): the board after each move, where each checker
can go next, the play so far in notation, and refusals with their reasons; the play it builds
is the one the engine takes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import Clients
from fastapi.testclient import TestClient

from backgammon.core.game import Game
from backgammon.core.types import START_POINTS

START = {"points": list(START_POINTS), "off": {"white": 0, "black": 0}}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with Clients(tmp_path / "games.sqlite3") as opened:
        yield opened.new()


def turn(client: TestClient, turn: str, dice: list[int], moves: list[dict[str, Any]],
         status: int = 200) -> dict[str, Any]:
    answer = client.post("/api/positions/turn",
                         json={"board": START, "turn": turn, "dice": dice, "moves": moves})
    assert answer.status_code == status, answer.text
    data: dict[str, Any] = answer.json()
    return data


def test_a_turn_built_move_by_move_ends_in_a_play_the_engine_takes(client: TestClient) -> None:
    first = turn(client, "white", [6, 5], [])
    assert first["complete"] is False and first["play"] == "" and first["dice_left"] == [6, 5]
    assert [entry["from"] for entry in first["legal"]] == [24, 13, 8]  # 6/1: Black holds 1
    to_24 = next(e for e in first["legal"] if e["from"] == 24)
    assert [d["to"] for d in to_24["destinations"]] == [18, 13]
    assert [m["text"] for m in to_24["destinations"][1]["moves"]] == ["24/18", "18/13"]
    second = turn(client, "white", [6, 5], [{"from": 24, "to": 18, "die": 6}])
    assert second["dice_left"] == [5] and second["play"] == "24/18"
    assert second["board"]["points"][24] == 1 and second["board"]["points"][18] == 1
    assert [(e["from"], [d["to"] for d in e["destinations"]]) for e in second["legal"]] == [
        (18, [13]), (13, [8]), (8, [3])]
    whole = turn(client, "white", [6, 5], [{"from": 24, "to": 18, "die": 6},
                                           {"from": 18, "to": 13, "die": 5}])
    assert whole == {**whole, "complete": True, "play": "24/18 18/13", "legal": [],
                     "dice_left": []}
    game = Game()
    game.roll((6, 5))
    assert game.on_roll is not None and game.on_roll.name.lower() == "white"
    game.play(whole["play"])
    assert list(game.position.points) == whole["board"]["points"]


def test_black_moves_in_the_pages_places_and_a_hit_and_the_bar(client: TestClient) -> None:
    # Black's 24/18 is White's numbering 1 to 7; the play reads in Black's own numbering
    answer = turn(client, "black", [6, 6], [{"from": 1, "to": 7, "die": 6},
                                            {"from": 1, "to": 7, "die": 6}])
    assert answer["play"] == "24/18 24/18" and answer["dice_left"] == [6, 6]
    assert answer["board"]["points"][7] == -2 and answer["board"]["points"][1] == 0


def test_refusals_say_why(client: TestClient) -> None:
    bad = turn(client, "white", [6, 5], [{"from": 24, "to": 20, "die": 4}], status=422)
    assert bad["error"]["code"] == "invalid_turn"
    assert bad["error"]["message"] == "move 1 (24 to 20 with a 4) is not legal there"
    blocked = turn(client, "white", [6, 5], [{"from": 6, "to": 1, "die": 5}], status=422)
    assert "not legal" in blocked["error"]["message"]
    assert turn(client, "white", [7, 5], [], status=422)["error"]["code"] == "invalid_turn"
    answer = client.post("/api/positions/turn", json={
        "board": {"points": [0] * 26, "off": {"white": 0, "black": 0}}, "turn": "white",
        "dice": [6, 5], "moves": []})
    assert answer.status_code == 422 and answer.json()["error"]["code"] == "invalid_turn"
