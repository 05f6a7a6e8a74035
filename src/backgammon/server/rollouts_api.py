"""Rollouts over HTTP (:mod:`backgammon.services.rollout_jobs`).

* ``POST /api/rollouts`` with ``{"position": "XGID=..." or "PositionID:MatchID", "dice":
  [3, 1]?, "trials": 1296?, "truncate": 0?, "level": 0?, "cubeful": false?, "seed": 0?,
  "plays": 8?, "candidates": ["8/5 6/5", ...]?, "gammons": true?}``: queues a rollout and
  answers 202 with its job (:meth:`~backgammon.services.rollout_jobs.RolloutJob.to_json`).
  With dice (the ID's own or ``dice``) the first ``plays`` plays of the roll are rolled out
  (the ``candidates`` named first, e.g. a hint's best few, then the players' own ranking up
  to ``plays``); before the roll, with
  ``cubeful``, the cube decision (a double pending in the ID is rolled out as the cube
  decision), else the position's cubeless chances. ``level`` is the players' plies (0 or 1),
  ``truncate`` the plies before a trial is evaluated (0: to the end).
* ``GET /api/rollouts/{id}``: the job as it stands: ``done`` of ``total`` trials and the
  figures of the trials done so far (each candidate's equity with its standard error, its
  chances, and whether the best is ahead of the next at 95 %), refreshed after each block of
  trials; then ``"status": "done"``.
* ``DELETE /api/rollouts/{id}``: stops it (``"status": "stopped"``, the trials done kept);
  only the client address that started it may (403 otherwise).

Refusals answer ``{"error": {"code", "message"}}``: 422 ``invalid_id`` (an ID that cannot be
read), 422 ``invalid_rollout`` (a setting out of bounds: trials 1 to 1,296, truncate 0 to 500,
plays 1 to 16, seed 0 to 2**32 - 1; a finished game, a roll that cannot be played, a cube
that cannot be turned; a candidate that is not a play of the roll, or comes twice), 422
``invalid_request`` (a body of the wrong shape), 503 ``busy``
(16 rollouts unfinished, or this client has one already: one at a time per address), 404
``not_found``, 403 ``forbidden``. A rollout stops by itself after 10 minutes, keeping its
trials. The rollouts run one at a time (by default) in a worker thread; the handlers only
read, check and queue, off the event loop.

:func:`install` adds the routes to an app with its :class:`RolloutJobs` and stops the jobs
when the app shuts down.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Final

import anyio.to_thread
from fastapi import APIRouter, FastAPI, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from backgammon.core.errors import InvalidPositionError
from backgammon.server.api import ErrorResponse, client_address
from backgammon.services.rollout_jobs import (
    DEFAULT_MAX_TRIALS,
    DEFAULT_PLAYS,
    NoSuchRolloutError,
    NotYourRolloutError,
    RolloutBusyError,
    RolloutInputError,
    RolloutJobs,
    rollout_request,
)

#: The path of the rollout endpoints.
ROLLOUTS_PATH: Final = "/api/rollouts"

JobId = Annotated[str, Path(min_length=1, max_length=64, description="the rollout's id")]


class RolloutBody(BaseModel):
    """What to roll out, and how (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    position: str = Field(max_length=200, description="an XGID or a PositionID:MatchID")
    dice: list[StrictInt] | None = Field(None, max_length=2,
                                         description="the roll to play, e.g. [3, 1]")
    trials: StrictInt = Field(DEFAULT_MAX_TRIALS, description="trials per candidate")
    truncate: StrictInt = Field(0, description="plies before a trial is evaluated (0: the end)")
    level: StrictInt = Field(0, description="the players' plies: 0 or 1")
    cubeful: StrictBool = Field(False, description="play with the cube")
    seed: StrictInt = Field(0, description="the dice's seed")
    plays: StrictInt = Field(DEFAULT_PLAYS, description="checker play: the first N plays")
    candidates: list[StrictStr] | None = Field(
        None, max_length=64, description="checker play: these plays (notation, e.g. a hint's "
        "best few) first, then the level's ranking up to `plays`")
    gammons: StrictBool = Field(True, description="false: every win is a single game")


router = APIRouter(tags=["rollouts"], responses={
    422: {"model": ErrorResponse, "description": "The ID or the rollout is not valid."},
    503: {"model": ErrorResponse, "description": "Too many rollouts are unfinished."}})


def _jobs(request: Request) -> RolloutJobs:
    jobs: RolloutJobs = request.app.state.rollouts
    return jobs


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


@router.post(ROLLOUTS_PATH, status_code=202, summary="Start a rollout")
async def start_rollout(body: RolloutBody, request: Request) -> Any:
    """Queue a rollout of the ID's decision; answers its job (202)."""
    jobs = _jobs(request)

    def check() -> Any:
        return rollout_request(body.position, body.dice, trials=body.trials,
                               truncate=body.truncate, level=body.level, cubeful=body.cubeful,
                               seed=body.seed, plays=body.plays, gammons=body.gammons,
                               limits=jobs.limits, candidates=body.candidates)

    try:
        checked = await anyio.to_thread.run_sync(check)
    except InvalidPositionError as exc:
        return _error(422, "invalid_id", str(exc))
    except RolloutInputError as exc:
        return _error(422, "invalid_rollout", str(exc))
    try:
        job = jobs.submit(checked, client_address(request))
    except RolloutBusyError as exc:
        return _error(503, "busy", str(exc))
    return JSONResponse(job.to_json(), status_code=202)


@router.get(ROLLOUTS_PATH + "/{job_id}", summary="A rollout's progress and figures")
async def read_rollout(job_id: JobId, request: Request) -> Any:
    """The job: ``status``, ``done`` of ``total`` trials, the figures so far."""
    try:
        job = _jobs(request).get(job_id)
    except NoSuchRolloutError as exc:
        return _error(404, "not_found", str(exc))
    return job.to_json()


@router.delete(ROLLOUTS_PATH + "/{job_id}", summary="Stop a rollout")
async def stop_rollout(job_id: JobId, request: Request) -> Any:
    """Stop the job (its client address only, else 403 ``forbidden``); answers the job."""
    # "" when the address is unknown: such a request may stop nothing (None would be the
    # server's own right to stop any job)
    client = client_address(request) or ""
    try:
        job = _jobs(request).stop(job_id, client)
    except NoSuchRolloutError as exc:
        return _error(404, "not_found", str(exc))
    except NotYourRolloutError as exc:
        return _error(403, "forbidden", str(exc))
    return job.to_json()


def install(app: FastAPI, jobs: RolloutJobs | None = None) -> RolloutJobs:
    """Add the rollout routes to ``app`` with ``jobs`` (default a :class:`RolloutJobs` with
    its defaults), kept as ``app.state.rollouts``; the jobs are stopped when the app shuts
    down. Returns the jobs."""
    jobs = jobs or RolloutJobs()
    app.state.rollouts = jobs
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(application: Any) -> AsyncIterator[Any]:
        try:
            async with inner(application) as state:
                yield state
        finally:
            jobs.close()

    app.router.lifespan_context = lifespan
    app.include_router(router)
    return jobs


__all__ = ["ROLLOUTS_PATH", "RolloutBody", "install", "router"]
