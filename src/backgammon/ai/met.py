"""Match equity: the chance of winning a match from each score, computed by our own code.

Nothing here is copied from a published table. The table follows from a model:

* each game starts even (P(win) = 1/2) and a win is a gammon with probability ``gammon_rate``
  (:data:`backgammon.ai.winprob_constants.GAMMON_RATE`, measured in our self-play), for either
  side; backgammons are counted as gammons;
* **Crawford game** (one side 1-away for the first time): no cube, so the leader wins the match
  with 1/2, else the trailer gains 1 or 2 points;
* **post-Crawford**: the trailer doubles at once; the leader takes or drops, whichever is better
  (the "free drop" at an even away score comes out of this max);
* **before Crawford**: the cube lives on a continuous game (Keeler and Spencer's model; Janowski's
  cube efficiency for the share of it that works): with the cube on value v the player on roll
  doubles exactly at the opponent's take point, where taking and dropping are worth the same,
  and redoubles likewise, each take point solved from the match equities the cube's possible
  results lead to, except that a side whose cube the other's wins make dead (they already win
  the match on it) redoubles at once, having nothing to lose (the automatic redouble); the
  equity of the game is then read at P(win) = 1/2.

:class:`CubeLife` builds these piecewise-linear equity curves from any win and loss values;
:mod:`backgammon.ai.cube` uses the same class with a real position's chances.
Equities are match-winning chances 0..1 for the first player; away scores count the points each
player still needs (``away(1)`` = one point from winning the match).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Final

from backgammon.ai import winprob_constants as fitted

#: Share of the cube's ideal (continuous, fully live) value it keeps in real play, for
#: contact positions: Rick Janowski, "Take-Points in Money Games" (1993); GNU Backgammon's
#: default "cube efficiency" for contact positions is the same 0.68.
CUBE_EFFICIENCY: Final = 0.68

#: Longest away score the table covers: 64 points, as GNU Backgammon's tables.
MAX_AWAY: Final = 64

#: A function of P(win) (0..1) to an equity.
Curve = Callable[[float], float]


def linear(points: list[tuple[float, float]]) -> Curve:
    """The piecewise-linear function through ``points`` (p ascending from 0 to 1)."""
    xs = [p for p, _ in points]
    ys = [e for _, e in points]

    def curve(p: float) -> float:
        if p <= xs[0]:
            return ys[0]
        for i in range(1, len(xs)):
            if p <= xs[i]:
                x0, x1 = xs[i - 1], xs[i]
                if x1 == x0:
                    return ys[i]
                return ys[i - 1] + (ys[i] - ys[i - 1]) * (p - x0) / (x1 - x0)
        return ys[-1]

    return curve


def solve(curve: Curve, target: float) -> float:
    """The P(win) at which the increasing ``curve`` reaches ``target`` (0 or 1 when it never
    does), by bisection to 1e-9."""
    if curve(0.0) >= target:
        return 0.0
    if curve(1.0) <= target:
        return 1.0
    lo, hi = 0.0, 1.0
    while hi - lo > 1e-9:
        mid = (lo + hi) / 2
        if curve(mid) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _free_redouble(live: Curve, up: Curve, refused: float, mine: bool) -> Curve:
    """The owner's cube when the other side's wins are worth no more on 2v than on v (they
    already win the match): the owner loses nothing by redoubling at once, and does whenever
    that is better for it than keeping the cube (the other side then takes, the equity ``up``,
    or drops, ``refused``, whichever is better for it). ``mine``: the first player owns the
    cube. Match play's automatic redouble: it follows from the cube's possible results as the
    post-Crawford trailer's double at once does (the module's docstring), where the model of a
    continuous game would otherwise wait for the take point."""
    if mine:
        return lambda p: max(live(p), min(up(p), refused))
    return lambda p: min(live(p), max(up(p), refused))


class CubeLife:
    """Cubeful equity curves for one game at one score, from the cube's possible outcomes.

    Args:
        win_value: ``win_value(v)``: the equity if the first player wins the game with the cube
            on v (gammons weighted in).
        lose_value: ``lose_value(v)``: the equity if it loses with the cube on v.
        cash_value: ``cash_value(v)``: the equity if the opponent drops a double to 2v from v
            (the first player wins v points).
        drop_value: ``drop_value(v)``: the equity if the first player drops a double to 2v.
        can_double: ``can_double(v, mine)``: whether doubling from v is worth anything for
            the first player (``mine`` True) or the opponent; a dead cube stays where it is.
        efficiency: share of the live cube's value kept (:data:`CUBE_EFFICIENCY`).
    """

    def __init__(
        self,
        win_value: Callable[[int], float],
        lose_value: Callable[[int], float],
        cash_value: Callable[[int], float],
        drop_value: Callable[[int], float],
        can_double: Callable[[int, bool], bool],
        efficiency: float = CUBE_EFFICIENCY,
    ) -> None:
        self.win_value = win_value
        self.lose_value = lose_value
        self.cash_value = cash_value
        self.drop_value = drop_value
        self.can_double = can_double
        self.efficiency = efficiency
        self._owned: dict[tuple[int, bool], Curve] = {}

    def dead(self, value: int) -> Curve:
        """Equity with the cube on ``value`` and no more doubling: linear in P(win)."""
        win, lose = self.win_value(value), self.lose_value(value)
        return lambda p: lose + (win - lose) * p

    def _mix(self, live: list[tuple[float, float]], value: int) -> Curve:
        live_curve = linear(live)
        dead = self.dead(value)
        x = self.efficiency
        return lambda p: x * live_curve(p) + (1.0 - x) * dead(p)

    def owned(self, value: int, mine: bool) -> Curve:
        """Equity with the cube on ``value`` owned by the first player (``mine``) or by the
        opponent, as a function of the first player's P(win)."""
        key = (value, mine)
        found = self._owned.get(key)
        if found is not None:
            return found
        lose, win = self.lose_value(value), self.win_value(value)
        if not self.can_double(value, mine) or value >= 1 << 12:
            curve = self.dead(value)
        elif mine:
            cash = self.cash_value(value)
            # the opponent takes while its equity owning 2v beats dropping
            up = self.owned(2 * value, False)
            take_point = solve(up, cash)
            curve = self._mix([(0.0, lose), (take_point, cash), (1.0, win)], value)
            if self.lose_value(2 * value) >= lose - 1e-12:
                curve = _free_redouble(curve, up, cash, mine)
        else:
            drop = self.drop_value(value)
            up = self.owned(2 * value, True)
            take_point = solve(up, drop)
            curve = self._mix([(0.0, lose), (take_point, drop), (1.0, win)], value)
            if self.win_value(2 * value) <= win + 1e-12:
                curve = _free_redouble(curve, up, drop, mine)
        self._owned[key] = curve
        return curve

    def centred(self, value: int = 1) -> Curve:
        """Equity with the cube centred on ``value``: either side may double."""
        lose, win = self.lose_value(value), self.win_value(value)
        points = [(0.0, lose)]
        if self.can_double(value, False):
            points.append((solve(self.owned(2 * value, True), self.drop_value(value)),
                           self.drop_value(value)))
        if self.can_double(value, True):
            points.append((solve(self.owned(2 * value, False), self.cash_value(value)),
                           self.cash_value(value)))
        points.append((1.0, win))
        points.sort()
        if len(points) == 2:
            return self.dead(value)
        return self._mix(points, value)


class MatchEquityTable:
    """Match-winning chances for every pair of away scores up to :data:`MAX_AWAY`.

    Build one with :func:`match_equity_table` (cached per gammon rate).

    Args:
        gammon_rate: P(gammon or backgammon | a game is won), both sides alike.
        efficiency: the cube efficiency of the model (see the module docstring).
        size: the longest away score covered.
    """

    def __init__(
        self,
        gammon_rate: float = fitted.GAMMON_RATE,
        efficiency: float = CUBE_EFFICIENCY,
        size: int = MAX_AWAY,
    ) -> None:
        self.gammon_rate = gammon_rate
        self.efficiency = efficiency
        self.size = size
        g = gammon_rate
        # post-Crawford: leader 1-away against trailer k-away, leader's chance
        post = [0.0, 0.5]
        for k in range(2, size + 1):
            def at(n: int) -> float:
                return 0.0 if n <= 0 else post[n]
            take = 0.5 + 0.5 * ((1 - g) * at(k - 2) + g * at(k - 4))
            post.append(max(take, at(k - 1)))
        self._post = post
        # pre[a][b]: the first player a-away, the opponent b-away, before this game; a row or
        # column of 1 means this game is the Crawford game.
        pre = [[0.0] * (size + 1) for _ in range(size + 1)]
        for k in range(1, size + 1):
            crawford = 0.5 + 0.5 * ((1 - g) * self._post_at(k - 1) + g * self._post_at(k - 2))
            if k == 1:
                crawford = 0.5
            pre[1][k] = crawford
            pre[k][1] = 1.0 - crawford
        self._pre = pre
        for total in range(4, 2 * size + 1):
            for a in range(2, size + 1):
                b = total - a
                if b < 2 or b > size or b < a:
                    continue
                value = self._game_value(a, b)
                pre[a][b] = value
                pre[b][a] = 1.0 - value

    def _post_at(self, k: int) -> float:
        return 0.0 if k <= 0 else self._post[k]

    def equity(self, my_away: int, opp_away: int, post_crawford: bool = False) -> float:
        """The first player's match-winning chance, before a game, at this score.

        Args:
            my_away, opp_away: points each still needs (<= 0: that player has won).
            post_crawford: the Crawford game has been played (matters only when one is
                1-away; otherwise a 1-away score means the coming game is the Crawford game).

        Raises:
            ValueError: a score beyond the table.
        """
        if my_away <= 0:
            return 1.0
        if opp_away <= 0:
            return 0.0
        if my_away > self.size or opp_away > self.size:
            raise ValueError(f"score {my_away}-away {opp_away}-away beyond the table")
        if post_crawford and (my_away == 1 or opp_away == 1):
            if my_away == 1:
                return self._post[opp_away]
            return 1.0 - self._post[my_away]
        return self._pre[my_away][opp_away]

    def after(self, my_away: int, opp_away: int, game_kind: str) -> float:
        """Equity after a game at this score ends with these away scores.

        ``game_kind``: ``"normal"`` (before Crawford: reaching 1-away makes the next game the
        Crawford game), ``"crawford"`` or ``"post"`` (afterwards it is post-Crawford).
        """
        return self.equity(my_away, opp_away, post_crawford=game_kind != "normal")

    def _game_value(self, a: int, b: int) -> float:
        g = self.gammon_rate

        def win(v: int) -> float:
            return (1 - g) * self.after(a - v, b, "normal") + g * self.after(a - 2 * v, b, "normal")

        def lose(v: int) -> float:
            return (1 - g) * self.after(a, b - v, "normal") + g * self.after(a, b - 2 * v, "normal")

        life = CubeLife(
            win,
            lose,
            lambda v: self.after(a - v, b, "normal"),
            lambda v: self.after(a, b - v, "normal"),
            lambda v, mine: (b if not mine else a) > v,
            self.efficiency,
        )
        return life.centred(1)(0.5)

    def rows(self, size: int) -> list[list[float]]:
        """The pre-Crawford table as rows: ``rows[i][j]`` = equity (i+1)-away, (j+1)-away."""
        return [[self._pre[a][b] for b in range(1, size + 1)] for a in range(1, size + 1)]


@lru_cache(maxsize=4)
def match_equity_table(gammon_rate: float = fitted.GAMMON_RATE) -> MatchEquityTable:
    """The table for ``gammon_rate`` (computed once, about 0.2 s)."""
    return MatchEquityTable(gammon_rate)


__all__ = [
    "CUBE_EFFICIENCY",
    "MAX_AWAY",
    "CubeLife",
    "MatchEquityTable",
    "linear",
    "match_equity_table",
    "solve",
]
