"""Adjust the evaluation's hand-set weights towards the plays of strong players.

    python -m backgammon.training.tune_eval --passes 3

The weights of :mod:`backgammon.ai.evaluation` started as values set by hand from the usual
guidance; this script then moves them, one at a time (coordinate search: each weight tried a
step up and a step down, the step halved when neither helps), to raise the likelihood that the
1-ply search picks the play GNU Backgammon made in the self-play transcripts of
``shared/mat/`` (the odd-numbered rolls; the even ones are held out and reported). The
likelihood is that of a softmax over the plays' cubeless equities with a fitted temperature,
which is smoother than the share of agreements, also reported. It prints the weights found;
copying them into ``evaluation.py`` is a deliberate, reviewed step.

Result so far (see :mod:`backgammon.ai.evaluation`): the tuned weights raise the 1-ply
search's agreement but not the 2-ply search's, which plays from the same evaluation one roll
deeper; tuning a static evaluation to one search depth folds that depth's blind spots into it.
They are not used. A future tuner should score the 2-ply choice, or fit to game outcomes.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

from backgammon.ai import evaluation
from backgammon.ai.features import Board
from backgammon.ai.winprob import equity, probabilities
from backgammon.core.moves import legal_plays
from backgammon.training.positions import real_moves

#: One case: the boards of every legal play and the index of the one that was played.
Case = tuple[list[Board], int]


def load_cases(mat_dir: Path) -> tuple[list[Case], list[Case]]:
    """(tuning cases, held-out cases) from the transcripts: rolls with a choice."""
    tune: list[Case] = []
    held: list[Case] = []
    for n, move in enumerate(real_moves(mat_dir)):
        if move.result is None:
            continue
        legal = legal_plays(move.position, move.dice)
        if len(legal) < 2:
            continue
        boards = legal.own_boards()
        target = move.result.own_points(move.result.turn)
        index = boards.index(target)
        (tune if n % 2 else held).append((boards, index))
    return tune, held


def score(cases: list[Case], temperature: float) -> tuple[float, float]:
    """(mean log-likelihood of the plays made, share of agreements)."""
    total = 0.0
    agree = 0
    cache: dict[Board, float] = {}
    for boards, index in cases:
        values = []
        for board in boards:
            value = cache.get(board)
            if value is None:
                value = equity(probabilities(board))
                cache[board] = value
            values.append(value)
        best = max(values)
        agree += values[index] == best and values.index(best) == index
        z = sum(math.exp((v - best) / temperature) for v in values)
        total += (values[index] - best) / temperature - math.log(z)
    return total / len(cases), agree / len(cases)


class Weight:
    """One tunable number: a module constant or one entry of a tuple constant."""

    def __init__(self, name: str, index: int | None = None, step: float = 0.5) -> None:
        self.name = name
        self.index = index
        self.step = step

    def get(self) -> float:
        value = getattr(evaluation, self.name)
        return float(value if self.index is None else value[self.index])

    def set(self, value: float) -> None:
        if self.index is None:
            setattr(evaluation, self.name, value)
        else:
            old = list(getattr(evaluation, self.name))
            old[self.index] = value
            setattr(evaluation, self.name, tuple(old))

    def __str__(self) -> str:
        return self.name if self.index is None else f"{self.name}[{self.index}]"


def weights() -> list[Weight]:
    """The weights searched."""
    found = [Weight("POINT_VALUE", i) for i in range(1, 25)]
    found += [Weight("PRIME_BONUS", i, 1.0) for i in range(3, 7)]
    found += [Weight("BAR_PENALTY", i) for i in range(7)]
    found += [
        Weight("STACK_PENALTY", step=0.2),
        Weight("HIT_PIP_SHARE", step=0.1),
        Weight("HIT_TEMPO", step=1.0),
        Weight("HIT_BOARD", step=0.5),
    ]
    found += [Weight(name, step=0.5) for name in getattr(evaluation, "TUNABLE_EXTRA", ())]
    return found


def best_temperature(cases: list[Case]) -> float:
    """The softmax temperature (equity points) with the highest likelihood, on a grid."""
    grid = [0.005 * 1.4**k for k in range(12)]
    return max(grid, key=lambda t: score(cases, t)[0])


def search(
    cases: list[Case], passes: int, report: Callable[[str], None]
) -> list[Weight]:
    """Coordinate search; leaves the best weights set in the module and returns them."""
    temperature = best_temperature(cases)
    current, _ = score(cases, temperature)
    found = weights()
    for pass_no in range(passes):
        improved = 0
        for weight in found:
            base = weight.get()
            best_value, best_score = base, current
            for candidate in (base + weight.step, base - weight.step):
                weight.set(candidate)
                value, _ = score(cases, temperature)
                if value > best_score + 1e-6:
                    best_value, best_score = candidate, value
            weight.set(best_value)
            if best_value != base:
                improved += 1
                current = best_score
            else:
                weight.step /= 2
        temperature = best_temperature(cases)
        current, agree = score(cases, temperature)
        report(f"pass {pass_no + 1}: log-likelihood {current:.4f}, agreement {agree:.3f}, "
               f"temperature {temperature:.4f}, {improved} weights moved")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--mat", type=Path, default=Path(__file__).resolve().parents[4]
                        / "shared" / "mat", help="the directory of the transcripts")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    tune, held = load_cases(args.mat)
    temperature = best_temperature(tune)
    print(f"{len(tune)} tuning cases, {len(held)} held out; before: tune {score(tune, temperature)}"
          f", held out {score(held, temperature)}")
    found = search(tune, args.passes, print)
    temperature = best_temperature(tune)
    print(f"after: tune {score(tune, temperature)}, held out {score(held, temperature)}, "
          f"{time.perf_counter() - start:.0f} s")
    names = sorted({w.name for w in found})
    for name in names:
        value = getattr(evaluation, name)
        if isinstance(value, tuple):
            print(f"{name} = {tuple(round(v, 3) for v in value)}")
        else:
            print(f"{name} = {round(value, 3)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
