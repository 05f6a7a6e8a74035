"""Saved positions: up to six per browser, in SQLite beside the saved games.

A browser is known by the random id its page keeps (``localStorage``); each of its saved
positions has a name and an XGID (the board, the dice, the side on roll, the cube, the score
and the match length: :mod:`backgammon.core.xgid`). They survive reloads and server restarts.
A seventh is refused with :class:`SavedPositionsFullError`. The positions saved from one client
address (its *owner*, whatever browser ids it sends) are at most
:data:`MAX_POSITIONS_PER_OWNER`; one more is refused with
:class:`~gametable.game_store.StorageFullError`.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from backgammon.core.errors import BackgammonError
from backgammon.core.xgid import Xgid
from gametable.game_store import StorageFullError
from gametable.sqlite import Database

__all__ = [
    "MAX_NAME_LENGTH",
    "MAX_POSITIONS_PER_OWNER",
    "MAX_SAVED_POSITIONS",
    "PositionStore",
    "SavedPosition",
    "SavedPositionNotFoundError",
    "SavedPositionsFullError",
]

#: How many positions a browser keeps.
MAX_SAVED_POSITIONS: Final = 6
#: The longest name, in characters.
MAX_NAME_LENGTH: Final = 60
#: How many positions the browsers of one client address keep together (ten browsers' worth).
MAX_POSITIONS_PER_OWNER: Final = 60

_SCHEMA = """
CREATE TABLE IF NOT EXISTS saved_positions (
    id         TEXT PRIMARY KEY,
    browser    TEXT NOT NULL,
    name       TEXT NOT NULL,
    xgid       TEXT NOT NULL,
    created_at REAL NOT NULL
)
"""
_INDEX = "CREATE INDEX IF NOT EXISTS saved_positions_browser ON saved_positions (browser)"
_OWNER = "ALTER TABLE saved_positions ADD COLUMN owner TEXT"  # (added after the first version)
_OWNER_INDEX = "CREATE INDEX IF NOT EXISTS saved_positions_owner ON saved_positions (owner)"


def _setup(conn: sqlite3.Connection) -> None:
    """The table, and the owner column a file of the first version lacks."""
    conn.execute(_SCHEMA)
    conn.execute(_INDEX)
    if "owner" not in {row[1] for row in conn.execute("PRAGMA table_info(saved_positions)")}:
        conn.execute(_OWNER)
    conn.execute(_OWNER_INDEX)


class SavedPositionsFullError(BackgammonError):
    """The browser already keeps :data:`MAX_SAVED_POSITIONS` positions."""


class SavedPositionNotFoundError(BackgammonError, LookupError):
    """No saved position of this browser has the id asked for."""


@dataclass(frozen=True, slots=True)
class SavedPosition:
    """One saved position: its id, name, XGID, and when it was saved (seconds since the
    epoch)."""

    id: str
    name: str
    xgid: str
    created_at: float


class PositionStore:
    """The saved positions of every browser; safe to share between threads.

    Args:
        path: the SQLite file (the games' file will do: the table is its own), or
            ``":memory:"``.
        now: the clock for the timestamps, seconds since the epoch (injected for tests).
    """

    def __init__(self, path: str | Path, *, now: Callable[[], float] = time.time) -> None:
        self._db = Database(path, _setup)
        self.path = self._db.path
        self._now = now

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def positions(self, browser: str) -> list[SavedPosition]:
        """The browser's positions, oldest first."""
        rows = self._db.read(
            "SELECT id, name, xgid, created_at FROM saved_positions WHERE browser = ? "
            "ORDER BY created_at, id", (browser,))
        return [SavedPosition(str(i), str(n), str(x), float(c)) for i, n, x, c in rows]

    def save(self, browser: str, name: str, xgid: Xgid, owner: str | None = None
             ) -> SavedPosition:
        """Keep a position for the browser.

        Args:
            browser: the browser's id.
            name: what the person called it (space trimmed; at most
                :data:`MAX_NAME_LENGTH` characters); empty names are refused.
            xgid: the position and its context.
            owner: the client address saving it (None: bounded per browser only).

        Raises:
            SavedPositionsFullError: the browser keeps six already (nothing is written).
            StorageFullError: the owner's browsers keep :data:`MAX_POSITIONS_PER_OWNER`
                (nothing is written).
            ValueError: an empty or overlong name.
        """
        clean = " ".join(name.split())
        if not clean:
            raise ValueError("give the position a name")
        if len(clean) > MAX_NAME_LENGTH:
            raise ValueError(f"a name is at most {MAX_NAME_LENGTH} characters; this one has "
                             f"{len(clean)}")
        saved = SavedPosition(secrets.token_urlsafe(9), clean, str(xgid), self._now())
        with self._db.transaction() as conn:
            (count,) = conn.execute(
                "SELECT COUNT(*) FROM saved_positions WHERE browser = ?", (browser,)
            ).fetchone()
            if count >= MAX_SAVED_POSITIONS:
                raise SavedPositionsFullError(
                    f"You can keep up to {MAX_SAVED_POSITIONS} positions: delete one to "
                    "save this one."
                )
            if owner is not None:
                (owned,) = conn.execute(
                    "SELECT COUNT(*) FROM saved_positions WHERE owner = ?", (owner,)
                ).fetchone()
                if owned >= MAX_POSITIONS_PER_OWNER:
                    raise StorageFullError(
                        f"the positions saved from your address are "
                        f"{MAX_POSITIONS_PER_OWNER}, their most: delete one to save "
                        "this one")
            conn.execute(
                "INSERT INTO saved_positions (id, browser, name, xgid, created_at, owner) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (saved.id, browser, saved.name, saved.xgid, saved.created_at, owner))
        return saved

    def get(self, browser: str, position_id: str) -> SavedPosition:
        """One of the browser's positions.

        Raises:
            SavedPositionNotFoundError: the browser has no position with this id.
        """
        rows = self._db.read(
            "SELECT id, name, xgid, created_at FROM saved_positions WHERE browser = ? "
            "AND id = ?", (browser, position_id))
        row = rows[0] if rows else None
        if row is None:
            raise SavedPositionNotFoundError(f"no saved position has the id {position_id!r}")
        return SavedPosition(str(row[0]), str(row[1]), str(row[2]), float(row[3]))

    def delete(self, browser: str, position_id: str) -> None:
        """Forget one of the browser's positions.

        Raises:
            SavedPositionNotFoundError: the browser has no position with this id.
        """
        if not self._db.write("DELETE FROM saved_positions WHERE browser = ? AND id = ?",
                              (browser, position_id)):
            raise SavedPositionNotFoundError(f"no saved position has the id {position_id!r}")

    def clear(self, browser: str) -> int:
        """Forget every position of the browser (the page's "Start over"); returns how many
        there were."""
        return self._db.write("DELETE FROM saved_positions WHERE browser = ?", (browser,))
