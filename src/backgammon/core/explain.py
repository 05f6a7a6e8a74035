"""Why a move is not allowed, in words a player understands.

:func:`explain_move` answers a UI that let someone try a move: ``None`` when the move is legal
(it is one of :func:`~backgammon.core.moves.legal_moves`), otherwise one sentence naming the
rule, e.g. ``"the 7-point is held by Black"`` or ``"a checker on the bar must enter first"``.
The verdict always comes from ``legal_moves``; this module only finds the words, so it can
never call a legal move illegal or the reverse.

Rules quoted are those of the World Backgammon Federation's rules of play (sections 3 and 4),
as :mod:`backgammon.core.moves` enforces them.
"""

from __future__ import annotations

from collections.abc import Sequence

from backgammon.core.moves import Move, apply_play, legal_moves, legal_plays
from backgammon.core.position import Position
from backgammon.core.types import BAR, OFF, WHITE


def _point(point: int) -> str:
    if point == BAR:
        return "the bar"
    if point == OFF:
        return "off"
    return f"the {point}-point"


def _dice_words(dice: Sequence[int]) -> str:
    values = sorted(dice, reverse=True)
    if not values:
        return "no dice"
    if len(values) == 1:
        return f"a {values[0]}"
    return ", ".join(str(d) for d in values[:-1]) + f" and {values[-1]}"


def explain_move(
    position: Position,
    dice_left: Sequence[int],
    played: Sequence[Move],
    from_point: int,
    to_point: int,
) -> str | None:
    """Say why moving a checker ``from_point`` -> ``to_point`` is not allowed now.

    Args:
        position: the position at the start of the turn (as for ``legal_moves``).
        dice_left: the dice not used yet this turn.
        played: the moves made so far this turn.
        from_point: where the checker starts, mover's numbering (25 the bar).
        to_point: where it should go, mover's numbering (0 off); it may be two or more dice
            away when one checker is to use several dice.

    Returns:
        None when the move (or, for a destination several dice away, some sequence of legal
        moves of that checker) is legal; otherwise one sentence giving the rule.

    Raises:
        InvalidDiceError, IllegalMoveError: as ``legal_moves`` for bad dice or ``played``.
    """
    options = legal_moves(position, dice_left, played)
    if moves_along(position, dice_left, played, from_point, to_point) is not None:
        return None
    current = apply_play(position, played) if played else position
    own = current.own_points(current.turn)
    opponent = "Black" if current.turn is WHITE else "White"
    left = list(dice_left)
    if len(left) == 2 and left[0] == left[1] and not played:
        left = left * 2
    if not options:
        if not left:
            return "the turn is over: all dice are played"
        return "no move is possible with these dice: the turn passes"
    if from_point == BAR and own[BAR] <= 0:
        return "you have no checker on the bar"
    if from_point != BAR and not 0 < from_point < BAR:
        return f"there is no point {from_point}"
    if from_point != BAR and own[from_point] <= 0:
        return f"you have no checker on {_point(from_point)}"
    if own[BAR] > 0 and from_point != BAR:
        return "a checker on the bar must enter first"
    if to_point >= from_point:
        return "checkers move forward only, towards your home board and off"
    distance = from_point - to_point
    if to_point != OFF:
        if own[to_point] < -1:
            return f"{_point(to_point)} is held by {opponent}"
        if distance not in left and distance not in _sums(left):
            return f"no die shows {distance}: the dice left are {_dice_words(left)}"
        blocked = _blocked_path(own, from_point, to_point, left)
        if blocked is not None:
            return f"the way is blocked: {_point(blocked)} is held by {opponent}"
        return _shortening(position, left, played, distance)
    # bearing off
    outside = sum(c for c in own[7:26] if c > 0)
    if outside > 0:
        return (
            f"bearing off needs all 15 checkers home: {outside} "
            f"{'is' if outside == 1 else 'are'} still outside your home board"
        )
    if distance in left:
        return _shortening(position, left, played, distance)
    bigger = [d for d in left if d > distance]
    if bigger:
        higher = [p for p in range(from_point + 1, 7) if own[p] > 0]
        if higher:
            return (
                f"a {min(bigger)} bears off from {_point(from_point)} only when no checker "
                f"stands higher: {_point(max(higher))} is occupied"
            )
        return _shortening(position, left, played, min(bigger))
    return f"no die shows {distance}: the dice left are {_dice_words(left)}"


def _sums(dice: Sequence[int]) -> set[int]:
    if not dice:
        return set()
    if len(set(dice)) == 1:
        return {dice[0] * k for k in range(2, len(dice) + 1)}
    return {sum(dice)}


def _blocked_path(
    own: tuple[int, ...], src: int, dst: int, dice: Sequence[int]
) -> int | None:
    """An intermediate point held by the opponent on every way from src to dst, if any."""
    distance = src - dst
    if distance in dice:
        return None
    steps_options: list[list[int]] = []
    if len(set(dice)) == 1:
        steps_options.append([dice[0]] * (distance // dice[0]))
    else:
        steps_options += [list(dice), list(reversed(dice))]
    first_block: int | None = None
    for steps in steps_options:
        at = src
        for step in steps[:-1]:
            at -= step
            if own[at] < -1:
                first_block = at if first_block is None else first_block
                break
        else:
            return None
    return first_block


def _shortening(
    position: Position, dice: Sequence[int], played: Sequence[Move], die: int
) -> str:
    """The move is possible by itself but would make the turn shorter than allowed (WBF 3.5)."""
    values = sorted(set(dice), reverse=True)
    if not played and len(dice) == 2 and len(values) == 2:
        longest = max((len(p) for p in legal_plays(position, (dice[0], dice[1]))), default=0)
        if longest == 1:
            return f"when only one die can be played it must be the larger: play the {values[0]}"
        other = values[1] if die == values[0] else values[0]
        return f"this would leave the {other} unplayable; you must use both dice"
    return "this would leave a die unplayable; you must play as many dice as you can"


def explain_pass(position: Position, dice: Sequence[int]) -> str | None:
    """Say why a roll cannot be played at all (the turn then passes, WBF 3.5 and 3.6).

    Args:
        position: the position before the roll, its side to move being the roller.
        dice: the roll, two ints 1..6.

    Returns:
        None when some move can be made; otherwise one sentence naming what stops every
        checker, in the roller's numbering, e.g. ``"the 19-point and the 20-point are held by
        Black, so the checker on the bar cannot enter"`` or ``"every point a 6 or a 5 would
        reach is held by Black, and bearing off needs all 15 checkers home"``.

    Raises:
        InvalidDiceError: dice that are not two ints 1..6.
    """
    if legal_moves(position, dice):
        return None
    own = position.own_points(position.turn)
    opponent = "Black" if position.turn is WHITE else "White"
    values = sorted(set(dice), reverse=True)
    if own[BAR] > 0:
        held = [_point(BAR - die) for die in values]
        points = " and ".join(held)
        verb = "is" if len(held) == 1 else "are"
        waiting = "the checker on the bar" if own[BAR] == 1 else "the checkers on the bar"
        return f"{points} {verb} held by {opponent}, so {waiting} cannot enter"
    outside = sum(c for c in own[7:BAR] if c > 0)
    blocked = bearing = False
    for point in range(1, BAR):
        if own[point] <= 0:
            continue
        for die in values:
            if point - die >= 1:
                blocked = blocked or own[point - die] < -1
            else:
                bearing = bearing or outside > 0
    dice_text = " or a ".join(str(d) for d in values)
    parts = []
    if blocked:
        parts.append(f"every point a {dice_text} would reach is held by {opponent}")
    if bearing:
        parts.append("bearing off needs all 15 checkers home")
    if not parts:  # pragma: no cover - a roll with no move is blocked one way or the other
        return "no checker can move with these dice"
    return ", and ".join(parts)


def moves_along(
    position: Position,
    dice_left: Sequence[int],
    played: Sequence[Move],
    src: int,
    dst: int,
) -> list[Move] | None:
    """The legal moves that take one checker from ``src`` to ``dst`` now (one die or several,
    through open points), or None when there is no such way. Used by UIs for a destination
    two dice away."""
    left = list(dice_left)
    if len(left) == 2 and left[0] == left[1] and not played:
        left = left * 2
    for move in legal_moves(position, left, played):
        if move.from_point != src:
            continue
        if move.to_point == dst:
            return [move]
        if move.to_point != OFF and move.to_point > dst:
            rest = list(left)
            rest.remove(move.die)
            if rest:
                tail = moves_along(position, rest, [*played, move], move.to_point, dst)
                if tail is not None:
                    return [move, *tail]
    return None


__all__ = ["explain_move", "explain_pass", "moves_along"]
