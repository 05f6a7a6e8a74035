"""The strong levels' opening plays, judged by GNU Backgammon.

For each of the 15 non-double opening rolls the play of Expert and of Master must be one of
gnubg's two best by its 2-ply evaluation (cubeless money, with its pruning nets as in its own
2-ply analysis). Skipped when the ``gnubg`` package is not installed.
"""

from __future__ import annotations

from typing import Any

import pytest

from backgammon import Position
from backgammon.ai import choose_play
from conftest import bench_module

gnubg = pytest.importorskip(
    "gnubg", reason="GNU Backgammon's Python package is not installed (pip install gnubg; "
    "it is in the [dev] extras)"
)
judge = bench_module("gnubg_judge")

#: The 15 opening rolls that are not doubles, higher die first.
OPENING_ROLLS = [(high, low) for high in range(2, 7) for low in range(1, high)]

def _param(dice: tuple[int, int]) -> object:
    return pytest.param(dice, id=f"{dice[0]}{dice[1]}")


@pytest.fixture(scope="module")
def two_ply() -> Any:
    """gnubg at 2-ply, one cache for all the rolls."""
    return judge.Judge(plies=2, prune=True)


def test_there_are_fifteen_opening_rolls() -> None:
    assert len(OPENING_ROLLS) == 15 and len(set(OPENING_ROLLS)) == 15


@pytest.mark.parametrize("level", ["expert", "master"])
@pytest.mark.parametrize("dice", [_param(d) for d in OPENING_ROLLS])
def test_the_opening_play_is_one_of_gnubgs_two_best(dice: tuple[int, int], level: str,
                                                    two_ply: Any) -> None:
    start = Position.start()
    ranked = two_ply.rank(start, dice)
    play = choose_play(start, dice, level=level, seed=0)
    place = next(i for i, j in enumerate(ranked) if j.play.result == play.result)
    mine = ranked[place]
    best = ", ".join(f"{j.play} {j.equity:+.3f}" for j in ranked[:3])
    assert place < 2, (
        f"{level} plays {dice[0]}{dice[1]} {play}, gnubg's #{place + 1} ({mine.equity:+.3f}, "
        f"{1000 * (ranked[0].equity - mine.equity):.0f} mEMG worse than the best); "
        f"gnubg 2-ply: {best}"
    )
