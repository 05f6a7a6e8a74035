"""Who watches a table at this server's own door, and the clock rules that follow from it.

A :class:`Presence` sits beside a :class:`~gametable.table.Table` whose seats are people at
this screen and the computer (the local door: a page in this browser). The table's clock
(:mod:`gametable.clock`, which the table runs for the side
:meth:`~gametable.seam.GameInProgress.on_clock` names) says *whose* turn is timed; presence
says *whether* that clock may run now:

* **A person's clock runs only while a page watches.** Every request about the game marks it
  as watched (:meth:`Presence.seen`, :meth:`Presence.acted`). The page also sends a heartbeat
  every :data:`HEARTBEAT_SECONDS` while it is open, and a "leave" beacon
  (``navigator.sendBeacon``) on ``pagehide`` (:meth:`Presence.left`). A person's clock runs
  only while some page was heard from within :data:`PRESENCE_SECONDS`; when the last page has
  gone quiet the clock is charged up to :data:`PRESENCE_SECONDS` after it was last heard from
  (after a "leave": up to that moment) and paused; the next request resumes it. A sleeping
  laptop or a throttled tab therefore costs at most that grace, once; nothing is counted by
  ticks.
* **The computer's clock runs only while it thinks** (:attr:`Presence.thinking`, set by the
  door around :meth:`~gametable.table.Table.play_computer`): its real thinking time.
* **The person's clock after the computer's turn starts only once a page has shown that
  turn** (the page plays it back move by move: the playback is nobody's time): the door sets
  :attr:`Presence.wait_for_version` to the version the computer's turn saves, and the wait
  ends when a page reports having drawn it (``seen(shown=...)``) or a person acts.
* **Running out loses**, charged exactly up to the instant the time reached zero, when that
  instant falls within the watched time (a person's) or while the clock ran (the computer's):
  :meth:`Presence.due` records it through :meth:`~gametable.table.Table.check_time`. A flag
  that would have fallen while nobody watched does not: the clock was paused at the end of
  the grace, before it.

The pages are kept in memory only: after a server restart the table's clock comes back from
its record, and the first :meth:`Presence.due` pauses it without charging anything until a page
asks.

How a door uses it, for each request about the table (under the table's lock; not thread-safe
by itself): :meth:`~Presence.due` first (a side returned: the loss is recorded, save the
table), then :meth:`~Presence.seen`, :meth:`~Presence.acted` or :meth:`~Presence.left`, then
:meth:`~Presence.sync`; after an action (``Table.act``) :meth:`~Presence.sync` again, since
the table starts the next side's clock running. For the computer's turn:
``seen()``, ``thinking = True``, ``wait_for_version = <the version it will save>``, ``sync()``;
``play_computer()``; then ``thinking = False`` and ``sync()``.

Every time here is a ``now()`` reading in seconds (monotonic), the same clock as the table's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final

from gametable.seam import Side
from gametable.table import Table

#: Seconds between the page's heartbeats while it is open.
HEARTBEAT_SECONDS: Final = 5.0
#: A page not heard from for this many seconds has gone (two heartbeats missed); a person's
#: clock is charged up to then and paused.
PRESENCE_SECONDS: Final = 10.0
#: The page shows a clock with less than this many seconds left in the warning colour.
WARNING_SECONDS: Final = 10.0
#: The page id of requests that do not name one (reads, actions, scripts).
ANONYMOUS_PAGE: Final = ""


def _side(name: str) -> Side:
    return "white" if name == "white" else "black"


class Presence:
    """Who watches a table at this server's own door (pages of people at this screen), and the
    clock rules that follow from it: a person's clock runs only while a page was heard from
    within :data:`PRESENCE_SECONDS` and (after a computer's turn) once a page has shown the
    version that turn saved; a computer's clock runs only while it thinks (:attr:`thinking`).

    It reads ``table.clock`` afresh on every call (the table replaces its clock at a match's
    next game) and tells the computer's side by ``table.seats[side].kind == "computer"`` (any
    other kind is a person). A table without a clock makes every call a no-op.

    Args:
        table: the table whose clock it rules.
        now: monotonic seconds, the same clock as the table's (tests inject a fake one).

    Not thread-safe by itself: the door calls it under the table's lock.
    """

    def __init__(self, table: Table, now: Callable[[], float]) -> None:
        self.table = table
        self._now = now
        #: page id -> when it was last heard from (a ``now()`` reading, seconds).
        self.pages: dict[str, float] = {}
        #: After a computer's turn: the state version a page must report having shown before
        #: the person's clock runs; None when not waiting.
        self.wait_for_version: int | None = None
        #: True while the door computes a computer seat's actions.
        self.thinking = False
        #: When the last page that said it left did so (``-inf``: none has): watched up to then.
        self._left_at = -math.inf

    # ------------------------------------------------------------------------ presence

    def seen(self, page: str = ANONYMOUS_PAGE, shown: int | None = None) -> None:
        """A request about the table came from ``page`` now; ``shown`` is the state version
        that page reports having drawn (one at or past :attr:`wait_for_version` ends the
        wait)."""
        self.pages[page] = self._now()
        waiting = self.wait_for_version
        if shown is not None and waiting is not None and shown >= waiting:
            self.wait_for_version = None

    def acted(self, page: str = ANONYMOUS_PAGE) -> None:
        """A person acted from ``page`` now: a page is there and has seen the turn (the wait
        for a version ends)."""
        self.seen(page)
        self.wait_for_version = None

    def left(self, page: str) -> None:
        """``page`` went away now (its ``pagehide`` beacon): forget it and the unnamed requests.
        It watched up to this instant: if no other page has been heard from within
        :data:`PRESENCE_SECONDS`, a person's clock is charged up to now and no further (the
        next :meth:`due` or :meth:`sync` pauses it)."""
        self.pages.pop(page, None)
        self.pages.pop(ANONYMOUS_PAGE, None)
        self._left_at = self._now()

    def watched_until(self) -> float:
        """Until when a page has been watching: the latest of each page's last word plus
        :data:`PRESENCE_SECONDS` and the last "leave", at most now (a ``now()`` reading;
        ``-inf`` when no page has ever been heard from)."""
        now = self._now()
        last = max(self.pages.values(), default=-math.inf)
        return min(now, max(last + PRESENCE_SECONDS, self._left_at))

    def _is_computer(self, side: Side) -> bool:
        return self.table.seats[side].kind == "computer"

    def _may_run(self, side: Side) -> bool:
        """Whether ``side``'s clock may run now: the computer's while it thinks; a person's
        while a page watches and no computer's turn waits to be shown."""
        if self._is_computer(side):
            return self.thinking
        # a page still there (a "leave" ends the watch at once: it only bounds the charge)
        last = max(self.pages.values(), default=-math.inf)
        return self.wait_for_version is None and last + PRESENCE_SECONDS >= self._now()

    # ------------------------------------------------------------------------ the clock

    def due(self) -> Side | None:
        """Bring the table's clock up to now.

        A person's running clock that no page has watched since :data:`PRESENCE_SECONDS` ago
        is charged only up to the end of the watched time (nothing of a stretch that began
        after it, e.g. when no page was ever heard from) and paused there. A side whose time
        ran out within the watched time (a computer's: while its clock ran), or whose paused
        clock has none left, loses: the table's :meth:`~gametable.table.Table.check_time`
        stops its clock at the instant it reached zero and records the loss with the game's
        ``time_out``.

        Returns:
            The side that ran out of time (``"white"`` or ``"black"``), else None (also
            without a clock or once the game is over).

        Raises:
            Nothing of its own; whatever the game's ``time_out`` raises.
        """
        table = self.table
        clock = table.clock
        if clock is None or table.game.outcome() is not None:
            return None
        if clock.paused is not None:
            if not clock.flagged(clock.paused):
                return None
            clock.resume()  # the table's check then stops it where it is: nothing more charged
            return table.check_time()
        running = clock.running
        if running is None:
            return None
        side = _side(running)
        now = self._now()
        end = now if self._is_computer(side) else self.watched_until()
        deadline = clock.deadline()
        if deadline is not None and deadline <= end:
            return table.check_time()
        if end < now:
            clock.pause(at=end)
        return None

    def sync(self) -> None:
        """Run the clock of the side on it when it may run (a person: a page is watching and
        no computer's turn waits to be shown; the computer: while it thinks), else hold it
        paused (a person's charged up to the end of the watched time, the computer's up to
        now, neither past the instant its time runs out). Call :meth:`due` before it: a flag
        is never recorded here (a clock it pauses at zero falls at the next :meth:`due`)."""
        clock = self.table.clock
        if clock is None:
            return
        on = clock.running or clock.paused
        if on is None:
            return
        side = _side(on)
        may = self._may_run(side)
        if may and clock.paused is not None:
            clock.resume()
        elif not may and clock.running is not None:
            end = self._now() if self._is_computer(side) else self.watched_until()
            deadline = clock.deadline()
            clock.pause(at=end if deadline is None else min(end, deadline))

    # ------------------------------------------------------------------------ showing

    def clock_view(self) -> dict[str, Any] | None:
        """:func:`clock_view` of this table."""
        return clock_view(self.table)


def clock_view(table: Table) -> dict[str, Any] | None:
    """A door's clock where a page must watch: the table's
    :meth:`~gametable.table.Table.clock_view` (``{"control", "reserve", "increment",
    "remaining": {"white", "black"}, "running"}``, seconds, the remaining times never below 0
    and rounded to the millisecond) plus ``"paused"`` (the side whose clock is paused, or
    None), ``"heartbeat"`` (:data:`HEARTBEAT_SECONDS`) and ``"warning"``
    (:data:`WARNING_SECONDS`); None without a clock. It reads the table's clock alone, whoever
    watches."""
    clock = table.clock
    view = table.clock_view()
    if clock is None or view is None:
        return None
    view["remaining"] = {side: round(left, 3) for side, left in view["remaining"].items()}
    view["paused"] = clock.paused
    view["heartbeat"] = HEARTBEAT_SECONDS
    view["warning"] = WARNING_SECONDS
    return view


__all__ = [
    "ANONYMOUS_PAGE",
    "HEARTBEAT_SECONDS",
    "PRESENCE_SECONDS",
    "WARNING_SECONDS",
    "Presence",
    "clock_view",
]
