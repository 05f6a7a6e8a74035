"""The table's clock keyed by side names (backgammon's subclass is tested in
tests/services/test_clock.py)."""

from __future__ import annotations

import pytest

from gametable import Clock, ClockError, TimeControl, time_control


def test_a_clock_by_side_names() -> None:
    t = [0.0]
    clock: Clock[str] = Clock(TimeControl("t", 30.0, 1.0), lambda: t[0])
    clock.start("White")  # any case, or w / b
    t[0] = 4.0
    assert clock.running == "white" and clock.remaining("w") == 26.0
    assert clock.stop() == 4.0 and clock.remaining("white") == 27.0
    clock.start("b")
    t[0] = 40.0
    assert clock.flagged("black") and clock.deadline() == 34.0
    saved = clock.to_dict()
    assert saved["turn"] == "black" and saved["remaining"]["white"] == 27.0
    again: Clock[str] = Clock.from_dict(saved, lambda: 50.0)
    assert again.paused == "black" and again.remaining("black") == pytest.approx(-6.0)


def test_bad_sides_controls_and_snapshots_are_refused() -> None:
    clock: Clock[str] = Clock(TimeControl("t", 30.0, 1.0))
    with pytest.raises(ValueError, match="'red' is not a side"):
        clock.start("red")
    with pytest.raises(ClockError, match="no clock is running"):
        clock.stop()
    with pytest.raises(ClockError, match="unknown time control 'lightning'"):
        time_control("lightning")
    with pytest.raises(ClockError, match="turn 'red'"):
        Clock.from_dict({**clock.to_dict(), "turn": "red"})


def test_credit_gives_time_back_and_moves_the_deadline() -> None:
    t = [100.0]
    clock: Clock[str] = Clock(TimeControl("t", 60.0, 2.0), lambda: t[0])
    clock.start("white")
    t[0] = 130.0  # 30 s ran, 12 of them while the game could not go on
    clock.credit("w", 12.0)
    assert clock.remaining("white") == 42.0 and clock.deadline() == 172.0
    assert clock.running == "white"
    clock.credit("black", 0.0)
    assert clock.remaining("black") == 60.0
    assert clock.stop() == 30.0 and clock.remaining("white") == 44.0
    with pytest.raises(ClockError, match="seconds to credit must be a number >= 0, got -1"):
        clock.credit("white", -1)
    with pytest.raises(ClockError, match="got inf"):
        clock.credit("black", float("inf"))
