"""The computer's levels against each other: win rate with its 95% interval, points per game.

Plays N seeded games for each pair of levels, the sides alternating (the first level is White
in even games, Black in odd ones), once with the cube off and once with it on (money play, no
Jacoby, no beavers). Game i of a series uses the dice of ``random.Random(seed * 1000003 + i)``,
so every figure can be reproduced. Targets over 400 games: Hard beats Medium >= 58%, Hard beats
Easy >= 80%, Medium beats Easy >= 65%.

Also, with ``--agreement``, how often each level plays what GNU Backgammon played in its
self-play matches (``shared/mat/gnubg_selfplay_*.mat``, rolls with a choice).

Usage: python bench/ai_strength.py [--games N] [--pairs hard:medium,hard:easy,medium:easy]
                                   [--cube off,on] [--seed S] [--agreement]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path

from rich.console import Console
from rich.progress import Progress, TaskID

from backgammon.ai.player import ComputerPlayer
from backgammon.ai.search import Evaluator
from backgammon.ai.selfplay import play_series
from backgammon.core.moves import legal_plays
from backgammon.training.positions import real_moves


def default_shared() -> Path:
    env = os.environ.get("BACKGAMMON_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared"


def agreement(levels: list[str], shared: Path) -> None:
    moves = [m for m in real_moves(shared / "mat") if m.result is not None]
    cases = [m for m in moves if len(legal_plays(m.position, m.dice)) >= 2]
    for name in levels:
        player = ComputerPlayer(name, random.Random(0), Evaluator())
        start = time.perf_counter()
        same = sum(player.play(m.position, m.dice).result == m.result for m in cases)
        print(f"{name:<8} plays GNU Backgammon's play in {same}/{len(cases)} = "
              f"{same / len(cases):.1%} of rolls ({time.perf_counter() - start:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--pairs", default="hard:medium,hard:easy,medium:easy")
    parser.add_argument("--cube", default="off,on", help="off, on, or off,on")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--agreement", action="store_true",
                        help="only measure agreement with GNU Backgammon's plays")
    parser.add_argument("--shared", type=Path, default=default_shared())
    args = parser.parse_args()
    if args.agreement:
        agreement(["easy", "medium", "hard"], args.shared)
        return
    for pair in args.pairs.split(","):
        first, second = pair.split(":")
        for cube in args.cube.split(","):
            on = cube == "on"
            start = time.perf_counter()
            with Progress(console=Console(stderr=True), transient=True) as progress:
                task = progress.add_task(f"{first} v {second}, cube {cube}", total=args.games)
                def advance(index: int, game: object, task: TaskID = task) -> None:
                    progress.advance(task)

                result = play_series(first, second, args.games, args.seed, cube=on,
                                     on_game=advance)
            lo, hi = result.interval()
            print(f"{first} v {second}, cube {cube:<3}: {result.wins}/{result.games} won = "
                  f"{result.win_rate:.1%} (95% {lo:.1%}-{hi:.1%}), "
                  f"{result.points_per_game:+.3f} points/game, "
                  f"{result.gammons} gammons, {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
