"""The table every game is played at: seats, one turn clock, one action gate, one view.

This package knows no game. A game plugs in through the seam of :mod:`gametable.seam`
(:class:`~gametable.seam.GameRules` for the game, :class:`~gametable.seam.GameInProgress`
for a game being played), and a :class:`~gametable.table.Table` owns one game in progress:
it checks who may act, keeps the clock (a Fischer increment for each completed turn, a loss
when a flag falls), lets computer seats play, builds the view a seat sees and keeps the
record that rebuilds it. ``tests/test_layering.py`` proves that nothing here imports
``backgammon`` or ``checkers``.
"""

from gametable.clock import TIME_CONTROLS, Clock, TimeControl, time_control
from gametable.errors import ActionRefused, ClockError, TableError
from gametable.seam import SIDES, Applied, GameInProgress, GameRules, Offer, Outcome, Side
from gametable.table import Seat, Table

__all__ = [
    "SIDES",
    "TIME_CONTROLS",
    "ActionRefused",
    "Applied",
    "Clock",
    "ClockError",
    "GameInProgress",
    "GameRules",
    "Offer",
    "Outcome",
    "Seat",
    "Side",
    "Table",
    "TableError",
    "TimeControl",
    "time_control",
]
