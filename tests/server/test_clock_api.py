"""Timed games over HTTP: the time control beside the cube in ``POST /api/games``, the clock in
the state, the page's clock check (``POST /api/games/{id}/clock``), a timeout seen without any
action, and a server restart keeping the remaining times. The app runs on a fake ``now()``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from backgammon.core.dice import FixedDice
from backgammon.server import ServerSettings, create_app
from fake_clock import FakeNow
from gametable.clock import TEST_CONTROLS_ENV, controls_from_env


class Server:
    """Apps on one database and one fake clock; :meth:`start` again is a server restart."""

    def __init__(self, db: Path, rolls: list[tuple[int, int]]) -> None:
        self.db = db
        self.rolls = rolls
        self.now = FakeNow(100.0)
        self.clients: list[TestClient] = []

    def start(self, controls: str = "") -> TestClient:
        settings = ServerSettings(
            db_path=self.db, rng=random.Random(3), dice=FixedDice(self.rolls), now=self.now,
            time_controls=controls_from_env({TEST_CONTROLS_ENV: controls}),
        )
        client = TestClient(create_app(settings))
        client.__enter__()
        self.clients.append(client)
        return client

    def close(self) -> None:
        for client in self.clients:
            client.__exit__(None, None, None)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    opened = Server(tmp_path / "games.sqlite3", [(3, 1), (2, 1), (6, 5)])
    yield opened
    opened.close()


def post(client: TestClient, path: str, body: dict[str, Any] | None = None,
         status: int = 200) -> dict[str, Any]:
    response = client.post(path, json=body or {})
    assert response.status_code == status, response.text
    data: dict[str, Any] = response.json()
    return data


def get(client: TestClient, path: str) -> dict[str, Any]:
    response = client.get(path)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def test_the_time_control_is_a_setting_beside_the_cube(server: Server) -> None:
    client = server.start()
    state = post(client, "/api/games", {"mode": "pass_and_play", "cube": True,
                                        "time_control": "blitz"}, status=201)
    assert state["settings"]["time_control"] == "blitz"
    assert state["clock"] == {
        "control": "blitz", "reserve": 180.0, "increment": 4.0,
        "remaining": {"white": 180.0, "black": 180.0}, "running": None, "paused": None,
        "heartbeat": 5.0, "warning": 10.0,
    }
    untimed = post(client, "/api/games", {"mode": "pass_and_play"}, status=201)
    assert untimed["settings"]["time_control"] == "none" and untimed["clock"] is None
    assert post(client, f"/api/games/{untimed['id']}/clock") == {
        "version": 1, "phase": "opening", "clock": None}

    response = client.post("/api/games", json={"time_control": "classical"})
    assert response.status_code == 422
    assert response.json()["error"]["message"] == (
        "invalid request: time_control: Input should be 'none', 'bullet', 'blitz' or 'rapid'")
    response = client.post(f"/api/games/{state['id']}/clock", json={"page": "no spaces"})
    assert response.status_code == 422
    assert "page: String should match pattern" in response.json()["error"]["message"]
    docs = get(client, "/openapi.json")
    assert "/api/games/{game_id}/clock" in docs["paths"]


def test_the_clock_runs_from_the_opening_roll_and_the_page_sees_a_timeout(
    server: Server,
) -> None:
    client = server.start(controls="bullet=3+1")  # a test-only short Bullet
    game = post(client, "/api/games", {"mode": "pass_and_play", "time_control": "bullet"},
                status=201)
    path = f"/api/games/{game['id']}"
    server.now.t += 50  # before the opening roll: free
    state = post(client, f"{path}/roll")
    assert state["clock"]["running"] == "white"
    assert state["clock"]["remaining"] == {"white": 3.0, "black": 3.0}
    server.now.t += 1.25
    check = post(client, f"{path}/clock", {"page": "tab-1", "shown": state["version"]})
    assert check == {"version": state["version"], "phase": "move", "clock": {
        **state["clock"], "remaining": {"white": 1.75, "black": 3.0}}}
    server.now.t += 1.75  # zero: the page's display reaches 0 and it checks at once
    check = post(client, f"{path}/clock", {"page": "tab-1", "shown": state["version"]})
    assert check["version"] == state["version"] + 1
    assert check["phase"] == "match_over"
    assert check["clock"]["remaining"] == {"white": 0.0, "black": 3.0}
    assert check["clock"]["running"] is None
    final = get(client, path)
    assert final["result"]["reason"] == "timeout"
    assert final["result"]["text"] == ("Black wins a single game on time (1 point): "
                                       "White ran out of time.")
    # White had its opening roll to play: the line keeps it
    white, black = state["opening"]["white"], state["opening"]["black"]
    assert final["history"][-2]["text"] == f"White {white}-{black}: times out"
    response = client.post(f"{path}/move", json={"from": 8, "to": 5})
    assert response.status_code == 409
    assert response.json()["error"] == {"code": "game_over", "message": "the game is over (time)"}


def test_a_late_action_is_refused_with_the_reason(server: Server) -> None:
    client = server.start()
    game = post(client, "/api/games", {"mode": "computer", "side": "white",
                                       "time_control": "bullet"}, status=201)
    path = f"/api/games/{game['id']}"
    post(client, f"{path}/roll")  # White wins the opening: the person's clock runs
    for _ in range(6):
        server.now.t += 9
        post(client, f"{path}/clock", {"page": "tab-1"})
    server.now.t += 9  # 63 s: the move comes 3 s too late
    response = client.post(f"{path}/move", json={"from": 8, "to": 5})
    assert response.status_code == 409
    assert response.json()["error"] == {
        "code": "game_over", "message": "You ran out of time: the game is over"}
    result = get(client, path)["result"]
    assert result["title"] == "The computer wins"
    assert result["text"] == ("The computer wins a single game on time (1 point): "
                              "you ran out of time.")


def test_a_server_restart_keeps_the_remaining_times(server: Server) -> None:
    client = server.start()
    game = post(client, "/api/games", {"mode": "pass_and_play", "time_control": "rapid"},
                status=201)
    path = f"/api/games/{game['id']}"
    post(client, f"{path}/roll")
    server.now.t += 4
    post(client, f"{path}/move", {"from": 8, "to": 5})
    post(client, f"{path}/move", {"from": 6, "to": 5})
    post(client, f"{path}/done")  # White: 600 - 4 + 8
    server.now.t += 7
    post(client, f"{path}/roll")
    server.now.t += 2.5
    saved = post(client, f"{path}/clock", {"page": "tab-1"})["clock"]
    assert saved["remaining"] == {"white": 604.0, "black": 590.5}
    client.__exit__(None, None, None)  # the server stops ...
    server.clients.remove(client)

    server.now.t += 3600  # ... and is down for an hour
    again = server.start()
    state = get(again, path)
    assert state["clock"]["remaining"] == {"white": 604.0, "black": 590.5}
    assert state["clock"]["running"] == "black"
    assert state["dice"] == [2, 1]
