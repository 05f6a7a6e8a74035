"""Rollouts: a position played out many times by the computer, with variance reduction.

A rollout estimates what a decision is worth by playing it out: ``trials`` games from the
same start, the computer at a fixed level playing both sides, each game played to the end or
stopped after ``truncate`` plies and evaluated there, and the results averaged (GNU
Backgammon's manual, "Rollouts": "Introduction to rollouts" and "Rollouts in GNU
Backgammon"). :func:`rollout` rolls out

* **checker play**: a position with its dice; every legal play of the roll, or the first
  ``top`` by the level's own ranking, each rolled out from the position after it (the
  opponent to roll);
* **a cube decision**: a position before the roll, cubeful: *no double* (the cube as it is),
  *double, take* (the cube at twice its value, owned by the taker) and *double, pass* (the
  doubler wins the cube's value: no rollout);
* **a position**: before the roll, cubeless: its chances.

How the trials are played (each as GNU Backgammon's ``rollout.c`` plays them):

* **Players.** Both sides play at ``plies`` (GNU Backgammon's count): 0-ply picks each roll's
  play by the nets on the position after it (:mod:`backgammon.ai.neural`), 1-ply by the mean
  over the opponent's 21 rolls of its best reply at 0-ply, among the plays a move filter keeps
  (:data:`ONE_PLY_FILTER`). A play's worth is the side's own utility
  (:func:`backgammon.ai.choose.play_utility`: cubeless money equity, or match-winning chances
  at the score, the cube's value deciding what a gammon is worth).
* **The cube** (cubeful rollouts): before each roll the side on roll doubles when
  :func:`backgammon.ai.cube.double_decision` says so on its chances at ``plies``, the opponent
  takes or passes as the same decision says (a beaver is taken as a take, as GNU Backgammon's
  rollouts do). A pass ends the trial: the doubler wins the cube's value.
* **Truncation.** After ``truncate`` plies (0: never) the position is evaluated at ``plies``,
  cubeful in a cubeful rollout. A cubeless rollout also stops where both sides have every
  checker home (``bearoff_truncation``): the one-sided bear-off table
  (:mod:`backgammon.ai.bearoff`) scores it exactly, as GNU Backgammon truncates cubeless
  rollouts at its one-sided database.
* **Variance reduction** (``variance_reduction``; the manual's "Variance reduction"): at each
  ply, the luck of the roll thrown is the value after the best 0-ply play of that roll minus
  the mean of that value over the 21 rolls (weights 1/36 and 2/36), and each trial's result
  has the sum of its luck subtracted. The luck of a roll has mean zero whatever the values
  are, so the estimate stays unbiased; it cancels most of the dice's noise. The five chances
  each have their own luck terms; a cubeful rollout's equity has luck terms from the cubeful
  values of the positions after each roll's best play
  (:func:`~backgammon.ai.cube_batch.batch_cubeful_values`: the cube model of
  :mod:`backgammon.ai.cube` for a batch of positions).
* **Quasi-random dice** (``quasi_random``; the manual's "Quasi-random dice"): roll t of trial
  i is ``perm[0][t][i mod 36]``, then each higher base-36 digit of i shifts the pick through
  another permutation (``perm[g][t]``, up to six digits): each block of 36 trials (0-35,
  36-71, ...) throws each of the 36 first throws once, each block of 1,296 each sequence of
  two first throws once, and every later turn's throws are spread over each block of 36 the
  same way. The permutations come from ``seed``; past
  turn 128, and without quasi-random dice, the dice of (trial, turn) come from ``seed`` by
  numpy's PCG64.

**Reproducible.** A trial's result depends only on the seed, its index and the settings: the
dice are a function of (seed, trial, turn); the nets are evaluated in blocks of exactly
:data:`NET_BLOCK` rows, so a board's probabilities do not depend on the boards evaluated with
it (a BLAS gives the same row only for the same shape); ties go to the first play in the
move generator's order. So the figures are the same for any number of jobs (worker
processes, ``jobs``) and any batching, and trials are summed in their own order. Worker
processes are started by ``spawn`` (safe beside threads, as in the server): a script that
asks for ``jobs > 1`` needs Python's ``if __name__ == "__main__":`` guard.

**Fast.** The trials of a block advance in lock-step: at each ply every game's 21 rolls and
every play of each are generated, and one batched net call scores all the new boards; the
probabilities of boards and the best play of each roll of each position are cached (the first
plies of the trials share their positions). ``jobs`` worker processes take blocks of trials.

**Results** (:class:`Rollout`), for each candidate from the side to decide's view: the mean
of the five chances (win, win gammon, win backgammon, lose gammon, lose backgammon; gammons
include backgammons) with standard errors, the equity in EMG with its standard error (money:
points per cube of the starting value; match: match-winning chances turned to EMG as GNU
Backgammon's ``mwc2eq`` does, :func:`emg_scale`), match-winning chances in match play, and
whether the best candidate is ahead of the next at 95 % (the paired trials' differences:
both candidates of a trial share its dice). The standard error is the standard deviation of
the trials' values over the square root of their number.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt

from backgammon.ai.choose import play_utility
from backgammon.ai.cube import CubeAction, CubeState, double_decision, may_double
from backgammon.ai.cube_batch import batch_cube_equities, batch_cubeful_values
from backgammon.ai.encoding import encode, on_roll_view
from backgammon.ai.features import ROLL_DICE, ROLL_WEIGHT, Board, flip
from backgammon.ai.levels import Level
from backgammon.ai.met import match_equity_table
from backgammon.ai.nets import Net, NetSet, consistent, default_nets
from backgammon.ai.netsearch import MoveFilter, Utility
from backgammon.ai.neural import (
    BEAROFF,
    CONTACT,
    FINISHED,
    RACE,
    after_play_probabilities,
    classify,
    impossible_results,
    invert,
)
from backgammon.core.errors import IllegalPlayError, InvalidPositionError, NotationError
from backgammon.core.moves import LegalPlays, Play, legal_plays
from backgammon.core.notation import parse_play
from backgammon.core.position import GAME_OVER_TEXT, Position, outcome
from backgammon.core.types import WHITE, Color

Floats = npt.NDArray[np.float64]
Probs5 = tuple[float, float, float, float, float]

#: Rows in every call of a net: a BLAS computes a row the same way only for the same shape
#: of matrix (the project's OpenBLAS gives other last bits for 2,048 rows than for 256), so
#: the rows are padded to whole blocks and a board's probabilities never depend on the
#: boards scored with it.
NET_BLOCK: Final = 256
#: Boards encoded at once (a multiple of :data:`NET_BLOCK`): far larger batches run the
#: encoder several times slower per board (its arrays no longer fit the CPU's caches).
_ENCODE_ROWS: Final = 1024
#: 1-ply players: the plays scored at 0-ply that go on to 1-ply (GNU Backgammon's default
#: filter: up to 8 within 0.16 of the best).
ONE_PLY_FILTER: Final = MoveFilter(8, 0.16)
#: Turns with quasi-random dice, and base-36 digits of the trial index that pick them.
_ROTATED_TURNS: Final = 128
_GENERATIONS: Final = 6
#: The 21-roll index (:data:`~backgammon.ai.features.ROLL_DICE`) of each of the 36 throws
#: ``6 (d1 - 1) + (d2 - 1)``.
_ROLL_OF_THROW: Final = np.array(
    [ROLL_DICE.index((max(a, b), min(a, b))) for a in range(1, 7) for b in range(1, 7)],
    dtype=np.int64,
)
_WEIGHTS: Final = np.asarray(ROLL_WEIGHT, dtype=np.float64)
#: Two candidates are separated when the best leads by this many standard errors of the
#: difference (95 %, two-sided).
Z95: Final = 1.96
#: Games in one block of trials when nothing else limits it (enough for batched net calls).
_GAMES_PER_BLOCK: Final = 128
#: A trial still going after this many plies is evaluated there (a guard; games end long
#: before).
_MAX_PLIES: Final = 1000
#: Entries kept in each cache before it is emptied (boards' chances, positions' roll tables):
#: about 70 MB at most; larger caches made a 216-trial rollout no faster.
_SCORE_CACHE: Final = 100_000
_TABLE_CACHE: Final = 20_000

ProgressFn = Callable[[int, int], None]
StopFn = Callable[[], bool]
#: Receives the figures of the trials done so far (:class:`Rollout`).
PartialFn = Callable[["Rollout"], None]


class RolloutError(ValueError):
    """Bad rollout input: settings out of range, a finished game, a roll that cannot be
    played, a cube decision with no cube to turn. The message says which."""


# --------------------------------------------------------------------------------------------
# Settings and results


@dataclass(frozen=True)
class RolloutSettings:
    """How to roll out.

    Attributes:
        trials: games per candidate (>= 1). Multiples of 36 (1,296) use the quasi-random
            dice fully.
        truncate: plies after which a trial stops and is evaluated (0: play to the end).
        plies: the players' (and the truncation's) depth, 0 or 1 (GNU Backgammon's count).
        cubeful: play with the cube (money or match, as the cube state says).
        variance_reduction: subtract each roll's luck (see the module docstring).
        quasi_random: stratified dice (see the module docstring).
        seed: the dice's seed (int >= 0).
        bearoff_truncation: a cubeless trial stops where both sides are home and the exact
            one-sided bear-off table scores it.
        top: checker play: roll out only the first ``top`` plays by the level's own ranking
            (None: every legal play).

    Raises:
        RolloutError: a value out of range.
    """

    trials: int = 1296
    truncate: int = 0
    plies: int = 0
    cubeful: bool = False
    variance_reduction: bool = True
    quasi_random: bool = True
    seed: int = 0
    bearoff_truncation: bool = True
    top: int | None = None

    def __post_init__(self) -> None:
        for name, low in (("trials", 1), ("truncate", 0), ("seed", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise RolloutError(f"{name} must be an int >= {low}, got {value!r}")
        if self.plies not in (0, 1) or isinstance(self.plies, bool):
            raise RolloutError(f"plies must be 0 or 1, got {self.plies!r}")
        if self.top is not None and (isinstance(self.top, bool) or not isinstance(self.top, int)
                                     or self.top < 1):
            raise RolloutError(f"top must be an int >= 1 or None, got {self.top!r}")

    @property
    def level(self) -> Level:
        """The players as a :class:`~backgammon.ai.levels.Level` (their plies and filter)."""
        if self.plies == 0:
            return Level("0-ply", plies=0)
        return Level("1-ply", plies=1, filters=(ONE_PLY_FILTER,))


@dataclass(frozen=True)
class Candidate:
    """One rolled-out choice, from the side to decide's view.

    Attributes:
        name: the play in notation (``"8/5 6/5"``), ``"no double"``, ``"double, take"``,
            ``"double, pass"`` or ``"position"``.
        trials: trials done (0 for *double, pass*, which needs none).
        probs: mean P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose
            backgammon) (gammons include backgammons), each clipped to 0..1.
        probs_se: their standard errors.
        equity: mean equity in EMG (see the module docstring); cubeful in a cubeful rollout.
        se: its standard error.
        cubeless: mean cubeless equity in EMG (the same as ``equity`` when cubeless).
        cubeless_se: its standard error.
        mwc: match play: mean match-winning chance (cubeful in a cubeful rollout); None in
            money play.
        play: the :class:`~backgammon.core.moves.Play` for checker play, else None.

    A candidate of a rollout stopped before its first block of trials ends has ``trials`` 0
    and every figure NaN (not a number: nothing was measured); its JSON form has null.
    """

    name: str
    trials: int
    probs: Probs5
    probs_se: Probs5
    equity: float
    se: float
    cubeless: float
    cubeless_se: float
    mwc: float | None = None
    play: Play | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``name``, ``equity``, ``se``, the five chances by name (``win``,
        ``win_gammon``, ``win_backgammon``, ``lose_gammon``, ``lose_backgammon``) and their
        ``*_se``, ``cubeless``, ``cubeless_se``, ``mwc`` and ``trials``; rounded to 6
        places, null where no trial was done."""
        out: dict[str, Any] = {"name": self.name, "equity": _r(self.equity), "se": _r(self.se)}
        for key, p, s in zip(CHANCES, self.probs, self.probs_se, strict=True):
            out[key] = _r(p)
            out[f"{key}_se"] = _r(s)
        out.update(cubeless=_r(self.cubeless), cubeless_se=_r(self.cubeless_se),
                   mwc=None if self.mwc is None else _r(self.mwc), trials=self.trials)
        return out


#: The names of the five chances, in the nets' order.
CHANCES: Final = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def _r(x: float) -> float | None:
    """``x`` to 6 places; None for NaN (a figure of no trials)."""
    return None if math.isnan(x) else round(float(x), 6)


@dataclass(frozen=True)
class Rollout:
    """The result of :func:`rollout`.

    Attributes:
        kind: ``"plays"``, ``"cube"`` or ``"position"``.
        candidates: checker play: the plays, best first (by ``equity``); a cube decision:
            *no double*, *double, take*, *double, pass*, in that order.
        settings: the settings used.
        trials: trials done per candidate (fewer than asked when stopped).
        stopped: stopped before every trial was done.
        separated: checker play: the best play leads the next by more than :data:`Z95`
            standard errors of their paired difference (True with one candidate); a cube
            decision: both the double's question (no double against the lesser of take and
            pass) and the answer's (take against pass) are that clear.
        lead: checker play: the best's lead over the next (EMG); a cube decision: how far
            apart no double and the double's worth are. ``lead_se``: its standard error.
        decision: cube rollouts: the proper cube action from the means (``"no double, take"``,
            ``"double, take"``, ``"double, pass"``, ``"too good to double, pass"``); else "".
        seconds: wall-clock time of the rollout.
        best_index: the index in ``candidates`` of the best: the first for plays, the
            proper cube action's row for a cube decision (*no double* also when too good).

    Stopped before its first block of trials ended, a rollout has ``trials`` 0, its
    candidates in the order they were given with NaN figures (:class:`Candidate`), ``lead``
    and ``lead_se`` NaN, ``separated`` False and no ``decision``.
    """

    kind: str
    candidates: tuple[Candidate, ...]
    settings: RolloutSettings
    trials: int
    stopped: bool
    separated: bool
    lead: float
    lead_se: float
    decision: str = ""
    seconds: float = 0.0
    best_index: int = 0

    @property
    def best(self) -> Candidate:
        """The best candidate (see ``best_index``)."""
        return self.candidates[self.best_index]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the settings, ``trials``, ``stopped``, ``separated``, ``lead``,
        ``lead_se``, ``decision`` and each candidate's :meth:`Candidate.to_dict`."""
        s = self.settings
        return {
            "kind": self.kind, "trials": self.trials, "stopped": self.stopped,
            "separated": self.separated, "lead": _r(self.lead), "lead_se": _r(self.lead_se),
            "decision": self.decision or None, "seconds": round(self.seconds, 3),
            "settings": {"trials": s.trials, "truncate": s.truncate, "plies": s.plies,
                         "cubeful": s.cubeful, "variance_reduction": s.variance_reduction,
                         "quasi_random": s.quasi_random, "seed": s.seed,
                         "bearoff_truncation": s.bearoff_truncation, "top": s.top},
            "candidates": [c.to_dict() for c in self.candidates],
        }


# --------------------------------------------------------------------------------------------
# Public entry point


def rollout(
    position: Position,
    dice: Sequence[int] | None = None,
    *,
    cube: CubeState | None = None,
    settings: RolloutSettings | None = None,
    jobs: int = 1,
    progress: ProgressFn | None = None,
    should_stop: StopFn | None = None,
    partial: PartialFn | None = None,
    plays: Sequence[Play | str] | None = None,
) -> Rollout:
    """Roll out a decision (see the module docstring).

    Args:
        position: the position, its side to move deciding.
        dice: the roll to play (checker play); None: before the roll (a cube decision when
            ``settings.cubeful``, else the position's cubeless chances).
        cube: the cube and match score (None: money play, cube 1 centred).
        settings: how (default :class:`RolloutSettings`'s defaults).
        jobs: worker processes (>= 1; at most the machine's cores are started); the
            figures do not depend on it.
        progress: called as ``progress(done, total)`` (trials per candidate) after each block
            of trials, from the calling thread.
        should_stop: polled between plies and blocks; when it returns True the rollout stops
            and returns the trials finished (``stopped`` True).
        partial: called after each block of trials, from the calling thread, with the
            :class:`Rollout` of the trials done so far (``stopped`` False; the candidates in
            the order of their means so far): live figures for a caller such as the web
            page. Each call costs a summary over the trials done (about a millisecond for
            1,296 trials of 20 candidates).
        plays: checker play: the plays to roll out (:class:`Play` objects of this roll, or
            their notation, ``"8/5 6/5"``), e.g. a hint's best few; with ``settings.top``,
            the level's ranking adds the next best of the others until there are ``top``.
            None (the default): the first ``top`` by the level's ranking (all without it).

    Raises:
        RolloutError: bad settings or jobs, a finished game, a roll that cannot be played,
            a cube decision where the side on roll may not double (the reason quoted);
            ``plays`` without dice, empty, naming a play twice, or one that is not a legal
            play of the roll (its index and the reason given).
        InvalidDiceError: ``dice`` is not two ints 1..6.
        WeightsError: the nets' weights file is missing or corrupt.
        TypeError: ``position`` is not a :class:`Position`, ``settings`` not a
            :class:`RolloutSettings` or ``cube`` not a :class:`CubeState`.
    """
    if not isinstance(position, Position):
        raise TypeError(f"expected a Position, got {type(position).__name__} {position!r:.60} "
                        "(Position.from_id(text) reads a Position ID, Xgid.parse(text) an "
                        "XGID)")
    if settings is not None and not isinstance(settings, RolloutSettings):
        raise TypeError(f"settings is a RolloutSettings, got {type(settings).__name__}")
    if cube is not None and not isinstance(cube, CubeState):
        raise TypeError(f"cube is a CubeState, got {type(cube).__name__}")
    settings = settings if settings is not None else RolloutSettings()
    cube = cube if cube is not None else CubeState()
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise RolloutError(f"jobs must be an int >= 1, got {jobs!r}")
    if outcome(position) is not None:
        raise RolloutError(GAME_OVER_TEXT)
    started = time.perf_counter()
    color = position.turn
    board = position.own_points(color)
    names: list[str]
    made: list[Play | None]
    starts: list[_Start | None]
    if dice is not None:
        kind = "plays"
        legal = legal_plays(position, dice)
        if not legal:
            who = color.name.capitalize()
            raise RolloutError(f"{who} cannot play {dice[0]}{dice[1]}: the roll cannot be "
                               "played")
        order = _engine().rank(legal, cube, settings.plies)
        if plays is not None:
            order = _chosen_first(position, dice, legal, list(plays), order, settings.top)
        elif settings.top is not None:
            order = order[: settings.top]
        chosen = [legal[i] for i in order]
        made = list(chosen)
        names = [str(p) for p in chosen]
        starts = [_Start(flip(p.result.own_points(color)), False, color, cube, True)
                  for p in chosen]
    elif plays is not None:
        raise RolloutError("plays are rolled out for a roll: give the dice too")
    elif settings.cubeful:
        kind = "cube"
        reason = may_double(cube, color)
        if reason:
            raise RolloutError(f"{color.name.capitalize()} may not double: {reason}")
        doubled = CubeState(cube.value * 2, color.opponent, cube.match_length, cube.score,
                            cube.crawford, cube.jacoby, cube.beavers, cube.gammons)
        names = ["no double", "double, take", "double, pass"]
        made = [None, None, None]
        starts = [_Start(board, True, color, cube, False),
                  _Start(board, True, color, doubled, False), None]
    else:
        kind = "position"
        names = ["position"]
        made = [None]
        starts = [_Start(board, True, color, cube, False)]
    rolled = [s for s in starts if s is not None]
    report: _ReportFn | None = None
    if partial is not None:
        def report(values: _Values, done: npt.NDArray[np.bool_]) -> None:
            partial(_summarise(kind, names, made, starts, values, done, False, settings, cube,
                               color, time.perf_counter() - started))
    values, done, stopped = _execute(rolled, settings, jobs, progress, should_stop, report)
    return _summarise(kind, names, made, starts, values, done, stopped, settings, cube, color,
                      time.perf_counter() - started)


@dataclass(frozen=True)
class PositionRollouts:
    """The result of :func:`rollout_positions`.

    Attributes:
        probs: ``(N, 5)`` float64, each position's mean P(win), P(win gammon), P(win
            backgammon), P(lose gammon), P(lose backgammon) for the side on roll (gammons
            include backgammons), clipped to 0..1.
        probs_se: ``(N, 5)`` their standard errors.
        trials: trials done per position (fewer than asked when stopped; 0, and every
            figure NaN, when stopped before the first block of trials ended).
        stopped: stopped before every trial was done.
    """

    probs: npt.NDArray[np.float64]
    probs_se: npt.NDArray[np.float64]
    trials: int
    stopped: bool


def rollout_positions(
    boards: Sequence[Sequence[int]],
    settings: RolloutSettings | None = None,
    *,
    jobs: int = 1,
    should_stop: StopFn | None = None,
) -> PositionRollouts:
    """Roll out many positions before the roll at once, cubeless money: each one's chances,
    as :func:`rollout` gives a single position's (``dice=None``, cubeless), with the trials of
    every position played in lock-step so that each ply is one batched net call. Used to make
    training targets (:mod:`backgammon.training.rollout_targets`).

    Args:
        boards: ``N`` boards of 26 ints in the numbering of the side on roll (its checkers
            positive, slot 25 its bar, slot 0 the opponent's bar), none finished.
        settings: how (cubeless; ``top`` is ignored). The same dice serve every position.
        jobs: worker processes (>= 1; at most the machine's cores are started); the
            figures do not depend on it.
        should_stop: as for :func:`rollout`.

    Raises:
        RolloutError: cubeful settings, bad jobs, a board that is not 26 ints, an impossible
            one (not 15 checkers a side...), or one whose game is over (its index named).
    """
    settings = settings if settings is not None else RolloutSettings()
    if settings.cubeful:
        raise RolloutError("rollout_positions rolls out cubeless chances: cubeful must be "
                           "False")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise RolloutError(f"jobs must be an int >= 1, got {jobs!r}")
    starts: list[_Start] = []
    for i, board in enumerate(boards):
        b = tuple(int(c) for c in board)
        if len(b) != 26:
            raise RolloutError(f"board {i}: 26 ints expected, got {len(b)}")
        try:
            position = Position.from_points(b, WHITE)
        except InvalidPositionError as e:
            raise RolloutError(f"board {i}: {e}") from e
        if outcome(position) is not None:
            raise RolloutError(f"board {i}: the game is over (a side has borne off all its "
                               "checkers)")
        starts.append(_Start(b, True, WHITE, CubeState(), False))
    if not starts:
        return PositionRollouts(np.zeros((0, 5)), np.zeros((0, 5)), 0, False)
    values, done, stopped = _execute(starts, settings, jobs, None, should_stop)
    p = values.probs[:, done]  # (N, trials done, 5)
    n = int(done.sum())
    if n == 0:  # stopped before any trial was done: nothing measured
        nothing = np.full((len(starts), 5), math.nan)
        return PositionRollouts(nothing, nothing.copy(), 0, stopped)
    means = np.clip(p.mean(axis=1), 0.0, 1.0)
    ses = (p.std(axis=1, ddof=1) / math.sqrt(n)) if n >= 2 else np.zeros((len(starts), 5))
    return PositionRollouts(means, ses, n, stopped)


# --------------------------------------------------------------------------------------------
# Summaries


def emg_scale(cube: CubeState, color: Color) -> tuple[float, float]:
    """``(offset, factor)`` turning ``color``'s utility values into EMG: ``(value - offset) *
    factor``. Money: points divided by the cube's value. Match: with W and L the
    match-winning chances after winning and after losing the cube's value, ``EMG = (2 MWC - W
    - L) / (W - L)`` (GNU Backgammon's ``mwc2eq``; the same as
    :func:`backgammon.analysis.emg_scale`, which the layers keep above this module)."""
    if not cube.is_match:
        return 0.0, 1.0 / cube.value
    table = match_equity_table()
    a, b = cube.away(color)
    kind = _game_kind(cube)
    win = table.after(a - cube.value, b, kind)
    lose = table.after(a, b - cube.value, kind)
    if win - lose <= 1e-9:
        return 0.0, 0.0
    return (win + lose) / 2.0, 2.0 / (win - lose)


def _game_kind(cube: CubeState) -> str:
    return "crawford" if cube.crawford else ("post" if cube.post_crawford() else "normal")


class _Values(NamedTuple):
    """Per-trial results of the candidates rolled out: ``probs`` ``(C, T, 5)`` the chances
    (root's view, luck subtracted), ``cubeful`` ``(C, T)`` money points or match-winning
    chances (root's view; zeros when cubeless)."""

    probs: npt.NDArray[np.float64]
    cubeful: npt.NDArray[np.float64]


def _chosen_first(position: Position, dice: Sequence[int], legal: LegalPlays,
                  plays: list[Play | str], order: list[int], top: int | None) -> list[int]:
    """The indices in ``legal`` of ``plays``, in their order, then the others of ``order``
    until there are ``top``. Raises RolloutError naming the play that is not one of the
    roll's, or that comes twice."""
    if not plays:
        raise RolloutError("plays is empty: name at least one play, or leave it out")
    index = {p.result.own_points(position.turn): i for i, p in enumerate(legal)}
    chosen: list[int] = []
    for k, play in enumerate(plays):
        try:
            parsed = parse_play(play, position, dice) if isinstance(play, str) else play
        except (NotationError, IllegalPlayError) as exc:
            raise RolloutError(f"plays[{k}]: {exc}") from None
        if not isinstance(parsed, Play):
            raise RolloutError(f"plays[{k}]: a Play or its notation, got {play!r}")
        i = index.get(parsed.result.own_points(position.turn))
        if i is None or parsed.result.turn is not legal[i].result.turn:
            raise RolloutError(f"plays[{k}]: {parsed} is not a play of {dice[0]}{dice[1]} "
                               "here")
        if i in chosen:
            raise RolloutError(f"plays[{k}]: {legal[i]} comes twice")
        chosen.append(i)
    if top is not None:
        chosen += [i for i in order if i not in chosen][: max(0, top - len(chosen))]
    return chosen


def _summarise(kind: str, names: list[str], plays: list[Play | None],
               starts: list[_Start | None], values: _Values, done: npt.NDArray[np.bool_],
               stopped: bool, settings: RolloutSettings, cube: CubeState, color: Color,
               seconds: float) -> Rollout:
    offset, factor = emg_scale(cube, color)
    # money: every win a single game when gammons do not count (the players' own utility)
    money = _MONEY if cube.gammons else _SINGLE_GAMES
    utility = play_utility(cube, color) if cube.is_match else money
    n = int(done.sum())
    rows: list[tuple[Candidate, npt.NDArray[np.float64] | None]] = []
    k = 0
    for name, play, start in zip(names, plays, starts, strict=True):
        if start is None:  # double, pass: the doubler wins the cube's value at once
            cash = (cube.value if not cube.is_match else
                    match_equity_table().after(cube.away(color)[0] - cube.value,
                                               cube.away(color)[1], _game_kind(cube)))
            p0 = (1.0, 0.0, 0.0, 0.0, 0.0)
            eq = (cash - offset) * factor
            rows.append((Candidate(name, 0, p0, (0.0,) * 5, eq, 0.0, eq, 0.0,
                                   cash if cube.is_match else None), None))
            continue
        p = values.probs[k][done]
        c = values.cubeful[k][done]
        k += 1
        cubeless_u = utility.of(p)
        cubeless_emg = (cubeless_u - offset) * factor if cube.is_match else cubeless_u
        trial_values = (c - offset) * factor if settings.cubeful else cubeless_emg
        mwc_values = (c if settings.cubeful else cubeless_u) if cube.is_match else None
        mean_p = np.clip(p.mean(axis=0), 0.0, 1.0) if n else np.full(5, math.nan)
        cand = Candidate(
            name, n, _probs(mean_p), _probs(_se_columns(p) if n else mean_p),
            _mean(trial_values),
            _se(trial_values), _mean(cubeless_emg), _se(cubeless_emg),
            None if mwc_values is None else _mean(mwc_values), play)
        rows.append((cand, trial_values))
    decision = ""
    if n == 0:  # stopped before any trial was done: nothing to rank
        order, best = list(range(len(rows))), 0
        lead, lead_se, separated = math.nan, math.nan, False
    elif kind == "cube":
        # the rows stay in their order: no double, double take, double pass
        order = [0, 1, 2]
        nd, dt, dp = (rows[i][0].equity for i in order)
        answer = "take" if dt <= dp else "pass"
        if min(dt, dp) > nd:
            decision = f"double, {answer}"
            best = 1 if dt <= dp else 2
        elif dt >= dp and nd >= dp:
            decision = "too good to double, pass"
            best = 0
        else:
            decision = f"no double, {answer}"
            best = 0
        # the double's question: no double against the double's worth, min(take, pass)
        doubled = rows[1] if dt <= dp else rows[2]
        lead, lead_se = _lead(doubled, rows[0], n)
        lead = abs(lead)
        # the answer's question: take against pass
        answer_lead, answer_se = _lead(rows[1], rows[2], n)
        separated = (n > 0 and lead > Z95 * lead_se
                     and abs(answer_lead) > Z95 * answer_se)
    else:
        order = sorted(range(len(rows)), key=lambda i: -rows[i][0].equity)
        best = order[0]
        lead, lead_se, separated = 0.0, 0.0, n > 0
        if len(order) >= 2:
            lead, lead_se = _lead(rows[order[0]], rows[order[1]], n)
            separated = n > 0 and lead > Z95 * lead_se
    return Rollout(kind, tuple(rows[i][0] for i in order), settings, n, stopped, separated,
                   lead, lead_se, decision, seconds, order.index(best))


def _lead(first: tuple[Candidate, npt.NDArray[np.float64] | None],
          second: tuple[Candidate, npt.NDArray[np.float64] | None], n: int
          ) -> tuple[float, float]:
    """The mean and standard error of ``first``'s lead over ``second``, trial by trial
    (both rolled out on the same dice; a row without trials is its constant equity)."""
    if n == 0:
        return first[0].equity - second[0].equity, 0.0
    a = first[1] if first[1] is not None else np.full(n, first[0].equity)
    b = second[1] if second[1] is not None else np.full(n, second[0].equity)
    diff = a - b
    return float(diff.mean()), _se(diff)


#: Cubeless money equity (the utility of money play without the cube).
_MONEY: Final = Utility(-1.0, (2.0, 1.0, 1.0, -1.0, -1.0))
#: The same where gammons do not count (``CubeState.gammons`` False): every win one point.
_SINGLE_GAMES: Final = Utility(-1.0, (2.0, 0.0, 0.0, 0.0, 0.0))


def _probs(a: npt.NDArray[np.float64]) -> Probs5:
    return (float(a[0]), float(a[1]), float(a[2]), float(a[3]), float(a[4]))


def _mean(a: npt.NDArray[np.float64]) -> float:
    return float(a.mean()) if len(a) else math.nan


def _se(a: npt.NDArray[np.float64]) -> float:
    """Standard error of the mean of ``a``: the sample standard deviation over sqrt(n) (NaN
    for no values, 0 for one)."""
    n = len(a)
    if n == 0:
        return math.nan
    return float(a.std(ddof=1) / math.sqrt(n)) if n >= 2 else 0.0


def _se_columns(a: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    n = len(a)
    if n < 2:
        return np.zeros(a.shape[1])
    result: npt.NDArray[np.float64] = a.std(axis=0, ddof=1) / math.sqrt(n)
    return result


# --------------------------------------------------------------------------------------------
# Dice


class _Dice:
    """The dice of every (trial, turn) from one seed (see the module docstring)."""

    def __init__(self, seed: int, quasi_random: bool) -> None:
        self.seed = seed
        self.quasi_random = quasi_random
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 36])))
        base = np.tile(np.arange(36, dtype=np.int64), (_GENERATIONS, _ROTATED_TURNS, 1))
        self.perm = rng.permuted(base, axis=2)  # (generations, turns, 36)

    def rolls(self, trials: npt.NDArray[np.int64], turn: int) -> npt.NDArray[np.int64]:
        """The roll (index into ``ROLL_DICE``) of each of ``trials`` at ``turn`` (0 first)."""
        if self.quasi_random and turn < _ROTATED_TURNS:
            j = np.zeros(len(trials), dtype=np.int64)
            k = 1
            for generation in range(min(turn, _GENERATIONS - 1) + 1):
                j = self.perm[generation, turn][(trials // k + j) % 36]
                k *= 36
        else:
            rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([self.seed, turn])))
            j = rng.integers(0, 36, size=int(trials.max()) + 1, dtype=np.int64)[trials]
        result: npt.NDArray[np.int64] = _ROLL_OF_THROW[j]
        return result


def trial_dice(seed: int, trial: int, turns: int, quasi_random: bool = True
               ) -> list[tuple[int, int]]:
    """The rolls of trial ``trial`` (0 first) for its first ``turns`` turns, higher die first:
    the dice every candidate of that trial is rolled out with (see the module docstring)."""
    dice = _Dice(seed, quasi_random)
    at = np.array([trial], dtype=np.int64)
    return [ROLL_DICE[int(dice.rolls(at, turn)[0])] for turn in range(turns)]


# --------------------------------------------------------------------------------------------
# Scoring boards: the 0-ply chances, cached, independent of batching


class _Scorer:
    """0-ply chances of after-play boards (mover's numbering, the opponent to roll), as
    :func:`backgammon.ai.neural.after_play_probabilities` scores them, with the nets called
    in whole blocks of :data:`NET_BLOCK` rows; cached by board."""

    def __init__(self, nets: NetSet) -> None:
        self.nets = nets
        self.index: dict[Board, int] = {}
        self.store = np.empty((1 << 14, 5), dtype=np.float32)

    def probs(self, boards: Sequence[Board]) -> npt.NDArray[np.float32]:
        """``(N, 5)`` float32 chances of ``boards``, the mover's view."""
        index = self.index
        if len(index) > _SCORE_CACHE:
            index.clear()
        first = len(index)
        setdefault = index.setdefault
        # a board not seen yet gets the next row (len(index) before it is added)
        rows = np.fromiter([setdefault(b, len(index)) for b in boards], dtype=np.int64,
                           count=len(boards))
        added = len(index) - first
        if added:
            new = np.flatnonzero(rows >= first)
            _, at = np.unique(rows[new], return_index=True)
            missing = [boards[i] for i in new[at].tolist()]
            if first + added > len(self.store):
                grown = np.empty((max(2 * len(self.store), first + added), 5),
                                 dtype=np.float32)
                grown[:first] = self.store[:first]
                self.store = grown
            self.store[first:first + added] = self._score(missing)
        result: npt.NDArray[np.float32] = self.store[rows]
        return result

    def _score(self, boards: list[Board]) -> npt.NDArray[np.float32]:
        b = np.fromiter(chain.from_iterable(boards), dtype=np.int8,
                        count=26 * len(boards)).reshape(-1, 26)
        out = np.empty((len(b), 5), dtype=np.float32)
        kind = classify(b)
        exact = kind <= BEAROFF
        if exact.any():  # finished games and bear-offs: the rules and the table, no net
            out[exact] = after_play_probabilities(b[exact], self.nets)
        for net_kind, net in ((RACE, self.nets.race), (CONTACT, self.nets.contact)):
            rows = np.flatnonzero(kind == net_kind)
            # encoded a few blocks at a time: the encoder's arrays stay in the CPU's caches
            for start in range(0, len(rows), _ENCODE_ROWS):
                part = rows[start:start + _ENCODE_ROWS]
                x = encode(on_roll_view(b[part]))
                out[part] = impossible_results(b[part], invert(consistent(_blocked(net, x))),
                                               net_kind)
        return out


def _blocked(net: Net, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """``net(x)`` computed :data:`NET_BLOCK` rows at a time, the last block padded."""
    n = len(x)
    out = np.empty((n, 5), dtype=np.float32)
    for start in range(0, n, NET_BLOCK):
        chunk = x[start:start + NET_BLOCK]
        size = len(chunk)
        if size < NET_BLOCK:
            padded = np.zeros((NET_BLOCK, x.shape[1]), dtype=np.float32)
            padded[:size] = chunk
            chunk = padded
        out[start:start + size] = net(chunk)[:size]
    return out


class _RollTable(NamedTuple):
    """A position's 21 rolls for its side on roll: ``boards[r]`` the result of roll r's best
    play at 0-ply (mover's numbering; the board itself when the roll cannot be played),
    ``probs`` ``(21, 5)`` its chances (mover's view), ``mean`` their mean over the rolls: the
    position's 1-ply chances."""

    boards: tuple[Board, ...]
    probs: Floats
    mean: Floats


class _Tables:
    """:class:`_RollTable` of positions, batched and cached by (board, utility)."""

    def __init__(self, scorer: _Scorer) -> None:
        self.scorer = scorer
        self.cache: dict[tuple[Board, Utility], _RollTable] = {}

    def get(self, keys: Sequence[tuple[Board, Utility]]) -> list[_RollTable]:
        """The table of each ``(board in the side on roll's numbering, its utility)``."""
        cache = self.cache
        found = {k: cache.get(k) for k in keys}
        missing = [k for k, t in found.items() if t is None]
        if missing:
            if len(cache) + len(missing) > _TABLE_CACHE:
                cache.clear()
            flat: list[Board] = []
            lengths: list[int] = []
            for board, _ in missing:
                position = Position.from_points(board, WHITE)
                for roll in ROLL_DICE:
                    plays = legal_plays(position, roll).own_boards()
                    if plays:
                        flat += plays
                        lengths.append(len(plays))
                    else:
                        flat.append(board)
                        lengths.append(1)
            probs = self.scorer.probs(flat)
            count = np.asarray(lengths, dtype=np.int64)
            segment = np.repeat(np.arange(len(lengths)), count)
            per_key = np.repeat(np.arange(len(missing)), count.reshape(-1, 21).sum(axis=1))
            values = _values(probs, [u for _, u in missing], per_key)
            starts = np.concatenate([[0], np.cumsum(count)[:-1]])
            best = np.lexsort((-values, segment))[starts]
            chosen = probs[best].astype(np.float64).reshape(len(missing), 21, 5)
            means = _roll_means(chosen)
            best_list = best.tolist()
            for m, key in enumerate(missing):
                picks = best_list[21 * m: 21 * m + 21]
                table = _RollTable(tuple(flat[i] for i in picks), chosen[m], means[m])
                cache[key] = found[key] = table
        return [found[k] for k in keys]  # type: ignore[misc]

    def best_plays(self, items: Sequence[tuple[Board, int, Utility]]) -> list[Board]:
        """For each ``(board, roll index, utility)`` the result of the roll's best play at
        0-ply (the first of equals in the move generator's order; the board itself when the
        roll cannot be played)."""
        flat: list[Board] = []
        lengths: list[int] = []
        for board, roll, _ in items:
            plays = legal_plays(Position.from_points(board, WHITE), ROLL_DICE[roll]).own_boards()
            flat += plays or [board]
            lengths.append(len(plays) or 1)
        if not flat:
            return []
        probs = self.scorer.probs(flat)
        count = np.asarray(lengths, dtype=np.int64)
        per_item = np.repeat(np.arange(len(items)), count)
        values = _values(probs, [u for _, _, u in items], per_item)
        starts = np.concatenate([[0], np.cumsum(count)[:-1]])
        best = np.lexsort((-values, per_item))[starts]
        return [flat[i] for i in best.tolist()]


def _values(probs: npt.NDArray[np.floating], utilities: Sequence[Utility],
            which: npt.NDArray[np.int64]) -> Floats:
    """``utilities[which[i]]`` of row i of ``(N, 5)`` chances, added up in a fixed order, one
    column at a time: a row's value never depends on the rows beside it (a matrix product's
    can, in its last bits, and a play is chosen by these)."""
    p = probs.astype(np.float64, copy=False)
    weights = np.asarray([u.weights for u in utilities], dtype=np.float64)[which]
    values: Floats = np.asarray([u.const for u in utilities], dtype=np.float64)[which]
    for k in range(5):
        values = values + p[:, k] * weights[:, k]
    return values


def _roll_means(chosen: Floats) -> Floats:
    """``(N, 5)`` means over the 21 rolls of ``(N, 21, 5)`` chances (weights 1/36, 2/36),
    added roll by roll in a fixed order."""
    means: Floats = chosen[:, 0] * _WEIGHTS[0]
    for r in range(1, len(_WEIGHTS)):
        means = means + chosen[:, r] * _WEIGHTS[r]
    return means


# --------------------------------------------------------------------------------------------
# The engine: blocks of trials in lock-step


@dataclass(frozen=True)
class _Start:
    """Where a candidate's trials start.

    Attributes:
        board: the board in the numbering of the side on roll.
        root_on_roll: the side whose view the results are in (the root) is on roll.
        root: the root's colour.
        cube: the cube and match score.
        cube_first: a cube decision comes before the first roll.
    """

    board: Board
    root_on_roll: bool
    root: Color
    cube: CubeState
    cube_first: bool


class _Engine:
    """The caches of one process: boards' chances, roll tables, cube curves."""

    def __init__(self) -> None:
        self.scorer = _Scorer(default_nets())
        self.tables = _Tables(self.scorer)
        self.utilities: dict[tuple[CubeState, Color], Utility] = {}

    def utility(self, cube: CubeState, color: Color) -> Utility:
        key = (cube, color)
        found = self.utilities.get(key)
        if found is None:
            found = play_utility(cube, color)
            self.utilities[key] = found
        return found

    def rank(self, legal: LegalPlays, cube: CubeState, plies: int) -> list[int]:
        """The indices of ``legal``'s plays, best first, as the players rank them: at 0-ply
        by the nets; at 1-ply the plays :data:`ONE_PLY_FILTER` keeps by their 1-ply
        chances, then the others by their 0-ply ones (ties in the move generator's order)."""
        color = legal.position.turn
        mine = self.utility(cube, color)
        boards = legal.own_boards()
        values = _values(self.scorer.probs(boards), [mine], np.zeros(len(boards), np.int64))
        order: list[int] = np.argsort(-values, kind="stable").tolist()
        if plies == 0 or len(order) < 2:
            return order
        best = values[order[0]]
        kept = [i for i in order[:ONE_PLY_FILTER.keep]
                if values[i] >= best - ONE_PLY_FILTER.margin]
        theirs = self.utility(cube, color.opponent)
        going = [i for i in kept if any(c > 0 for c in boards[i])]
        tables = dict(zip(going, self.tables.get([(flip(boards[i]), theirs) for i in going]),
                          strict=True))
        deeper = np.asarray([_invert1(tables[i].mean) if i in tables
                             else self.scorer.probs([boards[i]])[0].astype(np.float64)
                             for i in kept], dtype=np.float64).reshape(-1, 5)
        scores = _values(deeper, [mine], np.zeros(len(kept), np.int64))
        top = [kept[j] for j in np.argsort(-scores, kind="stable").tolist()]
        return top + [i for i in order if i not in set(kept)]

    def run(self, starts: Sequence[_Start], settings: RolloutSettings, first: int,
            count: int, stop: StopFn | None = None) -> _Values | None:
        """Trials ``first .. first + count - 1`` of every start, in lock-step. None when
        ``stop`` said so before they were done."""
        return _Block(self, starts, settings, first, count).run(stop)


_ENGINE: _Engine | None = None


def _engine() -> _Engine:
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = _Engine()
    return _ENGINE


class _Block:
    """One block of trials of every start, played ply by ply (module docstring)."""

    def __init__(self, engine: _Engine, starts: Sequence[_Start], settings: RolloutSettings,
                 first: int, count: int) -> None:
        self.engine = engine
        self.settings = settings
        self.starts = starts
        trials = np.arange(first, first + count, dtype=np.int64)
        n = len(starts) * count
        self.n = n
        self.count = count
        self.trial = np.tile(trials, len(starts))
        self.start_of = np.repeat(np.arange(len(starts)), count)
        self.board: list[Board] = [starts[s].board for s in self.start_of.tolist()]
        self.root_on_roll = np.array([starts[s].root_on_roll for s in self.start_of.tolist()])
        self.cube: list[CubeState] = [starts[s].cube for s in self.start_of.tolist()]
        self.luck = np.zeros((n, 5), dtype=np.float64)
        self.luck_cube = np.zeros(n, dtype=np.float64)
        self.result = np.zeros((n, 5), dtype=np.float64)
        self.result_cube = np.zeros(n, dtype=np.float64)
        self.active = list(range(n))
        self.dice = _Dice(settings.seed, settings.quasi_random)

    def color(self, g: int) -> Color:
        root = self.starts[int(self.start_of[g])].root
        return root if self.root_on_roll[g] else root.opponent

    def run(self, stop: StopFn | None) -> _Values | None:
        settings = self.settings
        self._end_finished_starts()
        ply = 0
        while self.active:
            if stop is not None and stop():
                return None
            if settings.cubeful:
                self._cube_actions(ply)
                if not self.active:
                    break
            self._roll_and_play(ply)
            ply += 1
        probs = (self.result + self.luck).reshape(len(self.starts), self.count, 5)
        cubeful = (self.result_cube + self.luck_cube).reshape(len(self.starts), self.count)
        return _Values(probs, cubeful)

    def _end_finished_starts(self) -> None:
        """A candidate play that bore off the last checker has won: no trial to play."""
        over = [g for g in self.active if not any(c < 0 for c in self.board[g])]
        if not over:
            return
        movers = [flip(self.board[g]) for g in over]
        probs = self.engine.scorer.probs(movers).astype(np.float64)
        for g, p in zip(over, probs, strict=True):
            self.root_on_roll[g] = not self.root_on_roll[g]  # the mover's view
            self._finish(g, p, self._won_value(g, self.color(g), p))
        self.active = [g for g in self.active if g not in set(over)]

    def _won_value(self, g: int, winner: Color, p: Floats) -> float:
        """The cubeful value to ``winner`` of game ``g`` it has won with the result ``p``
        (exact chances: a gammon's and a backgammon's are 0 or 1)."""
        cube = self.cube[g]
        single = not cube.gammons or (cube.jacoby and cube.owner is None and not cube.is_match)
        points = 1 if single else (3 if p[2] > 0.5 else 2 if p[1] > 0.5 else 1)
        return _result_value(cube, winner, cube.value * points, won=True)

    # -- the cube ---------------------------------------------------------------------------

    def _cube_actions(self, ply: int) -> None:
        """Each game whose side on roll may double decides, on its chances at ``plies``
        (:func:`~backgammon.ai.cube.double_decision`'s rule: double when both the take and
        the pass beat no double; the opponent passes when the take is worth more to the
        doubler). A pass ends the game; a take doubles the cube, the taker owning it."""
        deciding = [g for g in self.active
                    if (ply > 0 or self.starts[int(self.start_of[g])].cube_first)
                    and not may_double(self.cube[g], self.color(g))]
        if not deciding:
            return
        chances = self._preroll([self.board[g] for g in deciding])
        finished: set[int] = set()
        for rows, cube, color in self._groups(deciding):
            p = chances[rows]
            now, take, drop = batch_cube_equities(p, cube, color)
            for j, row in enumerate(rows):
                g = deciding[row]
                nd, dt, dp = float(now[j]), float(take[j]), float(drop[j])
                if min(abs(min(dt, dp) - nd), abs(dt - dp)) < 1e-6:
                    # too close to call on the batch model's 1e-9: ask the model itself
                    q = p[j]
                    decision = double_decision((q[0], q[1], q[2], q[3], q[4]), cube, color)
                    doubles = decision.action is CubeAction.DOUBLE
                    passes = decision.response is CubeAction.DROP
                else:
                    doubles, passes = min(dt, dp) > nd, dt > dp
                if not doubles:
                    continue
                if passes:
                    cash = _result_value(cube, color, cube.value, won=True)
                    self._finish(g, p[j], cash)
                    finished.add(g)
                else:  # a take (a beaver is taken as a take, as GNU Backgammon's rollouts do)
                    self.cube[g] = CubeState(cube.value * 2, color.opponent, cube.match_length,
                                             cube.score, cube.crawford, cube.jacoby,
                                             cube.beavers, cube.gammons)
        if finished:
            self.active = [g for g in self.active if g not in finished]

    def _groups(self, games: Sequence[int], opponent: bool = False
                ) -> list[tuple[list[int], CubeState, Color]]:
        """``games`` (their places in the list) grouped by cube and by the colour of their
        side on roll (``opponent``: of the other side), for one batched cube valuation
        each."""
        groups: dict[tuple[CubeState, Color], list[int]] = {}
        for row, g in enumerate(games):
            color = self.color(g)
            groups.setdefault((self.cube[g], color.opponent if opponent else color),
                              []).append(row)
        return [(rows, cube, color) for (cube, color), rows in groups.items()]

    def _preroll(self, boards: Sequence[Board]) -> Floats:
        """``(N, 5)`` chances of each board's side on roll before it rolls, at ``plies``."""
        if self.settings.plies == 0:
            mover = self.engine.scorer.probs([flip(b) for b in boards]).astype(np.float64)
            return _invert_rows(mover)
        tables = self.engine.tables.get([(b, _MONEY) for b in boards])
        return np.asarray([t.mean for t in tables], dtype=np.float64).reshape(-1, 5)

    def _finish(self, g: int, probs_on_roll: Floats, cubeful_on_roll: float) -> None:
        """End game ``g``: the chances and the cubeful value from the view of its side on
        roll (money points or match-winning chances)."""
        if self.root_on_roll[g]:
            self.result[g] = probs_on_roll
            self.result_cube[g] = cubeful_on_roll
        else:
            self.result[g] = _invert1(probs_on_roll)
            self.result_cube[g] = (1.0 - cubeful_on_roll if self.cube[g].is_match
                                   else -cubeful_on_roll)

    # -- a roll and its play ----------------------------------------------------------------

    def _roll_and_play(self, ply: int) -> None:
        engine = self.engine
        settings = self.settings
        active = self.active
        idx = np.asarray(active, dtype=np.int64)
        colors = [self.color(g) for g in active]
        utilities = [engine.utility(self.cube[g], c) for g, c in zip(active, colors, strict=True)]
        rolls = self.dice.rolls(self.trial[idx], ply).tolist()
        on_roll = self.root_on_roll[idx]
        chosen: list[Board] = []
        if settings.variance_reduction:
            tables = engine.tables.get([(self.board[g], u)
                                        for g, u in zip(active, utilities, strict=True)])
            table_probs = np.stack([t.probs for t in tables])  # (A, 21, 5)
            means = np.stack([t.mean for t in tables])  # (A, 5)
            thrown = table_probs[np.arange(len(active)), rolls]
            luck = means - thrown  # the mover's view; a difference turns round linearly
            self.luck[idx] += np.where(on_roll[:, None], luck, _turn_difference(luck))
            if settings.cubeful:
                self._cube_luck(active, table_probs, rolls, on_roll, idx)
            if settings.plies == 0:
                chosen = [t.boards[r] for t, r in zip(tables, rolls, strict=True)]
        elif settings.plies == 0:  # only the roll thrown is needed
            chosen = engine.tables.best_plays([
                (self.board[g], r, u) for g, r, u in zip(active, rolls, utilities, strict=True)])
        if settings.plies == 1:
            chosen = self._one_ply(active, utilities, rolls)
        self._advance(ply, active, colors, chosen, on_roll)

    def _cube_luck(self, active: list[int], table_probs: Floats, rolls: list[int],
                   on_roll: npt.NDArray[np.bool_], idx: npt.NDArray[np.int64]) -> None:
        """The luck of the cubeful equity: each roll's best play valued cubeful with the
        opponent to roll (:func:`~backgammon.ai.cube_batch.batch_cubeful_values`), the
        thrown one against the mean."""
        luck = np.empty(len(active), dtype=np.float64)
        for rows, cube, opponent in self._groups(active, opponent=True):
            theirs = batch_cubeful_values(_invert_rows(table_probs[rows].reshape(-1, 5)),
                                          cube, opponent).reshape(len(rows), 21)
            mine = (1.0 - theirs) if cube.is_match else -theirs
            thrown = mine[np.arange(len(rows)), [rolls[r] for r in rows]]
            luck[rows] = _roll_means(mine[:, :, None])[:, 0] - thrown
        self.luck_cube[idx] += np.where(on_roll, luck, -luck)

    def _one_ply(self, active: list[int], utilities: list[Utility], rolls: list[int]
                 ) -> list[Board]:
        """The 1-ply choice of each game's play (the plays within :data:`ONE_PLY_FILTER` of
        the best at 0-ply, each scored by the opponent's 21 best replies at 0-ply)."""
        engine = self.engine
        keep, margin = ONE_PLY_FILTER.keep, ONE_PLY_FILTER.margin
        shortlists: list[list[Board]] = []
        for g, u, r in zip(active, utilities, rolls, strict=True):
            board = self.board[g]
            plays = legal_plays(Position.from_points(board, WHITE), ROLL_DICE[r]).own_boards()
            if len(plays) <= 1:
                shortlists.append(plays or [board])
                continue
            values = _values(engine.scorer.probs(plays), [u], np.zeros(len(plays), np.int64))
            order = np.argsort(-values, kind="stable")
            best = values[order[0]]
            shortlists.append([plays[i] for i in order[:keep].tolist()
                               if values[i] >= best - margin])
        keys: list[tuple[Board, Utility]] = []
        for g, shortlist in zip(active, shortlists, strict=True):
            if len(shortlist) > 1:
                opponent = self.color(g).opponent
                theirs = engine.utility(self.cube[g], opponent)
                keys += [(flip(b), theirs) for b in shortlist if any(c > 0 for c in b)]
        found = dict(zip(keys, engine.tables.get(keys), strict=True))
        chosen: list[Board] = []
        for g, u, shortlist in zip(active, utilities, shortlists, strict=True):
            if len(shortlist) == 1:
                chosen.append(shortlist[0])
                continue
            opponent = self.color(g).opponent
            theirs = engine.utility(self.cube[g], opponent)
            rows = []
            for b in shortlist:
                if any(c > 0 for c in b):
                    rows.append(_invert1(found[(flip(b), theirs)].mean))
                else:  # the play ends the game
                    rows.append(engine.scorer.probs([b])[0].astype(np.float64))
            scores = _values(np.asarray(rows), [u], np.zeros(len(rows), np.int64))
            chosen.append(shortlist[int(np.argmax(scores))])
        return chosen

    def _advance(self, ply: int, active: list[int], colors: list[Color], chosen: list[Board],
                 on_roll: npt.NDArray[np.bool_]) -> None:
        """Make each game's play; end the games that are over, reached the bear-off table
        (cubeless) or the truncation."""
        settings = self.settings
        scorer = self.engine.scorer
        truncating = ((settings.truncate > 0 and ply + 1 >= settings.truncate)
                      or ply + 1 >= _MAX_PLIES)
        kinds = classify(np.array(chosen, dtype=np.int8).reshape(-1, 26))
        over = kinds == FINISHED  # the mover has borne off every checker
        stop_here = over.copy()
        if settings.bearoff_truncation and not settings.cubeful:
            stop_here |= kinds == BEAROFF
        if truncating:
            stop_here[:] = True
        ending = np.flatnonzero(stop_here).tolist()
        if ending:
            ended_boards = [chosen[i] for i in ending]
            if settings.plies == 0 or not truncating:
                mover_probs = scorer.probs(ended_boards).astype(np.float64)
            else:
                mover_probs = self._one_ply_values(
                    [active[i] for i in ending], colors, ending, ended_boards)
            values = np.zeros(len(ending), dtype=np.float64)
            if settings.cubeful:  # the next side to roll, cubeful: the game goes on
                going = [row for row, i in enumerate(ending) if not over[i]]
                games = [active[ending[row]] for row in going]
                for rows, cube, opponent in self._groups(games, opponent=True):
                    places = [going[r] for r in rows]
                    theirs = batch_cubeful_values(_invert_rows(mover_probs[places]), cube,
                                                  opponent)
                    values[places] = (1.0 - theirs) if cube.is_match else -theirs
            for row, i in enumerate(ending):
                g = active[i]
                p = mover_probs[row]
                value = self._won_value(g, colors[i], p) if over[i] else float(values[row])
                self._finish(g, p, value)
        ended = set(active[i] for i in ending)
        for i, g in enumerate(active):
            if g not in ended:
                self.board[g] = flip(chosen[i])
        self.root_on_roll[np.asarray(active, dtype=np.int64)] ^= True
        if ended:
            self.active = [g for g in active if g not in ended]

    def _one_ply_values(self, games: list[int], colors: list[Color], where: list[int],
                        boards: list[Board]) -> Floats:
        """1-ply chances (mover's view) of the positions after the plays ``boards`` of
        ``games``: the opponent's 21 best replies at 0-ply, averaged."""
        engine = self.engine
        out = np.empty((len(boards), 5), dtype=np.float64)
        keys: list[tuple[Board, Utility]] = []
        places: list[int] = []
        for row, (g, i, b) in enumerate(zip(games, where, boards, strict=True)):
            if any(c > 0 for c in b):
                theirs = engine.utility(self.cube[g], colors[i].opponent)
                keys.append((flip(b), theirs))
                places.append(row)
            else:
                out[row] = engine.scorer.probs([b])[0]
        for row, table in zip(places, engine.tables.get(keys), strict=True):
            out[row] = _invert1(table.mean)
        return out


def _result_value(cube: CubeState, color: Color, points: int, *, won: bool) -> float:
    """What winning (or losing) ``points`` is worth to ``color``: money points, or its
    match-winning chance after the game."""
    if not cube.is_match:
        return float(points if won else -points)
    a, b = cube.away(color)
    table = match_equity_table()
    kind = _game_kind(cube)
    return table.after(a - points, b, kind) if won else table.after(a, b - points, kind)


def _invert1(p: Floats) -> Floats:
    return np.array([1.0 - p[0], p[3], p[4], p[1], p[2]], dtype=np.float64)


def _invert_rows(p: Floats) -> Floats:
    out = np.empty_like(p)
    out[:, 0] = 1.0 - p[:, 0]
    out[:, 1] = p[:, 3]
    out[:, 2] = p[:, 4]
    out[:, 3] = p[:, 1]
    out[:, 4] = p[:, 2]
    return out


def _turn_difference(d: Floats) -> Floats:
    """A difference of ``(N, 5)`` chances seen from the other side."""
    out = np.empty_like(d)
    out[:, 0] = -d[:, 0]
    out[:, 1] = d[:, 3]
    out[:, 2] = d[:, 4]
    out[:, 3] = d[:, 1]
    out[:, 4] = d[:, 2]
    return out


# --------------------------------------------------------------------------------------------
# Running the blocks: in this process or in worker processes


def _block_size(trials: int, candidates: int, jobs: int) -> int:
    """Trials per block: enough games for batched net calls, blocks of at most 36 trials,
    and several blocks per job (the figures do not depend on it)."""
    size = max(1, min(36, _GAMES_PER_BLOCK // max(candidates, 1)))
    if jobs > 1:
        size = max(1, min(size, math.ceil(trials / (4 * jobs))))
    return size


_ReportFn = Callable[["_Values", npt.NDArray[np.bool_]], None]


def _execute(starts: list[_Start], settings: RolloutSettings, jobs: int,
             progress: ProgressFn | None, should_stop: StopFn | None,
             report: _ReportFn | None = None,
             ) -> tuple[_Values, npt.NDArray[np.bool_], bool]:
    """Every trial of every start: the values, which trials are done, whether stopped;
    ``report`` gets the values and the trials done after each block."""
    trials = settings.trials
    probs = np.zeros((len(starts), trials, 5), dtype=np.float64)
    cubeful = np.zeros((len(starts), trials), dtype=np.float64)
    done = np.zeros(trials, dtype=bool)
    size = _block_size(trials, len(starts), jobs)
    blocks = [(first, min(size, trials - first)) for first in range(0, trials, size)]
    stopped = False

    def store(first: int, count: int, values: _Values) -> None:
        probs[:, first:first + count] = values.probs
        cubeful[:, first:first + count] = values.cubeful
        done[first:first + count] = True
        if progress is not None:
            progress(int(done.sum()), trials)
        if report is not None:
            report(_Values(probs, cubeful), done)

    if jobs == 1 or len(blocks) == 1:
        engine = _engine()
        for first, count in blocks:
            if should_stop is not None and should_stop():
                stopped = True
                break
            values = engine.run(starts, settings, first, count, should_stop)
            if values is None:
                stopped = True
                break
            store(first, count, values)
        return _Values(probs, cubeful), done, stopped
    context = multiprocessing.get_context("spawn")
    stop_event = context.Event()
    # no more processes than cores: more would only share them (and start slower)
    with ProcessPoolExecutor(min(jobs, len(blocks), os.cpu_count() or 1), mp_context=context,
                             initializer=_init_worker, initargs=(stop_event,)) as pool:
        pending: dict[Future[_Values | None], tuple[int, int]] = {
            pool.submit(_run_block, starts, settings, first, count): (first, count)
            for first, count in blocks}
        try:
            while pending:
                finished, _ = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
                for future in finished:
                    first, count = pending.pop(future)
                    values = future.result()
                    if values is not None:
                        store(first, count, values)
                if should_stop is not None and pending and should_stop():
                    stopped = True
                    stop_event.set()
                    for future in pending:
                        future.cancel()
                    break
        finally:
            if pending:
                stop_event.set()
    return _Values(probs, cubeful), done, stopped


_STOP_EVENT: Any = None


def _init_worker(stop_event: Any) -> None:
    """A worker: Ctrl-C is the parent's to handle (it stops the rollout and keeps what is
    done); the parent's stop event ends the block in progress."""
    global _STOP_EVENT
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _STOP_EVENT = stop_event
    os.environ.setdefault("OMP_NUM_THREADS", "1")


def _run_block(starts: list[_Start], settings: RolloutSettings, first: int, count: int
               ) -> _Values | None:
    event = _STOP_EVENT
    stop = None if event is None else event.is_set
    return _engine().run(starts, settings, first, count, stop)


__all__ = [
    "CHANCES",
    "NET_BLOCK",
    "ONE_PLY_FILTER",
    "Z95",
    "Candidate",
    "PartialFn",
    "PositionRollouts",
    "Rollout",
    "RolloutError",
    "RolloutSettings",
    "emg_scale",
    "rollout",
    "rollout_positions",
    "trial_dice",
]
