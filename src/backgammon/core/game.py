"""One game of backgammon: the opening roll, turns, the doubling cube, resignations, the result,
and the event log that replays it.

A :class:`Game` is driven by actions (``roll``, ``move``, ``undo``, ``end_turn``, ``play``,
``double``, ``take``, ``drop``, ``beaver``, ``raccoon``, ``resign``, ``accept_resignation``,
``decline_resignation``, ``timeout``). Each action is checked in full before anything changes:
an action that is not allowed raises :class:`~backgammon.core.errors.IllegalActionError` (or a
narrower error for a bad move or bad dice) and leaves the game exactly as it was.

A game *is* its event log (DESIGN.md "A game is its event log"): :meth:`Game.to_log` gives the
settings and the ordered events as JSON-ready data, and :meth:`Game.replay` rebuilds the same
game from them. Moves made one at a time inside a turn are not events until the turn is ended;
until then :meth:`Game.undo` takes them back and the log holds them separately (``"moves"``).

Events (dicts; colours are ``"white"``/``"black"``; every event may carry ``"seconds"``, the
time in seconds the action took, a number >= 0, for the clocks):

* ``{"type": "opening_roll", "white": 5, "black": 2}``: one die thrown by each player (WBF 2.1).
  A tie is recorded too and is thrown again.
* ``{"type": "roll", "color": "black", "dice": [6, 3]}``: the player on roll throws.
* ``{"type": "play", "color": "black", "moves": [[24, 18, 6], [13, 10, 3]]}``: the whole play,
  each move ``[from, to, die]`` in the mover's own numbering (bar 25, off 0).
* ``{"type": "pass", "color": "white"}``: the roll could not be played (added by itself).
* ``{"type": "double", "color": "white", "cube": 2}``: the new value offered.
* ``{"type": "take" | "drop", "color": ...}``: the answer of the doubled player.
* ``{"type": "beaver", "color": "black", "cube": 4}``: the doubled player takes and redoubles
  (the value offered); the original doubler then takes, drops or raccoons.
* ``{"type": "raccoon", "color": "white", "cube": 8}``: the original doubler answers the beaver
  by taking it and redoubling at once (the value offered); the beaver then takes or drops.
* ``{"type": "resign", "color": "white", "kind": "gammon"}``: an offer to resign at that level.
* ``{"type": "accept" | "decline", "color": ...}``: the answer to a resignation.
* ``{"type": "timeout", "color": "white"}``: that player ran out of time.
* ``{"type": "forfeit", "color": "white", "points": 3}``: that player forfeited the game (a
  referee's decision: it left an online match, or broke the dice's commit-reveal) and loses
  ``points``.

Rolls made with dice supplied from outside (``roll(dice=...)``) carry ``"given": true``; when
the settings hold a ``seed``, replay checks every other roll against the seeded dice.

Rules and sources:

* Opening roll, turns, playing the dice: WBF Rules of Backgammon sections 2 and 3 (see
  :mod:`backgammon.core.moves` for the rules of play).
* Doubling ("Rules of Backgammon", bkgm.com, "Doubling Cube"; the same in the WBGF
  tournament rules): the player on roll may offer a double before rolling when the
  cube is centred or theirs; the opponent takes (and then owns the cube at twice the value) or
  drops (and loses the game at the value before the double). There is no limit on redoubles.
* Single game, gammon, backgammon: WBF rules 5.1-5.3 (:func:`~backgammon.core.position.outcome`);
  a game is worth 1, 2 or 3 times the cube value.
* Jacoby rule (money play only): gammons and backgammons count as single games while the cube
  is centred (never turned). Source: the optional money-play rules ("Rules of Backgammon",
  bkgm.com, "Optional rules": the Jacoby rule); GNU Backgammon's "Jacoby rule" setting.
* Beavers (money play only): the doubled player may take and immediately redouble while
  keeping the cube; the original doubler accepts (the cube is then worth four times what it was
  before the double, owned by the beaver) or refuses (losing twice what it was), as with a
  normal double. Source: the optional money-play rules (e.g. the "Rules of Backgammon" at
  bkgm.com, "Optional rules"); GNU Backgammon's "beavers" setting.
* Raccoons (allowed exactly when beavers are): the original doubler may answer a beaver by
  turning the cube one more notch (to eight times what it was before the double); cube
  ownership remains with the beaver, who takes (owning the cube at eight times) or drops
  (losing four times what it was). Source: the rec.games.backgammon FAQ, section 8 "What are
  those critters --- beavers, raccoons?" (Andy Latto: "he may then raccoon, turning the cube
  yet another notch (to 8 in the example). Cube ownership remains with B"; the original
  doubler may drop a beaver), and FIBS's ``raccoon`` command ("an instant redouble of an
  offered beaver"). One raccoon at most: further animals (otters, ...) are not played.
* Crawford rule (match play): no doubling in the Crawford game, the first game after either
  player reaches one point short of the match. Source: the Crawford rule of match play (John
  R. Crawford; WBGF tournament rules, GNU Backgammon). A double that cannot gain
  (the doubler already wins the match by winning at the current cube value) is not offered: the
  cube is dead for that player.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from backgammon.core.errors import (
    BackgammonError,
    IllegalActionError,
    IllegalMoveError,
    IllegalPlayError,
    InvalidLogError,
    InvalidSettingsError,
)
from backgammon.core.ids import MatchState, color_to_player, encode_match_id
from backgammon.core.moves import (
    LegalPlays,
    Move,
    Play,
    apply_play,
    check_dice,
    legal_moves,
    legal_plays,
)
from backgammon.core.notation import format_play, parse_moves_text, parse_play
from backgammon.core.position import Position, ResultKind, outcome
from backgammon.core.types import BAR, BLACK, OFF, WHITE, Color, Roll

__all__ = [
    "LOG_FORMAT",
    "DiceLike",
    "Game",
    "GameOutcome",
    "GameSettings",
    "Phase",
    "Turn",
]

#: The ``"format"`` field of a game log.
LOG_FORMAT: Final = "backgammon.game"
#: The version of the game log format written by :meth:`Game.to_log`.
LOG_VERSION: Final = 1

#: The outcome kinds of :class:`GameOutcome`.
OUTCOME_KINDS: Final = ("single", "gammon", "backgammon", "drop", "resign", "timeout",
                        "forfeit")

_KIND_NAMES: Final = {ResultKind.SINGLE: "single", ResultKind.GAMMON: "gammon",
                      ResultKind.BACKGAMMON: "backgammon"}
_KINDS_BY_NAME: Final = {name: kind for kind, name in _KIND_NAMES.items()}


class DiceLike(Protocol):
    """What a game throws its dice with: :class:`~backgammon.core.dice.Dice`, ``FixedDice``."""

    def roll(self) -> Roll:
        """Two dice, each 1..6."""
        ...

    def opening_roll(self) -> Roll:
        """``(white_die, black_die)``, never equal."""
        ...


class Phase(enum.StrEnum):
    """What the game waits for.

    * ``OPENING``: nobody has rolled; the next action is the opening roll.
    * ``ROLL``: the player on roll may double (when allowed), then rolls.
    * ``MOVE``: the dice are rolled; the player moves checkers and ends the turn.
    * ``DOUBLE_OFFERED``: the opponent of the doubler must take, drop (or beaver); after a
      beaver, the original doubler takes, drops or raccoons; after a raccoon, the beaver takes
      or drops.
    * ``RESIGNATION_OFFERED``: the opponent of the resigning player accepts or declines.
    * ``OVER``: the game has a result.
    """

    OPENING = "opening"
    ROLL = "roll"
    MOVE = "move"
    DOUBLE_OFFERED = "double_offered"
    RESIGNATION_OFFERED = "resignation_offered"
    OVER = "over"


#: Each phase as the reason an action must wait, in a player's words.
PHASE_WORDS: Final[dict[Phase, str]] = {
    Phase.OPENING: "the opening roll has not been made",
    Phase.ROLL: "the dice have not been rolled",
    Phase.MOVE: "the dice are rolled and the roll is to be played",
    Phase.DOUBLE_OFFERED: "a double waits for its answer (take or pass)",
    Phase.RESIGNATION_OFFERED: "a resignation waits for its answer",
    Phase.OVER: "the game is over",
}


@dataclass(frozen=True, slots=True)
class GameSettings:
    """The rules a game is played under, and its place in a match.

    Attributes:
        cube: whether the doubling cube is used (off by default).
        gammons: whether gammons and backgammons count (on by default). Off, every win
            scores a single game times the cube: a resignation, a timeout and a game played
            out alike; the moves are the same either way. :attr:`GameOutcome.result_kind`
            still says what happened on the board.
        jacoby: the Jacoby rule (money play only; needs the cube): gammons and backgammons
            count as single games until the cube has been turned.
        beavers: beavers allowed (money play only; needs the cube).
        match_length: points to win the match this game belongs to; 0 for money play.
        score: points each player had before this game, ``(white, black)`` (White is GNU
            Backgammon's player 0, the left column of a ``.mat`` file). In a match each is
            below ``match_length``.
        crawford: this game is the Crawford game of a match: no doubling (the Crawford rule).
        seed: when given and no dice are passed to :class:`Game`, the dice are
            ``Dice(random.Random(seed))``; replay then checks the rolls against it.
        allow_dead_doubles: let a player double when the cube is dead for them (winning at
            the current value already wins the match). Off in play; on when replaying
            transcripts of servers that allowed it (FIBS does).
        start: a position to start from instead of the standard one (for lessons, puzzles,
            tests, a position set up on the page): its side to move is on roll and there is
            no opening roll. Such a game cannot be written as a ``.mat`` transcript.
        start_cube_value: the cube's value when the game starts from ``start`` (1, 2, 4, ...).
        start_cube_owner: who owns the cube then; None: centred.

    Raises:
        InvalidSettingsError: (on construction) a value of the wrong type or range, Jacoby or
            beavers in match play or without the cube, a Crawford game outside a match or at
            a score where no side alone is 1-away, or a score that has already won the
            match. (A cube owned at 1, which a game never reaches, is kept as a stored game
            set up by hand has it; the XGID reader and the position editor refuse it.)
    """

    cube: bool = False
    gammons: bool = True
    jacoby: bool = False
    beavers: bool = False
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    seed: int | None = None
    allow_dead_doubles: bool = False
    start: Position | None = None
    start_cube_value: int = 1
    start_cube_owner: Color | None = None

    def __post_init__(self) -> None:
        if self.start is not None:
            if not isinstance(self.start, Position):
                raise InvalidSettingsError(f"start must be a Position, got {self.start!r}")
            if outcome(self.start) is not None:
                raise InvalidSettingsError("start: the game in that position is already over")
        value = self.start_cube_value
        if (isinstance(value, bool) or not isinstance(value, int) or value < 1
                or value & (value - 1)):
            raise InvalidSettingsError(f"start_cube_value must be a power of two >= 1, got "
                                       f"{value!r}")
        if self.start_cube_owner is not None and self.start_cube_owner not in (WHITE, BLACK):
            raise InvalidSettingsError(f"start_cube_owner must be None, WHITE or BLACK, got "
                                       f"{self.start_cube_owner!r}")
        if (value != 1 or self.start_cube_owner is not None) and self.start is None:
            raise InvalidSettingsError("a starting cube other than 1 in the centre needs a "
                                       "start position")
        if (value != 1 or self.start_cube_owner is not None) and not self.cube:
            raise InvalidSettingsError(f"a cube at {value} owned by {self.start_cube_owner} "
                                       "in a game played without the cube")
        if (value != 1 or self.start_cube_owner is not None) and self.crawford:
            raise InvalidSettingsError("the cube cannot be turned in the Crawford game")
        for name in ("cube", "gammons", "jacoby", "beavers", "crawford", "allow_dead_doubles"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidSettingsError(f"{name} must be True or False, got "
                                           f"{getattr(self, name)!r}")
        length = self.match_length
        if isinstance(length, bool) or not isinstance(length, int) or length < 0:
            raise InvalidSettingsError(
                f"match_length must be an int >= 0 (0 for money play), got {length!r}"
            )
        score = self.score
        if (
            not isinstance(score, tuple)
            or len(score) != 2
            or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in score)
        ):
            raise InvalidSettingsError(f"score must be two ints >= 0 (white, black), got "
                                       f"{score!r}")
        if length and max(score) >= length:
            raise InvalidSettingsError(
                f"score {score[0]}-{score[1]} has already won a {length}-point match"
            )
        if length and (self.jacoby or self.beavers):
            rule = "the Jacoby rule" if self.jacoby else "beavers"
            raise InvalidSettingsError(f"{rule} is for money play only, not a "
                                       f"{length}-point match")
        if not self.cube and (self.jacoby or self.beavers):
            rule = "the Jacoby rule" if self.jacoby else "beavers"
            raise InvalidSettingsError(f"{rule} needs the doubling cube (cube=True)")
        if self.crawford and not length:
            raise InvalidSettingsError("a Crawford game needs a match (match_length > 0)")
        if self.crawford and not (length > 1 and max(score) == length - 1 > min(score)):
            raise InvalidSettingsError(
                f"a Crawford game at {score[0]}-{score[1]} in a {length}-point match: it is the "
                "game after one side alone first reaches 1-away (WBF rules, the Crawford rule)")

        if self.seed is not None and (isinstance(self.seed, bool)
                                      or not isinstance(self.seed, int)):
            raise InvalidSettingsError(f"seed must be an int or None, got {self.seed!r}")

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON-ready data (the ``"settings"`` of a game log)."""
        return {
            "cube": self.cube,
            "gammons": self.gammons,
            "jacoby": self.jacoby,
            "beavers": self.beavers,
            "match_length": self.match_length,
            "score": list(self.score),
            "crawford": self.crawford,
            "seed": self.seed,
            "allow_dead_doubles": self.allow_dead_doubles,
            "start": None if self.start is None else {
                "points": list(self.start.points), "turn": str(self.start.turn),
                "cube_value": self.start_cube_value,
                "cube_owner": None if self.start_cube_owner is None
                else str(self.start_cube_owner)},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameSettings:
        """The inverse of :meth:`to_dict`; missing keys take their defaults.

        Raises:
            InvalidSettingsError: not a mapping, an unknown key, or a bad value.
        """
        if not isinstance(data, Mapping):
            raise InvalidSettingsError(f"settings must be an object, got {data!r}")
        known = {"cube", "gammons", "jacoby", "beavers", "match_length", "score", "crawford",
                 "seed", "allow_dead_doubles", "start"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidSettingsError(f"unknown settings: {', '.join(map(str, unknown))}")
        values = dict(data)
        if "score" in values:
            score = values["score"]
            if not isinstance(score, (list, tuple)):
                raise InvalidSettingsError(f"score must be two ints, got {score!r}")
            values["score"] = tuple(score)
        start = values.get("start")
        if start is not None:
            if (not isinstance(start, Mapping) or not {"points", "turn"} <= set(start)
                    or not set(start) <= {"points", "turn", "cube_value", "cube_owner"}):
                raise InvalidSettingsError(
                    f"start must be {{'points': [26 ints], 'turn': colour, 'cube_value': n, "
                    f"'cube_owner': colour or null}}, got {start!r}"
                )
            try:
                values["start"] = Position.from_points(start["points"], start["turn"])
                values["start_cube_value"] = start.get("cube_value", 1)
                owner = start.get("cube_owner")
                values["start_cube_owner"] = None if owner is None else Color.parse(owner)
            except ValueError as exc:
                raise InvalidSettingsError(f"start: {exc}") from None
        return cls(**values)


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """How a game ended.

    Attributes:
        winner: the side that won.
        kind: ``"single"``, ``"gammon"`` or ``"backgammon"`` when the game was played out;
            ``"drop"`` when a double was refused; ``"resign"`` when a resignation was
            accepted; ``"timeout"`` when the loser ran out of time; ``"forfeit"`` when the
            loser forfeited it (:meth:`Game.forfeit`).
        points: what the game is worth: the result kind's value times the cube value (a
            single game's when gammons are off, or under the Jacoby rule while it applies).
            For a drop, the cube value before the double; for a timeout, the cube value; for
            a forfeit, what the referee gave.
        result_kind: single, gammon or backgammon: as played out on the board or as resigned;
            ``SINGLE`` for a drop, a timeout or a forfeit.
    """

    winner: Color
    kind: str
    points: int
    result_kind: ResultKind

    @property
    def loser(self) -> Color:
        """The side that lost."""
        return self.winner.opponent

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"winner": "white", "kind": "gammon", "points": 4,
        "result_kind": "gammon"}``."""
        return {"winner": str(self.winner), "kind": self.kind, "points": self.points,
                "result_kind": _KIND_NAMES[self.result_kind]}


@dataclass(frozen=True, slots=True)
class Turn:
    """One line of a game's history, for move lists and records.

    Attributes:
        color: who acted.
        action: ``"move"`` (a roll and its play; ``moves`` is empty when the roll could not be
            played or the player resigned after rolling), ``"double"``, ``"take"``, ``"drop"``,
            ``"beaver"``, ``"raccoon"``, ``"resign"``, ``"accept"``, ``"decline"``, ``"timeout"`` or
            ``"forfeit"``.
        dice: the roll for a ``"move"`` (for the first turn, the opening dice with the mover's
            die first); for a ``"resign"``, ``"timeout"`` or ``"forfeit"`` by the player on
            roll after rolling,
            the roll left unplayed; None otherwise.
        moves: the play's moves in the mover's own numbering.
        text: what a move list shows: the play in standard notation (``""`` for no play),
            ``"Doubles => 4"``, ``"Takes"``, ``"Drops"``, ``"Beavers => 8"``,
            ``"Raccoons => 8"``,
            ``"Resigns gammon"``, ``"Accepts"``, ``"Declines"``, ``"Times out"``.
        position: the position after the action, with the player then on roll to move
            (after a play, the opponent of the mover).
        cube_value: the cube's value after the action.
        cube_owner: who owns the cube after the action (None: centred).
        event_index: the index in :attr:`Game.events` of the event that completed this line.
        seconds: the time the action took, when recorded.
    """

    color: Color
    action: str
    dice: Roll | None
    moves: tuple[Move, ...]
    text: str
    position: Position
    cube_value: int
    cube_owner: Color | None
    event_index: int
    seconds: float | None = None

    def __str__(self) -> str:
        if self.action == "move" and self.dice is not None:
            return f"{self.color} {self.dice[0]}{self.dice[1]}: {self.text}".rstrip()
        return f"{self.color} {self.text}"


def _color_name(color: Color) -> str:
    return str(color)


def _result_kind(position: Position, winner: Color) -> ResultKind:
    """What a win by ``winner`` is worth as ``position`` stands (WBF rules 5.1-5.3).

    Single when the loser has borne off a checker; otherwise gammon, or backgammon when the
    loser also has a checker on the bar or in the winner's home board.
    """
    loser = winner.opponent
    if position.off[0 if loser is WHITE else 1] > 0:
        return ResultKind.SINGLE
    own = position.own_points(loser)
    # In the loser's own numbering the winner's home board is 19..24 and its bar is 25.
    stuck = own[BAR] > 0 or any(own[point] > 0 for point in range(19, 25))
    return ResultKind.BACKGAMMON if stuck else ResultKind.GAMMON


def _check_seconds(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise IllegalActionError(f"seconds must be a number >= 0, got {value!r}")
    if value != value or value == float("inf"):  # NaN or infinite
        raise IllegalActionError(f"seconds must be finite, got {value!r}")
    return value


def _move_triple(move: Move) -> list[int]:
    return [move.from_point, move.to_point, move.die]


@dataclass(slots=True)
class _State:
    """Everything about a game that events change (copied whole for checks-then-commit)."""

    phase: Phase = Phase.OPENING
    on_roll: Color | None = None
    turn_start: Position = field(default_factory=lambda: Position.start(WHITE))
    dice: Roll | None = None
    cube_value: int = 1
    cube_owner: Color | None = None
    doubler: Color | None = None
    beavered: bool = False
    raccooned: bool = False
    resign_offer: tuple[Color, ResultKind] | None = None
    phase_before_resign: Phase | None = None
    outcome: GameOutcome | None = None


class Game:
    """One game, driven by actions and recorded as an event log.

    Args:
        settings: the rules (cube, Jacoby, beavers, match context, seed); defaults to
            ``GameSettings()``: no cube, money play.
        dice: anything with ``roll()`` and ``opening_roll()`` (a
            :class:`~backgammon.core.dice.Dice` or ``FixedDice``). When None: a ``Dice``
            seeded with ``settings.seed``, or drawing from the operating system.

    The turn cycle: ``roll()`` (the opening roll first) -> ``move(...)`` one checker at a time
    (``undo()`` takes moves back) -> ``end_turn()``; or ``play(...)`` a whole play, which ends
    the turn. Before rolling, the player on roll may ``double()`` when :meth:`can_double`.
    """

    def __init__(
        self, settings: GameSettings | None = None, *, dice: DiceLike | None = None
    ) -> None:
        if settings is None:
            settings = GameSettings()
        elif not isinstance(settings, GameSettings):
            raise InvalidSettingsError(f"settings must be GameSettings, got {settings!r}")
        self._settings = settings
        self._dice: DiceLike = dice if dice is not None else _default_dice(settings.seed)
        self._state = _State()
        if settings.start is not None:
            self._state.phase = Phase.ROLL
            self._state.on_roll = settings.start.turn
            self._state.turn_start = settings.start
            self._state.cube_value = settings.start_cube_value
            self._state.cube_owner = settings.start_cube_owner
        self._events: list[dict[str, Any]] = []
        self._history: list[Turn] = []
        self._played: list[Move] = []
        self._position = self._state.turn_start
        self._legal: LegalPlays | None = None
        self._moves_cache: tuple[tuple[int, tuple[Move, ...]], tuple[Move, ...]] | None = None

    # ----------------------------------------------------------------------------------------
    # What the game looks like now

    @property
    def settings(self) -> GameSettings:
        """The rules this game is played under."""
        return self._settings

    @property
    def phase(self) -> Phase:
        """What the game waits for (a :class:`Phase`, which is also a str)."""
        return self._state.phase

    @property
    def on_roll(self) -> Color | None:
        """The player whose turn it is (who rolls or has rolled); None before the opening
        roll."""
        return self._state.on_roll

    @property
    def turn(self) -> Color | None:
        """The side that must act now: the player on roll, the doubled player while a double
        is offered, the opponent of the resigning player while a resignation is offered; None
        before the opening roll (either may throw) and when the game is over."""
        state = self._state
        if state.phase is Phase.DOUBLE_OFFERED:
            assert state.doubler is not None
            return state.doubler.opponent
        if state.phase is Phase.RESIGNATION_OFFERED:
            assert state.resign_offer is not None
            return state.resign_offer[0].opponent
        if state.phase in (Phase.OPENING, Phase.OVER):
            return None
        return state.on_roll

    @property
    def position(self) -> Position:
        """The position now, with the moves made so far this turn (the player on roll to move;
        White to move before the opening roll)."""
        return self._position

    @property
    def turn_start(self) -> Position:
        """The position at the start of the current turn (before its moves)."""
        return self._state.turn_start

    @property
    def dice(self) -> Roll | None:
        """The roll being played (for the first turn the opening dice, the mover's die first);
        None before the roll."""
        return self._state.dice

    @property
    def played(self) -> tuple[Move, ...]:
        """The moves made so far this turn (mover's numbering), not yet ended."""
        return tuple(self._played)

    @property
    def dice_left(self) -> tuple[int, ...]:
        """The dice not used yet this turn: of a double, one value per move left (4 at first);
        ``()`` before the roll."""
        dice = self._state.dice
        if dice is None or self._state.phase is not Phase.MOVE:
            return ()
        left = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
        for move in self._played:
            left.remove(move.die)
        return tuple(left)

    @property
    def cube_value(self) -> int:
        """The cube's value: 1, 2, 4, ... (the value before a double still being considered)."""
        return self._state.cube_value

    @property
    def cube_owner(self) -> Color | None:
        """Who owns the cube; None while it is centred."""
        return self._state.cube_owner

    @property
    def resignation(self) -> tuple[Color, ResultKind] | None:
        """The resignation being offered: (who resigns, at what level), or None."""
        return self._state.resign_offer

    @property
    def cube_offer(self) -> str | None:
        """The redouble waiting for its answer: ``"double"`` (the doubled side answers),
        ``"beaver"`` (the original doubler answers a beaver), ``"raccoon"`` (the beaver
        answers a raccoon), or None when no double is offered."""
        state = self._state
        if state.phase is not Phase.DOUBLE_OFFERED:
            return None
        return "raccoon" if state.raccooned else "beaver" if state.beavered else "double"

    def can_beaver(self) -> bool:
        """Whether the side that must act may beaver now: beavers are on and a plain double
        (not a beaver or a raccoon) waits for its answer."""
        return self._settings.beavers and self.cube_offer == "double"

    def can_raccoon(self) -> bool:
        """Whether the side that must act may raccoon now: beavers (and so raccoons) are on
        and a beaver waits for the original doubler's answer."""
        return self._settings.beavers and self.cube_offer == "beaver"

    @property
    def outcome(self) -> GameOutcome | None:
        """The result, or None while the game goes on."""
        return self._state.outcome

    @property
    def is_over(self) -> bool:
        """Whether the game has a result."""
        return self._state.outcome is not None

    @property
    def events(self) -> tuple[dict[str, Any], ...]:
        """The event log so far (copies; see the module docstring for the forms)."""
        return tuple(dict(event) for event in self._events)

    @property
    def event_count(self) -> int:
        """How many events the log holds (``len(events)`` without copying them): it grows by
        one with every action, so it tells two states of the game apart, except the single
        moves of a turn (see :attr:`played`)."""
        return len(self._events)

    @property
    def history(self) -> tuple[Turn, ...]:
        """One :class:`Turn` per roll-and-play and per cube or resignation action, in order."""
        return tuple(self._history)

    def legal_plays(self) -> LegalPlays:
        """The distinct legal plays of the current roll from :attr:`turn_start`.

        Raises:
            IllegalActionError: the dice have not been rolled (not in the ``MOVE`` phase).
        """
        if self._state.phase is not Phase.MOVE or self._legal is None:
            raise IllegalActionError(f"no roll to play: {PHASE_WORDS[self._state.phase]}")
        return self._legal

    def legal_moves(self) -> list[Move]:
        """The single moves that can be made next this turn (empty when none is left, or
        outside the ``MOVE`` phase); see :func:`~backgammon.core.moves.legal_moves`."""
        if self._state.phase is not Phase.MOVE or self._state.dice is None:
            return []
        # Cached per (turn, moves made): a UI asks after every move, and the search behind
        # legal_moves is the costly part of a turn.
        key = (len(self._events), tuple(self._played))
        if self._moves_cache is None or self._moves_cache[0] != key:
            found = legal_moves(self._state.turn_start, self.dice_left, self._played)
            self._moves_cache = (key, tuple(found))
        return list(self._moves_cache[1])

    def can_double(self, color: Color | str | None = None) -> bool:
        """Whether ``color`` (default: the player on roll) may double now."""
        return self.double_refusal(color) is None

    def double_refusal(self, color: Color | str | None = None) -> str | None:
        """Why ``color`` (default: the player on roll) may not double now, in words (the
        message :meth:`double` would raise), or None when it may."""
        return self._double_refusal(self._color(color) if color is not None else None)

    def cube_is_dead(self, color: Color | str) -> bool:
        """Whether winning at the current cube value already wins the match for ``color``
        (always False in money play): a double by ``color`` could not gain."""
        who = self._color(color)
        settings = self._settings
        return bool(settings.match_length) and (
            settings.score[color_to_player(who)] + self._state.cube_value
            >= settings.match_length
        )

    def _double_refusal(self, color: Color | None) -> str | None:
        """Why ``color`` may not double now, or None when it may."""
        state = self._state
        settings = self._settings
        who = color if color is not None else state.on_roll
        name = str(who).capitalize() if who is not None else "No one"
        cannot = "can" if who is None else "cannot"  # "No one can", "White cannot"
        if not settings.cube:
            return f"{name} {cannot} double: this game is played without the cube"
        if state.phase is not Phase.ROLL or who is None:
            return f"{name} {cannot} double now: {PHASE_WORDS[state.phase]}"
        if who is not state.on_roll:
            return f"{name} cannot double: it is {state.on_roll}'s turn"
        if settings.crawford:
            return f"{name} cannot double: this is the Crawford game (no doubling)"
        if state.cube_owner is not None and state.cube_owner is not who:
            return f"{name} cannot double: {state.cube_owner.name.capitalize()} owns the cube"
        if settings.match_length and not settings.allow_dead_doubles:
            own = settings.score[color_to_player(who)]
            if own + state.cube_value >= settings.match_length:
                return (
                    f"{name} cannot double: the cube is dead ({own} + {state.cube_value} "
                    f"already wins the {settings.match_length}-point match)"
                )
        return None

    def match_state(self, score: tuple[int, int] | None = None) -> MatchState:
        """The game's state as GNU Backgammon Match ID fields.

        Args:
            score: the match score to write, ``(white, black)``; default: the score before
                this game (``settings.score``).

        Raises:
            InvalidIdError: a field a Match ID cannot hold (a cube above 2**15, a score above
                32767).
        """
        state = self._state
        settings = self._settings
        on_roll = state.on_roll if state.on_roll is not None else WHITE
        turn = self.turn
        if state.phase is Phase.OVER:
            assert state.outcome is not None
            kind = state.outcome.kind
            game_state = "dropped" if kind == "drop" else (
                "resigned" if kind in ("resign", "timeout", "forfeit") else "over")
        else:
            game_state = "playing"
        resigned = int(state.resign_offer[1]) if state.resign_offer is not None else 0
        dice = state.dice if state.phase is Phase.MOVE and state.dice is not None else (0, 0)
        return MatchState(
            cube_value=state.cube_value,
            cube_owner=None if state.cube_owner is None else color_to_player(state.cube_owner),
            player_on_roll=color_to_player(on_roll),
            turn=color_to_player(turn if turn is not None else on_roll),
            crawford=settings.crawford,
            game_state=game_state,
            doubled=state.phase is Phase.DOUBLE_OFFERED,
            resigned=resigned,
            dice=dice,
            match_length=settings.match_length,
            score=score if score is not None else settings.score,
            jacoby=settings.jacoby if not settings.match_length else False,
        )

    def match_id(self, score: tuple[int, int] | None = None) -> str:
        """The GNU Backgammon Match ID of :meth:`match_state`."""
        return encode_match_id(self.match_state(score))

    def position_id(self) -> str:
        """The GNU Backgammon Position ID of :attr:`position` with the player on roll second
        in the key, as GNU Backgammon 1.07 writes it: while a double or a resignation is
        pending that is still the doubler (or resigner), not the side that must answer (the
        Match ID says who that is). Before the opening roll, White."""
        on_roll = self._state.on_roll
        position = self._position
        if on_roll is not None and on_roll is not position.turn:
            position = position.with_turn(on_roll)
        return position.id()

    def __repr__(self) -> str:
        return (f"<Game {self.phase} on_roll={self.on_roll} cube={self.cube_value}"
                f" events={len(self._events)}>")

    # ----------------------------------------------------------------------------------------
    # Actions

    def roll(self, dice: Sequence[int] | None = None, *, seconds: float | None = None) -> Roll:
        """Throw the dice: the opening roll when nobody has rolled yet, else the player on
        roll's.

        Args:
            dice: dice supplied from outside (online play, replaying a record) instead of the
                game's own. For the opening roll ``(white_die, black_die)``: the higher die's
                owner moves first and plays both; equal dice are a tie, recorded, and thrown
                again. Otherwise the roll, two ints 1..6.
            seconds: time taken before rolling, for the log.

        Returns:
            The dice as thrown: ``(white_die, black_die)`` for an opening roll, else the roll.
            When the roll cannot be played the turn passes by itself (a ``pass`` event).

        Raises:
            IllegalActionError: not the time to roll (a double or resignation pending, moves
                to make, the game over).
            InvalidDiceError: ``dice`` are not two ints 1..6.
        """
        phase = self._state.phase
        if phase not in (Phase.OPENING, Phase.ROLL):
            raise IllegalActionError(self._not_now("roll"))
        secs = _check_seconds(seconds)
        given = dice is not None
        if dice is not None:
            roll = check_dice(dice)
            thrown: Roll = (roll[0], roll[1])
        elif phase is Phase.OPENING:
            thrown = _as_roll(self._dice.opening_roll())
        else:
            thrown = _as_roll(self._dice.roll())
        if phase is Phase.OPENING:
            event: dict[str, Any] = {"type": "opening_roll", "white": thrown[0],
                                     "black": thrown[1]}
        else:
            assert self._state.on_roll is not None
            event = {"type": "roll", "color": _color_name(self._state.on_roll),
                     "dice": list(thrown)}
        if given:
            event["given"] = True
        if secs is not None:
            event["seconds"] = secs
        self._commit(event)
        self._auto_pass()
        return thrown

    def move(self, move: Move | str) -> Move:
        """Make one move of the current play.

        Args:
            move: a :class:`Move` (mover's numbering; matched on from, to and die), or text
                such as ``"13/10"``, ``"bar/22"``, ``"6/off"`` naming one checker moved by
                one die (bearing off, the smallest die that can do it).

        Returns:
            The move as made (with its hit flag).

        Raises:
            IllegalActionError: not in the ``MOVE`` phase, or no move is left this turn.
            IllegalMoveError: the move is not one of :meth:`legal_moves`.
            NotationError: text that is not one move.
        """
        if self._state.phase is not Phase.MOVE:
            raise IllegalActionError(self._not_now("move"))
        options = self.legal_moves()
        if not options:
            raise IllegalActionError("no move is left this turn: end the turn")
        chosen = _pick_move(move, options)
        self._played.append(chosen)
        self._position = self._advance(self._position, chosen)
        return chosen

    def undo(self) -> Move:
        """Take back the last move of this turn; the dice stay the same.

        Returns:
            The move taken back.

        Raises:
            IllegalActionError: no move has been made this turn (a turn that has been ended
                cannot be undone).
        """
        if self._state.phase is not Phase.MOVE or not self._played:
            raise IllegalActionError(
                "nothing to undo: no move has been made this turn (an ended turn is final)"
            )
        last = self._played.pop()
        position = self._state.turn_start
        for move in self._played:
            position = self._advance(position, move)
        self._position = position
        return last

    def end_turn(self, *, seconds: float | None = None) -> Play:
        """End the turn with the moves made: they must be a whole legal play.

        Returns:
            The play made.

        Raises:
            IllegalActionError: not in the ``MOVE`` phase, or more dice can still be played.
        """
        if self._state.phase is not Phase.MOVE:
            raise IllegalActionError(self._not_now("end the turn"))
        remaining = self.legal_moves()
        if remaining:
            raise IllegalActionError(
                f"the play is not complete: more dice can be played (e.g. {remaining[0]})"
            )
        secs = _check_seconds(seconds)
        play = self._finish_play(self._played)
        self._commit(self._play_event(play.moves, secs))
        return play

    def play(self, play: Play | str, *, seconds: float | None = None) -> Play:
        """Make a whole play and end the turn.

        Args:
            play: a :class:`Play` of :meth:`legal_plays` (from :attr:`turn_start`), or its
                notation (``"8/5 6/5"``, ``"bar/22 24/18*"``, ``"25/22 6/0"``).

        Returns:
            The legal play made.

        Raises:
            IllegalActionError: not in the ``MOVE`` phase, or moves were already made this turn
                (undo them or end the turn).
            IllegalPlayError: the play is not legal for this roll.
            NotationError: the text is not notation.
        """
        if self._state.phase is not Phase.MOVE:
            raise IllegalActionError(self._not_now("play"))
        if self._played:
            raise IllegalActionError(
                "moves were already made this turn: undo them or end the turn"
            )
        secs = _check_seconds(seconds)
        legal = self.legal_plays()
        dice = legal.dice
        if isinstance(play, str):
            chosen = parse_play(play, self._state.turn_start, dice)
        elif isinstance(play, Play):
            if play.position != self._state.turn_start:
                raise IllegalPlayError(f"{play} starts from another position")
            found = legal.by_result(play.result)
            if found is None:
                raise IllegalPlayError(f"{play} is not a legal play with {dice[0]}{dice[1]}")
            chosen = found
        else:
            raise IllegalPlayError(f"a play must be a Play or notation, got {play!r}")
        self._commit(self._play_event(chosen.moves, secs))
        return chosen

    def double(self, *, seconds: float | None = None) -> int:
        """The player on roll offers a double (before rolling).

        Returns:
            The value offered (twice the cube's value).

        Raises:
            IllegalActionError: doubling is not allowed now, with the reason (no cube, not the
                time, the opponent owns the cube, the Crawford game, a dead cube).
        """
        secs = _check_seconds(seconds)
        refusal = self._double_refusal(self._state.on_roll)
        if refusal is not None:
            raise IllegalActionError(refusal)
        assert self._state.on_roll is not None
        event: dict[str, Any] = {"type": "double", "color": _color_name(self._state.on_roll),
                                 "cube": self._state.cube_value * 2}
        self._commit(_with_seconds(event, secs))
        return self._state.cube_value * 2

    def take(self, *, seconds: float | None = None) -> None:
        """The doubled player takes: the cube doubles and they own it.

        Raises:
            IllegalActionError: no double is offered.
        """
        self._answer_double("take", seconds)

    def drop(self, *, seconds: float | None = None) -> GameOutcome:
        """The doubled player drops (passes): the doubler wins the cube value before the double.

        Returns:
            The outcome.

        Raises:
            IllegalActionError: no double is offered.
        """
        self._answer_double("drop", seconds)
        assert self._state.outcome is not None
        return self._state.outcome

    def beaver(self, *, seconds: float | None = None) -> int:
        """The doubled player takes and at once redoubles, keeping the cube (money play with
        beavers only). The original doubler then takes (the cube is worth four times what it
        was before the double, owned by the beaver) or drops (losing twice what it was).

        Returns:
            The value offered: four times the cube value before the double.

        Raises:
            IllegalActionError: no double is offered, beavers are not allowed, or the double
                being answered is itself a beaver.
        """
        if not self._settings.beavers and self._state.phase is Phase.DOUBLE_OFFERED:
            raise IllegalActionError("beavers are not allowed in this game")
        secs = _check_seconds(seconds)
        state = self._state
        if state.phase is not Phase.DOUBLE_OFFERED or state.doubler is None:
            raise IllegalActionError("cannot beaver: no double has been offered")
        offered = state.cube_value * 4
        event = {"type": "beaver", "color": _color_name(state.doubler.opponent),
                 "cube": offered}
        self._commit(_with_seconds(event, secs))
        return offered

    def raccoon(self, *, seconds: float | None = None) -> int:
        """The original doubler answers the beaver of its double by taking it and redoubling
        at once (money play with beavers only; see the module docstring for the rule and its
        sources). Cube ownership stays with the beaver, who then takes (the cube at eight
        times what it was before the double, the beaver owning it) or drops (losing four
        times what it was). A raccoon cannot be beavered or raccooned again.

        Returns:
            The value offered: eight times the cube value before the double (four times the
            value before the beaver's redouble).

        Raises:
            IllegalActionError: no beaver is waiting for its answer (no double offered, a
                plain double, a raccoon already), or beavers are not allowed.
        """
        secs = _check_seconds(seconds)
        state = self._state
        if not self._settings.beavers:
            raise IllegalActionError("raccoons are not allowed in this game (beavers are off)")
        if state.phase is not Phase.DOUBLE_OFFERED or state.doubler is None:
            raise IllegalActionError("cannot raccoon: no double has been offered")
        if not state.beavered:
            raise IllegalActionError("cannot raccoon: only a beaver can be raccooned")
        offered = state.cube_value * 4
        event = {"type": "raccoon", "color": _color_name(state.doubler.opponent),
                 "cube": offered}
        self._commit(_with_seconds(event, secs))
        return offered

    def resign(
        self, color: Color | str, kind: ResultKind | str = ResultKind.SINGLE, *,
        seconds: float | None = None,
    ) -> None:
        """``color`` offers to resign, losing a single game, a gammon or a backgammon.

        Either player may offer while the game is in the ``ROLL`` or ``MOVE`` phase (moves made
        this turn are kept if the offer is declined). The opponent then accepts or declines.

        Raises:
            IllegalActionError: not the time to resign, or ``kind`` is not a result kind.
        """
        secs = _check_seconds(seconds)
        who = self._color(color)
        level = _parse_kind(kind)
        if self._state.phase not in (Phase.ROLL, Phase.MOVE):
            raise IllegalActionError(self._not_now("resign", who))
        event = {"type": "resign", "color": _color_name(who), "kind": _KIND_NAMES[level]}
        self._commit(_with_seconds(event, secs))

    def accept_resignation(self, *, seconds: float | None = None) -> GameOutcome:
        """The opponent of the resigning player accepts: the game ends at the level offered.

        Returns:
            The outcome.

        Raises:
            IllegalActionError: no resignation is offered.
        """
        self._answer_resignation("accept", seconds)
        assert self._state.outcome is not None
        return self._state.outcome

    def decline_resignation(self, *, seconds: float | None = None) -> None:
        """The opponent of the resigning player declines: the game goes on where it was.

        Raises:
            IllegalActionError: no resignation is offered.
        """
        self._answer_resignation("decline", seconds)

    def timeout(self, color: Color | str, *, seconds: float | None = None) -> GameOutcome:
        """``color`` ran out of time and loses a single game at the cube's value: no gammon or
        backgammon is counted on time (the position at a timeout, e.g. the start of a game,
        says nothing about how the game would have ended), and the Jacoby rule does not apply.

        Args:
            color: the side whose time ran out.
            seconds: the time its last stretch on the clock used, for the log.

        Returns:
            The outcome.

        Raises:
            IllegalActionError: the game is over, or ``seconds`` is not a number >= 0.
        """
        who = self._color(color)
        if self._state.phase is Phase.OVER:
            raise IllegalActionError(self._not_now("time out", who))
        secs = _check_seconds(seconds)
        self._commit(_with_seconds({"type": "timeout", "color": _color_name(who)}, secs))
        assert self._state.outcome is not None
        return self._state.outcome

    def forfeit(self, color: Color | str, points: int, *,
                seconds: float | None = None) -> GameOutcome:
        """``color`` forfeits the game and loses ``points``: a referee's decision, not a result
        on the board (online, a player who leaves a match, or whose dice reveal breaks its
        commitment, forfeits it). The position stays as it was.

        Args:
            color: the side that forfeits.
            points: what its opponent scores (at least 1; the caller decides: an online
                room gives the rest of a match, or in money play the most the game can
                score: three times the cube, the cube's value where gammons do not count).
                A ``.mat`` or SGF file holds a forfeit that a resignation could score, or
                one that ends a match (:mod:`backgammon.records`).
            seconds: the time its last stretch on the clock used, for the log.

        Returns:
            The outcome (kind ``"forfeit"``).

        Raises:
            IllegalActionError: the game is over, ``points`` is not an int >= 1, or
                ``seconds`` is not a number >= 0.
        """
        who = self._color(color)
        if self._state.phase is Phase.OVER:
            raise IllegalActionError(self._not_now("forfeit", who))
        if isinstance(points, bool) or not isinstance(points, int) or points < 1:
            raise IllegalActionError(f"a forfeit gives at least 1 point, got {points!r}")
        secs = _check_seconds(seconds)
        self._commit(_with_seconds({"type": "forfeit", "color": _color_name(who),
                                    "points": points}, secs))
        assert self._state.outcome is not None
        return self._state.outcome

    # ----------------------------------------------------------------------------------------
    # The log

    def to_log(self) -> dict[str, Any]:
        """The game as JSON-ready data: ``{"format", "version", "settings", "events"}`` and,
        while a turn's moves are made one by one, ``"moves"`` (``[from, to, die]`` each)."""
        log: dict[str, Any] = {
            "format": LOG_FORMAT,
            "version": LOG_VERSION,
            "settings": self._settings.to_dict(),
            "events": [dict(event) for event in self._events],
        }
        if self._played:
            log["moves"] = [_move_triple(m) for m in self._played]
        return log

    def to_json(self) -> str:
        """:meth:`to_log` as JSON text; ``Game.from_json(g.to_json()).to_json()`` is exact."""
        return json.dumps(self.to_log())

    @classmethod
    def from_json(cls, text: str, *, dice: DiceLike | None = None) -> Game:
        """The game of a JSON log (see :meth:`replay`).

        Raises:
            InvalidLogError: text that is not JSON, or a log that is not a legal game.
        """
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise InvalidLogError(f"a game log must be JSON: {exc}") from None
        except RecursionError:
            raise InvalidLogError("a game log must be JSON of a sensible depth: this "
                                  "nests too deep") from None
        return cls.replay(data, dice=dice)

    @classmethod
    def replay(cls, log: Mapping[str, Any], *, dice: DiceLike | None = None) -> Game:
        """Rebuild a game from :meth:`to_log` data.

        Args:
            log: the log.
            dice: the dice to go on with after the log (default: as for a new game; with a
                seed, the seeded dice advanced past the rolls in the log).

        Raises:
            InvalidLogError: the log is malformed or not a legal game; the message names the
                index of the first bad event (``"event 7: ..."``) and the attribute ``index``
                holds it (None for a problem outside the events).
        """
        game = cls._from_log_header(log, dice)
        for _ in game._apply_log(log, seeded=dice is None):
            pass
        return game

    @classmethod
    def replay_steps(
        cls, log: Mapping[str, Any], *, dice: DiceLike | None = None
    ) -> Iterator[tuple[Game, int, dict[str, Any]]]:
        """Replay a log one event at a time.

        Yields:
            ``(game, index, event)`` after each event is applied: the same :class:`Game`
            object each time, advanced. The in-progress ``"moves"`` are applied after the last
            event.

        Raises:
            InvalidLogError: as for :meth:`replay`.
        """
        game = cls._from_log_header(log, dice)
        for index, event in game._apply_log(log, seeded=dice is None):
            yield game, index, event

    def _apply_log(
        self, log: Mapping[str, Any], *, seeded: bool
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        events = log.get("events", [])
        if not isinstance(events, list):
            raise _log_error(None, f"the log's events must be a list, got {events!r}")
        seeded = seeded and self._settings.seed is not None
        for index, raw in enumerate(events):
            event = _normalize_event(raw, index)
            if seeded and event["type"] in ("opening_roll", "roll") and not event.get("given"):
                self._check_seeded(event, index)
            try:
                self._commit(event)
            except BackgammonError as exc:
                raise _log_error(index, str(exc)) from None
            yield index, event
        if self._must_pass():
            # A log that ends on an unplayable roll: the pass follows by itself, as in play.
            self._auto_pass()
        self._replay_pending_moves(log)

    @classmethod
    def _from_log_header(cls, log: Mapping[str, Any], dice: DiceLike | None) -> Game:
        if not isinstance(log, Mapping):
            raise _log_error(None, f"a game log must be an object, got {type(log).__name__}")
        if log.get("format", LOG_FORMAT) != LOG_FORMAT:
            raise _log_error(None, f"not a game log: format {log.get('format')!r}")
        version = log.get("version", LOG_VERSION)
        if version != LOG_VERSION:
            raise _log_error(None, f"game log version {version!r} is not {LOG_VERSION}")
        unknown = sorted(set(log) - {"format", "version", "settings", "events", "moves"})
        if unknown:
            raise _log_error(None, f"unknown keys in the game log: {', '.join(unknown)}")
        try:
            settings = GameSettings.from_dict(log.get("settings", {}))
        except InvalidSettingsError as exc:
            raise _log_error(None, f"bad settings: {exc}") from None
        return cls(settings, dice=dice)

    def _replay_pending_moves(self, log: Mapping[str, Any]) -> None:
        moves = log.get("moves")
        if moves is None:
            return
        if not isinstance(moves, list):
            raise _log_error(None, f"the log's moves must be a list, got {moves!r}")
        for raw in moves:
            try:
                self.move(Move(*_parse_triple(raw)))
            except (BackgammonError, TypeError) as exc:
                raise _log_error(None, f"in-progress move {raw!r}: {exc}") from None

    def _check_seeded(self, event: dict[str, Any], index: int) -> None:
        if event["type"] == "opening_roll":
            expected = _as_roll(self._dice.opening_roll())
            got: Roll = (event["white"], event["black"])
        else:
            expected = _as_roll(self._dice.roll())
            got = (event["dice"][0], event["dice"][1])
        if expected != got:
            raise _log_error(
                index,
                f"the roll {got[0]}{got[1]} is not what the seeded dice give "
                f"({expected[0]}{expected[1]})",
            )

    # ----------------------------------------------------------------------------------------
    # Internals

    def _color(self, color: Color | str | int) -> Color:
        try:
            return Color.parse(color)
        except ValueError as exc:
            raise IllegalActionError(str(exc)) from None

    def _not_now(self, what: str, who: Color | None = None) -> str:
        subject = f"{str(who).capitalize()} cannot" if who is not None else "cannot"
        return f"{subject} {what} now: {PHASE_WORDS[self._state.phase]}"

    def _advance(self, position: Position, move: Move) -> Position:
        """``position`` after one move (already known to be legal)."""
        return apply_play(position, (move,))

    def _finish_play(self, moves: Sequence[Move]) -> Play:
        return Play(self._state.turn_start, moves, apply_play(self._state.turn_start, moves))

    def _play_event(self, moves: Sequence[Move], secs: float | None) -> dict[str, Any]:
        assert self._state.on_roll is not None
        event: dict[str, Any] = {"type": "play", "color": _color_name(self._state.on_roll),
                                 "moves": [_move_triple(m) for m in moves]}
        return _with_seconds(event, secs)

    def _must_pass(self) -> bool:
        return (self._state.phase is Phase.MOVE and self._legal is not None
                and not self._legal)

    def _auto_pass(self) -> None:
        if self._must_pass():
            assert self._state.on_roll is not None
            self._commit({"type": "pass", "color": _color_name(self._state.on_roll)})

    def _answer_double(self, answer: str, seconds: float | None) -> None:
        secs = _check_seconds(seconds)
        state = self._state
        if state.phase is not Phase.DOUBLE_OFFERED:
            raise IllegalActionError(f"cannot {answer}: no double has been offered")
        assert state.doubler is not None
        event = {"type": answer, "color": _color_name(state.doubler.opponent)}
        self._commit(_with_seconds(event, secs))

    def _answer_resignation(self, answer: str, seconds: float | None) -> None:
        secs = _check_seconds(seconds)
        state = self._state
        if state.phase is not Phase.RESIGNATION_OFFERED:
            raise IllegalActionError(f"cannot {answer}: no resignation has been offered")
        assert state.resign_offer is not None
        event = {"type": answer, "color": _color_name(state.resign_offer[0].opponent)}
        self._commit(_with_seconds(event, secs))

    def _worth(self, kind: ResultKind) -> int:
        """Points for a win of ``kind`` at the current cube: gammons off and the Jacoby rule
        applied."""
        state = self._state
        value = int(kind)
        if not self._settings.gammons or (self._settings.jacoby and state.cube_owner is None):
            value = 1
        return value * state.cube_value

    def _commit(self, event: dict[str, Any]) -> None:
        """Check ``event`` against the state, then apply it; nothing changes if it raises.

        The event must already be in its normal form (see ``_normalize_event``).
        """
        state = self._state
        kind = event["type"]
        color = Color.parse(event["color"]) if "color" in event else None
        new = dataclasses.replace(state)
        played: list[Move] = list(self._played)
        position = self._position
        legal = self._legal
        turn_entry: Turn | None = None
        secs = event.get("seconds")
        index = len(self._events)

        def fail(message: str) -> IllegalActionError:
            return IllegalActionError(message)

        def expect_actor(expected: Color | None, what: str) -> None:
            if color is not expected:
                who = str(expected) if expected is not None else "nobody"
                raise fail(f"{color} cannot {what}: it is {who}'s turn to act")

        if state.phase is Phase.OVER:
            raise fail(f"the game is over ({state.outcome.kind if state.outcome else ''}): "
                       f"no {kind} is possible")

        if kind == "opening_roll":
            if state.phase is not Phase.OPENING:
                raise fail("the opening roll has already been made")
            white, black = event["white"], event["black"]
            if white != black:
                mover = WHITE if white > black else BLACK
                new.phase = Phase.MOVE
                new.on_roll = mover
                new.turn_start = Position.start(mover)
                new.dice = (max(white, black), min(white, black))
                position = new.turn_start
                legal = legal_plays(new.turn_start, new.dice)
                played = []
        elif kind == "roll":
            if state.phase is not Phase.ROLL:
                raise fail(self._not_now("roll", color))
            expect_actor(state.on_roll, "roll")
            dice = event["dice"]
            new.phase = Phase.MOVE
            new.dice = (dice[0], dice[1])
            legal = legal_plays(state.turn_start, new.dice)
            played = []
        elif kind in ("play", "pass"):
            if state.phase is not Phase.MOVE or state.dice is None:
                raise fail(self._not_now(kind, color))
            expect_actor(state.on_roll, kind)
            assert color is not None and legal is not None
            if kind == "pass":
                if legal:
                    raise IllegalPlayError(
                        f"{color} cannot pass with {state.dice[0]}{state.dice[1]}: "
                        f"a move can be made"
                    )
                moves: tuple[Move, ...] = ()
                result = state.turn_start
            else:
                moves = self._checked_moves(event["moves"], state, legal)
                result = self._finish_play(moves).result
            finished = outcome(result)
            turn_entry = Turn(
                color=color, action="move", dice=state.dice, moves=moves,
                text=format_play(moves), position=result.with_turn(color.opponent),
                cube_value=state.cube_value, cube_owner=state.cube_owner,
                event_index=index, seconds=secs,
            )
            played = []
            legal = None
            new.dice = None
            if finished is not None:
                new.phase = Phase.OVER
                new.turn_start = result
                new.outcome = GameOutcome(finished.winner, _KIND_NAMES[finished.kind],
                                          self._worth(finished.kind), finished.kind)
                position = result
            else:
                new.phase = Phase.ROLL
                new.on_roll = color.opponent
                new.turn_start = result.with_turn(color.opponent)
                position = new.turn_start
        elif kind == "double":
            refusal = self._double_refusal(color)
            if refusal is not None:
                raise fail(refusal)
            if event["cube"] != state.cube_value * 2:
                raise fail(f"the double offers {event['cube']}, but the cube is at "
                           f"{state.cube_value}: a double offers {state.cube_value * 2}")
            new.phase = Phase.DOUBLE_OFFERED
            new.doubler = color
            assert color is not None
            turn_entry = self._cube_turn(color, "double", f"Doubles => {event['cube']}",
                                         new, index, secs)
        elif kind in ("take", "drop", "beaver", "raccoon"):
            if state.phase is not Phase.DOUBLE_OFFERED or state.doubler is None:
                raise fail(f"{color} cannot {kind}: no double has been offered")
            expect_actor(state.doubler.opponent, kind)
            assert color is not None
            if kind == "take":
                new.cube_value = state.cube_value * 2
                # Taking a beaver leaves the cube with the beaver, who redoubled.
                new.cube_owner = state.doubler if state.beavered else color
                new.phase = Phase.ROLL
                new.doubler = None
                new.beavered = False
                new.raccooned = False
                text = "Takes"
            elif kind == "beaver":
                if not self._settings.beavers:
                    raise fail("beavers are not allowed in this game")
                if state.beavered or state.raccooned:
                    offer = "a beaver" if state.beavered else "a raccoon"
                    raise fail(f"{color} cannot beaver {offer}: take or drop")
                offered = state.cube_value * 4
                if event["cube"] != offered:
                    raise fail(f"the beaver offers {event['cube']}, but the cube is at "
                               f"{state.cube_value}: a beaver offers {offered}")
                # The double is taken (the cube doubles, the beaver owns it) and redoubled at
                # once: the original doubler now takes or drops the redouble.
                new.cube_value = state.cube_value * 2
                new.cube_owner = color
                new.doubler = color
                new.beavered = True
                text = f"Beavers => {offered}"
            elif kind == "raccoon":
                if not self._settings.beavers:
                    raise fail("raccoons are not allowed in this game (beavers are off)")
                if not state.beavered:
                    raise fail(f"{color} cannot raccoon: only a beaver can be raccooned")
                offered = state.cube_value * 4
                if event["cube"] != offered:
                    raise fail(f"the raccoon offers {event['cube']}, but the cube is at "
                               f"{state.cube_value}: a raccoon offers {offered}")
                # The beaver is taken (the cube doubles; ownership stays with the beaver) and
                # redoubled at once: the beaver now takes or drops the raccoon.
                new.cube_value = state.cube_value * 2
                new.doubler = color
                new.beavered = False
                new.raccooned = True
                text = f"Raccoons => {offered}"
            else:
                new.phase = Phase.OVER
                new.doubler = None
                new.beavered = False
                new.raccooned = False
                new.outcome = GameOutcome(state.doubler, "drop", state.cube_value,
                                          ResultKind.SINGLE)
                text = "Drops"
            turn_entry = self._cube_turn(color, kind, text, new, index, secs)
        elif kind == "resign":
            if state.phase not in (Phase.ROLL, Phase.MOVE):
                raise fail(self._not_now("resign", color))
            assert color is not None
            level = _KINDS_BY_NAME[event["kind"]]
            new.phase = Phase.RESIGNATION_OFFERED
            new.resign_offer = (color, level)
            new.phase_before_resign = state.phase
            turn_entry = self._cube_turn(color, "resign", f"Resigns {event['kind']}", new,
                                         index, secs, _unplayed(state, color))
        elif kind in ("accept", "decline"):
            if state.phase is not Phase.RESIGNATION_OFFERED or state.resign_offer is None:
                raise fail(f"{color} cannot {kind}: no resignation has been offered")
            resigner, level = state.resign_offer
            expect_actor(resigner.opponent, kind)
            assert color is not None
            new.resign_offer = None
            if kind == "accept":
                new.phase = Phase.OVER
                new.outcome = GameOutcome(color, "resign", self._worth(level), level)
                text = "Accepts"
                played = []
                position = state.turn_start
                legal = None
            else:
                assert state.phase_before_resign is not None
                new.phase = state.phase_before_resign
                text = "Declines"
            new.phase_before_resign = None
            turn_entry = self._cube_turn(color, kind, text, new, index, secs)
        elif kind == "timeout":
            assert color is not None
            winner = color.opponent
            level = ResultKind.SINGLE  # a timeout loses the game at the cube's value
            new.phase = Phase.OVER
            new.doubler = None
            new.beavered = new.raccooned = False
            new.resign_offer = None
            new.outcome = GameOutcome(winner, "timeout", state.cube_value, level)
            turn_entry = self._cube_turn(color, "timeout", "Times out", new, index, secs,
                                         _unplayed(state, color))
            played = []
            position = state.turn_start
            legal = None
        elif kind == "forfeit":
            assert color is not None
            new.phase = Phase.OVER
            new.doubler = None
            new.beavered = new.raccooned = False
            new.resign_offer = None
            new.outcome = GameOutcome(color.opponent, "forfeit", event["points"],
                                      ResultKind.SINGLE)
            turn_entry = self._cube_turn(color, "forfeit", "Forfeits", new, index, secs,
                                         _unplayed(state, color))
            played = []
            position = state.turn_start
            legal = None
        else:  # pragma: no cover - _normalize_event and the actions only make known types
            raise fail(f"unknown event type {kind!r}")

        # Everything is checked: commit.
        self._state = new
        self._played = played
        self._position = position
        self._legal = legal
        self._events.append(event)
        if turn_entry is not None:
            self._history.append(turn_entry)

    def _cube_turn(
        self, color: Color, action: str, text: str, new: _State, index: int,
        secs: float | None, dice: tuple[int, int] | None = None,
    ) -> Turn:
        turn_start = new.turn_start
        return Turn(color=color, action=action, dice=dice, moves=(), text=text,
                    position=turn_start, cube_value=new.cube_value, cube_owner=new.cube_owner,
                    event_index=index, seconds=secs)

    def _checked_moves(
        self, raw: list[list[int]], state: _State, legal: LegalPlays
    ) -> tuple[Move, ...]:
        """The moves of a play event, checked as a whole legal play; hit flags filled in.

        Each move must be a legal single move with a die of the roll not yet used, and the
        result must be the result of one of the legal plays (which makes the play use as many
        dice as can be played, and the larger die when only one can be). The check is by
        result, as legal plays are distinct by result: the dice a bear-off is credited to may
        differ between two orders that reach the same position.
        """
        assert state.dice is not None
        dice = state.dice
        left = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
        made: list[Move] = []
        position = state.turn_start
        for triple in raw:
            src, dst, die = triple[0], triple[1], triple[2]
            before = " after " + format_play(made) if made else ""
            if die not in left:
                raise IllegalMoveError(
                    f"{Move(src, dst, die)}: no {die} is left to play with "
                    f"{dice[0]}{dice[1]}{before}"
                )
            hit = dst != OFF and position.own_points(position.turn)[dst] == -1
            move = Move(src, dst, die, hit)
            try:
                position = apply_play(position, (move,))
            except IllegalMoveError:
                raise IllegalMoveError(
                    f"{move} is not a legal move with {dice[0]}{dice[1]}{before}"
                ) from None
            made.append(move)
            left.remove(die)
        if position not in legal:  # by result, without building every Play
            text = format_play(made) or "no move"
            if legal and all(len(made) < len(play) for play in legal):
                raise IllegalPlayError(
                    f"{text} does not use as many dice as can be played with "
                    f"{dice[0]}{dice[1]}"
                )
            raise IllegalPlayError(f"{text} is not a legal play with {dice[0]}{dice[1]}")
        return tuple(made)


# --------------------------------------------------------------------------------------------
# Helpers


def _default_dice(seed: int | None) -> DiceLike:
    from backgammon.core.dice import Dice

    return Dice(random.Random(seed)) if seed is not None else Dice()


def _as_roll(dice: Sequence[int]) -> Roll:
    checked = check_dice(dice)
    return (checked[0], checked[1])


def _unplayed(state: _State, color: Color | None) -> tuple[int, int] | None:
    """The roll ``color`` threw and has not played (it resigns or runs out of time in its
    ``MOVE`` phase), for its move-list line; None otherwise."""
    if state.phase is Phase.MOVE and color is state.on_roll:
        return state.dice
    return None


def _with_seconds(event: dict[str, Any], secs: float | None) -> dict[str, Any]:
    if secs is not None:
        event["seconds"] = secs
    return event


def _parse_kind(kind: ResultKind | str | int) -> ResultKind:
    if isinstance(kind, ResultKind):
        return kind
    if isinstance(kind, str) and kind.strip().lower() in _KINDS_BY_NAME:
        return _KINDS_BY_NAME[kind.strip().lower()]
    if isinstance(kind, int) and not isinstance(kind, bool) and kind in (1, 2, 3):
        return ResultKind(kind)
    raise IllegalActionError(
        f"not a resignation level: {kind!r} (expected single, gammon or backgammon)"
    )


def _pick_move(move: Move | str, options: list[Move]) -> Move:
    """The legal move ``move`` names among ``options``."""
    listed = ", ".join(f"{m}" for m in options)
    if isinstance(move, Move):
        for option in options:
            if (option.from_point, option.to_point, option.die) == (
                move.from_point, move.to_point, move.die
            ):
                return option
        raise IllegalMoveError(f"{move} (die {move.die}) is not a legal move now; legal: "
                               f"{listed}")
    if not isinstance(move, str):
        raise IllegalMoveError(f"a move must be a Move or text like 13/10, got {move!r}")
    paths = parse_moves_text(move)
    if len(paths) != 1 or paths[0][1] != 1 or len(paths[0][0]) != 2:
        raise IllegalMoveError(
            f"{move!r} is not one move of one checker by one die (like 13/10 or 6/off)"
        )
    (src, _), (dst, _) = paths[0][0]
    candidates = sorted((m for m in options if (m.from_point, m.to_point) == (src, dst)),
                        key=lambda m: m.die)
    if not candidates:
        raise IllegalMoveError(f"{move!r} is not a legal move now; legal: {listed}")
    return candidates[0]


def _parse_triple(raw: object) -> tuple[int, int, int]:
    if (
        not isinstance(raw, (list, tuple))
        or len(raw) != 3
        or any(isinstance(v, bool) or not isinstance(v, int) for v in raw)
    ):
        raise TypeError(f"a move is [from, to, die] (three ints), got {raw!r}")
    src, dst, die = raw
    if not (1 <= src <= BAR and OFF <= dst < BAR and 1 <= die <= 6):
        raise TypeError(f"a move is [from 1..25, to 0..24, die 1..6], got {raw!r}")
    return (src, dst, die)


def _log_error(index: int | None, message: str) -> InvalidLogError:
    where = f"event {index}: " if index is not None else ""
    error = InvalidLogError(where + message)
    error.index = index  # type: ignore[attr-defined]
    return error


_EVENT_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "opening_roll": ("white", "black"),
    "roll": ("color", "dice"),
    "play": ("color", "moves"),
    "pass": ("color",),
    "double": ("color", "cube"),
    "take": ("color",),
    "drop": ("color",),
    "beaver": ("color", "cube"),
    "raccoon": ("color", "cube"),
    "resign": ("color", "kind"),
    "accept": ("color",),
    "decline": ("color",),
    "timeout": ("color",),
    "forfeit": ("color", "points"),
}


def _normalize_event(raw: object, index: int) -> dict[str, Any]:
    """Check an event's form (not its legality) and return it in normal form.

    Raises:
        InvalidLogError: a missing, unknown or malformed field, naming the event index.
    """
    if not isinstance(raw, Mapping):
        raise _log_error(index, f"an event must be an object, got {raw!r}")
    kind = raw.get("type")
    if kind not in _EVENT_FIELDS:
        raise _log_error(index, f"unknown event type {kind!r}")
    fields = _EVENT_FIELDS[kind]
    optional = ("seconds", "given") if kind in ("roll", "opening_roll") else ("seconds",)
    missing = [name for name in fields if name not in raw]
    if missing:
        raise _log_error(index, f"a {kind} event needs {', '.join(missing)}")
    unknown = sorted(set(raw) - {"type", *fields, *optional})
    if unknown:
        raise _log_error(index, f"unknown fields in a {kind} event: {', '.join(unknown)}")
    event: dict[str, Any] = {"type": kind}
    try:
        for name in fields:
            value = raw[name]
            if name == "color":
                if value not in ("white", "black"):
                    raise ValueError(f"color must be 'white' or 'black', got {value!r}")
            elif name in ("white", "black"):
                check_dice((value, value))
            elif name == "dice":
                if not isinstance(value, list):
                    raise ValueError(f"dice must be a list of two ints, got {value!r}")
                value = list(check_dice(value))
            elif name == "moves":
                if not isinstance(value, list) or len(value) > 4:
                    raise ValueError(f"moves must be a list of at most 4 moves, got {value!r}")
                value = [list(_parse_triple(m)) for m in value]
            elif name == "cube":
                if (isinstance(value, bool) or not isinstance(value, int) or value < 2
                        or value & (value - 1)):
                    raise ValueError(f"cube must be a power of two >= 2, got {value!r}")
            elif name == "points":
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise ValueError(f"points must be an int >= 1, got {value!r}")
            elif name == "kind" and value not in _KINDS_BY_NAME:
                raise ValueError(f"kind must be single, gammon or backgammon, got {value!r}")
            event[name] = value
        if "given" in raw:
            if raw["given"] is not True:
                raise ValueError(f"given must be true when present, got {raw['given']!r}")
            event["given"] = True
        if "seconds" in raw:
            event["seconds"] = _check_seconds(raw["seconds"])
    except (ValueError, TypeError) as exc:
        raise _log_error(index, str(exc)) from None
    return event

