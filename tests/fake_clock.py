"""The tests' one fake clock.

``FakeNow`` stands wherever the code takes a ``now`` callable (the monotonic clock of the turn
clocks and rooms, or a wall clock): the test reads and sets ``t``, or moves it with
:meth:`FakeNow.advance`; with ``tick`` it also moves forward by itself on every read, for code
that must see time pass between two calls.
"""

from __future__ import annotations


class FakeNow:
    """A clock the test sets and moves by hand (seconds)."""

    def __init__(self, t: float = 1000.0, *, tick: float = 0.0) -> None:
        self.t = t
        self.tick = tick

    def __call__(self) -> float:
        self.t += self.tick
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds
