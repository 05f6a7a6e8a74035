"""A play built checker by checker through backgammon's table plug-in (backgammon.adapter):
``move_checker``, ``undo`` and ``end_turn``, their refusals, the views and outcome made afresh
after each, the clock across them, an online room that takes them, and records that keep the
checkers moved so far."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from backgammon.adapter import RULES, TableMatch
from backgammon.core.dice import FixedDice
from backgammon.core.match import Match, MatchSetup
from backgammon.core.types import WHITE
from backgammon.services.destinations import own_point, paths_by_destination, refusal
from boards import diagram
from checkers.adapter import RULES as CHECKERS
from fake_clock import FakeNow
from gametable import ActionRefused, Seat, Table, TimeControl
from gametable.room_store import RoomStore
from gametable.rooms import RoomService
from gametable.seam import Applied, GameRules, Outcome, Side
from room_rounds import throw_opening

# Seeded tables whose opening roll (thrown by White) gives, to be played:
WHITE_31 = 23  # White 3-1
BLACK_31 = 0  # Black 3-1
WHITE_65 = 37  # White 6-5

SETTINGS = {"length": 3}


def checker(src: Any, dst: Any) -> dict[str, Any]:
    return {"type": "move_checker", "from": src, "to": dst}


def opened(seed: int, **kwargs: Any) -> Table:
    table = Table(RULES, SETTINGS, seed=seed, **kwargs)
    table.act("white", {"type": "roll"})
    return table


def points(table: Table, side: Side = "white") -> list[int]:
    return list(table.view(side)["state"]["board"]["points"])


def pending(table: Table) -> list[list[int]] | None:
    """The checkers moved so far this turn, as the match log keeps them."""
    moves: list[list[int]] | None = table.game.log()[0]["games"][-1].get("moves")
    return moves


def refused(table: Table, side: Side, action: dict[str, Any]) -> ActionRefused:
    before = table.to_record()
    with pytest.raises(ActionRefused) as caught:
        table.act(side, action)
    assert table.to_record() == before  # nothing changed
    return caught.value


def test_black_builds_a_play_checker_by_checker_and_ends_the_turn() -> None:
    """Places are White's numbering: Black's 8/5 6/5 is 17 to 20 and 19 to 20."""
    table = opened(BLACK_31)
    assert table.view()["to_act"] == ["black"]
    start = points(table)
    assert (start[17], start[19], start[20]) == (-3, -5, 0)

    assert table.act("black", checker(17, 20)) == Applied((), turn_complete=False)
    board = points(table, "black")
    assert (board[17], board[19], board[20]) == (-2, -5, -1)
    state = table.view("black")["state"]
    assert state["dice_left"] == [1] and state["can"]["undo"] is True
    assert [m["text"] for m in state["played"]] == ["8/5"]
    assert pending(table) == [[8, 5, 3]]
    assert table.view()["to_act"] == ["black"]  # the turn goes on

    assert table.act("black", checker(19, 20)) == Applied((), turn_complete=False)
    board = points(table, "black")
    assert (board[17], board[19], board[20]) == (-2, -4, -2)
    assert table.view("black")["state"]["dice_left"] == []
    assert pending(table) == [[8, 5, 3], [6, 5, 1]]

    # nothing is left to move; a whole play sent now is refused (the checkers moved stand)
    error = refused(table, "black", checker(19, 21))
    assert (error.code, str(error)) == (
        "illegal_move", "6/4: no move is left this turn: press Done")
    error = refused(table, "black", {"type": "move", "play": "8/5 6/5"})
    assert (error.code, str(error)) == (
        "not_allowed", "moves were already made this turn: undo them or end the turn")

    applied = table.act("black", {"type": "end_turn"})
    assert applied.turn_complete and not applied.new_game
    assert applied.events == (
        {"type": "play", "color": "black", "moves": [[8, 5, 3], [6, 5, 1]]},)
    assert table.view()["to_act"] == ["white"] and pending(table) is None
    view = table.view("white")["state"]
    assert view["phase"] == "roll" and view["board"]["points"] == board
    assert view["history"][-1]["text"] == "Black 3-1: 8/5 6/5"
    # an ended turn is final
    assert refused(table, "black", {"type": "undo"}).code == "not_your_turn"
    error = refused(table, "white", {"type": "undo"})
    assert (error.code, str(error)) == (
        "not_allowed", "nothing to undo: no move has been made this turn (an ended turn is final)")


def test_a_checker_sent_several_dice_away_moves_through_the_points_between() -> None:
    table = opened(WHITE_65)
    assert table.act("white", checker(24, 13)) == Applied((), turn_complete=False)
    assert pending(table) == [[24, 18, 6], [18, 13, 5]]
    board = points(table)
    assert (board[24], board[18], board[13]) == (1, 0, 6)
    assert table.act("white", {"type": "undo"}) == Applied((), turn_complete=False)
    assert pending(table) == [[24, 18, 6]]  # one die at a time back
    assert points(table)[18] == 1
    table.act("white", {"type": "undo"})
    assert pending(table) is None and points(table) == points(opened(WHITE_65))
    table.act("white", checker(24, 13))
    table.act("white", {"type": "end_turn"})
    assert table.view()["state"]["history"][-1]["text"] == "White 6-5: 24/13"


def test_refusals_name_the_fault_and_change_nothing() -> None:
    fresh = Table(RULES, SETTINGS, seed=WHITE_31)
    error = refused(fresh, "white", checker(8, 5))
    assert (error.code, str(error)) == (
        "not_allowed", "there is nothing to move: the opening roll has not been thrown")
    assert refused(fresh, "white", {"type": "end_turn"}).code == "not_allowed"

    table = opened(WHITE_31)
    for action, code, message in [
        (checker(13, 7), "illegal_move",
         "13/7 is not a legal move: no die shows 6: the dice left are 3 and 1"),
        (checker(6, 1), "illegal_move", "6/1 is not a legal move: the 1-point is held by Black"),
        (checker("bar", 22), "illegal_move",
         "bar/22 is not a legal move: you have no checker on the bar"),
        (checker(True, 5), "invalid_action",
         "there is no point True to move from (expected 1..24 or 'bar')"),
        (checker(8, "bar"), "invalid_action",
         "there is no point 'bar' to move to (expected 1..24 or 'off')"),
        (checker("off", 5), "invalid_action",
         "there is no point 'off' to move from (expected 1..24 or 'bar')"),
        (checker(0, 5), "invalid_action",
         "there is no point 0 to move from (expected 1..24 or 'bar')"),
        (checker(8, 25), "invalid_action",
         "there is no point 25 to move to (expected 1..24 or 'off')"),
        (checker("8", 5), "invalid_action",
         "there is no point '8' to move from (expected 1..24 or 'bar')"),
        (checker(8.0, 5), "invalid_action",
         "there is no point 8.0 to move from (expected 1..24 or 'bar')"),
        ({"type": "move_checker", "from": 8}, "invalid_action",
         "a checker move needs a 'to' place"),
        ({"type": "move_checker", "to": 5}, "invalid_action",
         "a checker move needs a 'from' place"),
        ({**checker(8, 5), "die": 3}, "invalid_action",
         "unexpected field(s) for move_checker: die"),
        ({"type": "undo", "moves": 1}, "invalid_action", "unexpected field(s) for undo: moves"),
        ({"type": "end_turn", "play": "8/5 6/5"}, "invalid_action",
         "unexpected field(s) for end_turn: play"),
        ({"type": "undo"}, "not_allowed",
         "nothing to undo: no move has been made this turn (an ended turn is final)"),
        ({"type": "end_turn"}, "illegal_move",
         "the play is not complete: more dice can be played (e.g. 24/21)"),
    ]:
        error = refused(table, "white", action)
        assert (error.code, str(error)) == (code, message), action
    for action in (checker(8, 5), {"type": "undo"}, {"type": "end_turn"}):
        error = refused(table, "black", action)
        assert (error.code, str(error)) == ("not_your_turn", "it is white's to act")

    table.act("white", checker(8, 5))
    error = refused(table, "white", {"type": "end_turn"})
    assert (error.code, str(error)) == (
        "illegal_move", "the play is not complete: more dice can be played (e.g. 24/23)")
    table.act("white", checker(6, 5))
    table.act("white", {"type": "end_turn"})
    # Black is to roll: nothing to move, no turn to end, and White's turn is over
    error = refused(table, "black", checker(17, 20))
    assert (error.code, str(error)) == ("not_allowed", "there is nothing to move: black is to roll")
    error = refused(table, "black", {"type": "end_turn"})
    assert (error.code, str(error)) == (
        "not_allowed", "cannot end the turn now: the dice have not been rolled")
    assert refused(table, "white", checker(13, 10)).code == "not_your_turn"


def test_the_refusal_words_are_the_local_doors_own() -> None:
    """``own_point`` and ``refusal`` (services.destinations) are the words both doors give."""
    game = opened(WHITE_31).game.match.current  # type: ignore[attr-defined]
    paths = paths_by_destination(game)
    assert refusal(game, 13, 7, paths) == (
        "13/7 is not a legal move: no die shows 6: the dice left are 3 and 1")
    assert refusal(game, 13, 7, {}) == "13/7: no move is left this turn: press Done"
    assert own_point(5, WHITE, source=False) == 5
    assert own_point(5, WHITE.opponent, source=True) == 20  # Black's 20-point
    assert own_point("bar", WHITE, source=True) == 25
    assert own_point("off", WHITE, source=False) == 0


def test_undo_then_another_checker_shows_the_new_board_not_a_cached_one() -> None:
    """The view (its parts shared by both seats made once a state) and the outcome are made
    afresh after each checker moved or taken back: each equals a fresh replay's."""
    table = opened(WHITE_31)
    game = table.game

    def fresh(side: Side) -> dict[str, Any]:
        return RULES.replay(table.settings, table.seed, game.log()).view(side)

    first = {side: game.view(side) for side in ("white", "black")}
    table.act("white", checker(8, 5))
    moved = game.view("white")
    assert (moved["board"]["points"][8], moved["board"]["points"][5]) == (2, 1)
    assert moved == fresh("white") and game.view("black") == fresh("black")
    table.act("white", {"type": "undo"})
    assert {side: game.view(side) for side in ("white", "black")} == first
    table.act("white", checker(6, 5))  # the same number of checkers moved, another board
    other = game.view("white")
    board = other["board"]["points"]
    assert (board[8], board[6], board[5]) == (3, 4, 1)
    assert [m["text"] for m in other["played"]] == ["6/5"] and other["dice_left"] == [3]
    assert other == fresh("white") and game.view("black") == fresh("black")
    assert game.view("black")["board"] is other["board"]  # shared by both seats, this state
    # taken back and another checker moved with no view read between: as many checkers
    # moved, as many events, yet another state
    table.act("white", {"type": "undo"})
    table.act("white", checker(8, 5))
    again = game.view("white")
    assert (again["board"]["points"][8], again["board"]["points"][6]) == (2, 5)
    assert [m["text"] for m in again["played"]] == ["8/5"] and again["dice_left"] == [1]
    assert again == fresh("white") and game.view("black") == fresh("black")


def test_the_outcome_waits_for_the_turn_to_end() -> None:
    """White bears off its last two checkers one at a time: the match is won only when the
    turn ends (a checker taken back in between goes back on the board)."""
    start = diagram(white="2:1 1:1", black="6:3", turn="white")
    match = Match(1, cube=False, setup=MatchSetup(start), dice=FixedDice([(6, 5)]))
    game = TableMatch(match)
    game.apply("white", {"type": "roll"})
    assert game.outcome() is None
    game.apply("white", checker(2, "off"))
    assert game.outcome() is None and game.view("white")["board"]["off"]["white"] == 14
    game.apply("white", {"type": "undo"})
    assert game.view("white")["board"]["off"]["white"] == 13
    game.apply("white", checker(2, "off"))
    game.apply("white", checker(1, "off"))
    assert game.outcome() is None and game.view("white")["board"]["off"]["white"] == 15
    assert game.to_act() == frozenset({"white"})
    applied = game.apply("white", {"type": "end_turn"})
    assert applied.turn_complete
    assert game.outcome() == Outcome("white", "match", 1)
    assert game.view("white")["phase"] == "match_over"


def test_the_clock_runs_on_across_checker_moves_and_the_increment_comes_at_the_end() -> None:
    now = FakeNow()
    seats = {"white": Seat("person"), "black": Seat("person")}
    table = opened(WHITE_31, seats=seats, time_control=TimeControl("t", 100.0, 5.0), now=now)
    clock = table.clock
    assert clock is not None and clock.running == "white"
    now.advance(4)
    table.act("white", checker(8, 5))
    assert clock.running == "white"
    assert clock.remaining("white") == pytest.approx(96.0)  # no increment for one checker
    now.advance(3)
    table.act("white", {"type": "undo"})
    assert clock.running == "white" and clock.remaining("white") == pytest.approx(93.0)
    now.advance(2)
    with pytest.raises(ActionRefused):
        table.act("white", {"type": "end_turn"})  # a refusal stops nothing either
    table.act("white", checker(8, 5))
    table.act("white", checker(6, 5))
    assert clock.running == "white" and clock.remaining("white") == pytest.approx(91.0)
    now.advance(1)
    table.act("white", {"type": "end_turn"})  # 10 s used, 5 back
    view = table.clock_view()
    assert view is not None and view["running"] == "black"
    assert view["remaining"] == {"white": pytest.approx(95.0), "black": pytest.approx(100.0)}


def test_a_record_keeps_the_checkers_moved_so_far() -> None:
    table = opened(BLACK_31)
    table.act("black", checker(17, 20))
    record = table.to_record()
    assert record["log"][0]["games"][-1]["moves"] == [[8, 5, 3]]
    again = Table.from_record(record, {"backgammon": RULES})
    assert again.view("black") == table.view("black")
    assert points(again)[20] == -1 and pending(again) == [[8, 5, 3]]
    again.act("black", {"type": "undo"})
    again.act("black", checker(19, 20))
    again.act("black", checker(17, 20))
    again.act("black", {"type": "end_turn"})
    table.act("black", checker(19, 20))
    table.act("black", {"type": "end_turn"})
    assert points(again) == points(table)
    assert again.view()["to_act"] == ["white"]


def _first_legal(view: dict[str, Any]) -> dict[str, Any]:
    legal = view["state"]["legal"][0]
    return checker(legal["from"], legal["destinations"][0]["to"])


def test_an_online_room_takes_checker_moves_from_the_side_to_move_and_keeps_them(
    tmp_path: Path,
) -> None:
    now = FakeNow()
    db = tmp_path / "rooms.sqlite3"
    games: dict[str, GameRules] = {"backgammon": RULES, "checkers": CHECKERS}
    svc = RoomService(games, RoomStore(db), now=now)
    code, _, _, _ = svc.create("backgammon", {"length": 3}, "blitz", name="Ann", side="white")
    svc.join(code, "Bob")
    throw_opening(svc, code)
    room = svc.room(code)
    mover: Side = next(iter(room.table.game.to_act()))
    other: Side = "black" if mover == "white" else "white"
    first = _first_legal(room.view(mover))

    def action(side: Side, act: dict[str, Any]) -> None:
        svc.handle(code, side, {"type": "action", "action": act})

    for act in (first, {"type": "undo"}, {"type": "end_turn"}):
        before = room.to_record()
        with pytest.raises(ActionRefused) as caught:
            action(other, act)
        assert caught.value.code == "not_your_turn" and room.to_record() == before
    start = room.view(other)["state"]["board"]
    action(mover, first)
    moved = room.view(other)["state"]
    assert moved["board"] != start and len(moved["played"]) >= 1
    assert room.view(None)["clock"]["running"] == mover
    action(mover, {"type": "undo"})
    assert room.view(other)["state"]["board"] == start
    action(mover, first)

    # the server restarts: the room comes back from its store with the checker moved
    again = RoomService(games, RoomStore(db), now=now)
    assert again.restore() == [code]
    back = again.room(code)
    assert back.view(other)["state"]["board"] == moved["board"]
    assert back.view(mover)["state"]["played"] == moved["played"]
    assert back.table.game.log()[0]["games"][-1]["moves"]
    while back.view(mover)["state"]["legal"]:
        again.handle(code, mover, {"type": "action", "action": _first_legal(back.view(mover))})
    again.handle(code, mover, {"type": "action", "action": {"type": "end_turn"}})
    assert back.table.game.to_act() == frozenset({other})
    history = back.view(other)["state"]["history"]
    assert history[-1]["kind"] == "play"


def test_a_computer_seat_still_plays_whole_plays() -> None:
    """The computer's action stays a whole play; a person's checker moves do not get in the
    way of the computer's turn after it."""
    seats: dict[Side, Seat] = {"white": Seat("person"), "black": Seat("computer", "easy")}
    table = Table(RULES, SETTINGS, seats, seed=WHITE_31)
    table.act("white", {"type": "roll"})
    table.act("white", checker(8, 5))
    table.act("white", checker(6, 5))
    table.act("white", {"type": "end_turn"})
    assert table.computer_to_act() == "black"
    action = RULES.computer_action(table.game, "black", "easy", random.Random(1))
    assert action == {"type": "roll"}
