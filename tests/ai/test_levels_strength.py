"""The levels are ordered by strength: seeded cubeless series between neighbours."""

from __future__ import annotations

from backgammon.ai.selfplay import play_series


def test_medium_beats_easy() -> None:
    result = play_series("medium", "easy", 30, seed=3)
    assert result.points_per_game > 0.5, result


def test_hard_beats_medium() -> None:
    result = play_series("hard", "medium", 60, seed=4)
    assert result.points_per_game > 0.0, result
