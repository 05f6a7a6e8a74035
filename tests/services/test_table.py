"""services/table.py and services/words.py: the pieces both doors share."""

from __future__ import annotations

import pytest

from backgammon.core.errors import IllegalMoveError
from backgammon.core.game import Game, GameSettings
from backgammon.core.match import Match
from backgammon.core.moves import Move
from backgammon.core.types import BLACK, WHITE
from backgammon.services.table import (
    PHASES,
    GameRules,
    cube_json,
    describe,
    make_moves,
    phase_name,
    rematch_ready,
    rematch_sides,
    resign_refusal,
)
from backgammon.services.words import Names, roll_text


def _game_on_move() -> Game:
    game = Game(GameSettings(cube=True))
    game.roll(dice=(3, 1))  # White 3, Black 1: White plays 3-1
    return game


def test_the_engine_game_is_the_tables_rules_interface() -> None:
    assert isinstance(Game(), GameRules)


def test_a_gesture_is_all_or_nothing() -> None:
    game = _game_on_move()
    before = (game.position, game.played)
    with pytest.raises(IllegalMoveError):
        make_moves(game, [Move(8, 5, 3), Move(5, 2, 3)])  # the 3 is used already
    assert (game.position, game.played) == before
    made = make_moves(game, [Move(8, 5, 3), Move(6, 5, 1)])
    assert [str(m) for m in made] == ["8/5", "6/5"] and len(game.played) == 2


def test_phase_names_turn_and_cube_during_a_double() -> None:
    game = _game_on_move()
    game.play("8/5 6/5")
    game.double()
    assert phase_name(game, False) == "cube" and "cube" in PHASES
    assert cube_json(game) == {"enabled": True, "value": 1, "owner": None, "offered_by": "black"}
    match = Match(0, cube=True)
    match.current.roll(dice=(3, 1))
    match.current.play("8/5 6/5")
    match.current.double()
    view = describe(match, kind="money", names=Names(), mine=True, session_over=False)
    assert (view["phase"], view["turn"], view["to_act"]) == ("cube", "black", "white")
    assert view["message"] == "Black doubles to 2: White, take or drop?"
    match.current.drop()
    view = describe(match, kind="money", names=Names(), mine=False, session_over=False)
    assert view["phase"] == "game_over" and view["can"]["next_game"] is True
    assert view["result"]["text"] == (
        "Black wins: the double was dropped (1 point). Running total: White 0, Black 1.")


def test_one_resignation_offer_a_turn() -> None:
    game = _game_on_move()
    assert resign_refusal(game, BLACK) is None
    game.resign(BLACK, "single")
    game.decline_resignation()
    assert resign_refusal(game, BLACK) == (
        "an offer to resign was made this turn already (one offer a turn)")
    assert resign_refusal(game, WHITE) is None
    make_moves(game, [Move(8, 5, 3), Move(6, 5, 1)])
    game.end_turn()
    assert resign_refusal(game, BLACK) is None  # a new turn


def test_a_roll_reads_higher_die_first_and_names_follow_the_seat() -> None:
    assert roll_text((1, 4)) == "4-1"
    names = Names("You", "Ann", me=WHITE)
    assert names.wins(WHITE) == "You win" and names.wins(BLACK) == "Ann wins"
    assert names.object(WHITE) == "you" and names.remote(BLACK) and not names.remote(WHITE)


def test_the_rematch_policy() -> None:
    assert rematch_ready(set(), ())  # nobody at another screen: the request starts it
    assert not rematch_ready({"host"}, ("host", "guest"))
    assert rematch_ready({"host", "guest"}, ("host", "guest"))
    assert rematch_sides("online", "host", "guest") == ("guest", "host")
    assert rematch_sides("local", "person", "computer") == ("person", "computer")


def test_the_move_list_kept_for_games_over_is_the_move_list_made_whole() -> None:
    import json

    from backgammon.services.table import history_json, match_history

    match = Match(0, seed=5)
    names = ("Ann", "Bob")
    for number in range(6):
        game = match.current
        if number % 2 == 0:
            game.roll()  # (the opening roll: the game in play)
        else:
            game.resign("white" if number % 4 == 1 else "black", "single")
            game.accept_resignation()
            match.new_game()
        entries, text = match_history(match, names)
        assert entries == history_json(match.games, names)
        assert json.loads(text) == entries
    assert match_history(match, ("White", "Black"))[0] == history_json(match.games)
