"""GNU Backgammon Position IDs and Match IDs, as pure functions on plain data.

Sources: the GNU Backgammon manual, "A technical description of the Position ID" and "A technical
description of the Match ID" (https://www.gnu.org/software/gnubg/manual/), checked against the
reference data in ``shared/oracle/`` (written by GNU Backgammon's own encoders).

Position ID
    An 80-bit key written as 14 characters of base64 (``A-Z a-z 0-9 + /``, no padding). For each
    of the two players in turn, for each of that player's 25 slots (points 1..24 numbered from
    that player's own side, then the bar): as many ``1`` bits as checkers, then one ``0`` bit.
    The player *not* on roll comes first, the player on roll second (the oracle confirms it for
    every asymmetric position). The bits are packed least significant bit first into 10 bytes and
    the bytes are base64-encoded; the last character carries only 2 of the 80 bits.

Match ID
    A 66-bit key (plus one flag, see :class:`MatchState`) in 9 bytes, written as 12 characters
    of base64, least significant bit first. Fields are in GNU Backgammon's player numbers 0 and 1.
    This project maps player 0 to White and player 1 to Black (:func:`color_to_player`,
    :func:`player_to_color`); in a ``.mat`` file player 0 is the player named first (the left
    column).
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from backgammon.core.errors import InvalidIdError, InvalidPositionError
from backgammon.core.types import (
    BLACK,
    BLACK_BAR,
    CHECKERS_PER_SIDE,
    POINTS,
    SLOTS,
    WHITE,
    WHITE_BAR,
    Color,
)

__all__ = [
    "GAME_STATES",
    "MATCH_ID_LENGTH",
    "POSITION_ID_LENGTH",
    "MatchState",
    "color_to_player",
    "decode_match_id",
    "decode_position_id",
    "encode_match_id",
    "encode_position_id",
    "player_to_color",
]

#: Characters in a Position ID (80 bits in base64, without the ``==`` padding).
POSITION_ID_LENGTH: Final = 14
#: Characters in a Match ID (72 bits in base64).
MATCH_ID_LENGTH: Final = 12

#: The standard base64 alphabet (RFC 4648 section 4), as GNU Backgammon writes it.
_BASE64_ALPHABET: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
#: Character -> its 6-bit value.
_BASE64_VALUES: Final[dict[str, int]] = {char: i for i, char in enumerate(_BASE64_ALPHABET)}
_POSITION_KEY_BITS: Final = 80
_POSITION_KEY_BYTES: Final = 10
#: Each side has 25 slots in the key: points 1..24 of its own numbering, then its bar.
_SLOTS_PER_SIDE: Final = POINTS + 1
_MATCH_KEY_BYTES: Final = 9

#: GNU Backgammon's game states, indexed by their 3-bit code in the Match ID (gnubg's
#: ``GAME_NONE``, ``GAME_PLAYING``, ``GAME_OVER``, ``GAME_RESIGNED``, ``GAME_DROP``).
GAME_STATES: Final[tuple[str, ...]] = ("none", "playing", "over", "resigned", "dropped")

#: The cube can reach 2**15 in the Match ID's 4-bit logarithm field.
_MAX_CUBE_LOG: Final = 15
#: Match length and scores are 15-bit fields.
_MAX_SCORE: Final = (1 << 15) - 1
#: The cube-owner field's code for a centred cube.
_CENTRED: Final = 3
#: Resignation levels: 0 none, 1 single game, 2 gammon, 3 backgammon.
_MAX_RESIGNED: Final = 3

# Match ID bit layout (bit offset, width), bit 0 the least significant bit of the first byte.
_CUBE_LOG = (0, 4)
_CUBE_OWNER = (4, 2)
_ON_ROLL = (6, 1)
_CRAWFORD = (7, 1)
_GAME_STATE = (8, 3)
_TURN = (11, 1)
_DOUBLED = (12, 1)
_RESIGNED = (13, 2)
_DIE_HIGH = (15, 3)
_DIE_LOW = (18, 3)
_MATCH_LENGTH = (21, 15)
_SCORE_0 = (36, 15)
_SCORE_1 = (51, 15)
_NO_JACOBY = (66, 1)
_MATCH_KEY_USED_BITS: Final = 67


# --------------------------------------------------------------------------------------------
# Players and colours


def color_to_player(color: Color) -> int:
    """GNU Backgammon's player number of a colour: White is player 0, Black player 1.

    Raises:
        ValueError: if ``color`` is not a colour (see :meth:`Color.parse`).
    """
    return 0 if Color.parse(color) is WHITE else 1


def player_to_color(player: int) -> Color:
    """The colour of GNU Backgammon's player 0 (White) or 1 (Black).

    Raises:
        ValueError: if ``player`` is not 0 or 1.
    """
    if isinstance(player, bool) or player not in (0, 1):
        raise ValueError(f"not a player number: {player!r} (expected 0 or 1)")
    return WHITE if player == 0 else BLACK


# --------------------------------------------------------------------------------------------
# Shared base64 handling


def _key_from_id(text: str, length: int, kind: str) -> tuple[str, bytes]:
    """Check the characters of an ID and return ``(stripped id, key bytes)``.

    Raises:
        InvalidIdError: not a string, wrong length, or a character outside the base64 alphabet.
    """
    if not isinstance(text, str):
        raise InvalidIdError(f"invalid {kind} {text!r}: not a string")
    stripped = text.strip()
    if len(stripped) != length:
        shown = text if len(text) <= 40 else text[:40] + "…"  # (a huge one, a short message)
        raise InvalidIdError(
            f"invalid {kind} {shown!r}: {len(stripped)} characters, expected {length}"
        )
    for index, char in enumerate(stripped):
        if char not in _BASE64_VALUES:
            raise InvalidIdError(
                f"invalid {kind} {text!r}: {char!r} at position {index + 1} "
                "is not a base64 character (A-Z, a-z, 0-9, +, /)"
            )
    # Every character is in the alphabet, so with its padding the text always decodes.
    padding = "=" * (-length % 4)
    return stripped, base64.b64decode(stripped + padding, validate=True)


# --------------------------------------------------------------------------------------------
# Position ID


def _side_slots(points: Sequence[int], color: Color) -> list[int]:
    """The 25 key slots of one side: its points 1..24 in its own numbering, then its bar."""
    if color is WHITE:
        slots = [count if count > 0 else 0 for count in points[1:WHITE_BAR]]
        slots.append(points[WHITE_BAR])
    else:
        # Black's own point i is White's point 25 - i.
        slots = [-count if count < 0 else 0 for count in reversed(points[1:WHITE_BAR])]
        slots.append(-points[BLACK_BAR])
    return slots


def _check_points(points: Sequence[int]) -> None:
    """Raise InvalidPositionError unless ``points`` is a 26-slot board a Position ID can hold."""
    try:
        size = len(points)
    except TypeError:
        size = -1
    if isinstance(points, str | bytes) or size != SLOTS:
        raise InvalidPositionError(f"a board has {SLOTS} slots, got {points!r}")
    for index, count in enumerate(points):
        if isinstance(count, bool) or not isinstance(count, int):
            raise InvalidPositionError(f"slot {index} of the board is not an int: {count!r}")
    if points[WHITE_BAR] < 0:
        raise InvalidPositionError(
            f"White's bar (slot {WHITE_BAR}) must be >= 0, got {points[WHITE_BAR]}"
        )
    if points[BLACK_BAR] > 0:
        raise InvalidPositionError(
            f"Black's bar (slot {BLACK_BAR}) must be <= 0, got {points[BLACK_BAR]}"
        )
    white = sum(count for count in points if count > 0)
    black = -sum(count for count in points if count < 0)
    for name, total in (("White", white), ("Black", black)):
        if total > CHECKERS_PER_SIDE:
            raise InvalidPositionError(
                f"{name} has {total} checkers on the board, more than {CHECKERS_PER_SIDE}"
            )


def encode_position_id(points: Sequence[int], turn: Color) -> str:
    """The GNU Backgammon Position ID of a board with ``turn`` on roll.

    Args:
        points: the 26-slot signed board of DESIGN.md: ``points[1..24]`` from White's side,
            White positive, Black negative; ``points[25]`` White's bar (>= 0), ``points[0]``
            Black's bar (<= 0). Borne-off checkers are not part of the ID.
        turn: the side on roll (the second block of the key; the other side is written first).

    Returns:
        14 base64 characters, e.g. ``"4HPwATDgc/ABMA"`` for the starting position.

    Raises:
        InvalidPositionError: a board that is not 26 ints, a bar of the wrong sign, or more than
            15 checkers for a side.
        ValueError: ``turn`` is not a colour.
    """
    _check_points(points)
    on_roll = Color.parse(turn)
    key = 0
    bit = 0
    for color in (on_roll.opponent, on_roll):
        for count in _side_slots(points, color):
            # ``count`` one bits, then the zero bit that closes the slot.
            key |= ((1 << count) - 1) << bit
            bit += count + 1
    encoded = base64.b64encode(key.to_bytes(_POSITION_KEY_BYTES, "little")).decode("ascii")
    return encoded[:POSITION_ID_LENGTH]


def decode_position_id(pid: str, turn: Color) -> tuple[int, ...]:
    """The board of a GNU Backgammon Position ID whose player on roll is ``turn``.

    The inverse of :func:`encode_position_id`: the ID itself does not say which colour is on
    roll, so the caller says. Leading and trailing whitespace is ignored; nothing else is.
    Every board :func:`encode_position_id` accepts decodes back; unlike GNU Backgammon's
    ``CheckPosition``, both sides on the bar against closed home boards is not refused here
    (whether a position can arise is for the position's ``status()`` to say).

    Args:
        pid: 14 base64 characters.
        turn: the side on roll.

    Returns:
        The 26-slot signed board (see :func:`encode_position_id`).

    Raises:
        InvalidIdError: wrong length, a character outside the base64 alphabet, more than 15
            checkers for a side, a key that ends before all 50 slots are closed, bits set after
            the last slot, or both sides on one point. The message quotes the ID.
        ValueError: ``turn`` is not a colour.
    """
    stripped, key_bytes = _key_from_id(pid, POSITION_ID_LENGTH, "Position ID")
    on_roll = Color.parse(turn)
    if _BASE64_VALUES[stripped[-1]] & 0b1111:
        raise InvalidIdError(
            f"invalid Position ID {pid!r}: the last character sets bits beyond the 80-bit key"
        )
    key = int.from_bytes(key_bytes, "little")
    # The key as text, first bit first; each slot is a run of ones closed by a zero.
    bits = format(key, f"0{_POSITION_KEY_BITS}b")[::-1]
    runs = bits.split("0")
    slot_count = 2 * _SLOTS_PER_SIDE
    counts = [len(run) for run in runs[:slot_count]]
    first, second = counts[:_SLOTS_PER_SIDE], counts[_SLOTS_PER_SIDE:]
    for name, side in (("the player not on roll", first), ("the player on roll", second)):
        if sum(side) > CHECKERS_PER_SIDE:
            raise InvalidIdError(
                f"invalid Position ID {pid!r}: {sum(side)} checkers for {name}, "
                f"more than {CHECKERS_PER_SIDE}"
            )
    if len(runs) <= slot_count:  # pragma: no cover - needs more than 30 checkers in 80 bits
        raise InvalidIdError(
            f"invalid Position ID {pid!r}: the key ends before all {slot_count} slots are read"
        )
    if any(runs[slot_count:]):
        raise InvalidIdError(
            f"invalid Position ID {pid!r}: bits left over after the last slot of the key"
        )
    opponent_slots, mover_slots = first, second
    by_color = {on_roll.opponent: opponent_slots, on_roll: mover_slots}
    white, black = by_color[WHITE], by_color[BLACK]
    board = [0] * SLOTS
    board[WHITE_BAR] = white[POINTS]
    board[BLACK_BAR] = -black[POINTS]
    for point in range(1, POINTS + 1):
        white_count = white[point - 1]
        black_count = black[POINTS - point]  # Black's own point 25 - p is White's point p.
        if white_count and black_count:
            raise InvalidIdError(
                f"invalid Position ID {pid!r}: White and Black both have checkers on "
                f"White's {point}-point"
            )
        board[point] = white_count - black_count
    return tuple(board)


# --------------------------------------------------------------------------------------------
# Match ID


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchState:
    """The fields of a GNU Backgammon Match ID, in GNU Backgammon's player numbers.

    Player 0 is White and player 1 Black in this project (:func:`player_to_color`).

    Attributes:
        cube_value: 1, 2, 4, ... up to 2**15.
        cube_owner: ``None`` for a centred cube, else the owning player (0 or 1).
        player_on_roll: the player whose turn it is (who rolls or rolled the dice).
        turn: the player who must act now: the opponent of ``player_on_roll`` while a double
            or a resignation is pending.
        crawford: whether this game is the Crawford game (never in money play).
        game_state: one of :data:`GAME_STATES` (``"playing"`` during a game).
        doubled: whether a double is pending.
        resigned: the resignation pending: 0 none, 1 single game, 2 gammon, 3 backgammon.
        dice: the roll as two ints 1..6, or ``(0, 0)`` before the roll. The order is not
            encoded: GNU Backgammon (1.07, ``matchid.c``) writes the higher die first, so a
            decoded ID normally gives ``(high, low)``.
        match_length: points to win the match, 0 for money play.
        score: points won so far by (player 0, player 1); each at most ``match_length``.
            GNU Backgammon writes 0-0 in a money-play ID, so a money score is not encoded.
        jacoby: whether the Jacoby rule is in force. GNU Backgammon stores the inverse in bit 66
            (beyond the 66 bits the manual documents) and sets the rule only for money play,
            as in every line of the oracle: ``jacoby`` is True for money, False for matches.

    Raises:
        InvalidIdError: (on construction) a field that a Match ID cannot hold, quoting it.
    """

    cube_value: int = 1
    cube_owner: int | None = None
    player_on_roll: int = 0
    turn: int = 0
    crawford: bool = False
    game_state: str = "playing"
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem:
            raise InvalidIdError(f"not a Match ID state: {problem}")

    def _problem(self) -> str | None:
        """The first thing wrong with the fields, or None."""

        def is_int(value: object) -> bool:
            return isinstance(value, int) and not isinstance(value, bool)

        cube = self.cube_value
        if not is_int(cube) or cube < 1 or cube & (cube - 1) or cube > 1 << _MAX_CUBE_LOG:
            return f"cube_value {cube!r} is not a power of two from 1 to {1 << _MAX_CUBE_LOG}"
        if self.cube_owner is not None and (
            not is_int(self.cube_owner) or self.cube_owner not in (0, 1)
        ):
            return f"cube_owner {self.cube_owner!r} is not None, 0 or 1"
        for name in ("player_on_roll", "turn"):
            value = getattr(self, name)
            if not is_int(value) or value not in (0, 1):
                return f"{name} {value!r} is not 0 or 1"
        for name in ("crawford", "doubled", "jacoby"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                return f"{name} {value!r} is not a bool"
        if self.game_state not in GAME_STATES:
            return f"game_state {self.game_state!r} is not one of {', '.join(GAME_STATES)}"
        if not is_int(self.resigned) or not 0 <= self.resigned <= _MAX_RESIGNED:
            return f"resigned {self.resigned!r} is not 0 (none), 1, 2 or 3 (backgammon)"
        dice = self.dice
        if (
            not isinstance(dice, tuple)
            or len(dice) != 2
            or not all(is_int(die) for die in dice)
            or (dice != (0, 0) and not all(1 <= die <= 6 for die in dice))
        ):
            return f"dice {dice!r} are not two ints 1..6 or (0, 0)"
        length = self.match_length
        if not is_int(length) or not 0 <= length <= _MAX_SCORE:
            return f"match_length {length!r} is not 0 (money) to {_MAX_SCORE}"
        score = self.score
        if (
            not isinstance(score, tuple)
            or len(score) != 2
            or not all(is_int(points) and 0 <= points <= _MAX_SCORE for points in score)
        ):
            return f"score {score!r} is not two ints from 0 to {_MAX_SCORE}"
        if length and max(score) > length:
            return f"score {score!r} passes the match length {length}"
        if self.crawford and not length:
            return "a Crawford game in money play"
        return None


def _put(key: int, field: tuple[int, int], value: int) -> int:
    offset, width = field
    return key | (value & ((1 << width) - 1)) << offset


def _get(key: int, field: tuple[int, int]) -> int:
    offset, width = field
    return (key >> offset) & ((1 << width) - 1)


def encode_match_id(state: MatchState) -> str:
    """The 12-character GNU Backgammon Match ID of ``state``.

    As GNU Backgammon does, the higher die is stored first, and (matching the oracle) the score
    is written only in match play: a money-play ID carries 0-0.

    Returns:
        12 base64 characters, e.g. ``"cAgAAAAAAAAA"`` for a money game (no Jacoby rule) with
        player 1 to roll.

    Raises:
        TypeError: ``state`` is not a :class:`MatchState` (its constructor checks the fields).
    """
    if not isinstance(state, MatchState):
        raise TypeError(f"expected a MatchState, got {state!r}")
    key = _put(0, _CUBE_LOG, state.cube_value.bit_length() - 1)
    key = _put(key, _CUBE_OWNER, _CENTRED if state.cube_owner is None else state.cube_owner)
    key = _put(key, _ON_ROLL, state.player_on_roll)
    key = _put(key, _CRAWFORD, state.crawford)
    key = _put(key, _GAME_STATE, GAME_STATES.index(state.game_state))
    key = _put(key, _TURN, state.turn)
    key = _put(key, _DOUBLED, state.doubled)
    key = _put(key, _RESIGNED, state.resigned)
    key = _put(key, _DIE_HIGH, max(state.dice))
    key = _put(key, _DIE_LOW, min(state.dice))
    key = _put(key, _MATCH_LENGTH, state.match_length)
    if state.match_length:
        key = _put(key, _SCORE_0, state.score[0])
        key = _put(key, _SCORE_1, state.score[1])
    key = _put(key, _NO_JACOBY, not state.jacoby)
    return base64.b64encode(key.to_bytes(_MATCH_KEY_BYTES, "little")).decode("ascii")


def decode_match_id(mid: str) -> MatchState:
    """The fields of a GNU Backgammon Match ID.

    Leading and trailing whitespace is ignored; nothing else is.

    Args:
        mid: 12 base64 characters.

    Returns:
        The :class:`MatchState`; its dice in the order stored (``(high, low)`` as GNU
        Backgammon 1.07 writes them; older versions kept the order rolled), or ``(0, 0)``.

    Raises:
        InvalidIdError: wrong length, a character outside the base64 alphabet, bits set after
            bit 66, a cube owner code of 2, a game state above 4, a die of 7 or one die of 0
            with the other not, a score above the match length, or a Crawford game in money
            play. The message quotes the ID.
    """
    _, key_bytes = _key_from_id(mid, MATCH_ID_LENGTH, "Match ID")
    key = int.from_bytes(key_bytes, "little")

    def fail(problem: str) -> InvalidIdError:
        return InvalidIdError(f"invalid Match ID {mid!r}: {problem}")

    if key >> _MATCH_KEY_USED_BITS:
        raise fail(f"bits left over after bit {_MATCH_KEY_USED_BITS - 1} of the key")
    owner = _get(key, _CUBE_OWNER)
    if owner not in (0, 1, _CENTRED):
        raise fail(f"cube owner code {owner} (expected 0, 1, or 3 for centred)")
    game_state = _get(key, _GAME_STATE)
    if game_state >= len(GAME_STATES):
        raise fail(f"game state code {game_state} (expected 0 to {len(GAME_STATES) - 1})")
    dice = (_get(key, _DIE_HIGH), _get(key, _DIE_LOW))
    if dice != (0, 0) and not all(1 <= die <= 6 for die in dice):
        raise fail(f"dice {dice[0]} and {dice[1]} (expected two of 1..6, or both 0)")
    try:
        return MatchState(
            cube_value=1 << _get(key, _CUBE_LOG),
            cube_owner=None if owner == _CENTRED else owner,
            player_on_roll=_get(key, _ON_ROLL),
            turn=_get(key, _TURN),
            crawford=bool(_get(key, _CRAWFORD)),
            game_state=GAME_STATES[game_state],
            doubled=bool(_get(key, _DOUBLED)),
            resigned=_get(key, _RESIGNED),
            dice=dice,
            match_length=_get(key, _MATCH_LENGTH),
            score=(_get(key, _SCORE_0), _get(key, _SCORE_1)),
            jacoby=not _get(key, _NO_JACOBY),
        )
    except InvalidIdError as exc:
        raise fail(str(exc).removeprefix("not a Match ID state: ")) from None
