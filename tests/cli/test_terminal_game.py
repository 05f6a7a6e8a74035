"""The terminal game loop in process: scripted input, the output as text."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from backgammon.cli.terminal import SaveFileError, Seats, TerminalGame, load_game, save_game
from backgammon.core.dice import FixedDice
from backgammon.core.match import Match
from backgammon.core.position import Position
from backgammon.core.text import board_words
from backgammon.core.types import BLACK, WHITE


def run(match: Match, lines: list[str], seats: Seats | None = None,
        **kwargs: object) -> tuple[TerminalGame, str]:
    out = io.StringIO()
    console = Console(file=out, width=200, no_color=True, color_system=None)
    script: Iterator[str] = iter(lines)

    def read(prompt: str) -> str:
        out.write(prompt)
        try:
            line = next(script)
        except StopIteration:
            raise EOFError from None
        out.write(line + "\n")
        return line

    game = TerminalGame(match, seats or Seats(None), console=console, read=read,
                        rng=random.Random(1), **kwargs)  # type: ignore[arg-type]
    assert game.run() == 0
    return game, out.getvalue()


def test_pass_and_play_double_and_drop() -> None:
    # opening 3-1 for White, then Black rolls 6-5 and White doubles, Black drops
    match = Match(0, cube=True, dice=FixedDice([(3, 1), (6, 5)]))
    game, text = run(match, ["8/5 6/5", "", "24/13", "double", "drop"], single=True,
                     plain=True)
    assert "Opening roll: White 3, Black 1: White moves first with 3-1." in text
    assert "White plays 8/5 6/5." in text
    assert "Black plays 24/13." in text
    assert "White doubles." in text and "Black drops." in text
    assert "White wins 1 point (the double was dropped)." in text
    assert game.match.current.outcome is not None
    assert game.match.current.outcome.points == 1


def test_gammons_off_a_gammon_scores_single() -> None:
    match = Match(0, cube=False, gammons=False, dice=FixedDice([(3, 1)]))
    _game, text = run(match, ["8/5 6/5", "resign gammon", "accept"], single=True, plain=True)
    assert "single game, gammons off" not in text and "gammons off" in text
    assert "White wins 1 point (a resignation)." in text


def test_moves_one_at_a_time_and_undo() -> None:
    match = Match(0, cube=False, dice=FixedDice([(3, 1)]))
    game, text = run(match, ["undo", "8/5", "undo", "13/10", "6/5", "quit", "quit"],
                     single=True, plain=True)
    assert ("Nothing to undo: no move has been made this turn (an ended turn is final)."
            in text) and "Nothing to undo: nothing" not in text
    assert "Moved so far: 8/5; dice left: 1. Go on, or undo." in text
    assert "Took back 8/5." in text
    assert "White plays 13/10 6/5." in text
    assert "The game has changes not saved" in text
    assert game.match.current.history[-1].text == "13/10 6/5"


def test_illegal_move_is_refused_whole() -> None:
    match = Match(0, cube=False, dice=FixedDice([(6, 5)]))
    game, text = run(match, ["24/18 6/off"], single=True, plain=True)
    assert ("6/off is not allowed: bearing off needs all 15 checkers home: 10 are still "
            "outside your home board (rule: Bearing off needs all 15 checkers home, WBF Rules "
            "of Backgammon 4.1).") in text
    assert game.match.current.played == ()  # 24/18 was taken back too


def test_resign_in_pass_and_play() -> None:
    match = Match(0, cube=False, dice=FixedDice([(3, 1)]))
    _game, text = run(match, ["8/5 6/5", "resign gammon", "accept"], single=True, plain=True)
    assert "Black offers to resign a gammon." in text
    assert "White wins 2 points (a resignation)." in text


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    match = Match(3, cube=True, dice=FixedDice([(4, 2), (5, 5)]))
    path = tmp_path / "g.json"
    game, text = run(match, ["8/4 6/4", "", f"save {path}"], seats=Seats(None))
    assert f"Saved to {path}." in text
    loaded, seats, single = load_game(path)
    assert seats == Seats(None) and not single and loaded.length == 3
    assert loaded.current.position == game.match.current.position
    assert loaded.current.dice == (5, 5)  # the roll in progress comes back


def test_load_refuses_a_hand_edited_save_with_a_clear_message(tmp_path: Path) -> None:
    import json

    path = tmp_path / "g.json"
    run(Match(3, dice=FixedDice([(4, 2)])), ["8/4 6/4", f"save {path}", "quit", "quit"])
    saved = json.loads(path.read_text(encoding="utf-8"))
    for change, message in (
            ({"match": {**saved["match"], "names": None}},
             "the saved game does not replay: bad match settings: names must be two "
             "strings, got None"),
            ({"match": {**saved["match"], "cube": "yes"}},
             "bad match settings: cube must be true or false, got 'yes'"),
            ({"single": "no"}, '"single" must be true or false, got \'no\'')):
        path.write_text(json.dumps({**saved, **change}), encoding="utf-8")
        with pytest.raises(SaveFileError) as caught:
            load_game(path)
        assert str(caught.value).endswith(message), caught.value
        assert "NoneType" not in str(caught.value)


def test_load_refuses_a_bad_file_and_keeps_the_game(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"format": "something else"}', encoding="utf-8")
    with pytest.raises(SaveFileError, match="not a saved game"):
        load_game(path)
    match = Match(0, cube=False, dice=FixedDice([(3, 1)]))
    _game, text = run(match, [f"load {path}", "8/5 6/5"], single=True, plain=True)
    assert "not a saved game" in text and "This game goes on." in text
    assert "White plays 8/5 6/5." in text


def test_save_is_atomic_on_failure(tmp_path: Path) -> None:
    match = Match(0)
    with pytest.raises(OSError):
        save_game(tmp_path / "missing-dir" / "g.json", match, Seats(None), single=True)


def test_board_words() -> None:
    lines = board_words(Position.start(), WHITE)
    assert lines[0] == "White's home board (points 1-6): 1-point: 2 Black, 6-point: 5 White"
    assert lines[3] == ("Black's home board (points 19-24): 19-point: 5 Black, "
                        "24-point: 2 White")
    assert board_words(Position.start(), WHITE.opponent)[0] == (
        "Black's home board (points 1-6): 1-point: 2 White, 6-point: 5 Black")
    assert lines[4] == "Bar: none. Borne off: White 0, Black 0. Pips: White 167, Black 167."


def test_the_board_names_the_side_to_move_once_the_opening_roll_decides_it() -> None:
    # Black wins the opening roll: no board says White (or X) is to move before it
    match = Match(0, cube=False, dice=FixedDice([(1, 6)]))
    _game, text = run(match, ["13/7 8/7"], single=True)
    opening = text.index("Opening roll: White 1, Black 6: Black moves first with 6-1.")
    assert "to move" not in text[:opening]
    assert "X to move" not in text and "O to move" not in text
    after = text[opening:]
    assert after.index("Black to move") < after.index("Black plays 13/7 8/7.")
    assert after.index("Black plays 13/7 8/7.") < after.index("White to move")


@pytest.mark.parametrize("answer", ["y", "Y", "yes", "YES", " Yes ", "quit"])
def test_quit_with_changes_not_saved_asks_and_takes_y_or_yes(answer: str) -> None:
    match = Match(0, cube=False, dice=FixedDice([(3, 1), (6, 5)]))
    game, text = run(match, ["8/5 6/5", "quit", answer, "roll"], single=True, plain=True)
    assert "The game has changes not saved. Leave without saving? (y/n)> " in text
    assert text.rstrip().endswith("Goodbye.")
    assert len(game.match.current.history) == 1  # the roll after it was never read


def test_quit_answered_no_stays_in_the_game() -> None:
    match = Match(0, cube=False, dice=FixedDice([(3, 1), (6, 5)]))
    game, text = run(match, ["8/5 6/5", "quit", "n", "", "24/13", "quit", "yes"],
                     single=True, plain=True)
    assert "Staying: type save to keep the game, or quit to leave." in text
    assert "Black plays 24/13." in text and text.rstrip().endswith("Goodbye.")
    assert game.match.current.history[-1].text == "24/13"


def test_the_computer_beavers_as_its_hint_says() -> None:
    from backgammon.core.xgid import Xgid
    from backgammon.services.setup import setup_match
    from scenarios import BEAVER_XGID

    match = setup_match(Xgid.parse(BEAVER_XGID))
    game, text = run(match, ["hint", "double", "drop"], Seats(BLACK, "easy"), single=True,
                     plain=True, hint_level="easy")
    assert "The computer (easy) would roll (no double)." in text
    assert ("The computer beavers: it takes and redoubles to 4, keeping the cube: take, drop "
            "or raccoon?") in text
    outcome = game.match.current.outcome
    assert outcome is not None and outcome.winner is BLACK and outcome.points == 2


def test_raccoon_in_the_terminal_both_ways() -> None:
    from backgammon.core.xgid import Xgid
    from backgammon.services.setup import setup_match
    from scenarios import BEAVER_XGID, RACCOON_XGID

    # the person (White) raccoons the computer's beaver; the computer takes the raccoon
    match = setup_match(Xgid.parse(BEAVER_XGID))
    game, text = run(match, ["double", "raccoon"], Seats(BLACK, "easy"), single=True,
                     plain=True)
    assert "White: take, drop or raccoon a beaver to 4> raccoon" in text
    assert "White raccoons." in text
    current = game.match.current
    assert [t.text for t in current.history] == [
        "Doubles => 2", "Beavers => 4", "Raccoons => 8", "Takes"]
    assert (current.cube_value, current.cube_owner) == (8, BLACK)
    # the computer (White) raccoons the person's beaver; the person drops it
    match = setup_match(Xgid.parse(RACCOON_XGID))
    game, text = run(match, ["beaver", "drop"], Seats(WHITE, "easy"), single=True, plain=True)
    assert ("The computer raccoons: it redoubles your beaver to 8, and you keep the cube: take "
            "or drop?") in text
    assert "Black: take or drop a raccoon to 8> drop" in text
    outcome = game.match.current.outcome
    assert outcome is not None and outcome.winner is WHITE and outcome.points == 4


def test_the_hint_in_a_match_gives_emg_as_the_pages_does() -> None:
    """In match play the plays' worth is a match-winning chance; the hint shows it as EMG
    (what the page's hint and ``backgammon hint`` show), not as "points"."""
    from backgammon.ai.choose import rank_plays
    from backgammon.ai.player import cube_state
    from backgammon.analysis import emg_scale

    match = Match(3, dice=FixedDice([(5, 4)]))
    expected = rank_plays(Position.start(), (5, 4), "hard", cube=cube_state(match.current),
                          settle=5)
    scale = emg_scale(cube_state(match.current), WHITE)
    _game, text = run(match, ["hint", "24/20 13/8", "quit", "quit"], plain=True,
                      hint_level="hard")
    assert "ranks the plays of 5-4 (equity after the play, EMG):" in text
    first = next(line for line in text.splitlines() if line.strip().startswith("1. "))
    shown = float(first.split()[-1])
    assert shown == pytest.approx(scale.emg(expected[0].equity), abs=0.0015)
    assert abs(shown) < 0.3  # an equity near an even game's, not a chance near 0.5
    assert str(expected[0].play) in first


def test_rolls_are_said_with_the_higher_die_first() -> None:
    match = Match(0, cube=False, dice=FixedDice([(3, 1), (3, 5), (2, 6)]))
    _game, text = run(match, ["8/5 6/5", "roll", "quit", "quit"], Seats(BLACK, "easy"),
                      single=True, plain=True)
    assert "rolls 5-3." in text and "rolls 3-5" not in text  # the computer's roll
    assert "White rolls 6-2." in text and "rolls 2-6" not in text  # the player's own
