"""The words a new player read in a trial of the page (services/words.py and the view of
services/table.py): verbs that agree with "You", a result that says the match was won, a
status line that follows a partial move, a room's end in the words of its length."""

from __future__ import annotations

import json

from backgammon.core.match import Match
from backgammon.core.types import BLACK, WHITE
from backgammon.records import read_and_replay
from backgammon.services.table import describe, match_history
from backgammon.services.words import Names, result_text

#: The names against the computer, the person White.
AGAINST = Names("You", "The computer", me=WHITE, computer=BLACK)
#: The names of an online page, the person Black.
ONLINE = Names("Ann", "You", me=BLACK)


def test_a_silent_you_were_silent() -> None:
    text = result_text(ONLINE, winner=WHITE, loser=BLACK, kind="single", reason="timeout",
                       points=1, gammons=True, abandoned_after=120)
    assert "you were silent" in text and "you was" not in text


def test_a_claimed_game_without_a_clock_says_no_one_ran_out_of_time() -> None:
    match = Match(0, cube=False)
    match.current.roll(dice=(3, 1))
    match.current.play("8/5 6/5")
    match.current.timeout(BLACK)  # how a room records a claimed (abandoned) game
    view = describe(match, kind="single", names=ONLINE, mine=False, session_over=True,
                    abandoned_after=120)
    texts = [entry["text"] for entry in view["history"]]
    assert not any("time out" in text or "times out" in text for text in texts), texts
    assert "You were silent too long: the game was claimed" in texts
    # the room's move list (its text is spliced into the state it sends) says the same
    entries, text = match_history(match, ("Ann", "Bob"), claimed=True)
    assert entries[-2]["text"] == "Bob was silent too long: the game was claimed"
    assert json.loads(text) == entries
    assert match_history(match, ("Ann", "Bob"))[0][-2]["text"] == "Bob times out"


def test_the_result_of_the_last_game_of_a_match_says_the_match_was_won() -> None:
    match = Match(1, cube=False)
    match.current.roll(dice=(3, 1))
    match.current.resign(BLACK, "single")
    match.current.accept_resignation()
    view = describe(match, kind="match", names=AGAINST, mine=True, session_over=True)
    result = view["result"]
    assert result is not None
    assert result["title"] == "You win the match"
    assert result["text"].endswith("You win the match 1-0.")
    assert "Score in a match to" not in result["text"]


def test_a_game_of_a_match_still_says_the_score() -> None:
    match = Match(3, cube=False)
    match.current.roll(dice=(3, 1))
    match.current.resign(WHITE, "single")
    match.current.accept_resignation()
    view = describe(match, kind="match", names=AGAINST, mine=True, session_over=False)
    assert view["result"] is not None
    assert view["result"]["text"].endswith("Score in a match to 3: You 0, Computer 1.")


def test_the_status_after_a_partial_move_says_what_is_left() -> None:
    match = Match(0, cube=False)
    game = match.current
    game.roll(dice=(6, 4))  # White 6, Black 4: White (the person) starts with 6-4
    view = describe(match, kind="single", names=AGAINST, mine=True, session_over=False)
    assert view["message"].endswith("You start with 6-4: move a checker.")
    game.move("24/18")
    view = describe(match, kind="single", names=AGAINST, mine=True, session_over=False)
    assert "start with" not in view["message"]
    assert view["message"].endswith("You play 6-4: move a checker with the 4.")


def test_the_status_during_a_double_partly_played() -> None:
    match = Match(0, cube=False)
    match.current.roll(dice=(3, 1))
    match.current.play("8/5 6/5")
    match.current.roll(dice=(2, 2))
    match.current.move("13/11")
    view = describe(match, kind="single", names=Names(), mine=True, session_over=False)
    assert view["message"] == "Black plays 2-2: move a checker (3 of the 4 dice left)."


def test_a_mat_warning_names_a_player_called_you_in_good_grammar() -> None:
    text = (" 3 point match\n\n Game 1\n You : 0                        Computer : 0\n"
            "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
            "  2)  Doubles => 2               Drops\n")
    warnings = read_and_replay(text).warnings
    assert any("You won 1" in warning for warning in warnings), warnings
    assert not any("You wins" in warning for warning in warnings)
