"""From a board's evaluation in pips to the chances of winning and of gammons.

:func:`probabilities` is the AI's static evaluation: 5 floats for a board in the mover's own
numbering with the opponent to roll next (see :mod:`backgammon.ai.features`):

    (P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon))

from the mover's view; gammons include backgammons, so ``P(win) >= P(win gammon) >= P(win
backgammon)``. A finished game gives certainties; both sides all home gives the exact bear-off
chances; otherwise logistic models of the pip evaluation give them, with coefficients fitted
on self-play outcomes by ``backgammon.training.fit_winprob`` and committed in
:mod:`backgammon.ai.winprob_constants`:

* contact, x = score / sqrt(my pips + opponent's pips):
  logit P(win) = w0 + w1 x
* race, d = opponent's effective pips - mover's, S = their sum:
  logit P(win) = r0 + r1 d / sqrt(S) + r2 / sqrt(S)
* gammons, given a win (only when the loser has nothing off), per regime:
  logit = g0 + g1 x + g2 (loser's pips to bring all home) / 10 + g3 (winner's pips) / 10,
  and backgammons given a gammon: logit = b0 + b1 (loser's checkers in the winner's home or
  on the bar), zero when there are none.

The losing side's gammon models have their own coefficients (the side to roll differs).
"""

from __future__ import annotations

import math
from typing import Final, NamedTuple

from backgammon.ai import winprob_constants as fitted
from backgammon.ai.evaluation import (
    bearoff_probabilities,
    contact_terms,
    race_terms,
)
from backgammon.ai.features import Board

#: (P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon))
Probs = tuple[float, float, float, float, float]


class Probabilities(NamedTuple):
    """The chances of a game's results from one side's view; gammons include backgammons.

    Attributes:
        win: P(win), 0..1.
        win_gammon: P(win a gammon or backgammon).
        win_backgammon: P(win a backgammon).
        lose_gammon: P(lose a gammon or backgammon).
        lose_backgammon: P(lose a backgammon).
    """

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @property
    def equity(self) -> float:
        """Cubeless money equity in points per game (cube 1), -3..+3."""
        return equity(self)

    def invert(self) -> Probabilities:
        """The same chances from the other side's view."""
        return Probabilities(*invert(self))


def equity(p: Probs) -> float:
    """Cubeless money equity of 5 probabilities, in points (cube 1): wins count 1, gammons 2,
    backgammons 3, losses the same negative."""
    return 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]


def invert(p: Probs) -> Probs:
    """The other side's view of 5 probabilities."""
    return (1.0 - p[0], p[3], p[4], p[1], p[2])


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def _dot(c: tuple[float, ...], x: tuple[float, ...]) -> float:
    total = 0.0
    for a, v in zip(c, x, strict=True):
        total += a * v
    return total


def _finished(b: Board) -> Probs:
    """The mover has borne off everything: it has won; how, by the loser's checkers."""
    opp_off = 15 + sum(c for c in b if c < 0)
    if opp_off > 0:
        return (1.0, 0.0, 0.0, 0.0, 0.0)
    stuck = b[0] < 0 or any(b[i] < 0 for i in range(1, 7))
    return (1.0, 1.0, 1.0 if stuck else 0.0, 0.0, 0.0)


def probabilities(b: Board) -> Probs:
    """The static evaluation of a board: see the module docstring. Not cached; the search
    keeps a cache (:class:`backgammon.ai.search.Evaluator`)."""
    # Contact: some opposing checker (moving up this numbering) is below one of the mover's.
    if b[0] < 0 or b[25] > 0:
        return contact_probabilities(b)
    highest_mine = 0
    for i in range(24, 0, -1):
        if b[i] > 0:
            highest_mine = i
            break
    else:
        return _finished(b)
    for i in range(1, highest_mine):
        if b[i] < 0:
            return contact_probabilities(b)
    if highest_mine <= 6 and all(c >= 0 for c in b[1:19]):
        my_home = tuple(b[i] if b[i] > 0 else 0 for i in range(1, 7))
        opp_home = tuple(-b[i] if b[i] < 0 else 0 for i in range(24, 18, -1))
        return bearoff_probabilities(
            my_home, opp_home, 15 - sum(my_home), 15 - sum(opp_home)
        )
    return race_probabilities(b)


def contact_probabilities(b: Board) -> Probs:
    """The logistic models on :func:`~backgammon.ai.evaluation.contact_terms`."""
    t = contact_terms(b)
    x = t.score / math.sqrt(t.my_pips + t.opp_pips)
    c: tuple[float, ...] = fitted.CONTACT_WIN
    win = _sigmoid(c[0] + c[1] * x)
    wg = wbg = lg = lbg = 0.0
    if t.opp_off == 0:
        c = fitted.CONTACT_GAMMON_WIN
        wg = win * _sigmoid(c[0] + c[1] * x + c[2] * t.opp_need / 10 + c[3] * t.my_pips / 10)
        if t.opp_back:
            c = fitted.CONTACT_BACKGAMMON_WIN
            wbg = wg * _sigmoid(c[0] + c[1] * t.opp_back)
    if t.my_off == 0:
        c = fitted.CONTACT_GAMMON_LOSE
        lg = (1.0 - win) * _sigmoid(
            c[0] - c[1] * x + c[2] * t.my_need / 10 + c[3] * t.opp_pips / 10
        )
        if t.my_back:
            c = fitted.CONTACT_BACKGAMMON_LOSE
            lbg = lg * _sigmoid(c[0] + c[1] * t.my_back)
    return (win, wg, wbg, lg, lbg)


def race_probabilities(b: Board) -> Probs:
    """The logistic models on :func:`~backgammon.ai.evaluation.race_terms` (no contact)."""
    t = race_terms(b)
    total = t.my_epc + t.opp_epc
    root = math.sqrt(total)
    d = (t.opp_epc - t.my_epc) / root
    win = _sigmoid(_dot(fitted.RACE_WIN, (1.0, d, 1.0 / root)))
    wg = lg = 0.0
    if t.opp_off == 0:
        wg = win * _sigmoid(_dot(fitted.RACE_GAMMON_WIN, (1.0, d, t.opp_need / 10, t.my_pips / 10)))
    if t.my_off == 0:
        lg = (1.0 - win) * _sigmoid(
            _dot(fitted.RACE_GAMMON_LOSE, (1.0, -d, t.my_need / 10, t.opp_pips / 10))
        )
    return (win, wg, 0.0, lg, 0.0)


def equity_per_pip(total_pips: int) -> float:
    """About how much cubeless equity (points) one pip of evaluation is worth in an even
    contact position with ``total_pips`` on the board (both sides): the slope of
    ``2 P(win) - 1`` at P(win) = 1/2. Used to turn the levels' windows in pips into equity."""
    return 0.5 * fitted.CONTACT_WIN[1] / math.sqrt(max(total_pips, 1))


#: Pip total of the starting position (both sides).
START_TOTAL_PIPS: Final = 334


__all__ = [
    "START_TOTAL_PIPS",
    "Probabilities",
    "Probs",
    "contact_probabilities",
    "equity",
    "equity_per_pip",
    "invert",
    "probabilities",
    "race_probabilities",
]
