"""Fit the win-probability constants of :mod:`backgammon.ai.winprob` on self-play outcomes.

    python -m backgammon.training.fit_winprob --games 3000 --seed 1 --write

Plays ``--games`` seeded games (cube off, both sides at ``--level``), records every position
after a play with the result of its game from the mover's view, and fits each logistic model of
:mod:`backgammon.ai.winprob` by maximum likelihood (iteratively reweighted least squares with a
small ridge penalty): P(win) for contact and race positions, P(gammon | win) and P(gammon |
loss) for each, and P(backgammon | gammon) for contact. Positions where both sides are all home
(exact bear-off chances) and finished ones are left out. ``--rounds 2`` refits on games played
with the first round's constants. With ``--write`` the constants are written to
``src/backgammon/ai/winprob_constants.py``, with the data they came from in its docstring.

Features, per position (see winprob's docstring): x = score / sqrt(pips of both sides) for
contact, d = effective pip lead / sqrt(effective pips of both) for races.
"""

from __future__ import annotations

import argparse
import importlib
import math
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from backgammon.ai import winprob_constants
from backgammon.ai.evaluation import contact_terms, race_terms
from backgammon.ai.features import Board
from backgammon.ai.player import ComputerPlayer
from backgammon.ai.search import Evaluator
from backgammon.ai.selfplay import play_game
from backgammon.core.game import GameSettings
from backgammon.core.types import BLACK, WHITE

Array = npt.NDArray[np.float64]

#: The models: name -> number of features (the order of winprob_constants).
MODELS = {
    "CONTACT_WIN": 2,
    "CONTACT_GAMMON_WIN": 4,
    "CONTACT_GAMMON_LOSE": 4,
    "CONTACT_BACKGAMMON_WIN": 2,
    "CONTACT_BACKGAMMON_LOSE": 2,
    "RACE_WIN": 3,
    "RACE_GAMMON_WIN": 4,
    "RACE_GAMMON_LOSE": 4,
}


@dataclass
class Samples:
    """Feature rows and 0/1 labels per model."""

    rows: dict[str, list[tuple[float, ...]]] = field(
        default_factory=lambda: {name: [] for name in MODELS}
    )
    labels: dict[str, list[int]] = field(default_factory=lambda: {name: [] for name in MODELS})
    games: int = 0
    gammons: int = 0
    positions: int = 0

    def add(self, name: str, row: tuple[float, ...], label: bool) -> None:
        self.rows[name].append(row)
        self.labels[name].append(int(label))


def _regime(b: Board) -> str:
    """``"contact"``, ``"race"``, ``"bearoff"`` (both all home) or ``"over"``."""
    mine = [i for i in range(1, 26) if b[i] > 0]
    if not mine:
        return "over"
    theirs = [i for i in range(0, 25) if b[i] < 0]
    if min(theirs) < max(mine):
        return "contact"
    if max(mine) <= 6 and min(theirs) >= 19:
        return "bearoff"
    return "race"


def add_position(samples: Samples, b: Board, won: bool, gammon: bool, backgammon: bool) -> None:
    """Add one position (mover's numbering, opponent to roll) and its game's result."""
    regime = _regime(b)
    if regime == "contact":
        t = contact_terms(b)
        x = t.score / math.sqrt(t.my_pips + t.opp_pips)
        samples.add("CONTACT_WIN", (1.0, x), won)
        if won and t.opp_off == 0:
            samples.add("CONTACT_GAMMON_WIN", (1.0, x, t.opp_need / 10, t.my_pips / 10), gammon)
            if gammon and t.opp_back:
                samples.add("CONTACT_BACKGAMMON_WIN", (1.0, float(t.opp_back)), backgammon)
        if not won and t.my_off == 0:
            samples.add("CONTACT_GAMMON_LOSE", (1.0, -x, t.my_need / 10, t.opp_pips / 10), gammon)
            if gammon and t.my_back:
                samples.add("CONTACT_BACKGAMMON_LOSE", (1.0, float(t.my_back)), backgammon)
    elif regime == "race":
        r = race_terms(b)
        root = math.sqrt(r.my_epc + r.opp_epc)
        d = (r.opp_epc - r.my_epc) / root
        samples.add("RACE_WIN", (1.0, d, 1.0 / root), won)
        if won and r.opp_off == 0:
            samples.add("RACE_GAMMON_WIN", (1.0, d, r.opp_need / 10, r.my_pips / 10), gammon)
        if not won and r.my_off == 0:
            samples.add("RACE_GAMMON_LOSE", (1.0, -d, r.my_need / 10, r.opp_pips / 10), gammon)


def collect(games: int, level: str, seed: int, progress: bool = True) -> Samples:
    """Play ``games`` seeded self-play games and gather every model's samples."""
    samples = Samples()
    evaluator = Evaluator()
    start = time.perf_counter()
    for i in range(games):
        base = seed * 1_000_003 + i
        players = {
            WHITE: ComputerPlayer(level, random.Random(2 * base + 1), evaluator),
            BLACK: ComputerPlayer(level, random.Random(2 * base + 2), evaluator),
        }
        result = play_game(players, GameSettings(), random.Random(base), record=True)
        outcome = result.outcome
        kind = int(outcome.result_kind)
        samples.games += 1
        samples.gammons += kind >= 2
        for board, mover in result.boards:
            samples.positions += 1
            add_position(samples, board, mover is outcome.winner, kind >= 2, kind >= 3)
        if progress and (i + 1) % 100 == 0:
            rate = (i + 1) / (time.perf_counter() - start)
            print(f"  {i + 1}/{games} games ({rate:.1f} games/s)", file=sys.stderr)
    return samples


def fit_logistic(x: Array, y: Array, ridge: float = 1e-3, iterations: int = 50) -> Array:
    """Maximum-likelihood logistic regression by Newton's method (IRLS), with an L2 penalty
    ``ridge`` on every coefficient but the first (the intercept).

    Args:
        x: ``(n, k)`` features, the first column all ones.
        y: ``(n,)`` labels 0/1.

    Returns:
        ``(k,)`` coefficients.
    """
    n, k = x.shape
    w = np.zeros(k)
    penalty = np.full(k, ridge * n)
    penalty[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (y - p) - penalty * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + np.diag(penalty) + 1e-9 * np.eye(k)
        step = np.linalg.solve(hess, grad)
        w += step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def log_loss(x: Array, y: Array, w: Array) -> float:
    """Mean negative log-likelihood (nats) of labels ``y`` under coefficients ``w``."""
    p = np.clip(1.0 / (1.0 + np.exp(-(x @ w))), 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def fit_all(samples: Samples) -> tuple[dict[str, tuple[float, ...]], list[str]]:
    """Fit every model; returns the constants and one report line per model."""
    constants: dict[str, tuple[float, ...]] = {}
    report: list[str] = []
    for name, width in MODELS.items():
        rows = samples.rows[name]
        old = tuple(getattr(winprob_constants, name))
        if len(rows) < 50:
            constants[name] = old
            report.append(f"{name}: {len(rows)} samples, too few: kept {old}")
            continue
        x = np.array(rows, dtype=float).reshape(-1, width)
        y = np.array(samples.labels[name], dtype=float)
        w = fit_logistic(x, y)
        constants[name] = tuple(round(float(v), 4) for v in w)
        base = log_loss(x, y, np.array([math.log(max(y.mean(), 1e-6) / max(1 - y.mean(), 1e-6))]
                                       + [0.0] * (width - 1)))
        report.append(
            f"{name}: {len(rows)} samples, rate {y.mean():.3f}, log loss {log_loss(x, y, w):.4f} "
            f"(constant model {base:.4f}): {constants[name]}"
        )
    return constants, report


def write_constants(
    path: Path, constants: dict[str, tuple[float, ...]], gammon_rate: float, note: str
) -> None:
    """Write ``winprob_constants.py``."""
    lines = [
        '"""Fitted constants of :mod:`backgammon.ai.winprob` (see that module for the models).',
        "",
        "Written by ``python -m backgammon.training.fit_winprob``; do not edit by hand.",
        note,
        '"""',
        "",
    ]
    for name in MODELS:
        lines.append(f"{name} = {constants[name]!r}")
    lines.append("#: Share of games ending in a gammon or backgammon, for the match equity table.")
    lines.append(f"GAMMON_RATE = {gammon_rate:.4f}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3000, help="self-play games per round")
    parser.add_argument("--level", default="medium", help="level of both players")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first round")
    parser.add_argument("--rounds", type=int, default=1, help="fit, replay with the fit, refit")
    parser.add_argument("--write", action="store_true", help="write winprob_constants.py")
    args = parser.parse_args(argv)
    path = Path(winprob_constants.__file__)
    for round_no in range(args.rounds):
        seed = args.seed + round_no
        print(f"round {round_no + 1}: {args.games} games at {args.level}, seed {seed}",
              file=sys.stderr)
        start = time.perf_counter()
        samples = collect(args.games, args.level, seed)
        elapsed = time.perf_counter() - start
        constants, report = fit_all(samples)
        gammon_rate = samples.gammons / max(samples.games, 1)
        print(f"{samples.games} games, {samples.positions} positions, gammon rate "
              f"{gammon_rate:.4f}, {elapsed:.0f} s")
        for line in report:
            print(line)
        note = (
            f"\nFitted on {samples.games} self-play games ({samples.positions} positions), both "
            f"sides {args.level!r}, cube off, seed {seed},\nround {round_no + 1} of "
            f"{args.rounds}; games ending in a gammon or backgammon: {gammon_rate:.4f}."
        )
        if args.write:
            write_constants(path, constants, gammon_rate, note)
            importlib.reload(winprob_constants)
            print(f"wrote {path}", file=sys.stderr)
        else:
            for name, value in constants.items():
                setattr(winprob_constants, name, value)
            winprob_constants.GAMMON_RATE = gammon_rate
    return 0


if __name__ == "__main__":
    sys.exit(main())
