"""What the browser tests share: the real server in a subprocess, Debian's chromium, helpers
that read the page and the API.

(Not a conftest.py: a second module named ``conftest`` would shadow ``tests/conftest.py`` for
the modules that import from it.)

Chromium comes from Debian (``apt-get install -y chromium``; ``scripts/test.sh`` installs it);
Playwright's own browser download is not used. When chromium or Playwright is missing, the tests
skip and say so.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

#: Where screenshots and logs of the browser tests go (ignored by git).
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
#: Debian's chromium, or another one named by $BACKGAMMON_CHROMIUM.
CHROMIUM_CANDIDATES = ("chromium", "chromium-browser")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def chromium_path() -> str:
    """The chromium executable; skips the test with instructions when there is none."""
    named = os.environ.get("BACKGAMMON_CHROMIUM")
    if named:
        return named
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    pytest.skip("Debian's chromium is not installed: run `apt-get install -y chromium` "
                "(scripts/test.sh does it) or set BACKGAMMON_CHROMIUM")


def launched_chromium(extra_args: tuple[str, ...] = ()) -> Iterator[Any]:
    """Debian's chromium under Playwright, headless, with CHROMIUM_ARGS (and ``extra_args``);
    a generator for a module-scoped ``browser`` fixture to ``yield from``. Skips the test when
    Playwright or chromium is missing."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    executable = chromium_path()
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, args=[*CHROMIUM_ARGS, *extra_args]
        )
        yield launched
        launched.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ServerProcess:
    """``backgammon serve`` in a subprocess on a free port with its own database.

    Args:
        db_path: the SQLite file (kept across :meth:`restart`).
        log_path: where the server's output goes.
        args: more options for ``serve`` (e.g. ``["--analytics-domain", "example.org"]``).
    """

    def __init__(self, db_path: Path, log_path: Path, args: Sequence[str] = ()) -> None:
        self.db_path = db_path
        self.log_path = log_path
        self.args = list(args)
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "backgammon", "serve", "--host", "127.0.0.1",
             "--port", str(self.port), "--no-browser", "--db", str(self.db_path), *self.args],
            stdout=log, stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: see {self.log_path}")
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=1) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        raise RuntimeError(f"the server did not answer /health in {timeout} s")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.url}{path}", timeout=10) as response:
            return json.loads(response.read())

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        """POST ``body`` as JSON; a 503 ``busy`` (every evaluation slot of this address taken,
        as when the page asks for the computer's turn too) is asked again, as a page does,
        up to 20 times a second apart."""
        data = json.dumps(body or {}).encode()
        for attempt in range(20):
            request = urllib.request.Request(
                f"{self.url}{path}", data=data, method="POST",
                headers={"content-type": "application/json"},
            )
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as error:
                if error.code != 503 or attempt == 19:
                    raise
                answer = json.loads(error.read() or b"{}")
                if answer.get("error", {}).get("code") != "busy":
                    raise
            time.sleep(1.0)
        raise AssertionError("unreachable")


# --------------------------------------------------------------------------------------------
# Reading the hints panel

def served(tmp_path_factory: pytest.TempPathFactory, name: str, args: Sequence[str] = (),
           env: dict[str, str] | None = None) -> Iterator[ServerProcess]:
    """A started server on a database of its own, its output in ``ARTIFACTS/<name>.log`` (with
    ``env`` set while it starts); a generator for a module-scoped ``server`` fixture to
    ``yield from``, which stops the server after the module."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    process = ServerProcess(tmp_path_factory.mktemp(name) / "games.sqlite3",
                            ARTIFACTS / f"{name}.log", args)
    with pytest.MonkeyPatch.context() as patch:
        for key, value in (env or {}).items():
            patch.setenv(key, value)
        process.start()
    try:
        yield process
    finally:
        process.stop()



def ranked_rows(page: Any) -> list[list[str]]:
    """The ranked plays of the hints panel, each row's cells as text."""
    rows: list[list[str]] = page.eval_on_selector_all(
        "#hints-ranked tr[data-play]",
        "rows => rows.map(r => [...r.children].map(c => c.textContent))")
    return rows


def expected_rows(answer: dict[str, Any]) -> list[list[str]]:
    """The rows the panel draws for an evaluation (the server's answer), its numbers written
    as the page writes them (JavaScript's toFixed writes -0 as 0): the plays searched deepest
    first, then each shallower depth, each depth best first, with its depth."""
    def pct(x: float) -> str:
        return f"{x + 0.0:.1f}%"

    rows = []
    plays = sorted(answer["plays"], key=lambda play: (-play["ply"], -play["equity"]))
    for i, play in enumerate(plays):
        p = play["probs"]
        rows.append([str(i + 1), play["play"], f"{play['ply']}-ply",
                     f"{play['equity'] + 0.0:+.3f}",
                     f"{play['diff'] + 0.0:.3f}" if i else "", pct(p["win"]), pct(p["win_gammon"]),
                     pct(p["win_backgammon"]), pct(p["lose_gammon"]),
                     pct(p["lose_backgammon"])])
    return rows


def mat_turns(history: list[dict[str, Any]]) -> list[int | None]:
    """Each line's turn as a .mat numbers it: White's action opens a line, Black's fills its
    right column (or opens one, its left column empty); each game from 1."""
    turns: list[int | None] = []
    game, turn, right = None, 0, True
    for entry in history:
        if entry["game"] != game:
            game, turn, right = entry["game"], 0, True
        if entry["kind"] in ("game", "result"):
            turns.append(None)
        elif entry["color"] == "white" or right:
            turn += 1
            right = entry["color"] != "white"
            turns.append(turn)
        else:
            right = True
            turns.append(turn)
    return turns


def console_errors(page: Any) -> list[str]:
    """Every console error the page logs from now on (a list that fills as they come)."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return errors


__all__ = ["ARTIFACTS", "CHROMIUM_ARGS", "ServerProcess", "chromium_path", "console_errors",
           "expected_rows", "free_port", "mat_turns", "ranked_rows"]
