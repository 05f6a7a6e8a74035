"""The computer's turn at the local door, played through the table and shown step by step.

:class:`ComputerTurn` lets the computer seat of a :class:`gametable.table.Table` act until a
person must (its cube decision, roll and play, or its answer to a double or a resignation):
each decision is :func:`backgammon.adapter.computer_decision` (the same one the table's
computer seats make), carried out through :meth:`Table.act <gametable.table.Table.act>`. What
it did comes back for the page to play back: a step for every change on the board (each
checker of its play, with the board after it and the dice not yet used) and a sentence a
decision for the summary (:func:`backgammon.services.words.computer_says`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, cast

from backgammon.adapter import TableMatch, computer_decision
from backgammon.core.game import Game, Phase
from backgammon.core.moves import apply_play
from backgammon.core.position import Position
from backgammon.core.types import Color
from backgammon.services.computer import ComputerPlayer
from backgammon.services.review import pass_reason, players_words
from backgammon.services.state import ColorName, StepJSON
from backgammon.services.table import board_json, cube_json, passed_turn
from backgammon.services.words import KIND_NAMES, RESULT_WORDS, computer_says, roll_text
from gametable.seam import Applied, Side
from gametable.table import Table

#: The computer never takes more than this many actions in one turn (a turn is at most three:
#: double, roll, play; an answer to a double is one).
MAX_ACTIONS: Final = 8


class ComputerTurn:
    """The computer's actions at ``table`` until a person must act.

    Args:
        table: a backgammon table (its game a :class:`~backgammon.adapter.TableMatch`).
        player: the computer (its level's player, seeded by the caller).
        human: the person's side against the computer (the sentences say "you"), or None.
        out_of_time: asked before each action; True stops the turn (the computer's clock
            fell: the caller has recorded it).
    """

    def __init__(self, table: Table, player: ComputerPlayer, *, human: Color | None,
                 out_of_time: Callable[[], bool]) -> None:
        self.table = table
        self.player = player
        self.human = human
        self.out_of_time = out_of_time
        #: What the page plays back, in order.
        self.steps: list[StepJSON] = []
        #: A sentence a decision.
        self.notes: list[str] = []

    @property
    def game(self) -> Game:
        return cast(TableMatch, self.table.game).match.current

    def play(self) -> None:
        """Act while the table waits on the computer (at most :data:`MAX_ACTIONS`).

        Raises:
            ActionRefused: the table refused an action (a defect: the computer's decisions
                are legal); the actions before it stand.
        """
        passed = passed_turn(self.game)
        if passed is not None and passed.color is self.human:
            why = pass_reason(passed)
            why = players_words(why, self.human) if why else why
            self.notes.append(computer_says("you_passed", dice=roll_text(passed.dice),
                                            why=f": {why}" if why else "")
                              if passed.dice else computer_says("you_cannot_move"))
        for _ in range(MAX_ACTIONS):
            side = self.table.computer_to_act()
            if side is None:
                break
            if self.out_of_time():
                self.notes.append(computer_says("timeout"))
                break
            self._act(side)

    def summary(self) -> str:
        """What the computer did, in a sentence or two."""
        return " ".join(n if n.endswith((".", "?")) else f"{n}." for n in self.notes)

    def _act(self, side: Side) -> None:
        """One decision: a step per change on the board, a note per decision."""
        table, game = self.table, self.game
        color: ColorName = side
        phase = game.phase
        action = computer_decision(game, self.player)
        kind = action["type"]
        if phase is Phase.DOUBLE_OFFERED:
            cube_offer = game.cube_offer  # "double", "beaver" (its double), "raccoon"
            applied = table.act(side, action)
            if kind in ("beaver", "raccoon"):
                text = computer_says(kind, cube=_offered(applied))
            elif kind == "take":
                said = {"beaver": "take_beaver", "raccoon": "take_raccoon"}.get(
                    cube_offer or "", "take")
                text = computer_says(said, cube=game.cube_value)
            else:
                text = computer_says("drop")
            self._note(_step(game, kind, color, text))
            return
        if phase is Phase.RESIGNATION_OFFERED:
            offer = game.resignation
            assert offer is not None
            words = RESULT_WORDS[KIND_NAMES[int(offer[1])]]
            table.act(side, action)
            answer = "accept" if kind == "accept_resignation" else "decline"
            self._note(_step(game, answer, color, computer_says(answer, level=words)))
            return
        if kind == "double":
            applied = table.act(side, action)
            self._note(_step(game, "double", color,
                             computer_says("double", cube=_offered(applied))))
            return
        if kind == "roll":
            applied = table.act(side, action)
            thrown = next(e["dice"] for e in applied.events if e["type"] == "roll")
            dice = (int(thrown[0]), int(thrown[1]))
            if game.phase is not Phase.MOVE:  # the roll could not be played: the turn passed
                self._note(_step(game, "pass", color,
                                 computer_says("pass", dice=roll_text(dice)), dice=dice))
                return
            self.steps.append(_step(game, "roll", color,
                                    computer_says("roll", dice=roll_text(dice))))
            return
        # its play, whole through the table; the page is shown each checker moved
        before = game.position
        roll = game.dice
        left = list(game.dice_left)
        table.act(side, action)
        turn = game.history[-1] if game.history else None
        moves = turn.moves if turn is not None else ()
        for count, move in enumerate(moves, start=1):
            if move.die in left:
                left.remove(move.die)
            self.steps.append(_step(game, "move", color, computer_says("move", move=move),
                                    dice=roll, position=apply_play(before, moves[:count]),
                                    dice_left=left))
        dice_text = f"{roll_text(turn.dice)}" if turn is not None and turn.dice else ""
        self.notes.append(computer_says("play", dice=dice_text,
                                        play=turn.text if turn is not None else ""))

    def _note(self, step: StepJSON) -> None:
        """A step that is a decision of its own: shown, and said in the summary."""
        self.steps.append(step)
        self.notes.append(step["text"])


def _offered(applied: Applied) -> int:
    """The cube's value a double, beaver or raccoon offers (its event's ``"cube"``)."""
    return int(applied.events[-1]["cube"])


def _step(game: Game, kind: str, color: ColorName, text: str,
          dice: tuple[int, int] | None = None, *, position: Position | None = None,
          dice_left: list[int] | None = None) -> StepJSON:
    """One step for the page: the board after it (``position``, else the game's), the roll,
    the dice not yet used and the cube."""
    if dice is None and game.phase is Phase.MOVE and game.dice:
        dice = game.dice
    board = board_json(position if position is not None else game.position)
    left = list(game.dice_left) if dice_left is None else list(dice_left)
    return {"kind": kind, "color": color, "text": text, "board": board,
            "dice": list(dice) if dice else None, "dice_left": left, "cube": cube_json(game)}


__all__ = ["MAX_ACTIONS", "ComputerTurn"]
