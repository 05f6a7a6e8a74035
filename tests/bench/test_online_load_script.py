"""``bench/online_load.py`` still runs: a few rooms play whole games through it (a smoke test
of the script, its checks included; the figures it prints are not judged here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "online_load.py"

pytest.importorskip("websockets", reason="the load test's clients need websockets")


def test_three_rooms_finish_with_identical_legal_records() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--rooms", "3", "--think-ms", "0", "--seed", "5",
         "--limit", "120", "--target-ms", "1000000"],
        capture_output=True, text=True, timeout=300, check=False,
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "rooms completed: 3/3" in out
    assert "every record identical on both sides and legal: yes" in out
    assert "send -> opponent's receipt over" in out
    assert "commits, one transaction per action: mean" in out  # persistence on by default
