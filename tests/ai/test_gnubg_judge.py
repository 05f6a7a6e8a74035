"""The outside judge (``bench/gnubg_judge.py``): our boards on GNU Backgammon's board.

Checked against gnubg itself: its Position IDs of our boards are our Position IDs, on thousands
of positions from seeded random games and from the reference data; its own move generator,
given our board, finds as many plays as ours and scores them as the judge scores our resulting
positions. Skipped when the ``gnubg`` package is not installed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from backgammon import BLACK, WHITE, Position, legal_plays
from backgammon.core.game import Game, GameSettings, Phase
from backgammon.core.position import outcome
from boards import diagram
from conftest import bench_module, read_jsonl, shared_path

gnubg = pytest.importorskip(
    "gnubg", reason="GNU Backgammon's Python package is not installed (pip install gnubg; "
    "it is in the [dev] extras)"
)
judge = bench_module("gnubg_judge")

#: Our score of a play may differ from gnubg's own move search by this much (points): gnubg
#: scores candidate plays with incremental net arithmetic, a few plays in a thousand off by
#: up to about 0.0012 from a fresh evaluation of the same position.
SEARCH_TOLERANCE = 0.002


def random_positions(games: int, seed: int) -> Iterator[tuple[Position, tuple[int, int]]]:
    """Every position of ``games`` seeded games of random legal plays (contact, hits, the bar,
    bear-offs), each with the roll thrown there."""
    rng = random.Random(seed)
    for _ in range(games):
        position = Position.start(WHITE if rng.random() < 0.5 else BLACK)
        while outcome(position) is None:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            yield position, dice
            legal = legal_plays(position, dice)
            after = rng.choice(list(legal)).result if legal else position
            position = after.with_turn(position.turn.opponent)


def test_a_drawn_board_maps_slot_by_slot() -> None:
    position = diagram(white="bar:1 2:3 6:4 8:2 24:1", black="bar:2 3:1 5:3 13:4")
    white = (0, 3, 0, 0, 0, 4, 0, 2, *(0,) * 15, 1, 1)
    black = (0, 0, 1, 0, 3, *(0,) * 7, 4, *(0,) * 11, 2)
    assert judge.gnubg_board(position) == (black, white)  # (not on roll, on roll)
    assert judge.gnubg_board(position.with_turn(BLACK)) == (white, black)
    assert gnubg.positionid(judge.gnubg_board(position)) == position.id()
    # after a play the opponent is on roll: the board gnubg evaluates is the swapped one
    assert judge.board_after(position) == (white, black)


def test_gnubg_position_ids_of_our_boards_are_our_ids_in_random_games() -> None:
    checked = 0
    for position, _ in random_positions(40, seed=14):
        board = judge.gnubg_board(position)
        assert gnubg.positionid(board) == position.id(), repr(position)
        assert tuple(map(tuple, gnubg.positionfromid(position.id()))) == board
        checked += 1
    assert checked > 2000


@pytest.mark.parametrize("name", ["legal_plays.jsonl", "endgame_plays.jsonl"])
def test_gnubg_position_ids_of_the_reference_positions_and_their_plays(name: str) -> None:
    path = shared_path("oracle", name)
    checked = 0
    for line in read_jsonl(path):
        position = Position.from_points(line["board"], turn=line["turn"])
        assert gnubg.positionid(judge.gnubg_board(position)) == line["position_id"]
        for play in line["plays"]:
            # the result as a Play has it (the mover still to move); result_id has the
            # opponent on roll, the board the judge evaluates
            result = Position.from_points(play["result"], turn=line["turn"])
            assert gnubg.positionid(judge.board_after(result)) == play["result_id"]
            checked += 1
    assert checked > 2500  # 2,903 plays in the end-game file, 44,655 in the other


def test_gnubg_scores_our_plays_as_its_own_move_search_does() -> None:
    ranker = judge.Judge(plies=0)
    context = judge.eval_context(0)
    checked = 0
    for position, dice in list(random_positions(6, seed=3))[::3]:
        legal = legal_plays(position, dice)
        if not legal:
            continue
        theirs = gnubg.findbestmoves(judge.gnubg_board(position), gnubg.cubeinfo(), context, dice)
        ours = ranker.judge(legal)
        assert len(theirs) == len(ours), (position.id(), dice)
        assert ours[0].equity == pytest.approx(theirs[0]["score"], abs=SEARCH_TOLERANCE)
        for mine, gnubgs in zip(ours, theirs, strict=True):
            assert mine.equity == pytest.approx(gnubgs["score"], abs=SEARCH_TOLERANCE)
        checked += 1
    assert checked > 50


def test_the_opening_3_1_is_8_5_6_5_at_every_depth() -> None:
    for plies in (0, 1, 2):
        ranked = judge.Judge(plies=plies).rank(Position.start(), (3, 1))
        assert len(ranked) == 16
        assert str(ranked[0].play) == "8/5 6/5"
        assert ranked[0].equity == pytest.approx(0.16, abs=0.01)  # points, the mover's view
        assert ranked[1].equity < ranked[0].equity - 0.1


def test_money_equity_is_gnubgs_own_cubeless_equity() -> None:
    for position, _ in list(random_positions(2, seed=8))[::7]:
        values = gnubg.evaluate(judge.gnubg_board(position), gnubg.cubeinfo(),
                                judge.eval_context(0))
        assert judge.money_equity(values) == pytest.approx(values[5], abs=1e-5)


@pytest.mark.parametrize(
    ("black", "points"),
    [("19:15", 3.0), ("13:15", 2.0), ("13:14", 1.0)],
    ids=["backgammon", "gammon", "single"],
)
def test_a_play_that_wins_is_worth_what_the_game_is(black: str, points: float) -> None:
    position = diagram(white="1:1", black=black)
    for plies in (0, 2):
        ranked = judge.Judge(plies=plies).rank(position, (6, 5))
        assert [(str(j.play), j.equity) for j in ranked] == [("1/off", points)]


def test_the_disk_cache_is_written_as_it_goes_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "cache.txt"
    first = judge.Judge(plies=1, cache_path=path)
    ranked = first.rank(Position.start(), (6, 4))
    assert first.evaluations == len(ranked) == len(path.read_text().splitlines())
    again = judge.Judge(plies=1, cache_path=path)
    assert again.rank(Position.start(), (6, 4)) == ranked
    assert again.evaluations == 0


def test_gnubg_without_noise_plays_its_best_and_with_noise_reproducibly() -> None:
    ranker = judge.Judge(plies=0)
    cases = [(p, d) for p, d in random_positions(3, seed=21) if len(legal_plays(p, d)) >= 2]
    exact = judge.GnubgPlayer(noise=0.0)
    for position, dice in cases:
        assert exact.play(position, dice).result == ranker.rank(position, dice)[0].play.result
    noisy = [judge.GnubgPlayer(0.04, random.Random(7)) for _ in range(2)]
    first = [noisy[0].play(p, d) for p, d in cases]
    assert first == [noisy[1].play(p, d) for p, d in cases]
    assert sum(play.result != ranker.rank(p, d)[0].play.result
               for play, (p, d) in zip(first, cases, strict=True)) > 0


def test_gnubg_passes_when_the_roll_cannot_be_played() -> None:
    position = diagram(white="bar:1 6:14", black="1:2 2:2 3:2 4:2 5:2 6:3")
    play = judge.GnubgPlayer().play(position, (6, 5))
    assert len(play) == 0 and play.result == position


@pytest.mark.parametrize(
    ("white", "black", "accepted"),
    [("24:15", "2:1", False), ("6:15", "6:15", True)],
    ids=["backgammon-nearly-sure", "even-race"],
)
def test_gnubg_accepts_a_single_game_resignation_only_when_it_is_worth_it(
    white: str, black: str, accepted: bool
) -> None:
    game = Game(GameSettings(start=diagram(white=white, black=black)))
    assert game.phase is Phase.ROLL and game.turn is WHITE
    game.resign(WHITE, "single")
    assert judge.GnubgPlayer().accept_resign(game) is accepted
