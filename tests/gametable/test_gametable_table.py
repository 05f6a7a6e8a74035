"""The table, running American checkers through its plug-in (checkers.adapter): the gate,
the clock, computer seats, draws, time, the view and the record."""

from __future__ import annotations

from typing import Any

import pytest

from checkers.adapter import RULES
from gametable import TIME_CONTROLS, ActionRefused, Seat, Table, TimeControl


class FakeNow:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def move(*path: int) -> dict[str, Any]:
    return {"type": "move", "path": list(path)}


def test_two_computers_play_a_whole_game_and_the_record_rebuilds_it() -> None:
    seats = {"black": Seat("computer", "easy"), "white": Seat("computer", "easy")}
    table = Table(RULES, {}, seats, seed=7)
    done = table.play_computer()
    outcome = table.game.outcome()
    assert outcome is not None and len(done) == len(table.game.log())
    # every action a move, but the last: Black claims the draw the 40-move rule gives it
    assert all(applied.turn_complete for applied in done[:-1])
    assert table.game.log()[-1] == {"claim_draw": "black"}
    assert outcome.reason == "40-move rule" and outcome.winner is None
    again = Table.from_record(table.to_record(), {"checkers": RULES})
    assert again.view("black") == table.view("black")
    # the same seed plays the same game
    twin = Table(RULES, {}, seats, seed=7)
    twin.play_computer()
    assert twin.game.log() == table.game.log()


def test_people_move_through_the_gate_and_refusals_change_nothing() -> None:
    table = Table(RULES)
    table.act("black", move(11, 15))
    before = table.view("white")
    refusals = [
        ("black", move(15, 19), "not_your_turn"),
        ("white", move(22, 15), "illegal_move"),
        ("white", move(22), "invalid_action"),
        ("white", {"type": "move", "path": ["22", "18"]}, "invalid_action"),
        ("white", {"type": "castle"}, "invalid_action"),
        ("white", {"type": "resign", "path": [1, 5]}, "invalid_action"),
        ("white", {"type": "accept_draw"}, "not_allowed"),
        ("red", move(22, 18), "no_seat"),
        ("white", "22-18", "invalid_action"),  # a library user's string, not an object
        ("white", None, "invalid_action"),
        ("white", {"path": [22, 18]}, "invalid_action"),  # no type
    ]
    for side, action, code in refusals:
        with pytest.raises(ActionRefused) as refused:
            table.act(side, action)  # type: ignore[arg-type]  # (hostile input on purpose)
        assert refused.value.code == code, (action, refused.value)
    assert table.view("white") == before
    with pytest.raises(ActionRefused, match="22x15: square 15 is occupied"):
        table.act("white", move(22, 15))


def test_the_view_shows_the_board_the_legal_moves_and_what_each_side_can_do() -> None:
    table = Table(RULES, {"start": "W:W18,27:B14,K1"})
    whole = table.view("white")
    view = whole["state"]
    assert whole["game"] == "checkers" and view["turn"] == "white"
    assert view["board"] == {"1": "B", "14": "b", "18": "w", "27": "w"}
    assert view["legal"] == [[18, 9]] and view["capture_forced"] is True
    assert view["can"] == {
        "move": True,
        "offer_draw": True,
        "accept_draw": False,
        "decline_draw": False,
        "claim_draw": False,
        "resign": True,
    }
    assert view["draws"] == "claim" and view["claimable"] is None and view["claimed_by"] is None
    assert table.view("black")["state"]["legal"] == []  # not shown to the other side
    table.act("white", move(18, 9))
    view = table.view(None)["state"]
    assert view["last_move"] == {"path": [18, 9], "captures": [14]}
    assert view["moves"] == ["18x9"] and view["pieces"]["black"] == {"men": 0, "kings": 1}


def test_a_draw_offer_waits_on_both_and_is_accepted() -> None:
    table = Table(RULES)
    table.act("black", move(11, 15))
    table.act("white", {"type": "offer_draw"})  # White offers on its own turn
    assert table.view()["offer"] == {"kind": "draw", "by": "white"}
    assert table.view()["to_act"] == ["black"]  # Black answers (White may still move)
    assert table.view("black")["state"]["can"]["accept_draw"] is True
    assert table.view("white")["state"]["can"]["accept_draw"] is False
    table.act("black", {"type": "accept_draw"})
    assert table.view()["outcome"] == {"winner": None, "reason": "agreement", "points": 0}
    with pytest.raises(ActionRefused) as refused:
        table.act("white", move(22, 18))
    assert refused.value.code == "game_over"


def test_the_computer_answers_a_draw_offer_by_its_evaluation() -> None:
    seats = {"black": Seat("person"), "white": Seat("computer", "hard")}
    # White has a king and two men against a lone black man: the computer declines
    table = Table(RULES, {"start": "B:WK20,27,28:B5"}, seats)
    table.act("black", {"type": "offer_draw"})
    table.play_computer(limit=1)
    assert table.game.log()[-1] == {"decline_draw": "white"}
    # a lone king each: a dead draw, the computer accepts
    level = Table(RULES, {"start": "B:WK32:BK1"}, seats)
    level.act("black", {"type": "offer_draw"})
    level.play_computer(limit=1)
    assert level.view()["outcome"] == {"winner": None, "reason": "agreement", "points": 0}


def test_threefold_repetition_ends_the_game_by_itself_with_automatic_draws() -> None:
    table = Table(RULES, {"start": "B:WK32:BK1", "draws": "automatic"})
    for _ in range(2):
        for side, path in (("black", (1, 6)), ("white", (32, 27)), ("black", (6, 1)),
                           ("white", (27, 32))):  # fmt: skip
            table.act(side, move(*path))
    assert table.view()["outcome"] == {
        "winner": None,
        "reason": "threefold repetition",
        "points": 0,
    }


SHUTTLE = (("black", (1, 6)), ("white", (32, 27)), ("black", (6, 1)), ("white", (27, 32)))


def test_a_repetition_is_claimed_at_the_table_and_the_record_replays_the_claim() -> None:
    table = Table(RULES, {"start": "B:WK32:BK1"})  # a new table's draws are claimed
    with pytest.raises(ActionRefused, match="no draw can be claimed now") as refused:
        table.act("white", {"type": "claim_draw"})
    assert refused.value.code == "not_allowed"
    with pytest.raises(ActionRefused) as refused:
        table.act("white", {"type": "claim_draw", "path": [1, 6]})
    assert refused.value.code == "invalid_action"
    for side, path in SHUTTLE + SHUTTLE[:3]:
        table.act(side, move(*path))
    # White's 27-32 would make the start a third time: White may claim on its move (rule
    # 1.32.1), Black may not yet
    white, black = table.view("white")["state"], table.view("black")["state"]
    assert (white["claimable"], white["can"]["claim_draw"]) == ("threefold repetition", True)
    assert (black["claimable"], black["can"]["claim_draw"]) == (None, False)
    assert table.view(None)["state"]["can"]["claim_draw"] is False  # a spectator claims nothing
    table.act("white", move(27, 32))  # White plays on: the start stands a third time
    assert table.view()["outcome"] is None  # not drawn by itself
    assert table.view("black")["state"]["claimable"] == "threefold repetition"
    applied = table.act("black", {"type": "claim_draw"})
    assert applied.events == ({"claim_draw": "black"},) and not applied.turn_complete
    assert table.view()["outcome"] == {
        "winner": None,
        "reason": "threefold repetition",
        "points": 0,
    }
    assert table.view("black")["state"]["can"]["claim_draw"] is False
    assert table.view("white")["state"]["claimed_by"] == "black"
    record = table.to_record()
    assert record["settings"]["draws"] == "claim" and record["log"][-1] == {"claim_draw": "black"}
    again = Table.from_record(record, {"checkers": RULES})
    assert again.view("black") == table.view("black")


def test_a_record_without_the_draws_setting_replays_with_automatic_draws() -> None:
    table = Table(RULES, {"start": "B:WK32:BK1", "draws": "automatic"})
    for side, path in SHUTTLE * 2:
        table.act(side, move(*path))
    record = table.to_record()
    del record["settings"]["draws"]  # as the tables saved before the setting have it
    again = Table.from_record(record, {"checkers": RULES})
    assert again.settings["draws"] == "automatic"
    assert again.view("white") == table.view("white")
    assert again.view()["outcome"] == {"winner": None, "reason": "threefold repetition",
                                       "points": 0}  # fmt: skip
    with pytest.raises(ActionRefused, match="draws 'sometimes' is not one of automatic, claim"):
        Table(RULES, {"draws": "sometimes"})


def test_the_computer_claims_a_draw_unless_it_stands_better() -> None:
    # a lone king each: when the shuttle gives White a claim on its move, it claims (people
    # play the shuttle, then the computer takes White's seat)
    people = Table(RULES, {"start": "B:WK32:BK1"})
    for side, path in SHUTTLE + SHUTTLE[:3]:
        people.act(side, move(*path))
    level = Table.from_record({**people.to_record(), "seats": {
        "black": {"kind": "person"}, "white": {"kind": "computer", "level": "hard"}}},
        {"checkers": RULES})  # fmt: skip
    assert level.game.view("white")["claimable"] == "threefold repetition"
    level.play_computer()
    assert level.game.log()[-1] == {"claim_draw": "white"}
    assert level.view()["outcome"] == {"winner": None, "reason": "threefold repetition",
                                       "points": 0}  # fmt: skip
    # three kings against one: White may claim the same repetition but stands better, and
    # plays on
    ahead = Table(RULES, {"start": "B:WK30,K31,K32:BK1"})
    for side, path in SHUTTLE + SHUTTLE[:3]:
        ahead.act(side, move(*path))
    assert ahead.game.view("white")["claimable"] == "threefold repetition"
    better = Table.from_record({**ahead.to_record(), "seats": {
        "black": {"kind": "person"}, "white": {"kind": "computer", "level": "hard"}}},
        {"checkers": RULES})  # fmt: skip
    better.play_computer()
    assert better.view()["outcome"] is None
    assert "move" in better.game.log()[-1] and better.view()["to_act"] == ["black"]


def test_the_clock_starts_with_the_first_move_and_adds_the_increment() -> None:
    now = FakeNow()
    control = TimeControl("test", 60.0, 2.0)
    table = Table(RULES, time_control=control, now=now)
    now.t += 30  # Black thinks about the first move: no clock runs yet
    assert table.clock_view() == {
        "control": "test",
        "reserve": 60.0,
        "increment": 2.0,
        "remaining": {"white": 60.0, "black": 60.0},
        "running": None,
    }
    table.act("black", move(11, 15))
    assert table.clock_view()["running"] == "white"  # type: ignore[index]
    now.t += 10
    table.act("white", move(23, 19))  # 10 s used, 2 s back
    now.t += 5
    table.act("black", move(8, 11))  # 5 s used, 2 s back
    clock = table.clock_view()
    assert clock is not None and clock["remaining"] == {"white": 52.0, "black": 57.0}
    # an offer does not complete a turn: no increment, the mover's clock keeps running
    now.t += 1
    table.act("white", {"type": "offer_draw"})
    clock = table.clock_view()
    assert clock is not None and clock["running"] == "white"
    assert clock["remaining"]["white"] == pytest.approx(51.0)


def test_a_side_whose_time_runs_out_loses() -> None:
    now = FakeNow()
    bullet = TIME_CONTROLS["bullet"]
    assert bullet is not None
    table = Table(RULES, time_control=bullet, now=now)
    table.act("black", move(11, 15))
    now.t += bullet.reserve + 5  # White lets the whole reserve run out
    assert table.view()["outcome"] is None  # nothing has checked yet
    assert table.check_time() == "white"
    assert table.view()["outcome"] == {"winner": "black", "reason": "time", "points": 1}
    clock = table.clock_view()
    assert clock is not None and clock["remaining"]["white"] == 0.0 and clock["running"] is None
    assert table.game.log()[-1] == {"time_out": "white"}
    with pytest.raises(ActionRefused) as refused:
        table.act("white", move(23, 19))
    assert refused.value.code == "game_over"


def test_a_move_after_the_flag_fell_is_refused_and_the_loss_recorded() -> None:
    now = FakeNow()
    table = Table(RULES, time_control=TimeControl("short", 10.0, 0.0), now=now)
    table.act("black", move(11, 15))
    now.t += 11
    with pytest.raises(ActionRefused, match="the game is over"):
        table.act("white", move(23, 19))
    assert table.view()["outcome"] == {"winner": "black", "reason": "time", "points": 1}


def test_a_running_clock_survives_the_record() -> None:
    now = FakeNow()
    table = Table(RULES, time_control=TimeControl("t", 60.0, 0.0), now=now)
    table.act("black", move(11, 15))
    now.t += 20
    record = table.to_record()
    later = FakeNow()
    again = Table.from_record(record, {"checkers": RULES}, later)
    clock = again.clock_view()
    assert clock is not None and clock["running"] == "white"
    assert clock["remaining"]["white"] == pytest.approx(40.0)
    later.t += 5
    assert again.clock_view()["remaining"]["white"] == pytest.approx(35.0)  # type: ignore[index]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": 2}, "record version 2"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"log": [{"move": "11-16x"}]}, "event 0"),
        ({"log": "11-15"}, "log is not a list"),
        ({"seats": {"white": {"kind": "robot"}, "black": {"kind": "person"}}}, "robot"),
        ({"settings": {"start": "X:W1:B2"}}, "side to move"),
        ({"clock": {"control": {}}}, "malformed saved clock"),
    ],
)
def test_a_bad_record_is_refused_saying_what_is_wrong(
    change: dict[str, Any], message: str
) -> None:
    record = {**Table(RULES).to_record(), **change}
    with pytest.raises(ActionRefused, match=message) as refused:
        Table.from_record(record, {"checkers": RULES})
    assert refused.value.code == "invalid_record"


def test_bad_settings_and_seats_are_refused() -> None:
    with pytest.raises(ActionRefused, match=r"unknown checkers setting\(s\): cube") as refused:
        Table(RULES, {"cube": True})
    assert refused.value.code == "invalid_settings"
    with pytest.raises(ActionRefused, match="level 'grandmaster'") as refused:
        Table(RULES, seats={"white": Seat("computer", "grandmaster"), "black": Seat()})
    assert refused.value.code == "invalid_seat"
    with pytest.raises(ActionRefused, match="no seat for black"):
        Table(RULES, seats={"white": Seat()})
    # a start where the game is already over is no game to play
    for start, why in (("B:W:B1", "white has no pieces"), ("W:W:B1", "white has no pieces"),
                       ("B:W8,11:B4", "black has no legal move")):
        with pytest.raises(ActionRefused, match=f"the game in that position is over: {why}"):
            Table(RULES, {"start": start})
    # a saved table's start is not judged again: it replays as it was played
    over = {**Table(RULES).to_record(), "settings": {"start": "B:W:B1"}}
    assert Table.from_record(over, {"checkers": RULES}).settings["start"] == "B:W:B1"


def test_the_pdn_export_writes_the_game() -> None:
    table = Table(RULES)
    table.act("black", move(11, 15))
    table.act("white", move(23, 19))
    text = RULES.exports()["pdn"](table.game, {"Event": "Table test"})
    assert '[Event "Table test"]' in text and "1. 11-15 23-19 *" in text
