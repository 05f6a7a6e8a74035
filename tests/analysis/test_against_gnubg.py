"""Our analysis against GNU Backgammon's own (``gnubg -t``: ``analyse match``, ``show
statistics match``) on the gnubg self-play matches of ``../shared/mat``.

gnubg's analysis of a whole match takes from seconds to minutes, and ours about as long, so the
tests take one 3-point match: gnubg's statistics are read, and the unforced moves are counted
as gnubg counts them. The agreement of the error rates (issue 15's acceptance: within
max(3 mEMG, 25 %) for 80 % of the player-files, Spearman >= 0.9) is measured over all 30 files
by ``bench/gnubg_analysis.py``; it is not met yet (the nets are still training), so it is a
bench figure, not a test. gnubg's answers are cached in ``bench/.cache/gnubg_analysis/``.
Skipped, saying so, when gnubg is not installed.
"""

from __future__ import annotations

import functools

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
