"""Positions, PDN FEN in and out, the board's numbering and bit layout."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checkers import BLACK, WHITE, FenError, InvalidPositionError, Piece, Position, legal_moves
from checkers.squares import (
    INDEX,
    JUMPS_BOTH,
    SQUARE_AT,
    VALID,
    neighbours,
    row_col,
    square_at,
)


def test_the_start_position() -> None:
    start = Position.start()
    assert start.fen() == "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    assert start.count(BLACK) == (12, 0) and start.count(WHITE) == (12, 0)
    assert start.turn is BLACK
    assert str(start) == "\n".join(
        [
            "  b   b   b   b",
            "b   b   b   b",
            "  b   b   b   b",
            ".   .   .   .",
            "  .   .   .   .",
            "w   w   w   w",
            "  w   w   w   w",
            "w   w   w   w",
            "Black to move",
        ]
    )


def test_the_issue_s_fen_example() -> None:
    position = Position.from_fen("B:W18,K24,27:B1,K9,14")
    assert position.pieces() == {
        1: Piece.BLACK_MAN,
        9: Piece.BLACK_KING,
        14: Piece.BLACK_MAN,
        18: Piece.WHITE_MAN,
        24: Piece.WHITE_KING,
        27: Piece.WHITE_MAN,
    }
    assert position.fen() == "B:W18,K24,27:B1,K9,14"
    assert position.men(WHITE) == [18, 27] and position.kings_of(BLACK) == [9]
    assert repr(position) == "Position.from_fen('B:W18,K24,27:B1,K9,14')"


@pytest.mark.parametrize(
    ("text", "fen"),
    [
        ("W:W21-32:B1-12", "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"),
        ('"B:W18,K24:B1."', "B:W18,K24:B1"),  # quotes and the stray '.' some files carry
        ("b:bk1,2:w30", "B:W30:BK1,2"),  # lower case, the sides in either order
        ("W:W:B1", "W:W:B1"),  # a side with no pieces
        ("B:B5", "B:W:B5"),  # a side's field missing
        (" B : W 18 , K 24 : B 1 ", "B:W18,K24:B1"),
    ],
)
def test_fen_readers_are_tolerant(text: str, fen: str) -> None:
    assert Position.from_fen(text).fen() == fen


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("", "found"),
        ("X:W1:B2", "the side to move 'X' is not B or W"),
        ("B:W1:B2:W3", "found 4 field"),
        ("B:R1:B2", "field 'R1' does not start with W or B"),
        ("B:W1:W2", "side W is given twice"),
        ("B:W1,1:B2", "square 1 is given twice"),
        ("B:W1:B1", "square 1 is given twice"),
        ("B:W33:B2", "'33' is not a square"),
        ("B:W0:B2", "'0' is not a square"),
        ("B:Wx:B2", "'x' is not a square number"),
        ("B:W12-3:B2", "'12-3' is not a square"),
        ("B:W1,,2:B5", "'' is not a square number"),
        ("B::B5", "an empty field"),
    ],
)
def test_a_malformed_fen_names_the_part_that_is_wrong(text: str, part: str) -> None:
    with pytest.raises(FenError, match=part.replace("(", r"\(")) as caught:
        Position.from_fen(text)
    assert isinstance(caught.value, ValueError)


def test_from_pieces_refuses_bad_squares_and_letters() -> None:
    with pytest.raises(InvalidPositionError, match="square 33 is not in 1-32"):
        Position.from_pieces({33: "b"})
    with pytest.raises(InvalidPositionError, match="square 4: 'x' is not a piece"):
        Position.from_pieces({4: "x"})
    with pytest.raises(InvalidPositionError, match="side 'red'"):
        Position.from_pieces({4: "b"}, "red")
    with pytest.raises(InvalidPositionError, match="inconsistent"):
        Position(1, 1, 0, BLACK)


def test_the_numbering_follows_pdn() -> None:
    # square 1 and 5 form Black's double corner; 29 is White's single corner (bottom left)
    assert row_col(1) == (0, 1) and row_col(5) == (1, 0) and row_col(4) == (0, 7)
    assert row_col(29) == (7, 0) and row_col(32) == (7, 6) and row_col(28) == (6, 7)
    assert [square_at(*row_col(s)) for s in range(1, 33)] == list(range(1, 33))
    assert neighbours(1) == (5, 6) and neighbours(4) == (8,) and neighbours(18) == (14, 15, 22, 23)
    assert neighbours(29) == (25,) and neighbours(32) == (27, 28)


def test_the_bit_layout_steps_and_jumps_match_the_board_geometry() -> None:
    assert VALID.bit_count() == 32
    for square in range(1, 33):
        assert SQUARE_AT[INDEX[square]] == square
        step_neighbours = sorted(
            SQUARE_AT[INDEX[square] + d]
            for d in (-5, -4, 4, 5)
            if 0 <= INDEX[square] + d < 35 and SQUARE_AT[INDEX[square] + d]
        )
        assert tuple(step_neighbours) == neighbours(square)
        row, col = row_col(square)
        expected = {
            square_at(row + 2 * dr, col + 2 * dc)
            for dr in (-1, 1)
            for dc in (-1, 1)
            if square_at(row + 2 * dr, col + 2 * dc)
        }
        assert {SQUARE_AT[land] for _, land in JUMPS_BOTH[INDEX[square]]} == expected


pieces = st.dictionaries(
    st.integers(1, 32), st.sampled_from(["b", "B", "w", "W"]), max_size=24
).filter(  # twelve pieces a side at most
    lambda board: max(sum(p.lower() == c for p in board.values()) for c in "bw") <= 12
).map(  # a man on its own crowning row is a king (29-32 for Black, 1-4 for White)
    lambda board: {s: p.upper() if (p, s > 28) == ("b", True) or (p, s < 5) == ("w", True)
                   else p for s, p in board.items()})


def test_more_than_twelve_pieces_a_side_are_refused() -> None:
    """Each player has twelve pieces (WCDF rules): a position with more is refused, with
    the count; twelve of each, kings or men, are taken."""
    with pytest.raises(FenError) as caught:
        Position.from_fen("B:W20-32:B1-12")
    assert str(caught.value) == ("FEN 'B:W20-32:B1-12': 13 white pieces: a side has at most "
                                 "12")
    with pytest.raises(InvalidPositionError, match="24 white pieces"):
        Position.from_pieces({s: "W" for s in [*range(1, 13), *range(21, 33)]})
    assert len(Position.from_fen("W:WK1-12:BK21-32").pieces()) == 24


def test_a_man_on_its_crowning_row_is_refused() -> None:
    """A man that reached the far row was crowned there (WCDF rules, "Crowning"): a position
    with one is refused, naming the square; the same squares as kings are taken."""
    with pytest.raises(FenError) as caught:
        Position.from_fen("B:W1,2,3,4:B29")
    assert str(caught.value) == ("FEN 'B:W1,2,3,4:B29': a black man on 29, its crowning row: "
                                 "a man is crowned there (write K29 for a king)")
    with pytest.raises(InvalidPositionError, match="a white man on 3, its crowning row"):
        Position.from_pieces({3: "w", 20: "b"})
    assert Position.from_fen("B:WK1,K2:BK29").fen() == "B:WK1,K2:BK29"
    assert Position.from_fen("W:WK1:BK29,25").kings_of(WHITE) == [1]


@given(pieces, st.sampled_from([BLACK, WHITE]))
def test_fen_round_trips(board: dict[int, str], turn: object) -> None:
    position = Position.from_pieces(board, turn)  # type: ignore[arg-type]
    assert Position.from_fen(position.fen()) == position
    assert hash(Position.from_fen(position.fen())) == hash(position)


@given(pieces, st.sampled_from([BLACK, WHITE]))
def test_the_mirror_has_the_mirrored_moves(board: dict[int, str], turn: object) -> None:
    position = Position.from_pieces(board, turn)  # type: ignore[arg-type]
    mirrored = position.mirror()
    assert mirrored.mirror() == position
    ours = {tuple(33 - s for s in m.path) for m in legal_moves(position)}
    assert ours == {m.path for m in legal_moves(mirrored)}


@given(st.text(max_size=40))
def test_the_fen_reader_raises_only_fen_errors(text: str) -> None:
    with contextlib.suppress(FenError):
        Position.from_fen(text)


def test_positions_are_immutable() -> None:
    with pytest.raises(AttributeError):
        Position.start().turn = WHITE  # type: ignore[misc]
