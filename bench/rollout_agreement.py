"""Our rollouts beside GNU Backgammon's on contact positions nobody picked.

The positions: ``--positions N`` contact positions taken evenly through the rolls of gnubg's
self-play matches (``SHARED/mat/gnubg_selfplay_*.mat``, the position before each roll), so no
position is chosen for how it comes out. Each is rolled out before the roll by both programs
with the same settings (:mod:`rollout_speed`'s: cubeless, 0-ply players, variance reduction and
quasi-random dice, the same seed, stopping at the one-sided bear-off table; played to the end
unless ``--truncate``). A position agrees when the two equities are within two combined
standard errors (``|z| < 2``, ``z = (ours - gnubg's) / sqrt(se_ours^2 + se_gnubg^2)``).

Where gnubg's Python package is installed the table also gives both programs' 0-ply equity of
the position: the players of a rollout are these evaluations, so where they differ the two
rollouts measure two different players' games and part as the trials grow.

Issue 37 asks for 20 contact positions within two standard errors. Needs the Debian ``gnubg``
program (:func:`rollout_speed.find_gnubg`).

Usage: OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/rollout_agreement.py [--positions 20]
[--trials 144] [--truncate 0] [--seed 7] [--jobs 2] [--shared PATH]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np

from backgammon.ai.features import board_of, has_contact
from backgammon.ai.nets import default_nets
from backgammon.ai.neural import equities, on_roll_probabilities
from backgammon.ai.rollout import RolloutSettings, rollout
from backgammon.core.position import Position
from backgammon.training.positions import real_moves
from rollout_speed import find_gnubg, gnubg_rollouts


def contact_positions(mat_dir: Path, count: int) -> list[Position]:
    """``count`` positions before a roll, in contact, evenly spaced through the rolls of the
    matches in ``mat_dir`` (the same ones on every run)."""
    seen: set[tuple[str, str]] = set()
    found: list[Position] = []
    for move in real_moves(mat_dir):
        key = (move.position.id(), str(move.position.turn))
        if key in seen or not has_contact(board_of(move.position)):
            continue
        seen.add(key)
        found.append(move.position)
    if len(found) <= count:
        return found
    step = len(found) / count
    return [found[int(i * step)] for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--trials", type=int, default=144)
    parser.add_argument("--truncate", type=int, default=0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--shared", type=Path, default=Path(
        os.environ.get("BACKGAMMON_SHARED") or Path(__file__).resolve().parents[2] / "shared"),
                        help="the reference data (default $BACKGAMMON_SHARED, else ../shared)")
    args = parser.parse_args()
    if find_gnubg() is None:
        raise SystemExit("GNU Backgammon (gnubg) is not installed: nothing to compare with")
    positions = contact_positions(args.shared / "mat", args.positions)
    xgids = [p.xgid() for p in positions]
    print(f"{len(positions)} contact positions from {args.shared / 'mat'}; {args.trials} trials, "
          f"{'to the end' if not args.truncate else f'truncated at {args.truncate}'}, 0-ply, "
          f"variance reduction, quasi-random dice, seed {args.seed}", flush=True)
    started = time.perf_counter()
    theirs, _ = gnubg_rollouts(xgids, args.trials, args.truncate, args.seed, threads=args.jobs,
                               timeout=3600)
    try:
        import gnubg_judge
        judge = gnubg_judge.Judge(plies=0, prune=False)
    except ImportError:
        judge = None
    settings = RolloutSettings(trials=args.trials, truncate=args.truncate, seed=args.seed)
    agree = 0
    print(f"{'XGID':<52} {'ours':>16} {'gnubg':>16} {'z':>6}  0-ply ours / gnubg")
    for position, xgid, gnubg in zip(positions, xgids, theirs, strict=True):
        ours = rollout(position, settings=settings, jobs=args.jobs).best
        z = (ours.equity - gnubg.equity) / math.hypot(ours.se, gnubg.se)
        agree += abs(z) < 2
        zero = float(equities(on_roll_probabilities(np.array([board_of(position)]),
                                                    default_nets()))[0])
        theirs0 = f"{judge.pre_roll_equity(position):+.3f}" if judge is not None else "-"
        print(f"{xgid:<52} {ours.equity:+.4f} ({ours.se:.4f}) {gnubg.equity:+.4f} "
              f"({gnubg.se:.4f}) {z:+6.2f}  {zero:+.3f} / {theirs0}", flush=True)
    print(f"within two standard errors: {agree} of {len(positions)} "
          f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
