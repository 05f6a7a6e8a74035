"""Seeded games, a browser's record and "Start over" through the HTTP API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import Clients, act, new_game

from gnubg_support import final_score, needs_gnubg, run_gnubg

BROWSER = "0123456789abcdef01234567"
OTHER = "fedcba9876543210fedcba98"
SEED = 1234567890


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Clients]:
    with Clients(tmp_path / "games.sqlite3") as opened:
        yield opened


def rolls_of(state: dict[str, Any]) -> list[str]:
    """The move list's plays: ``"White 6-5: 24/18 18/13"``."""
    return [entry["text"] for entry in state["history"] if entry["kind"] == "play"]


def play_turns(client: Any, game_id: str, state: dict[str, Any], turns: int) -> dict[str, Any]:
    """Pass & play: roll and make the first listed move until the play is whole, ``turns``
    times."""
    done = 0
    while done < turns and state["result"] is None:
        if state["can"]["roll"]:
            state = act(client, game_id, "roll")
        elif state["legal"]:
            entry = state["legal"][0]
            state = act(client, game_id, "move",
                        {"from": entry["from"], "to": entry["destinations"][-1]["to"]})
        else:
            state = act(client, game_id, "done")
            done += 1
    return state


def stats_of(client: Any, browser: str = BROWSER) -> dict[str, Any]:
    response = client.get("/api/stats", params={"browser": browser})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def row(opponent: str | None, mode: str | None, **counts: int) -> dict[str, Any]:
    zero = {"games": 0, "won": 0, "lost": 0, "points_won": 0, "points_lost": 0,
            "gammons_won": 0, "gammons_lost": 0, "backgammons_won": 0, "backgammons_lost": 0,
            "matches_won": 0, "matches_lost": 0}
    return {"opponent": opponent, "mode": mode, **zero, **counts}


# --------------------------------------------------------------------------------------------
# Seeds


def test_a_seeded_game_throws_the_known_dice(clients: Clients) -> None:
    client = clients.new()
    state = new_game(client, seed=SEED)
    assert state["seed"] == SEED
    state = act(client, state["id"], "roll")
    assert state["opening"] == {"white": 5, "black": 6}  # Dice(random.Random(1234567890))
    state = play_turns(client, state["id"], state, 4)
    assert [text.split(":")[0] for text in rolls_of(state)] == [
        "Black 6-5", "White 4-2", "Black 5-2", "White 3-3"]


def test_two_games_from_one_seed_are_the_same_game(clients: Clients) -> None:
    client = clients.new()
    first = new_game(client, seed=str(SEED), cube=False)
    second = new_game(client, seed=f" {SEED} ", cube=False)
    assert first["id"] != second["id"]
    first = play_turns(client, first["id"], first, 12)
    second = play_turns(client, second["id"], second, 12)
    assert rolls_of(first) == rolls_of(second)
    assert len(rolls_of(first)) == 12
    assert first["board"] == second["board"]
    other = new_game(client, seed=SEED + 1, cube=False)
    assert other["seed"] == SEED + 1
    other = play_turns(client, other["id"], other, 12)
    assert rolls_of(other) != rolls_of(first)


def test_the_computer_plays_the_same_from_the_same_seed(clients: Clients) -> None:
    client = clients.new()
    games = []
    for _ in range(2):
        state = new_game(client, mode="computer", level="easy", side="random", seed=77)
        state = act(client, state["id"], "roll")
        for _ in range(3):
            if state["computer_to_act"]:
                state = act(client, state["id"], "computer")["state"]
            state = play_turns(client, state["id"], state, 1)
        if state["computer_to_act"]:
            state = act(client, state["id"], "computer")["state"]
        games.append(state)
    assert games[0]["settings"]["human"] == games[1]["settings"]["human"]
    assert games[0]["history"] == games[1]["history"]
    assert len(games[0]["history"]) >= 6


def test_a_seeded_game_read_back_goes_on_with_the_same_dice(clients: Clients) -> None:
    client = clients.new()
    whole = new_game(client, seed=SEED)
    whole = play_turns(client, whole["id"], whole, 10)
    broken = new_game(client, seed=SEED)
    broken = play_turns(client, broken["id"], broken, 5)
    restarted = clients.new(seed=99)  # a fresh server on the same database
    assert restarted.get(f"/api/games/{broken['id']}").json()["seed"] == SEED
    broken = play_turns(restarted, broken["id"], broken, 5)
    assert rolls_of(broken) == rolls_of(whole)


def test_an_old_save_without_a_seed_still_loads(clients: Clients) -> None:
    fixed = clients.new(rolls=[(3, 1)])
    state = new_game(fixed)
    assert state["seed"] is None
    state = act(fixed, state["id"], "roll")
    later = clients.new()  # seeded sessions now, the old one has none
    loaded = later.get(f"/api/games/{state['id']}").json()
    assert loaded["seed"] is None
    assert loaded["opening"] == {"white": 3, "black": 1}
    assert later.get(f"/api/games/{state['id']}/export.mat").status_code == 200


@pytest.mark.parametrize(("seed", "words"), [
    ("abc", "a seed is a whole number from 0 to 9007199254740991 (digits only): 'abc' is not one"),
    ("-5", "'-5' is not one"),
    (2**53, "9007199254740992 is out of range"),
    ("", "the seed is empty"),
])
def test_a_bad_seed_is_refused_and_no_game_is_made(clients: Clients, seed: object,
                                                   words: str) -> None:
    client = clients.new()
    before = client.app.state.store.list_ids(100)  # type: ignore[attr-defined]
    response = client.post("/api/games", json={"mode": "pass_and_play", "seed": seed})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid_seed"
    assert words in error["message"]
    assert client.app.state.store.list_ids(100) == before  # type: ignore[attr-defined]


def test_a_seed_of_another_type_is_refused(clients: Clients) -> None:
    response = clients.new().post("/api/games", json={"seed": True})
    assert response.status_code == 422
    assert response.json()["error"]["message"].startswith("invalid request: seed")


def _mat_of_a_seeded_game(client: Any) -> tuple[str, dict[str, Any]]:
    state = new_game(client, seed=SEED, kind="match", length=5, cube=False)
    state = play_turns(client, state["id"], state, 6)
    state = act(client, state["id"], "resign", {"level": "backgammon"})
    state = act(client, state["id"], "next")
    state = play_turns(client, state["id"], state, 3)
    state = act(client, state["id"], "roll")
    state = act(client, state["id"], "resign", {"level": "gammon"})
    response = client.get(f"/api/games/{state['id']}/export.mat")
    assert response.status_code == 200, response.text
    return response.text, state


def test_the_seed_is_a_header_comment_of_the_mat_export(clients: Clients) -> None:
    text, state = _mat_of_a_seeded_game(clients.new())
    assert state["phase"] == "match_over"
    # (the game was played without the cube: this project's tag says so, before the seed)
    assert text.startswith('; [Cube "Off"]\n; [Seed "1234567890"]\n\n 5 point match\n')


@needs_gnubg
def test_gnubg_imports_the_mat_of_a_seeded_game(clients: Clients, tmp_path: Path) -> None:
    text, state = _mat_of_a_seeded_game(clients.new())
    path = tmp_path / "seeded.mat"
    path.write_text(text, encoding="utf-8")
    output = run_gnubg([f"import mat {path}", "show score"], tmp_path)
    assert final_score(output) == (state["score"]["white"], state["score"]["black"])


# --------------------------------------------------------------------------------------------
# The record


def test_the_record_after_known_games(clients: Clients) -> None:
    client = clients.new()
    assert stats_of(client) == {"rows": [], "by_opponent": [], "by_mode": [],
                                "total": row(None, None)}
    # Pass & play (the browser's player is White): Black resigns a gammon: White wins 2.
    state = new_game(client, browser=BROWSER, cube=False)
    state = play_turns(client, state["id"], state, 1)
    assert state["turn"] == "black"
    state = act(client, state["id"], "roll")
    state = act(client, state["id"], "resign", {"level": "gammon"})
    assert (state["result"]["winner"], state["result"]["points"]) == ("white", 2)
    # Reading it again, or from a new server, counts nothing more.
    client.get(f"/api/games/{state['id']}")
    clients.new().get(f"/api/games/{state['id']}")
    # Money: White doubles, Black takes, White resigns a backgammon: Black wins 6.
    money = new_game(client, browser=BROWSER, kind="money")
    money = act(client, money["id"], "roll")
    money = play_turns(client, money["id"], money, 2 if money["turn"] == "white" else 1)
    assert money["turn"] == "white"
    money = act(client, money["id"], "double")
    money = act(client, money["id"], "take")
    money = act(client, money["id"], "roll")
    money = act(client, money["id"], "resign", {"level": "backgammon"})
    assert (money["result"]["winner"], money["result"]["points"]) == ("black", 6)
    # A 3-point match: Black resigns a gammon twice: White wins 2 + 2 and the match.
    match = new_game(client, browser=BROWSER, kind="match", length=3, cube=False)
    for _ in range(2):
        match = act(client, match["id"], "roll")
        if match["turn"] == "white":
            match = play_turns(client, match["id"], match, 1)
            match = act(client, match["id"], "roll")
        match = act(client, match["id"], "resign", {"level": "gammon"})
        if match["can"]["next_game"]:
            match = act(client, match["id"], "next")
    assert match["phase"] == "match_over" and match["score"]["white"] == 4
    stats = stats_of(client)
    assert stats["rows"] == [
        row("pass_and_play", "single", games=1, won=1, points_won=2, gammons_won=1),
        row("pass_and_play", "match", games=2, won=2, points_won=4, gammons_won=2,
            matches_won=1),
        row("pass_and_play", "money", games=1, lost=1, points_lost=6, backgammons_lost=1),
    ]
    assert stats["by_opponent"] == [
        row("pass_and_play", None, games=4, won=3, lost=1, points_won=6, points_lost=6,
            gammons_won=3, backgammons_lost=1, matches_won=1)]
    assert [r["mode"] for r in stats["by_mode"]] == ["single", "match", "money"]
    assert stats["total"] == row(None, None, games=4, won=3, lost=1, points_won=6,
                                 points_lost=6, gammons_won=3, backgammons_lost=1,
                                 matches_won=1)
    assert stats_of(client, OTHER)["total"]["games"] == 0


def test_against_the_computer_and_a_rematch_count_for_the_browser(clients: Clients) -> None:
    client = clients.new()
    state = new_game(client, mode="computer", level="medium", side="white", browser=BROWSER)
    for _ in range(2):
        state = act(client, state["id"], "roll")
        while state["computer_to_act"]:
            state = act(client, state["id"], "computer")["state"]
        if state["phase"] == "move":
            state = play_turns(client, state["id"], state, 1)
            while state["computer_to_act"]:
                state = act(client, state["id"], "computer")["state"]
        if state["can"]["roll"] and state["turn"] == "white":
            state = act(client, state["id"], "resign", {"level": "single"})
            while state["computer_to_act"]:
                state = act(client, state["id"], "computer")["state"]
        assert state["result"] is not None, state["message"]
        assert state["result"]["winner"] == "black"
        state = act(client, state["id"], "rematch", status=201)
    assert stats_of(client)["rows"] == [
        row("medium", "single", games=2, lost=2, points_lost=2)]


def test_gammons_off_a_resigned_gammon_counts_as_a_single_game(clients: Clients) -> None:
    client = clients.new()
    state = new_game(client, browser=BROWSER, gammons=False, cube=False)
    state = play_turns(client, state["id"], state, 1)
    state = act(client, state["id"], "roll")
    winner = "white" if state["turn"] == "black" else "black"
    state = act(client, state["id"], "resign", {"level": "gammon"})
    assert state["result"]["points"] == 1
    won = 1 if winner == "white" else 0
    assert stats_of(client)["total"] == row(None, None, games=1, won=won, lost=1 - won,
                                            points_won=won, points_lost=1 - won)


def test_games_without_a_browser_or_from_a_setup_are_not_counted(clients: Clients) -> None:
    client = clients.new()
    state = new_game(client)
    act(client, state["id"], "roll")
    act(client, state["id"], "resign", {"level": "single"})
    points = [0] * 26
    points[2], points[13] = 1, -15
    setup = {"board": {"points": points, "off": {"white": 14, "black": 0}}, "turn": "white",
             "dice": [2, 1], "cube": {"value": 1, "owner": None}, "doubled": False,
             "match_length": 0, "score": {"white": 0, "black": 0}, "crawford": False,
             "jacoby": False, "beavers": False}
    state = new_game(client, setup=setup, browser=BROWSER)
    act(client, state["id"], "move", {"from": 2, "to": "off"})
    assert act(client, state["id"], "done")["result"]["kind"] == "gammon"
    assert stats_of(client)["total"]["games"] == 0


def test_clearing_the_record_forgets_this_browser_only(clients: Clients) -> None:
    client = clients.new()
    for browser in (BROWSER, OTHER):
        state = new_game(client, browser=browser)
        act(client, state["id"], "roll")
        act(client, state["id"], "resign", {"level": "single"})
    response = client.delete("/api/stats", params={"browser": BROWSER})
    assert response.status_code == 200
    assert response.json() == {"cleared": 1}
    assert stats_of(client)["total"]["games"] == 0
    assert stats_of(client, OTHER)["total"]["games"] == 1


@pytest.mark.parametrize("bad", ["short", "has spaces in it", "x" * 65, "semi;colon12"])
def test_a_bad_browser_id_is_refused_with_a_clear_error(clients: Clients, bad: str) -> None:
    client = clients.new()
    message = (f"a browser id is 8 to 64 letters, digits, '-' or '_' (the page makes one and "
               f"keeps it in this browser's storage); {bad!r} is not one")
    for response in (client.get("/api/stats", params={"browser": bad}),
                     client.delete("/api/stats", params={"browser": bad}),
                     client.post("/api/games", json={"browser": bad}),
                     client.post("/api/start-over", json={"browser": bad, "game": None})):
        assert response.status_code == 422
        assert response.json()["error"] == {"code": "invalid_browser", "message": message}
    assert client.app.state.store.list_ids() == []  # type: ignore[attr-defined]
    assert client.get("/api/stats").status_code == 422  # no id at all


# --------------------------------------------------------------------------------------------
# Start over


def test_start_over_forgets_the_game_and_the_saved_positions_not_the_record(
        clients: Clients) -> None:
    client = clients.new()
    done = new_game(client, browser=BROWSER)
    act(client, done["id"], "roll")
    act(client, done["id"], "resign", {"level": "single"})
    state = new_game(client, browser=BROWSER)
    state = act(client, state["id"], "roll")
    points = [0] * 26
    points[24], points[1] = 15, -15
    setup = {"board": {"points": points, "off": {"white": 0, "black": 0}}, "turn": "white",
             "dice": None, "cube": {"value": 1, "owner": None}, "doubled": False,
             "match_length": 0, "score": {"white": 0, "black": 0}, "crawford": False,
             "jacoby": False, "beavers": False}
    for browser in (BROWSER, OTHER):
        saved = client.post("/api/saved-positions",
                            json={"browser": browser, "name": "all back", "setup": setup})
        assert saved.status_code == 201, saved.text
    response = client.post("/api/start-over", json={"browser": BROWSER, "game": state["id"]})
    assert response.status_code == 200
    assert response.json() == {"game": True, "positions": 1}
    assert client.get(f"/api/games/{state['id']}").status_code == 404
    assert clients.new().get(f"/api/games/{state['id']}").status_code == 404
    listed = client.get("/api/saved-positions", params={"browser": BROWSER}).json()
    assert listed["positions"] == []
    assert len(client.get("/api/saved-positions",
                          params={"browser": OTHER}).json()["positions"]) == 1
    assert stats_of(client)["total"]["games"] == 1
    again = client.post("/api/start-over", json={"browser": BROWSER, "game": state["id"]})
    assert again.json() == {"game": False, "positions": 0}


def test_start_over_refuses_another_browsers_game_and_changes_nothing(
        clients: Clients) -> None:
    client = clients.new()
    theirs = act(client, new_game(client, browser=OTHER)["id"], "roll")
    nobodys = new_game(client)  # made without a browser id (an API client's)
    setup = {"board": {"points": [0] + [-15] + [0] * 22 + [15, 0], "off": {"white": 0,
             "black": 0}}, "turn": "white", "dice": None, "cube": {"value": 1, "owner": None},
             "doubled": False, "match_length": 0, "score": {"white": 0, "black": 0},
             "crawford": False, "jacoby": False, "beavers": False}
    saved = client.post("/api/saved-positions",
                        json={"browser": BROWSER, "name": "all back", "setup": setup})
    assert saved.status_code == 201, saved.text
    for game in (theirs, nobodys):
        response = client.post("/api/start-over", json={"browser": BROWSER, "game": game["id"]})
        assert response.status_code == 403
        assert response.json() == {"error": {
            "code": "not_your_game",
            "message": f"game {game['id']!r} was not started in this browser: only the "
                       "browser that started it may start it over"}}
        # nothing changed: the game is still saved, this browser's positions are kept
        assert clients.new().get(f"/api/games/{game['id']}").status_code == 200
    assert clients.new().get(f"/api/games/{theirs['id']}").json()["dice"] == theirs["dice"]
    assert len(client.get("/api/saved-positions",
                          params={"browser": BROWSER}).json()["positions"]) == 1
    mine = client.post("/api/start-over", json={"browser": OTHER, "game": theirs["id"]})
    assert mine.status_code == 200 and mine.json() == {"game": True, "positions": 0}
