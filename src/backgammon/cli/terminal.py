"""Backgammon in a terminal: the game loop behind ``backgammon play``.

Like GNU Backgammon's tty mode: the board is drawn as text (:func:`~backgammon.core.text.
board_text`, in a rich panel, or in words with ``plain``), and the player types commands at a
prompt. A play is typed in notation, whole (``8/5 6/5``, ``bar/20 13/7*``, ``6/off(2)``) or a
few checkers at a time; a refused move is explained in the engine's words
(:func:`~backgammon.core.explain.explain_move`) with the rule it breaks
(:func:`~backgammon.services.rules.rule_of`). The other commands are listed in :data:`HELP`.

The rules are the engine's: the game is a :class:`~backgammon.core.match.Match` driven by its
actions, and a saved game is the match's event log (``Match.to_log``) in a small JSON
envelope (:data:`SAVE_FORMAT`), so ``load`` (or ``backgammon play --resume FILE``) replays it
exactly, the dice of a roll in progress included.

Input and output are injected (``console`` is a :class:`rich.console.Console`; ``read`` takes a
prompt and returns a line, raising ``EOFError`` at the end of input), so the loop can be driven
by tests as well as by a person; ``tests/cli/test_play_terminal.py`` drives the real command
through a pseudo-terminal.
"""

from __future__ import annotations

import itertools
import json
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from rich import box
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from backgammon.core.errors import BackgammonError, NotationError
from backgammon.core.explain import explain_move, moves_along
from backgammon.core.game import Game, Phase
from backgammon.core.match import Match
from backgammon.core.notation import parse_moves_text, parse_play_or_none
from backgammon.core.position import ResultKind
from backgammon.core.text import board_text, board_words
from backgammon.core.types import BAR, BLACK, OFF, WHITE, Color
from backgammon.services.computer import LEVELS, ComputerPlayer, computer_player
from backgammon.services.review import pass_reason
from backgammon.services.rules import rule_of

#: The ``"format"`` of a saved terminal game; its ``"version"`` is :data:`SAVE_VERSION`.
SAVE_FORMAT: Final = "backgammon.terminal-game"
SAVE_VERSION: Final = 1
#: Where ``save`` writes when no file was named and none was loaded or saved before.
DEFAULT_SAVE: Final = "backgammon-game.json"

HELP: Final = """\
Commands (a play is typed in notation: 8/5 6/5, bar/20, 13/7*, 6/off, 8/5(2), 24/18/13):
  roll            roll the dice (Enter alone does it too)
  <notation>      make a play, or part of one (the rest can follow)
  moves           list the legal plays of the roll
  hint            the computer's best plays (or its cube decision)
  undo            take back the last checker moved this turn
  double          offer the cube before rolling
  take / drop     answer a double (drop is also called pass); beaver when allowed
  raccoon         answer a beaver of your double by redoubling at once (beavers on)
  resign [single|gammon|backgammon]   offer to resign (default: single)
  accept / reject answer a resignation
  board           draw the board again
  save [FILE]     save the game (default: the last file saved or loaded, else
                  backgammon-game.json)
  load FILE       load a saved game in place of this one
  help            this list
  quit            leave (asks y/n first when the game has changes not saved)"""

_KIND_WORDS: Final = {ResultKind.SINGLE: "a single game", ResultKind.GAMMON: "a gammon",
                      ResultKind.BACKGAMMON: "a backgammon"}
#: The answers to "Leave without saving?" that leave (in lower case; quit again does too).
_LEAVE: Final = frozenset({"y", "yes", "quit", "q", "exit"})
_RESIGN_KINDS: Final = {"single": ResultKind.SINGLE, "gammon": ResultKind.GAMMON,
                        "backgammon": ResultKind.BACKGAMMON}


class SaveFileError(Exception):
    """A saved game that cannot be read: the file and the reason in the message."""


@dataclass(frozen=True, slots=True)
class Seats:
    """Who plays which side.

    Attributes:
        computer: the side the computer plays, or None for pass & play.
        level: the computer's level (``"easy"`` .. ``"master"``).
    """

    computer: Color | None = BLACK
    level: str = "easy"

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"unknown level {self.level!r}: expected one of {', '.join(LEVELS)}")


def save_game(path: Path, match: Match, seats: Seats, *, single: bool) -> None:
    """Write ``match`` and its seats to ``path`` as JSON, atomically (a temporary file then a
    rename, so a failed write leaves the old file whole).

    Raises:
        OSError: the file cannot be written.
    """
    data = {
        "format": SAVE_FORMAT,
        "version": SAVE_VERSION,
        "computer": None if seats.computer is None else str(seats.computer),
        "level": seats.level,
        "single": single,
        "match": match.to_log(),
    }
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def load_game(path: Path) -> tuple[Match, Seats, bool]:
    """Read a game written by :func:`save_game`.

    Returns:
        ``(match, seats, single)``: the match replayed from its log, who plays which side,
        and whether the session is a single game.

    Raises:
        SaveFileError: the file is missing, not JSON, not a saved terminal game, or its log
            does not replay (the engine's reason quoted).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SaveFileError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SaveFileError(f"{path}: not a saved game (not JSON: {exc})") from None
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise SaveFileError(f"{path}: not a saved game (no \"format\": \"{SAVE_FORMAT}\")")
    if data.get("version") != SAVE_VERSION:
        raise SaveFileError(f"{path}: version {data.get('version')!r} of the save format; "
                            f"this program reads version {SAVE_VERSION}")
    try:
        computer = data.get("computer")
        seats = Seats(None if computer is None else Color.parse(computer),
                      str(data.get("level", "easy")))
        match = Match.replay(data["match"])
    except (KeyError, TypeError, ValueError, BackgammonError) as exc:
        raise SaveFileError(f"{path}: the saved game does not replay: {exc}") from None
    single = data.get("single", False)
    if not isinstance(single, bool):
        raise SaveFileError(f"{path}: \"single\" must be true or false, got {single!r}")
    return match, seats, single


def _roll(dice: Sequence[int]) -> str:
    """A roll as players say it, the higher die first: ``"6-1"``."""
    return f"{max(dice)}-{min(dice)}"


def _name(color: Color) -> str:
    return "White" if color is WHITE else "Black"


def _place(point: int, *, source: bool) -> str:
    if source and point == BAR:
        return "bar"
    if not source and point == OFF:
        return "off"
    return str(point)


class TerminalGame:
    """One session of terminal play (a single game, a match or a money session).

    Args:
        match: the match to play (a fresh one, or one loaded from a save).
        seats: who plays which side.
        console: where everything is written.
        read: reads one line after showing a prompt (``EOFError`` ends the session).
        plain: screen-reader friendly: no colours, no box drawing, the board in words.
        single: stop after the first game (a single game rather than a money session).
        rng: the computer's randomness (injected; tests seed it).
        hint_level: the level the hints are computed at.
        save_path: the file ``save`` writes when none is named.
    """

    def __init__(self, match: Match, seats: Seats, *, console: Console,
                 read: Callable[[str], str], plain: bool = False, single: bool = False,
                 rng: random.Random | None = None, hint_level: str = "expert",
                 save_path: Path | None = None) -> None:
        self.match = match
        self.seats = seats
        self.console = console
        self.read = read
        self.plain = plain
        self.single = single
        self.rng = rng or random.Random()
        self.hint_level = hint_level
        self.save_path = save_path
        self.dirty = False
        self._computer: ComputerPlayer | None = None

    # ----------------------------------------------------------------------------------------
    # Output

    def say(self, text: str, style: str = "") -> None:
        """Write one message (a style such as ``"red"`` only when not plain)."""
        self.console.print(Text(text, style="" if self.plain else style))

    def show_board(self) -> None:
        """Draw the board and the state of the game."""
        game = self.game
        position = game.position
        if self.plain:
            side = self.seats.computer.opponent if self.seats.computer else (
                game.turn or WHITE)
            for line in board_words(position, side):
                self.console.print(line)
        else:
            art = Text(board_text(position))
            art.highlight_regex(r"(?<= )X(?= )|\d+X", "bold yellow")
            art.highlight_regex(r"(?<= )O(?= )|\d+O", "bold red")
            self.console.print(Panel(art, box=box.ROUNDED, expand=False,
                                     title="backgammon", subtitle=self._status()))
            return
        self.console.print(self._status())

    def _status(self) -> str:
        game, match = self.game, self.match
        parts = []
        if match.length:
            parts.append(f"{match.length}-point match, White {match.score[0]} Black "
                         f"{match.score[1]}" + (" (Crawford)" if game.settings.crawford else ""))
        elif not self.single:
            parts.append(f"money: White {match.score[0]} Black {match.score[1]}")
        if game.settings.cube:
            owner = game.cube_owner
            parts.append(f"cube {game.cube_value}"
                         + (" centred" if owner is None else f" owned by {_name(owner)}"))
        if not game.settings.gammons:
            parts.append("gammons off")
        return ", ".join(parts) if parts else "single game"

    def _who(self, color: Color) -> str:
        if self.seats.computer is None:
            return _name(color)
        return "The computer" if color is self.seats.computer else "You"

    # ----------------------------------------------------------------------------------------
    # The loop

    @property
    def game(self) -> Game:
        return self.match.current

    def computer(self) -> ComputerPlayer:
        if self._computer is None:
            self._computer = computer_player(self.seats.level, self.rng)
        return self._computer

    def run(self) -> int:
        """Play until the session ends or the player quits; returns the exit status (0)."""
        opponent = ("pass & play" if self.seats.computer is None else
                    f"you play {_name(self.seats.computer.opponent)} against the computer "
                    f"({self.seats.level.capitalize()})")
        self.say(f"Backgammon: {opponent}. Type help for the commands.", "bold")
        if self.game.phase is not Phase.OPENING:  # (else drawn once the roll says who moves)
            self.show_board()
        try:
            while True:
                game = self.game
                if game.is_over:
                    if not self._game_over():
                        return 0
                    continue
                if game.phase is Phase.OPENING:
                    game.roll()
                    opening = game.events[-1]
                    dice = game.dice or (0, 0)
                    self.say(f"Opening roll: White {opening['white']}, Black "
                             f"{opening['black']}: {_name(game.on_roll or WHITE)} moves first "
                             f"with {dice[0]}-{dice[1]}.")
                    self.dirty = True
                    self.show_board()
                    self._after_roll()
                    continue
                actor = game.turn
                if self.seats.computer is not None and actor is self.seats.computer:
                    self._computer_acts()
                    continue
                if not self._human_acts():
                    return 0
        except (EOFError, KeyboardInterrupt):  # the end of the input, or Ctrl-C
            self.say("")
            self.say("Goodbye." + (" (The game was not saved.)" if self.dirty else ""))
            return 0

    def _game_over(self) -> bool:
        """Announce the result; True when another game follows."""
        outcome = self.game.outcome
        assert outcome is not None
        points = "point" if outcome.points == 1 else "points"
        how = {"drop": "the double was dropped", "resign": "a resignation",
               "timeout": "on time"}.get(outcome.kind, _KIND_WORDS[outcome.result_kind])
        self.say(f"{_name(outcome.winner)} wins {outcome.points} {points} ({how}).",
                 "bold green")
        match = self.match
        if match.is_over or self.single:
            if match.length:
                winner = match.winner or outcome.winner
                mine, theirs = match.score if winner is WHITE else match.score[::-1]
                self.say(f"{_name(winner)} wins the match {mine}-{theirs}.", "bold green")
            self.say("Game over.")
            if self.dirty:
                self._save_asked("Type save [FILE] to keep the game, or press Enter to leave")
            return False
        self.say(f"Score: White {match.score[0]}, Black {match.score[1]}.")
        while self._save_asked("Press Enter for the next game (save [FILE] keeps the match)"):
            pass
        match.new_game()  # (its board is drawn after its opening roll)
        self.dirty = True
        return True

    def _save_asked(self, prompt: str) -> bool:
        """Ask ``prompt``; ``save [FILE]`` saves the game. True when it was a save."""
        word, _, rest = self.ask(prompt).partition(" ")
        if word.lower() != "save":
            return False
        self._save(rest.strip())
        return True

    def ask(self, prompt: str) -> str:
        return self.read(f"{prompt}> ").strip()

    def _after_roll(self) -> None:
        """Say what the roll allows: a pass is explained."""
        game = self.game
        if game.phase is not Phase.MOVE and game.history and game.history[-1].moves == ():
            last = game.history[-1]
            reason = pass_reason(last)
            if last.dice is not None and reason is not None:
                self.say(f"{self._who(last.color)} rolled {_roll(last.dice)} and "
                         f"cannot move: {reason}.")
                self.show_board()

    def _computer_acts(self) -> None:
        game = self.game
        player = self.computer()
        who = "The computer"
        if game.phase is Phase.DOUBLE_OFFERED:
            answer = player.answer_double(game)  # (the cube decision the hint shows)
            if answer == "beaver":
                value = game.beaver()
                self.say(f"{who} beavers: it takes and redoubles to {value}, keeping the "
                         "cube: take, drop or raccoon?", "bold")
            elif answer == "raccoon":
                value = game.raccoon()
                self.say(f"{who} raccoons: it redoubles your beaver to {value}, and you keep "
                         "the cube: take or drop?", "bold")
            elif answer == "take":
                game.take()
                self.say(f"{who} takes: the cube is at {game.cube_value}.")
            else:
                game.drop()
                self.say(f"{who} drops.")
        elif game.phase is Phase.RESIGNATION_OFFERED:
            if player.accept_resign(game):
                game.accept_resignation()
                self.say(f"{who} accepts your resignation.")
            else:
                game.decline_resignation()
                self.say(f"{who} declines your resignation: play on.")
        elif game.phase is Phase.ROLL:
            if game.can_double() and player.should_double(game):
                value = game.double()
                self.say(f"{who} doubles to {value}: take or drop?", "bold")
            else:
                dice = game.roll()
                self.say(f"{who} rolls {_roll(dice)}.")
                self._after_roll()
        elif game.phase is Phase.MOVE:
            play = player.choose_play(game)
            game.play(play)
            self.say(f"{who} plays {play}.", "cyan")
            self.show_board()
        self.dirty = True

    # ----------------------------------------------------------------------------------------
    # The player's commands

    def _prompt(self) -> str:
        game = self.game
        color = game.turn or WHITE
        name = _name(color)
        if game.phase is Phase.ROLL:
            if game.can_double():
                return f"{name} to roll or double"
            return f"{name} to roll"
        if game.phase is Phase.MOVE:
            dice = game.dice or (0, 0)
            left = game.dice_left
            extra = f", left {' '.join(map(str, left))}" if game.played else ""
            return f"{name} to play {_roll(dice)}{extra}"
        if game.phase is Phase.DOUBLE_OFFERED:
            what = {"beaver": "a beaver", "raccoon": "a raccoon"}.get(game.cube_offer or "",
                                                                       "a double")
            options = "take, drop or raccoon" if game.can_raccoon() else "take or drop"
            return f"{name}: {options} {what} to {game.cube_value * 2}"
        if game.phase is Phase.RESIGNATION_OFFERED:
            offer = game.resignation
            assert offer is not None
            return f"{name}: accept or reject the offer of {_KIND_WORDS[offer[1]]}"
        return name  # pragma: no cover - no other phase waits for a person

    def _human_acts(self) -> bool:
        """Read and carry out one command; False when the player quits."""
        line = self.ask(self._prompt())
        word, _, rest = line.partition(" ")
        command = word.lower()
        rest = rest.strip()
        game = self.game
        handlers: dict[str, Callable[[str], None]] = {
            "help": lambda _: self.console.print(HELP, markup=False, highlight=False),
            "?": lambda _: self.console.print(HELP, markup=False, highlight=False),
            "board": lambda _: self.show_board(),
            "moves": lambda _: self._moves(),
            "hint": lambda _: self._hint(),
            "undo": lambda _: self._undo(),
            "roll": lambda _: self._roll(),
            "double": lambda _: self._act(game.double, "doubles"),
            "take": lambda _: self._act(game.take, "takes"),
            "drop": lambda _: self._act(game.drop, "drops"),
            "pass": lambda _: self._act(game.drop, "drops"),
            "beaver": lambda _: self._act(game.beaver, "beavers"),
            "raccoon": lambda _: self._act(game.raccoon, "raccoons"),
            "accept": lambda _: self._act(game.accept_resignation, "accepts"),
            "reject": lambda _: self._act(game.decline_resignation, "rejects the offer"),
            "decline": lambda _: self._act(game.decline_resignation, "rejects the offer"),
            "resign": self._resign,
            "save": self._save,
            "load": self._load,
        }
        if command in ("quit", "exit", "q"):
            if self.dirty:
                answer = self.ask("The game has changes not saved. Leave without saving? "
                                  "(y/n)").lower()
                if answer not in _LEAVE:
                    self.say("Staying: type save to keep the game, or quit to leave.")
                    return True
            self.say("Goodbye.")
            return False
        if not line and game.phase is Phase.ROLL:
            self._roll()
        elif command in handlers:
            handlers[command](rest)
        elif not line:
            pass
        elif game.phase is Phase.MOVE:
            self._enter_moves(line)
        else:
            self.say(f"{line!r} is not a command now ({self._prompt()}); type help for the "
                     "list.", "red")
        return True

    def _act(self, action: Callable[[], object], verb: str) -> None:
        color = self.game.turn or WHITE
        try:
            action()
        except BackgammonError as exc:
            self.say(f"Not now: {exc}.", "red")
            return
        self.dirty = True
        self.say(f"{_name(color)} {verb}.")
        if self.game.phase is Phase.MOVE or self.game.is_over:
            self.show_board()

    def _roll(self) -> None:
        game = self.game
        if game.phase is not Phase.ROLL:
            self.say("Not now: the dice are already rolled." if game.phase is Phase.MOVE
                     else f"Not now: {self._prompt()}.", "red")
            return
        color = game.turn or WHITE
        dice = game.roll()
        self.dirty = True
        self.say(f"{_name(color)} rolls {_roll(dice)}.")
        self._after_roll()

    def _moves(self) -> None:
        game = self.game
        if game.phase is not Phase.MOVE:
            self.say("No dice to play yet.", "red")
            return
        plays = list(game.legal_plays())
        self.say(f"Legal plays of {_roll(game.dice)} ({len(plays)}):"  # type: ignore[arg-type]
                 if plays else "No legal play: the turn passes.")
        for number, play in enumerate(plays, start=1):
            self.console.print(f"{number:>4}. {play}", highlight=False)
        if game.played:
            self.say("(From the start of the turn: undo to play one of them.)")

    def _hint(self) -> None:
        from backgammon.ai import ComputerPlayer as AIPlayer
        from backgammon.ai.choose import rank_plays
        from backgammon.ai.cube import CubeAction
        from backgammon.ai.player import cube_state
        from backgammon.analysis import emg_scale

        game = self.game
        level = self.hint_level
        if game.phase is Phase.MOVE:
            assert game.dice is not None
            cube = cube_state(game)
            ranked = rank_plays(game.turn_start, game.dice, level, cube=cube, settle=5)
            # in a match, the match-winning chances as EMG, as the page's hint gives them
            scale = emg_scale(cube, game.turn_start.turn)
            unit = "EMG" if cube.is_match else "points"
            self.say(f"The computer ({level}) ranks the plays of {game.dice[0]}-"
                     f"{game.dice[1]} (equity after the play, {unit}):")
            best = scale.emg(ranked[0].equity) if ranked else 0.0
            for number, row in enumerate(ranked[:5], start=1):
                equity = scale.emg(row.equity)
                behind = f"  {equity - best:+.3f}" if number > 1 else ""
                self.console.print(f"{number:>4}. {row.play!s:<24} {equity:+.3f}{behind}",
                                   highlight=False)
            if game.played:
                self.say("(From the start of the turn: undo to play one of them.)")
            return
        advisor = AIPlayer(level, random.Random(0))
        if game.phase is Phase.ROLL:
            action = advisor.cube_action(game)
            self.say(f"The computer ({level}) would "
                     + ("double." if action is CubeAction.DOUBLE else "roll (no double)."))
        elif game.phase is Phase.DOUBLE_OFFERED:
            action = advisor.cube_action(game)
            self.say(f"The computer ({level}) would {action.name.lower()}.")
        else:
            self.say("No hint for this decision.")

    def _undo(self) -> None:
        game = self.game
        try:
            move = game.undo()
        except BackgammonError as exc:
            text = str(exc)
            self.say(f"{text[:1].upper()}{text[1:]}.", "red")
            return
        self.say(f"Took back {_place(move.from_point, source=True)}/"
                 f"{_place(move.to_point, source=False)}.")
        self.show_board()

    def _resign(self, rest: str) -> None:
        kind = _RESIGN_KINDS.get(rest.lower() or "single")
        if kind is None:
            self.say(f"resign {rest}: say resign single, resign gammon or resign backgammon.",
                     "red")
            return
        color = self.game.turn or WHITE
        try:
            self.game.resign(color, kind)
        except BackgammonError as exc:
            self.say(f"Not now: {exc}.", "red")
            return
        self.dirty = True
        self.say(f"{_name(color)} offers to resign {_KIND_WORDS[kind]}.")

    def _enter_moves(self, text: str) -> None:
        """Make the moves typed; all or nothing, a refusal explained."""
        game = self.game
        assert game.dice is not None
        color = game.turn or WHITE
        if not game.played:
            play = None
            try:
                play = parse_play_or_none(text, game.turn_start, game.dice)
            except BackgammonError:
                play = None
            if play is not None:
                game.play(play)
                self._played(color, str(play))
                return
        try:
            paths = parse_moves_text(text)
        except NotationError as exc:
            self.say(f"{exc}. Type moves for the legal plays, help for the commands.", "red")
            return
        made = 0
        for path, count in paths:
            for _ in range(count):
                for (src, _hit), (dst, _hit2) in itertools.pairwise(path):
                    steps = moves_along(game.turn_start, game.dice_left, game.played, src, dst)
                    if steps is None:
                        self._refuse(src, dst)
                        for _ in range(made):
                            game.undo()
                        return
                    for step in steps:
                        game.move(step)
                        made += 1
        if not game.legal_moves():
            play = game.end_turn()
            self._played(color, str(play))
            return
        self.dirty = True
        self.show_board()
        left = " ".join(map(str, game.dice_left))
        self.say(f"Moved so far: {', '.join(_text(m) for m in game.played)}; dice left: "
                 f"{left}. Go on, or undo.")

    def _refuse(self, src: int, dst: int) -> None:
        game = self.game
        move_text = f"{_place(src, source=True)}/{_place(dst, source=False)}"
        try:
            reason = explain_move(game.turn_start, game.dice_left, game.played, src, dst)
        except BackgammonError as exc:
            reason = str(exc)
        reason = reason or "it does not fit with the rest of the play"
        rule = rule_of(reason)
        source = f" (rule: {rule.title}, {rule.source})" if rule else ""
        self.say(f"{move_text} is not allowed: {reason}{source}.", "red")
        self.say("Nothing was moved. Type moves for the legal plays.")

    def _played(self, color: Color, text: str) -> None:
        self.dirty = True
        self.say(f"{_name(color)} plays {text}.")
        self.show_board()

    def _save(self, rest: str) -> None:
        path = Path(rest).expanduser() if rest else (self.save_path or Path(DEFAULT_SAVE))
        try:
            save_game(path, self.match, self.seats, single=self.single)
        except OSError as exc:
            self.say(f"Could not save to {path}: {exc.strerror or exc}. The game goes on.",
                     "red")
            return
        self.save_path = path
        self.dirty = False
        self.say(f"Saved to {path}. Resume with: backgammon play --resume {path}")

    def _load(self, rest: str) -> None:
        if not rest and self.save_path is None:
            self.say("load FILE: name the saved game to load.", "red")
            return
        path = Path(rest).expanduser() if rest else self.save_path
        assert path is not None
        try:
            match, seats, single = load_game(path)
        except SaveFileError as exc:
            self.say(f"{exc}. This game goes on.", "red")
            return
        self.match, self.seats, self.single = match, seats, single
        self._computer = None
        self.save_path = path
        self.dirty = False
        self.say(f"Loaded {path}.")
        self.show_board()


def _text(move: Any) -> str:
    return f"{_place(move.from_point, source=True)}/{_place(move.to_point, source=False)}" + (
        "*" if move.hit else "")


__all__ = ["DEFAULT_SAVE", "HELP", "SAVE_FORMAT", "SAVE_VERSION", "SaveFileError", "Seats",
           "TerminalGame", "load_game", "save_game"]
