"""PDN files of American checkers: reading whole files of many games, and writing them.

Follows PDN 3.0 (Portable Draughts Notation, the PGN-derived standard, with ``[GameType "21"]``
for American checkers / English draughts) and the American PDN 2.0 conventions of the
checkers archives (the Open Checker Archive, the wiegerw/pdn test suite):

* **Tags** ``[Name "value"]`` (``\\"`` and ``\\\\`` escape a quote and a backslash), each on one
  line. ``[SetUp "1"] [FEN "B:W18,K24:B1,K9"]`` give the start (``Setup`` is accepted for
  ``SetUp``, and a FEN alone is enough); ``[GameType "21"]`` (or ``"21,..."``) is American
  checkers, another game type is refused. A game ends at its result, or where a tag follows
  its movetext, or where a tag name comes again (a game of tags alone).
* **Movetext**: move numbers (``1.``, ``1...``, ``12.11-15`` glued to the move), moves
  ``11-15`` and jumps ``15x22x31`` (``:`` also separates a jump; the shorthand ``15x31`` is
  accepted when only one legal jump fits it), comments ``{...}`` (which may span lines) and
  ``;`` to the end of the line, variations ``(...)`` (nested; skipped, not checked), NAGs
  ``$n`` and the marks ``!``, ``?``, ``!!``, ``??``, ``!?``, ``?!`` glued to a move.
* **Results**: ``1-0`` (Black won: American PDN writes Black's score first), ``0-1`` (White
  won), ``1/2-1/2``, ``*`` (unknown or unfinished); the draughts forms ``2-0``, ``0-2`` and
  ``1-1`` are read as ``1-0``, ``0-1`` and ``1/2-1/2``. The terminator must agree with the
  ``Result`` tag (PDN 3.0); when one is missing the other is used.

**Reading** (:func:`read_pdn`) checks every move with the engine and never stops at a bad
game: each :class:`PdnGame` carries ``error``, None or a :class:`PdnGameError` (a
:class:`PdnSyntaxError`, :class:`PdnTagError` or :class:`PdnMoveError`) saying which game
(1-based in the file), which line, and for a move its number, side and text and the engine's
reason. A game keeps the moves read before its error.

**Draws our rules apply by themselves.** The reader replays positions with
:func:`checkers.moves.apply_move` only, so a recorded game that goes on after a threefold
repetition or 40 quiet moves (which real players must claim, and often do not) reads whole.
:meth:`PdnGame.to_game`, which builds a :class:`checkers.Game` that applies those draws at
once, says so with a :class:`PdnReplayError` unless asked to stop at the draw.

**Writing** (:func:`write_pdn`, :func:`write_pdn_games`) gives the tags in the order Event,
Site, Date, Round, Black, White, Result, then GameType ``"21"``, SetUp and FEN when the game
does not start from the standard start, then any other tags in their order; then numbered
moves with full paths, the result, lines of at most 80 characters. Comments and variations
are not kept. Reading what was written gives back the same start, moves and result, and the
tags as written (those given, with ``Result`` and ``GameType`` set, ``SetUp``/``FEN`` from the
start); writing that again gives the same text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, TextIO

from checkers.errors import CheckersError, PdnError
from checkers.game import DrawMode, Game
from checkers.moves import Move, apply_move, clip_text, legal_moves, parse_move
from checkers.position import BLACK, WHITE, Color, Position

#: The GameType of American checkers (English draughts) in PDN 3.0.
GAME_TYPE: Final = "21"
#: The result codes, as this module gives them: Black won, White won, drawn, unknown.
BLACK_WINS: Final = "1-0"
WHITE_WINS: Final = "0-1"
DRAW: Final = "1/2-1/2"
UNKNOWN: Final = "*"
RESULTS: Final = (BLACK_WINS, WHITE_WINS, DRAW, UNKNOWN)
#: Other spellings of results found in draughts files, and what they mean.
RESULT_ALIASES: Final[Mapping[str, str]] = {"2-0": BLACK_WINS, "0-2": WHITE_WINS, "1-1": DRAW}
#: The tags written first, in this order (PGN's "seven tag roster", Black before White).
ROSTER: Final = ("Event", "Site", "Date", "Round", "Black", "White", "Result")
#: The longest line :func:`write_pdn` writes for movetext, by default.
LINE_WIDTH: Final = 80


# ---------------------------------------------------------------------------- errors


class PdnGameError(PdnError):
    """A problem in one game of a PDN text; the reader stores it in :attr:`PdnGame.error`.

    Attributes:
        game: the game's number in the file, 1-based.
        line: the line of the problem, 1-based.
        reason: what is wrong, in words.
    """

    def __init__(self, game: int, line: int, reason: str) -> None:
        self.game = game
        self.line = line
        self.reason = reason
        super().__init__(self._describe())

    def _describe(self) -> str:
        return f"game {self.game}, line {self.line}: {self.reason}"


class PdnSyntaxError(PdnGameError):
    """Text that is not PDN: an unterminated tag, comment or variation, or a token that is
    neither a move, a move number, a result, a NAG nor a comment."""


class PdnTagError(PdnGameError):
    """Tags that cannot be played: a bad FEN, ``SetUp "1"`` without a FEN, a GameType other
    than 21, or a ``Result`` tag that the movetext's result contradicts."""


class PdnMoveError(PdnGameError):
    """A move the engine refuses (or cannot read as a move).

    Attributes:
        move_number: the move's number (as the file numbers it; Black's move and White's reply
            share one).
        side: the side whose move it was.
        move_text: the move as written.
    """

    def __init__(
        self, game: int, line: int, move_number: int, side: Color, move_text: str, reason: str
    ) -> None:
        self.move_number = move_number
        self.side = side
        self.move_text = move_text
        super().__init__(game, line, reason)

    def _describe(self) -> str:
        reason = self.reason
        shown = clip_text(self.move_text)
        if shown not in reason:
            reason = f"{shown}: {reason}"
        where = f"game {self.game}, line {self.line}, move {self.move_number} ({self.side})"
        return f"{where}: {reason}"


class PdnReplayError(PdnError):
    """A recorded game that :class:`checkers.Game` cannot hold whole: our rules ended it (a
    draw by repetition or the 40-move rule) before the record does."""


# ---------------------------------------------------------------------------- games


@dataclass(frozen=True, eq=False)
class PdnGame:
    """One game of a PDN file: what was read, and whether all of it could be.

    Attributes:
        tags: the tag pairs in file order (names as written, values unescaped).
        start: the starting position (from ``FEN``, else the standard start).
        moves: the moves, each with its full path; when ``error`` is set, those read before it.
        result: ``"1-0"`` (Black won), ``"0-1"`` (White won), ``"1/2-1/2"`` or ``"*"``: the
            movetext's terminator, else the ``Result`` tag, else ``"*"``.
        error: None when the whole game was read, else the first problem found.
        number: the game's number in its file, 1-based.
        line: the line the game begins on.
        positions: ``positions[i]`` is the position before ``moves[i]``; one longer than
            ``moves``. Computed from ``start`` and ``moves`` when not given.
        terminated: whether the movetext ended with a result (PDN 3.0 asks for one; a game
            read without it, at the end of a file, may have been cut short).

    Raises:
        IllegalMoveError: when built by hand with ``moves`` that are not legal from ``start``.
    """

    tags: dict[str, str]
    start: Position
    moves: tuple[Move, ...]
    result: str = UNKNOWN
    error: PdnGameError | None = None
    number: int = 1
    line: int = 1
    positions: tuple[Position, ...] = field(default=(), repr=False)
    terminated: bool = True

    def __post_init__(self) -> None:
        if len(self.positions) != len(self.moves) + 1:
            positions = [self.start]
            for move in self.moves:
                positions.append(apply_move(positions[-1], move))
            object.__setattr__(self, "positions", tuple(positions))

    @classmethod
    def from_game(cls, game: Game, tags: Mapping[str, str] | None = None) -> PdnGame:
        """The PDN record of a :class:`checkers.Game`: its start, moves and result, with
        ``tags``.

        The result is the game's outcome when it is over, else the ``Result`` tag, else
        ``"*"``.

        Raises:
            PdnError: when ``tags`` has a ``Result`` that contradicts the game's outcome, or
                one that is not a result.
        """
        given = dict(tags or {})
        tagged = _tag(given, "Result")
        result = _normal_result(tagged) if tagged is not None else None
        if tagged is not None and result is None:
            raise PdnError(f"Result tag {tagged!r} is not 1-0, 0-1, 1/2-1/2 or *")
        if game.outcome is not None:
            if result not in (None, UNKNOWN, game.outcome.result):
                raise PdnError(
                    f"the Result tag says {tagged} but the game ended {game.outcome.result}"
                    f" ({game.outcome})"
                )
            result = game.outcome.result
        return cls(
            tags=given,
            start=game.start,
            moves=tuple(game.moves),
            result=result or UNKNOWN,
            positions=tuple(game.positions),
        )

    @property
    def ok(self) -> bool:
        """True when the whole game was read (no ``error``)."""
        return self.error is None

    @property
    def end(self) -> Position:
        """The position after the last move read."""
        return self.positions[-1]

    @property
    def plies(self) -> int:
        """The number of moves of either side (``len(moves)``)."""
        return len(self.moves)

    @property
    def move_count(self) -> int:
        """The number of moves as PDN numbers them: a Black move and White's reply share a
        number (``1. 11-15 23-18 2. 8-11`` is 2 moves, 3 plies); a game from a FEN with White
        to move starts ``1...``."""
        if not self.moves:
            return 0
        first = 1 if self.start.turn is WHITE else 0
        return (len(self.moves) + first + 1) // 2

    def to_game(self, *, stop_at_draw: bool = False, draws: DrawMode = "automatic") -> Game:
        """A :class:`checkers.Game` that replays this record, its outcome built where it fits.

        When the moves leave the game running, a decisive result becomes the loser's
        resignation (``1-0``: White resigned) and ``1/2-1/2`` a draw by agreement (the side
        to move offers it, the other accepts); ``*`` leaves the game running. When the moves
        end the game by our rules (no legal move, a repetition or the 40-move rule), the
        game's own outcome stands, whatever the result says.

        Args:
            stop_at_draw: when our rules draw the game (threefold repetition, the 40-move
                rule) before the record ends, return the game drawn there instead of raising.
            draws: the game's draw mode (:class:`checkers.Game`): ``"claim"`` reads a game
                that went on past an unclaimed repetition or 40 quiet moves whole, as the
                players did (only the program's own bounds, fivefold repetition and 80 quiet
                moves each, end it by themselves).

        Raises:
            PdnGameError: this game's ``error``, when it was not read whole.
            PdnReplayError: when our rules end the game before its last recorded move (and
                ``stop_at_draw`` is False).
            ValueError: for a ``draws`` that is not a draw mode.
        """
        if self.error is not None:
            raise self.error
        game = Game(self.start, draws=draws)
        for index, move in enumerate(self.moves):
            if game.outcome is not None:
                if stop_at_draw:
                    return game
                raise PdnReplayError(
                    f"game {self.number}: {game.outcome} after {index} moves, but the record "
                    f"goes on with {len(self.moves) - index} more ({move} next)"
                )
            game.play(move)
        if game.outcome is None:
            if self.result == BLACK_WINS:
                game.resign(WHITE)
            elif self.result == WHITE_WINS:
                game.resign(BLACK)
            elif self.result == DRAW:
                game.offer_draw(game.turn)
                game.accept_draw(game.turn.opponent)
        return game


# ---------------------------------------------------------------------------- reading

_TAG: Final = re.compile(r'\[[ \t]*([A-Za-z0-9_]+)[ \t]*"((?:[^"\\\n]|\\.)*)"[ \t]*\]')
_UNESCAPE: Final = re.compile(r"\\([\"\\])")
_TOKEN: Final = re.compile(
    r"""
      (?P<space>\s+)
    | (?P<line_comment>;[^\n]*)
    | (?P<open>\()
    | (?P<close>\))
    | (?P<result>1/2-1/2|1-0|0-1|2-0|0-2|1-1|\*)(?![\w/.\-:])
    | (?P<number>\d+\.{1,3})
    | (?P<move>\d{1,2}(?:[-xX:]\d{1,2})+)(?:[!?]{1,2})?(?=[\s(){};$\[\]*]|\Z)
    | (?P<nag>\$\d+)
    | (?P<mark>[!?]{1,2})(?=[\s(){};$\[\]*]|\Z)
    | (?P<ellipsis>\.{2,3})
    | (?P<garbage>[^\s{}()\[\];]+|[}\]])
    """,
    re.VERBOSE,
)
_NEXT_TAG_LINE: Final = re.compile(r"\n[ \t]*\[")


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str
    text: str
    line: int


def _tokens(text: str) -> Iterator[_Token]:
    """The tokens of a PDN text; problems come as ``bad_tag`` and ``bad_comment`` tokens.

    An unterminated comment is reported on the line it opens, and reading goes on at the next
    line that starts with ``[`` (the next game's tags), so the rest of the file still loads.
    """
    newlines = [i for i, char in enumerate(text) if char == "\n"]

    def line_of(offset: int) -> int:
        return bisect.bisect_left(newlines, offset) + 1

    pos, size = 0, len(text)
    while pos < size:
        char = text[pos]
        if char == "[":
            tag = _TAG.match(text, pos)
            if tag is None:
                end = text.find("\n", pos)
                end = size if end < 0 else end
                yield _Token("bad_tag", text[pos:end].strip(), line_of(pos))
                pos = end
            else:
                yield _Token("tag", tag.group(0), line_of(pos))
                pos = tag.end()
        elif char == "{":
            end = text.find("}", pos + 1)
            if end < 0:
                yield _Token("bad_comment", text[pos : pos + 20], line_of(pos))
                resume = _NEXT_TAG_LINE.search(text, pos)
                pos = size if resume is None else resume.start() + 1
            else:
                yield _Token("comment", text[pos + 1 : end], line_of(pos))
                pos = end + 1
        else:
            match = _TOKEN.match(text, pos)
            if match is None:  # pragma: no cover - the garbage branch matches any character
                yield _Token("garbage", char, line_of(pos))
                pos += 1
                continue
            kind = match.lastgroup or "garbage"
            if kind != "space":
                value = match.group(kind) if kind == "move" else match.group(0)
                yield _Token(kind, value, line_of(pos))
            pos = match.end()


def _tag_name(token: _Token) -> str:
    """The name of a ``tag`` token."""
    return token.text[1:].lstrip(" \t").split('"', 1)[0].rstrip(" \t")


def _tag(tags: Mapping[str, str], name: str) -> str | None:
    """A tag's value, the name matched without regard to case (``Setup`` is ``SetUp``)."""
    wanted = name.lower()
    for key, value in tags.items():
        if key.lower() == wanted:
            return value
    return None


def _normal_result(text: str) -> str | None:
    """The result code a result text stands for, None when it is not one."""
    text = text.strip()
    if text in RESULTS:
        return text
    return RESULT_ALIASES.get(text)


class _GameReader:
    """The state of one game while its tokens come in."""

    def __init__(self, number: int, line: int) -> None:
        self.number = number
        self.line = line
        self.tags: dict[str, str] = {}
        self.tag_lines: dict[str, int] = {}
        self.moves: list[Move] = []
        self.positions: list[Position] = []
        self.error: PdnGameError | None = None
        self.terminator: tuple[str, int] | None = None
        self.in_movetext = False
        self.depth = 0
        self.variation_line = 0
        self.move_number = 1

    # -------------------------------------------------------------- state

    @property
    def empty(self) -> bool:
        return not self.tags and not self.moves and self.error is None

    def fail(self, error: PdnGameError) -> None:
        if self.error is None:
            self.error = error

    def syntax(self, line: int, reason: str) -> None:
        self.fail(PdnSyntaxError(self.number, line, reason))

    # -------------------------------------------------------------- tokens

    def add_tag(self, token: _Token) -> None:
        match = _TAG.fullmatch(token.text)
        assert match is not None
        name, value = match.group(1), _UNESCAPE.sub(r"\1", match.group(2))
        self.tags[name] = value
        self.tag_lines[name] = token.line

    def begin_movetext(self) -> None:
        """Set up the start position from the tags, once, at the first movetext token."""
        if self.in_movetext:
            return
        self.in_movetext = True
        self.positions = [self._start()]

    def _start(self) -> Position:
        game_type = _tag(self.tags, "GameType")
        if game_type is not None and game_type.split(",")[0].strip() != GAME_TYPE:
            self._tag_error("GameType", f"GameType {game_type!r} is not American checkers (21)")
        fen = _tag(self.tags, "FEN")
        setup = _tag(self.tags, "SetUp")
        if fen is None:
            if setup is not None and setup.strip() == "1":
                self._tag_error("SetUp", 'SetUp "1" but no FEN tag gives the position')
            return Position.start()
        try:
            position = Position.from_fen(fen)
        except CheckersError as error:
            self._tag_error("FEN", str(error))
            return Position.start()
        return position

    def _tag_line(self, name: str) -> int:
        """The line of the tag ``name`` (any case), else the game's first line."""
        return next(
            (n for key, n in self.tag_lines.items() if key.lower() == name.lower()), self.line
        )

    def _tag_error(self, name: str, reason: str) -> None:
        self.fail(PdnTagError(self.number, self._tag_line(name), reason))

    def play(self, token: _Token) -> None:
        if self.depth or self.error is not None:
            return
        position = self.positions[-1]
        try:
            move = parse_move(position, token.text)
        except CheckersError as error:
            self.fail(
                PdnMoveError(
                    self.number, token.line, self.move_number, position.turn, token.text, str(error)
                )
            )
            return
        self.moves.append(move)
        self.positions.append(apply_move(position, move))
        if position.turn is WHITE:
            self.move_number += 1

    def set_number(self, token: _Token) -> None:
        if self.depth == 0 and self.error is None:
            self.move_number = int(token.text.rstrip("."))

    def finish(self) -> PdnGame:
        if not self.in_movetext:
            self.begin_movetext()
        if self.depth:
            self.syntax(self.variation_line, "a variation '(' is never closed")
        tagged = _tag(self.tags, "Result")
        tag_result = _normal_result(tagged) if tagged is not None else None
        if tagged is not None and tag_result is None:
            self._tag_error("Result", f"Result tag {tagged!r} is not 1-0, 0-1, 1/2-1/2 or *")
        result = tag_result or UNKNOWN
        if self.terminator is not None:
            text, line = self.terminator
            written = _normal_result(text) or UNKNOWN
            if tag_result not in (None, written) and self.error is None:
                self.fail(
                    PdnTagError(
                        self.number,
                        line,
                        f"the movetext ends with {text} but the Result tag says {tagged}",
                    )
                )
            result = written
        self._check_decided(result)
        return PdnGame(
            tags=self.tags,
            start=self.positions[0],
            moves=tuple(self.moves),
            result=result,
            error=self.error,
            number=self.number,
            line=self.line,
            positions=tuple(self.positions),
            terminated=self.terminator is not None,
        )

    def _check_decided(self, result: str) -> None:
        """A game whose moves leave the side to move without a legal move is won by the other
        side: a result that says otherwise (not ``*``) is refused."""
        if self.error is not None or result == UNKNOWN or not self.positions:
            return
        end = self.positions[-1]
        if legal_moves(end):
            return
        winner = end.turn.opponent
        decided = BLACK_WINS if winner is BLACK else WHITE_WINS
        if result != decided:
            line = (self.terminator[1] if self.terminator is not None
                    else self._tag_line("Result"))
            self.fail(PdnTagError(
                self.number, line,
                f"the result says {result}, but {end.turn} has no legal move "
                f"{'after the moves' if self.moves else 'from the start'}: {winner} won "
                f"({decided})"))


def _read_games(text: str) -> Iterator[PdnGame]:
    count = 0
    current: _GameReader | None = None

    def finished(reader: _GameReader | None) -> Iterator[PdnGame]:
        nonlocal count
        if reader is not None and not reader.empty:
            count += 1
            yield reader.finish()

    for token in _tokens(text):
        kind = token.kind
        if kind in ("tag", "bad_tag"):
            if current is not None and current.depth:
                current.syntax(current.variation_line, "a variation '(' is never closed")
            if (
                current is None
                or current.in_movetext
                or current.terminator is not None
                or (kind == "tag" and _tag_name(token) in current.tags)
            ):  # a tag after movetext, or one given again, begins the next game
                yield from finished(current)
                current = _GameReader(count + 1, token.line)
            if kind == "tag":
                current.add_tag(token)
            else:
                current.syntax(token.line,
                               f'a tag that is not [Name "value"]: {clip_text(token.text)!r}')
            continue
        if current is None or current.terminator is not None:
            yield from finished(current)
            current = _GameReader(count + 1, token.line)
        if kind in ("comment", "line_comment", "nag", "mark", "ellipsis"):
            continue  # annotations: neither start the movetext nor end the tags
        current.begin_movetext()
        if kind == "bad_comment":
            current.syntax(token.line, "a comment '{' is never closed")
        elif kind == "open":
            current.depth += 1
            if current.depth == 1:
                current.variation_line = token.line
        elif kind == "close":
            if current.depth:
                current.depth -= 1
            else:
                current.syntax(token.line, "')' closes no variation")
        elif current.depth:
            continue  # variations are skipped, whatever they hold
        elif kind == "result":
            current.terminator = (token.text, token.line)
        elif kind == "number":
            current.set_number(token)
        elif kind == "move":
            current.play(token)
        else:
            current.syntax(token.line,
                           f"{clip_text(token.text)!r} is not a move, move number or result")
    yield from finished(current)


def decode(data: bytes) -> str:
    """The text of a PDN file's bytes: UTF-16 when it starts with that byte order mark,
    else UTF-8 (a UTF-8 byte order mark dropped), else Windows-1252, the encoding of the
    older checkers archives' Latin names (every byte reads as some character).

    Raises:
        PdnError: UTF-16 bytes that do not decode (an odd length, a broken surrogate), or
            binary data rather than text (:func:`is_binary`).
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as error:
            raise PdnError(f"not a PDN text: it starts as UTF-16 but is not ({error.reason} "
                           f"at byte {error.start})") from None
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("cp1252", errors="replace")
    if is_binary(text):
        raise PdnError("not a PDN text: the file holds binary data, not text")
    return text


def read_pdn(source: str | TextIO) -> list[PdnGame]:
    """Every game of a PDN text (PDN 3.0, American checkers), each checked move by move.

    Args:
        source: the PDN text itself, or a text file handle (read to its end; the caller opens
            and closes it).

    Returns:
        One :class:`PdnGame` per game, in file order, numbered from 1. A game that cannot be
        read whole is still there, with ``error`` set and the moves read before the problem;
        the other games load as usual. Text holding no game gives ``[]``.

    Raises:
        PdnError: only when the source cannot be read at all (an I/O or decoding error, a
            binary handle, something that is neither text nor a handle).
    """
    if isinstance(source, str):
        text = source
    else:
        try:
            text = source.read()
        except (OSError, UnicodeError, ValueError, AttributeError, TypeError) as error:
            raise PdnError(f"cannot read the PDN source: {error}") from error
        if not isinstance(text, str):
            raise PdnError(
                f"cannot read the PDN source: it gave {type(text).__name__}, not text "
                "(open the file in text mode)"
            )
    return list(_read_games(text.removeprefix("\ufeff")))


def is_binary(text: str) -> bool:
    """Whether ``text`` is binary data read as text: a NUL, or more than one character in 20
    of its start (and more than 4) a control character or a byte that was no character
    (U+FFFD)."""
    sample = text[:4096]
    odd = sum(1 for ch in sample if ch == "\ufffd" or (ch < " " and ch not in "\t\n\r\f\v"))
    return "\x00" in sample or odd > max(len(sample) // 20, 4)


def read_pdn_game(text: str) -> PdnGame:
    """The one game of a PDN text, read whole.

    Raises:
        PdnGameError: the game's error when it cannot be read whole.
        PdnError: when the text holds no game or more than one.
    """
    games = read_pdn(text)
    if len(games) != 1:
        raise PdnError(f"expected one game, found {len(games)}")
    if games[0].error is not None:
        raise games[0].error
    return games[0]


# ---------------------------------------------------------------------------- writing

_TAG_NAME: Final = re.compile(r"[A-Za-z0-9_]+")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _ordered_tags(record: PdnGame) -> list[tuple[str, str]]:
    given = {key: value for key, value in record.tags.items()}
    canonical = {key.lower(): key for key in given}
    for name in ("Result", "GameType", "SetUp", "FEN"):
        key = canonical.get(name.lower())
        if key is not None:
            del given[key]
    out: list[tuple[str, str]] = []
    for name in ROSTER:
        key = next((k for k in given if k.lower() == name.lower()), None)
        if name == "Result":
            out.append(("Result", record.result))
        elif key is not None:
            out.append((key, given.pop(key)))
    out.append(("GameType", GAME_TYPE))
    if record.start != Position.start():
        out.append(("SetUp", "1"))
        out.append(("FEN", record.start.fen()))
    out.extend(given.items())
    for name, value in out:
        if not _TAG_NAME.fullmatch(name):
            raise PdnError(f"tag name {name!r} is not letters, digits and '_'")
        if "\n" in value or "\r" in value:
            raise PdnError(f"tag {name}: the value {value!r} holds a line break")
    return out


def _movetext_units(record: PdnGame) -> list[str]:
    units: list[str] = []
    number = 1
    for index, (move, before) in enumerate(zip(record.moves, record.positions, strict=False)):
        if before.turn is BLACK:
            units.append(f"{number}. {move}")
        elif index == 0:
            units.append(f"{number}... {move}")
        else:
            units.append(str(move))
        if before.turn is WHITE:
            number += 1
    units.append(record.result)
    return units


def _wrap(units: Sequence[str], width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for unit in units:
        if line and len(line) + 1 + len(unit) > width:
            lines.append(line)
            line = unit
        else:
            line = f"{line} {unit}" if line else unit
    if line:
        lines.append(line)
    return lines


def write_pdn(
    game: PdnGame | Game, tags: Mapping[str, str] | None = None, *, width: int = LINE_WIDTH
) -> str:
    """One game as PDN 3.0 text (American checkers), ending with a newline.

    Args:
        game: a record read by :func:`read_pdn`, or a :class:`checkers.Game` (its result is
            its outcome, else the ``Result`` tag, else ``*``).
        tags: tag pairs to write; for a :class:`PdnGame` they are added to (and override) its
            own. ``Result``, ``GameType``, ``SetUp`` and ``FEN`` are written from the game,
            whatever these say (``Setup`` becomes ``SetUp``).
        width: the longest movetext line (a move number stays with its move).

    Returns:
        The tags (Event, Site, Date, Round, Black, White, Result in that order, those given;
        then GameType "21"; SetUp "1" and FEN when the start is not the standard start; then
        the others in their order), a blank line, the numbered moves with full paths and the
        result.

    Raises:
        PdnError: for a :class:`PdnGame` that was not read whole, a tag name that is not
            letters, digits and ``_``, a value holding a line break, or a ``Result`` tag that
            contradicts a finished game's outcome.
    """
    if isinstance(game, Game):
        record = PdnGame.from_game(game, tags)
    else:
        if game.error is not None:
            raise PdnError(f"game {game.number} was not read whole ({game.error}): not written")
        record = game
        if tags:
            merged = {**game.tags}
            for key, value in tags.items():
                for old in [k for k in merged if k.lower() == key.lower()]:
                    del merged[old]
                merged[key] = value
            tagged = _tag(tags, "Result")
            result = _normal_result(tagged) if tagged is not None else game.result
            if result is None:
                raise PdnError(f"Result tag {tagged!r} is not 1-0, 0-1, 1/2-1/2 or *")
            record = PdnGame(
                merged, game.start, game.moves, result, positions=game.positions, number=game.number
            )
    head = [f'[{name} "{_escape(value)}"]' for name, value in _ordered_tags(record)]
    body = _wrap(_movetext_units(record), width)
    return "\n".join([*head, "", *body]) + "\n"


def write_pdn_games(
    games: Iterable[PdnGame | Game], target: TextIO | None = None, *, width: int = LINE_WIDTH
) -> str:
    """Many games as one PDN file: each as :func:`write_pdn` writes it, a blank line between.

    Args:
        games: records or :class:`checkers.Game` objects (the latter without tags beyond
            Result and GameType; use :meth:`PdnGame.from_game` to give them tags).
        target: a text handle to write the file to as well (the caller opens and closes it).
        width: the longest movetext line.

    Returns:
        The whole file's text.

    Raises:
        PdnError: as :func:`write_pdn` does, for the first game that cannot be written.
    """
    text = "\n".join(write_pdn(game, width=width) for game in games)
    if target is not None:
        target.write(text)
    return text


__all__ = [
    "BLACK_WINS",
    "DRAW",
    "GAME_TYPE",
    "RESULTS",
    "RESULT_ALIASES",
    "ROSTER",
    "UNKNOWN",
    "WHITE_WINS",
    "PdnGame",
    "PdnGameError",
    "PdnMoveError",
    "PdnReplayError",
    "PdnSyntaxError",
    "PdnTagError",
    "decode",
    "is_binary",
    "read_pdn",
    "read_pdn_game",
    "write_pdn",
    "write_pdn_games",
]
