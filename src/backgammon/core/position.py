"""The position: 26 signed slots, the borne-off counts and the side to move.

See DESIGN.md "The board" for the layout. A :class:`Position` is immutable and hashable, so it
can key caches and sets; two positions are equal when their slots and side to move are equal
(the borne-off counts follow from the slots).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from operator import neg
from typing import Final, NamedTuple

from backgammon.core.errors import InvalidPositionError
from backgammon.core.types import (
    BLACK,
    BLACK_BAR,
    CHECKERS_PER_SIDE,
    SLOTS,
    START_POINTS,
    WHITE,
    WHITE_BAR,
    Color,
)


class PositionStatus(enum.Flag):
    """What makes a position impossible; ``VALID`` (no flag) when nothing does.

    ``Position.status()`` returns these flags so that a position editor can show every problem
    at once; building a position with validation raises :class:`InvalidPositionError` instead.
    """

    VALID = 0
    TOO_MANY_WHITE = enum.auto()
    TOO_MANY_BLACK = enum.auto()
    TOO_FEW_WHITE = enum.auto()
    TOO_FEW_BLACK = enum.auto()
    WHITE_BAR_NEGATIVE = enum.auto()
    BLACK_BAR_POSITIVE = enum.auto()
    BOTH_BORNE_OFF = enum.auto()


_STATUS_TEXT = {
    PositionStatus.TOO_MANY_WHITE: "White has more than 15 checkers",
    PositionStatus.TOO_MANY_BLACK: "Black has more than 15 checkers",
    PositionStatus.TOO_FEW_WHITE: "White's checkers on the board and off do not make 15",
    PositionStatus.TOO_FEW_BLACK: "Black's checkers on the board and off do not make 15",
    PositionStatus.WHITE_BAR_NEGATIVE: "White's bar (slot 25) holds a negative count",
    PositionStatus.BLACK_BAR_POSITIVE: "Black's bar (slot 0) holds a positive count",
    PositionStatus.BOTH_BORNE_OFF: "both sides have borne off every checker (the game ends "
                                   "when the first side has, WBF rules 5.1)",
}


class ResultKind(enum.IntEnum):
    """How a finished game was won; the value is what it multiplies the cube by.

    Source: WBF rules 5.1-5.3 (single game, gammon, backgammon).
    """

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3

    def __str__(self) -> str:
        return "single game" if self is ResultKind.SINGLE else self.name.lower()


class Outcome(NamedTuple):
    """The result of a game decided on the board: who won and how."""

    winner: Color
    kind: ResultKind

    @property
    def points(self) -> int:
        """The game's value before the cube: 1, 2 or 3."""
        return int(self.kind)


def _check_slots(points: Sequence[int]) -> tuple[int, ...]:
    if isinstance(points, (str, bytes)) or not isinstance(points, Sequence):
        raise InvalidPositionError(
            f"a position needs a list of 26 signed ints, got {type(points).__name__}"
        )
    if len(points) != SLOTS:
        raise InvalidPositionError(
            f"a position needs exactly 26 slots (Black's bar, points 1-24, White's bar), "
            f"got {len(points)}"
        )
    for index, count in enumerate(points):
        if isinstance(count, bool) or not isinstance(count, int):
            raise InvalidPositionError(f"slot {index} is {count!r}, not an int")
    return tuple(int(c) for c in points)


def _status_of(points: tuple[int, ...], off: tuple[int, int] | None) -> PositionStatus:
    status = PositionStatus.VALID
    white = sum(c for c in points if c > 0)
    black = -sum(c for c in points if c < 0)
    white_off, black_off = off if off is not None else (
        CHECKERS_PER_SIDE - white,
        CHECKERS_PER_SIDE - black,
    )
    if white > CHECKERS_PER_SIDE or white_off < 0:
        status |= PositionStatus.TOO_MANY_WHITE
    elif white + white_off != CHECKERS_PER_SIDE:
        status |= PositionStatus.TOO_FEW_WHITE
    if black > CHECKERS_PER_SIDE or black_off < 0:
        status |= PositionStatus.TOO_MANY_BLACK
    elif black + black_off != CHECKERS_PER_SIDE:
        status |= PositionStatus.TOO_FEW_BLACK
    if points[WHITE_BAR] < 0:
        status |= PositionStatus.WHITE_BAR_NEGATIVE
    if points[BLACK_BAR] > 0:
        status |= PositionStatus.BLACK_BAR_POSITIVE
    if white == black == 0 and white_off == black_off == CHECKERS_PER_SIDE:
        status |= PositionStatus.BOTH_BORNE_OFF
    return status


def describe_status(status: PositionStatus) -> str:
    """The problems a status flags, in words, joined by ``"; "`` (``"valid"`` when none)."""
    if not status:
        return "valid"
    return "; ".join(text for flag, text in _STATUS_TEXT.items() if flag in status)


class Position:
    """An immutable backgammon position: 26 signed slots, borne-off counts, side to move.

    Build one with :meth:`from_points`, :meth:`from_id` or :meth:`start`.

    Attributes:
        points: 26 signed ints from White's side (DESIGN.md): ``[1..24]`` the points, White
            positive and Black negative; ``[25]`` White's bar (>= 0); ``[0]`` Black's bar (<= 0).
        off: ``(white, black)`` checkers borne off.
        turn: the side to move.
    """

    __slots__ = ("_black_view", "_hash", "off", "points", "turn")

    points: tuple[int, ...]
    off: tuple[int, int]
    turn: Color
    _hash: int | None
    _black_view: tuple[int, ...] | None

    def __init__(self, points: Sequence[int], turn: Color | str = WHITE) -> None:
        """Same as :meth:`from_points` with validation."""
        slots = _check_slots(points)
        color = _parse_turn(turn)
        status = _status_of(slots, None)
        if status:
            raise InvalidPositionError(f"impossible position: {describe_status(status)}")
        self._init(slots, color)

    def _init(
        self, points: tuple[int, ...], turn: Color, off: tuple[int, int] | None = None
    ) -> None:
        if off is None:
            white = 0
            black = 0
            for c in points:
                if c > 0:
                    white += c
                elif c < 0:
                    black -= c
            off = (CHECKERS_PER_SIDE - white, CHECKERS_PER_SIDE - black)
        set_points, set_off, set_turn, set_hash, set_own = _SLOT_SETTERS
        set_points(self, points)
        set_off(self, off)
        set_turn(self, turn)
        set_hash(self, None)
        set_own(self, None)

    @classmethod
    def _trusted(
        cls, points: tuple[int, ...], turn: Color, off: tuple[int, int] | None = None
    ) -> Position:
        # Used by move generation for results of legal plays: skips validation (the rules
        # guarantee it) because it runs once per distinct play.
        self = object.__new__(cls)
        self._init(points, turn, off)
        return self

    @classmethod
    def from_points(
        cls,
        points: Sequence[int],
        turn: Color | str = WHITE,
        *,
        off: Sequence[int] | None = None,
    ) -> Position:
        """Build a position from the 26-slot list.

        Args:
            points: 26 signed ints, White positive (DESIGN.md "The board").
            turn: the side to move: ``WHITE``/``BLACK`` or ``"white"``/``"black"``.
            off: optional ``(white, black)`` borne-off counts; they follow from the board, so
                when given they must agree with it (15 minus the checkers on the board and bar).

        Raises:
            InvalidPositionError: not 26 ints, a side without exactly 15 checkers (board, bar
                and off together), a bar slot of the wrong sign, or ``off`` that disagrees.
        """
        slots = _check_slots(points)
        color = _parse_turn(turn)
        given_off: tuple[int, int] | None = None
        if off is not None:
            if len(off) != 2 or any(isinstance(o, bool) or not isinstance(o, int) for o in off):
                raise InvalidPositionError(f"off must be two ints (white, black), got {off!r}")
            given_off = (int(off[0]), int(off[1]))
        status = _status_of(slots, given_off)
        if status:
            raise InvalidPositionError(f"impossible position: {describe_status(status)}")
        return cls._trusted(slots, color)

    @classmethod
    def start(cls, turn: Color | str = WHITE) -> Position:
        """The starting position (WBF rules 1.2) with ``turn`` to move."""
        return cls._trusted(START_POINTS, _parse_turn(turn))

    @classmethod
    def from_id(cls, position_id: str, turn: Color | str = WHITE) -> Position:
        """Decode a GNU Backgammon Position ID (14 characters) with ``turn`` on roll.

        Raises:
            InvalidIdError: the ID is malformed (length, characters, checker counts).
        """
        from backgammon.core.ids import decode_position_id

        color = _parse_turn(turn)
        return cls._trusted(tuple(decode_position_id(position_id, color)), color)

    def id(self) -> str:
        """The GNU Backgammon Position ID (14 characters) with :attr:`turn` on roll."""
        from backgammon.core.ids import encode_position_id

        return encode_position_id(self.points, self.turn)

    @classmethod
    def from_xgid(cls, xgid: str) -> Position:
        """The board of an eXtreme Gammon XGID with its player on roll to move.

        The whole XGID is checked; its other fields (cube, dice, score, ...) are read by
        :meth:`backgammon.core.xgid.Xgid.parse`.

        Raises:
            InvalidIdError: a malformed XGID, naming the field that is wrong.
        """
        from backgammon.core.xgid import Xgid

        return Xgid.parse(xgid).position

    def xgid(self) -> str:
        """This position as an XGID (``XGID=...``): :attr:`turn` on roll, dice not rolled,
        cube 1 centred, money play without the Jacoby rule or beavers, maximum cube 1024."""
        from backgammon.core.xgid import Xgid

        return str(Xgid(position=self))

    def status(self) -> PositionStatus:
        """Flags for what makes this position impossible (``VALID`` for a built position)."""
        return _status_of(self.points, self.off)

    def pip_count(self, color: Color | str) -> int:
        """The pips ``color`` needs to bear off every checker (DESIGN.md): bar counts 25.

        For White the sum of point x checkers; for Black of (25 - point) x checkers.
        Both sides have 167 in the starting position.
        """
        side = _parse_turn(color)
        p = self.points
        if side is WHITE:
            return sum(i * p[i] for i in range(1, 26) if p[i] > 0)
        return sum((25 - i) * -p[i] for i in range(25) if p[i] < 0)

    def mirror(self) -> Position:
        """The same position with the colours swapped: White's checkers become Black's.

        Slot ``i`` of the result is minus slot ``25 - i`` of this one, and the other side is to
        move, so every rule and evaluation gives the same answer for the mirror.
        """
        p = self.points
        return Position._trusted(tuple(-p[25 - i] for i in range(SLOTS)), self.turn.opponent)

    def with_turn(self, turn: Color | str) -> Position:
        """This position with ``turn`` to move."""
        return Position._trusted(self.points, _parse_turn(turn))

    def checkers_on_bar(self, color: Color | str) -> int:
        """How many of ``color``'s checkers are on the bar."""
        side = _parse_turn(color)
        return self.points[WHITE_BAR] if side is WHITE else -self.points[BLACK_BAR]

    def own_points(self, color: Color | str) -> tuple[int, ...]:
        """``color``'s checkers in its own numbering: 26 ints, index 25 its bar, 1..24 its
        points (positive: its checkers, negative: the opponent's), index 0 the opponent's bar
        (<= 0). For White this is :attr:`points` itself."""
        if color is WHITE or color == "white":
            return self.points
        view = self._black_view
        if view is None:
            _parse_turn(color)
            view = tuple(map(neg, reversed(self.points)))
            _SLOT_SETTERS[4](self, view)
        return view

    def has_contact(self) -> bool:
        """True while some checker still has to pass an opponent's checker (no pure race)."""
        p = self.points
        # White's rearmost checker against Black's rearmost (from White's view, Black's
        # checkers move up; contact remains while some Black checker is below a White one).
        white_back = max((i for i in range(1, 26) if p[i] > 0), default=0)
        black_back = min((i for i in range(25) if p[i] < 0), default=25)
        return black_back < white_back

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.points == other.points and self.turn == other.turn

    def __hash__(self) -> int:
        value = self._hash
        if value is None:
            value = hash((self.points, self.turn))
            _SLOT_SETTERS[3](self, value)
        return value

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Position is immutable")

    def __repr__(self) -> str:
        return f"Position.from_points({list(self.points)!r}, turn={str(self.turn)!r})"

    def __str__(self) -> str:
        from backgammon.core.text import board_text

        return board_text(self)

    def __reduce__(self) -> tuple[object, ...]:
        return (Position.from_points, (self.points, str(self.turn)))


# The slots' own setters: they bypass Position.__setattr__, which forbids changes after
# construction, and cost less than object.__setattr__ (positions are built once per play).
_SLOT_SETTERS = tuple(
    vars(Position)[name].__set__ for name in ("points", "off", "turn", "_hash", "_black_view")
)


class _Unsealed:
    """Position's slot layout without its ``__setattr__`` guard, for move generation only.

    Building the result of every legal play is the costly part of listing them, and slot
    setters are the costly part of building a Position (a call each). An ``_Unsealed`` takes
    plain attribute stores instead, then becomes a Position by ``__class__`` assignment, which
    Python allows between classes with the same slots: about half the time of
    :meth:`Position._trusted`. Nothing else ever holds one.
    """

    __slots__ = ("_black_view", "_hash", "off", "points", "turn")  # Position's, in order

    points: tuple[int, ...]
    off: tuple[int, int]
    turn: Color
    _hash: int | None
    _black_view: tuple[int, ...] | None


def _parse_turn(turn: Color | str) -> Color:
    try:
        return Color.parse(turn)
    except ValueError as exc:
        raise InvalidPositionError(str(exc)) from None


#: The refusal of a position whose game is over (:func:`outcome`), as every door words it.
GAME_OVER_TEXT: Final = ("the game in that position is over: a side has borne off all its "
                          "checkers")


def outcome(position: Position) -> Outcome | None:
    """The result of a game that has ended on the board, or None while both sides have checkers.

    The winner has borne off all 15. A gammon when the loser has borne off none; a backgammon
    when, in addition, the loser has a checker on the bar or in the winner's home board.
    Source: WBF rules 5.2 (gammon) and 5.3 (backgammon).
    """
    white_off, black_off = position.off
    p = position.points
    if white_off == CHECKERS_PER_SIDE:
        winner, loser_off = WHITE, black_off
        stuck = p[BLACK_BAR] < 0 or any(p[i] < 0 for i in range(1, 7))
    elif black_off == CHECKERS_PER_SIDE:
        winner, loser_off = BLACK, white_off
        stuck = p[WHITE_BAR] > 0 or any(p[i] > 0 for i in range(19, 25))
    else:
        return None
    if loser_off > 0:
        return Outcome(winner, ResultKind.SINGLE)
    return Outcome(winner, ResultKind.BACKGAMMON if stuck else ResultKind.GAMMON)


__all__ = [
    "GAME_OVER_TEXT",
    "Outcome",
    "Position",
    "PositionStatus",
    "ResultKind",
    "describe_status",
    "outcome",
]
