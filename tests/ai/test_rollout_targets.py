"""Training on our own rollouts: many positions rolled out at once
(``backgammon.ai.rollout.rollout_positions``), the targets file
(``backgammon.training.rollout_targets``) and the supervised fit
(``backgammon.training.supervised``)."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from backgammon.ai.encoding import encode
from backgammon.ai.nets import consistent, default_nets, load_weights, save_weights
from backgammon.ai.neural import CONTACT, classify
from backgammon.ai.rollout import RolloutError, RolloutSettings, rollout, rollout_positions
from backgammon.core.position import Position
from backgammon.core.types import WHITE
from backgammon.core.xgid import Xgid
from backgammon.training import rollout_targets, supervised
from backgammon.training.rollout_targets import TargetSettings, load_targets, make_targets
from backgammon.training.starts import prime_start

#: Contact positions from GNU Backgammon's self-play matches (``shared/mat``), before the roll.
XGIDS = [
    "XGID=-aB-a-EAC---eB---b-cbB-a--:0:0:1:00:0:0:0:0:10",
    "XGID=-B-bBBBAB---cC---b-ea--bA-:0:0:1:00:0:0:0:0:10",
]
SMALL = RolloutSettings(trials=8, truncate=4, seed=5)


def on_roll_board(xgid: str) -> tuple[int, ...]:
    position = Xgid.parse(xgid).position
    return position.own_points(position.turn)


def test_each_position_gets_what_its_own_rollout_gives() -> None:
    """The lock-step batch changes nothing: each position's chances are those of its own
    cubeless rollout with the same settings, to the last digit."""
    batch = rollout_positions([on_roll_board(x) for x in XGIDS], SMALL)
    assert batch.trials == 8 and not batch.stopped
    assert batch.probs.shape == batch.probs_se.shape == (2, 5)
    for i, xgid in enumerate(XGIDS):
        alone = rollout(Xgid.parse(xgid).position, settings=SMALL).candidates[0]
        assert batch.probs[i] == pytest.approx(alone.probs, abs=1e-12)
        assert batch.probs_se[i] == pytest.approx(alone.probs_se, abs=1e-12)
    assert 0.0 < batch.probs[0, 0] < 1.0 and (batch.probs_se > 0).any()


def test_the_opening_position_is_nearly_even() -> None:
    start = Position.start(WHITE).own_points(WHITE)
    result = rollout_positions([start], RolloutSettings(trials=72, truncate=6, seed=1))
    assert result.probs[0, 0] == pytest.approx(0.5, abs=0.06)
    assert result.probs_se[0, 0] < 0.03


@pytest.mark.parametrize(("boards", "settings", "message"), [
    ([[0] * 25], SMALL, "board 0: 26 ints expected, got 25"),
    ([Position.start(WHITE).own_points(WHITE), [0, 16] + [0] * 24], SMALL,
     "board 1: impossible position"),
    ([Position.start(WHITE).own_points(WHITE)], RolloutSettings(cubeful=True),
     "cubeless chances: cubeful must be False"),
])
def test_bad_positions_are_refused(boards: list[list[int]], settings: RolloutSettings,
                                   message: str) -> None:
    with pytest.raises(RolloutError, match=message):
        rollout_positions(boards, settings)


def test_a_finished_game_is_refused() -> None:
    board = [0] * 26
    board[3] = 15  # the side on roll's fifteen home; the other side has borne off all
    with pytest.raises(RolloutError, match="board 0: the game is over"):
        rollout_positions([board], SMALL)


def test_sampled_positions_are_contact_positions_and_reproducible() -> None:
    settings = TargetSettings(positions=40, seed=3, back_games=0.3, blitz=0.3)
    boards = rollout_targets.sample_positions(default_nets(), settings)
    assert boards.shape == (40, 26)
    assert (classify(boards) == CONTACT).all()
    for b in boards[:10]:  # each a legal position: fifteen checkers a side at most
        Position.from_points([int(c) for c in b], WHITE)
    again = rollout_targets.sample_positions(default_nets(), settings)
    assert np.array_equal(boards, again)
    other = rollout_targets.sample_positions(default_nets(), TargetSettings(positions=40,
                                                                            seed=4))
    assert not np.array_equal(boards, other)


def test_a_share_of_the_games_start_from_a_drawn_prime_versus_prime_position() -> None:
    """``primes=1``: every game starts from ``prime_start``, the draw that follows the share's
    own draw; with ``keep=1`` the first position kept is that start itself."""
    settings = TargetSettings(positions=12, seed=5, keep=1.0, explore=0.0, back_games=0.0,
                              blitz=0.0, primes=1.0)
    boards = rollout_targets.sample_positions(default_nets(), settings)
    rng = random.Random(5)
    rng.random()  # the draw of the game's start
    assert tuple(int(c) for c in boards[0]) == prime_start(rng)
    assert (classify(boards) == CONTACT).all()
    none = rollout_targets.sample_positions(
        default_nets(), TargetSettings(positions=12, seed=5, keep=1.0, explore=0.0,
                                       back_games=0.0, blitz=0.0, primes=0.0))
    assert not np.array_equal(boards, none)


@pytest.mark.parametrize(("setting", "other"), [("plies", 1), ("primes", 0.2)])
def test_a_file_made_before_a_setting_existed_had_its_first_value(
        tmp_path: Path, setting: str, other: float) -> None:
    """Settings without ``plies`` or ``primes`` (files made before they were settings, as those
    in checkpoints/targets/) were rolled out at 0-ply and drawn with no prime-versus-prime
    starts: a run with that value carries such a file on, a run with another refuses it."""
    out = tmp_path / "old.npz"
    settings = TargetSettings(positions=2, seed=2, trials=2, truncate=2, chunk=1)
    assert make_targets(out, settings, quiet=True) == 2
    boards, probs, ses, saved = load_targets(out)
    del saved[setting]
    np.savez(out, boards=boards, probs=probs[:1], probs_se=ses[:1],
             settings=np.asarray(json.dumps(saved)))
    with pytest.raises(ValueError, match="made with other settings"):
        make_targets(out, replace(settings, **{setting: other}), quiet=True)
    assert make_targets(out, settings, quiet=True) == 2
    assert np.array_equal(load_targets(out)[1], probs)


def test_the_shares_of_drawn_starts_add_up_to_at_most_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.npz"
    with pytest.raises(SystemExit):
        rollout_targets.main(["--out", str(out), "--back-games", "0.5", "--blitz", "0.3",
                              "--primes", "0.3"])
    assert "--back-games, --blitz and --primes must add up to at most 1" in (
        capsys.readouterr().err)
    with pytest.raises(SystemExit):
        rollout_targets.main(["--out", str(out), "--primes", "1.5"])
    assert "--primes must be between 0 and 1, got 1.5" in capsys.readouterr().err
    assert not out.exists()


def test_targets_file_is_written_chunk_by_chunk_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "targets.npz"
    settings = TargetSettings(positions=5, seed=2, trials=4, truncate=2, chunk=2)
    assert make_targets(out, settings, quiet=True) == 5
    boards, probs, ses, saved = load_targets(out)
    assert boards.shape == (5, 26) and probs.shape == ses.shape == (5, 5)
    assert saved["trials"] == 4 and saved["chunk"] == 2
    # the third chunk is that chunk's own rollout, dice seed 2 + 2
    third = rollout_positions([tuple(int(c) for c in boards[4])],
                              RolloutSettings(trials=4, truncate=2, seed=4))
    assert probs[4] == pytest.approx(third.probs[0].astype(np.float32))
    # cut back to the first chunk, as a run stopped there leaves it, then resume
    np.savez(out, boards=boards, probs=probs[:2], probs_se=ses[:2],
             settings=np.asarray(json.dumps(saved)))
    assert make_targets(out, settings, quiet=True) == 5
    _, resumed, _, _ = load_targets(out)
    assert np.array_equal(resumed, probs)
    # a larger run begins with the same positions, so it extends the file
    more = TargetSettings(positions=7, seed=2, trials=4, truncate=2, chunk=2)
    assert make_targets(out, more, quiet=True) == 7
    grown, extended, _, _ = load_targets(out)
    assert np.array_equal(grown[:5], boards) and np.array_equal(extended[:5], probs)
    with pytest.raises(ValueError, match="that are not this run's first 5"):
        make_targets(out, settings, quiet=True)
    with pytest.raises(ValueError, match="made with other settings"):
        make_targets(out, TargetSettings(positions=5, seed=3, trials=4, truncate=2, chunk=2),
                     quiet=True)


def test_targets_rolled_out_at_1_ply(tmp_path: Path) -> None:
    """``plies=1``: each chunk is rolled out by 1-ply players, not as at 0-ply."""
    out = tmp_path / "ply1.npz"
    settings = TargetSettings(positions=2, seed=2, trials=2, truncate=2, chunk=2, plies=1)
    assert make_targets(out, settings, quiet=True) == 2
    boards, probs, _, saved = load_targets(out)
    assert saved["plies"] == 1
    again = rollout_positions([tuple(int(c) for c in b) for b in boards],
                              RolloutSettings(trials=2, truncate=2, plies=1, seed=2))
    assert probs == pytest.approx(again.probs.astype(np.float32))
    at_0 = rollout_positions([tuple(int(c) for c in b) for b in boards],
                             RolloutSettings(trials=2, truncate=2, seed=2))
    assert not np.allclose(at_0.probs, again.probs)


def test_a_file_that_is_not_targets_is_refused(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.npz"
    np.savez(bad, boards=np.zeros((3, 26), np.int8))
    with pytest.raises(ValueError, match="not a rollout targets file"):
        load_targets(bad)
    assert supervised.main(["--data", str(bad), "--out", str(tmp_path / "o.npz")]) == 2
    assert "not a rollout targets file (no 'probs')" in capsys.readouterr().err
    assert not (tmp_path / "o.npz").exists()


def test_the_fit_moves_the_net_towards_the_targets(tmp_path: Path) -> None:
    """Targets a little better for the side on roll than the nets' own: the held-out error
    falls, and the file written keeps the race net and records the fit."""
    nets = default_nets()
    boards = rollout_targets.sample_positions(nets, TargetSettings(positions=300, seed=7))
    own = consistent(nets.contact(encode(boards)).copy())
    targets = own.copy()
    targets[:, 0] = np.clip(own[:, 0] + 0.05, 0.0, 1.0)
    fitted, scores = supervised.fit(nets, boards, targets,
                                    supervised.FitSettings(epochs=3, rate=0.01, seed=1),
                                    quiet=True)
    assert len(scores) == 4
    assert scores[0].mse > 4e-4  # the 0.05 shift: about 0.05**2 / 5
    assert min(s.mse for s in scores[1:]) < 0.5 * scores[0].mse
    assert fitted.race is not nets.race and np.array_equal(fitted.race.w1, nets.race.w1)
    path = tmp_path / "fitted.npz"
    save_weights(fitted, path)
    history = load_weights(path).meta["history"][-1]
    assert history["supervised"]["epochs"] == 3 and history["positions"] == 300
    assert "supervised" not in str(nets.meta.get("history", [])[-1:])



@pytest.mark.parametrize("valid", [0.01, 0.99])
def test_two_positions_keep_one_to_fit_and_one_held_out(valid: float) -> None:
    """Whatever ``valid`` is, one position is held out and at least one is fitted: the same
    board twice, with a target the nets are far from, so fitting the one moves the other."""
    nets = default_nets()
    board = np.array([on_roll_board(XGIDS[0])] * 2, dtype=np.int8)
    targets = np.array([[1.0, 0.0, 0.0, 0.0, 0.0]] * 2, dtype=np.float32)
    fitted, scores = supervised.fit(nets, board, targets,
                                    supervised.FitSettings(epochs=2, rate=0.05, valid=valid),
                                    quiet=True)
    assert len(scores) == 3
    assert scores[2].mse < scores[1].mse < scores[0].mse
    assert not np.array_equal(fitted.contact.w1, nets.contact.w1)


def test_a_file_that_is_not_an_archive_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.npz"
    text.write_text("not numpy\n")
    with pytest.raises(ValueError, match=r"notes\.npz: not a rollout targets file"):
        load_targets(text)
