"""Analysis jobs for the web game, and the computer's hints for a game in progress.

* :class:`AnalysisJobs`: :func:`backgammon.analysis.analyze` of a ``.mat`` text or a saved
  match, run in a bounded pool of worker threads (at most ``workers`` at once, one client never
  on all of them; more wait in a queue, and at most ``max_jobs`` are kept), each job with its
  progress (``done`` of ``total`` turns, which only goes up) and then its result or its
  error; its own client may cancel it (:meth:`AnalysisJobs.cancel`). A job runs at the pool's
  level (Expert) or at one its client asks for among :data:`ANALYSIS_LEVELS` (Master: 3-ply,
  each turn counted :data:`DEEP_TURN_COST` times against the pool's budget of turns).
* :func:`evaluation_for`: the hint for the game's present decision: the best plays of the dice
  thrown, each with its equity, its difference to the best and its chances; before the roll the
  cube hint (no double / double, take / double, pass / too good, with the equities).
* :func:`position_evaluation`: the same hint for a position described by an XGID (a frame of
  a review, a position set up by hand): the game picked up there, then :func:`evaluation_for`.

Equities are in EMG (points of money equity for a cube of 1; match play converted from
match-winning chances as :mod:`backgammon.analysis` says).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final

from backgammon.ai.choose import rank_plays
from backgammon.ai.cube import CubeAction, may_double
from backgammon.ai.levels import get_level
from backgammon.ai.met import MAX_AWAY
from backgammon.ai.player import ComputerPlayer, CubeAdvice, cube_advice, cube_state
from backgammon.analysis import (
    analyze,
    check_length,
    cube_emg_scale,
    emg_scale,
    record_size,
)
from backgammon.core.errors import BackgammonError
from backgammon.core.game import Game, Phase
from backgammon.core.match import Match
from backgammon.core.notation import format_play
from backgammon.core.xgid import Xgid
from backgammon.records import MatReplay, ReadLimits, read_and_replay
from backgammon.services.jobs import JobPool
from backgammon.services.setup import SetupError, setup_match

#: Analyses run at once by default.
DEFAULT_WORKERS: Final = 2
#: Jobs kept (finished ones are forgotten oldest first past this).
DEFAULT_MAX_JOBS: Final = 64
#: Unfinished analyses one client address may have.
DEFAULT_PER_CLIENT: Final = 2
#: Turns (rolls and doubles) one analysis takes at most.
DEFAULT_MAX_TURNS: Final = 3000
#: The levels a client may ask an analysis at: Expert's 2-ply and Master's 3-ply.
ANALYSIS_LEVELS: Final = ("expert", "master")
#: A 3-ply (Master) analysis takes five to six times as long as Expert's (docs/performance.md):
#: each of its turns counts this many against ``max_turns``.
DEEP_TURN_COST: Final = 6
#: The statuses of a job that is over.
FINISHED: Final = ("done", "failed", "cancelled")
#: Plays a hint lists.
HINT_PLAYS: Final = 8


#: Evaluations (hints, the computer's turns) computed at once by default, whoever asks.
DEFAULT_EVALUATIONS: Final = 4
#: The computer's turns of one client that may wait for a slot at once.
DEFAULT_WAITING: Final = 2
#: The longest a computer's turn waits for a slot, seconds.
DEFAULT_WAIT: Final = 30.0


class TooManyJobsError(BackgammonError):
    """Every slot of the queue is taken by an unfinished analysis, or the client's share."""


class AnalysisTooLargeError(BackgammonError, ValueError):
    """A record the analysis does not take: longer than the match equity table, or more
    turns than one analysis may take."""


class EvaluatorBusyError(BackgammonError):
    """Every evaluation slot is taken: the request is refused at once, not queued."""


class EvaluationSlots:
    """A bound on the evaluations computed at once (a hint, up to a few CPU-seconds at
    Expert; the computer's turn), so that a flood of requests cannot take the server's cores
    from the games being played.

    One client (its address) holds at most ``per_client`` slots at once, a quarter of them by
    default, so that no client keeps the others' hints at busy; its further requests wait
    their turn behind its own (a review frame asks for two evaluations at once), at most
    ``waiting`` of them and ``wait`` seconds, and are refused past either. A hint that finds
    every slot taken by others is refused at once (:class:`EvaluatorBusyError`) rather than
    made to wait. The computer's turn (``slot(..., wait=True)``) waits for a free slot too,
    within the same bounds, since a game must go on.

    Args:
        slots: evaluations at once (at least 1).
        per_client: evaluations at once for one client (1 to ``slots``; default a quarter
            of ``slots``, at least 1).
        waiting: the requests of one client that may wait at once.
        wait: the longest a request waits, seconds.

    Raises:
        ValueError: ``slots`` or ``per_client`` out of range.
    """

    def __init__(self, slots: int = DEFAULT_EVALUATIONS, per_client: int | None = None, *,
                 waiting: int = DEFAULT_WAITING, wait: float = DEFAULT_WAIT) -> None:
        if slots < 1:
            raise ValueError(f"slots must be at least 1, got {slots!r}")
        per_client = max(1, slots // 4) if per_client is None else per_client
        if not 1 <= per_client <= slots:
            raise ValueError(f"per_client must be from 1 to {slots}, got {per_client!r}")
        self.slots = slots
        self.per_client = per_client
        self.max_waiting = waiting
        self.wait = wait
        self._used = 0
        self._turn = threading.Condition()
        self._held: dict[str, int] = {}  # slots held by each client with some
        #: the requests of each client waiting for a slot
        self.waiting: dict[str, int] = {}

    def _mine_free(self, client: str | None) -> bool:
        return client is None or self._held.get(client, 0) < self.per_client

    def _fits(self, client: str | None) -> bool:
        return self._used < self.slots and self._mine_free(client)

    def _refusal(self, client: str | None) -> EvaluatorBusyError:
        held = 0 if client is None else self._held.get(client, 0)
        if held >= self.per_client:
            return EvaluatorBusyError(
                f"you have {held} evaluation{'s' if held != 1 else ''} running already: try "
                f"again once {'they are' if held != 1 else 'it is'} answered")
        return EvaluatorBusyError(f"the computer is busy with {self.slots} other evaluations: "
                                  "try again in a moment")

    @contextmanager
    def slot(self, client: str | None = None, *, wait: bool = False) -> Iterator[None]:
        """Hold one slot for the ``with`` block; ``client``: who asks (its address), None for
        the server's own callers, which only the total bounds; ``wait``: a computer's turn,
        which waits for a free slot too (see the class).

        Raises:
            EvaluatorBusyError: every slot is taken by others (at once, without ``wait``), or
                the wait lasted ``wait`` seconds, or ``waiting`` of the client's requests
                wait already (at once).
        """
        with self._turn:
            if not self._fits(client):
                if not wait and self._mine_free(client):
                    raise self._refusal(client)  # the others' slots: a hint does not wait
                self._wait_for(client, computer=wait)
            self._used += 1
            if client is not None:
                self._held[client] = self._held.get(client, 0) + 1
        try:
            yield
        finally:
            with self._turn:
                self._used -= 1
                if client is not None:
                    left = self._held[client] - 1
                    if left:
                        self._held[client] = left
                    else:
                        del self._held[client]
                self._turn.notify_all()

    def _wait_for(self, client: str | None, *, computer: bool) -> None:
        """Wait (the condition's lock held) until ``client`` may take a slot: for its own
        share, and for a free slot when ``computer`` (a hint that finds every slot taken by
        others is refused instead)."""
        key = "" if client is None else client
        queued = self.waiting.get(key, 0)
        if client is not None and queued >= self.max_waiting:
            what = "turn" if computer else "evaluation"
            raise EvaluatorBusyError(
                f"you have {queued} {what}{'s' if queued != 1 else ''} "
                f"{'of the computer ' if computer else ''}waiting already: try again once "
                f"{'they are' if queued != 1 else 'it is'} "
                f"{'played' if computer else 'answered'}")
        self.waiting[key] = queued + 1
        try:
            deadline = time.monotonic() + self.wait
            while not self._fits(client):
                if not computer and self._mine_free(client):
                    raise self._refusal(client)  # its own are done; the others' are not
                left = deadline - time.monotonic()
                if left <= 0:
                    if computer:
                        raise EvaluatorBusyError(
                            f"the computer waited {self.wait:g} s for its turn to think and "
                            "is still busy: try again in a moment")
                    raise self._refusal(client)
                self._turn.wait(left)
        finally:
            queued = self.waiting[key] - 1
            if queued:
                self.waiting[key] = queued
            else:
                del self.waiting[key]


class NoSuchJobError(BackgammonError, LookupError):
    """No analysis has this id (or it was forgotten)."""


class NotYourJobError(BackgammonError, PermissionError):
    """The analysis was started by another client: only its own client may cancel it."""


class _Cancelled(Exception):
    """Raised in a running analysis's progress callback once its job is cancelled."""


@dataclass
class Job:
    """One analysis: ``status`` is ``"queued"``, ``"running"``, ``"done"``, ``"failed"`` or
    ``"cancelled"``."""

    id: str
    client: str | None = field(default=None, repr=False)
    status: str = "queued"
    done: int = 0
    total: int = 0
    result: dict[str, Any] | None = None
    error: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def cancel(self) -> None:
        """Cancelled if not over yet (a running analysis sees it at its next turn)."""
        with self.lock:
            if self.status not in FINISHED:
                self.status = "cancelled"

    def to_json(self) -> dict[str, Any]:
        """``{"id", "status", "done", "total", "progress" (0..1), "result", "error"}``."""
        with self.lock:
            progress = 1.0 if self.status == "done" else (
                self.done / self.total if self.total else 0.0)
            return {"id": self.id, "status": self.status, "done": self.done,
                    "total": self.total, "progress": round(progress, 4),
                    "result": self.result, "error": self.error}


def read_record(text: str, limits: ReadLimits | None = None) -> MatReplay:
    """The ``.mat`` text read and replayed (so that a bad one is refused before a job starts;
    the job analyses this replay, without replaying it again), within ``limits`` (an upload;
    None: all of it).

    Raises:
        MatParseError, MatReplayError, MatLimitError: with the line and the reason.
    """
    # (a file's first problem, as the import and the CLI say)
    return read_and_replay(text, limits=limits)


class AnalysisJobs(JobPool[Job]):
    """A bounded pool of analyses, fair between clients (:class:`~.jobs.JobPool`: one
    client never runs on every worker; finished jobs kept, ``max_jobs`` in all). The worker
    threads are daemons, and :meth:`close` cancels what runs, so a server stops at once.

    Args:
        workers: analyses run at once (worker threads).
        max_jobs: unfinished jobs allowed, and jobs kept in all.
        level: the level the analyses use (default expert).
        per_client: unfinished jobs one client (its address) may have.
        max_turns: the most turns (rolls and doubles) one analysis takes; at Expert a
            7-point match of 198 turns takes 37 s on the project's machine, so the default,
            3,000, is about ten minutes of one core.
    """

    noun = "analysis"
    nouns = "analyses"
    finished = FINISHED
    busy = TooManyJobsError
    missing = NoSuchJobError
    not_yours = NotYourJobError

    def __init__(self, workers: int = DEFAULT_WORKERS, max_jobs: int = DEFAULT_MAX_JOBS,
                 level: str = "expert", per_client: int = DEFAULT_PER_CLIENT,
                 max_turns: int = DEFAULT_MAX_TURNS) -> None:
        super().__init__(workers, max_jobs, per_client)
        self.level = level
        self.max_turns = max_turns
        self._inputs: dict[str, tuple[MatReplay | Match, tuple[str, str] | None, str]] = {}

    def submit(self, source: MatReplay | Match, names: tuple[str, str] | None = None,
               client: str | None = None, level: str | None = None) -> Job:
        """Queue the analysis of ``source`` for ``client`` (its address; None: the server's
        own) at ``level`` (None: the pool's; else one of :data:`ANALYSIS_LEVELS`); returns its
        job at once.

        Raises:
            ValueError: a level not in :data:`ANALYSIS_LEVELS`.
            AnalysisTooLargeError: a match longer than the match equity table, or more than
                ``max_turns`` turns (``max_turns // DEEP_TURN_COST`` at a 3-ply level).
            TooManyJobsError: ``max_jobs`` analyses are unfinished, or ``client`` has
                ``per_client`` unfinished, or the pool is closed.
        """
        if level is None:
            level = self.level
        elif level not in ANALYSIS_LEVELS:
            raise ValueError(f"unknown analysis level {level!r}: expected one of "
                             f"{', '.join(ANALYSIS_LEVELS)}")
        length, turns = record_size(source)
        try:
            check_length(length)
        except ValueError as exc:
            raise AnalysisTooLargeError(str(exc)) from None
        deep = get_level(level).plies >= 3
        most = self.max_turns // DEEP_TURN_COST if deep else self.max_turns
        if turns > most:
            raise AnalysisTooLargeError(
                f"{turns} turns: one analysis at {level.capitalize()} (3-ply) takes at most "
                f"{most}; send fewer games, or analyse at Expert (2-ply)" if deep
                else
                f"{turns} turns: one analysis takes at most {most}; send fewer games")
        job = Job(uuid.uuid4().hex, client=client)
        with self._lock:
            self._inputs[job.id] = (source, names, level)
        try:
            return self._admit(job, client)
        except TooManyJobsError:
            with self._lock:
                del self._inputs[job.id]
            raise

    def cancel(self, job_id: str, client: str | None = None) -> Job:
        """Cancel the job ``job_id`` for ``client`` (its address; None: the server's own, which
        may cancel any): a queued job never starts, a running one stops at its next turn and
        frees its worker. A job already over is left as it is. Returns the job.

        Raises:
            NoSuchJobError: unknown id.
            NotYourJobError: ``client`` is not the client that started it.
        """
        job = self._owned(job_id, client)
        job.cancel()
        return job

    def _halt(self, job: Job) -> None:
        job.cancel()

    def _run(self, job: Job) -> None:
        with self._lock:
            source, names, level = self._inputs.pop(job.id)
        self._analyze(job, source, names, level)

    def _analyze(self, job: Job, source: MatReplay | Match,
                 names: tuple[str, str] | None, level: str) -> None:
        with job.lock:
            if job.status == "cancelled":
                return
            job.status = "running"

        def progress(done: int, total: int) -> None:
            with job.lock:
                if job.status == "cancelled":
                    raise _Cancelled
                job.total = total
                job.done = max(job.done, done)

        try:
            result = analyze(source, level, progress, names=names)
            data = result.to_dict()
            data["names"] = list(result.names)
            # what the reader accepted and how (a match picked up at a score, say)
            data["warnings"] = list(source.warnings) if isinstance(source, MatReplay) else []
        except _Cancelled:
            return
        except Exception as exc:  # a job reports its failure instead of losing it
            with job.lock:
                job.status, job.error = "failed", f"{type(exc).__name__}: {exc}"
            return
        with job.lock:
            if job.status == "cancelled":
                return
            job.result = data
            job.done = job.total
            job.status = "done"


# --------------------------------------------------------------------------------------------
# Hints for the game in progress


def evaluation_for(game: Game, level: str = "expert",
                   rank: Callable[..., Any] = rank_plays) -> dict[str, Any]:
    """The computer's hint for ``game``'s present decision.

    Returns:
        ``{"kind": "plays", "dice", "plays": [{"play", "equity", "diff", "probs": {"win",
        "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"} (percent),
        "ply"}]}`` in the MOVE phase; ``{"kind": "cube", "action", "response", "equities":
        {"no_double", "double_take", "double_drop"}, "probs", "reason"}`` before the roll
        when the player on roll may double, and while a double is offered
        (``"kind": "take"``, with ``"action"`` the answer, take / drop / beaver, take /
        drop / raccoon to a beaver, or take / drop to a raccoon, while ``"text"`` stays the
        proper cube action, "no double, take", "no double, beaver" and the like: the
        computer's own answer, :func:`~backgammon.ai.player.cube_advice`); ``{"kind": "none"}``
        otherwise. Equities and chances in EMG and percent, the view of the side on roll:
        the player to move or to double, and for ``"take"`` the doubler (the side that
        answers gets their negation).
    """
    cube = cube_state(game)
    if game.phase is Phase.MOVE and game.dice is not None:
        position = game.turn_start
        mover = position.turn
        ranked = rank(position, game.dice, level, cube=cube, settle=HINT_PLAYS)
        scale = emg_scale(cube, mover)
        if not ranked:
            return {"kind": "plays", "dice": list(game.dice), "plays": []}
        best = scale.emg(ranked[0].equity)
        plays = []
        for r in ranked[:HINT_PLAYS]:
            eq = scale.emg(r.equity)
            p = r.probs or (0.0, 0.0, 0.0, 0.0, 0.0)
            plays.append({
                "play": format_play(r.play.moves), "equity": round(eq, 3),
                "diff": round(eq - best, 3) + 0.0, "ply": r.ply,  # + 0.0: never -0.0
                "probs": {"win": _pct(p[0]), "win_gammon": _pct(p[1]),
                          "win_backgammon": _pct(p[2]), "lose_gammon": _pct(p[3]),
                          "lose_backgammon": _pct(p[4])},
            })
        return {"kind": "plays", "dice": list(game.dice), "plays": plays}
    if (game.phase in (Phase.ROLL, Phase.DOUBLE_OFFERED) and game.on_roll is not None
            and game.settings.cube):
        if game.phase is Phase.ROLL:
            reason = may_double(cube, game.on_roll)
            if reason:
                return {"kind": "none", "reason": reason}
        # the one cube decision the computer acts on (ai.player.cube_advice)
        probs = ComputerPlayer(level).probabilities(game.turn_start)
        advice = cube_advice(game, probs)
        if advice is not None:
            return _cube_hint(advice, probs)
    return {"kind": "none"}


def position_evaluation(xgid: Xgid, level: str = "expert", *,
                        gammons: bool = True) -> dict[str, Any]:
    """The computer's hint for the decision ``xgid`` describes: with dice, the plays of the
    roll; before the roll, the cube decision of the side on roll; with a double pending, the
    answer to it. The match score, the Crawford game and the cube come from the XGID, as
    :func:`evaluation_for` reads them from a game (the game picked up at ``xgid`` by
    :func:`~backgammon.services.setup.setup_match`, with the cube; before the roll, a cube
    already at the XGID's maximum (field 10) gives no cube hint). ``gammons`` False: a game
    where every win is a single game (an XGID cannot say so), as a game played without them.

    Returns:
        :func:`evaluation_for`'s answer; a roll that cannot be played answers
        ``{"kind": "plays", "dice", "plays": []}``.

    Raises:
        SetupError: a position the game cannot be picked up at (a double the rules do not
            allow: in the Crawford game, with a dead cube, ...), or a match longer than the
            match equity table (64 points), in words.
    """
    if xgid.match_length > MAX_AWAY:
        raise SetupError(f"a match to {xgid.match_length} points: the computer evaluates "
                         f"matches up to {MAX_AWAY} points")
    match = setup_match(xgid, gammons=gammons)
    game = match.current
    if xgid.dice is not None and game.phase is not Phase.MOVE:  # the roll passed at once
        return {"kind": "plays", "dice": list(xgid.dice), "plays": []}
    answer = evaluation_for(game, level)
    if answer["kind"] == "cube" and xgid.cube_value * 2 > xgid.max_cube:
        # the XGID's maximum cube (field 10) forbids a redouble the game itself would allow
        return {"kind": "none", "reason": f"cube at its limit ({xgid.max_cube}, the XGID's "
                                          "maximum cube)"}
    return answer


#: The words of a cube action in a hint.
_ACTION_WORDS: Final = {CubeAction.NO_DOUBLE: "no double", CubeAction.DOUBLE: "double",
                        CubeAction.TOO_GOOD: "too good", CubeAction.TAKE: "take",
                        CubeAction.DROP: "drop", CubeAction.BEAVER: "beaver",
                        CubeAction.RACCOON: "raccoon"}


def _cube_hint(advice: CubeAdvice, probs: Any) -> dict[str, Any]:
    """The hint of a cube decision: ``kind`` ``"cube"`` (before the roll: ``action`` the
    doubler's) or ``"take"`` (a double, a beaver or a raccoon to answer: ``action`` the
    answer, take, drop, beaver or raccoon); ``text`` the proper cube action ("no double,
    beaver", with "; the beaver: raccoon" when a beaver is answered); ``response``
    the answer to a double in its words (take, pass, beaver); the equities of the double,
    the doubler's view."""
    decision = advice.decision
    assert decision.equities is not None
    eq = decision.equities
    sc = cube_emg_scale(advice.cube, advice.doubler)
    response = decision.response
    answer = {CubeAction.DROP: "pass", CubeAction.BEAVER: "beaver"}.get(response, "take")
    if decision.action is CubeAction.DOUBLE:
        text = f"double, {answer}"
    elif decision.action is CubeAction.TOO_GOOD:
        text = "too good to double, pass"
    else:
        text = f"no double, {answer}"
    if advice.stage in ("beaver", "raccoon"):
        reply = {CubeAction.DROP: "pass", CubeAction.RACCOON: "raccoon"}.get(advice.answer,
                                                                             "take")
        text += f"; the {advice.stage}: {reply}"
    return {
        "kind": "cube" if advice.stage == "double" else "take",
        "action": _ACTION_WORDS[advice.answer if advice.stage != "double"
                                else decision.action],
        "response": answer, "text": text,
        "equities": {"no_double": round(sc.emg(eq.no_double), 3),
                     "double_take": round(sc.emg(eq.double_take), 3),
                     "double_drop": round(sc.emg(eq.double_drop), 3)},
        "probs": {"win": _pct(probs[0]), "win_gammon": _pct(probs[1]),
                  "win_backgammon": _pct(probs[2]), "lose_gammon": _pct(probs[3]),
                  "lose_backgammon": _pct(probs[4])},
        "reason": decision.reason,
    }


def _pct(p: float) -> float:
    return round(100.0 * float(p), 1)


__all__ = [
    "DEFAULT_EVALUATIONS",
    "DEFAULT_MAX_TURNS",
    "DEFAULT_PER_CLIENT",
    "DEFAULT_WAIT",
    "DEFAULT_WAITING",
    "AnalysisJobs",
    "AnalysisTooLargeError",
    "EvaluationSlots",
    "EvaluatorBusyError",
    "Job",
    "NoSuchJobError",
    "NotYourJobError",
    "TooManyJobsError",
    "evaluation_for",
    "position_evaluation",
    "read_record",
]
