"""One game of checkers: moves, draws, resignation, the outcome, and the event log.

Rules of the game's end (WCDF *Rules of the Game of Checkers (English Draughts)*, section 1.30
onward; ACF *Standard Laws*):

* A side that cannot move on its turn (no pieces, or every piece blocked) loses.
* A side may resign; a side may offer a draw, and the opponent accepts or declines it.
* **Threefold repetition**: the game is drawn when the same position (same pieces, same side to
  move) occurs for the third time.
* **The 40-move rule**: the game is drawn after 40 moves by each side (80 plies) in which no
  piece was captured and no man moved.

Both draws are applied as soon as they happen (no claim is needed), so that no player can
stall a game that is only being shuffled.

A game is its event log: ``Game.replay(log, start=...)`` rebuilds it, and ``game.log`` is a list
of JSON-ready dicts: ``{"move": "11-15"}`` (the full path), ``{"offer_draw": "black"}``,
``{"accept_draw": "white"}``, ``{"decline_draw": "white"}``, ``{"resign": "black"}``,
``{"time_out": "white"}``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from checkers.errors import IllegalActionError, IllegalMoveError, InvalidLogError
from checkers.moves import Move, children, parse_move, parse_squares
from checkers.position import BLACK, WHITE, Color, Position
from checkers.squares import BIT

#: Plies without a capture or a man's move after which the game is drawn (40 moves each).
FORTY_MOVE_PLIES: Final = 80
#: How many times one position must occur for a draw by repetition.
REPETITIONS: Final = 3


class Reason(StrEnum):
    """Why a game ended."""

    NO_MOVE = "no legal move"
    RESIGNATION = "resignation"
    TIME = "time"
    AGREEMENT = "agreement"
    REPETITION = "threefold repetition"
    FORTY_MOVES = "40-move rule"
    FORFEIT = "forfeit"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the winner (None for a draw) and the reason."""

    winner: Color | None
    reason: Reason

    @property
    def result(self) -> str:
        """The PDN result: ``1-0`` when Black won (American PDN), ``0-1``, or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is BLACK else "0-1"

    def __str__(self) -> str:
        if self.winner is None:
            return f"Draw by {self.reason.value}"
        loser = self.winner.opponent.value.capitalize()
        text = {
            Reason.NO_MOVE: f"{loser} has no legal move",
            Reason.RESIGNATION: f"{loser} resigned",
            Reason.TIME: f"{loser} ran out of time",
            Reason.FORFEIT: f"{loser} forfeited",
        }.get(self.reason, self.reason.value)
        return f"{self.winner.value.capitalize()} wins: {text}"


class Game:
    """A game in progress, driven by actions, kept as an event log.

    Args:
        start: the starting position (the standard start by default), e.g. a ballot opening
            or a position from a PDN ``[FEN]`` tag.

    Attributes:
        start: the starting position.
        moves: the moves played, in order.
        positions: ``positions[i]`` is the position before ``moves[i]``; the last is the
            current position (one longer than ``moves``).
        draw_offer: the side whose draw offer waits for an answer, or None.
        outcome: how the game ended, or None while it goes on.
    """

    def __init__(self, start: Position | None = None) -> None:
        self.start: Position = start if start is not None else Position.start()
        self.moves: list[Move] = []
        self.positions: list[Position] = [self.start]
        self._quiet_plies: list[int] = [0]
        self._seen: Counter[Position] = Counter({self.start: 1})
        self._legal: dict[Move, Position] | None = None
        self.draw_offer: Color | None = None
        self.outcome: Outcome | None = None
        self.log: list[dict[str, str]] = []
        self._end_if_no_move()

    # ------------------------------------------------------------------ state

    @property
    def position(self) -> Position:
        """The current position."""
        return self.positions[-1]

    @property
    def turn(self) -> Color:
        """The side to move."""
        return self.position.turn

    @property
    def is_over(self) -> bool:
        """True once the game has an outcome."""
        return self.outcome is not None

    @property
    def quiet_plies(self) -> int:
        """Plies since the last capture or man's move (the 40-move rule's count, 80 at most)."""
        return self._quiet_plies[-1]

    def repetitions(self) -> int:
        """How many times the current position has occurred (1 the first time)."""
        return self._seen[self.position]

    def legal_moves(self) -> list[Move]:
        """The legal moves now (none once the game is over), sorted by path."""
        if self.outcome is not None:
            return []
        return sorted(self._children(), key=lambda m: m.path)

    def _children(self) -> dict[Move, Position]:
        if self._legal is None:
            self._legal = dict(children(self.position))
        return self._legal

    # ------------------------------------------------------------------ actions

    def play(self, move: Move | str) -> Move:
        """Play a move (a :class:`Move` or PDN text, shorthand allowed) for the side to move.

        Any pending draw offer lapses (a move declines it). Returns the move as played
        (its full path).

        Raises:
            IllegalActionError: when the game is over.
            NotationError: for text that is not a move.
            IllegalMoveError: for a move that is not legal (the message says why); nothing
                changes.
        """
        self._require_running()
        if isinstance(move, str):
            move = parse_move(self.position, move)
        legal = self._children()
        after = legal.get(move)
        if after is None:
            parse_move(self.position, str(move))  # raises with the reason
            raise IllegalMoveError(f"{move} is not a legal move here")  # pragma: no cover
        played = next(m for m in legal if m == move)
        mover_is_man = not self.position.kings & BIT[played.origin]
        quiet = 0 if played.is_capture or mover_is_man else self.quiet_plies + 1
        self.moves.append(played)
        self.positions.append(after)
        self._quiet_plies.append(quiet)
        self._seen[after] += 1
        self._legal = None
        self.draw_offer = None
        self.log.append({"move": str(played)})
        if not self._end_if_no_move():
            if self._seen[after] >= REPETITIONS:
                self.outcome = Outcome(None, Reason.REPETITION)
            elif quiet >= FORTY_MOVE_PLIES:
                self.outcome = Outcome(None, Reason.FORTY_MOVES)
        return played

    def undo(self) -> Move:
        """Take back the last move (the game goes on even if that move had ended it).

        Raises:
            IllegalActionError: when no move has been played, or the game ended otherwise
                than by a move (resignation, agreement, time).
        """
        if not self.moves:
            raise IllegalActionError("no move to take back")
        if self.outcome is not None and self.outcome.reason in (
            Reason.RESIGNATION,
            Reason.AGREEMENT,
            Reason.TIME,
        ):
            raise IllegalActionError(f"the game is over ({self.outcome})")
        if not self.log or "move" not in self.log[-1]:
            raise IllegalActionError("the last action was not a move")
        move = self.moves.pop()
        after = self.positions.pop()
        self._quiet_plies.pop()
        self._seen[after] -= 1
        self._legal = None
        self.outcome = None
        self.draw_offer = None
        self.log.pop()
        return move

    def offer_draw(self, side: Color | str) -> None:
        """``side`` offers a draw; the opponent answers with :meth:`accept_draw` or
        :meth:`decline_draw` (a move also declines it).

        Raises:
            IllegalActionError: when the game is over or an offer already waits.
        """
        color = _side(side)
        self._require_running()
        if self.draw_offer is not None:
            raise IllegalActionError(f"{self.draw_offer.value}'s draw offer waits for an answer")
        self.draw_offer = color
        self.log.append({"offer_draw": color.value})

    def accept_draw(self, side: Color | str) -> None:
        """``side`` accepts the opponent's draw offer: the game is drawn by agreement.

        Raises:
            IllegalActionError: when no offer from the opponent waits.
        """
        color = self._answerer(side)
        self.draw_offer = None
        self.outcome = Outcome(None, Reason.AGREEMENT)
        self.log.append({"accept_draw": color.value})

    def decline_draw(self, side: Color | str) -> None:
        """``side`` declines the opponent's draw offer; the game goes on.

        Raises:
            IllegalActionError: when no offer from the opponent waits.
        """
        color = self._answerer(side)
        self.draw_offer = None
        self.log.append({"decline_draw": color.value})

    def resign(self, side: Color | str) -> None:
        """``side`` resigns: the opponent wins.

        Raises:
            IllegalActionError: when the game is over.
        """
        color = _side(side)
        self._require_running()
        self.draw_offer = None
        self.outcome = Outcome(color.opponent, Reason.RESIGNATION)
        self.log.append({"resign": color.value})

    def time_out(self, side: Color | str) -> None:
        """``side`` has run out of time: the opponent wins.

        Raises:
            IllegalActionError: when the game is over.
        """
        color = _side(side)
        self._require_running()
        self.draw_offer = None
        self.outcome = Outcome(color.opponent, Reason.TIME)
        self.log.append({"time_out": color.value})

    def forfeit(self, side: Color | str) -> None:
        """``side`` forfeits (a referee's decision: it left an online game, or was gone and
        its opponent claimed the game): the opponent wins.

        Raises:
            IllegalActionError: when the game is over.
        """
        color = _side(side)
        self._require_running()
        self.draw_offer = None
        self.outcome = Outcome(color.opponent, Reason.FORFEIT)
        self.log.append({"forfeit": color.value})

    # ------------------------------------------------------------------ the log

    @classmethod
    def replay(cls, log: Iterable[Mapping[str, Any]], start: Position | None = None) -> Game:
        """Rebuild a game from its event log (see the module docstring for the shapes).

        Raises:
            InvalidLogError: naming the index of the first bad event and why.
        """
        game = cls(start)
        actions = {
            "offer_draw": game.offer_draw,
            "accept_draw": game.accept_draw,
            "decline_draw": game.decline_draw,
            "resign": game.resign,
            "time_out": game.time_out,
            "forfeit": game.forfeit,
        }
        for index, event in enumerate(log):
            if not isinstance(event, Mapping) or len(event) != 1:
                raise InvalidLogError(f"event {index}: {event!r} is not one action")
            ((name, value),) = event.items()
            try:
                if name == "move":
                    if not isinstance(value, str):
                        raise InvalidLogError(f"event {index}: the move {value!r} is not text")
                    squares, _ = parse_squares(value)
                    move = next((m for m in game._children() if m.path == squares), None)
                    if move is None:
                        game.play(value)  # raises with the reason
                    else:
                        game.play(move)
                elif name in actions:
                    actions[name](value)
                else:
                    raise InvalidLogError(f"event {index}: unknown action {name!r}")
            except InvalidLogError:
                raise
            except ValueError as error:
                raise InvalidLogError(f"event {index}: {error}") from error
        return game

    # ------------------------------------------------------------------ helpers

    def _require_running(self) -> None:
        if self.outcome is not None:
            raise IllegalActionError(f"the game is over ({self.outcome})")

    def _answerer(self, side: Color | str) -> Color:
        color = _side(side)
        self._require_running()
        if self.draw_offer is None:
            raise IllegalActionError("no draw offer waits for an answer")
        if self.draw_offer is color:
            raise IllegalActionError(f"{color.value} cannot answer its own draw offer")
        return color

    def _end_if_no_move(self) -> bool:
        if not self._children():
            self.outcome = Outcome(self.turn.opponent, Reason.NO_MOVE)
            return True
        return False


def _side(value: Color | str) -> Color:
    try:
        return Color(value)
    except ValueError:
        raise IllegalActionError(f"side {value!r} is not black or white") from None


__all__ = ["BLACK", "FORTY_MOVE_PLIES", "REPETITIONS", "WHITE", "Game", "Outcome", "Reason"]
