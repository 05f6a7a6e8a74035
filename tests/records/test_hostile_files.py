"""Transcripts a hostile tester wrote: an empty SGF game tree, lines made to make a regular
expression backtrack. Each is refused in words at its line, or read, and never hangs."""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Callable

import pytest

from backgammon.core.errors import InvalidIdError
from backgammon.core.position import Position
from backgammon.records.mat import (
    MAX_NAMES_LINE,
    MatLimitError,
    MatParseError,
    MatReplayError,
    ReadLimits,
    format_mat,
    read_and_replay,
)
from backgammon.records.sgf import SgfParseError, format_sgf, read_and_replay_sgf, read_sgf_or_mat
from backgammon.records.transcript import MAX_DETAIL

GAME = (" 5 point match\n\n Game 1\n Ann : 0                        Bob : 0\n"
        "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
        "  2)  Doubles => 2                Drops\n"
        "      Wins 1 point\n")


@pytest.mark.parametrize(("text", "line"), [
    ("()", 1),
    ("(;FF[4]GM[6]MI[length:0]PW[A]PB[B])\n()", 2),
    ("(())", 1),
])
def test_an_empty_sgf_game_tree_is_refused_at_its_line(text: str, line: int) -> None:
    with pytest.raises(SgfParseError) as refused:
        read_and_replay_sgf(text)
    assert refused.value.line == line
    assert "an empty game tree" in str(refused.value)


@pytest.mark.parametrize("names", [
    "a" + " " * 100_000 + "b",  # (no colon: once read in time growing with its square)
    "a" + " " * 100_000 + ":x",
    " a : 1" * 20_000,
])
def test_a_names_line_too_long_to_be_one_is_refused_at_once(names: str) -> None:
    text = GAME.replace(" Ann : 0                        Bob : 0", names)
    with pytest.raises(MatParseError) as refused:
        read_and_replay(text)
    assert refused.value.line == 4
    assert refused.value.detail.startswith(f"a names line of {len(names.strip())} characters: "
                                           f"at most {MAX_NAMES_LINE} are read")


def test_a_long_names_line_within_the_limit_is_read() -> None:
    first = "Ann " + "x" * 90
    replay = read_and_replay(GAME.replace("Ann : 0", f"{first} : 0"))
    assert replay.match.names == (first, "Bob")


def test_a_comment_with_a_long_run_of_spaces_is_read_as_a_comment() -> None:
    # a tag-like comment whose key runs into 200,000 spaces: read as a plain comment
    replay = read_and_replay("; [Event" + " " * 200_000 + "x\n" + GAME)
    assert replay.score == (1, 0)
    tagged = read_and_replay('; [Event      "Club night"]\n' + GAME)
    assert tagged.record.tags["Event"] == "Club night"


@pytest.mark.parametrize(("name", "written"), [
    ("Alexander Hamilton-Washington", "Alexander Hamilton-Washington"),  # 27 characters
    ("Ann\nLee", "Ann Lee"),
    (";Ann", "Ann"),
    ("# Ann", "Ann"),
    ("Game 2", '"Game 2"'),
    ("5 point match", '"5 point match"'),
    ("3) Ann", '"3) Ann"'),
    ("Ann : 3", "Ann - 3"),
    ("A:B", "A:B"),
    ("x" * 120, "x" * 80),
])
def test_a_name_from_an_sgf_is_written_so_that_the_mat_reads_back(name: str,
                                                                   written: str) -> None:
    """A name that a .mat names line cannot hold as it is (from an SGF's PW) is written so
    that the file reads back, with the same games and score."""
    replay = read_and_replay(GAME)
    sgf = format_sgf(replay.match).replace("PW[Ann]", "PW[" + name + "]")
    from_sgf = read_and_replay_sgf(sgf)
    assert from_sgf.match.names[0] == name
    again = read_and_replay(format_mat(from_sgf))
    assert again.match.names == (written, "Bob")
    assert again.score == from_sgf.score == (1, 0)
    assert ([game.to_log() for game in again.match.games]
            == [game.to_log() for game in from_sgf.match.games])


def test_a_huge_play_gets_a_short_message() -> None:
    text = GAME.replace("31: 8/5 6/5", "31: 8/5 6/5 " + "1/2 " * 50_000)
    with pytest.raises(MatReplayError) as refused:
        read_and_replay(text)
    assert refused.value.line == 5 and len(refused.value.detail) <= MAX_DETAIL + 1
    assert refused.value.detail.startswith("illegal or unparsable play '8/5 6/5 1/2")
    with pytest.raises(InvalidIdError) as wrong:
        Position.from_id("A" * 100_000)
    assert str(wrong.value) == ("invalid Position ID '" + "A" * 40 + "…': 100000 characters, "
                                "expected 14")


def test_a_game_number_out_of_order_is_said() -> None:
    second = GAME.split("\n\n", 1)[1].replace("Ann : 0 ", "Ann : 1 ")
    for number in (1, 7):
        text = GAME + "\n" + second.replace("Game 1", f"Game {number}")
        replay = read_and_replay(text)
        assert len(replay.match.games) == 2 and replay.score == (2, 0)
        assert f"line 9: game {number} follows game 1 (read as the next game)" in replay.warnings
    assert not [w for w in read_and_replay(GAME + "\n" + second.replace("Game 1", "Game 2"))
                .warnings if "follows" in w]


def test_digits_of_other_scripts_are_not_numbers() -> None:
    # int() reads Arabic-Indic digits; a transcript's numbers are ASCII digits only
    with pytest.raises(MatParseError) as refused:
        read_and_replay(GAME.replace("Game 1", "Game \u0661"))
    assert refused.value.line == 3
    # a score in them is no score (the line is read as two names, and said so)
    replay = read_and_replay(GAME.replace("Bob : 0", "Bob : \u0663"))
    assert replay.match.games[0].settings.score == (0, 0)
    assert "line 4: no score on the names line" in replay.warnings


def test_what_an_sgf_node_holds_past_its_move_or_result_is_said() -> None:
    sgf = ("(;FF[4]GM[6]MI[length:5][game:0][ws:0][bs:0]PW[Ann]PB[Bob]RU[Crawford]"
           "RE[B+1Rjunk]\n;B[51lqst][65mgmh];W[65mgmh])")
    replay = read_and_replay_sgf(sgf)
    assert replay.score == (0, 1)
    assert replay.warnings == ("line 1: RE[B+1Rjunk]: 'junk' after the result ignored",
                               "line 2: B has 2 values: only the first, the move, is read")


#: A hostile line's length: 200,000 characters, read in time growing with its square, took
#: minutes; read in time growing with its length, a few milliseconds.
LONG = 200_000


def _seconds(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def _read_or_refused(text: str) -> None:
    with contextlib.suppress(MatParseError, MatReplayError):
        read_and_replay(text)


@pytest.mark.parametrize("comment", [
    ";[" + " " * LONG + "x",  # (froze the server: 16,000 spaces took 2 s)
    "#[" + " " * LONG + "x",
    ";[" + " " * LONG + '"x"]',
    ";  [  " + " " * LONG + "Event",
    ';[Event "' + '" ' * (LONG // 2),
    ';[Event "x"' + " " * LONG + "]x",
    ";[" + "a " * (LONG // 2) + "x",
    ";[" + "\t" * LONG + "x",
])
def test_a_comment_made_to_backtrack_is_read_in_linear_time(comment: str) -> None:
    replay = read_and_replay(comment + "\n" + GAME)
    assert replay.score == (1, 0)
    assert replay.record.comments == (comment.strip(),)
    assert _seconds(lambda: read_and_replay(comment + "\n" + GAME)) < 0.5


@pytest.mark.parametrize(("text", "line"), [
    # every regular expression of the reader, fed a line of 200,000 characters
    (" " * LONG + "5 point match x\n" + GAME, 2),
    (GAME.replace(" Game 1", " Game" + " " * LONG + "1x"), 3),
    (GAME.replace("      Wins 1 point", "      Wins 1 points" + " " * LONG + "x"), 7),
    (GAME.replace("      Wins 1 point", "      Wins 1 point and" + " " * LONG + "x"), 7),
    (GAME.replace("      Wins 1 point", "      Resigns" + " " * LONG + "x"), 7),
    (GAME.replace("Drops", "Drops " + "Takes " * (LONG // 6)), 6),
    (GAME.replace("Drops", "Doubles " * (LONG // 8)), 6),
    (GAME.replace("Drops", "Wins " * (LONG // 5)), 6),
    (GAME.replace("Drops", "Drops Wins 1" + " " * LONG + "x"), 6),
    (GAME.replace("  1) 31", "  1)" + " " * LONG + "31"), 5),
    (GAME.replace("31: 8/5 6/5", "31: " + "8/5" * (LONG // 3)), 5),
    (GAME.replace("31: 8/5 6/5", "31: 8/5" + " " * LONG + "(2)"), 5),
    (GAME.replace("Ann : 0 ", "Ann :" + " " * 150 + "0 "), 4),
])
def test_a_line_made_to_backtrack_is_read_or_refused_in_linear_time(text: str,
                                                                     line: int) -> None:
    try:
        read_and_replay(text)
    except (MatParseError, MatReplayError) as refused:
        assert refused.line == line
    assert _seconds(lambda: _read_or_refused(text)) < 0.5


def test_reading_stops_at_the_line_where_the_time_allowed_is_over() -> None:
    ticks = itertools.count()  # one second a reading of the clock: read at start, each line
    limits = ReadLimits(seconds=4, clock=lambda: float(next(ticks)))
    with pytest.raises(MatLimitError) as refused:
        read_and_replay(GAME + "garbage after the limit\n", limits=limits)
    assert refused.value.line == 5
    assert refused.value.detail == ("reading stopped here after 4 s, the longest a transcript "
                                    "is read: send a shorter one")
    assert read_and_replay(GAME, limits=ReadLimits(seconds=60)).score == (1, 0)


def money_session(games: int) -> str:
    """A money session of ``games`` games of 3 turns each (two rolls and a double)."""
    game = GAME.split("\n\n", 1)[1]
    return " 0 point match\n\n" + "\n".join(
        game.replace("Game 1", f"Game {number}") for number in range(1, games + 1))


def test_reading_stops_at_the_turn_past_the_limit() -> None:
    # game 11's first roll (line 6 of each game of 6 lines, after 3 header lines) is turn 31
    text = money_session(20)
    assert len(read_and_replay(text).match.games) == 20
    with pytest.raises(MatLimitError) as refused:
        read_and_replay(text + "garbage after the limit\n", limits=ReadLimits(turns=30))
    assert refused.value.line == 3 + 10 * 6 + 2
    assert refused.value.detail == ("more than 30 turns (rolls and doubles): at most 30 are "
                                    "read; send fewer games")
    assert len(read_and_replay(money_session(10), limits=ReadLimits(turns=30))
               .match.games) == 10


def test_binary_data_is_refused_as_such_not_quoted() -> None:
    garbage = bytes(range(256)) * 4
    for read in (read_and_replay, read_sgf_or_mat):
        with pytest.raises(MatParseError, match=r"the file holds binary data, not text$"):
            read(garbage)
    # text with a stray control character or two is still read as text (and refused as a
    # transcript in words of its own)
    with pytest.raises(MatParseError, match="before the first 'Game N'"):
        read_and_replay(b"hello\x07 world\n")
