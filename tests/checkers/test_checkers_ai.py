"""The checkers computer player: evaluation, Zobrist keys, search, levels, endgame database,
and games against each other (``checkers.ai``)."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
import time
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest
from checkers_boards import drawn

from checkers import (
    BLACK,
    WHITE,
    Game,
    IllegalActionError,
    Position,
    Reason,
    apply_move,
    children,
    legal_moves,
)
from checkers.ai import LEVELS, ComputerPlayer, SearchResult, choose_move, endgame
from checkers.ai.evaluation import KING, MAN, evaluate
from checkers.ai.levels import EXPERT, HARD, Level, get_level
from checkers.ai.player import quiet_plies
from checkers.ai.search import WIN, Searcher
from checkers.ai.zobrist import child_key, key_of, position_key
from checkers.game import FORTY_MOVE_PLIES
from checkers.moves import raw_moves
from checkers.squares import SQUARE_AT

# ---------------------------------------------------------------- helpers


def random_positions(count: int, seed: int) -> list[Position]:
    """Positions from seeded random games (uniformly random legal moves), every ply."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        position = Position.start()
        for _ in range(150):
            moves = legal_moves(position)
            if not moves:
                break
            out.append(position)
            position = apply_move(position, rng.choice(sorted(moves, key=lambda m: m.path)))
    return out[:count]


def play(start: Position, black: ComputerPlayer, white: ComputerPlayer) -> Game:
    """A whole game from ``start`` (the game's own draws by repetition and the 40-move
    rule apply)."""
    game = Game(start)
    while not game.is_over:
        player = black if game.turn is BLACK else white
        game.play(player.choose(game))
    return game


def sides(position: Position) -> tuple[int, int, bool]:
    black = position.turn is BLACK
    if black:
        return position.black, position.white, True
    return position.white, position.black, False


@pytest.fixture(scope="module")
def database() -> endgame.EndgameDatabase:
    return endgame.default_database()


# ---------------------------------------------------------------- the API


def test_levels_are_named_in_order_and_unknown_levels_are_refused() -> None:
    assert LEVELS == ("easy", "medium", "hard", "expert")
    assert [get_level(n).depth for n in ("easy", "medium", "hard")] == [2, 6, 8]
    assert [get_level(n).window for n in LEVELS] == [120, 30, 0, 0]
    assert get_level(" Hard ") is HARD
    assert EXPERT.endgame and EXPERT.time_limit == 1.0
    with pytest.raises(IllegalActionError, match=r"unknown level 'grandmaster'.*easy, medium"):
        get_level("grandmaster")


def test_choose_move_returns_a_frozen_result_with_a_legal_move() -> None:
    # a clock a microsecond a reading: the level's 0.5 s never runs out, however busy the
    # machine (its depth, not the machine's speed, is what is checked)
    ticks = itertools.count()
    result = choose_move(Position.start(), "medium", rng=random.Random(1),
                         clock=lambda: next(ticks) * 1e-6)
    assert isinstance(result, SearchResult)
    assert result.move in legal_moves(Position.start())
    assert result.depth == 6
    assert result.nodes > 100
    assert 0 < result.seconds < 0.5
    assert abs(result.score) < 50  # the start is level
    with pytest.raises(FrozenInstanceError):
        result.score = 3  # type: ignore[misc]


def test_a_position_without_moves_raises_a_clear_error() -> None:
    lost = Position.from_fen("W:W:B1,2")  # White has no piece
    with pytest.raises(IllegalActionError, match="White has no legal move in W:W:B1,2"):
        choose_move(lost, "easy")
    assert isinstance(IllegalActionError("x"), ValueError)
    game = Game()
    game.resign(BLACK)
    with pytest.raises(IllegalActionError, match="the game is over"):
        ComputerPlayer("easy").choose(game)


def test_the_computer_player_plays_a_game_from_its_seed() -> None:
    def moves(seed: int) -> list[str]:
        game = Game()
        player = ComputerPlayer("easy", seed)
        for _ in range(12):
            game.play(player.choose(game))
        return [str(m) for m in game.moves]

    assert moves(3) == moves(3)
    assert len({tuple(moves(seed)) for seed in range(4)}) > 1


# ---------------------------------------------------------------- evaluation


def test_the_evaluation_is_the_same_for_a_position_and_its_mirror() -> None:
    for position in random_positions(600, seed=11):
        assert evaluate(position) == evaluate(position.mirror()), position.fen()


def test_the_evaluation_is_zero_sum_between_the_sides() -> None:
    # no term depends on who is to move: the other side to move sees the negative
    for position in random_positions(300, seed=12):
        other = position.with_turn(position.turn.opponent)
        assert evaluate(other) == -evaluate(position), position.fen()


def test_material_dominates_and_a_king_is_worth_more_than_a_man() -> None:
    assert MAN == 100
    assert 130 <= KING <= 150
    level = evaluate(Position.start())
    assert level == 0
    a_man_up = Position.from_fen("B:W21-31:B1-12")
    assert 80 <= evaluate(a_man_up) <= 140
    king = Position.from_fen("B:W20:BK14")
    man = Position.from_fen("B:W20:B14")
    assert evaluate(king) > evaluate(man)


def test_the_endgame_terms_drive_and_trade_when_ahead() -> None:
    # 3 kings against 1: the weaker king in its double corner is worth more to it than in
    # the centre, and the stronger side's kings near it score better than far away
    corner = Position.from_fen("B:WK1:BK22,K23,K27")
    centre = Position.from_fen("B:WK15:BK22,K23,K27")
    assert evaluate(centre) > evaluate(corner)
    near = Position.from_fen("B:WK1:BK6,K10,K14")
    far = Position.from_fen("B:WK1:BK24,K28,K32")
    assert evaluate(near) > evaluate(far)
    # trading down: the same lead counts more with fewer pieces on the board
    many = Position.from_fen("B:WK1,K3:BK22,K23,K27")
    fewer = Position.from_fen("B:WK1:BK22,K23")
    assert evaluate(fewer) > evaluate(many)


def test_the_back_row_guard_counts_while_the_other_side_has_men() -> None:
    guarded = Position.from_fen("B:W21,22,23,24,25:B1,3,9")
    open_row = Position.from_fen("B:W21,22,23,24,25:B5,7,9")
    assert evaluate(guarded) > evaluate(open_row)
    # against kings only, nothing is left to guard against: no bonus
    kings_g = Position.from_fen("B:WK21,K22:B1,3,9")
    kings_o = Position.from_fen("B:WK21,K22:B5,6,9")
    assert evaluate(kings_g) - evaluate(kings_o) < evaluate(guarded) - evaluate(open_row)


# ---------------------------------------------------------------- Zobrist keys


def test_zobrist_keys_follow_every_move_and_tell_positions_apart() -> None:
    seen: dict[int, Position] = {}
    for position in random_positions(1500, seed=13):
        key = position_key(position)
        assert seen.setdefault(key, position) == position
        assert key == key_of(position.black, position.white, position.kings, position.turn is BLACK)
        assert position_key(position.with_turn(position.turn.opponent)) != key
        own, opp, black = sides(position)
        for raw in raw_moves(own, opp, position.kings, black):
            after = child_key(key, position.kings, black, raw)
            path = tuple(SQUARE_AT[i] for i in raw[0])
            child = next(p for m, p in children(position) if m.path == path)
            assert after == position_key(child), (position.fen(), path)
    assert len(seen) > 1000


# ---------------------------------------------------------------- the search


SHOT = """
|  b   .   b   .
|.   b   .   .
|  .   b   .   .
|.   .   b   b
|  .   .   .   .
|w   .   w   w
|  .   .   .   w
|.   .   .   w
"""


def test_the_search_finds_a_two_for_one_shot() -> None:
    # 15-19 gives a man: White must take 24x15, and Black takes two with 10x19x26
    position = drawn(SHOT)
    static = evaluate(position)
    for level in ("medium", "hard", "expert"):
        result = choose_move(position, level)
        assert str(result.move) == "15-19", level
        assert result.score >= static + 150, (level, result.score, static)


def test_captures_are_mandatory_and_the_bigger_capture_is_found() -> None:
    # Black can take one man (11x20) or two (14x23x32); quiet moves (14-17, 11-15) are not
    # legal, and every level takes a capture; the search prefers the double jump
    position = Position.from_fen("B:W16,18,27:B11,14")
    legal = {str(m) for m in legal_moves(position)}
    assert legal == {"11x20", "14x23x32"}
    for level in LEVELS:
        result = choose_move(position, level, rng=random.Random(0))
        assert result.move.is_capture
        assert str(result.move) in legal
    assert str(choose_move(position, "hard").move) == "14x23x32"


def test_a_forced_win_is_scored_by_its_distance(database: endgame.EndgameDatabase) -> None:
    # 2 kings against 1: positions the database says are won in 3 and in 5 plies (with no
    # jump now): Hard, without the database, finds the win and its exact distance
    rng = random.Random(5)
    found: dict[int, Position] = {}
    items = list(endgame.positions((2, 1)))
    rng.shuffle(items)
    for _, mover, other in items:
        position = Position(mover, other, mover | other, BLACK)
        result = database.probe(position)
        assert result is not None
        if (
            result.outcome == "win"
            and result.plies in (3, 5)
            and not raw_moves(mover, other, mover | other, True)[0][1]
        ):
            found.setdefault(result.plies, position)
        if len(found) == 2:
            break
    for plies, position in found.items():
        chosen = choose_move(position, "hard")
        assert chosen.score == WIN - plies, position.fen()
        after = database.probe(apply_move(position, chosen.move))
        assert after == endgame.EndgameResult("loss", plies - 1)


def test_a_move_back_into_the_game_history_scores_as_a_draw() -> None:
    position = Position.from_fen("B:WK1:BK22,K23,K27")  # Black is winning
    assert choose_move(position, "hard").score > 100
    history = [child for _, child in children(position)]  # every move repeats the game
    repeated = choose_move(position, "hard", history=history)
    assert repeated.score == 0


def test_the_forty_move_count_is_taken_from_the_history() -> None:
    start = Position.from_fen("W:WK1:BK22,K23,K27")
    game = Game(start)
    for move in ("1-5", "22-18", "5-1", "18-22"):
        game.play(move)
    assert quiet_plies(game.positions[:-1], game.position) == 4
    assert quiet_plies([], start) == 0
    game.play("1-6")
    game.play("27-31")  # a king move: still quiet
    assert quiet_plies(game.positions[:-1], game.position) == 6
    searcher = Searcher()
    own, opp, black = sides(game.position)
    # one ply before the rule: every reply ends the game drawn unless it wins at once
    late = searcher.search(
        own, opp, game.position.kings, black, max_depth=4, quiet=FORTY_MOVE_PLIES - 1
    )
    early = searcher.search(own, opp, game.position.kings, black, max_depth=4, quiet=0)
    assert late.score == 0
    assert early.score != 0


def test_the_randomness_window_is_seeded_and_reproducible() -> None:
    position = Position.start()
    first = [str(choose_move(position, "easy", rng=random.Random(s)).move) for s in range(12)]
    again = [str(choose_move(position, "easy", rng=random.Random(s)).move) for s in range(12)]
    assert first == again
    assert len(set(first)) >= 3  # a real choice among the opening moves
    assert {str(choose_move(position, "hard", rng=random.Random(s)).move) for s in range(4)} == {
        str(choose_move(position, "hard").move)
    }  # no window: always the best


def test_the_window_picks_only_moves_within_it_and_never_the_global_random(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def forbidden(*args: object) -> None:
        raise AssertionError("the global random generator was used")

    for name in ("random", "choice", "randrange", "shuffle", "uniform", "getrandbits"):
        monkeypatch.setattr(random, name, forbidden)
    position = drawn(SHOT)
    own, opp, black = sides(position)
    found = Searcher().search(
        own, opp, position.kings, black, max_depth=2, window=120, rng=random.Random(4)
    )
    best = max(score for _, score in found.candidates)
    assert all(score >= best - 120 for _, score in found.candidates)
    assert found.score >= best - 120
    # the shot is worth far more than the window: nothing else is a candidate
    assert [SQUARE_AT[i] for i in found.move[0]] == [15, 19]


def test_the_clock_stops_the_search_with_a_legal_move() -> None:
    ticks = iter(range(10**6))

    def clock() -> float:  # a fake clock: each look at it is a second later
        return float(next(ticks))

    # past the soft limit after the first iteration: no second one starts
    result = choose_move(Position.start(), "expert", clock=clock)
    assert result.move in legal_moves(Position.start())
    assert result.depth == 1
    started = time.perf_counter()
    result = choose_move(Position.start(), "expert", time_limit=0.3)
    assert time.perf_counter() - started < 0.6
    assert result.depth >= 4


def test_hard_keeps_within_its_node_budget() -> None:
    position = Position.from_fen("W:W18,19,21,25,28,29,30,32:B1,2,4,5,6,8,11,13")
    result = choose_move(position, "hard")
    assert HARD.node_limit is not None
    assert result.nodes <= HARD.node_limit + 512  # the budget is looked at every 512 nodes
    assert result.depth >= 6


# ---------------------------------------------------------------- the endgame database


def test_the_small_endings_recomputed_match_the_shipped_file(
    database: endgame.EndgameDatabase,
) -> None:
    fresh = endgame.build(max_pieces=4)
    assert sorted(fresh) == [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (3, 1)]
    shipped = endgame.load()
    for ending, table in fresh.items():
        assert bytes(table) == shipped[ending], ending
    assert database.endings == sorted([*fresh, (2, 3), (3, 2)])


def test_a_sample_of_five_piece_results_agrees_with_a_fresh_one_ply_computation(
    database: endgame.EndgameDatabase,
) -> None:
    # each sampled result must be what its moves' results make it: a win in d when some move
    # reaches a loss in d - 1 (and none sooner), a loss in d when every move reaches a win
    # (the longest in d - 1), else a draw; a side without moves has lost in 0
    rng = random.Random(7)
    for ending in ((3, 2), (2, 3)):
        items = list(endgame.positions(ending))
        for _, mover, other in rng.sample(items, 400):
            position = Position(other, mover, mover | other, WHITE)  # White is the mover
            answers = []
            for _, child in children(position):
                if not child.black:
                    answers.append(endgame.EndgameResult("loss", 0))
                else:
                    found = database.probe(child)
                    assert found is not None
                    answers.append(found)
            losses = [a.plies for a in answers if a.outcome == "loss"]
            if not answers:
                expected = endgame.EndgameResult("loss", 0)
            elif losses:
                expected = endgame.EndgameResult("win", min(losses) + 1)
            elif all(a.outcome == "win" for a in answers):
                expected = endgame.EndgameResult("loss", max(a.plies for a in answers) + 1)
            else:
                expected = endgame.EndgameResult("draw", 0)
            assert database.probe(position) == expected, position.fen()


def test_the_database_knows_the_classic_results(database: endgame.EndgameDatabase) -> None:
    two_one = database.probe(Position.from_fen("B:WK1:BK14,K15"))
    assert two_one is not None and two_one.outcome == "win"
    three_two = database.probe(Position.from_fen("B:WK1,K32:BK14,K18,K22"))
    assert three_two is not None and three_two.outcome == "win"
    one_one = database.probe(Position.from_fen("B:WK1:BK32"))
    assert one_one == endgame.EndgameResult("draw", 0)
    # men on the board, or 6 pieces: not in the database
    assert database.probe(Position.from_fen("B:W5:BK32")) is None
    assert database.probe(Position.from_fen("B:WK1,K2,K3:BK30,K31,K32")) is None
    tables = endgame.load()
    # every result is short of the 40-move rule's 80 quiet plies
    longest = {ending: endgame.longest(bytearray(table)) for ending, table in tables.items()}
    assert longest[(3, 2)] == 67
    assert longest[(2, 1)] == 33
    assert max(longest.values()) < FORTY_MOVE_PLIES
    # 3 kings against 2 win in 99 % of the positions (the rest are immediate shots)
    counts = {"win": 0, "loss": 0, "draw": 0}
    for code in tables[(3, 2)]:
        counts[endgame.decode(code)[0]] += 1
    valid = 4960 * 406  # the 3 squares, then 2 of the 29 left
    assert counts["win"] / valid > 0.99


# ---------------------------------------------------------------- endings played out


CONVERSIONS = [
    "B:WK1:BK14,K15",  # 2 v 1, the lone king in Black's double corner
    "W:WK5:BK23,K27",  # ... in the other square of that double corner, White to move
    "B:WK28:BK1,K5",  # ... in White's double corner, Black's kings in the other corner
    "B:WK1,K32:BK14,K18,K22",  # 3 v 2, one king in each double corner
    "W:WK28,K32:BK1,K2,K3",  # 3 v 2, both kings in one double corner, White to move
    "B:WK1,K5:BK27,K31,K32",
]


@pytest.mark.parametrize("fen", CONVERSIONS)
@pytest.mark.parametrize("defender", ["expert", "hard"])
def test_expert_converts_2_kings_against_1_and_3_against_2(fen: str, defender: str) -> None:
    game = play(
        Position.from_fen(fen),
        black=ComputerPlayer("expert", 1),
        white=ComputerPlayer(defender, 2),
    )
    assert game.outcome is not None
    assert game.outcome.winner is BLACK, (fen, str(game.outcome), [str(m) for m in game.moves])
    assert game.outcome.reason is Reason.NO_MOVE  # not drawn by the 40-move rule


def test_expert_holds_drawn_endings_and_never_plays_a_losing_move(
    database: endgame.EndgameDatabase,
) -> None:
    # 2 v 2 positions the database calls drawn in which some legal move loses: Expert (and
    # only a move that keeps the draw) is chosen each time
    rng = random.Random(9)
    items = list(endgame.positions((2, 2)))
    rng.shuffle(items)
    tested = 0
    for _, mover, other in items:
        position = Position(mover, other, mover | other, BLACK)
        if database.probe(position) != endgame.EndgameResult("draw", 0):
            continue
        losing = {
            m
            for m, child in children(position)
            if (r := database.probe(child)) and r.outcome == "win"
        }
        if not losing:
            continue
        move = choose_move(position, "expert").move
        assert move not in losing, position.fen()
        tested += 1
        if tested == 25:
            break
    assert tested == 25


@pytest.mark.parametrize(
    ("fen", "white"),
    [
        ("B:WK1:BK32", "expert"),
        ("B:WK1,K5:BK28,K32", "expert"),
        ("B:WK10,K15:BK23,K27", "expert"),
        ("B:WK14,K5:BK28,K19", "hard"),
    ],
)
def test_expert_does_not_lose_a_drawn_ending(fen: str, white: str) -> None:
    game = play(Position.from_fen(fen), ComputerPlayer("expert", 3), ComputerPlayer(white, 4))
    assert game.outcome is not None
    assert game.outcome.winner is not WHITE, str(game.outcome)
    if white == "expert":  # both sides hold it
        assert game.outcome.winner is None
        assert game.outcome.reason in (Reason.REPETITION, Reason.FORTY_MOVES)


# ---------------------------------------------------------------- strength


#: Games of Hard against Easy in the test (the bench plays 100): colours alternate.
MATCH_GAMES = 30


def test_hard_beats_easy_in_nine_games_of_ten() -> None:
    wins = 0
    for seed in range(MATCH_GAMES):
        hard, easy = ComputerPlayer("hard", seed), ComputerPlayer("easy", seed)
        hard_colour = BLACK if seed % 2 == 0 else WHITE
        black, white = (hard, easy) if hard_colour is BLACK else (easy, hard)
        game = play(Position.start(), black, white)
        assert game.outcome is not None
        wins += game.outcome.winner is hard_colour
    assert wins >= 0.9 * MATCH_GAMES, f"Hard won {wins} of {MATCH_GAMES}"


def test_a_level_object_can_be_passed_directly() -> None:
    quick = Level("quick", depth=3)
    result = choose_move(Position.start(), quick)
    assert result.depth == 3
    assert result.move in legal_moves(Position.start())


# ---------------------------------------------------------------- the bench script

BENCH = Path(__file__).resolve().parents[2] / "bench" / "checkers_ai.py"


def test_the_bench_script_runs_and_prints_its_table() -> None:
    args = ["--levels", "easy,hard", "--source-games", "1", "--every", "9"]
    done = subprocess.run(
        [sys.executable, str(BENCH), *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "median" in done.stdout and "slowest:" in done.stdout
    assert done.stdout.count("hard ") >= 2
    done = subprocess.run(
        [sys.executable, str(BENCH), "--match", "hard:easy", "--games", "2"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "hard against easy, 2 games: +" in done.stdout
