"""The board as text, drawn from White's side as GNU Backgammon draws it.

White's checkers are ``X`` and move from the 24-point (top right) round to the 1-point (bottom
right); Black's are ``O``. A stack of more than five shows its count in the fifth row. The bar
column shows each side's checkers on the bar, and the right margin the side to move (named
White or Black, as everywhere else), the pip counts and the checkers borne off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from backgammon.core.types import BLACK, WHITE, Color

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
    on_roll = {WHITE: "White", BLACK: "Black"}[position.turn]
    white_off, black_off = position.off
    lines[0] += f"   O black  pips {position.pip_count(BLACK):>3}  off {black_off:>2}"
    lines[-1] += f"   X white  pips {position.pip_count(WHITE):>3}  off {white_off:>2}"
    lines[6] += f"   {on_roll} to move"
    return "\n".join(lines)


def board_words(position: Position, side: Color) -> list[str]:
    """The board in words for a screen reader, as the page's text board reads it
    (``static/js/boardtext.js``): one line per quadrant in ``side``'s numbering, then the bar,
    the checkers borne off and the pip counts.

    Returns:
        Five lines, e.g. ``"White's home board (points 1-6): 6-point: 5 White"`` and
        ``"Bar: none. Borne off: White 0, Black 0. Pips: White 167, Black 167."``.
    """
    p = position.points
    names = {WHITE: "White", BLACK: "Black"}

    def quadrant(title: str, first: int, last: int) -> str:
        items = []
        for n in range(first, last + 1):
            count = p[n if side is WHITE else 25 - n]
            if count:
                items.append(f"{n}-point: {abs(count)} {'White' if count > 0 else 'Black'}")
        return f"{title} (points {first}-{last}): {', '.join(items) if items else 'empty'}"

    bar = [f"{p[25]} White"] if p[25] > 0 else []
    bar += [f"{-p[0]} Black"] if p[0] < 0 else []
    own, other = names[side], names[side.opponent]
    return [
        quadrant(f"{own}'s home board", 1, 6),
        quadrant(f"{own}'s outer board", 7, 12),
        quadrant(f"{other}'s outer board", 13, 18),
        quadrant(f"{other}'s home board", 19, 24),
        f"Bar: {', '.join(bar) if bar else 'none'}. Borne off: White {position.off[0]}, "
        f"Black {position.off[1]}. Pips: White {position.pip_count(WHITE)}, "
        f"Black {position.pip_count(BLACK)}.",
    ]


__all__ = ["board_text", "board_words"]
