"""Arguments of the wrong type are refused at the door with words that say what was wanted
(a FEN string where a Position goes, a fraction of a ply), not by a crash deep inside."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from checkers import Game, Position, legal_moves, perft
from checkers.ai import choose_move
from checkers.errors import InvalidLogError
from checkers.perft import divide

FEN = "B:W18:B1"
WANTS_POSITION = r"expected a checkers Position, got str 'B:W18:B1' \(Position.from_fen"
CASES: list[tuple[Callable[[], Any], type[Exception], str]] = [
    (lambda: perft(Position.start(), 2.5), TypeError, "depth is a whole number of plies, got 2.5"),
    (lambda: perft(Position.start(), "3"), TypeError, "depth is a whole number of plies"),
    (lambda: divide(Position.start(), True), TypeError, "depth is a whole number of plies"),
    (lambda: perft(FEN, 2), TypeError, WANTS_POSITION),
    (lambda: legal_moves(FEN), TypeError, WANTS_POSITION),
    (lambda: Game(FEN), TypeError, r"start is a checkers Position, got str"),
    (lambda: choose_move(FEN, "easy"), TypeError, WANTS_POSITION),
    (lambda: Game.replay(None), InvalidLogError, "a game log is a list of events, got NoneType"),
    (lambda: Game.replay("11-15"), InvalidLogError, "a game log is a list of events, got str"),
]


@pytest.mark.parametrize(("call", "error", "words"), CASES)
def test_a_wrong_type_is_refused_in_words(call: Callable[[], Any], error: type[Exception],
                                          words: str) -> None:
    with pytest.raises(error, match=words):
        call()


def test_the_right_types_still_count() -> None:
    assert perft(Position.start(), 3) == 302  # Aart Bik's count at depth 3
    assert len(legal_moves(Position.from_fen(FEN))) == 2
