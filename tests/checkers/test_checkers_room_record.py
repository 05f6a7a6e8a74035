"""Online checkers games (a room of the shared door, ``/api/rooms``) count in the checkers
record (``/api/stats/tables``) as games against a person online, through the one route every
game's rooms use, ``POST /api/stats/rooms``: refereed by the server from the room's own
outcome (the page says nothing of the result), each game of a series (rematches) once per
browser, in at most two browsers' records per seat; refusals in words."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings
from gametable.stats import TableResult, TableStatsStore, room_session

ANN = "a" * 24  # the browsers' ids
BOB = "b" * 24


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(ServerSettings(db_path=tmp_path / "db.sqlite3"))) as opened:
        yield opened


def room(client: TestClient) -> dict[str, str]:
    """A checkers room with Ann (Black) and Bob (White) seated: {code, ann, bob} (tokens)."""
    host = client.post("/api/rooms", json={"game": "checkers", "side": "black", "name": "Ann"})
    assert host.status_code == 201, host.text
    code = host.json()["code"]
    guest = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
    assert guest.status_code == 200, guest.text
    return {"code": code, "ann": host.json()["token"], "bob": guest.json()["token"]}


def until(ws: WebSocketTestSession, ref: str) -> dict[str, Any]:
    """The answer to the message ``ref`` (the frames before it skipped)."""
    while True:
        frame: dict[str, Any] = ws.receive_json()
        assert frame["type"] != "error", frame
        if frame.get("ref") == ref:
            return frame


def send(ws: WebSocketTestSession, ref: str, message: dict[str, Any]) -> dict[str, Any]:
    ws.send_json({**message, "ref": ref})
    return until(ws, ref)


def act(ws: WebSocketTestSession, ref: str, action: dict[str, Any]) -> dict[str, Any]:
    return send(ws, ref, {"type": "action", "action": action})


def count(client: TestClient, code: str, token: str, browser: str,
          status: int = 200) -> dict[str, Any]:
    answer = client.post("/api/stats/rooms",
                         json={"browser": browser, "code": code, "token": token})
    assert answer.status_code == status, answer.text
    data: dict[str, Any] = answer.json()
    return data


def record(client: TestClient, browser: str) -> dict[str, Any]:
    answer = client.get("/api/stats/tables", params={"browser": browser, "game": "checkers"})
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def online(won: int, lost: int, drawn: int) -> dict[str, Any]:
    return {"opponent": "online", "games": won + lost + drawn, "won": won, "lost": lost,
            "drawn": drawn}


def test_a_won_a_lost_and_a_drawn_game_of_one_room_each_count_once(client: TestClient) -> None:
    seats = room(client)
    code = seats["code"]
    assert count(client, code, seats["ann"], ANN) == {"counted": 0}  # nothing over yet
    with client.websocket_connect(f"/ws/rooms/{code}") as ann, \
            client.websocket_connect(f"/ws/rooms/{code}") as bob:
        ann.send_json({"type": "hello", "token": seats["ann"]})
        bob.send_json({"type": "hello", "token": seats["bob"]})
        # game 1: Bob (White) resigns; Ann won it, Bob lost it
        over = act(bob, "r1", {"type": "resign"})
        assert over["view"]["outcome"]["winner"] == "black"
        for _ in range(3):  # asked again and again: counted once
            assert count(client, code, seats["ann"], ANN) == {"counted": 1}
        assert count(client, code, seats["bob"], BOB) == {"counted": 1}
        # game 2, the rematch (sides swap: Ann White, Bob Black): a draw by agreement
        send(ann, "m1", {"type": "rematch"})
        assert send(bob, "m2", {"type": "rematch"})["rematch"] is True
        assert count(client, code, seats["ann"], ANN) == {"counted": 0}  # game 2 goes on
        act(bob, "d1", {"type": "offer_draw"})
        drawn = act(ann, "d2", {"type": "accept_draw"})
        assert drawn["view"]["outcome"] == {**drawn["view"]["outcome"], "winner": None}
        assert count(client, code, seats["ann"], ANN) == {"counted": 1}
        assert count(client, code, seats["bob"], BOB) == {"counted": 1}
        # game 3 (sides swap back: Ann Black, Bob White): Ann resigns after a move each
        send(bob, "n1", {"type": "rematch"})
        send(ann, "n2", {"type": "rematch"})
        act(ann, "a1", {"type": "move", "path": [11, 15]})
        act(bob, "b1", {"type": "move", "path": [22, 18]})
        lost = act(ann, "a2", {"type": "resign"})
        assert lost["view"]["outcome"]["winner"] == "white"
        for _ in range(2):
            assert count(client, code, seats["ann"], ANN) == {"counted": 1}
            assert count(client, code, seats["bob"], BOB) == {"counted": 1}
    assert record(client, ANN) == {"game": "checkers", "rows": [online(1, 1, 1)],
                                   "total": {**online(1, 1, 1), "opponent": None}}
    assert record(client, BOB)["rows"] == [online(1, 1, 1)]
    # backgammon's record holds none of them
    assert client.get("/api/stats", params={"browser": ANN}).json()["total"]["games"] == 0


def test_the_online_row_follows_the_computer_levels_and_clears_with_them(
    client: TestClient,
) -> None:
    seats = room(client)
    with client.websocket_connect(f"/ws/rooms/{seats['code']}") as bob:
        bob.send_json({"type": "hello", "token": seats["bob"]})
        act(bob, "r", {"type": "resign"})
    assert count(client, seats["code"], seats["bob"], BOB) == {"counted": 1}
    # a game against the computer (Expert) lost by resignation, in the same browser
    made = client.post("/api/tables", json={
        "game": "checkers", "settings": {},
        "seats": {"black": {"kind": "person"}, "white": {"kind": "computer", "level": "expert"}}})
    table = made.json()
    resigned = client.post(f"/api/tables/{table['id']}/actions",
                           json={"side": "black", "action": {"type": "resign"}},
                           headers={"X-Table-Token": table["token"]})
    assert resigned.status_code == 200, resigned.text
    counted = client.post("/api/stats/tables",
                          json={"browser": BOB, "table": table["id"], "token": table["token"]})
    assert counted.status_code == 200, counted.text
    rows = record(client, BOB)["rows"]
    assert rows == [{"opponent": "expert", "games": 1, "won": 0, "lost": 1, "drawn": 0},
                    online(0, 1, 0)]
    cleared = client.delete("/api/stats/tables", params={"browser": BOB, "game": "checkers"})
    assert cleared.json() == {"cleared": 2}
    assert record(client, BOB)["total"]["games"] == 0


def test_one_seat_counts_in_two_browsers_records_at_most(client: TestClient) -> None:
    seats = room(client)
    with client.websocket_connect(f"/ws/rooms/{seats['code']}") as bob:
        bob.send_json({"type": "hello", "token": seats["bob"]})
        act(bob, "r", {"type": "resign"})
    for browser in ("c" * 24, "d" * 24, "c" * 24):
        assert count(client, seats["code"], seats["ann"], browser) == {"counted": 1}
    third = count(client, seats["code"], seats["ann"], "e" * 24, status=507)
    assert third["error"] == {
        "code": "storage_full",
        "message": "this seat's games are counted in 2 browsers' records already"}
    assert record(client, "e" * 24)["total"]["games"] == 0
    assert record(client, "c" * 24)["rows"] == [online(1, 0, 0)]
    # the other seat has its own two
    assert count(client, seats["code"], seats["bob"], "e" * 24) == {"counted": 1}
    assert record(client, "e" * 24)["rows"] == [online(0, 1, 0)]


def test_refusals_say_why_and_count_nothing(client: TestClient) -> None:
    seats = room(client)
    code = seats["code"]
    with client.websocket_connect(f"/ws/rooms/{code}") as bob:
        bob.send_json({"type": "hello", "token": seats["bob"]})
        act(bob, "r", {"type": "resign"})
    wrong = count(client, code, "x" * 32, ANN, status=403)
    assert wrong["error"]["code"] == "not_your_room"
    missing = count(client, "ZZZZ9999", seats["ann"], ANN, status=404)
    assert missing["error"]["code"] == "not_found"
    bad = count(client, code, seats["ann"], "no!", status=422)
    assert bad["error"]["code"] == "invalid_browser"
    said = client.post("/api/stats/rooms", json={"browser": ANN, "code": code,
                                                 "token": seats["ann"], "result": "won"})
    assert said.status_code == 422  # the page cannot say who won
    assert record(client, ANN)["total"]["games"] == 0
    # the room's code in lower case opens it too
    assert count(client, code.lower(), seats["ann"], ANN) == {"counted": 1}


def test_the_store_keys_a_seat_game_by_session_and_browser(tmp_path: Path) -> None:
    store = TableStatsStore(tmp_path / "db.sqlite3", now=lambda: 100.0)
    session = room_session("ABCD2345", 0, "black")
    assert session == "rooms:ABCD2345:0:black"
    won = TableResult("checkers", session, ANN, "online", "won", "resignation")
    assert store.record_seat(won) is True
    assert store.record_seat(won) is False  # counted once in a browser's record
    assert store.record_seat(TableResult("checkers", session, BOB, "online", "won",
                                         "resignation")) is True
    assert store.browsers(session) == {ANN, BOB}
    assert store.browsers(room_session("ABCD2345", 1, "white")) == set()
    assert store.summary(ANN, "checkers")["rows"] == [online(1, 0, 0)]
    assert store.summary(ANN, "backgammon")["rows"] == []
    store.close()


def test_new_browsers_asking_at_once_pass_the_bound_one_at_a_time(client: TestClient) -> None:
    seats = room(client)
    with client.websocket_connect(f"/ws/rooms/{seats['code']}") as bob:
        bob.send_json({"type": "hello", "token": seats["bob"]})
        act(bob, "r", {"type": "resign"})
    assert count(client, seats["code"], seats["ann"], ANN) == {"counted": 1}
    browsers = [letter * 24 for letter in "cdef"]
    with ThreadPoolExecutor(len(browsers)) as pool:
        answers = list(pool.map(lambda browser: client.post("/api/stats/rooms", json={
            "browser": browser, "code": seats["code"], "token": seats["ann"]}), browsers))
    assert sorted(answer.status_code for answer in answers) == [200, 507, 507, 507]
    assert sum(record(client, browser)["total"]["games"] for browser in browsers) == 1


def test_a_room_game_from_a_set_up_position_is_not_counted(client: TestClient) -> None:
    # Ann (Black) takes White's last man at once: a set-up win, not a game against a person
    host = client.post("/api/rooms", json={"game": "checkers", "side": "black", "name": "Ann",
                                           "settings": {"start": "B:W18:B14"}})
    assert host.status_code == 201, host.text
    code = host.json()["code"]
    guest = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
    assert guest.status_code == 200, guest.text
    with client.websocket_connect(f"/ws/rooms/{code}") as ann:
        ann.send_json({"type": "hello", "token": host.json()["token"]})
        over = act(ann, "r1", {"type": "move", "path": [14, 23]})
        assert over["view"]["outcome"]["winner"] == "black", over
    assert count(client, code, host.json()["token"], ANN) == {"counted": 0}
    assert count(client, code, guest.json()["token"], BOB) == {"counted": 0}
    assert record(client, ANN)["total"]["games"] == 0 == record(client, BOB)["total"]["games"]
