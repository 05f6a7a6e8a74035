"""Move generation speed over every position of GNU Backgammon's reference data.

Prints mean microseconds per ``legal_plays`` call, plays generated per second and the slowest
case, for the 2,542 lines of ``shared/oracle/legal_plays.jsonl`` (and, separately, the 600
end-game lines). Each pass times every call; the best of ``--repeat`` passes is reported (the
usual way to read a timing on a shared machine), with the median pass beside it.

Two figures per pass: ``search`` is ``legal_plays`` itself (every distinct result found and
deduplicated, the view ready for ``len``/``in``/``own_boards``); ``+ Play objects`` also builds
every :class:`Play` and its result :class:`Position`, as iterating the view does.

Usage: python bench/movegen.py [--repeat N] [--shared PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from backgammon import Position, legal_plays


def load(path: Path) -> list[tuple[Position, tuple[int, int]]]:
    cases = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            cases.append((Position.from_points(row["board"], row["turn"]), tuple(row["dice"])))
    return cases


def one_pass(cases, materialize: bool) -> tuple[float, int, float, tuple[Position, tuple]]:
    total = 0.0
    plays = 0
    slowest = 0.0
    slowest_case = cases[0]
    clock = time.perf_counter
    for position, dice in cases:
        start = clock()
        legal = legal_plays(position, dice)
        if materialize:
            list(legal)
        elapsed = clock() - start
        total += elapsed
        plays += len(legal)
        if elapsed > slowest:
            slowest, slowest_case = elapsed, (position, dice)
    return total, plays, slowest, slowest_case


def report(name: str, cases, repeat: int) -> None:
    for materialize in (False, True):
        passes = [one_pass(cases, materialize) for _ in range(repeat)]
        best = min(passes, key=lambda p: p[0])
        median = statistics.median(p[0] for p in passes)
        total, plays, _, _ = best
        slowest = max(passes, key=lambda p: p[2])
        slow_ms = min(p[2] for p in passes) * 1e3
        position, dice = slowest[3]
        label = "search" if not materialize else "+ Play objects"
        print(
            f"{name:<22} {label:<15} mean {total / len(cases) * 1e6:7.1f} µs/call "
            f"(median pass {median / len(cases) * 1e6:6.1f})  "
            f"{plays / total:>9,.0f} plays/s  slowest {slow_ms:5.2f} ms "
            f"({position.id()} {dice[0]}{dice[1]}, {len(legal_plays(position, dice))} plays)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    default_shared = os.environ.get(
        "BACKGAMMON_SHARED", str(Path(__file__).resolve().parents[1].parent / "shared")
    )
    parser.add_argument("--shared", default=default_shared)
    args = parser.parse_args()
    oracle = Path(args.shared) / "oracle"
    for name in ("legal_plays.jsonl", "endgame_plays.jsonl"):
        path = oracle / name
        if not path.exists():
            raise SystemExit(f"reference data not found: {path}")
        cases = load(path)
        report(f"{name} ({len(cases)})", cases, args.repeat)


if __name__ == "__main__":
    main()
