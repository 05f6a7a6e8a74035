"""Standard backgammon notation for plays: format and parse.

The forms every backgammon program writes (GNU Backgammon, Jellyfish, eXtreme Gammon), in the
mover's own point numbering:

* ``8/5 6/5``: two moves; ``bar/22`` enters from the bar; ``6/off`` bears off;
* ``13/7*``: a hit; ``24/18*/13``: one checker moving on after hitting on the way;
* ``8/5(2)``: the same move twice; ``13/3`` one checker moved by both dice (or more, for doubles).

The parser also accepts ``25`` or ``Bar`` for the bar, ``0`` or ``Off`` for off, moves in any
order, one die step at a time (``24/20 20/15``), and a missing or extra ``*``. It names the
legal play whose result matches, so "parse then format" is a round trip through the rules.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from backgammon.core.errors import IllegalPlayError, NotationError
from backgammon.core.types import BAR, OFF, WHITE

if TYPE_CHECKING:
    from backgammon.core.moves import Move, Play
    from backgammon.core.position import Position


def _point_name(point: int) -> str:
    if point == BAR:
        return "bar"
    if point == OFF:
        return "off"
    return str(point)


def format_play(moves: Iterable[Move] | Play) -> str:
    """Write a play (a :class:`~backgammon.core.moves.Play`, or its moves in the mover's
    numbering) in standard notation, e.g. ``24/18*/13 6/5(2)``.

    Moves of one checker are joined into one path (``13/8 8/3`` becomes ``13/3``), keeping an
    intermediate point where it hits (``24/18*/13``); identical paths are counted (``8/5(2)``).
    Paths are listed from the highest starting point down (of two on the same points, the one
    that hits first: ``6/4* 6/4``). An empty play is ``""``.
    """
    if hasattr(moves, "moves") and hasattr(moves, "result"):
        moves = moves.moves  # a Play
    paths: list[list[tuple[int, bool]]] = []  # each: [(point, hit_there), ...]
    for move in moves:
        for path in paths:
            if path[-1][0] == move.from_point and move.from_point not in (BAR, OFF):
                path.append((move.to_point, move.hit))
                break
        else:
            paths.append([(move.from_point, False), (move.to_point, move.hit)])
    words: list[str] = []
    for path in paths:
        parts = [_point_name(path[0][0])]
        for i, (point, hit) in enumerate(path[1:], start=1):
            last = i == len(path) - 1
            if hit or last:
                parts.append(_point_name(point) + ("*" if hit else ""))
        words.append("/".join(parts))
    # Ties (the same path with and without a hit, 6/4* 6/4) put the hit first: the order is
    # the same in every process (a set's order of strings is not).
    order = sorted(set(words), key=lambda w: (_path_order(w), -w.count("*"), w))
    counted = [(w, words.count(w)) for w in order]
    return " ".join(w if n == 1 else f"{w}({n})" for w, n in counted)


def _path_order(word: str) -> tuple[int, ...]:
    # Highest starting point first, then the highest point reached (as GNU Backgammon most
    # often lists them; it is not consistent about moves from the same point).
    return tuple(-_sort_value(x) for x in word.replace("*", "").split("/"))


def _sort_value(token: str) -> int:
    token = token.lower()
    if token == "bar":
        return BAR
    if token == "off":
        return OFF
    return int(token)


_TOKEN = re.compile(
    r"""^(?P<path>(?:bar|off|[0-9]{1,2})\*?(?:/(?:bar|off|[0-9]{1,2})\*?)+)(?:\((?P<count>[0-9])\))?$""",
    re.IGNORECASE,
)


def parse_moves_text(text: str) -> list[tuple[list[tuple[int, bool]], int]]:
    """Split notation into checker paths without looking at a position.

    Returns a list of (path, count) where path is [(point, hit_mark), ...] in the mover's
    numbering (bar 25, off 0).

    Raises:
        NotationError: a token that is not ``from/to`` with points 0..25, ``bar`` or ``off``.
    """
    if not isinstance(text, str):
        raise NotationError(f"notation must be text, got {type(text).__name__}")
    cleaned = text.strip()
    if cleaned.lower() in ("", "-", "----", "pass", "cannot move", "can't move"):
        return []
    result: list[tuple[list[tuple[int, bool]], int]] = []
    # "(2)" may be written apart from its move: join it first. (The look-behind starts a match
    # only at the first space of a run: a search from each of its spaces would take time
    # growing with the square of a long run.)
    cleaned = re.sub(r"(?<!\s)\s+\(", "(", cleaned)
    for token in cleaned.split():
        match = _TOKEN.match(token)
        if not match:
            raise NotationError(f"{token!r} in {text!r} is not a move like 13/7, bar/22, 6/off")
        path: list[tuple[int, bool]] = []
        for part in match.group("path").split("/"):
            hit = part.endswith("*")
            name = part.rstrip("*").lower()
            point = BAR if name == "bar" else OFF if name == "off" else int(name)
            if not 0 <= point <= 25:
                raise NotationError(f"{token!r} in {text!r}: there is no point {point}")
            path.append((point, hit))
        for (a, _), (b, _) in itertools.pairwise(path):
            if b >= a:
                raise NotationError(
                    f"{token!r} in {text!r}: a checker moves from a higher point to a lower one"
                )
        if path[0][0] == OFF or any(p == BAR for p, _ in path[1:]):
            raise NotationError(
                f"{token!r} in {text!r}: off can only end a move, bar only start it"
            )
        count = int(match.group("count") or 1)
        if count < 1 or count > 4:
            raise NotationError(f"{token!r} in {text!r}: a move is repeated 1 to 4 times")
        result.append((path, count))
    return result


def _simulate(
    position: Position, paths: list[tuple[list[tuple[int, bool]], int]]
) -> tuple[int, ...] | None:
    """The board (mover's numbering) after moving checkers along ``paths``, ignoring dice."""
    p = position.points
    b = list(p) if position.turn is WHITE else [-p[25 - i] for i in range(26)]
    for path, count in paths:
        for _ in range(count):
            src = path[0][0]
            if b[src] <= 0:
                return None
            b[src] -= 1
            for index, (point, hit) in enumerate(path[1:], start=1):
                if point == OFF:
                    break
                last = index == len(path) - 1
                if last:
                    if b[point] == -1:
                        b[point] = 0
                        b[0] -= 1
                    elif b[point] < -1:
                        return None
                    b[point] += 1
                elif hit and b[point] == -1:
                    # An intermediate hit: the blot goes to the bar, the checker moves on.
                    b[point] = 0
                    b[0] -= 1
    return tuple(b)


def parse_play(text: str, position: Position, dice: Sequence[int]) -> Play:
    """The legal play that ``text`` names for ``position`` and the roll ``dice``.

    Args:
        text: notation such as ``"8/5 6/5"``, ``"bar/22 24/18*"``, ``"25/22 6/0"``,
            ``"8/5(2)"``; empty text (or ``"pass"``) names the empty play when the roll cannot
            be played.
        position: the position before the play; its side to move is the mover.
        dice: the roll, two ints 1..6.

    Raises:
        NotationError: the text is not notation.
        IllegalPlayError: the text is notation but names no legal play for this roll, with the
            reason where it can be told.
    """
    from backgammon.core.moves import Play, legal_plays

    paths = parse_moves_text(text)
    legal = legal_plays(position, dice)
    if not paths:
        if not legal:
            return Play(position, (), position)
        raise IllegalPlayError(
            f"an empty play is not legal with {dice[0]}{dice[1]}: a move can be made"
        )
    if not legal:
        raise IllegalPlayError(f"{text!r}: no move is possible with {dice[0]}{dice[1]}")
    board = _simulate(position, paths)
    if board is None:
        raise IllegalPlayError(
            f"{text!r} moves a checker from a point the mover does not hold, or onto a "
            f"point held by the opponent"
        )
    own_key = tuple(board)
    for play in legal:
        if _own_key(play.result) == own_key:
            return play
    # Forgiving: the same checkers moved, but a hit mark missing or extra in the text.
    mine = tuple(max(c, 0) for c in own_key)
    close = [play for play in legal if tuple(max(c, 0) for c in _own_key(play.result)) == mine]
    if len(close) == 1:
        return close[0]
    raise IllegalPlayError(
        f"{text!r} is not a legal play with {dice[0]}{dice[1]} in this position"
        + (" (it does not use as many dice as can be played)" if _shorter(paths, legal) else "")
    )


def _own_key(position: Position) -> tuple[int, ...]:
    p = position.points
    if position.turn is WHITE:
        return p
    return tuple(-p[25 - i] for i in range(26))


def _shorter(paths: list[tuple[list[tuple[int, bool]], int]], legal: object) -> bool:
    from backgammon.core.moves import LegalPlays

    assert isinstance(legal, LegalPlays)
    pips = sum((path[0][0] - path[-1][0]) * count for path, count in paths)
    return all(pips < play.pips for play in legal)


def parse_play_or_none(text: str, position: Position, dice: Sequence[int]) -> Play | None:
    """Like :func:`parse_play` but returns None instead of raising on an illegal play."""
    try:
        return parse_play(text, position, dice)
    except IllegalPlayError:
        return None


__all__ = ["format_play", "parse_moves_text", "parse_play", "parse_play_or_none"]
