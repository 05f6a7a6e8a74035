"""``POST /api/stats/rooms``: a backgammon room of the shared table's door counts its finished
games in the record of the browser that holds a seat, as the room refereed them (the token
opens the seat; the page says nothing of the result), each game once, in at most two
browsers' records per seat; refusals in words. The route is every game's
(:mod:`gametable.stats_http`); backgammon's record is :class:`BackgammonRoomRecord`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings
from gametable.online import MAX_MISSES

ANN = "a" * 24  # the browsers' ids
BOB = "b" * 24


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(ServerSettings(db_path=tmp_path / "db.sqlite3"))) as opened:
        yield opened


def room(client: TestClient, game: str = "backgammon", **settings: Any) -> dict[str, Any]:
    """A room with Ann (White) and Bob (Black) seated: {code, ann, bob} (the tokens)."""
    host = client.post("/api/rooms", json={"game": game, "settings": settings,
                                           "side": "white", "name": "Ann"})
    assert host.status_code == 201, host.text
    code = host.json()["code"]
    guest = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
    assert guest.status_code == 200, guest.text
    return {"code": code, "ann": host.json()["token"], "bob": guest.json()["token"]}


def leave(client: TestClient, code: str, token: str) -> dict[str, Any]:
    """The seat of ``token`` leaves the room: the game in play is forfeited (and a match or
    single game with it); returns the view after it."""
    with client.websocket_connect(f"/ws/rooms/{code}") as ws:
        ws.send_json({"type": "hello", "token": token})
        assert ws.receive_json()["type"] == "view"
        ws.send_json({"type": "leave", "ref": 1})
        while True:
            frame = ws.receive_json()
            assert frame["type"] != "error", frame
            if frame.get("ref") == 1:
                view: dict[str, Any] = frame["view"]
                return view


def count(client: TestClient, code: str, token: str, browser: str,
          status: int = 200) -> dict[str, Any]:
    answer = client.post("/api/stats/rooms",
                         json={"browser": browser, "code": code, "token": token})
    assert answer.status_code == status, answer.text
    data: dict[str, Any] = answer.json()
    return data


def total(client: TestClient, browser: str) -> dict[str, Any]:
    data: dict[str, Any] = client.get("/api/stats", params={"browser": browser}).json()
    return data


def test_a_forfeited_match_counts_once_for_each_side_as_the_room_ruled(
    client: TestClient,
) -> None:
    seats = room(client, length=3)
    code = seats["code"]
    assert count(client, code, seats["ann"], ANN) == {"counted": 0}  # nothing over yet
    assert total(client, ANN)["total"]["games"] == 0
    left = leave(client, code, seats["bob"])  # Bob leaves: Ann wins the match by forfeit
    assert left["outcome"] == {**left["outcome"], "winner": "white", "reason": "forfeit"}
    for _ in range(2):  # asked twice, counted once
        assert count(client, code, seats["ann"], ANN) == {"counted": 1}
    ann = total(client, ANN)
    assert ann["rows"] == [{**ann["rows"][0], "opponent": "online", "mode": "match",
                            "games": 1, "won": 1, "lost": 0, "points_won": 3,
                            "points_lost": 0, "matches_won": 1, "matches_lost": 0}]
    # the room's code in lower case opens it too; Bob's record holds the loss
    assert count(client, code.lower(), seats["bob"], BOB) == {"counted": 1}
    bob = total(client, BOB)["total"]
    assert bob == {**bob, "games": 1, "won": 0, "lost": 1, "points_lost": 3,
                   "matches_lost": 1}


def test_a_single_game_and_money_play_are_counted_as_their_kinds(client: TestClient) -> None:
    single = room(client)  # length 1: a single game
    leave(client, single["code"], single["ann"])
    assert count(client, single["code"], single["bob"], BOB) == {"counted": 1}
    money = room(client, length=0)
    left = leave(client, money["code"], money["ann"])
    # leaving ends money play too: the game in play forfeited, at three times the cube
    assert left["outcome"] == {"winner": "black", "reason": "forfeit", "points": 3}
    assert count(client, money["code"], money["bob"], BOB) == {"counted": 1}
    rows = {row["mode"]: row for row in total(client, BOB)["rows"]}
    assert sorted(rows) == ["money", "single"]
    assert rows["single"] == {**rows["single"], "games": 1, "won": 1, "matches_won": 0}
    assert rows["money"] == {**rows["money"], "games": 1, "won": 1, "points_won": 3}


def test_one_seat_counts_in_two_browsers_records_at_most(client: TestClient) -> None:
    seats = room(client, length=3)
    leave(client, seats["code"], seats["bob"])
    for browser in ("c" * 24, "d" * 24, "c" * 24):
        assert count(client, seats["code"], seats["ann"], browser) == {"counted": 1}
    third = count(client, seats["code"], seats["ann"], "e" * 24, status=507)
    assert third["error"] == {
        "code": "storage_full",
        "message": "this seat's games are counted in 2 browsers' records already"}
    assert total(client, "e" * 24)["total"]["games"] == 0
    # the other seat has its own two
    assert count(client, seats["code"], seats["bob"], "e" * 24) == {"counted": 1}


def test_refusals_say_why_and_count_nothing(client: TestClient) -> None:
    seats = room(client, length=3)
    code = seats["code"]
    leave(client, code, seats["bob"])
    wrong = count(client, code, "x" * 32, ANN, status=403)
    assert wrong["error"]["code"] == "not_your_room"
    missing = count(client, "ZZZZ9999", seats["ann"], ANN, status=404)
    assert missing["error"]["code"] == "not_found"
    bad = count(client, code, seats["ann"], "no!", status=422)
    assert bad["error"]["code"] == "invalid_browser"
    extra = client.post("/api/stats/rooms", json={"browser": ANN, "code": code,
                                                  "token": seats["ann"], "won": True})
    assert extra.status_code == 422
    assert total(client, ANN)["total"]["games"] == 0


def test_a_checkers_room_counts_in_the_checkers_record_not_in_backgammons(
    client: TestClient,
) -> None:
    # the one route serves every game's rooms: a checkers room's game is the checkers
    # record's (tests/checkers/test_checkers_room_record.py), backgammon's stays empty
    checkers = room(client, game="checkers")
    leave(client, checkers["code"], checkers["bob"])
    assert count(client, checkers["code"], checkers["ann"], ANN) == {"counted": 1}
    assert total(client, ANN)["total"]["games"] == 0
    record = client.get("/api/stats/tables", params={"browser": ANN, "game": "checkers"})
    assert record.json()["rows"] == [
        {"opponent": "online", "games": 1, "won": 1, "lost": 0, "drawn": 0}]


def test_codes_that_do_not_exist_count_against_the_address(client: TestClient) -> None:
    """Any token would otherwise tell which codes exist (404 against 403): each 404 is a
    miss of the address, as at the rooms' own door, and past the limit (30 a minute) the
    address is refused whatever the code."""
    seats = room(client, length=3)
    code = seats["code"]
    assert count(client, code, "x" * 32, ANN, status=403)["error"]["code"] == "not_your_room"
    for number in range(MAX_MISSES):
        missing = count(client, f"ZZZZ{number:04d}", "x" * 32, ANN, status=404)
        assert missing["error"]["code"] == "not_found"
    refused = count(client, code, "x" * 32, ANN, status=429)
    assert refused["error"]["code"] == "rate_limited"
