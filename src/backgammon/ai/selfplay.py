"""Games between two players, for benchmarks, the ``selfplay`` command and training data.

:func:`play_game` drives one :class:`~backgammon.core.game.Game` through the
:class:`~backgammon.ai.player.Player` protocol (plus resignations for players that offer
them), so every play and cube action goes through the game's own rules.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from backgammon.ai.cube import CubeAction
from backgammon.ai.features import Board
from backgammon.ai.player import ComputerPlayer
from backgammon.core.dice import Dice
from backgammon.core.game import Game, GameOutcome, GameSettings, Phase
from backgammon.core.types import BLACK, WHITE, Color

#: A game stops with an error past this many actions (no real game comes close).
_MAX_ACTIONS = 5000


@dataclass
class GameResult:
    """How one game went.

    Attributes:
        outcome: the game's outcome (winner, kind, points, result kind).
        turns: plays made (both sides; passes not counted).
        boards: when recorded, each play's result in the mover's own numbering, with the
            mover: the positions a win-probability model learns from.
        game: the finished game (its event log replays it).
    """

    outcome: GameOutcome
    turns: int
    boards: list[tuple[Board, Color]] = field(default_factory=list)
    game: Game | None = None


def play_game(
    players: Mapping[Color, ComputerPlayer],
    settings: GameSettings | None = None,
    rng: random.Random | None = None,
    *,
    record: bool = False,
    on_turn: Callable[[Game], None] | None = None,
) -> GameResult:
    """Play one game to the end.

    Args:
        players: the player for ``WHITE`` and for ``BLACK``.
        settings: the game's rules (cube, match score, ...); default: no cube, money.
        rng: where the dice come from (``Dice(rng)``); None: a fresh ``random.Random()``.
        record: keep each play's resulting board (:attr:`GameResult.boards`).
        on_turn: called after every play (e.g. to advance a progress display).

    Raises:
        RuntimeError: the game did not end within a very large number of actions (a bug).
    """
    game = Game(settings or GameSettings(), dice=Dice(rng if rng is not None else random.Random()))
    boards: list[tuple[Board, Color]] = []
    turns = 0
    for _ in range(_MAX_ACTIONS):
        phase = game.phase
        if phase is Phase.OVER:
            break
        if phase is Phase.OPENING:
            game.roll()
        elif phase is Phase.ROLL:
            color = game.turn
            assert color is not None
            player = players[color]
            kind = player.resign_action(game)
            if kind is not None:
                game.resign(color, kind)
                continue
            if game.can_double() and player.cube_action(game) is CubeAction.DOUBLE:
                game.double()
            else:
                game.roll()
        elif phase is Phase.MOVE:
            color = game.turn
            assert color is not None
            play = players[color].choose_play(game)
            game.play(play)
            turns += 1
            if record:
                boards.append((play.result.own_points(color), color))
            if on_turn is not None:
                on_turn(game)
        elif phase is Phase.DOUBLE_OFFERED:
            color = game.turn
            assert color is not None
            action = players[color].cube_action(game)
            if action is CubeAction.DROP:
                game.drop()
            elif action is CubeAction.BEAVER:
                game.beaver()
            else:
                game.take()
        elif phase is Phase.RESIGNATION_OFFERED:
            color = game.turn
            assert color is not None
            if players[color].accept_resign(game):
                game.accept_resignation()
            else:
                game.decline_resignation()
    else:
        raise RuntimeError(f"the game did not end within {_MAX_ACTIONS} actions")
    assert game.outcome is not None
    return GameResult(game.outcome, turns, boards, game)


@dataclass
class SeriesResult:
    """The totals of a series of games between two players, from the first player's view.

    Attributes:
        games: games played.
        wins: games the first player won.
        points: points won minus points lost by the first player.
        gammons: games won or lost by a gammon or backgammon (either side).
    """

    games: int = 0
    wins: int = 0
    points: int = 0
    gammons: int = 0

    @property
    def win_rate(self) -> float:
        """Share of games the first player won (0 when none played)."""
        return self.wins / self.games if self.games else 0.0

    def interval(self) -> tuple[float, float]:
        """95% confidence interval of the win rate (Wilson score interval)."""
        n = self.games
        if n == 0:
            return (0.0, 1.0)
        z = 1.959963984540054
        p = self.wins / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
        return (max(0.0, centre - half), min(1.0, centre + half))

    @property
    def points_per_game(self) -> float:
        """Average points won per game by the first player."""
        return self.points / self.games if self.games else 0.0


def play_series(
    first: str,
    second: str,
    games: int,
    seed: int = 0,
    *,
    cube: bool = False,
    on_game: Callable[[int, GameResult], None] | None = None,
) -> SeriesResult:
    """Play ``games`` seeded games between two levels, the first level taking White in even
    games and Black in odd ones.

    Game i uses dice from ``random.Random(seed * 1_000_003 + i)`` and players seeded from it,
    so a series is reproducible and a game can be replayed alone.

    Args:
        first, second: level names.
        games: how many games.
        seed: the series' seed.
        cube: play with the doubling cube (money play).
        on_game: called with (game index, result) after each game.
    """
    total = SeriesResult()
    for i in range(games):
        base = seed * 1_000_003 + i
        first_color = WHITE if i % 2 == 0 else BLACK
        players = {
            first_color: ComputerPlayer(first, random.Random(base * 2 + 1)),
            first_color.opponent: ComputerPlayer(second, random.Random(base * 2 + 2)),
        }
        result = play_game(players, GameSettings(cube=cube), random.Random(base))
        outcome = result.outcome
        won = outcome.winner is first_color
        total.games += 1
        total.wins += won
        total.points += outcome.points if won else -outcome.points
        total.gammons += int(outcome.result_kind) > 1 and outcome.kind != "drop"
        if on_game is not None:
            on_game(i, result)
    return total


__all__ = ["GameResult", "SeriesResult", "play_game", "play_series"]
