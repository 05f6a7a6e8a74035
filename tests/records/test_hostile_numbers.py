"""Numbers a hostile transcript can hold: too many digits, a sign on a score. Each is refused
as a parse error at its line, in words, the way any bad line is; nothing reaches Python's own
limit on converting long numbers (4,300 digits), which raises an unworded ValueError."""

from __future__ import annotations

import pytest

from backgammon.records.mat import MatParseError, read_and_replay
from backgammon.records.sgf import SgfParseError, read_and_replay_sgf
from backgammon.records.transcript import MAX_DIGITS

HUGE = "9" * 5000
GAME = (" 5 point match\n\n Game 1\n Ann : 0                        Bob : 0\n"
        "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
        "  2)  Doubles => 2                Drops\n"
        "      Wins 1 point\n")


@pytest.mark.parametrize(("text", "line", "what"), [
    (GAME.replace(" 5 point", f" {HUGE} point"), 1, "the match length"),
    (GAME.replace("Game 1", f"Game {HUGE}"), 3, "the game number"),
    (GAME.replace("Doubles => 2", f"Doubles => {HUGE}"), 6, "the cube value"),
    (GAME.replace("Wins 1 point", f"Wins {HUGE} points"), 7, "the points won"),
    (GAME.replace("      Wins 1 point", f"                                  Resigns {HUGE} "
                  "points\n      Wins 1 point"), 7, "the points resigned"),
])
def test_a_number_with_too_many_digits_is_refused_at_its_line(text: str, line: int,
                                                              what: str) -> None:
    with pytest.raises(MatParseError) as refused:
        read_and_replay(text)
    assert refused.value.line == line
    assert refused.value.detail == (f"{what} '999999999999…' has 5000 digits: at most "
                                    f"{MAX_DIGITS} are read")
    assert len(str(refused.value)) < 200


def test_a_score_with_too_many_digits_is_refused_at_its_line() -> None:
    with pytest.raises(MatParseError) as refused:
        read_and_replay(GAME.replace("Ann : 0", "Ann : 1234567"))
    assert refused.value.line == 4
    assert refused.value.detail == "a score '1234567' has 7 digits: at most 6 are read"
    # a names line too long to be one is refused before it is searched for names
    with pytest.raises(MatParseError) as refused:
        read_and_replay(GAME.replace("Ann : 0", f"Ann : {HUGE}"))
    assert refused.value.line == 4
    assert refused.value.detail.startswith("a names line of 5037 characters: at most 200 are "
                                           "read")


def test_a_score_with_a_sign_is_refused_not_read_as_a_name() -> None:
    with pytest.raises(MatParseError) as refused:
        read_and_replay(GAME.replace("Ann : 0", "Ann : -1"))
    assert refused.value.line == 4
    assert "a score is a whole number >= 0" in refused.value.detail


SGF = ("(;FF[4]GM[6]CA[UTF-8]AP[test]MI[length:5][game:0][ws:0][bs:0]PW[Ann]PB[Bob]"
       "RE[B+1]\n;W[31hefe]\n;B[64aglp])\n")


@pytest.mark.parametrize(("text", "what"), [
    (SGF.replace("[ws:0]", f"[ws:{HUGE}]"), "MI[ws:...]"),
    (SGF.replace("RE[B+1]", f"RE[B+{HUGE}]"), "RE[...]: the points won"),
])
def test_an_sgf_number_with_too_many_digits_is_refused(text: str, what: str) -> None:
    with pytest.raises(SgfParseError) as refused:
        read_and_replay_sgf(text)
    assert refused.value.line == 1
    assert what in refused.value.detail and "has 5000 digits" in refused.value.detail
    assert len(str(refused.value)) < 200


def test_game_0_is_refused_at_its_own_line() -> None:
    with pytest.raises(MatParseError) as refused:
        read_and_replay(GAME.replace("Game 1", "Game 0"))
    assert refused.value.line == 3
    assert refused.value.detail == "games are numbered from 1, got 'Game 0'"
