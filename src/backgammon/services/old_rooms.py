"""A frozen reader of the rooms backgammon's old online door stored (issue 33).

The old door (``services/online/``, deleted) kept each room in the games' SQLite file as
what it was made from: a row of ``online_rooms`` (the room's *header*: the host's settings,
the SHA-256 of the host's seat token, its name and address, its clock reading when made) and
one row of ``online_actions`` per accepted action (a player's message as checked, the guest
joining, a clock flag), each with the room's clock reading (``at``). This module reads those
rows with :mod:`sqlite3` and replays them with backgammon's engine (:mod:`backgammon.core`)
and clock (:class:`~backgammon.services.clock.Clock`), by the old door's rules, so that
:mod:`backgammon.services.room_migration` can carry each room to the table's door. It is
frozen: it reads what the old door wrote, and nothing writes those rows any more.

What a replay gives (:class:`OldRoom`): the room's phase, its settings, each seat's side,
name and token hash, the match (its log with every roll and its seconds), which match of the
room it is, the next dice round's number, the rematch offers, and the clock as it stood at
the last stored action. The old door's rules kept here are those that change these: the
dice rounds (commit-reveal: the opening, both sides; a roll, the roller, the opponent's
secret, the reveal), who is on the clock (each awaited side: a wait the clock itself does
not time, the opening's and the opponent's secret, is charged when the awaited message
comes), the increment for a completed turn, flags, claims (trusted: the old door checked
them), forfeits (leaving, a reveal that breaks its commitment), the next game, the rematch
(sides swap). What only the pages saw (views, words, claim warnings) is left out.

Rows are trusted as far as the engine allows: each action is played on the engine, which
refuses what is not legal; a refusal, or a row of the wrong shape, is an
:class:`OldRoomError` naming the room and the row.

The old door's files: ``services/online/rooms.py``, ``persist.py``, ``services/room_store.py``
at commit 4dedb8fa15b4a7c28877791dad8ddd8023663d38 (``git show`` them to compare).
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from backgammon.core.dice import dice_from_secrets, verify_commitment
from backgammon.core.errors import IllegalActionError
from backgammon.core.game import Game, Phase
from backgammon.core.match import Match
from backgammon.core.moves import Move, apply_play
from backgammon.core.types import BLACK, WHITE, Color, Roll
from backgammon.services.clock import Clock
from gametable.clock import TimeControl

__all__ = [
    "GUEST",
    "HOST",
    "OLD_FORMAT",
    "OldRoom",
    "OldRoomError",
    "OldSettings",
    "delete_room",
    "read_rooms",
    "replay_room",
]

#: The one format the old door wrote (``online_rooms.format``).
OLD_FORMAT: Final = 1
#: The old door's seats: the host made the room, the guest joined it.
HOST: Final = "host"
GUEST: Final = "guest"
#: The old door's room phases.
WAITING, PLAYING, FINISHED, ABORTED, CLOSED = ("waiting", "playing", "finished", "aborted",
                                               "closed")
_HASH_RE: Final = re.compile(r"[0-9a-f]{64}")
#: The messages that were a side's action (the game's wait on it starts again).
_ACTIONS: Final = frozenset({"commit", "secret", "reveal", "move", "undo", "end_turn", "play",
                             "double", "take", "drop", "beaver", "raccoon", "resign",
                             "accept", "decline", "rematch", "claim", "next_game"})
#: The messages that answer or make an offer (the cube, a resignation): the engine's own.
_CUBE_OR_RESIGN: Final = frozenset({"double", "take", "drop", "beaver", "raccoon", "resign",
                                    "accept", "decline"})


class OldRoomError(ValueError):
    """A stored old-door room that cannot be read or replayed; the message names the room
    and the row (the rows are left as they are)."""


@dataclass(frozen=True, slots=True)
class OldSettings:
    """The host's settings as the old door stored them.

    Attributes:
        cube: the doubling cube.
        time_control: ``"none"``, ``"bullet"``, ``"blitz"`` or ``"rapid"``.
        match_length: 0 for a single game (or money play), else the match's points.
        money: money play (games one after another).
        jacoby: the Jacoby rule. beavers: beavers allowed.
    """

    cube: bool = False
    time_control: str = "none"
    match_length: int = 0
    money: bool = False
    jacoby: bool = False
    beavers: bool = False


@dataclass(slots=True)
class StoredRow:
    """One old room's rows, checked for shape: ``code``, ``updated_at`` (its last write,
    seconds since the epoch), ``header`` and ``actions`` (``(at, action)`` in order)."""

    code: str
    updated_at: float
    header: dict[str, Any]
    actions: list[tuple[float, dict[str, Any]]]


@dataclass(slots=True)
class _Round:
    number: int
    kind: str  # "opening" or "roll"
    roller: Color | None = None
    commitments: dict[Color, str] = field(default_factory=dict)
    secrets: dict[Color, bytes] = field(default_factory=dict)


class _NoDice:
    """Online dice come from the players' secrets only (``Game.roll(dice=...)``)."""

    def roll(self) -> Roll:
        raise IllegalActionError("online dice come from the players' secrets only")

    def opening_roll(self) -> Roll:
        raise IllegalActionError("online dice come from the players' secrets only")


@dataclass(slots=True)
class OldRoom:
    """An old-door room replayed from its rows.

    Attributes:
        code: its code at the old door (16 URL-safe characters).
        updated_at: when it was last written, seconds since the epoch.
        address: the address that made it, or None.
        settings: the host's settings.
        phase: ``"waiting"``, ``"playing"``, ``"finished"``, ``"aborted"`` or ``"closed"``.
        names: each seat's name (``"host"``, ``"guest"``: only seats taken).
        hashes: each seat's token hash (SHA-256, 64 hex digits; only seats taken).
        colors: each seat's side now (the host is White in the first match).
        match: the match in play (or the last one).
        match_number: which match of the room (a rematch starts the next), from 1.
        next_round: the number the next dice round takes.
        round_open: whether a dice round was in progress.
        rematch: the seats that asked for a rematch.
        clock: the clock as at the room's last stored action (its time source stands there),
            or None untimed.
    """

    code: str
    updated_at: float
    address: str | None
    settings: OldSettings
    phase: str = WAITING
    names: dict[str, str] = field(default_factory=dict)
    hashes: dict[str, str] = field(default_factory=dict)
    colors: dict[str, Color] = field(default_factory=lambda: {HOST: WHITE, GUEST: BLACK})
    match: Match = field(default_factory=Match)
    match_number: int = 1
    next_round: int = 1
    round_open: bool = False
    rematch: set[str] = field(default_factory=set)
    clock: Clock | None = None


def _object(code: str, what: str, text: object) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str | bytes) else None
    except ValueError as exc:
        raise OldRoomError(f"stored room {code!r} is damaged: its {what} is not valid JSON "
                           f"({exc})") from None
    if not isinstance(value, dict):
        raise OldRoomError(f"stored room {code!r} is damaged: its {what} is not a JSON object")
    return value


def _number(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ValueError(f"{what} is not a number: {value!r}")
    return float(value)


def _hash(value: object) -> str:
    if not isinstance(value, str) or not _HASH_RE.fullmatch(value):
        raise ValueError("a seat token hash is not 64 hex digits")
    return value


def _row(row: tuple[Any, ...], rows: list[tuple[Any, ...]]) -> StoredRow:
    """One room's rows checked for shape, as the old store checked them."""
    code, _created, updated, fmt, header_text = row
    code = str(code)
    if fmt != OLD_FORMAT:
        raise OldRoomError(f"stored room {code!r} has format {fmt!r}; the old door wrote "
                           f"format {OLD_FORMAT}")
    header = _object(code, "header", header_text)
    if not isinstance(header.get("settings"), dict):
        raise OldRoomError(f"stored room {code!r} is damaged: its header has no settings "
                           f"object")
    walls = [updated]
    actions = []
    for index, (seq, at, wall, text) in enumerate(rows, start=1):
        if seq != index:
            raise OldRoomError(f"stored room {code!r} is damaged: action {index} is missing "
                               f"(found {seq!r})")
        try:
            stamp = _number(at, "its time"), _number(wall, "its time")
        except ValueError:
            raise OldRoomError(f"stored room {code!r} is damaged: action {seq} has no "
                               f"time") from None
        walls.append(stamp[1])
        action = _object(code, f"action {seq}", text)
        if not isinstance(action.get("kind"), str):
            raise OldRoomError(f"stored room {code!r} is damaged: action {seq} has no kind")
        actions.append((stamp[0], action))
    try:
        last = max(float(w) for w in walls)
    except (TypeError, ValueError):
        raise OldRoomError(f"stored room {code!r} is damaged: its times are not "
                           f"numbers") from None
    return StoredRow(code, last, header, actions)


def _has_tables(db: sqlite3.Connection) -> bool:
    names = {str(row[0]) for row in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {"online_rooms", "online_actions"} <= names


def read_rooms(db_path: str | Path) -> list[tuple[str, StoredRow | OldRoomError]]:
    """Every old-door room stored in ``db_path``, oldest first: its code and its rows checked
    for shape, or the error that refuses them (one damaged room does not stop the others).
    A file without the old door's tables holds none (nothing is created in it).

    Raises:
        sqlite3.Error: the file is not an SQLite database, or cannot be read.
    """
    with contextlib.closing(sqlite3.connect(str(db_path))) as db:
        if not _has_tables(db):
            return []
        heads = db.execute("SELECT code, created_at, updated_at, format, header FROM "
                           "online_rooms ORDER BY created_at, code").fetchall()
        found: list[tuple[str, StoredRow | OldRoomError]] = []
        for head in heads:
            rows = db.execute("SELECT seq, at, wall, action FROM online_actions WHERE code = ? "
                              "ORDER BY seq", (head[0],)).fetchall()
            try:
                found.append((str(head[0]), _row(head, rows)))
            except OldRoomError as exc:
                found.append((str(head[0]), exc))
        return found


def delete_room(db_path: str | Path, code: str) -> bool:
    """Forget an old-door room's rows (one transaction); whether it was stored.

    Raises:
        sqlite3.Error: the write failed (nothing is deleted).
    """
    with contextlib.closing(sqlite3.connect(str(db_path), timeout=5.0)) as db, db:
        if not _has_tables(db):
            return False
        db.execute("DELETE FROM online_actions WHERE code = ?", (code,))
        return db.execute("DELETE FROM online_rooms WHERE code = ?", (code,)).rowcount > 0


def _settings(raw: Mapping[str, Any], controls: Mapping[str, TimeControl | None]
              ) -> OldSettings:
    known = set(OldSettings.__dataclass_fields__)
    unknown = set(raw) - known
    if unknown:
        raise ValueError(f"unknown settings {sorted(unknown)}")
    settings = OldSettings(**raw)
    for flag in ("cube", "money", "jacoby", "beavers"):
        if not isinstance(getattr(settings, flag), bool):
            raise ValueError(f"{flag} is not true or false")
    length = settings.match_length
    if isinstance(length, bool) or not isinstance(length, int) or not 0 <= length <= 25:
        raise ValueError(f"match_length {length!r} is not 0 to 25")
    if settings.time_control not in controls:
        raise ValueError(f"no time control {settings.time_control!r}")
    return settings


class _Replay:
    """The old door's room rules, kept for what they do to the match, the seats and the
    clock (module docstring)."""

    def __init__(self, row: StoredRow, controls: Mapping[str, TimeControl | None]) -> None:
        header = row.header
        settings = _settings(header["settings"], controls)
        name = header.get("host_name")
        if not isinstance(name, str):
            raise ValueError("no host name")
        address = header.get("address")
        self.now = _number(header.get("created"), "its creation time")
        self.room = OldRoom(row.code, row.updated_at,
                            address if isinstance(address, str) else None, settings,
                            names={HOST: name},
                            hashes={HOST: _hash(header.get("host_token"))})
        self.control = controls[settings.time_control]
        self.round: _Round | None = None
        self.decided = False  # by a claim or a forfeit
        self.lap_start = 0.0
        self.since: dict[Color, float] = {}  # since when each awaited side has been awaited
        self.room.match = self._new_match()
        self.room.clock = self._new_clock()

    # state ------------------------------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.room.match.current

    def _seat_of(self, color: Color) -> str:
        return HOST if self.room.colors[HOST] is color else GUEST

    def _new_match(self) -> Match:
        room = self.room
        names = (room.names.get(self._seat_of(WHITE), "White"),
                 room.names.get(self._seat_of(BLACK), "Black"))
        settings = room.settings
        return Match(settings.match_length, cube=settings.cube, names=names,
                     jacoby=settings.jacoby, beavers=settings.beavers, dice=_NoDice())

    def _new_clock(self) -> Clock | None:
        self.lap_start = 0.0
        return None if self.control is None else Clock(self.control, lambda: self.now)

    def _session_over(self) -> bool:
        settings = self.room.settings
        if not self.game.is_over or settings.money:
            return False
        return settings.match_length == 0 or self.room.match.is_over

    def _awaited(self) -> frozenset[Color]:
        if self.room.phase != PLAYING or self.game.is_over:
            return frozenset()
        current = self.round
        if current is not None:
            if current.kind == "opening":
                have = current.commitments if len(current.commitments) < 2 else current.secrets
                return frozenset(c for c in (WHITE, BLACK) if c not in have)
            assert current.roller is not None
            if current.roller.opponent not in current.secrets:
                return frozenset({current.roller.opponent})
            return frozenset({current.roller})
        if self.game.phase is Phase.OPENING:
            return frozenset({WHITE, BLACK})
        turn = self.game.turn
        return frozenset() if turn is None else frozenset({turn})

    def _sync(self, actor: Color | None = None) -> None:
        awaited = self._awaited()
        for color in list(self.since):
            if color not in awaited:
                del self.since[color]
        for color in awaited:
            if color not in self.since or color is actor:
                self.since[color] = self.now

    def _wait_used(self, color: Color) -> float:
        since = self.since.get(color)
        return 0.0 if since is None else max(0.0, self.now - since)

    def _off_clock(self) -> list[Color]:
        clock = self.room.clock
        if clock is None or clock.running is not None:
            return []
        return sorted(self._awaited(), key=str)

    def _charge_wait(self, color: Color) -> None:
        clock = self.room.clock
        if clock is not None and color in self._off_clock():
            clock.charge(color, self._wait_used(color))

    def _used(self, color: Color) -> float | None:
        clock = self.room.clock
        if clock is None or clock.running is not color:
            return None
        return round(max(0.0, clock.turn_used() - self.lap_start), 3)

    def _hand_clock(self, *, increment: bool) -> None:
        clock = self.room.clock
        if clock is None:
            return
        if clock.running is not None or clock.paused is not None:
            clock.stop(increment=increment)
        self.lap_start = 0.0
        if not self.game.is_over and self.game.turn is not None:
            clock.start(self.game.turn)

    def _finished(self) -> None:
        clock = self.room.clock
        if clock is not None and (clock.running or clock.paused):
            clock.stop(increment=False)
        if self._session_over() or self.decided:
            self.room.phase = FINISHED

    # rows -------------------------------------------------------------------------------

    def action(self, at: float, action: Mapping[str, Any]) -> None:
        if at < self.now:
            raise ValueError(f"its time {at} is before the one before it")
        self.now = at
        kind = action.get("kind")
        if kind == "join":
            self._join(action)
        elif kind == "message":
            message = action.get("message")
            if message is None and isinstance(action.get("text"), str):  # the older form
                message = json.loads(action["text"])
            if not isinstance(message, dict) or not isinstance(message.get("type"), str):
                raise ValueError("no message")
            seat = action.get("seat")
            if seat not in (HOST, GUEST):
                raise ValueError(f"no seat {seat!r}")
            self.tick()
            self._message(str(seat), message)
        elif kind == "tick":
            self.tick()
        else:
            raise ValueError(f"unknown kind {kind!r}")

    def _join(self, action: Mapping[str, Any]) -> None:
        room = self.room
        if GUEST in room.hashes or room.phase != WAITING:
            raise ValueError("the guest seat is taken")
        name = action.get("name")
        if name is not None and not isinstance(name, str):
            raise ValueError("the guest's name is not text")
        room.hashes[GUEST] = _hash(action.get("token"))
        room.phase = PLAYING
        room.names[GUEST] = name or "Guest"
        room.match = self._new_match()  # the guest's name in the record
        self._sync()

    def tick(self) -> None:
        """A flag falls for an awaited side out of time (untimed: nothing the match keeps)."""
        clock = self.room.clock
        if self.room.phase != PLAYING or self.game.is_over:
            return
        self._sync()
        if clock is None:
            return
        loser: Color | None = None
        if clock.running is not None:
            if clock.flagged(clock.running):
                loser = clock.running
                clock.stop(increment=False)
        else:
            late = [(clock.remaining(c) - self._wait_used(c), str(c), c)
                    for c in self._off_clock()]
            late = [item for item in late if item[0] <= 0]
            if late:
                loser = min(late)[2]
                clock.charge(loser, max(0.0, clock.remaining(loser)))
        if loser is None:
            return
        self.game.timeout(loser)
        self.round = None
        self._finished()
        self._sync()

    def _message(self, seat: str, message: Mapping[str, Any]) -> None:
        kind = str(message["type"])
        color = self.room.colors[seat]
        if kind in _CUBE_OR_RESIGN:
            self._cube_or_resign(color, kind, message, anyone=kind == "resign")
        else:
            handler = getattr(self, f"_on_{kind}", None)
            if handler is None:
                raise ValueError(f"unknown message {kind!r}")
            handler(seat, color, message)
        self._sync(color if kind in _ACTIONS else None)

    def _playing(self) -> Game:
        if self.room.phase != PLAYING:
            raise ValueError(f"no game is in play (the room is {self.room.phase})")
        return self.game

    def _round(self, number: object) -> _Round | None:
        expected = self.round.number if self.round is not None else self.room.next_round
        if number != expected:
            raise ValueError(f"round {number!r} is not round {expected}")
        return self.round

    def _on_commit(self, seat: str, color: Color, message: Mapping[str, Any]) -> None:
        game = self._playing()
        number = message.get("round")
        current = self._round(number)
        commitment = str(message.get("commitment"))
        assert isinstance(number, int)
        if current is not None:
            if current.kind != "opening" or color in current.commitments:
                raise ValueError(f"{color} cannot commit to round {number}")
            self._charge_wait(color)
            current.commitments[color] = commitment
        elif game.phase is Phase.OPENING:
            self._charge_wait(color)
            self.round = _Round(number, "opening", commitments={color: commitment})
        elif game.phase is Phase.ROLL and color is game.on_roll:
            self.round = _Round(number, "roll", roller=color, commitments={color: commitment})
            clock = self.room.clock
            if clock is not None and clock.running is color:
                clock.pause()  # the opponent's secret is awaited (off the clock)
        else:
            raise ValueError(f"{color} cannot roll now")

    def _on_secret(self, seat: str, color: Color, message: Mapping[str, Any]) -> None:
        self._playing()
        current = self._round(message.get("round"))
        if (current is None or current.kind != "roll" or color is current.roller
                or color in current.secrets):
            raise ValueError(f"{color} sends no secret now")
        self._charge_wait(color)
        current.secrets[color] = bytes.fromhex(str(message.get("secret")))
        clock = self.room.clock
        if clock is not None and clock.paused is current.roller:
            clock.resume()

    def _on_reveal(self, seat: str, color: Color, message: Mapping[str, Any]) -> None:
        self._playing()
        current = self._round(message.get("round"))
        if current is None:
            raise ValueError("nothing to reveal")
        if current.kind == "opening":
            if len(current.commitments) < 2 or color in current.secrets:
                raise ValueError(f"{color} reveals nothing now")
        elif color is not current.roller or color.opponent not in current.secrets:
            raise ValueError(f"{color} reveals nothing now")
        secret = bytes.fromhex(str(message.get("secret")))
        if not verify_commitment(secret, current.commitments[color]):
            self._forfeit(color)  # a reveal that breaks its commitment
            return
        if current.kind == "opening":
            self._charge_wait(color)
        current.secrets[color] = secret
        if current.kind == "opening" and len(current.secrets) < 2:
            return
        self._throw(current)

    def _throw(self, current: _Round) -> None:
        game = self.game
        if current.kind == "opening":
            dice = dice_from_secrets(current.secrets[WHITE], current.secrets[BLACK],
                                     current.number)
        else:
            assert current.roller is not None
            dice = dice_from_secrets(current.secrets[current.roller],
                                     current.secrets[current.roller.opponent], current.number)
        seconds = None if current.roller is None else self._used(current.roller)
        game.roll(dice=dice, seconds=seconds)
        self.round = None
        self.room.next_round = current.number + 1
        passed = current.kind == "roll" and game.phase is Phase.ROLL
        tie = current.kind == "opening" and game.phase is Phase.OPENING
        clock = self.room.clock
        if clock is None:
            return
        if current.kind == "opening" and not tie:
            assert game.on_roll is not None
            clock.start(game.on_roll)
            self.lap_start = 0.0
        elif passed:  # a forced pass is a completed turn
            clock.stop(increment=True)
            assert game.on_roll is not None
            clock.start(game.on_roll)
            self.lap_start = 0.0
        elif current.kind == "roll":
            self.lap_start = clock.turn_used()  # the play's seconds start here

    def _forfeit(self, color: Color) -> None:
        """``color`` forfeits the match: the game in play (or the next) by the rest of the
        match's points, three times the cube otherwise."""
        if self.room.phase != PLAYING or self._session_over() or self.decided:
            return
        match = self.room.match
        if self.game.is_over:
            match.new_game()
            self.room.clock = self._new_clock()
        length = self.room.settings.match_length
        if length:
            points = max(1, length - match.score[0 if color.opponent is WHITE else 1])
        else:
            points = 3 * self.game.cube_value
        self.round = None
        self.game.forfeit(color, points, seconds=self._used(color))
        self.decided = True
        self._finished()

    def _acting(self, color: Color, *, anyone: bool = False) -> Game:
        game = self._playing()
        if self.round is not None or game.phase is Phase.OPENING:
            raise ValueError("the dice come first")
        if not anyone and game.turn is not color:
            raise ValueError(f"it is not {color}'s turn")
        return game

    def _moving(self, color: Color) -> Game:
        game = self._acting(color)
        if game.phase is not Phase.MOVE:
            raise ValueError(f"{color} cannot move now")
        return game

    def _on_move(self, seat: str, color: Color, message: Mapping[str, Any]) -> None:
        game = self._moving(color)
        for triple in message.get("moves", ()):
            game.move(Move(*triple))

    def _on_undo(self, seat: str, color: Color, message: Mapping[str, Any]) -> None:
        self._moving(color).undo()

    def _on_end_turn(self, seat: str, color: Color, message: Mapping[str, Any]) -> None:
        game = self._moving(color)
        game.end_turn(seconds=self._used(color))
        self._after_play()

    def _on_play(self, seat: str, color: Color, message: Mapping[str, Any]) -> None:
        game = self._moving(color)
        if game.played:
            raise ValueError("moves were already made this turn")
        seconds = self._used(color)
        moves = [Move(*triple) for triple in message.get("moves", ())]
        play = game.legal_plays().by_result(apply_play(game.turn_start, moves))
        if play is None:
            raise ValueError(f"{moves} is not a legal play")
        game.play(play, seconds=seconds)
        self._after_play()

    def _after_play(self) -> None:
        self._hand_clock(increment=True)
        if self.game.is_over:
            self._finished()

    def _cube_or_resign(self, color: Color, kind: str, message: Mapping[str, Any], *,
                        anyone: bool = False) -> None:
        game = self._acting(color, anyone=anyone)
        seconds = self._used(color)
        if kind == "resign":
            game.resign(color, str(message.get("level")), seconds=seconds)
        elif kind == "accept":
            game.accept_resignation(seconds=seconds)
        elif kind == "decline":
            game.decline_resignation(seconds=seconds)
        else:
            getattr(game, kind)(seconds=seconds)
        self._hand_clock(increment=False)
        if game.is_over:
            self._finished()

    def _on_claim(self, seat: str, color: Color, message: Mapping[str, Any]) -> None:
        game = self._playing()
        if self.room.clock is not None:
            raise ValueError("a timed game is not claimed")
        game.timeout(color.opponent)  # (the old door checked that the claim was due)
        self.round = None
        self.decided = True
        self._finished()

    def _on_next_game(self, seat: str, color: Color, message: Mapping[str, Any]) -> None:
        if not self._playing().is_over:
            raise ValueError("this game is not over")
        self.room.match.new_game()
        self.room.clock = self._new_clock()
        self.round = None

    def _on_rematch(self, seat: str, color: Color, message: Mapping[str, Any]) -> None:
        room = self.room
        if room.phase != FINISHED or seat in room.rematch:
            raise ValueError("no rematch now")
        room.rematch.add(seat)
        if room.rematch != {HOST, GUEST}:
            return
        room.phase = PLAYING
        room.rematch.clear()
        room.colors = {HOST: room.colors[GUEST], GUEST: room.colors[HOST]}  # sides swap
        room.match = self._new_match()
        room.match_number += 1
        room.clock = self._new_clock()
        self.round = None
        self.decided = False

    def _on_leave(self, seat: str, color: Color, message: Mapping[str, Any]) -> None:
        if self.room.phase == CLOSED:
            return
        self._forfeit(color)
        self.room.phase = CLOSED
        self.round = None
        if self.room.clock is not None:
            self.room.clock.cancel()


def replay_room(row: StoredRow, controls: Mapping[str, TimeControl | None]) -> OldRoom:
    """The room ``row`` stored, replayed by the old door's rules (module docstring).

    Args:
        row: the room's rows (:func:`read_rooms`).
        controls: the time controls' values the old door ran with (``backgammon serve``'s).

    Returns:
        The room as at its last stored action (its clock's time source stands there).

    Raises:
        OldRoomError: the header is not one the old door wrote, or an action is refused (the
            message names the room and the action).
    """
    code = row.code
    try:
        replay = _Replay(row, controls)
    except Exception as exc:  # anything a damaged header makes the code raise
        raise OldRoomError(f"stored room {code!r} has a header this program cannot use: "
                           f"{type(exc).__name__}: {exc}") from None
    for seq, (at, action) in enumerate(row.actions, start=1):
        try:
            replay.action(at, action)
        except Exception as exc:  # a refusal, or anything a damaged action makes it raise
            raise OldRoomError(f"stored room {code!r} does not replay: action {seq} "
                               f"({action.get('kind')}) is refused: "
                               f"{type(exc).__name__}: {exc}") from None
    replay.room.round_open = replay.round is not None
    return replay.room

