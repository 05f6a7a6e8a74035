"""eXtreme Gammon's XGID: a position and its match context in one line of text.

Source: eXtreme Gammon's description of the XGID (the line XG copies with a position, also
read by GNU Backgammon's ``set xgid``), checked against GNU Backgammon 1.07: the tests give
gnubg our XGIDs and compare the Position ID and Match ID it derives.

``XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10`` has ten fields separated by colons:

1. the board, 26 characters: the first is the top player's bar, then points 1 to 24 numbered
   from the bottom player's side, then the bottom player's bar; ``-`` is an empty point,
   ``A``..``P`` 1 to 16 of the bottom player's checkers, ``a``..``p`` the top player's. The
   bottom player (upper case) is White in this project, so the characters are the 26 slots of
   DESIGN.md's board in order (slot 0 Black's bar, slot 25 White's).
2. the cube, as the power of two: ``0`` for 1, ``1`` for 2, ...
3. who owns the cube: ``1`` the bottom player (White), ``-1`` the top (Black), ``0`` centred.
4. the player on roll: ``1`` White, ``-1`` Black. While a double is pending this is the doubler.
5. the dice: ``00`` not rolled yet; two digits the roll; ``D`` the player on roll has doubled
   (the opponent takes or drops); ``B`` the double was beavered; ``R`` raccooned.
6. White's score; 7. Black's score.
8. in a match ``1`` for the Crawford game, else ``0``; in money play the Jacoby rule (1) plus
   beavers (2).
9. the match length, ``0`` for money play.
10. the highest cube allowed, as the power of two (``10``: 1024).

Player 0 of a GNU Backgammon Match ID is White here (:mod:`backgammon.core.ids`); GNU
Backgammon's own ``set xgid`` makes the player on roll its player 1 instead, so its Match ID
for the same XGID has the two players swapped when White is on roll.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from backgammon.core.errors import InvalidIdError, InvalidPositionError
from backgammon.core.ids import (
    MatchState,
    color_to_player,
    decode_match_id,
    encode_match_id,
    player_to_color,
)
from backgammon.core.position import Position
from backgammon.core.types import BLACK, CHECKERS_PER_SIDE, SLOTS, WHITE, Color, Roll

__all__ = ["CUBE_ACTIONS", "XGID_PREFIX", "Xgid", "looks_like_xgid"]

#: What an XGID line starts with (optional when reading).
XGID_PREFIX: Final = "XGID="
#: The pending cube actions of the dice field: ``D``, ``B``, ``R``.
CUBE_ACTIONS: Final = {"D": "double", "B": "beaver", "R": "raccoon"}
_ACTION_LETTERS: Final = {name: letter for letter, name in CUBE_ACTIONS.items()}
_FIELDS: Final = 10
_FIELD_NAMES: Final = (
    "board", "cube", "cube owner", "player on roll", "dice", "White's score",
    "Black's score", "Crawford/Jacoby/beavers", "match length", "maximum cube",
)
#: The most checkers a board character can hold (``P``): XG's alphabet goes to 16.
_MAX_PER_POINT: Final = 16
#: XG's default maximum cube (2**10).
DEFAULT_MAX_CUBE: Final = 1024
#: The largest cube a Match ID holds.
_MAX_CUBE_LOG: Final = 15
#: A numeric field: at most 6 digits, so that a hostile ID never reaches Python's own limit on
#: converting long numbers (4,300 digits), whose error has no words for the player.
_NUMBER = re.compile(r"^-?[0-9]{1,6}$")


def looks_like_xgid(text: str) -> bool:
    """Whether ``text`` has the shape of an XGID (the prefix, or 26 board characters and nine
    colons), before any field is checked: lets a caller choose between an XGID and a Position
    ID."""
    stripped = text.strip()
    return stripped.upper().startswith(XGID_PREFIX) or stripped.count(":") == _FIELDS - 1


@dataclass(frozen=True, slots=True, kw_only=True)
class Xgid:
    """The fields of an XGID, in this project's terms.

    Attributes:
        position: the board with the player on roll to move (while a double is pending, the
            doubler).
        cube_value: 1, 2, 4, ... (the value before a pending double).
        cube_owner: None for a centred cube, else the owner.
        cube_action: None, or the double pending: ``"double"`` (the opponent of the player on
            roll takes or drops), ``"beaver"`` (it was beavered: the doubler takes or drops at
            four times the cube), ``"raccoon"``.
        dice: the roll, in the order written (GNU Backgammon and XG write the higher die
            first); None before the roll.
        score: ``(white, black)`` points won so far (0-0 in money play unless written).
        match_length: points to win the match; 0 for money play.
        crawford: this game is the Crawford game (match play only).
        jacoby: the Jacoby rule (money play only).
        beavers: beavers allowed (money play only).
        max_cube: the highest cube allowed, a power of two (XG's default 1024).

    Raises:
        InvalidIdError: (on construction) a field out of range or fields that contradict each
            other, quoting the field.
    """

    position: Position
    cube_value: int = 1
    cube_owner: Color | None = None
    cube_action: str | None = None
    dice: Roll | None = None
    score: tuple[int, int] = (0, 0)
    match_length: int = 0
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    max_cube: int = DEFAULT_MAX_CUBE

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem:
            raise InvalidIdError(f"not an XGID: {problem}")

    def _problem(self) -> str | None:
        def is_int(value: object) -> bool:
            return isinstance(value, int) and not isinstance(value, bool)

        def power_of_two(value: object) -> bool:
            return isinstance(value, int) and not isinstance(value, bool) and value >= 1 and (
                not value & (value - 1))

        if not isinstance(self.position, Position):
            return f"position {self.position!r} is not a Position"
        if not power_of_two(self.max_cube) or self.max_cube > 1 << _MAX_CUBE_LOG:
            return f"field 10 (maximum cube): {self.max_cube!r} is not a power of two up to 32768"
        if not power_of_two(self.cube_value) or self.cube_value > self.max_cube:
            return (f"field 2 (cube): {self.cube_value!r} is not a power of two up to the "
                    f"maximum cube {self.max_cube}")
        if self.cube_owner is not None and self.cube_owner not in (WHITE, BLACK):
            return f"field 3 (cube owner): {self.cube_owner!r} is not None, WHITE or BLACK"
        if self.cube_action is not None and self.cube_action not in _ACTION_LETTERS:
            return (f"field 5 (dice): the cube action {self.cube_action!r} is not double, "
                    "beaver or raccoon")
        dice = self.dice
        if dice is not None and (
            not isinstance(dice, tuple) or len(dice) != 2
            or not all(is_int(d) and 1 <= d <= 6 for d in dice)
        ):
            return f"field 5 (dice): {dice!r} are not two ints 1..6"
        if dice is not None and self.cube_action is not None:
            return f"field 5 (dice): dice {dice[0]}{dice[1]} with a {self.cube_action} pending"
        length = self.match_length
        if not is_int(length) or length < 0:
            return f"field 9 (match length): {length!r} is not an int >= 0"
        score = self.score
        if (not isinstance(score, tuple) or len(score) != 2
                or not all(is_int(s) and s >= 0 for s in score)):
            return f"fields 6 and 7 (score): {score!r} is not two ints >= 0"
        if length and max(score) >= length:
            return (f"fields 6 and 7 (score): {score[0]}-{score[1]} has already won a "
                    f"{length}-point match")
        for name in ("crawford", "jacoby", "beavers"):
            if not isinstance(getattr(self, name), bool):
                return f"{name} {getattr(self, name)!r} is not a bool"
        if length and (self.jacoby or self.beavers):
            return ("field 8 (Jacoby/beavers): the Jacoby rule and beavers are for money play, "
                    "not a match")
        if self.crawford:
            if not length:
                return "field 8 (Crawford): a Crawford game in money play"
            if [s == length - 1 for s in score].count(True) != 1:
                return (f"field 8 (Crawford): a Crawford game at {score[0]}-{score[1]} in a "
                        f"{length}-point match (exactly one player is 1-away in the Crawford "
                        "game)")
            if self.cube_value != 1 or self.cube_action is not None:
                return "fields 2 and 5 (cube, dice): a cube turned in the Crawford game"
        if self.cube_owner is not None and self.cube_value == 1:
            return ("fields 2 and 3 (cube, owner): a cube owned at 1 (it is owned once it has "
                    "been turned, at 2 or more)")
        if self.cube_action is not None:
            doubler = self.position.turn
            if self.cube_owner is doubler.opponent:
                return (f"field 5 (dice): {str(doubler).capitalize()} doubles while "
                        f"{str(doubler.opponent).capitalize()} owns the cube (field 3)")
            if self.cube_action != "double" and (length or not self.beavers):
                return (f"field 5 (dice): a {self.cube_action} without beavers allowed "
                        "(field 8; money play only)")
            if self.cube_value * 2 > self.max_cube:
                return f"field 5 (dice): a double past the maximum cube {self.max_cube} (field 10)"
        return None

    # ----------------------------------------------------------------------------------------
    # Text

    @classmethod
    def parse(cls, text: str) -> Xgid:
        """Read an XGID, with or without its ``XGID=`` prefix; surrounding space is ignored.

        Raises:
            InvalidIdError: not ten fields, or a field that is wrong; the message quotes the
                XGID and names the field.
        """
        if not isinstance(text, str):
            raise InvalidIdError(f"invalid XGID {text!r}: not a string")
        body = text.strip()
        if body.upper().startswith(XGID_PREFIX):
            body = body[len(XGID_PREFIX):]
        fields = body.split(":")

        def cut(value: str, limit: int) -> str:  # a huge ID, a short message
            return value if len(value) <= limit else value[:limit] + "…"

        shown = cut(text, 80)

        def fail(index: int | None, problem: str) -> InvalidIdError:
            where = f"field {index + 1} ({_FIELD_NAMES[index]}): " if index is not None else ""
            return InvalidIdError(f"invalid XGID {shown!r}: {where}{problem}")

        if len(fields) != _FIELDS:
            raise fail(None, f"{len(fields)} fields separated by ':', expected {_FIELDS}")

        def number(index: int, low: int, high: int) -> int:
            value = fields[index].strip()
            if not _NUMBER.match(value) or not low <= int(value) <= high:
                raise fail(index, f"{cut(value, 12)!r} is not a number from {low} to {high}")
            return int(value)

        points = _board(fields[0], lambda problem: fail(0, problem))
        cube_log = number(1, 0, _MAX_CUBE_LOG)
        owner_code = number(2, -1, 1)
        turn_code = fields[3].strip()
        if turn_code not in ("1", "-1"):
            raise fail(3, f"{cut(turn_code, 12)!r} is not 1 (White) or -1 (Black)")
        turn = WHITE if turn_code == "1" else BLACK
        dice_field = fields[4].strip()
        dice: Roll | None = None
        action: str | None = None
        if dice_field.upper() in CUBE_ACTIONS:
            action = CUBE_ACTIONS[dice_field.upper()]
        elif re.fullmatch(r"[1-6][1-6]", dice_field):
            dice = (int(dice_field[0]), int(dice_field[1]))
        elif dice_field != "00":
            raise fail(4, f"{cut(dice_field, 12)!r} is not 00, two dice like 52, D, B or R")
        score = (number(5, 0, (1 << 15) - 1), number(6, 0, (1 << 15) - 1))
        rules = number(7, 0, 3)
        length = number(8, 0, (1 << 15) - 1)
        max_log = number(9, 0, _MAX_CUBE_LOG)
        if length and rules > 1:
            raise fail(7, f"{rules} in a match: it is 1 (Crawford game) or 0")
        try:
            position = Position.from_points(points, turn)
        except InvalidPositionError as exc:
            raise fail(0, str(exc)) from None
        try:
            return cls(
                position=position,
                cube_value=1 << cube_log,
                cube_owner=None if owner_code == 0 else (WHITE if owner_code == 1 else BLACK),
                cube_action=action,
                dice=dice,
                score=score,
                match_length=length,
                crawford=bool(length) and rules == 1,
                jacoby=not length and bool(rules & 1),
                beavers=not length and bool(rules & 2),
                max_cube=1 << max_log,
            )
        except InvalidIdError as exc:
            raise InvalidIdError(f"invalid XGID {text!r}: "
                                 f"{str(exc).removeprefix('not an XGID: ')}") from None

    def __str__(self) -> str:
        """The XGID line, ``XGID=`` prefix included."""
        board = "".join(_board_char(count) for count in self.position.points)
        owner = 0 if self.cube_owner is None else (1 if self.cube_owner is WHITE else -1)
        if self.cube_action is not None:
            dice = _ACTION_LETTERS[self.cube_action]
        elif self.dice is not None:
            dice = f"{self.dice[0]}{self.dice[1]}"
        else:
            dice = "00"
        if self.match_length:
            rules = int(self.crawford)
        else:
            rules = int(self.jacoby) + 2 * int(self.beavers)
        fields = (
            board, self.cube_value.bit_length() - 1, owner,
            1 if self.position.turn is WHITE else -1, dice, self.score[0], self.score[1],
            rules, self.match_length, self.max_cube.bit_length() - 1,
        )
        return XGID_PREFIX + ":".join(str(field) for field in fields)

    # ----------------------------------------------------------------------------------------
    # GNU Backgammon's IDs

    def position_id(self) -> str:
        """The GNU Backgammon Position ID, the player on roll (the doubler while a double is
        pending, as GNU Backgammon writes it) second in the key."""
        return self.position.id()

    def match_state(self) -> MatchState:
        """The GNU Backgammon Match ID fields (player 0 White).

        Raises:
            InvalidIdError: a beaver or raccoon pending (a Match ID has no place for it).
        """
        if self.cube_action in ("beaver", "raccoon"):
            raise InvalidIdError(f"a Match ID cannot hold a pending {self.cube_action}: "
                                 f"{self}")
        on_roll = color_to_player(self.position.turn)
        doubled = self.cube_action == "double"
        return MatchState(
            cube_value=self.cube_value,
            cube_owner=None if self.cube_owner is None else color_to_player(self.cube_owner),
            player_on_roll=on_roll,
            turn=1 - on_roll if doubled else on_roll,
            crawford=self.crawford,
            game_state="playing",
            doubled=doubled,
            dice=self.dice if self.dice is not None else (0, 0),
            match_length=self.match_length,
            score=self.score if self.match_length else (0, 0),
            jacoby=self.jacoby,
        )

    def match_id(self) -> str:
        """The GNU Backgammon Match ID of :meth:`match_state`."""
        return encode_match_id(self.match_state())

    @classmethod
    def from_gnubg_ids(cls, position_id: str, match_id: str, *,
                       max_cube: int = DEFAULT_MAX_CUBE) -> Xgid:
        """The XGID of a GNU Backgammon Position ID and Match ID (player 0 White).

        Beavers are off (a Match ID does not say); the Position ID is read from the view of
        the Match ID's player on roll.

        Raises:
            InvalidIdError: a malformed ID, a game that is over or has a resignation pending
                (an XGID holds neither), or fields that contradict each other.
        """
        state = decode_match_id(match_id)
        if state.game_state not in ("playing", "none"):
            raise InvalidIdError(f"invalid Match ID {match_id!r} for an XGID: the game is "
                                 f"{state.game_state}")
        if state.resigned:
            raise InvalidIdError(f"invalid Match ID {match_id!r} for an XGID: a resignation "
                                 "is pending")
        expected_turn = 1 - state.player_on_roll if state.doubled else state.player_on_roll
        if state.turn != expected_turn:
            raise InvalidIdError(
                f"invalid Match ID {match_id!r}: player {state.turn} is to act, but player "
                f"{state.player_on_roll} is on roll" + (" and has doubled" if state.doubled
                                                       else "")
            )
        on_roll = player_to_color(state.player_on_roll)
        position = Position.from_id(position_id, on_roll)
        return cls(
            position=position,
            cube_value=state.cube_value,
            cube_owner=None if state.cube_owner is None else player_to_color(state.cube_owner),
            cube_action="double" if state.doubled else None,
            dice=None if state.dice == (0, 0) else state.dice,
            score=state.score if state.match_length else (0, 0),
            match_length=state.match_length,
            crawford=state.crawford,
            jacoby=state.jacoby and not state.match_length,
            max_cube=max(max_cube, state.cube_value),
        )


def _board_char(count: int) -> str:
    if count == 0:
        return "-"
    base = "A" if count > 0 else "a"
    return chr(ord(base) + abs(count) - 1)


def _board(text: str, fail: Callable[[str], InvalidIdError]) -> list[int]:
    """The 26 signed slots of an XGID board field."""
    board = text.strip()
    if len(board) != SLOTS:
        raise fail(f"has {len(board)} characters, expected {SLOTS}")
    points: list[int] = []
    for index, char in enumerate(board):
        if char == "-":
            points.append(0)
        elif "A" <= char <= "P":
            points.append(ord(char) - ord("A") + 1)
        elif "a" <= char <= "p":
            points.append(-(ord(char) - ord("a") + 1))
        else:
            raise fail(f"character {index + 1} is {char!r}: expected '-', A-P (White's "
                       "checkers) or a-p (Black's)")
    if points[0] > 0:
        raise fail("character 1 (Black's bar) holds White's checkers")
    if points[25] < 0:
        raise fail("character 26 (White's bar) holds Black's checkers")
    for name, total in (("White", sum(c for c in points if c > 0)),
                        ("Black", -sum(c for c in points if c < 0))):
        if total > CHECKERS_PER_SIDE:
            raise fail(f"{name} has {total} checkers, more than {CHECKERS_PER_SIDE}")
    assert max(abs(c) for c in points) <= _MAX_PER_POINT
    return points
