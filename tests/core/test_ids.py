"""GNU Backgammon Position IDs and Match IDs: the oracle, known values, bad input, round trips."""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backgammon.core.errors import InvalidIdError, InvalidPositionError
from backgammon.core.ids import (
    GAME_STATES,
    MatchState,
    color_to_player,
    decode_match_id,
    decode_position_id,
    encode_match_id,
    encode_position_id,
    player_to_color,
)
from backgammon.core.types import BLACK, START_POINTS, WHITE, Color
from conftest import read_jsonl

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
START_ID = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def oracle_dir(shared_dir: Path) -> Path:
    path = shared_dir / "oracle"
    if not path.is_dir():
        pytest.skip(f"reference data not found: {path} is missing")
    return path


def mirror(board: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """The same position with the colours swapped: White's point p becomes Black's point p."""
    return tuple(-board[25 - index] for index in range(26))


def id_from_bits(bits: str, length: int) -> str:
    """Reference packing: a bit string, first bit first, into base64 of the given length."""
    nbytes = length * 6 // 8
    key = int(bits[::-1], 2) if bits else 0
    return base64.b64encode(key.to_bytes(nbytes, "little")).decode()[:length]


def slot_bits(slots: list[int]) -> str:
    return "".join("1" * count + "0" for count in slots)


# --------------------------------------------------------------------------------------------
# Position ID: known values and the convention


def test_start_position() -> None:
    assert encode_position_id(START_POINTS, WHITE) == START_ID
    assert encode_position_id(START_POINTS, BLACK) == START_ID
    assert decode_position_id(START_ID, WHITE) == START_POINTS
    assert decode_position_id(START_ID, BLACK) == START_POINTS


def test_empty_board_is_all_zero_bits() -> None:
    assert encode_position_id([0] * 26, WHITE) == "A" * 14
    assert decode_position_id("A" * 14, BLACK) == (0,) * 26


def test_player_not_on_roll_comes_first_each_in_own_numbering() -> None:
    # White: one checker on its 2-point. Black: one on its own 1-point (White's 24-point).
    board = [0] * 26
    board[2] = 1
    board[24] = -1
    white_slots = [0, 1] + [0] * 23  # points 1..24 then the bar, White's numbering
    black_slots = [1] + [0] * 24  # Black's numbering
    assert encode_position_id(board, WHITE) == id_from_bits(
        slot_bits(black_slots) + slot_bits(white_slots), 14
    )
    assert encode_position_id(board, WHITE) == "AQAACAAAAAAAAA"
    assert encode_position_id(board, BLACK) == id_from_bits(
        slot_bits(white_slots) + slot_bits(black_slots), 14
    )


def test_bars_are_the_last_slot_of_each_side() -> None:
    board = [0] * 26
    board[25] = 2  # White's bar
    board[0] = -1  # Black's bar
    bits = slot_bits([0] * 24 + [1]) + slot_bits([0] * 24 + [2])
    assert encode_position_id(board, WHITE) == id_from_bits(bits, 14)
    assert decode_position_id(id_from_bits(bits, 14), WHITE) == tuple(board)


def test_decode_ignores_surrounding_whitespace() -> None:
    assert decode_position_id(f"  {START_ID}\n", WHITE) == START_POINTS


def test_turn_accepts_colour_names() -> None:
    assert encode_position_id(START_POINTS, "white") == START_ID  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Position ID: the oracle


@pytest.mark.parametrize("name", ["legal_plays.jsonl", "endgame_plays.jsonl"])
def test_position_ids_match_oracle(oracle_dir: Path, name: str) -> None:
    lines = read_jsonl(oracle_dir / name)
    assert lines, f"{name} is empty"
    wrong: list[str] = []
    checked = 0
    for number, line in enumerate(lines, start=1):
        turn = Color.parse(line["turn"])
        cases = [(line["board"], turn, line["position_id"])]
        # Each result is given with the opponent on roll, as after the turn passes.
        cases += [(play["result"], turn.opponent, play["result_id"]) for play in line["plays"]]
        for board, on_roll, pid in cases:
            checked += 1
            encoded = encode_position_id(board, on_roll)
            decoded = decode_position_id(pid, on_roll)
            if encoded != pid or decoded != tuple(board):
                wrong.append(f"line {number}: {board} {on_roll}: {encoded} != {pid} or {decoded}")
    assert not wrong, f"{len(wrong)} of {checked} IDs differ, first: " + "; ".join(wrong[:3])


# --------------------------------------------------------------------------------------------
# Position ID: bad input


@pytest.mark.parametrize(
    ("pid", "problem"),
    [
        ("", "0 characters, expected 14"),
        ("4HPwATDgc/ABM", "13 characters"),
        ("4HPwATDgc/ABMAA", "15 characters"),
        ("4HPwATDgc/ABMA==", "16 characters"),
        ("4HPwATDgc-ABMA", "'-' at position 10 is not a base64 character"),
        ("4HPwATDgc/AB=A", "'=' at position 13"),
        ("4HPw ATDgc/ABM", "' ' at position 5"),
        ("4HPwATDgc/ABMé", "'é' at position 14"),
        ("4HPwATDgc/ABMB", "the last character sets bits beyond the 80-bit key"),
        ("/////////////w", "more than 15"),
    ],
)
def test_decode_position_id_rejects(pid: str, problem: str) -> None:
    with pytest.raises(InvalidIdError, match="invalid Position ID") as info:
        decode_position_id(pid, WHITE)
    assert repr(pid) in str(info.value)
    assert problem in str(info.value)


def test_decode_position_id_rejects_16_checkers_for_the_player_on_roll() -> None:
    bits = slot_bits([0] * 25) + slot_bits([16] + [0] * 24)
    with pytest.raises(InvalidIdError, match="16 checkers for the player on roll"):
        decode_position_id(id_from_bits(bits, 14), WHITE)


def test_decode_position_id_rejects_16_checkers_for_the_player_not_on_roll() -> None:
    bits = slot_bits([8, 8] + [0] * 23) + slot_bits([0] * 25)
    with pytest.raises(InvalidIdError, match="16 checkers for the player not on roll"):
        decode_position_id(id_from_bits(bits, 14), BLACK)


def test_decode_position_id_rejects_bits_left_over() -> None:
    bits = slot_bits([0] * 25) + slot_bits([0] * 25) + "0001"
    with pytest.raises(InvalidIdError, match="bits left over"):
        decode_position_id(id_from_bits(bits, 14), WHITE)


def test_decode_position_id_rejects_both_sides_on_one_point() -> None:
    # White's checker on its 6-point; Black's on its own 19-point, which is White's 6-point.
    black = [0] * 25
    black[18] = 1
    white = [0] * 25
    white[5] = 1
    pid = id_from_bits(slot_bits(black) + slot_bits(white), 14)
    with pytest.raises(InvalidIdError, match="both have checkers on White's 6-point"):
        decode_position_id(pid, WHITE)


@pytest.mark.parametrize("pid", [None, b"4HPwATDgc/ABMA", 12345])
def test_decode_position_id_rejects_non_strings(pid: Any) -> None:
    with pytest.raises(InvalidIdError, match="not a string"):
        decode_position_id(pid, WHITE)


def test_decode_position_id_rejects_bad_turn() -> None:
    with pytest.raises(ValueError, match="not a colour"):
        decode_position_id(START_ID, "red")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("board", "problem"),
    [
        (list(START_POINTS)[:25], "26 slots"),
        ([*START_POINTS, 0], "26 slots"),
        ("0" * 26, "26 slots"),
        (7, "26 slots"),
        ([*START_POINTS[:25], -1], "White's bar"),
        ([1, *START_POINTS[1:]], "Black's bar"),
        ([0, -2, 1, 0, 0, 0, 5, *START_POINTS[7:]], "White has 16 checkers"),
        ([-1, *START_POINTS[1:]], "Black has 16 checkers"),
        ([0, -2.0, *START_POINTS[2:]], "slot 1 of the board is not an int"),
        ([True, *START_POINTS[1:]], "slot 0 of the board is not an int"),
    ],
)
def test_encode_position_id_rejects(board: Any, problem: str) -> None:
    with pytest.raises(InvalidPositionError, match=problem):
        encode_position_id(board, WHITE)


# --------------------------------------------------------------------------------------------
# Position ID: properties


@st.composite
def boards(draw: st.DrawFn) -> tuple[int, ...]:
    """Random boards the ID can hold: up to 15 checkers a side, bars included, no shared point."""
    white_slots = draw(st.lists(st.integers(1, 25), max_size=15))  # 25 = White's bar
    black_slots = draw(st.lists(st.integers(0, 24), max_size=15))  # 0 = Black's bar
    board = [0] * 26
    for slot in white_slots:
        board[slot] += 1
    for slot in black_slots:
        if board[slot] <= 0:
            board[slot] -= 1
    return tuple(board)


colours = st.sampled_from([WHITE, BLACK])


@given(boards(), colours)
def test_position_id_round_trips(board: tuple[int, ...], turn: Color) -> None:
    pid = encode_position_id(board, turn)
    assert len(pid) == 14
    assert set(pid) <= set(ALPHABET)
    assert decode_position_id(pid, turn) == board


@given(boards(), colours)
def test_position_id_of_the_mirror_with_the_other_side_on_roll_is_the_same(
    board: tuple[int, ...], turn: Color
) -> None:
    assert encode_position_id(mirror(board), turn.opponent) == encode_position_id(board, turn)


@given(st.text(alphabet=ALPHABET, min_size=14, max_size=14), colours)
def test_decode_position_id_accepts_only_canonical_ids(pid: str, turn: Color) -> None:
    try:
        board = decode_position_id(pid, turn)
    except InvalidIdError:
        return
    assert encode_position_id(board, turn) == pid


@given(boards(), colours, st.integers(0, 79))
def test_one_flipped_bit_never_escapes_as_another_error(
    board: tuple[int, ...], turn: Color, bit: int
) -> None:
    key = int.from_bytes(base64.b64decode(encode_position_id(board, turn) + "=="), "little")
    flipped = base64.b64encode((key ^ (1 << bit)).to_bytes(10, "little")).decode()[:14]
    try:
        decoded = decode_position_id(flipped, turn)
    except InvalidIdError:
        return
    assert decoded != board
    assert encode_position_id(decoded, turn) == flipped


# --------------------------------------------------------------------------------------------
# Players and colours


def test_player_numbers() -> None:
    assert color_to_player(WHITE) == 0
    assert color_to_player(BLACK) == 1
    assert player_to_color(0) is WHITE
    assert player_to_color(1) is BLACK


@pytest.mark.parametrize("player", [2, -1, True, "0", None])
def test_player_to_color_rejects(player: Any) -> None:
    with pytest.raises(ValueError, match="not a player number"):
        player_to_color(player)


# --------------------------------------------------------------------------------------------
# Match ID: the oracle


def state_from_oracle(line: dict[str, Any]) -> MatchState:
    owner = line["cube_owner"]
    return MatchState(
        cube_value=line["cube_value"],
        cube_owner=None if owner == "centered" else owner,
        player_on_roll=line["player_on_roll"],
        turn=line["turn"],
        crawford=line["crawford"],
        game_state=line["game_state"],
        doubled=line["doubled"],
        resigned=line["resigned"],
        dice=tuple(line["dice"]),
        match_length=line["match_length"],
        score=tuple(line["score"]),
        # The oracle's IDs set the Jacoby rule for money play and never for matches.
        jacoby=line["match_length"] == 0,
    )


def test_match_ids_match_oracle(oracle_dir: Path) -> None:
    lines = read_jsonl(oracle_dir / "match_ids.jsonl")
    assert lines
    for number, line in enumerate(lines, start=1):
        state = state_from_oracle(line)
        assert encode_match_id(state) == line["match_id"], f"line {number}: {line}"
        # What the ID cannot hold: the order of the dice (the higher is stored first), and the
        # score in money play (written as 0-0).
        expected = dataclasses.replace(
            state,
            dice=tuple(sorted(state.dice, reverse=True)),
            score=state.score if state.match_length else (0, 0),
        )
        assert decode_match_id(line["match_id"]) == expected, f"line {number}: {line}"


def test_oracle_covers_the_awkward_cases(oracle_dir: Path) -> None:
    lines = read_jsonl(oracle_dir / "match_ids.jsonl")
    assert any(line["dice"][0] < line["dice"][1] for line in lines)
    assert any(line["match_length"] == 0 and line["score"] != [0, 0] for line in lines)
    assert {line["cube_owner"] for line in lines} == {"centered", 0, 1}


# --------------------------------------------------------------------------------------------
# Match ID: known values


def test_known_match_id_before_a_money_game() -> None:
    state = decode_match_id("cAgAAAAAAAAA")
    assert state == MatchState(
        player_on_roll=1, turn=1, game_state="none", match_length=0, jacoby=True
    )
    assert encode_match_id(state) == "cAgAAAAAAAAA"


def test_default_state() -> None:
    assert encode_match_id(MatchState()) == "MAEAAAAAAAAE"
    assert decode_match_id("  MAEAAAAAAAAE\t") == MatchState()


def test_bit_layout() -> None:
    state = MatchState(
        cube_value=8,
        cube_owner=1,
        player_on_roll=1,
        turn=0,
        crawford=True,
        game_state="playing",
        doubled=False,
        resigned=2,
        dice=(3, 5),
        match_length=9,
        score=(8, 3),
        jacoby=False,
    )
    bits = (
        "1100"  # log2(8) = 3, least significant bit first
        + "10"  # owner: player 1
        + "1"  # player on roll
        + "1"  # Crawford
        + "100"  # game state 1 = playing
        + "0"  # turn
        + "0"  # doubled
        + "01"  # resigned 2 = gammon
        + "101"  # higher die 5
        + "110"  # lower die 3
        + format(9, "015b")[::-1]
        + format(8, "015b")[::-1]
        + format(3, "015b")[::-1]
        + "1"  # the Jacoby rule is not in force
    )
    assert encode_match_id(state) == id_from_bits(bits, 12)


# --------------------------------------------------------------------------------------------
# Match ID: bad input


def key_of(mid: str) -> int:
    return int.from_bytes(base64.b64decode(mid), "little")


def mid_of(key: int) -> str:
    return base64.b64encode(key.to_bytes(9, "little")).decode()


VALID_MID = encode_match_id(MatchState(match_length=7, score=(3, 2), dice=(5, 2)))


def with_field(offset: int, width: int, value: int, mid: str = VALID_MID) -> str:
    key = key_of(mid) & ~(((1 << width) - 1) << offset)
    return mid_of(key | value << offset)


@pytest.mark.parametrize(
    ("mid", "problem"),
    [
        ("", "0 characters, expected 12"),
        ("cAgAAAAAAAA", "11 characters"),
        ("cAgAAAAAAAAAA", "13 characters"),
        ("cAgAAAAAAAA=", "'=' at position 12"),
        ("cAgA.AAAAAAA", "'.' at position 5"),
        (mid_of(key_of(VALID_MID) | 1 << 67), "bits left over after bit 66"),
        (mid_of(key_of(VALID_MID) | 1 << 71), "bits left over"),
        (with_field(4, 2, 2), "cube owner code 2"),
        (with_field(8, 3, 5), "game state code 5"),
        (with_field(8, 3, 7), "game state code 7"),
        (with_field(15, 3, 7), "dice 7 and 2"),
        (with_field(18, 3, 7), "dice 5 and 7"),
        (with_field(15, 3, 0), "dice 0 and 2"),
        (with_field(36, 15, 8), "score (8, 2) passes the match length 7"),
        (with_field(7, 1, 1, encode_match_id(MatchState())), "a Crawford game in money play"),
    ],
)
def test_decode_match_id_rejects(mid: str, problem: str) -> None:
    with pytest.raises(InvalidIdError, match="invalid Match ID") as info:
        decode_match_id(mid)
    assert repr(mid) in str(info.value)
    assert problem in str(info.value)


@pytest.mark.parametrize("mid", [None, b"cAgAAAAAAAAA", 7])
def test_decode_match_id_rejects_non_strings(mid: Any) -> None:
    with pytest.raises(InvalidIdError, match="not a string"):
        decode_match_id(mid)


def test_decode_keeps_dice_stored_low_first() -> None:
    # Older GNU Backgammon versions wrote the dice in the order rolled.
    low_first = with_field(18, 3, 5, with_field(15, 3, 2))
    assert decode_match_id(low_first).dice == (2, 5)
    assert encode_match_id(decode_match_id(low_first)) == VALID_MID


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"cube_value": 3}, "cube_value 3 is not a power of two"),
        ({"cube_value": 0}, "cube_value 0"),
        ({"cube_value": 1 << 16}, "cube_value 65536"),
        ({"cube_value": True}, "cube_value True"),
        ({"cube_owner": 2}, "cube_owner 2"),
        ({"cube_owner": "centered"}, "cube_owner 'centered'"),
        ({"player_on_roll": 2}, "player_on_roll 2"),
        ({"turn": -1}, "turn -1"),
        ({"crawford": 1}, "crawford 1 is not a bool"),
        ({"doubled": None}, "doubled None"),
        ({"game_state": "finished"}, "game_state 'finished'"),
        ({"resigned": 4}, "resigned 4"),
        ({"dice": (0, 3)}, "dice (0, 3)"),
        ({"dice": (7, 1)}, "dice (7, 1)"),
        ({"dice": (1, 2, 3)}, "dice (1, 2, 3)"),
        ({"dice": [3, 1]}, "dice [3, 1]"),
        ({"match_length": -1}, "match_length -1"),
        ({"match_length": 1 << 15}, "match_length 32768"),
        ({"match_length": 5, "score": (6, 0)}, "score (6, 0) passes the match length 5"),
        ({"score": (-1, 0)}, "score (-1, 0)"),
        ({"crawford": True}, "a Crawford game in money play"),
    ],
)
def test_match_state_rejects(fields: dict[str, Any], problem: str) -> None:
    with pytest.raises(InvalidIdError, match="not a Match ID state") as info:
        MatchState(**fields)
    assert problem in str(info.value)


def test_encode_match_id_rejects_other_types() -> None:
    with pytest.raises(TypeError, match="expected a MatchState"):
        encode_match_id({"cube_value": 1})  # type: ignore[arg-type]


def test_money_score_is_not_encoded() -> None:
    assert encode_match_id(MatchState(score=(3, 9))) == encode_match_id(MatchState())


# --------------------------------------------------------------------------------------------
# Match ID: properties


@st.composite
def match_states(draw: st.DrawFn) -> MatchState:
    length = draw(st.integers(0, 64))
    score = (draw(st.integers(0, length)), draw(st.integers(0, length))) if length else (0, 0)
    rolled = draw(st.booleans())
    high = draw(st.integers(1, 6)) if rolled else 0
    low = draw(st.integers(1, high)) if rolled else 0
    return MatchState(
        cube_value=1 << draw(st.integers(0, 15)),
        cube_owner=draw(st.sampled_from([None, 0, 1])),
        player_on_roll=draw(st.integers(0, 1)),
        turn=draw(st.integers(0, 1)),
        crawford=draw(st.booleans()) if length else False,
        game_state=draw(st.sampled_from(GAME_STATES)),
        doubled=draw(st.booleans()),
        resigned=draw(st.integers(0, 3)),
        dice=(high, low),
        match_length=length,
        score=score,
        jacoby=draw(st.booleans()),
    )


@given(match_states())
def test_match_id_round_trips(state: MatchState) -> None:
    mid = encode_match_id(state)
    assert len(mid) == 12
    assert set(mid) <= set(ALPHABET)
    assert decode_match_id(mid) == state


@given(st.text(alphabet=ALPHABET, min_size=12, max_size=12))
def test_decode_match_id_fuzz(mid: str) -> None:
    try:
        state = decode_match_id(mid)
    except InvalidIdError:
        return
    if state.dice[0] >= state.dice[1] and (state.match_length or state.score == (0, 0)):
        assert encode_match_id(state) == mid
