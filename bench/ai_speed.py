"""The computer's think time per move, for each level, over 500 positions from real games.

The positions are a fixed, evenly spaced sample of the rolls with a real choice (two or more
legal plays) in GNU Backgammon's self-play matches (``shared/mat/gnubg_selfplay_*.mat``),
taken in game order. Each level thinks about them in that order with a fresh evaluation
cache, as in a game, where the cache carries over from one move to the next. Prints the
median, 95th percentile and maximum in milliseconds, and the one-off costs: the bear-off
table (computed on first use) and the match equity table.

Targets on the project's 2-core machine (issue 14): Expert median <= 250 ms, 95th percentile
<= 1 s, maximum <= 3 s; Hard median <= 50 ms. The machine is shared: run it when it is quiet,
and read the medians. The nets' weights load once before the timing starts.

Usage: python bench/ai_speed.py [--positions N] [--levels easy,medium,hard,expert,master,classic]
       [--shared PATH]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from pathlib import Path

from backgammon.ai import bearoff, met
from backgammon.ai.choose import AnyEvaluator
from backgammon.ai.levels import get_level
from backgammon.ai.nets import default_nets
from backgammon.ai.netsearch import NetEvaluator
from backgammon.ai.player import ComputerPlayer
from backgammon.ai.search import Evaluator
from backgammon.training.positions import real_moves, sample_positions


def default_shared() -> Path:
    env = os.environ.get("BACKGAMMON_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--levels", default="easy,medium,hard,expert")
    parser.add_argument("--shared", type=Path, default=default_shared())
    args = parser.parse_args()

    start = time.perf_counter()
    bearoff.default_table()
    table_s = time.perf_counter() - start
    start = time.perf_counter()
    met.MatchEquityTable()
    met_s = time.perf_counter() - start
    start = time.perf_counter()
    default_nets()
    nets_s = time.perf_counter() - start
    print(f"one-off: bear-off table {table_s:.2f} s, match equity table {met_s:.2f} s, "
          f"nets {nets_s:.2f} s")

    cases = sample_positions(real_moves(args.shared / "mat"), args.positions)
    print(f"{len(cases)} positions from {args.shared / 'mat'}")
    print(f"{'level':<8} {'median':>9} {'p95':>9} {'max':>9} {'mean':>9}   (ms per move)")
    clock = time.perf_counter
    for name in args.levels.split(","):
        fresh: AnyEvaluator = (Evaluator() if get_level(name).evaluation == "classic"
                               else NetEvaluator())
        player = ComputerPlayer(name, random.Random(0), fresh)
        times = []
        slowest = None
        for case in cases:
            t0 = clock()
            player.play(case.position, case.dice)
            elapsed = clock() - t0
            times.append(elapsed * 1000)
            if elapsed * 1000 >= max(times):
                slowest = case
        print(f"{name:<8} {statistics.median(times):>9.1f} {percentile(times, 0.95):>9.1f} "
              f"{max(times):>9.1f} {statistics.fmean(times):>9.1f}")
        if slowest is not None:
            print(f"         slowest: {slowest.position.id()} {slowest.dice[0]}{slowest.dice[1]} "
                  f"({slowest.source})")


if __name__ == "__main__":
    main()
