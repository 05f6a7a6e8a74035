"""The room's ``claim_in`` (gametable.room's view): while an untimed game waits on a player
who is gone, its opponent's view says in how many seconds it may claim the game, so that its
page can warn and count down; None otherwise (connected, not awaited, timed, claimable)."""

from __future__ import annotations

from backgammon.adapter import RULES as BACKGAMMON
from checkers.adapter import RULES as CHECKERS
from fake_clock import FakeNow
from gametable.rooms import RoomService

GAMES = {"backgammon": BACKGAMMON, "checkers": CHECKERS}


def seated(svc: RoomService, control: str = "none") -> str:
    code, _, _, _ = svc.create("checkers", {}, control, name="Ann", side="white")
    svc.join(code, "Bob")
    for side in ("white", "black"):
        svc.connect(code, side)
    return code


def test_the_opponent_of_a_gone_player_is_told_when_it_may_claim() -> None:
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now)
    code = seated(svc)
    room = svc.room(code)
    assert [room.view(s)["room"]["claim_in"] for s in ("white", "black")] == [None, None]
    svc.disconnect(code, "black")  # Black, to move, closes its page
    now.advance(30)
    assert room.view("white")["room"]["claim_in"] == 90.0
    assert room.view("black")["room"]["claim_in"] is None  # the awaited side is not warned
    assert room.view(None)["room"]["claim_in"] is None
    now.advance(90)
    assert room.view("white")["room"] == {**room.view("white")["room"], "claim_in": None,
                                          "can_claim": True}
    svc.connect(code, "black")  # back in time: nothing to claim, nothing to count
    assert room.view("white")["room"]["claim_in"] is None


def test_a_gone_player_not_awaited_or_a_timed_game_counts_nothing() -> None:
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now)
    code = seated(svc)
    svc.disconnect(code, "white")  # Black is to move: White's absence stalls nothing
    now.advance(10)
    assert svc.room(code).view("black")["room"]["claim_in"] is None
    timed = seated(svc, "blitz")
    svc.handle(timed, "black", {"type": "action", "action": {"type": "move", "path": [11, 15]}})
    svc.disconnect(timed, "white")  # the clock runs now: it settles a stall itself
    now.advance(10)
    assert svc.room(timed).view("black")["room"]["claim_in"] is None


def test_a_timed_game_is_claimable_before_its_clock_starts() -> None:
    """Before checkers' first move no clock runs: a first mover who never moves could keep
    a timed game waiting for ever, so the untimed claims apply until the clock starts, the
    wait on its turn at most the time control's reserve (blitz: 180 s)."""
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now)
    code = seated(svc, "blitz")
    room = svc.room(code)
    svc.disconnect(code, "black")  # Black, to move first, goes
    now.advance(30)
    assert room.view("white")["room"]["claim_in"] == 90.0
    svc.connect(code, "black")  # back, and silent: its turn's wait (from the join) is at
    now.advance(149)  # most the reserve
    assert not room.view("white")["room"]["can_claim"]
    now.advance(2)
    white = room.view("white")["room"]
    assert white["can_claim"] and white["claim_cause"] == "thinking"
    assert room.table.clock is not None and room.table.clock.running is None


def test_the_countdown_is_to_the_earliest_claim() -> None:
    """A player who thought 590 s over its move, then closed its page: its thinking claim
    opens in 10 s, before its absence's 120 s, and the countdown says 10."""
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now)
    code = seated(svc)
    now.advance(590)
    svc.disconnect(code, "black")
    assert svc.room(code).view("white")["room"]["claim_in"] == 10.0
