"""Analysis and the computer's hints over HTTP.

* ``POST /api/analysis`` with ``{"mat": "<.mat text>", "name": "file.mat"}`` or
  ``{"game_id": "<saved game>"}``, and optionally ``"level"``: ``"expert"`` (2-ply, the
  server's default) or ``"master"`` (3-ply; each turn counts six against the limit): starts
  an analysis (:mod:`backgammon.services.analysis_jobs`) and answers 202 with its job:
  ``{"id", "status", "done", "total", "progress", "result", "error"}``. A ``.mat`` that is not
  a legal match answers 400 with ``{"error": {"code", "message", "line", "detail"}}``; 503
  when too many analyses wait.
* ``GET /api/analysis/{id}``: the job: its progress (``done`` of ``total`` turns, only rising),
  then ``"status": "done"`` and the ``result`` (:meth:`backgammon.analysis.Analysis.to_dict`
  with ``names`` and the ``.mat`` reader's ``warnings``, each ``"line N: ..."``), or
  ``"failed"`` and the ``error``.
* ``DELETE /api/analysis/{id}``: cancels the job (``"status": "cancelled"``; a running one
  stops at its next turn and frees its worker); only the client address that started it may
  (403 otherwise). A job already over is answered as it is.
* ``GET /api/games/{id}/evaluation``: the hint for the present decision of a saved game
  (:func:`~backgammon.services.analysis_jobs.evaluation_for`): ranked plays with equities and
  chances, or the cube hint. Refused (403) while it is the computer's turn to act, and (503
  ``busy``) when the app's evaluation slots are all taken
  (:class:`~backgammon.services.analysis_jobs.EvaluationSlots`), as the position hints are.
* ``POST /api/games/{id}/tutor`` with ``{"action": "done" | "roll" | "double" | "take" |
  "drop" | "beaver"}``: the tutor's verdict on the action the person is about to make (the
  play on the board before Done, a cube action), by the hint's evaluation
  (:func:`~backgammon.services.tutor.tutor_check`): its loss in EMG, GNU Backgammon's mark
  and a sentence. Refused as the hint is (403 while the computer is to act, 503 ``busy``).

The analyses run in worker threads, a bounded number at once; nothing here blocks the event
loop.
"""

from __future__ import annotations

from typing import Any, Final, Literal

import anyio.to_thread
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from backgammon.core.game import Game
from backgammon.core.match import Match
from backgammon.core.types import Color
from backgammon.records import MatError
from backgammon.server.api import GameId, Service
from backgammon.server.records_api import MAX_MAT_CHARS
from backgammon.server.uploads import read_upload, refused
from backgammon.services.analysis_jobs import (
    AnalysisJobs,
    AnalysisTooLargeError,
    EvaluationSlots,
    NoSuchJobError,
    NotYourJobError,
    TooManyJobsError,
    evaluation_for,
    read_record,
)
from backgammon.services.review import player_names
from backgammon.services.state import SettingsJSON
from backgammon.services.tutor import TutorAction, tutor_check

#: The path of the analysis endpoint (its bodies may be as large as an import's).
ANALYSIS_PATH: Final = "/api/analysis"

router = APIRouter(tags=["analysis"])


class TutorRequest(BaseModel):
    """The action the tutor is asked about."""

    model_config = ConfigDict(extra="forbid")

    action: TutorAction = Field(description="done (the play on the board), roll, double, "
                                "take, drop or beaver")


class AnalysisRequest(BaseModel):
    """What to analyse: a ``.mat`` text, or a saved game's id."""

    model_config = ConfigDict(extra="forbid")

    mat: str | None = Field(None, max_length=MAX_MAT_CHARS, description="a .mat transcript")
    name: str | None = Field(None, max_length=255, description="the file's name")
    game_id: str | None = Field(None, max_length=64, description="a saved game's id")
    level: Literal["expert", "master"] | None = Field(
        None, description="expert (2-ply, the server's default), or master (3-ply: five to "
                          "six times as long, and a sixth of the turns)")


def _jobs(request: Request) -> AnalysisJobs:
    jobs: AnalysisJobs = request.app.state.analysis_jobs
    return jobs


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message, **extra}},
                        status_code=status)


@router.post(ANALYSIS_PATH, status_code=202, summary="Start an analysis")
async def start_analysis(body: AnalysisRequest, request: Request,
                         service: Service) -> Any:
    """Queue the analysis of a ``.mat`` text or a saved game's match; answers its job.

    400 with the line for a bad ``.mat``; 400 ``too_large`` for a match longer than 64 points
    or more than 3,000 turns (500 at ``level`` master); 503 ``busy`` when 64 analyses are
    unfinished, or when this client (its address) has 2."""
    jobs = _jobs(request)
    if (body.mat is None) == (body.game_id is None):
        return _error(400, "bad_request", "send either mat (a .mat text) or game_id")
    if body.mat is not None:
        try:
            record = await read_upload(request, read_record, body.mat)
        except MatError as exc:
            return refused(exc, body.name, 400)
        source: Any = record
        names = None
    else:
        def read(match: Match, settings: SettingsJSON) -> tuple[dict[str, Any],
                                                                 tuple[str, str]]:
            return match.to_log(), player_names(settings)

        game_id = body.game_id
        assert game_id is not None  # exactly one of mat and game_id: checked above
        log, names = await anyio.to_thread.run_sync(service.inspect, game_id, read)
        source = await anyio.to_thread.run_sync(Match.replay, log)
    client = request.client.host if request.client is not None else None
    try:
        job = await anyio.to_thread.run_sync(jobs.submit, source, names, client, body.level)
    except AnalysisTooLargeError as exc:
        return _error(400, "too_large", str(exc))
    except TooManyJobsError as exc:
        return _error(503, "busy", str(exc))
    return JSONResponse(job.to_json(), status_code=202)


@router.get(ANALYSIS_PATH + "/{job_id}", summary="An analysis's progress and result")
async def read_analysis(job_id: str, request: Request) -> Any:
    """The job: ``status``, ``done`` of ``total``, and when done the ``result``."""
    try:
        job = _jobs(request).get(job_id)
    except NoSuchJobError as exc:
        return _error(404, "not_found", str(exc))
    return job.to_json()


@router.delete(ANALYSIS_PATH + "/{job_id}", summary="Cancel an analysis")
async def cancel_analysis(job_id: str, request: Request) -> Any:
    """Cancel the job (its client address only, else 403 ``forbidden``); answers the job."""
    # "" when the address is unknown: such a request may cancel nothing (None would be the
    # server's own right to cancel any job)
    client = request.client.host if request.client is not None else ""
    try:
        job = _jobs(request).cancel(job_id, client)
    except NoSuchJobError as exc:
        return _error(404, "not_found", str(exc))
    except NotYourJobError as exc:
        return _error(403, "forbidden", str(exc))
    return job.to_json()


def _game_copy(match: Match, settings: SettingsJSON) -> Game | None:
    """A copy of the game to evaluate (None: the computer is to act), taken under the
    session's lock; the evaluation runs on it after, so the game is not held meanwhile."""
    human = settings["human"]
    computer = None if human is None else Color.parse(human).opponent
    game = match.current
    acting = game.on_roll
    if game.phase.value == "double_offered" and acting is not None:
        acting = acting.opponent
    if computer is not None and acting is computer:
        return None
    return Game.replay(game.to_log())


@router.get("/api/games/{game_id}/evaluation", summary="The computer's hint")
async def evaluation(game_id: GameId, service: Service, request: Request) -> Any:
    """Ranked plays for the dice thrown, or the cube hint before the roll (EMG); 503 ``busy``
    when every evaluation slot is taken."""

    slots: EvaluationSlots = request.app.state.evaluations
    client = request.client.host if request.client is not None else None

    def in_slot(game: Game) -> dict[str, Any]:
        with slots.slot(client):
            return evaluation_for(game)

    found = await anyio.to_thread.run_sync(service.inspect, game_id, _game_copy)
    if found is None:
        return _error(403, "not_your_turn", "no hint while the computer is to act")
    return await anyio.to_thread.run_sync(in_slot, found)


@router.post("/api/games/{game_id}/tutor", summary="The tutor's verdict on an action")
async def tutor(game_id: GameId, body: TutorRequest, service: Service,
                request: Request) -> Any:
    """What the action about to be made loses (EMG) by the hint's evaluation, with GNU
    Backgammon's mark (doubtful 0.04, bad 0.08, very bad 0.16) and a sentence; 403 while the
    computer is to act, 503 ``busy`` when every evaluation slot is taken."""
    slots: EvaluationSlots = request.app.state.evaluations
    client = request.client.host if request.client is not None else None

    def in_slot(game: Game) -> dict[str, Any]:
        with slots.slot(client):
            return tutor_check(game, body.action)

    found = await anyio.to_thread.run_sync(service.inspect, game_id, _game_copy)
    if found is None:
        return _error(403, "not_your_turn", "no tutor while the computer is to act")
    return await anyio.to_thread.run_sync(in_slot, found)


__all__ = ["ANALYSIS_PATH", "router"]
