"""``backgammon serve``: start the web game on localhost and open it in the browser."""

from __future__ import annotations

import argparse
import sqlite3
import sys
import threading
import webbrowser
from pathlib import Path

from backgammon.cli.common import UsageError

#: Where ``serve`` listens by default: this machine only. (Not imported from the server
#: package, so that other subcommands do not load the web framework.)
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "serve",
        help="play in the browser: start the web game and open it",
        description="Start the web game (vs the computer or pass & play) and open it in the "
        "browser. Games are saved in SQLite after every action, so a reload or a restart "
        "of the server keeps them.",
    )
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"address to listen on (default {DEFAULT_HOST}: this machine only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port to listen on (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--no-browser", action="store_true",
                        help="do not open a browser window")
    parser.add_argument("--db", metavar="PATH", type=Path, default=None,
                        help="the SQLite file of saved games (default: games.sqlite3 in the "
                        "user's data directory)")
    parser.set_defaults(run=run)


def _browser_url(host: str, port: int) -> str:
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0..65535, got {args.port}")
    import uvicorn

    from backgammon.server import ServerSettings, create_app
    from backgammon.services.store import StoredGameError

    settings = ServerSettings() if args.db is None else ServerSettings(db_path=args.db)
    try:
        app = create_app(settings)
    except (OSError, sqlite3.Error, StoredGameError) as exc:
        raise UsageError(f"cannot open the games database {settings.db_path}: {exc}") from None
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="info",
                            server_header=False)
    server = uvicorn.Server(config)

    if not args.no_browser:
        def open_when_ready() -> None:
            # Wait until uvicorn listens (it knows the real port when --port 0 was given).
            while not server.started and not server.should_exit:
                threading.Event().wait(0.05)
            if server.started:
                port = args.port
                for listener in server.servers:
                    for sock in listener.sockets:
                        port = sock.getsockname()[1]
                webbrowser.open(_browser_url(args.host, port))

        threading.Thread(target=open_when_ready, daemon=True).start()

    print(f"backgammon: saving games in {settings.db_path}", file=sys.stderr)
    server.run()
    return 0
