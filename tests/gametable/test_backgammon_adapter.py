"""The table running backgammon through its plug-in (backgammon.adapter): computer seats, the
gate, whose clock runs (the doubled player's while it decides), the record and the export."""

from __future__ import annotations

import random
from typing import Any

import pytest

from backgammon.adapter import RULES
from backgammon.core.game import Phase
from gametable import ActionRefused, Seat, Table, TimeControl
from gametable.seam import Outcome


class FakeNow:
    def __init__(self) -> None:
        self.t = 500.0

    def __call__(self) -> float:
        return self.t


def computers(level: str = "easy") -> dict[Any, Seat]:
    return {"white": Seat("computer", level), "black": Seat("computer", level)}


def test_two_computers_play_a_game_to_the_end_and_the_record_rebuilds_it() -> None:
    table = Table(RULES, {"length": 1, "cube": False}, computers(), seed=11)
    table.play_computer()
    outcome = table.game.outcome()
    assert outcome is not None and outcome.winner in ("white", "black") and outcome.points >= 1
    view = table.view("white")
    assert view["game"] == "backgammon" and view["state"]["phase"] == "match_over"
    again = Table.from_record(table.to_record(), {"backgammon": RULES})
    assert again.view("white") == view
    twin = Table(RULES, {"length": 1, "cube": False}, computers(), seed=11)
    twin.play_computer()
    assert twin.game.log() == table.game.log()


def test_the_gate_and_the_engine_refuse_and_nothing_changes() -> None:
    table = Table(RULES, {"length": 3}, seed=5)
    assert table.view()["to_act"] == ["black", "white"]  # either side throws the opening roll
    # ... and the game's own part names nobody on roll, from either side (as the local door)
    assert [table.view(side)["state"]["to_act"] for side in ("white", "black", None)] == [
        None, None, None]
    assert [table.view(side)["state"]["can"]["roll"] for side in ("white", "black")] == [
        True, True]
    table.act("black", {"type": "roll"})
    mover = table.view()["to_act"][0]
    other = "white" if mover == "black" else "black"
    before = table.to_record()
    for side, action, code in [
        (other, {"type": "move", "play": "8/5 6/5"}, "not_your_turn"),
        (mover, {"type": "move", "play": "24/1"}, "illegal_move"),
        (mover, {"type": "move", "play": 85}, "invalid_action"),
        (mover, {"type": "double"}, "not_allowed"),  # no double once the dice are thrown
        (mover, {"type": "castle"}, "invalid_action"),
        (mover, {"type": "roll", "dice": [6, 6]}, "invalid_action"),
        (mover, {"type": "next_game"}, "not_allowed"),
    ]:
        with pytest.raises(ActionRefused) as refused:
            table.act(side, action)
        assert refused.value.code == code, (action, refused.value)
    assert table.to_record() == before


def test_whose_clock_runs_follows_the_game_and_a_completed_turn_earns_the_increment() -> None:
    now = FakeNow()
    seats = {"white": Seat("person"), "black": Seat("person")}
    table = Table(RULES, {"length": 0, "beavers": False}, seats, seed=3,
                  time_control=TimeControl("t", 100.0, 5.0), now=now)  # fmt: skip
    now.t += 20  # nothing runs before the opening roll
    table.act("white", {"type": "roll"})
    match = table.game.match  # type: ignore[attr-defined]
    mover = "white" if str(match.current.on_roll) == "white" else "black"
    other = "black" if mover == "white" else "white"
    assert table.clock_view()["running"] == mover  # type: ignore[index]
    now.t += 7
    play = str(next(iter(match.current.legal_plays())))
    table.act(mover, {"type": "move", "play": play})  # 7 s used, 5 back
    clock = table.clock_view()
    assert clock is not None and clock["running"] == other
    assert clock["remaining"][mover] == pytest.approx(98.0)
    now.t += 3
    table.act(other, {"type": "double"})  # the doubler's 3 s, no increment: the turn goes on
    assert match.current.phase is Phase.DOUBLE_OFFERED
    clock = table.clock_view()
    assert clock is not None and clock["running"] == mover  # the doubled player decides
    assert clock["remaining"][other] == pytest.approx(97.0)
    now.t += 4
    table.act(mover, {"type": "take"})
    clock = table.clock_view()
    assert clock is not None and clock["running"] == other
    assert clock["remaining"][mover] == pytest.approx(94.0)


def test_running_out_of_time_loses_the_game_and_the_next_starts_on_a_fresh_clock() -> None:
    now = FakeNow()
    table = Table(RULES, {"length": 5}, seed=9, time_control=TimeControl("t", 30.0, 0.0),
                  now=now)  # fmt: skip
    table.act("white", {"type": "roll"})
    mover = table.view()["to_act"][0]
    now.t += 31
    assert table.check_time() == mover
    game = table.game.match.current  # type: ignore[attr-defined]
    assert game.outcome.kind == "timeout" and game.outcome.points == 1
    assert table.view()["state"]["phase"] == "game_over" and table.game.outcome() is None
    assert table.clock_view()["remaining"][mover] == 0.0  # type: ignore[index]
    table.act(mover, {"type": "next_game"})
    assert table.clock_view() == {
        "control": "t",
        "reserve": 30.0,
        "increment": 0.0,
        "remaining": {"white": 30.0, "black": 30.0},
        "running": None,
    }


def test_settings_are_checked() -> None:
    for settings, message in [
        ({"length": 3, "jacoby": True}, "the Jacoby rule is for money play only"),
        ({"length": -1}, "length -1"),
        ({"cube": "yes"}, "cube 'yes' is not a boolean"),
        ({"crawford": False}, "unknown backgammon setting"),
    ]:
        with pytest.raises(ActionRefused, match=message) as refused:
            Table(RULES, settings)
        assert refused.value.code == "invalid_settings"


def test_the_mat_export_writes_the_match() -> None:
    table = Table(RULES, {"length": 1, "cube": False}, computers(), seed=2)
    table.play_computer()
    text = RULES.exports()["mat"](table.game, {})
    assert " 1 point match" in text and "Wins" in text
    assert " White : 0" in text  # no names given: the colours
    named = RULES.exports()["mat"](table.game, {"White": "Ann", "Black": "Bob"})
    assert " Ann : 0" in named and "Bob : 0" in named


def test_a_single_game_is_one_game_of_money_play_with_the_cube() -> None:
    """The local door's single game: the cube in play (a 1-point match has none), the game
    scored at its cube and gammons, and no game after it."""
    table = Table(RULES, {"length": 0, "single": True}, computers("expert"), seed=9)
    table.play_computer()
    assert table.game.outcome() == Outcome("white", "played out", 4)  # a gammon at 2
    match = table.game.match  # type: ignore[attr-defined]
    assert len(match.games) == 1 and match.current.cube_value == 2
    assert "double" in [e["type"] for e in match.current.events]
    assert table.view("white")["state"]["phase"] == "match_over"
    with pytest.raises(ActionRefused, match=r"the game is over \(played out\)") as refused:
        table.act("white", {"type": "next_game"})
    assert refused.value.code == "game_over"
    again = Table.from_record(table.to_record(), {"backgammon": RULES})
    assert again.game.outcome() == table.game.outcome()
    with pytest.raises(ActionRefused, match="a single game is one game of money play") as bad:
        Table(RULES, {"length": 3, "single": True})
    assert bad.value.code == "invalid_settings"


def test_a_forfeit_ends_a_money_session_and_a_timeout_does_not() -> None:
    """Money play goes on game after game; a player who forfeits (left, claimed against, a
    broken reveal) ends the session there, worth three times the cube, and a record replays
    to the same end. A game lost on time is one game: the next may follow."""
    game = RULES.new(RULES.settings({"length": 0}), 1)
    game.apply("white", {"type": "roll"})  # the opening roll
    game.forfeit("white")
    assert game.over and game.to_act() == frozenset()
    assert game.outcome() == Outcome("black", "forfeit", 3)
    view = game.view("black")
    assert view["phase"] == "match_over" and view["can"]["next_game"] is False
    assert view["result"]["text"] == (
        "Black wins 3 points by forfeit. Running total: White 0, Black 3.")
    again = RULES.replay(RULES.settings({"length": 0}), 1, game.log())
    assert again.over and again.outcome() == Outcome("black", "forfeit", 3)

    timed = RULES.new(RULES.settings({"length": 0}), 1)
    timed.apply("white", {"type": "roll"})
    timed.time_out(sorted(timed.to_act())[0])
    assert not timed.over and timed.outcome() is None
    assert timed.view("white")["can"]["next_game"] is True


@pytest.mark.parametrize("rules", [{"jacoby": True}, {"gammons": False}])
def test_a_forfeit_scores_one_game_where_gammons_do_not_count(rules: dict[str, bool]) -> None:
    """Under the Jacoby rule with the cube centred, or with gammons off, the most a money
    game can score is the cube's value: a forfeit scores that (and so reads back from a
    ``.mat`` file as a resignation would)."""
    settings = RULES.settings({"length": 0, "cube": True, **rules})
    game = RULES.new(settings, 1)
    game.apply("white", {"type": "roll"})
    game.forfeit("white")
    assert game.outcome() == Outcome("black", "forfeit", 1)


def test_a_raccoon_through_the_plug_in() -> None:
    """``{"type": "raccoon"}``: the original doubler answers a beaver; the cube at eight times
    stays with the beaver (rec.games.backgammon FAQ 8)."""
    table = Table(RULES, {"length": 0, "cube": True, "beavers": True}, seed=3)
    table.act("white", {"type": "roll"})
    match = table.game.match  # type: ignore[attr-defined]
    mover = str(match.current.on_roll)
    other = "black" if mover == "white" else "white"
    play = str(next(iter(match.current.legal_plays())))
    table.act(mover, {"type": "move", "play": play})
    table.act(other, {"type": "double"})
    with pytest.raises(ActionRefused) as refused:
        table.act(mover, {"type": "raccoon"})
    assert refused.value.code == "not_allowed"  # only a beaver can be raccooned
    table.act(mover, {"type": "beaver"})
    with pytest.raises(ActionRefused) as refused:
        table.act(mover, {"type": "raccoon"})
    assert refused.value.code == "not_your_turn"
    table.act(other, {"type": "raccoon"})
    assert table.view()["to_act"] == [mover]
    table.act(mover, {"type": "take"})
    game = match.current
    assert (game.cube_value, str(game.cube_owner), game.phase) == (8, mover, Phase.ROLL)
    assert [t.text for t in game.history if t.action != "move"] == [
        "Doubles => 2", "Beavers => 4", "Raccoons => 8", "Takes"]


def test_named_seats_give_the_words_the_players_names() -> None:
    """Seats with names (an online room's players): each side reads "You" and its opponent's
    name, the move list both names; without names the words keep the colours."""
    seats = {"white": Seat("person", None, "Ann"), "black": Seat("person", None, "Bob")}
    table = Table(RULES, {"length": 3}, seats, seed=5)
    table.act("white", {"type": "roll"})
    mover = table.view()["to_act"][0]
    other = "white" if mover == "black" else "black"
    play = table.rules.computer_action(table.game, mover, "easy", random.Random(1))
    table.act(mover, play)
    table.act(other, {"type": "double"})
    name = {"white": "Ann", "black": "Bob"}
    assert table.view(mover)["state"]["message"].startswith(f"{name[other]} doubles to 2")
    assert table.view(other)["state"]["message"].startswith("You double to 2")
    history = [entry["text"] for entry in table.view(mover)["state"]["history"]]
    assert history[-1] == f"{name[other]} doubles to 2"
    assert any(line.startswith(f"{name[mover]} ") for line in history)
    # a player who gave no name is "Your opponent"; a spectator reads both names
    assert table.view(mover, names={mover: name[mover], other: ""})["state"][
        "message"].startswith("Your opponent doubles to 2")
    assert table.view(None)["state"]["message"].startswith(f"{name[other]} doubles to 2")
    plain = Table(RULES, {"length": 3}, seed=5)
    for action in ({"type": "roll"}, play):
        plain.act("white" if action["type"] == "roll" else mover, action)
    plain.act(other, {"type": "double"})
    assert plain.view(mover)["state"]["message"].startswith(f"{other.title()} doubles to 2")


def test_both_seats_views_share_a_states_parts_and_equal_views_made_afresh() -> None:
    """The view's parts that do not depend on the viewer (board, dice, cube, score, move list,
    last turn) are made once a state for both seats; each seat's view equals the one a fresh
    copy of the match (nothing kept from before) gives, state after state of a match."""
    table = Table(RULES, {"length": 3}, computers(), seed=5)
    names = {"white": "Ann", "black": "Bob"}
    states = 0
    while table.game.outcome() is None and states < 400:
        views = {side: table.game.view(side, names=names) for side in ("white", "black")}
        if states % 5 == 0 or table.game.to_act() == frozenset():  # (a replay costs the game)
            fresh = RULES.replay(table.settings, table.seed, table.game.log())
            for side in ("white", "black"):
                assert views[side] == fresh.view(side, names=names)
        for part in ("board", "history", "score", "cube", "last_turn"):
            assert views["white"][part] is views["black"][part]  # made once
        side = table.computer_to_act()
        if side is None:  # between two games: the next one asked for
            table.act("white", {"type": "next_game"})
            states += 1
            continue
        level = table.seats[side].level or "easy"
        table.act(side, RULES.computer_action(table.game, side, level, random.Random(states)))
        states += 1
    assert table.game.outcome() is not None and states > 40
    assert len(table.game.log()[0]["games"]) >= 2  # the lines of several games, headed


@pytest.mark.parametrize("level", [{"a": 1}, [1], None, 2])
def test_a_resignation_level_of_another_type_is_refused_in_words(level: object) -> None:
    """A hostile message's ``level`` that is no text is an invalid action (not a crash),
    and the game is as it was."""
    game = RULES.new(RULES.settings({"length": 0}), 1)
    game.apply("white", {"type": "roll"})
    mover = sorted(game.to_act())[0]
    before = game.log()
    with pytest.raises(ActionRefused, match="resign level") as refused:
        game.apply(mover, {"type": "resign", "level": level})
    assert refused.value.code == "invalid_action"
    assert game.log() == before
