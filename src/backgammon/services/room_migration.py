"""Rooms stored by backgammon's old online door, carried over to the table's door (issue 33).

Backgammon's online play moved from its own door (``services/online/``, deleted; its rooms
stored action by action in the tables ``online_rooms`` and ``online_actions``, read here by
the frozen reader :mod:`backgammon.services.old_rooms`) to the game-agnostic table's door
(:mod:`gametable.rooms`, one record a room in :class:`gametable.room_store.RoomStore`, or in
Redis with ``serve --redis``). Both stores live in the same database file. At ``backgammon
serve`` startup, before the door serves, every live room of the old store is converted
(:func:`convert_room`), written to the new store, then deleted from the old one
(:func:`migrate_rooms`, :func:`migrate_rooms_to_redis`):

* **Its code**: the old door's codes are 16 URL-safe characters (``A-Z a-z 0-9 - _``); the
  table's door and its page spell a code in upper case, letters and digits only
  (``room_client.js`` ``normalCode``; the door's ``code.upper()``). The room keeps its code
  as the new door spells it: :func:`table_code` (upper case, ``-`` and ``_`` left out), which
  is what ``normalCode`` makes of the old code, so an old link or kept seat, normalised by the
  page, opens it. Two old codes that fold to the same one (or a new room already holding it)
  keep the later room in the old store.
* **The game**: the match is replayed from the old room's rows by the old door's rules
  (:func:`backgammon.services.old_rooms.replay_room`), and its log (settings,
  scores, cube, Crawford, every roll with its dice) becomes the table's log; a play half made
  (checkers moved, the turn not ended) is taken back: the new door takes whole plays, the
  dice stay. The settings: ``length`` (0 for money play and for the old door's single game,
  which is the table's ``single`` setting), ``cube``, ``jacoby``, ``beavers``, gammons counted.
* **The seats**: each seat's side (after a rematch the host may play Black), its name and
  the SHA-256 of its token. Both doors keep ``sha256(token).hexdigest()``
  (``gametable.room.token_hash`` at the new door), so the hashes are copied and the
  players' existing tokens open the same seats. A room nobody has joined keeps its free
  seat.
* **The clock**: the time control, each side's time left as at the old room's last stored
  action (no time is charged for the downtime nor for the migration), the turn on the clock
  being the side the table's game waits on (:meth:`TableMatch.on_clock
  <backgammon.adapter.TableMatch.on_clock>`).
* **A dice round in progress** (a commitment sent, the secret or reveal not yet): the two
  doors' rounds differ in shape (the old one numbers from 1 and keeps each side's step by
  colour, the new one is a :class:`gametable.fair.FairRound`), so the round is restarted: the
  game is before its roll, as it was, and the next round number is the old one's (fresh
  secrets; no dice were thrown, so nothing can be steered). The time the old round had
  waited on a side is not charged.
* **Rematch** offers carry over (by side); the rooms' games of earlier matches were not kept
  by the old door (a rematch replaced the match), so the history is empty.
* **The browsers' records**: the games of the match that a browser's record counted at the
  old door (session ``online:CODE:N``) are counted under the new door's session of the same
  seat (``rooms:NEWCODE:0:SIDE``, :meth:`StatsStore.rename_session
  <backgammon.services.stats.StatsStore.rename_session>`), so the new door does not count
  them again.

Not carried: rooms closed (a player left) or aborted (no play can follow), and rooms the old
door would have dropped at start (not written for :data:`OLD_STALE_AFTER`; over and not
written for :data:`OLD_EXPIRY`): they are deleted from the old store, counted in
:attr:`MigrationReport.ended`. The expiry at the new door counts from the migration (as from
any restart: :meth:`RoomService.restore <gametable.rooms.RoomService.restore>`).

The old door's single game (``match_length`` 0, not money) is the table's single game
(``single``: one game of money play with the cube, over with that game): its log says length
0, so the replay is exact and its ``.mat`` the same.

Nothing is lost if the migration stops half way: a room is deleted from the old store only
after its record is written to the new one; a room found in the new store already with the
same seats (a run that stopped between the two) is deleted from the old store without being
written again. Running it twice is harmless. A room that cannot be converted (damaged, its
actions no longer replay, its code taken, the new store refuses it, Redis out of reach) stays
in the old store, logged with the reason (:attr:`MigrationReport.kept`), to be tried again at
the next start (no door serves it). A page that kept a seat of the old door asks where its
room went (``POST /api/online/moved``, :mod:`backgammon.server.moved_api`, answered by
:func:`moved_finder`), and ``js/seat_migration.js`` carries its seat to the new door.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import logging
import re
import sqlite3
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from backgammon.adapter import RULES, TableMatch
from backgammon.core.match import Match
from backgammon.core.types import BLACK, WHITE, Color
from backgammon.services.clock import Clock as OldClock
from backgammon.services.old_rooms import (
    FINISHED,
    GUEST,
    HOST,
    PLAYING,
    WAITING,
    OldRoom,
    OldRoomError,
    StoredRow,
    delete_room,
    read_rooms,
    replay_room,
)
from backgammon.services.stats import StatsStore, online_session, room_session
from gametable.clock import TIME_CONTROLS, TimeControl
from gametable.errors import ActionRefused, TableError
from gametable.room import ROOM_VERSION, Room
from gametable.room_store import RoomStore, StaleRoomError
from gametable.rooms import IDLE_EXPIRY, RoomService
from gametable.seam import SIDES, Side
from gametable.table import RECORD_VERSION

if TYPE_CHECKING:
    from gametable.redis_rooms import RedisRoomStore

logger = logging.getLogger("backgammon.online")

__all__ = [
    "GAME",
    "OLD_CODE_RE",
    "MigrationError",
    "MigrationReport",
    "RoomEndedError",
    "TableRoom",
    "convert_room",
    "migrate_rooms",
    "migrate_rooms_to_redis",
    "migrate_to_redis",
    "moved_finder",
    "table_code",
]

#: The game's name at the table.
GAME: Final = "backgammon"
#: The phases of an old room that play can follow (the others are final).
LIVE: Final = frozenset({WAITING, PLAYING, FINISHED})
#: Seconds after its last write that the old door dropped a stored room at start, whatever
#: its phase (its ``DEFAULT_STALE_AFTER``).
OLD_STALE_AFTER: Final = 24 * 3600.0
#: Seconds after its last write that the old door dropped a room that was over (its
#: ``DEFAULT_EXPIRY``).
OLD_EXPIRY: Final = 600.0
_CODE_RE: Final = re.compile(r"^[A-Z0-9]{4,16}$")
#: The old door's codes: 16 URL-safe characters (96 random bits).
OLD_CODE_RE: Final = re.compile(r"[A-Za-z0-9_-]{16}")


class MigrationError(TableError, ValueError):
    """An old room that cannot be converted; the message says why (the room stays in the old
    store)."""


class RoomEndedError(MigrationError):
    """An old room no play can follow (closed, aborted): not carried over."""


@dataclass(frozen=True, slots=True)
class TableRoom:
    """An old room converted: what the table's store keeps.

    Attributes:
        old_code: its code at the old door.
        code: its code at the table's door (:func:`table_code`).
        owner: the address that made it (the old header's ``address``), or None.
        record: the room's record (:meth:`gametable.room.Room.to_record`, with ``"over"`` as
            :class:`~gametable.rooms.RoomService` saves it).
        session: the session the old door counted the match's games under in browsers'
            records (``online:CODE:N``, :func:`~backgammon.services.stats.online_session`).
        winners: each game's winner by number (None while it is not over).
    """

    old_code: str
    code: str
    owner: str | None
    record: dict[str, Any]
    session: str = ""
    winners: tuple[Side | None, ...] = ()


@dataclass(slots=True)
class MigrationReport:
    """What one run did.

    Attributes:
        moved: old code -> new code, for each room now at the table's door (written by this
            run, or found there from a run that stopped before deleting it).
        kept: old code -> why, for each live room left in the old store.
        ended: the codes of the rooms deleted from the old store because no play can follow
            (closed, aborted, or past the old door's expiry: it would have dropped them).
    """

    moved: dict[str, str] = field(default_factory=dict)
    kept: dict[str, str] = field(default_factory=dict)
    ended: list[str] = field(default_factory=list)


def table_code(old_code: str) -> str:
    """The old door's room code as the table's door spells it: upper case, letters and digits
    only (what the page's ``normalCode`` makes of it).

    Raises:
        MigrationError: the result is not 4 to 16 letters and digits (the door's bounds).
    """
    code = re.sub(r"[^A-Z0-9]", "", old_code.upper())
    if not _CODE_RE.fullmatch(code):
        raise MigrationError(f"its code {old_code!r} gives {code!r} at the table's door, not 4 "
                             f"to 16 letters and digits")
    return code


def _side(color: Color) -> Side:
    return "white" if color is WHITE else "black"


def _settings(room: OldRoom) -> dict[str, Any]:
    """The table's settings of the old room's match (gammons always count at the old door)."""
    settings = room.settings
    return {"length": settings.match_length, "cube": settings.cube, "gammons": True,
            "jacoby": settings.jacoby, "beavers": settings.beavers,
            "single": settings.match_length == 0 and not settings.money}


def _clock_record(clock: OldClock | None, turn: Side | None) -> dict[str, Any] | None:
    """The table's clock record: the old clock's control and time left now (its room's clock
    stands at its last stored action), paused on ``turn`` (the table resumes it)."""
    if clock is None:
        return None
    running = clock.running if clock.running is not None else clock.paused
    same = running is not None and _side(running) == turn
    return {
        "control": clock.control.to_dict(),
        "remaining": {"white": clock.remaining(WHITE), "black": clock.remaining(BLACK)},
        "turn": turn,
        "turn_used": clock.turn_used() if same else 0.0,
    }


def convert_room(item: StoredRow, *,
                 time_controls: Mapping[str, TimeControl | None] = TIME_CONTROLS) -> TableRoom:
    """Convert one stored old-door room into the table's record (see the module docstring).

    Args:
        item: the room's rows (:func:`backgammon.services.old_rooms.read_rooms`).
        time_controls: the time controls' values the old door ran with (``backgammon serve``'s
            configured ones), so the replayed clocks are the ones the players saw.

    Returns:
        The room's code, owner and record; the record is checked: the table rebuilds it
        (:meth:`Room.from_record <gametable.room.Room.from_record>`) into the same match
        (its log and ``.mat`` transcript).

    Raises:
        RoomEndedError: the room is not live (:data:`LIVE`).
        MigrationError: the room does not replay, its code does not fit the new door, or the
            record does not rebuild (the message says why).
    """
    try:
        room = replay_room(item, time_controls)
    except OldRoomError as exc:
        raise MigrationError(str(exc)) from None
    hashes = room.hashes
    if room.phase not in LIVE:
        raise RoomEndedError(f"it is {room.phase}: no play can follow")
    code = table_code(item.code)
    match: Match = room.match
    game = match.current
    while game.played:  # a play half made: the table takes whole plays (the dice stay)
        game.undo()
    log = match.to_log()
    tokens: dict[Side, str | None] = {side: None for side in SIDES}
    names: dict[Side, str] = {side: "" for side in SIDES}
    for seat in (HOST, GUEST):
        side = _side(room.colors[seat])
        tokens[side] = hashes.get(seat)
        if seat in hashes:
            names[side] = room.names.get(seat, "")
    settings = _settings(room)
    try:
        RULES.settings(settings)
        progress = RULES.replay(settings, 0, [log])
    except ActionRefused as exc:
        raise MigrationError(f"its match does not replay at the table: {exc}") from None
    turn = progress.on_clock() if progress.outcome() is None else None
    seed = int.from_bytes(hashlib.sha256(code.encode()).digest()[:4], "big") >> 1
    record: dict[str, Any] = {
        "version": ROOM_VERSION,
        "code": code,
        "table": {
            "version": RECORD_VERSION,
            "game": GAME,
            "settings": settings,
            "seed": seed,
            "seats": {side: {"kind": "remote", "level": None, "name": names[side]}
                      for side in SIDES},
            "fair": True,
            "log": [log],
            "clock": _clock_record(room.clock, turn),
            "actions": 0,
            "thought": None,
        },
        "time_control": room.settings.time_control,
        "tokens": tokens,
        "names": names,
        "round": None,  # a round in progress is restarted (module docstring)
        "next_round": room.next_round,
        "rematch": sorted(_side(room.colors[seat]) for seat in room.rematch),
        "history": [],
        "room_version": 0,
        "over": progress.outcome() is not None,
    }
    _check(record, match)
    winners = tuple(None if g.outcome is None else _side(g.outcome.winner)
                    for g in match.games)
    return TableRoom(item.code, code, room.address, record,
                     online_session(item.code, room.match_number), winners)


def _check(record: dict[str, Any], match: Match) -> None:
    """The table rebuilds ``record`` into the same match.

    Raises:
        MigrationError: it does not, saying how.
    """
    try:
        rebuilt = Room.from_record(record, {GAME: RULES}, lambda: 0.0)
    except ActionRefused as exc:
        raise MigrationError(f"the table refuses its record: {exc}") from None
    progress = rebuilt.table.game
    if not isinstance(progress, TableMatch) or progress.match.to_log() != match.to_log():
        raise MigrationError("the table's replay of its match is not the match")


def _same_seats(record: Mapping[str, Any], room: TableRoom) -> bool:
    """Whether a stored record is this room's (a run that stopped before deleting the old
    row): the same seat token hashes, whatever the sides (a rematch since swaps them)."""
    tokens = record.get("tokens")
    if not isinstance(tokens, Mapping):
        return False
    stored = {value for value in tokens.values() if isinstance(value, str)}
    ours = {value for value in room.record["tokens"].values() if isinstance(value, str)}
    return bool(ours) and stored == ours


def _candidates(db_path: str | Path, report: MigrationReport, *, wall: float,
                time_controls: Mapping[str, TimeControl | None], stale_after: float,
                expiry: float) -> list[TableRoom]:
    """The old store's live rooms converted; the ended ones deleted, the others recorded in
    ``report``."""
    converted: list[TableRoom] = []
    codes: dict[str, str] = {}
    for code, item in read_rooms(db_path):
        if isinstance(item, OldRoomError):
            _keep(report, code, str(item))
            continue
        if wall - item.updated_at >= stale_after:
            _ended(db_path, report, code)  # the old door dropped it at start
            continue
        try:
            room = convert_room(item, time_controls=time_controls)
        except RoomEndedError:
            _ended(db_path, report, code)
            continue
        except MigrationError as exc:
            _keep(report, code, str(exc))
            continue
        if room.record["over"] and wall - item.updated_at >= expiry:
            _ended(db_path, report, code)  # over and past the old door's expiry
            continue
        if room.code in codes:
            _keep(report, code, f"its code at the table's door, {room.code}, is also room "
                                f"{codes[room.code]!r}'s")
            continue
        codes[room.code] = code
        converted.append(room)
    return converted


def _ended(db_path: str | Path, report: MigrationReport, code: str) -> None:
    """A room no play can follow: deleted from the old store (the next run tries again when
    the delete fails)."""
    try:
        delete_room(db_path, code)
    except sqlite3.Error as exc:
        logger.error("online room %s: ended, not deleted from the old store (%s)", code, exc)
    report.ended.append(code)


def _keep(report: MigrationReport, code: str, why: str) -> None:
    report.kept[code] = why
    logger.error("online room %s stays in the old door's store: %s", code, why)


def _carry_stats(stats: StatsStore, room: TableRoom) -> None:
    """The games of the room's match that browsers' records counted at the old door are
    counted under the table's door's session of the same seat
    (:func:`~backgammon.services.stats.room_session`), so that the new door does not count
    them again. A browser's seat is the side that won the first of its games it won (lost:
    the other side)."""
    for browser in sorted(stats.browsers(room.session)):
        side: Side | None = None
        for game in stats.games(browser):
            if game.session != room.session or not 1 <= game.game <= len(room.winners):
                continue
            winner = room.winners[game.game - 1]
            if winner is not None:
                side = winner if game.won else ("black" if winner == "white" else "white")
                break
        if side is not None:
            stats.rename_session(browser, room.session, room_session(room.code, 0, side))


def _moved(db_path: str | Path, report: MigrationReport, room: TableRoom,
           stats: StatsStore | None) -> None:
    """The room is at the table's door: its games counted in browsers' records follow it,
    and it is deleted from the old store."""
    if stats is not None:
        try:
            _carry_stats(stats, room)
        except sqlite3.Error as exc:  # the record may count them again: a small harm
            logger.error("online room %s: its games counted in browsers' records were not "
                         "carried over (%s)", room.old_code, exc)
    try:
        delete_room(db_path, room.old_code)
    except sqlite3.Error as exc:  # the next run finds it moved already and deletes it then
        logger.error("online room %s: moved to the table's door as %s, not deleted from the "
                     "old store (%s)", room.old_code, room.code, exc)
    report.moved[room.old_code] = room.code
    logger.warning("online room %s moved to the table's door as %s", room.old_code, room.code)


def migrate_rooms(db_path: str | Path, target: RoomStore, *,
                  time_controls: Mapping[str, TimeControl | None] = TIME_CONTROLS,
                  wall: float | None = None, stale_after: float = OLD_STALE_AFTER,
                  expiry: float = OLD_EXPIRY,
                  stats: StatsStore | None = None) -> MigrationReport:
    """Move every live room of the old door's store in ``db_path`` to the table's SQLite store
    ``target`` (at start, before :meth:`RoomService.restore
    <gametable.rooms.RoomService.restore>`).

    Args:
        db_path: the database file the old door stores its rooms in (``online_rooms``,
            ``online_actions``); ``":memory:"`` holds none.
        target: the table's room store (the same file's ``table_rooms``).
        time_controls: the old door's time controls' values (the server's configured ones).
        wall: now, seconds since the epoch (default :func:`time.time`).
        stale_after: rooms not written for that long are deleted (the old door dropped them
            at start).
        expiry: rooms over and not written for that long are deleted (the same).
        stats: the browsers' records (the same file's): the games of a moved room's match
            counted at the old door are counted under the new door's session of their seat
            (:func:`_carry_stats`), not again; None leaves the records as they are.

    Returns:
        What was moved, kept (with why) and left as ended.

    Raises:
        sqlite3.Error: ``db_path`` is not an SQLite database, or its old rooms cannot be
            read (nothing is moved).
    """
    report = MigrationReport()
    if str(db_path) == ":memory:":
        return report
    now = time.time() if wall is None else wall
    rooms = _candidates(db_path, report, wall=now, time_controls=time_controls,
                        stale_after=stale_after, expiry=expiry)
    if rooms:
        stored = {row.code: row for row in target.load_all()}
        for room in rooms:
            found = stored.get(room.code)
            if found is not None:
                if found.game == GAME and _same_seats(found.record, room):
                    _moved(db_path, report, room, stats)
                else:
                    _keep(report, room.old_code, f"its code at the table's door, {room.code}, "
                                                 f"is another room's")
                continue
            try:
                target.save(room.code, GAME, room.owner, 1, room.record)
            except (TableError, sqlite3.Error) as exc:
                _keep(report, room.old_code, f"the table's store refused it: {exc}")
                continue
            _moved(db_path, report, room, stats)
    _summary(report)
    return report


async def migrate_rooms_to_redis(
    db_path: str | Path, store: RedisRoomStore, *,
    idle_expiry: float = IDLE_EXPIRY,
    time_controls: Mapping[str, TimeControl | None] = TIME_CONTROLS,
    wall: float | None = None, stale_after: float = OLD_STALE_AFTER,
    expiry: float = OLD_EXPIRY, stats: StatsStore | None = None,
) -> MigrationReport:
    """:func:`migrate_rooms` with the table's rooms in Redis (``serve --redis``): each room is
    created in ``store`` (:meth:`RedisRoomStore.create
    <gametable.redis_rooms.RedisRoomStore.create>`: its stream's ``create`` event, its TTL
    ``idle_expiry`` seconds, the per-address and server-wide counts not applied: the rooms
    existed), before any process serves them. A process that rebuilds the room charges the
    time since it was written, as for any room in Redis (a moment at start).

    A room Redis does not answer for, and those after it, stay in the old store (kept, with
    the reason), to be moved at the next start.

    Raises:
        sqlite3.Error: ``db_path`` is not an SQLite database, or its old rooms cannot be
            read (nothing is moved).
    """
    from gametable.redis_rooms import RoomStoreUnavailable

    report = MigrationReport()
    if str(db_path) == ":memory:":
        return report
    now = time.time() if wall is None else wall
    rooms = _candidates(db_path, report, wall=now, time_controls=time_controls,
                        stale_after=stale_after, expiry=expiry)
    for index, room in enumerate(rooms):
        try:
            try:
                await store.create(room.code, GAME, room.owner, room.record,
                                   ttl=int(idle_expiry), max_rooms=2**31,
                                   max_per_owner=2**31, saved_at=time.time())
            except StaleRoomError:
                loaded = await store.load(room.code)
                if loaded is not None and _same_seats(loaded.record, room):
                    _moved(db_path, report, room, stats)
                else:
                    _keep(report, room.old_code, f"its code at the table's door, "
                                                 f"{room.code}, is another room's")
                continue
        except RoomStoreUnavailable as exc:  # the rest wait for the next start
            for left in rooms[index:]:
                _keep(report, left.old_code, f"Redis did not answer: {exc}")
            break
        except ActionRefused as exc:
            _keep(report, room.old_code, f"the table's store refused it: {exc}")
            continue
        _moved(db_path, report, room, stats)
    _summary(report)
    return report


def migrate_to_redis(db_path: str | Path, url: str, *, idle_expiry: float = IDLE_EXPIRY,
                     time_controls: Mapping[str, TimeControl | None] = TIME_CONTROLS,
                     stats: StatsStore | None = None) -> MigrationReport:
    """:func:`migrate_rooms_to_redis` from synchronous code (``create_app``, before the server's
    event loop runs or from inside one): with a client of its own (``url``), in an event loop
    of its own, in a thread of its own, closed before it returns.

    Raises:
        as :func:`migrate_rooms_to_redis`.
    """
    from gametable.redis_rooms import RedisRoomStore

    async def run() -> MigrationReport:
        store = RedisRoomStore(url)
        try:
            return await migrate_rooms_to_redis(db_path, store, idle_expiry=idle_expiry,
                                                time_controls=time_controls, stats=stats)
        finally:
            await store.close()

    if str(db_path) == ":memory:":
        return MigrationReport()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


def moved_finder(moved: Mapping[str, str], service: RoomService, *,
                 kept: Collection[str] = ()) -> Callable[[str], str | None]:
    """Where an old-door room went, for a page that kept a seat there
    (``POST /api/online/moved``, :mod:`backgammon.server.moved_api`): a function of an old
    code giving its code at the table's door, or None. It knows the rooms ``moved`` at this
    start (old code -> new code), and those moved at an earlier one that ``service`` holds (a
    code of the old door's shape, :data:`OLD_CODE_RE`, whose :func:`table_code` is a
    backgammon room's; with Redis, only rooms held by this process). The codes ``kept`` (rooms
    left in the old store at this start) went nowhere, whatever room holds their code at the
    table's door."""

    def find(code: str) -> str | None:
        if code in moved:
            return moved[code]
        if code in kept or not OLD_CODE_RE.fullmatch(code):
            return None
        try:
            new = table_code(code)
            room = service.room(new)
        except (MigrationError, ActionRefused):
            return None
        return new if room.table.rules.name == GAME else None

    return find


def _summary(report: MigrationReport) -> None:
    if report.moved or report.kept:
        logger.warning("online rooms: %d moved from backgammon's old door to the table's, %d "
                       "kept in its store (see above)", len(report.moved), len(report.kept))
