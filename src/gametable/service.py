"""The tables a server keeps: made, found, acted on and saved, whatever the game.

:class:`TableService` is what a door (the HTTP routes of :mod:`gametable.http`) calls. A
table is made with its game, settings, seats and time control; the maker receives the
table's id and a secret token (only its SHA-256 hash is kept), and every later request must
bring both. At least one seat is a person's (a table of two computer seats would keep a
worker busy for a whole game). After a person's action the computer seats answer at once.
Every action and every read checks the clock first, so a flag that fell is a loss as soon as
anyone asks. Tables live in memory (at most ``max_tables``) and in the store; one evicted or
lost to a restart comes back from its record when asked for.

The service is a security boundary: ids and tokens are unguessable, the token is compared in
constant time, each client address may make at most ``max_per_owner`` tables, and each table
is acted on by one caller at a time (a lock per table).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Final

from gametable.clock import TIME_CONTROLS, TimeControl
from gametable.errors import ActionRefused, TableError
from gametable.seam import SIDES, GameRules, Side
from gametable.store import StoredTable, TableStore
from gametable.table import Seat, Table

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


class _Entry:
    __slots__ = ("lock", "owner", "table", "token_hash")

    def __init__(self, table: Table, token_hash: str, owner: str | None) -> None:
        self.table = table
        self.token_hash = token_hash
        self.owner = owner
        self.lock = threading.Lock()


class TableService:
    """Tables by id, for the doors.

    Args:
        games: the games played here, by name (``{"checkers": checkers.adapter.RULES}``).
        store: where tables are saved (None: memory only).
        now: the monotonic clock (injected in tests).
        time_controls: the time controls offered, by name (``"none"`` for no clock).
        max_tables: tables kept in memory.
        max_per_owner: tables one client address may make.
    """

    def __init__(
        self,
        games: Mapping[str, GameRules],
        store: TableStore | None = None,
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
    ) -> tuple[str, str, Table]:
        """Make a table; returns ``(id, token, table)`` (the computer has already made its
        first move when it moves first).

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
                made = self.store.count_by_owner(owner) if self.store is not None else 0
            if made >= self.max_per_owner:
                raise ActionRefused(
                    "too_many_tables", f"at most {self.max_per_owner} tables from one address"
                )
            self._owners[owner] = made + 1
        table_id, token = secrets.token_urlsafe(12), secrets.token_urlsafe(24)
        entry = _Entry(table, _hash(token), owner)
        with entry.lock:
            table.play_computer()
            self._keep(table_id, entry)
            self._save(table_id, entry)
        return table_id, token, table

    # ---------------------------------------------------------------- acting and reading

    def act(self, table_id: str, token: str, side: str, action: Mapping[str, Any]) -> Table:
        """A person's action at a table, then the computer seats' answers; saved.

        Raises:
            TableNotFoundError, NotYourTableError: a bad id or token.
            ActionRefused: ``not_your_seat`` for a side that is not a person's, or the
                table's and the game's refusals; nothing changed.
        """
        entry = self._entry(table_id, token)
        with entry.lock:
            table = entry.table
            if side in SIDES and table.seats[side].kind != "person":
                raise ActionRefused("not_your_seat", f"{side} is not a person's seat here")
            table.act(side, action)
            table.play_computer()
            self._save(table_id, entry)
            return table

    def read(self, table_id: str, token: str) -> Table:
        """The table, its clock checked (a flag that fell ends the game, and is saved).

        Raises:
            TableNotFoundError, NotYourTableError: a bad id or token.
        """
        entry = self._entry(table_id, token)
        with entry.lock:
            if entry.table.check_time() is not None:
                self._save(table_id, entry)
            return entry.table

    # ---------------------------------------------------------------- keeping

    def _entry(self, table_id: str, token: str) -> _Entry:
        with self._lock:
            entry = self._tables.get(table_id)
            if entry is not None:
                self._tables.move_to_end(table_id)
        if entry is None:
            entry = self._restore(table_id)
        if not hmac.compare_digest(entry.token_hash, _hash(token)):
            raise NotYourTableError("this token does not open that table")
        return entry

    def _restore(self, table_id: str) -> _Entry:
        stored = self.store.load(table_id) if self.store is not None else None
        if stored is None:
            raise TableNotFoundError(f"no table {table_id!r}")
        table = Table.from_record(stored.record, self.games, self._now)
        entry = _Entry(table, stored.token_hash, stored.owner)
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
            self.store.save(
                StoredTable(table_id, record["game"], entry.token_hash, entry.owner, record)
            )
