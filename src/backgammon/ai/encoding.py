"""The neural nets' inputs: a batch of boards encoded in one numpy pass.

A board here is the side on roll's view (:func:`on_roll_view`): 26 ints, index 1..24 the points
in the numbering of the side on roll (positive: its checkers, negative: the opponent's), 25 the
side on roll's bar (>= 0), 0 the opponent's bar (<= 0). The side on roll moves down towards 0;
the opponent moves up towards 25. This is the mover's numbering of
:mod:`backgammon.ai.features` flipped: after a play, the opponent is the side on roll.

The encoding (:func:`encode`, ``(N, 26)`` ints -> ``(N, N_INPUTS)`` float32) has, for each side
(the side on roll first, then the opponent, each seen in its own numbering so that both halves
mean the same thing):

* **raw board**, TD-Gammon style truncated unary (Tesauro, "Practical issues in temporal
  difference learning", 1992): for each of the 24 points and the bar, 4 units
  ``n >= 1, n >= 2, n >= 3, (n - 3) / 2``; then checkers borne off ``/ 15``. 101 units.
* **hand-crafted features** (:data:`FEATURE_NAMES`), the ones nets learn slowly: pip count,
  the opponent's shots at this side's blots (rolls out of 36 that hit at least one, all paths
  and direct ones; points this side holds block the paths; an opponent checker on the bar must
  shoot from the bar), blots, home-board points made, the longest prime and where it stands,
  anchors in the opponent's home board, the rearmost checker's escapes (rolls out of 36 that
  carry it past every opponent point within 12 pips in front of it, landing and passing only on
  open points), pips still to bring every checker home (timing), checkers in the opponent's
  home board or on the bar, and wastage (checkers piled on points 1..3).

and finally one unit, the contact flag (1 while the sides are in contact). 227 inputs in all.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from backgammon.ai.features import ROLL_DICE, ROLL_WEIGHT

IntBoards = npt.NDArray[np.int8]
Floats = npt.NDArray[np.float32]

#: Units of the raw encoding per side: 25 places x 4 + borne off.
RAW_UNITS: Final = 25 * 4 + 1
#: The hand-crafted features per side, in order (each scaled to about 0..1).
FEATURE_NAMES: Final = (
    "pips",              # pip count / 100
    "shots",             # opponent's rolls that hit a blot of this side / 36
    "direct_shots",      # the same, counting only shots with one die (6 pips or less)
    "blots",             # blots on points 1..24 / 5
    "home_points",       # points made in the home board (1..6) / 6
    "prime_length",      # longest run of made points / 6
    "prime_place",       # its rearmost point / 24 (0 with no run of 2+)
    "anchors",           # points made in the opponent's home board (19..24) / 2
    "escapes",           # rearmost checker's escaping rolls / 36 (1 when nothing blocks)
    "timing",            # pips to bring every checker into the home board / 100
    "back_checkers",     # checkers on 19..24 or the bar / 5
    "wastage",           # checkers on points 1..3 / 15
)
FEATURES_PER_SIDE: Final = len(FEATURE_NAMES)
#: Inputs of the nets.
N_INPUTS: Final = 2 * (RAW_UNITS + FEATURES_PER_SIDE) + 1


def on_roll_view(mover_boards: npt.ArrayLike) -> IntBoards:
    """Boards in the numbering of the side that has just moved (``LegalPlays.own_boards()``)
    as the side on roll sees them: slot i becomes minus slot 25 - i. Shape ``(N, 26)``."""
    b = np.asarray(mover_boards, dtype=np.int8)
    return -b[:, ::-1]


def _paths() -> tuple[list[tuple[int, tuple[int, ...]]], npt.NDArray[np.float32]]:
    """Every way one checker travels with one roll: ``(distance, partial sums on the way)``,
    and the ``(paths, 21)`` matrix saying which of the 21 rolls (:data:`ROLL_DICE`) has it."""
    paths: list[tuple[int, tuple[int, ...]]] = []
    rolls_of: list[set[int]] = []
    for index, (hi, lo) in enumerate(ROLL_DICE):
        if hi == lo:
            mine = [(hi * k, tuple(hi * j for j in range(1, k))) for k in range(1, 5)]
        else:
            mine = [(hi, ()), (lo, ()), (hi + lo, (hi,)), (hi + lo, (lo,))]
        for path in mine:
            if path not in paths:
                paths.append(path)
                rolls_of.append(set())
            rolls_of[paths.index(path)].add(index)
    matrix = np.zeros((len(paths), len(ROLL_DICE)), dtype=np.float32)
    for p, rolls in enumerate(rolls_of):
        for r in rolls:
            matrix[p, r] = 1.0
    return paths, matrix


_PATHS, _PATH_ROLLS = _paths()
_N_PATHS: Final = len(_PATHS)
#: Rolls out of 36 for each of the 21 rolls.
_ROLL_COUNT: Final = (np.asarray(ROLL_WEIGHT, dtype=np.float32) * 36.0).astype(np.float32)
_DISTANCE: Final = np.array([d for d, _ in _PATHS], dtype=np.int64)
_DIRECT: Final = np.array([not steps and d <= 6 for d, steps in _PATHS], dtype=bool)
_ONE_DIE: Final = _DISTANCE <= 6

# The shots and the escapes work on bit masks of the board: bit q of a mask is place q
# (0..25). A path of distance D whose partial sums are s1, s2, ... is then one shift and one
# test: a shooter on o = p - D reaches a blot on p when bit o of the shooters' mask is set and
# the made points o + s1, o + s2, ... are all open, that is the bits s1, s2, ... of the made
# points' mask shifted right by o are all clear.
#: Bits of each path's partial sums (bit s for each s).
_STEP_BITS: Final = np.array([sum(1 << s for s in steps) for _, steps in _PATHS], dtype=np.int64)
#: Where the shooters' bits sit in the combined mask; the made points' bits start at 32.
_MADE_SHIFT: Final = 32
#: The origin of each path ending on place p (rows 0..24), and the shift that reads it: the
#: origin when it is on the board (0 is the opponent's bar), else bit 31, which is never set.
_ORIGIN: Final = np.arange(25)[:, None] - _DISTANCE[None, :]
_SHOT_SHIFT: Final = np.where(_ORIGIN >= 0, _ORIGIN, 31).astype(np.int64)
#: After the shift, a shot hits when exactly the shooter's bit is set among these.
_SHOT_MASK: Final = 1 | (_STEP_BITS << _MADE_SHIFT)
_SHOT_FROM_BAR: Final = _ORIGIN == 0
#: The landing point of each path leaving place r (rows 0..25), 62 when it is off the board
#: (no escape: it is above every point the checker must pass, and reads no bit).
_LANDING: Final = np.arange(26)[:, None] - _DISTANCE[None, :]
_LAND_SHIFT: Final = np.where(_LANDING >= 1, _LANDING, 62).astype(np.int64)
#: After that shift, a path is blocked when any of these is set: the landing point and the
#: points it passes on the way (D - s above the landing point for each partial sum s).
_PATH_BITS: Final = np.array(
    [1 | sum(1 << (d - s) for s in steps) for d, steps in _PATHS], dtype=np.int64
)
_PLACE_BIT: Final = np.left_shift(np.int64(1), np.arange(26, dtype=np.int64))
#: Checker counts weighted by place, one column per feature that is such a sum: the pips,
#: the pips outside the home board (timing), checkers on 19..24 and the bar, checkers on 1..3.
_COUNTED: Final = (0, 9, 10, 11)
_COUNT_WEIGHTS: Final = np.stack([
    np.arange(26),
    np.maximum(np.arange(26) - 6, 0),
    (np.arange(26) >= 19).astype(np.int64),
    ((np.arange(26) >= 1) & (np.arange(26) <= 3)).astype(np.int64),
], axis=1)
_COUNT_SCALE: Final = np.array([100.0, 100.0, 5.0, 15.0])
#: Made points counted by place: the home board's (1..6) and the anchors (19..24).
_MADE_COUNTED: Final = (4, 7)
_MADE_WEIGHTS: Final = np.stack([
    (np.arange(26) >= 1) & (np.arange(26) <= 6),
    (np.arange(26) >= 19) & (np.arange(26) <= 24),
], axis=1).astype(np.int64)
_MADE_SCALE: Final = np.array([6.0, 2.0])


def _masks(flags: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """``(N, k)`` flags of places 0..k-1 as one int64 bit mask per board."""
    return flags.astype(np.int64) @ _PLACE_BIT[: flags.shape[1]]


def _side_features(b: npt.NDArray[np.int16]) -> Floats:
    """The hand-crafted features of the side whose numbering ``b`` is in (its checkers
    positive, moving down; the opponent's negative, its bar at index 0). ``(N, 12)``."""
    n = b.shape[0]
    mine = np.maximum(b, 0)
    theirs = np.maximum(-b, 0)
    out = np.zeros((n, FEATURES_PER_SIDE), dtype=np.float32)
    out[:, _COUNTED] = (mine @ _COUNT_WEIGHTS) / _COUNT_SCALE

    made = mine >= 2  # (N, 26); index 0 never (it is the opponent's bar)
    blots = mine[:, 1:25] == 1  # (N, 24)
    # one row per (board, blot): most boards have few blots, so this is far smaller than
    # every point of every board
    board_of, point = np.nonzero(blots)
    if len(board_of):
        point += 1
        masks = (_masks(theirs[:, :25] > 0) | (_masks(made) << _MADE_SHIFT))[board_of]
        hit = (masks[:, None] >> _SHOT_SHIFT[point]) & _SHOT_MASK == 1  # (M, paths)
        # an opponent checker on the bar must enter first: only shots from the bar count, and
        # with two or more there only those of 6 pips or less
        on_bar = theirs[board_of, 0]
        barred = np.flatnonzero(on_bar)
        if len(barred):
            hit[barred] &= _SHOT_FROM_BAR[point[barred]] & (
                (on_bar[barred] <= 1)[:, None] | _ONE_DIE[None, :]
            )
        # the paths that hit some blot of each board: the rows' bits OR-ed board by board
        starts = np.flatnonzero(np.concatenate(([True], board_of[1:] != board_of[:-1])))
        words = np.zeros((len(hit), 8), dtype=np.uint8)
        words[:, : (_N_PATHS + 7) // 8] = np.packbits(hit, axis=1, bitorder="little")
        joined = np.bitwise_or.reduceat(words.view(np.uint64).ravel(), starts)
        path_hit = np.unpackbits(
            joined.view(np.uint8).reshape(-1, 8), axis=1, count=_N_PATHS, bitorder="little"
        ).astype(np.float32)
        rows = board_of[starts]
        roll_hit = (path_hit @ _PATH_ROLLS) > 0
        out[rows, 1] = (roll_hit @ _ROLL_COUNT) / 36.0
        direct = ((path_hit * _DIRECT[None, :]) @ _PATH_ROLLS) > 0
        out[rows, 2] = (direct @ _ROLL_COUNT) / 36.0
    out[:, 3] = blots.sum(axis=1) / 5.0
    out[:, _MADE_COUNTED] = (made @ _MADE_WEIGHTS) / _MADE_SCALE

    # longest run of made points on 1..24 and its rearmost point: at each point, the run
    # ending there is the point minus the last unmade point below it
    m = made[:, 1:25]
    index = np.arange(1, 25)
    last_gap = np.maximum.accumulate(np.where(m, 0, index), axis=1)
    run = np.where(m, index - last_gap, 0)
    best = run.max(axis=1)
    best_top = np.argmax(run, axis=1) + 1
    out[:, 5] = best / 6.0
    out[:, 6] = np.where(best >= 2, best_top, 0) / 24.0

    # escapes of the rearmost checker (the bar is 25)
    occupied = mine > 0
    rear = np.where(occupied.any(axis=1), 25 - np.argmax(occupied[:, ::-1], axis=1), 0)
    escapes = np.full(n, 36.0, dtype=np.float32)
    rows = np.flatnonzero(rear >= 8)
    if len(rows):
        r = rear[rows].astype(np.int64)
        their_made = theirs[rows] >= 2
        their_made[:, 0] = False
        blocks = _masks(their_made)
        # the lowest opponent point within 12 pips in front of the checker (r - 12 .. r - 1)
        window = blocks & ((np.int64(1) << r) - (np.int64(1) << np.maximum(r - 12, 1)))
        has_block = window != 0
        low = np.where(has_block, np.bitwise_count((window & -window) - 1), r + 1)
        # a path escapes when it lands below that point, on an open point, passing open ones
        land = _LAND_SHIFT[r]  # (R, paths)
        ok = (land < low[:, None]) & ((blocks[:, None] >> land) & _PATH_BITS == 0)
        roll_ok = (ok.astype(np.float32) @ _PATH_ROLLS) > 0
        escapes[rows] = np.where(has_block, roll_ok @ _ROLL_COUNT, 36.0)
    out[:, 8] = escapes / 36.0

    return out


def _raw(b: npt.NDArray[np.int16]) -> Floats:
    """Truncated unary of this side's checkers on points 1..24 and the bar, and its off."""
    n = b.shape[0]
    mine = np.clip(b[:, 1:26], 0, None).astype(np.float32)  # (N, 25): points 1..24, bar
    units = np.empty((n, 25, 4), dtype=np.float32)
    units[:, :, 0] = mine >= 1
    units[:, :, 1] = mine >= 2
    units[:, :, 2] = mine >= 3
    units[:, :, 3] = np.clip(mine - 3.0, 0.0, None) / 2.0
    off = (15.0 - mine.sum(axis=1)) / 15.0
    return np.concatenate([units.reshape(n, 100), off[:, None]], axis=1)


def contact_flags(boards: npt.NDArray[np.integer]) -> npt.NDArray[np.bool_]:
    """True for each board (side on roll's view, ``(N, 26)``) whose sides are in contact:
    some checker of the side on roll (moving down) still has an opposing checker below it."""
    mine = boards > 0
    theirs = boards < 0
    places = np.arange(26)
    rear_mine = np.where(mine, places, -1).max(axis=1)
    front_theirs = np.where(theirs, places, 26).min(axis=1)
    contact: npt.NDArray[np.bool_] = rear_mine > front_theirs
    return contact


def encode(boards: npt.ArrayLike) -> Floats:
    """Encode ``(N, 26)`` boards in the side on roll's view (see the module docstring) as
    ``(N, N_INPUTS)`` float32 rows. Raises ValueError for a wrong shape."""
    b = np.asarray(boards, dtype=np.int16)
    if b.ndim != 2 or b.shape[1] != 26:
        raise ValueError(f"boards must have shape (N, 26), got {b.shape}")
    n = len(b)
    both = np.concatenate([b, -b[:, ::-1]])  # each side in its own numbering
    raw = _raw(both)
    features = _side_features(both)
    contact = contact_flags(b).astype(np.float32)[:, None]
    return np.concatenate(
        [raw[:n], features[:n], raw[n:], features[n:], contact], axis=1
    ).astype(np.float32, copy=False)


__all__ = [
    "FEATURES_PER_SIDE",
    "FEATURE_NAMES",
    "N_INPUTS",
    "RAW_UNITS",
    "contact_flags",
    "encode",
    "on_roll_view",
]
