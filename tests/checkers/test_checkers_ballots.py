"""The three-move ballot (``checkers.ballots``) and a table that starts from one
(``checkers.adapter``): the ACF's list counted and checked legal by the engine, a ballot found
by its moves or number, barred ones refused, a random one drawn from the table's seed and
replayed from the record, the clock started by the first move after the ballot."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from checkers.adapter import RULES
from checkers.ballots import (
    ACF_OPENINGS,
    BALLOTS,
    BARRED,
    DECK,
    DECK_SIZE,
    BallotError,
    draw_ballot,
    find_ballot,
)
from checkers.game import Game
from checkers.moves import legal_moves
from checkers.position import Position
from gametable.clock import TimeControl
from gametable.errors import ActionRefused
from gametable.table import Seat, Table


def test_the_acf_list_counts_174_openings_18_barred_and_a_deck_of_156() -> None:
    assert (ACF_OPENINGS, BARRED, DECK_SIZE) == (174, 18, 156)
    assert len(BALLOTS) == 174 and [b.number for b in BALLOTS] == list(range(1, 175))
    assert sum(b.barred for b in BALLOTS) == 18
    assert len(DECK) == 156 and not any(b.barred for b in DECK)
    # 144 in the deck since the original ballot, 12 long played by mail and added in 2003-4.
    assert Counter(b.mail_play for b in DECK) == {False: 144, True: 12}
    assert len({b.key for b in BALLOTS}) == 174  # no opening twice
    # Black's seven first moves, each with its share of the list.
    firsts = Counter(b.moves[0] for b in BALLOTS)
    assert firsts == {"9-13": 35, "9-14": 23, "10-14": 26, "10-15": 26, "11-15": 22,
                      "11-16": 27, "12-16": 15}
    # A few against the published list.
    assert BALLOTS[0].key == "9-13 21-17 5-9"
    assert BALLOTS[45].label == "ACF 46: 9-14 23-18 14x23 (Double Cross)"
    assert BALLOTS[59].label == "ACF 60: 10-14 22-17 9-13 (Black Hole)"
    assert BALLOTS[59].mail_play
    assert BALLOTS[173].key == "12-16 24-20 10-15" and BALLOTS[173].name == "Skunk"
    assert [b.number for b in BALLOTS if b.barred] == [
        3, 13, 26, 35, 44, 45, 48, 52, 77, 88, 94, 109, 114, 137, 145, 156, 168, 171]


@pytest.mark.parametrize("ballot", BALLOTS, ids=lambda b: f"ACF{b.number}")
def test_every_ballot_is_legal_for_the_engine(ballot: object) -> None:
    from checkers.ballots import Ballot

    assert isinstance(ballot, Ballot)
    game = Game()
    for text in ballot.moves:
        played = game.play(text)
        # The written move is the whole move (a jump is written with its x).
        assert str(played) == text
    assert game.turn.value == "white" and game.outcome is None
    assert legal_moves(game.position)  # White has a move


def test_a_ballot_is_found_by_its_moves_or_number_and_a_barred_one_refused() -> None:
    assert find_ballot("11-15  23-18 8-11").number == 121
    assert find_ballot(121).key == "11-15 23-18 8-11"
    assert find_ballot("46").name == "Double Cross"
    with pytest.raises(BallotError, match=r"ACF 94: 10-15 22-17 9-14 \(Nutcracker\) is barred"):
        find_ballot("10-15 22-17 9-14")
    with pytest.raises(BallotError, match="not a three-move opening"):
        find_ballot("11-15 23-18 7-11")
    with pytest.raises(BallotError, match="1-174"):
        find_ballot(175)


def test_draws_cover_the_deck_and_repeat_with_the_seed() -> None:
    drawn = {draw_ballot(random.Random(seed)).number for seed in range(3000)}
    assert drawn == {b.number for b in DECK}
    assert draw_ballot(random.Random(7)) == draw_ballot(random.Random(7))


def test_the_ballot_setting_is_checked() -> None:
    assert RULES.settings({}) == {"start": None, "ballot": None, "draws": "claim"}
    assert RULES.settings({"ballot": "random"}) == {
        "start": None,
        "ballot": "random",
        "draws": "claim",
    }
    assert RULES.settings({"ballot": 121}) == {
        "start": None,
        "ballot": "11-15 23-18 8-11",
        "draws": "claim",
    }
    for bad, words in (
        ({"ballot": "10-15 22-17 9-14"}, "barred"),
        ({"ballot": True}, "is not a ballot"),
        ({"ballot": "11-15", "start": "B:W21-32:B1-12"}, "not both"),
    ):
        with pytest.raises(ActionRefused, match=words) as refused:
            RULES.settings(bad)
        assert refused.value.code == "invalid_settings"


class FakeNow:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_a_table_from_a_chosen_ballot_its_view_its_clock_and_its_pdn() -> None:
    now = FakeNow()
    table = Table(RULES, {"ballot": "9-14 23-18 14x23"}, time_control=TimeControl("blitz", 180, 2),
                  now=now, seed=5)
    state = table.view("white")["state"]
    assert state["moves"] == ["9-14", "23-18", "14x23"]
    assert state["ballot"] == {"number": 46, "moves": ["9-14", "23-18", "14x23"],
                               "name": "Double Cross",
                               "label": "ACF 46: 9-14 23-18 14x23 (Double Cross)"}
    assert state["turn"] == "white" and state["capture_forced"]  # White retakes on 23
    assert sorted(state["legal"]) == [[26, 19], [27, 18]]
    # The ballot's moves do not start the clock: White's first move does.
    assert table.clock is not None and table.clock.running is None
    now.t += 30
    table.act("white", {"type": "move", "path": [27, 18]})
    assert table.clock.running == "black"
    assert table.clock.remaining("white") == pytest.approx(180.0)  # not charged, as a first move
    pdn = RULES.exports()["pdn"](table.game, {})
    assert "1. 9-14 23-18 2. 14x23 27x18" in pdn
    assert '[SetUp "1"]' not in pdn  # the usual start: the ballot's moves are the game's


def test_a_random_ballot_comes_from_the_seed_and_the_record_replays_it() -> None:
    seats = {"black": Seat("person"), "white": Seat("computer", "easy")}
    ballots = set()
    for seed in range(12):
        table = Table(RULES, {"ballot": "random"}, seats, seed=seed)
        ballot = table.view("black")["state"]["ballot"]
        again = Table(RULES, {"ballot": "random"}, seats, seed=seed)
        assert again.view("black")["state"]["ballot"] == ballot
        ballots.add(ballot["number"])
        assert find_ballot(ballot["number"]).key == " ".join(ballot["moves"])
    assert len(ballots) > 6  # different seeds, different ballots

    table = Table(RULES, {"ballot": "random"}, seats, seed=99)
    table.play_computer()  # White (the computer) answers the ballot
    state = table.view("black")["state"]
    assert len(state["moves"]) == 4 and state["turn"] == "black"
    record = table.to_record()
    assert record["settings"] == {"start": None, "ballot": "random", "draws": "claim"}
    back = Table.from_record(record, {"checkers": RULES})
    assert back.view("black")["state"] == state
    # A log that does not begin with the seed's ballot is refused.
    other_seed = next(s for s in range(100) if RULES.ballot(record["settings"], s).number
                      != state["ballot"]["number"])
    with pytest.raises(ActionRefused, match="does not begin with the ballot") as refused:
        Table.from_record({**record, "seed": other_seed}, {"checkers": RULES})
    assert refused.value.code == "invalid_record"


def test_the_ballots_over_http(tmp_path: object) -> None:
    from pathlib import Path

    from fastapi.testclient import TestClient

    from backgammon.server.app import create_app
    from backgammon.server.settings import ServerSettings

    assert isinstance(tmp_path, Path)
    with TestClient(create_app(ServerSettings(db_path=tmp_path / "db.sqlite3"))) as client:
        listed = client.get("/api/checkers/ballots").json()["ballots"]
        assert len(listed) == 156 and listed[0] == {
            "key": "9-13 21-17 5-9", "number": 1, "moves": ["9-13", "21-17", "5-9"],
            "name": "", "label": "ACF 1: 9-13 21-17 5-9"}
        made = client.post("/api/tables", json={
            "game": "checkers",
            "settings": {"ballot": next(b["key"] for b in listed if b["number"] == 132)},
            "seats": {"black": {"kind": "computer", "level": "easy"},
                      "white": {"kind": "person"}}})
        assert made.status_code == 201, made.text
        state = made.json()["view"]["state"]
        assert state["ballot"]["label"] == "ACF 132: 11-15 24-20 15-18"
        assert state["moves"] == ["11-15", "24-20", "15-18"] and state["can"]["move"]
        barred = client.post("/api/tables", json={
            "game": "checkers", "settings": {"ballot": "12-16 23-19 16x23"},
            "seats": {"black": {"kind": "person"}, "white": {"kind": "person"}}})
        assert barred.status_code == 422
        assert "barred" in barred.json()["error"]["message"]


def test_the_position_after_a_ballot_is_the_engines() -> None:
    game = Game()
    for text in find_ballot(121).moves:
        game.play(text)
    assert game.position == Position.from_fen("W:W18,21,22,24,25,26,27,28,29,30,31,32:"
                                              "B1,2,3,4,5,6,7,9,10,11,12,15")
