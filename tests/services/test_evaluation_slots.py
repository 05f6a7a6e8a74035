"""The bound on the hints computed at once (``EvaluationSlots``): a request past it is refused
at once, a slot comes back when its block ends, also when the block raised."""

from __future__ import annotations

import pytest

from backgammon.services.analysis_jobs import EvaluationSlots, EvaluatorBusyError


def test_past_the_slots_a_request_is_refused_and_a_freed_slot_is_taken_again() -> None:
    slots = EvaluationSlots(2)
    busy = pytest.raises(EvaluatorBusyError, match="busy with 2 other evaluations")
    with slots.slot(), slots.slot(), busy, slots.slot():
        pass
    with pytest.raises(RuntimeError), slots.slot():
        raise RuntimeError("the evaluation failed")
    with slots.slot(), slots.slot():  # both came back, the failed one too
        pass


def test_at_least_one_slot() -> None:
    with pytest.raises(ValueError, match="at least 1, got 0"):
        EvaluationSlots(0)


def test_one_client_never_takes_every_slot() -> None:
    """By default a client holds at most one slot fewer than all, so another client can
    still be answered; the server's own callers (no client) only count in the total."""
    slots = EvaluationSlots(4)
    assert slots.per_client == 3
    mine = pytest.raises(EvaluatorBusyError, match="you have 3 evaluations running already")
    with slots.slot("10.0.0.1"), slots.slot("10.0.0.1"), slots.slot("10.0.0.1"):
        with mine, slots.slot("10.0.0.1"):
            pass
        # the last slot is another client's to take; then none is left
        busy = pytest.raises(EvaluatorBusyError, match="busy with 4 other")
        with slots.slot("10.0.0.2"), busy, slots.slot("10.0.0.3"):
            pass
    with slots.slot("10.0.0.1"), slots.slot("10.0.0.1"), slots.slot("10.0.0.1"):
        pass  # its slots came back, the refused one included
    assert slots._held == {}
    single = EvaluationSlots(1)
    assert single.per_client == 1
    with pytest.raises(ValueError, match="per_client must be from 1 to 4, got 5"):
        EvaluationSlots(4, per_client=5)
