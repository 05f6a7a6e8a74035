"""``backgammon play``: a game in the terminal against the computer, or pass & play.

The game loop is :class:`backgammon.cli.terminal.TerminalGame`; this module reads the options
and builds the match. ``--resume FILE`` picks up a game saved with ``save``.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from rich.console import Console

from backgammon.cli.common import RecordError, UsageError
from backgammon.cli.terminal import SaveFileError, Seats, TerminalGame, load_game
from backgammon.core.errors import BackgammonError
from backgammon.core.match import Match
from backgammon.core.types import BLACK, WHITE
from backgammon.services.computer import LEVELS


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "play",
        help="play in the terminal, against the computer or pass & play",
        description="Play backgammon in the terminal. Type moves in notation (8/5 6/5, "
        "bar/20, 6/off); type help at the prompt for the commands.",
    )
    parser.add_argument("--level", default="easy", choices=LEVELS,
                        help="the computer's level (default easy)")
    parser.add_argument("--pass-and-play", action="store_true",
                        help="two people at one keyboard instead of the computer")
    parser.add_argument("--side", default="white", choices=["white", "black", "random"],
                        help="your side against the computer (default white: X, moving "
                        "from 24 down to 1)")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--match", type=int, metavar="N", help="a match to N points")
    kind.add_argument("--money", action="store_true",
                      help="a money session: games one after another, a running total")
    parser.add_argument("--no-cube", action="store_true", help="play without the cube")
    parser.add_argument("--no-gammons", action="store_true",
                        help="gammons and backgammons do not count: every win scores a "
                        "single game (times the cube)")
    parser.add_argument("--seed", type=int, help="seed the dice and the computer "
                        "(reproducible games)")
    parser.add_argument("--hint-level", default="expert", choices=LEVELS,
                        help="the level hints are computed at (default expert)")
    parser.add_argument("--plain", action="store_true",
                        help="screen-reader friendly: no colours, no box drawing, the board "
                        "in words")
    parser.add_argument("--resume", metavar="FILE", type=Path,
                        help="resume a game saved with the save command")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    single = False
    if args.resume is not None:
        try:
            match, seats, single = load_game(args.resume)
        except SaveFileError as exc:
            raise RecordError(str(exc)) from None
    else:
        if args.match is not None and not 1 <= args.match <= 25:
            raise UsageError(f"--match {args.match}: a match is 1 to 25 points")
        side = args.side
        if side == "random":
            side = rng.choice(["white", "black"])
        computer = None if args.pass_and_play else (BLACK if side == "white" else WHITE)
        seats = Seats(computer, args.level)
        try:
            match = Match(args.match or 0, cube=not args.no_cube,
                          gammons=not args.no_gammons, seed=args.seed)
        except BackgammonError as exc:
            raise UsageError(str(exc)) from None
        single = args.match is None and not args.money
    if args.plain:
        console = Console(no_color=True, color_system=None, highlight=False, emoji=False,
                          markup=False)
    else:
        console = Console(highlight=False, markup=False)
    game = TerminalGame(match, seats, console=console, read=console.input, plain=args.plain,
                        single=single, rng=rng, hint_level=args.hint_level,
                        save_path=args.resume)
    return game.run()
