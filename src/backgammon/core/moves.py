"""Moves, plays and the rules of play: which checkers may move, and where.

Vocabulary (DESIGN.md): a *move* is one checker moved by one die; a *play* is the whole turn's
moves. Moves are written in the mover's own numbering: points 1..24 from the mover's side, the
bar is 25 (:data:`~backgammon.core.types.BAR`) and off is 0 (:data:`~backgammon.core.types.OFF`).

The rules enforced here follow the WBF Rules of Backgammon (World Backgammon Federation,
"Rules of Backgammon", sections 3 and 4):

* 3.1 a checker moves forward the exact number on a die, to a point not held by two or more
  opposing checkers; landing on a lone opposing checker (a blot) hits it onto the bar.
* 3.4 doubles are played four times.
* 3.5 a player must use both dice (all four for doubles) when that is possible; when only one
  die can be played, the larger one must be played if either can.
* 3.6 a checker on the bar must enter (onto the opponent's home board: White enters on 25 - d,
  Black on d) before any other checker moves.
* 4.1-4.3 bearing off is allowed only with all 15 checkers in the home board; a die bears off a
  checker from the point of its number, a larger die from the highest occupied point when no
  checker stands higher, and a hit checker must come round before bearing off resumes.

Speed comes from layout (DESIGN.md "Habits" 6): the search works on one mutable list of 26 ints
in the mover's own numbering (index 25 the mover's bar, index 0 the opponent's bar as a
negative count), applies and undoes moves in place, and deduplicates plays by the tuple of that
list, which is also the key of the result position. :func:`legal_plays` has a fast path for each
kind of position (no bar and no bearing off, entering, bearing off; two dice or a double) that
lists moves from the occupied points, takes its move tuples from tables built at import, and
checks for repeats only where two plays can reach the same board; each is tested to find
exactly what the general search (:func:`_search`) finds. Play objects are built only when asked
for, by plain attribute stores on unsealed twins of Play and Position.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from operator import attrgetter, neg
from typing import TYPE_CHECKING, NamedTuple

from backgammon.core.errors import (
    IllegalMoveError,
    IllegalPlayError,
    InvalidDiceError,
    InvalidPositionError,
)
from backgammon.core.position import Position, _Unsealed
from backgammon.core.types import BAR, OFF, WHITE

# One move inside the search: (from_point, to_point, die, hit) in the mover's numbering.
_RawMove = tuple[int, int, int, bool]

_POINTS_DOWN = tuple(range(24, 0, -1))


class Move(NamedTuple):
    """One checker moved by one die, in the mover's own numbering (bar 25, off 0).

    Attributes:
        from_point: 1..24, or 25 (``BAR``) for a checker entering from the bar.
        to_point: 1..24, or 0 (``OFF``) for a checker borne off.
        die: the die used, 1..6 (may exceed ``from_point - to_point`` when bearing off with
            a larger die).
        hit: True when the checker lands on an opposing blot and sends it to the bar.
    """

    from_point: int
    to_point: int
    die: int
    hit: bool = False

    def __str__(self) -> str:
        src = "bar" if self.from_point == BAR else str(self.from_point)
        dst = "off" if self.to_point == OFF else str(self.to_point)
        return f"{src}/{dst}{'*' if self.hit else ''}"


def _own(position: Position) -> list[int]:
    """The board in the mover's own numbering (see module docstring), as a fresh list."""
    return list(position.own_points(position.turn))


def _to_position(key: tuple[int, ...], position: Position) -> Position:
    """The result position (same side to move) from a board in the mover's numbering."""
    if position.turn is WHITE:
        return Position._trusted(key, position.turn)
    return Position._trusted(tuple(map(neg, reversed(key))), position.turn)


def _outside(b: list[int]) -> int:
    """How many of the mover's checkers stand outside the home board (points 7..24, bar)."""
    return sum(c for c in b[7:] if c > 0)


def _single_moves(b: list[int], die: int, outside: int, top: int = 25) -> list[tuple[int, int]]:
    """The (from_point, to_point) pairs one checker can move with ``die`` (WBF 3.1, 3.6, 4.x).

    ``top`` limits the starting points to ``<= top``: used for doubles, where taking the
    moves in order of non-increasing starting point reaches every distinct result once.
    Listed from the highest starting point down.
    """
    if b[25] > 0:
        # 3.6: a checker on the bar enters before anything else moves.
        if top >= 25 and b[25 - die] >= -1:
            return [(25, 25 - die)]
        return []
    start = 24 if top > 24 else top
    found = [(src, src - die) for src in range(start, die, -1) if b[src] > 0 and b[src - die] >= -1]
    if outside == 0:
        # 4.2: bear off from the die's own point, or with a larger die from the highest point.
        if die <= top and b[die] > 0:
            found.append((die, 0))
        else:
            for src in range(min(die - 1, top), 0, -1):
                if b[src] > 0:
                    for higher in range(src + 1, 7):
                        if b[higher] > 0:
                            break
                    else:
                        found.append((src, 0))
                    break
    return found


def _apply(b: list[int], src: int, dst: int) -> bool:
    """Move one checker in place; returns True when it hits (the blot goes to slot 0)."""
    b[src] -= 1
    if dst == 0:
        return False
    if b[dst] == -1:
        b[dst] = 1
        b[0] -= 1
        return True
    b[dst] += 1
    return False


def _undo(b: list[int], src: int, dst: int, hit: bool) -> None:
    b[src] += 1
    if dst == 0:
        return
    if hit:
        b[dst] = -1
        b[0] += 1
    else:
        b[dst] -= 1


def _crosses_home(src: int, dst: int) -> int:
    """Change in the count of checkers outside the home board made by moving src -> dst."""
    return -1 if src > 6 >= dst else 0


_Results = dict[tuple[int, ...], tuple[_RawMove, ...]]
# What the fast paths return: (longest, result boards in the mover's numbering, the moves of
# each, in the same order). Two lists rather than one of pairs: a tuple less per play.
_Found = tuple[int, list[tuple[int, ...]], list[tuple[_RawMove, ...]]]


def _search(b: list[int], dice: Sequence[int]) -> tuple[int, _Results]:
    """Every maximal sequence of moves for ``dice``; returns (longest, results by key).

    Results shorter than the longest sequence are dropped (WBF 3.5); the caller applies the
    larger-die rule. Values are one move sequence reaching the key (the first found).

    This is the general search, every case in one form. :func:`legal_plays` takes instead
    the fast path for its case (``_two_plain``, ``_same_plain``, ``_two_entering``,
    ``_same_entering``, ``_two_home``, ``_same_home``), each of which finds exactly what this
    finds, in the same order with the same moves: tests/core/test_moves.py holds them to it
    over every reference line and the positions of seeded random games.
    """
    outside = 0
    top = 0
    for point in range(25, 0, -1):
        count = b[point]
        if count > 0:
            if not top:
                top = point
            if point > 6:
                outside += count
            else:
                break
    # ``top``, the mover's highest occupied point, only falls during a turn: no move starts
    # above it, so no list of moves needs to look higher.
    if len(dice) == 2 and dice[0] != dice[1]:
        return _search_two(b, dice[0], dice[1], outside, top)
    if len(set(dice)) > 1:
        raise InvalidDiceError(f"cannot search mixed dice {tuple(dice)!r} of more than two")
    return _search_same(b, dice[0], len(dice), outside, top)


def _search_two(
    b: list[int], d1: int, d2: int, outside: int, top: int
) -> tuple[int, _Results]:
    """Plays of two different dice: both orders, deduplicated by the resulting board.

    Two shortcuts, both exact: (1) after the first move the second die's moves are the root
    list adjusted for the two points the first move changed, unless the bar or bearing off is
    involved; (2) in the second order, a pair of independent moves already found in the first
    order is skipped before its board is built.
    """
    results: _Results = {}
    best = 0
    simple = b[25] == 0 and outside > 1
    root = {d1: _single_moves(b, d1, outside, top), d2: _single_moves(b, d2, outside, top)}
    root_counts = b[:]
    for first, second, again in ((d1, d2, False), (d2, d1, True)):
        root_second = root[second]
        for src, dst in root[first]:
            # apply the first move in place
            b[src] -= 1
            hit = False
            if dst:
                if b[dst] == -1:
                    b[dst] = 1
                    b[0] -= 1
                    hit = True
                else:
                    b[dst] += 1
            out1 = outside - 1 if src > 6 >= dst else outside
            if simple and out1 > 0 and dst:
                follow = [m for m in root_second if b[m[0]] > 0]
                dst2 = dst - second
                if root_counts[dst] <= 0 and dst2 >= 1 and b[dst2] >= -1:
                    follow.append((dst, dst2))
            else:
                follow = _single_moves(b, second, out1, top)
            if follow:
                if best < 2:
                    best = 2
                    results.clear()
                m1 = (src, dst, first, hit)
                for src2, dst2 in follow:
                    if (
                        again
                        and simple
                        and dst2
                        and dst
                        and src2 != dst
                        and root_counts[src2] >= (2 if src2 == src else 1)
                    ):
                        # Playing src2 first with the other die was legal at the root and
                        # leaves src playable: the first order already reached this board.
                        continue
                    b[src2] -= 1
                    hit2 = False
                    if dst2:
                        if b[dst2] == -1:
                            b[dst2] = 1
                            b[0] -= 1
                            hit2 = True
                        else:
                            b[dst2] += 1
                    key = tuple(b)
                    if key not in results:
                        results[key] = (m1, (src2, dst2, second, hit2))
                    b[src2] += 1
                    if dst2:
                        if hit2:
                            b[dst2] = -1
                            b[0] += 1
                        else:
                            b[dst2] -= 1
            elif best < 2:
                best = 1
                key = tuple(b)
                if key not in results:
                    results[key] = ((src, dst, first, hit),)
            b[src] += 1
            if dst:
                if hit:
                    b[dst] = -1
                    b[0] += 1
                else:
                    b[dst] -= 1
    return best, results


# One step of the fast paths below, built once at import so that the inner loops allocate no
# move tuples: _STEPS[die][src] = (src, dst, raw move without a hit, raw move with one) for every
# src whose move by die stays on the board (dst = src - die >= 1).
_Step = tuple[int, int, _RawMove, _RawMove]
_STEPS: tuple[dict[int, _Step], ...] = tuple(
    {src: (src, src - die, (src, src - die, die, False), (src, src - die, die, True))
     for src in range(die + 1, 26) if die}
    for die in range(7)
)


def _two_plain(
    b: list[int], hi: int, lo: int, owns: list[int]
) -> _Found:
    """Plays of two different dice ``hi > lo`` with no checker on the bar and at least two
    checkers outside the home board (so no die can bear off, WBF 4.1): the common case.

    ``owns`` lists the mover's occupied points 1..24, highest first. Returns exactly the plays,
    order and recorded moves of :func:`_search_two` (a test compares them), found with less
    work:

    * Only the two points a move changes can change what the other die may do, and no move of
      ours can block a point, so the moves of the second die are the root's list, less a point
      the first move emptied, plus the moved checker going on (when it stands where we had no
      checker: otherwise the root list already holds that move).
    * In the second order (``lo`` first) every pair of moves is a pair the first order has
      already played, except the one checker going on from a point we did not hold: only that
      chain is played.
    * Two plays reach the same board only when both move, in effect, one checker ``hi + lo``
      pips (a chain, or two checkers meeting, e.g. 13/8 8/5 and 13/10 10/5 ...): any other pair
      of moves leaves a distinct board. So only those chain results are checked for repeats,
      in a set; the others are appended without hashing.
    """
    steps_hi = _STEPS[hi]
    steps_lo = _STEPS[lo]
    first = [steps_hi[s] for s in owns if s > hi and b[s - hi] >= -1]
    second = [steps_lo[s] for s in owns if s > lo and b[s - lo] >= -1]
    keys: list[tuple[int, ...]] = []
    raws: list[tuple[_RawMove, ...]] = []
    chains: set[tuple[int, ...]] = set()
    single_keys: list[tuple[int, ...]] = []  # plays of one die, while no play uses both
    single_raws: list[tuple[_RawMove, ...]] = []
    for s1, t1, n1, h1 in first:
        here1 = b[s1]
        b[s1] = here1 - 1
        c1 = b[t1]
        if c1 == -1:
            b[t1] = 1
            b[0] -= 1
            r1 = h1
        else:
            b[t1] = c1 + 1
            r1 = n1
        for s2, t2, n2, h2 in second:
            here = b[s2]
            if here > 0:
                b[s2] = here - 1
                c2 = b[t2]
                if c2 == -1:
                    b[t2] = 1
                    b[0] -= 1
                    key = tuple(b)
                    b[0] += 1
                    r2 = h2
                else:
                    b[t2] = c2 + 1
                    key = tuple(b)
                    r2 = n2
                b[t2] = c2
                b[s2] = here
                if s2 == t1 or t2 == s1:
                    # in effect one checker moved hi + lo: the one kind that can repeat
                    if key in chains:
                        continue
                    chains.add(key)
                keys.append(key)
                raws.append((r1, r2))
        if c1 <= 0 and t1 > lo and b[t1 - lo] >= -1:
            # the moved checker goes on from a point we did not hold
            s2, t2, n2, h2 = steps_lo[t1]
            b[t1] = 0
            c2 = b[t2]
            if c2 == -1:
                b[t2] = 1
                b[0] -= 1
                key = tuple(b)
                b[0] += 1
                r2 = h2
            else:
                b[t2] = c2 + 1
                key = tuple(b)
                r2 = n2
            b[t2] = c2
            if key not in chains:
                chains.add(key)
                keys.append(key)
                raws.append((r1, r2))
        elif not keys:
            # Nothing followed this move (a result found would be in ``keys``).
            single_keys.append(tuple(b))
            single_raws.append((r1,))
        b[t1] = c1
        if c1 == -1:
            b[0] += 1
        b[s1] = here1
    for s1, t1, n1, h1 in second:
        c1 = b[t1]
        if c1 <= 0 and t1 > hi and b[t1 - hi] >= -1:
            # lo then hi with one checker through a point we did not hold
            t2 = t1 - hi
            r1 = h1 if c1 == -1 else n1
            b[s1] -= 1
            b[t1] = 0
            if c1 == -1:
                b[0] -= 1
            c2 = b[t2]
            if c2 == -1:
                b[t2] = 1
                b[0] -= 1
                key = tuple(b)
                b[0] += 1
                r2 = steps_hi[t1][3]
            else:
                b[t2] = c2 + 1
                key = tuple(b)
                r2 = steps_hi[t1][2]
            b[t2] = c2
            b[t1] = c1
            if c1 == -1:
                b[0] += 1
            b[s1] += 1
            if key not in chains:
                chains.add(key)
                keys.append(key)
                raws.append((r1, r2))
        elif not keys:
            # Nothing can follow this move: had the larger die a move after it, the first
            # order would have played that pair.
            b[s1] -= 1
            if c1 == -1:
                b[t1] = 1
                b[0] -= 1
                single_keys.append(tuple(b))
                single_raws.append((h1,))
                b[0] += 1
            else:
                b[t1] = c1 + 1
                single_keys.append(tuple(b))
                single_raws.append((n1,))
            b[t1] = c1
            b[s1] += 1
    if keys:
        return 2, keys, raws
    return (1 if single_keys else 0), single_keys, single_raws


def _same_plain(
    b: list[int], die: int, owns: list[int], left: int = 4, prefix: tuple[_RawMove, ...] = ()
) -> _Found:
    """Plays of a double where no move can bear off (WBF 4.1) and no checker waits on the
    bar: the common case (at least five checkers outside the home board), or the ``left``
    moves still to play after ``prefix``, the checkers that entered from the bar.

    Returns exactly the plays, order and recorded moves of :func:`_search_same` (a test
    compares them). The same walk (moves in order of non-increasing starting point), written
    as nested loops over one list of the points a checker may move from this turn, without
    recursion or a list per node; and no repeats to look for: with one die and no bearing off,
    a board is reached by exactly one set of moves (the change to our checkers is
    (x**-die - 1) times the sum of x**src over the moves, as polynomials, so the moves follow
    from it), and the walk takes each set once.
    """
    steps = _STEPS[die]
    # The points a checker can move from this turn, highest first: ours now, or reached by one
    # of ours moving on, and whose move lands on an open point.
    sources: list[int] = []
    reach = [False] * 32
    for src in range(owns[0], die, -1):
        if b[src - die] >= -1 and (b[src] > 0 or reach[src + die]):
            sources.append(src)
            reach[src] = True
    items = [(i, *steps[src]) for i, src in enumerate(sources)]
    tails = [items[i:] for i in range(len(items))]
    keys: list[tuple[int, ...]] = []
    raws: list[tuple[_RawMove, ...]] = []
    # plays shorter than ``left`` moves (no move left to make), with their length
    short: list[tuple[int, tuple[int, ...], tuple[_RawMove, ...]]] = []
    done = len(prefix)
    moved1 = False
    for i, s1, t1, n1, h1 in items:
        here1 = b[s1]
        if here1 <= 0:
            continue
        moved1 = True
        b[s1] = here1 - 1
        c1 = b[t1]
        if c1 == -1:
            b[t1] = 1
            b[0] -= 1
            r1 = h1
        else:
            b[t1] = c1 + 1
            r1 = n1
        if left == 1:
            keys.append(tuple(b))
            raws.append((*prefix, r1))
        else:
            moved2 = False
            for j, s2, t2, n2, h2 in tails[i]:
                here2 = b[s2]
                if here2 <= 0:
                    continue
                moved2 = True
                b[s2] = here2 - 1
                c2 = b[t2]
                if c2 == -1:
                    b[t2] = 1
                    b[0] -= 1
                    r2 = h2
                else:
                    b[t2] = c2 + 1
                    r2 = n2
                if left == 2:
                    keys.append(tuple(b))
                    raws.append((*prefix, r1, r2))
                else:
                    moved3 = False
                    for k, s3, t3, n3, h3 in tails[j]:
                        here3 = b[s3]
                        if here3 <= 0:
                            continue
                        moved3 = True
                        b[s3] = here3 - 1
                        c3 = b[t3]
                        if c3 == -1:
                            b[t3] = 1
                            b[0] -= 1
                            r3 = h3
                        else:
                            b[t3] = c3 + 1
                            r3 = n3
                        if left == 3:
                            keys.append(tuple(b))
                            raws.append((*prefix, r1, r2, r3))
                        else:
                            # the fourth move: one board per move, the hottest loop
                            moved4 = False
                            for _, s4, t4, n4, h4 in tails[k]:
                                here4 = b[s4]
                                if here4 > 0:
                                    moved4 = True
                                    b[s4] = here4 - 1
                                    c4 = b[t4]
                                    if c4 == -1:
                                        b[t4] = 1
                                        b[0] -= 1
                                        keys.append(tuple(b))
                                        raws.append((r1, r2, r3, h4))
                                        b[0] += 1
                                    else:
                                        b[t4] = c4 + 1
                                        keys.append(tuple(b))
                                        raws.append((r1, r2, r3, n4))
                                    b[t4] = c4
                                    b[s4] = here4
                            if not moved4:
                                short.append((done + 3, tuple(b), (*prefix, r1, r2, r3)))
                        b[t3] = c3
                        if c3 == -1:
                            b[0] += 1
                        b[s3] = here3
                    if not moved3:
                        short.append((done + 2, tuple(b), (*prefix, r1, r2)))
                b[t2] = c2
                if c2 == -1:
                    b[0] += 1
                b[s2] = here2
            if not moved2:
                short.append((done + 1, tuple(b), (*prefix, r1)))
        b[t1] = c1
        if c1 == -1:
            b[0] += 1
        b[s1] = here1
    if keys:
        return done + left, keys, raws
    if not moved1:
        return (done, [tuple(b)], [prefix]) if done else (0, [], [])
    best = max(depth for depth, _, _ in short)
    longest = [(key, raw) for depth, key, raw in short if depth == best]
    return best, [key for key, _ in longest], [raw for _, raw in longest]


def _two_entering(b: list[int], hi: int, lo: int, owns: list[int]) -> _Found:
    """Plays of two different dice ``hi > lo`` with a checker on the bar (WBF 3.6).

    Returns exactly the plays, order and recorded moves of :func:`_search_two` (a test compares
    them): the same two orders, with the second die's moves listed from ``owns`` (the occupied
    points, highest first) and the entered checker's point rather than from all 24 points. No
    bearing off: the entered checker stands outside the home board. Two plays can reach the
    same board only when the entered checker goes on with the other die, or two enter: only
    those are checked for repeats.
    """
    keys: list[tuple[int, ...]] = []
    raws: list[tuple[_RawMove, ...]] = []
    seen: set[tuple[int, ...]] = set()
    single_keys: list[tuple[int, ...]] = []
    single_raws: list[tuple[_RawMove, ...]] = []
    for first, second in ((hi, lo), (lo, hi)):
        entry = 25 - first
        c1 = b[entry]
        if c1 < -1:
            continue
        b[25] -= 1
        if c1 == -1:
            b[entry] = 1
            b[0] -= 1
            m1 = _STEPS[first][25][3]
        else:
            b[entry] = c1 + 1
            m1 = _STEPS[first][25][2]
        steps = _STEPS[second]
        follow: list[_Step]
        if b[25]:
            # another checker still waits on the bar: only it may move
            follow = [steps[25]] if b[25 - second] >= -1 else []
        else:
            sources = owns
            if c1 <= 0:
                # the entered checker stands where we had none: list it in its place
                at = 0
                for point in owns:
                    if point < entry:
                        break
                    at += 1
                sources = [*owns[:at], entry, *owns[at:]]
            follow = [steps[s] for s in sources if s > second and b[s - second] >= -1]
        for s2, t2, n2, h2 in follow:
            b[s2] -= 1
            c2 = b[t2]
            if c2 == -1:
                b[t2] = 1
                b[0] -= 1
                key = tuple(b)
                b[0] += 1
                r2 = h2
            else:
                b[t2] = c2 + 1
                key = tuple(b)
                r2 = n2
            b[t2] = c2
            b[s2] += 1
            if s2 == entry or s2 == 25:
                # the entered checker goes on, or a second one enters: the two orders meet
                if key in seen:
                    continue
                seen.add(key)
            keys.append(key)
            raws.append((m1, r2))
        if not follow and not keys:
            single_keys.append(tuple(b))
            single_raws.append((m1,))
        b[entry] = c1
        if c1 == -1:
            b[0] += 1
        b[25] += 1
    if keys:
        return 2, keys, raws
    return (1 if single_keys else 0), single_keys, single_raws


# _OFF[die][src]: bearing off from src with die, in the shape of a _STEPS entry (no hit).
_OFF: tuple[dict[int, _Step], ...] = tuple(
    {src: (src, 0, (src, 0, die, False), (src, 0, die, False)) for src in range(1, die + 1)}
    for die in range(7)
)


def _two_home(
    b: list[int], hi: int, lo: int, owns: list[int], outside: int
) -> tuple[int, _Results]:
    """Plays of two different dice ``hi > lo`` with no checker on the bar and at most one
    outside the home board, so that a die may bear off (WBF 4.1-4.2).

    Returns (longest, results) exactly as :func:`_search_two` does (a test compares them): the
    same two orders, the moves of each die listed from the occupied points (``owns``, highest
    first, kept up to date after the first move) rather than from all 24, and the one
    bearing-off move a die may have found from the highest of them.
    """

    def listing(die: int, sources: list[int], out: int) -> list[_Step]:
        steps = _STEPS[die]
        found = [steps[s] for s in sources if s > die and b[s - die] >= -1]
        if not out and sources:
            # 4.2: the die's own point, or with a larger die the highest point
            if b[die] > 0:
                found.append(_OFF[die][die])
            elif sources[0] < die:
                found.append(_OFF[die][sources[0]])
        return found

    results: _Results = {}
    best = 0
    roots = {hi: listing(hi, owns, outside), lo: listing(lo, owns, outside)}
    for first, second in ((hi, lo), (lo, hi)):
        for s1, t1, n1, h1 in roots[first]:
            here1 = b[s1]
            b[s1] = here1 - 1
            sources = owns if here1 > 1 else [s for s in owns if s != s1]
            c1 = 0
            m1 = n1
            if t1:
                c1 = b[t1]
                if c1 == -1:
                    b[t1] = 1
                    b[0] -= 1
                    m1 = h1
                else:
                    b[t1] = c1 + 1
                if c1 <= 0:
                    # a point we did not hold: list it in its place
                    at = 0
                    for point in sources:
                        if point < t1:
                            break
                        at += 1
                    sources = [*sources[:at], t1, *sources[at:]]
            follow = listing(second, sources, outside - 1 if s1 > 6 >= t1 else outside)
            if follow:
                if best < 2:
                    best = 2
                    results.clear()
                for s2, t2, n2, h2 in follow:
                    here2 = b[s2]
                    b[s2] = here2 - 1
                    if t2:
                        c2 = b[t2]
                        if c2 == -1:
                            b[t2] = 1
                            b[0] -= 1
                            results.setdefault(tuple(b), (m1, h2))
                            b[0] += 1
                        else:
                            b[t2] = c2 + 1
                            results.setdefault(tuple(b), (m1, n2))
                        b[t2] = c2
                    else:
                        results.setdefault(tuple(b), (m1, n2))
                    b[s2] = here2
            elif best < 2:
                best = 1
                results.setdefault(tuple(b), (m1,))
            if t1:
                b[t1] = c1
                if c1 == -1:
                    b[0] += 1
            b[s1] = here1
    return best, results


def _same_entering(
    b: list[int], die: int, owns: list[int]
) -> _Found:
    """Plays of a double with checkers on the bar (WBF 3.6): as many enter as can, then the
    rest is a plain walk (:func:`_same_plain`); no bearing off, since an entered checker needs
    three more moves to come home. Same entries, order and moves as :func:`_search_same`.
    Leaves ``b`` as the entering left it."""
    entry = 25 - die
    if b[entry] < -1:
        return 0, [], []
    entered: list[_RawMove] = []
    while b[25] and len(entered) < 4:
        b[25] -= 1
        if b[entry] == -1:
            b[entry] = 1
            b[0] -= 1
            entered.append((25, entry, die, True))
        else:
            b[entry] += 1
            entered.append((25, entry, die, False))
    if b[25] or len(entered) == 4:
        return len(entered), [tuple(b)], [tuple(entered)]
    if entry not in owns:
        owns = sorted((*owns, entry), reverse=True)
    return _same_plain(b, die, owns, 4 - len(entered), tuple(entered))


def _same_home(
    b: list[int], die: int, owns: list[int], outside: int
) -> tuple[int, _Results]:
    """Plays of a double with no checker on the bar, where bearing off can happen this turn
    (at most four checkers outside the home board; WBF 4.1-4.2).

    Returns (longest, results) exactly as :func:`_search_same` does (a test compares them):
    the same walk, with the moves of each node taken from one list of the points a checker may
    move from (as in :func:`_same_plain`) and the one bearing-off move, if any, found by
    looking at the home board only, rather than a fresh list of moves per node.
    """
    steps = _STEPS[die]
    sources: list[int] = []
    reach = [False] * 32
    for src in range(owns[0], die, -1):
        if b[src - die] >= -1 and (b[src] > 0 or reach[src + die]):
            sources.append(src)
            reach[src] = True
    items = [(i, *steps[src]) for i, src in enumerate(sources)]
    after_all = len(items)  # the index of the empty tail: no regular move after bearing off
    tails = [items[i:] for i in range(after_all + 1)]
    full: _Results = {}  # the plays of four moves, first found first
    short: list[tuple[int, tuple[int, ...], tuple[_RawMove, ...]]] = []  # shorter, and length

    def walk(start: int, cap: int, left: int, path: tuple[_RawMove, ...], out: int) -> None:
        # The moves here start at or below ``cap``: the regular ones from ``tails[start]``,
        # then at most one bearing a checker off (4.2), whose point is below theirs.
        moved = False
        for i, s, t, n, h in tails[start]:
            here = b[s]
            if here <= 0:
                continue
            moved = True
            b[s] = here - 1
            c = b[t]
            if c == -1:
                b[t] = 1
                b[0] -= 1
                r = h
            else:
                b[t] = c + 1
                r = n
            if left == 1:
                full.setdefault(tuple(b), (*path, r))
            else:
                walk(i, s, left - 1, (*path, r), out - 1 if s > 6 >= t else out)
            b[t] = c
            if c == -1:
                b[0] += 1
            b[s] = here
        if not out:
            src = 0
            if die <= cap and b[die] > 0:
                src = die
            else:
                # a larger die bears off from the highest point, if nothing stands higher
                for low in range(min(die - 1, cap), 0, -1):
                    if b[low] > 0:
                        for higher in range(low + 1, 7):
                            if b[higher] > 0:
                                break
                        else:
                            src = low
                        break
            if src:
                moved = True
                b[src] -= 1
                r = (src, 0, die, False)
                if left == 1:
                    full.setdefault(tuple(b), (*path, r))
                else:
                    walk(after_all, src, left - 1, (*path, r), 0)
                b[src] += 1
        if not moved:
            short.append((4 - left, tuple(b), path))

    walk(0, 25, 4, (), outside)
    if full:
        return 4, full
    best = max(depth for depth, _, _ in short)
    results: _Results = {}
    for depth, key, path in short:
        if depth == best and key not in results:
            results[key] = path
    return (best, results) if best else (0, {})


def _search_same(
    b: list[int], die: int, count: int, outside: int, top: int
) -> tuple[int, _Results]:
    """Plays of ``count`` equal dice (doubles: four), moves taken in order of non-increasing
    starting point so that each multiset of moves is walked once."""
    results: _Results = {}
    best = 0
    path: list[_RawMove] = []

    def walk(moves: list[tuple[int, int]] | None, outside: int) -> None:
        # ``moves``: the legal moves here whose starting point is <= the last one's, highest
        # first (None when the dice are used up). Moves are applied and undone inline: this
        # loop runs once per node of the search.
        nonlocal best
        if not moves:
            depth = len(path)
            if depth >= best:
                if depth > best:
                    best = depth
                    results.clear()
                key = tuple(b)
                if key not in results:
                    results[key] = tuple(path)
            return
        if len(path) + 1 == count:
            # The last die: record each board here rather than one call deeper.
            if best < count:
                best = count
                results.clear()
            prefix = tuple(path)
            for src, dst in moves:
                b[src] -= 1
                if not dst:
                    key = tuple(b)
                    if key not in results:
                        results[key] = (*prefix, (src, 0, die, False))
                else:
                    was = b[dst]
                    if was == -1:
                        b[dst] = 1
                        b[0] -= 1
                        key = tuple(b)
                        if key not in results:
                            results[key] = (*prefix, (src, dst, die, True))
                        b[0] += 1
                    else:
                        b[dst] = was + 1
                        key = tuple(b)
                        if key not in results:
                            results[key] = (*prefix, (src, dst, die, False))
                    b[dst] = was
                b[src] += 1
            return
        for i, (src, dst) in enumerate(moves):
            b[src] -= 1
            hit = False
            if dst:
                if b[dst] == -1:
                    b[dst] = 1
                    b[0] -= 1
                    hit = True
                else:
                    b[dst] += 1
            out2 = outside - 1 if src > 6 >= dst else outside
            child: list[tuple[int, int]]
            if src != 25 and out2 > 0:
                # Neither the bar nor bearing off is involved: the moves from here are the
                # parent's (from src down) that still have a checker, plus the checker that
                # just arrived on a point that had none of ours.
                child = [m for m in moves[i:] if b[m[0]] > 0]
                on = dst - die
                if b[dst] == 1 and on >= 1 and b[on] >= -1:
                    for j, m in enumerate(child):
                        if m[0] < dst:
                            child.insert(j, (dst, on))
                            break
                    else:
                        child.append((dst, on))
            else:
                child = _single_moves(b, die, out2, src)
            path.append((src, dst, die, hit))
            walk(child, out2)
            path.pop()
            b[src] += 1
            if dst:
                if hit:
                    b[dst] = -1
                    b[0] += 1
                else:
                    b[dst] -= 1

    walk(_single_moves(b, die, outside, top) if count else None, outside)
    if best == 0:
        results.clear()
    return best, results


def check_dice(dice: Iterable[int], *, maximum: int = 2) -> tuple[int, ...]:
    """Validate a roll: two ints 1..6 (``maximum`` allows up to four, for dice left).

    Raises:
        InvalidDiceError: not a sequence of ints 1..6 of the right length.
    """
    if isinstance(dice, (str, bytes)):
        raise InvalidDiceError(f"dice must be ints 1..6, got {dice!r}")
    try:
        values = tuple(dice)
    except TypeError:
        raise InvalidDiceError(f"dice must be a sequence of ints 1..6, got {dice!r}") from None
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
            raise InvalidDiceError(f"a die must be an int 1..6, got {value!r} in {dice!r}")
    if maximum == 2 and len(values) != 2:
        raise InvalidDiceError(f"a roll is two dice, got {len(values)}: {dice!r}")
    if len(values) > maximum:
        raise InvalidDiceError(f"at most {maximum} dice, got {len(values)}: {dice!r}")
    if len(values) > 2 and len(set(values)) > 1:
        raise InvalidDiceError(f"more than two dice must all be equal (doubles), got {dice!r}")
    return values


def _check_playable(position: Position) -> None:
    if not isinstance(position, Position):
        raise InvalidPositionError(f"expected a Position, got {type(position).__name__}")


class Play:
    """A whole turn's moves and the position they lead to.

    Two plays are equal when they start from the same position and reach the same result:
    different orders of the same moves are one play (DESIGN.md "Habits" 5).

    Attributes:
        position: the position before the play.
        moves: the moves in an order in which they can be played (mover's numbering).
        result: the position after the play, the same side still to move.
    """

    # Read-only properties over private slots rather than a __setattr__ that refuses every
    # store: a Play is then built with plain attribute stores, once per legal play listed
    # (and ``play.position = ...`` still raises AttributeError).
    __slots__ = ("_position", "_raw", "_result", "_str")

    _position: Position
    _result: Position
    _raw: tuple[_RawMove, ...]
    _str: str | None

    def __init__(self, position: Position, moves: Iterable[Move | _RawMove], result: Position):
        self._position = position
        self._raw = tuple(tuple(m) for m in moves)  # type: ignore[misc]
        self._result = result
        self._str = None

    if TYPE_CHECKING:

        @property
        def position(self) -> Position:
            """The position before the play."""

        @property
        def result(self) -> Position:
            """The position after the play, the same side still to move."""

    else:
        # attrgetter: a C getter, half the cost of a property written in Python
        position = property(attrgetter("_position"), doc="The position before the play.")
        result = property(
            attrgetter("_result"), doc="The position after the play, the same side still to move."
        )

    @property
    def moves(self) -> tuple[Move, ...]:
        """The moves, each a :class:`Move` in the mover's own numbering."""
        return tuple(Move(*m) for m in self._raw)

    @property
    def dice_used(self) -> tuple[int, ...]:
        """The dice the moves use, in move order."""
        return tuple(m[2] for m in self._raw)

    @property
    def pips(self) -> int:
        """Pips this play takes off the mover's pip count (a larger die bearing off counts
        only the distance to off)."""
        return sum(m[0] - m[1] for m in self._raw)

    @classmethod
    def from_str(cls, text: str, position: Position, dice: Sequence[int]) -> Play:
        """Parse standard notation into the legal play it names; see :func:`parse_play`."""
        from backgammon.core.notation import parse_play

        return parse_play(text, position, dice)

    def __str__(self) -> str:
        text = self._str
        if text is None:
            from backgammon.core.notation import format_play

            text = self._str = format_play(self.moves)
        return text

    def __repr__(self) -> str:
        return f"<Play {self} from {self._position.id()}>"

    def __len__(self) -> int:
        return len(self._raw)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return self._result == other._result and self._position == other._position

    def __hash__(self) -> int:
        return hash((self._position, self._result))


class LegalPlays(Sequence[Play]):
    """The distinct legal plays of a position and roll, distinct by resulting position.

    A read-only view: ``len()``, iteration, indexing, ``play in legal`` (by result; a
    :class:`Position` also works), and ``bool(legal)`` is False when the roll cannot be played
    and the turn passes. The search finds every result up front; the :class:`Play` objects are
    built when first asked for, since a caller such as the computer player often needs only
    the boards (:meth:`own_boards`).
    """

    __slots__ = ("_bears_off", "_index", "_keys", "_plays", "_raws", "dice", "position")

    def __init__(
        self,
        position: Position,
        dice: tuple[int, int],
        keys: list[tuple[int, ...]],
        raws: list[tuple[_RawMove, ...]],
        bears_off: bool = True,
    ) -> None:
        self.position = position
        self.dice = dice
        self._keys = keys  # each play's result board, mover's numbering (see own_boards)
        self._raws = raws  # each play's moves, (from, to, die, hit) in the mover's numbering
        self._bears_off = bears_off  # False: no play bears a checker off (none to count)
        self._plays: list[Play] | None = None
        self._index: dict[tuple[int, ...], int] | None = None

    def _all(self) -> list[Play]:
        if self._plays is None:
            self._plays = _build_plays(self.position, self._keys, self._raws, self._bears_off)
        return self._plays

    def _one(self, index: int) -> Play:
        """Play ``index`` alone, without building the others."""
        keys = [self._keys[index]]
        return _build_plays(self.position, keys, [self._raws[index]], self._bears_off)[0]

    def __len__(self) -> int:
        return len(self._keys)

    def __bool__(self) -> bool:
        return bool(self._keys)

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        if isinstance(index, int) and self._plays is None:
            return self._one(index)
        return self._all()[index]

    def __iter__(self) -> Iterator[Play]:
        plays = self._plays  # _all() inlined: iterating is how most callers get the plays
        if plays is None:
            plays = _build_plays(self.position, self._keys, self._raws, self._bears_off)
            self._plays = plays
        return iter(plays)

    def own_boards(self) -> list[tuple[int, ...]]:
        """Each play's result as 26 ints in the mover's own numbering (index 25 the mover's
        bar, 1..24 its points, 0 the opponent's bar as a negative count), in play order."""
        return self._keys.copy()

    def _position_index(self, result: Position) -> int | None:
        if result.turn is not self.position.turn:
            return None
        if self._index is None:
            self._index = dict(zip(self._keys, range(len(self._keys)), strict=True))
        return self._index.get(result.own_points(result.turn))

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Play):
            return item.position == self.position and self._position_index(item.result) is not None
        if isinstance(item, Position):
            return self._position_index(item) is not None
        return False

    def by_result(self, result: Position) -> Play | None:
        """The play that reaches ``result``, or None."""
        index = self._position_index(result)
        if index is None:
            return None
        if self._plays is not None:
            return self._plays[index]
        return self._one(index)

    @property
    def results(self) -> frozenset[Position]:
        """The set of resulting positions."""
        return frozenset(play.result for play in self._all())

    @property
    def must_pass(self) -> bool:
        """True when no checker can move: the turn passes (WBF 3.5)."""
        return not self._keys

    def __repr__(self) -> str:
        return f"<LegalPlays {self.dice[0]}{self.dice[1]}: {len(self)} plays>"


def _flip(k: tuple[int, ...]) -> tuple[int, ...]:
    """A board in the mover's numbering seen from White's side, or back: slot i is minus
    slot 25 - i. Written out because it runs once per play of Black's and a tuple display of
    26 subscripts costs half of ``tuple(map(neg, reversed(k)))``."""
    return (
        -k[25], -k[24], -k[23], -k[22], -k[21], -k[20], -k[19], -k[18], -k[17], -k[16],
        -k[15], -k[14], -k[13], -k[12], -k[11], -k[10], -k[9], -k[8], -k[7], -k[6],
        -k[5], -k[4], -k[3], -k[2], -k[1], -k[0],
    )


def _build_plays(
    position: Position,
    keys: list[tuple[int, ...]],
    raws: list[tuple[_RawMove, ...]],
    bears_off: bool = True,
) -> list[Play]:
    """The Plays of the search's results (boards in the mover's numbering, raw moves),
    unchecked. ``bears_off`` False promises that no move bears off (then none is counted).

    One loop per case, without tests inside: this builds every play that iterating a
    :class:`LegalPlays` returns, one Play and one Position each.
    """
    unsealed = _Unsealed  # calling it costs less than object.__new__; it has no __init__
    new = object.__new__  # a Play without its __init__: its slots are set right after
    turn = position.turn
    off = position.off
    plays: list[Play] = []
    append = plays.append
    if bears_off:
        white_off, black_off = off
        white = turn is WHITE
        for key, raw in zip(keys, raws):  # noqa: B905 (equal lengths; strict= costs a call)
            borne = 0
            for move in raw:
                if not move[1]:
                    borne += 1
            result = unsealed()
            if white:
                result.points = key
                result.off = (white_off + borne, black_off) if borne else off
                result._black_view = None
            else:
                result.points = _flip(key)
                result.off = (white_off, black_off + borne) if borne else off
                result._black_view = key
            result.turn = turn
            result._hash = None
            result.__class__ = Position  # type: ignore[assignment]
            play = new(Play)
            play._position = position
            play._raw = raw
            play._result = result  # type: ignore[assignment]
            play._str = None
            append(play)
    elif turn is WHITE:
        for key, raw in zip(keys, raws):  # noqa: B905 (equal lengths; strict= costs a call)
            result = unsealed()
            result.points = key
            result.off = off
            result.turn = turn
            result._hash = None
            result._black_view = None
            result.__class__ = Position  # type: ignore[assignment]
            play = new(Play)
            play._position = position
            play._raw = raw
            play._result = result  # type: ignore[assignment]
            play._str = None
            append(play)
    else:
        for key, raw in zip(keys, raws):  # noqa: B905 (equal lengths; strict= costs a call)
            result = unsealed()
            # _flip(key) written out: a call per play costs a third of the flip itself
            k = key
            result.points = (
                -k[25], -k[24], -k[23], -k[22], -k[21], -k[20], -k[19], -k[18], -k[17], -k[16],
                -k[15], -k[14], -k[13], -k[12], -k[11], -k[10], -k[9], -k[8], -k[7], -k[6],
                -k[5], -k[4], -k[3], -k[2], -k[1], -k[0],
            )
            result.off = off
            result.turn = turn
            result._hash = None
            result._black_view = key  # what own_points(BLACK) would compute
            result.__class__ = Position  # type: ignore[assignment]
            play = new(Play)
            play._position = position
            play._raw = raw
            play._result = result  # type: ignore[assignment]
            play._str = None
            append(play)
    return plays


def legal_plays(position: Position, dice: Sequence[int]) -> LegalPlays:
    """Every distinct legal play of ``position`` with the roll ``dice``.

    Args:
        position: the position, its side to move being the one that rolled.
        dice: two ints 1..6 (a double plays four times).

    Returns:
        A :class:`LegalPlays` view; empty when the roll cannot be played. Plays that use fewer
        dice than the longest possible are excluded, and when only one die of two can be played
        only plays of the larger die remain if there are any (WBF rules 3.5).

    Raises:
        InvalidDiceError: dice are not two ints 1..6.
        InvalidPositionError: ``position`` is not a Position.
    """
    if not isinstance(position, Position):
        raise InvalidPositionError(f"expected a Position, got {type(position).__name__}")
    if dice.__class__ is tuple and len(dice) == 2:
        # The usual call, a tuple of two ints: checked here without check_dice's loop.
        d1, d2 = dice
        if d1.__class__ is not int or d2.__class__ is not int or not (0 < d1 < 7 and 0 < d2 < 7):
            d1, d2 = check_dice(dice)
    else:
        d1, d2 = check_dice(dice)
    turn = position.turn
    own = position.points if turn is WHITE else position.own_points(turn)
    b = list(own)
    # The larger die first: a play that only one die can make is then recorded with the larger
    # die when both dice reach the same result (WBF 3.5 names the larger).
    high, low = (d1, d2) if d1 >= d2 else (d2, d1)
    # The mover's occupied points, highest first, and its checkers outside the home board.
    owns = [point for point in _POINTS_DOWN if own[point] > 0]
    outside = b[25]
    for point in owns:
        if point <= 6:
            break
        outside += b[point]
    if b[25] == 0 and outside > (4 if d1 == d2 else 1):
        # No entering and no bearing off this turn: the fast paths.
        if d1 == d2:
            best, keys, raws = _same_plain(b, d1, owns)
        else:
            best, keys, raws = _two_plain(b, high, low, owns)
    elif b[25]:
        # Entering first (WBF 3.6); no bearing off this turn.
        if d1 == d2:
            best, keys, raws = _same_entering(b, d1, owns)
        else:
            best, keys, raws = _two_entering(b, high, low, owns)
    else:
        # Bearing off may happen this turn (WBF 4.1).
        if d1 == d2:
            best, results = _same_home(b, d1, owns, outside) if owns else (0, {})
        else:
            best, results = _two_home(b, high, low, owns, outside)
        keys, raws = list(results), list(results.values())
    if best == 1 and d1 != d2 and any(raw[0][2] == high for raw in raws):
        # WBF 3.5: when either die alone can be played, the larger.
        larger = [i for i, raw in enumerate(raws) if raw[0][2] == high]
        keys = [keys[i] for i in larger]
        raws = [raws[i] for i in larger]
    # Bearing off needs every checker home first, and four moves bring at most three home.
    return LegalPlays(position, (d1, d2), keys, raws, outside < 4)


def legal_moves(
    position: Position,
    dice_left: Sequence[int],
    played: Sequence[Move] = (),
) -> list[Move]:
    """The single moves that can start or continue the turn without shortening it.

    This is what a UI offers while a play is built one checker at a time: a move is listed
    exactly when some legal play (see :func:`legal_plays`) begins with ``played`` followed by
    it. Both functions rest on the same search, so they cannot disagree.

    Args:
        position: the position at the *start* of the turn (before ``played``).
        dice_left: the dice not used yet. For a fresh roll the two dice (a double may be given
            as two equal values or as all four); later, what remains (a double's remaining
            dice one value each, e.g. ``(3, 3)`` after two of four moves).
        played: the moves already made this turn, in order (mover's numbering).

    Returns:
        The distinct legal next moves (mover's numbering), highest starting point first; an
        empty list when the turn is over or the roll cannot be played.

    Raises:
        InvalidDiceError: malformed dice, or ``dice_left`` and ``played`` that are not one roll.
        IllegalMoveError: ``played`` is not the start of a legal play.
        TypeError: a move in ``played`` that is not a :class:`Move`.
    """
    b, remaining, needed, larger_only = _turn_so_far(position, dice_left, played)
    options = _continuations(b, remaining, needed, larger_only)
    return [Move(src, dst, die, hit) for (src, dst, die), hit in options.items()]


def legal_paths(
    position: Position,
    dice_left: Sequence[int],
    played: Sequence[Move] = (),
) -> list[tuple[Move, ...]]:
    """Every way one checker can go on from where it stands, with one or more of the dice left.

    This is what a board offers when a checker is dragged to where it ends: each path is a
    legal next move (as :func:`legal_moves` lists it) followed by further legal next moves of
    the same checker, so no path leaves a die unplayed that the rules say must be played.

    Args:
        position, dice_left, played: as for :func:`legal_moves`.

    Returns:
        The paths, each a tuple of one or more moves (mover's numbering), the moves of a path
        in the order they are made; the one-move paths are exactly :func:`legal_moves`. Two
        paths may end on the same point (e.g. 13/10/5 and 13/8/5, or one that hits on the way).

    Raises:
        InvalidDiceError, IllegalMoveError: as for :func:`legal_moves`.
    """
    b, remaining, needed, larger_only = _turn_so_far(position, dice_left, played)
    paths: list[tuple[Move, ...]] = []

    def extend(path: tuple[Move, ...], left: list[int], needed: int, larger_only: bool,
               source: int | None) -> None:
        for (src, dst, die), hit in _continuations(b, left, needed, larger_only, source).items():
            longer = (*path, Move(src, dst, die, hit))
            paths.append(longer)
            if dst != OFF and len(left) > 1:
                rest = list(left)
                rest.remove(die)
                _apply(b, src, dst)
                extend(longer, rest, needed - 1, False, dst)
                _undo(b, src, dst, hit)

    extend((), remaining, needed, larger_only, None)
    return paths


def _turn_so_far(
    position: Position, dice_left: Sequence[int], played: Sequence[Move]
) -> tuple[list[int], list[int], int, bool]:
    """The board after ``played`` (mover's numbering), the dice left, how many more moves the
    play needs, and whether only the larger die may be played; ``played`` checked move by
    move (see :func:`legal_moves`)."""
    _check_playable(position)
    left = list(check_dice(dice_left, maximum=4))
    if isinstance(played, Play):
        played = played.moves
    for move in played:
        if not isinstance(move, Move):
            raise TypeError(f"the moves played are Move objects (Move(from_point, to_point, "
                            f"die)), got {move!r:.60}")
    used = [m.die for m in played]
    full = used + left
    if not played and len(full) == 2 and full[0] == full[1]:
        full = full * 2
        left = list(full)
    if len(full) > 4 or (len(full) > 2 and len(set(full)) > 1) or len(full) < 2:
        raise InvalidDiceError(
            f"played dice {tuple(used)} and dice left {tuple(dice_left)} are not one roll"
        )
    b = _own(position)
    longest = next((n for n in range(len(full), 0, -1) if _can_play(b, full, n)), 0)
    # WBF 3.5: when only one die of two different ones can be played, the larger if it can.
    larger_only = longest == 1 and len(full) == 2 and full[0] != full[1]
    remaining = list(full)
    for index, move in enumerate(played):
        options = _continuations(b, remaining, longest - index, larger_only)
        if (move.from_point, move.to_point, move.die) not in options:
            before = " after " + " ".join(map(str, played[:index])) if index else ""
            raise IllegalMoveError(f"{move} is not a legal move{before}")
        _apply(b, move.from_point, move.to_point)
        remaining.remove(move.die)
    return b, remaining, longest - len(played), larger_only


def _continuations(
    b: list[int], left: list[int], needed: int, larger_only: bool,
    source: int | None = None,
) -> dict[tuple[int, int, int], bool]:
    """Moves from ``b`` after which ``needed - 1`` more of the dice ``left`` can be played.

    Keyed by (from, to, die), valued by hit; ``larger_only`` keeps only the larger die's moves
    when it has any; ``source`` keeps only the moves from that point. Whether a move leaves
    enough to play comes from :func:`_can_play`, on the single moves of :func:`_search`, the
    search behind :func:`legal_plays`.
    """
    found: dict[tuple[int, int, int], bool] = {}
    if needed <= 0:
        return found
    outside = _outside(b)
    for die in sorted(set(left), reverse=True):
        rest = list(left)
        rest.remove(die)
        for src, dst in _single_moves(b, die, outside):
            if source is not None and src != source:
                continue
            hit = _apply(b, src, dst)
            reaches = _can_play(b, rest, needed - 1)
            _undo(b, src, dst, hit)
            if reaches:
                found[(src, dst, die)] = hit
        if larger_only and found:
            break
    return found


def _can_play(b: list[int], dice: list[int], count: int) -> bool:
    """Whether ``count`` more moves can be made from ``b`` with some of ``dice``.

    A depth-first search that stops at the first sequence long enough: the same moves as
    :func:`_search` (:func:`_single_moves`), without collecting every result.
    """
    if count <= 0:
        return True
    outside = _outside(b)
    for die in set(dice):
        rest = list(dice)
        rest.remove(die)
        for src, dst in _single_moves(b, die, outside):
            hit = _apply(b, src, dst)
            reaches = _can_play(b, rest, count - 1)
            _undo(b, src, dst, hit)
            if reaches:
                return True
    return False


def apply_play(position: Position, moves: Iterable[Move] | Play) -> Position:
    """Apply moves (mover's numbering; or a :class:`Play`'s) one by one, checking each single
    move, not the turn.

    For the whole-turn rules use :func:`legal_plays` or :func:`legal_moves`; this is for
    editors and replays that have already checked them.

    Raises:
        IllegalMoveError: a move that no die could make in the position reached.
    """
    if isinstance(moves, Play):
        moves = moves.moves
    b = _own(position)
    outside = _outside(b)
    for move in moves:
        pairs = _single_moves(b, move.die, outside)
        if (move.from_point, move.to_point) not in pairs:
            raise IllegalMoveError(f"{move} cannot be played with a {move.die}")
        _apply(b, move.from_point, move.to_point)
        outside += _crosses_home(move.from_point, move.to_point)
    return _to_position(tuple(b), position)


def require_legal(play: Play, legal: LegalPlays) -> Play:
    """Return the legal play equal to ``play`` or raise :class:`IllegalPlayError`."""
    found = legal.by_result(play.result)
    if found is None:
        raise IllegalPlayError(f"{play} is not a legal play with {legal.dice[0]}{legal.dice[1]}")
    return found


__all__ = [
    "LegalPlays",
    "Move",
    "Play",
    "apply_play",
    "check_dice",
    "legal_moves",
    "legal_paths",
    "legal_plays",
]
