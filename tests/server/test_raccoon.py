"""Raccoons through both doors: the local door's ``POST /raccoon`` and ``can.raccoon``, the
computer's raccoon and the hint that says it, and the online door's ``raccoon`` message.

The rule (:mod:`backgammon.core.game`; rec.games.backgammon FAQ 8): with beavers on, the
original doubler may answer a beaver by redoubling at once; the cube, at eight times its value
before the double, stays with the beaver, who takes or drops.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import Clients, act, new_game
from test_online_protocol import _to_a_roll_phase, client, now, table_factory

from scenarios import RACCOON_SETUP

__all__ = ["client", "now", "table_factory"]  # the online fixtures, by the names tests ask


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Clients]:
    with Clients(tmp_path / "games.sqlite3") as opened:
        yield opened


def test_pass_and_play_raccoon_through_the_local_door(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1), (5, 2)])
    state = new_game(client, kind="money", cube=True, beavers=True)
    game_id = state["id"]
    act(client, game_id, "roll")  # White 3-1
    act(client, game_id, "move", {"from": 8, "to": 5})
    act(client, game_id, "move", {"from": 6, "to": 5})
    act(client, game_id, "done")
    state = act(client, game_id, "double")  # Black doubles
    assert (state["can"]["beaver"], state["can"]["raccoon"]) == (True, False)
    act(client, game_id, "raccoon", status=409)  # only a beaver can be raccooned
    state = act(client, game_id, "beaver")  # White beavers to 4
    assert (state["to_act"], state["can"]["take"], state["can"]["drop"]) == ("black", True, True)
    assert (state["can"]["beaver"], state["can"]["raccoon"]) == (False, True)
    assert state["message"] == "White beavers to 4: Black, take, drop or raccoon?"
    state = act(client, game_id, "raccoon")  # Black raccoons to 8
    assert state["phase"] == "cube" and state["to_act"] == "white"
    assert (state["can"]["beaver"], state["can"]["raccoon"]) == (False, False)
    assert state["cube"] == {"enabled": True, "value": 4, "owner": "white",
                             "offered_by": "black"}
    assert state["history"][-1]["text"] == "Black raccoons to 8"
    assert state["message"] == "Black raccoons to 8: White, take or drop?"
    state = act(client, game_id, "take")
    assert (state["cube"]["value"], state["cube"]["owner"]) == (8, "white")
    assert state["phase"] == "roll" and state["turn"] == "black"
    # the saved record replays it
    again = client.get(f"/api/games/{game_id}").json()
    assert (again["cube"]["value"], again["cube"]["owner"]) == (8, "white")


def test_raccoon_is_refused_without_beavers(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1), (5, 2)])
    game_id = new_game(client, kind="money", cube=True)["id"]
    act(client, game_id, "roll")
    act(client, game_id, "move", {"from": 8, "to": 5})
    act(client, game_id, "move", {"from": 6, "to": 5})
    act(client, game_id, "done")
    state = act(client, game_id, "double")
    assert state["can"]["raccoon"] is False
    refused = act(client, game_id, "raccoon", status=409)
    assert "raccoons are not allowed in this game" in refused["error"]["message"]


def test_the_computer_raccoons_a_mistaken_beaver_as_its_hint_says(clients: Clients) -> None:
    """White (the computer) doubles at 77.2% (scenarios.RACCOON_SETUP); the person beavers,
    a mistake: the computer raccoons, and the hint of the same decision says raccoon."""
    client = clients.new()
    # the hint first, in a pass & play game of the same position
    hint_id = new_game(client, setup=RACCOON_SETUP)["id"]
    act(client, hint_id, "double")
    act(client, hint_id, "beaver")
    hint = client.get(f"/api/games/{hint_id}/evaluation").json()
    assert (hint["kind"], hint["action"], hint["response"]) == ("take", "raccoon", "take")
    assert hint["text"] == "double, take; the beaver: raccoon"
    act(client, hint_id, "raccoon")
    hint = client.get(f"/api/games/{hint_id}/evaluation").json()
    assert (hint["kind"], hint["action"]) == ("take", "take")
    assert hint["text"] == "double, take; the raccoon: take"

    game_id = new_game(client, mode="computer", side="black", setup=RACCOON_SETUP)["id"]
    answer = act(client, game_id, "computer")
    assert [s["kind"] for s in answer["steps"]] == ["double"]
    state = act(client, game_id, "beaver")
    assert state["computer_to_act"] is True
    answer = act(client, game_id, "computer")
    assert [(s["kind"], s["text"]) for s in answer["steps"]] == [
        ("raccoon", "The computer raccoons your beaver: it redoubles to 8, and you keep the "
                    "cube: take or drop?")]
    state = answer["state"]
    assert state["phase"] == "cube" and state["to_act"] == "black"
    assert state["message"] == "The computer raccoons to 8: take or drop?"
    assert (state["can"]["take"], state["can"]["drop"], state["can"]["raccoon"]) == (
        True, True, False)
    assert [h["text"] for h in state["history"][-3:]] == [
        "Computer doubles to 2", "You beaver to 4", "Computer raccoons to 8"]
    state = act(client, game_id, "take")
    assert (state["cube"]["value"], state["cube"]["owner"]) == (8, "black")


def test_raccoon_through_the_online_door(table_factory: Any) -> None:
    table = table_factory(seed=12, cube=True, money=True, beavers=True)
    roller, other = _to_a_roll_phase(table)
    roller.send(type="double")
    table.both("double")
    other.send(type="beaver")
    table.both("beaver")
    view = roller.state()["view"]
    assert (view["can"]["raccoon"], view["can"]["take"]) == (True, True)
    assert other.state()["view"]["can"]["raccoon"] is False
    other.send(type="raccoon")
    assert other.error("not_your_turn")
    roller.send(type="raccoon")
    raccoon = table.both("raccoon")[0]
    assert (raccoon["color"], raccoon["cube"]) == (roller.color, 8)
    state = other.state()
    assert (state["game"]["phase"], state["game"]["to_act"]) == ("cube", other.color)
    assert state["view"]["can"]["take"] is True and state["view"]["can"]["raccoon"] is False
    roller.send(type="raccoon")  # one raccoon at most
    assert roller.error("not_your_turn")
    other.send(type="take")
    table.both("take")
    cube = roller.state()["game"]["cube"]
    assert (cube["value"], cube["owner"]) == (8, other.color)
