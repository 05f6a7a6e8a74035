"""Online rooms: two seats, one match, fair dice by commit-reveal, clocks; the server referees.

A :class:`Room` is an explicit state machine (:class:`RoomPhase`; :data:`TRANSITIONS` lists
the moves allowed and any other raises :class:`RoomStateError`). It holds the
:class:`~backgammon.core.match.Match` (each game a :class:`~backgammon.core.game.Game`), the dice
round in progress and the clock, and turns each checked :class:`~.protocol.ClientMessage` into
the messages to send: :meth:`Room.handle` either raises :class:`~.protocol.OnlineError` (or
the engine's own :class:`~backgammon.core.errors.BackgammonError`) having changed nothing, or
returns ``[(seat, payload), ...]``. The wire protocol is documented in
:mod:`backgammon.services.online.protocol`.

This module is synchronous and imports no web framework: the transport
(:mod:`backgammon.server.online.routes`) calls it from the event loop (each call is short: one
engine action) and owns the sockets. Time comes from an injected
``now()`` (seconds, monotonic), so tests run on a fake clock (DESIGN.md habit 7).

Clock rules online (the host's time control, :class:`~backgammon.services.clock.Clock`, a fresh
clock for each game of a match):

* Whoever must send the next message is on its clock (:meth:`Room.awaited`): the player on
  roll through its cube decision, its commitment, its reveal and its play; the roller's
  opponent while the roll waits for its secret (commit-reveal step 2); the doubled player while
  it decides on a double; the resigning player's opponent while it decides on a resignation;
  in the opening round each side until it has sent its commitment, then its reveal (both
  clocks can run at once there). Only a completed turn earns the increment; a forced pass is a
  completed turn: the time before its roll is charged, never given back.
* The waits the :class:`~backgammon.services.clock.Clock` cannot time itself (the opening, where
  both sides may be awaited, and the opponent's secret inside the roller's turn) the room times
  from the moment the wait began (:meth:`Clock.charge
  <backgammon.services.clock.Clock.charge>` when the message comes).
* A disconnected player's clock keeps running: leaving is no way to stop it. The server flags a
  side whose time is up (:meth:`Room.tick`, also run before every message), and the game ends by
  :meth:`~backgammon.core.game.Game.timeout` as in local play: the side out of time loses a
  single game at the cube's value.

Untimed games: claims are for players who are gone. A side the game waits on is *claimable*
once its connection has been dropped for :attr:`Room.abandon_after` seconds (default
:data:`DEFAULT_ABANDON_AFTER`, 2 minutes); connected, once it has been thinking for
:attr:`Room.silent_after` seconds of its turn (default :data:`DEFAULT_SILENT_AFTER`, 10
minutes; what does not finish the turn, a move taken back, a double, does not start the count
again), and it is warned :data:`CLAIM_WARNING` seconds before (``silence``, and the view's
``claim_warning``); and for a roll's dice messages, which its page sends by itself, after
:attr:`Room.abandon_after` seconds whether connected or not. Both pages hear ``claimable``, and
the other side may send ``claim``, which wins the game (recorded in the game's log as a
timeout of the silent side: a single game at the cube's value) and ends the match in its
favour.

Resignations: each side may offer one resignation a turn (the turn of a roll: between one
roll and the next), so a refused offer cannot be repeated to stop play.
"""

from __future__ import annotations

import enum
import hmac
import json
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, cast

from backgammon.core.dice import dice_from_secrets, verify_commitment
from backgammon.core.errors import (
    BackgammonError,
    IllegalActionError,
    InvalidSettingsError,
)
from backgammon.core.game import Game, Phase
from backgammon.core.match import Match
from backgammon.core.moves import Move, Play, apply_play
from backgammon.core.notation import format_play
from backgammon.core.types import BLACK, WHITE, Color, Roll
from backgammon.services.clock import TIME_CONTROLS, Clock, TimeControl
from backgammon.services.destinations import legal_json
from backgammon.services.online.protocol import (
    CLOCK_TOLERANCE,
    ClientMessage,
    OnlineError,
)
from backgammon.services.online.wire import ClockJSON, ReplyMessage, RoomEvent
from backgammon.services.review import (
    NoSuchGameError,
    explain_attempt,
    match_mat,
    review_match,
)
from backgammon.services.table import (
    board_json,
    color_name,
    cube_json,
    describe,
    make_moves,
    match_history,
    phase_name,
    rematch_ready,
    rematch_sides,
    resign_refusal,
    result_json,
)
from backgammon.services.words import Names, online_status, room_says

__all__ = [
    "CLAIM_WARNING",
    "DEFAULT_ABANDON_AFTER",
    "DEFAULT_EXPIRY",
    "DEFAULT_MAX_PER_ADDRESS",
    "DEFAULT_SILENT_AFTER",
    "HEAVY_READS",
    "MAX_MATCH_LENGTH",
    "TRANSITIONS",
    "DiceRound",
    "EncodedPayload",
    "OnlineSettings",
    "Outgoing",
    "Room",
    "RoomManager",
    "RoomPhase",
    "RoomStateError",
    "Seat",
]

#: Seconds a room may stay with nobody connected before it is forgotten.
DEFAULT_EXPIRY: Final = 600.0
#: The longest match a room can play, in points (as the local game offers).
MAX_MATCH_LENGTH: Final = 25
#: The most rooms kept at once; creating another is refused until some expire.
DEFAULT_MAX_ROOMS: Final = 5000
#: Rooms one client address may create in :data:`CREATE_WINDOW` seconds.
DEFAULT_CREATE_RATE: Final = 10
CREATE_WINDOW: Final = 60.0
#: Rooms nobody has joined yet that one client address may hold at once.
DEFAULT_MAX_WAITING: Final = 5
#: Rooms one client address may hold at once, joined or not (until they expire): its share of
#: :data:`DEFAULT_MAX_ROOMS`, so that a few addresses cannot take every room.
DEFAULT_MAX_PER_ADDRESS: Final = 10
#: Seconds an untimed game may wait on a side whose connection dropped (or on a dice message,
#: which a page sends by itself) before the other side may claim the game as abandoned.
DEFAULT_ABANDON_AFTER: Final = 120.0
#: Seconds of its turn an untimed game may wait on a side that is connected (thinking) before
#: the other side may claim the game.
DEFAULT_SILENT_AFTER: Final = 600.0
#: Seconds before it may be claimed against that a connected side is warned (``silence``).
CLAIM_WARNING: Final = 120.0
#: The messages that are a side's action in the game (they reset its silence); ``state``,
#: ``review``, ``export`` and ``explain`` only read.
_ACTIONS: Final = frozenset({"commit", "secret", "reveal", "move", "undo", "end_turn", "play",
                             "double", "take", "drop", "beaver", "raccoon", "resign",
                             "accept", "decline", "rematch", "claim", "next_game"})
#: The actions that finish what the game waited on the sender for (its play, its answer to a
#: double or a resignation, its secret, the next game): the game's wait on it starts again
#: from nothing. The others (a move taken back and made again, a commitment, a double, an
#: offer to resign) are part of the same turn: the wait goes on adding up (a reveal finishes
#: the opening's, or a roll that passes).
_FINISHING: Final = frozenset({"end_turn", "play", "take", "drop", "beaver", "raccoon",
                               "accept", "decline", "secret", "next_game", "rematch",
                               "claim"})
#: The reads whose cost grows with the room's history (every game's frames, the whole
#: transcript): made from a snapshot, off the event loop (:meth:`Room.heavy_read`).
HEAVY_READS: Final = frozenset({"review", "export"})
#: The longest review (JSON text, bytes) kept for the pages asking again before the next event.
REVIEW_CACHE_BYTES: Final = 1 << 20
#: Bytes of randomness in an invite code (96 bits, 16 URL-safe characters) and a seat token
#: (192 bits, 32 characters); the issue asks for at least 80 bits.
CODE_BYTES: Final = 12
TOKEN_BYTES: Final = 24



class RoomPhase(enum.StrEnum):
    """Where a room stands.

    * ``WAITING``: the host created it; the guest seat is free.
    * ``PLAYING``: both seats taken; a game of the match is on (from its opening roll).
    * ``FINISHED``: the match (or single game) is over; a rematch starts when both ask.
    * ``ABORTED``: the game was void (final); no longer entered: a reveal that does not match
      its commitment forfeits the match (kept for rooms stored by older code).
    * ``CLOSED``: a player left (final).
    * ``EXPIRED``: nobody was connected for the expiry time; the room is forgotten.
    """

    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"
    ABORTED = "aborted"
    CLOSED = "closed"
    EXPIRED = "expired"


#: The phase changes a room allows; :meth:`Room._transition` raises on any other.
TRANSITIONS: Final[dict[RoomPhase, frozenset[RoomPhase]]] = {
    RoomPhase.WAITING: frozenset({RoomPhase.PLAYING, RoomPhase.CLOSED, RoomPhase.EXPIRED}),
    RoomPhase.PLAYING: frozenset({RoomPhase.FINISHED, RoomPhase.ABORTED, RoomPhase.CLOSED,
                                  RoomPhase.EXPIRED}),
    RoomPhase.FINISHED: frozenset({RoomPhase.PLAYING, RoomPhase.CLOSED, RoomPhase.EXPIRED}),
    RoomPhase.ABORTED: frozenset({RoomPhase.CLOSED, RoomPhase.EXPIRED}),
    RoomPhase.CLOSED: frozenset({RoomPhase.EXPIRED}),
    RoomPhase.EXPIRED: frozenset(),
}


class RoomStateError(OnlineError):
    """A room phase change that :data:`TRANSITIONS` does not allow (code ``not_now``)."""

    def __init__(self, message: str) -> None:
        super().__init__("not_now", message)


class Seat(enum.StrEnum):
    """The two seats of a room: the host created it, the guest joined by the invite code."""

    HOST = "host"
    GUEST = "guest"

    @property
    def other(self) -> Seat:
        """The other seat."""
        return Seat.GUEST if self is Seat.HOST else Seat.HOST


#: A message to send: to which seat, and the JSON-ready payload.
#: One message for one seat: a :mod:`~backgammon.services.online.wire` message (a
#: ``ServerMessage``), or an :class:`EncodedPayload`.
Outgoing = tuple[Seat, Mapping[str, Any]]


class EncodedPayload(dict[str, Any]):
    """A payload whose JSON text is made already (:attr:`text`), for the sender to use instead
    of encoding it again: the ``state`` answer, whose bulk (the match's log) is encoded once
    for both seats until the next event."""

    text: str = ""


@dataclass(frozen=True, slots=True)
class OnlineSettings:
    """The host's settings, sent to the guest in the handshake.

    Attributes:
        cube: play with the doubling cube.
        time_control: a name of :data:`backgammon.services.clock.TIME_CONTROLS` (``"none"``,
            ``"bullet"``, ``"blitz"``, ``"rapid"``); each game of a match gets a fresh clock.
        match_length: 0 for a single game (or money play); 1..25 for a match to that many
            points (Crawford rule).
        money: money play (``match_length`` 0): games one after another with a running total,
            as local play's money session.
        jacoby: the Jacoby rule (money play with the cube).
        beavers: beavers allowed (money play with the cube).

    Raises:
        InvalidSettingsError: (on construction) a value of the wrong type or range, quoted.
    """

    cube: bool = False
    time_control: str = "none"
    match_length: int = 0
    money: bool = False
    jacoby: bool = False
    beavers: bool = False

    def __post_init__(self) -> None:
        for flag in ("money", "jacoby", "beavers"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidSettingsError(f"{flag} must be true or false, got "
                                           f"{getattr(self, flag)!r}")
        if not isinstance(self.cube, bool):
            raise InvalidSettingsError(f"cube must be true or false, got {self.cube!r}")
        if not isinstance(self.time_control, str) or self.time_control not in TIME_CONTROLS:
            raise InvalidSettingsError(
                f"time_control must be one of {', '.join(TIME_CONTROLS)}, got "
                f"{self.time_control!r}"
            )
        length = self.match_length
        if isinstance(length, bool) or not isinstance(length, int) or not (
            0 <= length <= MAX_MATCH_LENGTH
        ):
            raise InvalidSettingsError(
                f"match_length must be 0 (a single game) or 1 to {MAX_MATCH_LENGTH} points, "
                f"got {length!r}"
            )
        if self.money and length:
            raise InvalidSettingsError(f"money play has no match length, got {length}")
        for rule, name in ((self.jacoby, "the Jacoby rule"), (self.beavers, "beavers")):
            if rule and not self.money:
                raise InvalidSettingsError(f"{name} is for money play only")
            if rule and not self.cube:
                raise InvalidSettingsError(f"{name} needs the doubling cube")

    def control_in(self, controls: Mapping[str, TimeControl | None] | None = None
                   ) -> TimeControl | None:
        """The time control's values in ``controls`` (the server's configured ones; default
        the standard :data:`~backgammon.services.clock.TIME_CONTROLS`), or None untimed."""
        return (TIME_CONTROLS if controls is None else controls).get(self.time_control)

    @property
    def control(self) -> TimeControl | None:
        """The standard time control of that name, or None for an untimed game."""
        return self.control_in()

    def to_dict(self, controls: Mapping[str, TimeControl | None] | None = None
                ) -> dict[str, Any]:
        """JSON-ready: ``{"cube", "time_control": {"name", "reserve", "increment"} | None
        (seconds), "match_length"}``, the time control's values as ``controls`` give them."""
        control = self.control_in(controls)
        return {
            "cube": self.cube,
            "time_control": None if control is None else control.to_dict(),
            "match_length": self.match_length,
            "money": self.money,
            "jacoby": self.jacoby,
            "beavers": self.beavers,
        }


@dataclass(slots=True)
class DiceRound:
    """One numbered commit-reveal round.

    Attributes:
        number: the round number (unique in the room).
        kind: ``"opening"`` (both sides commit and reveal) or ``"roll"`` (the roller commits,
            the opponent sends its secret, the roller reveals).
        roller: the side rolling (None for an opening round).
        commitments: the commitments received, 64 hex digits each.
        secrets: the secrets received: for a roll, the opponent's and then the roller's
            revealed one; for the opening, each side's reveal.
    """

    number: int
    kind: str
    roller: Color | None = None
    commitments: dict[Color, str] = field(default_factory=dict)
    secrets: dict[Color, bytes] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with colours as names and secrets as hex."""
        return {
            "number": self.number,
            "kind": self.kind,
            "roller": None if self.roller is None else str(self.roller),
            "commitments": {str(c): v for c, v in self.commitments.items()},
            "secrets": {str(c): v.hex() for c, v in self.secrets.items()},
        }


_MARK: Final = "\x00here\x00"  # no name or log holds it: names are printable
_MARK_JSON: Final = json.dumps(_MARK)
_COMPACT: Final = (",", ":")


class _LogEncoder:
    """The JSON text of a match's log (:meth:`Match.to_log`), each event encoded only once: a
    log only grows by events at the end, and a page asks for it after every event, so encoding
    it whole each time would cost the square of a game's length. A game that is over no
    longer changes: its log and its text are kept whole, so that each call costs the current
    game (and joining the texts), not the match's history."""

    def __init__(self) -> None:
        self._match: Match | None = None
        self._events: list[str] = []  # the current game's events, as JSON text
        self._events_of: Game | None = None
        self._over: list[tuple[Game, dict[str, Any], str]] = []  # the games over, in order

    def encode(self, match: Match) -> tuple[dict[str, Any], str]:
        """The log and its text (compact separators; the same as ``json.loads`` reads)."""
        if match is not self._match:
            self._match, self._over, self._events_of = match, [], None
        games = match.games
        logs: list[dict[str, Any]] = []
        texts: list[str] = []
        for index, game in enumerate(games):
            if index < len(self._over) and self._over[index][0] is game:
                logs.append(self._over[index][1])
                texts.append(self._over[index][2])
                continue
            del self._over[index:]
            if game is not self._events_of:
                self._events_of, self._events = game, []
            log = game.to_log()
            self._events.extend(json.dumps(event, separators=_COMPACT)
                                for event in log["events"][len(self._events):])
            text = json.dumps({**log, "events": _MARK}, separators=_COMPACT)
            text = text.replace(_MARK_JSON, f"[{','.join(self._events)}]", 1)
            if game.is_over and index == len(self._over):
                self._over.append((game, log, text))
            logs.append(log)
            texts.append(text)
        head = match.to_log_head()
        whole = {**head, "games": logs}
        text = json.dumps({**head, "games": _MARK}, separators=_COMPACT)
        return whole, text.replace(_MARK_JSON, f"[{','.join(texts)}]", 1)


def _review_text(payload: dict[str, Any]) -> str:
    """The JSON text (compact) of a ``review`` reply, its frames and lines encoded one by
    one: each call to the encoder holds the interpreter briefly, so the event loop, in
    another thread, goes on while a long review is written (one call for megabytes would
    hold it all along)."""
    review = payload["review"]
    parts = {key: "[" + ",".join(json.dumps(item, separators=_COMPACT)
                                 for item in review[key]) + "]"
             for key in ("frames", "history")}
    marked = {**payload, "review": {**review, "frames": _MARK, "history": _MARK + "h"}}
    text = json.dumps(marked, separators=_COMPACT)
    text = text.replace(json.dumps(_MARK + "h"), parts["history"], 1)
    return text.replace(_MARK_JSON, parts["frames"], 1)


def _with_ref(payload: dict[str, Any], text: str, ref: int | str | None) -> EncodedPayload:
    """The reply ``payload`` whose JSON text (compact) is ``text``, with ``ref`` when the
    request had one (added to the text, which is not encoded again)."""
    reply = EncodedPayload(payload)
    if ref is not None:
        reply["ref"] = ref
        text = f'{text[:-1]},"ref":{json.dumps(ref)}}}'
    reply.text = text
    return reply


class _NoDice:
    """The dice of an online game: every roll comes from the players' secrets, never from
    here (``Game.roll(dice=...)``); a call is a bug, and says so."""

    def roll(self) -> Roll:
        raise IllegalActionError("online dice come from the players' secrets only")

    def opening_roll(self) -> Roll:
        raise IllegalActionError("online dice come from the players' secrets only")


def _move_list(move: Move) -> list[int]:
    return [move.from_point, move.to_point, move.die]


def _checked_play(game: Game, triples: tuple[tuple[int, int, int], ...]) -> Play:
    """The legal play that ``triples`` (``[from, to, die]`` each) make from the turn's start.

    Checked as the engine checks a logged play: each move with a die of the roll not yet used,
    then the result among the legal plays (legal plays are distinct by result). This is one
    lookup instead of a legal-move search per checker.

    Raises:
        OnlineError: ``illegal_move``, naming the move or the play and the roll.
    """
    legal = game.legal_plays()
    dice = legal.dice
    roll = f"{dice[0]}{dice[1]}"
    left = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    moves = [Move(*triple) for triple in triples]
    for move in moves:
        if move.die not in left:
            raise OnlineError("illegal_move", f"{move}: no {move.die} is left to play with "
                                              f"{roll}")
        left.remove(move.die)
    try:
        result = apply_play(game.turn_start, moves)
    except BackgammonError:
        raise OnlineError("illegal_move", f"{format_play(moves) or 'no move'} is not a legal "
                                          f"play with {roll}: a move is blocked or "
                                          f"impossible") from None
    found = legal.by_result(result)
    if found is None:
        if not moves:
            raise OnlineError("illegal_move", f"an empty play is not legal with {roll}: a "
                                              f"checker can move")
        text = format_play(moves)
        if legal and all(len(moves) < len(p) for p in legal):
            raise OnlineError("illegal_move", f"{text} does not use as many dice as can be "
                                              f"played with {roll}")
        raise OnlineError("illegal_move", f"{text} is not a legal play with {roll}")
    return found


class Room:
    """One online room: two seats, a match, the dice round, the clock.

    Args:
        code: the invite code.
        settings: the host's settings.
        host_token: the host's seat token.
        now: a monotonic clock in seconds (injected for tests).
        host_name: the name shown for the host.
        new_token: makes the guest's seat token.
        abandon_after: seconds an untimed game waits on a side whose connection dropped (or
            on a dice message) before the other may claim it (> 0).
        silent_after: seconds of its turn an untimed game waits on a connected side before
            the other may claim it (>= ``abandon_after``).
        controls: the values of the time controls this server offers (default the standard
            :data:`~backgammon.services.clock.TIME_CONTROLS`; ``backgammon serve`` passes its
            configured ones, tests shorten them).
    """

    def __init__(
        self,
        code: str,
        settings: OnlineSettings,
        host_token: str,
        *,
        now: Callable[[], float] = time.monotonic,
        host_name: str = "Host",
        new_token: Callable[[], str] = lambda: secrets.token_urlsafe(TOKEN_BYTES),
        abandon_after: float = DEFAULT_ABANDON_AFTER,
        controls: Mapping[str, TimeControl | None] | None = None,
        silent_after: float = DEFAULT_SILENT_AFTER,
    ) -> None:
        if not abandon_after > 0:
            raise ValueError(f"abandon_after must be a number of seconds > 0, got "
                             f"{abandon_after!r}")
        self.abandon_after = float(abandon_after)
        self.silent_after = max(float(silent_after), self.abandon_after)
        self.controls: dict[str, TimeControl | None] = dict(
            TIME_CONTROLS if controls is None else controls)
        self.code = code
        self.settings = settings
        self.phase = RoomPhase.WAITING
        self.reason: str | None = None
        self._now = now
        self._new_token = new_token
        self._tokens: dict[Seat, str] = {Seat.HOST: host_token}
        self.names: dict[Seat, str] = {Seat.HOST: host_name}
        self.colors: dict[Seat, Color] = {Seat.HOST: WHITE, Seat.GUEST: BLACK}
        self._connections: dict[Seat, int] = {}
        self._connection_ids = 0
        self._seen: set[Seat] = set()  # seats that have connected at least once
        # since when each seat with no live connection has had none (``now()``)
        self._gone_since: dict[Seat, float] = {Seat.HOST: now()}
        self.empty_since: float | None = now()
        self.match = self._new_match()
        #: Which match of the room this is, from 1 (a rematch starts the next): with the code,
        #: what a player's record calls the session.
        self.match_number = 1
        self.round: DiceRound | None = None
        self.next_round = 1
        self.clock: Clock | None = self._new_clock()
        # the seconds of the current turn on the clock already given to its events (the
        # roll's), so each event records its own stretch: the roll the time before it, the
        # play the time after it (as local play)
        self.lap_start = 0.0
        self.rematch_offers: set[Seat] = set()
        self.seq = 0
        # since when (``now()``) the game has waited on each side it waits on (awaited())
        self._awaited_since: dict[Color, float] = {}
        # the silent sides both pages were told may be claimed against
        self._claimable: set[Color] = set()
        # the side whose game was claimed as abandoned (the match ends with this game), and
        # the seconds the game had waited on it
        self._abandoned: Color | None = None
        self._abandoned_after = 0.0
        # the connected sides warned that they may soon be claimed against (this turn)
        self._warned: set[Color] = set()
        # the side that forfeited the match (it left, or broke its dice reveal) and why, in
        # words ("Bob left the game"); the match ends with this game
        self._forfeited: tuple[Color, str] | None = None
        # the seconds each side spent awaited earlier in its turn, not finished (untimed
        # games: what a claim counts, with the wait going on)
        self._banked: dict[Color, float] = {}
        # (game, (event count, moves played), the board's legal list) of the last one made
        self._destinations: tuple[Game, tuple[int, tuple[Move, ...]], list[Any]] | None = None
        # (match, seq, the review, its reply's JSON text) of the last review made
        self._review: tuple[Match, int, Any, str] | None = None
        # (match, (games, events of the game, moves of the turn), the match's log, as JSON
        # text), last made; each event encoded once
        self._match_text: tuple[Match, tuple[int, int, tuple[Move, ...]], dict[str, Any],
                                str] | None = None
        self._log_encoder = _LogEncoder()
        #: The browsers whose records each seat's games were counted in (the door bounds
        #: them: server/stats_api.py).
        self.recorded_by: dict[Seat, set[str]] = {}
        #: What the room has stored, when its manager keeps it in a store: ``actions`` and
        #: ``max_actions``, ``bytes`` and ``max_bytes``, ``saved`` (False: a write failed, a
        #: restart would end the room), ``warning`` (words, as the room nears its bounds or
        #: was not saved; None); None for a room kept in memory only.
        self.storage: dict[str, Any] | None = None

    # ----------------------------------------------------------------------------------------
    # State

    @property
    def game(self) -> Game:
        """The game being played (or the last one)."""
        return self.match.current

    def seat_of(self, color: Color) -> Seat:
        """The seat playing ``color`` now."""
        return Seat.HOST if self.colors[Seat.HOST] is color else Seat.GUEST

    def connected(self, seat: Seat) -> bool:
        """Whether ``seat`` has a live connection."""
        return seat in self._connections

    @property
    def session_over(self) -> bool:
        """Whether the single game, or the match, is decided."""
        if not self.game.is_over:
            return False
        if self.settings.money:
            return False  # money play goes on game after game
        return self.settings.match_length == 0 or self.match.is_over

    def state_for(self, seat: Seat, *, match_log: bool = True) -> dict[str, Any]:
        """The full state as ``seat`` sees it (the protocol's ``state``; without its
        ``match`` when ``match_log`` is False)."""
        game = self.game
        color = self.colors[seat]
        other = seat.other
        opponent = None
        if other in self._tokens:
            opponent = {"seat": str(other), "color": str(self.colors[other]),
                        "name": self.names[other], "connected": self.connected(other)}
        state = {
            "code": self.code,
            "phase": str(self.phase),
            "reason": self.reason,
            "settings": self.settings.to_dict(self.controls),
            "you": {"seat": str(seat), "color": str(color), "name": self.names[seat],
                    "connected": self.connected(seat)},
            "opponent": opponent,
            "match": self.match.to_log() if match_log else None,
            "score": {"white": self.match.score[0], "black": self.match.score[1]},
            "game_number": len(self.match.games),
            "crawford": self.match.crawford,
            "game": self._game_view(game, color),
            # the table's view, the same shape and words as local play's state
            # (services/table.py): what the page draws
            "view": self.view_for(seat),
            "round": {"next": self.next_round,
                      "open": None if self.round is None else self.round.to_dict()},
            "clock": self._clock_view(),
            "claimable": next((str(c) for c in sorted(self._claimable)), None),
            "silence": self._silence(),
            "rematch": sorted(str(s) for s in self.rematch_offers),
            "seq": self.seq,
            "storage": self.storage,
        }
        if not match_log:
            del state["match"]
        return state

    @property
    def _decided(self) -> bool:
        """Whether the match is over: decided on the board, or by a claim or a forfeit."""
        return self.session_over or self._abandoned is not None or self._forfeited is not None

    @property
    def kind(self) -> str:
        """``"match"``, ``"money"`` or ``"single"``: what the score and the result say."""
        if self.settings.match_length:
            return "match"
        return "money" if self.settings.money else "single"

    def names_for(self, seat: Seat) -> Names:
        """How the sentences name the sides on ``seat``'s page: "You" and the opponent."""
        me = self.colors[seat]
        other = self.names.get(seat.other, "Your opponent")
        names = {me: "You", me.opponent: other}
        return Names(names[WHITE], names[BLACK], me=me)

    def view_for(self, seat: Seat) -> dict[str, Any]:
        """The table's view of the game on ``seat``'s page (:func:`~backgammon.services.table.
        describe`): what the page draws, as in local play, with the room's own status line
        while the room (not the game) decides it."""
        game = self.game
        color = self.colors[seat]
        playing = self.phase is RoomPhase.PLAYING
        quiet = playing and self.round is None and not game.is_over
        mine = quiet and game.phase is not Phase.OPENING and game.turn is color
        session_over = self._decided
        view = describe(
            self.match, kind=self.kind, names=self.names_for(seat), mine=mine,
            session_over=session_over,
            resign=quiet and game.phase in (Phase.ROLL, Phase.MOVE),
            legal=self._destinations_for(color) if mine else [],
            history_names=self._record_names(),
            abandoned_after=self._abandoned_after if self._abandoned is not None else None,
            forfeit=None if self._forfeited is None else self._forfeited[1])
        can = view["can"]
        can["roll"] = can["roll"] and game.phase is Phase.ROLL  # the opening rolls by itself
        can["next_game"] = can["next_game"] and playing
        can["rematch"] = self.phase is RoomPhase.FINISHED and seat not in self.rematch_offers
        current = self.round
        status = online_status(
            str(self.phase), reason=self.reason,
            opponent=self.names.get(seat.other, "Your opponent"),
            round_kind=None if current is None else current.kind,
            rolling_is_me=current is not None and current.roller is color,
            rematch_asked=seat in self.rematch_offers, kind=self.kind)
        if status is not None:
            view["message"] = status
        names = self.names_for(seat)
        return {**view,
                # what the page needs beside (local play's state has the same fields)
                "id": f"online:{self.code}", "version": self.seq, "viewer": color_name(color),
                "players": {c: {"name": names.subject(col), "computer": False, "level": None}
                            for c, col in (("white", WHITE), ("black", BLACK))},
                "hints": self.hints_allowed,
                # the room's own warning (it nears what it can store, or was not saved)
                "notice": None if self.storage is None else self.storage.get("warning"),
                # a side thinking long: it may soon be claimed against (words for this seat)
                "claim_warning": self._claim_warning(seat)}

    def _claim_warning(self, seat: Seat) -> str | None:
        """The warning to a side thinking long (untimed), and to its opponent, in words for
        ``seat``'s page; None when no side is warned."""
        silence = self._silence()
        if silence is None:
            return None
        silent = Color.parse(silence["color"])
        minutes = int(silence["seconds"] // 60)
        limit = f"{self.silent_after / 60:g}"
        if silent is self.colors[seat]:
            return room_says("thinking_you", minutes=minutes, limit=limit)
        return room_says("thinking_them", name=self.names[self.seat_of(silent)],
                         minutes=minutes, limit=limit)

    @property
    def hints_allowed(self) -> bool:
        """Whether the pages may show the computer's evaluation: not while a game against a
        person is being played (nor before it), only once it is over (between the games of
        a match, after the match, or when the room stopped or closed)."""
        if self.phase is RoomPhase.WAITING:
            return False
        return self.phase is not RoomPhase.PLAYING or self.game.is_over

    def _game_view(self, game: Game, viewer: Color) -> dict[str, Any]:
        position = game.position
        resignation = game.resignation
        outcome = game.outcome
        over = game.is_over
        return {
            # the same names, ``turn`` and cube as local play (services/table.py): ``turn``
            # is the side on roll, ``to_act`` the side that must act (the doubled side while
            # a double waits for its answer)
            "phase": phase_name(game, self._decided),
            "on_roll": None if game.on_roll is None else str(game.on_roll),
            "turn": None if game.on_roll is None or over else color_name(game.on_roll),
            "to_act": None if game.turn is None or over else color_name(game.turn),
            "board": board_json(position),
            "pips": {"white": position.pip_count(WHITE), "black": position.pip_count(BLACK)},
            "dice": None if game.dice is None else list(game.dice),
            "dice_left": list(game.dice_left),
            "played": [_move_list(m) for m in game.played],
            # each play of this game in standard notation, hits marked, by the index of its
            # event in the log: what the move list shows
            "play_texts": [[turn.event_index, turn.text] for turn in game.history
                           if turn.action == "move"],
            "legal_moves": self._legal_for(viewer),
            "legal": self._destinations_for(viewer),
            "cube": {**cube_json(game),
                     "can_double": game.can_double(viewer) and self.round is None},
            "resignation": None if resignation is None else {
                "color": str(resignation[0]), "level": resignation[1].name.lower()},
            "outcome": None if outcome is None else outcome.to_dict(),
        }

    def _legal_for(self, color: Color) -> list[list[int]]:
        game = self.game
        if game.phase is not Phase.MOVE or game.on_roll is not color:
            return []
        return [_move_list(m) for m in game.legal_moves()]

    def _destinations_for(self, color: Color) -> list[Any]:
        """The board's view of ``color``'s legal moves: each checker that can move and every
        place it can reach, with the moves there (as local play gives them); [] when it is not
        ``color``'s move."""
        game = self.game
        if game.phase is not Phase.MOVE or game.on_roll is not color:
            return []
        # Kept for the state of the game it was made for: the mover's page asks for the full
        # state after every event, and this is the costly part of it.
        key = (game.event_count, game.played)
        cached = self._destinations
        if cached is None or cached[0] is not game or cached[1] != key:
            cached = self._destinations = (game, key, legal_json(game))
        return cached[2]

    def _clock_view(self) -> ClockJSON | None:
        clock = self.clock
        if clock is None:
            return None
        off = self._off_clock()
        left = {color: clock.remaining(color) - (self._wait_used(color) if color in off else 0.0)
                for color in (WHITE, BLACK)}
        ticking = sorted({clock.running, *off} - {None}, key=str)
        running = clock.running if clock.running is not None else (
            off[0] if len(off) == 1 else None)
        return {"white": round(left[WHITE], 3), "black": round(left[BLACK], 3),
                "running": None if running is None else str(running),
                "waiting": [str(c) for c in ticking]}

    # ----------------------------------------------------------------------------------------
    # Who the game waits on

    def awaited(self) -> frozenset[Color]:
        """The sides that must send the game's next message: the side to act, the roller's
        opponent while a roll waits for its secret, and in the opening round each side that
        has not yet sent its commitment (then its reveal). Empty when no game is on."""
        if self.phase is not RoomPhase.PLAYING or self.game.is_over:
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
        game = self.game
        if game.phase is Phase.OPENING:
            return frozenset({WHITE, BLACK})
        return frozenset() if game.turn is None else frozenset({game.turn})

    def _sync_waits(self, actor: Color | None = None, *, finished: bool = False) -> None:
        """Start the wait of each side newly awaited (and of ``actor``, which just acted) at
        now; forget the waits that are over. Each stretch a side was awaited goes to its
        bank (:meth:`_claim_wait`) until it ``finished`` what the game waited on it for: a
        move and its undo, or a double, leave the claim's count going."""
        now = self._now()
        awaited = self.awaited()
        for color in list(self._awaited_since):
            if color not in awaited:
                self._banked[color] = (self._banked.get(color, 0.0)
                                       + max(0.0, now - self._awaited_since.pop(color)))
                self._claimable.discard(color)
        if actor is not None and finished:
            self._banked.pop(actor, None)
            self._claimable.discard(actor)
            self._warned.discard(actor)
        if self.phase is not RoomPhase.PLAYING or self.game.is_over:
            self._banked.clear()
            self._warned.clear()
        for color in awaited:
            if color not in self._awaited_since:
                self._awaited_since[color] = now
            elif color is actor:  # a new stretch (the clock's charges count from here)
                self._banked[color] = (self._banked.get(color, 0.0)
                                       + max(0.0, now - self._awaited_since[color]))
                self._awaited_since[color] = now

    def _wait_used(self, color: Color) -> float:
        """Seconds the game has waited on ``color`` since its last action (0 when it does not
        wait on it): what an off-clock wait charges."""
        since = self._awaited_since.get(color)
        return 0.0 if since is None else max(0.0, self._now() - since)

    def _gone_for(self, color: Color) -> float | None:
        """Seconds ``color``'s seat has had no live connection; None while it has one."""
        seat = self.seat_of(color)
        if seat in self._connections:
            return None
        since = self._gone_since.get(seat)
        return 0.0 if since is None else max(0.0, self._now() - since)

    def _thinking(self, color: Color) -> bool:
        """Whether the game waits on ``color`` to decide (its roll, its play, an answer), not
        for a dice message its page sends by itself."""
        return self.round is None and self.game.phase is not Phase.OPENING

    def _claim_in(self, color: Color) -> float:
        """Seconds until ``color``, awaited, may be claimed against (0: now): gone for
        :attr:`abandon_after`, thinking for :attr:`silent_after`, or silent that long over a
        dice message."""
        limit = self.silent_after if self._thinking(color) else self.abandon_after
        left = limit - self._claim_wait(color)
        gone = self._gone_for(color)
        if gone is not None:
            left = min(left, self.abandon_after - gone)
        return max(0.0, left)

    def _silence(self) -> dict[str, Any] | None:
        """The side warned it may soon be claimed against: ``color``, ``seconds`` (its turn's
        wait) and ``claimable_in`` (seconds); None."""
        for color in sorted(self._warned, key=str):
            if color in self._awaited_since and color not in self._claimable:
                return {"color": str(color), "seconds": round(self._claim_wait(color), 3),
                        "claimable_in": round(self._claim_in(color), 3)}
        return None

    def _claim_wait(self, color: Color) -> float:
        """Seconds the game has waited on ``color`` in this turn of it, its actions that did
        not finish the turn included (untimed games: what makes it claimable)."""
        if color not in self._awaited_since:
            return 0.0
        return self._banked.get(color, 0.0) + self._wait_used(color)

    def _off_clock(self) -> list[Color]:
        """The awaited sides of a timed game that the room times itself: every awaited side
        while the :class:`Clock` runs for nobody (the opening; the roller's opponent while the
        roller's turn is paused for its secret)."""
        clock = self.clock
        if clock is None or clock.running is not None:
            return []
        return sorted(self.awaited(), key=str)

    def _charge_wait(self, color: Color) -> None:
        """``color`` sent what an off-clock wait awaited: charge it the wait."""
        clock = self.clock
        if clock is not None and color in self._off_clock():
            clock.charge(color, self._wait_used(color))

    # ----------------------------------------------------------------------------------------
    # Phase changes

    def _transition(self, to: RoomPhase, reason: str | None = None) -> None:
        """Move to ``to``.

        Raises:
            RoomStateError: :data:`TRANSITIONS` does not allow it; nothing changes.
        """
        if to not in TRANSITIONS[self.phase]:
            raise RoomStateError(f"room {self.code} cannot go from {self.phase} to {to}")
        self.phase = to
        if reason is not None:
            self.reason = reason

    def _new_match(self) -> Match:
        names = (self.names.get(self.seat_of(WHITE), "White"),
                 self.names.get(self.seat_of(BLACK), "Black"))
        return Match(self.settings.match_length, cube=self.settings.cube, names=names,
                     jacoby=self.settings.jacoby, beavers=self.settings.beavers,
                     dice=_NoDice())

    def _new_clock(self) -> Clock | None:
        self.lap_start = 0.0
        control = self.settings.control_in(self.controls)
        return None if control is None else Clock(control, self._now)

    # ----------------------------------------------------------------------------------------
    # Seats and connections

    def join(self, name: str | None = None) -> str:
        """The guest takes the free seat.

        Returns:
            The guest's seat token.

        Raises:
            OnlineError: ``room_full`` (fatal) when the guest seat is taken or the room is
                over.
        """
        if Seat.GUEST in self._tokens:
            raise OnlineError("room_full", f"room {self.code} already has two players",
                              fatal=True)
        if self.phase is not RoomPhase.WAITING:
            raise OnlineError("room_full", f"room {self.code} is {self.phase}: {self.reason}",
                              fatal=True)
        self._transition(RoomPhase.PLAYING)
        token = self._new_token()
        self._tokens[Seat.GUEST] = token
        if Seat.GUEST not in self._connections:
            self._gone_since[Seat.GUEST] = self._now()
        self.names[Seat.GUEST] = name or "Guest"
        self.match = self._new_match()  # the guest's name in the record
        self._sync_waits()  # the opening round waits on both sides from now
        return token

    def seat_for(self, token: str) -> Seat:
        """The seat whose token this is (compared in constant time).

        Raises:
            OnlineError: ``bad_token`` (fatal): no seat of this room has that token.
        """
        found: Seat | None = None
        for seat, expected in self._tokens.items():
            if hmac.compare_digest(expected.encode(), token.encode()):
                found = seat
        if found is None:
            raise OnlineError("bad_token", f"that seat token does not belong to room {self.code}",
                              fatal=True)
        return found

    def connect(self, seat: Seat) -> tuple[int, list[Outgoing]]:
        """Record a live connection for ``seat`` (replacing any older one).

        Returns:
            The connection's id (for :meth:`disconnect`) and the messages to send: the
            opponent hears that this side joined or came back.
        """
        self._connection_ids += 1
        returning = seat in self._connections
        self._connections[seat] = self._connection_ids
        self._gone_since.pop(seat, None)
        self.empty_since = None
        out: list[Outgoing] = []
        other = seat.other
        if other in self._tokens and not returning:
            name = self.names[seat]
            if seat in self._seen:
                out.append((other, {"type": "opponent", "status": "reconnected", "name": name,
                                    "message": room_says("reconnected", name=name)}))
            else:
                out.append((other, {"type": "opponent", "status": "joined", "name": name,
                                    "message": room_says("joined", name=name)}))
        self._seen.add(seat)
        return self._connection_ids, out

    def disconnect(self, seat: Seat, connection: int) -> list[Outgoing]:
        """A connection closed. An older connection that was replaced changes nothing.

        Returns:
            The messages to send: the opponent hears that this side's connection dropped.
        """
        if self._connections.get(seat) != connection:
            return []
        del self._connections[seat]
        self._gone_since[seat] = self._now()
        if not self._connections:
            self.empty_since = self._now()
        if self.phase not in (RoomPhase.PLAYING, RoomPhase.FINISHED) or (
                seat.other not in self._tokens):
            return []
        name = self.names[seat]
        clock = self.clock
        running = not (clock is None or self.phase is not RoomPhase.PLAYING
                       or clock.running is not self.colors[seat])
        return [(seat.other, {
            "type": "opponent", "status": "disconnected", "name": name,
            "message": room_says("disconnected_clock" if running else "disconnected",
                                 name=name)})]

    def expired(self, expiry: float) -> bool:
        """Whether nobody has been connected for ``expiry`` seconds."""
        return self.empty_since is not None and self._now() - self.empty_since >= expiry

    def expire(self) -> None:
        """Mark the room forgotten (its manager drops it)."""
        self._transition(RoomPhase.EXPIRED, "the room was left empty too long")

    # ----------------------------------------------------------------------------------------
    # Time

    def next_deadline(self) -> float | None:
        """When, on the ``now()`` clock, :meth:`tick` next has something to do: the first
        awaited side's time runs out (timed games), or a silent side becomes claimable
        (untimed games); None when nothing is due."""
        if self.phase is not RoomPhase.PLAYING:
            return None
        clock = self.clock
        now = self._now()
        if clock is None:
            due = []
            for color in self._awaited_since:
                if color in self._claimable:
                    continue
                left = self._claim_in(color)
                due.append(now + left)
                if color not in self._warned and left > CLAIM_WARNING:
                    due.append(now + left - CLAIM_WARNING)
            return min(due) if due else None
        if clock.running is not None:
            return now + max(0.0, clock.remaining(clock.running))
        due = [now + max(0.0, clock.remaining(c) - self._wait_used(c)) for c in self._off_clock()]
        return min(due) if due else None

    def tick(self) -> list[Outgoing]:
        """Flag an awaited side whose time is up (the game ends by timeout), or, untimed, tell
        both pages that a side has been silent long enough to be claimed against.

        Returns:
            The messages to send (``timeout``, ``game_over`` and what follows; or
            ``claimable``), or ``[]``.
        """
        if self.phase is not RoomPhase.PLAYING or self.game.is_over:
            return []
        self._sync_waits()
        clock = self.clock
        if clock is None:
            out: list[Outgoing] = []
            for color in sorted(self._awaited_since, key=str):
                if color in self._claimable:
                    continue
                silent = self._claim_wait(color)
                left = self._claim_in(color)
                if left <= 0:
                    self._claimable.add(color)
                    out += self._broadcast({"type": "claimable", "color": str(color),
                                            "seconds": round(silent, 3)})
                elif (left <= CLAIM_WARNING and color not in self._warned
                      and self._thinking(color) and self._gone_for(color) is None):
                    self._warned.add(color)  # told once a turn, before it may be claimed
                    out += self._broadcast({"type": "silence", "color": str(color),
                                            "seconds": round(silent, 3),
                                            "claimable_in": round(left, 3)})
            return out
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
                loser = min(late)[2]  # the one whose time ran out first
                clock.charge(loser, max(0.0, clock.remaining(loser)))
        if loser is None:
            return []
        self.game.timeout(loser)
        self.round = None
        out = self._broadcast({"type": "timeout", "color": str(loser)})
        out += self._game_finished()
        self._sync_waits()
        return out

    # ----------------------------------------------------------------------------------------
    # Messages

    def handle(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        """Referee one message from ``seat``.

        Returns:
            The messages to send, in order.

        Raises:
            OnlineError: the message is refused (its code and words); nothing has changed.
        """
        handler = _HANDLERS.get(message.type)
        if handler is None:
            raise OnlineError("not_now", f"a {message.type} message is only for the start of "
                                         f"a connection")
        color = self.colors[seat]
        out = handler(self, seat, message)
        finished = message.type in _FINISHING or (
            message.type == "reveal" and color not in self.awaited())
        self._sync_waits(color if message.type in _ACTIONS else None, finished=finished)
        return out

    def _broadcast(self, payload: RoomEvent) -> list[Outgoing]:
        """The event to both seats, numbered, with the clock and (to the side to move) the
        legal moves."""
        self.seq += 1
        event: dict[str, Any] = {**payload, "seq": self.seq}
        clock = self._clock_view()
        if clock is not None:
            event["clock"] = clock
        out: list[Outgoing] = []
        mover = self.game.on_roll if self.game.phase is Phase.MOVE else None
        for seat in (Seat.HOST, Seat.GUEST):
            item = event
            if event["type"] in ("rolled", "move", "undo") and self.colors[seat] is mover:
                item = {**event, "legal_moves": self._legal_for(self.colors[seat]),
                        "legal": self._destinations_for(self.colors[seat])}
            out.append((seat, item))
        return out

    def _playing(self, what: str) -> Game:
        if self.phase is not RoomPhase.PLAYING:
            words = {
                RoomPhase.WAITING: "the guest has not joined yet",
                RoomPhase.FINISHED: "the match is over (ask for a rematch)",
                RoomPhase.ABORTED: f"the game was ended: {self.reason}",
                RoomPhase.CLOSED: f"the room is closed: {self.reason}",
                RoomPhase.EXPIRED: "the room has expired",
            }[self.phase]
            raise OnlineError("not_now", f"cannot {what}: {words}")
        return self.game

    def _round_number(self, number: int, what: str) -> DiceRound | None:
        """Check a dice message's round number: the open round's, or the next one."""
        expected = self.round.number if self.round is not None else self.next_round
        if number != expected:
            why = f"round {number} {'is over' if number < expected else 'has not come'}"
            state = (f"round {expected} is open" if self.round is not None
                     else f"the next round is {expected}")
            raise OnlineError("bad_round", f"{what} for round {number} refused: {why}; {state}")
        return self.round

    def _on_commit(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        game = self._playing("commit to a roll")
        color = self.colors[seat]
        number = message["round"]
        current = self._round_number(number, "a commitment")
        if current is not None:
            if current.kind == "opening":
                if color in current.commitments:
                    raise OnlineError("replayed", f"{color} has already committed to opening "
                                                  f"round {number}")
                self._charge_wait(color)
                current.commitments[color] = message["commitment"]
            elif color is current.roller:
                raise OnlineError("replayed", f"{color} has already committed to round "
                                              f"{number}: wait for the opponent's secret, then "
                                              f"reveal")
            else:
                raise OnlineError("wrong_side", f"round {number} is {current.roller}'s roll: "
                                                f"{color} answers with its secret, not a "
                                                f"commitment")
        elif game.phase is Phase.OPENING:
            self._charge_wait(color)
            self.round = DiceRound(number, "opening", commitments={color: message["commitment"]})
        elif game.phase is Phase.ROLL:
            if color is not game.on_roll:
                raise OnlineError("not_your_turn", f"{color} cannot roll: it is "
                                                   f"{game.on_roll}'s turn")
            self.round = DiceRound(number, "roll", roller=color,
                                   commitments={color: message["commitment"]})
            if self.clock is not None and self.clock.running is color:
                # The opponent's secret is awaited: the roller's turn pauses and the room
                # times the opponent's wait (_off_clock) until the secret comes.
                self.clock.pause()
        else:
            raise OnlineError("not_now", f"{color} cannot roll now: the game is in the "
                                         f"{game.phase} phase")
        return self._broadcast({"type": "commit", "round": number, "color": str(color),
                                "commitment": message["commitment"]})

    def _on_secret(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        self._playing("send a secret")
        color = self.colors[seat]
        number = message["round"]
        current = self._round_number(number, "a secret")
        if current is None:
            raise OnlineError("not_now", f"round {number} has not begun: the roller commits "
                                         f"first")
        if current.kind == "opening":
            raise OnlineError("not_now", f"round {number} is an opening roll: each side "
                                         f"commits, then reveals (no secret in the clear)")
        if color is current.roller:
            raise OnlineError("wrong_side", f"{color} rolls in round {number}: it reveals its "
                                            f"own secret after the opponent's")
        if color in current.secrets:
            raise OnlineError("replayed", f"{color} has already sent its secret for round "
                                          f"{number}")
        self._charge_wait(color)
        current.secrets[color] = message["secret"]
        if self.clock is not None and self.clock.paused is current.roller:
            self.clock.resume()
        return self._broadcast({"type": "secret", "round": number, "color": str(color),
                                "secret": message["secret"].hex()})

    def _on_reveal(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        self._playing("reveal a secret")
        color = self.colors[seat]
        number = message["round"]
        current = self._round_number(number, "a reveal")
        if current is None:
            raise OnlineError("not_now", f"round {number} has not begun: nothing to reveal")
        if current.kind == "opening":
            if len(current.commitments) < 2:
                waiting = (WHITE if WHITE not in current.commitments else BLACK)
                raise OnlineError("not_now", f"opening round {number}: wait for {waiting}'s "
                                             f"commitment before revealing")
            if color in current.secrets:
                raise OnlineError("replayed", f"{color} has already revealed for round "
                                              f"{number}")
        else:
            if color is not current.roller:
                raise OnlineError("wrong_side", f"round {number} is {current.roller}'s roll: "
                                                f"only {current.roller} reveals")
            if color.opponent not in current.secrets:
                raise OnlineError("not_now", f"round {number}: wait for "
                                             f"{color.opponent}'s secret before revealing")
        secret: bytes = message["secret"]
        if not verify_commitment(secret, current.commitments[color]):
            # No innocent cause (the page keeps its secret before it commits), and the roller
            # has seen its dice: the offender forfeits, the game so far stays in the record.
            return self._forfeit(color, room_says("forfeit_reveal", name=self.names[seat],
                                                  round=number), "reveal_mismatch")
        if current.kind == "opening":
            self._charge_wait(color)
        current.secrets[color] = secret
        out = self._broadcast({"type": "reveal", "round": number, "color": str(color),
                               "secret": secret.hex()})
        if current.kind == "opening" and len(current.secrets) < 2:
            return out
        return out + self._throw(current)

    def _throw(self, current: DiceRound) -> list[Outgoing]:
        """Both secrets are in: derive the dice and roll them."""
        game = self.game
        number = current.number
        if current.kind == "opening":
            dice = dice_from_secrets(current.secrets[WHITE], current.secrets[BLACK], number)
        else:
            assert current.roller is not None
            dice = dice_from_secrets(current.secrets[current.roller],
                                     current.secrets[current.roller.opponent], number)
        seconds = None
        if current.kind == "roll":
            assert current.roller is not None
            seconds, _ = self._used(current.roller)  # the roller's time before the roll
        game.roll(dice=dice, seconds=seconds)
        self.round = None
        self.next_round = number + 1
        # A roll that cannot be played passes by itself: the game is back in a roll phase.
        passed = current.kind == "roll" and game.phase is Phase.ROLL
        tie = current.kind == "opening" and game.phase is Phase.OPENING
        clock = self.clock
        if clock is not None:
            if current.kind == "opening" and not tie:
                assert game.on_roll is not None
                clock.start(game.on_roll)
                self.lap_start = 0.0
            elif passed:
                # A forced pass is a completed turn: the time before its roll is charged.
                clock.stop(increment=True)
                assert game.on_roll is not None
                clock.start(game.on_roll)
                self.lap_start = 0.0
            elif current.kind == "roll":
                self.lap_start = clock.turn_used()  # the play's seconds start here
        mover = None if tie else (current.roller or game.on_roll)
        return self._broadcast({
            "type": "rolled", "round": number, "opening": current.kind == "opening",
            "color": None if mover is None else str(mover), "dice": list(dice),
            "secrets": {str(c): s.hex() for c, s in current.secrets.items()},
            "tie": tie, "passed": passed,
            "turn": None if game.turn is None else str(game.turn),
        })

    def _forfeit(self, color: Color, cause: str, reason: str) -> list[Outgoing]:
        """``color`` forfeits the match (it left, or its reveal broke its commitment): it loses
        the game in play (between the games of a match, the next one), by the rest of the
        match's points, or three times the cube in a single game or money play; the match
        ends there. ``cause`` says why in words, ``reason`` in a word. [] when the match is
        decided already."""
        if self.phase is not RoomPhase.PLAYING or self._decided:
            return []
        game = self.game
        if game.is_over:  # between two games of a match or a session
            self.match.new_game()
            self.clock = self._new_clock()
            game = self.game
        length = self.settings.match_length
        if length:
            won = self.match.score[0 if color.opponent is WHITE else 1]
            points = max(1, length - won)
        else:
            points = 3 * game.cube_value
        self.round = None
        seconds, _ = self._used(color)
        game.forfeit(color, points, seconds=seconds)
        self._forfeited = (color, cause)
        what = "match" if length else "game"
        name = self.names[self.seat_of(color)]
        out = self._broadcast({"type": "forfeit", "color": str(color), "reason": reason,
                               "points": points,
                               "message": room_says("forfeits", cause=cause, name=name,
                                                    what=what)})
        return out + self._game_finished()

    # Game actions ---------------------------------------------------------------------------

    def _acting(self, seat: Seat, what: str, *, anyone: bool = False) -> tuple[Color, Game]:
        """The sender's colour and the game, once it is this side's time to ``what``."""
        game = self._playing(what)
        color = self.colors[seat]
        if self.round is not None:
            raise OnlineError("not_now", f"cannot {what} now: round {self.round.number} is "
                                         f"being thrown; finish the roll first")
        if game.phase is Phase.OPENING:
            raise OnlineError("not_now", f"cannot {what} now: the opening roll comes first")
        if not anyone and game.turn is not color:
            raise OnlineError("not_your_turn", f"{color} cannot {what}: it is {game.turn}'s "
                                               f"turn")
        return color, game

    def _clock_check(self, seat: Seat, message: ClientMessage, server: float | None
                     ) -> list[Outgoing]:
        reported = message.get("clock")
        if reported is None or server is None:
            return []
        drift = reported - server
        if abs(drift) <= CLOCK_TOLERANCE:
            return []
        return [(seat, {"type": "clock_sync", "reported": reported, "server": round(server, 3),
                        "drift": round(drift, 3)})]

    def _used(self, color: Color) -> tuple[float | None, float | None]:
        """The seconds ``color`` has used on the clock since its previous event this turn
        (what its next event records: the roll the time before it, the play the time after
        it), and its remaining time (both None when its clock is not running)."""
        clock = self.clock
        if clock is None or clock.running is not color:
            return None, None
        return round(max(0.0, clock.turn_used() - self.lap_start), 3), clock.remaining(color)

    def _hand_clock(self, *, increment: bool) -> None:
        """After a cube, resignation or turn action: stop the running clock and start the
        clock of the side that must act now."""
        clock = self.clock
        if clock is None:
            return
        if clock.running is not None or clock.paused is not None:
            clock.stop(increment=increment)
        self.lap_start = 0.0
        game = self.game
        if not game.is_over and game.turn is not None:
            clock.start(game.turn)

    def _moving(self, seat: Seat, what: str) -> tuple[Color, Game]:
        color, game = self._acting(seat, what)
        if game.phase is not Phase.MOVE:
            raise OnlineError("not_now", f"{color} cannot {what} now: the game is in the "
                                         f"{game.phase} phase")
        return color, game

    def _on_move(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        """One gesture: a checker moved by one or several dice (through the points between),
        all or nothing, as local play's ``move``: a refused step takes back the steps before
        it and the room is as it was."""
        color, game = self._moving(seat, "move")
        # all or nothing (services/table.py), as local play; the engine's refusal is worded
        # by server/errors.py
        made = make_moves(game, [Move(*triple) for triple in message["moves"]])
        return self._broadcast({"type": "move", "color": str(color),
                                "moves": [_move_list(m) for m in made],
                                "hits": [m.hit for m in made]})

    def _on_undo(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        color, game = self._moving(seat, "undo")
        try:
            taken = game.undo()
        except BackgammonError:
            raise  # the engine changed nothing; server/errors.py words it
        return self._broadcast({"type": "undo", "color": str(color), "move": _move_list(taken)})

    def _on_end_turn(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        color, game = self._moving(seat, "end the turn")
        seconds, server = self._used(color)
        try:
            play = game.end_turn(seconds=seconds)
        except BackgammonError:
            raise  # the engine changed nothing; server/errors.py words it
        return self._after_play(seat, message, color, [_move_list(m) for m in play.moves],
                                seconds, server)

    def _on_play(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        color, game = self._moving(seat, "play")
        if game.played:
            raise OnlineError("not_allowed", "moves were already made this turn: undo them or "
                                             "end the turn")
        seconds, server = self._used(color)
        play = _checked_play(game, message["moves"])
        try:
            play = game.play(play, seconds=seconds)
        except BackgammonError:  # pragma: no cover - _checked_play found it legal
            raise  # the engine changed nothing; server/errors.py words it
        return self._after_play(seat, message, color, [_move_list(m) for m in play.moves],
                                seconds, server)

    def _after_play(self, seat: Seat, message: ClientMessage, color: Color,
                    moves: list[list[int]], seconds: float | None, server: float | None
                    ) -> list[Outgoing]:
        self._hand_clock(increment=True)
        out = self._clock_check(seat, message, server)
        out += self._broadcast({"type": "play", "color": str(color), "moves": moves,
                                "seconds": seconds})
        if self.game.is_over:
            out += self._game_finished()
        return out

    def _cube_or_resign(self, seat: Seat, message: ClientMessage, what: str,
                        action: Callable[[Game, Color, float | None], Any], *,
                        anyone: bool = False) -> list[Outgoing]:
        color, game = self._acting(seat, what, anyone=anyone)
        seconds, server = self._used(color)
        try:
            result = action(game, color, seconds)
        except BackgammonError:
            raise  # the engine changed nothing; server/errors.py words it
        self._hand_clock(increment=False)
        out = self._clock_check(seat, message, server)
        payload: dict[str, Any] = {"type": message.type, "color": str(color)}
        if message.type in ("double", "beaver", "raccoon"):
            payload["cube"] = result
        if message.type == "resign":
            payload["level"] = message["level"]
        out += self._broadcast(cast(RoomEvent, payload))  # a cube, resign or answer event
        if game.is_over:
            out += self._game_finished()
        return out

    def _on_double(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        return self._cube_or_resign(seat, message, "double",
                                    lambda g, c, s: g.double(seconds=s))

    def _on_take(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        return self._cube_or_resign(seat, message, "take", lambda g, c, s: g.take(seconds=s))

    def _on_drop(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        return self._cube_or_resign(seat, message, "drop", lambda g, c, s: g.drop(seconds=s))

    def _on_beaver(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        return self._cube_or_resign(seat, message, "beaver",
                                    lambda g, c, s: g.beaver(seconds=s))

    def _on_raccoon(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        return self._cube_or_resign(seat, message, "raccoon",
                                    lambda g, c, s: g.raccoon(seconds=s))

    def _on_resign(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        level = message["level"]
        color = self.colors[seat]
        refusal = resign_refusal(self.game, color) if self.phase is RoomPhase.PLAYING else None
        if refusal is not None:
            raise OnlineError("not_now", refusal)
        return self._cube_or_resign(seat, message, "resign",
                                    lambda g, c, s: g.resign(c, level, seconds=s),
                                    anyone=True)

    def _on_claim(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        game = self._playing("claim the game")
        color = self.colors[seat]
        if self.clock is not None:
            raise OnlineError("not_now", "cannot claim the game: a timed game is decided by "
                                         "the clock (a silent side runs out of time)")
        self._sync_waits()
        opponent = color.opponent
        awaited = self.awaited()
        if color in awaited or opponent not in awaited:
            raise OnlineError("not_now", "cannot claim the game: it is waiting on you, not on "
                                         f"{opponent}")
        silent = self._claim_wait(opponent)
        if self._claim_in(opponent) > 0:
            name = self.names[self.seat_of(opponent)]
            gone = self._gone_for(opponent)
            if not self._thinking(opponent):
                why = (f"{opponent} has been silent {silent:.0f} s; a game can be claimed "
                       f"after {self.abandon_after:g} s")
            elif gone is not None:
                why = (f"{name}'s connection dropped {gone:.0f} s ago; a game can be claimed "
                       f"{self.abandon_after:g} s after a player's connection dropped, or "
                       f"after {self.silent_after:g} s of thinking")
            else:
                why = (f"{name} is at the board and has been thinking for {silent:.0f} s; a "
                       f"game can be claimed after {self.silent_after:g} s of thinking, or "
                       f"{self.abandon_after:g} s after a player's connection dropped")
            raise OnlineError("not_now", f"cannot claim the game yet: {why}")
        game.timeout(opponent)
        self.round = None
        self._abandoned = opponent
        self._abandoned_after = round(silent)
        out = self._broadcast({"type": "abandoned", "color": str(opponent),
                               "seconds": round(silent, 3)})
        return out + self._game_finished()

    def _on_accept(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        return self._cube_or_resign(seat, message, "accept a resignation",
                                    lambda g, c, s: g.accept_resignation(seconds=s))

    def _on_decline(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        return self._cube_or_resign(seat, message, "decline a resignation",
                                    lambda g, c, s: g.decline_resignation(seconds=s))

    def _game_finished(self) -> list[Outgoing]:
        """The game has a result: report it, then start the next game of the match or finish."""
        game = self.game
        outcome = game.outcome
        assert outcome is not None
        if self.clock is not None and (self.clock.running or self.clock.paused):
            self.clock.stop(increment=False)
        score = self.match.score
        abandoned = self._abandoned
        over = self._decided
        # The result in the words of local play (services/words.py), the players named.
        white, black = self._record_names()
        result = result_json(self.match, self.kind, Names(white, black), over,
                             abandoned_after=None if abandoned is None else self._abandoned_after,
                             forfeit=None if self._forfeited is None else self._forfeited[1])
        assert result is not None
        text = result["text"]
        out = self._broadcast({
            "type": "game_over", "game": len(self.match.games), "outcome": outcome.to_dict(),
            "score": {"white": score[0], "black": score[1]}, "match_over": over, "text": text,
            "log": game.to_log(),
        })
        if over:
            self._transition(RoomPhase.FINISHED, None if abandoned is None and
                             self._forfeited is None else text)
        return out

    def _on_next_game(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        """The next game of the match, once this one is over (either player may start it: the
        table's next-game policy, as in local play)."""
        game = self._playing("start the next game")
        if not game.is_over:
            raise OnlineError("not_now", "cannot start the next game: this game is not over")
        self.match.new_game()
        self.clock = self._new_clock()
        self.round = None
        score = self.match.score
        return self._broadcast({"type": "new_game", "game": len(self.match.games),
                                "score": {"white": score[0], "black": score[1]},
                                "crawford": self.match.crawford})

    # Room actions ---------------------------------------------------------------------------

    def _on_rematch(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        if self.phase is not RoomPhase.FINISHED:
            raise OnlineError("not_now", "a rematch is for when the match is over"
                              if self.phase is RoomPhase.PLAYING
                              else f"no rematch: the room is {self.phase}")
        if seat in self.rematch_offers:
            raise OnlineError("replayed", "you have already asked for a rematch")
        self.rematch_offers.add(seat)
        if not rematch_ready(self.rematch_offers, (Seat.HOST, Seat.GUEST)):  # both are remote
            return self._broadcast({"type": "rematch", "color": str(self.colors[seat])})
        self._transition(RoomPhase.PLAYING)
        self.rematch_offers.clear()
        white, black = rematch_sides("online", self.seat_of(WHITE), self.seat_of(BLACK))
        self.colors = {white: WHITE, black: BLACK}
        self.match = self._new_match()
        self.match_number += 1
        self.clock = self._new_clock()
        self.round = None
        self._abandoned = None
        self._forfeited = None
        self.reason = None
        colors = {str(s): str(c) for s, c in self.colors.items()}
        out = self._broadcast({"type": "new_match", "colors": colors})
        return [(s, {**payload, "you": colors[str(s)]}) for s, payload in out]

    def _record_names(self) -> tuple[str, str]:
        """The players' names, (White's, Black's), for the review and the transcript."""
        return (self.names.get(self.seat_of(WHITE), "White"),
                self.names.get(self.seat_of(BLACK), "Black"))

    def _reply(self, seat: Seat, message: ClientMessage, payload: ReplyMessage
               ) -> list[Outgoing]:
        if message.ref is not None:
            payload["ref"] = message.ref
        return [(seat, payload)]

    def heavy_read(self, seat: Seat, message: ClientMessage) -> Callable[[], list[Outgoing]]:
        """A read of :data:`HEAVY_READS` (``review``, ``export``) in two parts: what it needs
        from the room is taken now, costing the current game only (a
        :meth:`~backgammon.core.match.Match.snapshot` of the match, the names); the function
        returned makes the answer from that alone, its JSON text included
        (:class:`EncodedPayload`), and may run in another thread while the room goes on. Its
        cost grows with the match's history: the door runs it off the event loop.

        The function raises :class:`~.protocol.OnlineError` (``no_such_game``) for an
        ``export`` of a game the match has not reached.
        """
        if message.type not in HEAVY_READS:
            raise OnlineError("not_now", f"{message.type} is not a read of the history")
        names = self._record_names()
        ref = message.ref
        if message.type == "review":
            cached = self._review
            if cached is not None and cached[0] is self.match and cached[1] == self.seq:
                made, text = cached[2], cached[3]
                return lambda: [(seat, _with_ref({"type": "review", "review": made}, text,
                                                 ref))]
            match, seq, owner = self.match.snapshot(), self.seq, self.match
            length = self.settings.match_length
            kind = f"match to {length}" if length else "single game"
            claimed = self._abandoned is not None  # (recorded as a timeout: say it was claimed)

            def review() -> list[Outgoing]:
                made = review_match(match, names, title=f"{names[0]} vs {names[1]} · online, "
                                                        f"{kind}", claimed=claimed)
                payload = {"type": "review", "review": made}
                text = _review_text(payload)
                if len(text) <= REVIEW_CACHE_BYTES:
                    # Kept until the next event: both pages asking, or one asking again,
                    # cost nothing (a large one is made again rather than kept).
                    self._review = (owner, seq, made, text)
                return [(seat, _with_ref(payload, text, ref))]

            return review
        number = message.get("game")
        match = self.match.snapshot()
        name = f"backgammon-online-{self.code[:8]}{f'-game{number}' if number else ''}.mat"

        def export() -> list[Outgoing]:
            try:
                text = match_mat(match, names, number)
            except NoSuchGameError as exc:
                raise OnlineError("no_such_game", str(exc)) from None
            payload = {"type": "export", "game": number, "text": text, "filename": name}
            if ref is not None:
                payload["ref"] = ref
            encoded = EncodedPayload(payload)
            encoded.text = json.dumps(payload, separators=_COMPACT)
            return [(seat, encoded)]

        return export

    def _on_review(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        return self.heavy_read(seat, message)()

    def _on_explain(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        game = self.game
        color = self.colors[seat]
        if game.phase is Phase.MOVE and game.on_roll is not color and not game.is_over:
            reason = f"it is {game.on_roll}'s turn"
            answer: Any = {"legal": False, "text": reason, "reason": reason, "rule": None,
                           "source": None}
        else:
            answer = explain_attempt(game, message["from"], message.get("to"))
        return self._reply(seat, message, {"type": "explain", "explain": answer})

    def _on_export(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        return self.heavy_read(seat, message)()

    def _on_state(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        state, text = self.state_encoded(seat)
        payload = EncodedPayload(type="state", state=state)
        payload.text = f'{{"type":"state","state":{text}}}'
        return [(seat, payload)]

    def state_encoded(self, seat: Seat) -> tuple[dict[str, Any], str]:
        """:meth:`state_for` ``seat`` and its JSON text (compact), made at the cost of the
        current game, not of the match's history.

        Each page asks for the state after every event. The match's log, most of its bytes
        and the same for both seats, is encoded once for each version, each game over kept
        whole (:class:`_LogEncoder`); the move list of the view is the table's kept lines
        (:func:`~backgammon.services.table.match_history`) and their text."""
        version = (len(self.match.games), self.game.event_count, self.game.played)
        cached = self._match_text
        if cached is None or cached[0] is not self.match or cached[1] != version:
            log, text = self._log_encoder.encode(self.match)
            cached = self._match_text = (self.match, version, log, text)
        rest = self.state_for(seat, match_log=False)
        _, history = match_history(self.match, self._record_names(),
                                   claimed=self._abandoned is not None)
        shown = {**rest, "view": {**rest["view"], "history": _MARK}}
        head = json.dumps(shown, separators=_COMPACT).replace(_MARK_JSON, history, 1)
        return {**rest, "match": cached[2]}, f'{head[:-1]},"match":{cached[3]}}}'

    def _on_leave(self, seat: Seat, message: ClientMessage) -> list[Outgoing]:
        if self.phase is RoomPhase.CLOSED:
            return []
        name = self.names[seat]
        # Leaving a match in play forfeits it (it was a way to void a match one was losing).
        out = self._forfeit(self.colors[seat], room_says("forfeit_left", name=name), "left")
        reason = room_says("left_room", name=name, color=self.colors[seat])
        self._transition(RoomPhase.CLOSED, reason)
        self.round = None
        if self.clock is not None:
            self.clock.cancel()
        out += self._broadcast({"type": "closed", "reason": reason})
        out.append((seat.other, {"type": "opponent", "status": "left", "name": name,
                                 "message": room_says("left", name=name)}))
        return out


_HANDLERS: Final[dict[str, Callable[[Room, Seat, ClientMessage], list[Outgoing]]]] = {
    name: getattr(Room, f"_on_{name}")
    for name in ("commit", "secret", "reveal", "move", "undo", "end_turn", "play", "double",
                 "take", "drop", "beaver", "raccoon", "resign", "accept", "decline", "claim",
                 "next_game",
                 "rematch", "state", "review", "export", "explain", "leave")
}


class RoomManager:
    """Every room of a server, by invite code; expired rooms are dropped as they are met.

    Args:
        now: a monotonic clock in seconds, shared with the rooms' clocks (injected for tests).
        expiry: seconds a room may stay with nobody connected before it is forgotten.
        max_rooms: the most rooms kept at once.
        abandon_after: seconds an untimed game waits on a side whose connection dropped
            before the other side may claim it (:class:`Room`).
        silent_after: seconds of its turn an untimed game waits on a connected side before
            the other side may claim it (:class:`Room`).
        create_rate: rooms one client address may create in :data:`CREATE_WINDOW` seconds.
        max_waiting: rooms nobody has joined that one client address may hold at once.
        max_per_address: rooms one client address may hold at once, joined or not.
        time_controls: the values of the time controls offered (default the standard ones;
            the app passes the server's configured ones, as local play gets them).
    """

    def __init__(
        self,
        *,
        now: Callable[[], float] = time.monotonic,
        expiry: float = DEFAULT_EXPIRY,
        max_rooms: int = DEFAULT_MAX_ROOMS,
        abandon_after: float = DEFAULT_ABANDON_AFTER,
        create_rate: int = DEFAULT_CREATE_RATE,
        max_waiting: int = DEFAULT_MAX_WAITING,
        max_per_address: int = DEFAULT_MAX_PER_ADDRESS,
        time_controls: Mapping[str, TimeControl | None] | None = None,
        silent_after: float = DEFAULT_SILENT_AFTER,
    ) -> None:
        if not expiry > 0:
            raise ValueError(f"expiry must be a number of seconds > 0, got {expiry!r}")
        if not abandon_after > 0:
            raise ValueError(f"abandon_after must be a number of seconds > 0, got "
                             f"{abandon_after!r}")
        self.abandon_after = float(abandon_after)
        self.silent_after = float(silent_after)
        self.time_controls: dict[str, TimeControl | None] = dict(
            TIME_CONTROLS if time_controls is None else time_controls)
        self.create_rate = create_rate
        self.max_waiting = max_waiting
        self.max_per_address = max_per_address
        self._created: dict[str, list[float]] = {}  # each address's recent creations
        self._hosts: dict[str, str] = {}  # room code -> the address that created it
        self.now = now
        self.expiry = float(expiry)
        self.max_rooms = max_rooms
        self._rooms: dict[str, Room] = {}

    def __len__(self) -> int:
        return len(self._rooms)

    def create(self, settings: OnlineSettings, host_name: str | None = None,
               address: str | None = None) -> tuple[Room, str]:
        """A new room with the host's settings.

        Args:
            settings: the host's settings.
            host_name: the name shown for the host.
            address: the creating client's address (None: not limited per address).

        Returns:
            The room and the host's seat token.

        Raises:
            OnlineError: ``too_many_rooms`` when :attr:`max_rooms` rooms are open;
                ``rate_limited`` when ``address`` created :attr:`create_rate` rooms in the
                last :data:`CREATE_WINDOW` seconds, or holds :attr:`max_waiting` rooms nobody
                has joined, or :attr:`max_per_address` rooms. Nothing is created.
        """
        self.sweep()
        if address is not None:
            now = self.now()
            recent = [t for t in self._created.get(address, []) if now - t < CREATE_WINDOW]
            self._created[address] = recent
            if len(recent) >= self.create_rate:
                wait = CREATE_WINDOW - (now - recent[0])
                raise OnlineError("rate_limited", f"{len(recent)} rooms created from your "
                                                  f"address in the last {CREATE_WINDOW:g} s: "
                                                  f"try again in {wait:.0f} s")
            held = [code for code, host in self._hosts.items() if host == address]
            if len(held) >= self.max_per_address:
                raise OnlineError("rate_limited", f"your address has {len(held)} rooms open, "
                                                  f"its most: leave one (a room left empty "
                                                  f"is forgotten) to open another")
            waiting = sum(1 for code in held if self._rooms[code].phase is RoomPhase.WAITING)
            if waiting >= self.max_waiting:
                raise OnlineError("rate_limited", f"your address has {waiting} rooms nobody "
                                                  f"has joined: share one, or wait until they "
                                                  f"expire")
        if len(self._rooms) >= self.max_rooms:
            raise OnlineError("too_many_rooms", f"the server has {len(self._rooms)} rooms open, "
                                                f"its limit: try again later")
        code = secrets.token_urlsafe(CODE_BYTES)
        while code in self._rooms:  # pragma: no cover - 96 random bits
            code = secrets.token_urlsafe(CODE_BYTES)
        token = secrets.token_urlsafe(TOKEN_BYTES)
        room = Room(code, settings, token, now=self.now, host_name=host_name or "Host",
                    abandon_after=self.abandon_after, controls=self.time_controls,
                    silent_after=self.silent_after)
        self._rooms[code] = room
        if address is not None:
            self._created[address].append(self.now())
            self._hosts[code] = address
        return room, token

    def get(self, code: str) -> Room:
        """The room with this invite code.

        Raises:
            OnlineError: ``room_not_found`` (fatal): no such room, or it has expired.
        """
        self.sweep()
        room = self._rooms.get(code)
        if room is None:
            shown = code if len(code) <= 40 else code[:40] + "..."
            raise OnlineError("room_not_found", f"no room {shown!r}: check the invite code (a "
                                                f"room left empty expires)", fatal=True)
        return room

    def sweep(self) -> list[str]:
        """Drop every room that has been empty for the expiry time.

        Returns:
            The codes dropped.
        """
        gone = [code for code, room in self._rooms.items() if room.expired(self.expiry)]
        for code in gone:
            self._rooms.pop(code).expire()
            self._hosts.pop(code, None)
        now = self.now()
        for address in [a for a, times in self._created.items()
                        if not times or now - times[-1] >= CREATE_WINDOW]:
            del self._created[address]
        return gone


    # The doors' calls into a room go through these, so that a manager that keeps its rooms
    # in a store (:class:`~backgammon.services.online.persist.PersistentRooms`) commits every
    # accepted action before it is relayed. Here: straight to the room.

    def handle(self, room: Room, seat: Seat, message: ClientMessage, text: str
               ) -> list[Outgoing]:
        """:meth:`Room.handle` of ``message`` (``text``: the frame it was parsed from)."""
        return room.handle(seat, message)

    def tick(self, room: Room) -> list[Outgoing]:
        """:meth:`Room.tick`."""
        return room.tick()

    def join(self, room: Room, name: str | None) -> str:
        """:meth:`Room.join`: the guest's seat token."""
        return room.join(name)

    def seat_for(self, room: Room, token: str) -> Seat:
        """:meth:`Room.seat_for`."""
        return room.seat_for(token)

    def now_of(self, room: Room) -> float:
        """The room's clock reading (seconds; the time its deadlines are given in)."""
        return self.now()

    def restarted(self, room: Room, seat: Seat) -> bool:
        """Whether this is the seat's first connection since the server restarted and
        restored the room (then it is told so); False here."""
        return False
