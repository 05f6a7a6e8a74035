"""Choosing a move: the public entry point of the computer player.

:func:`choose_move` searches a position at a level and returns a :class:`SearchResult`;
:class:`ComputerPlayer` does the same for a :class:`~checkers.Game`, passing the game's
earlier positions so that the search sees repetitions and the 40-move count.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from checkers.ai.endgame import default_database
from checkers.ai.levels import Level, get_level
from checkers.ai.search import Searcher
from checkers.ai.zobrist import position_key
from checkers.errors import IllegalActionError
from checkers.game import Game
from checkers.moves import Move, RawMove, raw_to_move
from checkers.position import BLACK, Color, Position


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The computer's choice.

    Attributes:
        move: the move to play.
        score: its score, hundredths of a man from the side to move's view; a forced win in
            ``p`` plies scores ``WIN - p`` (``checkers.ai.search.WIN`` = 100,000), a forced
            loss the negative.
        depth: the deepest completed iteration, plies (0 when none completed in time).
        nodes: positions searched.
        seconds: time taken, wall clock.
    """

    move: Move
    score: int
    depth: int
    nodes: int
    seconds: float


def quiet_plies(history: Sequence[Position], position: Position) -> int:
    """Plies since the last capture or man's move, counted back through ``history`` (the
    game's earlier positions, oldest first) to ``position``: what the 40-move rule counts.

    A ply is quiet when the number of pieces and the men stay the same (a king moved)."""
    chain = [*history, position]
    count = 0
    for later, earlier in itertools.pairwise(reversed(chain)):
        later_all, earlier_all = later.black | later.white, earlier.black | earlier.white
        king_move = (
            later_all.bit_count() == earlier_all.bit_count()
            and later_all & ~later.kings == earlier_all & ~earlier.kings
            and later.turn is not earlier.turn
        )
        if not king_move:
            break
        count += 1
    return count


def choose_move(
    position: Position,
    level: str | Level = "hard",
    *,
    rng: random.Random | None = None,
    history: Sequence[Position] = (),
    time_limit: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """The computer's move in ``position`` at ``level``.

    Args:
        position: the position, its side to move to play.
        level: ``"easy"``, ``"medium"``, ``"hard"`` or ``"expert"`` (see
            :mod:`checkers.ai.levels`), or a :class:`~checkers.ai.levels.Level`.
        rng: draws among the moves within the level's window (Easy and Medium); the same
            seed gives the same move. ``random.Random(0)`` when None; the global random
            generator is never used.
        history: the game's earlier positions, oldest first (``game.positions[:-1]``): a move
            back into one of them scores as a draw, and the 40-move count is taken from them.
        time_limit: seconds: replaces the level's time limit (and, for Expert, scales its
            budget: no new iteration after half of it).
        clock: seconds, monotonic (injected for tests).

    Raises:
        IllegalActionError: when the side to move has no legal move (the game is over), or
            for an unknown level.
        TypeError: ``position`` is not a :class:`~checkers.position.Position`.
    """
    chosen = get_level(level)
    if not isinstance(position, Position):
        raise TypeError(f"expected a checkers Position, got {type(position).__name__} "
                        f"{position!r:.60} (Position.from_fen(text) reads a FEN)")
    black = position.turn is BLACK
    own, opp = (position.black, position.white) if black else (position.white, position.black)
    soft = chosen.soft_time
    limit = chosen.time_limit
    if time_limit is not None:
        if soft is not None and limit:
            soft = soft * time_limit / limit
        limit = time_limit
    searcher = Searcher(default_database() if chosen.endgame else None, clock=clock)
    try:
        found = searcher.search(
            own,
            opp,
            position.kings,
            black,
            max_depth=chosen.depth,
            window=chosen.window,
            rng=rng,
            game_keys=[position_key(p) for p in history],
            quiet=quiet_plies(history, position),
            node_limit=chosen.node_limit,
            time_limit=limit,
            soft_time=soft,
        )
    except ValueError:
        raise IllegalActionError(
            f"{position.turn.value.capitalize()} has no legal move in {position.fen()}: "
            "the game is over"
        ) from None
    return SearchResult(
        move=to_move(found.move),
        score=found.score,
        depth=found.depth,
        nodes=found.nodes,
        seconds=found.seconds,
    )


def to_move(raw: RawMove) -> Move:
    """The :class:`~checkers.Move` of a raw move."""
    return raw_to_move(raw)


class ComputerPlayer:
    """A computer opponent at one level with its own seeded random source.

    Args:
        level: a level name or :class:`~checkers.ai.levels.Level`.
        seed: seeds the player's ``random.Random`` (the same seed plays the same game).
        time_limit: seconds, replacing the level's time limit (None: the level's).

    Raises:
        IllegalActionError: for an unknown level.
    """

    def __init__(
        self, level: str | Level = "hard", seed: int = 0, time_limit: float | None = None
    ) -> None:
        self.level = get_level(level)
        self.rng = random.Random(seed)
        self.time_limit = time_limit
        #: The last search's result (None before the first move).
        self.last: SearchResult | None = None

    def think(self, game: Game) -> SearchResult:
        """Search the game's current position (its earlier positions as history).

        Raises:
            IllegalActionError: when the game is over.
        """
        if game.is_over:
            raise IllegalActionError(f"the game is over ({game.outcome})")
        self.last = choose_move(
            game.position,
            self.level,
            rng=self.rng,
            history=game.positions[:-1],
            time_limit=self.time_limit,
        )
        return self.last

    def choose(self, game: Game) -> Move:
        """The move to play in ``game`` now.

        Raises:
            IllegalActionError: when the game is over.
        """
        return self.think(game).move


#: The computer accepts a draw when its search scores its own side this far behind or worse
#: (hundredths of a man): a third of a man down.
DRAW_ACCEPT_SCORE = -33
#: With this many pieces or fewer on the board, it also accepts when it sees no real
#: advantage (less than :data:`EDGE_SCORE`): the ending is level.
FEW_PIECES = 8
#: Half a man: below this, an ending with few pieces counts as level.
EDGE_SCORE = 50


def accepts_draw(game: Game, side: Color, level: str, *, rng: random.Random | None = None) -> bool:
    """Whether the computer playing ``side`` at ``level`` accepts a draw offered now.

    It searches the position as if ``side`` were to move (so that it judges its own chances
    even on the opponent's turn) and accepts when it is at least a third of a man behind, or
    when at most 8 pieces are left and it is less than half a man ahead (2 kings against 2,
    1 against 1). A side with no legal move accepts.
    """
    position = game.position.with_turn(side)
    try:
        found = choose_move(
            position, level, rng=rng or random.Random(0), history=game.positions[:-1]
        )
    except IllegalActionError:
        return True
    pieces = (position.black | position.white).bit_count()
    return found.score <= DRAW_ACCEPT_SCORE or (found.score < EDGE_SCORE and pieces <= FEW_PIECES)


#: The computer claims a draw it may claim (threefold repetition, the 40-move rule) when its
#: search sees no more than this for itself (hundredths of a man): a tenth of a man, no real
#: advantage.
DRAW_CLAIM_SCORE = 10


def claims_draw(found: SearchResult, position: Position) -> bool:
    """Whether the computer, whose search of ``position`` (its own move) found ``found``,
    claims a draw it may claim now: when it does not stand better, that is when its search
    sees at most :data:`DRAW_CLAIM_SCORE` for itself, or when the ending is level as
    :func:`accepts_draw` judges one (at most :data:`FEW_PIECES` pieces and less than half a
    man ahead). A side that stands better plays on (the search scores a move back into an
    earlier position as a draw, so its score is what it sees beyond the repetition)."""
    pieces = (position.black | position.white).bit_count()
    return found.score <= DRAW_CLAIM_SCORE or (found.score < EDGE_SCORE and pieces <= FEW_PIECES)
