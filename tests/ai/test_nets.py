"""The neural evaluation: its encoding, its nets and weights file, and training."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon import WHITE, Position, legal_plays
from backgammon.ai import evaluate
from backgammon.ai.encoding import FEATURE_NAMES, N_INPUTS, RAW_UNITS, encode
from backgammon.ai.nets import (
    FORMAT_VERSION,
    Net,
    NetSet,
    WeightsError,
    consistent,
    default_nets,
    load_weights,
    save_weights,
    use_weights,
)
from backgammon.ai.neural import (
    BEAROFF,
    CONTACT,
    FINISHED,
    RACE,
    after_play_probabilities,
    classify,
)
from backgammon.training import td
from boards import diagram

F = {name: RAW_UNITS + i for i, name in enumerate(FEATURE_NAMES)}  # the side on roll's
OPP = RAW_UNITS + len(FEATURE_NAMES) + RAW_UNITS  # where the opponent's features start


def features(position: Position) -> dict[str, float]:
    """The side on roll's hand-crafted features, by name, unscaled to counts where simple."""
    row = encode(np.asarray([position.own_points(position.turn)]))[0]
    return {name: float(row[F[name]]) for name in FEATURE_NAMES}


def test_the_start_encodes_to_known_units() -> None:
    row = encode(np.asarray([Position.start().own_points(WHITE)]))[0]
    assert row.shape == (N_INPUTS,) == (227,)
    # White's 6-point holds 5: units >=1, >=2, >=3, (5-3)/2
    six = (6 - 1) * 4
    assert list(row[six:six + 4]) == [1.0, 1.0, 1.0, 1.0]
    # the 24-point holds 2; the 1-point none; the bar none; nothing borne off
    assert list(row[23 * 4:23 * 4 + 4]) == [1.0, 1.0, 0.0, 0.0]
    assert list(row[0:4]) == [0.0, 0.0, 0.0, 0.0]
    assert list(row[24 * 4:25 * 4]) == [0.0] * 4 and row[100] == 0.0
    f = features(Position.start())
    assert f["pips"] == pytest.approx(1.67)
    assert f["shots"] == 0.0 and f["blots"] == 0.0
    assert f["home_points"] == pytest.approx(1 / 6)
    assert f["prime_length"] == pytest.approx(1 / 6) and f["prime_place"] == 0.0
    assert f["anchors"] == pytest.approx(0.5)  # the 24-point
    # from the 24-point the midpoint (12), the 17- and 19-points block: no roll jumps them all
    assert f["escapes"] == 0.0
    assert f["timing"] == pytest.approx((2 * 18 + 5 * 7 + 3 * 2) / 100)
    assert f["back_checkers"] == pytest.approx(2 / 5)
    assert f["wastage"] == 0.0
    assert row[-1] == 1.0  # contact
    # both sides are the same at the start
    assert np.array_equal(row[:OPP - RAW_UNITS], row[OPP - RAW_UNITS:-1])


def test_shots_at_a_blot_count_the_rolls_that_hit() -> None:
    # White's blot on its 5-point, one Black checker on White's 1-point (4 pips away):
    # 11 rolls with a 4, 3-1 twice, 2-2 and 1-1: 15 shots, 11 of them direct.
    position = diagram(white="5:1 6:14", black="24:1 1:14", turn="white")
    f = features(position)
    assert f["shots"] * 36 == pytest.approx(15)
    assert f["direct_shots"] * 36 == pytest.approx(11)
    assert f["blots"] == pytest.approx(1 / 5)
    blocked = diagram(white="5:1 4:2 2:2 6:10", black="24:1 1:14", turn="white")
    # 3-1 needs the 2- or 4-point open on the way (both held), 2-2 the 3-point (open),
    # 1-1 the 2-, 3- and 4-points (held): 11 + 1 = 12
    assert features(blocked)["shots"] * 36 == pytest.approx(12)


def test_a_prime_and_the_escapes_behind_it() -> None:
    # Black holds its 7..11-points (White's 18..14) and White has one checker on its 24-point
    position = diagram(white="24:1 6:14", black="7:2 8:2 9:2 10:2 11:2 2:5", turn="white")
    f = features(position)
    opp = encode(np.asarray([position.own_points(WHITE)]))[0]
    assert opp[OPP + FEATURE_NAMES.index("prime_length")] == pytest.approx(5 / 6)
    assert opp[OPP + FEATURE_NAMES.index("prime_place")] == pytest.approx(11 / 24)
    # escaping from 24 past 14 needs 11 pips or more landing on 13 or lower with open steps:
    # only 6-5 played 5 first (via 19; 18 is held); 6-6 (18), 5-5 (14), 4-4 (16) are blocked
    assert f["escapes"] * 36 == pytest.approx(2)


def _rolls() -> list[tuple[int, int, list[tuple[int, tuple[int, ...]]]]]:
    """The 21 rolls: (rolls out of 36, 0, the ways one checker travels with it as
    (distance, partial sums on the way))."""
    out = []
    for high in range(1, 7):
        for low in range(1, high + 1):
            if high == low:
                ways = [(high * k, tuple(high * j for j in range(1, k))) for k in range(1, 5)]
                out.append((1, 0, ways))
            else:
                ways = [(high, ()), (low, ()), (high + low, (high,)), (high + low, (low,))]
                out.append((2, 0, ways))
    return out


def _reference_shots_and_escapes(b: list[int]) -> tuple[int, int, int]:
    """Shots, direct shots and escapes (rolls out of 36) of the side whose numbering ``b`` is
    in, counted roll by roll from the module docstring of ``backgammon.ai.encoding``."""
    mine = [max(c, 0) for c in b]
    theirs = [max(-c, 0) for c in b]
    shots = direct = 0
    blots = [p for p in range(1, 25) if mine[p] == 1]
    for weight, _, ways in _rolls():
        hits = direct_hit = False
        for p in blots:
            for distance, steps in ways:
                origin = p - distance
                if origin < 0 or theirs[origin] == 0:
                    continue
                if any(mine[origin + s] >= 2 for s in steps):
                    continue
                if theirs[0] and origin != 0:
                    continue  # a checker on the bar must enter first
                if theirs[0] >= 2 and distance > 6:
                    continue
                hits = True
                direct_hit |= not steps and distance <= 6
        shots += weight * hits
        direct += weight * direct_hit
    rear = max((q for q in range(1, 26) if mine[q] > 0), default=0)
    blocks = [q for q in range(max(rear - 12, 1), rear) if theirs[q] >= 2]
    if rear < 8 or not blocks:
        return shots, direct, 36
    low = min(blocks)
    escapes = 0
    for weight, _, ways in _rolls():
        if any(
            1 <= rear - d < low and theirs[rear - d] < 2
            and not any(theirs[rear - s] >= 2 for s in steps)
            for d, steps in ways
        ):
            escapes += weight
    return shots, direct, escapes


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-4, 4), min_size=24, max_size=24),
       st.integers(0, 3), st.integers(0, 3))
def test_shots_and_escapes_agree_with_a_roll_by_roll_count(
    points: list[int], my_bar: int, their_bar: int
) -> None:
    board = [-their_bar, *points, my_bar]
    row = encode(np.asarray([board]))[0]
    for start, side in ((RAW_UNITS, board), (OPP, [-c for c in reversed(board)])):
        got = tuple(round(float(row[start + FEATURE_NAMES.index(name)]) * 36)
                    for name in ("shots", "direct_shots", "escapes"))
        assert got == _reference_shots_and_escapes(side), side


def test_classes_of_boards() -> None:
    start = Position.start().own_points(WHITE)
    race = diagram(white="6:5 5:10", black="13:15").own_points(WHITE)
    bearoff = diagram(white="6:5 5:10", black="6:15").own_points(WHITE)
    boards = np.asarray([start, race, bearoff], dtype=np.int8)
    assert list(classify(boards)) == [CONTACT, RACE, BEAROFF]
    done = np.zeros((1, 26), dtype=np.int8)
    done[0, 1] = -15  # the mover has borne off all, the opponent still on the board
    assert list(classify(done)) == [FINISHED]


def test_a_finished_board_is_scored_by_the_rules() -> None:
    # the mover has borne off everything; the opponent has none off and a checker in the
    # mover's home board: a backgammon
    board = [0] * 26
    board[3] = -1
    board[20] = -14
    p = after_play_probabilities([tuple(board)], default_nets())[0]
    assert list(p) == [1.0, 1.0, 1.0, 0.0, 0.0]


def test_mirror_symmetry_of_the_outputs() -> None:
    rng = random.Random(5)
    position = Position.start()
    for _ in range(40):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = legal_plays(position, dice)
        if plays:
            position = plays[rng.randrange(len(plays))].result
        position = position.with_turn(position.turn.opponent)
        mirrored = position.mirror()
        assert mirrored.turn is not position.turn
        a, b = evaluate(position), evaluate(mirrored)
        assert a == pytest.approx(b, abs=1e-6)


def test_probabilities_are_consistent() -> None:
    raw = np.random.default_rng(1).random((500, 5)).astype(np.float32)
    p = consistent(raw.copy())
    assert (p[:, 2] <= p[:, 1]).all() and (p[:, 1] <= p[:, 0]).all()
    assert (p[:, 4] <= p[:, 3]).all() and (p[:, 3] <= 1.0 - p[:, 0] + 1e-7).all()
    rng = random.Random(9)
    boards = []
    position = Position.start()
    for _ in range(200):
        plays = legal_plays(position, (rng.randint(1, 6), rng.randint(1, 6)))
        if plays:
            boards.extend(plays.own_boards())
            position = plays[rng.randrange(len(plays))].result
        position = position.with_turn(position.turn.opponent)
        if not any(c > 0 for c in position.points) or not any(c < 0 for c in position.points):
            position = Position.start()
    q = after_play_probabilities(boards, default_nets())
    assert (q >= 0).all() and (q <= 1).all()
    assert (q[:, 2] <= q[:, 1] + 1e-7).all() and (q[:, 1] <= q[:, 0] + 1e-7).all()
    assert (q[:, 4] <= q[:, 3] + 1e-7).all() and (q[:, 3] <= 1.0 - q[:, 0] + 1e-6).all()


def _small_nets(seed: int = 3) -> NetSet:
    rng = np.random.default_rng(seed)
    return NetSet(Net.random(8, rng), Net.random(4, rng), {"games": 12})


def test_weights_round_trip(tmp_path: Path) -> None:
    nets = _small_nets()
    path = tmp_path / "nets.npz"
    save_weights(nets, path)
    again = load_weights(path)
    assert again.meta["games"] == 12 and again.meta["format"] == FORMAT_VERSION
    assert np.array_equal(again.contact.w1, nets.contact.w1)
    assert np.array_equal(again.race.b2, nets.race.b2)


def test_use_weights_replaces_the_default_nets(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from backgammon.ai import nets as nets_module

    monkeypatch.setattr(nets_module, "_DEFAULT", None)
    path = tmp_path / "checkpoint.npz"
    save_weights(_small_nets(), path)
    used = use_weights(path)
    assert default_nets() is used and used.meta["games"] == 12
    with pytest.raises(WeightsError, match="missing"):
        use_weights(tmp_path / "absent.npz")


def test_the_shared_evaluator_follows_use_weights(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Weights made the default after the first evaluation are the ones the levels use: the
    shared evaluator's cached answers of the nets before are not served."""
    from backgammon.ai import nets as nets_module
    from backgammon.ai import netsearch

    monkeypatch.setattr(nets_module, "_DEFAULT", None)
    monkeypatch.setattr(netsearch, "_SHARED", None)
    board = legal_plays(Position.start(), (3, 1)).own_boards()[0]
    shipped = netsearch.shared_net_evaluator()
    before = shipped.probs0([board])[0].copy()
    assert shipped.nets is default_nets()
    path = tmp_path / "checkpoint.npz"
    save_weights(_small_nets(), path)
    used = use_weights(path)
    now = netsearch.shared_net_evaluator()
    assert now is not shipped and now.nets is used
    after = now.probs0([board])[0]
    assert np.array_equal(after, after_play_probabilities([board], used)[0])
    assert not np.allclose(after, before)
    assert netsearch.shared_net_evaluator() is now  # kept while the default stays


def test_a_corrupt_weights_file_is_refused(tmp_path: Path) -> None:
    nets = _small_nets()
    path = tmp_path / "nets.npz"
    nets.contact.w1[0, 0] += 1.0
    save_weights(nets, path)
    # alter one weight but keep the file's checksum: refused
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["contact/W1"] = arrays["contact/W1"].copy()
    arrays["contact/W1"][0, 0] += 0.5
    np.savez(path, **arrays)
    with pytest.raises(WeightsError, match=r"nets\.npz fails its checksum"):
        load_weights(path)
    # a truncated file
    good = tmp_path / "good.npz"
    save_weights(nets, good)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:200])
    with pytest.raises(WeightsError, match=r"cut\.npz is unreadable"):
        load_weights(cut)
    with pytest.raises(WeightsError, match=r"missing\.npz is missing"):
        load_weights(tmp_path / "missing.npz")
    # another format version
    arrays = {k: v for k, v in np.load(good).items()}
    arrays["meta"] = np.array('{"format": 99}')
    np.savez(tmp_path / "future.npz", **arrays)
    with pytest.raises(WeightsError, match=r"future\.npz is format 99"):
        load_weights(tmp_path / "future.npz")


def test_the_shipped_weights_load_and_say_how_they_were_trained() -> None:
    nets = default_nets()
    assert nets.meta["games"] > 0
    assert nets.contact.w1.shape[0] == N_INPUTS
    assert set(nets.meta["settings"]) >= {"seed", "lam", "rate"}


def test_a_short_seeded_training_run_beats_a_random_player() -> None:
    settings = td.Settings(seed=11, lam=0.9, rate=0.3, contact_hidden=16, race_hidden=8)
    nets = td.new_nets(settings)
    td.train_games(nets, settings, 0, 200)

    rng = random.Random(2)

    def random_chooser(position: Position, dice: tuple[int, int]) -> int:
        return rng.randrange(len(legal_plays(position, dice)))

    mean, half = td.evaluate_against(nets, 60, seed=4, opponent=random_chooser)
    assert mean - half > 1.0, (mean, half)
    # the same seed trains the same nets
    again = td.new_nets(settings)
    td.train_games(again, settings, 0, 5)
    other = td.new_nets(settings)
    td.train_games(other, settings, 0, 5)
    assert np.array_equal(again.contact.w1, other.contact.w1)


def test_a_small_cache_gives_the_same_ranking() -> None:
    from backgammon.ai.netsearch import NetEvaluator, rank

    position = diagram(white="24:2 13:4 8:3 6:4 5:2", black="24:2 13:5 8:3 6:4 4:1", turn="white")
    boards = legal_plays(position, (6, 2)).own_boards()
    big = rank(boards, NetEvaluator(), 2, ())
    small = rank(boards, NetEvaluator(cache_size=40), 2, ())
    assert [r.index for r in big] == [r.index for r in small]
    # float32 sums in another order: equal to far under a milli-point, near zero too
    assert [r.value for r in big] == pytest.approx([r.value for r in small], abs=1e-6)


def test_the_0_ply_cache_gives_the_nets_own_figures() -> None:
    """Boards repeated in a batch, a cache too small for the batch, a cache that fills and
    starts again, and threads sharing one evaluator: every answer is the nets' own."""
    from concurrent.futures import ThreadPoolExecutor

    from backgammon.ai.nets import default_nets
    from backgammon.ai.netsearch import NetEvaluator
    from backgammon.ai.neural import after_play_probabilities

    rng = random.Random(11)
    position = diagram(white="24:2 13:4 8:3 6:4 5:2", black="24:2 13:5 8:3 6:4 4:1", turn="white")
    pool = [b for roll in ((6, 2), (3, 1), (5, 5), (4, 2)) for b in
            legal_plays(position, roll).own_boards()]
    truth = dict(zip(pool, after_play_probabilities(pool, default_nets()), strict=True))
    batches = [[rng.choice(pool) for _ in range(rng.randint(1, 60))] for _ in range(40)]
    for size in (7, 50, None):
        evaluator = NetEvaluator(cache_size=size)
        for batch in batches:
            got = evaluator.probs0(batch)
            assert got.shape == (len(batch), 5)
            assert got == pytest.approx(np.asarray([truth[b] for b in batch]), abs=1e-6)
        assert len(evaluator._p0.index) <= evaluator.limits["p0"]
    shared = NetEvaluator(cache_size=30)
    with ThreadPoolExecutor(4) as threads:
        answers = list(threads.map(shared.probs0, batches * 5))
    for batch, got in zip(batches * 5, answers, strict=True):
        assert got == pytest.approx(np.asarray([truth[b] for b in batch]), abs=1e-6)


def test_a_move_filter_keeps_its_accepted_plays_whatever_their_score() -> None:
    from backgammon.ai.netsearch import MoveFilter

    scores = np.array([0.10, 0.50, -0.30, 0.45, 0.20])
    # the best 3 within 0.08 of the best (0.50): 0.50 and 0.45 only
    assert MoveFilter(3, 0.08).kept(scores) == [1, 3]
    # accept 3: the third best (0.20) too, though 0.30 below the best
    assert MoveFilter(3, 0.08, accept=3).kept(scores) == [1, 3, 4]
    # accept never cuts what the margin keeps, nor keeps more plays than there are
    assert MoveFilter(5, 1.0, accept=2).kept(scores) == [1, 3, 4, 0, 2]
    assert MoveFilter(1, 0.0, accept=9).kept(scores) == [1, 3, 4, 0, 2]
    for bad in ((-1, 0.1, 0), (3, -0.1, 0), (3, 0.1, -1), (0, 0.1, 0)):
        with pytest.raises(ValueError, match="move filter"):
            MoveFilter(*bad)


def test_expert_searches_2_ply_a_play_its_margins_would_cut() -> None:
    """Black to play 4-3 from the bar (``gnubg_selfplay_7p_s1005.mat`` in ``../shared/mat``,
    game 4), White bearing off: the nets at 0-ply put bar/18 0.191 below bar/22 19/15 (the
    margin is 0.16) and every other play further, so without ``accept`` only bar/22 19/15 goes
    on to 1-ply and no play reaches 2-ply. Expert's filters accept the best 5 at 0-ply and the
    best 2 at 1-ply; searched 2-ply, bar/18 is best (as gnubg's 2-ply finds it: bar/22 19/15
    loses 0.079 there)."""
    from backgammon.ai.levels import EXPERT
    from backgammon.ai.netsearch import MoveFilter, NetEvaluator, rank

    position = Position.from_xgid("XGID=aGAe--a------------b-b-bb-:0:0:-1:00:0:0:0:0:10")
    legal = legal_plays(position, (4, 3))
    plays, boards = list(legal), legal.own_boards()
    evaluator = NetEvaluator()
    unaccepted = rank(boards, evaluator, 2, (MoveFilter(8, 0.16), MoveFilter(5, 0.08)))
    assert [(str(plays[r.index]), r.ply) for r in unaccepted if r.ply > 0] == [
        ("bar/22 19/15", 1)]
    ranked = rank(boards, evaluator, 2, EXPERT.filters)
    assert [(str(plays[r.index]), r.ply) for r in ranked[:2]] == [("bar/18", 2),
                                                                  ("bar/22 19/15", 2)]
    assert sum(1 for r in ranked if r.ply == 1) == 3  # the other three accepted at 0-ply


def test_master_rescores_experts_best_two_at_3_ply() -> None:
    """Black to play 5-4 (``bench/gnubg_selfplay.py`` seed 9026, game 5: a match the nets never
    saw). Expert's 2-ply puts 11/6 9/5 0.005 above 17/13 11/6; Master rescores those two at
    3-ply, where 17/13 11/6 is the better, as gnubg's 2-ply finds it (11/6 9/5 loses 0.041
    there). The 3-ply scores are ``probs_many(..., 3)`` of the two, and no other play goes on."""
    from backgammon.ai import choose_play
    from backgammon.ai.levels import EXPERT, MASTER
    from backgammon.ai.netsearch import MONEY, NetEvaluator, rank

    position = Position.from_xgid("XGID=-CB-----a-----a-a--ecb-b--:0:0:-1:00:0:0:0:0:10")
    legal = legal_plays(position, (5, 4))
    plays, boards = list(legal), legal.own_boards()
    evaluator = NetEvaluator()
    expert = rank(boards, evaluator, 2, EXPERT.filters)
    first, second = expert[0].index, expert[1].index
    assert (str(plays[first]), str(plays[second])) == ("11/6 9/5", "17/13 11/6")
    assert expert[0].value - expert[1].value < MASTER.filters[2].margin
    master = rank(boards, evaluator, 3, MASTER.filters)
    assert [(r.index, r.ply) for r in master[:2]] == [(second, 3), (first, 3)]
    assert sum(1 for r in master if r.ply == 3) == 2
    at3 = MONEY.of(evaluator.probs_many([boards[first], boards[second]], 3))
    assert (master[0].value, master[1].value) == pytest.approx((at3[1], at3[0]), abs=1e-9)
    assert str(choose_play(position, (5, 4), "expert")) == "11/6 9/5"
    assert str(choose_play(position, (5, 4), "master")) == "17/13 11/6"


def test_master_stops_at_2_ply_when_the_best_stands_clear() -> None:
    """The opening 3-1: 8/5 6/5 stands more than 0.04 above every other play at 2-ply, so
    Master plays it without a 3-ply search."""
    from backgammon.ai.levels import MASTER
    from backgammon.ai.netsearch import NetEvaluator, rank

    legal = legal_plays(Position.start(WHITE), (3, 1))
    ranked = rank(legal.own_boards(), NetEvaluator(), 3, MASTER.filters)
    assert str(list(legal)[ranked[0].index]) == "8/5 6/5"
    assert ranked[0].ply == 2 and ranked[0].value - ranked[1].value > MASTER.filters[2].margin
    assert all(r.ply < 3 for r in ranked)


def test_one_ply_of_a_bear_off_agrees_with_the_exact_table() -> None:
    from backgammon.ai.netsearch import NetEvaluator

    evaluator = NetEvaluator()
    # White has just moved; Black (two checkers on its 6- and 5-points) is to roll
    board = diagram(white="6:2 3:1 1:2", black="6:1 5:1", turn="white").own_points(WHITE)
    exact = evaluator.probs0([board])[0]
    assert evaluator.probs1(board)[0] == pytest.approx(exact[0], abs=0.01)
    assert evaluator.probs2(board)[0] == pytest.approx(exact[0], abs=0.01)
    assert evaluator.probs3(board)[0] == pytest.approx(exact[0], abs=0.01)


def test_three_ply_is_the_mean_of_each_rolls_best_reply_at_two_ply() -> None:
    """3-ply: the opponent's best reply of each roll chosen at 0-ply, scored at 2-ply, the 21
    rolls weighted 1/36 and 2/36, then seen from the mover's side (GNU Backgammon's n-ply)."""
    from backgammon.ai.features import ROLL_DICE, ROLL_WEIGHT, flip
    from backgammon.ai.netsearch import MONEY, NetEvaluator

    evaluator = NetEvaluator()
    # White has just moved in a contact race: Black's one back checker against White's board
    board = diagram(white="6:4 5:4 4:3 3:2 2:2", black="24:1 6:7 5:7",
                    turn="white").own_points(WHITE)
    opponent = Position.from_points(flip(board), WHITE)
    acc = np.zeros(5)
    for roll, weight in zip(ROLL_DICE, ROLL_WEIGHT, strict=True):
        replies = legal_plays(opponent, roll).own_boards() or [flip(board)]
        best = replies[int(np.argmax(MONEY.of(evaluator.probs0(replies))))]
        acc += weight * evaluator.probs2(best)
    expected = [1.0 - acc[0], acc[3], acc[4], acc[1], acc[2]]
    assert evaluator.probs3(board) == pytest.approx(expected, abs=1e-9)
    assert evaluator.probs(board, 3) == pytest.approx(expected, abs=1e-9)
    assert evaluator.probs_many([board], 3)[0] == pytest.approx(expected, abs=1e-9)


def _held_bytes(cache: object) -> int:
    """What a cache of the evaluators holds, measured: the dict, each key (its board tuple
    too) and each value (an array's data included); for the 0-ply cache, its dict of row
    numbers and its whole array of rows."""
    import sys

    if not isinstance(cache, dict):  # the 0-ply cache: a dict of row numbers, and the rows
        rows: np.ndarray = cache.rows  # type: ignore[attr-defined]
        return _held_bytes(cache.index) + sys.getsizeof(rows)  # type: ignore[attr-defined]
    total = sys.getsizeof(cache)
    for key, value in cache.items():
        total += sys.getsizeof(key) + sys.getsizeof(value)
        if isinstance(key, tuple) and key and isinstance(key[-1], tuple):
            total += sys.getsizeof(key[-1])  # (utility, board): the board
    return total


def test_the_net_evaluators_caches_are_bounded_by_bytes() -> None:
    from backgammon.ai.netsearch import DEFAULT_CACHE_BYTES, NetEvaluator, shared_net_evaluator
    from backgammon.core.game import Game

    budget = 3 << 20
    evaluator = NetEvaluator(cache_bytes=budget)
    rng = random.Random(7)
    game = Game()
    most = scored = 0
    while scored < 30:  # boards of random games, some scored at 2-ply each turn
        if game.is_over:
            game = Game()
        if not game.dice or game.phase.value in ("opening", "roll"):
            game.roll(dice=(rng.randint(1, 6), rng.randint(1, 6)))
            continue
        plays = game.legal_plays()
        for board in plays.own_boards()[:2]:
            evaluator.probs2(board)
            scored += 1
            held = sum(_held_bytes(c) for c in (evaluator._p0, evaluator._p1, evaluator._p2))
            most = max(most, held)
            assert evaluator.cache_bytes() <= budget
        if plays:
            game.play(plays[rng.randrange(len(plays))])
        else:
            game.end_turn()
    assert budget // 2 < most <= budget * 1.1  # filled, and held within the bound
    # the process-wide evaluator has its bound: some tens of megabytes, not gigabytes
    assert shared_net_evaluator().max_bytes == DEFAULT_CACHE_BYTES <= 128 << 20
