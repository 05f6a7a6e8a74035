"""Raccoons through both doors: the local door's ``POST /raccoon`` and ``can.raccoon``, the
computer's raccoon and the hint that says it, and the ``raccoon`` action at the table's online
door (``/ws/rooms``, backgammon's plug-in).

The rule (:mod:`backgammon.core.game`; rec.games.backgammon FAQ 8): with beavers on, the
original doubler may answer a beaver by redoubling at once; the cube, at eight times its value
before the double, stays with the beaver, who takes or drops.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from api_support import Clients, act, new_game

from backgammon.adapter import RULES
from fake_clock import FakeNow
from gametable.errors import ActionRefused
from gametable.rooms import RoomService
from room_support import throw
from scenarios import RACCOON_SETUP


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


def test_raccoon_through_the_online_door() -> None:
    svc = RoomService({"backgammon": RULES}, None, now=FakeNow())
    code, _, _, _ = svc.create("backgammon", {"length": 0, "cube": True, "beavers": True},
                               "none", name="Ann", side="white")
    svc.join(code, "Bob")
    room = svc.room(code)

    def act_as(side: str, kind: str) -> None:
        svc.handle(code, side, {"type": "action", "action": {"type": kind}})

    throw(svc, code, "white", (3, 1), opening=True)
    svc.handle(code, "white", {"type": "action", "action": {"type": "move", "play": "8/5 6/5"}})
    act_as("black", "double")  # Bob, on roll, doubles; Ann beavers
    act_as("white", "beaver")
    can = room.view("black")["state"]["can"]
    assert (can["raccoon"], can["take"]) == (True, True)
    assert room.view("white")["state"]["can"]["raccoon"] is False
    with pytest.raises(ActionRefused) as refused:
        act_as("white", "raccoon")  # only the original doubler raccoons
    assert refused.value.code == "not_your_turn"
    act_as("black", "raccoon")
    view = room.view("white")
    assert (view["state"]["phase"], view["to_act"]) == ("cube", ["white"])
    assert view["state"]["cube"] == {"enabled": True, "value": 4, "owner": "white",
                                     "offered_by": "black"}
    assert view["state"]["can"]["take"] is True and view["state"]["can"]["raccoon"] is False
    with pytest.raises(ActionRefused) as again:
        act_as("black", "raccoon")  # one raccoon at most
    assert again.value.code == "not_your_turn"
    act_as("white", "take")
    state = room.view("black")["state"]
    assert (state["cube"]["value"], state["cube"]["owner"]) == (8, "white")
    assert [h["text"] for h in state["history"]][-3:] == [
        "Ann beavers to 4", "Bob raccoons to 8", "Ann takes"]
