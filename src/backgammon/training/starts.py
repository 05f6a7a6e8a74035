"""Starting positions for training games other than the opening: back games and holding games,
and blitzes.

Greedy self-play from the opening seldom reaches a back game (one side holding two anchors
deep in the other's home board, far behind in the race), so nets trained only from the opening
misjudge them: they under-value the side holding the anchors. ``backgammon train --back-games
S`` starts a share S of the games from a position drawn here instead; the games are then played
and learnt from as any other (the rules and the nets decide everything after the start).

The draw, from the side holding the anchors (the *defender*) and its opponent (the
*attacker*), in each side's own numbering (home board 1..6, moving down to 1):

* the defender holds two anchors (two of the attacker's points 1..5, two or three checkers
  each), or one (an ace- to 3-point holding game, two or three checkers) in a quarter of the
  draws; none, one or two more of its checkers are on the bar;
* its other checkers are spread over its own points 1..18 (weighted to its home and outer
  boards, mostly two at a time, at most five to a point);
* the attacker's fifteen are spread over its points 1..13 not held by the defender (weighted
  to its home board), a few sometimes further back (14..18);
* the defender is on roll in half the draws, the attacker in the other half.

``backgammon train --blitz S`` starts a share S of the games from a blitz drawn by
:func:`blitz_start`: greedy self-play drifts towards quiet games (the nets' own games end in a
gammon less and less often as training goes on: 26.8 % at 235,000 games, 21.6 % at
560,000-650,000), so the nets learn too little of the attacks that win gammons. The draw, in
each side's own numbering:

* the attacker has made three to five points of its home board (two checkers each, sometimes
  three), the 4-, 5- and 6-points likelier than the 1- to 3-points;
* the defender has one to three checkers on the bar, and none, one or two blots on the
  attacker's open home points; its other checkers are spread over its own points 1..18 not
  held by the attacker (as the back-game draw spreads them);
* the attacker's other checkers are spread over its points 7..13 and, now and then, onto its
  made home points;
* either side is on roll, half the draws each.

``backgammon train --primes S`` starts a share S of the games (of those drawn as neither a back
game nor a blitz) from a prime-versus-prime position drawn by :func:`prime_start`: both sides
have built a prime and have checkers trapped behind the other's. Greedy self-play seldom
reaches one, and the nets' worst misjudgements beside GNU Backgammon's analysis of new matches
(2026-12-07) were such positions, where each side must decide whether to hold its prime or its
anchor a turn longer. The draw, in each side's own numbering:

* each side's prime is four, five or six points in a row (two checkers each, now and then one
  of them three), its front point between its 6- and 11-point and its back point no lower than the
  2-point;
* each side has one to three checkers behind the other's prime: on the other's points below
  its prime (two of them mostly on one point, an anchor);
* each side's other checkers are spread over its own points 1..13 not held by the other (as
  the back-game draw spreads them, a few of them stacked on the prime's points);
* either side is on roll, half the draws each.

No other program's positions or data are used: the draws are ours, from the usual definition
of a back game (two or more anchors deep in the opponent's home board, well behind in the
race), of a holding game (one anchor there) and of a blitz (an attack on checkers sent back,
with a strong home board).
"""

from __future__ import annotations

import random
from typing import Final

#: Points a side's spare checkers are drawn over, with their weights (own numbering).
_DEFENDER_SPREAD: Final = {p: (0.5 if p <= 2 else 1.0 if p <= 6 else 1.2 if p <= 12 else 0.6)
                           for p in range(1, 19)}
_ATTACKER_SPREAD: Final = {p: (1.0 if p <= 6 else 0.8 if p <= 11 else 0.5) for p in range(1, 14)}
_ATTACKER_BACK: Final = {p: 1.0 for p in range(14, 19)}
#: Most checkers a drawn point gets.
_MOST: Final = 5


def _spread(rng: random.Random, count: int, weights: dict[int, float],
            points: dict[int, int]) -> int:
    """Put up to ``count`` checkers on ``points`` (own numbering -> checkers), mostly two at a
    time (made points, as real positions have; a single checker a fifth of the time), each
    group on a point drawn by ``weights`` among those with fewer than :data:`_MOST`. Returns
    how many were placed (fewer only when every point is full)."""
    placed = 0
    while placed < count:
        open_ = [p for p in weights if points.get(p, 0) < _MOST]
        if not open_:
            break
        point = rng.choices(open_, weights=[weights[p] for p in open_])[0]
        group = min(1 if rng.random() < 0.2 else 2, count - placed, _MOST - points.get(point, 0))
        points[point] = points.get(point, 0) + group
        placed += group
    return placed


def back_game_start(rng: random.Random) -> tuple[int, ...]:
    """A back-game or holding-game position drawn from ``rng`` (see the module docstring).

    Returns:
        26 signed ints in the numbering of the side on roll: index 1..24 its points (its
        checkers positive, the opponent's negative), 25 its bar, 0 the opponent's bar
        (negative); fifteen checkers a side, none borne off. The sides are in contact in
        all but rare draws (the trainer draws again then).
    """
    defender: dict[int, int] = {}  # defender's own numbering; 25 = its bar
    anchors = [rng.randint(1, 3)] if rng.random() < 0.25 else rng.sample(range(1, 6), 2)
    for point in anchors:  # the attacker's point p is the defender's 25 - p
        defender[25 - point] = 3 if rng.random() < 0.3 else 2
    on_bar = rng.choices((0, 1, 2), weights=(6, 3, 1))[0]
    if on_bar:
        defender[25] = on_bar
    _spread(rng, 15 - sum(defender.values()), _DEFENDER_SPREAD, defender)

    held = {25 - p for p in defender if p <= 24}  # in the attacker's numbering
    attacker: dict[int, int] = {}
    back = rng.choices((0, 1, 2), weights=(6, 3, 1))[0]
    back = _spread(rng, back, {p: w for p, w in _ATTACKER_BACK.items() if p not in held},
                   attacker)
    _spread(rng, 15 - back, {p: w for p, w in _ATTACKER_SPREAD.items() if p not in held},
            attacker)

    defender_on_roll = rng.random() < 0.5
    mover, other = (defender, attacker) if defender_on_roll else (attacker, defender)
    return _board(mover, other)


#: The weight of each home point (own numbering) in the attacker's choice of made points.
_BLITZ_POINTS: Final = {1: 0.3, 2: 0.6, 3: 0.8, 4: 1.0, 5: 1.2, 6: 1.2}


def _board(mover: dict[int, int], other: dict[int, int]) -> tuple[int, ...]:
    """The 26 ints (the side on roll's numbering) of two sides' own-numbering point counts
    (25: that side's bar)."""
    board = [0] * 26
    for point, n in mover.items():
        board[point] += n  # 1..24 its points, 25 its bar
    for point, n in other.items():
        board[0 if point == 25 else 25 - point] -= n
    return tuple(board)


def blitz_start(rng: random.Random) -> tuple[int, ...]:
    """A blitz drawn from ``rng`` (see the module docstring): the same shape of result as
    :func:`back_game_start` (26 signed ints in the numbering of the side on roll, fifteen
    checkers a side, none borne off, the defender's checkers on the bar so always in
    contact)."""
    attacker: dict[int, int] = {}
    made = rng.choices((3, 4, 5), weights=(3, 4, 2))[0]
    points = list(_BLITZ_POINTS)
    weights = list(_BLITZ_POINTS.values())
    while len(attacker) < made:
        point = rng.choices(points, weights=weights)[0]
        attacker.setdefault(point, 3 if rng.random() < 0.2 else 2)
    defender: dict[int, int] = {25: rng.choices((1, 2, 3), weights=(5, 4, 2))[0]}
    open_home = [p for p in range(1, 7) if p not in attacker]  # the attacker's numbering
    for point in rng.sample(open_home, min(len(open_home), rng.choices((0, 1, 2),
                                                                          weights=(4, 4, 2))[0])):
        defender[25 - point] = 1
    held = {25 - p for p in defender if p <= 24}  # the defender's points, attacker's numbering
    _spread(rng, 15 - sum(attacker.values()),
            {p: w for p, w in _ATTACKER_SPREAD.items() if p not in held and p > 6}
            | {p: 0.3 for p in range(1, 7) if p in attacker}, attacker)
    taken = {25 - p for p in attacker}  # the attacker's points, defender's numbering
    _spread(rng, 15 - sum(defender.values()),
            {p: w for p, w in _DEFENDER_SPREAD.items() if p not in taken}, defender)
    if rng.random() < 0.5:
        return _board(defender, attacker)
    return _board(attacker, defender)


#: A prime's length (points in a row) and its weight in the draw.
_PRIME_LENGTHS: Final = {4: 3.0, 5: 4.0, 6: 2.0}
#: Spare checkers of a prime-versus-prime draw: own points 1..13, home and outer boards alike.
_PRIME_SPREAD: Final = {p: (0.6 if p == 1 else 1.0 if p <= 11 else 0.5) for p in range(1, 14)}


def _prime(rng: random.Random) -> dict[int, int]:
    """One side's prime (own numbering -> checkers): 4-6 points in a row, front point 6..11,
    back point 2 or higher; two checkers a point, one point now and then three."""
    length = rng.choices(list(_PRIME_LENGTHS), weights=list(_PRIME_LENGTHS.values()))[0]
    front = rng.randint(max(6, length + 1), 11)
    points = {p: 2 for p in range(front - length + 1, front + 1)}
    if length < 6 and rng.random() < 0.3:
        points[rng.choice(list(points))] = 3
    return points


def _trapped(rng: random.Random, behind: int) -> dict[int, int]:
    """One to three checkers on the other side's points 1..``behind`` - 1 (the other's
    numbering; the result in the trapped side's own numbering, 25 - p): two of them on one
    point (an anchor) seven times in ten."""
    count = rng.choices((1, 2, 3), weights=(3, 5, 2))[0]
    room = list(range(1, behind))
    points: dict[int, int] = {}
    if count >= 2 and rng.random() < 0.7:
        points[25 - rng.choice(room)] = 2
        count -= 2
    for _ in range(count):
        point = 25 - rng.choice(room)
        points[point] = points.get(point, 0) + 1
    return points


def prime_start(rng: random.Random) -> tuple[int, ...]:
    """A prime-versus-prime position drawn from ``rng`` (see the module docstring): the same
    shape of result as :func:`back_game_start` (26 signed ints in the numbering of the side on
    roll, fifteen checkers a side, none borne off or on the bar, always in contact: each side
    has checkers behind the other's prime)."""
    first, second = _prime(rng), _prime(rng)
    first |= _trapped(rng, min(second))  # behind the second side's prime
    second |= _trapped(rng, min(first))
    for side, other in ((first, second), (second, first)):
        held = {25 - p for p in other}  # the other side's points, in this side's numbering
        _spread(rng, 15 - sum(side.values()),
                {p: w for p, w in _PRIME_SPREAD.items() if p not in held}, side)
    if rng.random() < 0.5:
        return _board(first, second)
    return _board(second, first)


__all__ = ["back_game_start", "blitz_start", "prime_start"]
