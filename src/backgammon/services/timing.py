"""The clock of a local game (vs the computer, or pass & play): who is on the clock, whether a
page is watching, and the seconds each action took, for the log.

:class:`GameTimer` wraps one game's :class:`~backgammon.services.clock.Clock`. The game service
(:mod:`backgammon.services.session`) calls it around every request; the engine's actions get the
seconds it measures (each event's ``"seconds"``), and the clock is saved with the game.

Who is on the clock (the same rules as online play at the table's doors, :mod:`gametable.table`):

* Nothing runs before the opening roll. From the opening roll on, the clock of the side that
  must act runs: the player on roll from the start of its turn (its cube decision included)
  until its play ends the turn; the doubled player while it decides to take or drop; the
  resigning player's opponent while it decides. Only a completed turn (a play, or a forced
  pass) earns the Fischer increment; the time before a roll that must pass is charged, never
  given back (the same rule as online).
* The computer's clock runs only while the service computes its decisions (its real thinking
  time, well under the increment at every level). The person's clock after the computer's turn
  starts only when a page has *shown* that turn (the page plays it back checker by checker):
  the playback is nobody's time.
* Running out loses the game (:meth:`~backgammon.core.game.Game.timeout`), charged exactly up
  to the instant the time reached zero. It is noticed on the next request about the game: an
  action (refused: the game is over), a read of the state, or the page's clock check, which
  the page sends by itself when its display reaches zero.

Presence (the clock does not run while no page has the game open): every request about a game
marks it as watched. The page also sends a heartbeat (``POST /api/games/{id}/clock``) every
:data:`HEARTBEAT_SECONDS` while it is open, and a "leave" beacon (``navigator.sendBeacon``) on
``pagehide``. A person's clock runs only while some page was heard from within
:data:`PRESENCE_SECONDS`; when the last page has gone quiet the clock is charged up to
:data:`PRESENCE_SECONDS` after it was last heard from (after a "leave": up to that moment) and
paused; the next request resumes it. A sleeping laptop or a throttled tab therefore costs at
most that grace, once; nothing is counted by ticks. The pages are kept in memory only: after a
server restart the clock comes back paused, with the remaining times saved, until a page asks.
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from backgammon.core.game import Game, Phase
from backgammon.core.types import BLACK, WHITE, Color
from backgammon.services.clock import TIME_CONTROLS, Clock, ClockError, TimeControl
from backgammon.services.state import ClockJSON, ColorName

#: Seconds between the page's heartbeats while it is open.
HEARTBEAT_SECONDS: Final = 5.0
#: A page not heard from for this many seconds has gone (two heartbeats missed); the clock is
#: charged up to then and paused.
PRESENCE_SECONDS: Final = 10.0
#: The page shows a clock with less than this many seconds left in the warning colour.
WARNING_SECONDS: Final = 10.0
#: The page id of requests that do not name one (reads, actions, scripts).
ANONYMOUS_PAGE: Final = ""
#: Environment variable that overrides the time controls' values, for tests only:
#: ``"bullet=3+1,blitz=20+2"`` (name = reserve + increment, in seconds).
TEST_CONTROLS_ENV: Final = "BACKGAMMON_TEST_TIME_CONTROLS"

_SECONDS = r"([0-9]+(?:\.[0-9]+)?)"
_CONTROL_SPEC = re.compile(rf"^\s*(\w+)\s*=\s*{_SECONDS}\s*\+\s*{_SECONDS}\s*$")


def controls_from_env(environ: Mapping[str, str] | None = None) -> dict[str, TimeControl | None]:
    """The time controls a server offers: :data:`~backgammon.services.clock.TIME_CONTROLS`, with
    the values named in ``$BACKGAMMON_TEST_TIME_CONTROLS`` (tests only) put in their place.

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


def _name(color: Color) -> ColorName:
    return "white" if color is WHITE else "black"


class GameTimer:
    """One game's clock in a local session, with the pages watching it.

    Args:
        control: the time control (reserve and increment, seconds).
        now: monotonic seconds (injected; the service's).
        computer: the side the computer plays (None in pass & play).
        game_number: which game of the session this clock belongs to (1, 2, ...).
        clock: a clock restored from a saved game (default: a new one, nobody on it).
        lap_start: with ``clock``, the seconds of the current turn already given to events.

    Not thread-safe by itself: the service calls it under the session's lock.
    """

    def __init__(
        self,
        control: TimeControl,
        now: Callable[[], float] = time.monotonic,
        *,
        computer: Color | None = None,
        game_number: int = 1,
        clock: Clock | None = None,
        lap_start: float = 0.0,
    ) -> None:
        self.clock = clock if clock is not None else Clock(control, now)
        self.control = self.clock.control
        self.computer = computer
        self.game_number = game_number
        self._now = now
        #: page id -> when it was last heard from (``now()`` seconds).
        self.pages: dict[str, float] = {}
        #: After the computer's turn: the state version a page must report having shown before
        #: the person's clock starts; None when not waiting.
        self.wait_for_version: int | None = None
        #: True while the service computes the computer's decisions.
        self.thinking = False
        self._lap_start = lap_start

    # ------------------------------------------------------------------------------------
    # Presence

    def seen(self, page: str = ANONYMOUS_PAGE, shown: int | None = None) -> None:
        """A request about the game came from ``page``; ``shown`` is the state version that
        page reports having drawn (it ends the wait after the computer's turn)."""
        self.pages[page] = self._now()
        waiting = self.wait_for_version
        if shown is not None and waiting is not None and shown >= waiting:
            self.wait_for_version = None

    def acted(self, page: str = ANONYMOUS_PAGE) -> None:
        """A person acted on the game: a page is there and has seen the turn."""
        self.seen(page)
        self.wait_for_version = None

    def left(self, page: str) -> None:
        """``page`` went away (its ``pagehide`` beacon): forget it and the unnamed requests."""
        self.pages.pop(page, None)
        self.pages.pop(ANONYMOUS_PAGE, None)

    def _last_seen(self) -> float | None:
        return max(self.pages.values(), default=None)

    def _watched_until(self, now: float) -> float:
        """Until when (a ``now()`` reading, at most ``now``) a page has been watching."""
        last = self._last_seen()
        if last is None:
            return -math.inf
        return min(now, last + PRESENCE_SECONDS)

    def _may_run(self, side: Color) -> bool:
        if side is self.computer:
            return self.thinking
        now = self._now()
        return self.wait_for_version is None and self._watched_until(now) >= now

    # ------------------------------------------------------------------------------------
    # Charging

    def due(self) -> tuple[Color, float] | None:
        """Bring the clock up to now: pause a person's clock that no page has watched since
        :data:`PRESENCE_SECONDS` ago (charged up to then), and report a side out of time.

        Returns:
            ``(side, deadline)`` when the running side's time ran out (``deadline``, the
            ``now()`` reading when it reached zero, is within the watched time); the caller
            records the timeout with :meth:`flag`. None otherwise.
        """
        clock = self.clock
        side = clock.running
        if side is None:
            return None
        now = self._now()
        end = now if side is self.computer else self._watched_until(now)
        deadline = clock.deadline()
        assert deadline is not None
        if deadline <= end:
            return side, deadline
        if end < now:
            clock.pause(at=end)
        return None

    def flag(self, game: Game, side: Color, deadline: float) -> None:
        """Record that ``side`` ran out of time at ``deadline``: the timeout event (its seconds
        the last stretch up to zero) and the clock stopped there, at exactly 0 left.

        Raises:
            IllegalActionError: the game is already over (from the engine).
        """
        seconds = round(max(0.0, self.clock.turn_used(deadline) - self._lap_start), 3)
        game.timeout(side, seconds=seconds)
        self.clock.stop(increment=False, at=deadline)
        self._lap_start = 0.0

    def lap(self, side: Color | None) -> float | None:
        """Seconds ``side`` has used on the clock since its previous event this turn (ms
        precision): what its next event records. None when its clock is not on."""
        clock = self.clock
        if side is None or (clock.running or clock.paused) is not side:
            return None
        return round(max(0.0, clock.turn_used() - self._lap_start), 3)

    def hand_over(self, game: Game, events: Iterable[dict[str, Any]]) -> None:
        """After ``events`` were added to ``game``'s log: end, give back or continue the
        running turn, then start the clock of the side that must act now (paused unless it
        may run: see :meth:`sync`)."""
        clock = self.clock
        for event in events:
            kind = event["type"]
            on = clock.running or clock.paused
            if kind == "roll":
                self._lap_start = clock.turn_used()  # the turn goes on: moves come next
                continue
            if on is None or kind == "opening_roll":
                continue
            if kind in ("pass", "play"):
                # A forced pass is a completed turn (as online): the time before its roll is
                # charged and earns the increment, never given back.
                clock.stop(increment=True)
            else:  # cube actions, resignations and their answers: no increment
                clock.stop(increment=False)
            self._lap_start = 0.0
        actor = game.turn
        if (not game.is_over and game.phase is not Phase.OPENING and actor is not None
                and clock.running is None and clock.paused is None):
            clock.start(actor)
            self._lap_start = 0.0
        self.sync()

    def sync(self) -> None:
        """Run the clock of the side on it when it may run (a person: a page is watching and
        has shown the turn; the computer: while it thinks), else hold it paused."""
        clock = self.clock
        side = clock.running or clock.paused
        if side is None:
            return
        may = self._may_run(side)
        if may and clock.paused is not None:
            clock.resume()
        elif not may and clock.running is not None:
            clock.pause()

    # ------------------------------------------------------------------------------------
    # Saving and showing

    def snapshot(self) -> dict[str, Any]:
        """What the saved game keeps: ``{"game": n, "clock": Clock.to_dict(), "lap_start": s}``
        (a running clock is saved as paused at this instant)."""
        return {"game": self.game_number, "clock": self.clock.to_dict(),
                "lap_start": self._lap_start}

    @classmethod
    def restore(
        cls,
        data: object,
        now: Callable[[], float],
        *,
        computer: Color | None,
        game: Game,
        game_number: int,
    ) -> GameTimer:
        """The timer of a saved game: paused, the remaining times as saved.

        Raises:
            ClockError: a malformed snapshot, one of another game of the session, or one whose
                side on the clock is not the side to act in ``game``; the message says which.
        """
        if not isinstance(data, dict):
            raise ClockError(f"the saved clock is {type(data).__name__}, not an object")
        if data.get("game") != game_number:
            raise ClockError(f"the saved clock belongs to game {data.get('game')!r}, "
                             f"not game {game_number}")
        lap_start = data.get("lap_start", 0.0)
        if isinstance(lap_start, bool) or not isinstance(lap_start, int | float) or not (
            0 <= lap_start < math.inf
        ):
            raise ClockError(f"malformed saved clock: lap_start {lap_start!r}")
        saved = data.get("clock")
        if not isinstance(saved, dict):
            raise ClockError(f"malformed saved clock: {saved!r} is not an object")
        clock = Clock.from_dict(saved, now)
        on = clock.paused
        expected = None if game.is_over or game.phase is Phase.OPENING else game.turn
        if on is not expected:
            raise ClockError(f"the saved clock runs for {on or 'nobody'}, but "
                             f"{expected or 'nobody'} is to act")
        return cls(clock.control, now, computer=computer, game_number=game_number,
                   clock=clock, lap_start=float(lap_start))

    def to_json(self) -> ClockJSON:
        """The clock as the page shows it (remaining times as of now, never below 0)."""
        clock = self.clock
        running, paused = clock.running, clock.paused
        return {
            "control": self.control.name,
            "reserve": self.control.reserve,
            "increment": self.control.increment,
            "remaining": {_name(c): round(max(0.0, clock.remaining(c)), 3)
                          for c in (WHITE, BLACK)},
            "running": _name(running) if running is not None else None,
            "paused": _name(paused) if paused is not None else None,
            "heartbeat": HEARTBEAT_SECONDS,
            "warning": WARNING_SECONDS,
        }


def new_timer(
    controls: Mapping[str, TimeControl | None],
    name: str,
    now: Callable[[], float],
    *,
    computer: Color | None,
    game_number: int,
) -> GameTimer | None:
    """A fresh timer for time control ``name`` of ``controls``; None for ``"none"``.

    Raises:
        ClockError: ``name`` is not one of ``controls``.
    """
    if name not in controls:
        raise ClockError(f"unknown time control {name!r}: choose one of {', '.join(controls)}")
    control = controls[name]
    if control is None:
        return None
    return GameTimer(control, now, computer=computer, game_number=game_number)


__all__ = [
    "ANONYMOUS_PAGE",
    "HEARTBEAT_SECONDS",
    "PRESENCE_SECONDS",
    "TEST_CONTROLS_ENV",
    "WARNING_SECONDS",
    "GameTimer",
    "controls_from_env",
    "new_timer",
]
