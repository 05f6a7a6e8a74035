"""Counting gammons is an option of the New game form: on by default; off, every win scores a
single game times the cube."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from api_support import Clients, act, new_game


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Clients]:
    with Clients(tmp_path / "games.sqlite3") as opened:
        yield opened


def gammon_setup() -> dict[str, object]:
    """White to play 2-1 with one checker left on the 2-point; Black has none off: 2/off wins
    a gammon."""
    points = [0] * 26
    points[2] = 1
    points[13] = -15
    return {"board": {"points": points, "off": {"white": 14, "black": 0}},
            "turn": "white", "dice": [2, 1], "cube": {"value": 2, "owner": "black"},
            "doubled": False, "match_length": 0, "score": {"white": 0, "black": 0},
            "crawford": False, "jacoby": False, "beavers": False}


@pytest.mark.parametrize(("gammons", "points"), [(True, 4), (False, 2)])
def test_a_gammon_played_out_scores_by_the_setting(clients: Clients, gammons: bool,
                                                   points: int) -> None:
    client = clients.new()
    state = new_game(client, setup=gammon_setup(), gammons=gammons)
    assert state["settings"]["gammons"] is gammons
    act(client, state["id"], "move", {"from": 2, "to": "off"})
    state = act(client, state["id"], "done")
    result = state["result"]
    assert (result["winner"], result["kind"], result["points"]) == ("white", "gammon", points)
    if gammons:
        assert result["text"] == "White wins a gammon (4 points)."
    else:
        assert result["text"] == ("White wins a gammon (2 points). Gammons are off: every win "
                                  "scores a single game.")


def test_gammons_are_on_by_default_and_shown_when_off(clients: Clients) -> None:
    client = clients.new()
    assert new_game(client)["settings"]["gammons"] is True
    state = new_game(client, gammons=False, cube=False)
    assert state["score"]["description"] == "Single game · no cube · gammons off"
    response = client.post("/api/games", json={"mode": "pass_and_play", "gammons": "maybe"})
    assert response.status_code == 422
