"""The table: one game in progress with its seats, its clock, its action gate and its view.

A :class:`Table` owns a :class:`~gametable.seam.GameInProgress` made by a game's
:class:`~gametable.seam.GameRules`. Every door (a page at this server, a remote player on a
WebSocket, the terminal) acts through :meth:`Table.act` and reads :meth:`Table.view`; none
keeps its own clock, state shape or refusal codes.

The rules the table applies, whatever the game:

* **One action gate**: an action for a side with no seat, or once the game is over, is refused
  (``ActionRefused`` with its code); the game refuses the rest (not its turn, illegal), all or
  nothing.
* **One turn clock** (optional; :mod:`gametable.clock`): it runs for the side the game says
  (:meth:`~gametable.seam.GameInProgress.on_clock`: nobody before the game's clock starts,
  e.g. before checkers' first move); when that side changes, the clock that stops earns the
  Fischer increment only if the action completed a turn (the game says which actions do); a
  side whose time has run out loses (:meth:`Table.check_time`, called before every action
  and by whoever watches the deadline); a game that ends stops the clock without increment,
  and the next game of a match starts on a fresh clock.
* **Computer seats** act when the game waits on them (:meth:`Table.play_computer`), with a
  generator seeded from the table's seed, so a table replays the same.
* **The record** (:meth:`Table.to_record`) is the game's name, settings, seed, seats, time
  control, event log and clock: :meth:`Table.from_record` rebuilds the table from it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from gametable.clock import Clock, TimeControl
from gametable.errors import ActionRefused
from gametable.seam import (
    SIDES,
    Applied,
    ChanceGame,
    ChanceRules,
    GameInProgress,
    GameRules,
    SharedSecret,
    Side,
)

#: The kinds of seat: a person at this screen, the computer, a player at another screen.
SEAT_KINDS: Final = ("person", "computer", "remote")
#: The record's format version (:meth:`Table.to_record`).
RECORD_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sits on one side.

    Attributes:
        kind: ``"person"`` (at this screen), ``"computer"`` or ``"remote"``.
        level: the computer's level (for a computer seat).
        name: how the page names the player (empty: the side's name).
    """

    kind: Literal["person", "computer", "remote"] = "person"
    level: str | None = None
    name: str = ""

    def to_dict(self) -> dict[str, Any]:
        """``{"kind", "level", "name"}``."""
        return {"kind": self.kind, "level": self.level, "name": self.name}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Seat:
        """A seat from :meth:`to_dict`.

        Raises:
            ActionRefused: ``invalid_seat`` for an unknown kind or a computer without level.
        """
        kind = data.get("kind")
        if kind not in SEAT_KINDS:
            raise ActionRefused("invalid_seat", f"seat kind {kind!r} is not one of {SEAT_KINDS}")
        level = data.get("level")
        if kind == "computer" and not isinstance(level, str):
            raise ActionRefused("invalid_seat", "a computer seat needs a level")
        name = data.get("name", "")
        return cls(kind, level if isinstance(level, str) else None, str(name))


class Table:
    """One game in progress at the table.

    Args:
        rules: the game (its plug-in).
        settings: the game's settings as a request gives them (checked by ``rules``).
        seats: who sits on each side (both sides must have one).
        time_control: the clock's reserve and increment, or None for no clock.
        now: a monotonic clock in seconds (injected: tests use a fake one).
        seed: drives the game's chance (unless ``fair``) and the computer's choices.
        game: a game already in progress (e.g. rebuilt from a record) instead of a new one.
        fair: the game's chance comes only from fair-random rounds (an online room's
            :mod:`gametable.fair`), passed to :meth:`act` as a :class:`SharedSecret`; for a
            game without chance it changes nothing.

    Raises:
        ActionRefused: ``invalid_settings`` or ``invalid_seat``.
    """

    def __init__(
        self,
        rules: GameRules,
        settings: Mapping[str, Any] | None = None,
        seats: Mapping[Side, Seat] | None = None,
        *,
        time_control: TimeControl | None = None,
        now: Callable[[], float] = time.monotonic,
        seed: int = 0,
        game: GameInProgress | None = None,
        fair: bool = False,
    ) -> None:
        self.rules = rules
        self.fair = fair and rules.needs_chance
        self.settings = rules.settings(settings or {})
        self.seats: dict[Side, Seat] = dict(seats or {side: Seat() for side in SIDES})
        missing = [side for side in SIDES if side not in self.seats]
        if missing:
            raise ActionRefused("invalid_seat", f"no seat for {', '.join(missing)}")
        for side, seat in self.seats.items():
            if seat.kind == "computer" and seat.level not in rules.levels:
                raise ActionRefused(
                    "invalid_seat",
                    f"{side}'s computer level {seat.level!r} is not one of "
                    f"{', '.join(rules.levels)}",
                )
        self.seed = seed
        if game is None:
            game = (
                self._chance_rules().new_fair(self.settings)
                if self.fair
                else rules.new(self.settings, seed)
            )
        self.game: GameInProgress = game
        self._now = now
        self.clock: Clock[str] | None = Clock(time_control, now) if time_control else None
        #: Actions carried out at this table so far.
        self.actions = 0
        #: The computer's last action: ``{"side", "seconds" (its thinking time, wall clock),
        #: "actions" (the table's count after it)}``, or None.
        self.thought: dict[str, Any] | None = None
        self._rng = random.Random(seed ^ 0x5EA7)

    # ---------------------------------------------------------------- acting

    def _chance_rules(self) -> ChanceRules:
        rules = self.rules
        if not rules.needs_chance or not hasattr(rules, "new_fair"):
            raise TypeError(f"{rules.name} has no chance")
        return rules  # type: ignore[return-value]  # checked just above

    def chance_game(self) -> ChanceGame | None:
        """The game in progress as a game with chance, or None for a game without."""
        if not self.rules.needs_chance:
            return None
        return self.game  # type: ignore[return-value]  # a needs_chance game is a ChanceGame

    def chance_due(self) -> frozenset[Side]:
        """The sides that may take a chance action now (none in a game without chance, or
        once it is over)."""
        game = self.chance_game()
        if game is None or self.game.outcome() is not None:
            return frozenset()
        return game.chance_due()

    def act(
        self, side: str, action: Mapping[str, Any], shared: SharedSecret | None = None
    ) -> Applied:
        """Carry out ``side``'s action through the gate, the game and the clock.

        Args:
            side: ``"white"`` or ``"black"``.
            action: the action's JSON (``{"type": ..., ...}``).
            shared: a fair-random round's result for a chance action at a fair table (the
                room's door passes it; a person's request never does).

        Raises:
            ActionRefused: ``no_seat`` for a side that is not white or black,
                ``invalid_action`` for an action that is not an object with a ``"type"`` or
                for a round's result where none is wanted, ``game_over`` once the game has
                ended (a flag that fell before the action ends it first), or the game's own
                refusal; nothing changed.
        """
        if side not in SIDES:
            raise ActionRefused("no_seat", f"{side!r} is not a side: white or black")
        if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
            raise ActionRefused(
                "invalid_action",
                f"an action is a JSON object with a \"type\", not {action!r:.80}",
            )
        mover: Side = "white" if side == "white" else "black"
        self.check_time()
        ended = self.game.outcome()
        if ended is not None:
            raise ActionRefused("game_over", f"the game is over ({ended.reason})")
        if shared is None:
            applied = self.game.apply(mover, action)
        else:
            game = self.chance_game()
            if game is None or not self.fair:
                raise ActionRefused("invalid_action", "no chance is drawn by rounds here")
            applied = game.apply_chance(mover, action, shared)
        self._after(applied)
        self.actions += 1
        return applied

    def _after(self, applied: Applied) -> None:
        """Put the clock on the side the game now waits on (:meth:`GameInProgress.on_clock`):
        the side whose clock stops earns the increment when the action completed a turn."""
        clock = self.clock
        if clock is None:
            return
        if applied.new_game:
            clock = self.clock = Clock(clock.control, self._now)
        running = clock.running if clock.running is not None else clock.paused
        wanted = self.game.on_clock() if self.game.outcome() is None else None
        if running is not None and (running != wanted or applied.turn_complete):
            clock.stop(increment=applied.turn_complete and self.game.outcome() is None)
            running = None
        if wanted is not None and running is None:
            clock.start(wanted)

    def check_time(self) -> Side | None:
        """End the game on time when the running side's reserve is spent: the clock is charged
        up to the instant it ran out and the game records the loss. Returns the side that ran
        out of time, else None."""
        clock = self.clock
        if clock is None or clock.running is None or self.game.outcome() is not None:
            return None
        side = clock.running
        if not clock.flagged(side):
            return None
        clock.stop(increment=False, at=clock.deadline())
        loser: Side = "white" if side == "white" else "black"
        self.game.time_out(loser)
        return loser

    def computer_to_act(self) -> Side | None:
        """A side with a computer seat that the game waits on now, or None. When the game
        waits on both sides at once (backgammon's opening roll, which either may throw), a
        person or remote player starts it: the computer acts then only at a table of
        computers."""
        if self.game.outcome() is not None:
            return None
        waiting = sorted(self.game.to_act())
        computers = [side for side in waiting if self.seats[side].kind == "computer"]
        if not computers or (len(waiting) > 1 and len(computers) < len(waiting)):
            return None
        return computers[0]

    def play_computer(self, limit: int = 1000) -> list[Applied]:
        """Let computer seats act while the game waits on them (at most ``limit`` actions);
        returns what they did."""
        done: list[Applied] = []
        while len(done) < limit:
            side = self.computer_to_act()
            if side is None:
                break
            level = self.seats[side].level or self.rules.levels[0]
            started = time.perf_counter()
            action = self.rules.computer_action(self.game, side, level, self._rng)
            seconds = time.perf_counter() - started
            done.append(self.act(side, action))
            self.thought = {"side": side, "seconds": round(seconds, 3), "actions": self.actions}
        return done

    # ---------------------------------------------------------------- reading

    def view(
        self, side: Side | None = None, *, names: Mapping[Side, str] | None = None
    ) -> dict[str, Any]:
        """What ``side`` sees (None: a spectator): the game's name, the seats, who must act,
        the offer waiting, the outcome, the clock, the count of actions carried out, the
        computer's last action's thinking time (``thought``: ``{"side", "seconds",
        "actions"}`` or None), and under ``"state"`` the game's own part (board, legal moves,
        ``can``, move list). ``names``: the players' names the game's words use (an online
        room passes its own); by default the seats' names, or None when no seat has one."""
        if names is None and any(seat.name for seat in self.seats.values()):
            names = {s: seat.name for s, seat in self.seats.items()}
        offer = self.game.offer()
        outcome = self.game.outcome()
        return {
            "game": self.rules.name,
            "seats": {s: seat.to_dict() for s, seat in self.seats.items()},
            "to_act": sorted(self.game.to_act()),
            "offer": None if offer is None else {"kind": offer.kind, "by": offer.by},
            "outcome": None if outcome is None else outcome.to_dict(),
            "clock": self.clock_view(),
            "actions": self.actions,
            "thought": self.thought,
            "state": self.game.view(side, names=names),
        }

    def clock_view(self) -> dict[str, Any] | None:
        """The clock as the page shows it: ``{"control", "reserve", "increment", "remaining":
        {"white", "black"}, "running"}`` (seconds), or None without a clock."""
        clock = self.clock
        if clock is None:
            return None
        return {
            "control": clock.control.name,
            "reserve": clock.control.reserve,
            "increment": clock.control.increment,
            "remaining": {side: max(0.0, clock.remaining(side)) for side in SIDES},
            "running": clock.running,
        }

    # ---------------------------------------------------------------- the record

    def to_record(self) -> dict[str, Any]:
        """A JSON-ready record that :meth:`from_record` rebuilds this table from (a running
        clock is saved as paused at this instant)."""
        return {
            "version": RECORD_VERSION,
            "game": self.rules.name,
            "settings": dict(self.settings),
            "seed": self.seed,
            "seats": {side: seat.to_dict() for side, seat in self.seats.items()},
            "fair": self.fair,
            "log": self.game.log(),
            "clock": None if self.clock is None else self.clock.to_dict(),
            "actions": self.actions,
            "thought": self.thought,
        }

    @classmethod
    def from_record(
        cls,
        record: Mapping[str, Any],
        games: Mapping[str, GameRules],
        now: Callable[[], float] = time.monotonic,
    ) -> Table:
        """Rebuild a table from :meth:`to_record`; a turn that was on the clock comes back
        running from now.

        Args:
            record: the record.
            games: the games this server plays, by name.
            now: the monotonic clock.

        Raises:
            ActionRefused: ``invalid_record`` naming what is wrong (an unknown game or
                version, a bad seat, log or clock).
        """
        try:
            if record.get("version") != RECORD_VERSION:
                raise ActionRefused(
                    "invalid_record", f"record version {record.get('version')!r} is not 1"
                )
            name = record.get("game")
            if not isinstance(name, str) or name not in games:
                raise ActionRefused("invalid_record", f"unknown game {name!r}")
            rules = games[name]
            seats_data = record["seats"]
            seats = {side: Seat.from_dict(seats_data[side]) for side in SIDES}
            seed = int(record.get("seed", 0))
            settings = rules.stored_settings(record.get("settings") or {})
            log = record.get("log")
            if not isinstance(log, list):
                raise ActionRefused("invalid_record", "the record's log is not a list")
            game = rules.replay(settings, seed, log)
            fair = record.get("fair", False)
            if not isinstance(fair, bool):
                raise ActionRefused("invalid_record", "the record's fair is not true or false")
            table = cls(rules, settings, seats, now=now, seed=seed, game=game, fair=fair)
            clock_data = record.get("clock")
            if clock_data is not None:
                table.clock = Clock.from_dict(clock_data, now)
                table.clock.resume()
            actions = record.get("actions", 0)
            thought = record.get("thought")
            if isinstance(actions, int) and not isinstance(actions, bool) and actions >= 0:
                table.actions = actions
            if (
                isinstance(thought, dict)
                and thought.get("side") in SIDES
                and isinstance(thought.get("seconds"), int | float)
                and isinstance(thought.get("actions"), int)
            ):
                table.thought = {
                    "side": thought["side"],
                    "seconds": float(thought["seconds"]),
                    "actions": thought["actions"],
                }
        except ActionRefused as error:
            if error.code == "invalid_record":
                raise
            raise ActionRefused("invalid_record", f"bad record: {error}") from error
        except (KeyError, TypeError, ValueError) as error:
            raise ActionRefused("invalid_record", f"bad record: {error!r}") from error
        return table
