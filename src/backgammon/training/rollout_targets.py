"""Training targets from our own rollouts: ``python -m backgammon.training.rollout_targets``.

TD self-play (:mod:`backgammon.training.td`) learns from targets as noisy as the games that
make them, and our contact nets stopped gaining from it at about 900,000 games (issue 37,
``docs/performance.md``). GNU Backgammon's nets were refined on rolled-out positions instead
(its manual, "How GNU Backgammon's neural nets were trained"; Tesauro, "Programming
backgammon using self-teaching neural nets", Artificial Intelligence 134, 2002: training on
rollout targets). This module makes such data from our own play only:

* **Positions.** Greedy 0-ply self-play of the nets given (:func:`sample_positions`), each game
  from the opening or, for a share of them, from a drawn back game or holding game, a drawn
  blitz or a drawn prime-versus-prime position (:mod:`backgammon.training.starts`), where the
  nets misjudge most; at a share of the contact decisions another play within
  :data:`EXPLORE_MARGIN` of the best is played, so the games reach positions greedy play
  seldom does. Each contact position before a roll is kept with probability ``keep`` (so the
  positions of a game are few and far apart). The dice and every draw come from
  ``random.Random(seed)``: the same seed gives the same positions.
* **Targets.** Each position is rolled out cubeless by
  :func:`backgammon.ai.rollout.rollout_positions` (``trials`` games, truncated after
  ``truncate`` plies, variance reduction and quasi-random dice, the players at ``plies``: 0
  by default), in chunks of ``chunk`` positions played in lock-step; chunk k uses dice seed
  ``seed + k``, so the chunks' dice differ.
* **Resumable.** After each chunk the data so far go to ``--out`` (atomically: a temporary
  file renamed); run the same command again to carry on where it stopped, or with a larger
  ``--positions`` to extend the run. The file holds
  ``boards`` ``(N, 26)`` int8 (side on roll's numbering), ``probs`` and ``probs_se``
  ``(M, 5)`` float32 for the first M of them (the rolled out ones), and ``settings`` (JSON).

:mod:`backgammon.training.supervised` then fits the contact net to such files.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import zipfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from backgammon.ai.nets import NetSet, default_nets, single_threaded_blas, use_weights
from backgammon.ai.neural import CONTACT, classify, equities, score_boards
from backgammon.ai.rollout import RolloutSettings, rollout_positions
from backgammon.core.moves import legal_plays
from backgammon.core.position import Position
from backgammon.core.types import WHITE
from backgammon.training.starts import back_game_start, blitz_start, prime_start
from backgammon.training.td import START, roll

#: Exploration plays another play within this much cubeless money equity of the best.
EXPLORE_MARGIN: Final = 0.1


@dataclass(frozen=True)
class TargetSettings:
    """How positions are drawn and rolled out (kept in the data file).

    Attributes:
        positions: positions to roll out (>= 1).
        seed: the draws' and the dice's seed (int >= 0).
        keep: share of the contact positions of a game kept (0 < keep <= 1).
        explore: share of the contact decisions played as another play near the best.
        back_games: share of the games from a drawn back game or holding game.
        blitz: share of the games from a drawn blitz.
        primes: share of the games from a drawn prime-versus-prime position
            (``back_games + blitz + primes <= 1``; files made before it was a setting had 0).
        trials: games per position (multiples of 36 use the quasi-random dice fully).
        truncate: plies after which a trial is evaluated (0: played to the end).
        chunk: positions rolled out together (and saved after).
        plies: the rollouts' players' depth, 0 or 1 (GNU Backgammon's count). The 0-ply
            players carry their own misplay into the targets: in back games 1-ply rollouts
            stand about half as far from gnubg's 2-ply equity (docs/performance.md), at four to
            five times the cost. Files made before this setting existed were rolled out at 0.
    """

    positions: int = 10_000
    seed: int = 1
    keep: float = 0.15
    explore: float = 0.1
    back_games: float = 0.25
    blitz: float = 0.15
    trials: int = 36
    truncate: int = 10
    chunk: int = 128
    plies: int = 0
    primes: float = 0.0


def sample_positions(nets: NetSet, settings: TargetSettings) -> npt.NDArray[np.int8]:
    """``settings.positions`` contact positions before a roll from the nets' own games (the
    module docstring says how). Returns ``(N, 26)`` int8 boards, side on roll's numbering."""
    rng = random.Random(settings.seed)
    found: list[tuple[int, ...]] = []
    while len(found) < settings.positions:
        draw = rng.random()
        if draw < settings.back_games:
            board = back_game_start(rng)
        elif draw < settings.back_games + settings.blitz:
            board = blitz_start(rng)
        elif draw < settings.back_games + settings.blitz + settings.primes:
            board = prime_start(rng)
        else:
            board = START
        opening = board == START
        while True:
            is_contact = classify(np.asarray([board]))[0] == CONTACT
            if not is_contact:
                break
            if not opening and rng.random() < settings.keep:
                found.append(board)
                if len(found) == settings.positions:
                    break
            dice = roll(rng, opening)
            opening = False
            boards = legal_plays(Position.from_points(board, WHITE), dice).own_boards()
            if not boards:
                board = tuple(-c for c in reversed(board))
                continue
            scores = equities(score_boards(boards, nets)[0])
            best = int(np.argmax(scores))
            if settings.explore > 0 and rng.random() < settings.explore:
                near = [i for i in range(len(boards))
                        if i != best and scores[i] >= scores[best] - EXPLORE_MARGIN]
                if near:
                    best = rng.choice(near)
            after = boards[best]
            if not any(c > 0 for c in after):
                break  # the mover has borne off every checker (the other side on the bar)
            board = tuple(-c for c in reversed(after))
    return np.asarray(found, dtype=np.int8)


def _save(path: Path, boards: npt.NDArray[np.int8], probs: npt.NDArray[np.float32],
          ses: npt.NDArray[np.float32], settings: TargetSettings) -> None:
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, boards=boards, probs=probs, probs_se=ses,
             settings=np.asarray(json.dumps(asdict(settings))))
    os.replace(tmp, path)


def load_targets(path: Path) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32],
                                      npt.NDArray[np.float32], dict[str, object]]:
    """``(boards, probs, probs_se, settings)`` of a data file, the boards cut to the rolled
    out ones.

    Raises:
        ValueError: not such a file (not an ``.npz``, a missing array, shapes that do not
            agree).
        FileNotFoundError: there is no such file.
    """
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: np.asarray(data[k]) for k in data.files}
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as e:
        raise ValueError(f"{path}: not a rollout targets file ({e})") from e
    missing = [k for k in ("boards", "probs", "probs_se", "settings") if k not in arrays]
    if missing:
        raise ValueError(f"{path}: not a rollout targets file (no {missing[0]!r})")
    boards = arrays["boards"].astype(np.int8)
    probs = arrays["probs"].astype(np.float32)
    ses = arrays["probs_se"].astype(np.float32)
    try:
        settings = json.loads(str(arrays["settings"]))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: its settings are not JSON ({e})") from e
    if boards.ndim != 2 or boards.shape[1] != 26 or probs.shape != ses.shape or (
            probs.ndim != 2 or probs.shape[1] != 5 or len(probs) > len(boards)):
        raise ValueError(f"{path}: arrays of the wrong shape (boards {boards.shape}, probs "
                         f"{probs.shape}, probs_se {ses.shape})")
    return boards[: len(probs)], probs, ses, settings


def make_targets(out: Path, settings: TargetSettings, jobs: int = 1,
                 quiet: bool = False) -> int:
    """Draw the positions and roll them out into ``out``, carrying on from what ``out``
    already holds when it was made with the same settings, ``positions`` aside: a run may be
    extended to more positions (the draw is sequential, so its first positions are the same).
    The games and the rollouts are the process's default nets'
    (:func:`~backgammon.ai.nets.default_nets`; :func:`~backgammon.ai.nets.use_weights` sets
    them; worker processes, ``jobs > 1``, load the shipped ones). Returns the positions
    rolled out.

    Raises:
        ValueError: ``out`` holds data made with other settings, or more positions than asked.
    """
    boards = sample_positions(default_nets(), settings)
    probs = np.zeros((0, 5), dtype=np.float32)
    ses = np.zeros((0, 5), dtype=np.float32)
    if out.exists():
        done, probs, ses, saved = load_targets(out)
        # files made before plies and primes were settings: 0-ply, no prime-versus-prime starts
        saved = {"plies": 0, "primes": 0.0, **saved}
        mine = asdict(settings)
        if {k: v for k, v in saved.items() if k != "positions"} != {
                k: v for k, v in mine.items() if k != "positions"}:
            raise ValueError(f"{out} was made with other settings ({saved}); choose another "
                             "--out or the same settings (--positions may grow)")
        if len(probs) > len(boards) or not np.array_equal(done, boards[: len(done)]):
            raise ValueError(f"{out} holds {len(probs)} positions that are not this run's "
                             f"first {len(boards)}")
    rollout = RolloutSettings(trials=settings.trials, truncate=settings.truncate,
                              plies=settings.plies)
    started = time.perf_counter()
    first_done = len(probs)
    while len(probs) < len(boards):
        k = len(probs) // settings.chunk
        chunk = boards[len(probs): len(probs) + settings.chunk]
        r = rollout_positions([tuple(int(c) for c in b) for b in chunk],
                              RolloutSettings(**{**asdict(rollout),
                                                 "seed": settings.seed + k}), jobs=jobs)
        probs = np.concatenate([probs, r.probs.astype(np.float32)])
        ses = np.concatenate([ses, r.probs_se.astype(np.float32)])
        _save(out, boards, probs, ses, settings)
        if not quiet:
            rate = (len(probs) - first_done) / (time.perf_counter() - started)
            print(f"{len(probs)}/{len(boards)} positions, {rate:.2f} a second", flush=True)
    return len(probs)


def _parser() -> argparse.ArgumentParser:
    d = TargetSettings()
    p = argparse.ArgumentParser(
        prog="python -m backgammon.training.rollout_targets",
        description="Roll out positions of the nets' own games as training targets "
                    "(resumable: run the same command again to carry on).")
    p.add_argument("--out", type=Path, required=True, help="the data file (.npz)")
    p.add_argument("--weights", type=Path, default=None,
                   help="the nets that play the games and the rollouts (default: shipped)")
    p.add_argument("--positions", type=int, default=d.positions)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--keep", type=float, default=d.keep)
    p.add_argument("--explore", type=float, default=d.explore)
    p.add_argument("--back-games", type=float, default=d.back_games)
    p.add_argument("--blitz", type=float, default=d.blitz)
    p.add_argument("--primes", type=float, default=d.primes,
                   help="share of the games from a drawn prime-versus-prime position")
    p.add_argument("--trials", type=int, default=d.trials)
    p.add_argument("--truncate", type=int, default=d.truncate)
    p.add_argument("--chunk", type=int, default=d.chunk)
    p.add_argument("--plies", type=int, choices=[0, 1], default=d.plies,
                   help="the rollouts' players' depth (1: less biased, 4 to 5 times the time)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--quiet", action="store_true")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    for name, low, high in (("positions", 1, None), ("seed", 0, None), ("trials", 1, None),
                            ("truncate", 0, None), ("chunk", 1, None), ("jobs", 1, None)):
        value = getattr(args, name)
        if value < low or (high is not None and value > high):
            parser.error(f"--{name} must be >= {low}, got {value}")
    for name in ("keep", "explore", "back_games", "blitz", "primes"):
        value = getattr(args, name)
        if not 0.0 <= value <= 1.0:
            parser.error(f"--{name.replace('_', '-')} must be between 0 and 1, got {value}")
    if args.keep == 0.0:
        parser.error("--keep must be above 0")
    if args.back_games + args.blitz + args.primes > 1.0:
        parser.error("--back-games, --blitz and --primes must add up to at most 1")
    if args.weights is not None and args.jobs > 1:
        parser.error("--jobs above 1 rolls out with the shipped nets: with --weights run one "
                     "job a command (several commands with other seeds and --out files)")
    settings = TargetSettings(
        positions=args.positions, seed=args.seed, keep=args.keep, explore=args.explore,
        back_games=args.back_games, blitz=args.blitz, trials=args.trials,
        truncate=args.truncate, chunk=args.chunk, plies=args.plies, primes=args.primes)
    single_threaded_blas()
    if args.weights is not None:
        use_weights(args.weights)
    try:
        make_targets(args.out, settings, args.jobs, args.quiet)
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


__all__ = ["EXPLORE_MARGIN", "TargetSettings", "load_targets", "main", "make_targets",
           "sample_positions"]

if __name__ == "__main__":
    raise SystemExit(main())
