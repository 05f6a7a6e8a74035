"""Presence at the local door (gametable.presence): a person's clock runs only while a page
watches (charged up to the grace, then paused), a "leave" stops it at once, a flag falls only
within the watched time and exactly at the deadline, the computer's clock runs only while it
thinks, the person's waits until the computer's turn has been shown, and a match's next game
(a fresh clock) is followed."""

from __future__ import annotations

from typing import Any

import pytest

from backgammon.adapter import RULES as BACKGAMMON
from checkers.adapter import RULES as CHECKERS
from fake_clock import FakeNow
from gametable import Seat, Side, Table, TimeControl
from gametable.presence import (
    ANONYMOUS_PAGE,
    HEARTBEAT_SECONDS,
    PRESENCE_SECONDS,
    WARNING_SECONDS,
    Presence,
)


def move(*path: int) -> dict[str, Any]:
    return {"type": "move", "path": list(path)}


def remaining(table: Table) -> dict[str, float]:
    clock = table.clock
    assert clock is not None
    return {side: clock.remaining(side) for side in ("white", "black")}


def on_clock(table: Table) -> tuple[str | None, str | None]:
    """(running, paused)"""
    clock = table.clock
    assert clock is not None
    return clock.running, clock.paused


def people_at_checkers(reserve: float = 60.0) -> tuple[Table, Presence, FakeNow]:
    """Two people at checkers, White's clock just started by Black's first move, a page
    watching."""
    now = FakeNow()
    table = Table(CHECKERS, time_control=TimeControl("t", reserve, 0.0), now=now)
    presence = Presence(table, now)
    presence.seen("tab")
    table.act("black", move(11, 15))
    presence.sync()
    return table, presence, now


def request(presence: Presence, page: str = "tab") -> str | None:
    """One request as the door serves it: the clock brought up to now, the page noted, the
    clock synced."""
    out = presence.due()
    if out is None:
        presence.seen(page)
        presence.sync()
    return out


def test_a_persons_clock_runs_while_heartbeats_come_and_is_charged_only_up_to_the_grace() -> None:
    table, presence, now = people_at_checkers()
    assert on_clock(table) == ("white", None)
    for _ in range(4):  # 20 s of heartbeats
        now.advance(HEARTBEAT_SECONDS)
        assert request(presence) is None
    assert remaining(table) == {"white": 40.0, "black": 60.0}
    assert on_clock(table) == ("white", None)
    # the page goes quiet (a laptop asleep): 30 s later only the grace is charged, then paused
    now.advance(30.0)
    assert presence.due() is None
    assert on_clock(table) == (None, "white")
    assert remaining(table)["white"] == 40.0 - PRESENCE_SECONDS
    now.advance(500.0)  # nothing more while nobody watches
    presence.sync()
    assert presence.due() is None and remaining(table)["white"] == 30.0
    # the next request resumes it from now
    assert request(presence) is None
    assert on_clock(table) == ("white", None)
    now.advance(3.0)
    assert request(presence) is None
    assert remaining(table)["white"] == 27.0
    # Black's clock has not moved; White's move hands the clock over
    table.act("white", move(23, 19))
    presence.acted("tab")
    presence.sync()
    assert on_clock(table) == ("black", None)
    now.advance(4.0)
    assert remaining(table) == {"white": 27.0, "black": 56.0}


def test_a_quiet_page_pauses_the_clock_even_if_sync_comes_first() -> None:
    table, presence, now = people_at_checkers()
    now.advance(25.0)  # heard from at the start only
    presence.sync()  # no due() first: still only the grace is charged
    assert on_clock(table) == (None, "white")
    assert remaining(table)["white"] == 60.0 - PRESENCE_SECONDS


def test_a_clock_that_sync_pauses_at_zero_falls_at_the_next_due() -> None:
    table, presence, now = people_at_checkers(reserve=8.0)
    now.advance(25.0)
    presence.sync()  # paused no later than the deadline: nothing below zero
    assert on_clock(table) == (None, "white") and remaining(table)["white"] == 0.0
    assert table.game.outcome() is None
    assert presence.due() == "white"
    assert on_clock(table) == (None, None) and remaining(table)["white"] == 0.0
    assert table.view()["outcome"] == {"winner": "black", "reason": "time", "points": 1}


def test_leaving_stops_presence_at_once() -> None:
    table, presence, now = people_at_checkers()
    now.advance(4.0)
    assert request(presence) is None
    now.advance(3.0)
    presence.seen(ANONYMOUS_PAGE)  # an unnamed read: forgotten with the page that leaves
    presence.left("tab")
    assert presence.pages == {}
    now.advance(50.0)
    assert presence.due() is None  # charged up to the leave, not the grace after it
    assert on_clock(table) == (None, "white")
    assert remaining(table)["white"] == 53.0
    # the usual order (due, left, sync) charges the same
    assert request(presence) is None
    now.advance(2.0)
    assert presence.due() is None
    presence.left("tab")
    presence.sync()
    now.advance(20.0)
    assert presence.due() is None and remaining(table)["white"] == 51.0


def test_a_page_that_leaves_while_another_watches_changes_nothing() -> None:
    table, presence, now = people_at_checkers()
    presence.seen("phone")
    now.advance(5.0)
    presence.seen("phone")
    presence.left("tab")
    presence.sync()
    assert presence.pages == {"phone": now.t}
    now.advance(5.0)
    assert request(presence, "phone") is None
    assert on_clock(table) == ("white", None) and remaining(table)["white"] == 50.0


def test_a_flag_within_the_watched_time_ends_the_game_exactly_at_the_deadline() -> None:
    table, presence, now = people_at_checkers(reserve=12.0)
    now.advance(5.0)
    assert request(presence) is None
    now.advance(9.0)  # 14 s used of 12: the page was heard from 9 s ago, within the grace
    assert presence.due() == "white"
    assert on_clock(table) == (None, None)
    assert remaining(table) == {"white": 0.0, "black": 12.0}
    assert table.view()["outcome"] == {"winner": "black", "reason": "time", "points": 1}
    assert table.game.log()[-1] == {"time_out": "white"}
    assert presence.due() is None  # recorded once
    # a flag inside the grace after the page went quiet falls too, at the deadline
    table, presence, now = people_at_checkers(reserve=8.0)
    now.advance(300.0)
    assert presence.due() == "white"
    assert remaining(table)["white"] == 0.0
    assert table.view()["outcome"] == {"winner": "black", "reason": "time", "points": 1}


def test_a_flag_that_would_have_fallen_while_nobody_watched_does_not() -> None:
    table, presence, now = people_at_checkers(reserve=15.0)
    now.advance(60.0)  # the reserve ran out 45 s ago by the wall clock, but nobody watched
    assert presence.due() is None
    assert table.game.outcome() is None
    assert on_clock(table) == (None, "white") and remaining(table)["white"] == 5.0
    now.advance(600.0)
    assert request(presence) is None  # the page is back: 5 s left, running
    now.advance(4.0)
    assert request(presence) is None and remaining(table)["white"] == 1.0
    now.advance(1.5)
    assert presence.due() == "white"
    assert remaining(table)["white"] == 0.0
    assert table.view()["outcome"] == {"winner": "black", "reason": "time", "points": 1}


def test_no_page_ever_heard_from_charges_nothing_as_after_a_restart() -> None:
    table, _, now = people_at_checkers()
    now.advance(20.0)
    record = table.to_record()
    later = FakeNow(5000.0)
    again = Table.from_record(record, {"checkers": CHECKERS}, later)  # comes back running
    presence = Presence(again, later)
    later.advance(45.0)  # no page has asked since the restart
    assert presence.due() is None
    assert on_clock(again) == (None, "white") and remaining(again)["white"] == 40.0
    assert request(presence) is None
    later.advance(6.0)
    assert request(presence) is None and remaining(again)["white"] == 34.0


def computer_against_person(reserve: float = 60.0) -> tuple[Table, Presence, FakeNow]:
    """Black a person, White the computer; Black's first move put White's clock on."""
    now = FakeNow()
    seats: dict[Side, Seat] = {"black": Seat("person"), "white": Seat("computer", "easy")}
    table = Table(CHECKERS, {}, seats, time_control=TimeControl("t", reserve, 0.0), now=now,
                  seed=3)  # fmt: skip
    presence = Presence(table, now)
    presence.acted("tab")
    table.act("black", move(11, 15))
    presence.sync()
    return table, presence, now


def test_a_computer_seats_clock_runs_only_while_it_thinks_and_the_persons_waits_to_be_shown(
) -> None:  # fmt: skip
    table, presence, now = computer_against_person()
    assert on_clock(table) == (None, "white")  # started by the table, held: not thinking
    now.advance(7.0)
    assert request(presence) is None and remaining(table)["white"] == 60.0
    # the computer's turn: its clock runs while it thinks; the person's waits for version 5
    presence.seen()
    presence.thinking = True
    presence.wait_for_version = 5
    presence.sync()
    assert on_clock(table) == ("white", None)
    now.advance(2.5)
    assert presence.due() is None  # a computer's clock does not need a page
    now.advance(20.0)  # no page heard from for 22.5 s: the computer's clock still runs
    assert presence.due() is None
    assert remaining(table)["white"] == pytest.approx(37.5)
    table.play_computer(limit=1)
    presence.thinking = False
    assert presence.due() is None
    presence.sync()
    assert on_clock(table) == (None, "black")  # the page has not shown the turn yet
    assert remaining(table)["white"] == pytest.approx(37.5)
    now.advance(3.0)
    for shown in (None, 4):  # a heartbeat, then an older version drawn: still waiting
        assert presence.due() is None
        presence.seen("tab", shown)
        presence.sync()
        assert on_clock(table) == (None, "black") and presence.wait_for_version == 5
    assert remaining(table)["black"] == 60.0
    presence.seen("tab", shown=5)  # the page has played the turn back
    presence.sync()
    assert on_clock(table) == ("black", None) and presence.wait_for_version is None
    now.advance(4.0)
    assert request(presence) is None and remaining(table)["black"] == 56.0


def test_acting_ends_the_wait_for_the_computers_turn_to_be_shown() -> None:
    table, presence, now = computer_against_person()
    presence.thinking = True
    presence.wait_for_version = 9
    presence.sync()
    table.play_computer(limit=1)
    presence.thinking = False
    presence.sync()
    assert on_clock(table) == (None, "black")
    now.advance(5.0)
    presence.acted("tab")  # a person acted: the page is there and has seen the turn
    presence.sync()
    assert presence.wait_for_version is None and on_clock(table) == ("black", None)
    now.advance(1.0)
    assert remaining(table)["black"] == 59.0


def test_the_computer_runs_out_of_time_only_while_it_thinks() -> None:
    table, presence, now = computer_against_person(reserve=10.0)
    now.advance(100.0)  # not thinking: nothing charged, nothing falls
    assert presence.due() is None and remaining(table)["white"] == 10.0
    presence.thinking = True
    presence.sync()
    now.advance(12.0)
    assert presence.due() == "white"
    assert remaining(table)["white"] == 0.0
    assert table.view()["outcome"] == {"winner": "black", "reason": "time", "points": 1}


def test_the_clock_view_adds_paused_the_heartbeat_and_the_warning() -> None:
    _, presence, now = people_at_checkers()
    now.advance(1.23456)
    assert presence.clock_view() == {
        "control": "t",
        "reserve": 60.0,
        "increment": 0.0,
        "remaining": {"white": 58.765, "black": 60.0},
        "running": "white",
        "paused": None,
        "heartbeat": HEARTBEAT_SECONDS,
        "warning": WARNING_SECONDS,
    }
    now.advance(30.0)
    presence.due()
    view = presence.clock_view()
    assert view is not None and view["running"] is None and view["paused"] == "white"
    assert view["remaining"] == {"white": 50.0, "black": 60.0}
    untimed = Table(CHECKERS)
    nobody = Presence(untimed, now)
    assert nobody.clock_view() is None and nobody.due() is None
    nobody.seen()
    nobody.sync()


def test_a_new_game_of_a_backgammon_match_is_followed_on_its_fresh_clock() -> None:
    now = FakeNow()
    table = Table(BACKGAMMON, {"length": 3}, seed=9, time_control=TimeControl("t", 30.0, 0.0),
                  now=now)  # fmt: skip
    presence = Presence(table, now)
    presence.acted("tab")
    table.act("white", {"type": "roll"})  # the opening roll: the clock starts at once
    presence.sync()
    loser = mover = table.view()["to_act"][0]
    first = table.clock
    assert first is not None and first.running == mover
    for _ in range(5):  # 25 s of heartbeats
        now.advance(HEARTBEAT_SECONDS)
        assert request(presence) is None
    assert remaining(table)[mover] == 5.0
    now.advance(7.0)  # heard from 7 s ago: the flag fell within the grace
    assert presence.due() == mover  # the first game lost on time, the match goes on
    assert first.remaining(mover) == 0.0 and table.game.outcome() is None
    presence.acted("tab")
    table.act(mover, {"type": "next_game"})
    presence.sync()
    second = table.clock
    assert second is not None and second is not first
    table.act("white", {"type": "roll"})
    presence.sync()
    mover = table.view()["to_act"][0]
    assert on_clock(table) == (mover, None)
    now.advance(4.0)
    assert request(presence) is None and remaining(table)[mover] == 26.0
    now.advance(60.0)  # the page goes quiet: the new clock is charged the grace and paused
    assert presence.due() is None
    assert on_clock(table) == (None, mover) and remaining(table)[mover] == 16.0
    view = presence.clock_view()
    assert view is not None and view["paused"] == mover and view["remaining"][mover] == 16.0
    assert first.remaining(loser) == 0.0  # the old clock is left alone
