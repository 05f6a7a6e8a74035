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
checker paths, either die first (the reader accepts every form
:func:`~backgammon.core.notation.parse_play` does). A roll with nothing after it is a roll that
could not be played; when it could have been and the opponent's ``Wins`` follows, the player
resigned after rolling.

What other programs write, all read (each quirk noted in the replay's warnings):

* eXtreme Gammon: ``; [Tag "value"]`` header lines (``[Jacoby "On"]`` and ``[Beaver "On"]``
  set the money-play rules), a UTF-8 byte order mark, ``DD: Cannot Move`` for a roll that
  cannot be played, ``DD: ???`` for the roll of a player who then resigned, ``Resigns``
  cells, ``Wins 4 point``;
* HedgeHog and FIBS clients: ``Resigns``, ``Wins N point(s)`` in the middle of a game (a
  resignation worth N: 1, 2 or 3 times the cube), turn lines holding one player's column only;
* TGSBot (FIBS matches): CRLF line endings, the low die written first, ``Wins 1 point and the
  match``, a ``Drops`` with no double offered after the opponent's roll with no play (read as
  that opponent doubling and the player dropping);
* hand-typed files: headers and turn lines without the leading space, trailing spaces,
  ``#`` comments, no header at all (match length unknown: replayed as money play), an
  unfinished last game (imported as unfinished);
* one game exported from a longer match (GNU Backgammon's ``export game``): a first game
  written at a score other than 0-0 picks the match up at that score
  (:class:`~backgammon.core.match.MatchSetup` with no position), the Crawford game when a side
  is 1-away unless a double in it shows the Crawford game was before.

Player 0 (the first name, the left column) is White in this project's games, player 1 Black
(:func:`~backgammon.core.ids.color_to_player`).

:func:`read_and_replay` parses the text and plays every entry through the rules in one pass,
line by line, so the first problem in the file is the one reported, whether a line that cannot
be read (:class:`MatParseError`) or a play the rules refuse (:class:`MatReplayError`), each with
its line number; nothing is returned half-imported. :func:`read_mat` only parses (a
:class:`MatRecord`), :func:`replay_mat` replays a record.

:func:`write_mat` writes a :class:`~backgammon.core.match.Match` (or a record, or a replay) in
GNU Backgammon's layout, the higher die first; reading it back gives the same match.
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Iterable
from typing import Any, Final, TextIO

from backgammon.core.errors import BackgammonError
from backgammon.core.match import Match
from backgammon.core.types import WHITE
from backgammon.records.transcript import (
    MARK_CANNOT_MOVE,
    MARK_UNKNOWN,
    GameResult,
    MatAction,
    MatchReplayer,
    MatGame,
    MatRecord,
    MatReplay,
    ReadBudget,
    ReadLimits,
    TranscriptError,
    TranscriptLimitError,
    TranscriptParseError,
    TranscriptReplayError,
    number_of,
    quoted,
    replay_record,
    wins_text,
)

__all__ = [
    "GameResult",
    "MatAction",
    "MatError",
    "MatGame",
    "MatLimitError",
    "MatParseError",
    "MatRecord",
    "MatReplay",
    "MatReplayError",
    "MatWriteError",
    "ReadLimits",
    "format_mat",
    "read_and_replay",
    "read_mat",
    "record_from_match",
    "replay_mat",
    "source_text",
    "write_mat",
]

#: A turn line's entry starting more than this many spaces after the ``)`` is in the right
#: column (GNU Backgammon puts the left entry 1-2 spaces after it, the right one 29).
_RIGHT_GAP = 8
#: A ``Wins`` line indented at least this much is in the right column (GNU Backgammon: 6 for
#: the left, 34 for the right; TGSBot: 1 and 34).
_RIGHT_INDENT = 20
#: Width of the left column's text in a turn line, as GNU Backgammon writes it.
_LEFT_WIDTH = 27
#: Width of the left part of the names line.
_NAMES_WIDTH = 31

_HEADER = re.compile(r"^\s*([0-9]+)\s+point\s+match\b", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+([0-9]+)\b", re.IGNORECASE)
_TURN = re.compile(r"^\s*([0-9]+)\)(.*)$")
_WINS = re.compile(
    r"^Wins\s+([0-9]+)\s+points?(\s+and\s+the\s+match)?\s*$", re.IGNORECASE
)
_WINS_PREFIX = re.compile(r"^Wins\s+([0-9]+)\s+points?\b(\s+and\s+the\s+match\b)?",
                          re.IGNORECASE)
_RESIGNS = re.compile(r"^Resigns?\b(?:\s+([0-9]+)\s+points?\b)?", re.IGNORECASE)
_NAME = r"(\S(?:.*?\S)?)"  # a name: starts and ends with a non-space
_NAMES_SCORES = re.compile(rf"^\s*{_NAME}\s*:\s*([0-9]+)\s+{_NAME}\s*:\s*([0-9]+)\s*$")
#: A names line whose scores carry a sign: refused (a score is a whole number >= 0).
_NAMES_SIGNED = re.compile(rf"^\s*{_NAME}\s*:\s*[-+]?[0-9]+\s+{_NAME}\s*:\s*[-+]?[0-9]+\s*$")
_NAMES_ONLY = re.compile(rf"^\s*{_NAME}\s{{2,}}{_NAME}\s*$")
#: A ``:`` a score could follow, in a name being written.
_SCORE_MARK = re.compile(r":(?=\s*[0-9])")
#: The longest names line read (two names, two scores); a longer one is refused at its line.
MAX_NAMES_LINE: Final = 200
_DICE = re.compile(r"^([1-6])([1-6]):(.*)$")
_CUBE = re.compile(r"^(Doubles|Redoubles|Beavers)\s*=>\s*([0-9]+)$", re.IGNORECASE)
# A hostile line must not make a pattern backtrack in time growing with its square (one such
# line froze the server: every game waited): two quantifiers side by side never take the same
# characters. So each name, and the tag's key, starts and ends with a non-space (``\s*`` before
# it then has one way to end, and a lazy group followed by spaces does not retry the whole run
# of spaces from each of its characters).
_TAG = re.compile(r'^[;#]\s*\[\s*([^\]"\s](?:[^\]"]*[^\]"\s])?)\s+"(.*)"\s*\]\s*$')
_UNKNOWN_PLAY = re.compile(r"^\?{3,4}$")
#: A pre-scan for beavers: the match is set up before its games are read.
_BEAVER_WORD = re.compile(r"\bBeavers\s*=>", re.IGNORECASE)


# --------------------------------------------------------------------------------------------
# Errors


class MatError(TranscriptError):
    """A problem with a ``.mat`` transcript, at a line.

    Attributes:
        line: the 1-based line number (None when the problem is not at one line).
        detail: the message without the ``"line N: "`` prefix.
    """


class MatParseError(MatError, TranscriptParseError):
    """Text that is not a ``.mat`` transcript (an unknown line, a bad number, a bad layout)."""


class MatReplayError(MatError, TranscriptReplayError):
    """A transcript that parses but is not a legal match: an illegal or unparsable play, a
    cube action not allowed, a result that disagrees with the board."""


class MatLimitError(MatError, TranscriptLimitError):
    """A transcript past the limits it was read with (:class:`ReadLimits`): refused at the
    line where the limit was passed, the rest unread."""


class MatWriteError(BackgammonError, ValueError):
    """A match that cannot be written as a ``.mat`` transcript (a game not started from the
    standard position)."""


# --------------------------------------------------------------------------------------------
# Reading


def decode(data: bytes) -> str:
    """Bytes of a transcript as text: UTF-16 when they start with its byte order mark (as
    some Windows programs write), else UTF-8, else (bytes that are not UTF-8: a player's name
    saved by an older Windows program) Windows-1252, whose five unassigned bytes become
    U+FFFD and are reported where they stand."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


#: One line ending in a match file's extension: a file name passed as the text.
_FILE_NAME = re.compile(r"[^\n]{0,255}\.(?:mat|sgf|txt)\s*", re.IGNORECASE)


def source_text(source: str | bytes | TextIO | os.PathLike[str]) -> str:
    """The text of a transcript source: the text itself, bytes (UTF-8, UTF-16 with its byte
    order mark, or Windows-1252: :func:`decode`), an open file (text or binary) or a path. A
    leading byte order mark is dropped.

    Raises:
        MatParseError: a file handle that gives neither text nor bytes, another type, binary
            data rather than text, or a str that is a file name (``"match.mat"``: a
            :class:`~pathlib.Path` reads the file).
    """
    if isinstance(source, os.PathLike):
        with open(source, "rb") as binary:
            text = decode(binary.read())
    elif isinstance(source, bytes):
        text = decode(source)
    elif isinstance(source, str):
        text = source
        if _FILE_NAME.fullmatch(text):
            raise MatParseError(None, f"{text!r} looks like a file name, and a str is read as "
                                      f"the file's text: pass Path({text!r}) to read the file")
    elif hasattr(source, "read"):
        read = source.read()
        if isinstance(read, bytes):
            text = decode(read)
        elif isinstance(read, str):
            text = read
        else:
            raise MatParseError(None, f"reading the source gave {type(read).__name__}, "
                                      "not text")
    else:
        raise MatParseError(None, f"cannot read a transcript from {type(source).__name__}")
    if _binary(text):
        raise MatParseError(None, "not a match transcript: the file holds binary data, not "
                                  "text")
    return text.removeprefix("\ufeff")


def _binary(text: str) -> bool:
    """Whether ``text`` is binary data read as text: a NUL, or more than one character in 20
    of its start (and more than 4) a control character or a byte that was no character
    (U+FFFD)."""
    sample = text[:4096]
    odd = sum(1 for ch in sample if ch == "\ufffd" or (ch < " " and ch not in "\t\n\r\f\v"))
    return "\x00" in sample or odd > max(len(sample) // 20, 4)


def read_mat(source: str | bytes | TextIO | os.PathLike[str], *,
             limits: ReadLimits | None = None) -> MatRecord:
    """Parse a ``.mat`` transcript, without checking it against the rules.

    Args:
        source: the text itself (a ``str``, or UTF-8 ``bytes``), an open file (text or
            binary), or a path (``pathlib.Path``). A ``str`` is always the text, never a path.
        limits: how much of it to read at most (a server reading uploads); None: all of it.

    Returns:
        The :class:`MatRecord` (see :func:`replay_mat`, or :func:`read_and_replay` for both in
        one pass).

    Raises:
        MatParseError: a line that is not part of a transcript, with its number; a file with
            no game.
        MatLimitError: a transcript past ``limits``, at the line where it passed them.
    """
    return _Parser(source_text(source), _Sink(), limits).parse()


def replay_mat(record: MatRecord) -> MatReplay:
    """Play every game of ``record`` through the rules.

    Each game is played in a :class:`~backgammon.core.match.Match` of the record's length
    (money play when it is 0 or unknown), so that the Crawford rule and dead cubes apply; each
    roll is given to :meth:`Game.roll <backgammon.core.game.Game.roll>` and each play must be
    legal. Results are checked against the board: a game played out must end with the points
    written (a ``Wins`` line in the other player's column only confirms the end, with a
    warning); a ``Wins`` before the end is a resignation worth the points written (1, 2 or 3
    times the cube).

    Returns:
        A :class:`MatReplay` with the match and each game's result.

    Raises:
        MatReplayError: the first problem, with its line and what was expected; nothing is
            returned half-replayed.
    """
    if not isinstance(record, MatRecord):
        raise TypeError(f"replay_mat needs a MatRecord (see read_mat), got {record!r}")
    replay = replay_record(record, MatReplayError, result_by_layout=True)
    assert isinstance(replay, MatReplay)
    return replay


def read_and_replay(source: str | bytes | TextIO | os.PathLike[str], *,
                    limits: ReadLimits | None = None) -> MatReplay:
    """Read a ``.mat`` transcript and play it through the rules in one pass.

    Every entry is checked as soon as its line is read, so the error raised is the first
    problem in the file, in line order.

    Args:
        source: as for :func:`read_mat`.
        limits: as for :func:`read_mat` (the replaying counts in their time).

    Returns:
        The :class:`MatReplay`.

    Raises:
        MatParseError: the first problem is a line that cannot be read (or no game at all).
        MatReplayError: the first problem is an entry the rules refuse.
        MatLimitError: the transcript passes ``limits`` before any problem.
    """
    text = source_text(source)
    sink = _ReplaySink(bool(_BEAVER_WORD.search(text)))
    record = _Parser(text, sink, limits).parse()
    return sink.finish(record)


def _int(digits: str, line: int, what: str) -> int:
    """A number of the file (:func:`~backgammon.records.transcript.number_of`); too many
    digits is a :class:`MatParseError` at ``line``."""
    try:
        return number_of(digits, what)
    except ValueError as exc:
        raise MatParseError(line, str(exc)) from None


class _Sink:
    """What the parser tells as it reads; this one (parse only) ignores it."""

    def begin_game(self, number: int, line: int, names: tuple[str, str] | None,
                   score: tuple[int, int] | None) -> None:
        pass

    def add(self, action: MatAction) -> None:
        pass

    def end_game(self) -> None:
        pass

    def header(self, match_length: int | None, tags: dict[str, str]) -> None:
        pass

    def before_parse_error(self) -> None:
        pass


class _ReplaySink(_Sink):
    """Replays each entry as it is read."""

    def __init__(self, beavers: bool) -> None:
        self.beavers = beavers
        self.replayer: MatchReplayer | None = None

    def header(self, match_length: int | None, tags: dict[str, str]) -> None:
        probe = MatRecord(match_length, ("", ""), (), tags=tags)
        self.replayer = MatchReplayer(match_length, MatReplayError, jacoby=probe.jacoby,
                                      beavers=self.beavers or probe.beavers, cube=probe.cube,
                                      gammons=probe.gammons, result_by_layout=True)

    def begin_game(self, number: int, line: int, names: tuple[str, str] | None,
                   score: tuple[int, int] | None) -> None:
        assert self.replayer is not None
        self.replayer.begin_game(number, line, names, score)

    def add(self, action: MatAction) -> None:
        assert self.replayer is not None
        self.replayer.add(action)

    def end_game(self) -> None:
        assert self.replayer is not None
        self.replayer.end_game()

    def before_parse_error(self) -> None:
        if self.replayer is not None:
            self.replayer.before_parse_error()

    def finish(self, record: MatRecord) -> MatReplay:
        assert self.replayer is not None
        return self.replayer.finish(record)


class _Parser:
    """Reads a transcript line by line, telling ``sink`` each game and entry as it is read."""

    def __init__(self, text: str, sink: _Sink, limits: ReadLimits | None = None) -> None:
        self.lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        self.sink = sink
        self.budget = ReadBudget(limits, MatLimitError)
        self.match_length: int | None = None
        self.header_told = False
        self.comments: list[str] = []
        self.tags: dict[str, str] = {}
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
        try:
            for index, raw in enumerate(self.lines):
                self.budget.line(index + 1)
                self._line(index + 1, raw.rstrip())
            self._close_game()
            if not self.games:
                raise MatParseError(None, "no 'Game N' found: not a .mat transcript")
        except (MatParseError, MatLimitError):
            self.sink.before_parse_error()
            raise
        names = self.names or ("Player 1", "Player 2")
        return MatRecord(self.match_length, names, tuple(self.games), tuple(self.comments),
                         tuple(self.warnings), dict(self.tags))

    def _tell_header(self, number: int) -> None:
        if self.header_told:
            return
        self.header_told = True
        if self.match_length is None:
            self.warnings.append(f"line {number}: no 'N point match' header: the match length "
                                 "is unknown (replayed as money play)")
        self.sink.header(self.match_length, dict(self.tags))

    def _line(self, number: int, line: str) -> None:
        stripped = line.strip()
        if not stripped:
            return
        if stripped.startswith((";", "#")):
            if not self.games and not self.number:
                self.comments.append(stripped)
                tag = _TAG.match(stripped)
                if tag:
                    self.tags[tag.group(1)] = tag.group(2)
            return
        header = _HEADER.match(line)
        if header:
            if self.number or self.match_length is not None or self.games:
                raise MatParseError(number, f"a second match header {quoted(stripped)}")
            self.match_length = _int(header.group(1), number, "the match length")
            return
        game = _GAME.match(line)
        if game:
            self._close_game()
            self._tell_header(number)
            self.number = _int(game.group(1), number, "the game number")
            if not self.number:
                raise MatParseError(number, f"games are numbered from 1, got "
                                            f"{quoted(stripped)}")
            self.game_line = number
            self.expect_names = True
            return
        if not self.number:
            raise MatParseError(
                number, f"unexpected {quoted(stripped)} before the first 'Game N' (expected "
                "comments starting with ';' or 'N point match')"
            )
        if self.expect_names:
            self.expect_names = False
            if not _TURN.match(line) and not _WINS.match(stripped):
                self._names_line(number, line)
                self._begin_game()
                return
            self.warnings.append(f"line {number}: no names and score line after "
                                 f"'Game {self.number}'")
            self._begin_game()
        if self.result is not None:
            raise MatParseError(
                number, f"{quoted(stripped)} after the result of game {self.number} (expected "
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
            self._add(MatAction(number, player, "win",
                                value=_int(wins.group(1), number, "the points won"),
                                match=bool(wins.group(2))))
            return
        resigns = _RESIGNS.match(stripped)
        if resigns and resigns.end() == len(stripped):
            indent = len(line) - len(line.lstrip())
            player = 1 if indent >= _RIGHT_INDENT else 0
            value = (_int(resigns.group(1), number, "the points resigned") if resigns.group(1)
                     else None)
            self._add(MatAction(number, player, "resign", value=value))
            return
        raise MatParseError(
            number, f"cannot read {quoted(stripped)}: expected a numbered turn line like "
            "' 3) 31: 8/5 6/5', 'Wins N points' or 'Game N'"
        )

    def _begin_game(self) -> None:
        self.sink.begin_game(self.number, self.game_line, self.game_names, self.game_score)

    def _names_line(self, number: int, line: str) -> None:
        if len(line.strip()) > MAX_NAMES_LINE:
            raise MatParseError(
                number, f"a names line of {len(line.strip())} characters: at most "
                f"{MAX_NAMES_LINE} are read (the players' names and scores, like 'Ann : 0   "
                f"Bob : 0')")
        scored = _NAMES_SCORES.match(line)
        if scored:
            names = (scored.group(1), scored.group(3))
            self.game_score = (_int(scored.group(2), number, "a score"),
                               _int(scored.group(4), number, "a score"))
        elif _NAMES_SIGNED.match(line):
            raise MatParseError(number, f"a score is a whole number >= 0, got "
                                        f"{quoted(line.strip())}")
        else:
            plain = _NAMES_ONLY.match(line)
            if not plain:
                raise MatParseError(
                    number, f"expected the players' names and scores like 'Ann : 0   Bob : 0', "
                    f"got {quoted(line.strip())}"
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
        gap = entries[0][0] - content_start
        first_player = 1 if gap > _RIGHT_GAP else 0
        if first_player == 1 and len(entries) == 2:
            raise MatParseError(number, "two entries on a turn line whose left column is empty")
        for offset, (_, action) in enumerate(entries):
            player = first_player + offset
            self._add(MatAction(number, player, action.kind, action.dice, action.play,
                                action.value, action.match, action.mark))

    def _entries(
        self, number: int, tokens: list[tuple[int, str]]
    ) -> list[tuple[int, MatAction]]:
        """Group a turn line's tokens into entries: (column, action with player unset).

        A third entry is refused as soon as it starts, and only the few words of a ``Wins`` or
        ``Resigns`` (or a message's quote) are joined, so that a line of many entries is read
        in time growing with its length, not with its square.
        """
        entries: list[tuple[int, MatAction]] = []
        i = 0
        while i < len(tokens):
            if len(entries) == 2:
                raise MatParseError(number, "more than two entries on one turn line (expected "
                                            "the first player's and the second player's)")
            column, token = tokens[i]
            dice = _DICE.match(token)
            if dice:
                moves: list[str] = [dice.group(3)] if dice.group(3) else []
                i += 1
                mark = None
                words = [t.lower() for _, t in tokens[i:i + 2]]
                if not moves and words == ["cannot", "move"]:
                    mark, i = MARK_CANNOT_MOVE, i + 2
                elif not moves and i < len(tokens) and _UNKNOWN_PLAY.match(tokens[i][1]):
                    mark, i = MARK_UNKNOWN, i + 1
                while mark is None and i < len(tokens) and _is_move_token(tokens[i][1]):
                    moves.append(tokens[i][1])
                    i += 1
                entries.append((column, MatAction(number, 0, "roll",
                                                  (int(dice.group(1)), int(dice.group(2))),
                                                  " ".join(moves), mark=mark)))
                continue
            word = token.lower()
            if word in ("doubles", "redoubles", "beavers"):
                if i + 2 >= len(tokens) or tokens[i + 1][1] != "=>":
                    raise MatParseError(number, f"expected '{token} => N', got "
                                                f"{quoted(_joined(tokens, i))}")
                cube = _CUBE.match(f"{token} => {tokens[i + 2][1]}")
                if not cube:
                    raise MatParseError(number, f"expected '{token} => N' with N a number, "
                                                f"got {quoted(_joined(tokens, i))}")
                value = _int(cube.group(2), number, "the cube value")
                if value < 2 or value & (value - 1):
                    raise MatParseError(number, f"a cube value is a power of two >= 2, got "
                                                f"{value} in {quoted(_joined(tokens, i))}")
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
                wins = _WINS_PREFIX.match(_joined(tokens, i, 6))
                if not wins:
                    raise MatParseError(number, f"expected 'Wins N point(s)', got "
                                                f"{quoted(_joined(tokens, i))}")
                won = _int(wins.group(1), number, "the points won")
                entries.append((column, MatAction(number, 0, "win", value=won,
                                                  match=bool(wins.group(2)))))
                i += len(wins.group(0).split())
                continue
            if word in ("resigns", "resign"):
                resigns = _RESIGNS.match(_joined(tokens, i, 3))
                assert resigns is not None
                resigned = (_int(resigns.group(1), number, "the points resigned")
                            if resigns.group(1) else None)
                entries.append((column, MatAction(number, 0, "resign", value=resigned)))
                i += len(resigns.group(0).split())
                continue
            raise MatParseError(
                number, f"cannot read {quoted(_joined(tokens, i))}: expected a roll like "
                "'31: 8/5 6/5', 'Doubles => N', 'Takes', 'Drops', 'Resigns' or 'Wins N points'"
            )
        return entries

    def _add(self, action: MatAction) -> None:
        self.budget.entry(action)
        if self.result is not None:
            raise MatParseError(action.line, f"an entry after the result of game {self.number}"
                                if action.kind != "win" else
                                f"a second result for game {self.number}")
        if action.kind == "win":
            self.result = action
        else:
            self.actions.append(action)
        self.sink.add(action)

    def _close_game(self) -> None:
        if not self.number:
            return
        if self.expect_names:
            raise MatParseError(self.game_line, f"'Game {self.number}' has nothing after it")
        self.games.append(MatGame(self.number, self.game_line, self.game_names,
                                  self.game_score, tuple(self.actions), self.result))
        self.sink.end_game()
        self.number = 0
        self.actions = []
        self.result = None
        self.game_names = None
        self.game_score = None


def _joined(tokens: list[tuple[int, str]], start: int, words: int | None = None) -> str:
    """A turn line's tokens from the ``start``-th, ``words`` of them (all when None), joined
    by single spaces."""
    end = None if words is None else start + words
    return " ".join(t for _, t in tokens[start:end])


_MOVE_TOKEN = re.compile(
    r"^(?:bar|off|[0-9]{1,2})\*?(?:/(?:bar|off|[0-9]{1,2})\*?)+(?:\([0-9]\))?$|^\([0-9]\)$",
    re.IGNORECASE,
)


def _is_move_token(token: str) -> bool:
    return bool(_MOVE_TOKEN.match(token))


# --------------------------------------------------------------------------------------------
# Writing


def _step_text(moves: Iterable[Any]) -> str:
    """Moves as GNU Backgammon writes them in a .mat file: one die step each, bar 25, off 0."""
    return " ".join(f"{m.from_point}/{m.to_point}{'*' if m.hit else ''}" for m in moves)


def record_from_match(match: Match) -> MatRecord:
    """The :class:`MatRecord` of a match: its games as transcript entries, each roll with the
    higher die first (as GNU Backgammon writes it).

    Resignations (and timeouts) become the winner's ``Wins`` line, as GNU Backgammon writes
    them; a declined resignation is not written (the format has no place for it). A money
    session with the Jacoby rule gets XG's ``; [Jacoby "On"]`` header line, one with beavers
    XG's ``; [Beaver "On"]`` (a raccoon is the original doubler's second ``Beavers => N``),
    and a match without the cube or without gammons ``; [Cube "Off"]`` or ``; [Gammons
    "Off"]`` (this project's tags; other programs read them as comments). A forfeit is the
    winner's ``Wins`` line with the points forfeited.

    Raises:
        MatWriteError: a game that did not start from the standard position.
    """
    games: list[MatGame] = []
    played = match.games  # (a copy each time it is read: once here)
    for number, game in enumerate(played, start=1):
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
                a, b = event["dice"]
                pending = (player, (max(a, b), min(a, b)))
            elif kind in ("play", "pass"):
                assert pending is not None
                actions.append(MatAction(0, player, "roll", pending[1],
                                         _step_text(turns[index].moves)))
                pending = None
            elif kind in ("double", "beaver", "raccoon"):
                # (a raccoon is the original doubler's 'Beavers => N' after the beaver)
                actions.append(MatAction(0, player, "double" if kind == "double" else "beaver",
                                         value=event["cube"]))
            elif kind in ("take", "drop"):
                actions.append(MatAction(0, player, kind))
            elif kind in ("accept", "timeout", "forfeit") and pending is not None:
                # Rolled, then resigned or ran out of time: the roll with no play.
                actions.append(MatAction(0, pending[0], "roll", pending[1], ""))
                pending = None
        result = None
        if game.outcome is not None:
            winner = 0 if game.outcome.winner is WHITE else 1
            last = number == len(played) and match.is_over
            result = MatAction(0, winner, "win", value=game.outcome.points, match=last)
        games.append(MatGame(number, 0, match.names, match.score_before(number - 1),
                             tuple(actions), result))
    # The rules have no place in the format but header tags, which we read back: XG's
    # Jacoby and Beaver, and this project's Cube and Gammons (other programs ignore them).
    comments: tuple[str, ...] = ()
    if match.jacoby:
        comments += ('; [Jacoby "On"]',)
    if match.beavers:
        comments += ('; [Beaver "On"]',)
    if not match.cube:
        comments += ('; [Cube "Off"]',)
    if not match.gammons:
        comments += ('; [Gammons "Off"]',)
    if match.seed is not None:
        # The dice's seed, as a header tag (a comment to other programs): the same seed
        # throws the same dice (services/seeds.py).
        comments += (f'; [Seed "{match.seed}"]',)
    return MatRecord(match.length, match.names, tuple(games), comments)


def mat_name(name: str, player: int) -> str:
    """``name`` as a ``.mat`` names line can hold it, so that the file reads back with it:
    on one line (each run of spaces, tabs or line breaks one space), no ``:`` before a number
    (it would read as a score; written ``-``), not starting with ``;`` or ``#`` (a comment), no
    longer than 80 characters (a names line is read up to 200), and quoted when it would read
    as a ``Game N``, ``N point match`` or turn line; ``Player 1`` or ``Player 2`` (``player``
    0 or 1) when nothing is left. (A name from another format can hold any of these: an
    SGF's ``PW``, a player's name online.)"""
    text = _SCORE_MARK.sub("-", " ".join(name.split())).lstrip(";# ")[:80].rstrip()
    if not text:
        return f"Player {player + 1}"
    if _GAME.match(text) or _HEADER.match(text) or _TURN.match(text):
        return f'"{text}"'
    return text


def format_mat(source: Match | MatRecord | MatReplay) -> str:
    """The ``.mat`` text of a match, a record or a replay, in GNU Backgammon's layout (the
    players' names as :func:`mat_name` writes them).

    Raises:
        MatWriteError: see :func:`record_from_match`.
    """
    if isinstance(source, MatReplay):
        record = record_from_match(source.match)
        comments = source.record.comments or record.comments
        record = MatRecord(source.record.match_length, record.names, record.games, comments)
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
        left = f"{mat_name(names[0], 0)} : {written[0]}"
        width = max(_NAMES_WIDTH, len(left) + 3)  # (at least three spaces before the second)
        out.append(f" Game {game.number}")
        out.append(f" {left:<{width}}{mat_name(names[1], 1)} : {written[1]}")
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
        text = wins_text(result.value or 0, result.match)
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
