"""Every sentence a player reads about the game flow, for both doors (local and online play).

The page draws what the server says: the status line, the result, the move list, the notes
after the computer's or the opponent's action. Both :mod:`backgammon.services.session` (local
play) and :mod:`backgammon.adapter` (backgammon at the table's doors, online rooms included)
take their words from here, so a roll reads ``"4-1"`` (the higher die first, as players say
it) and a result reads the same in both.

Who is named how is the caller's choice, through a :class:`Names`: ``"You"`` for the person at
this screen, ``"The computer"``, a remote player's name, or ``"White"``/``"Black"`` when two
people share one screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from backgammon.core.game import Game, Phase, Turn
from backgammon.core.types import BLACK, WHITE, Color

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


#: What a resignation offers, as the move list says it.
_RESIGNED: Final = {"single": "a single game", "gammon": "a gammon",
                    "backgammon": "a backgammon"}


def turn_text(turn: Turn, names: tuple[str, str] = ("White", "Black")) -> str:
    """A line of the move list: ``"White 3-1: 8/5 6/5"``, ``"Black doubles to 2"``,
    ``"White 6-5: cannot move"``, ``"You 5-2: resign a gammon"`` (a resignation after rolling
    keeps its roll); ``names`` are (White's, Black's)."""
    name = names[0] if turn.color is WHITE else names[1]
    if turn.action == "move" and turn.dice is not None:
        return f"{name} {roll_text(turn.dice)}: {turn.text or 'cannot move'}"
    text = (turn.text.replace("Doubles =>", "doubles to").replace("Beavers =>", "beavers to")
            .replace("Raccoons =>", "raccoons to"))
    verb, _, rest = text.partition(" ")
    verb = verb.lower()
    if verb == "resigns":  # "Resigns gammon": what is offered, in words
        rest = _RESIGNED.get(rest, rest)
    if name == "You" and verb.endswith("s"):  # "You double to 2", "You take"
        verb = verb[:-1]
    rolled = f" {roll_text(turn.dice)}:" if turn.dice is not None else ""
    return f"{name}{rolled} {verb}{' ' + rest if rest else ''}"


@dataclass(frozen=True, slots=True)
class Names:
    """How the sentences name each side.

    Attributes:
        white: White as the subject of a sentence: ``"You"``, ``"The computer"``, a remote
            player's name, or ``"White"`` when two people share the screen.
        black: the same for Black.
        me: the side of the person at this screen when one person plays it (against the
            computer, or online); None when two people share the screen.
        computer: the side the computer plays, or None.
    """

    white: str = "White"
    black: str = "Black"
    me: Color | None = None
    computer: Color | None = None

    def subject(self, color: Color | None) -> str:
        """``color`` as the subject of a sentence (``"Nobody"`` for None)."""
        if color is None:
            return "Nobody"
        return self.white if color is WHITE else self.black

    def object(self, color: Color) -> str:
        """``color`` as the object of a sentence: ``"you"``, ``"the computer"``, ``"Ann"``."""
        text = self.subject(color)
        return text.lower() if text in ("You", "The computer") else text

    def label(self, color: Color) -> str:
        """``color`` as a label in a list (the move list, the opening roll, a running total):
        ``"Computer"`` for the computer's side, else as :meth:`subject`."""
        if self.computer is not None and color is self.computer:
            return "Computer"
        return self.subject(color)

    def is_me(self, color: Color | None) -> bool:
        """Whether ``color`` is the side of the one person at this screen."""
        return self.me is not None and color is self.me

    def remote(self, color: Color | None) -> bool:
        """Whether ``color`` is a person at another screen (online play's opponent)."""
        return (self.me is not None and color is not None and color is not self.me
                and color is not self.computer)

    def wins(self, color: Color) -> str:
        """``"You win"``, ``"The computer wins"``, ``"Ann wins"``."""
        subject = self.subject(color)
        return f"{subject} win" if subject == "You" else f"{subject} wins"


def was(name: str) -> str:
    """``name`` and the past of "to be" that agrees with it: ``"You were"``, ``"you were"``,
    ``"Ann was"``."""
    return f"{name} were" if name.lower() == "you" else f"{name} was"


def score_text(kind: str, length: int, game_number: int, *, crawford: bool, cube: bool,
               gammons: bool) -> str:
    """The scoreboard's caption: ``"Match to 5 points · game 2 · Crawford game"``.

    Args:
        kind: ``"single"``, ``"match"`` or ``"money"``.
        length: the match length in points (a match).
        game_number: the game being played, from 1.
        crawford: this is the Crawford game.
        cube: the game is played with the cube.
        gammons: gammons and backgammons count.
    """
    if kind == "match":
        text = f"Match to {points_text(length)} · game {game_number}"
        if crawford:
            text += " · Crawford game"
    elif kind == "money":
        text = f"Money session · game {game_number}"
    else:
        text = "Single game"
    if not cube:
        text += " · no cube"
    if not gammons:
        text += " · gammons off"
    return text


def result_text(names: Names, *, winner: Color, loser: Color, kind: str, reason: str,
                points: int, gammons: bool, abandoned_after: float | None = None,
                forfeit: str | None = None) -> str:
    """The result in a sentence: ``"You win a gammon (2 points)."``.

    Args:
        names: how the sides are named.
        winner: the side that won; ``loser`` the other.
        kind: ``"single"``, ``"gammon"`` or ``"backgammon"``.
        reason: ``"board"``, ``"drop"``, ``"resign"``, ``"timeout"`` or ``"forfeit"``.
        points: what the game scored.
        gammons: whether gammons count in this game.
        abandoned_after: the seconds of silence after which the game was claimed as
            abandoned (online), or None.
        forfeit: why the loser forfeited, in words (``"Bob left the game"``), or None.
    """
    subject = names.wins(winner)
    worth = points_text(points)
    if reason == "forfeit":
        why = f": {forfeit}" if forfeit else ""
        return f"{subject} {worth} by forfeit{why}."
    if abandoned_after is not None:
        text = (f"{subject} {RESULT_WORDS[kind]} ({worth}): {was(names.object(loser))} "
                f"silent for {abandoned_after:g} s and the game was claimed as abandoned.")
    elif reason == "drop":
        text = f"{subject}: the double was dropped ({worth})."
    elif reason == "resign":
        text = f"{subject} {RESULT_WORDS[kind]} by resignation ({worth})."
    elif reason == "timeout":
        text = (f"{subject} {RESULT_WORDS[kind]} on time ({worth}): "
                f"{names.object(loser)} ran out of time.")
    else:
        text = f"{subject} {RESULT_WORDS[kind]} ({worth})."
    if kind != "single" and reason != "drop" and not gammons:
        text += " Gammons are off: every win scores a single game."
    return text


def status_text(game: Game, names: Names, *, legal_now: bool, opening: dict[str, int] | None,
                passed: tuple[Color, tuple[int, int], str | None] | None) -> str:
    """The status line while a game is on: whose turn, what to do.

    Args:
        game: the game (not over).
        names: how the sides are named.
        legal_now: whether a checker can still move this turn (the move phase).
        opening: the opening roll's dice while the first play is made, or None.
        passed: the roll that could not be played just before (who, dice, why or None).
    """
    phase = game.phase
    if phase is Phase.OPENING:
        return "Roll to start: each side throws one die, the higher die moves first."
    on_roll = game.on_roll
    if phase is Phase.ROLL:
        before = ""
        if passed is not None:
            who, dice, why = passed
            before = (f"{names.subject(who)} rolled {roll_text(dice)} "
                      f"and cannot move{': ' + why if why else ''}. ")
        if names.computer is not None and on_roll is names.computer:
            return f"{before}The computer is on roll."
        double = " or double" if game.can_double() else ""
        if names.is_me(on_roll):
            return f"{before}Your turn: roll{double}."
        return f"{before}{names.subject(on_roll)} to roll{double}."
    if phase is Phase.DOUBLE_OFFERED:
        assert on_roll is not None and game.turn is not None
        # the side that must answer, and the side whose double (beaver, raccoon) it answers
        answerer = game.turn
        doubler = answerer.opponent
        offered = game.cube_value * 2
        verb = {"beaver": "beaver", "raccoon": "raccoon"}.get(game.cube_offer or "", "double")
        options = "take, drop or raccoon" if game.can_raccoon() else "take or drop"
        if names.is_me(answerer):
            return f"{names.subject(doubler)} {verb}s to {offered}: {options}?"
        if names.is_me(doubler) and answerer is names.computer:
            return f"You {verb} to {offered}: the computer is thinking."
        if names.is_me(doubler):
            return (f"You {verb} to {offered}: waiting for {names.object(answerer)} to "
                    f"{options}.")
        return (f"{names.subject(doubler)} {verb}s to {offered}: {names.subject(answerer)}, "
                f"{options}?")
    if phase is Phase.MOVE:
        thrown = game.dice
        assert thrown is not None
        rolled = roll_text(thrown)
        start = ""
        if opening is not None:
            start = (f"Opening roll: {names.label(WHITE)} {opening['white']}, "
                     f"{names.label(BLACK)} {opening['black']}. ")
            if names.computer is None:
                start = f"Opening roll: White {opening['white']}, Black {opening['black']}. "
        if names.computer is not None and on_roll is names.computer:
            return f"{start}The computer plays {rolled}."
        if names.remote(on_roll):
            return f"{start}{names.subject(on_roll)} is playing {rolled}."
        subject = names.subject(on_roll)
        if not legal_now:
            return f"{start}{subject} played {rolled}: press Done (or Undo)."
        if game.played:  # part of the roll is played: what is left
            plays = "play" if subject == "You" else "plays"
            left = game.dice_left
            if thrown[0] == thrown[1]:
                rest = f"move a checker ({len(left)} of the 4 dice left)"
            else:
                rest = f"move a checker with the {left[0]}"
            return f"{start}{subject} {plays} {rolled}: {rest}."
        verb = "rolled" if not start else ("start with" if subject == "You" else "starts with")
        return f"{start}{subject} {verb} {rolled}: move a checker."
    if phase is Phase.RESIGNATION_OFFERED:
        offer = game.resignation
        assert offer is not None
        resigner, answerer = offer[0], offer[0].opponent
        words = RESULT_WORDS[KIND_NAMES[int(offer[1])]]
        if names.is_me(resigner) and answerer is names.computer:
            return f"You offer to resign {words}: the computer is thinking."
        if names.is_me(resigner):
            return f"You offer to resign {words}: waiting for {names.object(answerer)}'s answer."
        if names.is_me(answerer):
            return f"{names.subject(resigner)} offers to resign {words}: accept or decline?"
        return f"{names.subject(resigner)} offers to resign {words}."
    return f"{names.subject(game.turn)} to act."


#: What the page says while it plays back the computer's turn, step by step, and in the
#: summary after it (local play): ``{field}`` filled by :func:`computer_says`.
COMPUTER_WORDS: Final = {
    "take": "The computer takes: the cube is at {cube}, the computer owns it",
    "beaver": ("The computer beavers: it takes and redoubles to {cube}, keeping the cube: "
               "take or drop?"),
    "take_beaver": "The computer takes the beaver: the cube is at {cube}, you own it",
    "raccoon": ("The computer raccoons your beaver: it redoubles to {cube}, and you keep the "
                "cube: take or drop?"),
    "take_raccoon": "The computer takes the raccoon: the cube is at {cube}, the computer owns it",
    "drop": "The computer drops: you win the game",
    "accept": "The computer accepts your resignation: it wins {level}",
    "decline": "The computer declines your resignation ({level}): play on",
    "double": "The computer doubles to {cube}: take or drop?",
    "roll": "The computer rolls {dice}",
    "pass": "The computer rolls {dice} and cannot move",
    "move": "The computer plays {move}",
    "play": "The computer plays {dice}: {play}",
    "timeout": "The computer ran out of time",
    "you_passed": "You rolled {dice} and cannot move{why}",
    "you_cannot_move": "You cannot move",
}


def computer_says(kind: str, **fields: object) -> str:
    """One of :data:`COMPUTER_WORDS` with its fields filled.

    Raises:
        KeyError: an unknown kind or a missing field (a bug, not bad input).
    """
    return COMPUTER_WORDS[kind].format(**fields)


__all__ = [
    "COMPUTER_WORDS",
    "KIND_NAMES",
    "RESULT_WORDS",
    "Names",
    "computer_says",
    "points_text",
    "result_text",
    "roll_text",
    "score_text",
    "status_text",
    "title",
    "turn_text",
    "was",
]
