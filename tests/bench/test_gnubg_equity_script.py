"""``bench/gnubg_equity.py``: our nets' and rollouts' equities beside gnubg's, by kind of
position, on a small targets file made here (rolled out for a few plies only)."""

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
from backgammon.training.rollout_targets import TargetSettings, load_targets, make_targets

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "gnubg_equity.py"
sys.path.insert(0, str(SCRIPT.parent))
from gnubg_equity import KINDS, kinds  # noqa: E402


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True,
                          text=True, timeout=300, check=False)


def test_kinds_of_position() -> None:
    boards = np.zeros((3, 26), np.int8)
    boards[0, [20, 23]] = 2          # the side on roll holds two points in the other's board
    boards[1, [1, 5]] = -3           # the other side holds two in the side on roll's board
    boards[2, [20, 1]] = (2, -2)     # one each: neither
    assert kinds(boards).tolist() == [0, 1, 2]
    assert len(KINDS) == 3


def test_prints_each_kind_with_the_rollout_less_the_nets(tmp_path: Path) -> None:
    pytest.importorskip("gnubg", reason="GNU Backgammon's Python package is not installed")
    data = tmp_path / "targets.npz"
    make_targets(data, TargetSettings(positions=8, seed=2, trials=2, truncate=2, chunk=8),
                 quiet=True)
    same = tmp_path / "same.npz"
    save_weights(default_nets(), same)
    done = run(str(data), "--weights", str(same), "--positions", "2", "--plies", "0")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert out.startswith("8 positions in 1 files; gnubg 0-ply;")
    boards, probs, _, _ = load_targets(data)
    gap = equities(probs) - equities(consistent(default_nets().contact(
        encode(boards)).copy()))
    kind = kinds(boards)
    for k, label in enumerate(KINDS):
        if not (kind == k).any():
            assert f"{label}: none" in out
            continue
        found = re.search(rf"^{re.escape(label)}: (\d+) positions; rollout - shipped "
                          r"([-+][\d.]+), rollout - same ([-+][\d.]+)$", out, re.MULTILINE)
        assert found is not None, out
        assert int(found[1]) == (kind == k).sum()
        assert float(found[2]) == pytest.approx(gap[kind == k].mean(), abs=6e-4)
        assert found[2] == found[3]  # the same nets under another name
    judged = re.findall(r"^    (\d) judged: rollout - gnubg [-+][\d.]+ \(mean \|\.\| [\d.]+\); "
                        r"shipped - gnubg ([-+][\d.]+) .*; same - gnubg ([-+][\d.]+)", out,
                        re.MULTILINE)
    assert judged and all(a == b for _, a, b in judged)


def test_a_file_that_is_not_targets_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("gnubg", reason="GNU Backgammon's Python package is not installed")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not an archive")
    done = run(str(bad))
    assert done.returncode != 0
    assert f"error: {bad}: not a rollout targets file" in done.stderr
