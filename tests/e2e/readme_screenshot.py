"""Take the README's screenshot of the board: ``python tests/e2e/readme_screenshot.py``.

Starts the real server on a free port with a throw-away database, plays a few turns against
the computer in Debian's chromium, selects a checker so its destinations light up, and writes
``docs/board.png``. Not a test: run it by hand when the page's look changes.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).parent))
from browser_support import CHROMIUM_ARGS, ServerProcess

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "docs" / "board.png"
TURNS = 4


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        server = ServerProcess(Path(folder) / "games.sqlite3", Path(folder) / "server.log")
        server.start()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                     args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1060, "height": 700})
                settings = {"speed": "instant", "theme": "light", "mode": "computer",
                            "level": "medium", "side": "white", "cube": True}
                page.add_init_script(
                    f"localStorage.setItem('backgammon.settings', "
                    f"{json.dumps(json.dumps(settings))});")
                page.goto(server.url + "/")
                page.click("#new-game-start")
                idle = ("() => document.body.dataset.version"
                        " && !document.body.classList.contains('busy')")
                page.wait_for_function(idle)
                game_id = page.evaluate("location.hash").split("game=")[1]
                turns = 0
                while True:
                    page.wait_for_function(idle)
                    state = server.get(f"/api/games/{game_id}")
                    if state["can"]["roll"]:
                        if turns == TURNS:
                            break
                        page.click("#roll-button")
                    elif state["legal"] and turns == TURNS - 1 and not state["played"]:
                        entry = state["legal"][-1]
                        page.click(f'#board .checker.top[data-color="white"]'
                                   f'[data-point="{entry["from"]}"]')
                        turns += 1
                        break
                    elif state["legal"]:
                        entry = state["legal"][0]
                        page.click(f'#board .checker.top[data-color="white"]'
                                   f'[data-point="{entry["from"]}"]')
                        page.click(f'#board .landing-ring[data-point='
                                   f'"{entry["destinations"][-1]["to"]}"]')
                    elif state["can"]["done"]:
                        page.click("#done-button")
                        turns += 1
                    elif state["can"]["take"]:
                        page.click("#take-button")
                OUTPUT.parent.mkdir(exist_ok=True)
                page.screenshot(path=str(OUTPUT), animations="disabled")
                browser.close()
        finally:
            server.stop()
    print(f"wrote {OUTPUT} ({OUTPUT.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
