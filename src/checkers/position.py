"""A position of American checkers (English draughts): the pieces and the side to move.

Rules followed throughout the package: the World Checkers Draughts Federation's *Rules of the
Game of Checkers (English Draughts)* and the American Checker Federation's *Standard Laws of
Checkers*: an 8x8 board, 12 men a side on the dark squares, Black moves first.
Positions are read and written as PDN FEN (PDN 3.0, section "FEN"; American PDN 2.0).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Final

from checkers.errors import FenError, InvalidPositionError
from checkers.squares import (
    BIT,
    BLACK_CROWN,
    SQUARES,
    VALID,
    WHITE_CROWN,
    mask_of,
    square_at,
    squares_of,
)


class Color(StrEnum):
    """A side: Black (moves first, starts on 1-12) or White (starts on 21-32)."""

    BLACK = "black"
    WHITE = "white"

    @property
    def opponent(self) -> Color:
        """The other side."""
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @property
    def letter(self) -> str:
        """``"B"`` or ``"W"``, as FEN and PDN write the side."""
        return "B" if self is Color.BLACK else "W"


BLACK: Final = Color.BLACK
WHITE: Final = Color.WHITE


class Piece(StrEnum):
    """What stands on a square: a man or a king of either side."""

    BLACK_MAN = "b"
    BLACK_KING = "B"
    WHITE_MAN = "w"
    WHITE_KING = "W"

    @property
    def color(self) -> Color:
        """The side the piece belongs to."""
        return BLACK if self in (Piece.BLACK_MAN, Piece.BLACK_KING) else WHITE

    @property
    def is_king(self) -> bool:
        """True for a king, False for a man."""
        return self in (Piece.BLACK_KING, Piece.WHITE_KING)


#: The pieces each player starts with, and so the most one side can have (WCDF rules).
PIECES_A_SIDE = 12


class Position:
    """An immutable, hashable position: three bit sets and the side to move.

    The bit sets use the layout of :mod:`checkers.squares` (``black``, ``white``: every piece of
    that side; ``kings``: every king of either side). Build positions with :meth:`start`,
    :meth:`from_fen` or :meth:`from_pieces`; ask for squares with :meth:`pieces`,
    :meth:`piece_at`, :meth:`men` and :meth:`kings_of`.
    """

    __slots__ = ("_hash", "black", "kings", "turn", "white")

    _hash: int
    black: int
    white: int
    kings: int
    turn: Color

    def __init__(self, black: int, white: int, kings: int, turn: Color) -> None:
        """Wrap bit sets that are already known to be consistent (the engine's fast path).

        Raises:
            InvalidPositionError: when a bit lies outside the 32 squares, a square holds both
                sides, or a king bit has no piece under it.
        """
        if (black | white | kings) & ~VALID or black & white or kings & ~(black | white):
            raise InvalidPositionError(
                f"inconsistent bit sets: black={black:#x} white={white:#x} kings={kings:#x}"
            )
        object.__setattr__(self, "black", black)
        object.__setattr__(self, "white", white)
        object.__setattr__(self, "kings", kings)
        object.__setattr__(self, "turn", Color(turn))
        object.__setattr__(self, "_hash", hash((black, white, kings, self.turn is BLACK)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Position is immutable")

    # ---------------------------------------------------------------- constructors

    @classmethod
    def start(cls) -> Position:
        """The starting position: Black men on 1-12, White men on 21-32, Black to move."""
        return cls(mask_of(range(1, 13)), mask_of(range(21, 33)), 0, BLACK)

    @classmethod
    def empty(cls, turn: Color = BLACK) -> Position:
        """A board with no pieces (for editors; the side to move has already lost)."""
        return cls(0, 0, 0, turn)

    @classmethod
    def from_pieces(cls, pieces: Mapping[int, Piece | str], turn: Color | str = BLACK) -> Position:
        """A position from ``{square: piece}`` with squares 1-32 and pieces ``Piece`` or
        ``"b"``, ``"B"``, ``"w"``, ``"W"`` (man lower case, king upper case).

        Raises:
            InvalidPositionError: for a square outside 1-32, a piece letter that is none of
                the four, a man on its own crowning row (a black man on 29-32, a white
                one on 1-4: it would have been crowned there, WCDF rules, "Crowning"), or
                more than 12 pieces of one side (each player has twelve, WCDF rules, "The
                Draughtboard and Pieces").
        """
        black = white = kings = 0
        for square, piece in pieces.items():
            if not isinstance(square, int) or not 1 <= square <= 32:
                raise InvalidPositionError(f"square {square!r} is not in 1-32")
            try:
                kind = Piece(piece)
            except ValueError:
                raise InvalidPositionError(
                    f"square {square}: {piece!r} is not a piece (b, B, w or W)"
                ) from None
            bit = BIT[square]
            if kind.color is BLACK:
                black |= bit
            else:
                white |= bit
            if kind.is_king:
                kings |= bit
        for color, side in ((BLACK, black), (WHITE, white)):
            count = side.bit_count()
            if count > PIECES_A_SIDE:
                raise InvalidPositionError(
                    f"{count} {color} pieces: a side has at most {PIECES_A_SIDE}")
        for color, men, row in ((BLACK, black & ~kings, BLACK_CROWN),
                                (WHITE, white & ~kings, WHITE_CROWN)):
            crowned = squares_of(men & row)
            if crowned:
                raise InvalidPositionError(
                    f"a {color} man on {crowned[0]}, its crowning row: a man is crowned there "
                    f"(write K{crowned[0]} for a king)")
        return cls(black, white, kings, _color(turn))

    @classmethod
    def from_fen(cls, fen: str) -> Position:
        """Read a PDN FEN such as ``B:W18,K24,27:B1,K9,14``.

        The side to move comes first (``B`` or ``W``), then one field per side: its letter and
        its squares, comma-separated, ``K`` before a king, and ranges ``21-32`` allowed
        (PDN 3.0). Tolerated, as real files write them: surrounding quotes or spaces, a
        trailing ``.``, lower case letters, a side with no squares (``W:W:B1``) or with its
        field missing.

        Raises:
            FenError: naming the part that is wrong (``"FEN 'X:W1:B2': the side to move 'X'
                is not B or W"``).
        """
        if not isinstance(fen, str):
            raise FenError(f"a FEN is text like 'B:W21-32:B1-12', got {type(fen).__name__}")
        text = fen.strip().strip('"').strip()
        if text.endswith("."):
            text = text[:-1].rstrip()
        parts = [p.strip() for p in text.split(":")]
        if len(parts) < 1 or len(parts) > 3 or not parts[0]:
            raise FenError(
                f"FEN {fen!r}: expected 'side:Wsquares:Bsquares', found {len(parts)} field(s)"
            )
        turn_text = parts[0].upper()
        if turn_text not in ("B", "W"):
            raise FenError(f"FEN {fen!r}: the side to move {parts[0]!r} is not B or W")
        turn = BLACK if turn_text == "B" else WHITE
        pieces: dict[int, Piece] = {}
        seen_sides: set[str] = set()
        for part in parts[1:]:
            if not part:
                raise FenError(f"FEN {fen!r}: an empty field (expected W... or B...)")
            side = part[0].upper()
            if side not in ("B", "W"):
                raise FenError(f"FEN {fen!r}: field {part!r} does not start with W or B")
            if side in seen_sides:
                raise FenError(f"FEN {fen!r}: side {side} is given twice")
            seen_sides.add(side)
            for square, king in _fen_squares(fen, part[1:]):
                if square in pieces:
                    raise FenError(f"FEN {fen!r}: square {square} is given twice")
                if side == "B":
                    pieces[square] = Piece.BLACK_KING if king else Piece.BLACK_MAN
                else:
                    pieces[square] = Piece.WHITE_KING if king else Piece.WHITE_MAN
        try:
            return cls.from_pieces(pieces, turn)
        except InvalidPositionError as exc:
            raise FenError(f"FEN {fen!r}: {exc}") from None

    # ---------------------------------------------------------------- queries

    def fen(self) -> str:
        """This position as PDN FEN: ``B:W21,22,...,K30:B1,2,...`` (squares ascending, ``K``
        before a king, White's field first as PDN's examples write it)."""
        return f"{self.turn.letter}:W{self._fen_side(self.white)}:B{self._fen_side(self.black)}"

    def _fen_side(self, mask: int) -> str:
        kings = self.kings
        return ",".join(f"K{s}" if BIT[s] & kings else str(s) for s in squares_of(mask))

    def piece_at(self, square: int) -> Piece | None:
        """The piece on a PDN square (1-32), None when it is empty.

        Raises:
            ValueError: when ``square`` is not in 1..32.
        """
        if not 1 <= square <= 32:
            raise ValueError(f"square {square} is not in 1-32")
        bit = BIT[square]
        king = bool(self.kings & bit)
        if self.black & bit:
            return Piece.BLACK_KING if king else Piece.BLACK_MAN
        if self.white & bit:
            return Piece.WHITE_KING if king else Piece.WHITE_MAN
        return None

    def pieces(self) -> dict[int, Piece]:
        """Every occupied square: ``{square: piece}``, squares ascending."""
        out = {}
        for square in SQUARES:
            piece = self.piece_at(square)
            if piece is not None:
                out[square] = piece
        return out

    def side_mask(self, color: Color) -> int:
        """The bit set of every piece of ``color``."""
        return self.black if color is BLACK else self.white

    def men(self, color: Color) -> list[int]:
        """The squares of ``color``'s men, ascending."""
        return squares_of(self.side_mask(color) & ~self.kings)

    def kings_of(self, color: Color) -> list[int]:
        """The squares of ``color``'s kings, ascending."""
        return squares_of(self.side_mask(color) & self.kings)

    def count(self, color: Color) -> tuple[int, int]:
        """``(men, kings)`` of ``color``."""
        mask = self.side_mask(color)
        return (mask & ~self.kings).bit_count(), (mask & self.kings).bit_count()

    def with_turn(self, turn: Color | str) -> Position:
        """The same pieces with another side to move."""
        return Position(self.black, self.white, self.kings, _color(turn))

    def mirror(self) -> Position:
        """The colours swapped and the board turned round (square s becomes 33 - s): the same
        position from the other side's view. Legal moves map square for square."""
        from checkers.squares import mask_of as _mask

        def turned(mask: int) -> int:
            return _mask(33 - s for s in squares_of(mask))

        return Position(
            turned(self.white), turned(self.black), turned(self.kings), self.turn.opponent
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self.black == other.black
            and self.white == other.white
            and self.kings == other.kings
            and self.turn is other.turn
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Position.from_fen({self.fen()!r})"

    def __str__(self) -> str:
        return self.diagram()

    def diagram(self, numbers: bool = False) -> str:
        """The board as 8 lines of text seen from White's side (Black's men start at the top):
        ``b``/``B`` a black man/king, ``w``/``W`` a white man/king, ``.`` an empty dark square
        (or its PDN number with ``numbers=True``), a space a light square; then a line saying
        who is to move."""
        lines = []
        for row in range(8):
            cells = []
            for col in range(8):
                square = square_at(row, col)
                if not square:
                    cells.append("  " if numbers else " ")
                    continue
                piece = self.piece_at(square)
                if numbers:
                    cells.append(f"{piece.value:>2}" if piece else f"{square:>2}")
                else:
                    cells.append(piece.value if piece else ".")
            lines.append(" ".join(cells).rstrip())
        lines.append(f"{self.turn.value.capitalize()} to move")
        return "\n".join(lines)


def _color(value: Color | str) -> Color:
    try:
        return Color(value)
    except ValueError:
        letter = str(value).upper()
        if letter in ("B", "W"):
            return BLACK if letter == "B" else WHITE
        raise InvalidPositionError(f"side {value!r} is not black or white") from None


def _fen_squares(fen: str, text: str) -> Iterable[tuple[int, bool]]:
    """The (square, is_king) pairs of one FEN side field (without its colour letter)."""
    if not text.strip():
        return
    for item in text.split(","):
        token = item.strip()
        king = token[:1].upper() == "K"
        body = token[1:] if king else token
        low, dash, high = body.partition("-")
        try:
            first = int(low)
            last = int(high) if dash else first
        except ValueError:
            raise FenError(f"FEN {fen!r}: {token!r} is not a square number") from None
        if not (1 <= first <= 32 and 1 <= last <= 32) or last < first:
            raise FenError(f"FEN {fen!r}: {token!r} is not a square (or range) in 1-32")
        for square in range(first, last + 1):
            yield square, king
