"""Positions set up by hand or from an ID: read, check, describe, play from, and the IDs of a
game in progress.

A *setup* is what the page's position editor holds (:class:`SetupJSON`): the checkers (the
engine's 26 slots and each side's borne-off checkers, counted explicitly so that a side that
does not add up to 15 is refused, not silently completed), the side on roll, the dice (or
none), the cube, the match length and score, the Crawford flag. In the engine it is an
:class:`~backgammon.core.xgid.Xgid`, which also gives the three IDs: GNU Backgammon's Position
ID and Match ID, and eXtreme Gammon's XGID.

* :func:`read_ids`: a Position ID, a Position ID with a Match ID (``PID:MID``), or an XGID.
* :func:`check_setup`: the editor's setup, checked, every refusal a sentence naming the
  problem (``"Black has 14 checkers (13 on the points, 1 on the bar): each side has 15"``).
* :func:`setup_match`: a :class:`~backgammon.core.match.Match` picked up at the setup (its dice
  already thrown, its double already offered, when the setup says so).
* :func:`game_xgid`, :func:`ids_json`: the IDs of the game being played.
* :func:`setup_hint`: the computer's advice in the setup: the plays of the roll, best first,
  or its cube decision before the roll.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from typing_extensions import TypedDict

from backgammon.core.errors import BackgammonError, InvalidIdError
from backgammon.core.game import Phase
from backgammon.core.match import Match, MatchSetup
from backgammon.core.position import GAME_OVER_TEXT, Position, outcome
from backgammon.core.text import board_text
from backgammon.core.types import BLACK, CHECKERS_PER_SIDE, SLOTS, WHITE, Color
from backgammon.core.xgid import Xgid, looks_like_xgid
from backgammon.services.state import BoardJSON, ColorName, IdsJSON

__all__ = [
    "MAX_SETUP_CUBE",
    "MAX_SETUP_LENGTH",
    "HintJSON",
    "IdsJSON",
    "SetupError",
    "SetupInfoJSON",
    "SetupJSON",
    "check_setup",
    "game_xgid",
    "ids_json",
    "read_ids",
    "setup_hint",
    "setup_info",
    "setup_json",
    "setup_match",
]

#: The longest match a setup may be played in (the page's New game offers the same).
MAX_SETUP_LENGTH: Final = 25
#: The highest cube the editor offers.
MAX_SETUP_CUBE: Final = 64
#: How many plays a hint lists.
HINT_PLAYS: Final = 5


class SetupError(BackgammonError, ValueError):
    """A setup that cannot be played: the message says what is wrong, in words."""


class SetupCubeJSON(TypedDict):
    """The cube: ``value`` 1, 2, 4, ...; ``owner`` None when centred."""

    value: int
    owner: ColorName | None


class SetupJSON(TypedDict):
    """A position and its context, as the editor holds it.

    ``board`` the checkers (``off``: each side's borne-off checkers, so that a side's 15 are
    all accounted for); ``turn`` the side on roll; ``dice`` the roll, or None before it;
    ``cube``; ``doubled`` True when the side on roll has just doubled (the opponent to take or
    drop); ``match_length`` 0 for money play; ``score`` before this game; ``crawford`` this is
    the Crawford game; ``jacoby`` and ``beavers`` the money-play rules.
    """

    board: BoardJSON
    turn: ColorName
    dice: list[int] | None
    cube: SetupCubeJSON
    doubled: bool
    match_length: int
    score: dict[str, int]
    crawford: bool
    jacoby: bool
    beavers: bool


class SetupInfoJSON(TypedDict):
    """A checked setup: the setup, its IDs, the board as text, and a line saying who is on
    roll with what, the cube and the score."""

    setup: SetupJSON
    ids: IdsJSON
    text: str
    summary: str


class HintPlayJSON(TypedDict):
    """One play of a hint: its notation, its equity (EMG, the mover's view) and how far it is
    behind the best."""

    play: str
    equity: float
    behind: float


class HintJSON(TypedDict):
    """The computer's advice: ``kind`` ``"plays"`` (the roll's plays, best first) or
    ``"cube"`` (before the roll: its cube decision); ``text`` one sentence."""

    kind: Literal["plays", "cube"]
    text: str
    plays: list[HintPlayJSON]


def _color_name(color: Color) -> ColorName:
    return "white" if color is WHITE else "black"


# --------------------------------------------------------------------------------------------
# Reading and checking


def read_ids(text: str, turn: ColorName = "white") -> Xgid:
    """The setup of a Position ID (``turn`` on roll), a Position ID with its Match ID
    (``PID:MID``, or the two separated by a space), or an XGID.

    Raises:
        InvalidIdError: a malformed ID; the message names what is wrong.
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidIdError("paste a Position ID, a Position ID with its Match ID "
                             "(PID:MID), or an XGID")
    stripped = text.strip()
    if looks_like_xgid(stripped):
        return Xgid.parse(stripped)
    for separator in (":", " "):
        if separator in stripped:
            pid, _, mid = stripped.partition(separator)
            return Xgid.from_gnubg_ids(pid.strip(), mid.strip())
    return Xgid(position=Position.from_id(stripped, Color.parse(turn)))


def setup_json(xgid: Xgid) -> SetupJSON:
    """The editor's form of ``xgid``."""
    position = xgid.position
    return {
        "board": {"points": list(position.points),
                  "off": {"white": position.off[0], "black": position.off[1]}},
        "turn": _color_name(position.turn),
        "dice": None if xgid.dice is None else list(xgid.dice),
        "cube": {"value": xgid.cube_value,
                 "owner": None if xgid.cube_owner is None else _color_name(xgid.cube_owner)},
        "doubled": xgid.cube_action == "double",
        "match_length": xgid.match_length,
        "score": {"white": xgid.score[0], "black": xgid.score[1]},
        "crawford": xgid.crawford,
        "jacoby": xgid.jacoby,
        "beavers": xgid.beavers,
    }


def _counts(points: list[int], off: Mapping[str, Any], color: Color) -> tuple[int, int, int]:
    """(on the points, on the bar, borne off) for ``color``."""
    sign = 1 if color is WHITE else -1
    on_points = sum(max(0, sign * count) for count in points[1:25])
    bar = points[25] if color is WHITE else -points[0]
    return on_points, bar, int(off[_color_name(color)])


def _int(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SetupError(f"{what} must be a whole number from {low} to {high}, not {value!r}")
    return value


def check_setup(data: Mapping[str, Any]) -> Xgid:
    """The setup of the editor, checked.

    Raises:
        SetupError: the first thing that makes it unplayable, in words: a side without 15
            checkers, checkers of both sides on one point, a side with everything borne off,
            dice that are not two dice, a cube or score the match does not allow.
    """
    if not isinstance(data, Mapping):
        raise SetupError(f"a setup is an object, not {type(data).__name__}")
    board = data.get("board")
    if not isinstance(board, Mapping) or not isinstance(board.get("points"), list) or not (
        isinstance(board.get("off"), Mapping)
    ):
        raise SetupError("the setup has no board: {points: 26 numbers, off: {white, black}}")
    points = board["points"]
    if len(points) != SLOTS or any(isinstance(c, bool) or not isinstance(c, int)
                                   for c in points):
        raise SetupError(f"the board has {SLOTS} places (Black's bar, points 1 to 24, White's "
                         f"bar), each a whole number; got {points!r}")
    off = board["off"]
    for name in ("white", "black"):
        _int(off.get(name), f"{name.capitalize()}'s borne-off checkers", 0, CHECKERS_PER_SIDE)
    if points[25] < 0 or points[0] > 0:
        raise SetupError("a bar holds the other side's checkers: White's bar is for White, "
                         "Black's for Black")
    for color in (WHITE, BLACK):
        on_points, bar, borne = _counts(points, off, color)
        total = on_points + bar + borne
        name = str(color).capitalize()
        if total != CHECKERS_PER_SIDE:
            parts = [f"{on_points} on the points"]
            if bar:
                parts.append(f"{bar} on the bar")
            if borne:
                parts.append(f"{borne} borne off")
            raise SetupError(f"{name} has {total} checker{'s' if total != 1 else ''} "
                             f"({', '.join(parts)}): each side has {CHECKERS_PER_SIDE}")
        if borne == CHECKERS_PER_SIDE:
            raise SetupError(f"{name} has borne off all {CHECKERS_PER_SIDE} checkers: the "
                             "game is over")
    turn = data.get("turn")
    if turn not in ("white", "black"):
        raise SetupError(f"the side on roll is white or black, not {turn!r}")
    dice = data.get("dice")
    roll: tuple[int, int] | None = None
    if dice is not None:
        if not isinstance(dice, list) or len(dice) != 2:
            raise SetupError(f"the dice are two dice, or none before the roll; got {dice!r}")
        roll = (_int(dice[0], "a die", 1, 6), _int(dice[1], "a die", 1, 6))
    cube = data.get("cube")
    if not isinstance(cube, Mapping):
        raise SetupError("the setup has no cube: {value, owner}")
    value = _int(cube.get("value"), "the cube", 1, 1 << 15)
    if value & (value - 1):
        raise SetupError(f"the cube shows a power of two (1, 2, 4, ... 32768), not {value}")
    owner = cube.get("owner")
    if owner not in (None, "white", "black"):
        raise SetupError(f"the cube's owner is white, black or none (centred), not {owner!r}")
    length = _int(data.get("match_length", 0), "the match length", 0, MAX_SETUP_LENGTH)
    score = data.get("score", {"white": 0, "black": 0})
    if not isinstance(score, Mapping) or set(score) != {"white", "black"}:
        raise SetupError(f"the score is {{white, black}}, both given; got {score!r}")
    limit = max(length - 1, 0) if length else 10_000
    white_score = _int(score.get("white", 0), "White's score", 0, limit)
    black_score = _int(score.get("black", 0), "Black's score", 0, limit)
    for flag in ("crawford", "doubled", "jacoby", "beavers"):
        if not isinstance(data.get(flag, False), bool):
            raise SetupError(f"{flag} is true or false, not {data[flag]!r}")
    crawford = data.get("crawford", False) is True
    doubled = data.get("doubled", False) is True
    if doubled and roll is not None:
        raise SetupError("a double is offered before the roll: no dice with a double pending")
    on_roll = Color.parse(turn)
    try:
        position = Position.from_points(points, on_roll)
        return Xgid(position=position, cube_value=value,
                    cube_owner=None if owner is None else Color.parse(owner),
                    cube_action="double" if doubled else None, dice=roll,
                    score=(white_score, black_score), match_length=length,
                    crawford=crawford, jacoby=not length and data.get("jacoby") is True,
                    beavers=not length and data.get("beavers") is True,
                    max_cube=max(1024, value * 2))
    except InvalidIdError as exc:
        raise SetupError(_plain(str(exc))) from None
    except BackgammonError as exc:
        raise SetupError(str(exc)) from None


def _plain(message: str) -> str:
    """An XGID's complaint in the editor's words (no field numbers)."""
    text = message.removeprefix("not an XGID: ")
    for prefix in ("field 2 (cube): ", "field 3 (cube owner): ", "field 5 (dice): ",
                   "fields 6 and 7 (score): ", "field 8 (Crawford): ",
                   "field 8 (Jacoby/beavers): ", "fields 2 and 5 (cube, dice): ",
                   "field 9 (match length): ", "field 10 (maximum cube): ",
                   "fields 2 and 3 (cube, owner): "):
        text = text.removeprefix(prefix)
    text = text.replace(" (field 3)", "").replace(" (field 10)", "")
    text = text.replace(" (field 8; money play only)", " (money play only)")
    return text[:1].upper() + text[1:]


def _summary(xgid: Xgid) -> str:
    position = xgid.position
    who = str(position.turn).capitalize()
    if xgid.cube_action is not None:
        doing = f"{who} has doubled to {xgid.cube_value * 2}"
    elif xgid.dice is not None:
        doing = f"{who} to play {xgid.dice[0]}-{xgid.dice[1]}"
    else:
        doing = f"{who} to roll"
    cube = f"cube {xgid.cube_value}"
    if xgid.cube_owner is not None:
        cube += f" owned by {str(xgid.cube_owner).capitalize()}"
    if xgid.match_length:
        score = (f"{xgid.match_length}-point match at {xgid.score[0]}-{xgid.score[1]}"
                 + (", Crawford game" if xgid.crawford else ""))
    else:
        score = "money play"
    return f"{doing}; {cube}; {score}"


def ids_of(xgid: Xgid) -> IdsJSON:
    """The three IDs of ``xgid``."""
    try:
        match_id: str | None = xgid.match_id()
    except InvalidIdError:
        match_id = None
    return {"position_id": xgid.position_id(), "match_id": match_id, "xgid": str(xgid)}


def setup_info(xgid: Xgid) -> SetupInfoJSON:
    """What the page shows of a checked setup."""
    return {"setup": setup_json(xgid), "ids": ids_of(xgid),
            "text": board_text(xgid.position), "summary": _summary(xgid)}


# --------------------------------------------------------------------------------------------
# Playing from a setup


def setup_match(xgid: Xgid, *, cube: bool = True, gammons: bool = True,
                names: tuple[str, str] = ("White", "Black"), dice: Any = None,
                seed: int | None = None) -> Match:
    """A match (or money game) picked up at ``xgid``: the first game starts there with its
    cube and score; its dice are thrown, or its double offered, when the setup says so.

    Args:
        xgid: the checked setup.
        cube: play with the doubling cube (it must be, with a cube turned or a double
            pending).
        gammons: count gammons and backgammons (see :class:`~backgammon.core.match.Match`).
        names: the players, ``(white, black)``.
        dice: the dice for the rest of the match (a ``Dice``); default: as :class:`Match`.
        seed: the match's seed (its dice are then ``Dice(random.Random(seed))`` unless
            ``dice`` is given); the dice of the setup itself are recorded as given.

    Raises:
        SetupError: the cube is turned (or a double pending) in a game without the cube, or a
            pending double the rules do not allow (the cube is dead, ...).
    """
    turned = xgid.cube_value != 1 or xgid.cube_owner is not None
    if not cube and (turned or xgid.cube_action is not None):
        raise SetupError("the cube is in play in this position: play it with the doubling "
                         "cube")
    if outcome(xgid.position) is not None:
        raise SetupError(GAME_OVER_TEXT)
    setup = MatchSetup(xgid.position, xgid.score, xgid.crawford, xgid.cube_value,
                       xgid.cube_owner)
    try:
        match = Match(xgid.match_length, cube=cube, gammons=gammons, jacoby=xgid.jacoby,
                      beavers=xgid.beavers, names=names, dice=dice, seed=seed, setup=setup)
        game = match.current
        if xgid.cube_action is not None:
            game.double()
            if xgid.cube_action in ("beaver", "raccoon"):
                game.beaver()
            if xgid.cube_action == "raccoon":
                game.raccoon()
        elif xgid.dice is not None:
            game.roll(dice=xgid.dice)
    except BackgammonError as exc:
        raise SetupError(str(exc)) from None
    return match


def game_xgid(match: Match) -> Xgid:
    """The XGID of the current game as it stands: the position at the start of the turn
    (before the moves made so far), the player on roll, the dice thrown, the cube (a double
    pending), the score before the game. Before the opening roll: the starting position,
    White on roll."""
    game = match.current
    settings = game.settings
    on_roll = game.on_roll or WHITE
    position = game.turn_start
    if position.turn is not on_roll:
        position = position.with_turn(on_roll)
    dice = None
    if game.phase is Phase.MOVE and game.dice is not None:
        dice = (max(game.dice), min(game.dice))
    cube_value, cube_owner = game.cube_value, game.cube_owner
    offer = game.cube_offer
    if offer in ("beaver", "raccoon"):
        # an XGID writes the cube as it was before the double, with B or R for the animals
        double = next(turn for turn in reversed(game.history) if turn.action == "double")
        cube_value, cube_owner = double.cube_value, double.cube_owner
    return Xgid(
        position=position,
        cube_value=cube_value,
        cube_owner=cube_owner,
        cube_action=offer,
        dice=dice,
        score=settings.score if settings.match_length else (0, 0),
        match_length=settings.match_length,
        crawford=settings.crawford,
        jacoby=settings.jacoby,
        beavers=settings.beavers,
        max_cube=max(1024, game.cube_value * 2),
    )


def ids_json(match: Match) -> IdsJSON | None:
    """The IDs of the current game (:func:`game_xgid`); None when they cannot be written (a
    position the XGID cannot hold)."""
    try:
        return ids_of(game_xgid(match))
    except BackgammonError:
        return None


def setup_hint(xgid: Xgid, answer: Mapping[str, Any]) -> HintJSON:
    """The computer's advice in the setup, in words: ``answer`` is
    :func:`~backgammon.services.analysis_jobs.position_evaluation` of ``xgid`` (at Expert, as
    the game's hints and the analysis). With the dice, the plays best first with their equity
    (EMG: money equity for a cube of 1, or match-winning chances converted at the score);
    before the roll, whether to double (and how to answer); with a double pending, how to
    answer it. The caller evaluates, so this module stays below the AI's services.
    """
    who = str(xgid.position.turn).capitalize()
    other = str(xgid.position.turn.opponent).capitalize()
    if answer["kind"] == "plays":
        roll = f"{max(answer['dice'])}-{min(answer['dice'])}"
        if not answer["plays"]:
            return {"kind": "plays", "text": f"{who} cannot play {roll}: the turn passes.",
                    "plays": []}
        plays: list[HintPlayJSON] = [
            {"play": p["play"], "equity": p["equity"], "behind": round(-p["diff"], 3) + 0.0}
            for p in answer["plays"][:HINT_PLAYS]]
        return {"kind": "plays", "plays": plays,
                "text": f"Best for {who} with {roll}: {plays[0]['play']}"}
    if answer["kind"] == "none":
        return {"kind": "cube", "plays": [],
                "text": f"{who} cannot double ({answer.get('reason') or 'no cube'}): roll."}
    action, response = answer["action"], answer["response"]
    if answer["kind"] == "take":
        text = f"{other} should {answer['action']} (the proper cube action: {answer['text']})."
    elif action == "double":
        text = f"{who} should double, and {other} should {response}."
    elif action == "too good":
        text = f"{who} is too good to double: play on for more (a double would be a " \
               f"{response})."
    else:
        text = f"{who} should not double yet (a double would be a {response}): roll."
    return {"kind": "cube", "text": text, "plays": []}
