"""Positions: read an ID, check a position set up on the page, ask for a hint, and keep up to
six saved positions per browser.

* ``POST /api/positions/read``: a Position ID, ``PositionID:MatchID`` or an XGID, answered as
  the editor's setup with its IDs and the board as text; a malformed ID answers 422.
* ``POST /api/positions/check``: the editor's setup, checked (15 checkers a side, ...): its IDs,
  or 422 with the reason in words (``code`` ``"invalid_setup"``).
* ``POST /api/positions/hint``: the computer's advice in a setup, in words: the plays of the
  roll, best first, or its cube decision before the roll.
* ``POST /api/positions/evaluation`` (``{"position": "XGID=..."}``, or a ``PositionID:MatchID``):
  the computer's evaluation of the decision there (the Expert level, the match score and cube
  of the ID), the shape of ``GET /api/games/{id}/evaluation``
  (:func:`~backgammon.services.analysis_jobs.position_evaluation`); what a review asks for
  each frame's decisions. A malformed ID answers 422 (``code`` ``"invalid_id"``), a position
  the game cannot be picked up at 422 (``"invalid_setup"``), each with the reason in words.
* ``POST /api/positions/turn`` (``{board, turn, dice, moves}``): a turn built one checker at
  a time away from the game, as the shared table's online door (which takes whole plays)
  needs it: the board after the moves, the dice left, where each checker can go next, the
  play so far in notation and whether it is whole
  (:func:`~backgammon.services.destinations.turn_json`); 422 ``invalid_turn`` with the
  reason for a board, dice or move that is not one.
* ``POST /api/positions/turn/explain`` (``{board, turn, dice, moves, from, to}``): why the
  checker on ``from`` cannot go to ``to`` (``to`` left out: why it cannot be picked up) in
  that turn, the answer of ``POST /api/games/{id}/explain``
  (:func:`~backgammon.services.review.explain_in_turn`); 422 ``invalid_turn`` as above.
* ``GET /api/saved-positions?browser=B``, ``POST /api/saved-positions`` (``{browser, name,
  setup}``), ``DELETE /api/saved-positions/{id}?browser=B``: a browser's saved positions. A
  seventh answers 409 (``code`` ``"saved_positions_full"``).

A game is started from a setup by ``POST /api/games`` with ``setup`` (:mod:`.api`).
Handlers only validate and call the services in a worker thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

import anyio.to_thread
from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from typing_extensions import TypedDict

from backgammon.core.errors import InvalidPositionError
from backgammon.core.position import Position
from backgammon.core.xgid import Xgid
from backgammon.server.api import ErrorResponse, client_address
from backgammon.services.analysis_jobs import EvaluationSlots, position_evaluation
from backgammon.services.destinations import TurnJSON, turn_json
from backgammon.services.review import ExplainJSON, explain_in_turn
from backgammon.services.saved_positions import (
    MAX_NAME_LENGTH,
    MAX_SAVED_POSITIONS,
    PositionStore,
    SavedPosition,
    SavedPositionNotFoundError,
    SavedPositionsFullError,
)
from backgammon.services.setup import (
    HintJSON,
    SetupError,
    SetupInfoJSON,
    check_setup,
    read_ids,
    setup_hint,
    setup_info,
)

T = TypeVar("T")

BrowserId = Annotated[str, Query(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                                 description="the browser's own random id")]
SavedId = Annotated[str, Path(min_length=4, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                              description="the saved position's id")]


class ReadRequest(BaseModel):
    """An ID to read: a Position ID (``turn`` on roll), ``PositionID:MatchID``, or an XGID."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(max_length=200, description="the ID as pasted")
    turn: Literal["white", "black"] = Field("white", description="on roll, for a Position ID")


class SetupRequest(BaseModel):
    """A position set up on the page (see :class:`~backgammon.services.setup.SetupJSON`)."""

    model_config = ConfigDict(extra="forbid")

    setup: dict[str, Any]


class EvaluationRequest(BaseModel):
    """A decision to evaluate: the position, dice, cube and score as an XGID (or a Position ID
    with its Match ID, ``PID:MID``)."""

    model_config = ConfigDict(extra="forbid")

    position: str = Field(min_length=1, max_length=200,
                          description="an XGID, or PositionID:MatchID")
    gammons: StrictBool = Field(True, description="false: a game played without gammons "
                                "(every win a single game), which an ID cannot say")


class TurnMoveRequest(BaseModel):
    """One checker moved by one die: page places (White's numbering, ``"bar"``, ``"off"``)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: int | Literal["bar"] = Field(alias="from")
    to: int | Literal["off"]
    die: int = Field(ge=1, le=6)


class TurnBoardRequest(BaseModel):
    """The board at the turn's start, as the views send it."""

    model_config = ConfigDict(extra="forbid")

    points: list[int] = Field(min_length=26, max_length=26)
    off: dict[Literal["white", "black"], int]


class TurnRequest(BaseModel):
    """A turn being built: the board at its start, the side on roll, the dice and the moves
    made so far (at most four)."""

    model_config = ConfigDict(extra="forbid")

    board: TurnBoardRequest
    turn: Literal["white", "black"]
    dice: list[int] = Field(min_length=2, max_length=2)
    moves: list[TurnMoveRequest] = Field(default_factory=list, max_length=4)


class TurnExplainRequest(TurnRequest):
    """An attempted move in a turn being built: the turn (as :class:`TurnRequest`), the
    checker's place and where the person tried to put it (1..24 in White's numbering,
    ``"bar"``, ``"off"``); ``to`` left out for a pick-up."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_place: int | Literal["bar", "off"] = Field(alias="from", description="1..24, bar, off")
    to_place: int | Literal["bar", "off"] | None = Field(
        None, alias="to", description="1..24, bar, off; null for a pick-up"
    )


class SaveRequest(BaseModel):
    """Keep a position: the browser's id, a name, and the setup."""

    model_config = ConfigDict(extra="forbid")

    browser: str = Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    name: str = Field(max_length=200)
    setup: dict[str, Any]


class SavedPositionJSON(SetupInfoJSON):
    """A saved position: its id and name, when it was saved (seconds since the epoch), and
    the setup with its IDs and board text."""

    id: str
    name: str
    saved_at: float


class SavedListJSON(TypedDict):
    """A browser's saved positions, oldest first, and how many it may keep."""

    positions: list[SavedPositionJSON]
    limit: int


async def _in_thread(func: Callable[..., T], *args: Any) -> T:
    return await anyio.to_thread.run_sync(func, *args)


def _evaluating(request: Request, func: Callable[..., T]) -> Callable[..., T]:
    """``func`` run in one of the app's evaluation slots (:class:`EvaluationSlots`)."""
    slots: EvaluationSlots = request.app.state.evaluations
    client = request.client.host if request.client is not None else None

    def run(*args: Any) -> T:
        with slots.slot(client):
            return func(*args)

    return run


def _setup_hint(xgid: Xgid) -> HintJSON:
    """The setup's hint in words, from the position's evaluation at Expert."""
    return setup_hint(xgid, position_evaluation(xgid))


def _store(request: Request) -> PositionStore:
    store: PositionStore = request.app.state.positions
    return store


def _invalid(message: str, code: str = "invalid_setup", status: int = 422) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def _saved_json(saved: SavedPosition) -> SavedPositionJSON:
    info = setup_info(Xgid.parse(saved.xgid))
    return {"id": saved.id, "name": saved.name, "saved_at": saved.created_at, **info}


router = APIRouter(tags=["positions"], responses={
    422: {"model": ErrorResponse, "description": "The ID or the position is not valid."}})


@router.post("/api/positions/read", response_model=SetupInfoJSON, summary="Read an ID")
async def read_position(body: ReadRequest) -> SetupInfoJSON:
    """The setup of a Position ID, a Position ID with its Match ID, or an XGID."""
    return await _in_thread(lambda: setup_info(read_ids(body.text, body.turn)))


@router.post("/api/positions/check", response_model=SetupInfoJSON,
             summary="Check a position set up by hand")
async def check_position(body: SetupRequest) -> SetupInfoJSON | JSONResponse:
    """The setup's IDs and board text when it can be played, else 422 with the reason."""
    try:
        return await _in_thread(lambda: setup_info(check_setup(body.setup)))
    except SetupError as exc:
        return _invalid(str(exc))


@router.post("/api/positions/hint", response_model=HintJSON, summary="Hint for a position")
async def hint_position(body: SetupRequest, request: Request) -> HintJSON | JSONResponse:
    """The computer's best plays of the setup's roll, or its cube decision before the roll;
    503 ``busy`` when every evaluation slot is taken."""
    try:
        xgid = check_setup(body.setup)
        return await _in_thread(_evaluating(request, _setup_hint), xgid)
    except SetupError as exc:  # the setup, or a pending double the rules do not allow
        return _invalid(str(exc))


@router.post("/api/positions/evaluation", summary="The computer's evaluation of a position")
async def evaluate_position(body: EvaluationRequest, request: Request) -> Any:
    """Ranked plays for the ID's dice (equity in EMG, difference to the best, chances), or
    the cube hint before the roll, or the answer to a pending double; 422 with the reason
    when the ID cannot be read or played from; 503 ``busy`` when every evaluation slot is
    taken."""
    try:
        xgid = read_ids(body.position)
    except InvalidPositionError as exc:
        return _invalid(str(exc), "invalid_id")
    try:
        gammons = body.gammons
        return await _in_thread(_evaluating(
            request, lambda x: position_evaluation(x, gammons=gammons)), xgid)
    except SetupError as exc:
        return _invalid(str(exc))


def _turn_start(body: TurnRequest) -> Position:
    off = body.board.off
    return Position.from_points(body.board.points, body.turn,
                                off=(off.get("white", 0), off.get("black", 0)))


def _turn(body: TurnRequest) -> TurnJSON:
    return turn_json(_turn_start(body), body.dice, [(m.from_, m.to, m.die) for m in body.moves])


def _turn_explain(body: TurnExplainRequest) -> ExplainJSON:
    return explain_in_turn(_turn_start(body), body.dice,
                           [(m.from_, m.to, m.die) for m in body.moves],
                           body.from_place, body.to_place)


@router.post("/api/positions/turn", response_model=TurnJSON,
             summary="A turn built one checker at a time")
async def turn_position(body: TurnRequest) -> TurnJSON | JSONResponse:
    """The board after the moves made, the dice left, where each checker can go next, the
    play so far and whether it is whole; 422 ``invalid_turn`` with the reason."""
    try:
        return await _in_thread(_turn, body)
    except ValueError as exc:  # InvalidPositionError is one too
        return _invalid(str(exc), "invalid_turn")


@router.post("/api/positions/turn/explain", response_model=ExplainJSON,
             summary="Why a move is not allowed in a turn being built")
async def explain_turn(body: TurnExplainRequest) -> ExplainJSON | JSONResponse:
    """Whether the attempted move (or pick-up, ``to`` left out) is allowed after the moves
    made so far and, when it is not, which rule forbids it, in words (``"13/7: the 7-point
    is held by Black"``) with the rule's source: the answer of ``POST
    /api/games/{id}/explain`` for a turn the page builds itself (the shared table's online
    door). 422 ``invalid_turn`` with the reason for a board, dice or move that is not one."""
    try:
        return await _in_thread(_turn_explain, body)
    except ValueError as exc:  # InvalidPositionError, InvalidSettingsError are ones too
        return _invalid(str(exc), "invalid_turn")


@router.get("/api/saved-positions", response_model=SavedListJSON,
            summary="A browser's saved positions")
async def saved_positions(request: Request, browser: BrowserId) -> SavedListJSON:
    """The positions this browser keeps (at most six), oldest first."""
    store = _store(request)
    saved = await _in_thread(store.positions, browser)
    return {"positions": [_saved_json(s) for s in saved], "limit": MAX_SAVED_POSITIONS}


@router.post("/api/saved-positions", status_code=201, response_model=SavedPositionJSON,
             summary="Save a position",
             responses={409: {"model": ErrorResponse,
                              "description": "The browser keeps six already."}})
async def save_position(request: Request, body: SaveRequest) -> SavedPositionJSON | JSONResponse:
    """Keep a position for this browser under a name; a seventh is refused (409), and one
    past the most one client address keeps (:data:`~backgammon.services.saved_positions.
    MAX_POSITIONS_PER_OWNER`, whatever its browsers) with 507 ``storage_full``."""
    try:
        xgid = check_setup(body.setup)
    except SetupError as exc:
        return _invalid(str(exc))
    store = _store(request)
    try:
        saved = await _in_thread(store.save, body.browser, body.name, xgid,
                                 client_address(request))
    except SavedPositionsFullError as exc:
        return _invalid(str(exc), "saved_positions_full", 409)
    except ValueError as exc:
        return _invalid(f"{exc} (names are 1 to {MAX_NAME_LENGTH} characters)", "invalid_name")
    return _saved_json(saved)


@router.delete("/api/saved-positions/{saved_id}", status_code=204,
               response_class=Response, summary="Delete a saved position",
               responses={404: {"model": ErrorResponse,
                                "description": "No saved position has this id."}})
async def delete_position(request: Request, saved_id: SavedId,
                          browser: BrowserId) -> Response:
    """Forget one of the browser's saved positions."""
    store = _store(request)
    try:
        await _in_thread(store.delete, browser, saved_id)
    except SavedPositionNotFoundError as exc:
        return _invalid(str(exc), "not_found", 404)
    return Response(status_code=204)


__all__ = ["router"]
