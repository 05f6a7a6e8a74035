"""One game: opening roll, turns and undo, the cube, resignations, timeouts, scoring, the log."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon.core.dice import FixedDice
from backgammon.core.errors import (
    IllegalActionError,
    IllegalMoveError,
    IllegalPlayError,
    InvalidDiceError,
    InvalidLogError,
    InvalidSettingsError,
)
from backgammon.core.game import Game, GameOutcome, GameSettings, Phase
from backgammon.core.ids import decode_match_id
from backgammon.core.match import Match
from backgammon.core.moves import Move
from backgammon.core.position import Position, ResultKind
from backgammon.core.types import BLACK, CHECKERS_PER_SIDE, WHITE
from boards import diagram

CUBE = GameSettings(cube=True)
#: A race far from the end: White 15 on its 13-point, Black 15 on its 13-point (White's 12).
#: Any roll of 6-5 plays 13/7 13/8 for a long while.
RACE = diagram(white="13:15", black="13:15", turn="white")


def snapshot(game: Game) -> tuple[Any, ...]:
    """Everything observable about a game, to prove a refused action changed nothing."""
    return (game.to_json(), game.phase, game.position, game.turn_start, game.dice,
            game.played, game.cube_value, game.cube_owner, game.history, game.outcome)


def refused(game: Game, error: type[Exception], action: Any, *args: Any, **kw: Any) -> str:
    """Call ``action``, expect ``error``, and check the game is unchanged; returns the message."""
    before = snapshot(game)
    with pytest.raises(error) as info:
        action(*args, **kw)
    assert snapshot(game) == before
    return str(info.value)


def race_game(rolls: int = 60, **settings_kw: Any) -> Game:
    return Game(GameSettings(cube=True, start=RACE, **settings_kw),
                dice=FixedDice([(6, 5)] * rolls))


def roll_and_play(game: Game) -> None:
    game.roll()
    game.play(game.legal_plays()[0])


# --------------------------------------------------------------------------------------------
# Opening roll and the turn cycle


def test_opening_roll_higher_die_moves_first_with_both_dice() -> None:
    game = Game(dice=FixedDice([(3, 3), (2, 5)]))
    assert game.phase is Phase.OPENING and game.turn is None and game.on_roll is None
    assert game.roll() == (2, 5)  # the tie 3-3 is thrown again inside the dice
    assert game.phase == "move"
    assert game.on_roll is BLACK and game.turn is BLACK
    assert game.dice == (5, 2)
    assert game.turn_start == Position.start(BLACK)
    assert game.events == ({"type": "opening_roll", "white": 2, "black": 5},)


def test_opening_tie_given_from_outside_is_recorded_and_thrown_again() -> None:
    game = Game()
    assert game.roll(dice=(4, 4)) == (4, 4)
    assert game.phase is Phase.OPENING
    game.roll(dice=(6, 1))
    assert game.on_roll is WHITE and game.dice == (6, 1)
    assert [e["type"] for e in game.events] == ["opening_roll", "opening_roll"]
    assert all(e.get("given") for e in game.events)


def test_turn_by_moves_then_end_turn() -> None:
    game = Game(dice=FixedDice([(3, 1), (6, 4)]))
    game.roll()
    assert game.on_roll is WHITE and game.dice_left == (3, 1)
    assert game.move("8/5") == Move(8, 5, 3)
    assert game.dice_left == (1,)
    game.move(Move(6, 5, 1))
    assert game.legal_moves() == []
    assert game.position.points[5] == 2 and game.turn_start == Position.start(WHITE)
    play = game.end_turn()
    assert str(play) == "8/5 6/5"
    assert game.phase is Phase.ROLL and game.on_roll is BLACK
    assert game.turn_start.turn is BLACK and game.position.points[5] == 2
    assert game.history[-1].text == "8/5 6/5" and game.history[-1].dice == (3, 1)
    game.roll()
    assert game.dice == (6, 4) and game.on_roll is BLACK


def test_undo_puts_the_same_dice_back() -> None:
    game = Game(dice=FixedDice([(3, 1), (6, 4), (2, 1)]))
    game.roll()
    game.move("8/5")
    game.move("6/5")
    assert game.undo() == Move(6, 5, 1)
    assert game.undo() == Move(8, 5, 3)
    assert game.dice == (3, 1) and game.dice_left == (3, 1)
    assert game.position == Position.start(WHITE) and game.played == ()
    refused(game, IllegalActionError, game.undo)
    game.move("13/10")
    game.move("24/23")
    game.end_turn()
    # The turn is final once ended; after the next roll there is nothing to undo either.
    message = refused(game, IllegalActionError, game.undo)
    assert "ended turn is final" in message
    game.roll()
    refused(game, IllegalActionError, game.undo)
    assert game.dice == (6, 4)


def test_end_turn_refuses_an_incomplete_play() -> None:
    game = Game(dice=FixedDice([(3, 1)]))
    game.roll()
    game.move("8/5")
    message = refused(game, IllegalActionError, game.end_turn)
    assert "not complete" in message


def test_illegal_move_and_play_leave_the_game_unchanged() -> None:
    game = Game(dice=FixedDice([(3, 1)]))
    game.roll()
    refused(game, IllegalMoveError, game.move, "8/4")
    refused(game, IllegalMoveError, game.move, Move(8, 5, 1))
    refused(game, IllegalPlayError, game.play, "13/8")
    refused(game, IllegalPlayError, game.play, "8/5")  # uses one die of two
    game.move("8/5")
    refused(game, IllegalActionError, game.play, "8/5 6/5")  # moves already made
    refused(game, IllegalActionError, game.roll)


def test_play_by_notation_and_by_play_object() -> None:
    game = Game(dice=FixedDice([(3, 1), (6, 6)]))
    game.roll()
    assert str(game.play("6/5 8/5")) == "8/5 6/5"
    game.roll()
    plays = game.legal_plays()
    target = next(p for p in plays if str(p) == "24/18(2) 13/7(2)")
    assert game.play(target) == target
    assert game.history[-1].color is BLACK


def test_forced_pass_is_recorded() -> None:
    # Black's checker on the bar faces White's closed board: no 6-5 can be played.
    start = diagram(white="1:2 2:2 3:2 4:2 5:2 6:2 8:3", black="bar:1 13:14", turn="black")
    game = Game(GameSettings(start=start), dice=FixedDice([(6, 5), (2, 1)]))
    assert game.phase is Phase.ROLL and game.on_roll is BLACK
    game.roll()
    assert game.phase is Phase.ROLL and game.on_roll is WHITE
    assert game.events[-1] == {"type": "pass", "color": "black"}
    assert game.history[-1].action == "move" and game.history[-1].moves == ()
    assert game.history[-1].dice == (6, 5)


def test_seconds_are_recorded_for_the_clocks() -> None:
    game = Game(dice=FixedDice([(3, 1)]))
    game.roll(seconds=0.5)
    game.play("8/5 6/5", seconds=12.25)
    assert game.events[0]["seconds"] == 0.5
    assert game.events[1]["seconds"] == 12.25
    assert game.history[0].seconds == 12.25
    game2 = Game(dice=FixedDice([(4, 2)]))
    refused(game2, IllegalActionError, game2.roll, seconds=-1)


# --------------------------------------------------------------------------------------------
# Scoring on the board: WBF rules 5.1-5.3


@pytest.mark.parametrize(
    ("black", "kind"),
    [
        ("13:15", ResultKind.GAMMON),  # none off, nothing in White's home board
        ("13:14 24:1", ResultKind.BACKGAMMON),  # a checker in White's home board
        ("13:14 bar:1", ResultKind.BACKGAMMON),  # a checker on the bar
        ("13:13 24:1", ResultKind.SINGLE),  # one off: single, even with a checker back there
    ],
)
@pytest.mark.parametrize("doubled", [False, True])
def test_single_gammon_backgammon_times_cube(black: str, kind: ResultKind, doubled: bool) -> None:
    start = diagram(white="2:1", black=black, turn="white")
    game = Game(GameSettings(cube=True, start=start), dice=FixedDice([(2, 1)]))
    if doubled:
        game.double()
        game.take()
    game.roll()
    game.play("2/off")
    cube = 2 if doubled else 1
    assert game.outcome == GameOutcome(WHITE, str(kind).split()[0], int(kind) * cube, kind)
    assert game.phase is Phase.OVER and game.turn is None
    refused(game, IllegalActionError, game.roll)
    refused(game, IllegalActionError, game.timeout, BLACK)


# --------------------------------------------------------------------------------------------
# The cube: WBF rules 6.1-6.5


def test_double_take_gives_the_cube_to_the_taker() -> None:
    game = race_game()
    assert game.can_double() and game.can_double(WHITE) and not game.can_double(BLACK)
    assert game.double() == 2
    assert game.phase is Phase.DOUBLE_OFFERED and game.turn is BLACK
    assert game.cube_value == 1
    game.take()
    assert (game.cube_value, game.cube_owner) == (2, BLACK)
    assert game.phase is Phase.ROLL and game.turn is WHITE
    assert not game.can_double()  # White no longer has access to the cube
    assert [t.text for t in game.history] == ["Doubles => 2", "Takes"]


def test_non_owner_cannot_double() -> None:
    game = race_game()
    game.double()
    game.take()
    roll_and_play(game)
    roll_and_play(game)  # back to White, whose opponent owns the cube
    message = refused(game, IllegalActionError, game.double)
    assert message == "White cannot double: Black owns the cube"
    roll_and_play(game)
    assert game.on_roll is BLACK and game.can_double()


def test_cube_actions_out_of_turn_are_refused() -> None:
    game = race_game()
    refused(game, IllegalActionError, game.take)
    refused(game, IllegalActionError, game.drop)
    refused(game, IllegalActionError, game.accept_resignation)
    game.roll()
    assert "the dice are rolled" in refused(game, IllegalActionError, game.double)
    game.play(game.legal_plays()[0])
    game.double()
    refused(game, IllegalActionError, game.roll)
    refused(game, IllegalActionError, game.double)
    refused(game, IllegalActionError, game.resign, WHITE)
    refused(game, IllegalActionError, game.beaver)  # beavers are off


def test_no_cube_no_double() -> None:
    game = Game(GameSettings(start=RACE), dice=FixedDice([(6, 5)]))
    assert "without the cube" in refused(game, IllegalActionError, game.double)


def test_drop_scores_the_value_before_the_double() -> None:
    game = race_game()
    game.double()
    game.take()
    roll_and_play(game)
    game.double()  # Black redoubles to 4
    outcome = game.drop()
    assert outcome == GameOutcome(BLACK, "drop", 2, ResultKind.SINGLE)
    assert game.phase is Phase.OVER and game.outcome == outcome


def test_redouble_chain_to_64_and_beyond() -> None:
    game = race_game(rolls=200)
    value = 1
    while value < 2**20:
        game.double()
        game.take()
        value *= 2
        assert game.cube_value == value
        assert game.cube_owner is game.on_roll.opponent
        roll_and_play(game)
        if value == 64:
            assert game.match_state().cube_value == 64
    assert game.cube_value == 2**20
    game.double()
    assert game.drop().points == 2**20


def test_jacoby_counts_gammons_only_after_the_cube_is_turned() -> None:
    start = diagram(white="1:1", black="13:15", turn="white")
    money = GameSettings(cube=True, jacoby=True, start=start)
    game = Game(money, dice=FixedDice([(2, 1)]))
    game.roll()
    game.play("1/off")
    assert game.outcome == GameOutcome(WHITE, "gammon", 1, ResultKind.GAMMON)

    game = Game(money, dice=FixedDice([(2, 1)]))
    game.double()
    game.take()
    game.roll()
    game.play("1/off")
    assert game.outcome == GameOutcome(WHITE, "gammon", 4, ResultKind.GAMMON)


def test_beaver_redoubles_and_keeps_the_cube() -> None:
    game = race_game(beavers=True)
    game.double()
    assert game.beaver() == 4
    # The double is taken and redoubled at once: White, the original doubler, must answer.
    assert game.phase is Phase.DOUBLE_OFFERED and game.turn is WHITE
    assert (game.cube_value, game.cube_owner) == (2, BLACK)
    assert game.history[-1].text == "Beavers => 4"
    refused(game, IllegalActionError, game.beaver)  # no beaver of a beaver
    game.take()
    assert (game.cube_value, game.cube_owner) == (4, BLACK)  # the beaver keeps the cube
    assert game.phase is Phase.ROLL and game.on_roll is WHITE and not game.can_double()
    roll_and_play(game)
    game.double()  # Black owns the cube at 4: may redouble to 8
    game.take()
    assert (game.cube_value, game.cube_owner) == (8, WHITE)
    assert [t.text for t in game.history if t.action != "move"] == [
        "Doubles => 2", "Beavers => 4", "Takes", "Doubles => 8", "Takes"]


def test_beaver_refused_loses_the_doubled_stake() -> None:
    game = race_game(beavers=True)
    game.double()
    game.beaver()
    assert game.drop() == GameOutcome(BLACK, "drop", 2, ResultKind.SINGLE)


def test_beaver_log_replays() -> None:
    game = race_game(beavers=True)
    game.double()
    game.beaver()
    game.take()
    again = Game.replay(game.to_log(), dice=FixedDice([(6, 5)]))
    assert (again.cube_value, again.cube_owner, again.phase) == (4, BLACK, Phase.ROLL)
    log = game.to_log()
    log["events"][1]["cube"] = 8
    with pytest.raises(InvalidLogError, match="event 1: the beaver offers 8"):
        Game.replay(log)


def test_raccoon_redoubles_a_beaver_and_the_beaver_keeps_the_cube() -> None:
    # rec.games.backgammon FAQ 8: A doubles to 2, B beavers to 4, A raccoons to 8; cube
    # ownership remains with B.
    game = race_game(beavers=True)
    assert game.cube_offer is None and not game.can_raccoon()
    game.double()
    assert game.cube_offer == "double" and game.can_beaver() and not game.can_raccoon()
    refused(game, IllegalActionError, game.raccoon)  # only a beaver can be raccooned
    game.beaver()
    assert game.cube_offer == "beaver" and game.can_raccoon() and not game.can_beaver()
    assert game.raccoon() == 8
    assert game.cube_offer == "raccoon" and game.phase is Phase.DOUBLE_OFFERED
    assert game.turn is BLACK  # the beaver answers the raccoon
    assert (game.cube_value, game.cube_owner) == (4, BLACK)
    assert game.history[-1].text == "Raccoons => 8"
    assert game.history[-1].action == "raccoon" and game.history[-1].color is WHITE
    refused(game, IllegalActionError, game.beaver)  # no beaver of a raccoon
    refused(game, IllegalActionError, game.raccoon)  # one raccoon at most
    assert not game.can_beaver() and not game.can_raccoon()
    game.take()
    assert (game.cube_value, game.cube_owner) == (8, BLACK)  # the beaver keeps the cube
    assert game.phase is Phase.ROLL and game.on_roll is WHITE and not game.can_double()
    assert game.cube_offer is None
    assert [t.text for t in game.history if t.action != "move"] == [
        "Doubles => 2", "Beavers => 4", "Raccoons => 8", "Takes"]


def test_raccoon_dropped_loses_four_times_the_stake() -> None:
    game = race_game(beavers=True)
    game.double()
    game.beaver()
    game.raccoon()
    assert game.drop() == GameOutcome(WHITE, "drop", 4, ResultKind.SINGLE)


def test_raccoon_needs_beavers() -> None:
    game = race_game()
    game.double()
    message = refused(game, IllegalActionError, game.raccoon)
    assert message == "raccoons are not allowed in this game (beavers are off)"


def test_raccoon_log_replays_and_is_checked() -> None:
    game = race_game(beavers=True)
    game.double()
    game.beaver()
    game.raccoon(seconds=1.5)
    assert game.events[-1] == {"type": "raccoon", "color": "white", "cube": 8, "seconds": 1.5}
    game.take()
    again = Game.replay(game.to_log(), dice=FixedDice([(6, 5)]))
    assert (again.cube_value, again.cube_owner, again.phase) == (8, BLACK, Phase.ROLL)
    log = game.to_log()
    log["events"][2]["cube"] = 16
    with pytest.raises(InvalidLogError, match="event 2: the raccoon offers 16"):
        Game.replay(log)
    log = game.to_log()
    del log["events"][1:3]  # Black raccoons a plain double
    log["events"].insert(1, {"type": "raccoon", "color": "black", "cube": 4})
    with pytest.raises(InvalidLogError, match="only a beaver can be raccooned"):
        Game.replay(log)


def test_jacoby_and_beavers_are_money_play_only() -> None:
    with pytest.raises(InvalidSettingsError, match="money play only"):
        GameSettings(cube=True, jacoby=True, match_length=5)
    with pytest.raises(InvalidSettingsError, match="money play only"):
        GameSettings(cube=True, beavers=True, match_length=5)
    with pytest.raises(InvalidSettingsError, match="needs the doubling cube"):
        GameSettings(jacoby=True)
    with pytest.raises(InvalidSettingsError, match="already won"):
        GameSettings(cube=True, match_length=5, score=(5, 0))
    with pytest.raises(InvalidSettingsError, match="Crawford"):
        GameSettings(crawford=True)


def test_crawford_game_has_no_cube_for_either_side() -> None:
    game = race_game(match_length=5, score=(4, 2), crawford=True)
    assert not game.can_double(WHITE) and not game.can_double(BLACK)
    assert "Crawford" in refused(game, IllegalActionError, game.double)
    roll_and_play(game)
    assert "Crawford" in refused(game, IllegalActionError, game.double)


def test_post_crawford_trailer_doubles_leader_cube_is_dead() -> None:
    game = race_game(match_length=5, score=(4, 2))  # post-Crawford: not the Crawford game
    assert not game.can_double(WHITE)  # White at 4-away... 4 + 1 already wins 5: dead
    assert "dead" in refused(game, IllegalActionError, game.double)
    roll_and_play(game)
    assert game.can_double(BLACK)
    game.double()
    game.take()
    assert (game.cube_value, game.cube_owner) == (2, WHITE)


def test_dead_cube_after_a_take() -> None:
    # 7-point match, Black at 5: Black owns the cube at 2, 5 + 2 wins the match: dead for Black.
    game = race_game(match_length=7, score=(0, 5))
    game.double()
    game.take()
    roll_and_play(game)
    assert game.on_roll is BLACK and not game.can_double()
    assert "dead" in refused(game, IllegalActionError, game.double)


def test_one_point_match_has_no_cube() -> None:
    game = race_game(match_length=1)
    assert not game.can_double(WHITE)
    roll_and_play(game)
    assert not game.can_double(BLACK)


# --------------------------------------------------------------------------------------------
# Resignations and timeouts


def test_resignation_accepted_scores_the_level_times_cube() -> None:
    game = race_game()
    game.double()
    game.take()
    game.resign(WHITE, "gammon")
    assert game.phase is Phase.RESIGNATION_OFFERED and game.turn is BLACK
    assert game.resignation == (WHITE, ResultKind.GAMMON)
    refused(game, IllegalActionError, game.roll)
    outcome = game.accept_resignation()
    assert outcome == GameOutcome(BLACK, "resign", 4, ResultKind.GAMMON)


def test_resignation_declined_keeps_the_moves_made() -> None:
    game = race_game()
    game.roll()
    game.move("13/7")
    game.resign(BLACK, ResultKind.SINGLE)
    assert game.turn is WHITE
    refused(game, IllegalActionError, game.move, "13/8")
    game.decline_resignation()
    assert game.phase is Phase.MOVE and game.played == (Move(13, 7, 6),)
    game.move("13/8")
    game.end_turn()
    assert [t.action for t in game.history] == ["resign", "decline", "move"]
    refused(game, IllegalActionError, game.resign, WHITE, "triple")


def test_a_resignation_or_timeout_after_rolling_keeps_the_roll_in_the_history() -> None:
    # The roller resigns with its roll unplayed: the line keeps the roll (the move list and a
    # .mat write it as the roll with no play).
    game = race_game()
    game.roll()
    game.resign(WHITE, "gammon")
    game.accept_resignation()
    assert [(t.action, t.color, t.dice) for t in game.history] == [
        ("resign", WHITE, (6, 5)), ("accept", BLACK, None)]
    # Before rolling, or when the other side resigns during the roller's turn: no roll.
    game = race_game()
    game.resign(WHITE, "single")
    game.decline_resignation()
    game.roll()
    game.resign(BLACK, "single")
    assert [t.dice for t in game.history] == [None, None, None]
    game = race_game()
    game.roll()
    game.timeout(WHITE)
    assert [(t.action, t.dice) for t in game.history] == [("timeout", (6, 5))]


def test_timeout_loses_a_single_game_at_the_cubes_value() -> None:
    # Black has none off and a checker in White's home board, which played out would be a
    # backgammon: on time it is a single game, times the cube (2), not 6 points.
    start = diagram(white="1:3", black="13:14 22:1", turn="black")
    game = Game(GameSettings(cube=True, start=start), dice=FixedDice([]))
    game.double()
    game.take()
    outcome = game.timeout(BLACK)
    assert outcome == GameOutcome(WHITE, "timeout", 2, ResultKind.SINGLE)
    # The side that times out loses even when ahead: White has borne off, so a single game.
    game = Game(GameSettings(start=start), dice=FixedDice([]))
    assert game.timeout(WHITE) == GameOutcome(BLACK, "timeout", 1, ResultKind.SINGLE)
    refused(game, IllegalActionError, game.timeout, BLACK)


# --------------------------------------------------------------------------------------------
# Match IDs of a game


def test_match_id_fields() -> None:
    game = race_game(match_length=7, score=(2, 3))
    game.double()
    state = decode_match_id(game.match_id())
    assert (state.cube_value, state.doubled, state.player_on_roll, state.turn) == (1, True, 0, 1)
    assert (state.match_length, state.score) == (7, (2, 3))
    game.take()
    game.roll()
    state = decode_match_id(game.match_id())
    assert (state.cube_value, state.cube_owner, state.dice) == (2, 1, (6, 5))
    assert game.position_id() == game.position.id()


# --------------------------------------------------------------------------------------------
# The event log


def random_game(seed: int, **kw: Any) -> Game:
    """A game played with random legal actions, seeded: cube actions, undo, resignations."""
    rng = random.Random(seed)
    game = Game(GameSettings(cube=True, seed=seed, **kw))
    while not game.is_over:
        if game.phase is Phase.ROLL and game.can_double() and rng.random() < 0.08:
            game.double()
        elif game.phase is Phase.DOUBLE_OFFERED:
            choice = rng.random()
            if choice < 0.2:
                game.drop()
            elif choice < 0.3 and game.can_beaver() and game.cube_owner is None:
                game.beaver()
            elif choice < 0.4 and game.can_raccoon():
                game.raccoon()
            else:
                game.take()
        elif game.phase in (Phase.ROLL, Phase.MOVE) and rng.random() < 0.004:
            assert game.on_roll is not None
            game.resign(game.on_roll, rng.choice(["single", "gammon", "backgammon"]))
            if rng.random() < 0.5:
                game.accept_resignation()
            else:
                game.decline_resignation()
        elif game.phase in (Phase.OPENING, Phase.ROLL):
            game.roll(seconds=round(rng.random(), 3))
        elif rng.random() < 0.5:
            game.play(rng.choice(list(game.legal_plays())))
        else:
            while game.legal_moves():
                game.move(rng.choice(game.legal_moves()))
                if rng.random() < 0.15:
                    game.undo()
            game.end_turn()
    return game


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32), st.booleans())
def test_log_replays_exactly(seed: int, money_options: bool) -> None:
    kw = {"jacoby": True, "beavers": True} if money_options else {}
    game = random_game(seed, **kw)
    text = game.to_json()
    again = Game.from_json(text)
    assert again.to_json() == text
    assert again.outcome == game.outcome and again.outcome is not None
    assert again.history == game.history
    assert again.position == game.position
    white_off, black_off = game.position.off
    assert CHECKERS_PER_SIDE in (white_off, black_off) or game.outcome.kind in (
        "drop", "resign", "timeout")
    assert json.loads(text)["settings"]["seed"] == seed


def test_log_of_a_game_in_progress_keeps_the_moves_made() -> None:
    game = Game(GameSettings(seed=7))
    game.roll()
    first = game.legal_moves()[0]
    game.move(first)
    log = game.to_log()
    assert log["moves"] == [[first.from_point, first.to_point, first.die]]
    again = Game.replay(log)
    assert again.played == (first,) and again.dice == game.dice
    again.undo()
    assert again.position == again.turn_start


def test_seeded_log_continues_with_the_same_dice() -> None:
    game = Game(GameSettings(seed=11))
    for _ in range(3):
        game.roll()
        game.play(game.legal_plays()[0])
    again = Game.replay(game.to_log())
    assert again.roll() == game.roll()


def test_tampered_seeded_roll_is_refused() -> None:
    game = Game(GameSettings(seed=11))
    game.roll()
    game.play(game.legal_plays()[0])
    game.roll()
    log = game.to_log()
    log["events"][2]["dice"] = [1, 1] if log["events"][2]["dice"] != [1, 1] else [2, 2]
    with pytest.raises(InvalidLogError, match=r"event 2: .*seeded dice") as info:
        Game.replay(log)
    assert info.value.index == 2  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("index", "event", "message"),
    [
        (1, {"type": "play", "color": "white", "moves": [[8, 4, 3], [6, 5, 1]]},
         "event 1: 8/4 is not a legal move"),
        (1, {"type": "play", "color": "white", "moves": [[8, 5, 3]]},
         "event 1: 8/5 does not use as many dice"),
        (1, {"type": "play", "color": "black", "moves": [[8, 5, 3], [6, 5, 1]]},
         "event 1: black cannot play: it is white's turn"),
        (2, {"type": "take", "color": "white"}, "event 2: .*no double has been offered"),
        (2, {"type": "double", "color": "black", "cube": 4}, "event 2: the double offers 4"),
        (2, {"type": "roll", "color": "black", "dice": [7, 1]}, "event 2: a die must be"),
        (0, {"type": "dance"}, "event 0: unknown event type 'dance'"),
        (1, {"type": "play", "color": "white", "moves": [[8, 5, 3], [6, 5, 1]], "x": 1},
         "event 1: unknown fields"),
        (1, {"type": "play", "color": "white", "moves": [[8, 5, 3], [6, 5, 1]],
             "seconds": -2}, "event 1: seconds must be"),
        (1, "play", "event 1: an event must be an object"),
    ],
)
def test_malformed_logs_name_the_first_bad_event(index: int, event: Any, message: str) -> None:
    game = Game(GameSettings(cube=True), dice=FixedDice([(3, 1), (6, 4)]))
    game.roll()
    game.play("8/5 6/5")
    game.roll()
    log = game.to_log()
    assert [e["type"] for e in log["events"]] == ["opening_roll", "play", "roll"]
    Game.replay(log)  # the untouched log is fine
    log["events"][index] = event
    with pytest.raises(InvalidLogError, match=message) as info:
        Game.replay(log)
    assert info.value.index == index  # type: ignore[attr-defined]


def test_malformed_log_outside_the_events() -> None:
    with pytest.raises(InvalidLogError, match="format"):
        Game.replay({"format": "chess", "events": []})
    with pytest.raises(InvalidLogError, match="bad settings"):
        Game.replay({"settings": {"cube": "yes"}, "events": []})
    with pytest.raises(InvalidLogError, match="JSON"):
        Game.from_json("{not json")
    with pytest.raises(InvalidLogError, match="events must be a list"):
        Game.replay({"events": {}})


def test_replay_steps_yield_each_event() -> None:
    game = random_game(5)
    steps = [(index, event["type"], g.phase) for g, index, event in
             Game.replay_steps(game.to_log())]
    assert [index for index, _, _ in steps] == list(range(len(game.events)))
    assert steps[-1][2] is Phase.OVER


def test_event_count_follows_the_log_without_copying_it() -> None:
    game = Game(GameSettings(seed=3))
    assert game.event_count == 0
    game.roll()
    counts = [game.event_count]
    while not game.is_over and len(counts) < 40:
        if game.phase is Phase.ROLL:
            game.roll()
        else:
            plays = game.legal_plays()
            game.play(plays[0])
        counts.append(game.event_count)
        assert game.event_count == len(game.events)
    assert counts == list(range(counts[0], counts[0] + len(counts)))


def test_bad_dice_from_outside() -> None:
    game = Game()
    refused(game, InvalidDiceError, game.roll, dice=(0, 3))
    refused(game, InvalidDiceError, game.roll, dice=(1, 2, 3))


# --------------------------------------------------------------------------------------------
# Gammons as an option


@pytest.mark.parametrize(
    ("black", "kind"),
    [("13:15", ResultKind.GAMMON), ("13:14 24:1", ResultKind.BACKGAMMON),
     ("13:13 24:1", ResultKind.SINGLE)],
)
@pytest.mark.parametrize("doubled", [False, True])
def test_gammons_off_every_win_scores_single_times_the_cube(
        black: str, kind: ResultKind, doubled: bool) -> None:
    start = diagram(white="2:1", black=black, turn="white")
    game = Game(GameSettings(cube=True, gammons=False, start=start), dice=FixedDice([(2, 1)]))
    if doubled:
        game.double()
        game.take()
    game.roll()
    game.play("2/off")
    cube = 2 if doubled else 1
    # what happened on the board is still told; the points are a single game's
    assert game.outcome == GameOutcome(WHITE, str(kind).split()[0], cube, kind)


def test_gammons_off_resignation_and_timeout_score_single() -> None:
    start = diagram(white="2:1 6:2", black="13:15", turn="white")
    game = Game(GameSettings(cube=True, gammons=False, start=start), dice=FixedDice([]))
    game.resign(BLACK, "backgammon")
    assert game.accept_resignation() == GameOutcome(WHITE, "resign", 1, ResultKind.BACKGAMMON)
    game = Game(GameSettings(gammons=False, start=start), dice=FixedDice([]))
    outcome = game.timeout(BLACK)
    assert (outcome.points, outcome.result_kind) == (1, ResultKind.SINGLE)  # time: a single


def test_gammons_setting_is_on_by_default_and_in_the_log() -> None:
    assert GameSettings().gammons is True
    settings = GameSettings(gammons=False)
    assert settings.to_dict()["gammons"] is False
    assert GameSettings.from_dict(settings.to_dict()) == settings
    assert GameSettings.from_dict({}).gammons is True  # logs from before the setting
    with pytest.raises(InvalidSettingsError, match="gammons must be True or False"):
        GameSettings(gammons="no")  # type: ignore[arg-type]


def test_match_without_gammons_replays_with_the_setting() -> None:
    match = Match(0, gammons=False, dice=FixedDice([(3, 1)]))
    assert match.current.settings.gammons is False
    log = match.to_log()
    assert log["gammons"] is False
    assert Match.replay(log, dice=FixedDice([(3, 1)])).current.settings.gammons is False


def test_a_forfeit_ends_the_game_with_the_points_given_and_replays() -> None:
    from backgammon.core.errors import IllegalActionError as Refused

    game = Game(GameSettings(cube=True))
    game.roll(dice=(3, 1))
    game.move("8/5")
    with pytest.raises(Refused, match="a forfeit gives at least 1 point, got 0"):
        game.forfeit("white", 0)
    outcome = game.forfeit("white", 3)
    assert (outcome.winner, outcome.kind, outcome.points) == (BLACK, "forfeit", 3)
    assert game.events[-1] == {"type": "forfeit", "color": "white", "points": 3}
    assert game.history[-1].action == "forfeit" and game.history[-1].dice == (3, 1)
    again = Game.replay(game.to_log())
    assert again.outcome == outcome and again.to_log() == game.to_log()
    with pytest.raises(Refused):
        game.forfeit("black", 1)
