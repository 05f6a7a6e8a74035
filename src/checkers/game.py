"""One game of checkers: moves, draws, resignation, the outcome, and the event log.

Rules of the game's end: the WCDF *Rules of Draughts (Checkers)*, the rules harmonised in 2008
that the American Checker Federation plays under (the ACF's National Tournament rules,
e.g. 2016's at nccheckers.org, include the "harmonized checker rules implemented by the World
Checkers & Draughts Federation (WCDF) in 2008"):

* A side that cannot move on its turn (no pieces, or every piece blocked) loses.
* A side may resign; a side may offer a draw, and the opponent accepts or declines it (rule
  1.32: drawn "if at any stage both players agree").
* **Threefold repetition** (rule 1.32.1): a draw where "a player can demonstrate to the
  satisfaction of the referee that with their next move they would create the same position
  for the third time during the game" (same pieces, same side to move).
* **The 40-move rule** (rule 1.32.2): a draw where a player can demonstrate that neither player
  has advanced an uncrowned man, and no piece has been removed, during their own previous 40
  moves (80 plies).

Under those rules both draws are **claimed** by a player while the condition holds; nothing
ends the game by itself. A :class:`Game` plays them one of two ways (``draws``):

* ``"automatic"`` (the default, for the library, PDN replay and the terminal): each draw is
  applied as soon as it happens, no claim needed.
* ``"claim"`` (the ACF's way; the table's games): :meth:`Game.claimable` says which draw a
  side can claim now and :meth:`Game.claim_draw` claims it. A side may claim a repetition when
  the current position has occurred a third time (or more), or, on its move, when one of its
  moves would create a position for the third time (rule 1.32.1's own words); either side may
  claim the 40-move rule once 80 plies have passed without a capture or a man's move. The
  claim lapses with the condition (a repetition when the position changes; the 40-move count
  when a man moves or a piece is taken).
  So that an unclaimed shuffle cannot last forever at the table, a claim-mode game is drawn
  by itself when one position occurs a fifth time (:data:`REPETITION_LIMIT`) or after 160
  plies without a capture or a man's move (:data:`QUIET_PLY_LIMIT`, 80 moves each). Those
  bounds are **this program's own**: the checkers rules have none; they follow the FIDE Laws
  of Chess, article 9.6 (a game of chess is drawn without a claim at a fivefold repetition
  or after 75 moves each without a capture or a pawn move, where the claimed draws come at
  three and 50).

A game is its event log: ``Game.replay(log, start=..., draws=...)`` rebuilds it (the mode is
not in the log: the caller keeps it, as the table keeps it in its settings), and ``game.log``
is a list of JSON-ready dicts: ``{"move": "11-15"}`` (the full path),
``{"offer_draw": "black"}``, ``{"accept_draw": "white"}``, ``{"decline_draw": "white"}``,
``{"claim_draw": "white"}`` (the draw claimed is the one :meth:`Game.claimable` names then),
``{"resign": "black"}``, ``{"time_out": "white"}``, ``{"forfeit": "white"}``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal

from checkers.errors import IllegalActionError, IllegalMoveError, InvalidLogError, NotationError
from checkers.moves import Move, children, parse_move, parse_squares
from checkers.position import BLACK, WHITE, Color, Position
from checkers.squares import BIT

#: Plies without a capture or a man's move after which the game is drawn (40 moves each).
FORTY_MOVE_PLIES: Final = 80
#: How many times one position must occur for a draw by repetition.
REPETITIONS: Final = 3
#: In claim mode, the occurrence of one position that draws the game without a claim (this
#: program's bound, after the FIDE Laws of Chess, article 9.6: fivefold repetition).
REPETITION_LIMIT: Final = 5
#: In claim mode, the plies without a capture or a man's move that draw the game without a
#: claim (this program's bound: 80 moves each, twice the 40-move rule, after the FIDE Laws of
#: Chess, article 9.6, whose automatic 75 moves stand beside the claimed 50).
QUIET_PLY_LIMIT: Final = 160

#: How a game's draws by repetition and by the 40-move rule come: applied by themselves, or
#: claimed by a player (the WCDF/ACF rules 1.32.1 and 1.32.2).
DrawMode = Literal["automatic", "claim"]
#: The draw modes.
DRAW_MODES: Final[tuple[DrawMode, ...]] = ("automatic", "claim")


class Reason(StrEnum):
    """Why a game ended."""

    NO_MOVE = "no legal move"
    RESIGNATION = "resignation"
    TIME = "time"
    AGREEMENT = "agreement"
    REPETITION = "threefold repetition"
    FORTY_MOVES = "40-move rule"
    FORFEIT = "forfeit"
    #: A claim-mode game's own bounds (:data:`REPETITION_LIMIT`, :data:`QUIET_PLY_LIMIT`).
    FIVEFOLD = "fivefold repetition"
    MOVE_LIMIT = "80-move limit"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the winner (None for a draw), the reason, and for a draw claimed
    (repetition or the 40-move rule in claim mode) the side that claimed it."""

    winner: Color | None
    reason: Reason
    claimed_by: Color | None = None

    @property
    def result(self) -> str:
        """The PDN result: ``1-0`` when Black won (American PDN), ``0-1``, or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is BLACK else "0-1"

    def __str__(self) -> str:
        if self.winner is None:
            if self.claimed_by is not None:
                return f"Draw by {self.reason.value}, claimed by {self.claimed_by.value}"
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
        draws: ``"automatic"`` (the default: threefold repetition and the 40-move rule end
            the game as they happen) or ``"claim"`` (the ACF's rules 1.32.1 and 1.32.2: a
            player claims them, see the module docstring).

    Raises:
        ValueError: for a ``draws`` that is neither.
        TypeError: for a ``start`` that is not a :class:`Position`.

    Attributes:
        start: the starting position.
        moves: the moves played, in order.
        positions: ``positions[i]`` is the position before ``moves[i]``; the last is the
            current position (one longer than ``moves``).
        draw_offer: the side whose draw offer waits for an answer, or None.
        outcome: how the game ended, or None while it goes on.
        draws: the draw mode.
    """

    def __init__(self, start: Position | None = None, draws: DrawMode = "automatic") -> None:
        if draws not in DRAW_MODES:
            raise ValueError(f"draws {draws!r} is not one of {', '.join(DRAW_MODES)}")
        self.draws: DrawMode = draws
        if start is not None and not isinstance(start, Position):
            raise TypeError(f"start is a checkers Position, got {type(start).__name__} "
                            f"{start!r:.60} (Position.from_fen(text) reads a FEN)")
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

    def claimable(self, side: Color | str | None = None) -> Reason | None:
        """The draw ``side`` (the side to move by default) can claim now, in claim mode, or
        None:

        * :attr:`Reason.REPETITION` when the current position has occurred a third time or
          more (rule 1.32.1; either side may claim it);
        * else :attr:`Reason.FORTY_MOVES` after 80 plies or more without a capture or a man's
          move (rule 1.32.2; either side);
        * else :attr:`Reason.REPETITION` when it is ``side``'s move and one of its moves
          would create a position for the third time (rule 1.32.1's own case: "with their
          next move they would create the same position for the third time").

        Always None in automatic mode (those draws happen by themselves) and once the game
        is over."""
        if self.draws != "claim" or self.outcome is not None:
            return None
        color = self.turn if side is None else _side(side)
        if self.repetitions() >= REPETITIONS:
            return Reason.REPETITION
        if self.quiet_plies >= FORTY_MOVE_PLIES:
            return Reason.FORTY_MOVES
        if color is self.turn and any(
            self._seen[after] >= REPETITIONS - 1 for after in self._children().values()
        ):
            return Reason.REPETITION
        return None

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
            NotationError: for text that is not a move, or something neither text nor a
                :class:`Move` (a list of squares, say).
            IllegalMoveError: for a move that is not legal (the message says why); nothing
                changes.
        """
        self._require_running()
        if isinstance(move, str):
            move = parse_move(self.position, move)
        elif not isinstance(move, Move):
            raise NotationError(f"{move!r} is not a move: give a Move or PDN text such as "
                                "'11-15' or '15x22x31'")
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
            if self.draws == "automatic":
                if self._seen[after] >= REPETITIONS:
                    self.outcome = Outcome(None, Reason.REPETITION)
                elif quiet >= FORTY_MOVE_PLIES:
                    self.outcome = Outcome(None, Reason.FORTY_MOVES)
            elif self._seen[after] >= REPETITION_LIMIT:
                self.outcome = Outcome(None, Reason.FIVEFOLD)
            elif quiet >= QUIET_PLY_LIMIT:
                self.outcome = Outcome(None, Reason.MOVE_LIMIT)
        return played

    def undo(self) -> Move:
        """Take back the last move (the game goes on even if that move had ended it), and
        with it any draw offer made or declined since (the offer lapses).

        Raises:
            IllegalActionError: when no move has been played, or the game ended otherwise
                than by a move (resignation, agreement, a claimed draw, time, forfeit).
        """
        if not self.moves:
            raise IllegalActionError("no move to take back")
        last = max(i for i, entry in enumerate(self.log) if "move" in entry)
        since = self.log[last + 1:]
        if self.outcome is not None and any(
                key not in ("offer_draw", "decline_draw") for entry in since for key in entry):
            raise IllegalActionError(f"the game is over ({self.outcome})")
        move = self.moves.pop()
        after = self.positions.pop()
        self._quiet_plies.pop()
        self._seen[after] -= 1
        self._legal = None
        self.outcome = None
        self.draw_offer = None
        del self.log[last:]
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

    def claim_draw(self, side: Color | str) -> Reason:
        """``side`` claims the draw :meth:`claimable` names for it (claim mode only): the
        game is drawn by threefold repetition (WCDF/ACF rule 1.32.1) or the 40-move rule
        (rule 1.32.2), the claimant recorded in the outcome. Any draw offer lapses. Returns
        the reason.

        Raises:
            IllegalActionError: when the game is over, in automatic mode, or when ``side``
                has nothing to claim now (the message says why).
        """
        color = _side(side)
        self._require_running()
        if self.draws != "claim":
            raise IllegalActionError(
                "draws by repetition and the 40-move rule come by themselves in this game: "
                "there is nothing to claim"
            )
        reason = self.claimable(color)
        if reason is None:
            moves = self.quiet_plies // 2
            raise IllegalActionError(
                f"no draw can be claimed now: this position has occurred "
                f"{self.repetitions()} time(s) (a repetition is claimed at the third), and "
                f"{moves} of 40 moves each have passed without a capture or a man's move"
            )
        self.draw_offer = None
        self.outcome = Outcome(None, reason, claimed_by=color)
        self.log.append({"claim_draw": color.value})
        return reason

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
    def replay(
        cls,
        log: Iterable[Mapping[str, Any]],
        start: Position | None = None,
        draws: DrawMode = "automatic",
    ) -> Game:
        """Rebuild a game from its event log (see the module docstring for the shapes),
        played with the same draw mode as it was (a claim checked as it was made).

        Raises:
            InvalidLogError: naming the index of the first bad event and why, or a log that
                is not a list of events.
            ValueError: for a ``draws`` that is not a draw mode.
        """
        if isinstance(log, (str, bytes, Mapping)) or not isinstance(log, Iterable):
            raise InvalidLogError(f"a game log is a list of events, got {type(log).__name__}")
        game = cls(start, draws)
        actions: dict[str, Any] = {
            "offer_draw": game.offer_draw,
            "accept_draw": game.accept_draw,
            "decline_draw": game.decline_draw,
            "claim_draw": game.claim_draw,
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


__all__ = [
    "BLACK",
    "DRAW_MODES",
    "FORTY_MOVE_PLIES",
    "QUIET_PLY_LIMIT",
    "REPETITIONS",
    "REPETITION_LIMIT",
    "WHITE",
    "DrawMode",
    "Game",
    "Outcome",
    "Reason",
]
