"""The shared door's guards (issue 33): what a hostile or stalling player, a failing store or
time itself must not do to the rooms' door (gametable.online, gametable.rooms)."""

from __future__ import annotations

from backgammon.adapter import RULES as BACKGAMMON
from checkers.adapter import RULES as CHECKERS
from fake_clock import FakeNow
from gametable.rooms import RoomService

GAMES = {"backgammon": BACKGAMMON, "checkers": CHECKERS}


def seated(svc: RoomService, game: str = "checkers", control: str = "none") -> str:
    """A room with both players joined and connected: White hosts."""
    code, _, _, _ = svc.create(game, {}, control, name="Ann", side="white")
    svc.join(code, "Bob")
    for side in ("white", "black"):
        svc.connect(code, side)
    return code


def test_an_opened_claim_is_announced_once_then_gives_no_deadline() -> None:
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now, claim_after=120)
    code = seated(svc)
    svc.disconnect(code, "black")  # Black, to move, is gone
    assert svc.deadline(code) == now.t + 120
    now.advance(121)
    due = svc.tick()
    assert [c for c, out in due if out] == [code]  # the claim opened: the views, once
    assert svc.room(code).view("white")["room"]["can_claim"] is True
    assert svc.deadline(code) is None  # no deadline in the past for the timer to loop on
    now.advance(5)
    assert [out for _, out in svc.tick() if out] == []
    # back and gone again: a new claim, announced once more
    svc.connect(code, "black")
    svc.disconnect(code, "black")
    assert svc.deadline(code) == now.t + 120
    now.advance(120)
    assert [c for c, out in svc.tick() if out] == [code]
    assert svc.deadline(code) is None


def test_a_room_nobody_joined_gives_no_claim_deadline() -> None:
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now, claim_after=120)
    code, _, _, _ = svc.create("checkers", {}, "none", name="Ann", side="white")
    svc.connect(code, "white")  # Black (to move) has not joined: nothing to claim or time
    now.advance(500)
    assert svc.deadline(code) is None
    assert [out for _, out in svc.tick() if out] == []
