"""The record of a browser: every game it finished, and the stats drawn from them.

A browser is known by the random id its page keeps in ``localStorage`` (the one the saved
positions use); there is no account and nothing leaves the server. Each finished game is one
row of the table ``stats_games`` in the games' SQLite file: the browser, the session and game
number (together the key, so a game is counted once however often it is saved), the opponent
(a computer level, ``"pass_and_play"`` or ``"online"``), the kind of session (``"single"``,
``"match"`` or ``"money"``), whether the browser's player won, the points the game scored, the
result as scored (``"single"``, ``"gammon"``, ``"backgammon"``) and, for the game that ended a
match, whether the match was won.

In pass & play both players sit at this browser: its player is White (a win is White's win).

:meth:`StatsStore.summary` counts, by opponent and kind of session and in total: games, wins
and losses, points won and lost, gammons and backgammons won and lost, matches won and lost.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from typing_extensions import TypedDict

from backgammon.core.errors import BackgammonError
from backgammon.core.game import Game
from backgammon.core.types import Color
from gametable.errors import ActionRefused
from gametable.sqlite import Database
from gametable.stats import check_browser_id as table_browser_id
from gametable.stats import room_session

__all__ = [
    "MODES",
    "OPPONENTS",
    "BrowserIdError",
    "FinishedGame",
    "StatsJSON",
    "StatsRowJSON",
    "StatsStore",
    "check_browser_id",
    "finished_game",
    "online_session",
    "room_session",
]

#: The opponents, in the order the stats list them.
OPPONENTS: Final = ("easy", "medium", "hard", "expert", "master", "pass_and_play", "online")
#: The kinds of session, in the order the stats list them.
MODES: Final = ("single", "match", "money")
#: The results a game can score.
RESULTS: Final = ("single", "gammon", "backgammon")
#: A browser id: 8 to 64 letters, digits, ``-`` or ``_`` (what the page makes: 24 hex digits).

_SCHEMA = """
CREATE TABLE IF NOT EXISTS stats_games (
    browser   TEXT NOT NULL,
    session   TEXT NOT NULL,
    game      INTEGER NOT NULL,
    opponent  TEXT NOT NULL,
    mode      TEXT NOT NULL,
    won       INTEGER NOT NULL,
    points    INTEGER NOT NULL,
    result    TEXT NOT NULL,
    match     TEXT,
    ended_at  REAL NOT NULL,
    PRIMARY KEY (browser, session, game)
)
"""
#: The browsers that counted a session (:meth:`StatsStore.browsers`) are found by this index.
_SESSION_INDEX = "CREATE INDEX IF NOT EXISTS stats_games_session ON stats_games (session)"


class BrowserIdError(BackgammonError, ValueError):
    """A browser id that is not 8 to 64 letters, digits, ``-`` or ``_``; the message quotes
    it."""


def check_browser_id(value: object) -> str:
    """The browser id, checked (:func:`gametable.stats.check_browser_id`).

    Raises:
        BrowserIdError: not a string of 8 to 64 letters, digits, ``-`` or ``_``.
    """
    try:
        return table_browser_id(value)
    except ActionRefused as error:
        raise BrowserIdError(str(error)) from None


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """One game as the record keeps it.

    Attributes:
        browser: the browser's id.
        session: the session it belongs to (a local game's id, an online room's code).
        game: its number in the session, from 1.
        opponent: one of :data:`OPPONENTS`.
        mode: one of :data:`MODES`.
        won: whether the browser's player won it.
        points: what it scored (the cube and the result; >= 1).
        result: as scored: one of :data:`RESULTS` (a drop or a timeout scores ``"single"``).
        match: for the game that ended a match: ``"won"`` or ``"lost"``; otherwise None.

    Raises:
        ValueError: (on construction) a value outside those listed, quoted.
    """

    browser: str
    session: str
    game: int
    opponent: str
    mode: str
    won: bool
    points: int
    result: str
    match: Literal["won", "lost"] | None = None

    def __post_init__(self) -> None:
        check_browser_id(self.browser)
        for name, allowed in (("opponent", OPPONENTS), ("mode", MODES), ("result", RESULTS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, got "
                                 f"{getattr(self, name)!r}")
        if self.match not in (None, "won", "lost"):
            raise ValueError(f"match must be None, 'won' or 'lost', got {self.match!r}")
        for name in ("game", "points"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")
        if not isinstance(self.session, str) or not self.session:
            raise ValueError(f"session must be a non-empty string, got {self.session!r}")


class StatsRowJSON(TypedDict):
    """The counts of one group of games (one opponent and kind of session, or a total)."""

    opponent: str | None
    mode: str | None
    games: int
    won: int
    lost: int
    points_won: int
    points_lost: int
    gammons_won: int
    gammons_lost: int
    backgammons_won: int
    backgammons_lost: int
    matches_won: int
    matches_lost: int


class StatsJSON(TypedDict):
    """A browser's record: ``rows`` by opponent and kind of session (only those played, in
    the order of :data:`OPPONENTS` then :data:`MODES`), ``by_opponent`` and ``by_mode`` the
    same summed, and ``total``. A group's ``opponent`` or ``mode`` is None where it sums
    over them."""

    rows: list[StatsRowJSON]
    by_opponent: list[StatsRowJSON]
    by_mode: list[StatsRowJSON]
    total: StatsRowJSON


def _empty(opponent: str | None, mode: str | None) -> StatsRowJSON:
    return {"opponent": opponent, "mode": mode, "games": 0, "won": 0, "lost": 0,
            "points_won": 0, "points_lost": 0, "gammons_won": 0, "gammons_lost": 0,
            "backgammons_won": 0, "backgammons_lost": 0, "matches_won": 0, "matches_lost": 0}


def _add(row: StatsRowJSON, won: bool, points: int, result: str, match: str | None) -> None:
    side = "won" if won else "lost"
    row["games"] += 1
    row[side] += 1  # type: ignore[literal-required]
    row[f"points_{side}"] += points  # type: ignore[literal-required]
    if result in ("gammon", "backgammon"):
        row[f"{result}s_{side}"] += 1  # type: ignore[literal-required]
    if match is not None:
        row[f"matches_{match}"] += 1  # type: ignore[literal-required]


class StatsStore:
    """The record of every browser; safe to share between threads.

    Args:
        path: the SQLite file (the games' file: the table is its own), or ``":memory:"``.
        now: the clock for the timestamps, seconds since the epoch (injected for tests).
    """

    def __init__(self, path: str | Path, *, now: Callable[[], float] = time.time) -> None:
        self._db = Database(path, (_SCHEMA, _SESSION_INDEX))
        self.path = self._db.path
        self._now = now

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def record(self, game: FinishedGame) -> bool:
        """Count a finished game; a game already counted (same browser, session and number)
        is left as it is.

        Returns:
            Whether the game was new to the record.
        """
        return self._db.write(
            "INSERT OR IGNORE INTO stats_games (browser, session, game, opponent, mode, "
            "won, points, result, match, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game.browser, game.session, game.game, game.opponent, game.mode,
             int(game.won), game.points, game.result, game.match, self._now())) > 0

    def browsers(self, session: str) -> set[str]:
        """The browsers whose records hold a game of ``session``."""
        rows = self._db.read("SELECT DISTINCT browser FROM stats_games WHERE session = ?",
                             (session,))
        return {str(row[0]) for row in rows}

    def rename_session(self, browser: str, old: str, new: str) -> int:
        """Count the browser's games of session ``old`` as session ``new``'s, in one
        transaction (an online room moved to another door: its games keep their numbers); a
        game ``new`` holds already is counted once. Returns how many games were renamed."""
        with self._db.transaction() as conn:
            renamed = conn.execute(
                "UPDATE OR IGNORE stats_games SET session = ? WHERE browser = ? AND "
                "session = ?", (new, browser, old)).rowcount
            conn.execute("DELETE FROM stats_games WHERE browser = ? AND session = ?",
                         (browser, old))
        return renamed

    def games(self, browser: str) -> list[FinishedGame]:
        """The browser's finished games, oldest first.

        Raises:
            BrowserIdError: a malformed browser id.
        """
        check_browser_id(browser)
        rows = self._db.read(
            "SELECT session, game, opponent, mode, won, points, result, match "
            "FROM stats_games WHERE browser = ? ORDER BY ended_at, session, game", (browser,))
        return [FinishedGame(browser, str(s), int(g), str(o), str(m), bool(w), int(p), str(r),
                             m2) for s, g, o, m, w, p, r, m2 in rows]

    def summary(self, browser: str) -> StatsJSON:
        """The browser's stats (see :class:`StatsJSON`); all zero for a browser never seen.

        Raises:
            BrowserIdError: a malformed browser id.
        """
        return summarize(self.games(browser))

    def clear(self, browser: str) -> int:
        """Forget the browser's record; returns how many games it held.

        Raises:
            BrowserIdError: a malformed browser id.
        """
        check_browser_id(browser)
        return self._db.write("DELETE FROM stats_games WHERE browser = ?", (browser,))


def summarize(games: Iterable[FinishedGame]) -> StatsJSON:
    """The stats of these games (see :class:`StatsJSON`)."""
    rows: dict[tuple[str, str], StatsRowJSON] = {}
    by_opponent: dict[str, StatsRowJSON] = {}
    by_mode: dict[str, StatsRowJSON] = {}
    total = _empty(None, None)
    for game in games:
        for row in (rows.setdefault((game.opponent, game.mode), _empty(game.opponent, game.mode)),
                    by_opponent.setdefault(game.opponent, _empty(game.opponent, None)),
                    by_mode.setdefault(game.mode, _empty(None, game.mode)), total):
            _add(row, game.won, game.points, game.result, game.match)
    return {
        "rows": [rows[key] for key in sorted(
            rows, key=lambda k: (OPPONENTS.index(k[0]), MODES.index(k[1])))],
        "by_opponent": [by_opponent[o] for o in OPPONENTS if o in by_opponent],
        "by_mode": [by_mode[m] for m in MODES if m in by_mode],
        "total": total,
    }


_RESULT_NAMES: Final = {1: "single", 2: "gammon", 3: "backgammon"}


def online_session(code: str, match_number: int) -> str:
    """The session a seat's games of a room of backgammon's old online door were counted
    under (the door is gone: :mod:`backgammon.services.room_migration` renames them to
    :func:`room_session`)."""
    return f"online:{code}:{match_number}"


def finished_game(game: Game, player: Color, *, browser: str, session: str, number: int,
                  opponent: str, mode: str, match_over: bool) -> FinishedGame | None:
    """``game`` as ``player``'s record counts it, or None while it goes on.

    Args:
        game: a game of the session; ``number`` its number there, from 1.
        player: the side the browser played (in pass & play, White).
        browser, session, opponent, mode: as :class:`FinishedGame`.
        match_over: this game ended a match (the record then says whether it was won).

    The result is as scored: a drop, a timeout or a forfeit scores ``"single"`` whatever the
    board (a forfeit's points are the referee's), and
    so does a gammon with gammons off (its points are the cube's).
    """
    outcome = game.outcome
    if outcome is None:
        return None
    won = outcome.winner is player
    result = "single"
    if outcome.kind not in ("drop", "timeout", "forfeit") and outcome.points > game.cube_value:
        result = _RESULT_NAMES[int(outcome.result_kind)]
    match: Literal["won", "lost"] | None = None
    if match_over:
        match = "won" if won else "lost"
    return FinishedGame(browser, session, number, opponent, mode, won, outcome.points, result,
                        match)
