"""Train the nets by TD(λ) self-play from scratch: ``backgammon train`` or
``python -m backgammon.training.td``.

Method (Tesauro, "Temporal difference learning and TD-Gammon", CACM 38(3), 1995; Sutton and
Barto, "Reinforcement Learning", 2nd ed., 12.1 "the λ-return"):

* The nets play both sides greedily at 0-ply: each roll's plays are scored in one batched call
  (:func:`backgammon.ai.neural.after_play_probabilities`) and the best cubeless money equity is
  played. Dice come from a ``random.Random`` seeded from ``--seed`` and the game's number, so a
  run is reproducible game by game.
* Every position before a roll where the nets decide (contact or race) is a training state.
  After the game, each state gets its λ-return: ``G_t = (1 - λ) W_t + λ G'_{t+1}``, where
  ``W_t`` is the value of the play chosen at t (the nets' own estimate, or the exact value when
  the play ends the game or reaches a bear-off both sides have home) and ``G'`` is the next
  state's return seen from this side. The game stops as soon as both sides are home: from there
  the one-sided bear-off table is exact.
* Races learn faster from a lower-variance target: a share (``--race-expect``) of the race
  states take the 1-ply expectation over the 21 rolls of the best play's value (our own
  engine's expectimax on the current nets, exact bear-offs included) instead of their
  λ-return, and the states before them build their returns on it. ``--contact-expect`` does
  the same for a share of the contact states (off by default: it costs a 1-ply search over
  many more plays, about 21 x 20 net evaluations a state).
* Exploration (``--explore``, off by default): at a share of the contact decisions (drawn
  from a generator seeded by ``rng``) the mover plays another play than the best, drawn
  evenly among those within :data:`EXPLORE_MARGIN` of it, so the games reach positions greedy
  play seldom does (hit checkers, broken boards, back games). The state before such a play
  learns the best play's value, not the one played, and its return does not build on the
  line explored (Watkins's cut, Sutton and Barto 12.10); the states after it learn as usual.
* Back-game starts (``--back-games``, off by default): a share of the games (drawn from the
  game's own generator) start from a back-game or holding-game position drawn by
  :func:`backgammon.training.starts.back_game_start` instead of the opening, because greedy
  play from the opening seldom reaches one and nets trained without them under-value the side
  holding the anchors. ``--blitz`` does the same with a drawn blitz
  (:func:`backgammon.training.starts.blitz_start`) for a share of the games not drawn as back
  games, because greedy self-play drifts towards quiet games and learns too little of the
  attacks that win gammons. ``--primes`` starts a share of the games drawn as neither from a
  prime-versus-prime position (:func:`backgammon.training.starts.prime_start`): both sides
  primed, each with checkers trapped behind the other's prime, where the nets misjudged most
  beside GNU Backgammon's analysis.
* One gradient step per game on the squared error of the five outputs, for the contact net on
  the contact states and the race net on the race states (offline λ-return: the targets use
  the weights the game was played with).
* ``--workers N`` plays on N processes, each on its own copy of the nets for ``--sync`` games;
  the copies are then averaged (parameter averaging) and sent out again.
* Every ``--checkpoint-every`` games the nets go to ``--out`` (atomically), with the games
  played and the settings in the file's notes; ``--resume`` carries on from that file.
  ``--keep-every N`` also keeps a copy every N games (``OUT-<games>.npz``), and
  ``--average A B ... --out M`` trains nothing but writes the mean of those checkpoints'
  weights (stochastic weight averaging), to measure. ``--join A B ... --out W`` trains nothing
  but writes one wider net that scores as the mean of those checkpoints' output logits
  (:func:`join`); ``--resume --out W`` then trains it on.
* Every ``--eval-every`` games the nets (0-ply) play ``--eval-games`` cubeless money games
  against a fixed opponent, the hand-made evaluation with its 2-ply search (level
  ``classic``), sides and dice alternating; points per game go to ``--log`` (CSV).

The training history of the shipped weights is in ``backgammon/ai/weights/README.md``.
"""

from __future__ import annotations

import argparse
import csv
import math
import multiprocessing as mp
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from backgammon.ai.encoding import encode
from backgammon.ai.nets import (
    Net,
    NetSet,
    WeightsError,
    load_weights,
    save_weights,
    single_threaded_blas,
)
from backgammon.ai.netsearch import NetEvaluator, preroll
from backgammon.ai.neural import (
    BEAROFF,
    CONTACT,
    FINISHED,
    RACE,
    _finished,
    after_play_probabilities,
    classify,
    equities,
    invert,
    score_boards,
)
from backgammon.core.moves import legal_plays
from backgammon.core.position import Position
from backgammon.core.types import WHITE
from backgammon.training.starts import back_game_start, blitz_start, prime_start

START = Position.start().own_points(WHITE)


@dataclass
class Settings:
    """One training run's settings (kept in the weights file's notes)."""

    seed: int = 1
    lam: float = 0.7
    rate: float = 0.1
    contact_hidden: int = 128
    race_hidden: int = 64
    race_expect: float = 0.0
    explore: float = 0.0
    contact_expect: float = 0.0
    back_games: float = 0.0
    blitz: float = 0.0
    primes: float = 0.0


#: Exploration plays another play within this much cubeless money equity of the best.
EXPLORE_MARGIN: Final = 0.2


def roll(rng: random.Random, opening: bool) -> tuple[int, int]:
    """Two dice, higher first; the opening roll is never a double (WBF rules 2.3)."""
    while True:
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        if not (opening and a == b):
            return (a, b) if a >= b else (b, a)


def play_training_game(
    nets: NetSet, rng: random.Random, lam: float, race_expect: float = 0.0,
    explore: float = 0.0, contact_expect: float = 0.0, start: tuple[int, ...] = START,
) -> tuple[list[np.ndarray], list[int], np.ndarray]:
    """One greedy self-play game. Returns the training states' encodings, their classes
    (:data:`RACE` / :data:`CONTACT`) and their targets ``(T, 5)`` (side on roll's view):
    λ-returns, except that a share ``race_expect`` of the race states (drawn from a generator
    seeded by ``rng``) get the 1-ply expectation over the 21 rolls instead, which the
    λ-returns of the states before them then build on; likewise a share ``contact_expect`` of
    the contact states (other than the starting position). At a share ``explore`` of the contact
    decisions another play within :data:`EXPLORE_MARGIN` of the best is played; the state
    before it takes the best play's value as its return (the trace is cut there).

    ``start`` is the first position (26 ints, the side on roll's numbering, a contact
    position): the opening by default, whose first roll is never a double."""
    states: list[np.ndarray] = [encode(np.asarray([start], dtype=np.int8))[0]]
    kinds: list[int] = [CONTACT]
    values: list[np.ndarray] = []
    expected: dict[int, np.ndarray] = {}
    expect = {RACE: race_expect, CONTACT: contact_expect}
    chooser = random.Random(rng.getrandbits(32)) if max(expect.values()) > 0 else None
    explorer = random.Random(rng.getrandbits(32)) if explore > 0 else None
    cut: set[int] = set()  # the decisions where another play than the best was played
    evaluator = NetEvaluator(nets, cache_size=50_000) if chooser is not None else None
    board = start
    opening = start == START
    while True:
        dice = roll(rng, opening)
        opening = False
        position = Position.from_points(board, WHITE)
        boards = legal_plays(position, dice).own_boards()
        if not boards:
            boards = [board]  # the roll cannot be played: the board stands, the other rolls
        probs, kind, encoded = score_boards(boards, nets)
        scores = equities(probs)
        best = int(np.argmax(scores))
        values.append(probs[best])
        if kind[best] in (FINISHED, BEAROFF):
            break
        if explorer is not None and kind[best] == CONTACT and explorer.random() < explore:
            others = [i for i in range(len(boards))
                      if i != best and scores[i] >= scores[best] - EXPLORE_MARGIN
                      and kind[i] not in (FINISHED, BEAROFF)]
            if others:
                best = explorer.choice(others)
                cut.add(len(values) - 1)
        states.append(encoded[best])
        kinds.append(int(kind[best]))
        board = tuple(-c for c in reversed(boards[best]))
        share = expect.get(kinds[-1], 0.0)
        if (share > 0 and chooser is not None and evaluator is not None
                and chooser.random() < share):
            target = preroll(Position.from_points(board, WHITE), evaluator, 1)
            expected[len(states) - 1] = target.astype(np.float32)
    # λ-returns, backwards; values[t] is the mover-at-t's value of its play
    returns = np.empty((len(values), 5), dtype=np.float32)
    g = values[-1]
    returns[-1] = g
    for t in range(len(values) - 2, -1, -1):
        if t in expected:
            g = expected[t]
        elif t in cut:
            g = values[t]
        else:
            nxt = invert(g[None, :])[0]
            g = (1.0 - lam) * values[t] + lam * nxt
        returns[t] = g
    return states, kinds, returns


def train_games(nets: NetSet, settings: Settings, first_game: int, count: int) -> int:
    """Play and learn from games ``first_game`` .. ``first_game + count - 1`` (their dice
    seeded from ``settings.seed`` and the game number). Returns the states learnt from (one
    per position where the nets decided)."""
    learnt = 0
    for n in range(first_game, first_game + count):
        rng = random.Random(settings.seed * 1_000_003 + n)
        start = START
        if settings.back_games > 0 and rng.random() < settings.back_games:
            start = _contact_start(rng)
        elif settings.blitz > 0 and rng.random() < settings.blitz:
            start = blitz_start(rng)
        elif settings.primes > 0 and rng.random() < settings.primes:
            start = prime_start(rng)
        states, kinds, returns = play_training_game(nets, rng, settings.lam,
                                                    settings.race_expect, settings.explore,
                                                    settings.contact_expect, start)
        x = np.asarray(states, dtype=np.float32)
        k = np.asarray(kinds)
        for net_kind, net in ((CONTACT, nets.contact), (RACE, nets.race)):
            rows = k == net_kind
            if rows.any():
                net.train_step(x[rows], returns[rows], settings.rate)
        learnt += len(states)
    return learnt


def _contact_start(rng: random.Random) -> tuple[int, ...]:
    """A back-game start (:func:`~backgammon.training.starts.back_game_start`), drawn again
    in the rare case the sides are not in contact."""
    while True:
        board = back_game_start(rng)
        if classify(np.asarray([board]))[0] == CONTACT:
            return board


def new_nets(settings: Settings) -> NetSet:
    """Fresh random nets from ``settings.seed``."""
    rng = np.random.default_rng(settings.seed)
    return NetSet(
        Net.random(settings.contact_hidden, rng),
        Net.random(settings.race_hidden, rng),
        {"games": 0, "settings": asdict(settings), "history": []},
    )


def average(sets: Sequence[NetSet]) -> NetSet:
    """The mean of each weight over ``sets`` (notes of the first)."""

    def mean(nets: Sequence[Net]) -> Net:
        return Net(*(np.mean([getattr(n, a) for n in nets], axis=0).astype(np.float32)
                     for a in ("w1", "b1", "w2", "b2")))

    return NetSet(mean([s.contact for s in sets]), mean([s.race for s in sets]),
                  sets[0].meta)


def join(sets: Sequence[NetSet]) -> NetSet:
    """One net set whose outputs are those of ``sets`` averaged before the output sigmoid:
    each net's hidden units side by side (hidden sizes added), its output weights and biases
    divided by ``len(sets)``. So a joined net scores every board exactly as the mean of the
    members' output logits (an ensemble in one wider net), and training can go on from it
    with the wider nets' room. The notes are the first set's, with the hidden sizes set to
    the joined ones.

    Raises:
        ValueError: no sets, or nets with different inputs."""
    if not sets:
        raise ValueError("join needs at least one net set")
    k = len(sets)

    def side_by_side(nets: Sequence[Net]) -> Net:
        inputs = {n.w1.shape[0] for n in nets}
        if len(inputs) > 1:
            raise ValueError(f"the nets have different inputs: {sorted(inputs)}")
        return Net(np.concatenate([n.w1 for n in nets], axis=1).astype(np.float32),
                   np.concatenate([n.b1 for n in nets]).astype(np.float32),
                   (np.concatenate([n.w2 for n in nets], axis=0) / k).astype(np.float32),
                   (np.sum([n.b2 for n in nets], axis=0) / k).astype(np.float32))

    contact = side_by_side([s.contact for s in sets])
    race = side_by_side([s.race for s in sets])
    meta = dict(sets[0].meta)
    if "settings" in meta:
        meta["settings"] = {**meta["settings"], "contact_hidden": int(contact.w1.shape[1]),
                            "race_hidden": int(race.w1.shape[1])}
    return NetSet(contact, race, meta)


def _worker(args: tuple[NetSet, Settings, int, int]) -> tuple[NetSet, int]:
    nets, settings, first, count = args
    learnt = train_games(nets, settings, first, count)
    return nets, learnt


# -- evaluation against a fixed opponent -------------------------------------------------------

Chooser = Callable[[Position, tuple[int, int]], int]


def net_chooser(nets: NetSet) -> Chooser:
    """0-ply play by ``nets``: the index of the best play among ``own_boards()``."""

    def choose(position: Position, dice: tuple[int, int]) -> int:
        boards = legal_plays(position, dice).own_boards()
        return int(np.argmax(equities(after_play_probabilities(boards, nets))))

    return choose


def hard_chooser() -> Chooser:
    """The hand-made evaluation with its 2-ply search (level ``classic``, the project's Hard
    before the nets)."""
    from backgammon.ai.choose import _score
    from backgammon.ai.levels import CLASSIC
    from backgammon.ai.search import shared_evaluator

    evaluator = shared_evaluator()

    def choose(position: Position, dice: tuple[int, int]) -> int:
        legal = legal_plays(position, dice)
        return _score(legal, CLASSIC, evaluator)[0].play_index

    return choose


def play_cubeless(first: Chooser, second: Chooser, rng: random.Random) -> int:
    """One cubeless money game, ``first`` opening; points won by ``first`` (negative: lost)."""
    board = START
    players = (first, second)
    side = 0
    opening = True
    while True:
        dice = roll(rng, opening)
        opening = False
        position = Position.from_points(board, WHITE)
        boards = legal_plays(position, dice).own_boards()
        if boards:
            chosen = boards[players[side](position, dice)] if len(boards) > 1 else boards[0]
            if not any(c > 0 for c in chosen):
                won = _finished(np.asarray([chosen], dtype=np.int8))[0]
                points = 1 + int(won[1]) + int(won[2])
                return points if side == 0 else -points
            board = tuple(-c for c in reversed(chosen))
        else:
            board = tuple(-c for c in reversed(board))
        side = 1 - side


def evaluate_against(nets: NetSet, games: int, seed: int, opponent: Chooser | None = None
                     ) -> tuple[float, float]:
    """Points per game of ``nets`` (0-ply) against ``opponent`` (default classic) over ``games``
    seeded games, the first move alternating; returns (mean, 95% half-width)."""
    mine = net_chooser(nets)
    other = opponent or hard_chooser()
    scores = []
    for g in range(games):
        rng = random.Random(seed * 7919 + g)
        if g % 2 == 0:
            scores.append(play_cubeless(mine, other, rng))
        else:
            scores.append(-play_cubeless(other, mine, rng))
    mean = sum(scores) / len(scores)
    var = sum((s - mean) ** 2 for s in scores) / max(len(scores) - 1, 1)
    return mean, 1.96 * math.sqrt(var / len(scores))


# -- the command -------------------------------------------------------------------------------


def _number(kind: type, low: float, high: float | None = None) -> Callable[[str], float]:
    """An argparse type: a number of ``kind`` (int or float) from ``low`` (to ``high``)."""

    def parse(text: str) -> float:
        try:
            value: float = kind(text)
        except ValueError:
            what = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low:g} to {high:g}, got {text}")
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low:g}, got {text}")
        return value

    return parse


#: A new run's settings where the command line gives none (a resumed run keeps its own): the
#: :class:`Settings` defaults, except that a quarter of the race states learn from the 1-ply
#: expectation (the shipped nets' setting since stage 2).
NEW_RUN: Final = {**{k: v for k, v in asdict(Settings()).items() if k != "seed"},
                  "race_expect": 0.25}


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """Defaults in the help, except where there is none to show."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False):
            return action.help
        return super()._get_help_string(action)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="backgammon train", description=__doc__.split("\n\n")[0],
                                formatter_class=_Help)
    positive = _number(int, 1)
    share = _number(float, 0.0, 1.0)
    p.add_argument("--games", type=positive, default=100_000, help="games to play in this run")
    p.add_argument("--out", type=Path, default=Path("train-out/nets.npz"),
                   help="checkpoint file (weights and notes); a new run refuses to overwrite "
                   "one")
    p.add_argument("--resume", action="store_true",
                   help="carry on from --out, with its own settings unless given here")
    p.add_argument("--seed", type=int, default=1, help="a new run's seed")
    p.add_argument("--lam", type=share, default=None,
                   help=f"λ of TD(λ) (new run: {NEW_RUN['lam']})")
    p.add_argument("--rate", type=_number(float, 0.0), default=None,
                   help=f"step size (new run: {NEW_RUN['rate']})")
    p.add_argument("--contact-hidden", type=positive, default=None,
                   help=f"a new run's contact net hidden units ({NEW_RUN['contact_hidden']})")
    p.add_argument("--race-hidden", type=positive, default=None,
                   help=f"a new run's race net hidden units ({NEW_RUN['race_hidden']})")
    p.add_argument("--race-expect", type=share, default=None,
                   help="share of race states trained on the 1-ply expectation (new run: "
                   f"{NEW_RUN['race_expect']})")
    p.add_argument("--contact-expect", type=share, default=None,
                   help="share of contact states trained on the 1-ply expectation (new run: "
                   f"{NEW_RUN['contact_expect']})")
    p.add_argument("--explore", type=share, default=None,
                   help="share of contact decisions that play another play near the best "
                   f"(new run: {NEW_RUN['explore']})")
    p.add_argument("--back-games", type=share, default=None,
                   help="share of games that start from a drawn back-game or holding-game "
                   f"position instead of the opening (new run: {NEW_RUN['back_games']})")
    p.add_argument("--blitz", type=share, default=None,
                   help="share of games that start from a drawn blitz (the other games: "
                   f"those not drawn as back games) (new run: {NEW_RUN['blitz']})")
    p.add_argument("--primes", type=share, default=None,
                   help="share of games that start from a drawn prime-versus-prime position "
                   "(the other games: those drawn as neither a back game nor a blitz) (new run: "
                   f"{NEW_RUN['primes']})")
    p.add_argument("--workers", type=positive, default=1, help="processes (one per core)")
    p.add_argument("--sync", type=positive, default=200, help="games between weight averaging")
    p.add_argument("--checkpoint-every", type=positive, default=5000)
    p.add_argument("--keep-every", type=positive, default=None,
                   help="also keep a copy of the checkpoint every N games, named "
                   "OUT-<games>.npz (snapshots to measure or average later)")
    p.add_argument("--average", type=Path, nargs="+", default=None, metavar="CHECKPOINT",
                   help="train nothing: write the mean of these checkpoints' weights to --out "
                   "(stochastic weight averaging; for measuring, its notes are the first's)")
    p.add_argument("--join", type=Path, nargs="+", default=None, metavar="CHECKPOINT",
                   help="train nothing: write one wider net that scores as the mean of these "
                   "checkpoints' output logits (their hidden units side by side) to --out; "
                   "--resume trains it on")
    p.add_argument("--eval-every", type=positive, default=20_000)
    p.add_argument("--eval-games", type=positive, default=200)
    p.add_argument("--log", type=Path, default=None, help="CSV of the evaluations "
                   "(default: beside --out)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _settings(args: argparse.Namespace) -> tuple[Settings, NetSet]:
    """The run's settings and nets: a new run's from the command line (refusing to overwrite
    a checkpoint), a resumed one's from its file with what the command line changes.

    Raises:
        TrainingError: nothing to resume, a checkpoint in the way, or a resumed run asked
            for other hidden layers.
    """
    given = {k: getattr(args, k) for k in NEW_RUN if getattr(args, k) is not None}
    out: Path = args.out
    if not args.resume:
        if out.exists():
            raise TrainingError(f"{out} exists: --resume to carry on from it, or choose "
                                "another --out")
        settings = Settings(seed=args.seed, **{**NEW_RUN, **given})
        return settings, new_nets(settings)
    if not out.exists():
        raise TrainingError(f"nothing to resume: {out} does not exist (leave out --resume to "
                            "start a new run)")
    try:
        nets = load_weights(out)
    except WeightsError as exc:
        raise TrainingError(str(exc)) from None
    kept: Any = nets.meta.get("settings")
    try:
        settings = Settings(**kept)
    except TypeError:  # none in the notes, or not the settings of a run
        raise TrainingError(f"{out} has no training settings in its notes (weights made "
                            "outside `backgammon train`?): start a new run, or --join a "
                            "training checkpoint with it (the first file given keeps its "
                            "notes)") from None
    for key in ("contact_hidden", "race_hidden"):
        if key in given and given[key] != getattr(settings, key):
            raise TrainingError(f"{out} has {getattr(settings, key)} hidden units in its "
                                f"{key.split('_')[0]} net, not {given[key]}: a run keeps its "
                                "nets' shape")
    for key in ("lam", "rate", "race_expect", "contact_expect", "explore", "back_games",
                "blitz", "primes"):
        if key in given:
            setattr(settings, key, given[key])
    nets.meta["settings"] = asdict(settings)
    return settings, nets


class TrainingError(Exception):
    """A training run that cannot start, in words."""


def _average_files(parser: argparse.ArgumentParser, paths: Sequence[Path], out: Path) -> int:
    """``--average``: the mean of the checkpoints at ``paths`` written to ``out`` (refused when
    ``out`` exists, or a file is not a checkpoint, or the nets differ in shape)."""
    if out.exists():
        parser.error(f"{out} exists: choose another --out for the mean")
    try:
        sets = [load_weights(path) for path in paths]
    except WeightsError as exc:
        parser.error(str(exc))
    shapes = {(s.contact.w1.shape, s.race.w1.shape) for s in sets}
    if len(shapes) > 1:
        parser.error(f"the checkpoints' nets differ in shape: {sorted(shapes)}")
    mean = average(sets)
    mean.meta = {**sets[0].meta, "averaged": [str(p) for p in paths],
                 "games": max(int(s.meta.get("games", 0)) for s in sets)}
    out.parent.mkdir(parents=True, exist_ok=True)
    save_weights(mean, out)
    print(f"{out}: the mean of {len(sets)} checkpoints")
    return 0


def _join_files(parser: argparse.ArgumentParser, paths: Sequence[Path], out: Path) -> int:
    """``--join``: :func:`join` of the checkpoints at ``paths`` written to ``out`` (refused
    when ``out`` exists, a file is not a checkpoint, or the nets' inputs differ)."""
    if out.exists():
        parser.error(f"{out} exists: choose another --out for the joined nets")
    try:
        sets = [load_weights(path) for path in paths]
        joined = join(sets)
    except (WeightsError, ValueError) as exc:
        parser.error(str(exc))
    joined.meta = {**joined.meta, "joined": [str(p) for p in paths],
                   "games": max(int(s.meta.get("games", 0)) for s in sets)}
    joined.meta.pop("averaged", None)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_weights(joined, out)
    print(f"{out}: {len(sets)} checkpoints joined, {joined.contact.w1.shape[1]} contact and "
          f"{joined.race.w1.shape[1]} race hidden units")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run training (see the module docstring); returns the exit status."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    parser = _parser()
    args = parser.parse_args(argv)
    single_threaded_blas()
    out: Path = args.out
    if args.average is not None:
        return _average_files(parser, args.average, out)
    if args.join is not None:
        return _join_files(parser, args.join, out)
    log_path: Path = args.log or out.with_suffix(".csv")
    try:
        settings, nets = _settings(args)
    except TrainingError as exc:
        parser.error(str(exc))
    out.parent.mkdir(parents=True, exist_ok=True)
    start_games = int(nets.meta.get("games", 0))
    target = start_games + args.games
    done = start_games
    pool = mp.get_context("fork").Pool(args.workers) if args.workers > 1 else None
    next_checkpoint = (done // args.checkpoint_every + 1) * args.checkpoint_every
    next_eval = (done // args.eval_every + 1) * args.eval_every
    began = time.monotonic()
    with Progress(
        TextColumn("training"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.1f} games/s"), TimeElapsedColumn(),
        TimeRemainingColumn(), disable=args.quiet, transient=False,
    ) as progress:
        task = progress.add_task("train", total=args.games, rate=0.0)
        while done < target:
            chunk = min(args.sync * max(args.workers, 1), target - done)
            if pool is None:
                train_games(nets, settings, done, chunk)
            else:
                per = -(-chunk // args.workers)
                jobs = [(nets, settings, done + i * per, min(per, chunk - i * per))
                        for i in range(args.workers) if chunk - i * per > 0]
                results = pool.map(_worker, jobs)
                nets = average([r[0] for r in results])
            done += chunk
            nets.meta["games"] = done
            elapsed = time.monotonic() - began
            progress.update(task, completed=done - start_games,
                            rate=(done - start_games) / max(elapsed, 1e-9))
            if done >= next_checkpoint or done >= target:
                save_weights(nets, out)
                next_checkpoint += args.checkpoint_every
            if args.keep_every and done // args.keep_every > (done - chunk) // args.keep_every:
                save_weights(nets, out.with_name(f"{out.stem}-{done}.npz"))
            if done >= next_eval:
                next_eval += args.eval_every
                mean, half = evaluate_against(nets, args.eval_games, seed=done)
                new = not log_path.exists()
                with open(log_path, "a", newline="") as handle:
                    writer = csv.writer(handle)
                    if new:
                        writer.writerow(["games", "points_per_game_vs_classic", "ci95",
                                         "games_per_s", "unix_time"])
                    writer.writerow([done, f"{mean:.4f}", f"{half:.4f}",
                                     f"{(done - start_games) / max(elapsed, 1e-9):.2f}",
                                     int(time.time())])
                nets.meta.setdefault("history", []).append(
                    {"games": done, "vs_classic": round(mean, 4), "ci95": round(half, 4)})
                save_weights(nets, out)
                progress.console.print(
                    f"{done} games: {mean:+.3f} points/game against classic (±{half:.3f})")
    if pool is not None:
        pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
