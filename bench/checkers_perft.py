"""Perft of American checkers from the start: our counts and times, beside pydraughts'.

Prints, for each depth, the leaf count, whether it equals Aart J. C. Bik's published count,
and the seconds it took (the best of ``--repeat`` runs, so that a busy moment on a shared
machine does not decide the figure). Our depths run to ``--depth`` (9 by default); pydraughts
(PyPI's ``pydraughts``, module ``draughts``, variant "english": an outside reference, never
imported by the package) is timed at depths 1 to ``--pydraughts-depth`` (6 by default) in the
same run with a plain recursive perft over ``legal_moves``/``push``/``pop``, and the ratio of
its time to ours is printed for each of those depths.

Usage: python bench/checkers_perft.py [--depth 9] [--pydraughts-depth 6] [--repeat 1]
       [--fen FEN]
"""

from __future__ import annotations

import argparse
import platform
import time
from typing import Any

from checkers import Position, perft

#: Aart J. C. Bik's perft counts from the start of American checkers.
BIK = {
    1: 7, 2: 49, 3: 302, 4: 1469, 5: 7361, 6: 36768, 7: 179740, 8: 845931, 9: 3963680,
    10: 18391564, 11: 85242128,
}  # fmt: skip


def timed(function: Any, *args: Any, repeat: int) -> tuple[int, float]:
    """(result, best seconds) of ``repeat`` calls."""
    best = float("inf")
    result = 0
    for _ in range(repeat):
        start = time.perf_counter()
        result = function(*args)
        best = min(best, time.perf_counter() - start)
    return result, best


def pydraughts_perft(board: Any, depth: int) -> int:
    """pydraughts' own moves, counted the plain way (every leaf made and unmade)."""
    if depth == 0:
        return 1
    total = 0
    for move in board.legal_moves():
        board.push(move)
        total += pydraughts_perft(board, depth - 1)
        board.pop()
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=9, help="our deepest depth (default 9)")
    parser.add_argument("--pydraughts-depth", type=int, default=6, help="pydraughts' (default 6)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per depth; the best counts")
    parser.add_argument("--fen", help="a start other than the standard one (no Bik column)")
    args = parser.parse_args()
    start = Position.from_fen(args.fen) if args.fen else Position.start()
    print(f"perft from {start.fen()}")
    print(f"python {platform.python_version()} on {platform.machine()}, pure Python")
    try:
        import draughts
    except ImportError:
        draughts = None
        print("pydraughts is not installed: our figures alone")
    print(f"{'depth':>5} {'nodes':>12} {'Bik':>5} {'ours s':>9} {'pydraughts s':>13} {'ratio':>8}")
    ok = True
    for depth in range(1, args.depth + 1):
        count, seconds = timed(perft, start, depth, repeat=args.repeat)
        check = "-"
        if not args.fen and depth in BIK:
            check = "ok" if count == BIK[depth] else "WRONG"
            ok &= count == BIK[depth]
        theirs = ratio = ""
        if draughts is not None and depth <= args.pydraughts_depth:
            board = draughts.Board(variant="english", fen=start.fen())
            their_count, their_seconds = timed(pydraughts_perft, board, depth, repeat=1)
            if their_count != count:
                print(f"depth {depth}: pydraughts counts {their_count}, we count {count}")
                ok = False
            theirs = f"{their_seconds:.3f}"
            ratio = f"{their_seconds / seconds:.0f}x"
        print(f"{depth:>5} {count:>12,} {check:>5} {seconds:>9.3f} {theirs:>13} {ratio:>8}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
