"""The tables a server keeps: made, found, acted on and saved, whatever the game.

:class:`TableService` is what a door (the HTTP routes of :mod:`gametable.http`) calls. A
table is made with its game, settings, seats and time control; the maker receives the
table's id and a secret token (only its SHA-256 hash is kept), and every later request must
bring both. At least one seat is a person's (a table of two computer seats would keep a
worker busy for a whole game). After a person's action the computer seats answer at once.
Tables live in memory (at most ``max_tables``) and in the store; one evicted or lost to a
restart comes back from its record when asked for.

The clock follows the rule of this server's own door (:mod:`gametable.presence`, as at
backgammon's local door): the people sit at a page in this browser, so a person's clock runs
only while a page watches. Every request about a table marks it as watched (``page``: the
page's own id, :data:`~gametable.presence.ANONYMOUS_PAGE` when it names none), the page sends
a heartbeat (:meth:`TableService.clock_check`) every
:data:`~gametable.presence.HEARTBEAT_SECONDS` while it is open and a "leave" when it closes;
when no page has been heard from for :data:`~gametable.presence.PRESENCE_SECONDS` the clock is
charged up to then and paused, and the next request resumes it. The computer's clock runs
only while it thinks. Every request brings the clock up to now first
(:meth:`~gametable.presence.Presence.due`), so a flag that fell within the watched time is a
loss as soon as anyone asks. The pages are kept in memory only: a table restored from its
record gets a fresh :class:`~gametable.presence.Presence`, whose first request pauses the
clock where the record left it, charging nothing for the time the table was away.

The service is a security boundary: ids and tokens are unguessable, the token is compared in
constant time, each client address may make at most ``max_per_owner`` tables, and each table
is acted on by one caller at a time (a lock per table).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Final

from gametable.clock import TIME_CONTROLS, TimeControl
from gametable.errors import ActionRefused, TableError
from gametable.game_store import TOKEN_HASH_KEY, GameNotFoundError, GameStore, StoredGameError
from gametable.presence import ANONYMOUS_PAGE, Presence, clock_view
from gametable.seam import SIDES, GameRules, Side
from gametable.table import Seat, Table

_LOG = logging.getLogger(__name__)

#: Tables kept in memory at once (the least recently used leave first; the store keeps all).
DEFAULT_MAX_TABLES: Final = 2000
#: Tables one client address may make.
DEFAULT_MAX_PER_OWNER: Final = 200


class TableNotFoundError(TableError, LookupError):
    """No table has this id (or it was made with another token)."""


class NotYourTableError(TableError, PermissionError):
    """The token does not open this table."""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _ran_out(table: Table, side: Side) -> str:
    """Why an action is refused once ``side`` has run out of time."""
    name = table.seats[side].name or side.capitalize()
    return f"{name} ran out of time: the game is over"


class _Entry:
    """A kept table: its token's hash, its maker, its lock, and who watches its clock (None
    for a table without a clock)."""

    __slots__ = ("lock", "owner", "presence", "table", "token_hash")

    def __init__(
        self, table: Table, token_hash: str, owner: str | None, now: Callable[[], float]
    ) -> None:
        self.table = table
        self.token_hash = token_hash
        self.owner = owner
        self.lock = threading.Lock()
        self.presence = None if table.clock is None else Presence(table, now)


class TableService:
    """Tables by id, for the doors.

    Args:
        games: the games played here, by name (``{"checkers": checkers.adapter.RULES}``).
        store: where tables are saved (None: memory only): the one store of local play
            (:class:`~gametable.game_store.GameStore`), each table's record
            (:meth:`~gametable.table.Table.to_record`) with its token's hash under
            :data:`~gametable.game_store.TOKEN_HASH_KEY`, its maker the row's owner. A row
            without that hash (another door's game) is no table here.
        now: the monotonic clock (injected in tests).
        time_controls: the time controls offered, by name (``"none"`` for no clock).
        max_tables: tables kept in memory.
        max_per_owner: tables one client address may make.
    """

    def __init__(
        self,
        games: Mapping[str, GameRules],
        store: GameStore | None = None,
        *,
        now: Callable[[], float] = time.monotonic,
        time_controls: Mapping[str, TimeControl | None] = TIME_CONTROLS,
        max_tables: int = DEFAULT_MAX_TABLES,
        max_per_owner: int = DEFAULT_MAX_PER_OWNER,
    ) -> None:
        self.games = dict(games)
        self.store = store
        self._now = now
        self.time_controls = dict(time_controls)
        self.max_tables = max_tables
        self.max_per_owner = max_per_owner
        self._tables: OrderedDict[str, _Entry] = OrderedDict()
        self._owners: dict[str | None, int] = {}
        self._lock = threading.Lock()

    # ---------------------------------------------------------------- making

    def create(
        self,
        game: str,
        settings: Mapping[str, Any],
        seats: Mapping[str, Mapping[str, Any]],
        time_control: str = "none",
        *,
        owner: str | None = None,
        seed: int | None = None,
        page: str = ANONYMOUS_PAGE,
    ) -> tuple[str, str, Table]:
        """Make a table; returns ``(id, token, table)`` (the computer has already made its
        first move when it moves first, its clock running while it thought). ``page``: the
        page that makes it, watching it from now.

        Raises:
            ActionRefused: ``unknown_game``, ``invalid_settings``, ``invalid_seat``,
                ``invalid_time_control``, or ``too_many_tables`` for an owner past its share.
        """
        rules = self.games.get(game)
        if rules is None:
            raise ActionRefused(
                "unknown_game", f"unknown game {game!r}: one of {', '.join(self.games)}"
            )
        if time_control not in self.time_controls:
            raise ActionRefused(
                "invalid_time_control",
                f"time control {time_control!r} is not one of {', '.join(self.time_controls)}",
            )
        if set(seats) != set(SIDES):
            raise ActionRefused("invalid_seat", "give a seat for white and one for black")
        table_seats: dict[Side, Seat] = {side: Seat.from_dict(seats[side]) for side in SIDES}
        if not any(seat.kind == "person" for seat in table_seats.values()):
            raise ActionRefused("invalid_seat", "at least one seat is a person's")
        if any(seat.kind == "remote" for seat in table_seats.values()):
            raise ActionRefused("invalid_seat", "remote seats are made by online rooms")
        table = Table(
            rules,
            settings,
            table_seats,
            time_control=self.time_controls[time_control],
            now=self._now,
            seed=secrets.randbits(31) if seed is None else seed,
        )
        with self._lock:  # counted once the table is sure to be made
            made = self._owners.get(owner)
            if made is None:
                made = 0 if self.store is None else self.store.count_by_owner(
                    owner, having=TOKEN_HASH_KEY)
            if made >= self.max_per_owner:
                raise ActionRefused(
                    "too_many_tables", f"at most {self.max_per_owner} tables from one address"
                )
            self._owners[owner] = made + 1
        table_id, token = secrets.token_urlsafe(12), secrets.token_urlsafe(24)
        entry = _Entry(table, _hash(token), owner, self._now)
        with entry.lock:
            if entry.presence is not None:
                entry.presence.seen(page)
            self._play_computer(entry, page)
            self._keep(table_id, entry)
            self._save(table_id, entry)
        return table_id, token, table

    # ---------------------------------------------------------------- acting and reading

    def act(
        self,
        table_id: str,
        token: str,
        side: str,
        action: Mapping[str, Any],
        page: str = ANONYMOUS_PAGE,
    ) -> Table:
        """A person's action at a table (from ``page``), then the computer seats' answers
        (their clock running while they think); saved.

        The clock is brought up to now first: a side that ran out of time loses (saved) and
        the action is refused. The person acting is watching: their page is noted and the
        clock runs from now.

        Raises:
            TableNotFoundError, NotYourTableError: a bad id or token.
            ActionRefused: ``game_over`` when a side has just run out of time (saying who),
                ``not_your_seat`` for a side that is not a person's, or the table's and the
                game's refusals; nothing changed but the clock.
        """
        entry = self._entry(table_id, token)
        with entry.lock:
            table = entry.table
            presence = entry.presence
            if presence is not None:
                loser = presence.due()
                if loser is not None:
                    self._save(table_id, entry)
                    raise ActionRefused("game_over", _ran_out(table, loser))
            if side in SIDES and table.seats[side].kind != "person":
                raise ActionRefused("not_your_seat", f"{side} is not a person's seat here")
            if presence is not None:
                presence.acted(page)
                presence.sync()
            table.act(side, action)
            try:
                self._play_computer(entry, page)
            finally:
                # the person's action stands whatever happened after it: saved
                self._save(table_id, entry)
            return table

    def read(self, table_id: str, token: str, page: str = ANONYMOUS_PAGE) -> Table:
        """The table, as ``page`` asks for it: its clock brought up to now (a flag that fell
        within the watched time ends the game, and is saved), then the page noted as
        watching.

        Raises:
            TableNotFoundError, NotYourTableError: a bad id or token.
        """
        entry = self._entry(table_id, token)
        with entry.lock:
            self._watched(table_id, entry, page)
            return entry.table

    def clock_check(
        self, table_id: str, token: str, page: str = ANONYMOUS_PAGE, leave: bool = False
    ) -> dict[str, Any]:
        """The page's heartbeat: the table is watched by ``page`` (with ``leave``: no longer,
        it is closing); the clock brought up to now (a side that ran out of time loses) and
        saved while the game goes on (not an action: the count stays).

        Returns:
            ``{"actions", "outcome", "clock"}``: the table's count of actions (another than
            the page's view means it should read the table again), the outcome (None while
            the game goes on) and :meth:`~gametable.presence.Presence.clock_view` (None for
            a table without a clock).

        Raises:
            TableNotFoundError, NotYourTableError: a bad id or token.
        """
        entry = self._entry(table_id, token)
        with entry.lock:
            table = entry.table
            if not self._watched(table_id, entry, page, leave=leave) and (
                entry.presence is not None and table.game.outcome() is None
            ):
                self._save(table_id, entry)  # the clock as it stands now
            outcome = table.game.outcome()
            return {
                "actions": table.actions,
                "outcome": None if outcome is None else outcome.to_dict(),
                "clock": None if entry.presence is None else entry.presence.clock_view(),
            }

    def view(self, table: Table, side: Side | None = None) -> dict[str, Any]:
        """What this door sends of ``table`` for ``side`` (None: a spectator):
        :meth:`~gametable.table.Table.view` with the clock as
        :meth:`~gametable.presence.Presence.clock_view` shows it (the table's clock plus
        ``paused``, ``heartbeat`` and ``warning``; None without a clock). Those figures come
        from the table's clock alone, whoever watches."""
        view = table.view(side)
        if table.clock is not None:
            view["clock"] = clock_view(table)
        return view

    # ---------------------------------------------------------------- the clock

    def _watched(self, table_id: str, entry: _Entry, page: str, *, leave: bool = False) -> bool:
        """A request from ``page`` (under the entry's lock): the clock brought up to now, then
        the page noted (``leave``: gone) and the clock run or paused accordingly. Returns
        True when a side ran out of time (the loss recorded and saved)."""
        presence = entry.presence
        if presence is None:
            return False
        if presence.due() is not None:
            self._save(table_id, entry)
            return True
        if leave:
            presence.left(page)
        else:
            presence.seen(page)
        presence.sync()
        return False

    @staticmethod
    def _play_computer(entry: _Entry, page: str) -> None:
        """The computer seats' actions while the game waits on them, their clock running only
        while they think (under the entry's lock), for a request from ``page``: that page
        waits for the answer, so it is still there when the computer is done (however long it
        thought). A computer that runs out of time while it thinks loses (the table records
        it when its action comes): the game is over, and what was done before stands."""
        table = entry.table
        presence = entry.presence
        if presence is None or table.computer_to_act() is None:
            table.play_computer()
            return
        presence.thinking = True
        presence.sync()
        try:
            table.play_computer()
        except ActionRefused:
            if table.game.outcome() is None:
                raise
        finally:
            presence.thinking = False
            presence.seen(page)
            presence.sync()

    # ---------------------------------------------------------------- keeping

    def _entry(self, table_id: str, token: str) -> _Entry:
        with self._lock:
            entry = self._tables.get(table_id)
            if entry is not None:
                self._tables.move_to_end(table_id)
        if entry is None:
            entry = self._restore(table_id, token)
        if not hmac.compare_digest(entry.token_hash, _hash(token)):
            raise NotYourTableError("this token does not open that table")
        return entry

    def _restore(self, table_id: str, token: str) -> _Entry:
        """The table of ``table_id`` from its stored record, the token checked before it is
        rebuilt. A row that is not a table's (no token's hash: a local game of another door)
        or cannot be read is no table: :class:`TableNotFoundError`, as for an unknown id."""
        if self.store is None:
            raise TableNotFoundError(f"no table {table_id!r}")
        try:
            stored = self.store.load(table_id)
        except GameNotFoundError:
            raise TableNotFoundError(f"no table {table_id!r}") from None
        except StoredGameError as exc:
            _LOG.warning("stored table %r cannot be read: %s", table_id, exc)
            raise TableNotFoundError(f"no table {table_id!r}") from None
        record = dict(stored.record)
        token_hash = record.pop(TOKEN_HASH_KEY, None)
        if not isinstance(token_hash, str):
            raise TableNotFoundError(f"no table {table_id!r}")
        if not hmac.compare_digest(token_hash, _hash(token)):
            raise NotYourTableError("this token does not open that table")
        table = Table.from_record(record, self.games, self._now)
        # a fresh presence: no page yet, so the first request pauses the clock where the
        # record left it (the time the table was away is nobody's); the owner is the row's,
        # kept by the store from the first save
        entry = _Entry(table, token_hash, None, self._now)
        with self._lock:
            entry = self._tables.setdefault(table_id, entry)
        return entry

    def _keep(self, table_id: str, entry: _Entry) -> None:
        with self._lock:
            self._tables[table_id] = entry
            while len(self._tables) > self.max_tables:
                self._tables.popitem(last=False)

    def _save(self, table_id: str, entry: _Entry) -> None:
        if self.store is not None:
            record = entry.table.to_record()
            record[TOKEN_HASH_KEY] = entry.token_hash
            self.store.save(table_id, record, owner=entry.owner)
