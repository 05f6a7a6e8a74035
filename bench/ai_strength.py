"""The computer's strength: between its levels, against GNU Backgammon, and judged by it.

**Levels against each other** (the default): N seeded games for each pair of levels, the sides
alternating (the first level is White in even games, Black in odd ones), once with the cube off
and once with it on (money play, no Jacoby, no beavers). Game i of a series uses the dice of
``random.Random(seed * 1000003 + i)``, so every figure can be reproduced. Targets over 400
games: Hard beats Medium >= 58%, Hard beats Easy >= 80%, Medium beats Easy >= 65%.
``--vs LEVEL`` plays ``--level`` against one other level the same way; with ``--out`` (one
``--cube`` setting) it keeps and resumes its games as ``--vs gnubg`` does.

**Judged by GNU Backgammon** (``--judge gnubg``, needs the ``gnubg`` package): the error rate
of ``--level`` on positions from games it never trained on, GNU Backgammon's self-play matches
(``shared/mat/gnubg_selfplay_*.mat``): N rolls with at least two legal plays, evenly spaced
through them. For each, the level's play; gnubg evaluates every legal play at
``--judge-plies`` (2 by default, with its pruning nets as in its own 2-ply analysis;
``--judge-full`` without), cubeless money, the mover's view; the loss is gnubg's best equity
minus its equity of the level's play. Prints the mean loss in mEMG per move (thousandths of a
point of cubeless money equity) with a 95% interval, the share of plays that are gnubg's best,
and, as a reference, the same for the plays recorded in the matches (gnubg's own, some with
noise, chosen for the match score). gnubg's evaluations are kept in ``bench/.cache/`` between
runs (``--no-cache`` not to), so a second run, or another level, costs only the level's time.
To compare two nets or settings on the same rolls, ``--losses FILE.json`` keeps each roll's
loss and a later run's ``--paired FILE.json`` prints the mean difference, roll by roll, with its
95% interval (the rolls' own spread cancels, so it shows a change of a few tenths of a mEMG that
the two means' intervals hide); the recorded plays are then not judged.

**Against GNU Backgammon** (``--vs gnubg``): N cubeless money games of ``--level`` against
gnubg at 0-ply with Gaussian noise (``--noise``, points of equity; 0.04 is about its
"intermediate" level) added to each play's equity, the noise drawn from a seeded
``random.Random``; dice and sides as above. Prints points per game for ``--level`` with a 95%
interval, wins, gammons and backgammons. ``--out FILE`` keeps one JSON line per game; run again
with the same file and settings to resume (the games already there are not played again).
``--first K`` starts at game K, so that two processes (one per core) can share a run:
``--games 250 --out F`` and ``--first 250 --games 500 --out F`` append to the same file, and a
last ``--games 500 --out F`` reports all 500.

Both gnubg modes show a progress bar on a terminal, a line every tenth of the run otherwise
(for runs in the background), and print what they have so far when interrupted (Ctrl-C).

Usage: python bench/ai_strength.py [--games N] [--pairs hard:medium,hard:easy,medium:easy]
                                   [--cube off,on] [--seed S] [--agreement]
       python bench/ai_strength.py --judge gnubg [--level L[,L2]] [--positions N]
                                   [--judge-plies 0|1|2] [--judge-full] [--no-cache] [--worst K]
                                   [--weights W] [--losses FILE.json] [--paired FILE.json]
       python bench/ai_strength.py --vs gnubg [--level L] [--games N] [--noise SIGMA]
                                   [--out FILE.jsonl] [--first K]
       python bench/ai_strength.py --vs LEVEL [--level L] [--games N] [--cube off,on]
                                   [--out FILE.jsonl --cube off|on] [--first K]

``--level`` defaults to the strongest level there is ("expert" when it exists, else "hard").
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import Progress, TaskID

from backgammon.ai import choose_play, get_level
from backgammon.ai.nets import use_weights
from backgammon.ai.netsearch import NetEvaluator, rank
from backgammon.ai.player import ComputerPlayer
from backgammon.ai.search import Evaluator
from backgammon.ai.selfplay import play_game, play_series
from backgammon.core.game import GameSettings
from backgammon.core.moves import legal_plays
from backgammon.core.position import Position
from backgammon.core.types import BLACK, WHITE
from backgammon.training.positions import RealMove, real_moves, sample_positions

if TYPE_CHECKING:
    from gnubg_judge import Judge

#: z for a two-sided 95% interval.
Z95 = 1.959963984540054


def default_shared() -> Path:
    env = os.environ.get("BACKGAMMON_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared"


def default_level() -> str:
    """The strongest level there is: "expert" when it exists, else "hard"."""
    for name in ("expert", "hard"):
        try:
            get_level(name)
        except ValueError:
            continue
        return name
    raise SystemExit("no level named expert or hard")


def mean_interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% interval (normal approximation): ``(mean, low, high)``."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = statistics.fmean(values)
    if n == 1:
        return (mean, math.nan, math.nan)
    half = Z95 * statistics.stdev(values) / math.sqrt(n)
    return (mean, mean - half, mean + half)


def wilson(successes: int, n: int) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + Z95 * Z95 / (2 * n)) / (1 + Z95 * Z95 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / (1 + Z95 * Z95 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def import_judge() -> Any:
    """The ``gnubg_judge`` module beside this script, or exit saying gnubg is missing."""
    try:
        import gnubg_judge
    except ImportError as exc:
        raise SystemExit(
            f"GNU Backgammon's Python package is needed here ({exc}): pip install gnubg "
            "(it is in the [dev] extras)"
        ) from None
    return gnubg_judge


@contextmanager
def progress_bar(description: str, total: int) -> Iterator[Callable[[str], None]]:
    """A progress bar on stderr; yields ``advance(status)``. When stderr is not a terminal
    (a run in the background) a line is printed every tenth of ``total`` instead."""
    console = Console(stderr=True)
    if console.is_terminal:
        with Progress(console=console, transient=True) as progress:
            task: TaskID = progress.add_task(description, total=total)

            def advance(status: str) -> None:
                progress.update(task, advance=1, description=f"{description} {status}")

            yield advance
        return
    done = 0
    step = max(1, total // 10)
    start = time.perf_counter()

    def advance_plain(status: str) -> None:
        nonlocal done
        done += 1
        if done % step == 0 or done == total:
            print(f"[{done}/{total} {time.perf_counter() - start:.0f} s] {description} {status}",
                  file=sys.stderr, flush=True)

    yield advance_plain


# -- levels against each other, agreement -----------------------------------------------------


def agreement(levels: list[str], shared: Path) -> None:
    moves = [m for m in real_moves(shared / "mat") if m.result is not None]
    cases = [m for m in moves if len(legal_plays(m.position, m.dice)) >= 2]
    for name in levels:
        player = ComputerPlayer(name, random.Random(0), Evaluator())
        start = time.perf_counter()
        same = sum(player.play(m.position, m.dice).result == m.result for m in cases)
        print(f"{name:<8} plays GNU Backgammon's play in {same}/{len(cases)} = "
              f"{same / len(cases):.1%} of rolls ({time.perf_counter() - start:.0f} s)")


def level_series(pairs: list[tuple[str, str]], games: int, seed: int, cubes: list[str]) -> None:
    for first, second in pairs:
        for cube in cubes:
            on = cube == "on"
            start = time.perf_counter()
            with Progress(console=Console(stderr=True), transient=True) as progress:
                task = progress.add_task(f"{first} v {second}, cube {cube}", total=games)
                def advance(index: int, game: object, task: TaskID = task) -> None:
                    progress.advance(task)

                result = play_series(first, second, games, seed, cube=on, on_game=advance)
            lo, hi = result.interval()
            print(f"{first} v {second}, cube {cube:<3}: {result.wins}/{result.games} won = "
                  f"{result.win_rate:.1%} (95% {lo:.1%}-{hi:.1%}), "
                  f"{result.points_per_game:+.3f} points/game, "
                  f"{result.gammons} gammons, {time.perf_counter() - start:.0f} s")


# -- judged by GNU Backgammon ------------------------------------------------------------------


@dataclass
class Judged:
    """One judged roll: the loss of the play made against gnubg's best, in points."""

    case: RealMove
    play: str
    best: str
    loss: float


def judge_plays(
    judge: Judge,
    cases: list[RealMove],
    chooser: Callable[[int, RealMove], Position],
    label: str,
) -> tuple[list[Judged], float, float]:
    """Judge the play whose result is ``chooser(i, case)`` (the position after it, the mover
    still to move) for each case. Returns the judged rolls (fewer when interrupted), the
    seconds spent choosing and the seconds gnubg spent."""
    found: list[Judged] = []
    choose_s = judge_s = 0.0
    clock = time.perf_counter
    losses: list[float] = []
    try:
        with progress_bar(label, len(cases)) as advance:
            for i, case in enumerate(cases):
                t0 = clock()
                chosen = chooser(i, case)
                t1 = clock()
                ranked = judge.rank(case.position, case.dice)
                judge_s += clock() - t1
                choose_s += t1 - t0
                mine = next(j for j in ranked if j.play.result == chosen)
                loss = ranked[0].equity - mine.equity
                found.append(Judged(case, str(mine.play), str(ranked[0].play), loss))
                losses.append(loss)
                advance(f"{1000 * statistics.fmean(losses):.1f} mEMG")
    except KeyboardInterrupt:
        print(f"interrupted after {len(found)} of {len(cases)} positions", file=sys.stderr)
    return found, choose_s, judge_s


def search_trace(level_name: str, case: RealMove, best: Position) -> str:
    """Where gnubg's best play (``best``: the position after it) stands in the level's own
    search of ``case``: its place and its distance from the first, in points of money equity,
    with every play scored at each ply short of the level's depth, and the deepest ply the
    level's move filters let it reach. "" for a level that searches no deeper than 0-ply or
    plays on the hand-made evaluation.

    A play that reached only a shallow ply was cut by a filter before the deeper search could
    prefer it; one that reached the deepest ply and lost there is the nets' judgement.
    """
    level = get_level(level_name)
    if level.evaluation != "net" or level.plies < 1:
        return ""
    legal = legal_plays(case.position, case.dice)
    index = next(i for i, play in enumerate(legal) if play.result == best)
    boards = legal.own_boards()
    evaluator = NetEvaluator()
    parts = []
    for ply in range(level.plies):
        ranked = rank(boards, evaluator, ply)
        place = next(n for n, r in enumerate(ranked) if r.index == index)
        parts.append(f"{ply}-ply #{place + 1} ({ranked[place].value - ranked[0].value:+.3f})")
    searched = rank(boards, evaluator, level.plies, level.filters)
    reached = next(r.ply for r in searched if r.index == index)
    return f"gnubg's best in {level_name}'s search: {', '.join(parts)}; reached {reached}-ply"


def report_judged(name: str, judged: list[Judged]) -> None:
    losses = [1000 * j.loss for j in judged]
    mean, lo, hi = mean_interval(losses)
    exact = sum(j.loss <= 0 for j in judged)
    elo, ehi = wilson(exact, len(judged))
    n = len(judged)
    print(f"{name:<9} {mean:6.1f} mEMG per move (95% {lo:.1f}-{hi:.1f}) over {n} positions; "
          f"gnubg's best play {exact}/{n} = {exact / max(n, 1):.1%} (95% {elo:.1%}-{ehi:.1%}); "
          f"losing >= 80 mEMG: {sum(x >= 80 for x in losses)}, "
          f">= 160: {sum(x >= 160 for x in losses)}")


def _roll_key(case: RealMove) -> str:
    """The roll's name in a losses file: its source, Position ID, side and dice."""
    return f"{case.source} {case.position.id()} {case.position.turn} {case.dice[0]}{case.dice[1]}"


def save_losses(path: Path, level: str, judged: list[Judged], args: argparse.Namespace) -> None:
    """Write each judged roll's loss (mEMG) to ``path`` as JSON: ``{"level", "weights",
    "shared", "judge_plies", "losses": {roll: mEMG}}``, for ``--paired`` in a later run.
    With several levels, each level's file is ``path`` with ``-LEVEL`` before its suffix."""
    levels = args.level.split(",") if args.level else [level]
    target = path if len(levels) == 1 else path.with_name(f"{path.stem}-{level}{path.suffix}")
    target.write_text(json.dumps({
        "level": level,
        "weights": str(args.weights) if args.weights else None,
        "shared": str(args.shared),
        "judge_plies": args.judge_plies,
        "losses": {_roll_key(j.case): 1000 * j.loss for j in judged},
    }, indent=1) + "\n")
    print(f"{'':<9} losses of {len(judged)} rolls written to {target}")


def report_paired(path: Path, level: str, judged: list[Judged]) -> None:
    """Print the mean difference in mEMG a move between ``judged`` and the losses kept in
    ``path`` (``--losses`` of an earlier run) on the rolls both judged, with its 95% interval:
    the same rolls compared one by one, so the spread of the rolls cancels.

    Raises:
        SystemExit: ``path`` is not a losses file or shares no roll with this run.
    """
    try:
        kept = json.loads(path.read_text())["losses"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SystemExit(f"--paired {path}: not a losses file written by --losses "
                         f"({error!r})") from None
    if not isinstance(kept, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in kept.values()):
        raise SystemExit(f"--paired {path}: not a losses file written by --losses "
                         "(its \"losses\" is not an object of numbers)")
    differences = [1000 * j.loss - float(kept[key]) for j in judged
                   if (key := _roll_key(j.case)) in kept]
    if not differences:
        raise SystemExit(f"--paired {path}: no roll in common with this run (another --shared "
                         "or --positions?)")
    mean, lo, hi = mean_interval(differences)
    print(f"{'':<9} paired with {path} on {len(differences)} rolls: {mean:+.2f} mEMG a move "
          f"(95% {lo:+.2f} to {hi:+.2f}; below 0: {level} lost less)")


def judge_levels(args: argparse.Namespace) -> None:
    module = import_judge()
    cases = sample_positions(real_moves(args.shared / "mat"), args.positions)
    judge = (module.Judge(args.judge_plies, not args.judge_full) if args.no_cache
             else module.Judge.with_disk_cache(args.judge_plies, not args.judge_full))
    cached = len(judge.cache)
    print(f"judge: {judge.describe()}; {len(cases)} rolls with a choice from "
          f"{args.shared / 'mat'}/gnubg_selfplay_*.mat"
          + (f"; cache {judge.cache_path} ({cached} positions)" if judge.cache_path else ""))
    levels = args.level.split(",") if args.level else [default_level()]
    for name in levels:
        get_level(name)  # an unknown name fails here, before any work
    for name in levels:
        def ours(i: int, case: RealMove, name: str = name) -> Position:
            seed = args.seed * 1_000_003 + i
            return choose_play(case.position, case.dice, level=name, seed=seed).result

        before = judge.evaluations
        judged, choose_s, judge_s = judge_plays(judge, cases, ours, name)
        report_judged(name, judged)
        n = max(len(judged), 1)
        new = judge.evaluations - before
        print(f"{'':<9} time per position: {name} {choose_s / n:.3f} s, gnubg "
              f"{judge_s / n:.3f} s ({new} positions evaluated, the rest from the cache)")
        if args.worst and judged:
            print(f"{'':<9} worst:")
            for j in sorted(judged, key=lambda j: -j.loss)[: args.worst]:
                c = j.case
                print(f"{'':<11}{1000 * j.loss:6.1f}  {c.position.id()} {c.position.turn} "
                      f"{c.dice[0]}{c.dice[1]}: played {j.play}, gnubg {j.best}  ({c.source})")
                best = judge.rank(c.position, c.dice)[0].play.result
                trace = search_trace(name, c, best)
                if trace:
                    print(f"{'':<19}{trace}")
        if args.losses is not None:
            save_losses(args.losses, name, judged, args)
        if args.paired is not None:
            report_paired(args.paired, name, judged)
        if len(judged) < len(cases):
            return
    if args.losses is not None or args.paired is not None:
        return  # a comparison of nets or settings: the recorded plays add nothing to it
    recorded = [c for c in cases if c.result is not None]
    def played(i: int, case: RealMove) -> Position:
        assert case.result is not None
        return case.result

    judged, _, _ = judge_plays(judge, recorded, played, "recorded")
    report_judged("recorded", judged)
    print(f"{'':<9} (the plays in the matches: gnubg's own, some with noise, chosen for the "
          "match score)")


# -- head to head: against GNU Backgammon or another level -----------------------------------


@dataclass
class GameRecord:
    """One head-to-head game, from our level's side. ``points`` is signed (+ won);
    ``noise`` is gnubg's (0 against a level)."""

    game: int
    level: str
    noise: float
    seed: int
    color: str
    points: int
    result_kind: int
    kind: str
    turns: int
    opponent: str = "gnubg"
    cube: bool = False


def head_to_head(args: argparse.Namespace) -> None:
    """``--level`` against ``--vs`` (gnubg with noise, or a level), games ``--first`` ..
    ``--games - 1``; resumes from, and appends to, ``--out``."""
    opponent: str = args.vs
    level = args.level or default_level()
    get_level(level)
    cube = args.cube == "on"
    plies: int = args.gnubg_plies
    if opponent == "gnubg":
        module = import_judge()
        noise = args.noise
        if cube:
            raise SystemExit("--vs gnubg plays cubeless games: --cube off")
        if plies:
            opponent = f"gnubg@{plies}"  # the records of each depth kept apart
    else:
        get_level(opponent)
        noise = 0.0
        if args.cube not in ("off", "on"):
            raise SystemExit("--vs LEVEL --out: --cube off or --cube on, not both")
    key = (level, opponent, noise, args.seed, cube)
    records: dict[int, GameRecord] = {}
    out: Path | None = args.out
    if out is not None and out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = GameRecord(**json.loads(line))
                if (record.level, record.opponent, record.noise, record.seed,
                        record.cube) == key:
                    records[record.game] = record
        print(f"resuming from {out}: {len(records)} games already played with these settings",
              file=sys.stderr)
    todo = [i for i in range(args.first, args.games) if i not in records]
    name = f"gnubg {plies}-ply σ={noise}" if opponent.startswith("gnubg") else opponent
    start = time.perf_counter()
    try:
        with progress_bar(f"{level} v {name}", len(todo)) as advance:
            for i in todo:
                base = args.seed * 1_000_003 + i
                ours = WHITE if i % 2 == 0 else BLACK
                other = (module.GnubgPlayer(noise, random.Random(base * 2 + 2), plies)
                         if opponent.startswith("gnubg")
                         else ComputerPlayer(opponent, random.Random(base * 2 + 2)))
                players = {ours: ComputerPlayer(level, random.Random(base * 2 + 1)),
                           ours.opponent: other}
                result = play_game(players, GameSettings(cube=cube), random.Random(base))
                o = result.outcome
                record = GameRecord(i, level, noise, args.seed, str(ours),
                                    o.points if o.winner is ours else -o.points,
                                    int(o.result_kind), o.kind, result.turns, opponent, cube)
                records[i] = record
                if out is not None:
                    with out.open("a", encoding="utf-8") as handle:
                        handle.write(json.dumps(asdict(record)) + "\n")
                ppg = statistics.fmean(r.points for r in records.values())
                advance(f"{ppg:+.3f} ppg")
    except KeyboardInterrupt:
        print(f"interrupted: {len(records)} of {args.games} games played", file=sys.stderr)
    opponent_words = (f"gnubg {plies}-ply (noise σ={noise})" if opponent.startswith("gnubg")
                      else opponent)
    report_vs(level, f"{opponent_words}, {'money with the cube' if cube else 'cubeless money'}",
              [records[i] for i in sorted(records) if i < args.games],
              time.perf_counter() - start)


def report_vs(level: str, opponent: str, records: list[GameRecord], seconds: float) -> None:
    n = len(records)
    if n == 0:
        print("no games played")
        return
    points = [float(r.points) for r in records]
    mean, lo, hi = mean_interval(points)
    wins = sum(r.points > 0 for r in records)
    wlo, whi = wilson(wins, n)
    def count(kind: int, won: bool) -> int:
        return sum(r.result_kind == kind and (r.points > 0) == won for r in records)

    print(f"{level} v {opponent}, {n} games: "
          f"{mean:+.3f} points/game (95% {lo:+.3f} to {hi:+.3f}); "
          f"won {wins}/{n} = {wins / n:.1%} (95% {wlo:.1%}-{whi:.1%}); "
          f"gammons won {count(2, True)}, lost {count(2, False)}; "
          f"backgammons won {count(3, True)}, lost {count(3, False)}; {seconds:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--pairs", default="hard:medium,hard:easy,medium:easy")
    parser.add_argument("--cube", default="off,on", help="off, on, or off,on")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--agreement", action="store_true",
                        help="only measure agreement with GNU Backgammon's plays")
    parser.add_argument("--shared", type=Path, default=default_shared())
    parser.add_argument("--level", help="the level measured (--judge: a comma list); "
                        "default the strongest there is")
    parser.add_argument("--judge", choices=["gnubg"],
                        help="the error rate of --level judged by GNU Backgammon")
    parser.add_argument("--positions", type=int, default=500, help="--judge: rolls judged")
    parser.add_argument("--judge-plies", type=int, choices=[0, 1, 2], default=2)
    parser.add_argument("--judge-full", action="store_true",
                        help="judge without gnubg's pruning nets (slower)")
    parser.add_argument("--no-cache", action="store_true",
                        help="keep gnubg's evaluations in memory only")
    parser.add_argument("--worst", type=int, default=5,
                        help="--judge: list this many of the costliest plays")
    parser.add_argument("--losses", type=Path, metavar="FILE.json",
                        help="--judge: write each roll's loss, for --paired in a later run")
    parser.add_argument("--paired", type=Path, metavar="FILE.json",
                        help="--judge: compare roll by roll with the losses in FILE.json")
    parser.add_argument("--vs", metavar="OPPONENT",
                        help="gnubg, or a level: play --level against it")
    parser.add_argument("--gnubg-plies", type=int, choices=[0, 1, 2], default=0,
                        help="--vs gnubg: gnubg's depth for each play (2: its world-class "
                        "level, with --noise 0)")
    parser.add_argument("--noise", type=float, default=0.04,
                        help="--vs gnubg: noise σ in points of equity added to each play")
    parser.add_argument("--out", type=Path,
                        help="--vs: JSON lines, one per game; resumes from it (against a "
                        "level, one --cube setting)")
    parser.add_argument("--first", type=int, default=0,
                        help="--vs: the first game's index (to share a run between "
                        "processes appending to one --out)")
    parser.add_argument("--weights", type=Path,
                        help="a weights file (e.g. a training checkpoint) in place of the "
                        "shipped nets")
    args = parser.parse_args()
    if args.weights is not None:
        use_weights(args.weights)
    if args.agreement:
        agreement(["easy", "medium", "hard"], args.shared)
    elif args.judge:
        judge_levels(args)
    elif args.vs == "gnubg" or (args.vs and args.out is not None):
        head_to_head(args)
    elif args.vs:
        level_series([(args.level or default_level(), args.vs)], args.games, args.seed,
                     args.cube.split(","))
    else:
        pairs = [(pair.split(":")[0], pair.split(":")[1]) for pair in args.pairs.split(",")]
        level_series(pairs, args.games, args.seed, args.cube.split(","))


if __name__ == "__main__":
    main()
