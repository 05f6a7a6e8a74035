"""A match to N points, or a money session: a sequence of games and the score.

Rules and sources:

* A match is won by the first player to reach ``length`` points; each game adds its
  :attr:`~backgammon.core.game.GameOutcome.points` to its winner's score (WBGF tournament
  rules, match play).
  Points beyond the length are kept as recorded (a gammon can overshoot).
* Crawford rule (named for John R. Crawford; WBGF tournament rules; GNU Backgammon), always
  on in matches: in the first game after either player
  reaches ``length - 1`` points (the *Crawford game*) the cube is not used; the games after it
  are *post-Crawford*, where the cube is used again. A 1-point match has neither (and no cube,
  since every double would be dead).
* Dead cube: a player does not double when winning at the current cube value already wins the
  match (see :meth:`~backgammon.core.game.Game.can_double`).
* The Jacoby rule and beavers are money-play conventions: refused in matches.
* Money play (``length == 0``): a running total, never over; each game is independent.

Scores are ``(white, black)``: White is GNU Backgammon's player 0 and the player named first
(the left column) in a ``.mat`` file.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from backgammon.core.errors import (
    IllegalActionError,
    InvalidLogError,
    InvalidSettingsError,
)
from backgammon.core.game import DiceLike, Game, GameSettings
from backgammon.core.ids import MatchState, color_to_player, encode_match_id
from backgammon.core.position import Position
from backgammon.core.types import BLACK, WHITE, Color

__all__ = ["MATCH_LOG_FORMAT", "MAX_MATCH_LENGTH", "Match", "MatchSetup"]

#: The ``"format"`` field of a match log.
MATCH_LOG_FORMAT: Final = "backgammon.match"
MATCH_LOG_VERSION: Final = 1
#: The longest match: a Match ID's 15 bits of match length (GNU Backgammon's Match ID format).
MAX_MATCH_LENGTH: Final = 32767


@dataclass(frozen=True, slots=True)
class MatchSetup:
    """A match (or money session) picked up part way: the first game starts from ``position``
    (its side to move on roll, no opening roll) with the cube and score given, or, with no
    position, as any game does (the opening roll) at that score, as a ``.mat`` file holding
    one game of a longer match does; the games after it start from the standard position.

    Attributes:
        position: where the first game starts; None: the standard position, after an
            opening roll (the cube then starts at 1 in the centre).
        score: ``(white, black)`` points won before the first game (below the match length).
        crawford: the first game is the Crawford game (one side 1-away, cube not used).
        cube_value: the cube's value at the start (1, 2, 4, ...).
        cube_owner: who owns the cube; None: centred.

    Raises:
        InvalidSettingsError: (when the match is built) a score or Crawford flag the match
            length does not allow; see :class:`~backgammon.core.game.GameSettings`.
    """

    position: Position | None
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    cube_value: int = 1
    cube_owner: Color | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"points", "turn", "score", "crawford", "cube_value",
        "cube_owner"}`` (``points`` and ``turn`` None without a position)."""
        position = self.position
        return {"points": None if position is None else list(position.points),
                "turn": None if position is None else str(position.turn),
                "score": list(self.score), "crawford": self.crawford,
                "cube_value": self.cube_value,
                "cube_owner": None if self.cube_owner is None else str(self.cube_owner)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchSetup:
        """The inverse of :meth:`to_dict`.

        Raises:
            InvalidSettingsError: a missing key or a bad value, named.
        """
        keys = {"points", "turn", "score", "crawford", "cube_value", "cube_owner"}
        if not isinstance(data, Mapping) or set(data) != keys:
            raise InvalidSettingsError(f"a match setup has the keys {sorted(keys)}, got "
                                       f"{data!r}")
        score = data["score"]
        if not isinstance(score, list | tuple) or len(score) != 2:
            raise InvalidSettingsError(f"setup score must be two ints, got {score!r}")
        try:
            owner = data["cube_owner"]
            points = data["points"]
            position = None if points is None else Position.from_points(points, data["turn"])
            return cls(position,
                       (score[0], score[1]), data["crawford"], data["cube_value"],
                       None if owner is None else Color.parse(owner))
        except ValueError as exc:
            raise InvalidSettingsError(f"setup: {exc}") from None


class Match:
    """A match to ``length`` points (``0``: a money session) played game by game.

    Args:
        length: points to win; 0 for money play (a running total).
        cube: whether the doubling cube is used (in matches, not in the Crawford game).
        gammons: whether gammons and backgammons count (on by default; see
            :class:`~backgammon.core.game.GameSettings`).
        jacoby: the Jacoby rule (money play only).
        beavers: beavers allowed (money play only).
        names: the players' names, ``(white, black)``.
        dice: the dice for every game (``roll()`` and ``opening_roll()``); default: a
            ``Dice`` seeded with ``seed``, or drawing from the operating system.
        seed: see ``dice``.
        allow_dead_doubles: allow doubles when the cube is dead (for replaying transcripts
            of servers that allowed them; see :class:`~backgammon.core.game.GameSettings`).
        setup: pick the match up part way (:class:`MatchSetup`): the first game starts at
            its score and Crawford flag, from its position and cube (set up by hand) or, with
            no position, from the opening roll.

    The first game starts at once; :meth:`new_game` starts the next one when the current game
    is over (and the match is not).

    Raises:
        InvalidSettingsError: a negative or non-int length, Jacoby or beavers in a match or
            without the cube, names that are not two non-empty strings.
    """

    def __init__(
        self,
        length: int = 0,
        *,
        cube: bool = True,
        gammons: bool = True,
        jacoby: bool = False,
        beavers: bool = False,
        names: Sequence[str] = ("White", "Black"),
        dice: DiceLike | None = None,
        seed: int | None = None,
        allow_dead_doubles: bool = False,
        setup: MatchSetup | None = None,
    ) -> None:
        if isinstance(length, bool) or not isinstance(length, int) or not (
                0 <= length <= MAX_MATCH_LENGTH):
            raise InvalidSettingsError(f"a match length is an int from 0 (money) to "
                                       f"{MAX_MATCH_LENGTH} (what a Match ID holds), got "
                                       f"{length!r}")
        if length and (jacoby or beavers):
            rule = "the Jacoby rule" if jacoby else "beavers"
            raise InvalidSettingsError(f"{rule} is for money play only, not a {length}-point "
                                       f"match")
        if (jacoby or beavers) and not cube:
            rule = "the Jacoby rule" if jacoby else "beavers"
            raise InvalidSettingsError(f"{rule} needs the doubling cube (cube=True)")
        if (
            isinstance(names, str)
            or len(names) != 2
            or not all(isinstance(n, str) and n.strip() for n in names)
        ):
            raise InvalidSettingsError(f"names must be two non-empty strings, got {names!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidSettingsError(f"seed must be an int or None, got {seed!r}")
        self.length = length
        self.cube = bool(cube)
        self.gammons = bool(gammons)
        self.jacoby = bool(jacoby)
        self.beavers = bool(beavers)
        self.names: tuple[str, str] = (names[0], names[1])
        self.seed = seed
        self.allow_dead_doubles = bool(allow_dead_doubles)
        if setup is not None and not isinstance(setup, MatchSetup):
            raise InvalidSettingsError(f"setup must be a MatchSetup, got {setup!r}")
        self.setup = setup
        if dice is None:
            from backgammon.core.dice import Dice

            dice = Dice(random.Random(seed)) if seed is not None else Dice()
        self._dice = dice
        self._games: list[Game] = []
        # the points won before each game (kept as games end, so that the score before any
        # game of a long session is read, not summed again game by game: a review reads it
        # for every game), and whether one of the games before the current one was the
        # Crawford game
        self._before: list[tuple[int, int]] = [(0, 0)]
        self._crawford_before = False
        self._games.append(Game(self.next_settings(), dice=self._dice))

    # ----------------------------------------------------------------------------------------
    # The state of the match

    @property
    def games(self) -> tuple[Game, ...]:
        """Every game so far, the current one last."""
        return tuple(self._games)

    @property
    def current(self) -> Game:
        """The game being played (or the last one, when it is over)."""
        return self._games[-1]

    @property
    def score(self) -> tuple[int, int]:
        """Points won so far, ``(white, black)``: the sum of the finished games' points (after
        the setup's score, when the match was picked up at a set-up position)."""
        return self.score_before(len(self._games))

    def score_before(self, index: int) -> tuple[int, int]:
        """The score before game ``index`` (0-based)."""
        last = len(self._games) - 1
        if 0 <= index <= last:
            white, black = self._before[index]
        elif index == last + 1:
            current = _score_of(self._games[-1:])
            white, black = self._before[last][0] + current[0], self._before[last][1] + current[1]
        else:
            white, black = _score_of(self._games[:max(0, index)])
        if self.setup is not None:
            white += self.setup.score[0]
            black += self.setup.score[1]
        return (white, black)

    @property
    def is_over(self) -> bool:
        """Whether a player has reached the match length (never, in money play)."""
        return bool(self.length) and max(self.score) >= self.length

    @property
    def winner(self) -> Color | None:
        """The winner of the match, or None while it goes on (always None in money play)."""
        if not self.is_over:
            return None
        return WHITE if self.score[0] >= self.length else BLACK

    @property
    def crawford(self) -> bool:
        """Whether the current game is the Crawford game."""
        return self.current.settings.crawford

    @property
    def post_crawford(self) -> bool:
        """Whether the Crawford game has been played (later games are post-Crawford)."""
        return self._crawford_before or self._setup_post_crawford()

    def _setup_post_crawford(self) -> bool:
        """A setup with a side 1-away that is not the Crawford game: it was played before."""
        setup = self.setup
        return (setup is not None and self.length > 1 and not setup.crawford
                and max(setup.score) == self.length - 1)

    def next_settings(self) -> GameSettings:
        """The settings of the game that would start now, from the score (Crawford rule); for
        the first game of a set-up match, the setup's."""
        setup = self.setup
        if setup is not None and not self._games:
            return GameSettings(
                cube=self.cube and self.length != 1,
                gammons=self.gammons,
                jacoby=self.jacoby,
                beavers=self.beavers,
                match_length=self.length,
                score=setup.score,
                crawford=setup.crawford,
                allow_dead_doubles=self.allow_dead_doubles,
                start=setup.position,
                start_cube_value=setup.cube_value,
                start_cube_owner=setup.cube_owner,
            )
        score = self.score if self._games else (0, 0)
        crawford = (
            self.length > 1
            and max(score) == self.length - 1
            and not self._crawford_before
            and not (self._games and self.current.settings.crawford)
            and not self._setup_post_crawford()
        )
        return GameSettings(
            cube=self.cube and self.length != 1,
            gammons=self.gammons,
            jacoby=self.jacoby,
            beavers=self.beavers,
            match_length=self.length,
            score=score if self.length else (0, 0),
            crawford=crawford,
            allow_dead_doubles=self.allow_dead_doubles,
        )

    def new_game(self) -> Game:
        """Start the next game.

        Returns:
            The new game (also :attr:`current`).

        Raises:
            IllegalActionError: the current game is not over, or the match is.
        """
        if not self.current.is_over:
            raise IllegalActionError("the current game is not over: finish it first")
        if self.is_over:
            raise IllegalActionError(
                f"the match is over: {self.names[color_to_player(self.winner or WHITE)]} won "
                f"{self.score[0]}-{self.score[1]}"
            )
        game = Game(self.next_settings(), dice=self._dice)
        done = _score_of(self._games[-1:])
        before = self._before[-1]
        self._before.append((before[0] + done[0], before[1] + done[1]))
        self._crawford_before = self._crawford_before or self.current.settings.crawford
        self._games.append(game)
        return game

    def match_state(self) -> MatchState:
        """The current game's GNU Backgammon Match ID fields, with the match score now."""
        score = self.score if self.length else (0, 0)
        if self.length:
            score = (min(score[0], self.length), min(score[1], self.length))
        return self.current.match_state(score)

    def match_id(self) -> str:
        """The GNU Backgammon Match ID (12 characters) of :meth:`match_state`."""
        return encode_match_id(self.match_state())

    def __repr__(self) -> str:
        kind = f"{self.length}-point match" if self.length else "money session"
        return (f"<Match {kind} {self.names[0]} {self.score[0]} - {self.score[1]} "
                f"{self.names[1]}, game {len(self._games)}>")

    def snapshot(self) -> Match:
        """A copy of the match as it stands that later actions on this one leave as it is
        (to read it in another thread: a review, a transcript). The games over are shared,
        since nothing changes them any more; the current one is replayed from its log, so a
        snapshot costs the current game, not the whole match."""
        twin = copy.copy(self)
        current = Game.replay(self.current.to_log(), dice=self._dice)
        twin._games = [*self._games[:-1], current]
        twin._before = list(self._before)
        return twin

    # ----------------------------------------------------------------------------------------
    # The log

    def to_log(self) -> dict[str, Any]:
        """The match as JSON-ready data: its settings and each game's log."""
        return {**self.to_log_head(), "games": [game.to_log() for game in self._games]}

    def to_log_head(self) -> dict[str, Any]:
        """:meth:`to_log` without its ``games``: the match's settings (a writer that keeps
        each game's log, which no longer changes once the game is over, adds them)."""
        return {
            "format": MATCH_LOG_FORMAT,
            "version": MATCH_LOG_VERSION,
            "length": self.length,
            "cube": self.cube,
            "gammons": self.gammons,
            "jacoby": self.jacoby,
            "beavers": self.beavers,
            "names": list(self.names),
            "seed": self.seed,
            "allow_dead_doubles": self.allow_dead_doubles,
            "setup": None if self.setup is None else self.setup.to_dict(),
        }

    def to_json(self) -> str:
        """:meth:`to_log` as JSON text."""
        return json.dumps(self.to_log())

    @classmethod
    def from_json(cls, text: str, *, dice: DiceLike | None = None) -> Match:
        """The match of a JSON log (see :meth:`replay`).

        Raises:
            InvalidLogError: not JSON, or not a legal match.
        """
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise InvalidLogError(f"a match log must be JSON: {exc}") from None
        except RecursionError:
            raise InvalidLogError("a match log must be JSON of a sensible depth: this "
                                  "nests too deep") from None
        return cls.replay(data, dice=dice)

    @classmethod
    def replay(cls, log: Mapping[str, Any], *, dice: DiceLike | None = None) -> Match:
        """Rebuild a match from :meth:`to_log` data; each game's settings must be the ones
        the score gives (Crawford game, score).

        Args:
            log: the log.
            dice: the dice to go on with (default: as for a new match; with a ``seed``, the
                seeded dice advanced past the rolls of the log, each roll checked against
                them, so the match goes on with the dice it would have thrown).

        Raises:
            InvalidLogError: a malformed log or an illegal game, naming the game
                (``"game 2: event 14: ..."``).
        """
        if not isinstance(log, Mapping) or log.get("format") != MATCH_LOG_FORMAT:
            raise InvalidLogError("not a match log (format 'backgammon.match')")
        if log.get("version") != MATCH_LOG_VERSION:
            raise InvalidLogError(f"match log version {log.get('version')!r} is not "
                                  f"{MATCH_LOG_VERSION}")
        games = log.get("games")
        if not isinstance(games, list) or not games:
            raise InvalidLogError("a match log needs a non-empty list of games")
        for key in ("cube", "gammons", "jacoby", "beavers", "allow_dead_doubles"):
            if key in log and not isinstance(log[key], bool):
                raise InvalidLogError(f"bad match settings: {key} must be true or false, got "
                                      f"{log[key]!r}")
        names = log.get("names", ("White", "Black"))
        if (not isinstance(names, (list, tuple)) or len(names) != 2
                or not all(isinstance(name, str) for name in names)):
            raise InvalidLogError(f"bad match settings: names must be two strings, got "
                                  f"{names!r}")
        try:
            raw_setup = log.get("setup")
            setup = None if raw_setup is None else MatchSetup.from_dict(raw_setup)
            match = cls(
                log.get("length", 0),
                cube=log.get("cube", True),
                gammons=log.get("gammons", True),
                jacoby=log.get("jacoby", False),
                beavers=log.get("beavers", False),
                names=(names[0], names[1]),
                dice=dice,
                seed=log.get("seed"),
                allow_dead_doubles=log.get("allow_dead_doubles", False),
                setup=setup,
            )
        except InvalidSettingsError as exc:
            raise InvalidLogError(f"bad match settings: {exc}") from None
        seeded = dice is None and match.seed is not None
        for number, game_log in enumerate(games, start=1):
            if number > 1:
                try:
                    match.new_game()
                except IllegalActionError as exc:
                    raise InvalidLogError(f"game {number}: {exc}") from None
            expected = match.current.settings
            try:
                game = Game.replay(game_log, dice=match._dice)
                if seeded:
                    # The seeded dice go on past the rolls of the log (each checked against
                    # them), so a match picked up again throws what it would have thrown.
                    for index, event in enumerate(game.events):
                        if event["type"] in ("opening_roll", "roll") and not event.get("given"):
                            game._check_seeded(event, index)
            except InvalidLogError as exc:
                raise InvalidLogError(f"game {number}: {exc}") from None
            if game.settings != expected:
                raise InvalidLogError(
                    f"game {number}: its settings {game.settings.to_dict()} are not the "
                    f"match's {expected.to_dict()}"
                )
            match._games[-1] = game
        return match

    def _replace_current(self, game: Game) -> None:
        """Put ``game`` (same settings) in place of the current game; used by importers."""
        if game.settings != self.current.settings:
            raise IllegalActionError("a replacement game must have the match's settings")
        self._games[-1] = game


def _score_of(games: Sequence[Game]) -> tuple[int, int]:
    white = black = 0
    for game in games:
        outcome = game.outcome
        if outcome is None:
            continue
        if outcome.winner is WHITE:
            white += outcome.points
        else:
            black += outcome.points
    return (white, black)
