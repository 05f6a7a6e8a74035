"""Moves: generation, application, notation. A move is one whole turn.

Rules (WCDF *Rules of the Game of Checkers (English Draughts)*, sections 1.13-1.20; ACF
*Standard Laws of Checkers*):

* Men move and jump diagonally forward only (Black towards 32, White towards 1); kings one
  square in any diagonal direction (no flying kings).
* **Capture is mandatory**: when any piece of the side to move can jump, only jumps are legal.
  A jump continues while the jumping piece can jump again from its landing square; it must be
  finished. Any jump sequence may be chosen: the longest is not required.
* A piece is not jumped twice in one move, and the jumped pieces leave the board when the move
  ends (on an 8x8 board with short kings no landing square can be a jumped square, so this
  only forbids jumping a piece twice).
* **Crowning ends the move**: a man that reaches the far row becomes a king and stops, even if
  the new king could jump again.
* A side with no legal move (no pieces, or every piece blocked) has lost.

A :class:`Move` carries its whole path (origin and every landing square) and the squares it
captures; its identity is its path. Two jump sequences with the same path are the same move;
sequences that take different pieces have different paths.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Final

from checkers.errors import IllegalMoveError, NotationError
from checkers.position import BLACK, Position
from checkers.squares import (
    BIT,
    BLACK_CROWN,
    INDEX,
    JUMPS_BOTH,
    JUMPS_DOWN,
    JUMPS_UP,
    SQUARE_AT,
    VALID,
    WHITE_CROWN,
    neighbours,
    row_col,
)

#: An internal move: (path as bit indices, captured bits).
RawMove = tuple[tuple[int, ...], int]


@dataclass(frozen=True, slots=True)
class Move:
    """One whole turn: ``path`` is the origin then every landing square (PDN numbers 1-32);
    ``captures`` the squares of the pieces it jumps, in the order jumped (empty for a plain
    move). ``str(move)`` is PDN notation: ``11-15`` or ``15x22x31``.

    Equality and hashing use the path alone (the path fixes what is captured).
    """

    path: tuple[int, ...]
    captures: tuple[int, ...] = field(default=(), compare=False)

    @property
    def origin(self) -> int:
        """The square the piece starts on."""
        return self.path[0]

    @property
    def destination(self) -> int:
        """The square the piece ends on (the origin again for a king's circular jump)."""
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        """True when the move jumps at least one piece."""
        return bool(self.captures)

    def __str__(self) -> str:
        return ("x" if self.captures else "-").join(str(s) for s in self.path)

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"


def _jumped_square(a: int, b: int) -> int:
    """The PDN square between two squares a jump apart."""
    return SQUARE_AT[(INDEX[a] + INDEX[b]) // 2]


def raw_to_move(raw: RawMove) -> Move:
    """The :class:`Move` of a raw move (its path in PDN squares and the squares it jumps)."""
    path = tuple(SQUARE_AT[i] for i in raw[0])
    captures = tuple(_jumped_square(a, b) for a, b in itertools.pairwise(path))
    return Move(path, captures if raw[1] else ())


# ------------------------------------------------------------------ the generator
# Written on raw ints for speed (perft, search): own/opp/kings bit sets and the mover's colour.


def jumpers(own: int, opp: int, kings: int, empty: int, black: bool) -> int:
    """The bits of the mover's pieces that have a jump (``empty``: the empty squares' bits).
    Zero exactly when the position is quiet for the mover."""
    # a piece at p jumps towards 32 when opp is at p+d and p+2d is empty: ((empty >> d) & opp) >> d
    down = (((empty >> 4) & opp) >> 4) | (((empty >> 5) & opp) >> 5)
    up = (((empty << 4) & opp) << 4) | (((empty << 5) & opp) << 5)
    if black:
        return own & (down | (up & kings))
    return own & (up | (down & kings))


def _extend(
    index: int,
    tables: tuple[tuple[tuple[int, int], ...], ...],
    opp: int,
    empty: int,
    crown: int,
    path: tuple[int, ...],
    captured: int,
    out: list[RawMove],
) -> None:
    """Add to ``out`` every completed jump sequence that continues ``path`` from ``index``.

    ``crown`` is the crowning row for a man (0 for a king): landing there ends the move.
    """
    for jumped, land in tables[index]:
        if opp & jumped and empty >> land & 1:
            step = (*path, land)
            if crown >> land & 1:
                out.append((step, captured | jumped))
            else:
                before = len(out)
                _extend(land, tables, opp & ~jumped, empty, crown, step, captured | jumped, out)
                if len(out) == before:
                    out.append((step, captured | jumped))


def raw_moves(own: int, opp: int, kings: int, black: bool) -> list[RawMove]:
    """Every legal move of the side whose pieces are ``own`` (black when ``black``).

    Returns (path as bit indices, captured bits) pairs: jumps only when any jump exists.
    """
    empty = VALID & ~(own | opp)
    pieces = jumpers(own, opp, kings, empty, black)
    out: list[RawMove] = []
    if pieces:
        men_table = JUMPS_DOWN if black else JUMPS_UP
        crown = BLACK_CROWN if black else WHITE_CROWN
        while pieces:
            low = pieces & -pieces
            pieces ^= low
            index = low.bit_length() - 1
            if kings & low:
                _extend(index, JUMPS_BOTH, opp, empty | low, 0, (index,), 0, out)
            else:
                _extend(index, men_table, opp, empty | low, crown, (index,), 0, out)
        return out
    if black:
        forward, backward = own, own & kings
        for shift in (4, 5):
            targets = (forward << shift) & empty
            while targets:
                low = targets & -targets
                targets ^= low
                to = low.bit_length() - 1
                out.append(((to - shift, to), 0))
            targets = (backward >> shift) & empty
            while targets:
                low = targets & -targets
                targets ^= low
                to = low.bit_length() - 1
                out.append(((to + shift, to), 0))
    else:
        forward, backward = own, own & kings
        for shift in (4, 5):
            targets = (forward >> shift) & empty
            while targets:
                low = targets & -targets
                targets ^= low
                to = low.bit_length() - 1
                out.append(((to + shift, to), 0))
            targets = (backward << shift) & empty
            while targets:
                low = targets & -targets
                targets ^= low
                to = low.bit_length() - 1
                out.append(((to - shift, to), 0))
    return out


def count_moves(own: int, opp: int, kings: int, black: bool) -> int:
    """The number of legal moves, without building them when no jump exists (perft's leaves)."""
    empty = VALID & ~(own | opp)
    if jumpers(own, opp, kings, empty, black):
        return len(raw_moves(own, opp, kings, black))
    mine = own & kings
    if black:
        return (
            ((own << 4) & empty).bit_count()
            + ((own << 5) & empty).bit_count()
            + ((mine >> 4) & empty).bit_count()
            + ((mine >> 5) & empty).bit_count()
        )
    return (
        ((own >> 4) & empty).bit_count()
        + ((own >> 5) & empty).bit_count()
        + ((mine << 4) & empty).bit_count()
        + ((mine << 5) & empty).bit_count()
    )


def apply_raw(own: int, opp: int, kings: int, black: bool, raw: RawMove) -> tuple[int, int, int]:
    """The bit sets after a raw move: (own, opp, kings), the mover's still first."""
    path, captured = raw
    start = 1 << path[0]
    end = 1 << path[-1]
    own = (own ^ start) | end
    opp &= ~captured
    if kings & start or end & (BLACK_CROWN if black else WHITE_CROWN):
        kings = (kings & ~start & ~captured) | end
    else:
        kings &= ~captured
    return own, opp, kings


# ------------------------------------------------------------------ the public API


def _sides(position: Position) -> tuple[int, int, bool]:
    """The side to move's bit set, the other's, and whether Black is to move.

    Raises:
        TypeError: ``position`` is not a :class:`Position` (a FEN is read with
            :meth:`Position.from_fen`).
    """
    if not isinstance(position, Position):
        raise TypeError(f"expected a checkers Position, got {type(position).__name__} "
                        f"{position!r:.60} (Position.from_fen(text) reads a FEN)")
    black = position.turn is BLACK
    if black:
        return position.black, position.white, True
    return position.white, position.black, False


def legal_moves(position: Position) -> list[Move]:
    """Every legal move of the side to move, as :class:`Move` objects.

    Jumps only when any jump exists (mandatory capture); otherwise every plain move. Sorted by
    path (``9-13`` before ``9-14`` before ``10-14``). An empty list means the side to move has
    lost.

    Raises:
        TypeError: ``position`` is not a :class:`Position`.
    """
    own, opp, black = _sides(position)
    moves = [raw_to_move(raw) for raw in raw_moves(own, opp, position.kings, black)]
    moves.sort(key=lambda move: move.path)
    return moves


def has_legal_move(position: Position) -> bool:
    """True when the side to move can move (False: it has lost)."""
    own, opp, black = _sides(position)
    return count_moves(own, opp, position.kings, black) > 0


def is_quiet(position: Position) -> bool:
    """True when the side to move has no jump (quiescence search stops only here)."""
    own, opp, black = _sides(position)
    empty = VALID & ~(own | opp)
    return not jumpers(own, opp, position.kings, empty, black)


def apply_move(position: Position, move: Move) -> Position:
    """The position after a legal move, the other side to move.

    Raises:
        IllegalMoveError: when ``move`` is not among :func:`legal_moves` of ``position``
            (the message says why, as :func:`explain_illegal` does).
    """
    own, opp, black = _sides(position)
    for raw in raw_moves(own, opp, position.kings, black):
        if tuple(SQUARE_AT[i] for i in raw[0]) == move.path:
            return _child(position, raw)
    raise IllegalMoveError(explain_illegal(position, move.path))


def _child(position: Position, raw: RawMove) -> Position:
    own, opp, black = _sides(position)
    own, opp, kings = apply_raw(own, opp, position.kings, black, raw)
    if black:
        return Position(own, opp, kings, position.turn.opponent)
    return Position(opp, own, kings, position.turn.opponent)


def children(position: Position) -> list[tuple[Move, Position]]:
    """Each legal move with the position it leads to."""
    own, opp, black = _sides(position)
    return [
        (raw_to_move(raw), _child(position, raw))
        for raw in raw_moves(own, opp, position.kings, black)
    ]


_MOVE_TEXT: Final = re.compile(r"^\s*(\d{1,2})\s*(?:([-x:])\s*(\d{1,2})\s*)+$", re.IGNORECASE)
_SEPARATORS: Final = re.compile(r"\s*[-x:]\s*", re.IGNORECASE)


def clip_text(text: str, limit: int = 40) -> str:
    """``text`` as a message quotes it: at most ``limit`` characters, then "..."."""
    return text if len(text) <= limit else f"{text[:limit]}..."


def parse_squares(text: str) -> tuple[tuple[int, ...], bool]:
    """The squares of a move written in PDN (``11-15``, ``15x22x31``, ``15:22``) and whether it
    was written as a capture (``x`` or ``:``).

    Raises:
        NotationError: when the text is not squares 1-32 joined by ``-``, ``x`` or ``:``.
    """
    if not isinstance(text, str) or not _MOVE_TEXT.match(text):
        shown = repr(clip_text(text)) if isinstance(text, str) else repr(text)
        raise NotationError(f"{shown} is not a move (expected e.g. 11-15 or 15x22x31)")
    squares = tuple(int(s) for s in _SEPARATORS.split(text.strip()))
    bad = [s for s in squares if not 1 <= s <= 32]
    if bad:
        raise NotationError(f"{text!r}: square {bad[0]} is not in 1-32")
    capture = "x" in text.lower() or ":" in text
    return squares, capture


def parse_move(position: Position, text: str) -> Move:
    """The legal move that PDN text names in ``position``.

    A full path (``15x22x31``) names that move; a shortened one (``15x31``: origin and
    destination, or any landing squares in order) names the one legal move whose path contains
    those squares in that order with the same origin and destination, when it is unique.

    Raises:
        NotationError: for text that is not a move.
        IllegalMoveError: when no legal move fits (the message says why) or several do
            (the message lists them).
    """
    squares, _ = parse_squares(text)
    moves = legal_moves(position)
    exact = [m for m in moves if m.path == squares]
    if exact:
        return exact[0]
    fitting = [
        m
        for m in moves
        if m.origin == squares[0]
        and m.destination == squares[-1]
        and _subsequence(squares[1:-1], m.path[1:-1])
    ]
    if len(fitting) == 1:
        return fitting[0]
    if len(fitting) > 1:
        listed = ", ".join(str(m) for m in sorted(fitting, key=lambda m: m.path))
        raise IllegalMoveError(f"{clip_text(text.strip())} is ambiguous: it could be {listed}")
    # the reason, after the move as the player wrote it ("22x24", not "22-24")
    _, _, why = explain_illegal(position, squares).partition(": ")
    raise IllegalMoveError(f"{clip_text(text.strip())}: {why}")


def _subsequence(needle: tuple[int, ...], hay: tuple[int, ...]) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needle)


def explain_illegal(position: Position, path: tuple[int, ...]) -> str:
    """Why the move along ``path`` (PDN squares) is not legal, in words a player reads
    (``"a capture is available: 14x23 must be played"``, ``"a man moves forward only"``,
    ``"crowning ends the move"``)."""
    jumps = len(path) > 1 and all(_jump_apart(a, b) for a, b in itertools.pairwise(path))
    text = ("x" if jumps else "-").join(str(s) for s in path)
    moves = legal_moves(position)
    mover = position.turn
    if not moves:
        return f"{text}: {mover.value.capitalize()} has no legal move"
    if len(path) < 2 or not all(1 <= s <= 32 for s in path):
        return f"{text}: a move names at least two squares in 1-32"
    piece = position.piece_at(path[0])
    if piece is None:
        return f"{text}: square {path[0]} is empty"
    if piece.color is not mover:
        return (
            f"{text}: the piece on {path[0]} is {piece.color.value}'s, and {mover.value} is to move"
        )
    for a, b in itertools.pairwise(path):
        if not (b in neighbours(a) or _jump_apart(a, b)):
            return f"{text}: {b} is not a diagonal step or jump from {a}"
    if not piece.is_king:
        forward = 1 if mover is BLACK else -1
        crown = BLACK_CROWN if mover is BLACK else WHITE_CROWN
        for step, (a, b) in enumerate(itertools.pairwise(path), start=2):
            if (b - a) * forward < 0:
                return f"{text}: a man moves forward only"
            if BIT[b] & crown and step < len(path):
                return f"{text}: crowning ends the move (the man is crowned on {b})"
    for b in path[1:]:
        if position.piece_at(b) is not None and b != path[0]:
            return f"{text}: square {b} is occupied"
    shorter = [m for m in moves if path[: len(m.path)] == m.path]
    if shorter:
        end = shorter[0].destination
        if not piece.is_king and BIT[end] & (BLACK_CROWN if mover is BLACK else WHITE_CROWN):
            return f"{text}: crowning ends the move (the man is crowned on {end})"
        return f"{text}: the jump ends on {end}, where no further jump is possible"
    longer = [m for m in moves if m.path[: len(path)] == path]
    if longer:
        return f"{text}: the jump must go on: {longer[0]} continues it"
    captures = sorted((m for m in moves if m.is_capture), key=lambda m: m.path)
    if captures and len(path) == 2 and path[1] in neighbours(path[0]):
        mine = [m for m in captures if m.origin == path[0]]
        shown = " or ".join(str(m) for m in (mine or captures)[:3])
        return f"{text}: a capture is available: {shown} must be played"
    if len(path) >= 2 and _jump_apart(path[0], path[1]):
        between = _jumped_square(path[0], path[1])
        occupant = position.piece_at(between)
        if occupant is None or occupant.color is mover:
            return f"{text}: there is no {mover.opponent.value} piece on {between} to jump"
    if captures:
        shown = " or ".join(str(m) for m in captures[:3])
        return f"{text}: a capture is available: {shown} must be played"
    return f"{text} is not a legal move here"


def _jump_apart(a: int, b: int) -> bool:
    """True when squares a and b are two diagonal steps apart in one line."""
    if not (1 <= a <= 32 and 1 <= b <= 32):
        return False
    (ra, ca), (rb, cb) = row_col(a), row_col(b)
    return abs(ra - rb) == 2 and abs(ca - cb) == 2
