"""Game clocks: a reserve per player plus a Fischer increment after each completed turn.

Time is charged from timestamps when a turn ends (or the clock is paused), never by counting
ticks: a throttled browser timer or a laptop asleep affects only what is displayed, and the time
charged is the real time elapsed, once. ``now`` is injected (seconds, monotonic) so tests run on
a fake clock.

The two sides are ``"white"`` and ``"black"`` (every game this table plays has those two); a
game package may subclass :class:`Clock` to key it by its own colour type (``parse`` turns
any accepted spelling into a side, ``error`` is the exception raised).

Time controls (reserve + increment per completed turn, in seconds) suit short turns and games
of some tens of turns a side (backgammon, checkers); the Fischer increment (Bobby Fischer's
1988 patent, used by chess and by online game servers) keeps a player who moves briskly from
ever running out:

========  =======  =========
control   reserve  increment
========  =======  =========
bullet    1 min    2 s
blitz     3 min    4 s
rapid     10 min   8 s
========  =======  =========
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Generic, Self, TypeVar

from gametable.errors import ClockError

S = TypeVar("S", bound=Hashable)


@dataclass(frozen=True)
class TimeControl:
    """A reserve per player and a Fischer increment, both in seconds."""

    name: str
    reserve: float
    increment: float

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "reserve", "increment"}``."""
        return {"name": self.name, "reserve": self.reserve, "increment": self.increment}


#: The named time controls; "none" means no clock.
TIME_CONTROLS: dict[str, TimeControl | None] = {
    "none": None,
    "bullet": TimeControl("bullet", 60.0, 2.0),
    "blitz": TimeControl("blitz", 180.0, 4.0),
    "rapid": TimeControl("rapid", 600.0, 8.0),
}


#: Environment variable that overrides the time controls' values, for tests only:
#: ``"bullet=3+1,blitz=20+2"`` (name = reserve + increment, in seconds).
TEST_CONTROLS_ENV: Final = "BACKGAMMON_TEST_TIME_CONTROLS"

_SECONDS = r"([0-9]+(?:\.[0-9]+)?)"
_CONTROL_SPEC = re.compile(rf"^\s*(\w+)\s*=\s*{_SECONDS}\s*\+\s*{_SECONDS}\s*$")


def controls_from_env(environ: Mapping[str, str] | None = None) -> dict[str, TimeControl | None]:
    """The time controls a server offers: :data:`TIME_CONTROLS`, with the values named in
    ``$BACKGAMMON_TEST_TIME_CONTROLS`` (tests only) put in their place.

    Args:
        environ: the environment to read (default ``os.environ``).

    Returns:
        ``{"none": None, "bullet": TimeControl(...), ...}``: the same names, always.

    Raises:
        ClockError: a malformed entry or an unknown name, quoted.
    """
    env = os.environ if environ is None else environ
    controls = dict(TIME_CONTROLS)
    spec = env.get(TEST_CONTROLS_ENV, "").strip()
    if not spec:
        return controls
    for part in spec.split(","):
        found = _CONTROL_SPEC.match(part)
        if found is None:
            raise ClockError(f"{TEST_CONTROLS_ENV}: {part!r} is not NAME=RESERVE+INCREMENT "
                             f"(seconds), e.g. 'bullet=3+1'")
        name = found.group(1).lower()
        if controls.get(name) is None:
            timed = ", ".join(k for k, v in TIME_CONTROLS.items() if v is not None)
            raise ClockError(f"{TEST_CONTROLS_ENV}: unknown time control {name!r} "
                             f"(expected one of {timed})")
        reserve, increment = float(found.group(2)), float(found.group(3))
        if reserve <= 0:
            raise ClockError(f"{TEST_CONTROLS_ENV}: {name}'s reserve must be > 0 s")
        controls[name] = TimeControl(name, reserve, increment)
    return controls


def time_control(name: str) -> TimeControl | None:
    """The time control called ``name`` (``"none"``, ``"bullet"``, ``"blitz"``, ``"rapid"``).

    Raises:
        ClockError: an unknown name, quoted with the known ones.
    """
    key = str(name).strip().lower()
    if key not in TIME_CONTROLS:
        raise ClockError(f"unknown time control {name!r}: choose one of {', '.join(TIME_CONTROLS)}")
    return TIME_CONTROLS[key]


def _side_name(value: object) -> str:
    """``"white"`` or ``"black"`` from any spelling of them (any case, ``w``/``b``).

    Raises:
        ValueError: for anything else, quoted.
    """
    key = str(value).strip().lower()
    if key in ("white", "w"):
        return "white"
    if key in ("black", "b"):
        return "black"
    raise ValueError(f"{value!r} is not a side: white or black")


class Clock(Generic[S]):
    """Two players' remaining time; at most one side's clock runs at a time.

    Args:
        control: the reserve and increment.
        now: a monotonic clock in seconds (default :func:`time.monotonic`).
        remaining: optional starting ``{side: seconds}``, e.g. from a saved game.

    Class attributes a game's subclass may set: ``sides`` (white's then black's key),
    ``parse`` (any accepted spelling to a key; raises ValueError) and ``error`` (the
    :class:`~gametable.errors.ClockError` subclass raised).
    """

    sides: ClassVar[tuple[Any, Any]] = ("white", "black")
    parse: ClassVar[Callable[[Any], Any]] = staticmethod(_side_name)
    error: ClassVar[type[ClockError]] = ClockError

    def __init__(
        self,
        control: TimeControl,
        now: Callable[[], float] = time.monotonic,
        remaining: Mapping[Any, float] | None = None,
    ) -> None:
        self.control = control
        self._now = now
        self._remaining: dict[S, float] = {side: float(control.reserve) for side in self.sides}
        if remaining is not None:
            for color, seconds in remaining.items():
                self._remaining[type(self).parse(color)] = float(seconds)
        self._running: S | None = None
        self._paused: S | None = None
        self._started_at = 0.0
        self._turn_spent = 0.0  # charged so far in the current turn (before a pause)

    @property
    def running(self) -> S | None:
        """The side whose clock runs now, or None."""
        return self._running

    @property
    def paused(self) -> S | None:
        """The side whose turn is paused (no page open), or None."""
        return self._paused

    def remaining(self, color: object) -> float:
        """Seconds left to ``color`` as of now (may be negative once flagged)."""
        side: S = type(self).parse(color)
        left = self._remaining[side]
        if self._running is side:
            left -= self._now() - self._started_at
        return left

    def flagged(self, color: object) -> bool:
        """True when ``color`` has no time left (exactly zero counts as flagged)."""
        return self.remaining(color) <= 0

    def turn_used(self, at: float | None = None) -> float:
        """Seconds the current turn has used so far: what ran before any pause plus the running
        stretch up to ``at`` (default now; clamped to the stretch). 0 when no turn is on the
        clock."""
        used = self._turn_spent
        if self._running is not None:
            used += self._until(at) - self._started_at
        return used

    def deadline(self) -> float | None:
        """The ``now()`` reading at which the running side's time runs out (already past when
        it has flagged), or None when no clock runs."""
        side = self._running
        if side is None:
            return None
        return self._started_at + self._remaining[side]

    def _until(self, at: float | None) -> float:
        """``at`` (a ``now()`` reading) clamped to the running stretch; now when None."""
        current = self._now()
        if at is None:
            return current
        return min(max(float(at), self._started_at), current)

    def start(self, color: object) -> None:
        """Start ``color``'s turn now.

        Raises:
            ClockError: a clock is already running or paused.
        """
        side: S = type(self).parse(color)
        if self._running is not None or self._paused is not None:
            raise self.error(f"cannot start {side}'s clock: a turn is already on the clock")
        self._running = side
        self._started_at = self._now()
        self._turn_spent = 0.0

    def stop(self, *, increment: bool = True, at: float | None = None) -> float:
        """End the running turn: charge the time it used, add the increment.

        Args:
            increment: False for a turn that ended without being completed (a timeout, a
                resignation), which earns no increment.
            at: charge only up to this ``now()`` reading (e.g. the instant the time ran out),
                clamped to the running stretch; default now.

        Returns:
            Seconds the turn used.

        Raises:
            ClockError: no turn is on the clock.
        """
        if self._paused is not None:
            self.resume()
        side = self._running
        if side is None:
            raise self.error("no clock is running")
        end = self._until(at)
        used = self.turn_used(end)
        self._remaining[side] -= end - self._started_at
        if increment and self._remaining[side] > 0:
            self._remaining[side] += self.control.increment
        self._running = None
        self._turn_spent = 0.0
        return used

    def charge(self, color: object, seconds: float) -> None:
        """Take ``seconds`` (>= 0) off ``color``'s reserve without touching the running turn:
        time a side spent answering inside another's turn or in the opening (online play
        times those waits itself, since both sides may be awaited at once).

        Raises:
            ClockError: ``seconds`` is negative or not finite.
        """
        value = float(seconds)
        if not 0 <= value < float("inf"):
            raise self.error(f"seconds to charge must be a number >= 0, got {seconds!r}")
        side: S = type(self).parse(color)
        self._remaining[side] -= value

    def credit(self, color: object, seconds: float) -> None:
        """Give ``seconds`` (>= 0) back to ``color``'s reserve: time its clock ran while the
        game could not go on through nobody's fault (online play: the room store was out of
        reach, so every action was refused). The running turn goes on; its deadline moves
        ``seconds`` later.

        Raises:
            ClockError: ``seconds`` is negative or not finite.
        """
        value = float(seconds)
        if not 0 <= value < float("inf"):
            raise self.error(f"seconds to credit must be a number >= 0, got {seconds!r}")
        side: S = type(self).parse(color)
        self._remaining[side] += value

    def cancel(self) -> None:
        """Take the running turn off the clock without charging it (a forced pass): time the
        turn was charged before a pause is given back too."""
        side = self._running or self._paused
        if side is not None:
            self._remaining[side] += self._turn_spent
        self._running = None
        self._paused = None
        self._turn_spent = 0.0

    def pause(self, at: float | None = None) -> None:
        """Stop the running clock, charging the time so far (nobody is watching the game).

        Args:
            at: charge only up to this ``now()`` reading (e.g. when the last page was last
                heard from), clamped to the running stretch; default now.
        """
        side = self._running
        if side is None:
            return
        elapsed = self._until(at) - self._started_at
        self._remaining[side] -= elapsed
        self._turn_spent += elapsed
        self._running = None
        self._paused = side

    def resume(self) -> None:
        """Restart a paused turn's clock from now."""
        side = self._paused
        if side is None:
            return
        self._paused = None
        self._running = side
        self._started_at = self._now()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready snapshot; a running clock is saved as paused at this instant."""
        running = self._running if self._running is not None else self._paused
        white, black = self.sides
        return {
            "control": self.control.to_dict(),
            "remaining": {"white": self.remaining(white), "black": self.remaining(black)},
            "turn": _side_name(running) if running is not None else None,
            "turn_used": self.turn_used(),
        }

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], now: Callable[[], float] = time.monotonic
    ) -> Self:
        """Rebuild a clock saved by :meth:`to_dict`; a turn in progress comes back paused.

        Raises:
            ClockError: a malformed snapshot, naming the field.
        """
        try:
            control_data = data["control"]
            control = TimeControl(
                str(control_data["name"]),
                float(control_data["reserve"]),
                float(control_data["increment"]),
            )
            white, black = cls.sides
            remaining = {
                white: float(data["remaining"]["white"]),
                black: float(data["remaining"]["black"]),
            }
            turn = data.get("turn")
            turn_used = float(data.get("turn_used", 0.0))
        except (KeyError, TypeError, ValueError) as exc:
            raise cls.error(f"malformed saved clock: {exc!r}") from None
        clock = cls(control, now, remaining)
        if turn is not None:
            try:
                clock._paused = cls.parse(turn)
            except ValueError:
                raise cls.error(f"malformed saved clock: turn {turn!r}") from None
            clock._turn_spent = turn_used
        return clock


__all__ = [
    "TEST_CONTROLS_ENV",
    "TIME_CONTROLS",
    "Clock",
    "ClockError",
    "TimeControl",
    "controls_from_env",
    "time_control",
]
