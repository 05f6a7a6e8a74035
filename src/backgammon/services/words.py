"""Every sentence a player reads about the game flow, for both doors (local and online play).

The page draws what the server says: the status line, the result, the move list, the notes
after the computer's or the opponent's action. Both :mod:`backgammon.services.session` (local
play) and :mod:`backgammon.services.online.rooms` (online play) take their words from here, so
a roll reads ``"4-1"`` (the higher die first, as players say it) and a result reads the same in
both.

Who is named how is the caller's choice, through a :class:`Names`: ``"You"`` for the person at
this screen, ``"The computer"``, a remote player's name, or ``"White"``/``"Black"`` when two
people share one screen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from backgammon.core.game import Turn
from backgammon.core.types import WHITE, Color

#: The result kinds in words, by the engine's ``ResultKind`` value (1, 2, 3).
KIND_NAMES: Final = {1: "single", 2: "gammon", 3: "backgammon"}
#: What a result kind is called in a sentence.
RESULT_WORDS: Final = {"single": "a single game", "gammon": "a gammon",
                       "backgammon": "a backgammon"}


def title(color: Color | None) -> str:
    """``"White"`` or ``"Black"``."""
    return "White" if color is WHITE else "Black"


def roll_text(dice: tuple[int, int]) -> str:
    """A roll as players say it, the higher die first: ``"5-1"``."""
    return f"{max(dice)}-{min(dice)}"


def points_text(points: int) -> str:
    """``"1 point"``, ``"2 points"``."""
    return f"{points} point{'s' if points != 1 else ''}"


def turn_text(turn: Turn, names: tuple[str, str] = ("White", "Black")) -> str:
    """A line of the move list: ``"White 3-1: 8/5 6/5"``, ``"Black doubles to 2"``; ``names``
    are (White's, Black's)."""
    name = names[0] if turn.color is WHITE else names[1]
    if turn.action == "move" and turn.dice is not None:
        return f"{name} {roll_text(turn.dice)}: {turn.text or 'cannot move'}"
    text = turn.text.replace("Doubles =>", "doubles to").replace("Beavers =>", "beavers to")
    return f"{name} {text[:1].lower()}{text[1:]}"


@dataclass(frozen=True, slots=True)
class Names:
    """How a sentence names each side.

    Attributes:
        subject: the side as the subject of a sentence (``"You"``, ``"The computer"``,
            ``"Ann"``, ``"White"``), by colour.
        me: the side whose page this is (its sentences say "you"), or None when two people
            share the screen.
    """

    subject: Callable[[Color], str]
    me: Color | None = None

    def object(self, color: Color) -> str:
        """The side as the object of a sentence: ``"you"``, ``"the computer"``, ``"Ann"``."""
        text = self.subject(color)
        return text.lower() if text in ("You", "The computer") else text


__all__ = ["KIND_NAMES", "RESULT_WORDS", "Names", "points_text", "roll_text", "title",
           "turn_text"]
