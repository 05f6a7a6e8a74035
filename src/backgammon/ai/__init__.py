"""The computer player: evaluation, expectimax over the dice, levels and cube decisions.

Imports the engine (:mod:`backgammon.core`) and numpy; the engine never imports this package.

    from backgammon.ai import choose_play, ComputerPlayer
    play = choose_play(position, (3, 1), level="hard", seed=7)
"""

from backgammon.ai.choose import RankedPlay, choose_play, rank_plays
from backgammon.ai.cube import (
    CubeAction,
    CubeDecision,
    CubeEquities,
    CubeState,
    cube_equities,
    double_decision,
    take_decision,
)
from backgammon.ai.levels import EASY, HARD, LEVELS, MEDIUM, Level, get_level
from backgammon.ai.met import MatchEquityTable, match_equity_table
from backgammon.ai.player import ComputerPlayer, Player, cube_state
from backgammon.ai.resign import resignation
from backgammon.ai.search import Evaluator, preroll_probabilities, shared_evaluator
from backgammon.ai.winprob import Probabilities, equity
from backgammon.core.position import Position


def evaluate(position: Position, depth: int = 0) -> Probabilities:
    """The chances of the side to move in ``position``, before it rolls: 5 probabilities
    (win, win gammon, win backgammon, lose gammon, lose backgammon), gammons including
    backgammons. ``depth`` 0 is the static evaluation, 1 looks over the 21 rolls."""
    return Probabilities(*preroll_probabilities(position, shared_evaluator(), depth))


__all__ = [
    "EASY",
    "HARD",
    "LEVELS",
    "MEDIUM",
    "ComputerPlayer",
    "CubeAction",
    "CubeDecision",
    "CubeEquities",
    "CubeState",
    "Evaluator",
    "Level",
    "MatchEquityTable",
    "Player",
    "Probabilities",
    "RankedPlay",
    "choose_play",
    "cube_equities",
    "cube_state",
    "double_decision",
    "equity",
    "evaluate",
    "get_level",
    "match_equity_table",
    "rank_plays",
    "resignation",
    "shared_evaluator",
    "take_decision",
]
