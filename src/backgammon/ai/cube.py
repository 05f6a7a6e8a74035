"""Cube decisions: double or not, take, drop, beaver or raccoon; money play and match play.

The inputs are plain values: the side on roll's 5 probabilities before it rolls (see
:mod:`backgammon.ai.winprob`) and a :class:`CubeState`. Cubeful equity comes from the
continuous model of the cube (Keeler and Spencer, 1975; Janowski, "Take-Points in Money
Games", 1993) as :class:`~backgammon.ai.met.CubeLife` builds it, with the position's own chances
of gammons and backgammons as the values of winning and losing:

* **money**: equities in points. With no gammons the take point is 25% for a dead cube and 20%
  for a fully live one; with efficiency 0.68 about 21.5%, and gammons move it. Under the Jacoby
  rule gammons count only once the cube has been turned, so they are left out of the value of
  not doubling with the cube centred.
* **match**: equities are match-winning chances, each result of the game valued through the
  match equity table computed by :mod:`backgammon.ai.met`. No doubling in the Crawford game,
  and none when the cube is dead (its value already wins the doubler the match).

The doubler doubles when both the take and the drop are worth more than not doubling; when
the opponent would drop but playing on is worth more than cashing it is *too good to double*.
The opponent takes when taking is worth at least dropping, and beavers (money, when allowed)
when it is the favourite even after taking; the doubler then takes the beaver (the cube at four
times, the beaver owning it) when that is worth at least losing twice the cube
(:func:`beaver_response`), and raccoons it (money, beavers on: the cube at eight times, the
beaver still owning it; rec.games.backgammon FAQ section 8, as :mod:`backgammon.core.game`
plays it) when that is worth more to it than taking, which is when it is the favourite after
all; the beaver then takes the raccoon when that costs it no more than losing four times the
cube (:func:`raccoon_response`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from backgammon.ai.met import CUBE_EFFICIENCY, CubeLife, MatchEquityTable, match_equity_table
from backgammon.ai.winprob import Probs, invert
from backgammon.core.types import WHITE, Color

#: The highest cube the model looks at; past it the cube is treated as dead.
_MAX_CUBE = 1 << 12


@dataclass(frozen=True)
class CubeState:
    """Where the cube is and what game it is in.

    Attributes:
        value: the cube's value (1, 2, 4, ...).
        owner: the side that may double next alone, or None when the cube is centred.
        match_length: points to win the match; 0 for money play.
        score: ``(white, black)`` points won so far in the match.
        crawford: this game is the Crawford game (no doubling at all).
        jacoby: money play: gammons count only after the cube has been turned.
        beavers: money play: a side that is doubled may beaver (take and redouble at once).
        gammons: gammons and backgammons count (off: every win is a single game).

    Raises:
        ValueError: (on construction) a value that is not a power of two, an owner that is
            not a colour, a match length below 0.
    """

    value: int = 1
    owner: Color | None = None
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    gammons: bool = True

    def __post_init__(self) -> None:
        value = self.value
        if isinstance(value, bool) or not isinstance(value, int) or value < 1 or (
                value & (value - 1)):
            raise ValueError(f"the cube's value is a power of two >= 1, got {value!r}")
        if self.owner is not None and not isinstance(self.owner, Color):
            raise ValueError(f"the cube's owner is a Color or None, got {self.owner!r}")
        length = self.match_length
        if isinstance(length, bool) or not isinstance(length, int) or length < 0:
            raise ValueError(f"match_length is an int >= 0 (0: money play), got {length!r}")

    @property
    def is_match(self) -> bool:
        """True in match play."""
        return self.match_length > 0

    def away(self, color: Color) -> tuple[int, int]:
        """``(color's, opponent's)`` points still needed to win the match."""
        white, black = self.score
        mine, theirs = (white, black) if color is WHITE else (black, white)
        return self.match_length - mine, self.match_length - theirs

    def post_crawford(self) -> bool:
        """A match game after the Crawford game: one side 1-away, and this game not Crawford."""
        if not self.is_match or self.crawford:
            return False
        return 1 in self.away(WHITE)


class CubeAction(enum.Enum):
    """What a side does at a cube decision."""

    NO_DOUBLE = "no double"
    DOUBLE = "double"
    TOO_GOOD = "too good"
    TAKE = "take"
    DROP = "drop"
    BEAVER = "beaver"
    RACCOON = "raccoon"

    def __str__(self) -> str:
        return self.value


class CubeEquities(NamedTuple):
    """The three equities of a cube decision, from the doubler's view.

    Money: points (already multiplied by the cube's value). Match: match-winning chances.

    Attributes:
        no_double: keep the cube where it is and play on.
        double_take: double, the opponent takes (and owns the cube at twice the value).
        double_drop: double, the opponent drops (the doubler wins the cube's current value).
    """

    no_double: float
    double_take: float
    double_drop: float


class CubeDecision(NamedTuple):
    """The doubler's decision and the answer it expects.

    Attributes:
        action: ``NO_DOUBLE``, ``DOUBLE`` or ``TOO_GOOD`` (too good to double: play on).
        response: what the opponent should answer a double: ``TAKE``, ``DROP`` or ``BEAVER``.
        equities: the three equities behind it.
        reason: a few words for people ("Crawford game", "cube dead", "opponent owns the
            cube", or "" when the equities decided).
    """

    action: CubeAction
    response: CubeAction
    equities: CubeEquities | None
    reason: str = ""


def may_double(cube: CubeState, color: Color) -> str:
    """Why ``color`` may not double now, or "" when it may (ownership, Crawford, dead cube)."""
    if cube.owner is not None and cube.owner is not color:
        return "opponent owns the cube"
    if cube.is_match:
        if cube.crawford:
            return "Crawford game"
        mine, _ = cube.away(color)
        if cube.value >= mine:
            return "cube dead"
    if cube.value >= _MAX_CUBE:
        return "cube at its limit"
    return ""


def _win_lose_values(p: Probs, gammons: bool = True) -> tuple[float, float]:
    """Average points won when winning, lost when losing (cube 1), from 5 probabilities."""
    if not gammons:
        return 1.0, 1.0
    win, lose = p[0], 1.0 - p[0]
    w = (win + p[1] + p[2]) / win if win > 1e-12 else 1.0
    loss = (lose + p[3] + p[4]) / lose if lose > 1e-12 else 1.0
    return w, loss


def _money_life(p: Probs, gammons: bool, efficiency: float) -> CubeLife:
    w, loss = _win_lose_values(p, gammons)
    return CubeLife(
        lambda v: v * w,
        lambda v: -v * loss,
        lambda v: float(v),
        lambda v: -float(v),
        lambda v, mine: v < _MAX_CUBE,
        efficiency,
    )


def _match_life(
    p: Probs, cube: CubeState, color: Color, table: MatchEquityTable, efficiency: float
) -> CubeLife:
    a, b = cube.away(color)
    kind = "crawford" if cube.crawford else ("post" if cube.post_crawford() else "normal")
    win, lose = p[0], 1.0 - p[0]
    # conditional shares of singles, gammons, backgammons among wins and among losses
    if win > 1e-12:
        ws, wg, wb = (win - p[1]) / win, (p[1] - p[2]) / win, p[2] / win
    else:
        ws, wg, wb = 1.0, 0.0, 0.0
    if lose > 1e-12:
        ls, lg, lb = (lose - p[3]) / lose, (p[3] - p[4]) / lose, p[4] / lose
    else:
        ls, lg, lb = 1.0, 0.0, 0.0

    def after(mine: int, theirs: int) -> float:
        return table.after(mine, theirs, kind)

    return CubeLife(
        lambda v: ws * after(a - v, b) + wg * after(a - 2 * v, b) + wb * after(a - 3 * v, b),
        lambda v: ls * after(a, b - v) + lg * after(a, b - 2 * v) + lb * after(a, b - 3 * v),
        lambda v: after(a - v, b),
        lambda v: after(a, b - v),
        lambda v, mine: not cube.crawford and (a if mine else b) > v,
        efficiency,
    )


def cube_equities(
    p: Probs, cube: CubeState, color: Color, efficiency: float = CUBE_EFFICIENCY
) -> CubeEquities:
    """No double / double-take / double-drop equities for ``color``, on roll, with chances
    ``p`` (its view, before it rolls). Money: points; match: match-winning chances."""
    v = cube.value
    mine = cube.owner is color
    centred = cube.owner is None
    if not cube.gammons:  # every win is a single game: the chances of gammons count nothing
        p = (p[0], 0.0, 0.0, 0.0, 0.0)
    if not cube.is_match:
        life = _money_life(p, True, efficiency)
        if centred and cube.jacoby:
            # gammons count only once the cube is turned: not while it stays centred
            now = _money_life(p, False, efficiency).centred(1)(p[0]) * v
        elif centred:
            now = life.centred(1)(p[0]) * v
        else:
            now = life.owned(1, mine)(p[0]) * v
        take = life.owned(2, False)(p[0]) * v
        return CubeEquities(now, take, float(v))
    table = match_equity_table()
    life = _match_life(p, cube, color, table, efficiency)
    now = life.centred(v)(p[0]) if centred else life.owned(v, mine)(p[0])
    take = life.owned(2 * v, False)(p[0])
    return CubeEquities(now, take, life.cash_value(v))


def double_decision(p: Probs, cube: CubeState, color: Color) -> CubeDecision:
    """Should ``color``, on roll with chances ``p`` (its view, before rolling), double?

    Args:
        p: the five chances (win, win gammon, win backgammon, lose gammon, lose backgammon),
            each a probability 0..1, of ``color``.
        cube: where the cube is.
        color: the side on roll.

    Returns:
        The decision; ``response`` is the answer the opponent should give a double.

    Raises:
        ValueError: ``p`` is not five probabilities, or ``cube`` not a :class:`CubeState`.
    """
    try:
        chances = [float(x) for x in p] if not isinstance(p, (str, bytes)) else []
    except (TypeError, ValueError):
        chances = []
    if len(chances) != 5 or not all(-1e-6 <= x <= 1.0 + 1e-6 for x in chances):  # (and NaN)
        raise ValueError(f"p is five probabilities 0..1 (win, win gammon, win backgammon, "
                         f"lose gammon, lose backgammon), got {p!r:.80}")
    if not isinstance(cube, CubeState):
        raise ValueError(f"cube is a CubeState, got {type(cube).__name__}")
    reason = may_double(cube, color)
    if reason:
        return CubeDecision(CubeAction.NO_DOUBLE, CubeAction.TAKE, None, reason)
    eq = cube_equities(p, cube, color)
    response = double_response(eq, cube)
    if min(eq.double_take, eq.double_drop) > eq.no_double:
        return CubeDecision(CubeAction.DOUBLE, response, eq)
    if eq.double_take >= eq.double_drop and eq.no_double >= eq.double_drop:
        return CubeDecision(CubeAction.TOO_GOOD, response, eq)
    return CubeDecision(CubeAction.NO_DOUBLE, response, eq)


def double_response(eq: CubeEquities, cube: CubeState) -> CubeAction:
    """The answer to a double with equities ``eq`` (the doubler's view): ``DROP`` when the
    take is worth more to the doubler than the drop, ``BEAVER`` (money play, when ``cube``
    allows beavers) when the doubler is the underdog even after the take, else ``TAKE``."""
    if eq.double_take > eq.double_drop:
        return CubeAction.DROP
    if cube.beavers and not cube.is_match and eq.double_take < 0.0:
        return CubeAction.BEAVER
    return CubeAction.TAKE


def beaver_equities(p: Probs, cube: CubeState, color: Color,
                    efficiency: float = CUBE_EFFICIENCY) -> tuple[float, float]:
    """``(take, drop)`` in points for ``color``, on roll with chances ``p`` (its view, before
    it rolls), whose double of ``cube`` (as it was before the double) was beavered (money
    play): taking plays on with the cube at four times its value, owned by the beaver;
    dropping loses twice its value."""
    if not cube.gammons:
        p = (p[0], 0.0, 0.0, 0.0, 0.0)
    life = _money_life(p, True, efficiency)
    return life.owned(4, False)(p[0]) * cube.value, -2.0 * cube.value


def raccoon_equities(p: Probs, cube: CubeState, color: Color,
                     efficiency: float = CUBE_EFFICIENCY) -> tuple[float, float]:
    """``(take, drop)`` in points for ``color``, on roll with chances ``p`` (its view, before
    it rolls), whose double of ``cube`` (as it was before the double) was beavered and which
    raccooned the beaver (money play): the beaver takes and plays on with the cube at eight
    times its value, still owning it, or drops and loses four times its value."""
    if not cube.gammons:
        p = (p[0], 0.0, 0.0, 0.0, 0.0)
    life = _money_life(p, True, efficiency)
    return life.owned(8, False)(p[0]) * cube.value, 4.0 * cube.value


def beaver_response(p: Probs, cube: CubeState, color: Color) -> CubeAction:
    """``TAKE``, ``DROP`` or ``RACCOON``: ``color``'s answer to the beaver of its double of
    ``cube`` (as it was before the double; see :func:`beaver_equities`). ``RACCOON`` (only
    when ``cube`` allows beavers, and so raccoons) when the raccoon, answered as well as the
    beaver can (:func:`raccoon_equities`), is worth more than the best of taking and
    dropping: when ``color`` is the favourite at the beaver's cube after all."""
    take, drop = beaver_equities(p, cube, color)
    best = max(take, drop)
    if cube.beavers and not cube.is_match and min(raccoon_equities(p, cube, color)) > best:
        return CubeAction.RACCOON
    return CubeAction.TAKE if take >= drop else CubeAction.DROP


def raccoon_response(p: Probs, cube: CubeState, color: Color) -> CubeAction:
    """``TAKE`` or ``DROP``: the beaver's answer to the raccoon by ``color`` (on roll with
    chances ``p``, its view) of the beaver of its double of ``cube`` (as it was before the
    double): take when that costs the beaver no more than dropping
    (:func:`raccoon_equities`, ``color``'s view)."""
    take, drop = raccoon_equities(p, cube, color)
    return CubeAction.TAKE if take <= drop else CubeAction.DROP


def take_decision(p_taker: Probs, cube: CubeState, taker: Color) -> CubeAction:
    """Take, drop or beaver a double offered to ``taker``.

    Args:
        p_taker: the game's 5 probabilities from the taker's view, before the doubler rolls.
        cube: the cube as it is before the double (its value not yet doubled).
        taker: the side being doubled.
    """
    doubler = taker.opponent
    eq = cube_equities(invert(p_taker), cube, doubler)
    return double_response(eq, cube)


__all__ = [
    "CubeAction",
    "CubeDecision",
    "CubeEquities",
    "CubeState",
    "beaver_equities",
    "beaver_response",
    "cube_equities",
    "double_decision",
    "double_response",
    "may_double",
    "raccoon_equities",
    "raccoon_response",
    "take_decision",
]
