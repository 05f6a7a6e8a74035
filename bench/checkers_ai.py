"""The checkers computer: think time per level, matches between levels, the endgame database.

**Think time** (the default): a seeded set of positions from seeded games. ``--source-games``
games (8 by default) are played from the start by Medium against Easy (Medium Black in even
games; game ``i`` seeds the players with ``seed + i``) and every ``--every``-th position of
each is kept (so openings, middlegames and endings with kings all come up), with the game's
earlier positions as the search's history. Each level thinks about every position from a
fresh search (no table carried over). Prints, per level, the median, 95th percentile and
maximum think time in milliseconds, the median and smallest completed depth, and the slowest
position; then Hard's and Expert's times by phase (opening: the first 12 plies; endings: a
king on the board; the middlegame: the rest). Targets (issue: the checkers AI) on the
project's 2-core machine: Hard's maximum <= 500 ms, Expert's <= 1.5 s (its budget is 1 s).
The machine may be shared: run it when it is quiet, and read the medians.

**Matches** (``--match hard:easy``, ``--games 100``): whole games from the start between two
levels, the colours alternating (the first level Black in even games); game ``i`` seeds both
players with ``seed + i``. The game's own draws (threefold repetition, the 40-move rule)
apply. Prints the first level's wins, draws and losses and its score. Target: Hard beats Easy
in at least 90 % of 100 games.

**Endgame database** (``--database``): the shipped file's size and load time, and a fresh
build of every table (not written) with its time.

Usage: python bench/checkers_ai.py [--levels easy,medium,hard,expert] [--source-games N]
                                   [--every K] [--seed S]
       python bench/checkers_ai.py --match hard:easy [--games N] [--seed S]
       python bench/checkers_ai.py --database
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass

from checkers import BLACK, WHITE, Game, Position
from checkers.ai import LEVELS, ComputerPlayer, choose_move, endgame


@dataclass(frozen=True)
class Case:
    """A position to think about, with the game's earlier positions and its phase."""

    position: Position
    history: tuple[Position, ...]
    phase: str


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, the nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def phase_of(game: Game) -> str:
    """``"opening"`` in the first 12 plies, ``"endgame"`` with a king on the board, else
    ``"middlegame"``."""
    if len(game.moves) < 12:
        return "opening"
    return "endgame" if game.position.kings else "middlegame"


def source_cases(games: int, every: int, seed: int) -> list[Case]:
    """Every ``every``-th position of ``games`` seeded Medium-against-Easy games."""
    cases: list[Case] = []
    for i in range(games):
        medium, easy = ComputerPlayer("medium", seed + i), ComputerPlayer("easy", seed + i)
        black, white = (medium, easy) if i % 2 == 0 else (easy, medium)
        game = Game()
        while not game.is_over:
            if len(game.moves) % every == every // 2:
                cases.append(Case(game.position, tuple(game.positions[:-1]), phase_of(game)))
            game.play((black if game.turn is BLACK else white).choose(game))
    return cases


def think_times(levels: list[str], cases: list[Case]) -> None:
    """Print the think-time table of each level over ``cases``."""
    print(f"{len(cases)} positions: " + ", ".join(
        f"{sum(c.phase == p for c in cases)} {p}" for p in ("opening", "middlegame", "endgame")
    ))  # fmt: skip
    header = f"{'level':<8} {'median':>8} {'p95':>8} {'max':>8}   (ms)  depth: median  min"
    print(header)
    by_phase: dict[str, list[tuple[str, float]]] = {}
    for name in levels:
        times: list[float] = []
        depths: list[int] = []
        slowest = (0.0, "")
        for case in cases:
            started = time.perf_counter()
            result = choose_move(case.position, name, history=case.history)
            elapsed = (time.perf_counter() - started) * 1000
            times.append(elapsed)
            depths.append(result.depth)
            by_phase.setdefault(name, []).append((case.phase, elapsed))
            if elapsed > slowest[0]:
                slowest = (elapsed, case.position.fen())
        print(
            f"{name:<8} {statistics.median(times):>8.1f} {percentile(times, 0.95):>8.1f} "
            f"{max(times):>8.1f}         {statistics.median(depths):>6.1f} {min(depths):>4}"
        )
        print(f"         slowest: {slowest[1]}")
    for name in ("hard", "expert"):
        if name not in by_phase:
            continue
        for phase in ("opening", "middlegame", "endgame"):
            times = [t for p, t in by_phase[name] if p == phase]
            if times:
                print(
                    f"{name:<8} {phase:<11} median {statistics.median(times):>7.1f}  "
                    f"p95 {percentile(times, 0.95):>7.1f}  max {max(times):>7.1f} ms"
                )


def match(first: str, second: str, games: int, seed: int) -> tuple[int, int, int]:
    """Play ``games`` games, ``first`` Black in even games; return its (wins, draws, losses)."""
    wins = draws = losses = 0
    started = time.perf_counter()
    for i in range(games):
        a, b = ComputerPlayer(first, seed + i), ComputerPlayer(second, seed + i)
        a_colour = BLACK if i % 2 == 0 else WHITE
        black, white = (a, b) if a_colour is BLACK else (b, a)
        game = Game()
        while not game.is_over:
            game.play((black if game.turn is BLACK else white).choose(game))
        assert game.outcome is not None
        if game.outcome.winner is None:
            draws += 1
        elif game.outcome.winner is a_colour:
            wins += 1
        else:
            losses += 1
        if (i + 1) % max(1, games // 10) == 0:
            print(
                f"  {i + 1} games: +{wins} ={draws} -{losses} "
                f"({time.perf_counter() - started:.0f} s)",
                flush=True,
            )
    return wins, draws, losses


def database_figures() -> None:
    """Print the shipped database's size and load time, and a fresh build's time."""
    size = endgame.DATA_FILE.stat().st_size
    started = time.perf_counter()
    tables = endgame.load()
    loaded = time.perf_counter() - started
    entries = sum(len(t) for t in tables.values())
    print(f"{endgame.DATA_FILE.name}: {size:,} bytes, {entries:,} entries, loads in {loaded:.2f} s")
    started = time.perf_counter()
    fresh = endgame.build()
    built = time.perf_counter() - started
    same = all(bytes(fresh[e]) == tables[e] for e in tables)
    print(f"fresh build: {built:.1f} s, identical to the file: {same}")
    for ending in sorted(tables):
        print(f"  {ending[0]}v{ending[1]}: longest result {endgame.longest(fresh[ending])} plies")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--source-games", type=int, default=8)
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--match", default=None, help="two levels, e.g. hard:easy")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--database", action="store_true")
    args = parser.parse_args()

    if args.database:
        database_figures()
        return
    if args.match:
        first, second = args.match.split(":")
        started = time.perf_counter()
        wins, draws, losses = match(first, second, args.games, args.seed)
        score = (wins + draws / 2) / args.games
        print(
            f"{first} against {second}, {args.games} games: +{wins} ={draws} -{losses}, "
            f"{first} wins {100 * wins / args.games:.0f} %, scores {100 * score:.1f} % "
            f"({time.perf_counter() - started:.0f} s)"
        )
        return
    started = time.perf_counter()
    endgame.default_database()
    print(f"one-off: endgame database loaded in {time.perf_counter() - started:.2f} s")
    started = time.perf_counter()
    cases = source_cases(args.source_games, args.every, args.seed)
    print(f"positions from {args.source_games} games in {time.perf_counter() - started:.0f} s")
    think_times(args.levels.split(","), cases)


if __name__ == "__main__":
    main()
