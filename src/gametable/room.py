"""An online room: a :class:`~gametable.table.Table` with two remote seats, for any game.

A room is what two players at two screens share: the table (one game or match in progress,
its clock, its view), each seat's token (only its SHA-256 kept), the players' names and
presence, the fair-random round in progress (:mod:`gametable.fair`: the dice of a game with
chance; a game without chance never opens one), the rematch, and the games played before in
the room. It is a plain object driven by messages; the door (:mod:`gametable.online`) parses
them off the WebSocket, the room service (:mod:`gametable.rooms`) keeps and stores rooms.

What a room adds to the table, whatever the game:

* **Chance by rounds**: a side that may take a chance action opens a round by committing
  (``commit``); the round's result carries out the action (:meth:`Table.act` with the shared
  secret). A broken reveal forfeits the game.
* **Every wait is timed**: the table's clock runs for the side the game waits on; while a
  round waits for a side's step, that side's wait is charged to its own clock (the game's
  clock stands still), so a player who stalls a round runs out of time as one who stalls a
  move does.
* **Claims** (untimed games, and a timed game before its clock starts: checkers' first
  move, backgammon's opening roll): when the side the room waits on has been disconnected for
  ``claim_after`` seconds, or has withheld its step in an open dice round (commit, secret,
  reveal: its page sends them by itself) for as long, connected or not, or has kept the game
  waiting on its turn (or its answer to an offer) for ``think_after`` seconds (10 minutes by
  default, and at most the time control's reserve before a clock starts; warned
  :data:`THINK_WARNING` seconds before), its opponent may claim the game (a forfeit). The
  time a side has thought over its turn is kept while the game waits on its opponent's answer
  (to a draw offer, a double, a resignation), so offers do not start its wait afresh; it
  starts afresh once it completed a turn. An opened claim, and a warning, is announced once.
* **Leaving** a game in progress forfeits it; a host who leaves before anyone joined closes
  the room (it takes no guest: ``room_closed``); the room remembers who left (``left``, in
  its record and its view: the other seat's page says the room is closed); **a rematch**
  starts once both players asked, the sides swapped.

Each accepted message returns what to send: the same view shape as the table's own door,
from each seat's side, plus the room's part under ``"room"``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from gametable.errors import ActionRefused
from gametable.fair import MAX_ROUND, BrokenRevealError, FairRound
from gametable.seam import SIDES, GameRules, SharedSecret, Side, other
from gametable.table import Seat, Table

#: Seconds a side must have been gone before its opponent may claim an untimed game.
CLAIM_AFTER: Final = 120.0
#: Untimed: seconds a connected player may think over its turn before its opponent may claim
#: the game (the server's setting; backgammon's own door's 10 minutes).
THINK_AFTER: Final = 600.0
#: The silent player is warned this many seconds before such a claim opens (half the time
#: allowed when that is shorter than twice this).
THINK_WARNING: Final = 120.0
#: The room record's format version.
ROOM_VERSION: Final = 1
#: Games kept in a room's history (the rematches before the one in play).
MAX_HISTORY: Final = 50
#: Why a game was forfeited (:attr:`Room.forfeit`): its player left, was claimed against
#: (gone, or withholding a dice step, past the claim time), or revealed a secret that did not
#: match its commitment.
FORFEIT_CAUSES: Final = ("left", "claimed", "broken_reveal")


def token_hash(token: str) -> str:
    """SHA-256 of a seat token, hex: all a room keeps of it."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A message to send: to one side's connections, or to both (``side`` None)."""

    side: Side | None
    payload: dict[str, Any]


class Room:
    """One online room.

    Args:
        code: the room's code (its invitation).
        table: the table in play (both seats remote, its chance fair).
        tokens: each seat's token hash (None: the seat is still free).
        names: each player's name.
        now: the monotonic clock (the table's).
        claim_after: seconds gone before the opponent may claim an untimed game.
        think_after: seconds a connected player may keep an untimed game waiting on its turn
            before the opponent may claim it (warned :data:`THINK_WARNING` seconds before).
    """

    def __init__(
        self,
        code: str,
        table: Table,
        tokens: Mapping[Side, str | None],
        names: Mapping[Side, str],
        *,
        now: Callable[[], float],
        time_control: str = "none",
        claim_after: float = CLAIM_AFTER,
        think_after: float = THINK_AFTER,
    ) -> None:
        self.code = code
        self.table = table
        self.tokens: dict[Side, str | None] = {side: tokens.get(side) for side in SIDES}
        self.names: dict[Side, str] = {side: names.get(side, "") for side in SIDES}
        self.time_control = time_control
        self._now = now
        self.claim_after = claim_after
        self.think_after = think_after
        self.round: FairRound | None = None
        self.next_round = 0
        self.rematch: set[Side] = set()
        self.history: list[dict[str, Any]] = []
        #: The host left before a guest joined: the room takes no guest.
        self.closed = False
        #: The sides that left the room (``leave``): its page tells the one still there that
        #: the room is closed (no rematch offered); kept in the record, so a reload still
        #: says so. A rematch (both asked) forgets it.
        self.left: set[Side] = set()
        #: Why the game in play was forfeited, once it was: ``{"side": the side that forfeited,
        #: "cause": "left" | "claimed" | "broken_reveal"}`` (the page words it), else None.
        self.forfeit: dict[str, str] | None = None
        self.connections: dict[Side, int] = {side: 0 for side in SIDES}
        self._gone_since: dict[Side, float] = {side: now() for side in SIDES}
        self._waits: dict[Side, float] = {}
        # untimed: since when each side's step in the open round (its commit, secret or
        # reveal) has been awaited; withheld for ``claim_after`` seconds, connected or not,
        # its opponent may claim the game
        self._steps: dict[Side, float] = {}
        # untimed: since when the game has waited on the one side to act (its turn, or its
        # answer to an offer), connected or not; kept while that side stays the one awaited
        self._thinking: dict[Side, float] = {}
        # untimed: the seconds each side had thought over its turn when the game went to wait
        # on its opponent's answer (an offer), given back to it when the turn comes back
        self._thought: dict[Side, float] = {}
        self._completed: Side | None = None  # the side whose action just completed its turn
        # untimed: each side's claim instant already announced (the timer gives no deadline
        # for a claim that is open and told; a later one, after a reconnect, is told again)
        self._claims_told: dict[Side, float] = {}
        self._warnings_told: dict[Side, float] = {}
        self._unseen = False
        #: The room's storage is used up (set by the room service before each message,
        #: :func:`gametable.rooms.check_room_space`): it takes only what ends the game, and a
        #: claim opens only against a side that has gone (the other waits are not the
        #: awaited side's doing).
        self.full = False
        self.version = 0
        self._view_cache: dict[Side | None, tuple[Table, tuple[Any, ...], dict[str, Any]]] = {}

    # ---------------------------------------------------------------- seats

    def seat_for(self, token: str) -> Side:
        """The side a token opens.

        Raises:
            ActionRefused: ``not_your_room`` for a token that opens no seat here.
        """
        digest = token_hash(token)
        found: Side | None = None
        for side in SIDES:
            stored = self.tokens[side]
            if stored is not None and hmac.compare_digest(stored, digest):
                found = side
        if found is None:
            raise ActionRefused("not_your_room", "this token opens no seat in this room")
        return found

    def free_seat(self) -> Side | None:
        """The side still free for a guest, or None."""
        return next((side for side in SIDES if self.tokens[side] is None), None)

    def join(self, token: str, name: str) -> tuple[Side, list[Outgoing]]:
        """A guest takes the free seat with ``token`` (its hash kept).

        Raises:
            ActionRefused: ``room_closed`` when the host left before anyone joined,
                ``seats_taken`` when both seats are taken.
        """
        if self.closed:
            raise ActionRefused("room_closed", "the host has left this room: ask for a new one")
        side = self.free_seat()
        if side is None:
            raise ActionRefused("seats_taken", "both seats of this room are taken")
        self.tokens[side] = token_hash(token)
        self.names[side] = name
        self.table.seats[side] = Seat("remote", None, name)
        self.version += 1
        for seat in SIDES:  # gone from the game's start at most, not from the room's making
            if self.connections[seat] == 0:
                self._gone_since[seat] = self._now()
        self._time_steps()  # the game waits on its first mover from now
        return side, self.views()

    def connect(self, side: Side) -> list[Outgoing]:
        """A connection of ``side`` opened."""
        self.connections[side] += 1
        self._gone_since.pop(side, None)
        return self.views()

    def disconnect(self, side: Side) -> list[Outgoing]:
        """A connection of ``side`` closed."""
        self.connections[side] = max(0, self.connections[side] - 1)
        if self.connections[side] == 0:
            self._gone_since[side] = self._now()
            return self.views()
        return []

    def set_presence(
        self, connections: Mapping[Side, int], gone_since: Mapping[Side, float]
    ) -> None:
        """Presence known from elsewhere (a room that several server processes share): each
        side's open connections, and for a side with none the ``now()`` reading since which
        it has been gone (a side missing from ``gone_since`` keeps its own)."""
        for side in SIDES:
            self.connections[side] = max(0, int(connections.get(side, 0)))
            if self.connections[side] > 0:
                self._gone_since.pop(side, None)
            elif side in gone_since:
                self._gone_since[side] = gone_since[side]
            else:
                self._gone_since.setdefault(side, self._now())

    def adopt_presence(self, old: Room) -> None:
        """Take over ``old``'s connections (a room rebuilt from its record in place)."""
        self.connections = dict(old.connections)
        self._gone_since = dict(old._gone_since)

    # ---------------------------------------------------------------- waiting

    def awaited(self) -> frozenset[Side]:
        """The sides the room waits on: a round's missing steps, else the game's."""
        if self.table.game.outcome() is not None:
            return frozenset()
        if self.round is not None:
            return self.round.awaiting()
        return self.table.game.to_act()

    def gone_for(self, side: Side) -> float | None:
        """Seconds since ``side``'s last connection closed, or None while it is connected."""
        since = self._gone_since.get(side)
        return None if since is None else self._now() - since

    def claimable(self) -> Side | None:
        """The side whose opponent may claim the game now, in a game without a clock (a
        clock settles a stall itself): awaited and gone for ``claim_after`` seconds, or
        withholding a round step (:meth:`_time_steps`) for as long, connected or not, or
        keeping the game waiting on its turn for ``think_after`` seconds."""
        return self._claimable(self._claim_causes())

    def _claimable(self, causes: Mapping[Side, tuple[float, str]]) -> Side | None:
        """:meth:`claimable` of :meth:`_claim_causes`' ``causes``."""
        now = self._now()
        for side, (instant, _) in sorted(causes.items()):
            if instant <= now:
                return side
        return None

    def _step_sides(self) -> frozenset[Side]:
        """The sides whose step an open round waits on (a commit, a secret, a reveal: the
        page sends them by itself). A side whose own roll is due, no round open, is not one
        of them: it may be thinking (backgammon: whether to double first)."""
        if self.table.game.outcome() is not None or self.round is None:
            return frozenset()
        return self.round.awaiting()

    def _claims_apply(self) -> bool:
        """Whether claims apply: an untimed game, or a timed one whose clock has not started
        (before checkers' first move or backgammon's opening roll nobody's time runs, and a
        player could otherwise keep the game waiting for ever)."""
        clock = self.table.clock
        return clock is None or (clock.running is None and clock.paused is None
                                 and self.table.game.on_clock() is None)

    def _think_after(self) -> float:
        """Seconds a side may keep the game waiting on its turn: ``think_after``, and before
        a clock starts at most the time control's reserve."""
        clock = self.table.clock
        return self.think_after if clock is None else min(self.think_after,
                                                          clock.control.reserve)

    def _time_steps(self) -> None:
        """While claims apply (:meth:`_claims_apply`): start the wait of each side whose
        round step became awaited (a side still awaited keeps its start), forget the others';
        time the one side the game waits on (no round open). A side that stops being the one
        awaited without completing its turn (it offered a draw, doubled, resigned, opened a
        dice round) keeps the seconds it had thought, counted again when the game waits on it
        next; its opponent's answer is not charged to either; a completed turn or a finished
        game starts the waits afresh."""
        completed, self._completed = self._completed, None
        if not self._claims_apply():
            self._steps = {}
            self._thinking = {}
            self._thought = {}
            return
        now = self._now()
        self._steps = {side: self._steps.get(side, now) for side in self._step_sides()}
        game = self.table.game
        over = game.outcome() is not None
        if over:
            self._thinking = {}
            self._thought = {}
            return
        # (while a dice round is open the game waits on its steps, each timed as a step: the
        # roller's thinking stands still, kept, until the roll is made)
        turn = game.to_act() if self.free_seat() is None and self.round is None else set()
        answered = {other(side) for side in turn if side in self._thought
                    and side not in self._thinking}  # its answer gave the wait back
        # after a completed turn the side awaited next waits afresh (it may have been awaited
        # already, to answer an offer the mover then let lapse by moving)
        before = self._thinking if completed is None else {}
        thinking = ({side: before.get(side, now - self._thought.pop(side, 0.0))
                     for side in turn} if len(turn) == 1 else {})
        for side, since in self._thinking.items():
            if side not in thinking and side not in answered and side != completed:
                self._thought[side] = max(0.0, now - since)
        if completed is not None:
            self._thought.pop(completed, None)
        self._thinking = thinking

    def _start_waits(self) -> None:
        """Time the round's waits: the game's clock stands still, each awaited side's wait is
        charged to its own clock when its step comes."""
        clock = self.table.clock
        if clock is None or self.round is None:
            return
        if clock.running is not None:
            clock.pause()
        now = self._now()
        for side in self.round.awaiting():
            self._waits.setdefault(side, now)

    def _end_wait(self, side: Side) -> None:
        clock = self.table.clock
        since = self._waits.pop(side, None)
        if clock is not None and since is not None:
            clock.charge(side, max(0.0, self._now() - since))

    def _resume_clock(self) -> None:
        clock = self.table.clock
        if clock is not None and clock.running is None and clock.paused is not None:
            clock.resume()

    def give_back(self, seconds: float) -> None:
        """Give ``seconds`` (>= 0) back to whatever is being timed now: the running clock's
        side (:meth:`Clock.credit <gametable.clock.Clock.credit>`), each of a round's waits
        and, untimed, each gone side's wait for a claim (each started that much later, never
        after now). For time during which no action could be taken (a room store out of
        reach); a game over is left as it is."""
        if seconds <= 0 or self.table.game.outcome() is not None:
            return
        now = self._now()
        clock = self.table.clock
        if self._claims_apply():
            for side, since in self._gone_since.items():
                self._gone_since[side] = min(since + seconds, now)
            for side, since in self._steps.items():
                self._steps[side] = min(since + seconds, now)
            for side, since in self._thinking.items():
                self._thinking[side] = min(since + seconds, now)
        if clock is None:
            return
        if clock.running is not None:
            clock.credit(clock.running, seconds)
        for side, since in self._waits.items():
            self._waits[side] = min(since + seconds, now)

    def wait_left(self, side: Side) -> float | None:
        """Seconds ``side`` has left while a round waits on it, or None."""
        clock = self.table.clock
        since = self._waits.get(side)
        if clock is None or since is None:
            return None
        return clock.remaining(side) - (self._now() - since)

    def _claim_causes(self) -> dict[Side, tuple[float, str]]:
        """Untimed: for each awaited side, the ``now()`` instant at which it becomes
        claimable and why: ``"gone"`` (disconnected ``claim_after`` seconds), ``"step"``
        (withholding its round step as long) or ``"thinking"`` (keeping the game waiting on
        its turn ``think_after`` seconds, connected or not; at most the reserve before a
        clock starts), the earliest; in a full room only ``"gone"``; empty for a game whose
        clock has started, one over, or one whose guest has not joined."""
        if (not self._claims_apply() or self.table.game.outcome() is not None
                or self.free_seat() is not None):
            return {}
        causes: dict[Side, tuple[float, str]] = {}
        think_after = self._think_after()
        for side in self.awaited():
            found = [(since + after, cause) for since, after, cause in (
                (self._gone_since.get(side), self.claim_after, "gone"),
                (self._steps.get(side), self.claim_after, "step"),
                (self._thinking.get(side), think_after, "thinking"),
            ) if since is not None and (cause == "gone" or not self.full)]
            if found:
                causes[side] = min(found)
        return causes

    def _claim_instants(self) -> dict[Side, float]:
        """:meth:`_claim_causes`' instants."""
        return {side: instant for side, (instant, _) in self._claim_causes().items()}

    def _warning_instants(self) -> dict[Side, float]:
        """Untimed: the instant at which each side thinking over its turn is warned that a
        claim is near (:data:`THINK_WARNING` seconds before it opens, or halfway)."""
        if not self._thinking:
            return {}
        think_after = self._think_after()
        lead = min(THINK_WARNING, think_after / 2)
        awaited = self.awaited()
        return {side: since + think_after - lead
                for side, since in self._thinking.items() if side in awaited}

    def think_claim_in(self, side: Side) -> float | None:
        """Seconds until the opponent of ``side`` may claim the game because ``side`` keeps
        it waiting on its turn, once the warning is due (else None)."""
        return self._think_claim_in(side, self._claim_causes())

    def _think_claim_in(self, side: Side, causes: Mapping[Side, tuple[float, str]]
                        ) -> float | None:
        """:meth:`think_claim_in` of :meth:`_claim_causes`' ``causes``."""
        since = self._thinking.get(side)
        if since is None or not causes:
            return None
        warn = self._warning_instants().get(side)
        if warn is None:
            return None
        now = self._now()
        if now < warn:
            return None
        return round(max(0.0, since + self._think_after() - now), 3)

    def open_claims(self) -> bool:
        """Mark every claim open now (untimed, :meth:`claimable`) as announced; True when one
        of them had not been announced (its opponent's page is to be sent the views once).
        :meth:`next_deadline` gives no deadline for an announced claim."""
        if self.free_seat() is not None:
            return False
        now = self._now()
        fresh = False
        for side, instant in self._claim_instants().items():
            if instant <= now and instant > self._claims_told.get(side, float("-inf")):
                self._claims_told[side] = instant
                fresh = True
        for side, instant in self._warning_instants().items():  # a warning, told once too
            if instant <= now and instant > self._warnings_told.get(side, float("-inf")):
                self._warnings_told[side] = instant
                fresh = True
        return fresh

    def next_deadline(self) -> float | None:
        """The monotonic instant at which a flag falls or a claim opens, or None. A claim
        that is open and announced (:meth:`open_claims`) is no deadline: once it has opened,
        the timer has nothing more to do for it."""
        clock = self.table.clock
        if self.table.game.outcome() is not None:
            return None
        instants: list[float] = []
        if clock is not None:
            deadline = clock.deadline()
            if deadline is not None:
                instants.append(deadline)
            for side in self._waits:
                left = self.wait_left(side)
                if left is not None:
                    instants.append(self._now() + left)
        if self._claims_apply() and self.free_seat() is None:
            causes = self._claim_causes()
            open_against = self._claimable(causes)
            for side, (instant, _) in causes.items():
                if instant > self._claims_told.get(side, float("-inf")):
                    instants.append(instant)
            for side, instant in self._warning_instants().items():
                # (no warning is due of a claim already open against that side)
                if side != open_against and instant > self._warnings_told.get(
                        side, float("-inf")):
                    instants.append(instant)
        return min(instants) if instants else None

    def tick(self) -> list[Outgoing]:
        """Check the clocks: a side whose time ran out (on the game's clock or in a round's
        wait) loses. Returns the views to send when something changed."""
        if self.table.game.outcome() is not None:
            return []
        if self.table.check_time() is not None:
            return self._changed()
        for side in sorted(self._waits):
            left = self.wait_left(side)
            if left is not None and left <= 0:
                self._end_wait(side)
                self.round = None
                self._waits.clear()
                self.table.game.time_out(side)
                self._stop_clock()
                return self._changed()
        return []

    def _stop_clock(self) -> None:
        clock = self.table.clock
        if clock is not None and (clock.running is not None or clock.paused is not None):
            if clock.running is None:
                clock.resume()
            clock.stop(increment=False)

    # ---------------------------------------------------------------- messages

    def handle(self, side: Side, message: Mapping[str, Any]) -> list[Outgoing]:
        """Carry out one checked message from ``side`` (see :mod:`gametable.wire`); all or
        nothing.

        Raises:
            ActionRefused: with its code (the table's, the game's, the round's, or the
                room's: ``no_opponent``, ``not_claimable``, ``no_rematch``); nothing changed.
        """
        kind = message["type"]
        if kind in ("commit", "secret", "reveal") and not getattr(
                self.table.rules, "chance_actions", frozenset()):
            raise ActionRefused("not_allowed", f"{self.table.rules.name} has no dice: no "
                                               "round is ever opened in this game")
        if kind in ("commit", "secret", "reveal"):
            since = self._steps.pop(side, None)  # a step taken: its next one waits afresh
            try:
                return self._round_step(side, kind, message)
            except ActionRefused:
                if since is not None:
                    self._steps[side] = since
                raise
        if kind == "action":
            return self._action(side, message["action"])
        if kind == "claim":
            return self._claim(side)
        if kind == "leave":
            return self._leave(side)
        if kind == "rematch":
            return self._rematch(side)
        raise ActionRefused("invalid_message", f"unknown message type {kind!r}")

    def _playing(self) -> None:
        if self.free_seat() is not None:
            raise ActionRefused("no_opponent", "wait for your opponent to join")
        self.table.check_time()
        ended = self.table.game.outcome()
        if ended is not None:
            raise ActionRefused("game_over", f"the game is over ({ended.reason})")

    def _action(self, side: Side, action: Mapping[str, Any]) -> list[Outgoing]:
        self._playing()
        if self.round is not None:
            raise ActionRefused("round_open", f"round {self.round.number} is in progress")
        rules = self.table.rules
        if action.get("type") in getattr(rules, "chance_actions", frozenset()):
            raise ActionRefused(
                "invalid_action", "the dice come from a commit-reveal round: send commit"
            )
        applied = self.table.act(side, action)
        if applied.turn_complete:
            self._completed = side
        if applied.new_game:  # (the last game's thinking is not carried into this one)
            self._thinking = {}
            self._thought = {}
        return self._changed()

    def _round_step(self, side: Side, kind: str, message: Mapping[str, Any]) -> list[Outgoing]:
        self._playing()
        number = message["round"]
        value = message["commitment"] if kind == "commit" else message["secret"]
        current = self.round
        if current is None:
            if kind != "commit" or number != self.next_round:
                raise ActionRefused(
                    "not_your_turn", f"no round is open: commit to round {self.next_round}"
                )
            due = self.table.chance_due()
            if side not in due:
                raise ActionRefused("not_your_turn", "you cannot throw the dice now")
            current = FairRound(number, None if len(due) == 2 else side, {"type": "roll"})
            current.step(side, "commit", value)
            self.round = current
            self.next_round = min(number + 1, MAX_ROUND - 1)
            self._start_waits()
            return self._changed()
        if number != current.number:
            raise ActionRefused("not_your_turn", f"round {current.number} is in progress")
        try:
            shared = current.step(side, kind, value)
        except BrokenRevealError as error:
            self._end_wait(error.side)
            self.round = None
            self._waits.clear()
            self._resume_clock()
            self.table.game.forfeit(error.side)
            self._stop_clock()
            self.forfeit = {"side": error.side, "cause": "broken_reveal"}
            return self._changed()
        self._end_wait(side)
        if shared is None:
            self._start_waits()
            if not self._waits:
                self._resume_clock()
            return self._changed()
        return self._throw(current, shared)

    def _throw(self, current: FairRound, shared: SharedSecret) -> list[Outgoing]:
        self.round = None
        self._waits.clear()
        self._resume_clock()
        roller: Side = current.roller if current.roller is not None else "white"
        applied = self.table.act(roller, current.action, shared)
        if applied.turn_complete:
            self._completed = roller
        rolled = {"round": current.view()}
        return self._changed(rolled)

    def _claim(self, side: Side) -> list[Outgoing]:
        self._playing()
        gone = self.claimable()
        if gone is None or gone == side:
            raise ActionRefused(
                "not_claimable", "the game can be claimed only when your opponent is gone"
            )
        self._forfeit(gone, "claimed")
        return self._changed()

    def _leave(self, side: Side) -> list[Outgoing]:
        """``side`` leaves the room (remembered in :attr:`left`): a game in play is
        forfeited, a room nobody joined is closed; leaving twice changes nothing."""
        if side in self.left or self.closed:
            return []
        self.left.add(side)
        if self.free_seat() is not None:  # the host leaves before anyone joined: closed
            self.closed = True
        elif self.table.game.outcome() is None:
            self._forfeit(side, "left")
        return self._changed()

    def _forfeit(self, side: Side, cause: str) -> None:
        self.round = None
        self._waits.clear()
        self._resume_clock()
        self.table.game.forfeit(side)
        self._stop_clock()
        self.forfeit = {"side": side, "cause": cause}

    def _rematch(self, side: Side) -> list[Outgoing]:
        if self.table.game.outcome() is None:
            raise ActionRefused("no_rematch", "a rematch follows a finished game")
        self.rematch.add(side)
        if len(self.rematch) < 2:
            return self._changed()
        self.history.append(self.table.to_record())
        del self.history[:-MAX_HISTORY]
        old = self.table
        self.tokens = {side: self.tokens[other(side)] for side in SIDES}
        self.names = {side: self.names[other(side)] for side in SIDES}
        # gone from the new game's start at most (a player who asked and closed its page)
        self._gone_since = {other(side): self._now() for side in self._gone_since}
        self.connections = {side: self.connections[other(side)] for side in SIDES}
        self.table = Table(
            old.rules,
            old.settings,
            remote_seats(self.names),
            time_control=None if old.clock is None else old.clock.control,
            now=self._now,
            seed=old.seed + 1,
            fair=True,
        )
        self.rematch = set()
        self.left = set()  # both asked for it: whoever had left is back
        self.round = None
        self.forfeit = None
        self._claims_told = {}
        self._warnings_told = {}
        self._thinking = {}  # the new game's waits start afresh
        self._thought = {}
        return self._changed({"rematch": True})

    # ---------------------------------------------------------------- views

    def _changed(self, extra: Mapping[str, Any] | None = None) -> list[Outgoing]:
        self.version += 1
        self._time_steps()
        if self._unseen:
            return [Outgoing(None, {"type": "changed", **(extra or {})})]
        return self.views(extra)

    @contextmanager
    def unseen(self) -> Iterator[None]:
        """Within it, a step that changes the room returns one ``Outgoing(None, {"type":
        "changed", **extra})`` instead of the seats' views (a copy that replays another
        process's step and pushes its own seats their views itself)."""
        self._unseen = True
        try:
            yield
        finally:
            self._unseen = False

    def views(
        self, extra: Mapping[str, Any] | None = None, sides: Iterable[Side] = SIDES
    ) -> list[Outgoing]:
        """The view each seat (of ``sides``) is pushed now."""
        causes = self._claim_causes()
        return [
            Outgoing(side, {"type": "view", **(extra or {}), "view": self._view(side, causes)})
            for side in sides
        ]

    def view(self, side: Side | None) -> dict[str, Any]:
        """What ``side`` sees: the table's view (:meth:`Table.view`) and under ``"room"`` the
        code, names, presence, the round, whether a claim is open, the rematch asked and the
        sides that left the room (``left``).
        Until the guest has joined, nothing can be done (every ``can`` of the game's part is
        false), as the room refuses every action then.

        The table's part is built once for each state of the game (:meth:`_table_view`) and
        shared by the views returned until the game changes: treat a view as read-only."""
        return self._view(side, self._claim_causes())

    def _view(self, side: Side | None, causes: Mapping[Side, tuple[float, str]]
              ) -> dict[str, Any]:
        """:meth:`view` of :meth:`_claim_causes`' ``causes`` (made once for both seats)."""
        view = self._table_view(side)
        claimable = self._claimable(causes)
        # an untimed game waiting on the viewer's opponent, who is gone: seconds until the
        # viewer may claim it (its page warns and counts down), else None (a connected
        # opponent withholding a dice step is not counted down: its page sends the step by
        # itself, and the claim opens, can_claim, only if it never comes)
        claim_in = None
        if side is not None and claimable is None and self._claims_apply():
            gone = self.gone_for(other(side))
            if gone is not None and other(side) in self.awaited() and self.free_seat() is None:
                # (the earliest of its claims: its thinking may open one before its absence)
                cause = causes.get(other(side))
                left = (self.claim_after - gone if cause is None
                        else cause[0] - self._now())
                claim_in = round(max(0.0, left), 3)
        view["room"] = {
            "code": self.code,
            "you": side,
            "names": dict(self.names),
            "joined": {s: self.tokens[s] is not None for s in SIDES},
            "connected": {s: self.connections[s] > 0 for s in SIDES},
            "round": None if self.round is None else self.round.view(),
            "next_round": self.next_round,
            "chance_due": sorted(self.table.chance_due()) if self.round is None else [],
            "can_claim": claimable is not None and claimable != side and side is not None,
            # why the open claim is open: gone, step (a dice step withheld) or thinking
            "claim_cause": (None if claimable is None or claimable == side or side is None
                            else causes[claimable][1]),
            "claim_in": claim_in,
            # the viewer keeps the game waiting on its turn: seconds until its opponent may
            # claim it, from THINK_WARNING seconds before (its page warns it), else None
            "think_claim_in": None if side is None else self._think_claim_in(side, causes),
            "rematch": sorted(self.rematch),
            "games_before": len(self.history),
            "version": self.version,
            "forfeit": None if self.forfeit is None else dict(self.forfeit),
            # the sides that left the room (closed to the other: no rematch)
            "left": sorted(self.left),
        }
        return view

    def _table_view(self, side: Side | None) -> dict[str, Any]:
        """A fresh top level of :meth:`Table.view` for ``side`` (its ``clock`` read now),
        whose members (the game's ``state`` above all, the costly part: backgammon's board,
        legal moves and move list) are the ones built when the game was last changed. The
        game changes only by an action carried out (``Table.actions`` counts them), a game
        ended otherwise (a flag, a forfeit: its outcome), a name or a seat taken, or a new
        table (a rematch); a dice round's commitment and secret change none of these."""
        table = self.table
        key = (table.actions, table.game.outcome(), tuple(self.names.values()),
               self.free_seat())
        cached = self._view_cache.get(side)
        if cached is not None and cached[0] is table and cached[1] == key:
            view = dict(cached[2])
            view["clock"] = table.clock_view()
            return view
        built = table.view(side, names=self.names)
        state = built.get("state")
        if key[3] is not None and isinstance(state, dict):
            can = state.get("can")
            if isinstance(can, dict):
                state["can"] = {name: False for name in can}
        self._view_cache[side] = (table, key, built)
        return dict(built)

    # ---------------------------------------------------------------- the record

    def to_record(self) -> dict[str, Any]:
        """JSON-ready: :meth:`from_record` rebuilds the room (a round's wait in progress
        starts again from the restore: downtime is charged to no one)."""
        return {
            "version": ROOM_VERSION,
            "code": self.code,
            "table": self.table.to_record(),
            "time_control": self.time_control,
            "tokens": dict(self.tokens),
            "names": dict(self.names),
            "round": None if self.round is None else self.round.to_dict(),
            "next_round": self.next_round,
            "rematch": sorted(self.rematch),
            "history": list(self.history),
            "room_version": self.version,
            "closed": self.closed,
            "left": sorted(self.left),
            "forfeit": self.forfeit,
            # (the seconds a side had thought over its turn before its offer: kept across a
            # restart; written only when there are any)
            **({"thought": {side: round(seconds, 3) for side, seconds in self._thought.items()}}
               if self._thought else {}),
        }

    @classmethod
    def from_record(
        cls,
        record: Mapping[str, Any],
        games: Mapping[str, GameRules],
        now: Callable[[], float],
        claim_after: float = CLAIM_AFTER,
        think_after: float = THINK_AFTER,
    ) -> Room:
        """Rebuild a room from :meth:`to_record`.

        Raises:
            ActionRefused: ``invalid_record`` naming what is wrong.
        """
        try:
            if record.get("version") != ROOM_VERSION:
                raise ActionRefused("invalid_record", f"room version {record.get('version')!r}")
            table = Table.from_record(record["table"], games, now)
            tokens_data = record["tokens"]
            names_data = record["names"]
            tokens: dict[Side, str | None] = {}
            names: dict[Side, str] = {}
            for side in SIDES:
                token = tokens_data.get(side)
                if token is not None and not isinstance(token, str):
                    raise ActionRefused("invalid_record", f"{side}'s token is not text")
                tokens[side] = token
                names[side] = str(names_data.get(side, ""))
            room = cls(
                str(record["code"]),
                table,
                tokens,
                names,
                now=now,
                time_control=str(record.get("time_control", "none")),
                claim_after=claim_after,
                think_after=think_after,
            )
            round_data = record.get("round")
            if round_data is not None:
                room.round = FairRound.from_dict(round_data)
                if table.clock is not None and table.clock.running is not None:
                    table.clock.pause()
                room._start_waits()
            room.next_round = int(record.get("next_round", 0))
            room.rematch = {s for s in SIDES if s in record.get("rematch", [])}
            history = record.get("history", [])
            if not isinstance(history, list):
                raise ActionRefused("invalid_record", "the room's history is not a list")
            room.history = history
            room.version = int(record.get("room_version", 0))
            thought = record.get("thought", {})
            if not isinstance(thought, dict) or any(
                    side not in SIDES or isinstance(value, bool)
                    or not isinstance(value, int | float) or not 0 <= value < 1e9
                    for side, value in thought.items()):
                raise ActionRefused("invalid_record", f"bad thought {thought!r:.80}")
            room._thought = {side: float(value) for side, value in thought.items()}
            room._time_steps()  # a step awaited waits afresh from the restore
            room.closed = bool(record.get("closed", False))
            left = record.get("left")
            if left is not None and (not isinstance(left, list)
                                     or any(s not in SIDES for s in left)):
                raise ActionRefused("invalid_record", f"bad left {left!r}")
            room.left = {s for s in SIDES if s in (left or [])}
            forfeit = record.get("forfeit")
            if forfeit is not None:
                if (not isinstance(forfeit, dict) or forfeit.get("side") not in SIDES
                        or forfeit.get("cause") not in FORFEIT_CAUSES):
                    raise ActionRefused("invalid_record", f"bad forfeit {forfeit!r}")
                room.forfeit = {"side": forfeit["side"], "cause": forfeit["cause"]}
            if left is None:  # a record made before ``left``: what it tells of who left
                if room.closed:
                    room.left = {s for s in SIDES if tokens[s] is not None}
                elif room.forfeit is not None and room.forfeit["cause"] == "left":
                    room.left = {s for s in SIDES if s == room.forfeit["side"]}
        except ActionRefused as error:
            if error.code == "invalid_record":
                raise
            raise ActionRefused("invalid_record", f"bad room: {error}") from error
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ActionRefused("invalid_record", f"bad room: {error!r}") from error
        return room


def remote_seats(names: Mapping[Side, str]) -> dict[Side, Seat]:
    """Two remote seats with these names."""
    return {side: Seat("remote", None, names.get(side, "")) for side in SIDES}
