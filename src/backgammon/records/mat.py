"""The Jellyfish / GNU Backgammon ``.mat`` match transcript: read, replay, write.

The format (de facto, from Jellyfish; as GNU Backgammon 1.07 writes it)::

    ; [EventDate "2025.11.08"]          comment lines (optional)

     7 point match                      the match length (0: money); may be missing

     Game 1
     charlot1 : 0                   charlot2 : 0        names and the score before the game
      1)                             41: 13/9 24/23     numbered turn lines: the first player's
      2) 31: 6/5 8/5                 41: 6/5 9/5        column left, the second's right
     10) 61: 9/8 13/7                 Doubles => 2      cube actions: Doubles => N, Takes,
     11)  Takes                      64: 13/7 7/3       Drops, Beavers => N
     ...
                                      Wins 2 points     the result, in the winner's column

A roll is ``DD: moves``, the moves in the mover's own numbering, ``25`` or ``bar`` for the bar,
``0`` or ``off`` for off, ``*`` for a hit, ``(2)`` for a repeat, one die step at a time or whole
checker paths (the reader accepts every form :func:`~backgammon.core.notation.parse_play` does).
A roll with nothing after it is a roll that could not be played; when it could have been and the
opponent's ``Wins`` follows, the player resigned after rolling.

Player 0 (the first name, the left column) is White in this project's games, player 1 Black
(:func:`~backgammon.core.ids.color_to_player`).

Reading is in two steps, both of which check everything before returning, so that nothing is
half-imported:

* :func:`read_mat` parses the text into a :class:`MatRecord` (raises :class:`MatParseError`
  with the line number for text that is not a transcript);
* :func:`replay_mat` plays every game of the record through :class:`~backgammon.core.game.Game`
  in a :class:`~backgammon.core.match.Match` (every play must be legal, every cube action
  allowed, every result agree with the board) and returns a :class:`MatReplay`; raises
  :class:`MatReplayError` with the line number and what was expected.

Known quirks it accepts, each noted in the warnings: CRLF line endings; the low die written first;
``Wins N point(s) and the match``; a roll with no play followed by the opponent's ``Wins`` (the
player resigned after rolling); a ``Drops`` with no double offered after the opponent's roll with
no play (read as that opponent doubling and the player dropping); a missing header (match length
unknown: replayed as money play); an unfinished last game (imported as unfinished).

:func:`write_mat` writes a :class:`~backgammon.core.match.Match` (or a record, or a replay) in
GNU Backgammon's layout; reading it back gives the same match.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from backgammon.core.errors import (
    BackgammonError,
    IllegalActionError,
    IllegalMoveError,
    IllegalPlayError,
    InvalidDiceError,
    NotationError,
)
from backgammon.core.game import Game, Phase
from backgammon.core.match import Match
from backgammon.core.position import ResultKind
from backgammon.core.types import BLACK, WHITE, Color

__all__ = [
    "GameResult",
    "MatAction",
    "MatError",
    "MatGame",
    "MatParseError",
    "MatRecord",
    "MatReplay",
    "MatReplayError",
    "MatWriteError",
    "format_mat",
    "read_and_replay",
    "read_mat",
    "record_from_match",
    "replay_mat",
    "write_mat",
]

#: Player numbers: 0 the first player (left column, White), 1 the second (right, Black).
PLAYER_NAMES = ("first", "second")
#: A turn line's entry starting more than this many spaces after the ``)`` is in the right
#: column (GNU Backgammon puts the left entry 1-2 spaces after it, the right one 29).
_RIGHT_GAP = 8
#: A ``Wins`` line indented at least this much is in the right column (GNU Backgammon: 6 for
#: the left, 34 for the right; TGSBot: 1 and 34).
_RIGHT_INDENT = 20
#: Width of the left column's text in a turn line, as GNU Backgammon writes it.
_LEFT_WIDTH = 27
#: How many legal plays an error message lists.
_SHOW_PLAYS = 6
#: Width of the left part of the names line.
_NAMES_WIDTH = 31

_HEADER = re.compile(r"^\s*(\d+)\s+point\s+match\b", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\b", re.IGNORECASE)
_TURN = re.compile(r"^\s*(\d+)\)(.*)$")
_WINS = re.compile(
    r"^Wins\s+(\d+)\s+points?(\s+and\s+the\s+match)?\s*$", re.IGNORECASE
)
_WINS_PREFIX = re.compile(r"^Wins\s+(\d+)\s+points?\b(\s+and\s+the\s+match\b)?",
                          re.IGNORECASE)
_NAMES_SCORES = re.compile(r"^\s*(\S.*?)\s*:\s*(\d+)\s+(\S.*?)\s*:\s*(\d+)\s*$")
_NAMES_ONLY = re.compile(r"^\s*(\S.*?)\s{2,}(\S.*?)\s*$")
_DICE = re.compile(r"^([1-6])([1-6]):(.*)$")
_CUBE = re.compile(r"^(Doubles|Redoubles|Beavers)\s*=>\s*(\d+)$", re.IGNORECASE)


# --------------------------------------------------------------------------------------------
# Errors


class MatError(BackgammonError, ValueError):
    """A problem with a ``.mat`` transcript, at a line.

    Attributes:
        line: the 1-based line number (None when the problem is not at one line).
        detail: the message without the ``"line N: "`` prefix.
    """

    def __init__(self, line: int | None, detail: str) -> None:
        self.line = line
        self.detail = detail
        super().__init__(f"line {line}: {detail}" if line is not None else detail)


class MatParseError(MatError):
    """Text that is not a ``.mat`` transcript (an unknown line, a bad number, a bad layout)."""


class MatReplayError(MatError):
    """A transcript that parses but is not a legal match: an illegal or unparsable play, a
    cube action not allowed, a result that disagrees with the board."""


class MatWriteError(BackgammonError, ValueError):
    """A match that cannot be written as a ``.mat`` transcript (a game not started from the
    standard position)."""


# --------------------------------------------------------------------------------------------
# The record


@dataclass(frozen=True, slots=True)
class MatAction:
    """One entry of a transcript.

    Attributes:
        line: the 1-based line number.
        player: 0 for the first player (left column), 1 for the second.
        kind: ``"roll"``, ``"double"``, ``"take"``, ``"drop"``, ``"beaver"`` or ``"win"``.
        dice: the roll as written (``"roll"`` only).
        play: the moves as written, space-separated (``"roll"`` only; ``""`` for no play).
        value: the cube value offered (``"double"``, ``"beaver"``) or the points won
            (``"win"``).
        match: ``"win"`` only: written with ``and the match``.
    """

    line: int
    player: int
    kind: str
    dice: tuple[int, int] | None = None
    play: str = ""
    value: int | None = None
    match: bool = False

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
        return _wins_text(self.value or 0, self.match)


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
    """

    match_length: int | None
    names: tuple[str, str]
    games: tuple[MatGame, ...]
    comments: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def final_score(self) -> tuple[int, int]:
        """The score after the last finished game, adding up the results written."""
        score = [0, 0]
        for game in self.games:
            if game.result is not None and game.result.value is not None:
                score[game.result.player] += game.result.value
        return (score[0], score[1])


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


# --------------------------------------------------------------------------------------------
# Reading


def _source_text(source: str | bytes | TextIO | os.PathLike[str]) -> str:
    if isinstance(source, os.PathLike):
        with open(source, encoding="utf-8", errors="replace", newline="") as handle:
            return handle.read()
    if isinstance(source, bytes):
        return source.decode("utf-8", errors="replace")
    if isinstance(source, str):
        return source
    if hasattr(source, "read"):
        text = source.read()
        if isinstance(text, bytes):
            return text.decode("utf-8", errors="replace")
        if not isinstance(text, str):
            raise MatParseError(None, f"reading the source gave {type(text).__name__}, "
                                      "not text")
        return text
    raise MatParseError(None, f"cannot read a transcript from {type(source).__name__}")


def read_mat(source: str | bytes | TextIO | os.PathLike[str]) -> MatRecord:
    """Parse a ``.mat`` transcript.

    Args:
        source: the text itself (a ``str``, or UTF-8 ``bytes``), an open file (text or
            binary), or a path (``pathlib.Path``). A ``str`` is always the text, never a path.

    Returns:
        The :class:`MatRecord`; nothing is checked against the rules yet (see
        :func:`replay_mat`).

    Raises:
        MatParseError: a line that is not part of a transcript, with its number; a file with
            no game.
    """
    text = _source_text(source)
    return _Parser(text).parse()


class _Parser:
    def __init__(self, text: str) -> None:
        self.lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self.match_length: int | None = None
        self.comments: list[str] = []
        self.warnings: list[str] = []
        self.games: list[MatGame] = []
        self.names: tuple[str, str] | None = None
        # the game being read
        self.number = 0
        self.game_line = 0
        self.game_names: tuple[str, str] | None = None
        self.game_score: tuple[int, int] | None = None
        self.actions: list[MatAction] = []
        self.result: MatAction | None = None
        self.expect_names = False

    def parse(self) -> MatRecord:
        for index, raw in enumerate(self.lines):
            self._line(index + 1, raw.rstrip())
        self._close_game()
        if not self.games:
            raise MatParseError(None, "no 'Game N' found: not a .mat transcript")
        names = self.names or ("Player 1", "Player 2")
        if self.match_length is None:
            self.warnings.append("line 1: no 'N point match' header: the match length is "
                                 "unknown (replayed as money play)")
        return MatRecord(self.match_length, names, tuple(self.games), tuple(self.comments),
                         tuple(self.warnings))

    def _line(self, number: int, line: str) -> None:
        stripped = line.strip()
        if not stripped:
            return
        if stripped.startswith(";"):
            if not self.games and not self.number:
                self.comments.append(stripped)
            return
        header = _HEADER.match(line)
        if header:
            if self.number or self.match_length is not None:
                raise MatParseError(number, f"a second match header {stripped!r}")
            self.match_length = int(header.group(1))
            return
        game = _GAME.match(line)
        if game:
            self._close_game()
            self.number = int(game.group(1))
            self.game_line = number
            self.expect_names = True
            return
        if not self.number:
            raise MatParseError(
                number, f"unexpected {stripped!r} before the first 'Game N' (expected "
                "comments starting with ';' or 'N point match')"
            )
        if self.expect_names:
            self.expect_names = False
            if not _TURN.match(line) and not _WINS.match(stripped):
                self._names_line(number, line)
                return
            self.warnings.append(f"line {number}: no names and score line after "
                                 f"'Game {self.number}'")
        if self.result is not None:
            raise MatParseError(
                number, f"{stripped!r} after the result of game {self.number} (expected "
                "'Game N' or the end of the file)"
            )
        turn = _TURN.match(line)
        if turn:
            self._turn_line(number, line, turn)
            return
        wins = _WINS.match(stripped)
        if wins:
            indent = len(line) - len(line.lstrip())
            player = 1 if indent >= _RIGHT_INDENT else 0
            self._add(MatAction(number, player, "win", value=int(wins.group(1)),
                                match=bool(wins.group(2))))
            return
        raise MatParseError(
            number, f"cannot read {stripped!r}: expected a numbered turn line like "
            "' 3) 31: 8/5 6/5', 'Wins N points' or 'Game N'"
        )

    def _names_line(self, number: int, line: str) -> None:
        scored = _NAMES_SCORES.match(line)
        if scored:
            names = (scored.group(1), scored.group(3))
            self.game_score = (int(scored.group(2)), int(scored.group(4)))
        else:
            plain = _NAMES_ONLY.match(line)
            if not plain:
                raise MatParseError(
                    number, f"expected the players' names and scores like 'Ann : 0   Bob : 0', "
                    f"got {line.strip()!r}"
                )
            names = (plain.group(1), plain.group(2))
            self.game_score = None
            self.warnings.append(f"line {number}: no score on the names line")
        self.game_names = names
        if self.names is None:
            self.names = names
        elif names != self.names:
            self.warnings.append(
                f"line {number}: the players are named {names[0]!r} and {names[1]!r} here, "
                f"{self.names[0]!r} and {self.names[1]!r} before"
            )

    def _turn_line(self, number: int, line: str, turn: re.Match[str]) -> None:
        content_start = turn.start(2)
        tokens = [
            (m.start() + content_start, m.group()) for m in re.finditer(r"\S+", turn.group(2))
        ]
        entries = self._entries(number, tokens)
        if not entries:
            self.warnings.append(f"line {number}: an empty turn line")
            return
        if len(entries) > 2:
            raise MatParseError(number, "more than two entries on one turn line (expected the "
                                        "first player's and the second player's)")
        gap = entries[0][0] - content_start
        first_player = 1 if gap > _RIGHT_GAP else 0
        if first_player == 1 and len(entries) == 2:
            raise MatParseError(number, "two entries on a turn line whose left column is empty")
        for offset, (_, action) in enumerate(entries):
            player = first_player + offset
            self._add(MatAction(number, player, action.kind, action.dice, action.play,
                                action.value, action.match))

    def _entries(
        self, number: int, tokens: list[tuple[int, str]]
    ) -> list[tuple[int, MatAction]]:
        """Group a turn line's tokens into entries: (column, action with player unset)."""
        entries: list[tuple[int, MatAction]] = []
        i = 0
        while i < len(tokens):
            column, token = tokens[i]
            dice = _DICE.match(token)
            if dice:
                moves: list[str] = [dice.group(3)] if dice.group(3) else []
                i += 1
                while i < len(tokens) and _is_move_token(tokens[i][1]):
                    moves.append(tokens[i][1])
                    i += 1
                entries.append((column, MatAction(number, 0, "roll",
                                                  (int(dice.group(1)), int(dice.group(2))),
                                                  " ".join(moves))))
                continue
            rest = " ".join(t for _, t in tokens[i:])
            word = token.lower()
            if word in ("doubles", "redoubles", "beavers"):
                if i + 2 >= len(tokens) or tokens[i + 1][1] != "=>":
                    raise MatParseError(number, f"expected '{token} => N', got {rest!r}")
                cube = _CUBE.match(f"{token} => {tokens[i + 2][1]}")
                if not cube:
                    raise MatParseError(number, f"expected '{token} => N' with N a number, "
                                                f"got {rest!r}")
                value = int(cube.group(2))
                if value < 2 or value & (value - 1):
                    raise MatParseError(number, f"a cube value is a power of two >= 2, got "
                                                f"{value} in {rest!r}")
                kind = "beaver" if word == "beavers" else "double"
                entries.append((column, MatAction(number, 0, kind, value=value)))
                i += 3
                continue
            if word in ("takes", "accepts"):
                entries.append((column, MatAction(number, 0, "take")))
                i += 1
                continue
            if word in ("drops", "passes", "refuses"):
                entries.append((column, MatAction(number, 0, "drop")))
                i += 1
                continue
            if word == "wins":
                wins = _WINS_PREFIX.match(rest)
                if not wins:
                    raise MatParseError(number, f"expected 'Wins N point(s)', got {rest!r}")
                entries.append((column, MatAction(number, 0, "win", value=int(wins.group(1)),
                                                  match=bool(wins.group(2)))))
                i += len(wins.group(0).split())
                continue
            raise MatParseError(
                number, f"cannot read {rest!r}: expected a roll like '31: 8/5 6/5', "
                "'Doubles => N', 'Takes', 'Drops' or 'Wins N points'"
            )
        return entries

    def _add(self, action: MatAction) -> None:
        if action.kind == "win":
            if self.result is not None:
                raise MatParseError(action.line, f"a second result for game {self.number}")
            self.result = action
        else:
            if self.result is not None:
                raise MatParseError(action.line,
                                    f"an entry after the result of game {self.number}")
            self.actions.append(action)

    def _close_game(self) -> None:
        if not self.number:
            return
        if self.expect_names:
            raise MatParseError(self.game_line, f"'Game {self.number}' has nothing after it")
        self.games.append(MatGame(self.number, self.game_line, self.game_names,
                                  self.game_score, tuple(self.actions), self.result))
        self.number = 0
        self.actions = []
        self.result = None
        self.game_names = None
        self.game_score = None


_MOVE_TOKEN = re.compile(
    r"^(?:bar|off|\d{1,2})\*?(?:/(?:bar|off|\d{1,2})\*?)+(?:\(\d\))?$|^\(\d\)$", re.IGNORECASE
)


def _is_move_token(token: str) -> bool:
    return bool(_MOVE_TOKEN.match(token))


# --------------------------------------------------------------------------------------------
# Replaying


def _player_color(player: int) -> Color:
    return WHITE if player == 0 else BLACK


def _describe(player: int, names: tuple[str, str]) -> str:
    return f"the {PLAYER_NAMES[player]} player ({names[player]})"


def replay_mat(record: MatRecord) -> MatReplay:
    """Play every game of ``record`` through the rules.

    Each game is played in a :class:`~backgammon.core.match.Match` of the record's length
    (money play when it is 0 or unknown), so that the Crawford rule and dead cubes apply; each
    roll is given to :meth:`Game.roll <backgammon.core.game.Game.roll>` and each play must be
    legal. Results are checked against the board: a game played out must end as written; a
    ``Wins`` before the end is a resignation worth the points written (1, 2 or 3 times the
    cube).

    Returns:
        A :class:`MatReplay` with the match and each game's result.

    Raises:
        MatReplayError: the first problem, with its line and what was expected; nothing is
            returned half-replayed.
    """
    if not isinstance(record, MatRecord):
        raise TypeError(f"replay_mat needs a MatRecord (see read_mat), got {record!r}")
    warnings = list(record.warnings)
    beavers = any(a.kind == "beaver" for g in record.games for a in g.actions)
    length = record.match_length or 0
    try:
        match = Match(length, cube=True, beavers=beavers and not length, names=record.names,
                      allow_dead_doubles=True)
    except BackgammonError as exc:
        raise MatReplayError(None, f"cannot set up the match: {exc}") from None
    results: list[GameResult] = []
    for index, mat_game in enumerate(record.games):
        if index:
            if match.is_over:
                raise MatReplayError(
                    mat_game.line, f"game {mat_game.number} follows the end of the match "
                    f"({match.score[0]}-{match.score[1]} in a {length}-point match)"
                )
            if not match.current.is_over:  # pragma: no cover - an unfinished game raises below
                raise MatReplayError(mat_game.line, "the game before has no result")
            match.new_game()
        score_before = match.score
        if mat_game.score is not None and mat_game.score != score_before:
            warnings.append(
                f"line {mat_game.line + 1}: game {mat_game.number} is written at "
                f"{mat_game.score[0]}-{mat_game.score[1]}, but the games before add up to "
                f"{score_before[0]}-{score_before[1]}"
            )
        _GameReplayer(match.current, mat_game, record.names, warnings).run()
        game = match.current
        if game.outcome is None:
            if index != len(record.games) - 1:
                last = mat_game.actions[-1].line if mat_game.actions else mat_game.line
                raise MatReplayError(
                    last, f"game {mat_game.number} stops without a result, and another game "
                    "follows"
                )
            last = mat_game.actions[-1].line if mat_game.actions else mat_game.line
            warnings.append(f"line {last}: game {mat_game.number} has no result: imported as "
                            "an unfinished game")
            results.append(GameResult(None, None, None))
        else:
            outcome = game.outcome
            winner = 0 if outcome.winner is WHITE else 1
            if mat_game.result is None:
                last = mat_game.actions[-1].line if mat_game.actions else mat_game.line
                warnings.append(
                    f"line {last}: game {mat_game.number} ends ({record.names[winner]} wins "
                    f"{outcome.points}, {outcome.kind}) but has no 'Wins' line"
                )
            results.append(GameResult(winner, outcome.points, outcome.kind))
    last_result = record.games[-1].result
    if last_result is not None and last_result.match and not match.is_over:
        warnings.append(f"line {last_result.line}: 'and the match' but the score "
                        f"{match.score[0]}-{match.score[1]} does not win a {length}-point match")
    return MatReplay(record, match, tuple(results), tuple(warnings))


class _GameReplayer:
    """Feeds one game's entries to a Game, checking each."""

    def __init__(self, game: Game, mat_game: MatGame, names: tuple[str, str],
                 warnings: list[str]) -> None:
        self.game = game
        self.mat_game = mat_game
        self.names = names
        self.warnings = warnings

    def fail(self, action: MatAction, detail: str) -> MatReplayError:
        return MatReplayError(action.line, detail)

    def run(self) -> None:
        actions = list(self.mat_game.actions)
        i = 0
        while i < len(actions):
            action = actions[i]
            nxt = actions[i + 1] if i + 1 < len(actions) else self.mat_game.result
            skip = self.step(action, nxt)
            i += 1 + skip
        if self.mat_game.result is not None:
            self.finish(self.mat_game.result)

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
        color = _player_color(action.player)
        who = _describe(action.player, self.names)
        if game.is_over:
            raise self.fail(action, f"an entry by {who} after the game has ended "
                                    f"({game.outcome.kind if game.outcome else ''})")
        if action.kind == "roll":
            return self.roll(action, nxt, color, who)
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
            if action.value != offered:
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
            if action.value != expected:
                raise self.fail(action, f"'Beavers => {action.value}' with the cube at "
                                        f"{game.cube_value}: expected 'Beavers => {expected}'")
            try:
                game.beaver()
            except IllegalActionError as exc:
                raise self.fail(action, str(exc)) from None
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
        if game.phase is not Phase.ROLL or game.on_roll is not color:
            raise self.fail(action, f"{who} rolls {dice_text}, but the game expects "
                                    f"{self.expected()}")
        if (
            not action.play
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
            if action.play and action.play.lower() not in ("pass", "cannot move"):
                raise self.fail(action, f"{who} cannot move with {dice_text}, but the file "
                                        f"plays {action.play!r}")
            return 0
        if not action.play and nxt is not None and nxt.kind == "win":
            resigner = "resigning" if nxt.player != action.player else "the opponent resigning"
            self.warnings.append(
                f"line {action.line}: the {PLAYER_NAMES[action.player]} player rolled "
                f"{dice_text} with legal plays but played nothing: read as {resigner} after "
                "the roll"
            )
            return 0
        try:
            game.play(action.play)
        except (IllegalPlayError, IllegalMoveError, NotationError, InvalidDiceError) as exc:
            legal = [str(play) for play in game.legal_plays()]
            shown = ", ".join(legal[:_SHOW_PLAYS]) + (", ..." if len(legal) > _SHOW_PLAYS else "")
            raise self.fail(
                action, f"illegal or unparsable play {action.play!r} for the "
                f"{PLAYER_NAMES[action.player]} player {dice_text}: {exc}; expected one of "
                f"the {len(legal)} legal plays: {shown}"
            ) from None
        return 0

    def finish(self, result: MatAction) -> None:
        game = self.game
        winner = _player_color(result.player)
        who = _describe(result.player, self.names)
        points = result.value or 0
        if game.phase is Phase.DOUBLE_OFFERED and game.turn is winner.opponent and (
            points == game.cube_value
        ):
            self.warnings.append(f"line {result.line}: a double answered by the opponent's "
                                 "'Wins' with no 'Drops': read as a drop")
            game.drop()
        if game.outcome is None:
            if game.phase not in (Phase.ROLL, Phase.MOVE):
                raise self.fail(result, f"{who} wins {points}, but the game expects "
                                        f"{self.expected()}")
            cube = game.cube_value
            if points % cube or not 1 <= points // cube <= 3:
                raise self.fail(
                    result, f"{who} wins {points} point(s) before the game is over, which is "
                    f"not 1, 2 or 3 times the cube ({cube}) as a resignation would be"
                )
            kind = ResultKind(points // cube)
            if game.settings.jacoby and game.cube_owner is None and kind is not ResultKind.SINGLE:
                raise self.fail(result, f"{who} wins {points}: the Jacoby rule counts only a "
                                        "single game with the cube centred")
            game.resign(winner.opponent, kind)
            game.accept_resignation()
            return
        outcome = game.outcome
        if outcome.winner is not winner or outcome.points != points:
            actual = _describe(0 if outcome.winner is WHITE else 1, self.names)
            raise self.fail(
                result, f"the file says {who} wins {points} point(s), but the game ends with "
                f"{actual} winning {outcome.points} ({outcome.kind}, cube {game.cube_value})"
            )


# --------------------------------------------------------------------------------------------
# Writing


def _wins_text(points: int, match: bool) -> str:
    plural = "point" if points == 1 else "points"
    return f"Wins {points} {plural}" + (" and the match" if match else "")


def _step_text(moves: Iterable[Any]) -> str:
    """Moves as GNU Backgammon writes them in a .mat file: one die step each, bar 25, off 0."""
    return " ".join(f"{m.from_point}/{m.to_point}{'*' if m.hit else ''}" for m in moves)


def record_from_match(match: Match) -> MatRecord:
    """The :class:`MatRecord` of a match: its games as transcript entries.

    Resignations (and timeouts) become the winner's ``Wins`` line, as GNU Backgammon writes
    them; a declined resignation is not written (the format has no place for it).

    Raises:
        MatWriteError: a game that did not start from the standard position.
    """
    games: list[MatGame] = []
    for number, game in enumerate(match.games, start=1):
        if game.settings.start is not None:
            raise MatWriteError(f"game {number} starts from a set-up position: a .mat "
                                "transcript cannot hold it")
        actions: list[MatAction] = []
        turns = {turn.event_index: turn for turn in game.history}
        pending: tuple[int, tuple[int, int]] | None = None  # (player, dice) rolled, not played
        for index, event in enumerate(game.events):
            kind = event["type"]
            player = 0 if event.get("color") == "white" else 1
            if kind == "opening_roll":
                white, black = event["white"], event["black"]
                if white != black:
                    pending = (0 if white > black else 1, (max(white, black), min(white, black)))
            elif kind == "roll":
                pending = (player, (event["dice"][0], event["dice"][1]))
            elif kind in ("play", "pass"):
                assert pending is not None
                actions.append(MatAction(0, player, "roll", pending[1],
                                         _step_text(turns[index].moves)))
                pending = None
            elif kind in ("double", "beaver"):
                actions.append(MatAction(0, player, kind, value=event["cube"]))
            elif kind in ("take", "drop"):
                actions.append(MatAction(0, player, kind))
            elif kind in ("accept", "timeout") and pending is not None:
                # Rolled, then resigned or ran out of time: the roll with no play.
                actions.append(MatAction(0, pending[0], "roll", pending[1], ""))
                pending = None
        result = None
        if game.outcome is not None:
            winner = 0 if game.outcome.winner is WHITE else 1
            last = number == len(match.games) and match.is_over
            result = MatAction(0, winner, "win", value=game.outcome.points, match=last)
        games.append(MatGame(number, 0, match.names, match.score_before(number - 1),
                             tuple(actions), result))
    return MatRecord(match.length, match.names, tuple(games))


def format_mat(source: Match | MatRecord | MatReplay) -> str:
    """The ``.mat`` text of a match, a record or a replay, in GNU Backgammon's layout.

    Raises:
        MatWriteError: see :func:`record_from_match`.
    """
    if isinstance(source, MatReplay):
        record = record_from_match(source.match)
        record = MatRecord(source.record.match_length, record.names, record.games,
                           source.record.comments)
    elif isinstance(source, Match):
        record = record_from_match(source)
    elif isinstance(source, MatRecord):
        record = source
    else:
        raise MatWriteError(f"cannot write {type(source).__name__} as .mat")
    out: list[str] = []
    for comment in record.comments:
        out.append(comment)
    if record.comments:
        out.append("")
    if record.match_length is not None:
        out.append(f" {record.match_length} point match")
        out.append("")
    score = [0, 0]
    for game in record.games:
        written = game.score if game.score is not None else (score[0], score[1])
        names = game.names or record.names
        left = f"{names[0]} : {written[0]}"
        out.append(f" Game {game.number}")
        out.append(f" {left:<{_NAMES_WIDTH}}{names[1]} : {written[1]}")
        out.extend(_turn_lines(game.actions, game.result))
        if game.result is not None:
            score[game.result.player] += game.result.value or 0
        out.append("")
    return "\n".join(out) + "\n"


def _turn_lines(actions: Iterable[MatAction], result: MatAction | None) -> list[str]:
    """The numbered turn lines and the ``Wins`` line, laid out as GNU Backgammon does.

    The second player's ``Wins`` after the first player's ``Drops`` shares the drop's line
    (GNU Backgammon 1.07 imports a drop correctly only in that layout); any other ``Wins`` has
    a line of its own, indented 6 (first player) or 34 (second) spaces.
    """
    rows: list[list[str | None]] = []
    last: MatAction | None = None
    for action in actions:
        text = action.text()
        if action.player == 0:
            rows.append([text, None])
        elif not rows or rows[-1][1] is not None:
            rows.append([None, text])
        else:
            rows[-1][1] = text
        last = action
    wins_line = None
    if result is not None:
        text = _wins_text(result.value or 0, result.match)
        if (result.player == 1 and last is not None and last.kind == "drop"
                and last.player == 0 and rows and rows[-1][1] is None):
            rows[-1][1] = " " + text
        else:
            wins_line = " " * (6 if result.player == 0 else 34) + text
    lines = []
    for number, (left, right) in enumerate(rows, start=1):
        line = f"{number:3d}) {left or '':<{_LEFT_WIDTH}} {right or ''}"
        lines.append(line.rstrip())
    if wins_line is not None:
        lines.append(wins_line)
    return lines


def write_mat(source: Match | MatRecord | MatReplay, handle: TextIO) -> None:
    """Write :func:`format_mat` of ``source`` to an open text file.

    Raises:
        MatWriteError: see :func:`record_from_match`.
    """
    handle.write(format_mat(source))


def read_and_replay(source: str | bytes | TextIO | os.PathLike[str]) -> MatReplay:
    """:func:`read_mat` then :func:`replay_mat`."""
    return replay_mat(read_mat(source))

