"""services/computer_turn.py: the computer's turn through the table, step by step for the
page: its roll, each checker of its play with the board after it and the dice left, its
double, and a clock that fell, with the sentences of the summary."""

from __future__ import annotations

import random

from backgammon.adapter import RULES, TableMatch
from backgammon.core.dice import FixedDice
from backgammon.core.game import Game
from backgammon.core.match import Match
from backgammon.core.moves import Play
from backgammon.core.types import BLACK
from backgammon.services.computer import RandomPlayer
from backgammon.services.computer_turn import ComputerTurn
from backgammon.services.table import board_json
from gametable.table import Seat, Table


class FirstPlayer(RandomPlayer):
    """The first legal play; doubles when told to; takes."""

    def __init__(self, double: bool = False) -> None:
        super().__init__(random.Random(0))
        self.double = double

    def choose_play(self, game: Game) -> Play:
        return next(iter(game.legal_plays()))

    def should_double(self, game: Game) -> bool:
        return self.double


def _table(rolls: list[tuple[int, int]], *, cube: bool = False) -> Table:
    """White a person, Black the computer; a money game with fixed dice."""
    match = Match(0, cube=cube, dice=FixedDice(rolls))
    seats = {"white": Seat("person"), "black": Seat("computer", level="easy")}
    return Table(RULES, {"length": 0, "single": True, "cube": cube}, seats,
                 game=TableMatch(match, single=True))


def _game(table: Table) -> Game:
    game = table.game
    assert isinstance(game, TableMatch)
    return game.match.current


def test_each_checker_of_its_play_is_a_step_with_the_board_after_it() -> None:
    table = _table([(1, 3), (6, 5)])  # Black wins the opening with 3-1
    table.act("white", {"type": "roll"})
    turn = ComputerTurn(table, FirstPlayer(), human=BLACK.opponent, out_of_time=lambda: False)
    turn.play()
    game = _game(table)
    moves = game.history[-1].moves
    assert [s["kind"] for s in turn.steps] == ["move"] * len(moves) == ["move", "move"]
    assert [s["dice"] for s in turn.steps] == [[3, 1], [3, 1]]  # the mover's die first
    first_left = 3 if moves[0].die == 1 else 1
    assert [s["dice_left"] for s in turn.steps] == [[first_left], []]
    assert turn.steps[-1]["board"] == board_json(game.position)  # the play, whole
    assert turn.steps[0]["board"] != turn.steps[-1]["board"]
    assert turn.summary() == f"The computer plays 3-1: {game.history[-1].text}."
    assert table.computer_to_act() is None and table.game.to_act() == {"white"}


def test_its_roll_is_a_step_then_each_checker() -> None:
    table = _table([(3, 1), (6, 6)])  # White opens 3-1 (8/5 6/5), Black rolls 6-6
    table.act("white", {"type": "roll"})
    table.act("white", {"type": "move", "play": "8/5 6/5"})
    turn = ComputerTurn(table, FirstPlayer(), human=BLACK.opponent, out_of_time=lambda: False)
    turn.play()
    kinds = [s["kind"] for s in turn.steps]
    assert kinds[0] == "roll" and turn.steps[0]["text"] == "The computer rolls 6-6"
    assert kinds[1:] == ["move"] * (len(kinds) - 1) and len(kinds) == 5  # four sixes
    assert turn.steps[0]["dice_left"] == [6, 6, 6, 6]
    assert turn.steps[-1]["dice_left"] == []


def test_its_double_is_a_step_and_stops_the_turn() -> None:
    table = _table([(3, 1), (5, 2)], cube=True)
    table.act("white", {"type": "roll"})
    table.act("white", {"type": "move", "play": "8/5 6/5"})
    turn = ComputerTurn(table, FirstPlayer(double=True), human=BLACK.opponent,
                        out_of_time=lambda: False)
    turn.play()
    assert [(s["kind"], s["text"]) for s in turn.steps] == [
        ("double", "The computer doubles to 2: take or drop?")]
    assert turn.steps[0]["cube"]["offered_by"] == "black"
    assert table.game.to_act() == {"white"}  # the person answers


def test_a_clock_that_fell_stops_it_before_it_acts() -> None:
    table = _table([(1, 3)])
    table.act("white", {"type": "roll"})
    turn = ComputerTurn(table, FirstPlayer(), human=BLACK.opponent, out_of_time=lambda: True)
    turn.play()
    assert turn.steps == []
    assert turn.summary() == "The computer ran out of time."
