"""At the table, a side offers a draw at most once between two of its own moves (the
table's policy): an opponent is not made to answer offer after offer, and a player cannot
keep its own turn's wait starting afresh with offers (gametable.room)."""

from __future__ import annotations

import pytest

from checkers.adapter import RULES
from gametable.errors import ActionRefused


def test_one_draw_offer_between_two_of_ones_own_moves() -> None:
    game = RULES.new(RULES.settings({}), 1)
    game.apply("black", {"type": "offer_draw"})
    assert not game.view("black")["can"]["offer_draw"]  # waiting for its answer
    game.apply("white", {"type": "decline_draw"})
    assert not game.view("black")["can"]["offer_draw"]
    with pytest.raises(ActionRefused, match="you offered one since your last move") as again:
        game.apply("black", {"type": "offer_draw"})
    assert again.value.code == "not_allowed"
    assert game.view("white")["can"]["offer_draw"]  # White has offered none
    game.apply("black", {"type": "move", "path": [11, 15]})
    assert game.view("black")["can"]["offer_draw"]  # a move of its own since
    game.apply("white", {"type": "offer_draw"})  # on its own turn
    game.apply("white", {"type": "move", "path": [23, 18]})  # its move lets the offer lapse
    assert game.view("white")["can"]["offer_draw"]
    game.apply("black", {"type": "offer_draw"})
    game.apply("white", {"type": "decline_draw"})
    game.apply("black", {"type": "move", "path": game.view("black")["legal"][0]})
    assert game.view("black")["can"]["offer_draw"]

def test_a_refused_offer_leaves_the_game_as_it_was() -> None:
    game = RULES.new(RULES.settings({}), 1)
    game.apply("black", {"type": "offer_draw"})
    game.apply("white", {"type": "decline_draw"})
    before = game.log()
    with pytest.raises(ActionRefused):
        game.apply("black", {"type": "offer_draw"})
    assert game.log() == before


@pytest.mark.parametrize("kind", [["move"], {"a": 1}, None, 3])
def test_an_action_type_of_another_type_is_an_invalid_action(kind: object) -> None:
    game = RULES.new(RULES.settings({}), 1)
    with pytest.raises(ActionRefused, match="action type") as refused:
        game.apply("black", {"type": kind})
    assert refused.value.code == "invalid_action"
