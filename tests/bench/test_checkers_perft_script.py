"""``bench/checkers_perft.py`` still runs and checks its counts against Bik's (a smoke test:
the times it prints are not judged here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "checkers_perft.py"


def test_it_prints_bik_s_counts_beside_pydraughts() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--depth", "5", "--pydraughts-depth", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert [(row[0], row[1], row[2]) for row in rows] == [
        ("1", "7", "ok"), ("2", "49", "ok"), ("3", "302", "ok"), ("4", "1,469", "ok"),
        ("5", "7,361", "ok"),
    ]  # fmt: skip
    assert rows[1][-1].endswith("x") and len(rows[2]) == 4  # pydraughts timed to depth 2 only
