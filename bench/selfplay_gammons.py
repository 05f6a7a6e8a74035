"""How often the nets' own 0-ply self-play from the opening ends in a gammon: a health check of
a training run.

TD(λ) self-play learns the chances of its own play: if that play grows quieter (fewer attacks),
the nets come to rate gammons lower everywhere, and plays that aim for gammons lower than a
stronger player does. This bench plays ``--games`` cubeless money games of the nets (the shipped
ones, or ``--weights CHECKPOINT``) against themselves, 0-ply and greedy as in training
(:func:`backgammon.training.td.play_cubeless`), game i with the dice of
``random.Random(--seed + i)``, and prints how the games ended (single, gammon, backgammon, by
the side that opened), the share of gammons and backgammons with a 95 % interval, and beside it
the nets' own chances of a gammon at the start (their 0-ply evaluation of the starting
position, either side's gammons).

Figures so far are in ``checkpoints/README.md``.

Usage: OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/selfplay_gammons.py \
           [--weights CHECKPOINT] [--games 1500] [--seed 10000]
"""

from __future__ import annotations

import argparse
import math
import random
from collections import Counter
from pathlib import Path

import numpy as np

from backgammon.ai.nets import default_nets, use_weights
from backgammon.ai.neural import on_roll_probabilities
from backgammon.training.td import START, net_chooser, play_cubeless


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--weights", type=Path, help="a weights file in place of the shipped "
                        "nets")
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=10_000)
    args = parser.parse_args()
    nets = use_weights(args.weights) if args.weights else default_nets()
    start = on_roll_probabilities(np.asarray([START], dtype=np.int8), nets)[0]
    chooser = net_chooser(nets)
    ended: Counter[int] = Counter()
    for i in range(args.games):
        ended[play_cubeless(chooser, chooser, random.Random(args.seed + i))] += 1
    games = sum(ended.values())
    share = sum(n for points, n in ended.items() if abs(points) >= 2) / games
    half = 1.96 * math.sqrt(share * (1 - share) / games)
    print(f"nets: {args.weights or 'shipped'} ({nets.meta.get('games', '?')} games of training)")
    print("games ended (points to the side that opened): "
          + ", ".join(f"{points:+d}: {ended[points]}" for points in sorted(ended)))
    print(f"gammons and backgammons: {100 * share:.1f} % ± {100 * half:.1f} of {games} games")
    print(f"the nets' own chances at the start: gammon {100 * (start[1] + start[3]):.1f} % "
          f"(won {100 * start[1]:.1f}, lost {100 * start[3]:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
