"""Backgammon's game clock: :class:`gametable.clock.Clock` keyed by backgammon's
:class:`~backgammon.core.types.Color`.

The clock itself (a reserve per player plus a Fischer increment after each completed turn,
charged from timestamps, never by counting ticks; the time controls bullet, blitz and rapid)
is the table's, shared by every game: see :mod:`gametable.clock`. This module keys it by
``WHITE``/``BLACK`` (any spelling :meth:`Color.parse` accepts) and raises a
:class:`ClockError` that is also a :class:`~backgammon.core.errors.BackgammonError`, so the
doors refuse a bad clock action as they refuse any other.
"""

from __future__ import annotations

from typing import Any, ClassVar

from backgammon.core.errors import BackgammonError
from backgammon.core.types import BLACK, WHITE, Color
from gametable import clock as _table_clock
from gametable.clock import TIME_CONTROLS, TimeControl


class ClockError(_table_clock.ClockError, BackgammonError):
    """A clock action that does not fit its state, or a malformed saved clock."""


class Clock(_table_clock.Clock[Color]):
    """Two players' remaining time, keyed by :class:`Color` (see :class:`gametable.clock.Clock`
    for every method)."""

    sides: ClassVar[tuple[Any, Any]] = (WHITE, BLACK)
    parse: ClassVar[Any] = staticmethod(Color.parse)
    error: ClassVar[type[_table_clock.ClockError]] = ClockError


def time_control(name: str) -> TimeControl | None:
    """The time control called ``name`` (``"none"``, ``"bullet"``, ``"blitz"``, ``"rapid"``).

    Raises:
        ClockError: an unknown name, quoted with the known ones.
    """
    try:
        return _table_clock.time_control(name)
    except _table_clock.ClockError as exc:
        raise ClockError(str(exc)) from None


__all__ = ["TIME_CONTROLS", "Clock", "ClockError", "TimeControl", "time_control"]
