"""The words of a game against the computer ("You" and "Computer", never "White" / "Black"
where a person is meant), and the previous turn's dice in the state (kept on the page's board
until the next roll, with "cannot move" and its reason for a roll that could not be played)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from api_support import Clients, act, new_game

#: Both sides on the bar against a closed board: no roll can ever be played.
BLOCKED = {
    "board": {"points": [-1, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -2,
                         -2, -2, -2, -2, -2, -2, 1],
              "off": {"white": 0, "black": 0}},
    "turn": "white", "dice": None, "cube": {"value": 1, "owner": None},
    "match_length": 0, "score": {"white": 0, "black": 0},
}


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Clients]:
    with Clients(tmp_path / "games.sqlite3") as opened:
        yield opened


def test_the_computer_wins_the_opening_in_the_words_of_the_page(clients: Clients) -> None:
    client = clients.new(rolls=[(1, 3), (6, 4)])  # White 1, Black 3: the computer starts
    game_id = new_game(client, mode="computer", side="white", cube=False)["id"]
    state = act(client, game_id, "roll")
    assert state["opening"] == {"white": 1, "black": 3}
    assert state["message"] == "Opening roll: You 1, Computer 3. The computer plays 3-1."
    answer = act(client, game_id, "computer")
    state = answer["state"]
    line = state["history"][-1]["text"]
    assert line.startswith("Computer 3-1: ") and "Black" not in line
    assert state["last_turn"]["color"] == "black"
    assert state["last_turn"]["dice"] == [3, 1]
    assert state["last_turn"]["cannot_move"] is False
    assert state["dice"] is None and state["phase"] == "roll"
    state = act(client, game_id, "resign", {"level": "single"})
    assert state["history"][-1]["text"] == "You resign a single game"
    state = act(client, game_id, "computer")["state"]
    assert state["history"][-1]["text"] == "Computer wins 1 point"


def test_a_resignation_after_rolling_keeps_the_roll_in_the_move_list_and_on_the_board(
    clients: Clients,
) -> None:
    client = clients.new(rolls=[(1, 3), (6, 4)])
    game_id = new_game(client, mode="computer", side="white", cube=False)["id"]
    act(client, game_id, "roll")
    act(client, game_id, "computer")  # the computer plays its opening 3-1
    state = act(client, game_id, "roll")
    assert state["dice"] == [6, 4]
    state = act(client, game_id, "resign", {"level": "gammon"})
    assert state["history"][-1]["text"] == "You 6-4: resign a gammon"
    state = act(client, game_id, "computer")["state"]
    assert [e["text"] for e in state["history"][-3:]] == [
        "You 6-4: resign a gammon", "Computer accepts", "Computer wins 2 points"]
    # the board keeps the resigner's roll, not the computer's last play
    assert state["last_turn"] == {"color": "white", "moves": [], "dice": [6, 4],
                                  "cannot_move": False, "reason": None}


def test_a_roll_that_cannot_be_played_is_in_the_state_with_its_reason(
    clients: Clients,
) -> None:
    client = clients.new(rolls=[(6, 5), (4, 2)])
    response = client.post("/api/games", json={"mode": "computer", "side": "white",
                                               "setup": BLOCKED})
    assert response.status_code == 201, response.text
    game_id = response.json()["id"]
    state = act(client, game_id, "roll")
    assert state["computer_to_act"] is True
    assert state["last_turn"]["color"] == "white"
    assert state["last_turn"]["dice"] == [6, 5]
    assert state["last_turn"]["cannot_move"] is True
    assert state["last_turn"]["moves"] == []
    assert state["last_turn"]["reason"]
    assert state["history"][-1]["text"] == "You 6-5: cannot move"
    answer = act(client, game_id, "computer")
    assert [s["kind"] for s in answer["steps"]] == ["pass"]
    state = answer["state"]
    assert state["last_turn"]["color"] == "black" and state["last_turn"]["dice"] == [4, 2]
    assert state["last_turn"]["cannot_move"] is True
    assert state["history"][-1]["text"] == "Computer 4-2: cannot move"


def test_pass_and_play_keeps_white_and_black(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    game_id = new_game(client, cube=False)["id"]
    state = act(client, game_id, "roll")
    assert state["message"].startswith("Opening roll: White 3, Black 1. ")
    act(client, game_id, "move", {"from": 8, "to": 5})
    act(client, game_id, "move", {"from": 6, "to": 5})
    state = act(client, game_id, "done")
    assert state["history"][-1]["text"] == "White 3-1: 8/5 6/5"


def test_why_a_roll_cannot_be_played_names_you_and_the_computer(clients: Clients) -> None:
    client = clients.new(rolls=[(6, 5), (4, 2), (3, 1)])
    game_id = client.post("/api/games", json={"mode": "computer", "side": "white",
                                              "setup": BLOCKED}).json()["id"]
    state = act(client, game_id, "roll")
    reason = state["last_turn"]["reason"]
    assert "held by the computer" in reason and "Black" not in reason
    assert "held by the computer" in state["message"]
    state = act(client, game_id, "computer")["state"]
    assert "held by you" in state["last_turn"]["reason"]
    # pass & play keeps the colours
    pp = client.post("/api/games", json={"mode": "pass_and_play", "setup": BLOCKED}).json()
    passed = act(client, pp["id"], "roll")
    assert "held by Black" in passed["last_turn"]["reason"]


def test_the_only_legal_play_is_in_the_state_at_the_start_of_the_turn(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    forced = {**BLOCKED, "dice": [6, 5],
              "board": {"points": [0, 3] + [0] * 17 + [-15] + [0] * 6,
                        "off": {"white": 12, "black": 0}}}
    state = client.post("/api/games", json={"mode": "pass_and_play", "setup": forced}).json()
    assert [(m["from"], m["to"], m["text"]) for m in state["forced_play"]] == [
        (1, "off", "1/off"), (1, "off", "1/off")]
    state = act(client, state["id"], "move", {"from": 1, "to": "off"})
    assert state["forced_play"] is None  # a move made: the person goes on as they like
    # the opening 3-1 has several plays
    opening = new_game(client, cube=False)
    assert act(client, opening["id"], "roll")["forced_play"] is None
