"""``create_app(settings)``: the FastAPI application of the web game.

Routes: the page at ``/`` and its files under ``/static/``; the JSON API under ``/api/``
(:mod:`backgammon.server.api`; any game, American checkers too, at the shared table under
``/api/tables`` (:mod:`gametable.http`); the rules page's worked examples in
:mod:`backgammon.server.rules_api`; rollout jobs in :mod:`backgammon.server.rollouts_api`;
review, hints, explanations and ``.mat`` files in
:mod:`backgammon.server.records_api`; position setup and saved positions in
:mod:`backgammon.server.positions_api`; online rooms of any game at ``/api/rooms`` and
``/ws/rooms`` (:mod:`gametable.online`), and where the old online door's rooms went,
``/api/online/moved`` (:mod:`backgammon.server.moved_api`)); the rules page at ``/rules``;
the checkers page at ``/checkers`` (``static/checkers.html``: American checkers at the
shared table); ``/health``; the OpenAPI docs at ``/docs`` (``/openapi.json``).
Every response carries security headers with a Content-Security-Policy that allows only the
page's own origin (and the analytics script's, when the analytics hook is on:
:mod:`backgammon.server.analytics`); request bodies over the limit are refused with 413, and
bodies that take longer than ``body_timeout`` to arrive with 408.
"""

from __future__ import annotations

import mimetypes
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

from fastapi import FastAPI
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

from backgammon.adapter import RULES as BACKGAMMON
from backgammon.server.analysis_api import ANALYSIS_PATH
from backgammon.server.analysis_api import router as analysis_router
from backgammon.server.analytics import page_with_analytics
from backgammon.server.api import ErrorResponse, health_router, router
from backgammon.server.checkers_api import PDN_PATH
from backgammon.server.checkers_api import router as checkers_router
from backgammon.server.docs import install_docs
from backgammon.server.errors import error_response
from backgammon.server.errors import install as install_errors
from backgammon.server.middleware import (
    BodySizeLimitMiddleware,
    ClientShareMiddleware,
    SecurityHeadersMiddleware,
)
from backgammon.server.moved_api import install_moved
from backgammon.server.positions_api import router as positions_router
from backgammon.server.records_api import IMPORT_PATH
from backgammon.server.records_api import router as records_router
from backgammon.server.rollouts_api import install as install_rollouts
from backgammon.server.rules_api import router as rules_router
from backgammon.server.settings import ServerSettings
from backgammon.server.stats_api import install_stats
from backgammon.services.analysis_jobs import AnalysisJobs, EvaluationSlots
from backgammon.services.room_migration import (
    MigrationReport,
    migrate_rooms,
    migrate_to_redis,
    moved_finder,
)
from backgammon.services.saved_positions import PositionStore
from backgammon.services.session import GameService
from backgammon.services.stats import StatsStore
from checkers.adapter import RULES as CHECKERS
from gametable.game_store import GameStore
from gametable.http import install as install_tables
from gametable.online import install as install_rooms
from gametable.room_store import RoomStore
from gametable.rooms import RoomService
from gametable.service import TableService
from gametable.stats import TableStatsStore
from gametable.stats_http import install_table_stats

#: The page and its ES modules and stylesheet.
STATIC_DIR: Final = Path(__file__).parent / "static"
# The web app manifest's media type (the mimetypes table may not know the extension).
mimetypes.add_type("application/manifest+json", ".webmanifest")


class _StaticFiles(StaticFiles):
    """Static files that the browser revalidates on each load (ETag), so an upgraded server
    never runs with a stale page."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers["Cache-Control"] = "no-cache"
        return response


def create_app(settings: ServerSettings | None = None) -> FastAPI:
    """Build the web game's application.

    Args:
        settings: where games are saved, the body limit and the random generator; the
            defaults (:class:`ServerSettings`) save in the user's data directory.

    Returns:
        A FastAPI (ASGI) app; run it with uvicorn, or test it with Starlette's TestClient.

    Raises:
        StoredGameError: the database file belongs to another schema version.
    """
    settings = settings or ServerSettings()
    store = GameStore(settings.db_path)
    positions = PositionStore(settings.db_path)
    stats = StatsStore(settings.db_path)  # the browsers' records (server/stats_api.py)
    # ... and of the games against the computer at the shared table (checkers)
    table_stats = TableStatsStore(settings.db_path)
    service = GameService(store, rng=settings.rng, dice=settings.dice, now=settings.now,
                          time_controls=settings.time_controls, stats=stats)

    jobs = AnalysisJobs()
    # the table every game shares (gametable): its own door, /api/tables, for both games, its
    # tables in the same store as the local games (one GameStore: it counts what it writes)
    tables = TableService({"backgammon": BACKGAMMON, "checkers": CHECKERS}, store,
                          now=settings.now, time_controls=settings.time_controls)
    # ... and its online rooms, /api/rooms and /ws/rooms, for both games: in the database
    # (restored here), or in Redis, shared by every server process (serve --redis)
    room_store: RoomStore | None = None
    table_rooms: RoomService
    # The rooms backgammon's old online door left in the database move to the table's door
    # first, before it serves (services/room_migration.py; those that cannot stay, logged, in
    # the old store, to be tried again at the next start)
    report: MigrationReport
    if settings.redis_url is not None:
        from gametable.redis_rooms import RedisRoomStore, SharedRoomService

        table_rooms = SharedRoomService(
            {"backgammon": BACKGAMMON, "checkers": CHECKERS}, RedisRoomStore(settings.redis_url),
            now=settings.now, time_controls=settings.time_controls,
            think_after=settings.claim_thinking_after)
        report = migrate_to_redis(settings.db_path, settings.redis_url,
                                  idle_expiry=table_rooms.idle_expiry,
                                  time_controls=settings.time_controls, stats=stats)
    else:
        room_store = RoomStore(settings.db_path)
        report = migrate_rooms(settings.db_path, room_store,
                               time_controls=settings.time_controls, stats=stats)
        table_rooms = RoomService({"backgammon": BACKGAMMON, "checkers": CHECKERS}, room_store,
                                  now=settings.now, time_controls=settings.time_controls,
                                  think_after=settings.claim_thinking_after)
        table_rooms.restore()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await table_rooms.start()
        yield
        await table_rooms.stop()
        jobs.close()
        store.close()
        if room_store is not None:
            room_store.close()
        positions.close()
        stats.close()
        table_stats.close()

    from backgammon import __version__

    # The /docs (Swagger UI) and /redoc pages are served by server/docs.py, their scripts
    # and styles from this server (fastapi-offline's copies), so that they work offline.
    app = FastAPI(
        docs_url=None,
        redoc_url=None,
        title="Backgammon",
        version=__version__,
        description="Play backgammon against the computer or pass & play. "
        "Every action answers with the game's whole state; refused actions answer 4xx "
        'with `{"error": {"code", "message"}}` and change nothing.',
        lifespan=lifespan,
        responses={408: {"model": ErrorResponse, "description": "Request body too slow."},
                   413: {"model": ErrorResponse, "description": "Request body too large."}},
    )
    app.state.games = service
    app.state.analysis_jobs = jobs
    app.state.evaluations = EvaluationSlots(settings.evaluations)
    app.state.store = store
    app.state.positions = positions
    app.state.settings = settings

    app.add_middleware(ClientShareMiddleware, per_client=settings.connections_per_address)
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.max_body_bytes,
                       overrides={IMPORT_PATH: settings.max_upload_bytes,
                                  ANALYSIS_PATH: settings.max_upload_bytes,
                                  PDN_PATH: settings.max_upload_bytes},
                       timeout=settings.body_timeout)
    analytics = settings.analytics  # None: off (no script, no other origin in the CSP)
    app.add_middleware(SecurityHeadersMiddleware,
                       analytics_origin=None if analytics is None else analytics.origin)

    install_errors(app)  # every refusal answers through server/errors.py
    install_docs(app, favicon_url="/static/icons/favicon-32.png")  # /docs, /redoc

    app.include_router(health_router)
    app.include_router(router)
    app.include_router(records_router)
    app.include_router(positions_router)
    app.include_router(analysis_router)
    install_rollouts(app)  # /api/rollouts: rollout jobs with live figures
    install_stats(app, stats)  # /api/stats, /api/start-over
    app.include_router(rules_router)  # the rules page's worked examples
    install_tables(app, tables)  # /api/tables: any game at the shared table
    install_table_stats(app, table_stats)  # /api/stats/tables: its games' records
    install_rooms(app, table_rooms)  # /api/rooms, /ws/rooms: any game between two screens
    app.include_router(checkers_router(CHECKERS))  # the checkers page's review, PDN files
    # /api/online/moved: where the old door's rooms went, for the seats browsers kept there
    install_moved(app, moved_finder(report.moved, table_rooms, kept=report.kept))

    @app.get("/", include_in_schema=False)
    async def index() -> Response:
        if analytics is not None:  # the page with the analytics script tag
            page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
            return HTMLResponse(page_with_analytics(page, analytics),
                                headers={"Cache-Control": "no-cache"})
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/checkers", include_in_schema=False)
    async def checkers_page() -> FileResponse:
        return FileResponse(STATIC_DIR / "checkers.html", headers={"Cache-Control": "no-cache"})

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC_DIR / "icons" / "favicon.ico",
                            media_type="image/vnd.microsoft.icon")

    app.mount("/static", _StaticFiles(directory=STATIC_DIR), name="static")
    return app


__all__ = ["STATIC_DIR", "create_app", "error_response"]
