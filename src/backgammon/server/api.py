"""The JSON API for local games (vs the computer, or pass & play on one screen).

Every action answers with the whole :class:`~backgammon.services.state.GameState`; a refused
action answers 4xx with ``{"error": {"code": ..., "message": ...}}`` and changes nothing.
Handlers only validate and call the game service; the service runs in a worker thread (it
touches SQLite, and the computer's turn is CPU work), so the event loop stays free.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

import anyio.to_thread
from fastapi import APIRouter, Body, Depends, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from backgammon.core.errors import InvalidSettingsError
from backgammon.services.analysis_jobs import EvaluationSlots
from backgammon.services.session import RECENT_LIMIT, GameOptions, GameService
from backgammon.services.setup import check_setup
from backgammon.services.state import (
    ClockCheckJSON,
    ComputerTurnJSON,
    GameState,
    RecentGameJSON,
)
from gametable.errors import ActionRefused

T = TypeVar("T")

GameId = Annotated[
    str,
    Path(min_length=4, max_length=64, pattern=r"^[A-Za-z0-9_-]+$", description="the game's id"),
]

_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"description": "No game has this id."},
    409: {"description": "The action is not allowed now, or the saved game is damaged."},
    422: {"description": "The move breaks a rule, or the request is malformed."},
}


class ErrorBody(BaseModel):
    """``{"code": "illegal_move", "message": "13/7 is not a legal move"}``."""

    code: str
    message: str


class ErrorResponse(BaseModel):
    """What every refused request answers."""

    error: ErrorBody


class NewGame(BaseModel):
    """The settings of a new game (the page's New game form)."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["computer", "pass_and_play"] = Field(
        "computer", description="against the computer, or two people on one screen"
    )
    level: Literal["easy", "medium", "hard", "expert", "master"] = Field(
        "easy", description="the computer's level")
    side: Literal["white", "black", "random"] = Field(
        "white", description="the human's side against the computer"
    )
    cube: bool = Field(True, description="play with the doubling cube")
    gammons: bool = Field(True, description="count gammons and backgammons; false: every win "
                          "scores a single game times the cube")
    kind: Literal["single", "match", "money"] = Field(
        "single", description="one game, a match to `length` points, or a money session"
    )
    length: int = Field(5, ge=1, le=25, description="match length in points (for kind=match)")
    time_control: Literal["none", "bullet", "blitz", "rapid"] = Field(
        "none",
        description="the clock: none, bullet (1 min + 2 s a turn), blitz (3 min + 4 s) or "
        "rapid (10 min + 8 s); running out of time loses the game",
    )
    jacoby: bool = Field(False, description="the Jacoby rule (money play with the cube)")
    beavers: bool = Field(False, description="beavers allowed (money play with the cube)")
    setup: dict[str, Any] | None = Field(
        None,
        description="start from a position set up on the page (the editor's setup: board, "
        "turn, dice, cube, match_length, score, crawford); `kind`, `length` and "
        "`time_control` are then the setup's (a match of its length, no clock)",
    )
    # Seeds and the record (services/seeds.py, services/stats.py).
    seed: StrictInt | StrictStr | None = Field(
        None, description="the dice's seed, a whole number 0..2**53-1 (or its digits as "
        "text): the same seed gives the same dice; none: a new seed")
    browser: StrictStr | None = Field(
        None, description="the browser's own random id (8 to 64 letters, digits, '-', '_'): "
        "the game is listed among that browser's recent games (GET /api/games?browser=...) "
        "and the games this session finishes count in its record")


class RecentGames(BaseModel):
    """A browser's unfinished games, the last played first."""

    games: list[RecentGameJSON]


class MoveRequest(BaseModel):
    """Move one checker, as the page offered it: from a place to a place (points 1..24 in
    White's numbering, ``"bar"``, ``"off"``). A destination several dice away moves through
    the open points between in one action."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_place: StrictInt | Literal["bar"] = Field(alias="from", description="1..24 or 'bar'")
    to_place: StrictInt | Literal["off"] = Field(alias="to", description="1..24 or 'off'")


class ClockCheck(BaseModel):
    """The page's heartbeat: which page it is, the state version it has drawn, and whether it
    is going away."""

    model_config = ConfigDict(extra="forbid")

    page: str = Field("", max_length=64, pattern=r"^[A-Za-z0-9_-]*$",
                      description="the page's own random id")
    shown: int | None = Field(None, ge=0, description="the state version the page has drawn")
    leave: bool = Field(False, description="the page is closing (sent on pagehide)")


class ResignRequest(BaseModel):
    """Concede the game at a level: what the opponent scores (times the cube)."""

    model_config = ConfigDict(extra="forbid")

    level: Literal["single", "gammon", "backgammon"] = "single"


class Health(BaseModel):
    """``{"status": "ok", "version": "0.1.0"}``."""

    status: Literal["ok"]
    version: str


def get_service(request: Request) -> GameService:
    """The app's game service (set by :func:`~backgammon.server.app.create_app`)."""
    service: GameService = request.app.state.games
    return service


Service = Annotated[GameService, Depends(get_service)]


async def _in_thread(func: Callable[..., T], *args: Any) -> T:
    return await anyio.to_thread.run_sync(func, *args)


router = APIRouter(prefix="/api", tags=["games"], responses=_ERRORS)


def client_address(request: Request) -> str | None:
    """The client's address as uvicorn gives it (a trusted proxy's ``X-Forwarded-For``), the
    key of every per-client bound; None when unknown."""
    return request.client.host if request.client is not None else None


@router.post("/games", status_code=201, response_model=GameState, summary="Start a game")
async def create_game(
    service: Service, request: Request, body: NewGame | None = None
) -> GameState:
    """Start a game (or the first game of a match or session) and save it; with ``setup``,
    from that position (a position that cannot be played answers 422 with the reason); no
    body: a single game against the computer (Easy), White, no clock. 507
    ``storage_full`` when the games of this browser, or of this client address, hold their
    most (the store's bounds); an action that would grow a game past them answers the
    same, and the game stays as it was."""
    if body is None:
        body = NewGame.model_validate({})
    setup = check_setup(body.setup) if body.setup is not None else None
    try:
        options = _options(body)
    except ValueError as exc:  # e.g. the Jacoby rule asked for outside money play
        raise InvalidSettingsError(str(exc)) from None
    owner = client_address(request)
    return await _in_thread(lambda: service.create(options, setup, seed=body.seed,
                                                   browser=body.browser, owner=owner))


def _options(body: NewGame) -> GameOptions:
    return GameOptions(
        mode=body.mode,
        level=body.level,
        side=body.side,
        cube=body.cube,
        gammons=body.gammons,
        kind=body.kind,
        length=body.length if body.kind == "match" else 0,
        time_control=body.time_control,
        jacoby=body.jacoby,
        beavers=body.beavers,
    )


@router.get("/games", response_model=RecentGames, summary="A browser's unfinished games")
async def recent_games(
    service: Service,
    browser: Annotated[str, Query(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                                  description="the browser's anonymous id")],
    limit: Annotated[int, Query(ge=1, le=RECENT_LIMIT,
                                description="at most this many games")] = RECENT_LIMIT,
) -> dict[str, list[RecentGameJSON]]:
    """The games this browser started that are not finished (a single game not yet won, a
    match not yet decided), the last played first, to resume one (read it with
    ``GET /api/games/{id}``)."""
    return {"games": await _in_thread(service.recent, browser, limit)}


@router.get("/games/{game_id}", response_model=GameState, summary="Read a game")
async def read_game(game_id: GameId, service: Service) -> GameState:
    """The state of a saved game: after a reload or a server restart, exactly as it was,
    dice already thrown included."""
    return await _in_thread(service.state, game_id)


@router.post("/games/{game_id}/actions", response_model=GameState, summary="Act")
async def act(
    game_id: GameId,
    service: Service,
    action: Annotated[dict[str, Any] | None, Body(
        description="the table's action JSON, as at every door: {\"type\": \"roll\"}, "
        "{\"type\": \"move_checker\", \"from\": 13, \"to\": 7} (one checker; a place "
        "is 1..24 in White's numbering, \"bar\" or \"off\"), {\"type\": \"undo\"}, "
        "{\"type\": \"end_turn\"}, {\"type\": \"move\", \"play\": \"13/7 8/7\"} "
        "(a whole play), double, take, beaver, raccoon, drop, {\"type\": \"resign\", "
        "\"level\": \"gammon\"}, next_game",
        examples=[{"type": "move_checker", "from": 13, "to": 7}])] = None,
) -> GameState:
    """Carry out the person's action through the game's table (the same action JSON as the
    table's doors, ``/api/tables`` and ``/ws/rooms``); a refusal answers the table's codes
    (``not_your_turn``, ``not_allowed``, ``illegal_move``, ``invalid_action``,
    ``game_over``). The routes below (``/roll``, ``/move``, ...) are shorthands for it."""
    if action is None:
        raise ActionRefused("invalid_action", 'the body is the action\'s JSON object, e.g. '
                            '{"type": "roll"}: none was sent')
    return await _in_thread(service.act, game_id, action)


@router.post("/games/{game_id}/roll", response_model=GameState, summary="Roll the dice")
async def roll(game_id: GameId, service: Service) -> GameState:
    """Throw the dice: the opening roll, or the roll of the side on turn."""
    return await _in_thread(service.roll, game_id)


@router.post("/games/{game_id}/move", response_model=GameState, summary="Move a checker")
async def move(game_id: GameId, body: MoveRequest, service: Service) -> GameState:
    """Move one checker to a destination listed in ``legal``."""
    return await _in_thread(service.move, game_id, body.from_place, body.to_place)


@router.post("/games/{game_id}/undo", response_model=GameState, summary="Take back a move")
async def undo(game_id: GameId, service: Service) -> GameState:
    """Take back the last move of the turn being played."""
    return await _in_thread(service.undo, game_id)


@router.post("/games/{game_id}/done", response_model=GameState, summary="End the turn")
async def done(game_id: GameId, service: Service) -> GameState:
    """End the turn once the play is complete (or the roll cannot be played)."""
    return await _in_thread(service.end_turn, game_id)


@router.post("/games/{game_id}/double", response_model=GameState, summary="Offer a double")
async def double(game_id: GameId, service: Service) -> GameState:
    """Offer the cube before rolling."""
    return await _in_thread(service.double, game_id)


@router.post("/games/{game_id}/take", response_model=GameState, summary="Take a double")
async def take(game_id: GameId, service: Service) -> GameState:
    """Accept the double: the cube doubles and passes to the taker."""
    return await _in_thread(service.take, game_id)


@router.post("/games/{game_id}/beaver", response_model=GameState, summary="Beaver a double")
async def beaver(game_id: GameId, service: Service) -> GameState:
    """Take the double and redouble at once, keeping the cube (money play with beavers)."""
    return await _in_thread(service.beaver, game_id)


@router.post("/games/{game_id}/raccoon", response_model=GameState, summary="Raccoon a beaver")
async def raccoon(game_id: GameId, service: Service) -> GameState:
    """Answer the beaver of your double by redoubling at once; the beaver keeps the cube and
    takes or drops (money play with beavers)."""
    return await _in_thread(service.raccoon, game_id)


@router.post("/games/{game_id}/drop", response_model=GameState, summary="Drop a double")
async def drop(game_id: GameId, service: Service) -> GameState:
    """Refuse the double and lose the game at the cube's value before the double."""
    return await _in_thread(service.drop, game_id)


@router.post("/games/{game_id}/resign", response_model=GameState, summary="Resign")
async def resign(game_id: GameId, body: ResignRequest, service: Service) -> GameState:
    """Concede the game at the level given."""
    return await _in_thread(service.resign, game_id, body.level)


@router.post("/games/{game_id}/next", response_model=GameState, summary="Next game")
async def next_game(game_id: GameId, service: Service) -> GameState:
    """Start the next game of the match or money session."""
    return await _in_thread(service.next_game, game_id)


@router.post(
    "/games/{game_id}/rematch", status_code=201, response_model=GameState, summary="Rematch"
)
async def rematch(game_id: GameId, service: Service, request: Request) -> GameState:
    """A new game (or match) with the same settings once this one is over; a new id."""
    return await _in_thread(service.rematch, game_id, client_address(request))


@router.post(
    "/games/{game_id}/computer",
    response_model=ComputerTurnJSON,
    summary="Let the computer act",
)
async def computer(game_id: GameId, service: Service, request: Request) -> ComputerTurnJSON:
    """Let the computer act (its cube decision, roll and play, or its answer to a double),
    computed in a worker thread. Answers the steps one by one, for the page to show checker
    by checker, and the state after them.

    The turn takes one of the app's evaluation slots, as a hint does, from its client
    address's share (:class:`~backgammon.services.analysis_jobs.EvaluationSlots`): it waits
    for one, and a crowd of turns from one address, or a wait past the slots' limit, answers
    503 ``busy``."""
    slots: EvaluationSlots = request.app.state.evaluations
    client = client_address(request)

    def turn() -> ComputerTurnJSON:
        with slots.slot(client, wait=True):
            return service.computer_turn(game_id)

    return await _in_thread(turn)


@router.post("/games/{game_id}/clock", response_model=ClockCheckJSON, summary="Clock check")
async def clock_check(game_id: GameId, body: ClockCheck, service: Service) -> ClockCheckJSON:
    """The page's heartbeat while it has the game open (every few seconds, at once when its
    clock display reaches zero, and with ``leave`` when it closes). The clock runs only while
    a page is watching; a side whose time is up loses (the answer's ``version`` changes)."""
    return await _in_thread(service.clock_check, game_id, body.page, body.shown, body.leave)


health_router = APIRouter(tags=["server"])


@health_router.get("/health", response_model=Health, summary="Health check")
async def health() -> dict[str, str]:
    """Answers ``{"status": "ok"}`` while the server runs."""
    from backgammon import __version__

    return {"status": "ok", "version": __version__}


__all__ = ["ErrorResponse", "NewGame", "client_address", "get_service", "health_router",
           "router"]
