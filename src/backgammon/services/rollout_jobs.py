"""Rollout jobs for the web page and the API: :func:`backgammon.ai.rollout.rollout` of a
decision, run in a bounded pool of worker threads, with live figures while it runs.

* :func:`rollout_request`: what a client asks for, read and checked before anything is queued
  (the position from an XGID or a ``PositionID:MatchID``, the dice, the settings within
  :class:`RolloutLimits`); a request the rollout would refuse (a finished game, a roll that
  cannot be played, a cube that cannot be turned) is refused here, in words.
* :class:`RolloutJobs`: the pool. At most ``workers`` rollouts run at once (one by default: a
  rollout keeps a core busy for minutes), the others wait in one queue, first come first
  served; one client (its address) has at most ``per_client`` unfinished jobs and the pool
  ``max_jobs``. Each job's figures (:meth:`RolloutJob.to_json`) are those of the trials done
  so far, refreshed after each block of trials; its own client may stop it
  (:meth:`RolloutJobs.stop`: the trials done are kept), and a job that runs past
  ``max_seconds`` stops by itself the same way.

Equities are in EMG from the side to decide's view (money: points per cube of the ID's
value; match play: match-winning chances turned to EMG), chances from 0 to 1, as
:meth:`backgammon.ai.rollout.Rollout.to_dict` writes them (GNU Backgammon's manual,
"Rollouts", for the method).
"""

from __future__ import annotations

import dataclasses
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from backgammon.ai.cube import CubeState, may_double
from backgammon.ai.met import MAX_AWAY
from backgammon.ai.rollout import Rollout, RolloutError, RolloutSettings, rollout
from backgammon.core.errors import BackgammonError, IllegalPlayError, NotationError
from backgammon.core.moves import legal_plays
from backgammon.core.notation import parse_play
from backgammon.core.position import GAME_OVER_TEXT, Position, outcome
from backgammon.core.xgid import Xgid
from backgammon.services.jobs import JobPool
from backgammon.services.setup import read_ids

#: Rollouts run at once by default (each on one core).
DEFAULT_WORKERS: Final = 1
#: Unfinished jobs in all, and jobs kept (finished ones are forgotten oldest first past it).
DEFAULT_MAX_JOBS: Final = 16
#: Unfinished jobs one client address may have.
DEFAULT_PER_CLIENT: Final = 1
#: The most trials per candidate one rollout may ask for.
DEFAULT_MAX_TRIALS: Final = 1296
#: The most plies a truncated trial may run (0, to the end, is allowed too).
DEFAULT_MAX_TRUNCATE: Final = 500
#: The most plays of a roll one rollout may take, and how many it takes when not told.
DEFAULT_MAX_PLAYS: Final = 16
DEFAULT_PLAYS: Final = 8
#: Seconds a rollout may run before it stops by itself (keeping its trials).
DEFAULT_MAX_SECONDS: Final = 600.0
#: The statuses of a job that is over.
FINISHED: Final = ("done", "stopped", "failed")
#: The largest seed (GNU Backgammon's seeds are unsigned 32-bit ints too).
MAX_SEED: Final = 2**32 - 1


class RolloutInputError(BackgammonError, ValueError):
    """A rollout that cannot be run as asked: a setting out of its bounds, a finished game, a
    roll that cannot be played, a cube that cannot be turned. The message says which."""


class RolloutBusyError(BackgammonError):
    """Too many rollouts are unfinished, in all or for this client, or the pool is closing."""


class NoSuchRolloutError(BackgammonError, LookupError):
    """No rollout has this id (or it was forgotten)."""


class NotYourRolloutError(BackgammonError, PermissionError):
    """The rollout was started by another client: only its own client may stop it."""


@dataclass(frozen=True)
class RolloutLimits:
    """The bounds of one rollout (see the module's defaults).

    Attributes:
        max_trials: trials per candidate, 1 to this.
        max_truncate: plies before a trial is evaluated, 0 (to the end) to this.
        max_plays: the plays of a roll rolled out, 1 to this.
        max_seconds: the wall-clock seconds a rollout runs at most before it stops itself.
    """

    max_trials: int = DEFAULT_MAX_TRIALS
    max_truncate: int = DEFAULT_MAX_TRUNCATE
    max_plays: int = DEFAULT_MAX_PLAYS
    max_seconds: float = DEFAULT_MAX_SECONDS


@dataclass(frozen=True)
class RolloutRequest:
    """A checked rollout: the decision and how to roll it out.

    Attributes:
        xgid: the position and its context (a double pending in the ID is taken away: the
            decision rolled out is the double's, cubeful).
        dice: the roll to play (checker play), or None (before the roll: the cube decision
            when ``settings.cubeful``, else the position's cubeless chances).
        cube: the cube and match score, from the ID (and ``gammons``).
        settings: the rollout's settings.
        candidates: checker play: the plays asked for by name (rolled out first, the
            level's ranking adding others up to ``settings.top``); None: the first
            ``settings.top`` by the level's ranking.
    """

    xgid: Xgid
    dice: tuple[int, int] | None
    cube: CubeState
    settings: RolloutSettings
    candidates: tuple[str, ...] | None = None

    @property
    def kind(self) -> str:
        """``"plays"``, ``"cube"`` or ``"position"``: what the rollout will compare."""
        if self.dice is not None:
            return "plays"
        return "cube" if self.settings.cubeful else "position"

    def to_json(self) -> dict[str, Any]:
        """``{"position" (the XGID), "dice" ([high, low] or None), "kind", "trials",
        "truncate", "level" (plies), "cubeful", "seed", "plays" (None: not checker play),
        "candidates" (the plays asked for by name, or None), "gammons"}``."""
        s = self.settings
        return {"position": str(self.xgid), "kind": self.kind,
                "dice": None if self.dice is None else list(self.dice),
                "trials": s.trials, "truncate": s.truncate, "level": s.plies,
                "cubeful": s.cubeful, "seed": s.seed,
                "plays": s.top if self.dice is not None else None,
                "candidates": None if self.candidates is None else list(self.candidates),
                "gammons": self.cube.gammons}


def _int_in(name: str, value: object, low: int, high: int, unit: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RolloutInputError(f"{name} must be a whole number from {low} to {high}{unit}, "
                                f"got {value!r}")
    return value


def rollout_request(position: str, dice: Sequence[int] | None = None, *,
                    trials: int = DEFAULT_MAX_TRIALS, truncate: int = 0, level: int = 0,
                    cubeful: bool = False, seed: int = 0, plays: int = DEFAULT_PLAYS,
                    gammons: bool = True, limits: RolloutLimits | None = None,
                    candidates: Sequence[str] | None = None) -> RolloutRequest:
    """Read and check a rollout as a client asks for it.

    Args:
        position: an XGID, or a gnubg ``PositionID:MatchID`` (at most 200 characters).
        dice: the roll to play, two ints 1..6 (None: the ID's own dice, if any). A double
            pending in the ID is rolled out as the cube decision (cubeful), with no dice.
        trials: trials per candidate, 1 to ``limits.max_trials``.
        truncate: plies before a trial is evaluated, 0 (to the end) to ``limits.max_truncate``.
        level: the players' plies, 0 or 1.
        cubeful: play with the cube (money or match, as the ID says).
        seed: the dice's seed, 0 to 2**32 - 1.
        plays: checker play: the first N plays of the roll by the level's own ranking, 1 to
            ``limits.max_plays``.
        gammons: False for a game where every win is a single game (an XGID cannot say so).
        limits: the bounds (default :class:`RolloutLimits`).
        candidates: checker play: plays of the roll in notation (``"8/5 6/5"``; at most
            ``limits.max_plays``, each at most 40 characters), e.g. the hint's best few,
            rolled out first; the level's ranking adds others until there are ``plays``.

    Raises:
        InvalidIdError: a malformed ID, naming what is wrong.
        RolloutInputError: a value out of bounds; a finished game; a roll that cannot be
            played; a cube decision where the side on roll may not double; a beaver pending;
            a match longer than the match equity table (64 points); candidates without a
            roll, or one that is not a play of the roll or comes twice (its index named).
    """
    limits = limits or RolloutLimits()
    if not isinstance(position, str) or len(position) > 200:
        raise RolloutInputError("position must be an XGID or a PositionID:MatchID (at most "
                                "200 characters)")
    xgid = read_ids(position)
    _int_in("trials", trials, 1, limits.max_trials)
    _int_in("truncate", truncate, 0, limits.max_truncate, " plies (0: play to the end)")
    _int_in("level", level, 0, 1, " ply")
    _int_in("seed", seed, 0, MAX_SEED)
    _int_in("plays", plays, 1, limits.max_plays)
    if not isinstance(cubeful, bool) or not isinstance(gammons, bool):
        raise RolloutInputError("cubeful and gammons must be true or false")
    if xgid.match_length > MAX_AWAY:
        raise RolloutInputError(f"a match to {xgid.match_length} points: the computer "
                                f"evaluates matches up to {MAX_AWAY} points")
    roll: tuple[int, int] | None = xgid.dice
    if dice is not None:
        if (isinstance(dice, str) or len(dice) != 2
                or any(isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6
                       for d in dice)):
            raise RolloutInputError(f"dice must be two whole numbers from 1 to 6, got {dice!r}")
        roll = (max(dice), min(dice))
    if xgid.cube_action is not None:
        if xgid.cube_action != "double":
            raise RolloutInputError(f"a {xgid.cube_action} is pending: roll out the double "
                                    "before it")
        if dice is not None:
            raise RolloutInputError("a double is pending: there are no dice to play")
        xgid = dataclasses.replace(xgid, cube_action=None)
        roll, cubeful = None, True
    cube = CubeState(value=xgid.cube_value, owner=xgid.cube_owner,
                     match_length=xgid.match_length, score=xgid.score, crawford=xgid.crawford,
                     jacoby=xgid.jacoby, beavers=xgid.beavers, gammons=gammons)
    board = xgid.position
    who = str(board.turn).capitalize()
    if outcome(board) is not None:
        raise RolloutInputError(GAME_OVER_TEXT)
    if roll is not None and not legal_plays(board, roll):
        raise RolloutInputError(f"{who} cannot play {roll[0]}-{roll[1]}: there is nothing to "
                                "roll out")
    if roll is None and cubeful:
        reason = may_double(cube, board.turn)
        if reason:
            raise RolloutInputError(f"{who} may not double ({reason}): no cube decision to "
                                    "roll out")
    try:
        settings = RolloutSettings(trials=trials, truncate=truncate, plies=level,
                                   cubeful=cubeful, seed=seed, top=plays)
    except RolloutError as exc:  # (the bounds above are narrower: a guard)
        raise RolloutInputError(str(exc)) from None
    named = None if candidates is None else _candidates(candidates, board, roll, limits)
    return RolloutRequest(xgid, roll, cube, settings, named)


def _candidates(candidates: object, board: Position, roll: tuple[int, int] | None,
                limits: RolloutLimits) -> tuple[str, ...]:
    """The plays named, checked and written as the notation writes them."""
    if roll is None:
        raise RolloutInputError("candidates are plays of a roll: this rollout has no dice")
    if (isinstance(candidates, str) or not isinstance(candidates, Sequence)
            or not 1 <= len(candidates) <= limits.max_plays):
        raise RolloutInputError(f"candidates must be a list of 1 to {limits.max_plays} plays")
    names: list[str] = []
    for k, text in enumerate(candidates):
        if not isinstance(text, str) or len(text) > 40:
            raise RolloutInputError(f"candidates[{k}] must be a play in notation (at most 40 "
                                    "characters)")
        try:
            play = parse_play(text, board, roll)
        except (NotationError, IllegalPlayError) as exc:
            raise RolloutInputError(f"candidates[{k}]: {exc}") from None
        if str(play) in names:
            raise RolloutInputError(f"candidates[{k}]: {play} comes twice")
        names.append(str(play))
    return tuple(names)


@dataclass
class RolloutJob:
    """One rollout: ``status`` is ``"queued"``, ``"running"``, ``"done"``, ``"stopped"``
    (by its client, by the time limit or by the server closing: ``stopped_by`` says which;
    the trials done are kept) or ``"failed"``."""

    id: str
    request: RolloutRequest
    client: str | None = field(default=None, repr=False)
    status: str = "queued"
    done: int = 0
    result: Rollout | None = None
    error: str | None = None
    stopped_by: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def total(self) -> int:
        """Trials per candidate asked for."""
        return self.request.settings.trials

    def stop(self, by: str) -> None:
        """Stop it (``by``: ``"client"``, ``"time limit"``, ``"server"``) if not over: a
        queued job never starts, a running one stops between plies, keeping its trials."""
        with self.lock:
            if self.status in FINISHED or self.stopped_by is not None:
                return
            self.stopped_by = by
            if self.status == "queued":
                self.status = "stopped"

    def to_json(self) -> dict[str, Any]:
        """``{"id", "status", "done", "total" (trials per candidate), "progress" (0..1),
        "stopped_by", "error", "request" (:meth:`RolloutRequest.to_json`), "result"}``:
        ``result`` is :meth:`~backgammon.ai.rollout.Rollout.to_dict` of the trials done so far
        (None before the first block): ``kind``, ``trials``, ``separated`` (the best ahead of
        the next at 95 %), ``lead`` and ``lead_se``, ``decision`` (a cube decision's proper
        action), and the ``candidates``, each with its ``name``, ``equity`` and ``se`` (EMG),
        ``win``, ``win_gammon``, ``win_backgammon``, ``lose_gammon``, ``lose_backgammon``
        (0..1) with their ``*_se``, and ``trials``."""
        with self.lock:
            progress = 1.0 if self.status == "done" else self.done / max(self.total, 1)
            return {"id": self.id, "status": self.status, "done": self.done,
                    "total": self.total, "progress": round(progress, 4),
                    "stopped_by": self.stopped_by, "error": self.error,
                    "request": self.request.to_json(),
                    "result": None if self.result is None else self.result.to_dict()}


class RolloutJobs(JobPool[RolloutJob]):
    """A bounded pool of rollouts, fair between clients (:class:`~.jobs.JobPool`; see the
    module docstring). :meth:`close` stops what runs, so a server stops at once.

    Args:
        workers: rollouts run at once (worker threads; each rollout runs in its thread, one
            core).
        max_jobs: unfinished jobs allowed, and jobs kept in all.
        per_client: unfinished jobs one client (its address) may have.
        limits: the bounds of one rollout.
        clock: seconds, rising (the time limit's; tests inject their own).
    """

    noun = "rollout"
    nouns = "rollouts"
    wait_words = "stop it or wait until it is done"
    finished = FINISHED
    busy = RolloutBusyError
    missing = NoSuchRolloutError
    not_yours = NotYourRolloutError

    def __init__(self, workers: int = DEFAULT_WORKERS, max_jobs: int = DEFAULT_MAX_JOBS,
                 per_client: int = DEFAULT_PER_CLIENT, limits: RolloutLimits | None = None,
                 clock: Any = time.monotonic) -> None:
        super().__init__(workers, max_jobs, per_client)
        self.limits = limits or RolloutLimits()
        self._clock = clock

    def submit(self, request: RolloutRequest, client: str | None = None) -> RolloutJob:
        """Queue ``request`` for ``client`` (its address; None: the server's own); returns
        its job at once.

        Raises:
            RolloutBusyError: ``max_jobs`` rollouts are unfinished, or ``client`` has
                ``per_client`` unfinished, or the pool is closed.
        """
        return self._admit(RolloutJob(uuid.uuid4().hex, request, client=client), client)

    def stop(self, job_id: str, client: str | None = None) -> RolloutJob:
        """Stop the job ``job_id`` for ``client`` (its address; None: the server's own, which
        may stop any): a queued job never starts, a running one stops between plies and keeps
        the trials done. A job already over is left as it is. Returns the job.

        Raises:
            NoSuchRolloutError: unknown id.
            NotYourRolloutError: ``client`` is not the client that started it.
        """
        job = self._owned(job_id, client)
        job.stop("client")
        return job

    def _halt(self, job: RolloutJob) -> None:
        job.stop("server")

    def _run(self, job: RolloutJob) -> None:
        with job.lock:
            if job.status != "queued":
                return
            job.status = "running"
        deadline = self._clock() + self.limits.max_seconds

        def should_stop() -> bool:
            if job.stopped_by is None and self._clock() > deadline:
                job.stop("time limit")
            return job.stopped_by is not None

        def partial(figures: Rollout) -> None:
            with job.lock:
                job.result = figures
                job.done = figures.trials

        request = job.request
        try:
            result = rollout(request.xgid.position, request.dice, cube=request.cube,
                             settings=request.settings, should_stop=should_stop,
                             partial=partial, plays=request.candidates)
        except Exception as exc:  # a job reports its failure instead of losing it
            with job.lock:
                job.status, job.error = "failed", f"{type(exc).__name__}: {exc}"
            return
        with job.lock:
            job.result = result if result.trials else None  # stopped before any trial: none
            job.done = result.trials
            job.status = "stopped" if result.stopped else "done"
            if result.stopped and job.stopped_by is None:
                job.stopped_by = "server"


__all__ = [
    "DEFAULT_MAX_JOBS",
    "DEFAULT_MAX_SECONDS",
    "DEFAULT_MAX_TRIALS",
    "DEFAULT_PER_CLIENT",
    "DEFAULT_PLAYS",
    "DEFAULT_WORKERS",
    "NoSuchRolloutError",
    "NotYourRolloutError",
    "RolloutBusyError",
    "RolloutInputError",
    "RolloutJob",
    "RolloutJobs",
    "RolloutLimits",
    "RolloutRequest",
    "rollout_request",
]
