"""How long ``backgammon.analysis.analyze`` takes on a 7-point match, and that its progress
runs all the way.

Run: ``OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/analysis_speed.py [FILE.mat]
[--level expert] [--plies N]`` (default: ``../shared/mat/gnubg_selfplay_7p_s1005.mat``).
Prints wall and CPU seconds (on a shared machine the CPU figure is the fairer one), the
decisions analysed, and the progress calls seen (first, last, whether they only rose).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "mat" / "gnubg_selfplay_7p_s1005.mat"


def main() -> int:
    from backgammon.analysis import analyze
    from backgammon.records import read_mat

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--level", default="expert")
    parser.add_argument("--plies", type=int, default=None)
    args = parser.parse_args()
    record = read_mat(args.file.read_text(encoding="utf-8"))
    seen: list[tuple[int, int]] = []
    wall, cpu = time.perf_counter(), time.process_time()
    result = analyze(record, args.level, lambda d, t: seen.append((d, t)), plies=args.plies)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rising = all(a[0] <= b[0] for a, b in itertools.pairwise(seen))
    print(f"{args.file.name}: {len(result.games)} games, {len(result.decisions)} decisions at "
          f"{result.level} ({result.plies}-ply): {wall:.1f} s wall, {cpu:.1f} s CPU")
    print(f"progress: {len(seen)} calls, first {seen[0]}, last {seen[-1]}, "
          f"only rising: {rising}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
