"""Standard notation: formatting, the accepted variants, and refusals."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon import (
    WHITE,
    IllegalPlayError,
    Move,
    NotationError,
    Play,
    Position,
    apply_play,
    format_play,
    legal_plays,
    parse_play,
)
from boards import diagram


@pytest.mark.parametrize(
    ("moves", "text"),
    [
        ([Move(8, 5, 3), Move(6, 5, 1)], "8/5 6/5"),
        ([Move(25, 22, 3)], "bar/22"),
        ([Move(6, 0, 6)], "6/off"),
        ([Move(13, 7, 6, True)], "13/7*"),
        ([Move(8, 5, 3), Move(8, 5, 3)], "8/5(2)"),
        ([Move(24, 18, 6, True), Move(18, 13, 5)], "24/18*/13"),
        ([Move(13, 8, 5), Move(8, 3, 5), Move(13, 8, 5), Move(13, 8, 5)], "13/8(2) 13/3"),
        ([Move(24, 20, 4), Move(20, 15, 5)], "24/15"),
        ([], ""),
    ],
)
def test_format(moves: list[Move], text: str) -> None:
    assert format_play(moves) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8/5 6/5", "8/5 6/5"),
        ("6/5 8/5", "8/5 6/5"),  # any order
        ("8/5  6/5 ", "8/5 6/5"),  # any spacing
        ("24/20 20/15", "24/15"),  # one die step at a time, as .mat files write it
        ("24/15", "24/15"),
    ],
)
def test_parse_variants_at_the_start(text: str, expected: str) -> None:
    dice = (3, 1) if "8/5" in text else (5, 4)
    assert str(parse_play(text, Position.start(), dice)) == expected


def test_parse_bar_and_off_spellings() -> None:
    entering = diagram(white="bar:1 6:14", black="24:2 1:13")
    for text in ("bar/22", "Bar/22", "25/22", "BAR/22"):
        play = parse_play(text + " 6/5", entering, (3, 1))
        assert str(play) == "bar/22 6/5"
    home = diagram(white="6:4 5:11", black="1:15")
    for text in ("6/off(4)", "6/0(4)", "6/Off 6/off 6/OFF 6/0", "6/off (4)"):
        assert str(parse_play(text, home, (6, 6))) == "6/off(4)"


def test_parse_hit_marks_are_forgiving() -> None:
    position = diagram(white="13:15", black="18:1 1:14")  # a Black blot on White's 7
    with_mark = parse_play("13/7* 13/8", position, (6, 5))
    without = parse_play("13/7 13/8", position, (6, 5))
    assert with_mark == without
    assert with_mark.result.points[0] == -1


def test_parse_intermediate_hit() -> None:
    position = diagram(white="24:1 6:14", black="7:1 2:14")  # Black's 7 is White's 18
    play = parse_play("24/18*/13", position, (6, 5))
    assert play.result.points[0] == -1 and play.result.points[13] == 1
    assert str(play) == "24/18*/13"
    quiet = parse_play("24/13", position, (6, 5))  # via the 20-point, no hit
    assert quiet.result.points[0] == 0


def test_empty_play_only_when_the_roll_cannot_be_played() -> None:
    closed = diagram(white="bar:1 13:14", black="1:2 2:2 3:2 4:2 5:2 6:2 24:3")
    assert len(parse_play("", closed, (6, 6))) == 0
    with pytest.raises(IllegalPlayError, match="a move can be made"):
        parse_play("", Position.start(), (3, 1))


@pytest.mark.parametrize(
    "text", ["8-5", "13/", "/5", "26/20", "8/9", "off/3", "6/bar", "8/5(5)", "8/5x", 7]
)
def test_malformed_notation_is_refused(text: object) -> None:
    with pytest.raises(NotationError):
        parse_play(text, Position.start(), (3, 1))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("8/2", "not a legal play"),  # six pips with a 3-1
        ("13/9", ""),  # one checker moved by both dice: legal
        ("7/4 6/5", "does not hold"),  # no checker on 7
        ("13/12 1/0", "does not hold"),
        ("8/5", "as many dice"),  # a 1 is left that could be played
    ],
)
def test_illegal_plays_are_refused_with_a_reason(text: str, reason: str) -> None:
    dice = (3, 1)
    if text == "13/9":
        assert str(parse_play(text, Position.start(), dice)) == "13/9"  # 13/10/9 is legal
        return
    with pytest.raises(IllegalPlayError, match=reason):
        parse_play(text, Position.start(), dice)


def test_play_from_str_is_parse_play() -> None:
    assert Play.from_str("8/5 6/5", Position.start(), (3, 1)) == parse_play(
        "8/5 6/5", Position.start(), (3, 1)
    )


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="0123456789/*()bar off", max_size=14))
def test_fuzzed_notation_raises_only_named_errors(text: str) -> None:
    try:
        play = parse_play(text, Position.start(), (6, 5))
    except (NotationError, IllegalPlayError):
        return
    assert play in legal_plays(Position.start(), (6, 5))


def test_the_same_path_with_and_without_a_hit_is_written_hit_first_in_every_process() -> None:
    import subprocess
    import sys

    code = ("from backgammon.core.moves import Move; from backgammon.core.notation import "
            "format_play; print(format_play([Move(6, 4, 2, hit=False), Move(6, 4, 2, hit=True),"
            " Move(13, 11, 2), Move(25, 23, 2)]))")
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={"PYTHONHASHSEED": str(seed), "PATH": ""}, check=True
                           ).stdout.strip() for seed in range(8)}
    assert seen == {"bar/23 13/11 6/4* 6/4"}


def test_a_long_run_of_spaces_is_read_in_time_growing_with_its_length() -> None:
    # joining "(2)" to its move searched the run of spaces from each of its characters:
    # 200,000 spaces took minutes
    spaced = "8/5" + " " * 200_000 + "(2) 6/3(2)"
    start = time.perf_counter()
    assert str(parse_play(spaced, Position.start(), (3, 3))) == "8/5(2) 6/3(2)"
    with pytest.raises(NotationError):
        parse_play("8/5" + " " * 200_000 + "x", Position.start(), (3, 3))
    assert time.perf_counter() - start < 0.5


def test_format_play_and_apply_play_take_a_play_as_its_moves() -> None:
    """``legal_plays`` gives ``Play`` objects: both take one as they take its moves."""
    start = Position.start(WHITE)
    for play in legal_plays(start, (6, 5)):
        assert format_play(play) == format_play(play.moves) == str(play)
        assert apply_play(start, play) == apply_play(start, play.moves) == play.result
