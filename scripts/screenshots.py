"""Store screenshots by script: ``python scripts/screenshots.py [--sizes phone] [--out DIR]``.

1. A game is played by the engine and the computer (Medium on both sides) with seeded dice
   and a seeded generator (:data:`SEED`, or the first seed after it whose game lasts that
   long), stopping when White (the person's side) has rolled on its :data:`TURNS`-th turn.
2. It is written into a fresh SQLite store in the app's own save format (the record the game
   service saves: settings, the match's event log, a version), as a game against the computer.
3. ``backgammon serve`` runs on that store on a free port; headless chromium (Debian's, as the
   browser tests use it) opens the page with that game as the browser's current game, in the
   light and the dark theme, at each size of :data:`SIZES`.
4. ``docs/screenshots/{size}-{theme}.png`` are written; the README's picture is
   ``desktop-light.png``.
5. American checkers too: a pass & play table from the three-move ballot
   :data:`CHECKERS_BALLOT`, then :data:`CHECKERS_PLIES` moves drawn by a seeded generator
   among the legal ones (:func:`checkers_paths`), made through the table's door
   (``/api/tables``); the checkers page opens it as the browser's current game with a piece
   that can move picked up, and ``docs/screenshots/checkers-{size}-{theme}.png`` are written.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from backgammon.ai import ComputerPlayer  # noqa: E402
from backgammon.core.game import Phase  # noqa: E402
from backgammon.core.match import Match  # noqa: E402
from backgammon.core.types import WHITE  # noqa: E402
from gametable.game_store import GameStore  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
SEED = 2024
TURNS = 9
GAME_ID = "screenshot-game"
#: The checkers game's three-move ballot (ACF 126) and how many moves follow it.
CHECKERS_BALLOT = "11-15 23-19 8-11"
CHECKERS_PLIES = 13
#: name -> (CSS width, CSS height, device pixel ratio): a 6.1" phone, a 12.9" tablet, a laptop.
SIZES = {"phone": (390, 844, 3), "tablet": (1024, 1366, 2), "desktop": (1440, 900, 2)}
THEMES = ("light", "dark")
CHROMIUM = os.environ.get("BACKGAMMON_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def played_game(seed: int = SEED, turns: int = TURNS, tries: int = 50) -> Match:
    """A money game played by the computer on both sides, stopped with White to move on its
    ``turns``-th turn (dice thrown): the game of ``seed``, or, where that one ends first (a
    double dropped, say: how the computer plays changes with its nets), of the first of the
    next ``tries - 1`` seeds whose game gets there. Raises RuntimeError if none does."""
    for candidate in range(seed, seed + tries):
        match = _game_to_turn(candidate, turns)
        if match is not None:
            return match
    raise RuntimeError(f"the games with seeds {seed} to {seed + tries - 1} all ended before "
                       f"White's turn {turns}")


def _game_to_turn(seed: int, turns: int) -> Match | None:
    """The game of ``seed`` stopped at White's ``turns``-th turn, or None if it ends first."""
    match = Match(0, cube=True, seed=seed)
    players = {color: ComputerPlayer("medium", random.Random(seed + i))
               for i, color in enumerate(("white", "black"))}
    game = match.current
    white_turns = 0
    for _ in range(400):
        if game.is_over:
            break
        if game.phase is Phase.OPENING:
            game.roll()
        player = players[str(game.turn)]
        if game.phase is Phase.MOVE:
            if game.turn is WHITE:
                white_turns += 1
                if white_turns == turns and game.legal_moves():
                    return match
            game.play(player.choose_play(game))
        elif game.phase is Phase.ROLL:
            if game.can_double() and player.should_double(game):
                game.double()
            else:
                game.roll()
        elif game.phase is Phase.DOUBLE_OFFERED:
            game.take() if player.should_take(game) else game.drop()
    return None


def seed_store(db: Path, match: Match) -> None:
    """Write ``match`` into the store ``db`` as the game service saves a game against the
    computer (the person White, Medium the computer)."""
    settings = {"mode": "computer", "level": "medium", "human": "white", "cube": True,
                "gammons": True, "kind": "single", "length": 0, "time_control": "none"}
    with GameStore(db) as store:
        store.save(GAME_ID, {"settings": settings, "log": match.to_log(), "version": 1})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def serve(db: Path, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    process = subprocess.Popen(
        [sys.executable, "-m", "backgammon", "serve", "--host", "127.0.0.1", "--port",
         str(port), "--no-browser", "--db", str(db)],
        stdout=log.open("wb"), stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/health", timeout=2):
                return process, url
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"the server did not start: see {log}")


def take(url: str, out: Path, sizes: list[str]) -> list[Path]:
    from playwright.sync_api import sync_playwright

    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for size in sizes:
            width, height, scale = SIZES[size]
            for theme in THEMES:
                context = browser.new_context(viewport={"width": width, "height": height},
                                              device_scale_factor=scale,
                                              color_scheme=theme)
                settings = {"theme": theme, "speed": "instant"}
                context.add_init_script(
                    f"localStorage.setItem('backgammon.settings', "
                    f"{json.dumps(json.dumps(settings))});"
                    f"localStorage.setItem('backgammon.game', {json.dumps(GAME_ID)});")
                page = context.new_page()
                page.goto(url + "/")
                page.wait_for_function("() => document.body.dataset.version && "
                                       "!document.body.classList.contains('busy')")
                page.wait_for_selector("#board .checker")
                path = out / f"{size}-{theme}.png"
                page.screenshot(path=str(path), animations="disabled")
                written.append(path)
                context.close()
        browser.close()
    return written


def checkers_paths(seed: int = SEED, plies: int = CHECKERS_PLIES) -> list[list[int]]:
    """The checkers moves after :data:`CHECKERS_BALLOT`: each drawn among the legal moves by
    ``random.Random(seed)`` (the same every time), as paths for the table's ``move`` action."""
    from checkers.game import Game

    game = Game()
    for text in CHECKERS_BALLOT.split():
        game.play(text)
    rng = random.Random(seed)
    paths = []
    for _ in range(plies):
        legal = game.legal_moves()
        if not legal:
            break
        move = rng.choice(legal)
        game.play(move)
        paths.append(list(move.path))
    return paths


def _post(url: str, body: dict[str, object], token: str | None = None) -> dict[str, object]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["X-Table-Token"] = token
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, object] = json.loads(response.read())
        return answer


def checkers_table(url: str) -> dict[str, object]:
    """A pass & play checkers table played through :func:`checkers_paths`; the page's
    ``checkers.table`` record of it."""
    made = _post(url + "/api/tables", {
        "game": "checkers", "settings": {"ballot": CHECKERS_BALLOT}, "time_control": "none",
        "seats": {"black": {"kind": "person"}, "white": {"kind": "person"}}})
    table_id, token = str(made["id"]), str(made["token"])
    side = "white"  # the ballot's three moves leave White to move
    for path in checkers_paths():
        _post(f"{url}/api/tables/{table_id}/actions",
              {"side": side, "action": {"type": "move", "path": path}}, token)
        side = "black" if side == "white" else "white"
    return {"id": table_id, "token": token, "mode": "pass_and_play", "level": "medium",
            "sideChoice": "black", "side": None, "timeControl": "none", "start": None,
            "ballot": CHECKERS_BALLOT}


def take_checkers(url: str, out: Path, sizes: list[str]) -> list[Path]:
    """The checkers page with :func:`checkers_table`'s game, a piece that can move picked up."""
    from playwright.sync_api import sync_playwright

    table = checkers_table(url)
    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for size in sizes:
            width, height, scale = SIZES[size]
            for theme in THEMES:
                context = browser.new_context(viewport={"width": width, "height": height},
                                              device_scale_factor=scale,
                                              color_scheme=theme)
                context.add_init_script(
                    f"localStorage.setItem('backgammon.settings', "
                    f"{json.dumps(json.dumps({'theme': theme}))});"
                    f"localStorage.setItem('checkers.table', {json.dumps(json.dumps(table))});")
                page = context.new_page()
                page.goto(url + "/checkers")
                page.wait_for_function("() => document.body.dataset.ready === '1' && "
                                       "document.body.dataset.state === 'idle'")
                picked = page.get_attribute("#board .ck-piece.movable", "data-square")
                page.click(f'#board .ck-sq[data-square="{picked}"]')
                page.wait_for_timeout(400)  # the pieces have stopped sliding
                path = out / f"checkers-{size}-{theme}.png"
                page.screenshot(path=str(path), animations="disabled")
                written.append(path)
                context.close()
        browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder (default {OUT})")
    parser.add_argument("--sizes", nargs="+", choices=list(SIZES), default=list(SIZES),
                        help="which sizes (default all)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "games.sqlite3"
        seed_store(db, played_game())
        process, url = serve(db, Path(folder) / "server.log")
        try:
            for path in take(url, args.out, args.sizes):
                print(path)
            for path in take_checkers(url, args.out, args.sizes):
                print(path)
        finally:
            process.terminate()
            process.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
