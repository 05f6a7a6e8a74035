"""The server's settings: where games are saved, limits, and injected randomness."""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from backgammon.core.game import DiceLike
from backgammon.server.analytics import Analytics
from backgammon.services.analysis_jobs import DEFAULT_EVALUATIONS, DEFAULT_MAX_TURNS
from backgammon.services.clock import TimeControl
from gametable.clock import controls_from_env
from gametable.room import THINK_AFTER

#: The largest request body accepted, in bytes; every API request is far smaller.
DEFAULT_MAX_BODY_BYTES: Final = 16 * 1024
#: The largest ``.mat`` upload accepted, in bytes (a long match is some tens of kilobytes).
DEFAULT_MAX_UPLOAD_BYTES: Final = 2 * 1024 * 1024
#: The longest an upload is read, in seconds (a match of 3,000 turns is read in about half a
#: second on the project's machine).
DEFAULT_UPLOAD_SECONDS: Final = 5.0
#: The most seconds a request's body may take to arrive (a 2 MB upload at 70 KB a second).
DEFAULT_BODY_TIMEOUT: Final = 30.0
#: Requests and WebSockets one client address may have open at once (``serve`` sets it from
#: ``--max-connections-per-address``).
DEFAULT_CONNECTIONS_PER_ADDRESS: Final = 200
#: The file name of the default database inside the user's data directory.
DEFAULT_DB_NAME: Final = "games.sqlite3"


def default_db_path() -> Path:
    """The database file in the user's data directory (created when first opened).

    ``$XDG_DATA_HOME/backgammon`` (default ``~/.local/share/backgammon``) on Linux and other
    Unix systems, ``~/Library/Application Support/backgammon`` on macOS and
    ``%APPDATA%\\backgammon`` on Windows; the file is ``games.sqlite3``.
    """
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "backgammon" / DEFAULT_DB_NAME


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """What :func:`~backgammon.server.create_app` needs.

    Attributes:
        db_path: the SQLite file of saved games (``":memory:"`` for a store that lives as long
            as the app); default: ``games.sqlite3`` in the user's data directory.
        max_body_bytes: request bodies larger than this are refused with 413.
        max_upload_bytes: the same for a ``.mat`` file sent to be reviewed.
        body_timeout: seconds a request's whole body may take to arrive; a slower one is
            refused with 408 (a client that declares a body and holds it back keeps no
            request open).
        upload_turns: the most turns (rolls and doubles) a ``.mat`` upload (an import, an
            analysis) may hold; the reader refuses it at the turn past them, the rest unread
            (:class:`~backgammon.records.ReadLimits`). Default: as many as one analysis takes.
        upload_seconds: the longest an upload is read and replayed; past it the reader stops
            and the upload is refused with the line it reached.
        rng: the random generator behind the dice and the computer's choices; ``None`` uses
            the operating system's entropy. Tests pass ``random.Random(seed)``.
        dice: the dice every game throws; default ``Dice(rng)``. Tests pass ``FixedDice``.
        now: the game clocks' time source, monotonic seconds; tests pass a fake clock.
        time_controls: the values of the time controls offered (``"none"``, ``"bullet"``,
            ``"blitz"``, ``"rapid"``); default the standard ones
            (:data:`~backgammon.services.clock.TIME_CONTROLS`), except that the environment
            variable ``BACKGAMMON_TEST_TIME_CONTROLS`` (tests only, e.g. ``"bullet=3+1"``)
            shortens them (:func:`~gametable.clock.controls_from_env`).
        analytics: the analytics hook (:class:`~backgammon.server.analytics.Analytics`);
            None (the default): off, the page loads no analytics script and its CSP names no
            other origin.
        evaluations: evaluations computed at once, from every client together (the game's
            hint, the position editor's, a review's, and the computer's turns); a hint past
            them is refused at once with 503 ``busy``, a computer's turn waits for one
            (:class:`~backgammon.services.analysis_jobs.EvaluationSlots`), and one client
            address holds at most a quarter of them (at least 1), so that it keeps no other
            client waiting.
        claim_thinking_after: seconds of its turn an untimed online game waits on a player
            who is connected (thinking) before the other may claim the game (a player whose
            connection dropped may be claimed against 2 minutes after); warned 2 minutes
            before (:class:`gametable.room.Room`'s ``think_after``).
        connections_per_address: requests in progress and WebSockets open that one client
            address (as the app sees it: a trusted proxy's ``X-Forwarded-For``) may have at
            once; one more is refused (503 ``too_many_connections``; a WebSocket closed with
            1013) (:class:`~backgammon.server.middleware.ClientShareMiddleware`).
        redis_url: ``redis://HOST:PORT/DB``: the online rooms of both games (``/api/rooms``)
            live in that Redis, shared by every server process given the same URL
            (:mod:`gametable.redis_rooms`); None (the default): in ``db_path``, this process
            only. Either way, the rooms backgammon's old online door left in ``db_path`` are
            moved there at start (:mod:`backgammon.services.room_migration`).
    """

    db_path: str | Path = field(default_factory=default_db_path)
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_BYTES
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    upload_turns: int = DEFAULT_MAX_TURNS
    upload_seconds: float = DEFAULT_UPLOAD_SECONDS
    rng: random.Random | None = None
    dice: DiceLike | None = None
    now: Callable[[], float] = time.monotonic
    time_controls: Mapping[str, TimeControl | None] = field(default_factory=controls_from_env)
    analytics: Analytics | None = None
    evaluations: int = DEFAULT_EVALUATIONS
    connections_per_address: int = DEFAULT_CONNECTIONS_PER_ADDRESS
    claim_thinking_after: float = THINK_AFTER
    redis_url: str | None = None


__all__ = ["DEFAULT_BODY_TIMEOUT", "DEFAULT_CONNECTIONS_PER_ADDRESS", "DEFAULT_DB_NAME",
           "DEFAULT_MAX_BODY_BYTES",
           "DEFAULT_MAX_UPLOAD_BYTES", "DEFAULT_UPLOAD_SECONDS", "ServerSettings",
           "default_db_path"]
