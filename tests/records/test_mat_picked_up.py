"""A .mat file that starts part way through a match (one game exported from a longer match, as
GNU Backgammon's ``export game`` writes it): the match is picked up at the score written, with
the Crawford rule as that score says, and so analysed at the right match score."""

from __future__ import annotations

from pathlib import Path

import pytest

from backgammon.analysis import analyze
from backgammon.core.match import Match, MatchSetup
from backgammon.records import read_and_replay
from backgammon.records.mat import MatReplayError, format_mat
from backgammon.records.sgf import format_sgf, read_and_replay_sgf
from gnubg_support import final_score, needs_gnubg, run_gnubg

HEAD = " 5 point match\n\n"


def game(number: int, score: tuple[int, int], body: str) -> str:
    return (f" Game {number}\n Ann : {score[0]}                        Bob : {score[1]}\n"
            + body + "\n")


PLAIN = ("  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
         "  2) 52: 13/8 13/11               Doubles => 2\n"
         "  3)  Takes                      66: 24/18 13/7 13/7 13/7\n"
         "                                  Wins 4 points\n")


def test_a_file_starting_at_game_3_is_played_at_its_score() -> None:
    replay = read_and_replay(HEAD + game(3, (2, 1), PLAIN))
    first = replay.match.games[0].settings
    assert (first.score, first.crawford, first.match_length) == ((2, 1), False, 5)
    assert replay.score == (2, 5)  # Bob's 4 points win the match from 1
    assert replay.match.is_over
    assert ("line 4: the file starts at game 3, at 2-1: the match is picked up at that "
            "score") in replay.warnings
    # written back, it says the same score, and reads back the same
    text = format_mat(replay.match)
    assert " Ann : 2" in text and "Bob : 1" in text
    again = read_and_replay(text)
    assert again.match.games[0].settings.score == (2, 1) and again.score == (2, 5)
    # so does its SGF
    sgf = read_and_replay_sgf(format_sgf(replay.match))
    assert sgf.match.games[0].settings.score == (2, 1) and sgf.score == (2, 5)
    # and the match's own log (a saved game) keeps how it was picked up
    saved = Match.from_json(replay.match.to_json())
    assert saved.setup == MatchSetup(None, (2, 1)) and saved.score == (2, 5)
    assert saved.to_json() == replay.match.to_json()


def test_a_first_game_at_one_away_is_the_crawford_game_unless_it_has_a_double() -> None:
    crawford = read_and_replay(HEAD + game(2, (0, 4),
                                           "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
                                           "      Wins 1 point\n"))
    assert crawford.match.games[0].settings.crawford is True
    assert ("line 4: the file starts at game 2, at 0-4: the match is picked up at that "
            "score (taken as the Crawford game)") in crawford.warnings
    # Ann doubles at 1-4: the Crawford game was played before this one
    later = read_and_replay(HEAD + game(3, (1, 4),
                                        "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
                                        "  2)  Doubles => 2               Takes\n"
                                        "  3) 52: 13/8 13/11\n"
                                        "      Wins 2 points\n"))
    settings = later.match.games[0].settings
    assert (settings.score, settings.crawford) == ((1, 4), False)
    assert later.match.games[0].cube_value == 2
    assert later.score == (3, 4)
    assert [w for w in later.warnings if "picked up" in w] == [
        "line 4: the file starts at game 3, at 1-4: the match is picked up at that score "
        "(a double in it: after the Crawford game)"]


def test_a_double_at_n_minus_1_to_0_is_kept_and_said_impossible() -> None:
    # 0-4 in a 5-point match with a double: not the Crawford game, yet no match is at 0-4
    # after its Crawford game (the trailer won it)
    replay = read_and_replay(HEAD + game(2, (0, 4),
                                         "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
                                         "  2)  Doubles => 2               Takes\n"
                                         "  3) 52: 13/8 13/11\n"
                                         "      Wins 2 points\n"))
    assert replay.match.games[0].settings.crawford is False
    assert replay.score == (2, 4)
    assert [w for w in replay.warnings if "picked up" in w] == [
        "line 4: the file starts at game 2, at 0-4: the match is picked up at that score "
        "(a double in it: after the Crawford game), a score no match reaches after its "
        "Crawford game (the trailer wins that game), kept as written"]


def test_a_first_game_1_at_a_score_and_a_money_session_at_a_score_say_so() -> None:
    game_1 = read_and_replay(HEAD + game(1, (2, 1), PLAIN))
    assert game_1.match.games[0].settings.score == (2, 1)
    assert ("line 4: game 1 is written at 2-1: the match is picked up at that score"
            in game_1.warnings)
    money = read_and_replay(" 0 point match\n\n" + game(3, (8, 1), PLAIN))
    assert money.match.length == 0 and money.score == (0, 4)
    assert money.warnings == ("line 4: the file starts at game 3, at 8-1: a money session's "
                              "running score, which changes nothing in the games",)


def test_an_sgf_says_whether_its_first_game_is_the_crawford_game() -> None:
    # gnubg's RU[Crawford:CrawfordGame] in the Crawford game, RU[Crawford] after it
    crawford = read_and_replay(HEAD + game(2, (0, 4),
                                           "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
                                           "      Wins 1 point\n"))
    sgf = format_sgf(crawford.match)
    assert "RU[Crawford:CrawfordGame]" in sgf
    again = read_and_replay_sgf(sgf)
    assert again.match.games[0].settings.crawford is True
    assert again.warnings == ("line 1: game 1 is written at 0-4: the match is picked up at that "
                              "score (the Crawford game, as the file says)",)
    later = read_and_replay_sgf(sgf.replace("RU[Crawford:CrawfordGame]", "RU[Crawford]"))
    assert later.match.games[0].settings.crawford is False
    # (after a Crawford game the trailer has won it: 0-4 cannot be, and is said so)
    assert later.warnings == ("line 1: game 1 is written at 0-4: the match is picked up at "
                              "that score, a score no match reaches after its Crawford game "
                              "(the trailer wins that game), kept as written",)


def test_a_score_the_match_does_not_allow_is_refused_with_its_line() -> None:
    with pytest.raises(MatReplayError) as refused:
        read_and_replay(HEAD + game(4, (5, 1), PLAIN))
    assert refused.value.line == 4
    assert "cannot set up the match" in str(refused.value)


def test_the_analysis_uses_the_score_written() -> None:
    body = ("  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
            "  2) 52: 13/8 13/11               21: 24/23 13/11\n"
            "      Wins 1 point\n")
    # at 0-4, the Crawford game: nobody may double, so no cube decision is analysed
    picked = analyze(read_and_replay(HEAD + game(2, (0, 4), body)).match, level="easy")
    assert [d.kind for d in picked.decisions] == ["move"] * 4
    # the same game read from 0-0 has the cube, and its cube decisions
    from_zero = analyze(read_and_replay(HEAD + game(1, (0, 0), body)).match, level="easy")
    assert [d.kind for d in from_zero.decisions].count("double") == 3


@needs_gnubg
def test_gnubg_reads_the_score_we_write_for_a_match_picked_up(tmp_path: Path) -> None:
    replay = read_and_replay(HEAD + game(3, (2, 1), PLAIN))
    path = tmp_path / "ours.mat"
    path.write_text(format_mat(replay.match), encoding="utf-8")
    output = run_gnubg([f"import mat {path}", "show score"], tmp_path)
    assert final_score(output) == (2, 5)


@pytest.mark.parametrize("score", [(2, 1), (4, 4)])
def test_an_sgf_marking_the_crawford_game_where_nobody_is_one_away_is_read_as_ordinary(
    score: tuple[int, int],
) -> None:
    sgf = (f"(;FF[4]GM[6]MI[length:5][game:2][ws:{score[0]}][bs:{score[1]}]PW[Ann]PB[Bob]"
           "RU[Crawford:CrawfordGame]RE[B+1R]\n;B[51lqst];W[65mgmh])")
    replay = read_and_replay_sgf(sgf)
    settings = replay.match.games[0].settings
    assert (settings.score, settings.crawford) == (score, False)
    assert replay.warnings[0] == (
        f"line 1: the file marks game 3, at {score[0]}-{score[1]}, as the Crawford game, but "
        "no side alone is 1-away: read as an ordinary game")
