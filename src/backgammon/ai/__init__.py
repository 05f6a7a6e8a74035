"""The computer player: evaluation, expectimax over the dice, levels and cube decisions.

Imports the engine (:mod:`backgammon.core`) and numpy; the engine never imports this package.

    from backgammon.ai import choose_play, ComputerPlayer
    play = choose_play(position, (3, 1), level="expert", seed=7)

The strong levels play on neural nets trained by our own self-play (:mod:`backgammon.ai.nets`,
:mod:`backgammon.ai.netsearch`, :mod:`backgammon.training.td`).
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
from backgammon.ai.levels import (
    CLASSIC,
    EASY,
    EXPERT,
    HARD,
    LEVELS,
    MASTER,
    MEDIUM,
    Level,
    get_level,
)
from backgammon.ai.met import MatchEquityTable, match_equity_table
from backgammon.ai.nets import WeightsError
from backgammon.ai.netsearch import NetEvaluator, preroll, shared_net_evaluator
from backgammon.ai.player import ComputerPlayer, Player, cube_state
from backgammon.ai.resign import resignation
from backgammon.ai.search import Evaluator, shared_evaluator
from backgammon.ai.winprob import Probabilities, equity
from backgammon.core.position import Position


def evaluate(position: Position, plies: int = 0) -> Probabilities:
    """The chances of the side to move in ``position``, before it rolls, from the nets: 5
    probabilities (win, win gammon, win backgammon, lose gammon, lose backgammon), gammons
    including backgammons. ``plies`` 0 is the nets on the position, n >= 1 the mean over the
    21 rolls of the best play at n - 1 plies.

    Raises:
        WeightsError: the nets' weights file is missing or corrupt.
    """
    p = preroll(position, shared_net_evaluator(), plies)
    return Probabilities(float(p[0]), float(p[1]), float(p[2]), float(p[3]), float(p[4]))


__all__ = [
    "CLASSIC",
    "EASY",
    "EXPERT",
    "HARD",
    "LEVELS",
    "MASTER",
    "MEDIUM",
    "ComputerPlayer",
    "CubeAction",
    "CubeDecision",
    "CubeEquities",
    "CubeState",
    "Evaluator",
    "Level",
    "MatchEquityTable",
    "NetEvaluator",
    "Player",
    "Probabilities",
    "RankedPlay",
    "WeightsError",
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
    "shared_net_evaluator",
    "take_decision",
]
