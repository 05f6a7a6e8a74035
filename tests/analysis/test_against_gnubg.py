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
def rows() -> list:  # type: ignore[type-arg]
    found = []
    for name in FILES:
        pairs, _, _ = bench.compare(shared_path("mat", name))
        found.extend(pairs)
    return found


def test_gnubg_statistics_are_read() -> None:
    text = bench.gnubg_output(shared_path("mat", "gnubg_selfplay_3p_s1003.mat"))
    first, second = bench.parse_statistics(text)
    assert (first.name, first.unforced, first.error_rate_memg) == ("gnubg", 41, 54.9)
    assert (second.name, second.unforced, second.error_rate_memg) == ("root", 42, 61.1)


def test_unforced_moves_are_counted_as_gnubg_counts_them() -> None:
    assert [(r.file, r.player, r.unforced) for r in rows()] == [
        (r.file, r.player, r.gnubg_unforced) for r in rows()]
