"""The seam between the table and a game: what the table asks of every game it runs.

A game package provides one :class:`GameRules` object (its name, settings, new games, replay,
its computer player, its exports) and games in progress that follow :class:`GameInProgress`
(who must act, the offer pending, ``apply`` all or nothing, whether the turn is complete, the
outcome, the event log, its part of the view). The table never looks further into a game.

Actions and events are JSON objects with a ``"type"``: the same JSON through every door (an
HTTP request or a WebSocket message). The sides are ``"white"`` and ``"black"``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Protocol

#: A side at the table.
Side = Literal["white", "black"]
#: Both sides, White's first.
SIDES: Final[tuple[Side, Side]] = ("white", "black")


def other(side: Side) -> Side:
    """The opponent of ``side``."""
    return "black" if side == "white" else "white"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended.

    Attributes:
        winner: the winning side, or None for a draw.
        reason: why, in the game's words (``"no legal move"``, ``"resignation"``, ``"time"``,
            ``"agreement"``, ``"threefold repetition"``, ...).
        points: what the game is worth to the winner (1 in checkers; backgammon's gammons and
            cube make more), 0 for a draw.
    """

    winner: Side | None
    reason: str
    points: int = 1

    def to_dict(self) -> dict[str, Any]:
        """``{"winner", "reason", "points"}``."""
        return {"winner": self.winner, "reason": self.reason, "points": self.points}


@dataclass(frozen=True, slots=True)
class Offer:
    """An offer waiting for its answer: ``kind`` (``"draw"``, ``"double"``, ``"resign"``) made
    ``by`` a side; the other side must answer."""

    kind: str
    by: Side


@dataclass(frozen=True, slots=True)
class SharedSecret:
    """The result of a fair-random round (:mod:`gametable.fair`): two secrets that neither
    side could choose knowing the other's, and the round's number. A game turns it into its
    chance (backgammon: dice).

    Attributes:
        first: the secret of the side that committed first: the roller's in a round one side
            opened, White's in a round both sides play (backgammon's opening roll).
        second: the other side's secret.
        number: the round's number (0, 1, ...; below 2**63), so that equal secrets in two
            rounds still give different chance.
    """

    first: bytes
    second: bytes
    number: int


@dataclass(frozen=True, slots=True)
class Applied:
    """What an accepted action did.

    Attributes:
        events: the events it added to the game's log, in order.
        turn_complete: True when the action finished the mover's turn: the side whose clock
            stops then earns the increment (it comes from this, never from event names).
        new_game: True when the action started the next game of a match or series: each
            game is played on a fresh clock.
    """

    events: tuple[Mapping[str, Any], ...] = field(default=())
    turn_complete: bool = False
    new_game: bool = False


class GameInProgress(Protocol):
    """One game (or series of games) being played, as the table sees it."""

    def to_act(self) -> frozenset[Side]:
        """The sides that must act now (both in backgammon's opening roll; the side that
        must answer while an offer waits; none once the game is over)."""
        ...

    def offer(self) -> Offer | None:
        """The offer waiting for an answer, or None."""
        ...

    def on_clock(self) -> Side | None:
        """The side whose clock runs now, or None while no clock runs (before the game's
        clock starts: checkers' first move, backgammon's opening roll; once it is over)."""
        ...

    def apply(self, side: Side, action: Mapping[str, Any]) -> Applied:
        """Carry out ``side``'s action, all or nothing.

        Raises:
            ActionRefused: with its code, when the action is malformed, not ``side``'s to make
                now, or against the rules; nothing changed.
        """
        ...

    def time_out(self, side: Side) -> None:
        """``side`` has run out of time: the game ends, the opponent wins it (in a match the
        game's rules say whether the match goes on)."""
        ...

    def forfeit(self, side: Side) -> None:
        """``side`` forfeits: a referee's decision, not a result on the board (it left an
        online game, its reveal broke its commitment, or it was gone and its opponent claimed
        the game). The opponent wins the game, and the match or series with it."""
        ...

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        ...

    def log(self) -> list[dict[str, Any]]:
        """The event log that :meth:`GameRules.replay` rebuilds the game from."""
        ...

    def view(
        self, side: Side | None, *, names: Mapping[Side, str] | None = None
    ) -> dict[str, Any]:
        """The game's part of the view as ``side`` sees it (None: a spectator): the board,
        the legal moves of the side to act, what can be done (``can``), the move list, words.
        ``names``: the players' names by side (an online room's), for the game's words
        (``"Bob doubles to 2"``; an empty name is a player who gave none); None when no seat
        is named (the words name the sides)."""
        ...


class ChanceGame(GameInProgress, Protocol):
    """A game in progress that needs chance (dice), as the table sees it."""

    def chance_due(self) -> frozenset[Side]:
        """The sides that may take a chance action now (backgammon: both before the opening
        roll, the player on roll before rolling; none otherwise)."""
        ...

    def apply_chance(self, side: Side, action: Mapping[str, Any], shared: SharedSecret) -> Applied:
        """Carry out ``side``'s chance action with the chance ``shared`` gives (a fair-random
        round's result), all or nothing.

        Raises:
            ActionRefused: as :meth:`GameInProgress.apply`.
        """
        ...


class GameRules(Protocol):
    """A game, as the table sees it: the plug-in a game package provides."""

    #: The game's name on the wire and in stores (the ``game`` field): ``"checkers"``, ...
    name: str
    #: True when the game needs chance (dice) from a fair-random round.
    needs_chance: bool
    #: The computer's levels, weakest first.
    levels: tuple[str, ...]

    def settings(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """The game's settings from a request, checked and completed with defaults
        (JSON-ready).

        Raises:
            ActionRefused: ``invalid_settings``, naming the bad setting.
        """
        ...

    def stored_settings(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """The game's settings from a saved record (:meth:`gametable.table.Table.from_record`),
        checked: as :meth:`settings`, except that a setting added since the record was
        written takes the value that the record's game was played with, not a new table's
        default.

        Raises:
            ActionRefused: ``invalid_settings``, naming the bad setting.
        """
        ...

    def set_up(self, settings: Mapping[str, Any]) -> bool:
        """Whether a game with these (checked) settings starts from a set-up position rather
        than the game's usual start. A browser's record leaves such games out, as a position
        set up to win is no game against the computer or a person."""
        ...

    def new(self, settings: Mapping[str, Any], seed: int) -> GameInProgress:
        """A new game with these (checked) settings; ``seed`` drives any chance."""
        ...

    def replay(
        self, settings: Mapping[str, Any], seed: int, log: list[dict[str, Any]]
    ) -> GameInProgress:
        """The game rebuilt from its event log.

        Raises:
            ActionRefused: ``invalid_log``, naming the first bad event.
        """
        ...

    def computer_action(
        self, game: GameInProgress, side: Side, level: str, rng: random.Random
    ) -> dict[str, Any]:
        """The action the computer takes for ``side`` (who must act) at ``level``."""
        ...

    def exports(self) -> Mapping[str, Callable[[GameInProgress, Mapping[str, str]], str]]:
        """The game's file formats: ``{"pdn": write(game, tags) -> text}``."""
        ...


class ChanceRules(GameRules, Protocol):
    """A game with chance (``needs_chance`` True): its chance actions, and games whose chance
    comes only from fair-random rounds (online, where neither player trusts the other's dice)."""

    #: The action types that take chance (backgammon: ``{"roll"}``).
    chance_actions: frozenset[str]

    def new_fair(self, settings: Mapping[str, Any]) -> ChanceGame:
        """A new game whose chance comes only from :meth:`ChanceGame.apply_chance` (its
        chance actions are refused without a round's :class:`SharedSecret`); its log replays
        through :meth:`GameRules.replay` (as a fair game again)."""
        ...
