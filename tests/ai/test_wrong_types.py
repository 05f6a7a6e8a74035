"""The computer player's and analysis's public functions refuse arguments of the wrong shape
in words (a Position ID string where a Position goes, two chances where five do, one name
where two do), not by a crash deep inside."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from backgammon.ai.cube import CubeAction, CubeState, double_decision
from backgammon.ai.rollout import rollout
from backgammon.analysis import analyze
from backgammon.core.errors import InvalidLogError
from backgammon.core.game import Game
from backgammon.core.match import Match
from backgammon.core.types import WHITE

CASES: list[tuple[Callable[[], Any], type[Exception], str]] = [
    (lambda: rollout("4HPwATDgc/ABMA", (3, 1)), TypeError,  # type: ignore[arg-type]
     r"expected a Position, got str '4HPwATDgc/ABMA' \(Position.from_id"),
    (lambda: double_decision((0.75, 0.0), CubeState(), WHITE), ValueError,
     "p is five probabilities 0..1"),
    (lambda: double_decision((float("nan"), 0, 0, 0, 0), CubeState(), WHITE), ValueError,
     "p is five probabilities 0..1"),
    (lambda: double_decision((1.5, 0, 0, 0, 0), CubeState(), WHITE), ValueError,
     "p is five probabilities 0..1"),
    (lambda: CubeState(3, None), ValueError, "the cube's value is a power of two >= 1, got 3"),
    (lambda: analyze(Match(1, seed=1).current, names=("A",)), ValueError,  # type: ignore[arg-type]
     r"names are the two players' names, \(white, black\), got \('A',\)"),
    (lambda: Game.from_json("[" * 100_000 + "]" * 100_000), InvalidLogError,
     "nests too deep"),
    (lambda: Match.from_json("[" * 100_000 + "]" * 100_000), InvalidLogError,
     "nests too deep"),
]


@pytest.mark.parametrize(("call", "error", "words"), CASES)
def test_a_wrong_shape_is_refused_in_words(call: Callable[[], Any], error: type[Exception],
                                           words: str) -> None:
    with pytest.raises(error, match=words):
        call()


def test_the_right_shapes_still_decide() -> None:
    """A sure win with the cube centred is too good to double; floats from a net (numpy's
    own) are taken as Python's."""
    numpy = pytest.importorskip("numpy")
    decision = double_decision(numpy.array([1.0, 0.9, 0.0, 0.0, 0.0], dtype=numpy.float32),
                               CubeState(), WHITE)
    assert decision.action is CubeAction.TOO_GOOD
