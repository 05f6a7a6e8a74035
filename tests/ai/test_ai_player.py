"""Computer players through the Game: whole games, legal and repeatable; resignations."""

from __future__ import annotations

import random

from backgammon import BLACK, WHITE, Position, ResultKind, legal_plays
from backgammon.ai import ComputerPlayer, CubeAction, CubeState, cube_state
from backgammon.ai.resign import accept_resignation, resignation
from backgammon.ai.selfplay import play_game, play_series
from backgammon.core.game import Game, GameSettings, Phase
from boards import diagram


def players(white: str, black: str, seed: int) -> dict:
    return {
        WHITE: ComputerPlayer(white, random.Random(seed)),
        BLACK: ComputerPlayer(black, random.Random(seed + 1)),
    }


def test_a_full_game_with_the_cube_is_legal_and_finishes() -> None:
    result = play_game(players("hard", "medium", 11), GameSettings(cube=True), random.Random(5))
    game = result.game
    assert game is not None and game.is_over
    outcome = result.outcome
    assert outcome.winner in (WHITE, BLACK)
    assert outcome.kind in ("single", "gammon", "backgammon", "drop", "resign")
    assert (outcome.points >= 1 and outcome.points % game.cube_value == 0) or outcome.kind == "drop"
    # every play was one of the legal plays of its roll: replaying the log checks each
    replayed = Game.replay(game.to_log())
    assert replayed.outcome == outcome
    position = None
    for turn in game.history:
        if turn.action == "move":
            assert turn.dice is not None
            before = position.with_turn(turn.color) if position else Position.start(turn.color)
            legal = legal_plays(before, turn.dice)
            assert (turn.position.with_turn(turn.color) in legal) or not legal
        position = turn.position
    assert result.turns == sum(1 for t in game.history if t.action == "move" and t.moves)


def test_the_same_seeds_give_the_same_game() -> None:
    first = play_game(players("easy", "medium", 3), GameSettings(), random.Random(8))
    again = play_game(players("easy", "medium", 3), GameSettings(), random.Random(8))
    assert first.game is not None and again.game is not None
    assert first.game.to_log() == again.game.to_log()


def test_series_alternate_colours_and_add_up() -> None:
    seen = []
    result = play_series("medium", "easy", 4, seed=2,
                         on_game=lambda i, r: seen.append(r.outcome.points))
    assert result.games == 4 and len(seen) == 4
    assert 0 <= result.wins <= 4
    assert abs(result.points) <= sum(seen)
    lo, hi = result.interval()
    assert 0.0 <= lo <= result.win_rate <= hi <= 1.0


def test_cube_actions_through_the_game() -> None:
    # White on roll in a bear-off it wins about 90% of the time: it doubles, Black drops.
    start = diagram(white="6:2", black="6:2 4:1", turn="white")
    game = Game(GameSettings(cube=True, start=start), dice=None)
    white, black = ComputerPlayer("hard"), ComputerPlayer("hard")
    assert cube_state(game) == CubeState()
    assert white.cube_action(game) is CubeAction.DOUBLE
    assert white.should_double(game)
    game.double()
    assert game.phase is Phase.DOUBLE_OFFERED
    assert black.cube_action(game) is CubeAction.DROP
    assert not black.should_take(game)
    # Without the cube nobody doubles.
    plain = Game(GameSettings(start=start))
    assert white.cube_action(plain) is CubeAction.NO_DOUBLE


def test_resign_a_race_that_cannot_be_won() -> None:
    # Black, all home with three checkers on its 1-point, needs at most 2 rolls. White, with
    # 51 pips, needs 3 even rolling 6-6 each time (24 pips a roll): a lost single game.
    assert resignation(diagram(white="13:3 6:2", black="1:3", turn="white")) is ResultKind.SINGLE
    # With none off and 105 pips to bring home, White cannot save the gammon.
    assert resignation(diagram(white="13:15", black="1:3", turn="white")) is ResultKind.GAMMON
    # 15 checkers on Black's 5-point need 30 pips to leave Black's home board; Black needs
    # one roll: a backgammon.
    assert resignation(diagram(white="20:15", black="1:1", turn="white")) is ResultKind.BACKGAMMON
    # ... but 15 pips could be done in one roll: play on to save it.
    assert resignation(diagram(white="19:15", black="1:1", turn="white")) is None
    # 2-roll finish against 2 rolls: 6-6 twice would still win.
    assert resignation(diagram(white="12:3 6:2", black="1:3", turn="white")) is None
    # Contact, or a race that might still be won: play on.
    assert resignation(Position.start()) is None
    assert resignation(diagram(white="6:2 5:1", black="6:3", turn="white")) is None


def test_resigning_through_the_game() -> None:
    lost = diagram(white="13:3 6:2", black="1:3", turn="white")
    game = Game(GameSettings(start=lost))
    white, black = ComputerPlayer("easy"), ComputerPlayer("easy")
    assert white.resign_action(game) is ResultKind.SINGLE
    game.resign(WHITE, ResultKind.SINGLE)
    assert black.accept_resign(game)
    assert game.accept_resignation().points == 1


def test_accepting_a_resignation() -> None:
    assert accept_resignation(ResultKind.SINGLE, 0.9)
    assert not accept_resignation(ResultKind.SINGLE, 1.4)
    assert accept_resignation(ResultKind.GAMMON, 1.4)
