"""The online wire protocol: two browsers play through a room; the server referees.

Everything below is JSON text frames on one WebSocket per player,
``/api/online/rooms/{code}/ws``; the room itself is created over HTTP (``POST
/api/online/rooms``, see :mod:`backgammon.server.online.routes`). Colours are ``"white"`` and
``"black"``; seats ``"host"`` and ``"guest"``. A move is ``[from, to, die]`` in the mover's own
numbering (bar 25, off 0), as in the game log (:mod:`backgammon.core.game`). Secrets and
commitments are 64 lowercase hex digits (32 bytes; a commitment is SHA-256 of the secret's bytes,
:func:`backgammon.core.dice.commitment`).

Creating and joining
====================

1. The host ``POST /api/online/rooms`` with ``{"cube": bool, "time_control": "none" | "bullet" |
   "blitz" | "rapid", "match_length": 0..25, "money": bool?, "jacoby": bool?, "beavers": bool?,
   "name": str?}`` (``match_length`` 0: a single game, or with ``money`` a money session, games
   one after another with a running total, with the Jacoby rule and beavers when asked; N: a
   match to N points, Crawford rule) and gets ``201 {"code", "token", "seat": "host",
   "color": "white", "settings", "invite_path", "ws_path"}``. ``code`` is the invite code (96 bits
   from :mod:`secrets`, URL-safe); ``token`` the host's seat token (192 bits): keep it private.
2. Each player opens the WebSocket and sends ``hello`` first. The host (and anyone reconnecting)
   sends its seat token; the guest sends none and is given one in ``welcome``. ``welcome``
   carries the host's settings, so both sides agree on the cube and the clock.
3. ``GET /api/online/rooms/{code}`` shows a room's settings and whether its guest seat is free.

The host plays White in the first match; each rematch swaps the colours.

Client -> server
================

Every message is an object with ``"type"``; any message may carry ``"ref"`` (an int, or a
string of at most 64 characters) which the server echoes in an ``error`` about that message.
Unknown fields are refused. At most :data:`MAX_MESSAGE_BYTES` bytes a message.

==============  =============================================  =====================================
type            fields                                         who, when
==============  =============================================  =====================================
``hello``       ``token``? (seat token), ``name``? (1-32       first message on every connection
                characters)                                    (no token: join as the guest)
``commit``      ``round``, ``commitment``                      opening: each side; a turn: the
                                                               side on roll, before rolling
``secret``      ``round``, ``secret``                          the roller's opponent, after the
                                                               roller's commit (the other secret
                                                               in the clear)
``reveal``      ``round``, ``secret``                          opening: each side once both have
                                                               committed; a turn: the roller,
                                                               after the opponent's secret
``move``        ``moves`` (1-4 moves [from, to, die])          the side on roll: one gesture (a
                                                               checker through several dice), all
                                                               or nothing
``undo``        (none)                                         the side on roll: take back a move
``end_turn``    ``clock``?                                     the side on roll: its moves are the
                                                               whole play
``play``        ``moves`` (0-4 moves), ``clock``?              the side on roll: a whole play at
                                                               once (no single moves made before)
``double``      ``clock``?                                     the side on roll, before its commit
``take``,       ``clock``?                                     the doubled side (``beaver``: money
``drop``,                                                      play with beavers on; refused
``beaver``,                                                    otherwise; ``raccoon``: the
``raccoon``                                                    original doubler, answering a
                                                               beaver)
``resign``      ``level`` (single, gammon, backgammon),        either side, while no roll is in
                ``clock``?                                     progress; one offer a side a turn
``accept``,     ``clock``?                                     the resigning side's opponent
``decline``
``claim``       (none)                                         untimed games: once the opponent
                                                               is ``claimable`` (gone 2 minutes,
                                                               or thinking 10): win as abandoned
``next_game``   (none)                                         either side once a game of a match
                                                               is over: the next game begins
``rematch``     (none)                                         either side once the match is over;
                                                               the rematch starts when both asked
``state``       (none)                                         any time: the full state
``review``      (none)                                         any time: every position of the
                                                               match so far, to step through
``export``      ``game``? (1-based; none: the whole match)     any time: the ``.mat`` transcript
``explain``     ``from``, ``to``? (places: 1..24 in White's    the side on roll: why a checker
                numbering, ``"bar"``, ``"off"``; no ``to``:    cannot go there (or be picked up)
                picking the checker up)
``leave``       (none)                                         any time: leave the room for good
                                                               (a match in play is forfeited)
==============  =============================================  =====================================

``clock`` is the sender's own remaining time in seconds as its page shows it. The server's
clock decides (:class:`backgammon.services.clock.Clock` on its own timestamps); a reading off by
more than :data:`CLOCK_TOLERANCE` seconds is answered with ``clock_sync`` so the page corrects
itself. Every event of a timed game carries the server's clock, so neither side drifts.

No wait is free. In a timed game whoever must send the next message is on its clock: the
roller through its commit and its reveal, the roller's opponent until its secret comes, each
side in the opening round until its commitment (then its reveal) comes (both clocks can run
there). A forced pass is a completed turn: the time before its roll is charged. A side out of
time loses a single game at the cube's value (``timeout``). In an untimed game claims are for
players who are gone: a side the game waits on becomes ``claimable`` once its connection has
been dropped for 2 minutes, or, connected, once it has been thinking for 10 minutes of its
turn (both the server's settings), or once a dice message its page sends by itself (a
secret, a reveal, the opening's commitment) has been awaited 2 minutes; a connected side is
warned 2 minutes before (``silence`` to both pages; the state's ``silence`` and the view's
``claim_warning`` while it lasts). Its opponent may then ``claim``, and wins the game, and with
it the match (``abandoned``, then ``game_over`` with ``match_over``; the game's log records a
timeout of the silent side). Only what finishes the turn (a play, an answer to a double or to
a resignation, a secret, the opening's reveal) starts the count again: moves taken back and
made again, a commitment, a double or an offer to resign do not. Reading (``state``,
``review``, ``export``, ``explain``) is no action.

The server referees forfeits: a player who leaves a match in play, or whose reveal does not
match its commitment (which has no innocent cause: its page keeps the secret before it
commits), forfeits the match: it loses the game in play by the rest of the match's points (in
a single game or money play, three times the cube), the record keeps the game so far, and
both players get ``forfeit`` (why, in words), then ``game_over`` with ``match_over``.

Fair dice: commit-reveal, three messages a roll
===============================================

Rounds are numbered from 1 for the whole room (across games and rematches) and each number is
used once, so no message can be replayed. ``state.round`` says which round is open or next.

A turn's roll (round ``n``, the side on roll R, its opponent O):

1. R sends ``commit {round: n, commitment: SHA-256(r)}`` for a fresh 32-byte secret ``r``. This
   is R's decision to roll: from now on R cannot double, nobody can resign, and no other round
   can open until this one is thrown. R's clock stops and O's runs while the server waits for
   O.
2. O answers ``secret {round: n, secret: o}``: a fresh secret in the clear (its page does this
   by itself). R's clock runs again.
3. R sends ``reveal {round: n, secret: r}``. The server (and O's page) check ``SHA-256(r)``
   against the commitment; the dice are ``dice_from_secrets(r, o, n)``
   (:func:`backgammon.core.dice.dice_from_secrets`; the page's ``fairdice.js`` is the same
   derivation) and the server sends ``rolled`` with both secrets, so both pages can check.

The opening roll (round ``n``, the game in its opening phase; each side is on its clock until it
has sent what the step awaits):

1. Each side sends ``commit {round: n, commitment: SHA-256(own secret)}``, in either order.
2. Once both commitments are in, each side sends ``reveal {round: n, secret}``, in either order.
3. The dice are ``dice_from_secrets(white_secret, black_secret, n)``: the first die is White's,
   the second Black's (WBF rules 2.1: the higher die moves first and plays both). Equal dice are a
   tie: ``rolled`` says ``"tie": true`` and the next round is another opening round.

Neither side can steer the dice: each secret is fixed (committed to, or sent) before the other
secret is known, and the derivation is public. A reveal that does not match its commitment
forfeits the match at once (``forfeit``, reason ``reveal_mismatch``), the game log kept.
The page must keep its secret (e.g. in ``sessionStorage``) before sending a commitment: a page
that reloads mid-round needs it to reveal, and no new round can open until it does.

Server -> client
================

Events that change the room go to both players in the same order, each with ``seq`` (the room's
event counter, from 1); in a timed game each carries ``clock`` (``{"white": s, "black": s,
"running": colour | null, "waiting": [colours]}``: ``waiting`` lists every side whose time is
running, both in the opening round; ``running`` is the one of them, null when there are two).
To the side that must move, ``rolled``, ``move`` and ``undo`` also carry ``legal_moves``, the
single moves it can make next (``[from, to, die]``), and ``legal``, the same moves as the
board shows them in local play
(:func:`backgammon.services.destinations.legal_json`: each checker that can move, every place
it can reach with one or more dice, whether it hits there, and the single moves that take it
there, sent as one ``move``).

=================  ==============================================================================
type               fields
=================  ==============================================================================
``welcome``        ``seat``, ``color``, ``token``, ``code``, ``settings``, ``state`` (to the one
                   who said hello), ``restarted`` (true on a seat's first connection after the
                   server restarted and restored the room from its store)
``state``          ``state``: the full state (see below), answering ``state``
``opponent``       ``status`` (``joined``, ``disconnected``, ``reconnected``, ``left``),
                   ``name``, ``message`` (words for the page)
``commit``         ``round``, ``color``, ``commitment``
``secret``         ``round``, ``color``, ``secret``
``reveal``         ``round``, ``color``, ``secret``
``rolled``         ``round``, ``opening`` (bool), ``color`` (who rolled; for an opening roll the
                   side that moves first, null on a tie), ``dice``, ``secrets``
                   (``{"white", "black"}``), ``tie``, ``passed`` (the roll could not be played:
                   the turn passed), ``turn``
``move``           ``color``, ``moves`` (as made), ``hits`` (one bool a move)
``undo``           ``color``, ``move`` (the move taken back)
``play``           ``color``, ``moves`` (the play as recorded: the engine's order of the same
                   play, which may differ from the order sent), ``seconds`` (the turn's time,
                   timed games; null otherwise)
``double``         ``color``, ``cube`` (the value offered)
``take``,          ``color`` (``beaver`` and ``raccoon`` also ``cube``)
``drop``,
``beaver``,
``raccoon``
``resign``         ``color``, ``level``
``accept``,        ``color``
``decline``
``timeout``        ``color`` (who ran out of time: it loses a single game at the cube's value)
``silence``        ``color`` (a side thinking long), ``seconds`` (its turn so far),
                   ``claimable_in`` (seconds until it may be claimed against): untimed games,
                   once a turn
``claimable``      ``color`` (the silent side), ``seconds`` (how long the game has waited on it):
                   untimed games; its opponent may now ``claim``
``abandoned``      ``color`` (the silent side), ``seconds``: the game was claimed
``game_over``      ``game`` (1-based), ``outcome`` (``winner``, ``kind``, ``points``,
                   ``result_kind``), ``score``, ``match_over``, ``text``, ``log`` (the game's
                   event log, as :meth:`backgammon.core.game.Game.to_log`)
``new_game``       ``game``, ``score``, ``crawford``: a player asked for the next game of the
                   match (``next_game``); it begins with an opening round
``rematch``        ``color``: that side asks for a rematch
``new_match``      ``colors`` (``{"host": colour, "guest": colour}``), ``you`` (the receiver's
                   colour)
``forfeit``        ``color`` (the side that forfeits), ``reason`` (``left``, ``reveal_mismatch``),
                   ``points`` (what its opponent scores), ``message`` (why, in words: "Bob left
                   the game: Bob forfeits the match."); ``game_over`` follows
``aborted``        ``reason``: no longer sent (a broken reveal forfeits)
``closed``         ``reason`` (a player left)
``clock_sync``     ``reported``, ``server``, ``drift`` (seconds): to the sender only
``review``         ``review``: the match's positions (as local play's review,
                   :func:`backgammon.services.review.review_match`), ``ref``?: to the sender only
``export``         ``game``, ``text`` (the ``.mat`` transcript, our writer), ``filename``,
                   ``ref``?: to the sender only
``explain``        ``explain``: ``legal``, ``text``, ``reason``, ``rule``, ``source`` (as local
                   play's, :func:`backgammon.services.review.explain_attempt`), ``ref``?: to
                   the sender only
``notice``         ``code``, ``message`` (words for the page), ``storage``?: not one of the
                   room's events (no ``seq``), to both players: ``room_log_nearly_full``
                   once the room has stored 90 % of what it can keep (then ``room_log_full``
                   refuses all but what ends the game), ``not_saved`` when the server could
                   not store the room (play goes on; a restart would end it)
``error``          ``code``, ``message``, ``ref``? (to the sender only)
=================  ==============================================================================

The full state (``welcome.state``, ``state.state``): ``code``, ``phase`` (the room: ``waiting``,
``playing``, ``finished``, ``aborted``, ``closed``), ``reason``, ``settings``, ``you`` and
``opponent`` (``seat``, ``color``, ``name``, ``connected``), ``match`` (the whole record:
:meth:`backgammon.core.match.Match.to_log`, every game's event log), ``score``, ``game_number``,
``game`` (``phase`` (as local play names it: ``opening``, ``roll``, ``move``, ``cube``,
``resign``, ``game_over``, ``match_over``), ``on_roll``, ``turn`` (the side on roll, as
locally), ``to_act`` (the side that must act), ``board`` (26 signed slots and ``off``), ``dice``,
``dice_left``, ``played``, ``play_texts`` (``[event index, the play in standard notation]``
for each play of the game), ``legal_moves``, ``legal``, ``cube``, ``resignation``,
``outcome``, ``pips``), ``crawford`` (this game is the Crawford game),
``round`` (``next``, and ``open``: ``number``, ``kind``, ``roller``, ``commitments``,
``secrets`` or null), ``clock``, ``claimable`` (the silent side, or null), ``silence``
(``{"color", "seconds", "claimable_in"}`` while a side thinking long is warned, or null),
``rematch`` (the
seats that asked), ``seq``, ``storage`` (null for a room the server does not store, else
``actions``, ``max_actions``, ``bytes``, ``max_bytes``, ``saved`` (false: a restart would end
the room), ``warning``: words, or null), and ``view``: the table's view of the game from this
seat, the same shape and words as local play's state
(:func:`backgammon.services.table.describe`: ``phase``, ``turn``, ``to_act``, ``board``,
``dice``, ``legal``, ``can``, ``cube``, ``score``, ``history``, ``last_turn``, ``result``,
``message``, ...; with ``id``, ``version``, ``viewer``, ``players``, ``hints``, ``notice``:
the room's warning in words, or null, and ``claim_warning``: the ``silence`` warning in words
for this seat, or null), which the page draws.

Errors
======

An ``error`` refuses one message: nothing changes, the connection stays up, except where marked
*closes* (the server then closes the WebSocket with code :data:`CLOSE_REFUSED`).

=====================  ==========================================================================
code                   meaning
=====================  ==========================================================================
``too_large``          the message is over :data:`MAX_MESSAGE_BYTES` bytes
``malformed``          not JSON (or nested too deeply to read), not an object, a binary frame,
                       a missing, unknown or mistyped field (the message names it)
``unknown_type``       no such message type
``hello_first``        a message before ``hello``
``already_joined``     a second ``hello`` on the same connection
``room_not_found``     no such room, or it expired (*closes*)
``room_full``          the guest seat is taken (*closes*)
``bad_token``          the seat token is not this room's (*closes*)
``replaced``           the same seat connected again elsewhere (*closes* the older connection)
``not_now``            the room or game is not at a point where this message fits (e.g. a move
                       before the roll, a double during a roll in progress, a rematch mid-match,
                       a second resignation offer in a turn, a claim too early or in a timed
                       game)
``not_your_turn``      it is the other side's turn (e.g. a roll request out of turn)
``wrong_side``         dice sent by the side the round is not waiting for
``bad_round``          a round number that is not the open (or next) round: replayed or skipped
``replayed``           the same dice message twice in one round
``illegal_move``       the engine refuses the move or play (its message says why)
``not_allowed``        the engine refuses the action (e.g. the opponent owns the cube)
``reveal_mismatch``    (no longer an error: a reveal that does not match its commitment
                       forfeits the match, ``forfeit``)
``no_such_game``       ``export`` of a game number the match has not reached
``room_log_full``      the room has stored its most (actions, or bytes of actions): only what
                       can end the game is taken (resign, accept, decline, drop, claim, leave,
                       and the dice round already open)
``room_not_restored``  the room was refused when the server restarted (its record is damaged
                       or no longer replays) (*closes*)
``room_moved``         the room goes on at the table's door (``/api/rooms``), moved there when
                       the server started (*closes*; the message names its code there)
``storage_full``       the rooms created from this client address hold their most bytes: their
                       actions (but those that end a game) and new rooms are refused
=====================  ==========================================================================
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, cast

from backgammon.core.errors import BackgammonError
from backgammon.core.types import BAR, OFF
from backgammon.services.online.wire import ClientWire, ErrorMessage

__all__ = [
    "CLIENT_TYPES",
    "CLOCK_TOLERANCE",
    "CLOSE_REFUSED",
    "MAX_MESSAGE_BYTES",
    "ClientMessage",
    "OnlineError",
    "error_payload",
    "parse_message",
]

#: The largest message accepted, in bytes of UTF-8 (the largest real one, a play of four
#: moves with a clock reading, is under 150).
MAX_MESSAGE_BYTES: Final = 4096
#: How far a player's clock reading may be from the server's before it is corrected, in seconds:
#: the network's one-way delay plus a page's display timer, which a background tab throttles to
#: about one tick a second.
CLOCK_TOLERANCE: Final = 2.0
#: The WebSocket close code after a refusal that ends the connection (4000-4999: private use).
CLOSE_REFUSED: Final = 4403
#: The longest player name, in characters.
MAX_NAME: Final = 32
#: Round numbers stay below 2**63, as :func:`backgammon.core.dice.dice_from_secrets` needs.
_ROUND_LIMIT: Final = 1 << 63

_HEX64: Final = re.compile(r"[0-9a-f]{64}")
_TOKEN: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
_LEVELS: Final = ("single", "gammon", "backgammon")


class OnlineError(BackgammonError, ValueError):
    """A message the server refuses: ``code`` is one of the error codes of the module
    docstring, the message names the problem; ``fatal`` when the connection is closed after it;
    ``ref`` the refused message's ``ref``, when it could be read.
    """

    def __init__(self, code: str, message: str, *, fatal: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.fatal = fatal
        self.ref: int | str | None = None


@dataclass(frozen=True, slots=True)
class ClientMessage:
    """One checked message from a player.

    Attributes:
        type: the message type (a key of :data:`CLIENT_TYPES`).
        fields: its fields, checked and converted: ``round`` an int; ``commitment`` 64 hex
            digits; ``secret`` 32 bytes; ``move`` a ``(from, to, die)`` tuple; ``moves`` a
            tuple of them; ``clock`` a float (seconds); ``level``, ``token``, ``name`` str.
        ref: the sender's ``ref``, echoed in an error about this message.
    """

    type: str
    fields: Mapping[str, Any]
    ref: int | str | None = None

    def __getitem__(self, name: str) -> Any:
        return self.fields[name]

    def get(self, name: str, default: Any = None) -> Any:
        """A field, or ``default`` when the message does not have it."""
        return self.fields.get(name, default)

    def to_json(self) -> ClientWire:
        """The message as the protocol writes it: ``type`` and its checked fields (secrets as
        hex, moves as lists), without ``ref``; :func:`parse_message` of its compact JSON
        gives this message back (without ``ref``). What a room stores: the action, not the
        frame it came in (whose spaces and ``ref`` are the sender's to pad)."""
        return cast(ClientWire, {"type": self.type,
                                 **{name: _wire(value) for name, value in self.fields.items()}})


def _wire(value: Any) -> Any:
    """A checked field's value as JSON writes it (the inverse of the field's check)."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, tuple | list):
        return [_wire(item) for item in value]
    return value


def _fail(kind: str, message: str) -> OnlineError:
    return OnlineError("malformed", f"{kind}: {message}")


def _int_field(kind: str, name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(kind, f"{name} must be an int, got {value!r}")
    return value


def _round(kind: str, value: object) -> int:
    number = _int_field(kind, "round", value)
    if not 0 <= number < _ROUND_LIMIT:
        raise _fail(kind, f"round must be from 0 to 2**63 - 1, got {number}")
    return number


def _hex(kind: str, name: str, value: object) -> str:
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        shown = value if not isinstance(value, str) or len(value) <= 80 else value[:80] + "..."
        raise _fail(kind, f"{name} must be 64 lowercase hex digits (32 bytes), got {shown!r}")
    return value


def _commitment(kind: str, value: object) -> str:
    return _hex(kind, "commitment", value)


def _secret(kind: str, value: object) -> bytes:
    return bytes.fromhex(_hex(kind, "secret", value))


def _move(kind: str, value: object) -> tuple[int, int, int]:
    if (
        not isinstance(value, list)
        or len(value) != 3
        or any(isinstance(v, bool) or not isinstance(v, int) for v in value)
    ):
        raise _fail(kind, f"a move is [from, to, die] (three ints), got {value!r}")
    src, dst, die = value
    if not (1 <= src <= BAR and OFF <= dst < BAR and 1 <= die <= 6):
        raise _fail(kind, f"a move is [from 1..25, to 0..24, die 1..6], got {value!r}")
    return (src, dst, die)


def _moves(kind: str, value: object) -> tuple[tuple[int, int, int], ...]:
    if not isinstance(value, list) or len(value) > 4:
        raise _fail(kind, f"moves must be a list of at most 4 moves, got {value!r}")
    return tuple(_move(kind, item) for item in value)


def _path(kind: str, value: object) -> tuple[tuple[int, int, int], ...]:
    moves = _moves(kind, value)
    if not moves:
        raise _fail(kind, "moves must hold 1 to 4 moves (one gesture), got []")
    return moves


def _clock(kind: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _fail(kind, f"clock must be a finite number of seconds, got {value!r}")
    return float(value)


def _level(kind: str, value: object) -> str:
    if value not in _LEVELS:
        raise _fail(kind, f"level must be single, gammon or backgammon, got {value!r}")
    return str(value)


def _game_number(kind: str, value: object) -> int:
    number = _int_field(kind, "game", value)
    if not 1 <= number <= 10_000:
        raise _fail(kind, f"game must be a game number from 1, got {number}")
    return number


def _place(kind: str, value: object) -> int | str:
    if isinstance(value, str) and value in ("bar", "off"):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 24:
        return value
    raise _fail(kind, f"a place is 1..24 (White's numbering), 'bar' or 'off', got {value!r}")


def _token(kind: str, value: object) -> str:
    if not isinstance(value, str) or not _TOKEN.fullmatch(value):
        raise _fail(kind, "token must be a seat token (1-64 URL-safe characters)")
    return value


def _name(kind: str, value: object) -> str:
    if not isinstance(value, str) or not 1 <= len(value.strip()) <= MAX_NAME:
        raise _fail(kind, f"name must be 1 to {MAX_NAME} characters, got {value!r}")
    text = value.strip()
    if not text.isprintable():
        raise _fail(kind, f"name must be printable text, got {value!r}")
    return text


_Check = Callable[[str, object], Any]
#: Each message type: its required fields and its optional fields, with their checks.
CLIENT_TYPES: Final[dict[str, tuple[dict[str, _Check], dict[str, _Check]]]] = {
    "hello": ({}, {"token": _token, "name": _name}),
    "commit": ({"round": _round, "commitment": _commitment}, {}),
    "secret": ({"round": _round, "secret": _secret}, {}),
    "reveal": ({"round": _round, "secret": _secret}, {}),
    "move": ({"moves": _path}, {}),
    "next_game": ({}, {}),
    "undo": ({}, {}),
    "end_turn": ({}, {"clock": _clock}),
    "play": ({"moves": _moves}, {"clock": _clock}),
    "double": ({}, {"clock": _clock}),
    "take": ({}, {"clock": _clock}),
    "drop": ({}, {"clock": _clock}),
    "beaver": ({}, {"clock": _clock}),
    "raccoon": ({}, {"clock": _clock}),
    "resign": ({"level": _level}, {"clock": _clock}),
    "accept": ({}, {"clock": _clock}),
    "decline": ({}, {"clock": _clock}),
    "claim": ({}, {}),
    "rematch": ({}, {}),
    "state": ({}, {}),
    "review": ({}, {}),
    "export": ({}, {"game": _game_number}),
    "explain": ({"from": _place}, {"to": _place}),
    "leave": ({}, {}),
}


def _ref(data: Mapping[str, Any]) -> int | str | None:
    ref = data.get("ref")
    if ref is None:
        return None
    if isinstance(ref, bool) or not isinstance(ref, (int, str)):
        raise _fail("ref", f"ref must be an int or a string, got {ref!r}")
    if isinstance(ref, str) and len(ref) > 64:
        raise _fail("ref", "ref must be at most 64 characters")
    return ref


def parse_message(text: str) -> ClientMessage:
    """Check one text frame from a player.

    Args:
        text: the frame as received.

    Returns:
        The message, its fields checked and converted (see :class:`ClientMessage`).

    Raises:
        OnlineError: ``too_large`` over :data:`MAX_MESSAGE_BYTES` bytes; ``malformed`` not a
            JSON object, a missing, unknown or mistyped field; ``unknown_type``. The error's
            attribute ``ref`` holds the message's ``ref`` when it could be read.
    """
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        raise OnlineError("too_large", f"the message is {size} bytes: the limit is "
                                       f"{MAX_MESSAGE_BYTES}")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise OnlineError("malformed", f"the message is not JSON: {exc}") from None
    except RecursionError:
        raise OnlineError("malformed", "the message is nested too deeply to read (no message "
                                       "nests more than 3 levels)") from None
    if not isinstance(data, dict):
        raise OnlineError("malformed", f"a message must be a JSON object, got "
                                       f"{type(data).__name__}")
    ref: int | str | None = None
    try:
        ref = _ref(data)
        kind = data.get("type")
        if not isinstance(kind, str):
            raise OnlineError("malformed", f'a message needs a "type" string, got {kind!r}')
        if kind not in CLIENT_TYPES:
            shown = kind if len(kind) <= 40 else kind[:40] + "..."
            raise OnlineError("unknown_type", f"unknown message type {shown!r}: expected one of "
                                              f"{', '.join(CLIENT_TYPES)}")
        required, optional = CLIENT_TYPES[kind]
        missing = [name for name in required if name not in data]
        if missing:
            raise _fail(kind, f"missing {', '.join(missing)}")
        unknown = sorted(set(data) - {"type", "ref", *required, *optional})
        if unknown:
            raise _fail(kind, f"unknown field{'s' if len(unknown) > 1 else ''} "
                              f"{', '.join(repr(u[:40]) for u in unknown[:5])}")
        fields: dict[str, Any] = {}
        for name, check in (*required.items(), *optional.items()):
            if name in data and not (name in optional and data[name] is None):
                fields[name] = check(kind, data[name])
    except OnlineError as exc:
        exc.ref = ref
        raise
    return ClientMessage(kind, fields, ref)


def error_payload(error: OnlineError, ref: int | str | None = None) -> ErrorMessage:
    """The ``error`` message for a refusal: ``{"type": "error", "code", "message"}``, with
    ``ref`` when the refused message had one."""
    payload: ErrorMessage = {"type": "error", "code": error.code, "message": str(error)}
    if ref is None:
        ref = error.ref
    if ref is not None:
        payload["ref"] = ref
    return payload
