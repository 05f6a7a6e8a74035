"""The rules of American checkers, one hand-drawn position for each (WCDF rules 1.13-1.20,
1.30-1.32; ACF Standard Laws)."""

from __future__ import annotations

import pytest
from checkers_boards import drawn

from checkers import (
    BLACK,
    WHITE,
    FenError,
    Game,
    IllegalActionError,
    IllegalMoveError,
    InvalidLogError,
    Move,
    NotationError,
    Position,
    Reason,
    apply_move,
    legal_moves,
    parse_move,
)
from checkers.moves import is_quiet
from checkers.squares import BIT


def paths(position: Position) -> list[str]:
    return [str(move) for move in legal_moves(position)]


def test_the_start_gives_black_seven_moves() -> None:
    assert paths(Position.start()) == ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
    assert paths(Position.start().with_turn(WHITE)) == [
        "21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20",
    ]  # fmt: skip


def test_a_capture_anywhere_on_the_board_is_mandatory() -> None:
    # Black's man on 1 could move quietly, but the man on 22 can jump 26: only the jump is legal
    position = drawn(
        """
        |  b   .   .   .
        |.   .   .   .
        |  .   .   .   .
        |.   .   .   .
        |  .   .   .   .
        |.   b   .   .
        |  .   w   .   .
        |.   .   .   .
        """
    )
    assert paths(position) == ["22x31"]
    assert not is_quiet(position)
    with pytest.raises(IllegalMoveError, match="a capture is available: 22x31 must be played"):
        parse_move(position, "1-6")


def test_a_jump_goes_on_while_the_piece_can_jump_again() -> None:
    position = drawn(
        """
        |  .   .   .   b
        |.   .   .   .
        |  .   b   .   .
        |.   w   .   .
        |  .   .   .   .
        |.   w   .   .
        |  .   .   .   .
        |.   .   .   .
        """
    )
    assert paths(position) == ["10x17x26"]
    move = parse_move(position, "10x26")  # the shorthand names the one full path
    assert move.path == (10, 17, 26) and move.captures == (14, 22)
    with pytest.raises(IllegalMoveError, match="the jump must go on: 10x17x26"):
        parse_move(position, "10x17")
    after = apply_move(position, move)
    assert after.fen() == "W:W:B4,26"


def test_any_capture_sequence_may_be_chosen_not_only_the_longest() -> None:
    position = drawn(
        """
        |  .   .   .   .
        |.   .   .   .
        |  .   b   .   .
        |.   w   w   .
        |  .   .   .   .
        |.   .   w   .
        |  .   .   .   .
        |.   .   .   .
        """
    )
    assert paths(position) == ["10x17", "10x19x26"]
    assert apply_move(position, Move((10, 17))).fen() == "W:W15,23:B17"


def test_crowning_ends_the_move_even_when_the_new_king_could_jump_on() -> None:
    position = drawn(
        """
        |  .   .   .   .
        |.   .   .   .
        |  .   .   .   .
        |.   .   .   .
        |  .   .   .   .
        |.   b   .   .
        |  .   w   w   .
        |.   .   .   .
        """
    )
    assert paths(position) == ["22x31"]  # a king on 31 could jump 27 to 24, but the move ends
    after = apply_move(position, Move((22, 31)))
    assert after.fen() == "W:W27:BK31"
    crowned = r"crowning ends the move \(the man is crowned on 31\)"
    with pytest.raises(IllegalMoveError, match=crowned):
        parse_move(position, "22x31x24")


def test_a_white_man_is_crowned_on_black_s_back_row() -> None:
    position = Position.from_fen("W:W5:B26")
    assert paths(position) == ["5-1"]
    assert apply_move(position, Move((5, 1))).fen() == "B:WK1:B26"


def test_kings_move_and_jump_both_ways_men_only_forward() -> None:
    king = drawn(
        """
        |  .   .   .   .
        |.   .   .   .
        |  .   .   .   .
        |.   .   .   .
        |  .   B   .   .
        |.   .   .   .
        |  .   .   .   .
        |.   .   .   w
        """
    )
    assert paths(king) == ["18-14", "18-15", "18-22", "18-23"]
    man = Position.from_pieces({18: "b", 32: "w"})
    assert paths(man) == ["18-22", "18-23"]
    with pytest.raises(IllegalMoveError, match="a man moves forward only"):
        parse_move(man, "18-14")
    # a white man on 14: the black king jumps it backwards, the black man cannot
    assert paths(Position.from_pieces({18: "B", 14: "w"})) == ["18x9"]
    assert paths(Position.from_pieces({18: "b", 14: "w"})) == ["18-22", "18-23"]
    # and a white king jumps towards White's own side
    assert paths(Position.from_pieces({14: "W", 18: "b"}, WHITE)) == ["14x23"]


def test_a_king_s_circular_jumps_are_two_moves_taking_the_same_pieces() -> None:
    position = Position.from_fen("B:W14,15,22,23:BK10")
    moves = sorted(legal_moves(position), key=lambda m: m.path)
    assert [str(m) for m in moves] == ["10x17x26x19x10", "10x19x26x17x10"]
    assert moves[0].captures == (14, 22, 23, 15)
    assert moves[1].captures == (15, 23, 22, 14)
    assert apply_move(position, moves[0]) == apply_move(position, moves[1])
    assert apply_move(position, moves[0]).fen() == "W:W:BK10"


def test_moves_with_the_same_path_are_equal() -> None:
    assert Move((10, 17, 26), (14, 22)) == Move((10, 17, 26))
    assert len({Move((10, 17, 26), (14, 22)), Move((10, 17, 26))}) == 1
    assert str(Move((11, 15))) == "11-15" and str(Move((15, 22, 31), (18, 27))) == "15x22x31"


def test_a_side_with_every_piece_blocked_loses() -> None:
    blocked = drawn(
        """
        |  .   .   .   .
        |.   .   .   .
        |  .   .   .   .
        |.   .   .   .
        |  .   .   .   .
        |.   b   .   .
        |  b   .   .   .
        |w   .   .   .
        """,
        turn=WHITE,
    )
    assert legal_moves(blocked) == []
    game = Game(blocked)
    assert game.outcome is not None
    assert game.outcome.winner is BLACK and game.outcome.reason is Reason.NO_MOVE
    assert game.outcome.result == "1-0"
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.play("29-25")


def test_a_side_with_no_pieces_left_loses() -> None:
    game = Game(Position.from_fen("B:W14:B10"))
    game.play("10x17")
    assert game.outcome is not None and str(game.outcome) == "Black wins: White has no legal move"


def test_threefold_repetition_draws() -> None:
    game = Game(Position.from_fen("B:WK32:BK1"))
    for _ in range(2):
        for move in ("1-6", "32-27", "6-1", "27-32"):
            assert game.outcome is None
            game.play(move)
    assert game.repetitions() == 3
    assert game.outcome is not None
    assert game.outcome.winner is None and game.outcome.reason is Reason.REPETITION
    assert game.outcome.result == "1/2-1/2"
    game.undo()
    assert game.outcome is None and game.repetitions() == 2


def _shuffle(game: Game, plies: int) -> None:
    """Quiet king moves that never bring a position up a third time nor allow a jump."""
    for _ in range(plies):
        position = game.position
        for move in game.legal_moves():
            if not position.kings & BIT[move.origin]:
                continue
            after = apply_move(position, move)
            if game.positions.count(after) < 2 and is_quiet(after):
                game.play(move)
                break
        else:  # pragma: no cover - the position below always has such a move
            raise AssertionError(f"no shuffle move in {position.fen()}")


def test_the_forty_move_rule_draws_after_80_plies_without_capture_or_man_move() -> None:
    game = Game(Position.from_fen("B:WK29,K30,31:BK1,K2,4"))
    _shuffle(game, 79)
    assert game.outcome is None and game.quiet_plies == 79
    _shuffle(game, 1)
    assert game.outcome is not None
    assert game.outcome.winner is None and game.outcome.reason is Reason.FORTY_MOVES


def test_a_man_s_move_or_a_capture_restarts_the_forty_move_count() -> None:
    game = Game(Position.from_fen("B:WK29,K30,31:BK1,K2,4"))
    _shuffle(game, 10)
    assert game.quiet_plies == 10
    man = next(m for m in game.legal_moves() if m.origin == 4)
    game.play(man)
    assert game.quiet_plies == 0


def test_draw_by_agreement_and_resignation_are_actions() -> None:
    game = Game()
    game.play("11-15")
    game.offer_draw(BLACK)
    with pytest.raises(IllegalActionError, match="cannot answer its own draw offer"):
        game.accept_draw(BLACK)
    game.decline_draw(WHITE)
    with pytest.raises(IllegalActionError, match="no draw offer"):
        game.accept_draw(WHITE)
    game.offer_draw("white")
    game.accept_draw("black")
    assert game.outcome is not None and game.outcome.reason is Reason.AGREEMENT
    assert game.outcome.winner is None

    resigned = Game()
    resigned.resign(WHITE)
    assert resigned.outcome is not None and resigned.outcome.winner is BLACK
    assert str(resigned.outcome) == "Black wins: White resigned"


def test_a_move_lets_a_draw_offer_lapse() -> None:
    game = Game()
    game.offer_draw(BLACK)
    game.play("11-15")
    assert game.draw_offer is None


def test_undo_takes_back_the_last_move_with_the_draw_offers_since() -> None:
    game = Game()
    game.play("11-15")
    game.offer_draw(WHITE)
    game.decline_draw(BLACK)
    game.offer_draw(WHITE)  # waiting when the move is taken back: it lapses
    assert str(game.undo()) == "11-15"
    assert game.position == Position.start() and game.log == [] and game.draw_offer is None
    game.play("11-15")
    game.play("23-19")
    game.offer_draw(BLACK)
    game.accept_draw(WHITE)
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.undo()  # ended by agreement, not by the move
    for end in ("resign", "time_out", "forfeit"):
        ended = Game()
        ended.play("11-15")
        getattr(ended, end)(BLACK)
        with pytest.raises(IllegalActionError, match="the game is over"):
            ended.undo()
        assert len(ended.moves) == 1 and ended.outcome is not None
    with pytest.raises(IllegalActionError, match="no move to take back"):
        Game().undo()


def test_the_event_log_replays_the_game() -> None:
    game = Game()
    line = "9-14 23-19 6-9 22-18 14x23 27x18 11-16 26-23 10-14 24-20 1-6 20x11 7x16 31-26 8-11"
    line += " 26-22 2-7 30-26 16-20 19-16 12x19 23x16 14x30"  # the shorthand of 14x23x30
    for move in line.split():
        game.play(move)
    game.offer_draw(BLACK)
    game.decline_draw(WHITE)
    game.time_out(BLACK)
    assert game.log[-4:] == [
        {"move": "14x23x30"},
        {"offer_draw": "black"},
        {"decline_draw": "white"},
        {"time_out": "black"},
    ]
    again = Game.replay(game.log)
    assert again.positions == game.positions and again.outcome == game.outcome
    assert again.log == game.log


def test_a_bad_log_is_refused_with_the_index_of_the_first_bad_event() -> None:
    with pytest.raises(InvalidLogError, match="event 1: 11-16: square 11 is empty"):
        Game.replay([{"move": "11-15"}, {"move": "11-16"}])
    with pytest.raises(InvalidLogError, match="event 0: unknown action 'castle'"):
        Game.replay([{"castle": "black"}])
    with pytest.raises(InvalidLogError, match="event 0: side 'red'"):
        Game.replay([{"resign": "red"}])


def test_an_illegal_move_changes_nothing() -> None:
    game = Game()
    before = (list(game.positions), list(game.log))
    with pytest.raises(IllegalMoveError, match="11-21: 21 is not a diagonal step or jump"):
        game.play("11-21")
    with pytest.raises(NotationError):
        game.play("e3-d4")
    assert game.positions == before[0] and game.log == before[1]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("12-17", "17 is not a diagonal step or jump from 12"),
        ("11-18", "there is no white piece on 15 to jump"),
        ("13-17", "square 13 is empty"),
        ("21-17", "the piece on 21 is white's, and black is to move"),
        ("9-14x", "is not a move"),
        ("0-4", "square 0 is not in 1-32"),
        ("1-5", "square 5 is occupied"),
        ("12-8", "a man moves forward only"),
    ],
)
def test_illegal_moves_are_explained(text: str, reason: str) -> None:
    with pytest.raises((IllegalMoveError, NotationError), match=reason):
        parse_move(Position.start(), text)


def test_a_refused_move_is_quoted_as_the_player_wrote_it() -> None:
    start = Position.start()
    with pytest.raises(IllegalMoveError) as caught:
        parse_move(start, "22x24")
    assert str(caught.value) == "22x24: the piece on 22 is white's, and black is to move"
    with pytest.raises(IllegalMoveError) as caught:
        parse_move(start, "1x19")
    assert str(caught.value) == "1x19: 19 is not a diagonal step or jump from 1"


def test_input_of_the_wrong_type_is_refused_in_the_game_s_own_errors() -> None:
    with pytest.raises(NotationError, match=r"\[11, 15\] is not a move: give a Move or PDN"):
        Game().play([11, 15])  # type: ignore[arg-type]
    with pytest.raises(NotationError, match="None is not a move"):
        parse_move(Position.start(), None)  # type: ignore[arg-type]
    with pytest.raises(FenError, match="a FEN is text like 'B:W21-32:B1-12', got NoneType"):
        Position.from_fen(None)  # type: ignore[arg-type]
