"""The JSON API of local games: create, act, refuse with 4xx and change nothing, reload.

Dice are injected (``FixedDice``) wherever a test depends on them; an opening roll reads as
(White's die, Black's die).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from api_support import Clients, act, app_of, destinations, new_game
from fastapi.testclient import TestClient

from backgammon.core.types import START_POINTS
from backgammon.server.middleware import PAGE_CSP
from scenarios import BEAVER_SETUP


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Clients]:
    with Clients(tmp_path / "games.sqlite3") as opened:
        yield opened


def state_of(client: TestClient, game_id: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def without_version(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k != "version"}


# --------------------------------------------------------------------------------------------
# Creating and reading


def test_new_game_starts_at_the_opening(clients: Clients) -> None:
    client = clients.new()
    state = new_game(client, mode="computer", level="easy", side="black")
    assert state["phase"] == "opening"
    assert state["board"] == {"points": list(START_POINTS), "off": {"white": 0, "black": 0}}
    assert state["pips"] == {"white": 167, "black": 167}
    assert state["viewer"] == "black"
    assert state["players"]["black"] == {"name": "You", "computer": False, "level": None}
    assert state["players"]["white"] == {"name": "Computer (Easy)", "computer": True,
                                         "level": "easy"}
    assert state["can"]["roll"] is True
    assert state["can"]["double"] is False
    assert state["computer_to_act"] is False
    assert state["dice"] is None
    assert state["legal"] == []
    assert state["cube"] == {"enabled": True, "value": 1, "owner": None, "offered_by": None}
    assert state["score"]["description"] == "Single game"
    assert state["settings"] == {"mode": "computer", "level": "easy", "human": "black",
                                 "cube": True, "gammons": True, "kind": "single", "length": 0,
                                 "time_control": "none", "jacoby": False, "beavers": False}
    assert state["clock"] is None
    assert state["version"] == 1
    assert state_of(client, state["id"]) == state


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "expert", "master"])
def test_every_level_the_page_offers_is_accepted(clients: Clients, level: str) -> None:
    client = clients.new()
    state = new_game(client, mode="computer", level=level, side="black")
    assert state["settings"]["level"] == level
    assert state["players"]["white"]["level"] == level
    assert state["players"]["white"]["name"] == f"Computer ({level.capitalize()})"


def test_random_side_is_drawn_and_stored(clients: Clients) -> None:
    client = clients.new(seed=3)
    sides = {new_game(client, mode="computer", side="random")["settings"]["human"]
             for _ in range(12)}
    assert sides == {"white", "black"}


def test_bad_settings_are_refused_with_the_field_named(clients: Clients) -> None:
    client = clients.new()
    response = client.post("/api/games", json={"mode": "online"})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert error["message"].startswith("invalid request: mode: Input should be 'computer' or")
    response = client.post("/api/games", json={"kind": "match", "length": 40})
    assert response.status_code == 422
    assert "length: Input should be less than or equal to 25" in response.json()["error"][
        "message"]


def test_unknown_game_is_404(clients: Clients) -> None:
    response = clients.new().get("/api/games/nosuchgame")
    assert response.status_code == 404
    assert response.json() == {"error": {"code": "not_found",
                                          "message": "no saved game has the id 'nosuchgame'"}}


# --------------------------------------------------------------------------------------------
# Playing a turn


def test_opening_roll_and_a_turn_checker_by_checker(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    game_id = new_game(client)["id"]
    state = act(client, game_id, "roll")
    assert state["phase"] == "move"
    assert state["turn"] == "white"
    assert state["dice"] == [3, 1]
    assert state["dice_left"] == [3, 1]
    assert state["opening"] == {"white": 3, "black": 1}
    legal = destinations(state)
    assert legal[8] == {7: ["8/7"], 5: ["8/5"], 4: ["8/7", "7/4"]}
    assert legal[6] == {5: ["6/5"], 3: ["6/3"], 2: ["6/5", "5/2"]}
    assert sorted(legal) == [6, 8, 13, 24]

    state = act(client, game_id, "move", {"from": 8, "to": 5})
    assert [m["text"] for m in state["played"]] == ["8/5"]
    assert state["dice_left"] == [1]
    assert state["can"]["done"] is False
    assert state["can"]["undo"] is True
    state = act(client, game_id, "move", {"from": 6, "to": 5})
    assert state["legal"] == []
    assert state["can"]["done"] is True
    assert state["board"]["points"][5] == 2
    assert state["pips"]["white"] == 163

    state = act(client, game_id, "done")
    assert state["phase"] == "roll"
    assert state["turn"] == "black"
    assert state["history"][-1] == {"game": 1, "kind": "play", "color": "white",
                                    "text": "White 3-1: 8/5 6/5"}
    assert state["last_turn"] == {
        "color": "white",
        "moves": [
            {"from": 8, "to": 5, "die": 3, "hit": False, "text": "8/5"},
            {"from": 6, "to": 5, "die": 1, "hit": False, "text": "6/5"},
        ],
        "dice": [3, 1],
        "cannot_move": False,
        "reason": None,
    }


def test_a_destination_two_dice_away_moves_through_the_open_point(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    game_id = new_game(client)["id"]
    act(client, game_id, "roll")
    state = act(client, game_id, "move", {"from": 8, "to": 4})
    assert [m["text"] for m in state["played"]] == ["8/7", "7/4"]
    assert state["can"]["done"] is True


def test_black_moves_are_named_in_whites_numbering_and_written_in_blacks(
    clients: Clients,
) -> None:
    client = clients.new(rolls=[(1, 3)])
    game_id = new_game(client)["id"]
    state = act(client, game_id, "roll")
    assert state["turn"] == "black"
    # Black's 8-point is White's 17, Black's 5-point White's 20.
    assert destinations(state)[17][20] == ["8/5"]
    state = act(client, game_id, "move", {"from": 17, "to": 20})
    state = act(client, game_id, "move", {"from": 19, "to": 20})
    assert state["board"]["points"][20] == -2
    state = act(client, game_id, "done")
    assert state["history"][-1]["text"] == "Black 3-1: 8/5 6/5"
    assert state["last_turn"]["moves"][0]["from"] == 17


def test_undo_takes_back_the_last_move_and_keeps_the_dice(clients: Clients) -> None:
    client = clients.new(rolls=[(5, 2)])
    game_id = new_game(client)["id"]
    rolled = act(client, game_id, "roll")
    act(client, game_id, "move", {"from": 13, "to": 8})
    state = act(client, game_id, "undo")
    assert state["played"] == []
    assert state["dice"] == [5, 2]
    assert state["board"] == rolled["board"]
    assert state["legal"] == rolled["legal"]


# --------------------------------------------------------------------------------------------
# Refusals: 4xx with a readable message, the game unchanged


def test_illegal_move_is_422_with_the_rule_and_changes_nothing(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    game_id = new_game(client)["id"]
    before = act(client, game_id, "roll")
    error = act(client, game_id, "move", {"from": 24, "to": 18}, status=422)["error"]
    assert error == {"code": "illegal_move",
                     "message": "24/18 is not a legal move: no die shows 6: the dice left "
                                "are 3 and 1"}
    error = act(client, game_id, "move", {"from": 30, "to": 18}, status=422)["error"]
    assert error["message"] == "there is no point 30 to move from (expected 1..24 or 'bar')"
    error = act(client, game_id, "move", {"from": 10, "to": 7}, status=422)["error"]
    assert error["message"] == "10/7 is not a legal move: you have no checker on the 10-point"
    assert state_of(client, game_id) == before


def test_blocked_point_is_explained(clients: Clients) -> None:
    client = clients.new(rolls=[(5, 1)])
    game_id = new_game(client)["id"]
    before = act(client, game_id, "roll")
    error = act(client, game_id, "move", {"from": 24, "to": 19}, status=422)["error"]
    assert error["message"] == "24/19 is not a legal move: the 19-point is held by Black"
    assert state_of(client, game_id) == before


def test_action_out_of_turn_is_409_and_changes_nothing(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    game_id = new_game(client)["id"]
    error = act(client, game_id, "done", status=409)["error"]
    assert error["code"] == "not_allowed"
    before = act(client, game_id, "roll")
    error = act(client, game_id, "roll", status=409)["error"]
    assert error == {"code": "not_allowed",
                     "message": "cannot roll now: the dice are rolled and the roll is to be played"}
    error = act(client, game_id, "done", status=422)["error"]  # a rule of the play
    assert error["code"] == "illegal_move"
    assert error["message"].startswith("the play is not complete: more dice can be played")
    error = act(client, game_id, "take", status=409)["error"]
    assert error["message"] == "cannot take: no double has been offered"
    error = act(client, game_id, "computer", status=409)["error"]
    assert error["message"] == ("this game has no computer player: two people play it at "
                                "one screen")
    assert state_of(client, game_id) == before


def test_malformed_bodies_are_refused(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    game_id = new_game(client)["id"]
    before = act(client, game_id, "roll")
    error = act(client, game_id, "move", {"from": "eight", "to": 5}, status=422)["error"]
    assert error["code"] == "invalid_request"
    assert error["message"].startswith("invalid request: from")
    # a number in a string is not a point, here as at /actions
    error = act(client, game_id, "move", {"from": "8", "to": 5}, status=422)["error"]
    assert error["code"] == "invalid_request"
    response = client.post(f"/api/games/{game_id}/move", content=b"{not json",
                           headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"
    assert state_of(client, game_id) == before


def test_the_actions_route_refuses_what_is_not_an_action_and_changes_nothing(
        clients: Clients) -> None:
    """POST /api/games/{id}/actions takes the table's action JSON; every malformed one is a
    422 that says what is wrong, and the game stays as it was."""
    client = clients.new(rolls=[(3, 1)])
    game_id = new_game(client, mode="pass_and_play")["id"]
    before = act(client, game_id, "roll")
    path = f"/api/games/{game_id}/actions"
    cases: list[tuple[Any, str]] = [
        (None, "the body is the action's JSON object, e.g. {\"type\": \"roll\"}: none was sent"),
        ({"type": "move", "play": "hello"},
         "'hello' in 'hello' is not a move like 13/7, bar/22, 6/off"),
        ({"type": "move", "play": "13/8 " * 60},
         "a move's play is at most 200 characters of notation, got 300"),
        ({"type": "move_checker", "from": "13", "to": 8},
         "there is no point '13' to move from (expected 1..24 or 'bar')"),
        ({"type": "undo", "x": 1}, "unexpected field(s) for undo: x"),
        ({"type": "dance"}, "action type 'dance' is not one of roll, move, move_checker, undo, "
                            "end_turn, double, take, drop, beaver, raccoon, resign, "
                            "accept_resignation, decline_resignation, next_game"),
    ]
    for body, message in cases:
        response = client.post(path, json=body) if body is not None else client.post(path)
        assert response.status_code == 422, (body, response.text)
        assert response.json()["error"] == {"code": "invalid_action", "message": message}
    assert state_of(client, game_id) == before
    # the computer's route in a game without one
    error = act(client, game_id, "computer", status=409)["error"]
    assert error == {"code": "not_allowed", "message": "this game has no computer player: two "
                     "people play it at one screen"}
    assert state_of(client, game_id) == before


def test_an_empty_body_starts_a_default_game(clients: Clients) -> None:
    client = clients.new()
    response = client.post("/api/games")
    assert response.status_code == 201, response.text
    state = response.json()
    assert state["settings"]["mode"] == "computer" and state["settings"]["kind"] == "single"
    assert state["settings"]["human"] == "white" and state["clock"] is None


def test_bodies_over_the_limit_are_413(clients: Clients) -> None:
    client = clients.new(max_body_bytes=1000)
    response = client.post("/api/games", content=b"{" + b" " * 5000 + b"}",
                           headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json() == {"error": {
        "code": "body_too_large",
        "message": "the request body is larger than the 1000 bytes this server accepts"}}

    def chunks() -> Iterator[bytes]:
        yield b"{"
        for _ in range(10):
            yield b" " * 200
        yield b"}"

    response = client.post("/api/games", content=chunks(),
                           headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.headers["content-security-policy"] == PAGE_CSP


# --------------------------------------------------------------------------------------------
# Saved games


def test_reload_and_restart_bring_back_the_same_dice_and_moves(clients: Clients) -> None:
    first = clients.new(rolls=[(6, 4)])
    game_id = new_game(first)["id"]
    act(first, game_id, "roll")
    during = act(first, game_id, "move", {"from": 24, "to": 18})
    assert state_of(first, game_id) == during
    # A new app on the same database: as after a server restart. Its dice are different.
    second = clients.new(rolls=[(1, 2)])
    after = state_of(second, game_id)
    assert after == during
    assert after["dice"] == [6, 4]
    assert [m["text"] for m in after["played"]] == ["24/18"]
    state = act(second, game_id, "move", {"from": 18, "to": 14})
    assert [m["text"] for m in state["played"]] == ["24/18", "18/14"]


def test_every_action_is_saved(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    game_id = new_game(client)["id"]
    store = app_of(client).state.store
    act(client, game_id, "roll")
    act(client, game_id, "move", {"from": 8, "to": 5})
    record = json.loads(store.read_raw(game_id))
    assert record["version"] == 3
    game_log = record["log"]["games"][0]
    assert game_log["events"] == [{"type": "opening_roll", "white": 3, "black": 1}]
    assert game_log["moves"] == [[8, 5, 3]]
    assert record["settings"]["mode"] == "pass_and_play"


def test_damaged_saved_game_is_refused_with_its_message(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    game_id = new_game(client)["id"]
    act(client, game_id, "roll")
    act(client, game_id, "move", {"from": 8, "to": 5})
    act(client, game_id, "move", {"from": 6, "to": 5})
    act(client, game_id, "done")
    store = app_of(client).state.store
    record = json.loads(store.read_raw(game_id))

    # An illegal play written into the log: refused, naming the event.
    record["log"]["games"][0]["events"][1]["moves"] = [[8, 2, 3], [6, 5, 1]]
    store.write_raw(game_id, json.dumps(record))
    fresh = clients.new()
    response = fresh.get(f"/api/games/{game_id}")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "stored_game_invalid"
    assert error["message"] == (
        f"saved game {game_id!r} cannot be loaded: game 1: event 1: "
        "8/2 is not a legal move with 31"
    )
    assert act(fresh, game_id, "roll", status=409)["error"]["code"] == "stored_game_invalid"
    # Nothing was "fixed": the row is as it was written.
    assert json.loads(store.read_raw(game_id)) == record

    store.write_raw(game_id, "{not json")
    response = clients.new().get(f"/api/games/{game_id}")
    assert response.status_code == 409
    assert response.json()["error"]["message"].startswith(
        f"saved game {game_id!r} is damaged: its record is not valid JSON"
    )


# --------------------------------------------------------------------------------------------
# Against the computer


def test_computer_plays_its_turn_step_by_step(clients: Clients) -> None:
    client = clients.new(rolls=[(1, 3), (6, 5), (4, 2)])
    game_id = new_game(client, mode="computer", side="white")["id"]
    state = act(client, game_id, "roll")
    assert state["turn"] == "black"
    assert state["computer_to_act"] is True
    assert state["can"]["roll"] is False
    error = act(client, game_id, "move", {"from": 8, "to": 5}, status=409)["error"]
    assert error["message"] == "you cannot move now: it is the computer's turn"

    answer = act(client, game_id, "computer")
    steps = answer["steps"]
    assert [step["kind"] for step in steps] == ["move", "move"]
    assert all(step["text"].startswith("The computer plays ") for step in steps)
    assert steps[0]["dice"] == [3, 1]
    assert len(steps[0]["dice_left"]) == 1 and steps[1]["dice_left"] == []
    state = answer["state"]
    assert state["board"] == steps[-1]["board"]
    assert state["turn"] == "white"
    assert state["phase"] == "roll"
    assert state["computer_to_act"] is False
    assert state["pips"]["black"] == 163
    assert state["can"]["roll"] is True

    # The person plays 6-5 24/13; then the computer rolls its 4-2 and plays it.
    act(client, game_id, "roll")
    act(client, game_id, "move", {"from": 24, "to": 13})
    state = act(client, game_id, "done")
    assert state["computer_to_act"] is True
    answer = act(client, game_id, "computer")
    kinds = [step["kind"] for step in answer["steps"]]
    assert kinds == ["roll", "move", "move"]
    assert answer["steps"][0]["text"] == "The computer rolls 4-2"
    assert answer["steps"][0]["dice"] == [4, 2]
    assert answer["state"]["history"][-1]["text"].startswith("Computer 4-2: ")


def test_double_take_and_the_cube_changes_hands(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1), (5, 2)])
    game_id = new_game(client, mode="computer", side="white", cube=True)["id"]
    act(client, game_id, "roll")
    act(client, game_id, "move", {"from": 8, "to": 5})
    act(client, game_id, "move", {"from": 6, "to": 5})
    act(client, game_id, "done")
    state = act(client, game_id, "computer")["state"]
    assert state["can"]["double"] is True
    state = act(client, game_id, "double")
    assert state["phase"] == "cube"
    assert state["cube"] == {"enabled": True, "value": 1, "owner": None, "offered_by": "white"}
    assert state["computer_to_act"] is True
    assert state["message"] == "You double to 2: the computer is thinking."
    answer = act(client, game_id, "computer")
    assert [(s["kind"], s["text"]) for s in answer["steps"]] == [
        ("take", "The computer takes: the cube is at 2, the computer owns it")]
    state = answer["state"]
    assert state["cube"] == {"enabled": True, "value": 2, "owner": "black", "offered_by": None}
    assert state["phase"] == "roll"
    assert state["turn"] == "white"
    assert state["can"]["double"] is False
    assert [h["text"] for h in state["history"][-2:]] == ["You double to 2", "Computer takes"]


def test_the_computer_beavers_a_double_its_hint_says_to_beaver(clients: Clients) -> None:
    """White doubles at 36% with beavers on (scenarios.BEAVER_SETUP): the computer beavers,
    as the hint says (it took); the cube is then at 2, Black's, and White takes or drops 4."""
    client = clients.new()
    game_id = new_game(client, mode="computer", side="white", setup=BEAVER_SETUP)["id"]
    act(client, game_id, "double")
    hint = client.get(f"/api/games/{game_id}/evaluation")
    assert hint.status_code == 403  # (the computer is to act: its answer is the hint's)
    answer = act(client, game_id, "computer")
    assert [(s["kind"], s["text"]) for s in answer["steps"]] == [
        ("beaver", "The computer beavers: it takes and redoubles to 4, keeping the cube: "
                   "take or drop?")]
    state = answer["state"]
    assert state["phase"] == "cube" and state["to_act"] == "white"
    assert state["cube"] == {"enabled": True, "value": 2, "owner": "black",
                             "offered_by": "black"}
    assert [h["text"] for h in state["history"][-2:]] == ["You double to 2",
                                                          "Computer beavers to 4"]
    state = act(client, game_id, "take")
    assert state["cube"]["value"] == 4 and state["cube"]["owner"] == "black"


def test_computer_that_drops_loses_the_game(clients: Clients) -> None:
    from backgammon.services.computer import RandomPlayer

    class Dropper(RandomPlayer):
        def answer_double(self, game: Any) -> Literal["take", "drop", "beaver"]:
            return "drop"

    client = clients.new(rolls=[(3, 1), (5, 2)])
    service = app_of(client).state.games
    service._players = lambda level, rng: Dropper(rng)
    game_id = new_game(client, mode="computer", side="white")["id"]
    act(client, game_id, "roll")
    act(client, game_id, "move", {"from": 8, "to": 5})
    act(client, game_id, "move", {"from": 6, "to": 5})
    act(client, game_id, "done")
    act(client, game_id, "computer")
    act(client, game_id, "double")
    answer = act(client, game_id, "computer")
    assert answer["steps"][0]["text"] == "The computer drops: you win the game"
    state = answer["state"]
    assert state["phase"] == "match_over"
    assert state["result"] == {
        "winner": "white", "kind": "single", "points": 1, "reason": "drop", "match_over": True,
        "title": "You win", "text": "You win: the double was dropped (1 point).",
    }
    assert state["score"]["white"] == 1
    assert state["can"]["rematch"] is True
    assert state["can"]["next_game"] is False


# --------------------------------------------------------------------------------------------
# Whole games, matches and rematches


def play_out(client: TestClient, game_id: str, state: dict[str, Any]) -> dict[str, Any]:
    """Play a pass & play game to its end through the API: each turn the first listed move
    until the play is complete."""
    for _ in range(2000):
        if state["result"] is not None:
            return state
        if state["can"]["roll"]:
            state = act(client, game_id, "roll")
        elif state["legal"]:
            entry = state["legal"][0]
            state = act(client, game_id, "move",
                        {"from": entry["from"], "to": entry["destinations"][-1]["to"]})
        else:
            assert state["can"]["done"], state["message"]
            state = act(client, game_id, "done")
    raise AssertionError("the game did not end")


def test_a_whole_pass_and_play_game_then_a_rematch(clients: Clients) -> None:
    client = clients.new(seed=11)
    state = new_game(client, cube=False)
    game_id = state["id"]
    assert state["cube"]["enabled"] is False
    state = play_out(client, game_id, state)
    result = state["result"]
    winner = result["winner"]
    assert state["board"]["off"][winner] == 15
    assert state["score"][winner] == result["points"] >= 1
    assert state["phase"] == "match_over"
    assert result["title"] == f"{winner.capitalize()} wins"
    assert state["history"][-1]["kind"] == "result"
    assert state_of(clients.new(), game_id) == state  # saved to the end

    rematch = act(client, game_id, "rematch", status=201)
    assert rematch["id"] != game_id
    assert rematch["phase"] == "opening"
    assert rematch["settings"] == state["settings"]
    assert act(client, game_id, "next", status=409)["error"]["message"] == (
        "this was a single game: start a new game or ask for a rematch")


def test_match_resignations_scores_and_the_crawford_game(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1), (2, 5), (4, 6)])
    state = new_game(client, kind="match", length=3)
    game_id = state["id"]
    assert state["score"]["description"] == "Match to 3 points · game 1"
    act(client, game_id, "roll")
    error = act(client, game_id, "rematch", status=409)["error"]
    assert error["message"] == "a rematch is offered once this one is over"
    state = act(client, game_id, "resign", {"level": "gammon"})
    assert state["result"]["winner"] == "black"
    assert state["result"]["reason"] == "resign"
    assert state["result"]["points"] == 2
    assert state["result"]["text"] == (
        "Black wins a gammon by resignation (2 points). Score in a match to 3: White 0, "
        "Black 2.")
    assert state["phase"] == "game_over"
    assert state["can"]["next_game"] is True

    state = act(client, game_id, "next")
    assert state["phase"] == "opening"
    assert state["score"]["white"] == 0 and state["score"]["black"] == 2
    assert state["score"]["crawford"] is True
    assert state["score"]["description"] == "Match to 3 points · game 2 · Crawford game"
    assert state["history"][0]["text"] == "Game 1 (score 0-0)"
    # Black opens 5-2; after the play White is on roll in the Crawford game: no double.
    state = act(client, game_id, "roll")
    assert state["turn"] == "black"
    act(client, game_id, "move", {"from": 12, "to": 17})
    act(client, game_id, "move", {"from": 12, "to": 14})
    state = act(client, game_id, "done")
    assert state["can"]["double"] is False
    assert act(client, game_id, "double", status=409)["error"]["message"] == (
        "White cannot double: this is the Crawford game (no doubling)")
    state = act(client, game_id, "resign", {"level": "single"})
    assert state["phase"] == "match_over"
    assert state["result"]["title"] == "Black wins the match"
    assert state["can"]["rematch"] is True


# --------------------------------------------------------------------------------------------
# The server around the API


def test_health_and_security_headers(clients: Clients) -> None:
    client = clients.new()
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "version": "0.1.0"}
    headers = response.headers
    assert headers["content-security-policy"] == PAGE_CSP
    assert "default-src 'self'" in PAGE_CSP and "http" not in PAGE_CSP
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"
    assert headers["referrer-policy"] == "no-referrer"
    response = client.get("/api/games/nosuchgame")
    assert response.headers["content-security-policy"] == PAGE_CSP


def test_page_and_its_modules_are_served(clients: Clients) -> None:
    client = clients.new()
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["content-security-policy"] == PAGE_CSP
    assert '<script type="module" src="/static/js/main.js"></script>' in page.text
    assert "style=" not in page.text  # the CSP forbids inline styles
    for path in ("/static/js/main.js", "/static/js/board.js", "/static/js/api.js",
                 "/static/js/settings.js"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("text/javascript")
    assert client.get("/static/style.css").headers["content-type"].startswith("text/css")
    assert client.get("/static/nothing.js").status_code == 404


def test_openapi_docs_list_the_actions(clients: Clients) -> None:
    client = clients.new()
    docs = client.get("/docs")
    assert docs.status_code == 200
    assert "swagger-ui" in docs.text
    # Swagger UI comes from this server (fastapi-offline), never a CDN
    assert "cdn.jsdelivr.net" not in docs.text and "/static-docs/swagger-ui-bundle.js" in docs.text
    assert client.get("/static-docs/swagger-ui-bundle.js").status_code == 200
    assert "http" not in docs.headers["content-security-policy"]
    redoc = client.get("/redoc")
    assert "/static-docs/redoc.standalone.js" in redoc.text and "googleapis" not in redoc.text
    schema = client.get("/openapi.json").json()
    paths = set(schema["paths"])
    actions = {"roll", "move", "undo", "done", "double", "take", "drop", "resign", "next",
               "rematch", "computer"}
    assert paths >= {"/health", "/api/games", "/api/games/{game_id}"} | {
        f"/api/games/{{game_id}}/{action}" for action in actions}
    assert "GameState" in schema["components"]["schemas"]


def test_resigning_to_the_computer_waits_for_its_answer(clients: Clients) -> None:
    from backgammon.services.computer import RandomPlayer

    class Decliner(RandomPlayer):
        def accept_resign(self, game: Any) -> bool:
            return False

    client = clients.new(rolls=[(3, 1), (2, 1), (4, 2)])
    service = app_of(client).state.games
    service._players = lambda level, rng: Decliner(rng)
    game_id = new_game(client, mode="computer", side="white")["id"]
    act(client, game_id, "roll")
    act(client, game_id, "move", {"from": 8, "to": 5})
    state = act(client, game_id, "resign", {"level": "gammon"})
    assert state["phase"] == "resign"
    assert state["computer_to_act"] is True
    assert state["message"] == "You offer to resign a gammon: the computer is thinking."
    answer = act(client, game_id, "computer")
    assert answer["summary"] == (
        "The computer declines your resignation (a gammon): play on.")
    state = answer["state"]
    assert state["phase"] == "move"
    assert [m["text"] for m in state["played"]] == ["8/5"]  # the turn goes on where it was
    # One offer a turn (the table's policy, as online): a declined offer waits for the next.
    response = client.post(f"/api/games/{game_id}/resign", json={"level": "gammon"})
    assert response.status_code == 409
    assert response.json()["error"]["message"] == (
        "you cannot resign now: an offer to resign was made this turn already "
        "(one offer a turn)")
    act(client, game_id, "move", {"from": 6, "to": 5})
    act(client, game_id, "done")
    state = act(client, game_id, "computer")["state"]
    assert state["phase"] == "roll" and state["turn"] == "white"

    service._players = lambda level, rng: RandomPlayer(rng)
    act(client, game_id, "resign", {"level": "backgammon"})
    answer = act(client, game_id, "computer")
    assert answer["summary"] == (
        "The computer accepts your resignation: it wins a backgammon.")
    result = answer["state"]["result"]
    assert (result["winner"], result["kind"], result["points"]) == ("black", "backgammon", 3)
    assert result["text"] == "The computer wins a backgammon by resignation (3 points)."


def test_money_play_with_the_jacoby_rule_and_beavers(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1), (5, 2)])
    response = client.post("/api/games", json={"mode": "pass_and_play", "kind": "single",
                                               "jacoby": True})
    assert response.status_code == 422
    assert response.json()["error"] == {
        "code": "invalid", "message": "the Jacoby rule is for money play with the cube"}
    state = new_game(client, kind="money", cube=True, jacoby=True, beavers=True)
    game_id = state["id"]
    assert (state["settings"]["jacoby"], state["settings"]["beavers"]) == (True, True)
    act(client, game_id, "roll")  # White 3-1
    act(client, game_id, "move", {"from": 8, "to": 5})
    act(client, game_id, "move", {"from": 6, "to": 5})
    state = act(client, game_id, "done")
    assert state["can"]["double"] is True
    state = act(client, game_id, "double")  # Black doubles
    assert (state["phase"], state["can"]["take"], state["can"]["beaver"]) == ("cube", True, True)
    state = act(client, game_id, "beaver")  # White beavers: the cube offered at 4
    assert (state["phase"], state["to_act"], state["can"]["beaver"]) == ("cube", "black", False)
    assert state["history"][-1]["text"] == "White beavers to 4"
    state = act(client, game_id, "take")
    assert (state["cube"]["value"], state["cube"]["owner"]) == (4, "white")
    # The rules are in the saved record: a reload plays on with them.
    assert client.get(f"/api/games/{game_id}").json()["settings"]["beavers"] is True


def test_money_session_keeps_a_running_total(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1), (6, 2)])
    state = new_game(client, kind="money", cube=True)
    game_id = state["id"]
    assert state["score"]["description"] == "Money session · game 1"
    act(client, game_id, "roll")
    state = act(client, game_id, "resign", {"level": "single"})
    assert state["phase"] == "game_over"
    assert state["result"]["text"] == (
        "Black wins a single game by resignation (1 point). Running total: White 0, Black 1.")
    assert state["can"]["next_game"] is True and state["can"]["rematch"] is False
    state = act(client, game_id, "next")
    assert state["score"]["game_number"] == 2
    assert (state["score"]["white"], state["score"]["black"]) == (0, 1)
    state = act(client, game_id, "roll")
    assert state["opening"] == {"white": 6, "black": 2}


def test_one_address_cannot_fill_the_database_with_games(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1), (6, 4), (5, 2), (4, 1)])
    store = app_of(client).state.store
    first = new_game(client, browser="browser-aaaaaaaa")
    size = store.usage(owner="testclient")
    assert size > 0  # the games are counted for the address that started them
    store.max_owner_bytes = 3 * size + size // 2
    for n in range(2):
        new_game(client, browser=f"browser-{n:08d}")
    response = client.post("/api/games", json={"mode": "pass_and_play",
                                               "browser": "browser-bbbbbbbb"})
    assert response.status_code == 507
    assert response.json()["error"] == {
        "code": "storage_full",
        "message": f"the games started from your address hold {store.max_owner_bytes:,} "
                   "bytes, their most: start over (or finish a game) in place of starting "
                   "another"}
    # a game that grows past the bound is refused, and stays as it was last saved
    game_id = first["id"]
    act(client, game_id, "roll")
    before = state_of(client, game_id)
    store.max_owner_bytes = store.usage(owner="testclient")
    refused = client.post(f"/api/games/{game_id}/move", json={"from": 8, "to": 5})
    assert refused.status_code == 507 and refused.json()["error"]["code"] == "storage_full"
    assert state_of(client, game_id) == before
    # another address is not held up
    other = TestClient(app_of(client), client=("10.9.8.7", 4000))
    assert other.post("/api/games", json={"mode": "pass_and_play"}).status_code == 201


def test_the_computers_turns_take_the_evaluation_slots_of_their_address(
        clients: Clients) -> None:
    """A computer's turn is an evaluation like a hint: it waits for its address's slot (a
    game must go on), a crowd of them from one address is refused 503 busy, and another
    address's turn is not held up."""
    client = clients.new(rolls=[(3, 1)] * 4)  # the computer (White) wins the opening roll
    state = new_game(client, mode="computer", side="black", level="easy")
    state = act(client, state["id"], "roll")
    assert state["computer_to_act"]
    slots = app_of(client).state.evaluations
    slots.wait = 0.3
    held = slots.slot("testclient")  # the address's one slot, taken
    held.__enter__()
    try:
        refused = client.post(f"/api/games/{state['id']}/computer")
        assert refused.status_code == 503
        assert refused.json()["error"] == {
            "code": "busy", "message": "the computer waited 0.3 s for its turn to think and "
                                       "is still busy: try again in a moment"}
        other = TestClient(app_of(client), client=("10.7.7.7", 5000))
        game = other.post("/api/games", json={"mode": "computer", "side": "black",
                                              "level": "easy"}).json()
        act(other, game["id"], "roll")
        assert other.post(f"/api/games/{game['id']}/computer").status_code == 200
    finally:
        held.__exit__(None, None, None)
    assert client.post(f"/api/games/{state['id']}/computer").status_code == 200
