"""Hand-drawn positions for tests, written the way a player reads a board.

``diagram(white="6:5 8:3 13:5 24:2", black="6:5 8:3 13:5 24:2")`` places each side's checkers
on its *own* point numbers (``bar:1`` for the bar); checkers not placed are borne off.
"""

from __future__ import annotations

from backgammon import Position
from backgammon.core.types import Color


def _side(spec: str) -> dict[int, int]:
    placed: dict[int, int] = {}
    for item in spec.split():
        point, _, count = item.partition(":")
        key = 25 if point == "bar" else int(point)
        placed[key] = placed.get(key, 0) + int(count or 1)
    return placed


def diagram(white: str = "", black: str = "", turn: Color | str = "white") -> Position:
    """A position from each side's checkers in its own numbering (see module docstring)."""
    points = [0] * 26
    for point, count in _side(white).items():
        points[point] += count  # White's own numbering is the board's numbering
    for point, count in _side(black).items():
        if points[25 - point] > 0:
            raise ValueError(f"Black's {point}-point already holds White's checkers")
        points[25 - point] -= count  # Black's point p is White's 25 - p; Black's bar is slot 0
    return Position.from_points(points, turn)
