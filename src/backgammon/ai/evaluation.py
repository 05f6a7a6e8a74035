"""Static evaluation of a board, in pips, from the view of the side that has just moved.

Every function here takes a :data:`~backgammon.ai.features.Board` (26 ints in the mover's own
numbering, the opponent to roll next) and scores it in *pips*: positive is good for the mover,
and one unit is worth about what one pip of the race is worth.

Three regimes:

* **Contact** (:func:`contact_terms`): the race (opponent's pips minus the mover's; a checker
  borne off counts no pips, so bearing off is worth the pips it saves) plus
  positional terms, each in pips: made points valued by where they are (the 5-point and the bar
  point highest, anchors in the opponent's home board), primes (runs of three or more made
  points with an opposing checker behind them, valued super-linearly), stacks beyond three
  checkers, checkers on the bar (worse the more points the home board they must enter holds),
  and each blot's expected loss: the rolls out of 36 with which the opponent can hit it
  (intermediate points held by the mover block combination shots; with an opposing checker on
  the bar only shots from the bar count), times what being hit costs (the pips the checker
  loses, a tempo, and more the stronger the opponent's home board). When several blots can be
  hit, each roll costs the worst hit it allows.
* **Race** (:func:`race_terms`): contact is broken; an effective pip count per side, the pips
  plus wastage (checkers piled on the low points, gaps on the high points), after Tom Keith's
  count ("The Keith Count", bkgm.com, 2004) without its on-roll correction, which the fitted
  win-probability model carries instead.
* **Bear-off** (:func:`bearoff_probabilities`): both sides have every checker home: exact
  probabilities from the one-sided bear-off table (:mod:`backgammon.ai.bearoff`).

The weights are set by hand from the usual guidance (the 5-point and the bar point are the most
valuable points, a hit costs the checker's pips plus a tempo); the mapping of pips to
probabilities is fitted on self-play (:mod:`backgammon.ai.winprob`). Weights tuned by
coordinate search to make the 1-ply choice agree with GNU Backgammon's plays (its self-play
matches in ``shared/mat``; ``backgammon.training.tune_eval``) were tried and not kept: they
raised the 1-ply search's agreement from 40.6% to 42.6% of the rolls but left the 2-ply
search's at 42.1%, so they only narrowed the gap between the levels (Hard beat Medium in about
59% of 200-game series with them; 65.0% of a 400-game series with these weights).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from backgammon.ai.bearoff import default_table
from backgammon.ai.features import ROLL_WEIGHT, SHOT_PATHS, Board

#: Value in pips of a made point (two or more checkers) on the mover's own point 1..24 (index
#: 0 and 25 unused). Points 19..24 are anchors in the opponent's home board.
POINT_VALUE: Final[tuple[float, ...]] = (
    0.0,
    1.0, 1.5, 2.5, 4.0, 6.0, 6.0,  # home board: the 5- and 6-points best
    5.0, 3.5, 2.5, 1.5, 1.0, 0.5,  # the bar point, then the outfield
    0.5, 0.3, 0.3, 0.3, 0.3, 3.0,  # the midpoint; the opponent's bar point (18) blocks
    2.0, 4.5, 4.0, 2.5, 1.5, 1.5,  # anchors: the opponent's 5-point (20) is the golden one
    0.0,
)
#: Extra value in pips of a run of L consecutive made points with an opposing checker behind
#: it (index L; a full prime is 6): super-linear, as a prime's blocking grows with its length.
PRIME_BONUS: Final[tuple[float, ...]] = (0.0, 0.0, 0.0, 2.0, 5.0, 9.0) + (15.0,) * 20
#: Pips lost per checker beyond the third on one point.
STACK_PENALTY: Final = 0.8
#: What a hit costs the mover, in pips: this share of the pips the checker loses ...
HIT_PIP_SHARE: Final = 0.6
#: ... plus a tempo ...
HIT_TEMPO: Final = 4.0
#: ... plus this much per point the opponent holds in its home board (where it must re-enter).
HIT_BOARD: Final = 1.5
#: Pips lost per checker on the bar, by how many points of the home board it must enter
#: are held (index 0..6); a closed board (6) stops it moving at all.
BAR_PENALTY: Final[tuple[float, ...]] = (2.0, 2.5, 3.5, 5.0, 7.5, 11.0, 16.0)


class ContactTerms(NamedTuple):
    """One board's contact evaluation and the counts the win-probability model needs.

    Attributes:
        score: the evaluation in pips, mover's view (race plus positional terms).
        my_pips, opp_pips: pip counts (bar = 25).
        my_need, opp_need: pips each side needs to bring every checker into its home board.
        my_back, opp_back: each side's checkers in the other's home board or on the bar.
        my_off, opp_off: checkers borne off.
    """

    score: float
    my_pips: int
    opp_pips: int
    my_need: int
    opp_need: int
    my_back: int
    opp_back: int
    my_off: int
    opp_off: int


def contact_terms(b: Board) -> ContactTerms:
    """Evaluate a board with contact (see the module docstring); the opponent rolls next.

    Speed matters (this runs for every leaf of the search): one pass over the points, blots
    checked against :data:`~backgammon.ai.features.SHOT_PATHS`, no objects built.
    """
    my_bar = b[25]
    opp_bar = -b[0]
    my_pips = 25 * my_bar
    opp_pips = 25 * opp_bar
    my_need = 19 * my_bar
    opp_need = 19 * opp_bar
    my_back = my_bar
    opp_back = opp_bar
    my_count = my_bar
    opp_count = opp_bar
    score = 0.0
    my_home_made = 0
    opp_home_made = 0
    blots: list[int] = []
    shooters: list[int] = []
    point_value = POINT_VALUE
    # the lowest opposing checker seen so far (0 = on its bar): a prime of the mover that
    # starts above it has a checker behind it
    opp_lowest = 0 if opp_bar else 25
    run = 0  # current run of the mover's made points
    opp_run = 0
    opp_runs: list[tuple[int, int]] = []  # (top point, length) of the opponent's primes
    my_highest = 25 if my_bar else 0
    for i in range(1, 25):
        c = b[i]
        if c > 0:
            my_count += c
            my_pips += i * c
            if i > 6:
                my_need += (i - 6) * c
                if i >= 19:
                    my_back += c
            if not my_bar:
                my_highest = i
            if c >= 2:
                score += point_value[i]
                if c > 3:
                    score -= STACK_PENALTY * (c - 3)
                if i <= 6:
                    my_home_made += 1
                run += 1
            else:
                blots.append(i)
                if run >= 3 and opp_lowest < i - run:
                    score += PRIME_BONUS[run]
                run = 0
            if opp_run >= 3:
                opp_runs.append((i - 1, opp_run))
            opp_run = 0
        else:
            if run >= 3 and opp_lowest < i - run:
                score += PRIME_BONUS[run]
            run = 0
            if c < 0:
                opp_count -= c
                opp_pips -= (25 - i) * c
                if i < 19:
                    opp_need -= (19 - i) * c
                    if i <= 6:
                        opp_back -= c
                if opp_lowest == 25:
                    opp_lowest = i
                shooters.append(i)
                if c <= -2:
                    score -= point_value[25 - i]
                    if c < -3:
                        score += STACK_PENALTY * (-c - 3)
                    if i >= 19:
                        opp_home_made += 1
                    opp_run += 1
                    continue
            if opp_run >= 3:
                opp_runs.append((i - 1, opp_run))
            opp_run = 0
    if run >= 3 and opp_lowest < 25 - run:
        score += PRIME_BONUS[run]
    if opp_run >= 3:
        opp_runs.append((24, opp_run))
    for top, length in opp_runs:
        if my_highest > top:
            score -= PRIME_BONUS[length]
    if my_bar:
        score -= my_bar * BAR_PENALTY[opp_home_made]
    if opp_bar:
        score += opp_bar * BAR_PENALTY[my_home_made]
        shooters = [0]
    if blots and shooters:
        score -= _blot_risk(b, blots, shooters, opp_home_made)
    score += opp_pips - my_pips
    return ContactTerms(
        score, my_pips, opp_pips, my_need, opp_need, my_back, opp_back,
        15 - my_count, 15 - opp_count,
    )


def _blot_risk(b: Board, blots: list[int], shooters: list[int], opp_home_made: int) -> float:
    """Expected pips lost to the opponent's next roll hitting one of ``blots`` (ascending,
    so the costliest first: a checker hit further from home loses more pips)."""
    taken = [False] * 21
    risk = 0.0
    paths_by_distance = SHOT_PATHS
    weight = ROLL_WEIGHT
    base = HIT_TEMPO + HIT_BOARD * opp_home_made
    for target in blots:
        loss = HIT_PIP_SHARE * (25 - target) + base
        for origin in shooters:
            if origin >= target:
                break
            for index, paths in paths_by_distance[target - origin]:
                if taken[index]:
                    continue
                for path in paths:
                    for step in path:
                        if b[origin + step] >= 2:
                            break
                    else:
                        taken[index] = True
                        risk += loss * weight[index]
                        break
    return risk


class RaceTerms(NamedTuple):
    """A race board's effective pip counts and the counts the gammon model needs.

    Attributes:
        my_epc, opp_epc: pips plus wastage (see :func:`effective_pips`).
        my_pips, opp_pips: plain pip counts.
        my_need, opp_need: pips each side needs to bring every checker home.
        my_off, opp_off: checkers borne off.
    """

    my_epc: float
    opp_epc: float
    my_pips: int
    opp_pips: int
    my_need: int
    opp_need: int
    my_off: int
    opp_off: int


def effective_pips(points: list[int]) -> float:
    """A side's race count in pips: its pip count plus wastage.

    Args:
        points: 26 counts of one side's own checkers by its own point (index 25 the bar),
            all >= 0.

    Returns:
        pips + 2 per checker beyond one on the 1-point, + 1 per checker beyond one on the
        2-point, + 1 per checker beyond three on the 3-point, + 1 for each empty 4-, 5- or
        6-point (Tom Keith's count, without its on-roll correction).
    """
    pips = sum(i * c for i, c in enumerate(points))
    waste = 2 * max(points[1] - 1, 0) + max(points[2] - 1, 0) + max(points[3] - 3, 0)
    waste += (points[4] == 0) + (points[5] == 0) + (points[6] == 0)
    return float(pips + waste)


def race_terms(b: Board) -> RaceTerms:
    """Evaluate a board without contact (see the module docstring)."""
    mine = [c if c > 0 else 0 for c in b]
    theirs = [c if c > 0 else 0 for c in (-x for x in reversed(b))]
    my_pips = sum(i * c for i, c in enumerate(mine))
    opp_pips = sum(i * c for i, c in enumerate(theirs))
    my_need = sum((i - 6) * c for i, c in enumerate(mine) if i > 6)
    opp_need = sum((i - 6) * c for i, c in enumerate(theirs) if i > 6)
    return RaceTerms(
        effective_pips(mine), effective_pips(theirs), my_pips, opp_pips, my_need, opp_need,
        15 - sum(mine), 15 - sum(theirs),
    )


def bearoff_probabilities(
    my_home: tuple[int, ...], opp_home: tuple[int, ...], my_off: int, opp_off: int
) -> tuple[float, float, float, float, float]:
    """Exact chances when both sides have every checker home; the opponent rolls first.

    Each side plays to minimise its expected rolls (one-sided tables), and to save a gammon a
    side with none off plays to bear one off as soon as possible.

    Args:
        my_home, opp_home: each side's checkers on its own points 1..6.
        my_off, opp_off: checkers borne off (a gammon needs the loser to have none off).

    Returns:
        5 floats, mover's view: P(win), P(win gammon), P(win backgammon), P(lose gammon),
        P(lose backgammon). Backgammons are impossible here (nobody is in the other's home).
    """
    table = default_table()
    mine = table.distribution(my_home)  # type: ignore[arg-type]
    theirs = table.distribution(opp_home)  # type: ignore[arg-type]
    # opponent finishes on its roll n_o, the mover on its roll n_m (after the opponent's
    # n_m-th roll): the mover wins when n_m < n_o.
    win = _p_less(mine, theirs)
    win_gammon = 0.0
    lose_gammon = 0.0
    if opp_off == 0:
        win_gammon = _p_less(mine, table.first_off_distribution(opp_home))  # type: ignore[arg-type]
    if my_off == 0:
        # the opponent wins a gammon when it finishes before the mover bears one off:
        # n_o <= f_m, i.e. not (f_m < n_o)
        lose_gammon = 1.0 - _p_less(table.first_off_distribution(my_home), theirs)  # type: ignore[arg-type]
    # (rounding can leave a tiny negative where a chance is exactly 0)
    win = min(max(win, 0.0), 1.0)
    win_gammon = min(max(win_gammon, 0.0), win)
    lose_gammon = min(max(lose_gammon, 0.0), 1.0 - win)
    return (win, win_gammon, 0.0, lose_gammon, 0.0)


def _p_less(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """P(X < Y) for independent X ~ a, Y ~ b (``a[n]`` = P(X = n))."""
    total = 0.0
    tail = 1.0  # P(Y > n), walking n up
    for n, pa in enumerate(a):
        tail -= b[n] if n < len(b) else 0.0
        if pa:
            total += pa * tail
    return total


__all__ = [
    "BAR_PENALTY",
    "HIT_BOARD",
    "HIT_PIP_SHARE",
    "HIT_TEMPO",
    "POINT_VALUE",
    "PRIME_BONUS",
    "STACK_PENALTY",
    "ContactTerms",
    "RaceTerms",
    "bearoff_probabilities",
    "contact_terms",
    "effective_pips",
    "race_terms",
]
