"""The outside judge on real games: every shared PDN game replays the same in pydraughts.

pydraughts (module ``draughts``, variant "english") is test-only. Each move we read is pushed
into a pydraughts board by matching its full path among pydraughts' legal moves, and the
pieces and the side to move are compared after every move. pydraughts writes FEN squares in
another order, so pieces are compared as sets, read from its FEN by the small parser below
(not by ours, so that a FEN bug of ours cannot hide a difference).
"""

from __future__ import annotations

import pytest

from checkers import Position
from checkers.pdn import read_pdn
from conftest import shared_path

draughts = pytest.importorskip("draughts", reason="pydraughts is not installed")

#: The shared files of real games and how many games each holds.
SHARED_FILES = {
    "wiegerw_pdn__OCA_2.0.pdn": 43,
    "wiegerw_pdn__inferno.pdn": 68,
    "wiegerw_pdn__Principles_of_Strategy.pdn": 16,
}


def _their_pieces(fen: str) -> tuple[str, frozenset[tuple[int, str]]]:
    """The side to move (``"B"``/``"W"``) and ``{(square, piece letter)}`` of a pydraughts FEN
    such as ``W:W24,27,K18:B1,14,K9`` (letters as ``Piece`` writes them: b, B, w, W)."""
    turn, *fields = fen.split(":")
    pieces: set[tuple[int, str]] = set()
    for part in fields:
        side, squares = part[0], part[1:]
        for item in filter(None, squares.split(",")):
            king = item.startswith("K")
            letter = side.upper() if king else side.lower()
            pieces.add((int(item.lstrip("K")), letter))
    return turn, frozenset(pieces)


def _our_pieces(position: Position) -> tuple[str, frozenset[tuple[int, str]]]:
    return position.turn.letter, frozenset(
        (square, piece.value) for square, piece in position.pieces().items()
    )


@pytest.mark.parametrize("name", sorted(SHARED_FILES))
def test_shared_games_replay_identically_in_pydraughts(name: str) -> None:
    with shared_path("checkers", name).open(encoding="utf-8") as handle:
        games = read_pdn(handle)
    assert len(games) == SHARED_FILES[name]
    plies = 0
    for game in games:
        assert game.error is None, str(game.error)
        board = draughts.Board(variant="english", fen=game.start.fen())
        assert _their_pieces(board.fen) == _our_pieces(game.start), f"game {game.number}: start"
        for index, move in enumerate(game.moves):
            matching = [m for m in board.legal_moves() if tuple(m.steps_move) == move.path]
            assert len(matching) == 1, (
                f"game {game.number}, ply {index + 1}: pydraughts has no single move {move} "
                f"(its moves: {sorted(m.steps_move for m in board.legal_moves())})"
            )
            board.push(matching[0])
            assert _their_pieces(board.fen) == _our_pieces(game.positions[index + 1]), (
                f"game {game.number}, ply {index + 1} ({move}): the positions differ"
            )
            plies += 1
    assert plies == sum(game.plies for game in games) > 0
