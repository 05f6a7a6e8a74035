"""Hand-drawn checkers positions for the tests: a text diagram as ``Position.diagram`` prints it.

Each line starts with ``|`` (so that the leading spaces of a row survive in the source); the
cells are one character every two columns: a space for a light square, ``.`` for an empty
dark square, ``b``/``B`` a black man/king, ``w``/``W`` a white man/king. Row 0 (squares 1-4)
is at the top, as the engine draws it.
"""

from __future__ import annotations

from checkers import Color, Piece, Position
from checkers.squares import square_at


def drawn(text: str, turn: Color = Color.BLACK) -> Position:
    """The position a diagram shows, ``turn`` to move."""
    rows = [line.split("|", 1)[1] for line in text.strip().splitlines()]
    assert len(rows) == 8, f"a diagram has 8 rows, not {len(rows)}"
    pieces: dict[int, Piece] = {}
    for row, line in enumerate(rows):
        cells = line.ljust(15)[0::2]
        assert len(cells) == 8, (row, line)
        for col, cell in enumerate(cells):
            square = square_at(row, col)
            if not square:
                assert cell == " ", f"row {row}, column {col} is a light square: {cell!r}"
            elif cell != ".":
                pieces[square] = Piece(cell)
    return Position.from_pieces(pieces, turn)
