"""Move generation speed over every position of GNU Backgammon's reference data.

Prints mean microseconds per ``legal_plays`` call, plays generated per second and the slowest
case, for the 2,542 lines of ``shared/oracle/legal_plays.jsonl`` (and, separately, the 600
end-game lines). Each pass times every call; the mean is each line's best of ``--repeat``
passes, averaged (what a call costs when nothing interrupts it: the way to read a timing on a
shared machine), with the best and the median whole pass beside it.

Two figures per pass: ``search`` is ``legal_plays`` itself (every distinct result found and
deduplicated, the view ready for ``len``/``in``/``own_boards``); ``+ Play objects`` also builds
every :class:`Play` and its result :class:`Position`, as iterating the view does.

GNU Backgammon beside it, in the same run: when the PyPI package ``gnubg`` imports (a bench-only
outside reference, no dependency of the engine), its C move generator ``GenerateMoves`` is
called in-process on the same lines, through ``ctypes`` on the package's own extension module
(the Python API has no call that only generates: ``findbestmoves`` also scores every play with
the neural net, so it is timed too but only shown for scale). Each call is timed exactly like
ours, the boards prebuilt outside the clock, so the figure includes ctypes' call overhead (a few
tenths of a µs). The three figures take turns every 50 lines (ours, ours with Play objects,
gnubg), so a machine that speeds up or slows down during the run moves all of them together;
the ratio is our mean over gnubg's, both from each line's best, with the ratio of the best
passes and the median of the per-round ratios beside it. GNU Backgammon's count of plays is
checked against ours on every line first (its generator keeps only the plays that use the most
dice and pips, one per resulting position: the same set).

Usage: python bench/movegen.py [--repeat N] [--shared PATH]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from backgammon import Position, legal_plays

Case = tuple[Position, tuple[int, int]]


def load(path: Path) -> list[Case]:
    cases = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            cases.append((Position.from_points(row["board"], row["turn"]), tuple(row["dice"])))
    return cases


class Gnubg:
    """GNU Backgammon's generator, called in-process; ``None`` from :meth:`load` when the
    ``gnubg`` package is missing or its extension does not export ``GenerateMoves``."""

    def __init__(self, module: Any, generate: Any, move_list: Any, board_type: Any) -> None:
        self.module = module
        self.generate = generate
        self.move_list = move_list
        self.board_type = board_type
        self.version = getattr(module, "__version__", "?")

    @classmethod
    def load(cls) -> tuple[Gnubg | None, str]:
        try:
            import gnubg  # type: ignore[import-not-found]
        except ImportError as exc:
            return None, f"gnubg is not installed ({exc}): our figures alone"

        class MoveList(ctypes.Structure):
            # gnubg's ``movelist`` (eval.h): the count, two maxima, the best index and score,
            # then a pointer to the moves (a buffer of the generator's own).
            _fields_ = (
                ("cMoves", ctypes.c_uint),
                ("cMaxMoves", ctypes.c_uint),
                ("cMaxPips", ctypes.c_uint),
                ("iMoveBest", ctypes.c_int),
                ("rBestScore", ctypes.c_float),
                ("amMoves", ctypes.c_void_p),
            )

        board_type = (ctypes.c_uint * 25) * 2  # TanBoard: [side][point 0..23, 24 the bar]
        try:
            library = ctypes.CDLL(gnubg._gnubg_ext.__file__)
            generate = library.GenerateMoves
        except (AttributeError, OSError) as exc:
            return None, f"gnubg {gnubg.__version__} has no GenerateMoves to call ({exc})"
        generate.argtypes = (
            ctypes.POINTER(MoveList), ctypes.POINTER(board_type),
            ctypes.c_int, ctypes.c_int, ctypes.c_int,
        )
        generate.restype = ctypes.c_int
        return cls(gnubg, generate, MoveList(), board_type), ""

    def board(self, position: Position) -> Any:
        """gnubg's TanBoard: [0] the side not on roll, [1] the side on roll, each side's
        points 1..24 at 0..23 in its own numbering and its bar at 24."""
        own = position.own_points(position.turn)
        board = self.board_type()
        for point in range(1, 25):
            board[1][point - 1] = max(own[point], 0)
            board[0][point - 1] = max(-own[25 - point], 0)
        board[1][24] = own[25]
        board[0][24] = -own[0]
        return board

    def prepare(self, cases: list[Case]) -> list[tuple[Any, int, int]]:
        return [(self.board(p), d[0], d[1]) for p, d in cases]

    def check(self, cases: list[Case], boards: list[tuple[Any, int, int]]) -> int:
        """How many lines gnubg counts a different number of plays on (0 expected)."""
        move_list = self.move_list
        return sum(
            self.generate(move_list, board, d1, d2, 0) != len(legal_plays(p, d))
            for (p, d), (board, d1, d2) in zip(cases, boards, strict=True)
        )

    def times(self, boards: list[tuple[Any, int, int]]) -> list[float]:
        """Seconds per call of GenerateMoves, one per board."""
        generate = self.generate
        move_list = self.move_list
        clock = time.perf_counter
        out = []
        for board, d1, d2 in boards:
            start = clock()
            generate(move_list, board, d1, d2, 0)
            out.append(clock() - start)
        return out

    def scored_pass(self, cases: list[Case]) -> float:
        """``findbestmoves`` at 0 plies: generation, a neural-net score per play, sorting."""
        module = self.module
        find = module.findbestmoves
        cube = module.cubeinfo()
        context = module.evalcontext(0, 0, 1, 0, 0)
        boards = [(module.positionfromid(p.id()), d) for p, d in cases]
        total = 0.0
        clock = time.perf_counter
        for board, dice in boards:
            start = clock()
            find(board, cube, context, dice)
            total += clock() - start
        return total


def times(cases: list[Case], materialize: bool) -> list[float]:
    """Seconds per call of ``legal_plays`` (and building its Plays), one per line."""
    clock = time.perf_counter
    out = []
    for position, dice in cases:
        start = clock()
        legal = legal_plays(position, dice)
        if materialize:
            list(legal)
        out.append(clock() - start)
    return out


CHUNK = 50  # lines timed in a row before the next figure's turn


def report(name: str, cases: list[Case], repeat: int, gnubg: Gnubg | None) -> None:
    n = len(cases)
    plays = [len(legal_plays(p, d)) for p, d in cases]
    boards = gnubg.prepare(cases) if gnubg else []
    if gnubg:
        mismatches = gnubg.check(cases, boards)
        if mismatches:
            print(f"{name:<22} gnubg counts differ from ours on {mismatches} lines")
    # rounds[figure] = one list of per-line seconds per round; figures: search, + Play, gnubg
    rounds: list[list[list[float]]] = [[], [], []]
    for _ in range(repeat):
        # One round: a pass of each figure, taking turns every CHUNK lines, so that a change
        # in the machine's speed (other work starting or stopping) reaches all three alike.
        passes: list[list[float]] = [[], [], []]
        for start in range(0, n, CHUNK):
            chunk = cases[start : start + CHUNK]
            passes[0] += times(chunk, False)
            passes[1] += times(chunk, True)
            if gnubg:
                passes[2] += gnubg.times(boards[start : start + CHUNK])
        for figure, seconds in zip(rounds, passes, strict=True):
            figure.append(seconds)
    totals = [[sum(p) for p in figure] for figure in rounds]
    # Each line's best of the rounds, summed: what a call costs when nothing interrupts it.
    line_best = [[min(times) for times in zip(*figure, strict=True)] for figure in rounds if figure]
    for figure, label in ((0, "search"), (1, "+ Play objects")):
        best = min(totals[figure])
        median = statistics.median(totals[figure])
        per_line = line_best[figure]
        slowest = max(range(n), key=per_line.__getitem__)
        position, dice = cases[slowest]
        ratio = ""
        if gnubg:
            theirs = totals[2]
            pairs = zip(totals[figure], theirs, strict=True)
            rounds_ratio = statistics.median(o / g for o, g in pairs)
            ratio = (
                f"  {sum(per_line) / sum(line_best[2]):4.1f}x gnubg (best pass "
                f"{best / min(theirs):.1f}x, median round {rounds_ratio:.1f}x)"
            )
        print(
            f"{name:<22} {label:<15} mean {sum(per_line) / n * 1e6:6.1f} µs/call "
            f"(best pass {best / n * 1e6:5.1f}, median {median / n * 1e6:5.1f})  "
            f"{sum(plays) / sum(per_line):>9,.0f} plays/s  "
            f"slowest {per_line[slowest] * 1e3:4.2f} ms "
            f"({position.id()} {dice[0]}{dice[1]}, {plays[slowest]} plays){ratio}"
        )
    if gnubg:
        theirs = totals[2]
        scored = min(gnubg.scored_pass(cases) for _ in range(min(repeat, 3)))
        print(
            f"{name:<22} {'gnubg C':<15} mean {sum(line_best[2]) / n * 1e6:6.1f} µs/call "
            f"(best pass {min(theirs) / n * 1e6:5.1f}, median "
            f"{statistics.median(theirs) / n * 1e6:5.1f})  GenerateMoves; findbestmoves "
            f"(0-ply scores too) {scored / n * 1e6:.1f} µs/call"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    default_shared = os.environ.get(
        "BACKGAMMON_SHARED", str(Path(__file__).resolve().parents[1].parent / "shared")
    )
    parser.add_argument("--shared", default=default_shared)
    args = parser.parse_args()
    oracle = Path(args.shared) / "oracle"
    gnubg, why = Gnubg.load()
    print(f"GNU Backgammon: gnubg {gnubg.version}, GenerateMoves in-process" if gnubg else why)
    for name in ("legal_plays.jsonl", "endgame_plays.jsonl"):
        path = oracle / name
        if not path.exists():
            raise SystemExit(f"reference data not found: {path}")
        cases = load(path)
        report(f"{name} ({len(cases)})", cases, args.repeat, gnubg)


if __name__ == "__main__":
    main()
