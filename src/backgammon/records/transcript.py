"""What a match transcript holds, and replaying it through the rules one entry at a time.

The ``.mat`` reader (:mod:`backgammon.records.mat`) and the SGF reader
(:mod:`backgammon.records.sgf`) both turn a file into the same entries (:class:`MatAction`:
a roll and its play, a cube action, a resignation, a result) and feed them, as soon as each is
read, to a :class:`MatchReplayer`, which plays them in a :class:`~backgammon.core.match.Match`
and raises at the first entry the rules refuse. So a file's first problem, whether unreadable
text or an illegal play, is the one reported, and nothing is returned half-replayed.

Player 0 (the first name, the left column of a ``.mat`` file, White in SGF) is White in this
project's games, player 1 Black (:func:`~backgammon.core.ids.color_to_player`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from backgammon.core.errors import (
    BackgammonError,
    IllegalActionError,
    IllegalMoveError,
    IllegalPlayError,
    InvalidDiceError,
    NotationError,
)
from backgammon.core.game import Game, Phase
from backgammon.core.match import Match, MatchSetup
from backgammon.core.position import ResultKind
from backgammon.core.types import BLACK, WHITE, Color

__all__ = [
    "MAX_DIGITS",
    "PLAYER_NAMES",
    "GameResult",
    "MatAction",
    "MatGame",
    "MatRecord",
    "MatReplay",
    "MatchReplayer",
    "ReadBudget",
    "ReadLimits",
    "TranscriptError",
    "TranscriptLimitError",
    "TranscriptParseError",
    "TranscriptReplayError",
    "number_of",
]

#: Player numbers: 0 the first player (left column, White), 1 the second (right, Black).
PLAYER_NAMES = ("first", "second")
#: How many legal plays an error message lists.
_SHOW_PLAYS = 6
#: The marks a roll's cell can carry instead of a play.
MARK_CANNOT_MOVE = "cannot move"
MARK_UNKNOWN = "???"


# --------------------------------------------------------------------------------------------
# Errors


#: Characters of a line an error message quotes at most.
QUOTE_LIMIT: Final = 60


def quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` quoted for an error message (``repr``), cut to ``limit`` characters with "…"
    after them, so that a huge line in a hostile file does not become a huge message."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


#: The most digits a number in a transcript may have (a match length, a game number, a score,
#: a cube value, points won): more is refused as it is read, so that a hostile file cannot make
#: Python convert a huge number (its own limit, 4,300 digits, raises an unworded error).
MAX_DIGITS: Final = 6


def number_of(digits: str, what: str) -> int:
    """``digits`` (a run of ASCII digits) as an int.

    Raises:
        ValueError: more than :data:`MAX_DIGITS` digits, in words naming ``what``; the reader
            turns it into its parse error at the line.
    """
    if len(digits) > MAX_DIGITS:
        raise ValueError(f"{what} {quoted(digits, 12)} has {len(digits)} digits: at most "
                         f"{MAX_DIGITS} are read")
    return int(digits)


#: The longest message a transcript error keeps (characters; more is cut, ending in "…").
MAX_DETAIL: Final = 400


class TranscriptError(BackgammonError, ValueError):
    """A problem with a transcript file, at a line.

    Attributes:
        line: the 1-based line number (None when the problem is not at one line).
        detail: the message without the ``"line N: "`` prefix (cut after :data:`MAX_DETAIL`
            characters).
    """

    def __init__(self, line: int | None, detail: str) -> None:
        if len(detail) > MAX_DETAIL:  # (a huge line quoted by a lower layer's message)
            detail = detail[:MAX_DETAIL] + "…"
        self.line = line
        self.detail = detail
        super().__init__(f"line {line}: {detail}" if line is not None else detail)


class TranscriptParseError(TranscriptError):
    """Text that is not a transcript of its format."""


class TranscriptReplayError(TranscriptError):
    """A transcript that reads but is not a legal match: an illegal or unparsable play, a cube
    action not allowed, a result that disagrees with the board."""


class TranscriptLimitError(TranscriptError):
    """A transcript past what its reader was told to take (:class:`ReadLimits`): refused at
    the line where the limit was passed, without reading the rest."""


# --------------------------------------------------------------------------------------------
# Limits


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """How much of a transcript a reader takes, for a server reading what anyone sends.

    Attributes:
        turns: the most turns read, counted as an analysis counts them (each roll, the
            opening roll among them, and each double); None: no limit. A file is refused at
            the turn past it, so that a huge one is not read (and replayed) in full first.
        seconds: the longest the reading (and the replaying, done as the file is read) may
            take, checked at each line; None: no limit. Each line's work grows with its length
            only, so a reader stops soon after the limit.
        clock: monotonic seconds (tests inject a fake one).
    """

    turns: int | None = None
    seconds: float | None = None
    clock: Callable[[], float] = time.monotonic


class ReadBudget:
    """One transcript's reading against its :class:`ReadLimits`: the reader calls
    :meth:`line` at each line it reads and :meth:`entry` with each entry.

    Args:
        limits: the limits; None: none.
        error: the reader's exception class for a transcript past them.
    """

    def __init__(self, limits: ReadLimits | None,
                 error: type[TranscriptLimitError]) -> None:
        self.limits = limits or ReadLimits()
        self.error = error
        seconds = self.limits.seconds
        self._deadline = None if seconds is None else self.limits.clock() + seconds
        self.turns = 0

    def line(self, number: int) -> None:
        """Line ``number`` is about to be read.

        Raises:
            TranscriptLimitError: (``error``) the time allowed is over.
        """
        if self._deadline is not None and self.limits.clock() > self._deadline:
            raise self.error(number, f"reading stopped here after {self.limits.seconds:g} s, "
                                     "the longest a transcript is read: send a shorter one")

    def entry(self, action: MatAction) -> None:
        """``action`` was read (a roll or a double is a turn).

        Raises:
            TranscriptLimitError: (``error``) one turn more than the limit, at its line.
        """
        if action.kind not in ("roll", "double"):
            return
        self.turns += 1
        limit = self.limits.turns
        if limit is not None and self.turns > limit:
            raise self.error(action.line, f"more than {limit} turns (rolls and doubles): at "
                                          f"most {limit} are read; send fewer games")


# --------------------------------------------------------------------------------------------
# The record


@dataclass(frozen=True, slots=True)
class MatAction:
    """One entry of a transcript.

    Attributes:
        line: the 1-based line number.
        player: 0 for the first player (left column), 1 for the second.
        kind: ``"roll"``, ``"double"``, ``"take"``, ``"drop"``, ``"beaver"``, ``"resign"`` or
            ``"win"``.
        dice: the roll as written (``"roll"`` only).
        play: the moves as written, space-separated (``"roll"`` only; ``""`` for no play).
        value: the cube value offered (``"double"``, ``"beaver"``; None when the file does
            not say, as in SGF), the points won (``"win"``), or the points resigned when
            written (``"resign"``).
        match: ``"win"`` only: written with ``and the match``.
        mark: ``"roll"`` only: ``"cannot move"`` when the cell says so, ``"???"`` when the play
            is not written (XG's mark for a player who resigned after rolling); else None.
    """

    line: int
    player: int
    kind: str
    dice: tuple[int, int] | None = None
    play: str = ""
    value: int | None = None
    match: bool = False
    mark: str | None = None

    def text(self) -> str:
        """The entry as written in a turn line's column (``"31: 8/5 6/5"``,
        ``" Doubles => 2"``)."""
        if self.kind == "roll":
            assert self.dice is not None
            return f"{self.dice[0]}{self.dice[1]}: {self.play}".rstrip()
        if self.kind == "double":
            return f" Doubles => {self.value}"
        if self.kind == "beaver":
            return f" Beavers => {self.value}"
        if self.kind == "take":
            return " Takes"
        if self.kind == "drop":
            return " Drops"
        if self.kind == "resign":
            return " Resigns"
        return wins_text(self.value or 0, self.match)


@dataclass(frozen=True, slots=True)
class MatGame:
    """One game of a transcript.

    Attributes:
        number: the number written after ``Game``.
        line: the line of ``Game N``.
        names: the names written for this game, or None if missing.
        score: the score written before the game, ``(first, second)``, or None if missing.
        actions: the entries in order, the result excluded.
        result: the ``Wins`` entry, or None for an unfinished game.
    """

    number: int
    line: int
    names: tuple[str, str] | None
    score: tuple[int, int] | None
    actions: tuple[MatAction, ...]
    result: MatAction | None

    @property
    def winner(self) -> int | None:
        """0 (first player) or 1 (second) as written; None when unfinished."""
        return None if self.result is None else self.result.player

    @property
    def points(self) -> int | None:
        """The points written for the result; None when unfinished."""
        return None if self.result is None else self.result.value


@dataclass(frozen=True, slots=True)
class MatRecord:
    """A parsed transcript.

    Attributes:
        match_length: points to win; 0 for money play; None when the file has no header.
        names: the players, ``(first, second)``: first is player 0, the left column.
        games: the games in order.
        comments: the comment lines (starting ``;``) before the match, as written.
        warnings: problems the reader accepted, each starting ``"line N: "``.
        tags: the ``; [Name "value"]`` header lines of XG and gnubg (``{"Jacoby": "On"}``),
            and what an SGF file's root says about the rules (``Jacoby``, ``Beaver``).
    """

    match_length: int | None
    names: tuple[str, str]
    games: tuple[MatGame, ...]
    comments: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    tags: Mapping[str, str] = field(default_factory=dict)

    @property
    def final_score(self) -> tuple[int, int]:
        """The score after the last finished game, adding up the results written."""
        score = [0, 0]
        for game in self.games:
            if game.result is not None and game.result.value is not None:
                score[game.result.player] += game.result.value
        return (score[0], score[1])

    @property
    def jacoby(self) -> bool:
        """Whether the header turns the Jacoby rule on (money play only)."""
        return not self.match_length and _tag_on(self.tags, "Jacoby")

    @property
    def beavers(self) -> bool:
        """Whether beavers are allowed: a ``Beaver`` tag, or a beaver in the games (money play
        only)."""
        return not self.match_length and (_tag_on(self.tags, "Beaver") or any(
            action.kind == "beaver" for game in self.games for action in game.actions))

    @property
    def cube(self) -> bool:
        """Whether the doubling cube is in play: off with a ``Cube "Off"`` tag (this
        project's ``.mat`` header) or an SGF's ``NoCube`` rule."""
        return not (_tag_off(self.tags, "Cube") or _tag_on(self.tags, "NoCube"))

    @property
    def gammons(self) -> bool:
        """Whether gammons and backgammons count: off with a ``Gammons "Off"`` tag (this
        project's ``.mat`` header) or an SGF's ``NoGammons`` rule."""
        return not (_tag_off(self.tags, "Gammons") or _tag_on(self.tags, "NoGammons"))


def _tag_on(tags: Mapping[str, str], name: str) -> bool:
    return tags.get(name, "").strip().lower() in ("on", "yes", "true", "1")


def _tag_off(tags: Mapping[str, str], name: str) -> bool:
    return tags.get(name, "").strip().lower() in ("off", "no", "false", "0")


@dataclass(frozen=True, slots=True)
class GameResult:
    """A replayed game's result in the record's terms.

    Attributes:
        winner: 0 (first player) or 1 (second); None when the game is unfinished.
        points: points won; None when unfinished.
        kind: the outcome kind (``"single"``, ``"gammon"``, ``"backgammon"``, ``"drop"``,
            ``"resign"``); None when unfinished.
    """

    winner: int | None
    points: int | None
    kind: str | None


@dataclass(frozen=True, slots=True)
class MatReplay:
    """A transcript replayed through the rules.

    Attributes:
        record: what was read.
        match: the match with every game replayed (money play when the length is unknown).
        results: each game's result.
        warnings: the record's warnings and the replay's, each starting ``"line N: "``.
    """

    record: MatRecord
    match: Match
    results: tuple[GameResult, ...]
    warnings: tuple[str, ...] = field(default=())

    @property
    def score(self) -> tuple[int, int]:
        """The final score, ``(first, second)``."""
        return self.match.score

    @property
    def complete(self) -> bool:
        """Whether the match was played to its end (a match length reached)."""
        return self.match.is_over

    def to_summary(self) -> dict[str, Any]:
        """``{"match_length": N or None, "games": [{"winner": 0 or 1 or None, "points": P}],
        "score": [first, second]}``, as ``backgammon replay --json`` prints it."""
        return {
            "match_length": self.record.match_length,
            "games": [{"winner": r.winner, "points": r.points} for r in self.results],
            "score": list(self.score),
        }


def wins_text(points: int, match: bool) -> str:
    """``"Wins 1 point"``, ``"Wins 3 points and the match"``."""
    plural = "point" if points == 1 else "points"
    return f"Wins {points} {plural}" + (" and the match" if match else "")


# --------------------------------------------------------------------------------------------
# Replaying


def player_color(player: int) -> Color:
    """White for player 0, Black for player 1."""
    return WHITE if player == 0 else BLACK


def _describe(player: int, names: tuple[str, str]) -> str:
    return f"the {PLAYER_NAMES[player]} player ({names[player]})"


class MatchReplayer:
    """Plays a transcript's entries through the rules as they are read.

    The reader calls :meth:`begin_game` at each game, :meth:`add` with each entry in file
    order (the result last), :meth:`end_game`, and :meth:`finish` at the end of the file. One
    entry is held back until the next arrives, because a few quirks are only known from what
    follows (a roll with no play, then the opponent's ``Wins``: a resignation after rolling).
    Before the reader raises its own error it calls :meth:`before_parse_error`, so an earlier
    entry the rules refuse is reported first.

    Args:
        match_length: the match length; 0 for money play; None when the file does not say
            (replayed as money play).
        error: the exception class for a refused entry (e.g. ``MatReplayError``).
        jacoby: the Jacoby rule (money play).
        beavers: beavers allowed (money play).
        cube: the doubling cube in play.
        gammons: gammons and backgammons count.
        result_by_layout: a result's player is read from where its line stands (a ``.mat``
            file's column), not written as a word (an SGF's ``RE[B+1]``): once a game is
            over on the board, a result whose player disagrees only confirms the end, with
            a warning; otherwise it is refused.
    """

    def __init__(self, match_length: int | None, error: type[TranscriptReplayError], *,
                 jacoby: bool = False, beavers: bool = False, cube: bool = True,
                 gammons: bool = True, result_by_layout: bool = False) -> None:
        self.length = match_length or 0
        self.cube = cube
        self.gammons = gammons
        self.error = error
        self.result_by_layout = result_by_layout
        self.jacoby = jacoby and not self.length
        self.beavers = beavers and not self.length
        self.match: Match | None = None
        self.names: tuple[str, str] = ("Player 1", "Player 2")
        self.warnings: list[str] = []
        self.results: list[GameResult] = []
        self._game: _GameReplayer | None = None
        self._game_number = 0
        self._game_line = 0
        self._last_line = 0
        self._pending: MatAction | None = None
        self._result: MatAction | None = None
        # a file that starts part way through a match: how the match was picked up, where
        # its first game starts (number, the line of its score), and that game's entries so far
        self._picked_up: MatchSetup | None = None
        self._first_game = (1, 0)
        self._crawford_said = False  # the file says whether the first game is the Crawford one
        self._first_steps: list[tuple[MatAction, MatAction | None]] = []
        self._warnings_before = 0

    # ----------------------------------------------------------------------------------------

    def begin_game(self, number: int, line: int, names: tuple[str, str] | None,
                   score: tuple[int, int] | None, crawford: bool | None = None,
                   score_line: int | None = None) -> None:
        """A new game starts (its ``Game N`` line, the names and score written for it, and
        whether it is the Crawford game when the file says: an SGF's ``RU``). ``score_line``
        is where the score is written (default: the line after ``line``, as in a ``.mat``)."""
        at = line + 1 if score_line is None else score_line
        if self.match is None:
            if names is not None:
                self.names = names
            self._picked_up = None
            if self.length and score is not None and score != (0, 0):
                # A file that starts part way through a match (one game exported from a
                # longer match): the match is picked up at the score written. With a side
                # 1-away the first game is taken as the Crawford game until a double in it
                # says it is a later one (see _step).
                said = crawford
                one_away = max(score) == self.length - 1 and min(score) < self.length - 1
                if said and not one_away:
                    # (the Crawford game is the one after a side first reaches 1-away)
                    self.warnings.append(
                        f"line {at}: the file marks game {number}, at {score[0]}-{score[1]}, "
                        "as the Crawford game, but no side alone is 1-away: read as an "
                        "ordinary game")
                    crawford = said = None
                if said is None:
                    said = one_away
                self._crawford_said = crawford is not None
                self._picked_up = MatchSetup(None, score, said)
                self._first_game = (number, at)
            self.match = self._new_match(at)
            self._first_steps = []
            self._warnings_before = len(self.warnings)
        else:
            match = self.match
            if match.is_over:
                raise self.error(
                    line, f"game {number} follows the end of the match ({match.score[0]}-"
                    f"{match.score[1]} in a {self.length}-point match)"
                )
            if not match.current.is_over:
                raise self.error(
                    self._last_line, f"game {self._game_number} stops without a result, and "
                    "another game follows"
                )
            match.new_game()
            if number != self._game_number + 1:
                self.warnings.append(f"line {line}: game {number} follows game "
                                     f"{self._game_number} (read as the next game)")
        match = self.match
        before = match.score
        if match.setup is not None and len(match.games) == 1:
            self._note_picked_up()
        elif score is not None and score != before and not self.length and not self.results:
            self.warnings.append(
                f"line {at}: the file starts at game {number}, at {score[0]}-{score[1]}: "
                "a money session's running score, which changes nothing in the games")
        elif score is not None and score != before:
            self.warnings.append(
                f"line {at}: game {number} is written at {score[0]}-{score[1]}, but the "
                f"games before add up to {before[0]}-{before[1]}"
            )
        self._game = _GameReplayer(match.current, self.names, self.warnings, self.error,
                                   self.result_by_layout)
        self._game_number = number
        self._game_line = line
        self._last_line = line
        self._pending = None
        self._result = None

    def _new_match(self, score_line: int) -> Match:
        try:
            return Match(self.length, cube=self.cube, gammons=self.gammons,
                         jacoby=self.jacoby and self.cube, beavers=self.beavers and self.cube,
                         names=self.names, allow_dead_doubles=True, setup=self._picked_up)
        except BackgammonError as exc:
            where = score_line if self._picked_up is not None else None
            raise self.error(where, f"cannot set up the match: {exc}") from None

    def _note_picked_up(self) -> None:
        setup = self._picked_up
        assert setup is not None
        number, at = self._first_game
        length = self.length
        if self._crawford_said:
            crawford = " (the Crawford game, as the file says)" if setup.crawford else ""
        elif setup.crawford:
            crawford = " (taken as the Crawford game)"
        elif max(setup.score) == length - 1 and min(setup.score) < length - 1:
            crawford = " (a double in it: after the Crawford game)"
        else:
            crawford = ""
        after_crawford = (not setup.crawford and max(setup.score) == length - 1
                          and min(setup.score) < length - 1)
        if after_crawford and min(setup.score) == 0:
            # the Crawford game's winner is the trailer, or the match is over: a score of
            # N-1 to 0 after it cannot happen (WBF Rules, Crawford rule)
            crawford += (", a score no match reaches after its Crawford game (the trailer "
                         "wins that game), kept as written")
        where = (f"the file starts at game {number}, at" if number != 1
                 else "game 1 is written at")
        self.warnings.append(
            f"line {at}: {where} {setup.score[0]}-{setup.score[1]}: the match is "
            f"picked up at that score{crawford}")

    def _step(self, action: MatAction, nxt: MatAction | None) -> int:
        """``game.step``; in the first game of a match picked up at a 1-away score and taken
        as the Crawford game, a double shows the Crawford game was played before: the game
        is replayed from its start as a post-Crawford game."""
        game = self._game
        assert game is not None
        setup = self._picked_up
        match = self.match
        if setup is not None and match is not None and len(match.games) == 1:
            if setup.crawford and action.kind == "double" and not self._crawford_said:
                self._picked_up = MatchSetup(None, setup.score, crawford=False)
                del self.warnings[self._warnings_before:]
                self.match = self._new_match(self._first_game[1])
                self._note_picked_up()
                self._game = game = _GameReplayer(self.match.current, self.names,
                                                  self.warnings, self.error,
                                                  self.result_by_layout)
                for earlier, following in self._first_steps:
                    game.step(earlier, following)
            self._first_steps.append((action, nxt))
        return game.step(action, nxt)

    def add(self, action: MatAction) -> None:
        """The next entry of the current game (its result, ``"win"``, last)."""
        game = self._game
        assert game is not None, "begin_game first"
        self._last_line = action.line
        if action.kind == "win":
            self._flush(action)
            self._result = action
            assert self._game is not None  # (replayed afresh by _step, perhaps)
            self._game.finish(action)
            return
        if self._pending is None:
            self._pending = action
            return
        consumed = self._step(self._pending, action)
        self._pending = None if consumed else action

    def end_game(self) -> None:
        """The current game's entries are all given."""
        if self._game is None:
            return
        self._flush(None)
        outcome = self._game.game.outcome
        last = self._last_line
        if outcome is None:
            self.results.append(GameResult(None, None, None))
        else:
            winner = 0 if outcome.winner is WHITE else 1
            if self._result is None:
                self.warnings.append(
                    f"line {last}: game {self._game_number} ends ({self.names[winner]} won "
                    f"{outcome.points}, {outcome.kind}) but has no 'Wins' line"
                )
            self.results.append(GameResult(winner, outcome.points, outcome.kind))
        self._game = None

    def before_parse_error(self) -> None:
        """The reader is about to raise for a later line: check the entry held back first,
        unless what it means depends on the entry that could not be read."""
        pending = self._pending
        if pending is None or self._game is None:
            return
        if pending.kind in ("roll", "resign") and (
            pending.kind == "resign" or not pending.play or pending.mark is not None
        ):
            return
        self._pending = None
        self._step(pending, None)

    def finish(self, record: MatRecord) -> MatReplay:
        """The replay of the whole file (``record``: what was read)."""
        self.end_game()
        match = self.match
        if match is None:
            raise self.error(None, "no game to replay")
        if self.results and self.results[-1].winner is None:
            self.warnings.append(f"line {self._last_line}: game {self._game_number} has no "
                                 "result: imported as an unfinished game")
        last = record.games[-1].result if record.games else None
        if last is not None and last.match and not match.is_over:
            self.warnings.append(
                f"line {last.line}: 'and the match' but the score {match.score[0]}-"
                f"{match.score[1]} does not win a {self.length}-point match"
            )
        return MatReplay(record, match, tuple(self.results),
                         tuple(record.warnings) + tuple(self.warnings))

    def _flush(self, nxt: MatAction | None) -> None:
        """Apply the entry held back, ``nxt`` (the result, or None) following it; no quirk
        consumes a result."""
        pending, self._pending = self._pending, None
        if pending is not None:
            assert self._game is not None
            self._step(pending, nxt)


class _GameReplayer:
    """Feeds one game's entries to a Game, checking each."""

    def __init__(self, game: Game, names: tuple[str, str], warnings: list[str],
                 error: type[TranscriptReplayError], result_by_layout: bool = False) -> None:
        self.game = game
        self.names = names
        self.warnings = warnings
        self.error = error
        self.result_by_layout = result_by_layout

    def fail(self, action: MatAction, detail: str) -> TranscriptReplayError:
        return self.error(action.line, detail)

    def expected(self) -> str:
        game = self.game
        phase = game.phase
        if phase is Phase.OPENING:
            return "the opening roll"
        who = game.turn
        if who is None:
            return "nothing more (the game is over)"
        name = _describe(0 if who is WHITE else 1, self.names)
        return {
            Phase.ROLL: f"{name} to roll (or double)",
            Phase.MOVE: f"{name} to play",
            Phase.DOUBLE_OFFERED: f"{name} to take or drop",
            Phase.RESIGNATION_OFFERED: f"{name} to answer a resignation",
        }.get(phase, "nothing more")

    def step(self, action: MatAction, nxt: MatAction | None) -> int:
        """Apply one entry; returns how many following entries it consumed too."""
        game = self.game
        color = player_color(action.player)
        who = _describe(action.player, self.names)
        if game.is_over:
            raise self.fail(action, f"an entry by {who} after the game has ended "
                                    f"({game.outcome.kind if game.outcome else ''})")
        if action.kind == "roll":
            return self.roll(action, nxt, color, who)
        if action.kind == "resign":
            return self.resign(action, nxt, color, who)
        if action.kind == "double":
            if game.phase is not Phase.ROLL or game.on_roll is not color:
                raise self.fail(action, f"{who} doubles, but the game expects {self.expected()}")
            if not game.can_double(color):
                reason = (game.double_refusal(color) or "").split(": ", 1)[-1]
                raise self.fail(action, f"{who} cannot double: {reason}")
            if game.cube_is_dead(color):
                self.warnings.append(
                    f"line {action.line}: {who} doubles to {game.cube_value * 2} with a dead "
                    f"cube (a win at {game.cube_value} already wins the match): kept as written"
                )
            offered = game.cube_value * 2
            if action.value is not None and action.value != offered:
                raise self.fail(action, f"'Doubles => {action.value}' with the cube at "
                                        f"{game.cube_value}: expected 'Doubles => {offered}'")
            game.double()
            return 0
        if game.phase is not Phase.DOUBLE_OFFERED:
            raise self.fail(action, f"{who} {action.kind}s, but no double has been offered "
                                    f"(the game expects {self.expected()})")
        if game.turn is not color:
            raise self.fail(action, f"{who} {action.kind}s, but the game expects "
                                    f"{self.expected()}")
        if action.kind == "take":
            game.take()
        elif action.kind == "drop":
            game.drop()
        elif action.kind == "beaver":
            expected = game.cube_value * 4
            if action.value is not None and action.value != expected:
                raise self.fail(action, f"'Beavers => {action.value}' with the cube at "
                                        f"{game.cube_value}: expected 'Beavers => {expected}'")
            try:
                # A beaver answered by another 'Beavers => N' is a raccoon (a .mat file
                # and an SGF have no word of their own for it).
                if game.cube_offer == "beaver":
                    game.raccoon()
                else:
                    game.beaver()
            except IllegalActionError as exc:
                raise self.fail(action, str(exc)) from None
        return 0

    def resign(self, action: MatAction, nxt: MatAction | None, color: Color, who: str) -> int:
        """``Resigns``: the opponent's ``Wins`` that follows is the accepted resignation; play
        that goes on instead is a declined one."""
        game = self.game
        if game.phase not in (Phase.ROLL, Phase.MOVE):
            raise self.fail(action, f"{who} resigns, but the game expects {self.expected()}")
        if nxt is not None and nxt.kind == "win":
            if nxt.player == action.player:
                raise self.fail(nxt, f"{who} resigns at line {action.line}, but the file says "
                                     f"{who} wins")
            return 0  # the result follows: finish() ends the game at the points written
        if nxt is None:
            raise self.fail(action, f"{who} resigns, but no 'Wins' line follows")
        kind = ResultKind.SINGLE
        if action.value is not None and action.value % game.cube_value == 0 and (
            1 <= action.value // game.cube_value <= 3
        ):
            kind = ResultKind(action.value // game.cube_value)
        game.resign(color, kind)
        game.decline_resignation()
        self.warnings.append(f"line {action.line}: {who} resigns and the game goes on: read as "
                             "a resignation declined")
        return 0

    def roll(self, action: MatAction, nxt: MatAction | None, color: Color, who: str) -> int:
        game = self.game
        assert action.dice is not None
        a, b = action.dice
        dice_text = f"{a}{b}"
        if game.phase is Phase.OPENING:
            if a == b:
                raise self.fail(action, f"the opening roll {dice_text} is a double: each player "
                                        "throws one die and a tie is thrown again")
            high, low = max(a, b), min(a, b)
            opening = (high, low) if color is WHITE else (low, high)
            game.roll(dice=opening)
            return self.play(action, nxt, color, who, dice_text)
        if (game.phase is Phase.DOUBLE_OFFERED and game.turn is color and game.history
                and game.history[-1].action == "beaver"):
            # GNU Backgammon's .mat export leaves out the take of a beaver: the doubler rolls.
            self.warnings.append(f"line {action.line}: {who} rolls after the beaver with no "
                                 "'Takes': read as taking it")
            game.take()
        if game.phase is not Phase.ROLL or game.on_roll is not color:
            raise self.fail(action, f"{who} rolls {dice_text}, but the game expects "
                                    f"{self.expected()}")
        if (
            not action.play
            and action.mark is None
            and nxt is not None
            and nxt.kind == "drop"
            and nxt.player != action.player
            and game.can_double(color)
        ):
            # TGSBot's garbled 'Drops' line: a roll with no play, then the opponent drops
            # with no double offered. Read as the roller doubling and the opponent dropping.
            self.warnings.append(
                f"line {nxt.line}: 'Drops' by {_describe(nxt.player, self.names)} with no "
                f"double offered: read as {who} doubling to {game.cube_value * 2} and the "
                f"opponent dropping (the roll {dice_text} before it ignored)"
            )
            game.double()
            game.drop()
            return 1
        game.roll(dice=(a, b))
        return self.play(action, nxt, color, who, dice_text)

    def play(self, action: MatAction, nxt: MatAction | None, color: Color, who: str,
             dice_text: str) -> int:
        game = self.game
        if game.phase is not Phase.MOVE:
            # The roll could not be played: the game passed by itself.
            if action.play and action.play.lower() not in ("pass", MARK_CANNOT_MOVE):
                raise self.fail(action, f"{who} cannot move with {dice_text}, but the file "
                                        f"plays {quoted(action.play)}")
            return 0
        ends = nxt is not None and nxt.kind in ("win", "resign")
        if action.mark == MARK_CANNOT_MOVE:
            raise self.fail(action, f"'Cannot Move' for {who} with {dice_text}, but "
                                    f"{self.legal_text()}")
        if action.mark == MARK_UNKNOWN and not ends:
            raise self.fail(action, f"the play of {who} with {dice_text} is not written "
                                    f"('???') and the game goes on: expected {self.legal_text()}")
        if not action.play and ends:
            assert nxt is not None
            resigner = "resigning" if nxt.player != action.player or nxt.kind == "resign" \
                else "the opponent resigning"
            self.warnings.append(
                f"line {action.line}: the {PLAYER_NAMES[action.player]} player rolled "
                f"{dice_text} with legal plays but played nothing: read as {resigner} after "
                "the roll"
            )
            return 0
        try:
            game.play(action.play)
        except (IllegalPlayError, IllegalMoveError, NotationError, InvalidDiceError) as exc:
            raise self.fail(
                action, f"illegal or unparsable play {quoted(action.play)} for the "
                f"{PLAYER_NAMES[action.player]} player {dice_text}: {exc}; expected "
                f"{self.legal_text()}"
            ) from None
        return 0

    def legal_text(self) -> str:
        """``"one of the 23 legal plays: 13/7 8/7, ..."``."""
        legal = [str(play) for play in self.game.legal_plays()]
        shown = ", ".join(legal[:_SHOW_PLAYS]) + (", ..." if len(legal) > _SHOW_PLAYS else "")
        return f"one of the {len(legal)} legal plays: {shown}"

    def finish(self, result: MatAction) -> None:
        game = self.game
        winner = player_color(result.player)
        who = _describe(result.player, self.names)
        points = result.value or 0
        if game.phase is Phase.DOUBLE_OFFERED and game.turn is winner.opponent and (
            points == game.cube_value
        ):
            self.warnings.append(f"line {result.line}: a double answered by the opponent's "
                                 "'Wins' with no 'Drops': read as a drop")
            game.drop()
        if game.outcome is None:
            cube = game.cube_value
            settings = game.settings
            playing = game.phase in (Phase.ROLL, Phase.MOVE)
            # what a resignation can score here: 1, 2 or 3 times the cube; the cube's value
            # alone where gammons do not count (off, or the Jacoby rule with the cube centred)
            most = 3 if settings.gammons else 1
            jacoby = settings.jacoby and game.cube_owner is None
            resignation = playing and not points % cube and 1 <= points // cube <= (
                1 if jacoby else most)
            if not resignation:
                # a forfeit (a referee's decision, as an online room rules one: the rest of
                # a match; in money play the most the game can score, which before the
                # game's first roll or with a double pending no resignation could give)
                side = 0 if winner is WHITE else 1
                length = settings.match_length
                rest = bool(length) and points == length - settings.score[side]
                before_play = not length and not playing and points == cube * (
                    1 if jacoby else most)
                if rest or before_play:
                    self.warnings.append(
                        f"line {result.line}: {who} wins {points} point(s) "
                        f"{'and the match ' if rest else ''}before the game is over, not what "
                        "a resignation scores: read as a forfeit")
                    game.forfeit(winner.opponent, points)
                    return
                if not playing:
                    raise self.fail(result, f"{who} wins {points}, but the game expects "
                                            f"{self.expected()}")
                if jacoby and not points % cube and points // cube <= most:
                    raise self.fail(result, f"{who} wins {points}: the Jacoby rule counts only "
                                            "a single game with the cube centred")
                if not settings.gammons and not points % cube and points // cube <= 3:
                    raise self.fail(result, f"{who} wins {points} point(s) before the game is "
                                            f"over, but without gammons a resignation scores "
                                            f"the cube's value ({cube})")
                raise self.fail(
                    result, f"{who} wins {points} point(s) before the game is over, which is "
                    f"not 1, 2 or 3 times the cube ({cube}) as a resignation would be"
                )
            game.resign(winner.opponent, ResultKind(points // cube))
            game.accept_resignation()
            return
        # The game is over on the board: its result only confirms it. In a .mat file the
        # winner is the column the 'Wins' line stands in, read from its indentation, which
        # programs lay out their own way (JavaFIBS writes the last one in the other player's
        # column, and GNU Backgammon imports it): a column that disagrees is said and the
        # board's result kept. Points that disagree are what the line says: refused.
        outcome = game.outcome
        actual = _describe(0 if outcome.winner is WHITE else 1, self.names)
        if outcome.points != points or (outcome.winner is not winner
                                        and not self.result_by_layout):
            raise self.fail(
                result, f"the file says {who} wins {points} point(s), but the game ends with "
                f"{actual} winning {outcome.points} ({outcome.kind}, cube {game.cube_value})"
            )
        if outcome.winner is not winner:
            self.warnings.append(
                f"line {result.line}: the file says {who} wins {points} point(s), but the game "
                f"is over, {actual} winning {outcome.points} ({outcome.kind}): read as the "
                "result on the board")


def replay_record(record: MatRecord, error: type[TranscriptReplayError], *,
                  result_by_layout: bool = False) -> MatReplay:
    """Replay a whole record (already read) through a :class:`MatchReplayer`
    (``result_by_layout`` as there).

    Raises:
        ``error``: the first entry the rules refuse, with its line.
    """
    replayer = MatchReplayer(record.match_length, error, jacoby=record.jacoby,
                             beavers=record.beavers, cube=record.cube, gammons=record.gammons,
                             result_by_layout=result_by_layout)
    for game in record.games:
        replayer.begin_game(game.number, game.line, game.names, game.score)
        for action in game.actions:
            replayer.add(action)
        if game.result is not None:
            replayer.add(game.result)
        replayer.end_game()
    return replayer.finish(record)
