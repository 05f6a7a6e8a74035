"""A browser's record of its checkers games against the computer (``/api/stats/tables``) and
the computer's thinking time in the table's view (``thought``), in the real app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings
from checkers.adapter import CheckersRules

BROWSER = "a1b2c3d4e5f6a1b2c3d4e5f6"
OTHER = "ffffffffffffffffffffffff"


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with TestClient(create_app(ServerSettings(db_path=tmp_path / "db.sqlite3"))) as made:
        yield made


def _table(client: TestClient, level: str = "easy", me: str = "black",
           computer: bool = True, start: str | None = None) -> tuple[str, str, dict[str, Any]]:
    other = "white" if me == "black" else "black"
    seats = {me: {"kind": "person"},
             other: {"kind": "computer", "level": level} if computer else {"kind": "person"}}
    settings = {"start": start} if start else {}
    response = client.post("/api/tables",
                           json={"game": "checkers", "seats": seats, "settings": settings})
    assert response.status_code == 201, response.text
    made = response.json()
    return made["id"], made["token"], made["view"]


def _act(client: TestClient, table: tuple[str, str, Any], side: str,
         action: dict[str, Any]) -> dict[str, Any]:
    response = client.post(f"/api/tables/{table[0]}/actions", json={"side": side, "action": action},
                           headers={"X-Table-Token": table[1]})
    assert response.status_code == 200, response.text
    view: dict[str, Any] = response.json()["view"]
    return view


def _count(client: TestClient, table: tuple[str, str, Any], browser: str = BROWSER) -> Any:
    return client.post("/api/stats/tables",
                       json={"browser": browser, "table": table[0], "token": table[1]})


def test_the_view_says_how_long_the_computer_thought(client: TestClient) -> None:
    table = _table(client, level="easy")
    assert table[2]["thought"] is None and table[2]["actions"] == 0  # nobody has moved
    view = _act(client, table, "black", {"type": "move", "path": [11, 15]})
    thought = view["thought"]
    assert view["actions"] == 2 and len(view["state"]["moves"]) == 2
    assert thought["side"] == "white" and thought["actions"] == 2  # the computer's reply
    assert 0 < thought["seconds"] < 5
    # the computer moving first (the person is White) thinks at the table's making
    white = _table(client, level="medium", me="white")
    assert white[2]["thought"]["actions"] == 1 == white[2]["actions"]
    assert len(white[2]["state"]["moves"]) == 1
    # read again, it is the same (the table's record holds it too)
    again = client.get(f"/api/tables/{table[0]}", headers={"X-Table-Token": table[1]}).json()
    assert again["view"]["thought"] == thought


def test_a_finished_game_is_counted_once_by_level(client: TestClient,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    empty = client.get(f"/api/stats/tables?browser={BROWSER}&game=checkers").json()
    assert empty == {"game": "checkers", "rows": [],
                     "total": {"opponent": None, "games": 0, "won": 0, "lost": 0, "drawn": 0}}
    lost = _table(client, level="hard")
    going = _count(client, lost)
    assert going.status_code == 409 and going.json()["error"]["code"] == "not_over"
    _act(client, lost, "black", {"type": "resign"})
    first = _count(client, lost)
    assert first.status_code == 200, first.text
    assert first.json()["counted"] is True
    again = _count(client, lost).json()
    assert again["counted"] is False  # once, however often the page asks
    assert _count(client, lost, OTHER).json()["counted"] is False  # and in one browser only
    assert again["record"]["total"] == {"opponent": None, "games": 1, "won": 0, "lost": 1,
                                        "drawn": 0}
    # a win at Easy (Black takes White's last man) and a draw at Expert (a level ending: the
    # computer accepts the offer), reached quickly from set-up positions that the record here
    # counts as games (a set-up game is not counted: the test below)
    monkeypatch.setattr(CheckersRules, "set_up", lambda self, settings: False)
    won = _table(client, level="easy", start="B:W18:B14")
    assert _act(client, won, "black", {"type": "move", "path": [14, 23]})["outcome"]["winner"] \
        == "black"
    assert _count(client, won).json()["counted"] is True
    drawn = _table(client, level="expert", start="B:WK30:BK1")
    assert _act(client, drawn, "black", {"type": "offer_draw"})["outcome"]["reason"] \
        == "agreement"
    assert _count(client, drawn).json()["counted"] is True
    record = client.get(f"/api/stats/tables?browser={BROWSER}&game=checkers").json()
    assert record["rows"] == [  # in the order of the levels
        {"opponent": "easy", "games": 1, "won": 1, "lost": 0, "drawn": 0},
        {"opponent": "hard", "games": 1, "won": 0, "lost": 1, "drawn": 0},
        {"opponent": "expert", "games": 1, "won": 0, "lost": 0, "drawn": 1}]
    assert record["total"] == {"opponent": None, "games": 3, "won": 1, "lost": 1, "drawn": 1}
    # another browser's record and another game's are empty
    assert client.get(f"/api/stats/tables?browser={OTHER}&game=checkers").json()["total"][
        "games"] == 0
    assert client.get(f"/api/stats/tables?browser={BROWSER}&game=backgammon").json()["total"][
        "games"] == 0
    cleared = client.delete(f"/api/stats/tables?browser={BROWSER}&game=checkers")
    assert cleared.json() == {"cleared": 3}
    assert client.get(f"/api/stats/tables?browser={BROWSER}&game=checkers").json()["rows"] == []


def test_only_games_against_the_computer_with_the_right_token(client: TestClient) -> None:
    pair = _table(client, computer=False)
    _act(client, pair, "black", {"type": "resign"})
    refused = _count(client, pair)
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "not_against_computer"
    table = _table(client)
    wrong = client.post("/api/stats/tables",
                        json={"browser": BROWSER, "table": table[0], "token": "x" * 20})
    assert wrong.status_code == 403
    bad = client.post("/api/stats/tables",
                      json={"browser": "no", "table": table[0], "token": table[1]})
    assert bad.status_code == 422
    assert client.get("/api/stats/tables?browser=no&game=checkers").status_code == 422


def test_a_game_from_a_set_up_position_is_not_counted(client: TestClient) -> None:
    # a start where White has one man left to take: a win against Expert in one move
    won = _table(client, level="expert", start="B:W18:B14")
    assert _act(client, won, "black", {"type": "move", "path": [14, 23]})["outcome"]["winner"] \
        == "black"
    answer = _count(client, won)
    assert answer.status_code == 200, answer.text
    assert answer.json()["counted"] is False
    assert answer.json()["record"]["total"]["games"] == 0
    # the usual start written out is no set-up, nor a ballot's: a resigned game counts
    usual = _table(client, level="expert", start="B:W21,22,23,24,25,26,27,28,29,30,31,32"
                                                  ":B1,2,3,4,5,6,7,8,9,10,11,12")
    _act(client, usual, "black", {"type": "resign"})
    assert _count(client, usual).json()["counted"] is True
    response = client.post("/api/tables", json={
        "game": "checkers", "settings": {"ballot": "11-15 23-18 8-11"},
        "seats": {"black": {"kind": "person"},
                  "white": {"kind": "computer", "level": "easy"}}})
    assert response.status_code == 201, response.text
    made = response.json()
    balloted = (made["id"], made["token"], made["view"])
    _act(client, balloted, "black", {"type": "resign"})
    assert _count(client, balloted).json()["counted"] is True
    record = client.get(f"/api/stats/tables?browser={BROWSER}&game=checkers").json()
    assert record["rows"] == [
        {"opponent": "easy", "games": 1, "won": 0, "lost": 1, "drawn": 0},
        {"opponent": "expert", "games": 1, "won": 0, "lost": 1, "drawn": 0}]
