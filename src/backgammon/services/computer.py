"""The computer's decisions, as the game service asks for them.

The service needs four answers for the side the computer plays: which play to make, whether to
double before rolling, how to answer a double (take, drop or beaver; a beaver of its own
double: take, drop or raccoon; a raccoon of its beaver: take or drop), and whether to accept
the person's resignation.
:class:`backgammon.ai.ComputerPlayer` gives all four, its cube answers from the one cube
decision the hints show (:func:`backgammon.ai.player.cube_advice`); :func:`computer_player`
builds it for a level. :class:`RandomPlayer` is a stand-in for tests.
"""

from __future__ import annotations

import random
from typing import Final, Literal, Protocol

from backgammon.core.game import Game
from backgammon.core.moves import Play

#: The levels the page offers.
LEVELS: Final = ("easy", "medium", "hard", "expert", "master")


class ComputerPlayer(Protocol):
    """What the game service asks the computer (all of it on the game as it stands)."""

    def choose_play(self, game: Game) -> Play:
        """The play to make with the dice thrown (``game`` in the ``MOVE`` phase, at least
        one legal play)."""
        ...

    def should_double(self, game: Game) -> bool:
        """Whether to offer a double now (``game`` in the ``ROLL`` phase, doubling allowed)."""
        ...

    def answer_double(self, game: Game) -> Literal["take", "drop", "beaver", "raccoon"]:
        """The answer to the double offered (``game`` in the ``DOUBLE_OFFERED`` phase):
        ``"beaver"`` only to a plain double where the game allows it (``game.can_beaver()``),
        ``"raccoon"`` only to a beaver (``game.can_raccoon()``)."""
        ...

    def accept_resign(self, game: Game) -> bool:
        """Whether to accept the resignation offered (``RESIGNATION_OFFERED`` phase)."""
        ...


class RandomPlayer:
    """A legal play at random; never doubles; always takes and accepts. For tests.

    Args:
        rng: the generator (injected; tests seed it).
    """

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose_play(self, game: Game) -> Play:
        return self._rng.choice(list(game.legal_plays()))

    def should_double(self, game: Game) -> bool:
        return False

    def answer_double(self, game: Game) -> Literal["take", "drop", "beaver", "raccoon"]:
        return "take"

    def accept_resign(self, game: Game) -> bool:
        return True


def computer_player(level: str, rng: random.Random) -> ComputerPlayer:
    """The computer at ``level`` (``"easy"``, ``"medium"``, ``"hard"``, ``"expert"``,
    ``"master"``): the AI package's :class:`~backgammon.ai.ComputerPlayer`, drawing its
    randomness from ``rng``.

    Raises:
        ValueError: an unknown level, quoted.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: expected one of {', '.join(LEVELS)}")
    # Imported here: the AI loads numpy and its tables, which only a game against the
    # computer needs.
    from backgammon.ai import ComputerPlayer as AIPlayer

    player: ComputerPlayer = AIPlayer(level, rng)
    return player


__all__ = ["LEVELS", "ComputerPlayer", "RandomPlayer", "computer_player"]
