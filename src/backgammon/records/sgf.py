"""GNU Backgammon's SGF match files (``GM[6]``): read, replay, write.

Source: the Smart Game Format, FF[4] (https://www.red-bean.com/sgf/), and how GNU Backgammon
1.07 writes and reads backgammon in it (``save match``, ``load match``)::

    (;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:5][game:0][ws:0][bs:0]
      PW[gnubg]PB[root]RU[Crawford]RE[W+2]
    ;B[31qtst]            player 1 (Black) rolls 3-1 and moves q->t, s->t
    ;W[63xrro]
    ;B[double]            cube actions; a double answered by a double is a beaver
    ;W[take]
    ;B[11]                a roll that cannot be played
    ;PL[B]DI[65]          a roll with no play: the player resigned after rolling
    ;W[drop])
    (;FF[4]GM[6]...MI[length:5][game:1][ws:2][bs:0]...)     one game tree per game

* One game tree per game. Its root holds the match information: ``MI`` (``length``, 0 for
  money play; ``game``, counted from 0; ``ws``/``bs``, the score before the game), ``PW`` and
  ``PB`` (the names of player 0, White, and player 1, Black), ``RU`` (``Crawford``,
  ``CrawfordGame``, ``Jacoby``, ``NoCube``; and this project's ``Beaver`` and ``NoGammons``
  for money play with beavers and play without gammons, which other programs read past),
  ``RE`` (the result: ``W+2``; ``B+3R`` when the loser resigned or forfeited).
* ``W`` and ``B`` are the moves of White (player 0, the first name, the left column of a
  ``.mat``) and Black. A roll is the two dice, then two letters per checker moved by one die:
  ``a``..``x`` the points, ``y`` the bar, ``z`` off. White's letter ``a`` is its own 1-point,
  Black's letter ``a`` its own 24-point (the points are lettered from White's side).
* Analysis (``A``, ``DA``, ``LU``, ``GS``, ``MR``, ...), comments (``C``) and other properties
  are read past. A position set up by hand (``AB``, ``AW``, ``AE``, or ``CV``/``CP`` in a move
  node) is refused: a match record starts every game from the starting position.

:func:`read_and_replay_sgf` reads the file and plays every entry through the rules as it is
read (the model and the replay of :mod:`backgammon.records.transcript`, as for ``.mat``), so
the first problem is the one reported, with its line; nothing is returned half-imported.
:func:`format_sgf` writes a match the way GNU Backgammon does, and GNU Backgammon loads it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TextIO

from backgammon.core.game import Game
from backgammon.core.match import Match
from backgammon.core.types import BAR, OFF, WHITE
from backgammon.records.mat import MatParseError, MatWriteError, source_text
from backgammon.records.transcript import (
    MARK_UNKNOWN,
    MatAction,
    MatchReplayer,
    MatGame,
    MatRecord,
    MatReplay,
    TranscriptError,
    TranscriptParseError,
    TranscriptReplayError,
    number_of,
    quoted,
)

__all__ = [
    "SgfError",
    "SgfParseError",
    "SgfReplayError",
    "format_sgf",
    "read_and_replay_sgf",
    "read_sgf_or_mat",
    "write_sgf",
]

#: The SGF game number of backgammon.
BACKGAMMON_GM = "6"
#: What this writer calls itself in ``AP``.
_APPLICATION = "backgammon"
_LETTERS = "abcdefghijklmnopqrstuvwx"
_BAR_LETTER = "y"
_OFF_LETTER = "z"
_MOVE = re.compile(r"^([1-6])([1-6])([a-z]*)$")
_RESULT = re.compile(r"^([WB])\+([0-9]+)(R?)(.*)$", re.IGNORECASE | re.DOTALL)
#: Properties that set up a position by hand.
_SETUP = ("AB", "AW", "AE")


class SgfError(TranscriptError):
    """A problem with an SGF file, at a line.

    Attributes:
        line: the 1-based line number (None when the problem is not at one line).
        detail: the message without the ``"line N: "`` prefix.
    """


class SgfParseError(SgfError, TranscriptParseError):
    """Text that is not a GNU Backgammon SGF file: bad SGF syntax, a game that is not
    backgammon (``GM`` other than 6), a move that cannot be read."""


class SgfReplayError(SgfError, TranscriptReplayError):
    """An SGF file that reads but is not a legal match: a play, cube action or result the
    rules refuse."""


# --------------------------------------------------------------------------------------------
# SGF syntax


@dataclass(frozen=True, slots=True)
class _Node:
    """One node: its line and its properties (identifier -> values), in file order."""

    line: int
    properties: dict[str, list[str]]


@dataclass(frozen=True, slots=True)
class _Event:
    """What the tokenizer reads: a game tree opening (``"("``), a node, or a tree closing."""

    kind: str
    line: int
    node: _Node | None = None


def _events(text: str) -> Iterator[_Event]:
    """The SGF of ``text`` as a stream of tree openings, nodes and closings.

    Raises:
        SgfParseError: text outside the SGF grammar, with its line.
    """
    i = 0
    line = 1
    n = len(text)
    node: _Node | None = None
    ident: str | None = None
    while i < n:
        char = text[i]
        if char == "\n":
            line += 1
            i += 1
            continue
        if char.isspace():
            i += 1
            continue
        if char == "[":
            if node is None or ident is None:
                raise SgfParseError(line, "a property value '[' with no property name before "
                                          "it")
            start_line = line
            value: list[str] = []
            i += 1
            while True:
                if i >= n:
                    raise SgfParseError(start_line, f"the value of {ident} is not closed "
                                                    "with ']'")
                c = text[i]
                if c == "\\" and i + 1 < n:
                    nxt = text[i + 1]
                    if nxt == "\n":
                        line += 1  # a soft line break: removed
                    else:
                        value.append(nxt)
                    i += 2
                    continue
                if c == "]":
                    i += 1
                    break
                if c == "\n":
                    line += 1
                value.append(c)
                i += 1
            node.properties.setdefault(ident, []).append("".join(value))
            continue
        if char.isalpha() and char.isupper():
            j = i
            while j < n and text[j].isalpha():
                j += 1
            word = text[i:j]
            if node is None:
                raise SgfParseError(line, f"property {quoted(word)} outside a node (expected ';' "
                                          "first)")
            if not word.isupper():
                # FF[3] allowed lower-case letters in identifiers: keep the capitals.
                word = "".join(c for c in word if c.isupper())
            ident = word
            i = j
            continue
        if char in "(;)":
            if node is not None:
                yield _Event("node", node.line, node)
                node = None
                ident = None
            if char == ";":
                node = _Node(line, {})
            else:
                yield _Event("open" if char == "(" else "close", line)
            i += 1
            continue
        raise SgfParseError(line, f"unexpected {quoted(text[i:i + 20].splitlines()[0])}: expected "
                                  "'(', ';', a property like B[31qtst], or ')'")
    if node is not None:
        yield _Event("node", node.line, node)


# --------------------------------------------------------------------------------------------
# Reading


def read_and_replay_sgf(source: str | bytes | TextIO | os.PathLike[str]) -> MatReplay:
    """Read a GNU Backgammon SGF match file and play it through the rules in one pass.

    Args:
        source: the text itself (a ``str``, or UTF-8 ``bytes``), an open file, or a path.

    Returns:
        The :class:`~backgammon.records.transcript.MatReplay` (the same as a ``.mat`` file
        of the match gives): ``record`` holds each game's entries, ``match`` the games.

    Raises:
        SgfParseError: the first problem is text that is not a backgammon SGF file.
        SgfReplayError: the first problem is an entry the rules refuse.
    """
    try:
        text = source_text(source)
    except MatParseError as exc:  # (the shared reading of a source, in this format's error)
        raise SgfParseError(exc.line, exc.detail) from None
    reader = _Reader(text)
    return reader.run()


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.replayer: MatchReplayer | None = None
        self.warnings: list[str] = []
        self.games: list[MatGame] = []
        self.names: tuple[str, str] | None = None
        self.length: int | None = None
        self.tags: dict[str, str] = {}
        # the game being read
        self.depth = 0
        self.main: list[bool] = []
        self.children: list[int] = []
        self.root: _Node | None = None
        self.game_line = 0
        self.actions: list[MatAction] = []
        self.result: MatAction | None = None
        self.double_pending = False

    def run(self) -> MatReplay:
        try:
            for event in _events(self.text):
                self.event(event)
        except SgfParseError:
            if self.replayer is not None:
                self.replayer.before_parse_error()
            raise
        if self.depth:
            raise SgfParseError(None, "the file ends inside a game tree (a ')' is missing)")
        if not self.games:
            raise SgfParseError(None, "no backgammon game (GM[6]) found: not a GNU Backgammon "
                                      "SGF file")
        assert self.replayer is not None and self.names is not None
        record = MatRecord(self.length, self.names, tuple(self.games), (),
                           tuple(self.warnings), dict(self.tags))
        return self.replayer.finish(record)

    def event(self, event: _Event) -> None:
        if event.kind == "open":
            if self.depth == 0:
                self.main = [True]
                self.children = [0]
                self.root = None
            else:
                first = self.children[-1] == 0
                self.children[-1] += 1
                if not first and self.main[-1]:
                    self.warnings.append(f"line {event.line}: a variation: only the main line "
                                         "is read")
                self.main.append(self.main[-1] and first)
                self.children.append(0)
            self.depth += 1
            return
        if event.kind == "close":
            if self.depth == 0:
                raise SgfParseError(event.line, "')' with no game tree open")
            self.depth -= 1
            self.main.pop()
            self.children.pop()
            if self.depth == 0:
                if self.root is None:
                    raise SgfParseError(event.line, "an empty game tree '()': a game starts "
                                                    "with its root node (;GM[6]...)")
                self.end_game(event.line)
            return
        node = event.node
        assert node is not None
        if self.depth == 0:
            raise SgfParseError(event.line, "a node outside a game tree (expected '(' first)")
        if not self.main[-1]:
            return
        if self.root is None:
            self.begin_game(node)
        else:
            self.move_node(node)

    # ----------------------------------------------------------------------------------------

    def begin_game(self, root: _Node) -> None:
        props = root.properties
        line = root.line
        if "GM" not in props:
            raise SgfParseError(line, "no GM[...] property, which SGF reads as GM[1] (Go): "
                                      "not a backgammon SGF file (GM[6])")
        game_type = _value(props, "GM", "1")
        if game_type != BACKGAMMON_GM:
            raise SgfParseError(line, f"GM[{game_type}] is not backgammon (GM[6]): not a "
                                      "backgammon SGF file")
        for setup in _SETUP:
            if setup in props:
                raise SgfParseError(line, f"{setup}[...] sets up a position: a match record "
                                          "starts every game from the starting position")
        info = _match_info(props.get("MI", []), line)
        rules = {rule.strip() for rule in _value(props, "RU", "").split(":") if rule.strip()}
        for variant in ("Nackgammon", "Hypergammon1", "Hypergammon2", "Hypergammon3"):
            if variant in rules:
                raise SgfParseError(line, f"RU[{_value(props, 'RU', '')}]: {variant} is not "
                                          "backgammon")
        length = info.get("length", 0)
        names = (_value(props, "PW", "White") or "White", _value(props, "PB", "Black") or "Black")
        number = info.get("game", len(self.games)) + 1
        score = (info.get("ws", 0), info.get("bs", 0))
        if self.replayer is None:
            self.length = length
            self.names = names
            if "Jacoby" in rules:
                self.tags["Jacoby"] = "On"
            for rule in ("NoCube", "NoGammons", "Beaver"):
                if rule in rules:
                    self.tags[rule] = "On"
            cube = "NoCube" not in rules
            self.replayer = MatchReplayer(
                length, SgfReplayError, jacoby="Jacoby" in rules and cube,
                beavers=cube and not length and ("Beaver" in rules or _has_beaver(self.text)),
                cube=cube, gammons="NoGammons" not in rules)
        else:
            if length != self.length:
                raise SgfParseError(line, f"MI[length:{length}] in game {number}, but the "
                                          f"match is to {self.length}")
            if names != self.names:
                self.warnings.append(f"line {line}: the players are named {names[0]!r} and "
                                     f"{names[1]!r} here, {self.names!r} before")
        self.root = root
        self.game_line = line
        self.actions = []
        self.result = None
        self.double_pending = False
        result = _value(props, "RE", "")
        if result:
            found = _RESULT.match(result)
            if not found:
                self.warnings.append(f"line {line}: RE[{result}] is not a result like W+2 "
                                     "or B+3R: ignored")
            else:
                winner = 0 if found.group(1).upper() == "W" else 1
                try:
                    won = number_of(found.group(2), "the points won")
                except ValueError as exc:
                    raise SgfParseError(line, f"RE[...]: {exc}") from None
                self.result = MatAction(line, winner, "win", value=won)
                if found.group(4).strip():
                    self.warnings.append(f"line {line}: RE[{result[:40]}]: "
                                         f"{quoted(found.group(4).strip(), 20)} after the "
                                         "result ignored")
        # gnubg writes RU[Crawford] in a match played with the rule, and adds :CrawfordGame
        # in the Crawford game itself
        crawford = "CrawfordGame" in rules if "Crawford" in rules else None
        self.replayer.begin_game(number, line, names, score, crawford, score_line=line)

    def move_node(self, node: _Node) -> None:
        props = node.properties
        line = node.line
        for setup in (*_SETUP, "CV", "CP"):
            if setup in props:
                raise SgfParseError(line, f"{setup}[{props[setup][0]}] sets the position or the "
                                          "cube by hand: not a match record")
        movers = [(color, props[color][0]) for color in ("W", "B") if color in props]
        if len(movers) > 1:
            raise SgfParseError(line, "a node with moves for both W and B")
        if movers:
            color, value = movers[0]
            if len(props[color]) > 1:
                self.warnings.append(f"line {line}: {color} has {len(props[color])} values: "
                                     "only the first, the move, is read")
            self.add(self.action(line, 0 if color == "W" else 1, value.strip()))
            return
        if "DI" in props:
            # Dice set for the player on roll, with no move: the player resigned after rolling.
            dice = props["DI"][0].strip()
            who = _value(props, "PL", "")
            if not re.fullmatch(r"[1-6][1-6]", dice) or who.upper() not in ("W", "B"):
                raise SgfParseError(line, f"DI[{dice}] with PL[{who}]: expected a roll like "
                                          "DI[65] and PL[W] or PL[B]")
            player = 0 if who.upper() == "W" else 1
            self.add(MatAction(line, player, "roll", (int(dice[0]), int(dice[1])),
                               mark=MARK_UNKNOWN))

    def action(self, line: int, player: int, value: str) -> MatAction:
        word = value.lower()
        if word == "double":
            kind = "beaver" if self.double_pending else "double"
            self.double_pending = True
            return MatAction(line, player, kind)
        if word in ("take", "drop"):
            self.double_pending = False
            return MatAction(line, player, word)
        move = _MOVE.match(value)
        if not move:
            raise SgfParseError(line, f"cannot read the move {quoted(value)}: expected the dice "
                                      "and two letters a-z per checker moved (like 31qtst), "
                                      "double, take or drop")
        self.double_pending = False
        letters = move.group(3)
        if len(letters) % 2 or len(letters) > 8:
            raise SgfParseError(line, f"the move {quoted(value)} has {len(letters)} letters: "
                                      "expected two per checker moved, at most four moves")
        steps = []
        for k in range(0, len(letters), 2):
            try:
                start = _point(letters[k], player)
                end = _point(letters[k + 1], player)
            except ValueError as exc:
                raise SgfParseError(line, f"the move {quoted(value)}: {exc}") from None
            steps.append(f"{_name(start)}/{_name(end)}")
        return MatAction(line, player, "roll", (int(move.group(1)), int(move.group(2))),
                         " ".join(steps))

    def add(self, action: MatAction) -> None:
        assert self.replayer is not None
        self.actions.append(action)
        self.replayer.add(action)

    def end_game(self, line: int) -> None:
        assert self.replayer is not None
        result = self.result
        if result is not None:
            # The result is a property of the root (its line), checked where the game ends.
            self.replayer.add(result)
        self.replayer.end_game()
        root = self.root
        assert root is not None
        info = _match_info(root.properties.get("MI", []), root.line)
        self.games.append(MatGame(info.get("game", len(self.games)) + 1, self.game_line,
                                  self.names, (info.get("ws", 0), info.get("bs", 0)),
                                  tuple(self.actions), result))
        self.root = None


def _has_beaver(text: str) -> bool:
    """Whether a double is answered by a double (a beaver) anywhere in the file: the match is
    set up, beavers allowed or not, before its games are read. Text that does not tokenize is
    left for the reading itself to report."""
    doubled = False
    try:
        for event in _events(text):
            if event.node is None:
                continue
            props = event.node.properties
            moves = [props[c][0].strip().lower() for c in ("W", "B") if c in props]
            if moves and moves[0] == "double":
                if doubled:
                    return True
                doubled = True
            elif moves:
                doubled = False
    except SgfParseError:
        pass
    return False


def _value(props: dict[str, list[str]], name: str, default: str) -> str:
    values = props.get(name)
    return values[0].strip() if values else default


def _match_info(values: list[str], line: int) -> dict[str, int]:
    info: dict[str, int] = {}
    for item in values:
        key, _, number = item.partition(":")
        key = key.strip()
        if key in ("length", "game", "ws", "bs"):
            digits = number.strip()
            if not (digits.isascii() and digits.isdigit()):
                raise SgfParseError(line, f"MI[{quoted(item)}]: {key} is not a number >= 0")
            try:
                info[key] = number_of(digits, f"MI[{key}:...]")
            except ValueError as exc:
                raise SgfParseError(line, str(exc)) from None
    return info


def _point(letter: str, player: int) -> int:
    """The mover's own point of an SGF letter (bar 25, off 0)."""
    if letter == _BAR_LETTER:
        return BAR
    if letter == _OFF_LETTER:
        return OFF
    index = _LETTERS.find(letter)
    if index < 0:
        raise ValueError(f"{letter!r} is not a point letter a-x, y (bar) or z (off)")
    return index + 1 if player == 0 else 24 - index


def _name(point: int) -> str:
    return "bar" if point == BAR else "off" if point == OFF else str(point)


def _letter(point: int, player: int) -> str:
    if point == BAR:
        return _BAR_LETTER
    if point == OFF:
        return _OFF_LETTER
    return _LETTERS[point - 1] if player == 0 else _LETTERS[24 - point]


# --------------------------------------------------------------------------------------------
# Writing


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def format_sgf(match: Match) -> str:
    """The SGF of a match, one game tree per game, as GNU Backgammon 1.07 writes it.

    A resignation (or a timeout) is the result ``RE[W+2R]``; a roll the player resigned after
    is ``PL[B]DI[65]``; a beaver is the doubled player's ``double``. A declined resignation
    is not written (the format has no place for it).

    Raises:
        MatWriteError: a game that did not start from the standard position.
    """
    out: list[str] = []
    for index, game in enumerate(match.games):
        if game.settings.start is not None:
            raise MatWriteError(f"game {index + 1} starts from a set-up position: an SGF "
                                "match record cannot hold it")
        score = match.score_before(index)
        rules = []
        if not match.cube:
            rules.append("NoCube")
        if match.length:
            rules.append("Crawford")
        if game.settings.crawford:
            rules.append("CrawfordGame")
        if match.jacoby:
            rules.append("Jacoby")
        if match.beavers:
            rules.append("Beaver")  # (this project's rule, as NoGammons: see above)
        if not match.gammons:
            rules.append("NoGammons")
        head = (f"(;FF[4]GM[{BACKGAMMON_GM}]CA[UTF-8]AP[{_APPLICATION}]"
                f"MI[length:{match.length}][game:{index}][ws:{score[0]}][bs:{score[1]}]"
                f"PW[{_escape(match.names[0])}]PB[{_escape(match.names[1])}]")
        if rules:
            head += f"RU[{':'.join(rules)}]"
        outcome = game.outcome
        if outcome is not None:
            winner = "W" if outcome.winner is WHITE else "B"
            resigned = "R" if outcome.kind in ("resign", "timeout", "forfeit") else ""
            head += f"RE[{winner}+{outcome.points}{resigned}]"
        nodes = [head]
        nodes.extend(_game_nodes(game))
        out.append("\n".join(nodes) + ")\n")
    return "".join(out)


def _game_nodes(game: Game) -> list[str]:
    """The move nodes of one game."""
    turns = {turn.event_index: turn for turn in game.history}
    nodes: list[str] = []
    pending: tuple[str, tuple[int, int]] | None = None
    for index, event in enumerate(game.events):
        kind = event["type"]
        color = "W" if event.get("color") == "white" else "B"
        if kind == "opening_roll":
            white, black = event["white"], event["black"]
            if white != black:
                pending = ("W" if white > black else "B", (max(white, black), min(white, black)))
        elif kind == "roll":
            a, b = event["dice"]
            pending = (color, (max(a, b), min(a, b)))
        elif kind in ("play", "pass"):
            assert pending is not None
            player = 0 if color == "W" else 1
            letters = "".join(_letter(m.from_point, player) + _letter(m.to_point, player)
                              for m in turns[index].moves)
            nodes.append(f";{color}[{pending[1][0]}{pending[1][1]}{letters}]")
            pending = None
        elif kind in ("double", "beaver", "raccoon"):
            nodes.append(f";{color}[double]")
        elif kind in ("take", "drop"):
            nodes.append(f";{color}[{kind}]")
        elif kind in ("accept", "timeout", "forfeit") and pending is not None:
            nodes.append(f";PL[{pending[0]}]DI[{pending[1][0]}{pending[1][1]}]")
            pending = None
    return nodes


def write_sgf(match: Match, handle: TextIO) -> None:
    """Write :func:`format_sgf` of ``match`` to an open text file.

    Raises:
        MatWriteError: see :func:`format_sgf`.
    """
    handle.write(format_sgf(match))


def read_sgf_or_mat(source: str | bytes | TextIO | os.PathLike[str]) -> MatReplay:
    """Read and replay a match file of either kind: SGF when the text starts with ``(;``
    (after space), else ``.mat``.

    Raises:
        SgfParseError, SgfReplayError, MatParseError, MatReplayError: as the reader of the
            kind found.
    """
    from backgammon.records.mat import read_and_replay

    text = source_text(source)
    if text.lstrip().startswith("("):
        return read_and_replay_sgf(text)
    return read_and_replay(text)


