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


def test_one_client_holds_a_small_share_of_the_slots() -> None:
    """By default a client holds at most a quarter of the slots (one of four), so that it
    keeps no other client's hints at busy (its own wait behind each other, a while); the
    server's own callers (no client) only count in the total."""
    slots = EvaluationSlots(4, wait=0.1)  # (its own second waits 0.1 s, then is refused)
    assert slots.per_client == 1
    mine = pytest.raises(EvaluatorBusyError, match="you have 1 evaluation running already")
    with slots.slot("10.0.0.1"):
        with mine, slots.slot("10.0.0.1"):
            pass
        # the other slots are other clients' to take; then none is left
        busy = pytest.raises(EvaluatorBusyError, match="busy with 4 other")
        with slots.slot("10.0.0.2"), slots.slot("10.0.0.3"), slots.slot("10.0.0.4"), busy, \
                slots.slot("10.0.0.5"):
            pass
    with slots.slot("10.0.0.1"):
        pass  # its slot came back, the refused one too
    assert slots._held == {}
    assert EvaluationSlots(8).per_client == 2 and EvaluationSlots(1).per_client == 1
    with pytest.raises(ValueError, match="per_client must be from 1 to 4, got 5"):
        EvaluationSlots(4, per_client=5)


def test_a_computer_turn_waits_its_clients_turn_and_a_crowd_of_them_is_refused() -> None:
    """The computer's turns take the same slots, per client, but wait for one (a game must go
    on) instead of being refused at once: a client's second waits for its first, one more
    waiting than ``waiting`` is refused at once, and a wait past ``wait`` seconds is
    refused."""
    import threading
    import time

    slots = EvaluationSlots(4, waiting=1, wait=5.0)
    first = slots.slot("10.0.0.1")
    first.__enter__()
    got: list[float] = []

    def second() -> None:
        started = time.monotonic()
        with slots.slot("10.0.0.1", wait=True):
            got.append(time.monotonic() - started)

    waiter = threading.Thread(target=second)
    waiter.start()
    deadline = time.monotonic() + 5
    while slots.waiting.get("10.0.0.1", 0) < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    with slots.slot("10.0.0.2", wait=True):  # another client is not held up
        pass
    crowd = pytest.raises(EvaluatorBusyError, match="you have 1 turn of the computer waiting "
                                                    "already: try again once it is played")
    with crowd, slots.slot("10.0.0.1", wait=True):
        pass
    time.sleep(0.2)
    first.__exit__(None, None, None)
    waiter.join(5)
    assert len(got) == 1 and 0.15 < got[0] < 5
    quick = EvaluationSlots(1, wait=0.2)
    late = pytest.raises(EvaluatorBusyError, match=r"the computer waited 0\.2 s for its turn "
                                                   "to think and is still busy")
    with quick.slot("10.0.0.1"), late, quick.slot("10.0.0.3", wait=True):
        pass
    assert quick._held == {} and quick.waiting == {} and slots._held == {}


def test_a_clients_own_hints_wait_behind_each_other() -> None:
    """A review frame asks for two evaluations at once: the second waits for the first (the
    client's share is one), it is not refused and asked again."""
    import threading
    import time

    slots = EvaluationSlots(4, wait=5.0)
    order: list[str] = []

    def hint(name: str, seconds: float) -> None:
        with slots.slot("10.0.0.1"):
            order.append(f"{name} in")
            time.sleep(seconds)
            order.append(f"{name} out")

    first = threading.Thread(target=hint, args=("first", 0.2))
    first.start()
    time.sleep(0.05)
    hint("second", 0.0)
    first.join(5)
    assert order == ["first in", "first out", "second in", "second out"]
