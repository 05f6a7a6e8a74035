"""Review, hints, explanations, ``.mat`` export and import, and the rules page.

* ``GET /api/games/{id}/review``: every position of the session, game by game, to step
  through (:func:`~backgammon.services.review.review_match`).
* ``GET /api/games/{id}/hints``: the legal moves for the dice left, and the ways to finish
  the turn.
* ``POST /api/games/{id}/explain``: why a checker cannot go where the person tried to put
  it (or cannot be picked up): the engine's sentence and the rule's source. Changes nothing.
* ``GET /api/games/{id}/export.mat``: the session (or one game, ``?game=N``) as a ``.mat``
  transcript, as a download.
* ``POST /api/records/import``: a ``.mat`` transcript read and replayed through the rules,
  answered as a review; a transcript with a problem is refused with 422 and
  ``{"error": {"code", "message", "line", "detail"}}``. Nothing is stored.
* ``GET /rules``: the rules page (``static/rules.html``).

Handlers only validate and call the services in a worker thread; nothing here changes a game.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Final, Literal, TypeVar

import anyio.to_thread
from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from backgammon.core.match import Match
from backgammon.core.types import Color
from backgammon.records import MatError
from backgammon.server.api import ErrorResponse, GameId, Service
from backgammon.server.uploads import read_upload, refused
from backgammon.services.review import (
    ExplainJSON,
    HintsJSON,
    NoSuchGameError,
    ReviewJSON,
    explain_attempt,
    hints_for,
    history_names,
    import_mat,
    match_mat,
    player_names,
    review_match,
    session_title,
)
from backgammon.services.state import SettingsJSON

T = TypeVar("T")

#: The path of the import endpoint (the app lets its bodies be larger: a long match's
#: transcript is far over the JSON API's limit).
IMPORT_PATH: Final = "/api/records/import"
#: The largest transcript accepted, in characters (the body limit of :data:`IMPORT_PATH` is
#: set from ``ServerSettings.max_upload_bytes``).
MAX_MAT_CHARS: Final = 2_000_000
#: The rules page.
RULES_PAGE: Final = Path(__file__).parent / "static" / "rules.html"

_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorResponse, "description": "No game has this id (or this number)."},
    409: {"model": ErrorResponse, "description": "The saved game is damaged."},
}


class ExplainRequest(BaseModel):
    """An attempted move, as the page saw it: the checker's place and where the person tried
    to put it (places 1..24 in White's numbering, ``"bar"``, ``"off"``); ``to`` left out when
    the person only tried to pick the checker up."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_place: int | Literal["bar", "off"] = Field(alias="from", description="1..24, bar, off")
    to_place: int | Literal["bar", "off"] | None = Field(
        None, alias="to", description="1..24, bar, off; null for a pick-up"
    )


class ImportRequest(BaseModel):
    """A ``.mat`` transcript to review: its text (and the file's name, for messages)."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(max_length=MAX_MAT_CHARS, description="the transcript")
    name: str | None = Field(None, max_length=255, description="the file's name")


class MatErrorBody(BaseModel):
    """``{"code": "mat_parse_error", "message": "line 14: ...", "line": 14, "detail": "..."}``;
    ``line`` is None when the problem is not at one line."""

    code: Literal["mat_parse_error", "mat_replay_error", "too_large"]
    message: str
    line: int | None
    detail: str


class MatErrorResponse(BaseModel):
    """What a refused transcript answers."""

    error: MatErrorBody


async def _in_thread(func: Callable[..., T], *args: Any) -> T:
    return await anyio.to_thread.run_sync(func, *args)


def _computer(settings: SettingsJSON) -> Color | None:
    """The computer's side in a game against it; None in pass & play."""
    human = settings["human"]
    return None if human is None else Color.parse(human).opponent


def _not_found(message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": "not_found", "message": message}}, status_code=404)


router = APIRouter(tags=["review"], responses=_ERRORS)


@router.get("/api/games/{game_id}/review", response_model=ReviewJSON,
            summary="Every position of the game, to review")
async def review(game_id: GameId, service: Service) -> ReviewJSON:
    """One frame per line of the move list (and one for the start of each game): the board,
    dice and cube as they were. The turn being played is not part of it."""

    def read(match: Match, settings: SettingsJSON) -> ReviewJSON:
        # The lines name the sides as the live move list does ("You", "Computer" against
        # the computer); the title names the players.
        title = session_title(settings, player_names(settings))
        return review_match(match, history_names(settings), title=title)

    return await _in_thread(service.inspect, game_id, read)


@router.get("/api/games/{game_id}/hints", response_model=HintsJSON, summary="Hints")
async def hints(game_id: GameId, service: Service) -> HintsJSON:
    """The engine's legal moves for the dice left and the distinct ways to finish the turn;
    ``active`` false when the person has no dice to play."""

    def read(match: Match, settings: SettingsJSON) -> HintsJSON:
        computer = _computer(settings)
        return hints_for(match.current, allowed=match.current.on_roll is not computer)

    return await _in_thread(service.inspect, game_id, read)


@router.post("/api/games/{game_id}/explain", response_model=ExplainJSON,
             summary="Why a move is not allowed")
async def explain(game_id: GameId, body: ExplainRequest, service: Service) -> ExplainJSON:
    """Say whether the attempted move (or pick-up) is allowed and, when it is not, which rule
    forbids it, in words (``"13/7: the 7-point is held by Black"``) with the rule's source.
    Changes nothing."""

    def read(match: Match, settings: SettingsJSON) -> ExplainJSON:
        return explain_attempt(match.current, body.from_place, body.to_place,
                               computer=_computer(settings))

    return await _in_thread(service.inspect, game_id, read)


@router.get(
    "/api/games/{game_id}/export.mat",
    response_class=Response,
    summary="Download the game as .mat",
    responses={200: {"content": {"text/plain": {}}, "description": "The transcript."}},
)
async def export_mat(
    game_id: GameId,
    service: Service,
    game: Annotated[int | None, Query(ge=1, le=10_000, description="one game only")] = None,
) -> Response:
    """The session (or game ``game``) as a ``.mat`` transcript in GNU Backgammon's layout,
    written by :func:`backgammon.records.format_mat`; the turn being played is left out."""

    def read(match: Match, settings: SettingsJSON) -> str:
        return match_mat(match, player_names(settings), game)

    try:
        text = await _in_thread(service.inspect, game_id, read)
    except NoSuchGameError as exc:
        return _not_found(str(exc))
    name = f"backgammon-{game_id}{f'-game{game}' if game else ''}.mat"
    return Response(
        text, media_type="text/plain; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"',
                 "Cache-Control": "no-store"},
    )


@router.post(
    IMPORT_PATH,
    response_model=ReviewJSON,
    summary="Review a .mat file",
    responses={422: {"model": MatErrorResponse,
                     "description": "Not a transcript, or a play the rules forbid."}},
)
async def import_record(body: ImportRequest, request: Request) -> ReviewJSON | JSONResponse:
    """Read a ``.mat`` transcript with :func:`backgammon.records.read_mat`, replay every game
    through the rules, and answer its review. A problem answers 422 with the line and the
    reason (``too_large``: past the upload limits, :mod:`backgammon.server.uploads`); nothing
    is stored either way."""
    try:
        return await read_upload(request, import_mat, body.text)
    except MatError as exc:
        return refused(exc, body.name, 422)


@router.get("/rules", include_in_schema=False)
async def rules_page() -> FileResponse:
    """The rules as the engine enforces them, each with its source."""
    return FileResponse(RULES_PAGE, headers={"Cache-Control": "no-cache"})


__all__ = ["IMPORT_PATH", "MAX_MAT_CHARS", "RULES_PAGE", "router"]
