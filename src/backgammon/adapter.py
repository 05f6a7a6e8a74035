"""Backgammon at the table: the plug-in that :mod:`gametable` runs.

:data:`RULES` is the game's :class:`~gametable.seam.ChanceRules`: chance (seeded dice at a
table of this server; at an online room, dice made from each round's shared secret by
:func:`backgammon.core.dice.dice_from_secrets`, as the page's ``fairdice.js`` checks them), the
computer's levels, and the settings of a
match: ``length`` (points; 0 for money play), ``cube``, ``gammons``, ``jacoby``, ``beavers``
(WBF rules; the Jacoby rule and beavers for money play only) and ``single`` (one game of money
play, with the cube, over when that game is: the local door's "single game"; a 1-point match
has no cube, the Crawford rule's own case). A game in progress
(:class:`TableMatch`) wraps a :class:`~backgammon.core.match.Match`; its view is the one both
doors already show (:func:`backgammon.services.table.describe`).

Actions (the same JSON through every door):

* ``{"type": "roll"}`` (the opening roll too, by either side);
* ``{"type": "move", "play": "8/5 6/5"}``: a whole play in standard notation, all or nothing
  (refused while checkers have been moved one by one this turn: the engine's words say to
  take them back or end the turn);
* or the play built checker by checker, as the local door builds it:
  ``{"type": "move_checker", "from": 13, "to": 7}`` moves one checker (the places are the
  page's: points 1..24 in White's numbering, ``"bar"`` as a source, ``"off"`` as a
  destination), through the points between when it takes more than one die, all or nothing
  (:func:`backgammon.services.destinations.paths_by_destination`); ``{"type": "undo"}``
  takes back the last checker moved; ``{"type": "end_turn"}`` ends the turn once the moves
  made are a whole legal play. The moves made so far stay in the game (and in its log's
  ``"moves"``, so a restored table keeps them) and add no event until the turn ends;
* ``{"type": "double"}``, ``{"type": "take"}``, ``{"type": "drop"}``, ``{"type": "beaver"}``,
  ``{"type": "raccoon"}`` (the original doubler answers a beaver; ``Game.raccoon``);
* ``{"type": "resign", "level": "single" | "gammon" | "backgammon"}``,
  ``{"type": "accept_resignation"}``, ``{"type": "decline_resignation"}``;
* ``{"type": "next_game"}`` once a game of a longer match or money session is over.

A play (or ``end_turn``) completes the turn, and so does a roll that cannot be played (the turn
passes); a checker moved or taken back does not: the mover's clock runs on. Whose
clock runs (WBF practice, as both doors time it): nobody's before the opening roll, then the
player on roll's (its cube decision included), the doubled player's while it decides, the
resigning player's opponent's while it answers.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any, Final

from backgammon.core.dice import dice_from_secrets
from backgammon.core.errors import (
    BackgammonError,
    IllegalActionError,
    IllegalPlayError,
    NotationError,
)
from backgammon.core.game import Game, Phase
from backgammon.core.match import Match
from backgammon.core.position import ResultKind
from backgammon.core.types import BLACK, WHITE, Color
from backgammon.records.mat import format_mat
from backgammon.services.computer import LEVELS, ComputerPlayer, computer_player
from backgammon.services.destinations import own_point, paths_by_destination, refusal
from backgammon.services.review import match_mat
from backgammon.services.state import Place
from backgammon.services.table import describe, make_moves, phase_words, resign_refusal
from backgammon.services.words import Names
from gametable.errors import ActionRefused
from gametable.seam import Applied, GameInProgress, Offer, Outcome, SharedSecret, Side

#: The action types a backgammon match takes, with the fields each may carry.
ACTIONS: Final[Mapping[str, frozenset[str]]] = {
    "roll": frozenset(),
    "move": frozenset({"play"}),
    "move_checker": frozenset({"from", "to"}),
    "undo": frozenset(),
    "end_turn": frozenset(),
    "double": frozenset(),
    "take": frozenset(),
    "drop": frozenset(),
    "beaver": frozenset(),
    "raccoon": frozenset(),
    "resign": frozenset({"level"}),
    "accept_resignation": frozenset(),
    "decline_resignation": frozenset(),
    "next_game": frozenset(),
}
_RESIGN_LEVELS: Final = {
    "single": ResultKind.SINGLE,
    "gammon": ResultKind.GAMMON,
    "backgammon": ResultKind.BACKGAMMON,
}
#: The longest play in notation a move action may carry (four moves with hits, spaces and
#: counts take well under 60).
_MAX_PLAY_CHARACTERS: Final = 200
#: Checker moves one side may take back in one turn (``undo``), far more than a turn needs:
#: past it, ``not_allowed`` (its checkers may still be moved on and the turn ended), so
#: that nobody fills an online room's message bound (``room_full``) moving a checker to
#: and fro.
MAX_TAKE_BACKS: Final = 30
#: The settings and their defaults.
DEFAULT_SETTINGS: Final[Mapping[str, Any]] = {
    "length": 1,
    "cube": True,
    "gammons": True,
    "jacoby": False,
    "beavers": False,
    "single": False,
}


def _match(settings: Mapping[str, Any], seed: int | None) -> Match:
    return Match(
        settings["length"],
        cube=settings["cube"],
        gammons=settings["gammons"],
        jacoby=settings["jacoby"],
        beavers=settings["beavers"],
        seed=seed,
    )


def _color(side: Side) -> Color:
    return WHITE if side == "white" else BLACK


def _side(color: Color) -> Side:
    return "white" if color is WHITE else "black"


def sentence_names(
    me: Color | None, names: Mapping[Side, str] | None
) -> tuple[Names, tuple[str, str] | None]:
    """How the view's words name the sides, and the names its move list gives (White's,
    Black's; None: the words' own labels).

    Without ``names`` the sides keep their colours. With them (the players' names by side):
    the viewer is "You" and the opponent is named ("Your opponent" when it gave no name), as
    backgammon's old online door named them; a spectator reads both names; the move list
    gives both names (or the colours).
    """
    if names is None:
        return (Names(me=me) if me is not None else Names()), None
    white = names.get("white") or ""
    black = names.get("black") or ""
    listed = (white or "White", black or "Black")
    if me is None:
        return Names(listed[0], listed[1]), listed
    if me is WHITE:
        return Names("You", black or "Your opponent", me=me), listed
    return Names(white or "Your opponent", "You", me=me), listed


class TableMatch:
    """A backgammon match (or money session) in progress, as the table sees it."""

    def __init__(self, match: Match, *, fair: bool = False, single: bool = False) -> None:
        self.match = match
        #: True when the dice come only from fair-random rounds (:meth:`apply_chance`).
        self.fair = fair
        #: True for one game of money play, over when that game is (``single`` setting).
        self.single = single
        # the parts of the view both seats share (describe's ``shared``) and the outcome, for
        # the state they were made in (the match changes only through the methods here)
        self._shared_key: tuple[Any, ...] | None = None
        self._shared: dict[str, Any] = {}
        self._outcome_key: tuple[int, int] | None = None
        self._outcome: Outcome | None = None
        self._changes = 0  # one more at each action, timeout or forfeit tried
        # the take-backs of the turn in play: (the game and its event count when the turn's
        # first was made, how many since; MAX_TAKE_BACKS)
        self._take_backs: tuple[Game | None, int, int] = (None, 0, 0)

    def _state_key(self) -> tuple[int, int]:
        """Tells two states of the match apart: the changes tried through the methods here
        (a checker moved or taken back, which adds no event, is one), and the current game's
        events (every other action, timeout and forfeit adds one; a whole play is one)."""
        return (self._changes, self.match.current.event_count)
    @property
    def over(self) -> bool:
        """Whether no game can follow: the match won, the single game played, or a money
        session's game forfeited (a player who left, was claimed against or broke a reveal
        ends the session, as :meth:`forfeit` says)."""
        if self.single:
            return self._game.is_over
        if not self.match.length:
            return self._forfeited()
        return self.match.is_over

    def _forfeited(self) -> bool:
        ended = self._game.outcome
        return ended is not None and str(ended.kind) == "forfeit"

    @property
    def _game(self) -> Game:
        return self.match.current

    def _answerer(self) -> Color | None:
        game = self._game
        if game.phase is Phase.DOUBLE_OFFERED:
            return game.turn
        if game.phase is Phase.RESIGNATION_OFFERED:
            offer = game.resignation
            return None if offer is None else offer[0].opponent
        return None

    def to_act(self) -> frozenset[Side]:
        """Both sides before the opening roll; the player on roll; the side that answers an
        offer; none between games and once the match is over."""
        game = self._game
        phase = game.phase
        if phase is Phase.OVER:
            return frozenset()
        if phase is Phase.OPENING:
            return frozenset({"white", "black"})
        answerer = self._answerer()
        if answerer is not None:
            return frozenset({_side(answerer)})
        on_roll = game.on_roll
        return frozenset() if on_roll is None else frozenset({_side(on_roll)})

    def on_clock(self) -> Side | None:
        """Nobody before the opening roll or between games; else the one side that must
        act."""
        waiting = self.to_act()
        return next(iter(waiting)) if len(waiting) == 1 else None

    def offer(self) -> Offer | None:
        """A double (or beaver) or a resignation waiting for its answer."""
        game = self._game
        answerer = self._answerer()
        if answerer is None:
            return None
        kind = "double" if game.phase is Phase.DOUBLE_OFFERED else "resign"
        return Offer(kind, _side(answerer.opponent))

    def chance_due(self) -> frozenset[Side]:
        """Both sides before the opening roll; the player on roll before rolling."""
        game = self._game
        if game.phase is Phase.OPENING:
            return frozenset({"white", "black"})
        if game.phase is Phase.ROLL and game.on_roll is not None:
            return frozenset({_side(game.on_roll)})
        return frozenset()

    def apply_chance(
        self, side: Side, action: Mapping[str, Any], shared: SharedSecret
    ) -> Applied:
        """A roll with the dice ``shared`` gives: ``dice_from_secrets(first, second,
        number)`` (the opening roll's first die is White's).

        Raises:
            ActionRefused: as :meth:`apply`; ``invalid_action`` for an action that is not a
                roll.
        """
        if action.get("type") != "roll" or set(action) != {"type"}:
            raise ActionRefused("invalid_action", "only a roll takes a round's dice")
        dice = dice_from_secrets(shared.first, shared.second, shared.number)
        return self._apply(side, action, dice)

    def apply(self, side: Side, action: Mapping[str, Any]) -> Applied:
        """Carry out ``side``'s action, all or nothing (see the module docstring).

        Raises:
            ActionRefused: ``invalid_action`` (malformed; a roll at a fair table, whose dice
                come from a round), ``not_your_turn``, ``illegal_move`` (with the reason in
                the engine's words; a checker that cannot go there, as the local door words
                it: :func:`backgammon.services.destinations.refusal`; a turn ended before the
                play is whole), ``not_allowed`` (not now: nothing to move or take back, a
                whole play after checkers moved one by one).
        """
        if self.fair and action.get("type") == "roll":
            raise ActionRefused(
                "invalid_action", "the dice come from a commit-reveal round here"
            )
        return self._apply(side, action, None)

    def _apply(
        self, side: Side, action: Mapping[str, Any], dice: tuple[int, int] | None
    ) -> Applied:
        self._changes += 1
        kind = action.get("type")
        if not isinstance(kind, str) or kind not in ACTIONS:
            raise ActionRefused(
                "invalid_action", f"action type {kind!r} is not one of {', '.join(ACTIONS)}"
            )
        unknown = sorted(set(action) - {"type"} - ACTIONS[kind])
        if unknown:
            raise ActionRefused(
                "invalid_action", f"unexpected field(s) for {kind}: {', '.join(unknown)}"
            )
        color = _color(side)
        game = self._game
        games_before = len(self.match.games)
        events_before = game.event_count
        complete = False
        try:
            if kind == "next_game":
                if not game.is_over or self.over:
                    raise IllegalActionError("there is no next game to start now")
                self.match.new_game()
            else:
                self._check_actor(kind, color)
                complete = self._act(kind, color, action, dice)
        except IllegalPlayError as error:
            raise ActionRefused("illegal_move", str(error)) from error
        except ActionRefused:
            raise
        except BackgammonError as error:
            raise ActionRefused("not_allowed", str(error)) from error
        if len(self.match.games) > games_before:
            return Applied(({"next_game": side},), new_game=True)
        return Applied(tuple(game.events[events_before:]), turn_complete=complete)

    def _check_actor(self, kind: str, color: Color) -> None:
        game = self._game
        if game.phase is Phase.OVER:
            raise IllegalActionError("the game is over")
        if kind == "roll" and game.phase is Phase.OPENING:
            return
        if kind in ("take", "drop", "beaver", "raccoon", "accept_resignation",
                    "decline_resignation"):
            expected = self._answerer()
        else:
            expected = game.on_roll
        if expected is not None and color is not expected:
            raise ActionRefused("not_your_turn", f"it is {_side(expected)}'s to act")

    def _act(
        self, kind: str, color: Color, action: Mapping[str, Any], dice: tuple[int, int] | None
    ) -> bool:
        """Do one checked action; True when it completed the turn."""
        game = self._game
        if kind == "roll":
            game.roll(dice)
            return game.phase is not Phase.MOVE and game.phase is not Phase.OPENING
        if kind == "move":
            play = action.get("play")
            if not isinstance(play, str):
                raise ActionRefused(
                    "invalid_action", f"a move's play is notation text, not {play!r:.80}"
                )
            if len(play) > _MAX_PLAY_CHARACTERS:
                raise ActionRefused(
                    "invalid_action",
                    f"a move's play is at most {_MAX_PLAY_CHARACTERS} characters of "
                    f"notation, got {len(play)}",
                )
            try:
                game.play(play)
            except NotationError as error:  # not a play at all: the request is malformed
                raise ActionRefused("invalid_action", str(error)) from error
            return True
        if kind in ("move_checker", "undo", "end_turn"):
            return self._checker_action(kind, action)
        if kind == "double":
            game.double()
        elif kind == "take":
            game.take()
        elif kind == "drop":
            game.drop()
        elif kind == "beaver":
            game.beaver()
        elif kind == "raccoon":
            game.raccoon()
        elif kind == "resign":
            level = action.get("level", "single")
            if not isinstance(level, str) or level not in _RESIGN_LEVELS:
                raise ActionRefused(
                    "invalid_action", f"resign level {level!r} is not single, gammon or backgammon"
                )
            refusal = resign_refusal(game, color)  # the table's policy: one offer a turn
            if refusal is not None:
                raise ActionRefused("not_allowed", f"you cannot resign now: {refusal}")
            game.resign(color, _RESIGN_LEVELS[level])
        elif kind == "accept_resignation":
            game.accept_resignation()
        else:
            game.decline_resignation()
        return False

    def _checker_action(self, kind: str, action: Mapping[str, Any]) -> bool:
        """A checker moved, the last one taken back, or the turn ended (True: completed)."""
        game = self._game
        if kind == "undo":
            turn = (game, game.event_count)
            seen, at, count = self._take_backs
            count = count if (seen, at) == turn else 0
            if count >= MAX_TAKE_BACKS:
                raise ActionRefused(
                    "not_allowed", f"you have taken back {MAX_TAKE_BACKS} checker moves this "
                    "turn, the most a turn takes: play on")
            game.undo()
            self._take_backs = (game, game.event_count, count + 1)
            return False
        if kind == "end_turn":
            if game.phase is Phase.MOVE:
                try:
                    game.end_turn()
                except IllegalActionError as error:  # the moves made are not a whole play
                    raise ActionRefused("illegal_move", str(error)) from error
            else:
                game.end_turn()  # refused in the engine's words
            return True
        places = {key: _checker_place(action, key) for key in ("from", "to")}
        if game.phase is not Phase.MOVE or game.on_roll is None:
            raise IllegalActionError(f"there is nothing to move: {phase_words(game)}")
        mover = game.on_roll
        src = own_point(places["from"], mover, source=True)
        dst = own_point(places["to"], mover, source=False)
        paths = paths_by_destination(game)
        path = paths.get((src, dst))
        if path is None:
            raise ActionRefused("illegal_move", refusal(game, src, dst, paths))
        make_moves(game, path)  # all or nothing
        return False

    def time_out(self, side: Side) -> None:
        """``side`` lost the game on time (and with it the match, as the rules of a match
        lost on time have it)."""
        self._changes += 1
        self._game.timeout(_color(side))

    def forfeit(self, side: Side) -> None:
        """``side`` forfeits the match (as an online room rules it): it loses the game in play
        (between two games, the next one) by the rest of the match's points, or in a single
        game or money play by the most the game can score (three times the cube; the cube's
        value where gammons do not count), and the match ends there."""
        color = _color(side)
        self._changes += 1
        if self.over:
            return
        if self._game.is_over:
            self.match.new_game()
        length = self.match.length
        if length:
            won = self.match.score[0 if color.opponent is WHITE else 1]
            points = max(1, length - won)
        else:
            # The most the game can score: a backgammon, or a single game where gammons do
            # not count (gammons off, or the Jacoby rule with the cube centred).
            settings = self._game.settings
            single = not settings.gammons or (settings.jacoby and self._game.cube_owner is None)
            points = (1 if single else 3) * self._game.cube_value
        self._game.forfeit(color, points)

    def outcome(self) -> Outcome | None:
        """Once the match (or single game) is over: its winner and the winner's points
        (made once a state: the table and its room ask often)."""
        key = self._state_key()
        if key != self._outcome_key:
            self._outcome = self._made_outcome()
            self._outcome_key = key
        return self._outcome

    def _made_outcome(self) -> Outcome | None:
        if self.single:
            ended = self._game.outcome
            if ended is None:
                return None
            reason = {"timeout": "time", "forfeit": "forfeit", "resign": "resignation",
                      "drop": "drop"}.get(str(ended.kind), "played out")
            return Outcome(_side(ended.winner), reason, ended.points)
        if not self.match.length:  # money play: over only by a forfeit, worth its game
            ended = self._game.outcome
            if ended is None or not self._forfeited():
                return None
            return Outcome(_side(ended.winner), "forfeit", ended.points)
        if not self.match.is_over:
            return None
        winner = self.match.winner
        if winner is None:
            return None
        last = self.match.current.outcome
        reason = {"timeout": "time", "forfeit": "forfeit"}.get(
            "" if last is None else str(last.kind), "match"
        )
        score = self.match.score
        points = score[0] if winner is WHITE else score[1]
        return Outcome(_side(winner), reason, points)

    def log(self) -> list[dict[str, Any]]:
        """The match's log (:meth:`Match.to_log`), as one entry."""
        return [self.match.to_log()]

    def view(
        self, side: Side | None, *, names: Mapping[Side, str] | None = None
    ) -> dict[str, Any]:
        """The view both doors already show (:func:`backgammon.services.table.describe`),
        from ``side``'s point of view; with the players' ``names`` its words say "You" and
        the opponent's name (``"Bob doubles to 2"``; ``"Your opponent"`` for a player who
        gave none) and the move list the players' names, as backgammon's old online door
        said them (:func:`sentence_names`)."""
        me = None if side is None else _color(side)
        game = self._game
        mine = me is not None and side in self.to_act()
        length = self.match.length
        kind = "single" if self.single or length == 1 else ("money" if length == 0 else "match")
        words, listed = sentence_names(me, names)
        key = (*self._state_key(), len(game.played), kind, self.over, listed)
        if key != self._shared_key:  # a new state: both seats' views share its parts
            self._shared_key, self._shared = key, {}
        view = describe(
            self.match,
            kind=kind,
            names=words,
            mine=mine,
            session_over=self.over,
            to_act=None,  # (at the opening nobody is on roll: both throw)
            history_names=listed,
            shared=self._shared,
        )
        return dict(view)


def _checker_place(action: Mapping[str, Any], key: str) -> Place:
    """A ``move_checker`` action's ``from`` or ``to``, checked: a point 1..24, ``"bar"`` as
    the source, ``"off"`` as the destination.

    Raises:
        ActionRefused: ``invalid_action``, missing or not a place.
    """
    if key not in action:
        raise ActionRefused("invalid_action", f"a checker move needs a '{key}' place")
    where: Place = action[key]
    try:
        own_point(where, WHITE, source=key == "from")
    except BackgammonError as error:
        raise ActionRefused("invalid_action", str(error)) from error
    return where


def computer_decision(current: Game, player: ComputerPlayer) -> dict[str, Any]:
    """``player``'s action in ``current`` (the game of the match in play), as the table's
    action JSON: the opening roll, a double or a roll, its whole play (``{"type": "move",
    "play"}``), its answer to a double (take, drop, beaver or raccoon) or to a resignation.
    Every door's computer decides here (the table's :meth:`BackgammonRules.computer_action`,
    the local door's computer turn with its own player)."""
    phase = current.phase
    if phase is Phase.OPENING:
        return {"type": "roll"}
    if phase is Phase.ROLL:
        if current.can_double() and player.should_double(current):
            return {"type": "double"}
        return {"type": "roll"}
    if phase is Phase.MOVE:
        return {"type": "move", "play": str(player.choose_play(current))}
    if phase is Phase.DOUBLE_OFFERED:
        return {"type": player.answer_double(current)}
    accept = player.accept_resign(current)
    return {"type": "accept_resignation" if accept else "decline_resignation"}


class BackgammonRules:
    """Backgammon as a :class:`~gametable.seam.GameRules`."""

    name: str = "backgammon"
    needs_chance: bool = True
    chance_actions: frozenset[str] = frozenset({"roll"})
    levels: tuple[str, ...] = LEVELS

    def settings(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """``{"length", "cube", "gammons", "jacoby", "beavers", "single"}`` with defaults (a
        1-point match, gammons counted; ``single`` True with ``length`` 0: one game of money
        play with the cube).

        Raises:
            ActionRefused: ``invalid_settings`` naming the bad setting.
        """
        unknown = sorted(set(raw) - set(DEFAULT_SETTINGS))
        if unknown:
            raise ActionRefused(
                "invalid_settings", f"unknown backgammon setting(s): {', '.join(unknown)}"
            )
        settings = {**DEFAULT_SETTINGS, **raw}
        length = settings["length"]
        if isinstance(length, bool) or not isinstance(length, int) or not 0 <= length <= 64:
            raise ActionRefused("invalid_settings", f"length {length!r} is not 0 (money) to 64")
        for key in ("cube", "gammons", "jacoby", "beavers", "single"):
            if not isinstance(settings[key], bool):
                raise ActionRefused("invalid_settings", f"{key} {settings[key]!r} is not a boolean")
        if settings["single"] and length != 0:
            raise ActionRefused(
                "invalid_settings",
                f"a single game is one game of money play (length 0), not a {length}-point match",
            )
        try:
            _match(settings, 0)
        except BackgammonError as error:
            raise ActionRefused("invalid_settings", str(error)) from error
        return settings

    def stored_settings(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """A saved record's settings: as :meth:`settings` (``single``, added since, is False
        in a record from before it)."""
        return self.settings(raw)

    def set_up(self, settings: Mapping[str, Any]) -> bool:
        """False: a backgammon table always starts from the usual position."""
        return False

    def new(self, settings: Mapping[str, Any], seed: int) -> TableMatch:
        """A new match, its dice seeded with ``seed``."""
        return TableMatch(_match(settings, seed), single=bool(settings.get("single")))

    def new_fair(self, settings: Mapping[str, Any]) -> TableMatch:
        """A new match whose dice come only from fair-random rounds (no seed)."""
        return TableMatch(_match(settings, None), fair=True, single=bool(settings.get("single")))

    def replay(
        self, settings: Mapping[str, Any], seed: int, log: list[dict[str, Any]]
    ) -> TableMatch:
        """The match rebuilt from its log (the seeded dice checked roll by roll).

        Raises:
            ActionRefused: ``invalid_log`` naming what is wrong.
        """
        if len(log) != 1 or not isinstance(log[0], Mapping):
            raise ActionRefused("invalid_log", "a backgammon log is one match log")
        try:
            match = Match.replay(log[0])
        except BackgammonError as error:
            raise ActionRefused("invalid_log", str(error)) from error
        single = bool(settings.get("single"))
        if single and len(match.games) > 1:
            raise ActionRefused(
                "invalid_log", f"a single game's log holds {len(match.games)} games"
            )
        return TableMatch(match, fair=match.seed is None, single=single)

    def computer_action(
        self, game: GameInProgress, side: Side, level: str, rng: random.Random
    ) -> dict[str, Any]:
        """The computer's action for ``side`` at ``level``: the opening roll, a double or a
        roll, its play, its answer to a double (take, drop or beaver) or to a resignation."""
        if not isinstance(game, TableMatch):
            raise TypeError(f"not a backgammon match: {type(game).__name__}")
        return computer_decision(game.match.current, computer_player(level, rng))

    def exports(self) -> Mapping[str, Callable[[GameInProgress, Mapping[str, str]], str]]:
        """``{"mat": write(game, tags)}``: the match as a ``.mat`` file, the players named
        by the tags ``"White"`` and ``"Black"`` where given (White first: the left column)."""
        def mat(game: GameInProgress, tags: Mapping[str, str]) -> str:
            if not isinstance(game, TableMatch):
                raise TypeError(f"not a backgammon match: {type(game).__name__}")
            white, black = tags.get("White"), tags.get("Black")
            if not white and not black:
                return format_mat(game.match)
            return match_mat(game.match, (white or "White", black or "Black"))

        return {"mat": mat}


#: The plug-in.
RULES: Final = BackgammonRules()
