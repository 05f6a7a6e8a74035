"""Where each checker can go this turn, as the board shows it: local and online play alike.

The engine lists single moves (:func:`backgammon.core.moves.legal_moves`); a person drags a
checker to where it ends, which may take several dice. :func:`legal_json` gives, for each
checker that can move, every place it can reach now and the single moves that take it there;
places are the page's (White's numbering, ``"bar"``, ``"off"``). :func:`own_point` reads a
place sent back in the mover's numbering, and :func:`refusal` says in words why a checker
cannot go where it was sent (both doors' one-checker moves).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from typing_extensions import TypedDict

from backgammon.core.errors import BackgammonError, IllegalMoveError
from backgammon.core.explain import explain_move
from backgammon.core.game import Game, Phase
from backgammon.core.moves import Move, apply_play, legal_moves, legal_paths
from backgammon.core.position import Position
from backgammon.core.types import BAR, OFF, WHITE, Color
from backgammon.services.state import BoardJSON, LegalJSON, MoveJSON, Place

__all__ = ["TurnJSON", "legal_json", "move_json", "own_point", "paths_by_destination", "place",
           "refusal", "turn_json"]


def place(point: int, mover: Color, *, source: bool) -> Place:
    """A point of the mover's numbering (bar 25, off 0) as a place of the page (White's
    numbering 1..24, ``"bar"`` as a source, ``"off"`` as a destination)."""
    if source and point == BAR:
        return "bar"
    if not source and point == OFF:
        return "off"
    return point if mover is WHITE else 25 - point


def move_json(move: Move, mover: Color) -> MoveJSON:
    """One move of ``mover`` (its own numbering) as the page takes it: places, die, hit and
    the move in standard notation from the mover's side."""
    return {"from": place(move.from_point, mover, source=True),
            "to": place(move.to_point, mover, source=False),
            "die": move.die, "hit": move.hit, "text": str(move)}


def paths_by_destination(game: Game) -> dict[tuple[int, int], list[Move]]:
    """Where each checker can go now, by (from, to) in the mover's numbering, with the moves
    that take it there.

    A destination several dice away is reached by moving the same checker on through open
    points; every step is one of the engine's legal moves
    (:func:`~backgammon.core.moves.legal_paths`), so no path leaves a die that the rules say
    must be played unplayed. When two paths reach the same point, the one that hits
    nothing on the way is chosen (a hit in passing is the person's choice, made one die at a
    time), then the one with fewer dice, then smaller dice.
    """
    if game.phase is not Phase.MOVE:
        return {}
    return _paths(game.turn_start, game.dice_left, game.played)


def _paths(start: Position, dice_left: Sequence[int],
           played: Sequence[Move]) -> dict[tuple[int, int], list[Move]]:
    best: dict[tuple[int, int], list[Move]] = {}
    for found in legal_paths(start, dice_left, played):
        path = list(found)
        key = (path[0].from_point, path[-1].to_point)
        rank = (sum(m.hit for m in path[:-1]), len(path), [m.die for m in path])
        current = best.get(key)
        if current is None or rank < (sum(m.hit for m in current[:-1]), len(current),
                                       [m.die for m in current]):
            best[key] = path
    return best


def legal_json(game: Game) -> list[LegalJSON]:
    """What the side on roll can move now, for the board: each checker that can move (highest
    place first) with every place it can reach (farthest first), whether it hits there, and
    the moves of :func:`paths_by_destination` that take it there. Empty outside the ``MOVE``
    phase or when no move is left."""
    if game.phase is not Phase.MOVE:
        return []
    mover = game.on_roll if game.on_roll is not None else WHITE
    return _legal(paths_by_destination(game), mover)


def _legal(paths: dict[tuple[int, int], list[Move]], mover: Color) -> list[LegalJSON]:
    by_source: dict[int, list[tuple[int, list[Move]]]] = {}
    for (src, dst), path in paths.items():
        by_source.setdefault(src, []).append((dst, path))
    result: list[LegalJSON] = []
    for src in sorted(by_source, reverse=True):
        destinations = [
            {"to": place(dst, mover, source=False), "hit": path[-1].hit,
             "moves": [move_json(m, mover) for m in path]}
            for dst, path in sorted(by_source[src], key=lambda item: -item[0])
        ]
        result.append(cast(LegalJSON, {"from": place(src, mover, source=True),
                                       "destinations": destinations}))
    return result


def own_point(where: Place, mover: Color, *, source: bool) -> int:
    """A place of the page (White's numbering, ``"bar"``, ``"off"``) in ``mover``'s numbering
    (bar 25, off 0): the inverse of :func:`place`.

    Raises:
        IllegalMoveError: (a ``ValueError``) not a place a checker can move from (1..24,
            bar) or to (1..24, off).
    """
    if source and where == "bar":
        return BAR
    if not source and where == "off":
        return OFF
    if isinstance(where, bool) or not isinstance(where, int) or not 1 <= where <= 24:
        role = "move from" if source else "move to"
        allowed = "1..24 or 'bar'" if source else "1..24 or 'off'"
        raise IllegalMoveError(f"there is no point {where!r} to {role} (expected {allowed})")
    return where if mover is WHITE else 25 - where


def refusal(game: Game, src: int, dst: int, paths: dict[tuple[int, int], list[Move]]) -> str:
    """Why moving one checker ``src`` -> ``dst`` (the mover's numbering) is refused now, in
    words, given :func:`paths_by_destination`'s ``paths``: ``"13/7 is not a legal move: ..."``
    (:func:`~backgammon.core.explain.explain_move` gives the rule, else where that checker
    can go), or ``"13/7: no move is left this turn: press Done"``."""
    name = "bar" if src == BAR else str(src)
    target = "off" if dst == OFF else str(dst)
    if not paths:
        return f"{name}/{target}: no move is left this turn: press Done"
    try:
        reason = explain_move(game.turn_start, game.dice_left, game.played, src, dst)
    except BackgammonError:
        reason = None
    if reason is None:
        options = sorted({f"{'bar' if a == BAR else a}/{'off' if b == OFF else b}"
                          for a, b in paths if a == src})
        reason = ("that checker can go " + ", ".join(options) if options
                  else "that checker cannot move now")
    return f"{name}/{target} is not a legal move: {reason}"


class TurnJSON(TypedDict):
    """A turn being built one checker at a time away from the game (a play sent whole, as the
    shared table's online door takes it): the board after the moves made, the moves (as the
    page takes them), the dice left, where each checker can go next, the play so far in
    notation and whether it is whole (nothing more can be moved)."""

    board: BoardJSON
    played: list[MoveJSON]
    dice_left: list[int]
    legal: list[LegalJSON]
    play: str
    complete: bool


def turn_json(start: Position, dice: Sequence[int],
              moves: Sequence[tuple[Place, Place, int]]) -> TurnJSON:
    """The turn of ``start``'s side to move with ``dice`` after ``moves`` (page places and the
    die of each, in the order made), each checked against the rules
    (:func:`~backgammon.core.moves.legal_moves` from the moves before it).

    Raises:
        ValueError: bad dice, or a move that is not legal where it is made (its words say
            which).
    """
    if len(dice) != 2 or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6
                             for d in dice):
        raise ValueError(f"dice must be two numbers 1 to 6, not {list(dice)!r}")
    mover = start.turn
    left = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    played: list[Move] = []
    position = start
    for index, (src, dst, die) in enumerate(moves):
        key = (own_point(src, mover, source=True), own_point(dst, mover, source=False), die)
        found = next((m for m in legal_moves(start, left, played)
                      if (m.from_point, m.to_point, m.die) == key), None)
        if found is None:
            raise ValueError(f"move {index + 1} ({src} to {dst} with a {die}) is not legal there")
        played.append(found)
        left.remove(found.die)
        position = apply_play(position, (found,))
    paths = _paths(start, left, played) if left else {}
    return {
        "board": {"points": list(position.points),
                  "off": {"white": position.off[0], "black": position.off[1]}},
        "played": [move_json(m, mover) for m in played],
        "dice_left": left,
        "legal": _legal(paths, mover),
        "play": " ".join(str(m) for m in played),
        "complete": not paths,
    }
