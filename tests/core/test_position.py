"""Position: construction, validation, pip counts, mirror, IDs, outcome, the text board."""

from __future__ import annotations

import pickle

import pytest

from backgammon import (
    BLACK,
    WHITE,
    InvalidIdError,
    InvalidPositionError,
    Position,
    PositionStatus,
    ResultKind,
    outcome,
)
from backgammon.core.types import START_POINTS
from boards import diagram

START_DIAGRAM = """\
 +13-14-15-16-17-18------19-20-21-22-23-24-+   O black  pips 167  off  0
 | X           O    |   | O              X |
 | X           O    |   | O              X |
 | X           O    |   | O                |
 | X                |   | O                |
 | X                |   | O                |
 |                  |BAR|                  |   White to move
 | O                |   | X                |
 | O                |   | X                |
 | O           X    |   | X                |
 | O           X    |   | X              O |
 | O           X    |   | X              O |
 +12-11-10--9--8--7-------6--5--4--3--2--1-+   X white  pips 167  off  0"""


def test_start_position() -> None:
    start = Position.start()
    assert start.points == START_POINTS
    assert start.off == (0, 0)
    assert start.turn is WHITE
    assert start.pip_count(WHITE) == start.pip_count(BLACK) == 167
    assert start.id() == "4HPwATDgc/ABMA"
    assert str(start) == START_DIAGRAM


def test_text_board_shows_bar_big_stacks_and_off() -> None:
    position = diagram(white="bar:2 6:9 2:1", black="bar:1 24:4", turn="black")
    assert str(position) == """\
 +13-14-15-16-17-18------19-20-21-22-23-24-+   O black  pips 121  off 10
 |                  | 1O|                  |
 |                  |   |                  |
 |                  |   |                  |
 |                  |   |                  |
 |                  |   |                  |
 |                  |BAR|                  |   Black to move
 |                  |   | 9                |
 |                  |   | X              O |
 |                  |   | X              O |
 |                  |   | X              O |
 |                  | 2X| X           X  O |
 +12-11-10--9--8--7-------6--5--4--3--2--1-+   X white  pips 106  off  3"""


def test_from_points_accepts_turn_names_and_off() -> None:
    position = Position.from_points(list(START_POINTS), "black", off=(0, 0))
    assert position.turn is BLACK
    assert position == Position.start(BLACK)
    assert hash(position) == hash(Position.start(BLACK))
    assert position != Position.start(WHITE)


def test_positions_are_immutable_and_round_trip_through_repr_and_pickle() -> None:
    position = diagram(white="bar:1 6:14", black="24:15", turn="black")
    with pytest.raises(AttributeError):
        position.turn = WHITE  # type: ignore[misc]
    assert eval(repr(position), {"Position": Position}) == position
    assert pickle.loads(pickle.dumps(position)) == position


def test_mirror_swaps_colours() -> None:
    position = diagram(white="bar:1 6:10 1:2", black="23:3 bar:2 13:5")
    mirrored = position.mirror()
    assert mirrored.turn is BLACK
    assert mirrored.pip_count(BLACK) == position.pip_count(WHITE)
    assert mirrored.pip_count(WHITE) == position.pip_count(BLACK)
    assert mirrored.off == (position.off[1], position.off[0])
    assert mirrored.mirror() == position
    assert mirrored.own_points(BLACK) == position.own_points(WHITE)


@pytest.mark.parametrize(
    ("points", "message"),
    [
        ([0] * 25, "exactly 26 slots"),
        ("x" * 26, "list of 26"),
        ([0] * 25 + [1.5], "slot 25 is 1.5"),
        ([0] * 6 + [16] + [0] * 19, "White has more than 15"),
        ([0] * 6 + [-16] + [0] * 19, "Black has more than 15"),
        ([0] * 25 + [-1], "White's bar \\(slot 25\\) holds a negative count"),
        ([1] + [0] * 25, "Black's bar \\(slot 0\\) holds a positive count"),
    ],
)
def test_invalid_positions_are_refused(points: object, message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_points(points)  # type: ignore[arg-type]


def test_off_that_disagrees_with_the_board_is_refused() -> None:
    with pytest.raises(InvalidPositionError, match="do not make 15"):
        Position.from_points(list(START_POINTS), off=(1, 0))
    with pytest.raises(InvalidPositionError, match="not a colour"):
        Position.from_points(list(START_POINTS), "red")


def test_status_flags() -> None:
    assert Position.start().status() == PositionStatus.VALID
    assert not Position.start().status()


def test_a_board_with_every_checker_of_both_sides_off_is_impossible() -> None:
    """The game ends when the first side has borne off all its checkers (WBF rules 5.1): a
    board with both sides' fifteen off is flagged, and refused when built with checks."""
    empty = Position.from_id("AAAAAAAAAAAAAA")  # an ID says only where the checkers are
    assert empty.status() == PositionStatus.BOTH_BORNE_OFF
    with pytest.raises(InvalidPositionError, match="both sides have borne off every checker"):
        Position.from_points([0] * 26)
    one_side = diagram(white="", black="6:15")
    assert one_side.status() == PositionStatus.VALID  # a finished game's last position


def test_bad_position_ids_are_refused() -> None:
    for text in ["", "4HPwATDgc/ABM", "4HPwATDgc/ABM!", "//////////////"]:
        with pytest.raises(InvalidIdError):
            Position.from_id(text)


def test_from_id_round_trip_with_turn() -> None:
    position = diagram(white="bar:1 6:10 1:2", black="23:3 bar:2 13:5", turn="black")
    assert Position.from_id(position.id(), BLACK) == position


def test_pip_counts_count_the_bar_as_25() -> None:
    position = diagram(white="bar:1 6:14", black="bar:1 1:14")
    assert position.pip_count(WHITE) == 25 + 6 * 14
    assert position.pip_count(BLACK) == 25 + 14


def test_contact() -> None:
    assert Position.start().has_contact()
    race = diagram(white="6:5 10:10", black="6:5 12:10")  # Black's 12 is White's 13
    assert not race.has_contact()


@pytest.mark.parametrize(
    ("white", "black", "winner", "kind"),
    [
        ("", "6:15", WHITE, ResultKind.GAMMON),
        ("", "6:9", WHITE, ResultKind.SINGLE),  # Black has borne off six
        ("", "6:14 19:1", WHITE, ResultKind.BACKGAMMON),  # Black's 19 is White's 6
        ("", "6:14 bar:1", WHITE, ResultKind.BACKGAMMON),
        ("", "18:15", WHITE, ResultKind.GAMMON),  # Black's 18 is White's 7: not in the home
        ("24:1 6:14", "", BLACK, ResultKind.BACKGAMMON),
        ("6:1", "", BLACK, ResultKind.SINGLE),
    ],
)
def test_outcome(white: str, black: str, winner: object, kind: ResultKind) -> None:
    result = outcome(diagram(white=white, black=black))
    assert result is not None
    assert (result.winner, result.kind, result.points) == (winner, kind, int(kind))


def test_no_outcome_while_both_sides_have_checkers() -> None:
    assert outcome(Position.start()) is None
