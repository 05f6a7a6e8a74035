"""Our nets' and our rollouts' equities before the roll beside GNU Backgammon's, by kind.

The positions are those of rollout targets files (``backgammon.training.rollout_targets``):
contact positions before the roll, each with its rolled-out chances. For each position this
bench takes the cubeless money equity of the side on roll (in points) three ways: our nets at
0-ply (the shipped ones, and each ``--weights`` file beside them), our rollout (the targets),
and GNU Backgammon at ``--plies`` (2 by default: its world-class evaluation, with its pruning
nets), and prints, for each kind of position:

* the mean of rollout minus net (how far a fit to the rollouts would move the net there);
* on up to ``--positions`` of them drawn by ``--seed``: the mean and the mean absolute value
  of rollout minus gnubg and of each net minus gnubg.

The kinds: the side on roll holds two or more points in the other's home board (a back game or
holding game from the side on roll's view), the other side does, and the rest. gnubg here is an
outside reference to measure against, never a source of targets (issue 37: our own play and
rollouts only).

``--held-out`` keeps only the positions that ``python -m backgammon.training.supervised`` held
out with its default ``--seed`` and ``--valid`` (or those given), the files given in the same
order as to the fit, so that a fitted net is measured on positions it never saw.

Run::

    python bench/gnubg_equity.py checkpoints/targets/full18-*.npz --weights fitted.npz --held-out
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import numpy as np
import numpy.typing as npt

from backgammon.ai.encoding import encode
from backgammon.ai.nets import WeightsError, consistent, default_nets, load_weights
from backgammon.ai.neural import equities
from backgammon.core.position import Position
from backgammon.core.types import WHITE
from backgammon.training.rollout_targets import load_targets
from backgammon.training.supervised import FitSettings, split

#: The kinds of position, in the order printed.
KINDS = ("the side on roll holds 2+ points in the other's home board",
         "the other side holds 2+ points in the side on roll's home board",
         "neither")


def kinds(boards: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    """The index in :data:`KINDS` of each board ``(N, 26)`` (side on roll's numbering: its
    points 1..24 positive, the other's negative; the other's home board is 19..24)."""
    own = (boards[:, 19:25] >= 2).sum(axis=1) >= 2
    other = (boards[:, 1:7] <= -2).sum(axis=1) >= 2
    return np.where(own, 0, np.where(other, 1, 2))


def versus(d: npt.NDArray[np.float64], name: str) -> str:
    """``name``'s differences ``d`` from gnubg, as printed: their mean and mean size."""
    return f"{name} - gnubg {np.mean(d):+.3f} (mean |.| {np.mean(np.abs(d)):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", type=Path, nargs="+", help="rollout targets files (.npz)")
    parser.add_argument("--weights", type=Path, action="append", default=[],
                        help="a weights file to measure beside the shipped nets (repeatable)")
    parser.add_argument("--positions", type=int, default=150,
                        help="positions of each kind judged by gnubg")
    parser.add_argument("--plies", type=int, choices=[0, 1, 2], default=2)
    parser.add_argument("--seed", type=int, default=1, help="the draw of the judged positions")
    parser.add_argument("--held-out", action="store_true",
                        help="only the positions a fit holds out (its --seed and --valid below)")
    parser.add_argument("--fit-seed", type=int, default=FitSettings().seed)
    parser.add_argument("--fit-valid", type=float, default=FitSettings().valid)
    args = parser.parse_args()
    try:
        import gnubg  # noqa: F401  (the outside judge; not a dependency of the package)
    except ImportError:
        raise SystemExit("GNU Backgammon's Python package (gnubg) is not installed: "
                         "pip install -e '.[bench]'") from None
    from gnubg_judge import Judge  # beside this script

    try:
        parts = [load_targets(path) for path in args.files]
        nets = {"shipped": default_nets()} | {w.stem: load_weights(w) for w in args.weights}
    except (ValueError, OSError, WeightsError) as error:
        raise SystemExit(f"error: {error}") from None
    boards = np.concatenate([b for b, _, _, _ in parts])
    rollout = equities(np.concatenate([p for _, p, _, _ in parts]))
    x = encode(boards)
    ours = {name: equities(consistent(n.contact(x).copy())) for name, n in nets.items()}
    rows = np.arange(len(boards))
    if args.held_out:
        rows = np.sort(split(len(boards), FitSettings(seed=args.fit_seed,
                                                      valid=args.fit_valid))[0])
    kind = kinds(boards)
    judge = Judge(args.plies, True)
    rng = random.Random(args.seed)
    print(f"{len(boards)} positions in {len(args.files)} files"
          + (f", {len(rows)} of them held out" if args.held_out else "")
          + f"; gnubg {args.plies}-ply; equity of the side on roll, cubeless money, points")
    for k, label in enumerate(KINDS):
        these = [int(i) for i in rows if kind[i] == k]
        if not these:
            print(f"{label}: none")
            continue
        gaps = ", ".join(f"rollout - {name} {np.mean(rollout[these] - e[these]):+.3f}"
                         for name, e in ours.items())
        print(f"{label}: {len(these)} positions; {gaps}")
        judged = sorted(rng.sample(these, min(args.positions, len(these))))
        gnubg_eq = np.array([judge.pre_roll_equity(Position.from_points(
            [int(v) for v in boards[i]], WHITE)) for i in judged])

        columns = {"rollout": rollout} | ours
        print(f"    {len(judged)} judged: " + "; ".join(
            versus(values[judged] - gnubg_eq, name) for name, values in columns.items()))


if __name__ == "__main__":
    main()
