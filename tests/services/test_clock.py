"""The game clock on a fake ``now()``: charging, increments, passes, timeouts, pauses."""

from __future__ import annotations

import pytest

from backgammon import BLACK, WHITE
from backgammon.services.clock import TIME_CONTROLS, Clock, ClockError, TimeControl, time_control
from fake_clock import FakeNow

BULLET = TimeControl("bullet", 60.0, 2.0)


def test_named_controls() -> None:
    assert time_control("Blitz") == TimeControl("blitz", 180.0, 4.0)
    assert time_control("none") is None
    assert TIME_CONTROLS["rapid"] == TimeControl("rapid", 600.0, 8.0)
    with pytest.raises(ClockError, match="unknown time control 'classical'"):
        time_control("classical")


def test_a_turn_is_charged_and_earns_the_increment() -> None:
    now = FakeNow()
    clock = Clock(BULLET, now)
    clock.start(WHITE)
    now.advance(7.5)
    assert clock.remaining(WHITE) == 52.5
    assert clock.remaining(BLACK) == 60.0
    assert clock.stop() == 7.5
    assert clock.remaining(WHITE) == 54.5
    assert clock.running is None


def test_nothing_runs_before_the_first_start() -> None:
    now = FakeNow()
    clock = Clock(BULLET, now)
    now.advance(500)
    assert clock.remaining(WHITE) == clock.remaining(BLACK) == 60.0


def test_a_forced_pass_costs_nothing() -> None:
    now = FakeNow()
    clock = Clock(BULLET, now)
    clock.start(BLACK)
    now.advance(3)
    clock.cancel()
    assert clock.remaining(BLACK) == 60.0


def test_timeout_exactly_at_zero() -> None:
    now = FakeNow()
    clock = Clock(BULLET, now)
    clock.start(WHITE)
    now.advance(59.999)
    assert not clock.flagged(WHITE)
    now.advance(0.001)
    assert clock.remaining(WHITE) == pytest.approx(0.0)
    now.t = 1060.0
    assert clock.flagged(WHITE)
    clock.stop()
    assert clock.remaining(WHITE) == 0.0  # no increment once flagged


def test_a_long_sleep_between_reads_charges_the_real_time_once() -> None:
    now = FakeNow()
    clock = Clock(TimeControl("rapid", 600.0, 8.0), now)
    clock.start(WHITE)
    now.advance(1)
    assert clock.remaining(WHITE) == 599
    now.advance(3600)  # the laptop slept
    assert clock.remaining(WHITE) == 600 - 3601
    assert clock.remaining(WHITE) == 600 - 3601  # reading twice charges nothing more
    assert clock.stop() == 3601
    assert clock.remaining(WHITE) == 600 - 3601  # flagged: no increment


def test_pause_and_resume_charge_only_watched_time() -> None:
    now = FakeNow()
    clock = Clock(BULLET, now)
    clock.start(BLACK)
    now.advance(10)
    clock.pause()
    assert clock.paused is BLACK and clock.running is None
    now.advance(1000)  # nobody has the game open
    assert clock.remaining(BLACK) == 50
    clock.resume()
    now.advance(5)
    assert clock.stop() == 15
    assert clock.remaining(BLACK) == 60 - 15 + 2


def test_save_and_restore_keeps_remaining_times() -> None:
    now = FakeNow()
    clock = Clock(BULLET, now)
    clock.start(WHITE)
    now.advance(4)
    clock.stop()
    clock.start(BLACK)
    now.advance(6)
    saved = clock.to_dict()
    assert saved["remaining"] == {"white": 58.0, "black": 54.0}
    now.advance(120)  # the server was down
    again = Clock.from_dict(saved, now)
    assert again.paused is BLACK
    assert again.remaining(BLACK) == 54.0
    again.resume()
    now.advance(1)
    assert again.stop() == 7.0
    assert again.remaining(BLACK) == 55.0


def test_bad_transitions_and_snapshots_are_refused() -> None:
    clock = Clock(BULLET, FakeNow())
    with pytest.raises(ClockError, match="no clock is running"):
        clock.stop()
    clock.start(WHITE)
    with pytest.raises(ClockError, match="already on the clock"):
        clock.start(BLACK)
    with pytest.raises(ClockError, match="malformed saved clock"):
        Clock.from_dict({"control": {"name": "x"}})
    with pytest.raises(ClockError, match="turn 'red'"):
        Clock.from_dict(
            {
                "control": BULLET.to_dict(),
                "remaining": {"white": 1, "black": 1},
                "turn": "red",
            }
        )


def test_pause_and_stop_at_an_earlier_instant_and_the_deadline() -> None:
    now = FakeNow()
    clock = Clock(BULLET, now)
    assert clock.deadline() is None
    clock.start(WHITE)
    assert clock.deadline() == 1060.0
    now.advance(30)
    clock.pause(at=1012.0)  # the last page was heard from at 1012
    assert clock.remaining(WHITE) == 48.0
    clock.resume()
    assert clock.deadline() == 1030.0 + 48.0
    now.advance(100)  # acted long after the time ran out
    assert clock.turn_used(at=1078.0) == 60.0
    assert clock.stop(increment=False, at=clock.deadline()) == 60.0
    assert clock.remaining(WHITE) == 0.0


def test_an_instant_outside_the_stretch_is_clamped() -> None:
    now = FakeNow()
    clock = Clock(BULLET, now)
    clock.start(BLACK)
    now.advance(5)
    clock.pause(at=float("-inf"))  # nobody was watching at all: nothing is charged
    assert clock.remaining(BLACK) == 60.0
    clock.resume()
    now.advance(5)
    assert clock.stop(at=now.t + 100) == 5.0  # never beyond now
    assert clock.remaining(BLACK) == 57.0


def test_a_forced_pass_after_a_pause_gives_back_the_whole_turn() -> None:
    now = FakeNow()
    clock = Clock(BULLET, now)
    clock.start(WHITE)
    now.advance(4)
    clock.pause()
    now.advance(50)
    clock.resume()
    now.advance(3)
    clock.cancel()
    assert clock.remaining(WHITE) == 60.0
    restored = Clock.from_dict({**Clock(BULLET, now).to_dict(), "turn": "black",
                                "turn_used": 6.0, "remaining": {"white": 60, "black": 54}},
                               now)
    restored.cancel()
    assert restored.remaining(BLACK) == 60.0
