"""``backgammon serve``: its options, and its refusals (the browser tests run it for real)."""

from __future__ import annotations

import asyncio
import gc
import json
import shutil
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from backgammon.cli import main
from backgammon.cli.common import UsageError
from backgammon.cli.serve_command import _browser_url, _check_tls
from backgammon.server.runtime import GC_THRESHOLDS
from serve_support import gc_restored


@pytest.fixture(autouse=True)
def _restore_gc() -> Iterator[None]:
    """``serve`` tunes this process's garbage collector: put it back for the other tests."""
    with gc_restored():
        yield


def test_serve_builds_the_app_on_the_database_given(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: dict[str, Any] = {}

    def fake_run(self: uvicorn.Server, sockets: Any = None) -> None:
        seen["host"], seen["port"] = self.config.host, self.config.port
        seen["app"] = self.config.app
        seen["gc"] = gc.get_threshold(), gc.get_freeze_count()

    monkeypatch.setattr(uvicorn.Server, "run", fake_run)
    db = tmp_path / "mine.sqlite3"
    assert main(["serve", "--host", "0.0.0.0", "--port", "8123", "--no-browser",
                 "--db", str(db)]) == 0
    assert (seen["host"], seen["port"]) == ("0.0.0.0", 8123)
    assert seen["app"].state.store.path == str(db)
    # tune_gc ran before serving: the start-up heap frozen, full collections 10x rarer.
    thresholds, frozen = seen["gc"]
    assert thresholds == GC_THRESHOLDS == (700, 10, 100)
    assert frozen > 10_000  # the imported framework and the app
    assert db.exists()
    assert f"saving games in {db}" in capsys.readouterr().err
    assert seen["app"].state.rooms.service.think_after == 600.0  # the default: 10 minutes
    assert main(["serve", "--port", "8123", "--no-browser", "--db", str(db),
                 "--claim-thinking-after", "90"]) == 0
    assert seen["app"].state.rooms.service.think_after == 90.0


def test_serve_passes_a_certificate_to_uvicorn_for_https(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: dict[str, Any] = {}

    def fake_run(self: uvicorn.Server, sockets: Any = None) -> None:
        seen["certfile"], seen["keyfile"] = self.config.ssl_certfile, self.config.ssl_keyfile

    monkeypatch.setattr(uvicorn.Server, "run", fake_run)
    cert, key = _self_signed(tmp_path)
    assert main(["serve", "--host", "0.0.0.0", "--port", "8443", "--no-browser", "--db",
                 str(tmp_path / "games.sqlite3"), "--certfile", str(cert),
                 "--keyfile", str(key)]) == 0
    assert seen == {"certfile": str(cert), "keyfile": str(key)}
    err = capsys.readouterr().err
    assert "listening on every address; on your network the game is at https://" in err
    assert ":8443/ (Play online gives the invite link)" in err


def _self_signed(folder: Path, name: str = "") -> tuple[Path, Path]:
    """A self-signed certificate and its key, made by the openssl command (skips without it)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed: no certificate to test HTTPS with")
    cert, key = folder / f"cert{name}.pem", folder / f"key{name}.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=localhost"],
                   check=True, capture_output=True)
    return cert, key


def test_serve_refuses_files_that_cannot_serve_https(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cert, key = _self_signed(tmp_path)
    _, other_key = _self_signed(tmp_path, "2")
    match = tmp_path / "match.mat"
    match.write_text(" 1 point match\n")
    for certfile, keyfile, message in (
            (match, key, f"--certfile: {match} is not a PEM certificate"),
            (cert, match, f"--keyfile: {match} is not a PEM private key"),
            (cert, cert, f"--keyfile: {cert} is not a PEM private key"),
            (cert, other_key, f"--certfile {cert} with --keyfile {other_key} cannot serve "
                              "HTTPS: the key is not the certificate's")):
        assert main(["serve", "--no-browser", "--db", str(tmp_path / "g.sqlite3"),
                     "--certfile", str(certfile), "--keyfile", str(keyfile)]) == 2
        assert capsys.readouterr().err.strip() == f"backgammon serve: {message}"
    # a folder; an encrypted key with no terminal to ask its passphrase at (the tests' input)
    encrypted = tmp_path / "encrypted.pem"
    subprocess.run(["openssl", "rsa", "-in", str(key), "-aes256", "-passout", "pass:abc",
                    "-out", str(encrypted)], check=True, capture_output=True)
    for certfile, keyfile, message in (
            (tmp_path, key, f"--certfile: {tmp_path} is a folder, not a file"),
            (cert, encrypted, f"--keyfile {encrypted} is encrypted: start the server at a "
                              "terminal to type its passphrase, or give a key without one")):
        assert main(["serve", "--no-browser", "--db", str(tmp_path / "g.sqlite3"),
                     "--certfile", str(certfile), "--keyfile", str(keyfile)]) == 2
        assert capsys.readouterr().err.strip() == f"backgammon serve: {message}"
    # at a terminal the passphrase is asked once and checked before the server starts
    assert _check_tls(cert, encrypted, ask=lambda prompt: "abc") == "abc"
    with pytest.raises(UsageError, match=f"--keyfile {encrypted}: wrong passphrase"):
        _check_tls(cert, encrypted, ask=lambda prompt: "wrong")
    assert _check_tls(cert, key, ask=lambda prompt: pytest.fail("asked")) is None


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "--port", "70000", "--no-browser"], "--port must be 0..65535, got 70000"),
        (["serve", "--no-browser", "--certfile", "cert.pem"],
         "--certfile and --keyfile go together: give both for HTTPS"),
        (["serve", "--no-browser", "--keyfile", "key.pem"],
         "--certfile and --keyfile go together: give both for HTTPS"),
        (["serve", "--no-browser", "--certfile", "/nonexistent/cert.pem", "--keyfile",
          "/nonexistent/key.pem"], "--certfile: no such file /nonexistent/cert.pem"),
        (["serve", "--no-browser", "--claim-thinking-after", "0"],
         "--claim-thinking-after: 0 is not 1 to 86400 seconds"),
        (["serve", "--no-browser", "--body-timeout", "0"],
         "--body-timeout must be seconds in (0, 3600], got 0"),
        (["serve", "--no-browser", "--db", "/nonexistent/dir/games.sqlite3"],
         "--db: no such folder /nonexistent/dir (make it first)"),
    ],
)
def test_serve_refuses_bad_options(argv: list[str], message: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == f"backgammon serve: {message}"


def test_serve_refuses_a_file_that_is_not_a_games_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database " * 300)
    assert main(["serve", "--no-browser", "--db", str(notes)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"backgammon serve: cannot open the games database {notes}: ")
    assert "is not a games database" in err


def test_browser_url() -> None:
    assert _browser_url("127.0.0.1", 8000) == "http://localhost:8000/"
    assert _browser_url("0.0.0.0", 80) == "http://localhost:80/"
    assert _browser_url("192.0.2.7", 8000) == "http://192.0.2.7:8000/"
    assert _browser_url("::1", 8000) == "http://[::1]:8000/"
    assert _browser_url("192.0.2.7", 8443, "https") == "https://192.0.2.7:8443/"


def test_a_compressed_websocket_frame_is_not_inflated_past_the_transport_limit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A 1 MiB message of spaces, compressed (permessage-deflate) to about a kilobyte on the
    wire, sent to the server ``serve`` builds: the transport stops inflating it at its limit
    and closes the connection (1009, message too big), where it inflated up to 16 MiB and
    handed the whole to the app."""
    websockets_client = pytest.importorskip("websockets.sync.client")
    from websockets.exceptions import ConnectionClosedError

    from backgammon.server.runtime import WS_MAX_SIZE
    from gametable.wire import MAX_MESSAGE_BYTES

    built: list[uvicorn.Server] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: built.append(self))
    assert main(["serve", "--port", "0", "--no-browser", "--db",
                 str(tmp_path / "games.sqlite3")]) == 0
    server = built[0]
    assert server.config.ws_max_size == WS_MAX_SIZE == 4 * MAX_MESSAGE_BYTES
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        port = int(server.servers[0].sockets[0].getsockname()[1])
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/rooms",
                                         data=b'{"game": "backgammon", "name": "Ann"}',
                                         method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            room = json.loads(response.read())
        uri = f"ws://127.0.0.1:{port}/ws/rooms/{room['code']}"
        with websockets_client.connect(uri, compression="deflate", open_timeout=10) as ws:
            assert [e.name for e in ws.protocol.extensions] == ["permessage-deflate"]
            ws.send(json.dumps({"type": "hello", "token": room["token"]}))
            assert json.loads(ws.recv(timeout=10))["type"] == "view"
            # over the app's limit, under the transport's: refused in words, still connected
            ws.send(json.dumps({"type": "state", "pad": " " * 2 * MAX_MESSAGE_BYTES}))
            error = json.loads(ws.recv(timeout=10))
            assert (error["type"], error["code"]) == ("error", "too_large")
            ws.send(json.dumps({"type": "state", "pad": " " * (1 << 20)}))
            with pytest.raises(ConnectionClosedError) as closed:
                ws.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    finally:
        server.should_exit = True
        thread.join(10)


def _http_get(port: int, path: str, source: str) -> bytes:
    """A GET from the client address ``source`` (a loopback address), the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10,
                                  source_address=(source, 0)) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_one_address_cannot_take_every_connection(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    """One address opens connections and sends nothing (slow clients): past its share it is
    refused at once (503 ``too_many_connections``), and another address is still served,
    where the whole --max-connections was taken and every newcomer answered 503."""
    built: list[uvicorn.Server] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: built.append(self))
    assert main(["serve", "--port", "0", "--no-browser", "--db", str(tmp_path / "g.sqlite3"),
                 "--max-connections", "12", "--max-connections-per-address", "6"]) == 0
    server = built[0]
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    slow: list[socket.socket] = []
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        port = int(server.servers[0].sockets[0].getsockname()[1])
        for _ in range(12):
            slow.append(socket.create_connection(("127.0.0.1", port), timeout=10,
                                                 source_address=("127.0.0.2", 0)))
        refused = _http_get(port, "/health", "127.0.0.2")
        assert refused.startswith(b"HTTP/1.1 503")
        body = json.loads(refused.split(b"\r\n\r\n", 1)[1])
        assert body == {"error": {
            "code": "too_many_connections",
            "message": "your address has 6 connections open, its most: close some and try "
                       "again"}}
        served = _http_get(port, "/health", "127.0.0.3")
        assert served.startswith(b"HTTP/1.1 200"), served[:200]
    finally:
        for sock in slow:
            sock.close()
        server.should_exit = True
        thread.join(10)


@pytest.mark.parametrize(("argv", "message"), [
    (["--max-connections", "10", "--max-connections-per-address", "10"],
     "--max-connections-per-address must be 1..9 (below --max-connections, the rest kept for "
     "other addresses), got 10"),
    (["--max-connections-per-address", "0"],
     "--max-connections-per-address must be 1..1999 (below --max-connections, the rest kept "
     "for other addresses), got 0"),
])
def test_the_share_of_one_address_leaves_a_reserve(argv: list[str], message: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--no-browser", *argv]) == 2
    assert capsys.readouterr().err.strip() == f"backgammon serve: {message}"


def test_serve_says_in_one_line_when_its_port_is_taken(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        assert main(["serve", "--no-browser", "--port", str(port),
                     "--db", str(tmp_path / "games.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert err == f"backgammon serve: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    assert not (tmp_path / "games.sqlite3").exists()  # refused before anything was opened
