"""The checkers page's own endpoints (``backgammon.server.checkers_api``) in the real app: a
table's game frame by frame, PDN files opened game by game (a bad move said in words while
the other games open), the upload bounded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from backgammon.server.app import create_app
from backgammon.server.checkers_api import PDN_PATH
from backgammon.server.settings import ServerSettings
from checkers.adapter import board_text, pdn_games
from checkers.position import Position
from conftest import shared_path

START = "bbbbbbbbbbbb........wwwwwwwwwwww"


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with TestClient(create_app(ServerSettings(db_path=tmp_path / "db.sqlite3"))) as made:
        yield made


def _pass_and_play(client: TestClient, settings: dict[str, Any] | None = None) -> tuple[str, str]:
    response = client.post(
        "/api/tables",
        json={
            "game": "checkers",
            "settings": settings or {},
            "seats": {"black": {"kind": "person"}, "white": {"kind": "person"}},
        },
    )
    assert response.status_code == 201, response.text
    made = response.json()
    return made["id"], made["token"]


def _move(client: TestClient, table: tuple[str, str], side: str, path: list[int]) -> None:
    response = client.post(
        f"/api/tables/{table[0]}/actions",
        json={"side": side, "action": {"type": "move", "path": path}},
        headers={"X-Table-Token": table[1]},
    )
    assert response.status_code == 200, response.text


def test_board_text_is_32_letters_in_pdn_order() -> None:
    assert board_text(Position.start()) == START
    assert board_text(Position.from_fen("W:WK5,30:B1,K28")) == "b...W" + "." * 22 + "B.w.."


def test_a_tables_game_frame_by_frame(client: TestClient) -> None:
    table = _pass_and_play(client)
    for side, path in (("black", [11, 15]), ("white", [23, 19]), ("black", [8, 11]),
                       ("white", [22, 17]), ("black", [15, 18])):
        _move(client, table, side, path)
    response = client.get(
        f"/api/checkers/tables/{table[0]}/review", headers={"X-Table-Token": table[1]}
    )
    assert response.status_code == 200, response.text
    frames = response.json()
    assert frames["start"] == "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    assert frames["first"] == "black"
    assert [(m["number"], m["side"], m["text"]) for m in frames["moves"]] == [
        (1, "black", "11-15"), (1, "white", "23-19"), (2, "black", "8-11"),
        (2, "white", "22-17"), (3, "black", "15-18"),
    ]
    boards = frames["boards"]
    assert len(boards) == 6 and boards[0] == START
    assert boards[1] == "bbbbbbbbbb.b..b.....wwwwwwwwwwww"
    assert boards[5][17] == "b" and boards[5][14] == "."  # square 18 taken, 15 left
    # Another token does not open it; an unknown id is not found.
    assert client.get(f"/api/checkers/tables/{table[0]}/review",
                      headers={"X-Table-Token": "x" * 40}).status_code == 403
    assert client.get("/api/checkers/tables/nosuchtable1/review",
                      headers={"X-Table-Token": "x" * 40}).status_code == 404


def test_a_game_from_a_fen_with_white_to_move_is_numbered_as_pdn_numbers_it(
        client: TestClient) -> None:
    table = _pass_and_play(client, {"start": "W:W18,24,27:B12,16,20"})
    _move(client, table, "white", [27, 23])
    frames = client.get(f"/api/checkers/tables/{table[0]}/review",
                        headers={"X-Table-Token": table[1]}).json()
    assert frames["first"] == "white"
    assert frames["moves"] == [
        {"text": "27-23", "path": [27, 23], "captures": [], "side": "white", "number": 1}]


def test_a_backgammon_table_has_no_checkers_review(client: TestClient) -> None:
    response = client.post("/api/tables", json={
        "game": "backgammon",
        "seats": {"black": {"kind": "person"}, "white": {"kind": "person"}}})
    made = response.json()
    answer = client.get(f"/api/checkers/tables/{made['id']}/review",
                        headers={"X-Table-Token": made["token"]})
    assert answer.status_code == 422
    assert answer.json()["error"]["code"] == "unknown_game"


BAD_SECOND = """[Event "one"]
[Black "A"]
[White "B"]
1. 11-15 23-19 2. 8-11 22-17 1-0

[Event "two"]
1. 11-15 23-19 2. 8-11 22-17 3. 11-16 24-28 *

[Event "three"]
[Result "1/2-1/2"]
1. 9-14 22-18 1/2-1/2
"""


def test_a_file_with_a_bad_move_opens_its_other_games(client: TestClient) -> None:
    response = client.post(PDN_PATH, json={"text": BAD_SECOND, "name": "three.pdn"})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["name"] == "three.pdn" and answer["count"] == 3 and answer["left_out"] == 0
    one, two, three = answer["games"]
    assert one["ok"] and one["title"] == "A – B (one)" and one["result"] == "1-0"
    assert [m["text"] for m in one["moves"]] == ["11-15", "23-19", "8-11", "22-17"]
    assert len(one["boards"]) == 5
    assert not two["ok"]
    error = two["error"]
    assert (error["move_number"], error["side"], error["move"], error["line"]) == (
        3, "white", "24-28", 7)
    assert error["message"].startswith("Game 2, move 3 (White, line 7): 24-28")
    assert "forward" in error["reason"]  # the engine's words: a man moves forward only
    # The moves read before the bad one are kept, to review.
    assert [m["text"] for m in two["moves"]] == ["11-15", "23-19", "8-11", "22-17", "11-16"]
    assert three["ok"] and three["result"] == "1/2-1/2"


def test_text_without_a_game_and_too_large_a_body_are_refused(client: TestClient) -> None:
    # Text that is not PDN reads as one game that says why.
    response = client.post(PDN_PATH, json={"text": "hello there", "name": "notes.txt"})
    assert response.status_code == 200
    assert response.json()["games"][0]["error"]["message"] == (
        "Game 1, line 1: 'hello' is not a move, move number or result")
    empty = client.post(PDN_PATH, json={"text": "", "name": "empty.pdn"})
    assert empty.status_code == 422
    assert empty.json()["error"] == {
        "code": "no_games",
        "message": "empty.pdn: no checkers game found (is this a PDN file?)"}
    # Larger than the JSON API's 16 KiB is fine here (an upload), past 2 MB is not.
    big = client.post(PDN_PATH, json={"text": BAD_SECOND * 200})
    assert big.status_code == 200 and big.json()["count"] == 600
    assert len(big.json()["games"]) == 200 and big.json()["left_out"] == 400
    huge = client.post(PDN_PATH, content=b'{"text": "' + b" " * 3_000_000 + b'"}',
                       headers={"Content-Type": "application/json"})
    assert huge.status_code == 413


def test_a_shared_real_file_opens_whole() -> None:
    path = shared_path("checkers", "wiegerw_pdn__OCA_2.0.pdn")
    answer = pdn_games(path.read_text(encoding="utf-8"))
    assert answer["count"] == 43 and all(game["ok"] for game in answer["games"])
    first = answer["games"][0]
    assert first["title"] == "Moorhead, W. – Wyllie, J. (Manchester 1841)"
    assert first["moves"][0]["text"] == "11-15" and first["result"] == "0-1"
    assert all(len(g["boards"]) == len(g["moves"]) + 1 for g in answer["games"])
    assert sum(len(g["moves"]) for g in answer["games"]) == 2280


def test_a_misspelt_field_is_refused_not_lost(client: TestClient) -> None:
    """A table or a room asked for with a field nobody reads (a typo such as ``time_contol``)
    is refused naming it, so that the table is never made without what was asked."""
    seats = {"black": {"kind": "person"}, "white": {"kind": "person"}}
    for path, body, field in (
            ("/api/tables", {"game": "checkers", "seats": seats, "time_contol": "blitz"},
             "time_contol"),
            ("/api/rooms", {"game": "checkers", "bogus": 1}, "bogus")):
        answer = client.post(path, json=body)
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"]["message"] == (
            f"invalid request: {field}: Extra inputs are not permitted")
    made = client.post("/api/rooms", json={"game": "checkers"}).json()
    joined = client.post(f"/api/rooms/{made['code']}/join", json={"name": "Bo", "seat": "x"})
    assert joined.status_code == 422
