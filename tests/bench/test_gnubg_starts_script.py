"""``bench/gnubg_starts.py``: our nets' equities beside gnubg's on drawn training starts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from backgammon.ai.encoding import encode
from backgammon.ai.nets import consistent, default_nets, save_weights
from backgammon.ai.neural import equities
from backgammon.core.position import Position
from backgammon.core.types import WHITE

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "gnubg_starts.py"
sys.path.insert(0, str(SCRIPT.parent))
from gnubg_starts import DRAWS, drawn, interval, names  # noqa: E402


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=300, check=False)


def test_the_draws_are_the_training_starts_and_reproducible() -> None:
    assert set(DRAWS) == {"back-games", "blitz", "primes"}
    first = drawn("primes", 5, 3)
    assert first == drawn("primes", 5, 3) and len(set(first)) == 5
    assert drawn("blitz", 5, 3) != first


def test_interval() -> None:
    assert interval([1.0, 3.0]) == "+2.000 ± 1.960"  # mean 2; sd 1.414, / sqrt 2, x 1.96
    assert interval([0.5]) == "+0.500 ± 0.000"


def test_prints_each_kind_with_ours_less_gnubgs(tmp_path: Path) -> None:
    pytest.importorskip("gnubg", reason="GNU Backgammon's Python package is not installed")
    judge = pytest.importorskip("gnubg_judge").Judge(0, True)
    same = tmp_path / "same.npz"
    save_weights(default_nets(), same)
    done = run("--draw", "primes", "--positions", "4", "--plies", "0", "--seed", "5",
               "--weights", str(same))
    assert done.returncode == 0, done.stdout + done.stderr
    boards = drawn("primes", 4, 5)
    gnubg_eq = np.asarray([judge.pre_roll_equity(Position.from_points(list(b), WHITE))
                           for b in boards])
    ours = equities(consistent(default_nets().contact(
        encode(np.asarray(boards, dtype=np.int8))).copy()))
    gap = ours - gnubg_eq
    lines = done.stdout.splitlines()
    assert lines[0].startswith("gnubg 0-ply; 4 drawn positions of each kind (seed 5)")
    assert lines[1] == f"--primes: gnubg's mean {np.mean(gnubg_eq):+.3f}"
    expected = f"ours - gnubg {np.mean(gap):+.3f} (mean |.| {np.mean(np.abs(gap)):.3f})"
    assert lines[2] == f"    shipped: {expected}"
    assert lines[3] == f"    same: {expected}; |.| less the shipped nets' +0.000 ± 0.000"
    assert len(lines) == 4


def test_weights_files_are_named_by_stem_unless_two_share_one() -> None:
    assert names([Path("a/wide.npz"), Path("b/prime.npz")]) == ["wide", "prime"]
    assert names([Path("a/nets.npz"), Path("b/nets.npz"), Path("c.npz")]) == [
        "a/nets.npz", "b/nets.npz", "c"]
    assert names([Path("x/shipped.npz")]) == ["x/shipped.npz"]


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    done = run("--positions", "1")
    assert done.returncode == 2 and "--positions must be at least 2, got 1" in done.stderr
    done = run("--draw", "holding")
    assert done.returncode == 2 and "invalid choice: 'holding'" in done.stderr
    pytest.importorskip("gnubg", reason="GNU Backgammon's Python package is not installed")
    missing = tmp_path / "absent.npz"
    done = run("--weights", str(missing), "--positions", "2")
    assert done.returncode == 1 and re.search(r"error: .*absent\.npz", done.stderr), done.stderr
