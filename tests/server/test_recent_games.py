"""A browser's recent unfinished games (``GET /api/games?browser=...``): listed newest first,
only that browser's and only unfinished ones, resumed by reading the game; bad input refused
with 422 and nothing changed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from api_support import Clients, act, new_game

from backgammon.services.session import RECENT_LIMIT
from gametable.game_store import GameStore

BROWSER = "browser-one-1234"
OTHER = "browser-two-5678"


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Clients]:
    with Clients(tmp_path / "games.sqlite3") as opened:
        yield opened


def recent(client, browser: str = BROWSER, **params: object) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    response = client.get("/api/games", params={"browser": browser, **params})
    assert response.status_code == 200, response.text
    games: list[dict[str, object]] = response.json()["games"]
    return games


def test_the_unfinished_games_of_the_browser_newest_first(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)] * 50)
    first = new_game(client, mode="computer", level="easy", side="white", browser=BROWSER)
    act(client, first["id"], "roll")  # White wins the opening roll with 3-1
    act(client, first["id"], "move", {"from": 8, "to": 5})
    act(client, first["id"], "move", {"from": 6, "to": 5})
    act(client, first["id"], "done")
    second = new_game(client, mode="pass_and_play", kind="match", length=5, browser=BROWSER)
    new_game(client, mode="pass_and_play", browser=OTHER)
    new_game(client, mode="pass_and_play")  # no browser: nobody's list
    listed = recent(client)
    assert [g["id"] for g in listed] == [second["id"], first["id"]]
    assert listed[0]["title"] == "Pass & play"
    assert listed[0]["description"] == "Match to 5 points · game 1"
    assert listed[0]["turns"] == 0
    assert listed[1]["title"] == "You (White) vs Computer (Easy)"
    assert listed[1]["turns"] == 1  # White's opening play, 3-1
    assert listed[1]["score"] == {"white": 0, "black": 0}
    assert isinstance(listed[1]["updated_at"], float)
    assert [g["id"] for g in recent(client, limit=1)] == [second["id"]]
    # playing the older game again puts it first
    client.post(f"/api/games/{first['id']}/computer")
    assert [g["id"] for g in recent(client)] == [first["id"], second["id"]]
    act(client, first["id"], "roll")
    act(client, first["id"], "resign", {"level": "single"})
    # ... but a game that is over is no longer listed
    state = client.get(f"/api/games/{first['id']}").json()
    if state["result"] is None:  # the computer is to answer the resignation
        client.post(f"/api/games/{first['id']}/computer")
    state = client.get(f"/api/games/{first['id']}").json()
    assert state["result"] is not None
    assert [g["id"] for g in recent(client)] == [second["id"]]
    assert [g["title"] for g in recent(client, OTHER)] == ["Pass & play"]
    # the browser id survives a restart of the server (it is in the saved record)
    again = clients.new()
    assert [g["id"] for g in recent(again)] == [second["id"]]


def test_a_rematch_keeps_the_browser(clients: Clients) -> None:
    client = clients.new()
    state = new_game(client, mode="pass_and_play", browser=BROWSER)
    act(client, state["id"], "roll")
    act(client, state["id"], "resign", {"level": "single"})
    rematch = act(client, state["id"], "rematch", status=201)
    assert [g["id"] for g in recent(client)] == [rematch["id"]]


@pytest.mark.parametrize("params", [
    {},
    {"browser": "short"},
    {"browser": "x" * 65},
    {"browser": "has spaces in it"},
    {"browser": "../../etc/passwd"},
    {"browser": BROWSER, "limit": 0},
    {"browser": BROWSER, "limit": RECENT_LIMIT + 1},
    {"browser": BROWSER, "limit": "many"},
])
def test_bad_queries_are_refused(clients: Clients, params: dict[str, object]) -> None:
    client = clients.new()
    response = client.get("/api/games", params=params)
    assert response.status_code == 422, response.text
    assert "error" in response.json()


def test_a_bad_browser_id_in_a_new_game_is_refused_and_nothing_is_saved(
    clients: Clients, tmp_path: Path
) -> None:
    client = clients.new()
    for bad in ("short", "with/slash-12345", 12345678, "é" * 10):
        response = client.post("/api/games", json={"mode": "pass_and_play", "browser": bad})
        assert response.status_code == 422, (bad, response.text)
    with GameStore(tmp_path / "games.sqlite3") as store:
        assert store.list_ids() == []


def test_a_damaged_save_is_left_out_of_the_list(clients: Clients, tmp_path: Path) -> None:
    client = clients.new()
    good = new_game(client, mode="pass_and_play", browser=BROWSER)
    with GameStore(tmp_path / "games.sqlite3") as store:
        damaged = {"format": 1, "browser": BROWSER, "settings": {}, "log": []}
        store.write_raw("damaged-game", json.dumps(damaged))
        store.write_raw("not-json-game", "{not json")
    assert [g["id"] for g in recent(clients.new())] == [good["id"]]
