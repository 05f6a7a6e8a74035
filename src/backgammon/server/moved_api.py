"""Where the rooms of backgammon's old online door went (issue 33).

* ``POST /api/online/moved`` (``{"codes": [CODE, ...]}``, at most 64 codes of at most 64
  characters): ``{"moved": {OLD_CODE: NEW_CODE, ...}}``, each code asked whose room the
  server moved to the table's door (``/api/rooms/{NEW_CODE}``) at start
  (:mod:`backgammon.services.room_migration`); rooms kept in the old store, gone, or never
  made are left out. Always 200: the page (``js/seat_migration.js``) asks about every seat
  it kept at the old door, and a seat of a room that ended is no error. A malformed body is
  422 ``invalid_request``.

The old door itself (``/api/online/rooms``, ``/ws/online``) is gone: this is what is left of
it, for the seats browsers kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Body, FastAPI, Request
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MovedAnswer", "MovedRooms", "install_moved", "router"]


class MovedRooms(BaseModel):
    """Codes of the old door's rooms, to learn which moved to the table's door."""

    model_config = ConfigDict(extra="forbid")

    codes: list[Annotated[str, Field(max_length=64)]] = Field(
        max_length=64, description="Room codes of the old door (a browser's kept seats).")


class MovedAnswer(BaseModel):
    """Each code asked whose room the server moved to the table's door: its code there."""

    moved: dict[str, str]


router = APIRouter(prefix="/api/online", tags=["online"])


@router.post("/moved", response_model=MovedAnswer,
             summary="Which old rooms moved to the table's door")
async def moved_rooms(request: Request, body: Annotated[MovedRooms, Body()]) -> MovedAnswer:
    """For each code asked whose room the server moved to the table's door, its code there;
    the others are left out (module docstring)."""
    find: Callable[[str], str | None] = request.app.state.moved_rooms
    moved: dict[str, str] = {}
    for code in dict.fromkeys(body.codes):
        found = find(code)
        if found is not None:
            moved[code] = found
    return MovedAnswer(moved=moved)


def install_moved(app: FastAPI, find: Callable[[str], str | None]) -> None:
    """Add ``POST /api/online/moved`` to ``app``, answered by ``find`` (an old code -> its
    code at the table's door, or None: :func:`backgammon.services.room_migration.
    moved_finder`)."""
    app.state.moved_rooms = find
    app.include_router(router)
