"""Positions over HTTP: reading IDs, checking a set-up position with its reasons, a game
started from a setup, the IDs of a game in progress, hints, and saved positions (six per
browser, kept across a server restart)."""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import Clients, act, app_of, new_game
from fastapi.testclient import TestClient

from backgammon.core.position import Position
from backgammon.core.types import BLACK, START_POINTS

XGID = "XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:2:1:0:5:10"
BROWSER = "browser-one-1234"


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Clients]:
    with Clients(tmp_path / "games.sqlite3") as opened:
        yield opened


def read(client: TestClient, text: str, **extra: Any) -> dict[str, Any]:
    response = client.post("/api/positions/read", json={"text": text, **extra})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def start_setup() -> dict[str, Any]:
    return {"board": {"points": list(START_POINTS), "off": {"white": 0, "black": 0}},
            "turn": "white", "dice": None, "cube": {"value": 1, "owner": None},
            "doubled": False, "match_length": 0, "score": {"white": 0, "black": 0},
            "crawford": False, "jacoby": False, "beavers": False}


def test_read_an_xgid(clients: Clients) -> None:
    info = read(clients.new(), XGID)
    setup = info["setup"]
    assert setup["board"]["points"] == list(START_POINTS) and setup["turn"] == "white"
    assert setup["dice"] == [5, 2] and setup["cube"] == {"value": 2, "owner": "black"}
    assert (setup["match_length"], setup["score"]) == (5, {"white": 2, "black": 1})
    assert info["ids"] == {"position_id": "4HPwATDgc/ABMA", "match_id": "EYGqACAACAAE",
                           "xgid": XGID}
    assert info["summary"] == "White to play 5-2; cube 2 owned by Black; 5-point match at 2-1"
    assert info["text"].splitlines()[0].startswith(" +13-14-15-16-17-18")


@pytest.mark.parametrize("text", ["4HPwATDgc/ABMA:cAkAAAAAAAAA", "4HPwATDgc/ABMA cAkAAAAAAAAA"])
def test_read_a_position_id_with_its_match_id(clients: Clients, text: str) -> None:
    info = read(clients.new(), text)
    assert info["setup"]["turn"] == "black" and info["setup"]["jacoby"]
    assert info["ids"]["match_id"] == "cAkAAAAAAAAA"


def test_read_a_position_id_alone(clients: Clients) -> None:
    info = read(clients.new(), "4HPwATDgc/ABMA", turn="black")
    assert info["setup"]["turn"] == "black" and info["setup"]["dice"] is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4HPwATDgc/AB", "invalid Position ID '4HPwATDgc/AB': 12 characters, expected 14"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:77:0:0:0:0:10",
         "field 5 (dice): '77' is not 00, two dice"),
        ("   ", "paste a Position ID"),
    ],
)
def test_a_bad_id_is_refused_with_the_reason(clients: Clients, text: str, message: str) -> None:
    response = clients.new().post("/api/positions/read", json={"text": text})
    assert response.status_code == 422
    assert message in response.json()["error"]["message"]


def check(client: TestClient, setup: dict[str, Any], status: int = 200) -> dict[str, Any]:
    response = client.post("/api/positions/check", json={"setup": setup})
    assert response.status_code == status, response.text
    data: dict[str, Any] = response.json()
    return data


def test_check_a_valid_setup(clients: Clients) -> None:
    info = check(clients.new(), start_setup())
    assert info["ids"]["xgid"] == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s["board"]["points"].__setitem__(6, 4),
         "White has 14 checkers (14 on the points): each side has 15"),
        (lambda s: (s["board"]["points"].__setitem__(0, -1),
                    s["board"]["off"].__setitem__("black", 1)),
         "Black has 17 checkers (15 on the points, 1 on the bar, 1 borne off): each side "
         "has 15"),
        (lambda s: s.__setitem__("dice", [7, 1]), "a die must be a whole number from 1 to 6"),
        (lambda s: s["cube"].__setitem__("value", 3),
         "the cube shows a power of two (1, 2, 4, ... 32768), not 3"),
        (lambda s: s.__setitem__("jacoby", "yes"), "jacoby is true or false, not 'yes'"),
        (lambda s: s.__setitem__("crawford", 1), "crawford is true or false, not 1"),
        (lambda s: s.__setitem__("score", {"white": 0}),
         "the score is {white, black}, both given; got {'white': 0}"),
        (lambda s: (s.__setitem__("match_length", 5), s["score"].__setitem__("white", 5)),
         "White's score must be a whole number from 0 to 4"),
        (lambda s: (s.__setitem__("match_length", 5), s.__setitem__("crawford", True)),
         "A Crawford game at 0-0 in a 5-point match"),
        (lambda s: (s.__setitem__("doubled", True), s["cube"].__setitem__("value", 2),
                    s["cube"].__setitem__("owner", "black")),
         "White doubles while Black owns the cube"),
        (lambda s: s["cube"].__setitem__("owner", "black"),
         "A cube owned at 1 (it is owned once it has been turned, at 2 or more)"),
    ],
)
def test_check_refuses_with_the_reason(clients: Clients, change: Any, message: str) -> None:
    setup = copy.deepcopy(start_setup())
    change(setup)
    error = check(clients.new(), setup, status=422)["error"]
    assert error["code"] == "invalid_setup" and message in error["message"]


def test_a_game_from_an_xgid_plays_on(clients: Clients) -> None:
    client = clients.new(rolls=[(6, 4)])
    setup = read(client, XGID)["setup"]
    state = new_game(client, setup=setup)
    assert state["phase"] == "move" and state["dice"] == [5, 2] and state["turn"] == "white"
    assert state["cube"]["value"] == 2 and state["cube"]["owner"] == "black"
    assert state["score"]["white"] == 2 and state["score"]["black"] == 1
    assert state["settings"]["kind"] == "match" and state["settings"]["length"] == 5
    assert state["ids"]["xgid"] == XGID
    moved = act(client, state["id"], "move", {"from": 13, "to": 8})
    moved = act(client, state["id"], "move", {"from": 13, "to": 11})
    done = act(client, state["id"], "done")
    assert done["turn"] == "black" and done["phase"] == "roll"
    assert done["ids"]["xgid"].endswith(":1:-1:-1:00:2:1:0:5:10")
    assert Position.from_xgid(done["ids"]["xgid"]) == Position(moved["board"]["points"], BLACK)
    # A reload gives the same game (the setup is in the saved log).
    again = clients.new().get(f"/api/games/{state['id']}").json()
    assert again["board"] == done["board"] and again["ids"] == done["ids"]
    # Its review starts at the set-up position, with its cube.
    frames = client.get(f"/api/games/{state['id']}/review").json()["frames"]
    assert frames[0]["board"]["points"] == list(START_POINTS)
    assert (frames[0]["cube"]["value"], frames[0]["cube"]["owner"]) == (2, "black")


def test_a_setup_that_cannot_be_played_with_the_options(clients: Clients) -> None:
    client = clients.new()
    setup = read(client, XGID)["setup"]
    response = client.post("/api/games", json={"mode": "pass_and_play", "cube": False,
                                               "setup": setup})
    assert response.status_code == 422
    assert "play it with the doubling cube" in response.json()["error"]["message"]
    assert response.json()["error"]["code"] == "invalid_setup"  # as the position endpoints
    bad = start_setup()
    bad["board"]["points"][1] = 0
    response = client.post("/api/games", json={"mode": "pass_and_play", "setup": bad})
    assert response.status_code == 422
    assert "Black has 13 checkers" in response.json()["error"]["message"]
    assert response.json()["error"]["code"] == "invalid_setup"


def test_a_game_in_progress_has_its_ids(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    state = new_game(client)
    assert state["ids"]["xgid"] == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    rolled = act(client, state["id"], "roll")
    assert rolled["ids"]["xgid"] == "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
    assert rolled["ids"]["position_id"] == "4HPwATDgc/ABMA"


def test_hints(clients: Clients) -> None:
    client = clients.new()
    setup = read(client, "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10")["setup"]
    hint = client.post("/api/positions/hint", json={"setup": setup}).json()
    assert hint["kind"] == "plays" and hint["plays"][0]["play"] == "8/5 6/5"
    assert hint["plays"][0]["behind"] == 0 and len(hint["plays"]) == 5
    assert str(hint["plays"][0]["behind"]) == "0.0"  # never "-0.0"
    setup["dice"] = None
    cube = client.post("/api/positions/hint", json={"setup": setup}).json()
    assert cube["kind"] == "cube" and cube["text"].startswith("White should not double yet")


OPENING_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"


def evaluation(client: TestClient, position: str, status: int = 200) -> dict[str, Any]:
    response = client.post("/api/positions/evaluation", json={"position": position})
    assert response.status_code == status, response.text
    data: dict[str, Any] = response.json()
    return data


def test_the_evaluation_of_a_position_ranks_the_plays(clients: Clients) -> None:
    answer = evaluation(clients.new(), OPENING_31)
    assert answer["kind"] == "plays" and answer["dice"] == [3, 1]
    best, second = answer["plays"][:2]
    assert best["play"] == "8/5 6/5" and best["diff"] == 0.0
    assert second["diff"] == pytest.approx(second["equity"] - best["equity"], abs=2e-3)
    assert second["diff"] < -0.1  # 8/5 6/5 is clearly the best 3-1
    assert 0.1 < best["equity"] < 0.25 and 52.0 < best["probs"]["win"] < 58.0
    assert 0.0 < best["probs"]["win_backgammon"] < best["probs"]["win_gammon"]
    # A Position ID with its Match ID is read too: the start, Black to roll, money play.
    cube = evaluation(clients.new(), "4HPwATDgc/ABMA:cAkAAAAAAAAA")
    assert (cube["kind"], cube["text"]) == ("cube", "no double, take")


def test_the_evaluation_is_the_live_hints_for_the_same_position(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1), (6, 4)])
    state = new_game(client, cube=True, kind="match", length=5)
    rolled = act(client, state["id"], "roll")
    live = client.get(f"/api/games/{state['id']}/evaluation").json()
    assert evaluation(client, rolled["ids"]["xgid"]) == live
    for step in ({"from": 8, "to": 5}, {"from": 6, "to": 5}):
        act(client, state["id"], "move", step)
    ended = act(client, state["id"], "done")
    live = client.get(f"/api/games/{state['id']}/evaluation").json()
    assert live["kind"] == "cube" and evaluation(client, ended["ids"]["xgid"]) == live


def test_the_evaluation_honours_the_match_score(clients: Clients) -> None:
    client = clients.new()
    money = evaluation(client, OPENING_31)["plays"][0]
    # Double match point (4-4 in a 5-point match): gammons count nothing, so the equity of
    # a play is its winning chances alone, 2p - 1.
    dmp = evaluation(client, OPENING_31.replace(":0:0:0:0:10", ":4:4:0:5:10"))
    best = dmp["plays"][0]
    assert best["equity"] == pytest.approx(2 * best["probs"]["win"] / 100 - 1, abs=2e-3)
    assert money["equity"] != pytest.approx(2 * money["probs"]["win"] / 100 - 1, abs=2e-2)
    # There, before the roll, the cube is dead: no cube hint, and the reason.
    before = evaluation(client, OPENING_31.replace(":31:0:0:0:0:10", ":00:4:4:0:5:10"))
    assert before == {"kind": "none", "reason": "cube dead"}
    # A double pending: the answer to it (here, 2-away 2-away: a take).
    pending = evaluation(client, OPENING_31.replace(":31:0:0:0:0:10", ":D:3:3:0:5:10"))
    assert pending["kind"] == "take" and pending["action"] == "take"


def test_the_evaluation_honours_the_xgids_maximum_cube(clients: Clients) -> None:
    """Field 10 of an XGID is the highest cube allowed (log 2): a cube already there cannot
    be turned, so no cube hint, and the reason; one below it gets its cube hint."""
    client = clients.new()
    owned = OPENING_31.replace(":0:0:1:31:0:0:0:0:10", ":1:1:1:00:0:0:0:0:{}")
    assert evaluation(client, owned.format(1)) == {
        "kind": "none", "reason": "cube at its limit (2, the XGID's maximum cube)"}
    assert evaluation(client, owned.format(2))["kind"] == "cube"


def test_the_evaluation_of_a_game_without_gammons_counts_none(clients: Clients) -> None:
    """An XGID cannot say that a game is played without gammons, so a review of such a game
    says so beside it: every win is then a single game, and a play's money equity is its
    winning chances alone, 2p - 1, as at double match point."""
    client = clients.new()
    response = client.post("/api/positions/evaluation",
                           json={"position": OPENING_31, "gammons": False})
    assert response.status_code == 200, response.text
    plays = response.json()["plays"]
    for play in plays:
        assert play["equity"] == pytest.approx(2 * play["probs"]["win"] / 100 - 1, abs=2e-3)
    with_gammons = evaluation(client, OPENING_31)["plays"][0]
    assert with_gammons["equity"] != pytest.approx(plays[0]["equity"], abs=2e-2)
    # The live hint of a money game played without gammons (or under the Jacoby rule with
    # the cube centred) says the same: the computer plays on those values, so do its hints.
    for rules in ({"gammons": False}, {"kind": "money", "cube": True, "jacoby": True}):
        client = clients.new(rolls=[(3, 1)])
        game = act(client, new_game(client, **rules)["id"], "roll")
        live = client.get(f"/api/games/{game['id']}/evaluation").json()["plays"]
        assert live[0]["play"] == "8/5 6/5"
        for play in live:
            assert play["equity"] == pytest.approx(2 * play["probs"]["win"] / 100 - 1,
                                                   abs=2e-3), rules
    for wrong_value in ("sometimes", "no", 0):  # a true or false, not something like one
        wrong = client.post("/api/positions/evaluation",
                            json={"position": OPENING_31, "gammons": wrong_value})
        assert wrong.status_code == 422 and "gammons" in wrong.json()["error"]["message"]


def test_a_bad_evaluation_request_says_what_is_wrong(clients: Clients) -> None:
    client = clients.new()
    malformed = evaluation(client, "XGID=nonsense", status=422)["error"]
    assert malformed["code"] == "invalid_id" and "XGID" in malformed["message"]
    extra = evaluation(client, OPENING_31.replace("-b---", "-bb--"), status=422)["error"]
    assert extra["code"] == "invalid_id" and "Black has 17 checkers" in extra["message"]
    crawford = OPENING_31.replace(":31:0:0:0:0:10", ":D:4:2:1:5:10")  # a double, Crawford
    refused = evaluation(client, crawford, status=422)["error"]
    assert refused["code"] == "invalid_id" and "a cube turned in the Crawford game" in \
        refused["message"]
    dead = OPENING_31.replace("0:0:1:31:0:0:0:0:10", "1:0:1:D:3:0:0:5:10")  # 2-away doubles 2
    refused = evaluation(client, dead, status=422)["error"]
    assert refused == {"code": "invalid_setup", "message": "White cannot double: the cube is "
                       "dead (3 + 2 already wins the 5-point match)"}
    missing = client.post("/api/positions/evaluation", json={})
    assert missing.status_code == 422
    assert missing.json()["error"]["message"] == "invalid request: position: Field required"
    empty = client.post("/api/positions/evaluation", json={"position": ""})
    assert empty.status_code == 422 and "position" in empty.json()["error"]["message"]
    broken = client.post("/api/positions/evaluation", content=b'{"position": XGID',
                         headers={"Content-Type": "application/json"})
    assert broken.status_code == 422
    assert broken.json()["error"]["message"] == (
        "invalid request: the body is not JSON (Expecting value, at character 13)")


def test_hints_are_refused_at_once_when_every_evaluation_slot_is_taken(
        clients: Clients) -> None:
    """A flood of hint requests cannot take the server's cores from the games: past the
    app's evaluation slots (4 by default) a request answers 503 ``busy`` at once, without
    waiting, and the next one after a slot is freed is answered."""
    client = clients.new(rolls=[(3, 1)])
    game = act(client, new_game(client)["id"], "roll")
    slots = app_of(client).state.evaluations
    assert slots.slots == 4
    held = [slots.slot() for _ in range(slots.slots)]
    for slot in held:
        slot.__enter__()
    busy = {"code": "busy", "message": "the computer is busy with 4 other evaluations: try "
            "again in a moment"}
    position = client.post("/api/positions/evaluation", json={"position": OPENING_31})
    assert (position.status_code, position.json()) == (503, {"error": busy})
    live = client.get(f"/api/games/{game['id']}/evaluation")
    assert (live.status_code, live.json()) == (503, {"error": busy})
    editor = client.post("/api/positions/hint", json={"setup": start_setup()})
    assert (editor.status_code, editor.json()) == (503, {"error": busy})
    held.pop().__exit__(None, None, None)
    assert evaluation(client, OPENING_31)["plays"][0]["play"] == "8/5 6/5"
    for slot in held:
        slot.__exit__(None, None, None)
    # One client (here the test client's address) never holds every slot: its own wait
    # behind each other (here 0.2 s), then are refused.
    slots.wait = 0.2
    mine = [slots.slot("testclient") for _ in range(slots.per_client)]
    for slot in mine:
        slot.__enter__()
    refused = client.post("/api/positions/evaluation", json={"position": OPENING_31})
    assert refused.status_code == 503
    assert refused.json()["error"] == {"code": "busy", "message": "you have 1 evaluation "
                                       "running already: try again once it is answered"}
    for slot in mine:
        slot.__exit__(None, None, None)
    assert evaluation(client, OPENING_31)["plays"][0]["play"] == "8/5 6/5"
    assert client.get(f"/api/games/{game['id']}/evaluation").json()["kind"] == "plays"
    for slot in held:
        slot.__exit__(None, None, None)


def saved(client: TestClient, browser: str = BROWSER) -> list[dict[str, Any]]:
    response = client.get("/api/saved-positions", params={"browser": browser})
    assert response.status_code == 200
    data: list[dict[str, Any]] = response.json()["positions"]
    return data


def test_saved_positions_six_per_browser_across_restarts(clients: Clients) -> None:
    client = clients.new()
    setup = read(client, XGID)["setup"]
    for n in range(6):
        response = client.post("/api/saved-positions",
                               json={"browser": BROWSER, "name": f"  Position  {n} ",
                                     "setup": setup})
        assert response.status_code == 201, response.text
    assert response.json()["name"] == "Position 5" and response.json()["ids"]["xgid"] == XGID
    seventh = client.post("/api/saved-positions",
                          json={"browser": BROWSER, "name": "one more", "setup": setup})
    assert seventh.status_code == 409
    assert seventh.json()["error"] == {
        "code": "saved_positions_full",
        "message": "You can keep up to 6 positions: delete one to save this one."}
    assert saved(client, "another-browser") == []
    # A new server on the same database: the six are there, oldest first.
    restarted = clients.new()
    kept = saved(restarted)
    assert [p["name"] for p in kept] == [f"Position {n}" for n in range(6)]
    assert kept[0]["setup"] == setup and kept[0]["text"].startswith(" +13-14")
    gone = restarted.delete(f"/api/saved-positions/{kept[0]['id']}",
                            params={"browser": BROWSER})
    assert gone.status_code == 204
    assert len(saved(restarted)) == 5
    again = restarted.delete(f"/api/saved-positions/{kept[0]['id']}",
                             params={"browser": BROWSER})
    assert again.status_code == 404
    other = restarted.delete(f"/api/saved-positions/{kept[1]['id']}",
                             params={"browser": "another-browser"})
    assert other.status_code == 404 and len(saved(restarted)) == 5


def test_a_saved_position_needs_a_name_and_a_valid_setup(clients: Clients) -> None:
    client = clients.new()
    response = client.post("/api/saved-positions",
                           json={"browser": BROWSER, "name": "   ", "setup": start_setup()})
    assert response.status_code == 422 and "give the position a name" in response.text
    bad = start_setup()
    bad["turn"] = "green"
    response = client.post("/api/saved-positions",
                           json={"browser": BROWSER, "name": "x", "setup": bad})
    assert response.status_code == 422 and "white or black, not 'green'" in response.text


def test_the_evaluation_of_a_game_already_over_is_refused_in_words(clients: Clients) -> None:
    client = clients.new()
    response = client.post("/api/positions/evaluation",
                           json={"position": "AAAAAAAAAAAAAA:cAkAAAAAAAAA"})
    assert response.status_code == 422
    assert response.json()["error"]["message"] == (
        "the game in that position is over: a side has borne off all its checkers")


def test_the_ranked_plays_never_show_a_lower_row_worth_more(clients: Clients) -> None:
    """A play cut at 1-ply can score above the 2-ply ones (the plies do not agree to the last
    hundredth): the hint scores it at 2-ply too, so the rows go down and every difference to
    the best is at most 0 (and never written -0.0). Here 24/22* 8/4 6/4 is +0.568 at 1-ply,
    above the 2-ply best (+0.540)."""
    position = "XGID=-bAA--C-C---dE---d-e----B-:0:0:-1:22:0:0:0:0:10"
    plays = evaluation(clients.new(), position)["plays"]
    equities = [p["equity"] for p in plays]
    assert equities == sorted(equities, reverse=True)
    assert all(p["diff"] < 0 or (p["diff"] == 0 and math.copysign(1.0, p["diff"]) == 1.0)
               for p in plays)
    made = next(p for p in plays if p["play"] == "24/22* 8/4 6/4")
    assert made["ply"] == 2 and made["diff"] < 0
    plies = [p["ply"] for p in plays]
    assert plies == sorted(plies, reverse=True)


def test_one_address_keeps_a_bounded_number_of_positions_whatever_its_browsers(
        clients: Clients) -> None:
    from backgammon.services.saved_positions import MAX_POSITIONS_PER_OWNER

    client = clients.new()
    setup = read(client, XGID)["setup"]
    codes = []
    for n in range(MAX_POSITIONS_PER_OWNER + 1):
        browser = f"browser-{n // 6:08d}"  # a new browser id every six positions
        response = client.post("/api/saved-positions",
                               json={"browser": browser, "name": f"p{n}", "setup": setup})
        codes.append(response.status_code)
    assert codes == [201] * MAX_POSITIONS_PER_OWNER + [507]
    assert response.json()["error"] == {
        "code": "storage_full",
        "message": f"the positions saved from your address are {MAX_POSITIONS_PER_OWNER}, "
                   "their most: delete one to save this one"}
    other = TestClient(app_of(client), client=("10.1.2.3", 5000))
    response = other.post("/api/saved-positions",
                          json={"browser": "browser-elsewhere", "name": "x", "setup": setup})
    assert response.status_code == 201  # another address is not held up
