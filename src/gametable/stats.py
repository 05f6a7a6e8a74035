"""A browser's record of the games it finished at the shared table, for any game (checkers
today): won, lost and drawn, against the computer by its level, and against a person online.

The record knows no game's rules. Each game finished against the computer is one row of the
table ``table_results`` in the games' SQLite file, with the game's name (``game``:
``"checkers"``), the table's id (``session``), the browser's random id (the one the page
keeps in ``localStorage``), the computer's level (``opponent``), the result for the browser's
player (``"won"``, ``"lost"`` or ``"drawn"``) and the reason the game gave. A table is counted
once, in the record of the first browser that asks (the key is the game and the table):
asking again, from that browser or another, changes nothing.

Each game of an online room (``/api/rooms``) is one row of ``room_results`` per browser that
counted it: the seat's session (:func:`room_session`: the room, which game of the room, the
seat's side), the browser, the game's name, :data:`ROOM_OPPONENT` and the result for that
seat. The key is the session and the browser: one game counts once in a browser's record,
and in the records of as many browsers as the caller allows (``/api/stats/rooms``: two).

:meth:`TableStatsStore.summary` counts one browser's games of one game, by opponent (the
game's levels in their order, then :data:`ROOM_OPPONENT`) and in total.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from typing_extensions import TypedDict

from gametable.errors import ActionRefused
from gametable.sqlite import Database

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
    "ROOM_OPPONENT",
    "TableRecordJSON",
    "TableRecordRowJSON",
    "TableResult",
    "TableStatsStore",
    "check_browser_id",
    "room_session",
]

#: A game's result for the browser's player.
RESULTS: Final = ("won", "lost", "drawn")
#: The opponent of a game played against a person in an online room.
ROOM_OPPONENT: Final = "online"

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
_ROOM_SCHEMA = """
CREATE TABLE IF NOT EXISTS room_results (
    session   TEXT NOT NULL,
    browser   TEXT NOT NULL,
    game      TEXT NOT NULL,
    opponent  TEXT NOT NULL,
    result    TEXT NOT NULL,
    reason    TEXT NOT NULL,
    ended_at  REAL NOT NULL,
    PRIMARY KEY (session, browser)
)
"""
_ROOM_INDEX = "CREATE INDEX IF NOT EXISTS room_results_browser ON room_results (browser, game)"


def room_session(code: str, games_before: int, side: str) -> str:
    """The session a seat's games of an online room (``/api/rooms``) are counted under: the
    room, which game or match of it (how many the room played before it: a rematch is the
    next), the seat's side in it (sides swap at a rematch)."""
    return f"rooms:{code}:{games_before}:{side}"


@dataclass(frozen=True, slots=True)
class TableResult:
    """One finished game against the computer, as the record keeps it.

    Attributes:
        game: the game's name (``"checkers"``).
        session: the table's id (a room's game: :func:`room_session`).
        browser: the browser's id.
        opponent: the computer's level (``"easy"``, ...), or :data:`ROOM_OPPONENT`.
        result: one of :data:`RESULTS`, for the browser's player.
        reason: why the game ended, in the game's words (``"no legal move"``, ...).

    Raises:
        ValueError: (on construction) an empty name, session or level, or an unknown result.
        ActionRefused: ``invalid_browser``, a malformed browser id.
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
    """The counts of one opponent's games (a level, or ``"online"``; None: all of them)."""

    opponent: str | None
    games: int
    won: int
    lost: int
    drawn: int


class TableRecordJSON(TypedDict):
    """A browser's record of one game: ``rows`` by opponent (those played: the game's levels
    in their order, then ``"online"``), and ``total``."""

    game: str
    rows: list[TableRecordRowJSON]
    total: TableRecordRowJSON


def _empty(opponent: str | None) -> TableRecordRowJSON:
    return {"opponent": opponent, "games": 0, "won": 0, "lost": 0, "drawn": 0}


class TableStatsStore:
    """The record of every browser's games at the shared table; safe to share between threads.

    Args:
        path: the SQLite file (the games' file: the tables are its own), or ``":memory:"``.
        now: the clock for the timestamps, seconds since the epoch (injected for tests).
    """

    def __init__(self, path: str | Path, *, now: Callable[[], float] = time.time) -> None:
        self._db = Database(path, (_SCHEMA, _INDEX, _ROOM_SCHEMA, _ROOM_INDEX))
        self.path = self._db.path
        self._now = now

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def record(self, result: TableResult) -> bool:
        """Count a finished game against the computer; a table already counted (in any
        browser's record) is left as it is.

        Returns:
            Whether the game was new to the record.
        """
        return self._db.write(
            "INSERT OR IGNORE INTO table_results (game, session, browser, opponent, result, "
            "reason, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (result.game, result.session, result.browser, result.opponent, result.result,
             result.reason, self._now())) > 0

    def record_seat(self, result: TableResult) -> bool:
        """Count a seat's finished game of an online room in ``result.browser``'s record
        (``result.session``: :func:`room_session`); a game this browser counted already is
        left as it is. How many browsers may count one seat's game is the caller's to say
        (:meth:`browsers`).

        Returns:
            Whether the game was new to this browser's record.
        """
        return self._db.write(
            "INSERT OR IGNORE INTO room_results (session, browser, game, opponent, result, "
            "reason, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (result.session, result.browser, result.game, result.opponent, result.result,
             result.reason, self._now())) > 0

    def browsers(self, session: str) -> set[str]:
        """The browsers whose records hold the room game of ``session``."""
        rows = self._db.read("SELECT browser FROM room_results WHERE session = ?", (session,))
        return {str(row[0]) for row in rows}

    def summary(self, browser: str, game: str, levels: Sequence[str] = ()) -> TableRecordJSON:
        """The browser's record of ``game`` (see :class:`TableRecordJSON`), its rows in the
        order of ``levels``, then :data:`ROOM_OPPONENT` (others after them, by name); all
        zero for a browser never seen.

        Raises:
            ActionRefused: ``invalid_browser``, a malformed browser id.
        """
        check_browser_id(browser)
        found = self._db.read(
            "SELECT opponent, result, COUNT(*) FROM (SELECT opponent, result FROM "
            "table_results WHERE browser = ?1 AND game = ?2 UNION ALL SELECT opponent, result "
            "FROM room_results WHERE browser = ?1 AND game = ?2) GROUP BY opponent, result",
            (browser, game))
        rows: dict[str, TableRecordRowJSON] = {}
        total = _empty(None)
        for opponent, result, count in found:
            row = rows.setdefault(str(opponent), _empty(str(opponent)))
            for counted in (row, total):
                counted["games"] += int(count)
                counted[str(result)] += int(count)  # type: ignore[literal-required]
        order = [*levels, ROOM_OPPONENT]
        ranked = sorted(rows, key=lambda o: (order.index(o) if o in order else len(order), o))
        return {"game": game, "rows": [rows[o] for o in ranked], "total": total}

    def clear(self, browser: str, game: str) -> int:
        """Forget the browser's record of ``game`` (against the computer and online); returns
        how many games it held.

        Raises:
            ActionRefused: ``invalid_browser``, a malformed browser id.
        """
        check_browser_id(browser)
        with self._db.transaction() as conn:
            return sum(conn.execute(f"DELETE FROM {table} WHERE browser = ? AND game = ?",
                                    (browser, game)).rowcount
                       for table in ("table_results", "room_results"))
