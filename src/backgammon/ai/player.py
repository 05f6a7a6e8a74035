"""Players: the :class:`Player` protocol and the computer player at a level.

The web server, the command line and the benchmarks all drive games through the same
protocol, so a person, the computer at any level, or a test double can sit at either side::

    player = ComputerPlayer("hard", random.Random(7))
    play = player.choose_play(game)        # game in the MOVE phase
    action = player.cube_action(game)      # ROLL phase: DOUBLE / NO_DOUBLE;
                                           # DOUBLE_OFFERED: TAKE / DROP / BEAVER
                                           # (a beaver: TAKE / DROP / RACCOON)

Each decision also has a form on plain values (``play(position, dice)``,
``double_decision(position, cube)``, ...) that needs no :class:`~backgammon.core.game.Game`.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from backgammon.ai.choose import AnyEvaluator, default_evaluator, pick
from backgammon.ai.cube import (
    CubeAction,
    CubeDecision,
    CubeState,
    beaver_response,
    cube_equities,
    double_decision,
    double_response,
    raccoon_response,
    take_decision,
)
from backgammon.ai.levels import Level, get_level
from backgammon.ai.netsearch import NetEvaluator, preroll
from backgammon.ai.resign import accept_resignation, resignation
from backgammon.ai.search import preroll_equity, preroll_probabilities
from backgammon.ai.winprob import equity
from backgammon.core.moves import Play, legal_plays
from backgammon.core.position import Position, ResultKind
from backgammon.core.types import Color

if TYPE_CHECKING:
    from backgammon.core.game import Game


class Player(Protocol):
    """A side in a game: what the game asks of whoever plays it."""

    def choose_play(self, game: Game) -> Play:
        """The play for the dice thrown (``game.phase`` is ``MOVE``)."""
        ...

    def cube_action(self, game: Game) -> CubeAction:
        """In the ``ROLL`` phase ``DOUBLE`` or ``NO_DOUBLE``; while a double is offered to this
        side ``TAKE``, ``DROP`` or ``BEAVER`` (a beaver: ``TAKE``, ``DROP`` or ``RACCOON``; a
        raccoon: ``TAKE`` or ``DROP``)."""
        ...


def cube_state(game: Game) -> CubeState:
    """The cube and match context of ``game`` as plain values."""
    settings = game.settings
    return CubeState(
        value=game.cube_value,
        owner=game.cube_owner,
        match_length=settings.match_length,
        score=settings.score,
        crawford=settings.crawford,
        jacoby=settings.jacoby,
        beavers=settings.beavers,
        gammons=settings.gammons,
    )


@dataclass(frozen=True)
class CubeAdvice:
    """The cube decision a game is at, and what the side to act should do: the one answer the
    computer acts on, the page's hint shows and ``backgammon hint`` prints.

    Attributes:
        stage: ``"double"`` (the side on roll, before rolling), ``"take"`` (the doubled side
            answers a double), ``"beaver"`` (the doubler answers the beaver of its double) or
            ``"raccoon"`` (the beaver answers the doubler's raccoon).
        doubler: the side on roll, which doubles or doubled.
        cube: the cube the decision is at: as it was before any double.
        decision: the doubler's decision at the cube as it was before any double:
            ``action`` ``DOUBLE``, ``NO_DOUBLE`` or ``TOO_GOOD``; ``response`` ``TAKE``,
            ``DROP`` or (money play, when the game allows beavers) ``BEAVER``; the equities
            from the doubler's view.
        answer: what the side to act should do now: the decision's action (``"double"``),
            its response (``"take"``), ``TAKE``, ``DROP`` or ``RACCOON`` (``"beaver"``, by
            :func:`~backgammon.ai.cube.beaver_response`), ``TAKE`` or ``DROP``
            (``"raccoon"``, by :func:`~backgammon.ai.cube.raccoon_response`).
    """

    stage: Literal["double", "take", "beaver", "raccoon"]
    doubler: Color
    cube: CubeState
    decision: CubeDecision
    answer: CubeAction


def cube_advice(game: Game, probs: Sequence[float]) -> CubeAdvice | None:
    """The cube decision ``game`` is at (:class:`CubeAdvice`), from ``probs``: the 5 chances
    of the side on roll before it rolls. None when there is none: not before a roll or with a
    double offered, or no cube.

    Before the roll the side on roll's :func:`~backgammon.ai.cube.double_decision` (its
    action; ``NO_DOUBLE`` with the reason when it may not double); with a double offered the
    same decision at the cube before the double gives the answer (a beaver only when the game
    allows them); with a beaver offered, :func:`~backgammon.ai.cube.beaver_response` (take,
    drop or raccoon); with a raccoon offered, :func:`~backgammon.ai.cube.raccoon_response`.
    """
    from backgammon.core.game import Phase

    doubler = game.on_roll
    if doubler is None or not game.settings.cube:
        return None
    p = (probs[0], probs[1], probs[2], probs[3], probs[4])
    cube = cube_state(game)
    if game.phase is Phase.ROLL:
        decision = double_decision(p, cube, doubler)
        return CubeAdvice("double", doubler, cube, decision, decision.action)
    if game.phase is not Phase.DOUBLE_OFFERED:
        return None
    offer = game.cube_offer
    if offer in ("beaver", "raccoon"):
        # the cube before the double: as the double's own line of the history left it
        before = next(turn for turn in reversed(game.history) if turn.action == "double")
        cube = dataclasses.replace(cube, value=before.cube_value, owner=before.cube_owner)
    decision = double_decision(p, cube, doubler)
    if decision.equities is None:  # (a double the rules allowed, the model would not make)
        eq = cube_equities(p, cube, doubler)
        decision = decision._replace(response=double_response(eq, cube), equities=eq)
    if offer == "beaver":
        return CubeAdvice("beaver", doubler, cube, decision,
                          beaver_response(p, cube, doubler))
    if offer == "raccoon":
        return CubeAdvice("raccoon", doubler, cube, decision,
                          raccoon_response(p, cube, doubler))
    return CubeAdvice("take", doubler, cube, decision, decision.response)


class ComputerPlayer:
    """The computer at a level.

    Args:
        level: ``"easy"``, ``"medium"``, ``"hard"``, ``"expert"``, ``"master"``,
            ``"classic"`` or a :class:`~backgammon.ai.levels.Level`.
        rng: the generator for the level's randomness (injected; a seeded one makes every
            decision reproducible). None: a fresh ``random.Random()``.
        evaluator: the cached evaluation to use (a :class:`NetEvaluator` for the net levels,
            an :class:`~backgammon.ai.search.Evaluator` for classic); default the
            process-wide one.

    Raises:
        ValueError: an unknown level name.
        WeightsError: the nets' weights file is missing or corrupt.
    """

    def __init__(
        self,
        level: Level | str = "expert",
        rng: random.Random | None = None,
        evaluator: AnyEvaluator | None = None,
    ) -> None:
        self.level = get_level(level)
        self.rng = rng if rng is not None else random.Random()
        self.evaluator = evaluator if evaluator is not None else default_evaluator(self.level)

    def __repr__(self) -> str:
        return f"ComputerPlayer({self.level.name!r})"

    # -- decisions on plain values ------------------------------------------------------------

    def play(self, position: Position, dice: Sequence[int]) -> Play:
        """The play for ``dice`` in ``position`` (its side to move); the empty play when the
        roll cannot be played."""
        return pick(legal_plays(position, dice), self.level, self.rng, self.evaluator)

    def probabilities(self, position: Position) -> tuple[float, float, float, float, float]:
        """The 5 probabilities for the side to move before it rolls, at this level's cube
        lookahead (:func:`backgammon.ai.netsearch.preroll` for the net levels,
        :func:`backgammon.ai.search.preroll_probabilities` for classic)."""
        if isinstance(self.evaluator, NetEvaluator):
            p = preroll(position, self.evaluator, self.level.cube_plies,
                        self.level.cube_filters)
            return (float(p[0]), float(p[1]), float(p[2]), float(p[3]), float(p[4]))
        return preroll_probabilities(position, self.evaluator, self.level.cube_depth)

    def double_decision(self, position: Position, cube: CubeState) -> CubeDecision:
        """Whether the side to move in ``position`` should double, before rolling."""
        return double_decision(self.probabilities(position), cube, position.turn)

    def take_decision(self, position: Position, cube: CubeState) -> CubeAction:
        """``TAKE``, ``DROP`` or ``BEAVER`` for the side doubled; ``position`` has the doubler
        to move and ``cube`` is as it was before the double."""
        doubler = self.probabilities(position)
        taker = (1.0 - doubler[0], doubler[3], doubler[4], doubler[1], doubler[2])
        return take_decision(taker, cube, position.turn.opponent)

    def resignation(self, position: Position) -> ResultKind | None:
        """The result to resign now (side to move, before rolling), or None to play on."""
        return resignation(position)

    def accepts_resignation(self, position: Position, color: Color, offered: ResultKind) -> bool:
        """Whether ``color`` accepts the opponent's offer to resign ``offered`` in
        ``position`` (the side to move as the game has it)."""
        if isinstance(self.evaluator, NetEvaluator):
            value = equity(self.probabilities(position))
        else:
            value = preroll_equity(position, self.evaluator, 1)
        mine = value if position.turn is color else -value
        return accept_resignation(offered, mine)

    # -- the Player protocol on a Game --------------------------------------------------------

    def choose_play(self, game: Game) -> Play:
        """The play for the dice thrown in ``game`` (``MOVE`` phase)."""
        return pick(game.legal_plays(), self.level, self.rng, self.evaluator, cube_state(game))

    def cube_advice(self, game: Game) -> CubeAdvice | None:
        """:func:`cube_advice` of ``game`` at this level's cube lookahead."""
        from backgammon.core.game import Phase

        if game.phase not in (Phase.ROLL, Phase.DOUBLE_OFFERED) or not game.settings.cube:
            return None
        return cube_advice(game, self.probabilities(game.position))

    def cube_action(self, game: Game) -> CubeAction:
        """``DOUBLE``/``NO_DOUBLE`` before rolling (``NO_DOUBLE`` when doubling is not allowed
        or the position is too good), ``TAKE``/``DROP``/``BEAVER`` when doubled (``BEAVER``
        only when the game allows beavers), ``TAKE``/``DROP``/``RACCOON`` when the double was
        beavered, ``TAKE``/``DROP`` when the beaver was raccooned: the :meth:`cube_advice`
        the hints show."""
        from backgammon.core.game import Phase

        if game.phase is Phase.ROLL and not game.can_double():
            return CubeAction.NO_DOUBLE
        advice = self.cube_advice(game)
        if advice is None:
            return CubeAction.NO_DOUBLE
        if advice.stage == "double":
            return (CubeAction.DOUBLE if advice.answer is CubeAction.DOUBLE
                    else CubeAction.NO_DOUBLE)
        return advice.answer

    def answer_double(self, game: Game) -> Literal["take", "drop", "beaver", "raccoon"]:
        """The answer to the double (or beaver, or raccoon) offered: ``"take"``, ``"drop"``,
        ``"beaver"`` or ``"raccoon"`` (:meth:`cube_action`)."""
        action = self.cube_action(game)
        if action is CubeAction.BEAVER:
            return "beaver"
        if action is CubeAction.RACCOON:
            return "raccoon"
        return "drop" if action is CubeAction.DROP else "take"

    def should_double(self, game: Game) -> bool:
        """``cube_action(game) is DOUBLE`` (for callers that ask yes or no)."""
        return self.cube_action(game) is CubeAction.DOUBLE

    def should_take(self, game: Game) -> bool:
        """Whether to take (or beaver) the double offered."""
        return self.cube_action(game) is not CubeAction.DROP

    def resign_action(self, game: Game) -> ResultKind | None:
        """The result to resign before rolling (``ROLL`` phase, on roll), or None."""
        from backgammon.core.game import Phase

        if game.phase is not Phase.ROLL:
            return None
        return self.resignation(game.position)

    def accept_resign(self, game: Game) -> bool:
        """Whether to accept the resignation the opponent offers in ``game``."""
        offer = game.resignation
        if offer is None:
            return False
        resigner, kind = offer
        # the position before the roll being played (if any): the equity is a pre-roll one
        return self.accepts_resignation(game.turn_start, resigner.opponent, kind)


__all__ = ["ComputerPlayer", "CubeAdvice", "Player", "cube_advice", "cube_state"]
