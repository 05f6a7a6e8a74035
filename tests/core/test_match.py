"""Matches and money sessions: score, Crawford and post-Crawford games, dead cubes, Match IDs."""

from __future__ import annotations

import random

import pytest

from backgammon.core.dice import FixedDice
from backgammon.core.errors import (
    IllegalActionError,
    InvalidIdError,
    InvalidLogError,
    InvalidSettingsError,
)
from backgammon.core.game import Game, GameSettings, Phase
from backgammon.core.ids import decode_match_id
from backgammon.core.match import Match, MatchSetup
from backgammon.core.position import Position, ResultKind
from backgammon.core.types import BLACK, WHITE
from backgammon.core.xgid import Xgid


def resign_game(game: Game, loser: str, kind: str = "single") -> None:
    """End ``game`` quickly: the opening roll, then ``loser`` resigns and it is accepted."""
    if game.phase is Phase.OPENING:
        game.roll()
    game.resign(loser, kind)
    game.accept_resignation()


def test_match_score_crawford_and_post_crawford() -> None:
    match = Match(5, names=("Ann", "Bob"), seed=1)
    assert match.score == (0, 0) and not match.crawford and match.current.settings.cube
    resign_game(match.current, "black", "gammon")  # White +2
    match.new_game()
    resign_game(match.current, "black", "gammon")  # White +2: 4-0, match point
    assert match.score == (4, 0)
    game = match.new_game()
    assert match.crawford and game.settings.crawford and game.settings.score == (4, 0)
    game.roll()
    assert not game.can_double(WHITE) and not game.can_double(BLACK)
    resign_game(game, "white")  # Black +1 in the Crawford game
    game = match.new_game()
    assert not match.crawford and match.post_crawford
    assert game.settings.score == (4, 1) and not game.settings.crawford
    # Post-Crawford: the trailer may double; the leader's cube is dead.
    while game.phase is not Phase.ROLL:
        if game.phase is Phase.OPENING:
            game.roll()
        else:
            game.play(game.legal_plays()[0])
    roller = game.on_roll
    assert game.can_double() == (roller is BLACK)
    resign_game(game, "black")
    assert match.score == (5, 1) and match.is_over and match.winner is WHITE
    with pytest.raises(IllegalActionError, match="the match is over: Ann won 5-1"):
        match.new_game()


def test_crawford_only_once() -> None:
    match = Match(3, seed=2)
    resign_game(match.current, "black", "gammon")  # 2-0: Crawford next
    assert match.new_game().settings.crawford
    resign_game(match.current, "white", "single")  # 2-1
    assert not match.new_game().settings.crawford
    resign_game(match.current, "white", "single")  # 2-2: both at match point, no Crawford
    assert not match.new_game().settings.crawford
    assert match.post_crawford


def test_one_point_match_has_no_cube_and_no_crawford() -> None:
    match = Match(1, seed=3)
    game = match.current
    assert not game.settings.cube and not game.settings.crawford
    game.roll()
    assert not game.can_double()
    resign_game(game, "white", "backgammon")
    assert match.score == (0, 3) and match.winner is BLACK


def test_new_game_needs_the_current_game_over() -> None:
    match = Match(5, seed=4)
    before = match.to_json()
    with pytest.raises(IllegalActionError, match="not over"):
        match.new_game()
    assert match.to_json() == before and len(match.games) == 1


def test_money_session_running_total() -> None:
    match = Match(cube=True, jacoby=True, beavers=True, seed=5)
    resign_game(match.current, "white", "gammon")  # Jacoby, cube centred: counts 1
    assert match.current.outcome is not None and match.current.outcome.points == 1
    match.new_game()
    resign_game(match.current, "black")
    match.new_game()
    assert match.score == (1, 1) and not match.is_over and match.winner is None
    assert match.current.settings.match_length == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"length": 5, "jacoby": True}, "money play only"),
        ({"length": 5, "beavers": True}, "money play only"),
        ({"length": -1}, "length"),
        ({"length": 10**9}, "from 0 \\(money\\) to 32767 \\(what a Match ID holds\\)"),
        ({"length": 0, "cube": False, "jacoby": True}, "needs the doubling cube"),
        ({"names": ("only one",)}, "two non-empty"),
    ],
)
def test_bad_match_settings(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidSettingsError, match=message):
        Match(**kwargs)  # type: ignore[arg-type]


def test_dead_cube_in_a_match() -> None:
    # 7-point match, White at 5 after game 1: a take at 2 would make White's cube dead.
    match = Match(7, dice=FixedDice([(6, 5)] * 40))
    resign_game(match.current, "black", "backgammon")  # 3-0
    match.new_game()
    resign_game(match.current, "black", "gammon")  # 5-0
    game = match.new_game()
    assert game.settings.score == (5, 0) and not game.settings.crawford
    game.roll()  # White opens with 6-5
    game.play(game.legal_plays()[0])
    game.double()  # Black doubles: 0 + 1 does not win the match
    game.take()  # White owns the cube at 2
    game.roll()
    game.play(game.legal_plays()[0])
    # White on roll owns the cube, but 5 + 2 already wins the 7-point match: dead.
    assert game.on_roll is WHITE and game.cube_owner is WHITE and not game.can_double()
    with pytest.raises(IllegalActionError, match="the cube is dead"):
        game.double()


def test_match_id_agrees_with_the_game_and_score() -> None:
    match = Match(9, names=("A", "B"), dice=FixedDice([(3, 1)]))
    match.current.roll()
    state = decode_match_id(match.match_id())
    assert (state.match_length, state.score, state.dice, state.player_on_roll) == (
        9, (0, 0), (3, 1), 0)
    resign_game(match.current, "white", "gammon")
    state = decode_match_id(match.match_id())
    assert state.score == (0, 2) and state.game_state == "resigned"
    # A known ID: 9-point match, score 0-2, game over by resignation, White (player 0) on roll.
    assert match.match_id() == match.current.match_id((0, 2))


def test_match_log_round_trip() -> None:
    rng = random.Random(9)
    match = Match(3, seed=9)
    while not match.is_over:
        game = match.current
        while not game.is_over:
            if game.phase in (Phase.OPENING, Phase.ROLL):
                if game.phase is Phase.ROLL and game.can_double() and rng.random() < 0.2:
                    game.double()
                    game.take() if rng.random() < 0.7 else game.drop()
                else:
                    game.roll()
            elif game.phase is Phase.MOVE:
                game.play(rng.choice(list(game.legal_plays())))
        if not match.is_over:
            match.new_game()
    text = match.to_json()
    again = Match.from_json(text)
    assert again.to_json() == text
    assert again.score == match.score and again.winner == match.winner


def test_match_log_with_wrong_game_settings_is_refused() -> None:
    match = Match(3, seed=10)
    resign_game(match.current, "black", "gammon")  # 2-0: the next game is Crawford
    match.new_game()
    log = match.to_log()
    log["games"][1]["settings"]["crawford"] = False
    with pytest.raises(InvalidLogError, match="game 2: its settings"):
        Match.replay(log)


@pytest.mark.parametrize(("key", "value", "message"), [
    ("names", None, "bad match settings: names must be two strings, got None"),
    ("names", ["White"], "bad match settings: names must be two strings, got ['White']"),
    ("names", ["White", 7], "bad match settings: names must be two strings, got ['White', 7]"),
    ("cube", "yes", "bad match settings: cube must be true or false, got 'yes'"),
    ("jacoby", 1, "bad match settings: jacoby must be true or false, got 1"),
])
def test_a_log_with_settings_of_the_wrong_type_is_refused(key: str, value: object,
                                                          message: str) -> None:
    """A hand-edited log: each setting of the wrong type is named, never taken as truthy."""
    log = Match(3, seed=10).to_log()
    log[key] = value
    with pytest.raises(InvalidLogError) as caught:
        Match.replay(log)
    assert str(caught.value) == message


def test_resign_levels_score() -> None:
    match = Match(11, seed=11)
    resign_game(match.current, "white", "backgammon")
    outcome = match.current.outcome
    assert outcome is not None
    assert (outcome.winner, outcome.points, outcome.result_kind) == (
        BLACK, 3, ResultKind.BACKGAMMON)


# --------------------------------------------------------------------------------------------
# A match picked up at a position set up by hand


def test_a_match_picked_up_at_a_set_up_position() -> None:
    from backgammon.core.match import MatchSetup
    from backgammon.core.position import Position

    start = Position.start(BLACK)
    setup = MatchSetup(start, score=(2, 3), cube_value=2, cube_owner=WHITE)
    match = Match(5, setup=setup, dice=FixedDice([(6, 5), (3, 1)]))
    game = match.current
    assert game.position == start and game.on_roll is BLACK and game.phase.value == "roll"
    assert (game.cube_value, game.cube_owner) == (2, WHITE)
    assert match.score == (2, 3) and game.settings.score == (2, 3)
    assert not game.can_double(BLACK)  # White owns the cube
    game.resign(WHITE, "gammon")
    game.accept_resignation()
    assert match.score == (2, 7) and match.is_over and match.winner is BLACK
    again = Match.replay(match.to_log())
    assert again.score == (2, 7) and again.setup == setup
    assert again.current.settings == game.settings


def test_after_a_set_up_game_the_match_goes_on_from_the_start() -> None:
    from backgammon.core.match import MatchSetup
    from backgammon.core.position import Position

    setup = MatchSetup(Position.start(WHITE), score=(4, 1), crawford=True)
    match = Match(5, setup=setup)
    assert match.crawford and not match.current.can_double(WHITE)
    match.current.resign(WHITE, "single")
    match.current.accept_resignation()
    match.new_game()
    assert match.score == (4, 2) and match.post_crawford and not match.crawford
    assert match.current.settings.start is None and match.current.phase.value == "opening"
    # 4-1 without the Crawford flag: the Crawford game was before; no Crawford game follows.
    later = Match(5, setup=MatchSetup(Position.start(WHITE), score=(4, 1)))
    assert not later.crawford and later.post_crawford
    later.current.resign(WHITE, "single")
    later.current.accept_resignation()
    later.new_game()
    assert not later.crawford


def test_a_setup_that_the_rules_refuse() -> None:
    from backgammon.core.game import GameSettings
    from backgammon.core.match import MatchSetup
    from backgammon.core.position import Position

    with pytest.raises(InvalidSettingsError, match="has already won a 5-point match"):
        Match(5, setup=MatchSetup(Position.start(), score=(5, 0)))
    with pytest.raises(InvalidSettingsError, match="cannot be turned in the Crawford game"):
        Match(5, setup=MatchSetup(Position.start(), score=(4, 0), crawford=True, cube_value=2,
                                  cube_owner=WHITE))
    with pytest.raises(InvalidSettingsError, match="power of two"):
        GameSettings(cube=True, start=Position.start(), start_cube_value=3)
    with pytest.raises(InvalidSettingsError, match="needs a start position"):
        GameSettings(cube=True, start_cube_value=2)


def test_score_before_each_game_of_a_long_session_and_a_picked_up_match() -> None:
    """The score before each game, read back for every game of a 300-game session (kept as
    games end, not summed again) and of a match picked up at 1-2, after a log round trip."""
    from backgammon.core.match import MatchSetup

    rng = random.Random(5)
    money = Match(0, seed=3)
    expected = [(0, 0)]
    for number in range(300):
        loser = rng.choice(["white", "black"])
        kind = rng.choice(["single", "gammon", "backgammon"])
        resign_game(money.current, loser, kind)
        points = {"single": 1, "gammon": 2, "backgammon": 3}[kind]
        white, black = expected[-1]
        expected.append((white + points, black) if loser == "black" else (white, black + points))
        if number < 299:
            money.new_game()
    assert [money.score_before(i) for i in range(301)] == expected
    assert money.score == expected[-1]
    again = Match.from_json(money.to_json())
    assert [again.score_before(i) for i in range(301)] == expected

    picked = Match(5, seed=4, setup=MatchSetup(None, (1, 2)))
    resign_game(picked.current, "black", "gammon")  # 3-2
    picked.new_game()
    resign_game(picked.current, "white")  # 3-3
    assert [picked.score_before(i) for i in range(3)] == [(1, 2), (3, 2), (3, 3)]
    assert picked.score == (3, 3)
    game = picked.new_game()
    assert game.settings.score == (3, 3) and not game.settings.crawford
    resign_game(game, "white", "single")  # 3-4: the Crawford game comes next
    assert picked.new_game().settings.crawford and picked.score == (3, 4)
    resign_game(picked.current, "black")  # 4-4 after the Crawford game
    assert not picked.new_game().settings.crawford and picked.post_crawford


def test_the_score_before_each_game_of_a_long_session_and_a_snapshot() -> None:
    match = Match(0, seed=3)
    rng = random.Random(3)
    sums = [(0, 0)]
    for _ in range(40):
        loser = rng.choice(("white", "black"))
        resign_game(match.current, loser, rng.choice(("single", "gammon")))
        points = match.current.outcome.points  # type: ignore[union-attr]
        white, black = sums[-1]
        sums.append((white, black + points) if loser == "white" else (white + points, black))
        match.new_game()
    assert [match.score_before(i) for i in range(41)] == sums
    assert match.score == sums[-1]
    match.current.roll()
    twin = match.snapshot()
    assert twin.to_log() == match.to_log()
    assert twin.games[:-1] == match.games[:-1]  # the games over are shared, not copied
    assert twin.current is not match.current
    resign_game(match.current, "white")
    match.new_game()
    assert len(twin.games) == 41 and not twin.current.is_over  # left as it was
    assert twin.score == sums[-1]


@pytest.mark.parametrize("score", [(0, 0), (1, 2), (4, 4), (3, 3)])
def test_a_crawford_game_where_no_side_alone_is_one_away_is_refused(
        score: tuple[int, int]) -> None:
    """The Crawford game is the one after a side alone first reaches 1-away (WBF rules): a
    Crawford flag at any other score is refused, in a game's settings and a match's setup
    (whose Match ID would otherwise be one the library's own XGID reader refuses)."""
    with pytest.raises(InvalidSettingsError, match=rf"a Crawford game at {score[0]}-"
                                                   rf"{score[1]} in a 5-point match"):
        GameSettings(cube=True, match_length=5, score=score, crawford=True)
    with pytest.raises(InvalidSettingsError, match="a Crawford game at"):
        Match(5, setup=MatchSetup(None, score=score, crawford=True))
    assert GameSettings(cube=True, match_length=5, score=(4, 2), crawford=True).crawford
    with pytest.raises(InvalidSettingsError, match="a Crawford game at 0-0 in a 1-point"):
        GameSettings(match_length=1, crawford=True)


def test_a_cube_owned_at_one_is_refused_by_the_xgid_reader_and_kept_in_a_stored_game() -> None:
    """A cube is owned once it has been turned: owned at 1 is no state a game can reach, and
    an XGID that says it is refused; a game set up that way before is still loaded."""
    kept = GameSettings(cube=True, start=Position.start(WHITE), start_cube_owner=BLACK)
    assert Game.replay({"format": "backgammon.game", "version": 1,
                        "settings": kept.to_dict(), "events": []}).cube_owner is BLACK
    with pytest.raises(InvalidIdError, match=r"fields 2 and 3 \(cube, owner\): a cube owned at 1"):
        Xgid.parse("XGID=-b----E-C---eE---c-e----B-:0:1:1:00:0:0:0:0:10")
