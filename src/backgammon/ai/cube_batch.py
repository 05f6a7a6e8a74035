"""The cube model of :mod:`backgammon.ai.cube` for a batch of positions at once.

:func:`batch_cube_equities` gives, for ``N`` positions' chances with one cube state, the same
three equities as :func:`backgammon.ai.cube.cube_equities` (no double, double take, double
drop), as numpy arrays. It follows :class:`backgammon.ai.met.CubeLife` step by step (the
live cube's curves from the dead cube at the top down to the cube's value, each take point
solved on the curve one level up, the live curve mixed with the dead one by the cube
efficiency), but every curve is piecewise linear, so each take point is found exactly on its
segment instead of by bisection: the results agree with ``cube_equities`` to about 1e-9
(a test checks 1e-7), at a few hundred numpy operations per batch instead of a third of a
millisecond to 1.5 ms per position. Rollouts value thousands of positions cubeful per second
with it (:mod:`backgammon.ai.rollout`).

Shapes: ``p`` is ``(N, 5)`` (P(win), P(win gammon), P(win backgammon), P(lose gammon),
P(lose backgammon), the side on roll's view before it rolls); results are ``(N,)``. Units as
``cube_equities``: money points (times the cube's value), match-winning chances in match play.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from backgammon.ai.cube import CubeState, may_double
from backgammon.ai.met import CUBE_EFFICIENCY, match_equity_table
from backgammon.core.types import Color

Floats = npt.NDArray[np.float64]

#: The highest cube the model looks at (as :mod:`backgammon.ai.cube`): past it the cube is
#: dead.
MAX_CUBE: Final = 1 << 12


class _Curve(NamedTuple):
    """An equity curve of P(win) for each of N positions: ``x * live + (1 - x) * dead``.

    ``xs`` ``(N, K)`` the live curve's break points (0 first, 1 last, ascending), ``ys``
    ``(N, K)`` its values there; the dead line runs from ``dead0`` at 0 to ``dead1`` at 1;
    ``x`` the cube efficiency (the share of the live curve).
    """

    xs: Floats
    ys: Floats
    dead0: Floats
    dead1: Floats
    x: float

    def at(self, p: Floats) -> Floats:
        """The curve at ``p`` ``(N,)`` (each row at its own P(win)), as
        :func:`backgammon.ai.met.linear` reads its points."""
        xs, ys = self.xs, self.ys
        live = ys[:, -1].copy()
        done = np.zeros(len(p), dtype=bool)
        first = p <= xs[:, 0]
        live[first] = ys[first, 0]
        done |= first
        for i in range(1, xs.shape[1]):
            x0, x1, y0, y1 = xs[:, i - 1], xs[:, i], ys[:, i - 1], ys[:, i]
            here = ~done & (p <= x1)
            width = np.where(x1 == x0, 1.0, x1 - x0)
            value = np.where(x1 == x0, y1, y0 + (y1 - y0) * (p - x0) / width)
            live[here] = value[here]
            done |= here
        dead = self.dead0 + (self.dead1 - self.dead0) * p
        result: Floats = self.x * live + (1.0 - self.x) * dead
        return result

    def solve(self, target: Floats) -> Floats:
        """The P(win) where the (increasing) curve reaches ``target`` ``(N,)``: 0 when it
        starts above it, 1 when it never reaches it (as :func:`backgammon.ai.met.solve`)."""
        xs = self.xs
        heights = np.stack([self.at(xs[:, j]) for j in range(xs.shape[1])], axis=1)
        out = np.ones(len(target), dtype=np.float64)
        done = heights[:, -1] <= target
        start = heights[:, 0] >= target
        out[start] = 0.0
        done |= start
        for j in range(1, xs.shape[1]):
            h0, h1 = heights[:, j - 1], heights[:, j]
            here = ~done & (h1 >= target)
            rise = np.where(h1 == h0, 1.0, h1 - h0)
            value = xs[:, j - 1] + (target - h0) * (xs[:, j] - xs[:, j - 1]) / rise
            out[here] = value[here]
            done |= here
        return out


Values = Callable[[int], Floats]


def _free_redouble(curve: _Curve, up: _Curve, refused: Floats, take_point: Floats,
                   mine: bool) -> _Curve:
    """:func:`backgammon.ai.met._free_redouble` on a batch: the owner's curve against
    redoubling at once (the other side taking, ``up``, or refusing, ``refused``), whichever is
    better for the owner. Both are linear between 0, ``take_point`` and 1 (``up`` reaches
    ``refused`` at the take point), so the result is too, with at most one crossing in each of
    the two pieces: a curve of five break points, the efficiency already in its values."""
    pick = np.maximum if mine else np.minimum
    answer = np.minimum if mine else np.maximum
    n = len(refused)
    xs = [np.zeros(n), take_point, np.ones(n)]
    f = [curve.at(x) for x in xs]
    g = [answer(up.at(x), refused) for x in xs]
    out_x, out_y = [xs[0]], [pick(f[0], g[0])]
    for i in (1, 2):
        d0, d1 = f[i - 1] - g[i - 1], f[i] - g[i]
        cross = d0 * d1 < 0
        share = np.where(cross, d0 / np.where(cross, d0 - d1, 1.0), 0.0)
        out_x.append(xs[i - 1] + share * (xs[i] - xs[i - 1]))
        out_y.append(np.where(cross, f[i - 1] + share * (f[i] - f[i - 1]), out_y[-1]))
        out_x.append(xs[i])
        out_y.append(pick(f[i], g[i]))
    ys = np.stack(out_y, axis=1)
    return _Curve(np.stack(out_x, axis=1), ys, ys[:, 0], ys[:, -1], 1.0)


class _BatchLife:
    """:class:`backgammon.ai.met.CubeLife` for N positions: the values are ``(N,)`` arrays
    of the cube's value; whether a side may double depends on the cube state alone."""

    def __init__(self, n: int, win: Values, lose: Values, cash: Values, drop: Values,
                 can_double: Callable[[int, bool], bool], efficiency: float) -> None:
        self.n = n
        self.win = win
        self.lose = lose
        self.cash = cash
        self.drop = drop
        self.can_double = can_double
        self.x = efficiency
        self._owned: dict[tuple[int, bool], _Curve] = {}

    def _points(self, value: int, middle: list[tuple[Floats, Floats]]) -> _Curve:
        n = self.n
        lose, win = self.lose(value), self.win(value)
        xs = [np.zeros(n)] + [t for t, _ in middle] + [np.ones(n)]
        ys = [lose] + [y for _, y in middle] + [win]
        return _Curve(np.stack(xs, axis=1), np.stack(ys, axis=1), lose, win, self.x)

    def dead(self, value: int) -> _Curve:
        """No more doubling: the line from losing to winning at ``value``."""
        lose, win = self.lose(value), self.win(value)
        xs = np.stack([np.zeros(self.n), np.ones(self.n)], axis=1)
        return _Curve(xs, np.stack([lose, win], axis=1), lose, win, 1.0)

    def owned(self, value: int, mine: bool) -> _Curve:
        """The cube on ``value`` owned by the first player (``mine``) or the opponent."""
        key = (value, mine)
        found = self._owned.get(key)
        if found is not None:
            return found
        if not self.can_double(value, mine) or value >= MAX_CUBE:
            curve = self.dead(value)
        elif mine:
            cash = self.cash(value)
            up = self.owned(2 * value, False)
            take_point = up.solve(cash)
            curve = self._points(value, [(take_point, cash)])
            if np.all(self.lose(2 * value) >= self.lose(value) - 1e-12):
                curve = _free_redouble(curve, up, cash, take_point, mine)
        else:
            drop = self.drop(value)
            up = self.owned(2 * value, True)
            take_point = up.solve(drop)
            curve = self._points(value, [(take_point, drop)])
            if np.all(self.win(2 * value) <= self.win(value) + 1e-12):
                curve = _free_redouble(curve, up, drop, take_point, mine)
        self._owned[key] = curve
        return curve

    def centred(self, value: int) -> _Curve:
        """The cube centred on ``value``: either side may double."""
        middle: list[tuple[Floats, Floats]] = []
        if self.can_double(value, False):
            drop = self.drop(value)
            middle.append((self.owned(2 * value, True).solve(drop), drop))
        if self.can_double(value, True):
            cash = self.cash(value)
            middle.append((self.owned(2 * value, False).solve(cash), cash))
        if not middle:
            return self.dead(value)
        if len(middle) == 2:  # sorted by P(win), then by value (the drop is the lower)
            (t_drop, drop), (t_cash, cash) = middle
            swap = t_cash < t_drop
            middle = [(np.where(swap, t_cash, t_drop), np.where(swap, cash, drop)),
                      (np.where(swap, t_drop, t_cash), np.where(swap, drop, cash))]
        return self._points(value, middle)


def _money_life(p: Floats, gammons: bool, efficiency: float) -> _BatchLife:
    """Money play: winning or losing is worth the average points won or lost (cube 1)."""
    n = len(p)
    if gammons:
        win, lose = p[:, 0], 1.0 - p[:, 0]
        safe_win = np.where(win > 1e-12, win, 1.0)
        safe_lose = np.where(lose > 1e-12, lose, 1.0)
        w = np.where(win > 1e-12, (win + p[:, 1] + p[:, 2]) / safe_win, 1.0)
        loss = np.where(lose > 1e-12, (lose + p[:, 3] + p[:, 4]) / safe_lose, 1.0)
    else:
        w = loss = np.ones(n)
    ones = np.ones(n)
    return _BatchLife(n, lambda v: v * w, lambda v: -v * loss, lambda v: v * ones,
                      lambda v: -v * ones, lambda v, mine: v < MAX_CUBE, efficiency)


def _match_life(p: Floats, cube: CubeState, color: Color, efficiency: float) -> _BatchLife:
    """Match play: each result valued by the match equity table at the score."""
    table = match_equity_table()
    n = len(p)
    a, b = cube.away(color)
    kind = "crawford" if cube.crawford else ("post" if cube.post_crawford() else "normal")
    win, lose = p[:, 0], 1.0 - p[:, 0]
    some_win, some_lose = win > 1e-12, lose > 1e-12
    safe_win = np.where(some_win, win, 1.0)
    safe_lose = np.where(some_lose, lose, 1.0)
    ws = np.where(some_win, (win - p[:, 1]) / safe_win, 1.0)
    wg = np.where(some_win, (p[:, 1] - p[:, 2]) / safe_win, 0.0)
    wb = np.where(some_win, p[:, 2] / safe_win, 0.0)
    ls = np.where(some_lose, (lose - p[:, 3]) / safe_lose, 1.0)
    lg = np.where(some_lose, (p[:, 3] - p[:, 4]) / safe_lose, 0.0)
    lb = np.where(some_lose, p[:, 4] / safe_lose, 0.0)
    ones = np.ones(n)

    def after(mine: int, theirs: int) -> float:
        return table.after(mine, theirs, kind)

    return _BatchLife(
        n,
        lambda v: ws * after(a - v, b) + wg * after(a - 2 * v, b) + wb * after(a - 3 * v, b),
        lambda v: ls * after(a, b - v) + lg * after(a, b - 2 * v) + lb * after(a, b - 3 * v),
        lambda v: after(a - v, b) * ones,
        lambda v: after(a, b - v) * ones,
        lambda v, mine: not cube.crawford and (a if mine else b) > v,
        efficiency,
    )


def batch_cube_equities(p: npt.ArrayLike, cube: CubeState, color: Color,
                        efficiency: float = CUBE_EFFICIENCY) -> tuple[Floats, Floats, Floats]:
    """``(no double, double take, double drop)`` for ``color``, on roll, for each row of
    ``p`` ``(N, 5)``: :func:`backgammon.ai.cube.cube_equities` for a batch (module
    docstring). Money: points; match: match-winning chances."""
    q = np.asarray(p, dtype=np.float64).reshape(-1, 5)
    n = len(q)
    if not cube.gammons:  # every win is a single game
        q = np.concatenate([q[:, :1], np.zeros((n, 4))], axis=1)
    v = cube.value
    mine = cube.owner is color
    centred = cube.owner is None
    chance = q[:, 0]
    if not cube.is_match:
        life = _money_life(q, True, efficiency)
        if centred and cube.jacoby:
            now = _money_life(q, False, efficiency).centred(1).at(chance) * v
        elif centred:
            now = life.centred(1).at(chance) * v
        else:
            now = life.owned(1, mine).at(chance) * v
        take = life.owned(2, False).at(chance) * v
        return now, take, np.full(n, float(v))
    life = _match_life(q, cube, color, efficiency)
    now = (life.centred(v) if centred else life.owned(v, mine)).at(chance)
    take = life.owned(2 * v, False).at(chance)
    return now, take, life.cash(v)


def batch_cubeful_values(p: npt.ArrayLike, cube: CubeState, color: Color) -> Floats:
    """The cubeful equity of ``color``, on roll before it rolls, for each row of ``p``: no
    double where it may not double (the opponent owns the cube, the Crawford game, a dead
    cube), else the better of no double and the double's worth to it, the lesser of take and
    drop (its opponent answers it). Money: points; match: match-winning chances."""
    now, take, drop = batch_cube_equities(p, cube, color)
    if may_double(cube, color):
        return now
    result: Floats = np.maximum(now, np.minimum(take, drop))
    return result


__all__ = ["MAX_CUBE", "batch_cube_equities", "batch_cubeful_values"]
