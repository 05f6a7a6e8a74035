"""Our nets' equities before the roll beside GNU Backgammon's, on drawn training starts.

``backgammon train`` can start a share of its games from drawn positions
(:mod:`backgammon.training.starts`): back games and holding games (``--back-games``), blitzes
(``--blitz``) and prime-versus-prime positions (``--primes``), because the nets misjudge such
positions, which greedy self-play from the opening seldom reaches. This bench measures how far:
for ``--positions`` positions of each kind, drawn with ``--seed``, it takes the cubeless money
equity of the side on roll (in points) by our nets at 0-ply (the shipped ones, and each
``--weights`` file beside them) and by GNU Backgammon at ``--plies`` (2 by default: its
world-class evaluation, with its pruning nets), and prints for each kind and each net the mean
of ours minus gnubg's, its mean size, and, for each ``--weights`` file, how much smaller that
size is than the shipped nets' (mean of the paired differences, with its 95 % interval).

gnubg is an outside reference to measure against here, never a source of targets (issue 37).
Its answers are cached in ``bench/.cache/`` (one file per gnubg version and depth).

Run::

    python bench/gnubg_starts.py --weights train-out/nets.npz [--draw primes] [--positions 150]
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ai_strength import mean_interval
from backgammon.ai.encoding import encode
from backgammon.ai.nets import WeightsError, consistent, default_nets, load_weights
from backgammon.ai.neural import equities
from backgammon.core.position import Position
from backgammon.core.types import WHITE
from backgammon.training.starts import back_game_start, blitz_start, prime_start

#: The drawers, by the name of their ``backgammon train`` option.
DRAWS: dict[str, Callable[[random.Random], tuple[int, ...]]] = {
    "back-games": back_game_start, "blitz": blitz_start, "primes": prime_start}

def drawn(draw: str, count: int, seed: int) -> list[tuple[int, ...]]:
    """``count`` positions of the kind ``draw`` (a key of :data:`DRAWS`), drawn in turn from
    one generator seeded with ``seed``: 26 ints each, the side on roll's numbering."""
    rng = random.Random(seed)
    return [DRAWS[draw](rng) for _ in range(count)]


def interval(values: list[float]) -> str:
    """The mean of ``values`` with its 95 % interval (normal, :func:`ai_strength.mean_interval`),
    as printed; one value has an interval of 0."""
    mean, _, high = mean_interval(values)
    return f"{mean:+.3f} ± {high - mean if len(values) > 1 else 0.0:.3f}"


def names(paths: list[Path]) -> list[str]:
    """Each weights file's name in the output: its stem, or the path as given where two files
    share a stem (or the stem is ``shipped``)."""
    stems = [p.stem for p in paths]
    return [p.stem if stems.count(p.stem) == 1 and p.stem != "shipped" else str(p)
            for p in paths]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draw", choices=list(DRAWS), action="append", default=None,
                        help="the kind of start (repeatable; default: all three)")
    parser.add_argument("--weights", type=Path, action="append", default=[],
                        help="a weights file to measure beside the shipped nets (repeatable)")
    parser.add_argument("--positions", type=int, default=150,
                        help="positions of each kind (at least 2)")
    parser.add_argument("--plies", type=int, choices=[0, 1, 2], default=2)
    parser.add_argument("--seed", type=int, default=20261207, help="the draw")
    args = parser.parse_args()
    if args.positions < 2:
        parser.error(f"--positions must be at least 2, got {args.positions}")
    try:
        import gnubg  # the outside judge; not a dependency of the package
    except ImportError:
        raise SystemExit("GNU Backgammon's Python package (gnubg) is not installed: "
                         "pip install -e '.[bench]'") from None
    from gnubg_judge import DEFAULT_CACHE_DIR, Judge  # beside this script

    try:
        nets = {"shipped": default_nets()} | {
            name: load_weights(w)
            for name, w in zip(names(args.weights), args.weights, strict=True)}
    except (OSError, WeightsError) as error:
        raise SystemExit(f"error: {error}") from None
    judge = Judge(args.plies, True)
    cache_path = DEFAULT_CACHE_DIR / f"gnubg-{gnubg.__version__}-{args.plies}ply-preroll.json"
    cache: dict[str, float] = (json.loads(cache_path.read_text(encoding="ascii"))
                               if cache_path.exists() else {})
    print(f"gnubg {args.plies}-ply; {args.positions} drawn positions of each kind (seed "
          f"{args.seed}); equity of the side on roll, cubeless money, points")
    for draw in args.draw or list(DRAWS):
        boards = drawn(draw, args.positions, args.seed)
        x = encode(np.asarray(boards, dtype=np.int8))
        theirs = []
        for board in boards:
            position = Position.from_points(list(board), WHITE)
            key = position.id()
            if key not in cache:
                cache[key] = judge.pre_roll_equity(position)
            theirs.append(cache[key])
        gnubg_eq = np.asarray(theirs)
        gaps = {name: equities(consistent(n.contact(x).copy())) - gnubg_eq
                for name, n in nets.items()}
        print(f"--{draw}: gnubg's mean {np.mean(gnubg_eq):+.3f}")
        for name, gap in gaps.items():
            line = (f"    {name}: ours - gnubg {np.mean(gap):+.3f} "
                    f"(mean |.| {np.mean(np.abs(gap)):.3f})")
            if name != "shipped":
                paired = (np.abs(gap) - np.abs(gaps["shipped"])).tolist()
                line += f"; |.| less the shipped nets' {interval(paired)}"
            print(line)
    DEFAULT_CACHE_DIR.mkdir(parents=True, exist_ok=True)
    cache_path.write_text(json.dumps(cache), encoding="ascii")


if __name__ == "__main__":
    main()
