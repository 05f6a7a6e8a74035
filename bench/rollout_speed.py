"""Rollout speed: trials per second of a 0-ply rollout truncated at 10 plies, beside GNU
Backgammon's own rollout of the same position with the same settings, in the same run.

The settings on both sides: cubeless, 0-ply checker play (gnubg's checker play cubeless too),
truncated after 10 plies and evaluated at 0-ply there, variance reduction and quasi-random
dice on, the same seed, cubeless rollouts stopping at the one-sided bear-off table (both
programs' default). The position is rolled out before the roll, the side on roll's chances
(``rollout(position)``; gnubg's ``rollout`` command of the current position). Each side uses
``--jobs`` cores: our worker processes, gnubg's ``set threads``. Times are wall-clock of the
whole call: our worker processes' start, gnubg's start-up (the Debian ``gnubg`` program, in
text mode, driven by a command file) included.

Target (the rollouts' issue): within 3 times gnubg's speed on the project's 2-core machine.
The machine is shared: keep ``--trials`` small while others work, and read the ratio of the
two programs run back to back rather than the absolute figures.

Also here: :func:`gnubg_rollouts`, GNU Backgammon's rollout of positions given as XGIDs (the
tests use it to compare figures).

Usage: python bench/rollout_speed.py [--trials 144] [--jobs 1] [--xgid XGID] [--seed 1]
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from backgammon.ai.rollout import RolloutSettings, rollout
from backgammon.core.xgid import Xgid

#: A contact position from GNU Backgammon's self-play (White on roll, both sides' back
#: checkers still behind the other's front ones).
DEFAULT_XGID = "XGID=-a--BBBBBA--eC---a-dbb--A-:0:0:-1:00:0:0:0:0:10"


def find_gnubg() -> str | None:
    """gnubg on PATH, or where Debian installs it."""
    found = shutil.which("gnubg")
    if found:
        return found
    fallback = Path("/usr/games/gnubg")
    return str(fallback) if fallback.exists() else None


@dataclass(frozen=True)
class GnubgRollout:
    """GNU Backgammon's rollout of one position, the side on roll's view.

    Attributes:
        probs: P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon).
        probs_se: their standard errors.
        equity: the cubeless money equity (gnubg's ``CL``), points.
        se: its standard error.
    """

    probs: tuple[float, ...]
    probs_se: tuple[float, ...]
    equity: float
    se: float


def gnubg_settings(trials: int, truncate: int, seed: int, threads: int = 1) -> list[str]:
    """gnubg's commands for a cubeless rollout like ``RolloutSettings(trials, truncate,
    plies=0, seed=seed)``."""
    commands = [
        f"set threads {threads}",
        f"set rollout trials {trials}",
        f"set rollout truncation enable {'on' if truncate else 'off'}",
        "set rollout cubeful off",
        "set rollout varredn on",
        "set rollout quasirandom on",
        f"set rollout seed {seed}",
        "set rollout later enable off",
        "set rollout chequerplay plies 0",
        "set rollout chequerplay cubeful off",
        "set rollout chequerplay noise 0",
        "set rollout cubedecision plies 0",
        "set rollout truncation chequerplay plies 0",
        "set rollout truncation chequerplay cubeful off",
        "set rollout truncation cubedecision plies 0",
        "set rollout bearofftruncation onesided on",
        "set rollout limit enable off",
        "set rollout jsd stop off",
    ]
    if truncate:
        commands.append(f"set rollout truncation plies {truncate}")
    return commands


_NUMBER = r"([-+]?\d+\.\d+)"
_RESULT = re.compile(
    r"Rollout done\. Printing final results\.\s+.*?:\s*\n\s*"
    + r"\s+".join([_NUMBER] * 3) + r"\s+-\s+" + r"\s+".join([_NUMBER] * 3) + r"\s+CL\s+"
    + _NUMBER + r"\s*\n\s*\[" + r"\s+".join([_NUMBER] * 3) + r"\s+-\s+"
    + r"\s+".join([_NUMBER] * 3) + r"\s+CL\s+" + _NUMBER + r"\s*\]",
)


def gnubg_rollouts(xgids: Sequence[str], trials: int, truncate: int, seed: int,
                   threads: int = 1, timeout: float = 600) -> tuple[list[GnubgRollout], float]:
    """Roll out each position (an XGID, before the roll) in one gnubg run: its results and
    the run's wall-clock seconds.

    gnubg prints a rollout's figures only to a terminal, so it runs on a pseudo-terminal; its
    home is a fresh temporary folder, so no settings of the user's are read or written.

    Raises:
        FileNotFoundError: gnubg is not installed.
        RuntimeError: gnubg printed fewer results than positions (its output quoted).
    """
    gnubg = find_gnubg()
    if gnubg is None:
        raise FileNotFoundError("GNU Backgammon (gnubg) is not installed")
    commands = gnubg_settings(trials, truncate, seed, threads)
    for text in xgids:
        commands += [f"set xgid {text}", "rollout"]
    with tempfile.TemporaryDirectory() as work:
        script = Path(work) / "commands.txt"
        script.write_text("\n".join(commands) + "\n", encoding="utf-8")
        master, slave = pty.openpty()
        started = time.perf_counter()
        process = subprocess.Popen(
            [gnubg, "-t", "-q", "-c", str(script)], stdin=subprocess.DEVNULL, stdout=slave,
            stderr=slave, cwd=work, env={"HOME": work, "PATH": "/usr/bin:/bin"})
        os.close(slave)
        chunks: list[bytes] = []
        try:
            while True:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the terminal closed: gnubg has finished
                    break
                if not data:
                    break
                chunks.append(data)
                if time.perf_counter() - started > timeout:
                    process.kill()
                    break
        finally:
            os.close(master)
            process.wait()
        seconds = time.perf_counter() - started
    output = b"".join(chunks).decode("utf-8", errors="replace").replace("\r", "")
    found = []
    for match in _RESULT.finditer(output):
        v = [float(x) for x in match.groups()]
        found.append(GnubgRollout(tuple(v[0:6]), tuple(v[7:13]), v[6], v[13]))
    if len(found) != len(xgids):
        raise RuntimeError(f"gnubg printed {len(found)} results for {len(xgids)} positions:\n"
                           + output[-3000:])
    # gnubg prints the win probabilities as 3 numbers, '-', 3 numbers: win, wg, wbg - lose,
    # lg, lbg; keep ours: win, wg, wbg, lg, lbg
    return [GnubgRollout((r.probs[0], r.probs[1], r.probs[2], r.probs[4], r.probs[5]),
                         (r.probs_se[0], r.probs_se[1], r.probs_se[2], r.probs_se[4],
                          r.probs_se[5]), r.equity, r.se) for r in found], seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=144)
    parser.add_argument("--truncate", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--xgid", default=DEFAULT_XGID)
    args = parser.parse_args()

    xgid = Xgid.parse(args.xgid)
    settings = RolloutSettings(trials=args.trials, truncate=args.truncate, seed=args.seed)
    # warm: the nets and the bear-off table load once per process, as a long-running
    # program has them
    rollout(xgid.position, settings=RolloutSettings(trials=1, truncate=2))
    started = time.perf_counter()
    ours = rollout(xgid.position, settings=settings, jobs=args.jobs)
    our_seconds = time.perf_counter() - started
    print(f"position {args.xgid}: {args.trials} trials, truncated at {args.truncate}, 0-ply, "
          f"variance reduction, quasi-random dice, seed {args.seed}, {args.jobs} job(s)")
    c = ours.best
    our_rate = args.trials / our_seconds
    print(f"ours:  equity {c.equity:+.4f} (se {c.se:.4f})  win {c.probs[0]:.4f}  "
          f"{our_seconds:6.2f} s  {our_rate:7.1f} trials/s")
    if find_gnubg() is None:
        print("gnubg: not installed")
        return
    results, gnubg_seconds = gnubg_rollouts([str(xgid)], args.trials, args.truncate,
                                            args.seed, threads=args.jobs)
    g = results[0]
    gnubg_rate = args.trials / gnubg_seconds
    print(f"gnubg: equity {g.equity:+.4f} (se {g.se:.4f})  win {g.probs[0]:.4f}  "
          f"{gnubg_seconds:6.2f} s  {gnubg_rate:7.1f} trials/s")
    print(f"ratio: gnubg is {gnubg_rate / our_rate:.2f}x as fast")


if __name__ == "__main__":
    main()
