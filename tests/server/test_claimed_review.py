"""An online review of a game won by a claim (the opponent was gone) says the game was
claimed, as the live move list does, not that a player "times out" (issue 34): untimed games
record a claim as a timeout of the silent side.
"""

from __future__ import annotations

from typing import Any

from test_online_protocol import client, now, table_factory

from backgammon.core.match import Match
from backgammon.core.types import BLACK
from backgammon.services.review import review_match
from fake_clock import FakeNow

__all__ = ["client", "now", "table_factory"]  # the online fixtures, by the names tests ask


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


def test_the_online_review_of_a_claimed_game_says_it_was_claimed(table_factory: Any,
                                                                 now: FakeNow) -> None:
    table = table_factory(seed=26)
    mover = table.by_color(table.opening()["color"])
    other = table.guest if mover is table.host else table.host
    now.advance(580)  # the mover thinks at the board: warned at 480 s
    other.send(type="state")
    assert table.both("silence")[0]["color"] == mover.color
    other.expect("state")
    now.advance(20)
    other.send(type="claim")
    table.both("claimable")
    table.both("abandoned")
    table.both("game_over")
    live = [entry["text"] for entry in other.state()["view"]["history"]]
    other.send(type="review")
    review = other.expect("review")["review"]
    texts = [entry["text"] for entry in review["history"]]
    name = review["names"][mover.color]
    line = f"{name} was silent too long: the game was claimed"
    assert line in texts and line in live
    assert not any("times out" in text for text in texts), texts
