"""Our analysis against GNU Backgammon's own (``gnubg -t``: ``analyse match``, ``show
statistics match``) on the gnubg self-play matches of ``../shared/mat``.

gnubg's analysis of a 7- or 11-point match takes 15 to 25 s on this machine, and ours about as
long, so the default suite takes one 3-point match: gnubg's statistics are read, the unforced
moves are counted as gnubg counts them, and each player's error rate is within the acceptance's
range.
Issue 15's acceptance over all 30 files (each player's chequer-play error rate within
max(3 mEMG, 25 %) of gnubg's for at least 80 % of the player-files, Spearman >= 0.9) is
:func:`test_the_acceptance_over_all_the_self_play_matches`: it runs ``bench/gnubg_analysis.py``
(about 8 minutes on 2 cores with gnubg's answers cached, 16 without), too long for CI's
budget beside the rest of the suite, so it runs only with ``BACKGAMMON_GNUBG_FULL=1`` and
otherwise skips saying so. gnubg's answers are cached in ``bench/.cache/gnubg_analysis/``.
Skipped, saying so, when gnubg is not installed.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import bench_module, shared_path

bench = bench_module("gnubg_analysis")
pytestmark = pytest.mark.skipif(not bench.gnubg_available(),
                                reason="GNU Backgammon (gnubg) is not installed")

FILES = ("gnubg_selfplay_3p_s1003.mat",)


@functools.cache
def analysed() -> tuple[list, list[tuple[float, float]]]:  # type: ignore[type-arg]
    """The player-rows of FILES and the (gnubg, ours) loss of each unforced play."""
    found = []
    pairs: list[tuple[float, float]] = []
    for name in FILES:
        rows_, _, _ = bench.compare(shared_path("mat", name), pairs=pairs)
        found.extend(rows_)
    return found, pairs


def rows() -> list:  # type: ignore[type-arg]
    return analysed()[0]


def test_gnubg_statistics_are_read() -> None:
    text = bench.gnubg_output(shared_path("mat", "gnubg_selfplay_3p_s1003.mat"))
    first, second = bench.parse_statistics(text)
    assert (first.name, first.unforced, first.error_rate_memg) == ("gnubg", 41, 54.9)
    assert (second.name, second.unforced, second.error_rate_memg) == ("root", 42, 61.1)


def test_unforced_moves_are_counted_as_gnubg_counts_them() -> None:
    assert [(r.file, r.player, r.unforced) for r in rows()] == [
        (r.file, r.player, r.gnubg_unforced) for r in rows()]


def test_the_error_rates_agree_with_gnubgs_on_the_match() -> None:
    """The acceptance's rule on this match: each player's chequer-play error rate within
    max(3 mEMG, 25 %) of gnubg's (gnubg 54.9 and 61.1 mEMG; the whole figure, over all 30
    files, is the bench's)."""
    for row in rows():
        assert bench.agrees(row.rate, row.gnubg_rate), row


def test_gnubgs_loss_of_each_play_is_read_from_its_saved_match() -> None:
    """The breakdown's input: gnubg's analysis saved as SGF, one loss per checker play, in
    step with ours; their sum is gnubg's error total within 1 % (its statistics print rates
    rounded, and convert match equity at each play's own score and cube)."""
    path = shared_path("mat", "gnubg_selfplay_3p_s1003.mat")
    games = bench.sgf_checker_losses(bench.gnubg_sgf(path))
    first, second = bench.parse_statistics(bench.gnubg_output(path))
    counted = [loss for game in games for loss in game if loss is not None]
    assert len(counted) >= first.unforced + second.unforced
    total = first.unforced * first.error_rate_memg + second.unforced * second.error_rate_memg
    assert 1000 * sum(counted) == pytest.approx(total, rel=0.01)
    pairs = analysed()[1]
    assert len(pairs) == first.unforced + second.unforced
    assert 1000 * sum(p[0] for p in pairs) == pytest.approx(total, rel=0.01)


@pytest.mark.skipif(os.environ.get("BACKGAMMON_GNUBG_FULL") != "1",
                    reason="the whole comparison takes 8 to 16 minutes: set "
                    "BACKGAMMON_GNUBG_FULL=1 to run it")
def test_the_acceptance_over_all_the_self_play_matches(tmp_path: Path) -> None:
    """Issue 15's acceptance on every ``gnubg_selfplay_*.mat`` of ``../shared/mat``: our
    chequer-play error rate at Expert within max(3 mEMG, 25 %) of gnubg's for at least 80 % of
    the player-files, and Spearman's rank correlation across them at least 0.9."""
    files = sorted(shared_path("mat").glob("gnubg_selfplay_*.mat"))
    assert len(files) >= 10, files
    out = tmp_path / "agreement.json"
    subprocess.run([sys.executable, str(bench.__file__), "--jobs", str(os.cpu_count() or 1),
                    "--json", str(out), *map(str, files)],
                   check=True, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
                   stdout=subprocess.DEVNULL, timeout=3600)
    found = json.loads(out.read_text(encoding="utf-8"))
    rows = found["rows"]
    assert len(rows) == 2 * len(files)
    assert all(r["unforced"] == r["gnubg_unforced"] for r in rows), rows
    within = [bench.agrees(r["rate"], r["gnubg_rate"]) for r in rows]
    assert sum(within) / len(rows) == pytest.approx(found["within"])
    misses = [(r["file"], r["player"], r["gnubg_rate"], r["rate"])
              for r, ok in zip(rows, within, strict=True) if not ok]
    assert sum(within) >= 0.8 * len(rows), misses
    rho = bench.spearman([r["gnubg_rate"] for r in rows], [r["rate"] for r in rows])
    assert rho >= 0.9
