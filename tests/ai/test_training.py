"""The training command: two worker processes, checkpoints, resuming, the evaluation log."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from backgammon.ai.nets import Net, NetSet, load_weights, save_weights
from backgammon.cli import main
from backgammon.training import td


def test_train_checkpoints_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "nets.npz"
    common = ["--out", str(out), "--contact-hidden", "8", "--race-hidden", "4", "--quiet",
              "--checkpoint-every", "10", "--eval-every", "20", "--eval-games", "2"]
    assert main(["train", "--games", "20", "--workers", "2", "--sync", "5", *common]) == 0
    first = load_weights(out)
    assert first.meta["games"] == 20
    assert first.meta["settings"]["contact_hidden"] == 8
    assert first.contact.w1.shape == (227, 8)
    assert main(["train", "--games", "10", "--resume", *common]) == 0
    again = load_weights(out)
    assert again.meta["games"] == 30
    assert not np.array_equal(first.contact.w1, again.contact.w1)
    with open(out.with_suffix(".csv")) as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["games"]) for r in rows] == [20]
    assert abs(float(rows[0]["points_per_game_vs_classic"])) <= 3.0
    assert [h["games"] for h in again.meta["history"]] == [20]
    assert "points/game against classic" in capsys.readouterr().out


def test_parameter_averaging() -> None:
    settings = td.Settings(contact_hidden=4, race_hidden=2)
    a, b = td.new_nets(settings), td.new_nets(td.Settings(seed=2, contact_hidden=4, race_hidden=2))
    mean = td.average([a, b])
    assert np.allclose(mean.contact.w1, (a.contact.w1 + b.contact.w1) / 2)
    assert np.allclose(mean.race.b2, (a.race.b2 + b.race.b2) / 2)


def test_joined_nets_score_as_the_mean_of_the_members_logits() -> None:
    a = td.new_nets(td.Settings(contact_hidden=4, race_hidden=2))
    b = td.new_nets(td.Settings(seed=2, contact_hidden=6, race_hidden=3))
    joined = td.join([a, b])
    assert joined.contact.w1.shape == (227, 10) and joined.race.w1.shape == (227, 5)
    assert joined.meta["settings"]["contact_hidden"] == 10
    assert joined.meta["settings"]["race_hidden"] == 5
    x = np.random.default_rng(0).random((7, 227)).astype(np.float32)

    def logit(p: np.ndarray) -> np.ndarray:
        return np.asarray(np.log(p / (1.0 - p)))

    for net, members in ((joined.contact, (a.contact, b.contact)),
                         (joined.race, (a.race, b.race))):
        expected = (logit(members[0](x)) + logit(members[1](x))) / 2
        assert np.allclose(logit(net(x)), expected, atol=1e-4)
    with pytest.raises(ValueError, match="at least one"):
        td.join([])
    fewer = NetSet(Net(a.contact.w1[:200], a.contact.b1, a.contact.w2, a.contact.b2),
                   a.race, a.meta)
    with pytest.raises(ValueError, match=r"different inputs: \[200, 227\]"):
        td.join([a, fewer])


def test_join_writes_a_wider_net_that_training_carries_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--join writes the joined nets (refusing to overwrite); --resume trains them on."""
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    small = ["--quiet", "--eval-every", "1000", "--checkpoint-every", "2"]
    for path, seed in ((a, "1"), (b, "2")):
        assert td.main(["--out", str(path), "--games", "2", "--contact-hidden", "8",
                        "--race-hidden", "4", "--seed", seed, *small]) == 0
    wide = tmp_path / "wide.npz"
    assert td.main(["--join", str(a), str(b), "--out", str(wide)]) == 0
    assert "2 checkpoints joined, 16 contact and 8 race hidden units" in capsys.readouterr().out
    joined = load_weights(wide)
    assert joined.contact.w1.shape == (227, 16) and joined.meta["games"] == 2
    assert joined.meta["joined"] == [str(a), str(b)]
    assert td.main(["--resume", "--out", str(wide), "--games", "2", *small]) == 0
    trained = load_weights(wide)
    assert trained.meta["games"] == 4 and trained.contact.w1.shape == (227, 16)
    assert not np.array_equal(trained.contact.w1, joined.contact.w1)
    with pytest.raises(SystemExit):  # never over an existing file
        td.main(["--join", str(a), str(b), "--out", str(wide)])
    assert "exists: choose another --out" in capsys.readouterr().err
    # weights with no training settings in their notes are refused in words, left as they are
    bare = tmp_path / "bare.npz"
    save_weights(NetSet(joined.contact, joined.race, {"games": 0}), bare)
    before = bare.read_bytes()
    with pytest.raises(SystemExit):
        td.main(["--resume", "--out", str(bare), "--games", "2", *small])
    assert "has no training settings in its notes" in capsys.readouterr().err
    assert bare.read_bytes() == before
    assert td.main(["--join", str(a), str(bare), "--out", str(tmp_path / "again.npz")]) == 0
    assert td.main(["--resume", "--out", str(tmp_path / "again.npz"), "--games", "2",
                    *small]) == 0
    with pytest.raises(SystemExit):
        td.main(["--join", str(a), str(tmp_path / "nothing.npz"), "--out",
                 str(tmp_path / "other.npz")])
    assert not (tmp_path / "other.npz").exists()


def test_the_opening_roll_is_never_a_double() -> None:
    import random

    rng = random.Random(0)
    rolls = [td.roll(rng, opening=True) for _ in range(300)]
    assert all(a > b for a, b in rolls)
    assert any(a == b for a, b in (td.roll(rng, opening=False) for _ in range(300)))


def test_exploration_leaves_the_greedy_line_and_learns_the_best_value_there() -> None:
    """With ``explore`` the games leave the greedy line at some contact decisions; the state
    before such a play learns the best play's value (the trace is cut), so every target is
    still a set of chances, and an old weights file without the setting resumes with none."""
    import random

    nets = td.new_nets(td.Settings(contact_hidden=8, race_hidden=4))
    # a share too small to explore draws the same dice (the explorer's seed comes from rng)
    greedy = td.play_training_game(nets, random.Random(5), 0.7, explore=1e-12)
    again = td.play_training_game(nets, random.Random(5), 0.7, explore=1e-12)
    explored = td.play_training_game(nets, random.Random(5), 0.7, explore=0.5)
    assert len(greedy[0]) == len(again[0])
    assert all(np.array_equal(a, b) for a, b in zip(greedy[0], again[0], strict=True))
    differs = len(explored[0]) != len(greedy[0]) or any(
        not np.array_equal(a, b) for a, b in zip(explored[0], greedy[0], strict=False))
    assert differs
    states, kinds, returns = explored
    assert len(states) == len(kinds) == len(returns)
    assert np.all(returns >= 0.0) and np.all(returns <= 1.0)
    assert np.all(returns[:, 1] <= returns[:, 0] + 1e-6)  # a gammon is a win
    assert td.Settings(**{"seed": 1, "lam": 0.7, "rate": 0.1, "contact_hidden": 8,
                          "race_hidden": 4, "race_expect": 0.0}).explore == 0.0


def test_contact_states_can_learn_the_one_ply_expectation() -> None:
    """With ``contact_expect`` (and ``race_expect``) at 1 every state after the start learns
    its 1-ply expectation, which does not depend on λ; the play is the same greedy play; at 0
    the targets are λ-returns, which do. An old weights file's settings resume with none."""
    import random

    from backgammon.ai.nets import default_nets

    nets = default_nets()  # trained nets play a short game; random ones wander for hundreds
    # a share too small to draw draws the same dice (the chooser's seed comes from rng)
    plain = td.play_training_game(nets, random.Random(7), 0.7, race_expect=1e-12)
    expect = td.play_training_game(nets, random.Random(7), 0.7, race_expect=1.0,
                                   contact_expect=1.0)
    other_lam = td.play_training_game(nets, random.Random(7), 0.2, race_expect=1.0,
                                      contact_expect=1.0)
    assert td.CONTACT in expect[1][1:]
    assert len(plain[0]) == len(expect[0]) == len(other_lam[0])
    assert all(np.array_equal(a, b) for a, b in zip(plain[0], expect[0], strict=True))
    assert np.allclose(expect[2][1:], other_lam[2][1:])
    assert not np.allclose(expect[2][0], other_lam[2][0])
    lam_only = td.play_training_game(nets, random.Random(7), 0.2, race_expect=1e-12)
    contact = [t for t, k in enumerate(plain[1]) if k == td.CONTACT and t > 0]
    assert not np.allclose(plain[2][contact], lam_only[2][contact])
    assert not np.allclose(plain[2][contact], expect[2][contact])
    returns = expect[2]
    assert np.all(returns >= -1e-6) and np.all(returns <= 1.0 + 1e-6)
    assert td.Settings(**{"seed": 1, "lam": 0.7, "rate": 0.1, "contact_hidden": 8,
                          "race_hidden": 4, "race_expect": 0.25,
                          "explore": 0.0}).contact_expect == 0.0


def test_a_run_keeps_its_checkpoint_and_settings(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A new run never overwrites a checkpoint; --resume needs one, keeps its own settings
    unless the command line changes them, and keeps its nets' shape; nonsense numbers are
    refused before anything runs."""
    out = tmp_path / "nets.npz"
    small = ["--contact-hidden", "8", "--race-hidden", "4", "--quiet", "--eval-every", "1000"]
    with pytest.raises(SystemExit) as missing:
        td.main(["--resume", "--out", str(out), "--games", "2", *small])
    assert missing.value.code == 2
    assert f"nothing to resume: {out} does not exist" in capsys.readouterr().err
    assert td.main(["--out", str(out), "--games", "4", "--rate", "0.02", "--explore", "0.1",
                    *small]) == 0
    first = load_weights(out)
    with pytest.raises(SystemExit):
        td.main(["--out", str(out), "--games", "4", *small])
    assert f"{out} exists: --resume to carry on from it" in capsys.readouterr().err
    assert load_weights(out).meta["games"] == 4  # untouched
    assert np.array_equal(load_weights(out).contact.w1, first.contact.w1)
    assert td.main(["--resume", "--out", str(out), "--games", "2", "--quiet"]) == 0
    kept = load_weights(out).meta
    assert kept["games"] == 6
    assert (kept["settings"]["rate"], kept["settings"]["explore"]) == (0.02, 0.1)
    assert td.main(["--resume", "--out", str(out), "--games", "2", "--quiet",
                    "--rate", "0.01"]) == 0
    assert load_weights(out).meta["settings"]["rate"] == 0.01
    with pytest.raises(SystemExit):
        td.main(["--resume", "--out", str(out), "--games", "2", "--contact-hidden", "16"])
    assert "has 8 hidden units in its contact net, not 16" in capsys.readouterr().err
    for bad, words in ((["--sync", "0"], "must be at least 1"),
                       (["--checkpoint-every", "0"], "must be at least 1"),
                       (["--games", "0"], "must be at least 1"),
                       (["--explore", "2"], "must be from 0 to 1"),
                       (["--contact-expect", "-0.5"], "must be from 0 to 1"),
                       (["--workers", "x"], "not a whole number: 'x'")):
        with pytest.raises(SystemExit):
            td.main(["--out", str(tmp_path / "other.npz"), *bad])
        assert words in capsys.readouterr().err
    assert not (tmp_path / "other.npz").exists()


def test_snapshots_kept_and_averaged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--keep-every keeps copies named by their games; --average writes their mean."""
    out = tmp_path / "run.npz"
    small = ["--contact-hidden", "8", "--race-hidden", "4", "--quiet", "--eval-every", "1000",
             "--checkpoint-every", "2"]
    assert td.main(["--out", str(out), "--games", "6", "--sync", "2", "--keep-every", "2",
                    *small]) == 0
    kept = sorted(p.name for p in tmp_path.glob("run-*.npz"))
    assert kept == ["run-2.npz", "run-4.npz", "run-6.npz"]
    snaps = [load_weights(tmp_path / name) for name in kept]
    assert [s.meta["games"] for s in snaps] == [2, 4, 6]
    mean_path = tmp_path / "mean.npz"
    assert td.main(["--average", *(str(tmp_path / n) for n in kept), "--out",
                    str(mean_path)]) == 0
    mean = load_weights(mean_path)
    assert np.allclose(mean.contact.w1, np.mean([s.contact.w1 for s in snaps], axis=0))
    assert mean.meta["games"] == 6 and len(mean.meta["averaged"]) == 3
    with pytest.raises(SystemExit):  # never over an existing file
        td.main(["--average", str(tmp_path / kept[0]), "--out", str(mean_path)])
    assert "exists: choose another --out" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        td.main(["--average", str(tmp_path / "nothing.npz"), "--out",
                 str(tmp_path / "other.npz")])
    assert not (tmp_path / "other.npz").exists()
