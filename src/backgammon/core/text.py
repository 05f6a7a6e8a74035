"""The board as text, drawn from White's side as GNU Backgammon draws it.

White's checkers are ``X`` and move from the 24-point (top right) round to the 1-point (bottom
right); Black's are ``O``. A stack of more than five shows its count in the fifth row. The bar
column shows each side's checkers on the bar, and the right margin the side to move, the pip
counts and the checkers borne off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from backgammon.core.types import BLACK, WHITE

if TYPE_CHECKING:
    from backgammon.core.position import Position

_ROWS = 5
_TOP = (13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24)
_BOTTOM = (12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)


def _cell(count: int, row: int) -> str:
    """What point with ``count`` signed checkers shows in ``row`` (0 = nearest the edge)."""
    n = abs(count)
    if n <= row:
        return "  "
    mark = "X" if count > 0 else "O"
    if row == _ROWS - 1 and n > _ROWS:
        return f"{n:>2}"
    return f" {mark}"


def board_text(position: Position) -> str:
    """Draw ``position`` as 13 lines of text (exact strings are tested).

    Returns:
        The diagram, lines joined with ``\\n``, no trailing newline.
    """
    p = position.points
    white_bar, black_bar = p[25], -p[0]
    lines = [" +13-14-15-16-17-18------19-20-21-22-23-24-+"]

    def row_text(points: tuple[int, ...], row: int, bar: str) -> str:
        left = "".join(_cell(p[point], row) + " " for point in points[:6])
        right = "".join(_cell(p[point], row) + " " for point in points[6:])
        return f" |{left}|{bar}|{right}|"

    for row in range(_ROWS):
        bar = f"{black_bar:>2}O" if row == 0 and black_bar else "   "
        lines.append(row_text(_TOP, row, bar))
    lines.append(" |                  |BAR|                  |")
    for row in reversed(range(_ROWS)):
        bar = f"{white_bar:>2}X" if row == 0 and white_bar else "   "
        lines.append(row_text(_BOTTOM, row, bar))
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+")
    on_roll = {WHITE: "X", BLACK: "O"}[position.turn]
    white_off, black_off = position.off
    lines[0] += f"   O black  pips {position.pip_count(BLACK):>3}  off {black_off:>2}"
    lines[-1] += f"   X white  pips {position.pip_count(WHITE):>3}  off {white_off:>2}"
    lines[6] += f"   {on_roll} to move"
    return "\n".join(lines)


__all__ = ["board_text"]
