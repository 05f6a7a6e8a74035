"""``bench/ai_strength.py`` still runs in each of its modes, on a few positions and games (a
smoke test of the script and its resume file; the figures it prints are not judged here)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import shared_path

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "ai_strength.py"


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_judged_by_gnubg_prints_a_loss_per_move_for_each_level_and_the_recorded_plays() -> None:
    pytest.importorskip("gnubg", reason="GNU Backgammon's Python package is not installed")
    mat = shared_path("mat")
    out = run("--judge", "gnubg", "--positions", "4", "--judge-plies", "0", "--no-cache",
              "--level", "easy,medium", "--worst", "1", "--shared", str(mat.parent))
    assert "judge: gnubg " in out and "0-ply, cubeless money; 4 rolls with a choice" in out
    for name in ("easy", "medium", "recorded"):
        found = re.search(rf"^{name}\s+(-?[\d.]+) mEMG per move .* over 4 positions; "
                          r"gnubg's best play (\d)/4", out, re.MULTILINE)
        assert found is not None, out
        assert float(found[1]) >= 0.0
    assert out.count("worst:") == 2


def test_the_worst_plays_say_where_gnubgs_best_stood_in_the_search() -> None:
    """``--worst``: under each costly play, gnubg's best play's place at each ply short of the
    level's depth and the deepest ply its move filters let that play reach."""
    pytest.importorskip("gnubg", reason="GNU Backgammon's Python package is not installed")
    mat = shared_path("mat")
    out = run("--judge", "gnubg", "--positions", "2", "--judge-plies", "0", "--no-cache",
              "--level", "hard", "--worst", "2", "--shared", str(mat.parent))
    traces = re.findall(r"gnubg's best in hard's search: 0-ply #(\d+) \(([-+][\d.]+)\); "
                        r"reached ([01])-ply", out)
    assert len(traces) == 2, out
    for place, behind, _ in traces:
        assert int(place) >= 1 and float(behind) <= 0.0


def test_against_gnubg_writes_a_line_per_game_and_resumes(tmp_path: Path) -> None:
    pytest.importorskip("gnubg", reason="GNU Backgammon's Python package is not installed")
    results = tmp_path / "vs.jsonl"
    common = ("--vs", "gnubg", "--level", "easy", "--noise", "0.04", "--out", str(results))
    out = run(*common, "--games", "2")
    assert "easy v gnubg 0-ply (noise σ=0.04), cubeless money, 2 games:" in out
    first = [json.loads(line) for line in results.read_text().splitlines()]
    assert [(r["game"], r["color"]) for r in first] == [(0, "white"), (1, "black")]
    assert all(r["points"] in (-3, -2, -1, 1, 2, 3) for r in first)
    out = run(*common, "--games", "3")
    assert "2 games already played with these settings" in out
    assert ", 3 games:" in out
    again = [json.loads(line) for line in results.read_text().splitlines()]
    assert again[:2] == first and [r["game"] for r in again] == [0, 1, 2]


def test_a_level_against_another_level() -> None:
    out = run("--vs", "easy", "--level", "medium", "--games", "2", "--cube", "off")
    assert re.search(r"^medium v easy, cube off: \d/2 won", out, re.MULTILINE), out


def test_a_level_against_another_level_resumes_and_shares_a_file(tmp_path: Path) -> None:
    """``--vs LEVEL --out``: one JSON line per game; ``--first`` starts a second share of
    the run in the same file, and a last run reports every game without playing one."""
    results = tmp_path / "levels.jsonl"
    common = ("--vs", "easy", "--level", "medium", "--cube", "off", "--out", str(results))
    out = run(*common, "--games", "1")
    assert "medium v easy, cubeless money, 1 games:" in out
    out = run(*common, "--first", "1", "--games", "2")
    assert "1 games already played with these settings" in out
    games = [json.loads(line) for line in results.read_text().splitlines()]
    assert [(r["game"], r["color"], r["opponent"], r["cube"]) for r in games] == [
        (0, "white", "easy", False), (1, "black", "easy", False)]
    out = run(*common, "--games", "2")
    assert "2 games already played" in out and "medium v easy, cubeless money, 2 games:" in out
    assert len(results.read_text().splitlines()) == 2  # nothing played again


def test_judged_losses_are_kept_and_a_later_run_is_paired_with_them(tmp_path: Path) -> None:
    """``--losses`` keeps each roll's loss; ``--paired`` compares roll by roll: the same
    level and seed again differ by exactly nothing on every roll."""
    pytest.importorskip("gnubg", reason="GNU Backgammon's Python package is not installed")
    mat = shared_path("mat")
    losses = tmp_path / "easy.json"
    common = ("--judge", "gnubg", "--positions", "4", "--judge-plies", "0", "--no-cache",
              "--level", "easy", "--worst", "0", "--shared", str(mat.parent))
    out = run(*common, "--losses", str(losses))
    kept = json.loads(losses.read_text())
    assert kept["level"] == "easy" and kept["judge_plies"] == 0 and len(kept["losses"]) == 4
    assert all(value >= 0.0 for value in kept["losses"].values())
    assert "recorded" not in out  # a comparison run judges no recorded plays
    found = re.search(r"^easy\s+(-?[\d.]+) mEMG per move", out, re.MULTILINE)
    assert found is not None
    assert float(found[1]) == pytest.approx(sum(kept["losses"].values()) / 4, abs=0.06)
    out = run(*common, "--paired", str(losses))
    assert f"paired with {losses} on 4 rolls: +0.00 mEMG a move" in out, out
    for bad in ("{}", '{"losses": {"a roll": "3.0"}}'):
        losses.write_text(bad)
        done = subprocess.run([sys.executable, str(SCRIPT), *common, "--paired", str(losses)],
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode != 0 and "not a losses file written by --losses" in done.stderr
    losses.write_text(json.dumps({"losses": {"another match 4HPwATDgc/ABMA white 42": 3.0}}))
    done = subprocess.run([sys.executable, str(SCRIPT), *common, "--paired", str(losses)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode != 0 and "no roll in common with this run" in done.stderr
