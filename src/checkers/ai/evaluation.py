"""The static evaluation: how good a quiet position is, in hundredths of a man, for the side
to move.

The search calls :func:`evaluate` only on quiet positions (the side to move has no jump), so
the terms need not see tactics. Every term is scored from Black's view and the sum is negated
when White is to move; each side's terms are the mirror image of the other's (square ``s``
for Black is square ``33 - s`` for White), so a position and its
:meth:`~checkers.Position.mirror` score the same for the side to move.

The terms and where their ideas come from:

* **Material** (:data:`MAN` = 100, :data:`KING` = 130). A. L. Samuel, "Some studies in
  machine learning using the game of checkers", IBM Journal of Research and Development 3(3),
  1959: the piece advantage dominates his scoring polynomial, a king counted as more than a
  man. Chinook (J. Schaeffer et al., "A world championship caliber checkers program",
  Artificial Intelligence 53, 1992) and Jonathan Kreuzer's GUI Checkers value a king at
  roughly 1.3 to 1.5 men; we take the low end, as a king's worth falls as the board fills.
* **Advancement of men** (:data:`ADVANCE`, by row): Samuel's ADV term (credit for men in
  the rows nearer crowning); the rows next to crowning count most.
* **Back-row guard** (:data:`GUARD`): Samuel's BACK term (the "bridge": Black men on 1 and
  3, White men on 30 and 32, keep the other side from crowning) and his OREO triangle
  (2, 3, 7 for Black). It counts only while the other side has men that could crown, in
  proportion to how many it has.
* **Centre** (:data:`MAN_CENTRE`, :data:`KING_SQUARE`): Samuel's CENT (men on the central
  squares) and KCENT (kings in the centre) terms; Chinook's evaluation also rewards centre
  control and a king's mobility, which the centre gives.
* **Edges** (:data:`MAN_EDGE`, in :data:`KING_SQUARE`): a piece on a side edge has one
  diagonal instead of two (half the mobility; Samuel's MOB/MOBIL terms count moves); a king
  on the edge, and above all in the single corner, is easily trapped.
* **Tempo** (:func:`tempo_weight`): the sum of the rows a side's men have advanced (the
  "tempo count" of checkers literature, used by Samuel's MOVE/THRET ideas and by Chinook).
  With many men on the board an advanced formation is over-extended and runs out of safe
  moves, so tempo counts slightly against; with few pieces, running men to the crown is
  what matters, so it counts for.
* **Endings with mostly kings** (:func:`_kings_ending`): the standard endgame principles
  (e.g. Kreuzer's GUI Checkers notes and every checkers primer): the side ahead *trades
  down* (each exchange makes its advantage relatively larger), its kings *approach* the
  weaker side's kings (a piece can only be trapped or forced into an exchange from close
  by), and it *drives* them out of the double corners, where a lone king holds out longest:
  a weaker side's king scores by :data:`REFUGE` (best in a double corner, worst in the
  centre and on the single-corner edges, where it is caught).
"""

from __future__ import annotations

from typing import Final

from checkers.position import BLACK, Position
from checkers.squares import BIT, INDEX, SQUARES, row_col

#: A man's and a king's worth, in hundredths of a man.
MAN: Final = 100
KING: Final = 130

#: ``ADVANCE[row]``: a Black man's bonus on each row (row 0 = squares 1-4, Black's back row;
#: a man on row 7 is a king). White's are mirrored.
ADVANCE: Final = (0, 1, 2, 4, 6, 9, 13, 0)
#: Bonus for a Black man on its back-row squares (the bridge 1 and 3; 2 of the OREO
#: triangle; 4, the single corner, least), at full weight while the other side has 8 or more
#: men. White's on 32, 31, 30, 29.
GUARD: Final = {1: 10, 2: 6, 3: 10, 4: 2}
#: Full guard weight is reached when the other side has this many men.
GUARD_MEN: Final = 8
#: Bonus for a man on the central squares (both colours: the set is its own mirror).
MAN_CENTRE: Final = {14: 6, 15: 6, 18: 6, 19: 6, 10: 2, 11: 2, 22: 2, 23: 2}
#: Penalty for a man on a side edge (one diagonal only).
MAN_EDGE: Final = -2
#: A king's bonus by square: the centre is good, the edges bad, the single corners worst.
KING_CENTRE: Final = 10
KING_NEAR_CENTRE: Final = 4
KING_EDGE: Final = -8
KING_SINGLE_CORNER: Final = -14
#: The weaker side's king in a kings ending: refuge squares (the double corners 1, 5 and
#: 28, 32) are best, the centre is worst.
REFUGE_DOUBLE_CORNER: Final = 14
REFUGE_CENTRE: Final = -10
#: Centi-men per square of distance between the stronger side's kings and the weaker side's.
APPROACH: Final = 4
#: Trading down: the material lead is worth ``lead * (24 - pieces) / TRADE_DIVISOR`` more.
TRADE_DIVISOR: Final = 32

_CENTRE4: Final = frozenset({14, 15, 18, 19})
_NEAR4: Final = frozenset({9, 10, 11, 12, 13, 16, 17, 20, 21, 22, 23, 24})
_DOUBLE_CORNERS: Final = frozenset({1, 5, 28, 32})
_SINGLE_CORNERS: Final = frozenset({4, 29})


def _is_edge(square: int) -> bool:
    row, col = row_col(square)
    return col in (0, 7) or row in (0, 7)


def _side_edge(square: int) -> bool:
    return row_col(square)[1] in (0, 7)


def _king_square(square: int) -> int:
    if square in _SINGLE_CORNERS:
        return KING_SINGLE_CORNER
    if square in _CENTRE4:
        return KING_CENTRE
    if _is_edge(square):
        return KING_EDGE
    return KING_NEAR_CENTRE if square in _NEAR4 else 0


def _refuge(square: int) -> int:
    if square in _DOUBLE_CORNERS:
        return REFUGE_DOUBLE_CORNER
    if square in _CENTRE4:
        return REFUGE_CENTRE
    if square in _SINGLE_CORNERS:
        return KING_SINGLE_CORNER
    return 0


def _black_man(square: int) -> int:
    row = (square - 1) // 4
    edge = MAN_EDGE if _side_edge(square) else 0
    return MAN + ADVANCE[row] + MAN_CENTRE.get(square, 0) + edge


#: ``KING_SQUARE[s]``: a king's worth on PDN square ``s`` (material included), either colour.
KING_SQUARE: Final = (0, *(KING + _king_square(s) for s in SQUARES))
#: ``REFUGE[s]``: the weaker side's king on ``s`` in a kings ending.
REFUGE: Final = (0, *(_refuge(s) for s in SQUARES))


def _tables(weights: dict[int, int]) -> tuple[tuple[int, ...], ...]:
    """Byte tables: ``out[c][byte]`` sums ``weights`` over the squares whose bit index is
    ``8 * c + b`` for the bits ``b`` of ``byte`` (a bit set's sum in 5 look-ups)."""
    by_index = [0] * 40
    for square, weight in weights.items():
        by_index[INDEX[square]] = weight
    out = []
    for chunk in range(5):
        row = [0] * 256
        for byte in range(1, 256):
            low = byte & -byte
            row[byte] = row[byte ^ low] + by_index[8 * chunk + low.bit_length() - 1]
        out.append(tuple(row))
    return tuple(out)


def _mirror(weights: dict[int, int]) -> dict[int, int]:
    return {33 - s: w for s, w in weights.items()}


_BLACK_MEN: Final = {s: _black_man(s) for s in SQUARES if s <= 28}
_BLACK_TEMPO: Final = {s: (s - 1) // 4 for s in SQUARES}
T_BLACK_MEN: Final = _tables(_BLACK_MEN)
T_WHITE_MEN: Final = _tables(_mirror(_BLACK_MEN))
T_KINGS: Final = _tables({s: KING_SQUARE[s] for s in SQUARES})
T_BLACK_GUARD: Final = _tables(GUARD)
T_WHITE_GUARD: Final = _tables(_mirror(GUARD))
T_BLACK_TEMPO: Final = _tables(_BLACK_TEMPO)
T_WHITE_TEMPO: Final = _tables(_mirror(_BLACK_TEMPO))

_ROW_COL: Final = {INDEX[s]: row_col(s) for s in SQUARES}
_SQUARE_OF_INDEX: Final = {INDEX[s]: s for s in SQUARES}
_BLACK_BACK: Final = BIT[1] | BIT[2] | BIT[3] | BIT[4]
_WHITE_BACK: Final = BIT[29] | BIT[30] | BIT[31] | BIT[32]


def _sum(tables: tuple[tuple[int, ...], ...], mask: int) -> int:
    t0, t1, t2, t3, t4 = tables
    return (
        t0[mask & 255]
        + t1[(mask >> 8) & 255]
        + t2[(mask >> 16) & 255]
        + t3[(mask >> 24) & 255]
        + t4[mask >> 32]
    )


def tempo_weight(pieces: int) -> int:
    """Centi-men per row of tempo lead with ``pieces`` on the board: -2 with 24 pieces, 0 with
    16, +2 with 8 and +3 with 4 (over-extension early, running to crown late)."""
    return (16 - pieces) // 4


def _indices(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        mask ^= low
        out.append(low.bit_length() - 1)
    return out


def _distance(a: int, b: int) -> int:
    """King moves between two bit indices on an empty board (the larger of the row and the
    column differences)."""
    ra, ca = _ROW_COL[a]
    rb, cb = _ROW_COL[b]
    return max(abs(ra - rb), abs(ca - cb))


def _kings_ending(strong_kings: int, weak: int, weak_kings: int) -> int:
    """Approach and drive: the stronger side's bonus, from its view, when the weaker side has
    only kings (``weak == weak_kings``) or mostly kings. ``strong_kings``: its kings' bits."""
    score = 0
    targets = _indices(weak)
    for k in _indices(strong_kings):
        score -= APPROACH * min(_distance(k, t) for t in targets)
    for t in _indices(weak_kings):
        score -= REFUGE[_SQUARE_OF_INDEX[t]]
    return score


def evaluate_raw(own: int, opp: int, kings: int, black: bool) -> int:
    """The evaluation of a position given as bit sets: ``own`` the side to move's pieces
    (Black's when ``black``), ``opp`` the other side's, ``kings`` every king. Hundredths of a
    man, positive when the side to move stands better."""
    if black:
        b, w = own, opp
    else:
        b, w = opp, own
    bm = b & ~kings
    wm = w & ~kings
    bk = b & kings
    wk = w & kings
    black_material = bm.bit_count() * MAN + bk.bit_count() * KING
    white_material = wm.bit_count() * MAN + wk.bit_count() * KING
    score = _sum(T_BLACK_MEN, bm) - _sum(T_WHITE_MEN, wm) + _sum(T_KINGS, bk) - _sum(T_KINGS, wk)
    if bm & _BLACK_BACK and wm:
        score += _sum(T_BLACK_GUARD, bm) * min(wm.bit_count(), GUARD_MEN) // GUARD_MEN
    if wm & _WHITE_BACK and bm:
        score -= _sum(T_WHITE_GUARD, wm) * min(bm.bit_count(), GUARD_MEN) // GUARD_MEN
    pieces = (b | w).bit_count()
    weight = tempo_weight(pieces)
    if weight:
        score += weight * (_sum(T_BLACK_TEMPO, bm) - _sum(T_WHITE_TEMPO, wm))
    lead = black_material - white_material
    if lead:
        trade = abs(lead) * (24 - pieces) // TRADE_DIVISOR
        score += trade if lead > 0 else -trade
        if lead > 0:
            if bk and 2 * wk.bit_count() >= w.bit_count():
                score += _kings_ending(bk, w, wk)
        elif wk and 2 * bk.bit_count() >= b.bit_count():
            score -= _kings_ending(wk, b, bk)
    return score if black else -score


def evaluate(position: Position) -> int:
    """:func:`evaluate_raw` of a :class:`~checkers.Position`, for the side to move."""
    black = position.turn is BLACK
    own, opp = (position.black, position.white) if black else (position.white, position.black)
    return evaluate_raw(own, opp, position.kings, black)
