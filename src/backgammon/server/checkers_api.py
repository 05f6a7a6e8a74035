"""The checkers page's own endpoints, beside the shared table's door (``/api/tables``).

The server composes the games it plays in ``app.py`` alone (``tests/test_layering.py``), so
this module imports no game: ``router(page)`` takes what the checkers plug-in offers the page
(:class:`CheckersPage`, ``checkers.adapter.RULES``).

* ``GET /api/checkers/tables/{id}/review`` (``X-Table-Token``): every position of the game at
  a checkers table, to step through (the frames' shape: ``checkers.adapter.review_frames``).
* ``POST /api/checkers/pdn`` ``{"text": "...", "name": "games.pdn"}``: a PDN file read game by
  game into the same frames (``checkers.adapter.CheckersRules.open_pdn``); a game with a bad
  move keeps the moves read before it and says the game, move number, side and reason in
  words while the file's other games open. Nothing is stored. The body may be as large as
  ``ServerSettings.max_upload_bytes`` (the app's body limit for :data:`PDN_PATH`), the text
  :data:`MAX_PDN_CHARS` characters; the reading runs in a worker thread, :data:`READS_AT_ONCE`
  at once (the others wait without holding a thread).
* ``GET /api/checkers/ballots``: the three-move ballots a game may start from (the ACF's deck).
* ``GET /api/checkers/rules/examples``: the rules page's worked examples, worked out by the
  engine.
* ``GET /checkers/rules``: the rules page (``static/checkers_rules.html``).

Refusals answer ``{"error": {"code", "message"}}`` (422 ``pdn_unreadable``, ``no_games``;
the table's 403 and 404).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Final, Protocol

import anyio
import anyio.to_thread
from fastapi import APIRouter, Header, Request
from fastapi import Path as PathParam
from fastapi.responses import FileResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from gametable.errors import ActionRefused
from gametable.seam import GameInProgress
from gametable.service import TableService

#: The path of the PDN reader (the app lets its bodies be as large as an upload).
PDN_PATH: Final = "/api/checkers/pdn"
#: The longest PDN text read, in characters.
MAX_PDN_CHARS: Final = 2_000_000
#: PDN files read at once, from every client together.
READS_AT_ONCE: Final = 2
#: The checkers rules page.
RULES_PAGE: Final = Path(__file__).parent / "static" / "checkers_rules.html"

TableId = Annotated[str, PathParam(min_length=8, max_length=40, pattern=r"^[A-Za-z0-9_-]+$")]
Token = Annotated[str, Header(alias="X-Table-Token", min_length=8, max_length=80)]


class CheckersPage(Protocol):
    """What the checkers plug-in gives the page's endpoints (``checkers.adapter.RULES``)."""

    name: str

    def review(self, game: GameInProgress) -> dict[str, Any]:
        """The frames of a game in progress at a table."""
        ...

    def open_pdn(self, text: str) -> dict[str, Any]:
        """Every game of a PDN text, as frames (raises ``ActionRefused``)."""
        ...

    def ballot_list(self) -> list[dict[str, Any]]:
        """The three-move ballots a game may start from."""
        ...

    def rule_examples(self) -> list[dict[str, Any]]:
        """The rules page's worked examples."""
        ...


class PdnRequest(BaseModel):
    """A PDN text to open (and the file's name, for messages)."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(max_length=MAX_PDN_CHARS, description="the PDN file's text")
    name: str | None = Field(None, max_length=255, description="the file's name")


def _limiter(request: Request) -> anyio.CapacityLimiter:
    state = request.app.state
    limiter: anyio.CapacityLimiter | None = getattr(state, "pdn_readers", None)
    if limiter is None:
        limiter = state.pdn_readers = anyio.CapacityLimiter(READS_AT_ONCE)
    return limiter


def router(page: CheckersPage) -> APIRouter:
    """The checkers page's routes over the plug-in's ``page``."""
    api = APIRouter(tags=["checkers"])

    @api.get("/api/checkers/tables/{table_id}/review", summary="Every position of a game")
    async def table_review(table_id: TableId, token: Token, request: Request) -> dict[str, Any]:
        """The frames of the game at a checkers table (its token in ``X-Table-Token``):
        ``{"start", "first", "moves": [{"text", "path", "captures", "side", "number"}],
        "boards": [32 letters per position]}``. Refusals: 404 ``not_found``, 403
        ``not_your_table``, 422 ``unknown_game`` for a table of another game."""
        service: TableService = request.app.state.tables

        def read() -> dict[str, Any]:
            table = service.read(table_id, token)
            if table.rules.name != page.name:
                raise ActionRefused(
                    "unknown_game", f"table {table_id} plays {table.rules.name}, not {page.name}"
                )
            return page.review(table.game)

        return await anyio.to_thread.run_sync(read)

    @api.post(PDN_PATH, summary="Open a PDN file",
              responses={422: {"description": "No game in the text, or text not readable."}})
    async def open_pdn(body: PdnRequest, request: Request) -> Any:
        """Read every game of a PDN file; nothing is stored. ``{"name", "count", "games":
        [{"number", "line", "title", "tags", "result", "ok", "error", ...frames}],
        "left_out"}``; a game's ``error`` is None or ``{"message", "line", "move_number",
        "side", "move", "reason"}``."""
        try:
            answer = await anyio.to_thread.run_sync(
                page.open_pdn, body.text, limiter=_limiter(request)
            )
        except ActionRefused as error:
            where = f"{body.name}: " if body.name else ""
            return JSONResponse(
                {"error": {"code": error.code, "message": f"{where}{error}"}}, status_code=422
            )
        answer["name"] = body.name
        return answer

    @api.get("/api/checkers/ballots", summary="The three-move ballots")
    async def ballots() -> dict[str, Any]:
        """``{"ballots": [{"key", "number", "moves", "name", "label"}]}``: the openings of the
        ACF's three-move deck, in ACF order; ``key`` is what the table's ``ballot`` setting
        takes (or ``"random"``)."""
        return {"ballots": page.ballot_list()}

    @api.get("/api/checkers/rules/examples", summary="The rules page's worked examples")
    async def examples() -> dict[str, Any]:
        """``{"examples": [{"id", "title", "fen", "board", "turn", "legal", "shown",
        "outcome", "caption"}]}``: each position worked out by the engine."""
        return {"examples": await anyio.to_thread.run_sync(page.rule_examples)}

    @api.get("/checkers/rules", include_in_schema=False)
    async def rules_page() -> FileResponse:
        return FileResponse(RULES_PAGE, headers={"Cache-Control": "no-cache"})

    return api


__all__ = ["MAX_PDN_CHARS", "PDN_PATH", "READS_AT_ONCE", "RULES_PAGE", "CheckersPage", "router"]
