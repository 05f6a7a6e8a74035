"""``checkers play``: a game in the terminal, against the computer or two people at one
keyboard.

The board is drawn as text (:meth:`checkers.Position.diagram`, with the PDN numbers of the
empty squares so that moves can be read off it), and moves are typed in PDN: ``11-15``,
``15x22x31``, or the shorthand ``15x31`` when it names one move. A refused move is explained
in the engine's words (``a capture is available: 14x23 must be played``). The other commands
are in :data:`HELP`. A game is saved as a PDN file (``save``), and ``checkers play --resume
FILE`` carries on the last game of such a file.

Input and output are injected (``read`` takes a prompt and returns a line, raising
``EOFError`` at the end of input; ``write`` prints a line), so tests drive the loop directly.
"""

from __future__ import annotations

import argparse
import datetime
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from checkers.ai import LEVELS, accepts_draw, choose_move
from checkers.cli.common import UsageError
from checkers.errors import CheckersError, PdnError
from checkers.game import Game
from checkers.moves import legal_moves
from checkers.pdn import PdnGame, decode, read_pdn, write_pdn
from checkers.position import BLACK, WHITE, Color, Position

HELP: Final = """\
Commands (a move is typed in PDN: 11-15, 15x22x31, or 15x31 when that names one move):
  <move>          make a move
  moves           list the legal moves
  hint            the computer's move for you (at the hint level)
  undo            take back your last move (and the computer's reply)
  draw            offer a draw
  resign          resign the game
  board           draw the board again
  save [FILE]     save the game as PDN (default: the last file saved or loaded,
                  else checkers-game.pdn)
  help            this list
  quit            leave (asks once when the game has moves not saved)"""

#: Where ``save`` writes when no file was named and none was loaded or saved before.
DEFAULT_SAVE: Final = "checkers-game.pdn"


@dataclass(frozen=True, slots=True)
class Seats:
    """Who plays which side: ``computer`` is the computer's side (None: two people),
    ``level`` its level."""

    computer: Color | None = WHITE
    level: str = "medium"

    def name(self, side: Color) -> str:
        """The PDN player name of a side."""
        if self.computer is None:
            return side.value.capitalize()
        return f"Computer ({self.level})" if side is self.computer else "You"


class TerminalGame:
    """The game loop: prompt, parse, act, draw.

    Args:
        game: the game to play on (a new one, or one resumed from PDN).
        seats: who plays which side.
        read: reads a line after a prompt; raises EOFError at the end of input.
        write: prints one line (or several, joined by newlines).
        seed: the computer's randomness (its level's window), reproducible.
        hint_level: the level ``hint`` searches at.
        save_path: where ``save`` writes by default.
    """

    def __init__(
        self,
        game: Game,
        seats: Seats,
        *,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        seed: int | None = None,
        hint_level: str = "hard",
        save_path: Path | None = None,
    ) -> None:
        self.game = game
        self.seats = seats
        self.read = read
        self.write = write
        self.rng = random.Random(seed)
        self.hint_level = hint_level
        self.save_path = save_path
        self.saved_plies: int | None = len(game.log) if save_path else None
        self.started = datetime.date.today()

    # ---------------------------------------------------------------- the loop

    def run(self) -> int:
        """Play until the game ends or the player quits; returns the exit status (0)."""
        self.write(self._intro())
        self.show_board()
        while True:
            if self.game.outcome is not None:
                self.write(f"Game over. {self.game.outcome}.")
                self._offer_save()
                return 0
            if self.game.turn is self.seats.computer:
                try:
                    self.computer_moves()
                except KeyboardInterrupt:  # Ctrl-C while the computer thinks: leave
                    self.write("")
                    return 0
                continue
            try:
                line = self.read(f"{self.game.turn.value.capitalize()} to move> ").strip()
            except (EOFError, KeyboardInterrupt):
                self.write("")
                return 0
            if not self.command(line):
                return 0

    def _intro(self) -> str:
        turn = self.game.turn.value.capitalize()
        first = f"{turn} moves first." if not self.game.moves else f"{turn} to move."
        if self.seats.computer is None:
            return f"Checkers, two players at one keyboard. {first} Type help."
        mine = self.seats.computer.opponent
        return (
            f"Checkers: you play {mine.value.capitalize()} against the computer "
            f"({self.seats.level.capitalize()}). {first} Type help for the commands."
        )

    def command(self, line: str) -> bool:
        """Carry out one line typed at the prompt; False to leave."""
        word, _, rest = line.partition(" ")
        word = word.lower()
        if not word:
            return True
        actions: dict[str, Callable[[str], bool | None]] = {
            "help": lambda _: self.write(HELP),
            "board": lambda _: self.show_board(),
            "moves": lambda _: self.show_moves(),
            "hint": lambda _: self.hint(),
            "undo": lambda _: self.undo(),
            "draw": lambda _: self.offer_draw(),
            "resign": lambda _: self.resign(),
            "save": self.save,
            "quit": lambda _: not self.quit(),
            "exit": lambda _: not self.quit(),
        }
        if word in actions:
            return actions[word](rest.strip()) is not False
        self.human_moves(line)
        return True

    # ---------------------------------------------------------------- actions

    def show_board(self) -> None:
        """Draw the board with the empty squares' numbers, and who is to move."""
        position = self.game.position
        lines = position.diagram(numbers=True).splitlines()
        black, white = position.count(BLACK), position.count(WHITE)
        lines.append(f"Black: {_pieces(*black)}; White: {_pieces(*white)}")
        if self.game.moves:
            lines.append(f"Last move: {self.game.moves[-1]}")
        self.write("\n".join(lines))

    def show_moves(self) -> None:
        """List the legal moves; say when a capture is mandatory."""
        moves = self.game.legal_moves()
        note = " (a capture must be played)" if moves and moves[0].is_capture else ""
        self.write(f"Legal moves{note}: " + " ".join(str(m) for m in moves))

    def human_moves(self, text: str) -> None:
        """Play a typed move for the side to move, or explain why it is refused."""
        mover = self.game.turn
        try:
            move = self.game.play(text)
        except CheckersError as error:
            self.write(f"Not played: {error}")
            return
        name = self._side_name(mover)
        self.write(f"{name} {'play' if name == 'You' else 'plays'} {move}.")
        self.show_board()

    def computer_moves(self) -> None:
        """The computer plays its move and says how long it thought."""
        started = time.perf_counter()
        found = choose_move(
            self.game.position,
            self.seats.level,
            rng=self.rng,
            history=self.game.positions[:-1],
        )
        seconds = time.perf_counter() - started
        self.game.play(found.move)
        self.write(f"The computer plays {found.move} ({seconds:.1f} s).")
        self.show_board()

    def hint(self) -> None:
        """The computer's move for the side to move, at the hint level."""
        if self.game.outcome is not None or not legal_moves(self.game.position):
            self.write("No move to suggest.")
            return
        found = choose_move(
            self.game.position,
            self.hint_level,
            rng=random.Random(0),
            history=self.game.positions[:-1],
        )
        self.write(
            f"Hint: {found.move} (score {found.score:+d} hundredths of a man, depth {found.depth})"
        )

    def undo(self) -> None:
        """Take back the last move of the person to move (and the computer's reply)."""
        mover = self.game.turn
        count = 2 if self.seats.computer is not None else 1
        if len(self.game.moves) < count or (
            self.seats.computer is not None and self.game.positions[-3].turn is not mover
        ):
            self.write("Nothing to take back.")
            return
        try:
            for _ in range(count):
                self.game.undo()
        except CheckersError as error:
            self.write(f"Nothing to take back: {error}.")
            return
        self.write("Taken back.")
        self.show_board()

    def offer_draw(self) -> None:
        """Offer a draw: the computer answers by its evaluation; at one keyboard, the other
        player answers y or n."""
        side = self.game.turn
        self.game.offer_draw(side)
        if self.seats.computer is None:
            answer = self._ask(f"{side.opponent.value.capitalize()}, accept a draw? [y/n] ")
        else:
            answer = accepts_draw(self.game, side.opponent, self.seats.level)
        if answer:
            self.game.accept_draw(side.opponent)
            self.write("The draw is accepted.")
        else:
            self.game.decline_draw(side.opponent)
            self.write("The draw is declined; play on.")

    def resign(self) -> None:
        """The side to move resigns."""
        if self._ask("Resign the game? [y/n] "):
            self.game.resign(self.game.turn)

    def save(self, name: str) -> None:
        """Write the game as PDN to ``name``, or to the last file used."""
        path = Path(name) if name else (self.save_path or Path(DEFAULT_SAVE))
        try:
            path.write_text(self.pdn(), encoding="utf-8")
        except OSError as error:
            self.write(f"Not saved: {path}: {error.strerror or error}")
            return
        self.save_path = path
        self.saved_plies = len(self.game.log)
        self.write(f"Saved to {path}.")

    def pdn(self) -> str:
        """The game as a PDN text with its players, date and event."""
        tags = {
            "Event": "checkers play",
            "Date": self.started.strftime("%Y.%m.%d"),
            "Black": self.seats.name(BLACK),
            "White": self.seats.name(WHITE),
        }
        return write_pdn(PdnGame.from_game(self.game, tags))

    def _offer_save(self) -> None:
        """After the game: ``save [FILE]`` keeps it, anything else (or the end of the input)
        leaves."""
        if not self.game.moves or self.saved_plies == len(self.game.log):
            return
        try:
            line = self.read("Type save [FILE] to keep the game, or press Enter to leave> ")
        except (EOFError, KeyboardInterrupt):
            self.write("")
            return
        word, _, rest = line.strip().partition(" ")
        if word.lower() == "save":
            self.save(rest.strip())

    def quit(self) -> bool:
        """True to leave: at once when nothing is unsaved, else after a yes."""
        if self.game.moves and self.saved_plies != len(self.game.log):
            return self._ask("The game is not saved. Quit anyway? [y/n] ")
        return True

    # ---------------------------------------------------------------- helpers

    def _ask(self, prompt: str) -> bool:
        """A yes (True) or no to ``prompt``, asked again until the answer is one of them; the
        end of the input (or Ctrl-C) is a no."""
        while True:
            try:
                answer = self.read(prompt).strip().lower()
            except (EOFError, KeyboardInterrupt):
                self.write("")
                return False
            if answer in ("y", "yes", "n", "no"):
                return answer.startswith("y")
            self.write("Please answer y or n.")

    def _side_name(self, side: Color) -> str:
        if self.seats.computer is None:
            return side.value.capitalize()
        return "You" if side is not self.seats.computer else "The computer"


def _pieces(men: int, kings: int) -> str:
    """``"1 man, 2 kings"``."""
    return (f"{men} {'man' if men == 1 else 'men'}, "
            f"{kings} {'king' if kings == 1 else 'kings'}")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``play`` to the command's subparsers."""
    parser = sub.add_parser(
        "play",
        help="play in the terminal, against the computer or two people at one keyboard",
        description="Play American checkers in the terminal. Type moves in PDN (11-15, "
        "15x22x31); type help at the prompt for the commands.",
    )
    parser.add_argument("--level", default="medium", choices=LEVELS, help="default medium")
    parser.add_argument(
        "--pass-and-play",
        action="store_true",
        help="two people at one keyboard instead of the computer",
    )
    parser.add_argument(
        "--side",
        default="black",
        choices=["black", "white", "random"],
        help="your side against the computer (default black: moves first)",
    )
    parser.add_argument("--fen", help="start from this position (PDN FEN)")
    parser.add_argument(
        "--resume",
        type=Path,
        metavar="FILE.pdn",
        help="carry on the last game of a PDN file (saved with save)",
    )
    parser.add_argument("--seed", type=int, help="seed the computer (reproducible games)")
    parser.add_argument("--hint-level", default="hard", choices=LEVELS, help="default hard")
    parser.set_defaults(run=run_play)


def resume(path: Path) -> Game:
    """The last game of a PDN file, replayed, to carry on.

    Raises:
        UsageError: when the file cannot be read, holds no game, or its last game has a bad
            move or is over.
    """
    try:
        games = read_pdn(decode(path.read_bytes()))
    except OSError as error:
        raise UsageError(f"{path}: {error.strerror or error}") from None
    except PdnError as error:
        raise UsageError(f"{path}: {error}") from None
    if not games:
        raise UsageError(f"{path}: no game found")
    last = games[-1]
    if last.error is not None:
        raise UsageError(f"{path}: {last.error}")
    game = Game(last.start)
    for move in last.moves:
        if game.outcome is not None:
            break
        game.play(move)
    if game.outcome is not None or last.result != "*":
        raise UsageError(f"{path}: game {last.number} is over ({last.result})")
    return game


def run_play(args: argparse.Namespace) -> int:
    """``checkers play [--level L] [--pass-and-play] [--side S] [--fen F] [--resume F]``."""
    if args.resume is not None:
        game = resume(args.resume)
    else:
        try:
            game = Game(Position.from_fen(args.fen) if args.fen else None)
        except CheckersError as error:
            raise UsageError(str(error)) from None
    if args.pass_and_play:
        seats = Seats(None, args.level)
    else:
        side = args.side
        if side == "random":
            side = random.Random(args.seed).choice(["black", "white"])
        seats = Seats(Color(side).opponent, args.level)
    loop = TerminalGame(
        game, seats, seed=args.seed, hint_level=args.hint_level, save_path=args.resume
    )
    return loop.run()
