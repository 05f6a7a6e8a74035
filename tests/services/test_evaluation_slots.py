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
