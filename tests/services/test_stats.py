"""The record of a browser in SQLite: counted once, summed by opponent and mode, cleared."""

from __future__ import annotations

from pathlib import Path

import pytest

from backgammon.services.stats import BrowserIdError, FinishedGame, StatsStore

BROWSER = "browser-one-0001"


def test_games_are_counted_once_and_summed(tmp_path: Path) -> None:
    store = StatsStore(tmp_path / "games.sqlite3", now=iter(range(100)).__next__)
    games = [
        FinishedGame(BROWSER, "s1", 1, "hard", "match", True, 2, "gammon"),
        FinishedGame(BROWSER, "s1", 2, "hard", "match", False, 1, "single", "lost"),
        FinishedGame(BROWSER, "s2", 1, "easy", "money", True, 6, "backgammon"),
        FinishedGame(BROWSER, "room", 1, "online", "single", False, 2, "gammon"),
    ]
    assert [store.record(g) for g in games] == [True] * 4
    assert store.record(games[0]) is False  # the same game again
    stats = store.summary(BROWSER)
    assert [(r["opponent"], r["mode"], r["games"]) for r in stats["rows"]] == [
        ("easy", "money", 1), ("hard", "match", 2), ("online", "single", 1)]
    hard = stats["by_opponent"][1]
    assert (hard["won"], hard["lost"], hard["points_won"], hard["points_lost"],
            hard["gammons_won"], hard["matches_lost"]) == (1, 1, 2, 1, 1, 1)
    total = stats["total"]
    assert (total["games"], total["won"], total["points_won"], total["points_lost"],
            total["gammons_lost"], total["backgammons_won"]) == (4, 2, 8, 3, 1, 1)
    reopened = StatsStore(tmp_path / "games.sqlite3")
    assert reopened.summary(BROWSER) == stats
    assert reopened.clear(BROWSER) == 4
    assert store.summary(BROWSER)["total"]["games"] == 0


def test_bad_values_are_refused() -> None:
    store = StatsStore(":memory:")
    with pytest.raises(BrowserIdError, match="'no' is not one"):
        store.summary("no")
    with pytest.raises(ValueError, match="opponent must be one of easy, medium, hard, expert, "
                                         "master, pass_and_play, online, got 'gnubg'"):
        FinishedGame(BROWSER, "s", 1, "gnubg", "single", True, 1, "single")
    with pytest.raises(ValueError, match="points must be an int >= 1, got 0"):
        FinishedGame(BROWSER, "s", 1, "easy", "single", True, 0, "single")
