"""``backgammon serve``: start the web game on localhost and open it in the browser."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import socket
import sqlite3
import sys
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from backgammon.cli.common import UsageError

if TYPE_CHECKING:
    from backgammon.server.analytics import Analytics

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
    parser.add_argument("--certfile", metavar="PEM", type=Path, default=None,
                        help="serve HTTPS with this certificate (PEM; needs --keyfile). Plain "
                        "HTTP works too: the page's dice hashing needs no secure context")
    parser.add_argument("--keyfile", metavar="PEM", type=Path, default=None,
                        help="the private key of --certfile (PEM)")
    parser.add_argument("--header-timeout", metavar="SECONDS", type=float, default=10.0,
                        help="drop a connection whose request headers have not all arrived "
                        "within this many seconds (default 10)")
    parser.add_argument("--body-timeout", metavar="SECONDS", type=float, default=30.0,
                        help="answer 408 to a request whose body has not all arrived within "
                        "this many seconds (default 30)")
    parser.add_argument("--max-connections", metavar="N", type=int, default=2000,
                        help="connections and requests served at once; more are answered "
                        "503 (default 2000)")
    parser.add_argument("--max-connections-per-address", metavar="N", type=int, default=None,
                        help="connections one client address may hold at once; more are "
                        "answered 503, and the rest of --max-connections is kept for other "
                        "addresses (default: a tenth of --max-connections, 200 of 2000)")
    parser.add_argument("--forwarded-allow-ips", metavar="IPS", default="127.0.0.1",
                        help="behind a reverse proxy: the proxy addresses (comma-separated, "
                        "or *) whose X-Forwarded-For and X-Forwarded-Proto headers give the "
                        "client's address and scheme (default 127.0.0.1: a proxy on this "
                        "machine); no one else's are trusted")
    parser.add_argument("--redis", metavar="URL", default=None,
                        help="keep the online rooms (/api/rooms, both games) in this Redis, "
                        "redis://HOST:PORT/DB, shared by every server process started with "
                        "the same URL, so that several processes behind one proxy serve the "
                        "same rooms (default: in the games database, this process only)")
    parser.add_argument("--claim-thinking-after", metavar="SECONDS", type=float, default=600.0,
                        help="in an untimed online game, how long a player may keep the game "
                        "waiting on its turn, connected or not, before its opponent may claim "
                        "it (default 600: 10 minutes; the player is warned 2 minutes before, "
                        "or halfway for less than 4 minutes)")
    parser.add_argument("--analytics-domain", metavar="DOMAIN", default=None,
                        help="turn on the privacy-friendly analytics hook (off by default): the "
                        "page loads a Plausible-compatible script and reports three events "
                        "(Game Completed, Played Again, Online Game Connected) for the site "
                        "DOMAIN, as named in Plausible")
    parser.add_argument("--analytics-script", metavar="URL", default=None,
                        help="the analytics script (default Plausible's, "
                        "https://plausible.io/js/script.js; a self-hosted Plausible's or a "
                        "proxy's works the same); needs --analytics-domain")
    parser.set_defaults(run=run)


def _browser_url(host: str, port: int, scheme: str = "http") -> str:
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"{scheme}://{shown}:{port}/"


def _lan_address() -> str | None:
    """This machine's address on its local network (the one its default route uses), or None
    when it has none. Connecting a UDP socket sends nothing; it only picks the interface."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.connect(("192.0.2.1", 9))  # TEST-NET-1: never answered, never reached
            address: str = sock.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith(("0.", "127.")) else address


def _tls_files(args: argparse.Namespace) -> tuple[str, str, str | None] | None:
    """The certificate and key files for HTTPS, checked, and the key's passphrase (asked at
    the terminal when the key is encrypted, else None); None for plain HTTP.

    Raises:
        UsageError: only one of them given, a file that does not exist, is a folder or is not
            PEM, a key that is not the certificate's, or an encrypted key whose passphrase is
            wrong or cannot be asked (no terminal).
    """
    if args.certfile is None and args.keyfile is None:
        return None
    if args.certfile is None or args.keyfile is None:
        raise UsageError("--certfile and --keyfile go together: give both for HTTPS")
    for option, path, marker, what in (
            ("--certfile", args.certfile, b"-----BEGIN CERTIFICATE-----", "a PEM certificate"),
            ("--keyfile", args.keyfile, b"PRIVATE KEY-----", "a PEM private key")):
        if path.is_dir():
            raise UsageError(f"{option}: {path} is a folder, not a file")
        if not path.is_file():
            raise UsageError(f"{option}: no such file {path}")
        try:
            text = path.read_bytes()
        except OSError as error:
            raise UsageError(f"{option}: {path}: {error.strerror or error}") from None
        if marker not in text:
            raise UsageError(f"{option}: {path} is not {what}")
    passphrase = _check_tls(args.certfile, args.keyfile)
    return str(args.certfile), str(args.keyfile), passphrase


class _Encrypted(Exception):
    """The key asks for a passphrase."""


def _check_tls(certfile: Path, keyfile: Path,
               ask: Callable[[str], str] | None = None) -> str | None:
    """Load the certificate with its key as the server will, so that a mismatch is said in one
    line before anything starts. An encrypted key's passphrase is asked once (``ask``, by
    default ``getpass`` at a terminal), checked, and returned for the server.

    Raises:
        UsageError: the files do not make a certificate and its key; an encrypted key with
            no terminal to ask its passphrase at, or a wrong passphrase.
    """
    import ssl

    def no_passphrase() -> bytes:
        raise _Encrypted

    def load(password: Callable[[], bytes] | bytes) -> None:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(
            str(certfile), str(keyfile), password=password)

    def refused(error: Exception) -> UsageError:
        reason = getattr(error, "reason", None) or str(error)
        if reason == "KEY_VALUES_MISMATCH":
            reason = "the key is not the certificate's"
        return UsageError(f"--certfile {certfile} with --keyfile {keyfile} cannot serve "
                          f"HTTPS: {reason}")

    try:
        load(no_passphrase)
        return None
    except _Encrypted:
        pass
    except (ssl.SSLError, OSError) as error:
        raise refused(error) from None
    if ask is None:
        if not sys.stdin.isatty():
            raise UsageError(f"--keyfile {keyfile} is encrypted: start the server at a "
                             "terminal to type its passphrase, or give a key without one")
        import getpass

        ask = getpass.getpass
    try:
        passphrase = ask(f"Passphrase of {keyfile}: ")
    except (EOFError, KeyboardInterrupt):
        raise UsageError(f"--keyfile {keyfile} is encrypted: no passphrase given") from None
    try:
        load(passphrase.encode())
    except (ssl.SSLError, OSError, ValueError):
        raise UsageError(f"--keyfile {keyfile}: wrong passphrase") from None
    return passphrase


def _analytics(args: argparse.Namespace) -> Analytics | None:
    """The analytics settings from the flags (a ``backgammon.server.analytics.Analytics``), or
    None when they are off.

    Raises:
        UsageError: ``--analytics-script`` without ``--analytics-domain``, or either one that
            cannot be used (quoted).
    """
    domain = getattr(args, "analytics_domain", None)
    script = getattr(args, "analytics_script", None)
    if domain is None:
        if script is not None:
            raise UsageError("--analytics-script needs --analytics-domain (the site's name in "
                             "Plausible): analytics are off without it")
        return None
    from backgammon.server.analytics import Analytics, AnalyticsConfigError

    try:
        return Analytics(domain) if script is None else Analytics(domain, script)
    except AnalyticsConfigError as exc:
        flag = "--analytics-script" if str(exc).startswith("analytics script") else \
            "--analytics-domain"
        raise UsageError(f"{flag}: {exc}") from None


def _redis_url(url: str | None) -> str | None:
    """The ``--redis`` URL, checked (None when not given).

    Raises:
        UsageError: not a redis:// (or rediss://, unix://) URL.
    """
    if url is None:
        return None
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise UsageError(f"--redis takes redis://HOST:PORT/DB, got {url!r}")
    return url


def _check_port(host: str, port: int) -> None:
    """Raises UsageError, in one line, when ``host:port`` cannot be listened on (another
    server holds it, or the address is not this machine's), before anything is started;
    uvicorn would say so only in its log."""
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise UsageError(f"cannot listen on {host}:{port}: "
                             f"{exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0..65535, got {args.port}")
    if not 0 < args.header_timeout <= 3600:
        raise UsageError(f"--header-timeout must be seconds in (0, 3600], got "
                         f"{args.header_timeout:g}")
    body_timeout = getattr(args, "body_timeout", 30.0)
    if not 0 < body_timeout <= 3600:
        raise UsageError(f"--body-timeout must be seconds in (0, 3600], got {body_timeout:g}")
    if not 1 <= args.max_connections <= 1_000_000:
        raise UsageError(f"--max-connections must be 1..1000000, got {args.max_connections}")
    per_address = args.max_connections_per_address
    if per_address is None:
        per_address = max(1, args.max_connections // 10)
    elif not 1 <= per_address < args.max_connections:
        raise UsageError(f"--max-connections-per-address must be 1..{args.max_connections - 1} "
                         "(below --max-connections, the rest kept for other addresses), got "
                         f"{per_address}")
    _check_port(args.host, args.port)
    tls = _tls_files(args)
    scheme = "http" if tls is None else "https"
    import uvicorn

    from backgammon.server import ServerSettings, create_app
    from backgammon.server.runtime import (
        WS_MAX_SIZE,
        AddressShare,
        header_deadline_protocol,
        raise_open_file_limit,
        tune_gc,
    )
    from gametable.game_store import StoredGameError

    analytics = _analytics(args)
    thinking = getattr(args, "claim_thinking_after", 600.0)
    if not 1.0 <= thinking <= 86_400.0:
        raise UsageError(f"--claim-thinking-after: {thinking:g} is not 1 to 86400 seconds")
    settings = ServerSettings(analytics=analytics, connections_per_address=per_address,
                              redis_url=_redis_url(getattr(args, "redis", None)),
                              claim_thinking_after=thinking, body_timeout=body_timeout)
    if args.db is not None:
        if str(args.db) != ":memory:" and not args.db.parent.is_dir():
            # (the default's folder is made; a path given is taken as typed)
            raise UsageError(f"--db: no such folder {args.db.parent} (make it first)")
        settings = dataclasses.replace(settings, db_path=args.db)
    # the server's own lines (the rooms restored at start, a store that fails) beside
    # uvicorn's, in its layout; uvicorn configures only its own loggers
    logging.basicConfig(format="%(levelname)s:     %(message)s")
    for name in ("gametable", "backgammon", "checkers"):
        logging.getLogger(name).setLevel(logging.INFO)
    try:
        app = create_app(settings)
    except (OSError, sqlite3.Error, StoredGameError) as exc:
        raise UsageError(f"cannot open the games database {settings.db_path}: {exc}") from None
    # Each connection holds a descriptor: room for --max-connections and the files besides.
    raise_open_file_limit(max(4096, 2 * args.max_connections + 256))
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="info",
                            server_header=False,
                            # each address's share of the connections, counted as they
                            # open (a proxy's, trusted below, by the client it names: the
                            # app's ClientShareMiddleware)
                            http=header_deadline_protocol(
                                args.header_timeout,
                                AddressShare(per_address, args.forwarded_allow_ips)),
                            limit_concurrency=args.max_connections,
                            # (each message capped in the transport, inflated or not;
                            # permessage-deflate kept: the views sent are compressed)
                            ws_max_size=WS_MAX_SIZE,
                            proxy_headers=True,
                            forwarded_allow_ips=args.forwarded_allow_ips,
                            ssl_certfile=None if tls is None else tls[0],
                            ssl_keyfile=None if tls is None else tls[1],
                            ssl_keyfile_password=None if tls is None else tls[2])
    server = uvicorn.Server(config)
    tune_gc()  # full collections out of the way of live games (see its docstring)

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
                webbrowser.open(_browser_url(args.host, port, scheme))

        threading.Thread(target=open_when_ready, daemon=True).start()

    print(f"backgammon: saving games in {settings.db_path}", file=sys.stderr)
    if settings.redis_url is not None:
        shown = settings.redis_url.rsplit("@", 1)[-1]  # no password on the terminal
        print(f"backgammon: online rooms shared through Redis at {shown}", file=sys.stderr)
    if settings.analytics is not None:
        print(f"backgammon: analytics on, for {settings.analytics.domain} through "
              f"{settings.analytics.script}", file=sys.stderr)
    if args.host in ("0.0.0.0", "::", "") and args.port:
        address = _lan_address() or "<this machine's address>"
        print(f"backgammon: listening on every address; on your network the game is at "
              f"{scheme}://{address}:{args.port}/ (Play online gives the invite link)",
              file=sys.stderr)
    server.run()
    return 0
