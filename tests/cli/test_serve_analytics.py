"""``backgammon serve --analytics-domain DOMAIN [--analytics-script URL]``: the flags reach the
app, analytics stay off without them, and bad values are refused before anything starts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from backgammon.cli import main
from backgammon.server.analytics import Analytics
from serve_support import gc_restored


@pytest.fixture(autouse=True)
def _restore_gc() -> Iterator[None]:
    """``serve`` tunes this process's garbage collector: put it back for the other tests."""
    with gc_restored():
        yield


def served(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> Any:
    """Run ``serve`` with uvicorn's serving replaced; the app it would have served."""
    seen: dict[str, Any] = {}

    def fake_run(self: uvicorn.Server, sockets: Any = None) -> None:
        seen["app"] = self.config.app

    monkeypatch.setattr(uvicorn.Server, "run", fake_run)
    assert main(["serve", "--no-browser", "--port", "0", *argv]) == 0
    return seen["app"]


def test_analytics_are_off_without_the_flags(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    app = served(monkeypatch, ["--db", str(tmp_path / "g.sqlite3")])
    assert app.state.settings.analytics is None
    assert "analytics on" not in capsys.readouterr().err


def test_the_domain_turns_them_on_with_plausibles_script(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = served(monkeypatch, ["--db", str(tmp_path / "g.sqlite3"),
                               "--analytics-domain", "games.example.org"])
    assert app.state.settings.analytics == Analytics("games.example.org",
                                                     "https://plausible.io/js/script.js")
    assert ("analytics on, for games.example.org through https://plausible.io/js/script.js"
            in capsys.readouterr().err)


def test_a_script_of_ones_own(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    app = served(monkeypatch, ["--db", str(tmp_path / "g.sqlite3"), "--analytics-domain",
                               "games.example.org", "--analytics-script",
                               "https://stats.example.net/js/script.js"])
    assert app.state.settings.analytics == Analytics("games.example.org",
                                                     "https://stats.example.net/js/script.js")
    assert app.state.settings.analytics.origin == "https://stats.example.net"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--analytics-script", "https://stats.example.net/js/script.js"],
         "--analytics-script needs --analytics-domain (the site's name in Plausible): "
         "analytics are off without it"),
        (["--analytics-domain", "https://games.example.org"],
         "--analytics-domain: analytics domain 'https://games.example.org': give the site's "
         "host name as Plausible knows it, e.g. games.example.org (no scheme, no path)"),
        (["--analytics-domain", "games.example.org", "--analytics-script", "plausible.io/x.js"],
         "--analytics-script: analytics script 'plausible.io/x.js': it must start with "
         "https:// (or http://)"),
    ],
)
def test_bad_analytics_flags_are_refused(argv: list[str], message: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--no-browser", "--db", str(tmp_path / "g.sqlite3"), *argv]) == 2
    assert capsys.readouterr().err.strip() == f"backgammon serve: {message}"
    assert not (tmp_path / "g.sqlite3").exists()  # refused before anything was opened
