"""XGID: known values, every field, bad input naming the field, round trips through GNU
Backgammon's Position ID and Match ID, and GNU Backgammon's own ``set xgid``."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import pytest

from backgammon.core.errors import InvalidIdError
from backgammon.core.ids import decode_match_id
from backgammon.core.moves import legal_plays
from backgammon.core.position import Position
from backgammon.core.types import BLACK, WHITE
from backgammon.core.xgid import Xgid, looks_like_xgid
from boards import diagram
from gnubg_support import needs_gnubg, run_gnubg

START = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_the_starting_position() -> None:
    assert Position.start().xgid() == START
    assert Position.from_xgid(START) == Position.start()
    black = Position.from_xgid(START.replace(":1:00:", ":-1:00:"))
    assert black == Position.start(BLACK) and black.xgid() == START.replace(":1:00:", ":-1:00:")


def test_every_field_of_a_known_xgid() -> None:
    # Black has one checker on its bar (character 1 'a'), White one on its bar (character 26
    # 'A'); Black owns a 4-cube; Black on roll with 6-2 at 3-1 in a 7-point match; maximum cube
    # 256.
    text = "XGID=aa----E-C---eE---c-e----AA:2:-1:-1:62:3:1:0:7:8"
    xgid = Xgid.parse(text)
    assert xgid.position.points == (-1, -1, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3,
                                    0, -5, 0, 0, 0, 0, 1, 1)
    assert xgid.position.turn is BLACK and xgid.position.off == (0, 0)
    assert (xgid.cube_value, xgid.cube_owner, xgid.cube_action) == (4, BLACK, None)
    assert (xgid.dice, xgid.score, xgid.match_length, xgid.max_cube) == ((6, 2), (3, 1), 7, 256)
    assert not (xgid.crawford or xgid.jacoby or xgid.beavers)
    assert str(xgid) == text
    # Without the prefix, with space around it, and the D of a double.
    doubled = Xgid.parse("  -b----E-C---eE---c-e----B-:1:1:1:D:0:0:3:0:10 ")
    assert (doubled.cube_value, doubled.cube_owner, doubled.cube_action) == (2, WHITE, "double")
    assert doubled.jacoby and doubled.beavers and doubled.dice is None
    beaver = Xgid.parse("-b----E-C---eE---c-e----B-:0:0:-1:B:0:0:2:0:10")
    assert beaver.cube_action == "beaver" and beaver.beavers and not beaver.jacoby


def test_crawford_and_borne_off_checkers() -> None:
    race = diagram(white="6:5 5:5 4:3", black="6:4 5:4 4:4", turn="white")
    xgid = Xgid(position=race, score=(4, 2), match_length=5, crawford=True, dice=(5, 3))
    assert str(xgid) == "XGID=----CEE------------ddd----:0:0:1:53:4:2:1:5:10"
    again = Xgid.parse(str(xgid))
    assert again == xgid and again.position.off == (2, 3)


def random_position(rng: random.Random) -> Position:
    """A position from a seeded random game: hits, bars, borne-off checkers."""
    position = Position.start(rng.choice((WHITE, BLACK)))
    for _ in range(rng.randrange(0, 120)):
        plays = legal_plays(position, (rng.randint(1, 6), rng.randint(1, 6)))
        if plays:
            result = rng.choice(list(plays)).result
            if min(result.off) == 15 or max(result.off) == 15:
                break
            position = result.with_turn(position.turn.opponent)
        else:
            position = position.with_turn(position.turn.opponent)
    return position


def random_xgid(seed: int) -> Xgid:
    """A seeded XGID with a random match context that a game can be in."""
    rng = random.Random(seed)
    position = random_position(rng)
    length = rng.choice((0, 0, 1, 3, 5, 7, 11))
    score = (0, 0)
    crawford = False
    if length:
        score = (rng.randrange(length), rng.randrange(length))
        crawford = length > 1 and [s == length - 1 for s in score].count(True) == 1 and (
            rng.random() < 0.5)
    cube_value, owner = 1, None
    if not crawford and rng.random() < 0.6:
        cube_value = 1 << rng.randrange(0, 6)
        owner = None if cube_value == 1 else rng.choice((WHITE, BLACK))
    action = None
    dice: tuple[int, int] | None = None
    if rng.random() < 0.2 and not crawford and owner is not position.turn.opponent:
        action = "double"
    elif rng.random() < 0.6:
        high = rng.randint(1, 6)
        dice = (high, rng.randint(1, high))
    return Xgid(position=position, cube_value=cube_value, cube_owner=owner, cube_action=action,
                dice=dice, score=score, match_length=length, crawford=crawford,
                jacoby=not length and rng.random() < 0.5)


@pytest.mark.parametrize("seed", range(40))
def test_text_round_trip(seed: int) -> None:
    xgid = random_xgid(seed)
    assert Xgid.parse(str(xgid)) == xgid
    assert Position.from_xgid(str(xgid)) == xgid.position


@pytest.mark.parametrize("seed", range(40))
def test_round_trip_through_gnubg_ids(seed: int) -> None:
    xgid = random_xgid(seed)
    again = Xgid.from_gnubg_ids(xgid.position_id(), xgid.match_id())
    assert again == xgid
    state = decode_match_id(xgid.match_id())
    assert state.player_on_roll == (0 if xgid.position.turn is WHITE else 1)
    assert state.doubled == (xgid.cube_action == "double")
    assert state.score == (xgid.score if xgid.match_length else (0, 0))


def test_gnubg_ids_of_a_pending_double() -> None:
    # As GNU Backgammon writes them: the Position ID from the doubler's side, the Match ID
    # with the doubler on roll and the opponent to act.
    xgid = Xgid.parse("XGID=-b----E-C---eE---c-e----B-:0:0:-1:D:2:1:0:5:10")
    assert xgid.position_id() == Position.start(BLACK).id()
    state = decode_match_id(xgid.match_id())
    assert (state.player_on_roll, state.turn, state.doubled) == (1, 0, True)
    with pytest.raises(InvalidIdError, match="cannot hold a pending beaver"):
        Xgid.parse("-b----E-C---eE---c-e----B-:0:0:-1:B:0:0:2:0:10").match_id()


BAD = [
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0", None, "9 fields separated by ':'"),
    ("XGID=-b----E-C---eE---c-e---B-:0:0:1:00:0:0:0:0:10", 1, "25 characters, expected 26"),
    ("XGID=-b----E-C---eE---c-e----Z-:0:0:1:00:0:0:0:0:10", 1, "character 25 is 'Z'"),
    ("XGID=-b----E-C---eE---c-e----F-:0:0:1:00:0:0:0:0:10", 1, "White has 19 checkers"),
    ("XGID=A-----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", 1, "Black's bar) holds White's"),
    ("XGID=-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:0:10", 1, "White's bar) holds Black's"),
    ("XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10", 2, "'x' is not a number"),
    ("XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10", 3, "'2' is not a number from -1"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10", 4, "'0' is not 1 (White) or -1"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10", 5, "'70' is not 00, two dice"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:-1:0:0:0:10", 6, "'-1' is not a number from 0"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:4:0:10", 8, "'4' is not a number from 0 "),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:5:10", 8, "2 in a match"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:y:10", 9, "'y' is not a number"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:16", 10, "'16' is not a number"),
]


@pytest.mark.parametrize(("text", "field", "message"), BAD)
def test_bad_fields_are_named(text: str, field: int | None, message: str) -> None:
    with pytest.raises(InvalidIdError) as info:
        Xgid.parse(text)
    error = str(info.value)
    assert error.startswith(f"invalid XGID {text!r}: ")
    if field is not None:
        assert f"field {field} (" in error
    assert message in error


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("-b----E-C---eE---c-e----B-:0:0:1:00:5:0:0:5:10", "fields 6 and 7 (score): 5-0 has "
         "already won a 5-point match"),
        ("-b----E-C---eE---c-e----B-:0:0:1:00:0:0:1:5:10", "field 8 (Crawford): a Crawford "
         "game at 0-0"),
        ("-b----E-C---eE---c-e----B-:1:1:1:00:4:0:1:5:10", "a cube turned in the Crawford"),
        ("-b----E-C---eE---c-e----B-:1:-1:1:D:0:0:0:0:10", "White doubles while Black owns"),
        ("-b----E-C---eE---c-e----B-:0:0:1:B:0:0:1:0:10", "a beaver without beavers allowed"),
        ("-b----E-C---eE---c-e----B-:11:1:1:00:0:0:0:0:10", "field 2 (cube): 2048 is not a "
         "power of two up to the maximum cube 1024"),
    ],
)
def test_fields_that_contradict_each_other(text: str, message: str) -> None:
    with pytest.raises(InvalidIdError, match=re.escape(message)):
        Xgid.parse(text)


def test_looks_like_xgid() -> None:
    assert looks_like_xgid(START) and looks_like_xgid(START.removeprefix("XGID="))
    assert not looks_like_xgid("4HPwATDgc/ABMA") and not looks_like_xgid("4HPwATDgc/ABMA:cAkA")


def test_constructing_a_bad_xgid_raises() -> None:
    message = "field 5 (dice): dice 52 with a double pending"
    with pytest.raises(InvalidIdError, match=re.escape(message)):
        Xgid(position=Position.start(), dice=(5, 2), cube_action="double")
    good = Xgid(position=Position.start())
    with pytest.raises(InvalidIdError, match="field 9"):
        dataclasses.replace(good, match_length=-1)


# --------------------------------------------------------------------------------------------
# GNU Backgammon reads our XGIDs


def gnubg_ids(xgids: list[str], workdir: Path) -> list[tuple[str, str]]:
    """The Position ID and Match ID gnubg shows after ``set xgid`` of each XGID."""
    commands: list[str] = []
    for text in xgids:
        commands += [f"set xgid {text}", "show board", "show turn"]
    output = run_gnubg(commands, workdir)
    # Each "show turn" line closes one XGID's output; its last board is the one set.
    chunks = re.split(r"^.* (?:in|is) on (?:move|roll)\.?$", output, flags=re.MULTILINE)
    found = []
    for chunk in chunks[: len(xgids)]:
        pids = re.findall(r"Position ID: (\S{14})", chunk)
        mids = re.findall(r"Match ID   : (\S{12})", chunk)
        assert pids and mids, chunk
        found.append((pids[-1], mids[-1]))
    assert len(found) == len(xgids), output
    return found


@needs_gnubg
def test_gnubg_set_xgid_gives_the_same_ids(tmp_path: Path) -> None:
    xgids = [random_xgid(seed) for seed in range(60)]
    # Crawford games with the cube at 1 centred and no double pending: gnubg steps back from a
    # pending double, so the Match ID is compared without one.
    texts = [str(x) for x in xgids]
    for xgid, (pid, mid) in zip(xgids, gnubg_ids(texts, tmp_path), strict=True):
        assert pid == xgid.position_id(), str(xgid)
        theirs = decode_match_id(mid)
        ours = decode_match_id(xgid.match_id())
        # gnubg makes the player on roll its player 1: swap its players to compare.
        if theirs.player_on_roll != ours.player_on_roll:
            theirs = dataclasses.replace(
                theirs, player_on_roll=1 - theirs.player_on_roll, turn=1 - theirs.turn,
                cube_owner=None if theirs.cube_owner is None else 1 - theirs.cube_owner,
                score=(theirs.score[1], theirs.score[0]))
        if xgid.cube_action == "double":
            ours = dataclasses.replace(ours, doubled=False, turn=ours.player_on_roll)
        assert theirs == ours, str(xgid)


@pytest.mark.parametrize(("field", "name"), [
    (1, "cube"), (5, "White's score"), (8, "match length"), (9, "maximum cube"), (4, "dice"),
    (3, "player on roll")])
def test_a_field_of_5000_digits_is_refused_in_a_short_message(field: int, name: str) -> None:
    # Python refuses to convert numbers past 4,300 digits with an unworded ValueError; the
    # parser refuses them first, and quotes only the start of the ID and of the field
    fields = ["XGID=-b----E-C---eE---c-e----B-", "0", "0", "1", "31", "0", "0", "0", "5", "10"]
    fields[field] = "9" * 5000
    with pytest.raises(InvalidIdError) as refused:
        Xgid.parse(":".join(fields))
    message = str(refused.value)
    assert f"field {field + 1} ({name}" in message and "'999999999999…'" in message
    assert len(message) < 200
