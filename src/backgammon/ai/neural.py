"""Cubeless probabilities of boards from the nets, the bear-off table and the rules.

:func:`after_play_probabilities` scores a batch of boards in the mover's numbering (the side
that has just moved; the opponent to roll), as :meth:`LegalPlays.own_boards
<backgammon.core.moves.LegalPlays.own_boards>` gives them, in one call:

* a board where the mover has borne off every checker is won: a gammon when the opponent has
  none off, a backgammon when it also still has a checker on the bar or in the mover's home
  board (WBF rules of play, "Gammons and backgammons");
* a board where both sides have every checker in their home boards is scored exactly by the
  one-sided bear-off table (:func:`backgammon.ai.evaluation.bearoff_probabilities`);
* otherwise the race net (no contact) or the contact net (:mod:`backgammon.ai.nets`) scores it
  from the opponent's side, and the result is turned to the mover's view.

Every result is 5 floats, the mover's view: P(win), P(win gammon), P(win backgammon),
P(lose gammon), P(lose backgammon), gammons including backgammons.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Final

import numpy as np
import numpy.typing as npt

from backgammon.ai.encoding import contact_flags, encode, on_roll_view
from backgammon.ai.evaluation import bearoff_probabilities
from backgammon.ai.nets import NetSet, consistent

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int8]

#: Classes of a board (:func:`classify`).
FINISHED, BEAROFF, RACE, CONTACT = 0, 1, 2, 3


def invert(p: npt.NDArray[np.floating]) -> npt.NDArray[np.floating]:
    """``(N, 5)`` probabilities seen from the other side: win <-> lose, gammons swapped."""
    out = np.empty_like(p)
    out[:, 0] = 1.0 - p[:, 0]
    out[:, 1] = p[:, 3]
    out[:, 2] = p[:, 4]
    out[:, 3] = p[:, 1]
    out[:, 4] = p[:, 2]
    return out


def equities(p: npt.NDArray[np.floating]) -> npt.NDArray[np.float64]:
    """Cubeless money equity, in points, of ``(N, 5)`` probabilities (their side's view):
    ``2 P(win) - 1 + P(wg) - P(lg) + P(wbg) - P(lbg)``."""
    p64 = p.astype(np.float64, copy=False)
    result: npt.NDArray[np.float64] = (
        2.0 * p64[:, 0] - 1.0 + p64[:, 1] - p64[:, 3] + p64[:, 2] - p64[:, 4]
    )
    return result


def classify(mover_boards: Ints) -> npt.NDArray[np.int8]:
    """The class of each ``(N, 26)`` board in the mover's numbering: :data:`FINISHED`,
    :data:`BEAROFF`, :data:`RACE` or :data:`CONTACT`."""
    b = mover_boards
    mine = b > 0
    theirs = b < 0
    places = np.arange(26)
    rear_mine = np.where(mine, places, -1).max(axis=1)  # mover moves down
    front_theirs = np.where(theirs, places, 26).min(axis=1)  # opponent moves up
    out = np.full(len(b), CONTACT, dtype=np.int8)
    race = rear_mine < front_theirs
    out[race] = RACE
    out[race & (rear_mine <= 6) & (front_theirs >= 19)] = BEAROFF
    out[rear_mine < 0] = FINISHED
    return out


def _finished(b: Ints) -> Floats:
    """The mover has borne off every checker: it has won (see the module docstring)."""
    out = np.zeros((len(b), 5), dtype=np.float32)
    out[:, 0] = 1.0
    opp_on_board = -(np.clip(b, None, 0).sum(axis=1))
    gammon = opp_on_board == 15
    stuck = (b[:, 0] < 0) | (b[:, 1:7] < 0).any(axis=1)
    out[:, 1] = gammon
    out[:, 2] = gammon & stuck
    return out


#: Bear-off positions whose probabilities are kept (about 560 bytes each, key, value and the
#: cache's own: some 16 MiB).
BEAROFF_CACHE: Final = 30_000


@lru_cache(maxsize=BEAROFF_CACHE)
def _bearoff(board: tuple[int, ...]) -> tuple[float, float, float, float, float]:
    my_home = tuple(max(board[i], 0) for i in range(1, 7))
    opp_home = tuple(max(-board[i], 0) for i in range(24, 18, -1))
    return bearoff_probabilities(my_home, opp_home, 15 - sum(my_home), 15 - sum(opp_home))


def after_play_probabilities(
    mover_boards: Sequence[Sequence[int]] | Ints,
    nets: NetSet,
) -> Floats:
    """The 5 probabilities of each board, mover's view, opponent to roll (module docstring).

    Args:
        mover_boards: ``(N, 26)`` ints in the mover's numbering (26-tuples, or an array).
        nets: the contact and race nets.

    Returns:
        ``(N, 5)`` float32, each row consistent (P(bg) <= P(gammon) <= P(win) on each side).
    """
    return _score(mover_boards, nets, None)[0]


def score_boards(
    mover_boards: Sequence[Sequence[int]] | Ints,
    nets: NetSet,
) -> tuple[Floats, npt.NDArray[np.int8], dict[int, Floats]]:
    """:func:`after_play_probabilities`, with each board's class (:func:`classify`) and, for
    the boards a net scored, their encodings (the next side on roll's view) by index: what
    training keeps of the play it chooses."""
    encoded: dict[int, Floats] = {}
    out, kind = _score(mover_boards, nets, encoded)
    return out, kind, encoded


def _score(
    mover_boards: Sequence[Sequence[int]] | Ints,
    nets: NetSet,
    encoded: dict[int, Floats] | None,
) -> tuple[Floats, npt.NDArray[np.int8]]:
    """:func:`score_boards`'s probabilities and classes; the encodings go into ``encoded``
    only when one is given (a search needs none, and each costs a dict entry)."""
    b = np.asarray(mover_boards, dtype=np.int8).reshape(-1, 26)
    out = np.empty((len(b), 5), dtype=np.float32)
    kind = classify(b)
    if len(b) == 0:
        return out, kind
    done = kind == FINISHED
    if done.any():
        out[done] = _finished(b[done])
    for i in np.nonzero(kind == BEAROFF)[0]:
        out[i] = _bearoff(tuple(int(c) for c in b[i]))
    for net_kind, net in ((RACE, nets.race), (CONTACT, nets.contact)):
        rows = np.nonzero(kind == net_kind)[0]
        if len(rows):
            x = encode(on_roll_view(b[rows]))
            out[rows] = impossible_results(b[rows], invert(consistent(net(x))), net_kind)
            if encoded is not None:
                encoded.update(zip(rows.tolist(), x, strict=True))
    return out, kind


def impossible_results(b: Ints, p: Floats, kind: int) -> Floats:
    """Zero the chances the rules rule out (GNU Backgammon applies the same checks): a side
    that has borne a checker off cannot lose a gammon; in a race (``kind`` :data:`RACE`) a
    side with no checker on the bar or in the other's home board cannot lose a backgammon.
    ``b`` and ``p`` are in the mover's view; ``p`` is changed in place and returned."""
    mover_off = 15 - np.maximum(b, 0).sum(axis=1)
    opp_off = 15 + np.minimum(b, 0).sum(axis=1)
    p[mover_off > 0, 3:5] = 0.0
    p[opp_off > 0, 1:3] = 0.0
    if kind == RACE:
        p[~(b[:, 19:26] > 0).any(axis=1), 4] = 0.0
        p[~(b[:, 0:7] < 0).any(axis=1), 2] = 0.0
    return p


def on_roll_probabilities(boards: Ints, nets: NetSet) -> Floats:
    """The 5 probabilities of ``(N, 26)`` boards in the side on roll's view, for that side,
    before it rolls (0-ply: the nets alone, or the exact table / result)."""
    b = np.asarray(boards, dtype=np.int8).reshape(-1, 26)
    return invert(after_play_probabilities(on_roll_view(b), nets))


__all__ = [
    "BEAROFF",
    "CONTACT",
    "FINISHED",
    "RACE",
    "after_play_probabilities",
    "classify",
    "contact_flags",
    "equities",
    "impossible_results",
    "invert",
    "on_roll_probabilities",
    "score_boards",
]
