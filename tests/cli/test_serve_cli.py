"""``backgammon serve``: its options, and its refusals (the browser tests run it for real)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from backgammon.cli import main
from backgammon.cli.serve_command import _browser_url
from backgammon.server.runtime import GC_THRESHOLDS


@pytest.fixture(autouse=True)
def _restore_gc() -> Iterator[None]:
    """``serve`` tunes this process's garbage collector: put it back for the other tests."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


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


def test_serve_passes_a_certificate_to_uvicorn_for_https(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: dict[str, Any] = {}

    def fake_run(self: uvicorn.Server, sockets: Any = None) -> None:
        seen["certfile"], seen["keyfile"] = self.config.ssl_certfile, self.config.ssl_keyfile

    monkeypatch.setattr(uvicorn.Server, "run", fake_run)
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_text("certificate")
    key.write_text("key")
    assert main(["serve", "--host", "0.0.0.0", "--port", "8443", "--no-browser", "--db",
                 str(tmp_path / "games.sqlite3"), "--certfile", str(cert),
                 "--keyfile", str(key)]) == 0
    assert seen == {"certfile": str(cert), "keyfile": str(key)}
    err = capsys.readouterr().err
    assert "listening on every address; on your network the game is at https://" in err
    assert ":8443/ (Play online gives the invite link)" in err


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
