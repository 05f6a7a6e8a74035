"""Resigning: give up a game that cannot be won, at the level the loss is certain to reach.

The computer resigns only when it is certain, not merely likely, to lose: contact is broken,
the opponent has every checker home, and even rolling double sixes every turn the side on roll
could not finish before the opponent does playing its bear-off the one-sided table's way
(:mod:`backgammon.ai.bearoff`; the longest it can take there, ignoring chances below 1e-9).
The level: a single game when the side has borne a checker off; a gammon when it cannot
possibly bear one off in time and has no checker left in the opponent's home board or on the
bar; a backgammon when it cannot even get every checker out of the opponent's home board in
time. When a worse result is possible but not certain, it plays on, so as not to concede it.

Answering a resignation offered by the opponent: accept when the points offered are at least
what playing on is worth (cubeless equity, so a little generous to the resigner).
"""

from __future__ import annotations

from typing import Final

from backgammon.ai.bearoff import default_table
from backgammon.core.position import Position, ResultKind

#: Chances smaller than this count as impossible.
_NEGLIGIBLE: Final = 1e-9
#: The most pips one roll can move (double sixes).
_MAX_PIPS_PER_ROLL: Final = 24
#: The most checkers one roll can bear off (a double).
_MAX_OFF_PER_ROLL: Final = 4


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _opponent_max_rolls(position: Position) -> int | None:
    """The most rolls the opponent (not on roll) can need to bear off, or None when it is not
    all home or contact remains."""
    if position.has_contact():
        return None
    theirs = position.own_points(position.turn.opponent)
    if theirs[25] > 0 or any(c > 0 for c in theirs[7:25]):
        return None
    home = tuple(max(c, 0) for c in theirs[1:7])
    dist = default_table().distribution(home)  # type: ignore[arg-type]
    return max(n for n, p in enumerate(dist) if p > _NEGLIGIBLE)


def resignation(position: Position) -> ResultKind | None:
    """The result the side to move should resign, or None to play on; see the module docstring.

    Args:
        position: the position with the side that would resign on roll (before rolling).
    """
    opp_rolls = _opponent_max_rolls(position)
    if opp_rolls is None:
        return None
    me = position.own_points(position.turn)
    mine = [max(c, 0) for c in me]
    on_board = sum(mine)
    if on_board == 0:
        return None
    pips = sum(i * c for i, c in enumerate(mine))
    # The side on roll throws first: finishing on its n-th roll beats the opponent's n-th.
    fastest = max(_ceil_div(pips, _MAX_PIPS_PER_ROLL), _ceil_div(on_board, _MAX_OFF_PER_ROLL))
    if fastest <= opp_rolls:
        return None  # some sequence of rolls still wins
    my_off = 15 - on_board
    if my_off > 0:
        return ResultKind.SINGLE
    # pips to bring every checker home and then one checker off
    lowest = min(i for i in range(1, 26) if mine[i])
    home_pips = sum((i - 6) * c for i, c in enumerate(mine) if i > 6)
    first_off = _ceil_div(home_pips + min(lowest, 6), _MAX_PIPS_PER_ROLL)
    if first_off <= opp_rolls:
        return None  # the gammon might be saved
    back = sum(mine[19:26])
    if back == 0:
        return ResultKind.GAMMON
    escape = sum((i - 18) * c for i, c in enumerate(mine) if i >= 19)
    if _ceil_div(escape, _MAX_PIPS_PER_ROLL) > opp_rolls:
        return ResultKind.BACKGAMMON
    return None  # the backgammon might be saved


def accept_resignation(offered: ResultKind, equity_playing_on: float) -> bool:
    """Whether to accept the opponent's resignation of ``offered``.

    Args:
        offered: the result the opponent concedes (1, 2 or 3 points a cube).
        equity_playing_on: the accepting side's cubeless equity if play goes on, in points a
            cube (see :func:`backgammon.ai.search.preroll_equity`).
    """
    return float(int(offered)) >= equity_playing_on - 1e-9


__all__ = ["accept_resignation", "resignation"]
