"""A browser's record of the games it finished against the computer at the shared table, for
any game (checkers today): won, lost and drawn, by the computer's level.

The record knows no game's rules: each finished table is one row of the table
``table_results`` in the games' SQLite file, with the game's name (``game``: ``"checkers"``),
the table's id (``session``), the browser's random id (the one the page keeps in
``localStorage``), the computer's level (``opponent``), the result for the browser's player
(``"won"``, ``"lost"`` or ``"drawn"``) and the reason the game gave. A table is counted once,
in the record of the first browser that asks (the key is the game and the table): asking
again, from that browser or another, changes nothing.

:meth:`TableStatsStore.summary` counts one browser's games of one game, by level (in the
order of the game's levels) and in total.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from typing_extensions import TypedDict

from gametable.errors import ActionRefused

#: A browser's anonymous id: the page makes one and keeps it in the browser's storage.
BROWSER_ID: Final = re.compile(r"[A-Za-z0-9_-]{8,64}")


def check_browser_id(value: object) -> str:
    """The browser id, checked.

    Raises:
        ActionRefused: ``invalid_browser`` for anything but a string of 8 to 64 letters,
            digits, ``-`` or ``_`` (the message quotes it, cut at 70 characters).
    """
    if not isinstance(value, str) or not BROWSER_ID.fullmatch(value):
        shown = repr(value) if not isinstance(value, str) or len(value) <= 70 else repr(
            value[:70] + "…"
        )
        raise ActionRefused(
            "invalid_browser",
            f"a browser id is 8 to 64 letters, digits, '-' or '_' (the page makes one and "
            f"keeps it in this browser's storage); {shown} is not one",
        )
    return value

__all__ = [
    "RESULTS",
    "TableRecordJSON",
    "TableRecordRowJSON",
    "TableResult",
    "TableStatsStore",
]

#: A game's result for the browser's player.
RESULTS: Final = ("won", "lost", "drawn")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS table_results (
    game      TEXT NOT NULL,
    session   TEXT NOT NULL,
    browser   TEXT NOT NULL,
    opponent  TEXT NOT NULL,
    result    TEXT NOT NULL,
    reason    TEXT NOT NULL,
    ended_at  REAL NOT NULL,
    PRIMARY KEY (game, session)
)
"""
_INDEX = "CREATE INDEX IF NOT EXISTS table_results_browser ON table_results (browser, game)"


@dataclass(frozen=True, slots=True)
class TableResult:
    """One finished game against the computer, as the record keeps it.

    Attributes:
        game: the game's name (``"checkers"``).
        session: the table's id.
        browser: the browser's id.
        opponent: the computer's level (``"easy"``, ...).
        result: one of :data:`RESULTS`, for the browser's player.
        reason: why the game ended, in the game's words (``"no legal move"``, ...).

    Raises:
        ValueError: (on construction) an empty name, session or level, or an unknown result.
        BrowserIdError: a malformed browser id.
    """

    game: str
    session: str
    browser: str
    opponent: str
    result: str
    reason: str

    def __post_init__(self) -> None:
        check_browser_id(self.browser)
        for name in ("game", "session", "opponent"):
            if not getattr(self, name):
                raise ValueError(f"{name} must be a non-empty string")
        if self.result not in RESULTS:
            raise ValueError(f"result must be one of {', '.join(RESULTS)}, got {self.result!r}")


class TableRecordRowJSON(TypedDict):
    """The counts of one level's games (``opponent`` None: all of them)."""

    opponent: str | None
    games: int
    won: int
    lost: int
    drawn: int


class TableRecordJSON(TypedDict):
    """A browser's record of one game: ``rows`` by level (those played, in the game's order
    of levels), and ``total``."""

    game: str
    rows: list[TableRecordRowJSON]
    total: TableRecordRowJSON


def _empty(opponent: str | None) -> TableRecordRowJSON:
    return {"opponent": opponent, "games": 0, "won": 0, "lost": 0, "drawn": 0}


class TableStatsStore:
    """The record of every browser's games at the shared table; safe to share between threads.

    Args:
        path: the SQLite file (the games' file: the table is its own), or ``":memory:"``.
        now: the clock for the timestamps, seconds since the epoch (injected for tests).
    """

    def __init__(self, path: str | Path, *, now: Callable[[], float] = time.time) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._now = now
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                     timeout=10)
        with self._lock:
            self._conn.execute(_SCHEMA)
            self._conn.execute(_INDEX)

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._conn.close()

    def record(self, result: TableResult) -> bool:
        """Count a finished game; a table already counted (in any browser's record) is left
        as it is.

        Returns:
            Whether the game was new to the record.
        """
        with self._lock:
            cursor = self._conn.execute(
                "INSERT OR IGNORE INTO table_results (game, session, browser, opponent, result, "
                "reason, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (result.game, result.session, result.browser, result.opponent, result.result,
                 result.reason, self._now()))
        return cursor.rowcount > 0

    def summary(self, browser: str, game: str, levels: Sequence[str] = ()) -> TableRecordJSON:
        """The browser's record of ``game`` (see :class:`TableRecordJSON`), its rows in the
        order of ``levels`` (others after them, by name); all zero for a browser never seen.

        Raises:
            BrowserIdError: a malformed browser id.
        """
        check_browser_id(browser)
        with self._lock:
            found = self._conn.execute(
                "SELECT opponent, result, COUNT(*) FROM table_results "
                "WHERE browser = ? AND game = ? GROUP BY opponent, result",
                (browser, game)).fetchall()
        rows: dict[str, TableRecordRowJSON] = {}
        total = _empty(None)
        for opponent, result, count in found:
            row = rows.setdefault(str(opponent), _empty(str(opponent)))
            for counted in (row, total):
                counted["games"] += int(count)
                counted[str(result)] += int(count)  # type: ignore[literal-required]
        order = list(levels)
        ranked = sorted(rows, key=lambda o: (order.index(o) if o in order else len(order), o))
        return {"game": game, "rows": [rows[o] for o in ranked], "total": total}

    def clear(self, browser: str, game: str) -> int:
        """Forget the browser's record of ``game``; returns how many games it held.

        Raises:
            BrowserIdError: a malformed browser id.
        """
        check_browser_id(browser)
        with self._lock:
            cursor = self._conn.execute(
                "DELETE FROM table_results WHERE browser = ? AND game = ?", (browser, game))
        return cursor.rowcount
