"""The rules of play: GNU Backgammon's legal plays, hand-drawn cases for each rule, properties."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon import (
    BLACK,
    START_POINTS,
    WHITE,
    Color,
    IllegalMoveError,
    InvalidDiceError,
    InvalidPositionError,
    LegalPlays,
    Move,
    Play,
    Position,
    legal_moves,
    legal_plays,
)
from backgammon.core import moves as moves_module
from backgammon.core.moves import apply_play, legal_paths
from boards import diagram
from conftest import read_jsonl


def results(position: Position, dice: tuple[int, int]) -> set[str]:
    return {str(play) for play in legal_plays(position, dice)}


# --------------------------------------------------------------------------------------------
# The reference data: GNU Backgammon's legal plays, in full


def _oracle(shared_dir: Path, name: str) -> list[dict[str, Any]]:
    path = shared_dir / "oracle" / name
    if not path.exists():
        pytest.skip(f"reference data not found: {path} is missing")
    return read_jsonl(path)


@pytest.mark.parametrize("name", ["legal_plays.jsonl", "endgame_plays.jsonl"])
def test_oracle_result_sets_equal_gnubg(shared_dir: Path, name: str) -> None:
    rows = _oracle(shared_dir, name)
    assert len(rows) == {"legal_plays.jsonl": 2542, "endgame_plays.jsonl": 600}[name]
    mismatches = []
    for number, row in enumerate(rows, start=1):
        position = Position.from_points(row["board"], row["turn"])
        assert list(position.off) == row["off"], f"line {number}: off"
        assert position.id() == row["position_id"], f"line {number}: Position ID"
        legal = legal_plays(position, row["dice"])
        got = {play.result.points for play in legal}
        expected = {tuple(play["result"]) for play in row["plays"]}
        if got != expected or len(legal) != len(row["plays"]):
            mismatches.append((number, row["dice"], len(got), len(expected)))
        assert bool(legal) == bool(row["plays"])
    assert mismatches == []


def test_oracle_result_ids_and_gnubg_strings_parse(shared_dir: Path) -> None:
    rows = _oracle(shared_dir, "legal_plays.jsonl")
    checked = 0
    for number, row in enumerate(rows, start=1):
        position = Position.from_points(row["board"], row["turn"])
        legal = legal_plays(position, row["dice"])
        for expected in row["plays"]:
            play = legal.by_result(
                Position.from_points(expected["result"], row["turn"])
            )
            assert play is not None, f"line {number}: {expected['move']}"
            assert play.result.with_turn(position.turn.opponent).id() == expected["result_id"]
            parsed = play.from_str(expected["move"], position, row["dice"])
            assert parsed.result.points == tuple(expected["result"]), (
                f"line {number}: {expected['move']!r} parsed to {parsed}"
            )
            checked += 1
    assert checked == sum(len(row["plays"]) for row in rows) > 40_000


def test_oracle_plays_format_then_parse_round_trip(shared_dir: Path) -> None:
    rows = _oracle(shared_dir, "legal_plays.jsonl") + _oracle(shared_dir, "endgame_plays.jsonl")
    for row in rows[::3]:
        position = Position.from_points(row["board"], row["turn"])
        legal = legal_plays(position, row["dice"])
        for play in legal:
            again = legal.by_result(play.result)
            assert again is not None
            assert play.from_str(str(play), position, row["dice"]) == play, str(play)


def test_apply_play_round_trip(shared_dir: Path) -> None:
    rows = _oracle(shared_dir, "legal_plays.jsonl")
    for row in rows[::10]:
        position = Position.from_points(row["board"], row["turn"])
        for play in legal_plays(position, row["dice"]):
            assert apply_play(position, play.moves) == play.result
            rolled = Counter(row["dice"] * 2 if row["dice"][0] == row["dice"][1] else row["dice"])
            assert not Counter(play.dice_used) - rolled
            if len(row["plays"]) > 40:
                continue  # the step-by-step check below is slow for the big doubles
            # each play's own moves are a sequence legal_moves offers, step by step
            left = list(rolled.elements())
            for index, move in enumerate(play.moves):
                assert move in legal_moves(position, left, play.moves[:index])
                left.remove(move.die)


def test_opening_rolls_match_gnubg_counts(shared_dir: Path) -> None:
    rows = _oracle(shared_dir, "legal_plays.jsonl")[:42]
    for row in rows:
        position = Position.start(row["turn"])
        assert len(legal_plays(position, row["dice"])) == len(row["plays"])


# --------------------------------------------------------------------------------------------
# Hand-drawn positions, one rule each (WBF rules 3 and 4)


def test_start_position_31_has_16_plays_including_making_the_5_point() -> None:
    plays = results(Position.start(), (3, 1))
    assert len(plays) == 16
    assert "8/5 6/5" in plays
    assert "24/20" in plays  # one checker moved by both dice


def test_a_single_die_bear_off_is_recorded_with_the_larger_die() -> None:
    # The last checker on the 1-point with 5-4: either die bears it off; the play names the 5.
    position = diagram(white="1:1", black="1:15")
    (play,) = legal_plays(position, (4, 5))
    assert play.moves == (Move(1, 0, 5),)
    assert legal_moves(position, (4, 5)) == [Move(1, 0, 5)]


def test_forced_larger_die_when_only_one_die_can_be_played() -> None:
    # White's last checker on its 10-point, Black holds White's 1-point (Black's 24-point):
    # 10/4 or 10/7 alone, never both (4/1 and 7/1 are blocked): the 6 must be played.
    position = diagram(white="10:1", black="24:2 6:13")
    assert results(position, (6, 3)) == {"10/4"}
    assert [str(m) for m in legal_moves(position, (6, 3))] == ["10/4"]


def test_smaller_die_when_the_larger_cannot_be_played() -> None:
    # 10/4 is blocked (Black holds White's 4-point = Black's 21-point); 10/7 is open.
    position = diagram(white="10:1", black="24:2 21:2 6:11")
    assert results(position, (6, 3)) == {"10/7"}


def test_only_one_order_uses_both_dice() -> None:
    # 13/7 is blocked by Black's 18-point (White's 7): the 2 must be played first, and 6/4
    # would strand the 6 (6/off is not allowed with a checker outside the home board).
    position = diagram(white="13:1 6:14", black="18:2 1:13")
    assert results(position, (6, 2)) == {"13/5"}
    assert [str(m) for m in legal_moves(position, (6, 2))] == ["13/11"]
    assert legal_moves(position, (6,), [Move(13, 11, 2)]) == [Move(11, 5, 6)]


def test_die_order_must_not_strand_a_die() -> None:
    # 6-1 with one checker: 8/7 first would leave the 6 unplayable (7/1 blocked) but
    # 8/2 then 2/1 is fine, so only the 6 can start the turn.
    position = diagram(white="8:1", black="18:2 1:13")
    assert results(position, (6, 1)) == {"8/1"}
    assert [str(m) for m in legal_moves(position, (6, 1))] == ["8/2"]


def test_entering_against_a_partly_closed_board() -> None:
    # Black holds its 19..22-points (White's 6..3): White enters only on 23 and 24 (die 2, 1).
    position = diagram(white="bar:1 13:14", black="3:2 4:2 5:2 6:2 24:7")
    assert results(position, (6, 3)) == set()
    assert results(position, (6, 2)) == {"bar/17", "bar/23 13/7"}
    plays = results(position, (2, 1))
    assert "bar/23 13/12" in plays and "bar/24 13/11" in plays and "bar/22" not in plays
    # With two on the bar, both must enter before anything else moves.
    two = diagram(white="bar:2 13:13", black="3:2 4:2 5:2 6:2 24:7")
    assert results(two, (2, 1)) == {"bar/24 bar/23"}
    assert results(two, (6, 1)) == {"bar/24"}


def test_entering_against_a_closed_board_passes() -> None:
    position = diagram(white="bar:1 13:14", black="1:2 2:2 3:2 4:2 5:2 6:2 24:3")
    for high in range(1, 7):
        for low in range(1, high + 1):
            legal = legal_plays(position, (high, low))
            assert not legal and legal.must_pass
            assert legal_moves(position, (high, low)) == []


@pytest.mark.parametrize(
    ("white", "black", "dice", "moves"),
    [
        # 0: a checker on the bar against a closed board
        ("bar:1 6:14", "1:2 2:2 3:2 4:2 5:2 6:2 24:3", (5, 5), 0),
        # 1: bar/20, then 20/15 is blocked (Black's 10-point) and 6/1 too (Black's 24-point)
        ("bar:1 6:14", "10:2 24:2 1:11", (5, 5), 1),
        # 2: 13/9/5, then 5/1 (Black's 24-point) and 24/20 (Black's 5-point) are blocked
        ("24:14 13:1", "5:2 24:2 14:11", (4, 4), 2),
        # 3: 16/13/10/7, then 7/4 (Black's 21-point) and 24/21 (Black's 4-point) are blocked
        ("24:14 16:1", "4:2 21:2 3:11", (3, 3), 3),
        # 4: two checkers home from the 13-point
        ("13:2", "24:2 1:13", (5, 5), 4),
    ],
)
def test_doubles_use_as_many_moves_as_possible(
    white: str, black: str, dice: tuple[int, int], moves: int
) -> None:
    position = diagram(white=white, black=black)
    legal = legal_plays(position, dice)
    assert {len(play) for play in legal} == ({moves} if moves else set())
    if moves == 1:
        assert [str(p) for p in legal] == ["bar/20"]


def boards(*whites: str, black: str = "24:15") -> set[Position]:
    return {diagram(white=white, black=black) for white in whites}


def result_set(position: Position, dice: tuple[int, int]) -> set[Position]:
    return {play.result for play in legal_plays(position, dice)}


def test_bearing_off_with_the_exact_die() -> None:
    position = diagram(white="6:1 4:1 2:1", black="24:15")
    assert "6/off 4/off" in results(position, (6, 4))


def test_bearing_off_with_a_larger_die_takes_the_highest_checker() -> None:
    position = diagram(white="4:1 2:1", black="24:15")
    assert result_set(position, (6, 5)) == boards("")


def test_smaller_dice_move_inside_when_nothing_stands_on_their_point() -> None:
    position = diagram(white="6:2", black="24:15")
    assert result_set(position, (2, 1)) == boards("5:1 4:1", "6:1 3:1")
    assert results(position, (2, 1)) == {"6/5 6/4", "6/3"}


def test_a_larger_die_cannot_bear_off_a_lower_checker_while_a_higher_one_stands() -> None:
    # 6-1 with checkers on 5 and 3: 5/off 3/2, or 5/4 and then the 6 from the 4-point;
    # 3/off with the 6 is never possible while the 5-point is occupied.
    position = diagram(white="5:1 3:1", black="24:15")
    assert result_set(position, (6, 1)) == boards("2:1", "3:1")
    assert results(position, (6, 1)) == {"5/off 3/2", "5/off"}


def test_bearing_off_needs_all_checkers_home() -> None:
    # 6-1 with one checker on 7: it must come home before anything bears off.
    position = diagram(white="7:1 6:14", black="1:15")
    assert result_set(position, (6, 1)) == boards("6:14", "6:13 5:1 1:1", black="1:15")
    assert results(position, (6, 1)) == {"7/off", "7/1 6/5"}


def test_hit_during_bear_off_must_come_round_first() -> None:
    # White was hit while bearing off: the checker enters and runs; nothing bears off.
    position = diagram(white="bar:1 6:14", black="24:15")
    assert result_set(position, (6, 5)) == boards("14:1 6:14")


def test_last_checker_uses_both_dice_even_when_bearing_off() -> None:
    # oracle/README.md: last checker on the 2-point, an opposing blot on the 1-point, 6-1.
    position = diagram(white="2:1", black="24:1 1:14")
    assert results(position, (6, 1)) == {"2/1*/off"}


def test_hits_send_blots_to_the_bar() -> None:
    position = diagram(white="13:15", black="18:1 1:14")  # Black's 18 is White's 7
    play = next(p for p in legal_plays(position, (6, 5)) if str(p) == "13/8 13/7*")
    assert play.result.points[0] == -1  # Black's bar
    assert play.moves[0].hit


@pytest.mark.parametrize("turn", [WHITE, BLACK])
def test_built_plays_are_ordinary_immutable_values(turn: Color) -> None:
    # legal_plays builds Plays without their __init__ and Positions by a shortcut
    # (position._Unsealed): what comes out must be the real, sealed thing, off counts included.
    bearing_off = [0, 2, 2, 2, 3, 3, 3, *[0] * 5, -3, *[0] * 5, -2, -5, -2, -2, -1, 0, 0, 0]
    for points in (bearing_off, list(START_POINTS)):
        white = Position.from_points(points, WHITE)
        position = white if turn is WHITE else white.mirror()
        for dice in [(6, 4), (5, 5), (2, 1)]:
            fresh = legal_plays(position, dice)  # one play at a time, none built before
            alone = [fresh[-1], fresh.by_result(fresh[0].result)]
            legal = legal_plays(position, dice)
            for play in [*legal, legal[0], legal.by_result(legal[-1].result), *alone]:
                assert play is not None
                result = play.result
                assert type(play) is Play and type(result) is Position
                rebuilt = Position.from_points(result.points, result.turn)
                assert result == rebuilt and hash(result) == hash(rebuilt)
                assert result.off == rebuilt.off
                assert result.own_points(turn) == rebuilt.own_points(turn)
                assert result.own_points(turn.opponent) == rebuilt.own_points(turn.opponent)
                with pytest.raises(AttributeError):
                    play.result = position  # type: ignore[misc]
                with pytest.raises(AttributeError):
                    play.position = position  # type: ignore[misc]
                with pytest.raises(AttributeError):
                    play.anything = 1  # type: ignore[attr-defined]
                with pytest.raises(AttributeError):
                    result.points = position.points  # type: ignore[misc]


def test_black_moves_use_black_numbering() -> None:
    start = Position.start(BLACK)
    plays = {str(p): p for p in legal_plays(start, (3, 1))}
    play = plays["8/5 6/5"]
    # Black's 5-point is White's 20-point
    assert play.result.points[20] == -2
    assert play.result.pip_count(BLACK) == 167 - 4


# --------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    "dice", [(0, 3), (7, 1), (1,), (1, 2, 3), "31", (1.0, 2), (True, 2), None, (3, -1)]
)
def test_bad_dice_are_refused(dice: Any) -> None:
    with pytest.raises(InvalidDiceError):
        legal_plays(Position.start(), dice)


def test_not_a_position_is_refused() -> None:
    with pytest.raises(InvalidPositionError):
        legal_plays([0] * 26, (3, 1))  # type: ignore[arg-type]


def test_played_moves_that_are_not_legal_are_refused() -> None:
    with pytest.raises(IllegalMoveError, match="6/off is not a legal move"):
        legal_moves(Position.start(), (5,), [Move(6, 0, 6)])
    with pytest.raises(IllegalMoveError, match="12/6"):
        legal_moves(Position.start(), (5,), [Move(12, 6, 6)])
    with pytest.raises(IllegalMoveError, match="after 24/18"):
        legal_moves(Position.start(), (6, 6), [Move(24, 18, 6), Move(18, 12, 6)])


# --------------------------------------------------------------------------------------------
# One mechanism: legal_moves and legal_plays never disagree


def _plays_by_moves(position: Position, dice: tuple[int, int]) -> set[tuple[int, ...]]:
    full = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    found: set[tuple[int, ...]] = set()

    def walk(played: list[Move], left: list[int]) -> None:
        options = legal_moves(position, left, played)
        if not options:
            found.add(apply_play(position, played).points)
            return
        for move in options:
            rest = list(left)
            rest.remove(move.die)
            walk([*played, move], rest)

    walk([], full)
    return found


def test_legal_moves_build_exactly_the_legal_plays(shared_dir: Path) -> None:
    rows = _oracle(shared_dir, "legal_plays.jsonl") + _oracle(shared_dir, "endgame_plays.jsonl")
    compared = 0
    for row in rows:
        if len(row["plays"]) > 30:
            continue  # keep the test quick: the big doubles are covered by the oracle test
        position = Position.from_points(row["board"], row["turn"])
        expected = {tuple(p["result"]) for p in row["plays"]} or {position.points}
        assert _plays_by_moves(position, tuple(row["dice"])) == expected
        compared += 1
    assert compared == 2736


# --------------------------------------------------------------------------------------------
# The fast paths of legal_plays against the general search they shortcut


def _entries(legal: LegalPlays) -> list[Any]:
    """What legal_plays found: (result board in the mover's numbering, raw moves), in order."""
    return list(zip(legal._keys, legal._raws, strict=True))


def _general_entries(position: Position, dice: tuple[int, int]) -> list[Any]:
    """legal_plays' entries as the general search alone finds them (no fast path)."""
    d1, d2 = dice
    board = list(position.own_points(position.turn))
    high, low = max(dice), min(dice)
    best, found = moves_module._search(board, (d1,) * 4 if d1 == d2 else (high, low))
    entries = list(found.items())
    if best == 1 and d1 != d2 and any(raw[0][2] == high for _, raw in entries):
        entries = [(key, raw) for key, raw in entries if raw[0][2] == high]
    return entries


def test_fast_paths_find_what_the_general_search_finds(shared_dir: Path) -> None:
    """Same plays, in the same order, with the same recorded moves: on every reference line
    (both orders of the dice) and on every roll of the positions of seeded random games."""
    rows = _oracle(shared_dir, "legal_plays.jsonl") + _oracle(shared_dir, "endgame_plays.jsonl")
    cases = []
    for row in rows:
        position = Position.from_points(row["board"], row["turn"])
        d1, d2 = row["dice"]
        cases += [(position, (d1, d2)), (position, (d2, d1))]
    rolls = [(a, b) for a in range(1, 7) for b in range(a, 7)]
    for seed in range(12):
        cases += [(position, roll) for position, _, _ in _random_game(seed) for roll in rolls]
    differ = [
        (position.id(), dice)
        for position, dice in cases
        if _entries(legal_plays(position, dice)) != _general_entries(position, dice)
    ]
    assert not differ, f"{len(differ)} of {len(cases)} differ, e.g. {differ[:5]}"


def test_legal_paths_at_the_start_with_6_5() -> None:
    paths = {"/".join([str(p[0]).split("/")[0], *(str(m).split("/")[1] for m in p)])
             for p in legal_paths(Position.start(), (6, 5))}
    # one checker by one die, or on by the other die; Black's 6-point (our 19) and 24-point
    # (our 1) are blocked, so the back checker runs 24/18/13 only, and 6/1 is no move
    assert paths == {"24/18", "24/18/13", "13/7", "13/7/2", "13/8", "13/8/2", "8/2", "8/3"}


def test_legal_paths_step_by_step_are_legal_next_moves(shared_dir: Path) -> None:
    rows = _oracle(shared_dir, "legal_plays.jsonl") + _oracle(shared_dir, "endgame_plays.jsonl")
    checked = 0
    for row in rows[::4]:
        position = Position.from_points(row["board"], row["turn"])
        dice = row["dice"]
        full = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
        paths = legal_paths(position, full)
        singles = [p[0] for p in paths if len(p) == 1]
        assert singles == legal_moves(position, full)
        assert len(set(paths)) == len(paths)
        for path in paths:
            assert all(m.from_point == b.to_point for b, m in itertools.pairwise(path))
            if len(row["plays"]) > 30:
                continue  # the step-by-step check is slow for the big doubles
            left = list(full)
            for index, move in enumerate(path):
                assert move in legal_moves(position, left, path[:index])
                left.remove(move.die)
            checked += 1
    assert checked == 4074


# --------------------------------------------------------------------------------------------
# Properties of random games


def _random_game(seed: int) -> list[tuple[Position, tuple[int, int], Any]]:
    rng = random.Random(seed)
    position = Position.start(WHITE if seed % 2 else BLACK)
    turns = []
    for _ in range(400):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        legal = legal_plays(position, dice)
        play = rng.choice(list(legal)) if legal else None
        turns.append((position, dice, play))
        after = play.result if play else position
        if after.off[0] == 15 or after.off[1] == 15:
            break
        position = after.with_turn(position.turn.opponent)
    return turns


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_random_games_keep_the_invariants(seed: int) -> None:
    turns = _random_game(seed)
    last_position, _, last_play = turns[-1]
    final = last_play.result if last_play else last_position
    assert 15 in final.off, "a random game ends with one side off within 400 turns"
    for position, dice, play in turns:
        moves = legal_moves(position, dice)
        assert bool(moves) == (play is not None)
        if play is None:
            continue
        result = play.result
        white = sum(c for c in result.points if c > 0) + result.off[0]
        black = -sum(c for c in result.points if c < 0) + result.off[1]
        assert (white, black) == (15, 15)
        mover = position.turn
        assert position.pip_count(mover) - result.pip_count(mover) == play.pips
        expected_dice = 4 if dice[0] == dice[1] else 2
        assert len(play) <= expected_dice
        assert result.points[25] >= 0 and result.points[0] <= 0
        assert Position.from_points(result.points, result.turn) == result
