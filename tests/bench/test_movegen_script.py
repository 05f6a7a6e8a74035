"""``bench/movegen.py`` still runs, beside GNU Backgammon's generator when the ``gnubg`` package
imports and alone when it does not (a smoke test: the figures it prints are not judged here)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "movegen.py"

# Runs the script with ``import gnubg`` made to fail, as where the package is not installed.
WITHOUT_GNUBG = (
    "import runpy, sys; sys.modules['gnubg'] = None; sys.argv = sys.argv[1:]; "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)


def _run(shared_dir: Path, *prefix: str) -> str:
    done = subprocess.run(
        [sys.executable, *prefix, str(SCRIPT), "--repeat", "1", "--shared", str(shared_dir)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_without_gnubg_it_prints_our_figures_alone(shared_dir: Path) -> None:
    out = _run(shared_dir, "-c", WITHOUT_GNUBG)
    assert "gnubg is not installed" in out
    assert out.count(" search ") == 2 and out.count("+ Play objects") == 2
    assert "x gnubg" not in out


def test_with_gnubg_it_prints_the_ratios(shared_dir: Path) -> None:
    pytest.importorskip("gnubg", reason="the comparison needs the gnubg package")
    out = _run(shared_dir)
    assert "GenerateMoves in-process" in out
    assert "counts differ" not in out, out
    assert out.count("x gnubg") == 4 and out.count("gnubg C") == 2
