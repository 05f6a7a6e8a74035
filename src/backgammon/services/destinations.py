"""Where each checker can go this turn, as the board shows it: local and online play alike.

The engine lists single moves (:func:`backgammon.core.moves.legal_moves`); a person drags a
checker to where it ends, which may take several dice. :func:`legal_json` gives, for each
checker that can move, every place it can reach now and the single moves that take it there;
places are the page's (White's numbering, ``"bar"``, ``"off"``).
"""

from __future__ import annotations

from typing import cast

from backgammon.core.game import Game, Phase
from backgammon.core.moves import Move, legal_paths
from backgammon.core.types import BAR, OFF, WHITE, Color
from backgammon.services.state import LegalJSON, MoveJSON, Place

__all__ = ["legal_json", "move_json", "paths_by_destination", "place"]


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
    best: dict[tuple[int, int], list[Move]] = {}
    for found in legal_paths(game.turn_start, game.dice_left, game.played):
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
    by_source: dict[int, list[tuple[int, list[Move]]]] = {}
    for (src, dst), path in paths_by_destination(game).items():
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
