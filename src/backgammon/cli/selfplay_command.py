"""``backgammon selfplay --games N --white hard --black medium``: the computer against itself.

Plays seeded games between two levels with a progress bar and prints each side's wins, the
points per game and the win rate with its 95% interval. Game i uses the dice of
``random.Random(seed * 1000003 + i)``: the same command prints the same result.
"""

from __future__ import annotations

import argparse
import random
import time

from rich.console import Console
from rich.progress import Progress

from backgammon.ai.levels import CLASSIC, LEVELS
from backgammon.ai.player import ComputerPlayer
from backgammon.ai.search import Evaluator
from backgammon.ai.selfplay import SeriesResult, play_game
from backgammon.cli.common import UsageError
from backgammon.core.game import GameSettings
from backgammon.core.types import BLACK, WHITE


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "selfplay",
        help="play the computer against itself and print the result",
        description="Play seeded games between two computer levels and print the result.",
    )
    parser.add_argument("--games", type=int, default=10, help="games to play (default 10)")
    parser.add_argument("--white", default="hard", choices=[*LEVELS, CLASSIC.name],
                        help="White's level")
    parser.add_argument("--black", default="medium", choices=[*LEVELS, CLASSIC.name],
                        help="Black's level")
    parser.add_argument("--seed", type=int, default=0, help="seed of the dice and the players")
    parser.add_argument("--cube", action="store_true", help="play with the doubling cube")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise UsageError(f"--games must be at least 1, got {args.games}")
    evaluator = Evaluator()
    white = SeriesResult()
    points = {WHITE: 0, BLACK: 0}
    start = time.perf_counter()
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(f"white {args.white} v black {args.black}", total=args.games)
        for i in range(args.games):
            base = args.seed * 1_000_003 + i
            players = {
                WHITE: ComputerPlayer(args.white, random.Random(2 * base + 1), evaluator),
                BLACK: ComputerPlayer(args.black, random.Random(2 * base + 2), evaluator),
            }
            outcome = play_game(players, GameSettings(cube=args.cube), random.Random(base)).outcome
            won = outcome.winner is WHITE
            white.games += 1
            white.wins += won
            white.points += outcome.points if won else -outcome.points
            white.gammons += int(outcome.result_kind) > 1 and outcome.kind != "drop"
            points[outcome.winner] += outcome.points
            progress.advance(task)
    lo, hi = white.interval()
    elapsed = time.perf_counter() - start
    print(f"{args.games} games, white {args.white} v black {args.black}"
          f"{', cube on' if args.cube else ''} (seed {args.seed}, {elapsed:.1f} s)")
    print(f"white {args.white}: {white.wins} won, {points[WHITE]} points")
    print(f"black {args.black}: {white.games - white.wins} won, {points[BLACK]} points")
    print(f"white's win rate {white.win_rate:.1%} (95% interval {lo:.1%}-{hi:.1%}), "
          f"{white.points_per_game:+.3f} points per game, {white.gammons} gammons or backgammons")
    return 0
