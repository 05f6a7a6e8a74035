"""Fit the contact net to rolled-out targets: ``python -m backgammon.training.supervised``.

The data are files of :mod:`backgammon.training.rollout_targets` (contact positions before
the roll and their rolled-out chances, from our own nets' games and rollouts only). The
method is plain supervised regression, as GNU Backgammon's nets were refined on rollouts
(its manual, "How GNU Backgammon's neural nets were trained"):

* **Split.** A share ``valid`` of the positions (drawn by ``seed``) is held out; the rest is
  the training set.
* **Steps.** Minibatch gradient descent on the squared error of the contact net's five
  outputs (:meth:`backgammon.ai.nets.Net.train_step`, the same loss as TD training), in
  ``epochs`` passes over the training set in an order drawn by ``seed``, ``rate`` the step
  size summed over a batch of ``batch`` rows.
* **Anchor.** ``anchor`` (a ratio, 0 by default) adds that many positions per rolled-out one,
  drawn from the nets' own games the same way (another seed), each with the starting nets'
  own outputs as its target, so the fit moves the net only where the rollouts say it is wrong.
* **Kept.** After each epoch the held-out error (mean squared error of the five chances, and
  the mean absolute error of the cubeless money equity) is printed; the weights of the best
  epoch by the held-out squared error go to ``--out`` (the race net as it was), with the fit's
  settings and figures added to the file's history.

Judge the result as any checkpoint: ``bench/ai_strength.py --judge gnubg --weights OUT``
(``--losses``/``--paired`` to compare it roll by roll with the nets it started from).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from backgammon.ai.encoding import encode
from backgammon.ai.nets import (
    Net,
    NetSet,
    WeightsError,
    consistent,
    default_nets,
    load_weights,
    save_weights,
    single_threaded_blas,
)
from backgammon.ai.neural import equities
from backgammon.training.rollout_targets import TargetSettings, load_targets, sample_positions

Floats = npt.NDArray[np.float32]


@dataclass(frozen=True)
class FitSettings:
    """One fit's settings (kept in the weights file's history)."""

    epochs: int = 10
    rate: float = 0.01
    batch: int = 32
    valid: float = 0.1
    seed: int = 1
    anchor: float = 0.0


@dataclass(frozen=True)
class Scores:
    """Held-out figures: ``mse`` of the five chances, ``equity_mae`` of the cubeless money
    equity, against the rollouts."""

    mse: float
    equity_mae: float


def score(net: Net, x: Floats, y: Floats) -> Scores:
    """The net's :class:`Scores` on inputs ``x`` ``(N, I)`` and targets ``y`` ``(N, 5)``."""
    p = consistent(net(x).copy())
    return Scores(float(((p - y) ** 2).mean()), float(np.abs(equities(p) - equities(y)).mean()))


def split(n: int, settings: FitSettings, rng: np.random.Generator | None = None
          ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The rows of ``n`` positions that :func:`fit` holds out and the rows it fits:
    ``(valid_rows, train_rows)``, a share ``settings.valid`` held out (at least one, and at
    least one left to fit), drawn by ``settings.seed`` (or by ``rng``, :func:`fit`'s own).

    Raises:
        ValueError: ``n`` is below 2.
    """
    if n < 2:
        raise ValueError(f"need 2 or more positions to hold some out, got {n}")
    order = (rng if rng is not None else np.random.default_rng(settings.seed)).permutation(n)
    held = min(max(1, round(settings.valid * n)), n - 1)
    return order[:held], order[held:]


def fit(nets: NetSet, boards: npt.NDArray[np.int8], targets: Floats, settings: FitSettings,
        quiet: bool = False) -> tuple[NetSet, list[Scores]]:
    """Fit a copy of ``nets``'s contact net to ``targets`` ``(N, 5)`` (the side on roll's
    chances) of ``boards`` ``(N, 26)`` (side on roll's numbering). Returns the nets of the
    best epoch and the held-out scores, before the fit first, then after each epoch.

    Raises:
        ValueError: fewer than 2 positions, or shapes that do not agree.
    """
    if len(boards) < 2 or len(boards) != len(targets):
        raise ValueError(f"need 2 or more positions with a target each, got {len(boards)} "
                         f"boards and {len(targets)} targets")
    rng = np.random.default_rng(settings.seed)
    valid_rows, train_rows = split(len(boards), settings, rng)
    held = len(valid_rows)
    x = encode(boards)
    y = targets.astype(np.float32)
    x_valid, y_valid = x[valid_rows], y[valid_rows]
    x_train, y_train = x[train_rows], y[train_rows]
    start = nets.copy()
    if settings.anchor > 0:
        extra = round(settings.anchor * len(train_rows))
        anchors = sample_positions(nets, TargetSettings(positions=extra,
                                                        seed=10_000 + settings.seed))
        xa = encode(anchors)
        x_train = np.concatenate([x_train, xa])
        y_train = np.concatenate([y_train, consistent(start.contact(xa).copy())])
    net = start.contact.copy()
    scores = [score(net, x_valid, y_valid)]
    best = (scores[0].mse, net.copy())
    if not quiet:
        print(f"before: held-out mse {scores[0].mse:.5f}, equity error "
              f"{scores[0].equity_mae:.4f} ({len(train_rows)} to fit, {held} held out)",
              flush=True)
    for epoch in range(1, settings.epochs + 1):
        perm = rng.permutation(len(x_train))
        for i in range(0, len(perm), settings.batch):
            rows = perm[i: i + settings.batch]
            net.train_step(x_train[rows], y_train[rows], settings.rate)
        scores.append(score(net, x_valid, y_valid))
        if scores[-1].mse < best[0]:
            best = (scores[-1].mse, net.copy())
        if not quiet:
            print(f"epoch {epoch}: held-out mse {scores[-1].mse:.5f}, equity error "
                  f"{scores[-1].equity_mae:.4f}", flush=True)
    out = NetSet(best[1], start.race.copy(), start.meta)
    out.meta.setdefault("history", []).append({
        "supervised": asdict(settings), "positions": len(boards),
        "held_out_before": asdict(scores[0]),
        "held_out_best": asdict(min(scores, key=lambda s: s.mse))})
    return out, scores


def _parser() -> argparse.ArgumentParser:
    d = FitSettings()
    p = argparse.ArgumentParser(
        prog="python -m backgammon.training.supervised",
        description="Fit the contact net to rolled-out targets "
                    "(files of backgammon.training.rollout_targets).")
    p.add_argument("--data", type=Path, nargs="+", required=True, help="targets files (.npz)")
    p.add_argument("--out", type=Path, required=True, help="the weights file to write")
    p.add_argument("--weights", type=Path, default=None,
                   help="the nets to start from (default: shipped)")
    p.add_argument("--epochs", type=int, default=d.epochs)
    p.add_argument("--rate", type=float, default=d.rate)
    p.add_argument("--batch", type=int, default=d.batch)
    p.add_argument("--valid", type=float, default=d.valid, help="share held out")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--anchor", type=float, default=d.anchor,
                   help="positions with the starting nets' own values per rolled-out one")
    p.add_argument("--quiet", action="store_true")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.epochs < 1 or args.batch < 1:
        parser.error("--epochs and --batch must be >= 1")
    if not args.rate > 0:
        parser.error(f"--rate must be above 0, got {args.rate}")
    if not 0.0 < args.valid < 1.0:
        parser.error(f"--valid must be between 0 and 1, got {args.valid}")
    if args.anchor < 0:
        parser.error(f"--anchor must be >= 0, got {args.anchor}")
    single_threaded_blas()
    try:
        nets = load_weights(args.weights) if args.weights is not None else default_nets()
        parts = [load_targets(path) for path in args.data]
    except (WeightsError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    boards = np.concatenate([b for b, _, _, _ in parts])
    targets = np.concatenate([p for _, p, _, _ in parts])
    settings = FitSettings(args.epochs, args.rate, args.batch, args.valid, args.seed,
                           args.anchor)
    try:
        out, _ = fit(nets, boards, targets, settings, args.quiet)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    save_weights(out, args.out)
    return 0


__all__ = ["FitSettings", "Scores", "fit", "main", "score", "split"]

if __name__ == "__main__":
    raise SystemExit(main())
