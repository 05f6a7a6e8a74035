"""scripts/screenshots.py runs and writes its files (one size, to keep it fast)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

PIL = pytest.importorskip("PIL.Image", reason="Pillow is not installed")
pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "screenshots.py"


def test_phone_screenshots_in_both_themes(tmp_path: Path) -> None:
    if not Path(os.environ.get("BACKGAMMON_CHROMIUM", "/usr/bin/chromium")).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    done = subprocess.run([sys.executable, str(SCRIPT), "--sizes", "phone", "--out",
                           str(tmp_path)], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "checkers-phone-dark.png", "checkers-phone-light.png", "phone-dark.png",
        "phone-light.png"]
    with PIL.open(tmp_path / "checkers-phone-dark.png") as checkers:
        assert checkers.size == (390 * 3, 844 * 3)
    light, dark = (PIL.open(tmp_path / f"phone-{t}.png") for t in ("light", "dark"))
    assert light.size == dark.size == (390 * 3, 844 * 3)
    # the themes differ: the page's top-left pixel is the page colour of each
    assert light.convert("RGB").getpixel((5, 5)) != dark.convert("RGB").getpixel((5, 5))


def test_the_checkers_moves_are_the_same_every_time_and_legal() -> None:
    spec = importlib.util.spec_from_file_location("screenshots", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    paths = module.checkers_paths()
    assert paths == module.checkers_paths() and len(paths) == module.CHECKERS_PLIES
    assert paths[-1] == [22, 15, 8]  # White's double jump: Black to move, a capture forced


def test_the_seeded_game_is_the_same_every_time() -> None:
    spec = importlib.util.spec_from_file_location("screenshots", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    first, second = module.played_game(), module.played_game()
    assert first.to_log() == second.to_log()
    game = first.current
    assert str(game.phase) == "move" and str(game.turn) == "white" and game.legal_moves()
