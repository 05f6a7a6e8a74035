"""The rules engine: standard library only, imports nothing outside ``backgammon.core``.

Re-exports the public core API; see DESIGN.md for the board layout and the vocabulary.
"""

from backgammon.core.dice import Dice, FixedDice, commitment, dice_from_secrets
from backgammon.core.errors import (
    BackgammonError,
    IllegalActionError,
    IllegalMoveError,
    IllegalPlayError,
    InvalidDiceError,
    InvalidIdError,
    InvalidLogError,
    InvalidPositionError,
    InvalidSettingsError,
    NotationError,
)
from backgammon.core.game import Game, GameOutcome, GameSettings, Phase, Turn
from backgammon.core.match import Match
from backgammon.core.moves import LegalPlays, Move, Play, apply_play, legal_moves, legal_plays
from backgammon.core.notation import format_play, parse_play
from backgammon.core.position import Outcome, Position, PositionStatus, ResultKind, outcome
from backgammon.core.types import (
    BAR,
    BLACK,
    CHECKERS_PER_SIDE,
    OFF,
    ROLLS,
    START_POINTS,
    WHITE,
    Color,
    Roll,
)
from backgammon.core.xgid import Xgid

__all__ = [
    "BAR",
    "BLACK",
    "CHECKERS_PER_SIDE",
    "OFF",
    "ROLLS",
    "START_POINTS",
    "WHITE",
    "BackgammonError",
    "Color",
    "Dice",
    "FixedDice",
    "Game",
    "GameOutcome",
    "GameSettings",
    "IllegalActionError",
    "IllegalMoveError",
    "IllegalPlayError",
    "InvalidDiceError",
    "InvalidIdError",
    "InvalidLogError",
    "InvalidPositionError",
    "InvalidSettingsError",
    "LegalPlays",
    "Match",
    "Move",
    "NotationError",
    "Outcome",
    "Phase",
    "Play",
    "Position",
    "PositionStatus",
    "ResultKind",
    "Roll",
    "Turn",
    "Xgid",
    "apply_play",
    "commitment",
    "dice_from_secrets",
    "format_play",
    "legal_moves",
    "legal_plays",
    "outcome",
    "parse_play",
]
