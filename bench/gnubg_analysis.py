"""Our analysis beside GNU Backgammon's on the same ``.mat`` files; and its speed.

GNU Backgammon 1.07 (the ``gnubg`` command, ``/usr/games/gnubg``) is run as an outside
reference only: ``import mat FILE``, ``analyse match`` (its default: 2-ply, "world class"),
``show statistics match``; :func:`gnubg_statistics` reads each player's unforced moves and
chequer-play error rate (mEMG per unforced move) from that table. Its answers are cached in
``bench/.cache/gnubg_analysis/`` (one text file per input, keyed by the file's SHA-256).

Run::

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/gnubg_analysis.py [FILES...] \
        [--level expert] [--plies N] [--weights CHECKPOINT] [--breakdown] [--jobs 2]

It prints, per player-file, gnubg's and our chequer-play error rate, whether they agree within
max(3 mEMG, 25 %), then the share that agrees, the Spearman rank correlation, and the time our
analysis took (wall and CPU seconds) per file.

``--breakdown`` also compares decision by decision: gnubg's analysed match is saved as SGF
(``save match``, cached beside the statistics), the loss gnubg gives each checker play made is
read from its ``A[...]`` property (the alternatives' equities, EMG) and set beside ours, and
a table shows, by the size of gnubg's loss, how many plays there are and the mean loss each
analysis gives them: where our error rates part from gnubg's (small errors seen larger, large
ones smaller, plays gnubg finds best that we do not).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Final, NamedTuple, TypeVar

#: GNU Backgammon's command line.
GNUBG: Final = "/usr/games/gnubg"
CACHE_DIR: Final = Path(__file__).resolve().parent / ".cache" / "gnubg_analysis"
SHARED_MAT: Final = Path(__file__).resolve().parents[2] / "shared" / "mat"


class GnubgPlayer(NamedTuple):
    """One player's chequer-play figures in gnubg's ``show statistics match``."""

    name: str
    unforced: int
    error_rate_memg: float


def gnubg_available() -> bool:
    """Whether the ``gnubg`` command is installed."""
    return Path(GNUBG).exists() or shutil.which("gnubg") is not None


def _command() -> str:
    return GNUBG if Path(GNUBG).exists() else (shutil.which("gnubg") or GNUBG)


def _cached(path: Path, cache: Path | None, suffix: str) -> Path | None:
    """Where gnubg's answer about ``path`` is kept: named by the file and its SHA-256."""
    if cache is None:
        return None
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return cache / f"{path.stem}-{digest}{suffix}"


def _run_gnubg(path: Path, then: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """gnubg's ``import mat``, ``analyse match`` (its default: 2-ply) and ``then``."""
    script = f"import mat {path}\nanalyse match\n{then}"
    return subprocess.run([_command(), "-t", "-q"], input=script, capture_output=True,
                          text=True, timeout=timeout, check=False)


def gnubg_output(path: Path, cache: Path | None = CACHE_DIR, timeout: float = 1800) -> str:
    """gnubg's ``show statistics match`` text after ``analyse match`` of ``path`` (cached;
    the same run saves the analysed match for :func:`gnubg_sgf`).

    Raises:
        RuntimeError: gnubg failed or printed no statistics.
    """
    cached = _cached(path, cache, ".txt")
    if cached is not None and cached.exists():
        return cached.read_text(encoding="utf-8")
    sgf = _cached(path, cache, ".sgf")
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
    save = f"save match {sgf}\n" if sgf is not None and not sgf.exists() else ""
    done = _run_gnubg(path, f"{save}show statistics match\n", timeout)
    text = done.stdout
    if "Chequerplay statistics" not in text:
        raise RuntimeError(f"gnubg gave no statistics for {path}: {done.stderr[-500:]}")
    if cached is not None:
        cached.write_text(text, encoding="utf-8")
    return text


_ROW: Final = re.compile(r"^(?P<label>\S.*?)\s{2,}(?P<rest>\S.*?)\s*$")


def parse_statistics(text: str) -> tuple[GnubgPlayer, GnubgPlayer]:
    """Both players' chequer-play figures from gnubg's statistics table (left column first:
    gnubg's player 0, the ``.mat`` file's first name)."""
    names: tuple[str, str] | None = None
    unforced: list[int] = []
    rate: list[float] = []
    section = ""
    for line in text.splitlines():
        if line.startswith("Player ") and names is None:
            parts = line.split()
            names = (parts[1], parts[2])
            continue
        if line.strip().endswith("statistics"):
            section = line.strip()
            continue
        if section != "Chequerplay statistics":
            continue
        row = _ROW.match(line)
        if not row:
            continue
        label = row["label"]
        values = re.sub(r"\([^)]*\)", " ", row["rest"]).split()  # MWC in brackets
        if label == "Unforced moves":
            unforced = [int(values[0]), int(values[1])]
        elif label.startswith("Error rate mEMG"):
            rate = [abs(float(values[0])), abs(float(values[1]))]
    if names is None or len(unforced) != 2 or len(rate) != 2:
        raise ValueError("not gnubg's statistics table")
    return (GnubgPlayer(names[0], unforced[0], rate[0]),
            GnubgPlayer(names[1], unforced[1], rate[1]))


def gnubg_sgf(path: Path, cache: Path | None = CACHE_DIR, timeout: float = 1800) -> str:
    """gnubg's analysed match of ``path`` as SGF (``analyse match``, ``save match``; cached).

    Raises:
        RuntimeError: gnubg failed or saved nothing.
    """
    import tempfile

    cached = _cached(path, cache, ".sgf")
    if cached is not None and cached.exists():
        return cached.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as folder:
        saved = Path(folder) / "match.sgf"
        done = _run_gnubg(path, f"save match {saved}\n", timeout)
        if not saved.exists():
            raise RuntimeError(f"gnubg saved no match for {path}: {done.stderr[-500:]}")
        text = saved.read_text(encoding="utf-8")
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_text(text, encoding="utf-8")
    return text


_SGF_MOVE: Final = re.compile(r";[BW]\[(?P<move>[^\]]*)\](?P<props>(?:[A-Z]+(?:\[[^\]]*\])+)*)")
_SGF_ANALYSIS: Final = re.compile(r"(?<![A-Z])A\[(?P<played>\d+)\](?P<alts>(?:\[[^\]]*\])*)")
_SGF_ALTERNATIVE: Final = re.compile(r"\[[a-z]* E ver 3 (?P<figures>[^\]]*)\]")


def sgf_checker_losses(text: str) -> list[list[float | None]]:
    """Per game, per checker play in order, the equity (EMG) gnubg's analysis says the play
    made lost against its best, or None where it has none (a forced play, a roll that cannot
    be played). gnubg writes a play as ``;W[31...]`` and its analysis as ``A[i][alt]...``: the
    index of the play made among the alternatives, each ``[move E ver 3 p0 .. p4 equity ...]``."""
    games: list[list[float | None]] = []
    for part in text.split("(;FF[4]")[1:]:
        losses: list[float | None] = []
        for node in _SGF_MOVE.finditer(part):
            if not re.fullmatch(r"\d\d[a-z]*", node["move"]):
                continue  # a cube action
            found = _SGF_ANALYSIS.search(node["props"])
            loss = None
            if found is not None:
                equities = [float(a["figures"].split()[5])
                            for a in _SGF_ALTERNATIVE.finditer(found["alts"])]
                played = int(found["played"])
                if played < len(equities):
                    loss = max(equities) - equities[played]
            losses.append(loss)
        games.append(losses)
    return games


#: One checker play in both analyses: gnubg's loss, ours (EMG), and where it is (``--dump``).
Pair = tuple[float, float, dict[str, Any]]

#: The bands of gnubg's loss (EMG) the breakdown groups the plays by.
BANDS: Final = (0.0, 0.01, 0.02, 0.04, 0.08, 0.16, 0.3, 100.0)


def print_breakdown(pairs: Sequence[Pair]) -> None:
    """The table of ``(gnubg's loss, our loss)`` pairs of the unforced plays, by gnubg's band:
    the plays, the mean loss each gives (mEMG), and what the band adds to the difference of
    the error rates (mEMG per unforced play)."""
    n = len(pairs)
    if not n:
        return
    print(f"\n{'gnubg loss (EMG)':18} {'plays':>6} {'gnubg':>8} {'ours':>8} {'adds':>7}")
    groups = [("0 (its best)", [p for p in pairs if p[0] <= 0.0])]
    for lo, hi in itertools.pairwise(BANDS):
        groups.append((f"({lo:g}, {hi:g}]", [p for p in pairs if lo < p[0] <= hi]))
    for label, group in groups:
        if not group:
            continue
        g = 1000 * sum(p[0] for p in group) / len(group)
        o = 1000 * sum(p[1] for p in group) / len(group)
        adds = 1000 * sum(p[1] - p[0] for p in group) / n
        print(f"{label:18} {len(group):6d} {g:8.1f} {o:8.1f} {adds:+7.2f}")
    total = 1000 * sum(p[1] - p[0] for p in pairs) / n
    print(f"{'all':18} {n:6d} {1000 * sum(p[0] for p in pairs) / n:8.1f} "
          f"{1000 * sum(p[1] for p in pairs) / n:8.1f} {total:+7.2f}")


def gnubg_statistics(path: Path, cache: Path | None = CACHE_DIR) -> tuple[GnubgPlayer,
                                                                          GnubgPlayer]:
    """gnubg's chequer-play figures for both players of the ``.mat`` at ``path``."""
    return parse_statistics(gnubg_output(path, cache))


def agrees(ours: float, theirs: float) -> bool:
    """Within max(3 mEMG, 25 % of gnubg's figure)."""
    return abs(ours - theirs) <= max(3.0, 0.25 * theirs)


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation (average ranks for ties)."""
    def ranks(values: Sequence[float]) -> list[float]:
        order = sorted(range(len(values)), key=lambda i: values[i])
        out = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2.0 + 1.0
            i = j + 1
        return out

    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / (vx * vy) ** 0.5 if vx and vy else 0.0


class Row(NamedTuple):
    """One player-file: gnubg's figures and ours."""

    file: str
    player: str
    gnubg_unforced: int
    gnubg_rate: float
    unforced: int
    rate: float


def compare(path: Path, level: str = "expert", plies: int | None = None,
            cache: Path | None = CACHE_DIR,
            pairs: list[Pair] | None = None) -> tuple[list[Row], float, float]:
    """Both player-rows for ``path`` and our analysis's (wall, CPU) seconds. With ``pairs``,
    ``(gnubg's loss, our loss, the play's details)`` of each unforced checker play both
    analyses scored is added to it (gnubg's from :func:`gnubg_sgf`)."""
    from backgammon.analysis import analyze
    from backgammon.records import read_mat

    theirs = gnubg_statistics(path, cache)
    wall, cpu = time.perf_counter(), time.process_time()
    result = analyze(read_mat(path.read_text(encoding="utf-8")), level, plies=plies)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rows = [Row(path.name, g.name, g.unforced, g.error_rate_memg, ours.unforced_moves,
                ours.chequer_error_rate_memg)
            for g, ours in zip(theirs, result.players, strict=True)]
    if pairs is not None:
        gnubg_games = sgf_checker_losses(gnubg_sgf(path, cache))
        if len(gnubg_games) != len(result.games):
            raise RuntimeError(f"{path.name}: gnubg saved {len(gnubg_games)} games, "
                               f"we analysed {len(result.games)}")
        for game, losses in zip(result.games, gnubg_games, strict=True):
            plays = [d for d in game.decisions if d.kind == "move"]
            if len(plays) != len(losses):
                raise RuntimeError(f"{path.name} game {game.index}: gnubg has {len(losses)} "
                                   f"checker plays, we have {len(plays)}")
            pairs.extend((theirs_loss, d.loss, {
                "file": path.name, "game": game.index, "turn": d.turn, "player": d.player,
                "position_id": d.position_id, "dice": list(d.dice or ()), "played": d.played,
                "best": d.best, "gnubg_loss": round(theirs_loss, 4), "loss": round(d.loss, 4),
                "ply": d.alternatives[0].ply if d.alternatives else None})
                for d, theirs_loss in zip(plays, losses, strict=True)
                if d.unforced and theirs_loss is not None)
    return rows, wall, cpu


def _setup_worker(weights: Path | None) -> None:
    if weights is not None:
        from backgammon.ai.nets import use_weights

        use_weights(weights)


#: A job and its result, for :func:`map_files`.
J = TypeVar("J")
R = TypeVar("R")


def map_files(job: Callable[[J], R], jobs: Sequence[J], workers: int,
              weights: Path | None) -> Iterator[R]:
    """``job`` over ``jobs`` in order, on ``workers`` processes (forked, each with ``weights``
    in place of the shipped nets) when more than one, else here. Ask gnubg for every file's
    answers first, one run at a time, so that no answer is made twice."""
    if workers <= 1:
        yield from map(job, jobs)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(workers, _setup_worker, (weights,)) as pool:
        yield from pool.imap(job, jobs)


def _compare_job(job: tuple[Path, str, int | None, bool]
                 ) -> tuple[list[Row], float, float, list[Pair] | None]:
    path, level, plies, breakdown = job
    pairs: list[Pair] | None = [] if breakdown else None
    found, wall, cpu = compare(path, level, plies, pairs=pairs)
    return found, wall, cpu, pairs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path,
                        help="the .mat files (default ../shared/mat/gnubg_selfplay_*.mat)")
    parser.add_argument("--level", default="expert")
    parser.add_argument("--plies", type=int, default=None)
    parser.add_argument("--breakdown", action="store_true",
                        help="also compare play by play, by the size of gnubg's loss")
    parser.add_argument("--dump", type=Path,
                        help="with --breakdown: write each play compared as a JSON line "
                        "(file, game, turn, position_id, dice, played, best, both losses)")
    parser.add_argument("--weights", type=Path,
                        help="a weights file (e.g. a training checkpoint) in place of the "
                        "shipped nets")
    parser.add_argument("--json", type=Path, dest="json_out",
                        help="also write the player-rows and the summary to this file as "
                        "JSON (what tests/analysis/test_against_gnubg.py reads)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="files analysed at once, one process each (one per core)")
    args = parser.parse_args(argv)
    _setup_worker(args.weights)
    if not gnubg_available():
        print("gnubg is not installed: nothing to compare with", file=sys.stderr)
        return 1
    files = args.files or sorted(SHARED_MAT.glob("gnubg_selfplay_*.mat"))
    rows: list[Row] = []
    pairs: list[Pair] | None = [] if args.breakdown else None
    print(f"{'file':34} {'player':8} {'gnubg':>7} {'ours':>7} {'n(g/o)':>8}  agree  "
          f"{'wall s':>7} {'cpu s':>7}")
    jobs = [(path, args.level, args.plies, pairs is not None) for path in files]
    if args.jobs > 1:
        for path in files:  # gnubg's answers first, one run at a time, so none is made twice
            gnubg_output(path)
            if pairs is not None:
                gnubg_sgf(path)
    for found, wall, cpu, found_pairs in map_files(_compare_job, jobs, args.jobs,
                                                   args.weights):
        if pairs is not None and found_pairs is not None:
            pairs.extend(found_pairs)
        for row in found:
            print(f"{row.file:34} {row.player:8} {row.gnubg_rate:7.1f} {row.rate:7.1f} "
                  f"{row.gnubg_unforced:>3}/{row.unforced:<4}  "
                  f"{'yes' if agrees(row.rate, row.gnubg_rate) else 'NO ':5}  "
                  f"{wall:7.1f} {cpu:7.1f}", flush=True)
        rows.extend(found)
    share = sum(agrees(r.rate, r.gnubg_rate) for r in rows) / len(rows)
    rho = spearman([r.gnubg_rate for r in rows], [r.rate for r in rows])
    print(f"\nplayer-files: {len(rows)}; within max(3 mEMG, 25 %): {share:.0%}; "
          f"Spearman: {rho:.3f}; mean difference (ours - gnubg): "
          f"{sum(r.rate - r.gnubg_rate for r in rows) / len(rows):+.2f} mEMG")
    if args.json_out is not None:
        args.json_out.write_text(json.dumps({
            "rows": [row._asdict() for row in rows], "within": share, "spearman": rho,
            "level": args.level, "plies": args.plies,
            "weights": str(args.weights) if args.weights else None}, indent=1) + "\n",
            encoding="utf-8")
    if pairs is not None:
        print_breakdown(pairs)
        if args.dump is not None:
            with args.dump.open("w", encoding="utf-8") as out:
                for _, _, info in pairs:
                    out.write(json.dumps(info) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
