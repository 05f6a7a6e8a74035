"""Throwing a backgammon room's dice in tests: both seats commit and reveal fixed secrets
(gametable.fair's rounds), through the room service as two pages would."""

from __future__ import annotations

from gametable.fair import commitment_of
from gametable.rooms import RoomService
from gametable.seam import Side

#: Each seat's secret for every round (the dice then follow from the round's number).
SECRETS: dict[Side, bytes] = {"white": bytes([1]) * 32, "black": bytes([2]) * 32}


def throw(svc: RoomService, code: str, sides: tuple[Side, ...] = ("white", "black")) -> None:
    """One round: each of ``sides`` commits, then reveals."""
    number = svc.room(code).next_round
    for side in sides:
        svc.handle(code, side, {"type": "commit", "round": number,
                                "commitment": commitment_of(SECRETS[side])})  # fmt: skip
    for side in sides:
        svc.handle(code, side, {"type": "reveal", "round": number,
                                "secret": SECRETS[side].hex()})  # fmt: skip


def throw_opening(svc: RoomService, code: str) -> None:
    """Throw the opening roll of the game in play (again while it is a tie)."""
    room = svc.room(code)
    while room.table.game.match.current.phase.value == "opening":  # type: ignore[attr-defined]
        throw(svc, code)
