"""A review of a game won by a claim (the opponent was gone) says the game was claimed, not
that a player "times out" (issue 34): a claim recorded as a timeout of the silent side (as
backgammon's old online door recorded it) is reviewed as a claim; the table's online door
records it as a forfeit whose cause is the claim.
"""

from __future__ import annotations

from backgammon.adapter import RULES
from backgammon.core.match import Match
from backgammon.core.types import BLACK
from backgammon.services.review import review_match
from fake_clock import FakeNow
from gametable.rooms import RoomService
from room_support import throw


def test_review_match_says_a_claimed_game_was_claimed() -> None:
    match = Match(0, cube=False)
    match.current.roll(dice=(3, 1))
    match.current.play("8/5 6/5")
    match.current.timeout(BLACK)  # how a room records a claimed (abandoned) game
    claimed = review_match(match, ("Ann", "Bob"), claimed=True)
    texts = [entry["text"] for entry in claimed["history"]]
    assert texts[-2] == "Bob was silent too long: the game was claimed"
    assert not any("times out" in text for text in texts), texts
    frame = next(f for f in claimed["frames"] if f["kind"] == "timeout")
    assert frame["text"] == "Bob was silent too long: the game was claimed"
    # a real timeout (a clock ran out) keeps its words
    timed = review_match(match, ("Ann", "Bob"))
    assert [entry["text"] for entry in timed["history"]][-2] == "Bob times out"


def test_a_game_claimed_at_the_tables_door_is_a_forfeit_that_says_so() -> None:
    now = FakeNow()
    svc = RoomService({"backgammon": RULES}, None, now=now)
    code, _, _, _ = svc.create("backgammon", {"length": 3}, "none", name="Ann", side="white")
    svc.join(code, "Bob")
    for side in ("white", "black"):
        svc.connect(code, side)
    throw(svc, code, "white", (3, 1), opening=True)  # White, to play 3-1, closes its page
    svc.disconnect(code, "white")
    now.advance(121)
    room = svc.room(code)
    assert room.view("black")["room"]["can_claim"] is True
    svc.handle(code, "black", {"type": "claim"})
    view = room.view("black")
    assert view["outcome"] == {"winner": "black", "reason": "forfeit", "points": 3}
    assert view["room"]["forfeit"] == {"side": "white", "cause": "claimed"}
    texts = [entry["text"] for entry in view["state"]["history"]]
    assert texts == ["Ann 3-1: forfeits", "Bob wins 3 points"]
    assert not any("time" in text for text in texts), texts
    events = room.table.game.match.to_log()["games"][-1]["events"]
    assert events[-1] == {"type": "forfeit", "color": "white", "points": 3}
