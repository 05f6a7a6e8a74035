"""The outside judge: our legal moves against pydraughts' (``draughts``, variant "english").

pydraughts is test-only, as GNU Backgammon is for backgammon; the package never imports it.
"""

from __future__ import annotations

import random

import pytest

from checkers import Position, children, legal_moves
from checkers.squares import BIT

draughts = pytest.importorskip("draughts", reason="pydraughts is not installed")


def _theirs(position: Position) -> set[tuple[int, ...]]:
    board = draughts.Board(variant="english", fen=position.fen())
    return {tuple(move.steps_move) for move in board.legal_moves()}


def _random_positions(seed: int, games: int, kings_first: bool) -> list[Position]:
    """Positions of seeded random games; with ``kings_first`` a move that crowns or a king's
    move is preferred, so that king-rich endings are reached as often as openings."""
    rng = random.Random(seed)
    seen: list[Position] = []
    for _ in range(games):
        position = Position.start()
        for _ply in range(200):
            seen.append(position)
            options = children(position)
            if not options:
                break
            if kings_first and rng.random() < 0.6:
                kingly = [
                    (move, after)
                    for move, after in options
                    if after.kings.bit_count() > position.kings.bit_count()  # it crowns
                    or position.kings & BIT[move.origin]  # a king moves
                ]
                options = kingly or options
            position = rng.choice(options)[1]
    return seen


def test_legal_moves_agree_with_pydraughts_on_ten_thousand_positions() -> None:
    positions = _random_positions(2026, 80, kings_first=False)
    positions += _random_positions(2027, 80, kings_first=True)
    distinct = list(dict.fromkeys(positions))
    assert len(distinct) >= 10_000
    with_kings = sum(1 for p in distinct if p.kings)
    multi = 0
    for position in distinct:
        ours = {m.path for m in legal_moves(position)}
        assert ours == _theirs(position), position.fen()
        multi += any(len(path) > 2 for path in ours)
    assert with_kings > 2_000 and multi > 100  # the sample reaches kings and multi-jumps


@pytest.mark.parametrize(
    "fen",
    [
        "B:W14,15,22,23:BK10",  # a king's two circular jumps over the same four men
        "B:W26,27:B22",  # crowning ends the move
        "W:W5:B26",
        "B:WK6,K7,K14,K15,K22,K23:BK10",
        "W:WK18:B14,15,22,23",
        "B:W29:B22,25",
    ],
)
def test_hand_drawn_positions_agree_with_pydraughts(fen: str) -> None:
    assert {m.path for m in legal_moves(Position.from_fen(fen))} == _theirs(Position.from_fen(fen))
