"""Domain constants and type aliases shared by the whole engine.

The board is one signed list of 26 slots (see DESIGN.md, "The board"):

* ``points[1..24]``: the points numbered from White's side; positive counts are White's
  checkers, negative counts Black's.
* ``points[25]`` (:data:`WHITE_BAR`): White's bar, a count >= 0.
* ``points[0]`` (:data:`BLACK_BAR`): Black's bar, a count <= 0.

In a *mover's own numbering* (used by notation and by :class:`~backgammon.core.moves.Move`)
the bar is 25 (:data:`BAR`) and off is 0 (:data:`OFF`), whichever colour moves.
"""

from __future__ import annotations

from enum import IntEnum
from fractions import Fraction
from typing import Final


class Color(IntEnum):
    """A side. ``WHITE`` counts positive on the board, ``BLACK`` negative.

    ``int(color)`` is the sign of that side's checkers (+1 or -1).
    """

    WHITE = 1
    BLACK = -1

    @property
    def opponent(self) -> Color:
        """The other side."""
        return Color(-self.value)

    @property
    def sign(self) -> int:
        """+1 for White, -1 for Black."""
        return int(self.value)

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, value: Color | str | int) -> Color:
        """Accept a Color, ``"white"``/``"black"`` (any case, or ``"w"``/``"b"``) or +1/-1.

        Raises:
            ValueError: for anything else, quoting the value.
        """
        if isinstance(value, Color):
            return value
        if isinstance(value, str):
            key = value.strip().lower()
            if key in ("white", "w"):
                return cls.WHITE
            if key in ("black", "b"):
                return cls.BLACK
        elif isinstance(value, int) and value in (1, -1):
            return cls(value)
        raise ValueError(f"not a colour: {value!r} (expected 'white' or 'black')")


WHITE: Final = Color.WHITE
BLACK: Final = Color.BLACK

#: Number of slots in the board list.
SLOTS: Final = 26
#: Index of White's bar in the 26-slot list.
WHITE_BAR: Final = 25
#: Index of Black's bar in the 26-slot list.
BLACK_BAR: Final = 0
#: The bar in a mover's own numbering (what notation writes as ``bar`` or ``25``).
BAR: Final = 25
#: Off the board in a mover's own numbering (what notation writes as ``off`` or ``0``).
OFF: Final = 0
#: Checkers each side starts with (WBF rules 1.1).
CHECKERS_PER_SIDE: Final = 15
#: The number of points on the board.
POINTS: Final = 24
#: Points 1..6 of the mover's own numbering form the home board.
HOME_BOARD_SIZE: Final = 6

#: A roll: two dice, each 1..6.
Roll = tuple[int, int]

#: The 21 distinct rolls with their probabilities: doubles 1/36, the others 2/36 (both orders).
#: Higher die first. The probabilities sum to exactly 1.
ROLLS: Final[tuple[tuple[Roll, Fraction], ...]] = tuple(
    ((high, low), Fraction(1 if high == low else 2, 36))
    for high in range(1, 7)
    for low in range(1, high + 1)
)

#: The starting position (WBF rules 1.2): for White 2 on the 24-point, 5 on the 13-point,
#: 3 on the 8-point and 5 on the 6-point; Black's the mirror image.
START_POINTS: Final[tuple[int, ...]] = (
    0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0,
)
