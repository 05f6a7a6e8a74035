"""Draws claimed, as the ACF plays them: the WCDF rules harmonised in 2008 (rule 1.32.1,
threefold repetition; rule 1.32.2, the 40-move rule) make both draws a player's claim. A
:class:`checkers.Game` made with ``draws="claim"`` waits for the claim; ``"automatic"`` (the
default) keeps ending the game by itself. The fivefold repetition and the 160 quiet plies that
end a claim-mode game by themselves are this program's own bounds (after the FIDE Laws of
Chess, article 9.6)."""

from __future__ import annotations

import pytest

from checkers import BLACK, WHITE, Game, IllegalActionError, InvalidLogError, Position, Reason
from checkers.game import FORTY_MOVE_PLIES, QUIET_PLY_LIMIT, REPETITION_LIMIT, REPETITIONS
from checkers.moves import apply_move, is_quiet
from checkers.squares import BIT

KINGS = "B:WK32:BK1"  # a lone king each: Black's shuttles 1-6-1, White's 32-27-32
SHUTTLE = ("1-6", "32-27", "6-1", "27-32")
QUIET = "B:WK29,K30,31:BK1,K2,4"  # kings that can shuffle, men that could move


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


def test_the_bounds_are_the_rule_s_and_ours() -> None:
    assert (REPETITIONS, FORTY_MOVE_PLIES) == (3, 80)  # rules 1.32.1 and 1.32.2
    assert (REPETITION_LIMIT, QUIET_PLY_LIMIT) == (5, 160)  # this program's own
    with pytest.raises(ValueError, match="draws 'sometimes' is not one of automatic, claim"):
        Game(draws="sometimes")  # type: ignore[arg-type]


def test_nothing_to_claim_is_refused_with_the_reason() -> None:
    game = Game(Position.from_fen(KINGS), draws="claim")
    assert game.claimable() is None and game.claimable(WHITE) is None
    with pytest.raises(IllegalActionError) as refused:
        game.claim_draw(BLACK)
    assert str(refused.value) == (
        "no draw can be claimed now: this position has occurred 1 time(s) (a repetition is "
        "claimed at the third), and 0 of 40 moves each have passed without a capture or a "
        "man's move"
    )
    assert game.outcome is None and game.log == []
    automatic = Game(Position.from_fen(KINGS))
    with pytest.raises(IllegalActionError, match="come by themselves in this game"):
        automatic.claim_draw(WHITE)


def test_a_repetition_is_claimed_when_it_happens_not_drawn_by_itself() -> None:
    game = Game(Position.from_fen(KINGS), draws="claim")
    claims: list[tuple[Reason | None, Reason | None]] = []
    for move in SHUTTLE * 2:
        game.play(move)
        claims.append((game.claimable(BLACK), game.claimable(WHITE)))
    # Rule 1.32.1's own case: on its move White's 27-32 would make the start a third time,
    # so White (to move after 6-1) may claim a ply early; from the third occurrence on,
    # either side may
    assert claims == [(None, None)] * 6 + [(None, Reason.REPETITION)] + [
        (Reason.REPETITION, Reason.REPETITION)
    ]
    assert game.repetitions() == 3 and game.outcome is None  # not drawn by itself
    assert game.claim_draw("white") is Reason.REPETITION
    assert game.outcome is not None and game.outcome.winner is None
    assert game.outcome.reason is Reason.REPETITION and game.outcome.claimed_by is WHITE
    assert str(game.outcome) == "Draw by threefold repetition, claimed by white"
    assert game.outcome.result == "1/2-1/2"
    assert game.log[-1] == {"claim_draw": "white"} and len(game.log) == 9
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.undo()  # a claimed draw ends the game, as agreement does
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.claim_draw(BLACK)


def test_a_claim_lapses_with_its_condition() -> None:
    game = Game(Position.from_fen(KINGS), draws="claim")
    for move in SHUTTLE * 2:
        game.play(move)
    assert game.claimable(BLACK) is Reason.REPETITION
    game.play("1-5")  # Black plays on instead: a new position
    assert game.claimable(WHITE) is None and game.claimable(BLACK) is None
    with pytest.raises(IllegalActionError, match="no draw can be claimed now"):
        game.claim_draw(WHITE)


def test_the_forty_move_rule_is_claimed_after_80_quiet_plies() -> None:
    game = Game(Position.from_fen(QUIET), draws="claim")
    _shuffle(game, FORTY_MOVE_PLIES - 1)
    # the side not to move has no rule 1.32.1 case to claim (the shuffle never makes a third
    # occurrence), and 79 plies are not yet 40 moves each
    assert game.quiet_plies == 79 and game.claimable(game.turn.opponent) is None
    _shuffle(game, 1)
    assert game.outcome is None and game.quiet_plies == 80
    assert game.claimable(BLACK) is Reason.FORTY_MOVES
    assert game.claimable(WHITE) is Reason.FORTY_MOVES
    assert game.claim_draw(BLACK) is Reason.FORTY_MOVES
    assert str(game.outcome) == "Draw by 40-move rule, claimed by black"


def test_a_man_s_move_ends_the_forty_move_claim() -> None:
    game = Game(Position.from_fen(QUIET), draws="claim")
    _shuffle(game, FORTY_MOVE_PLIES + 1)  # White to move after 81 plies
    assert game.turn is WHITE and game.claimable(BLACK) is Reason.FORTY_MOVES
    _shuffle(game, 1)
    man = next(m for m in game.legal_moves() if m.origin == 4)
    game.play(man)
    assert game.quiet_plies == 0 and game.claimable(WHITE) is None


def test_the_replay_rebuilds_the_claim_in_its_mode() -> None:
    game = Game(Position.from_fen(KINGS), draws="claim")
    for move in SHUTTLE * 2:
        game.play(move)
    game.offer_draw(WHITE)
    game.claim_draw(BLACK)  # the offer lapses: the claim ends the game
    assert game.draw_offer is None
    again = Game.replay(game.log, Position.from_fen(KINGS), draws="claim")
    assert again.log == game.log and again.outcome == game.outcome
    assert again.positions == game.positions and again.draws == "claim"
    # the same log in automatic mode: the eighth move drew the game (the third occurrence),
    # so the offer and the claim after it cannot be replayed
    with pytest.raises(InvalidLogError, match=r"event 8: the game is over \(Draw by threefold"):
        Game.replay(game.log, Position.from_fen(KINGS))
    # a claim that could not be made is refused where it stands
    with pytest.raises(InvalidLogError, match="event 1: no draw can be claimed now"):
        Game.replay(
            [{"move": "1-6"}, {"claim_draw": "white"}], Position.from_fen(KINGS), draws="claim"
        )


def test_an_unclaimed_repetition_is_drawn_at_the_fifth_occurrence() -> None:
    game = Game(Position.from_fen(KINGS), draws="claim")
    for move in SHUTTLE * 3:
        game.play(move)
    assert game.outcome is None and game.repetitions() == 4
    for move in SHUTTLE[:3]:
        game.play(move)
    assert game.outcome is None
    game.play(SHUTTLE[3])
    assert game.repetitions() == 5
    assert game.outcome is not None and game.outcome.reason is Reason.FIVEFOLD
    assert game.outcome.claimed_by is None
    assert str(game.outcome) == "Draw by fivefold repetition"
    assert game.claimable(BLACK) is None
    game.undo()  # a draw a move made is taken back with it
    assert game.outcome is None and game.repetitions() == 4


def test_an_unclaimed_shuffle_is_drawn_after_160_quiet_plies() -> None:
    game = Game(Position.from_fen(QUIET), draws="claim")
    _shuffle(game, QUIET_PLY_LIMIT - 1)
    assert game.outcome is None and game.quiet_plies == 159
    _shuffle(game, 1)
    assert game.outcome is not None and game.outcome.reason is Reason.MOVE_LIMIT
    assert str(game.outcome) == "Draw by 80-move limit"
    again = Game.replay(game.log, Position.from_fen(QUIET), draws="claim")
    assert again.outcome == game.outcome and len(again.moves) == 160


def test_automatic_draws_stay_as_they_were() -> None:
    game = Game(Position.from_fen(KINGS))
    assert game.draws == "automatic"
    for move in SHUTTLE * 2:
        assert game.claimable(BLACK) is None
        game.play(move)
    assert game.outcome is not None and game.outcome.reason is Reason.REPETITION
    assert game.outcome.claimed_by is None and str(game.outcome) == "Draw by threefold repetition"
