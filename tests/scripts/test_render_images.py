"""scripts/render_images.py: every icon at its size from the one mark; the palette of
style.css is the mark's; the manifest's icons are served."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

PIL = pytest.importorskip("PIL.Image", reason="Pillow is not installed")
pytest.importorskip("cairosvg", reason="CairoSVG is not installed")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "render_images.py"
STATIC = ROOT / "src" / "backgammon" / "server" / "static"


def load_script():  # type: ignore[no-untyped-def]
    import importlib.util

    spec = importlib.util.spec_from_file_location("render_images", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_script_writes_every_file_at_its_size(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, check=True)
    assert len(done.stdout.splitlines()) == 14  # 8 backgammon's, 6 the checkers page's
    sizes = {"favicon-16.png": (16, 16), "favicon-32.png": (32, 32),
             "icon-128.png": (128, 128), "icon-192.png": (192, 192),
             "icon-512.png": (512, 512), "apple-touch-icon.png": (180, 180),
             "og-image.png": (1200, 630)}
    for name, size in sizes.items():
        with PIL.open(tmp_path / name) as image:
            assert (name, image.size) == (name, size)
            assert image.format == "PNG"
    with PIL.open(tmp_path / "apple-touch-icon.png") as apple:
        assert apple.mode == "RGB"  # flattened: no transparency
        assert apple.getpixel((0, 0)) == (0x6B, 0x42, 0x26)  # the frame colour in the corner
    with PIL.open(tmp_path / "icon-512.png") as icon:
        assert icon.mode == "RGBA" and icon.getpixel((0, 0))[3] == 0  # rounded corner
        assert icon.getpixel((56, 256))[:3] == (0x1F, 0x5C, 0x45)  # the felt
    with PIL.open(tmp_path / "favicon.ico") as ico:
        assert ico.format == "ICO"
        assert sorted(ico.info["sizes"]) == [(16, 16), (32, 32), (48, 48)]
    # the checkers page's, from its own mark
    checkers = {"checkers-favicon-16.png": (16, 16), "checkers-favicon-32.png": (32, 32),
                "checkers-icon-192.png": (192, 192), "checkers-icon-512.png": (512, 512),
                "checkers-apple-touch-icon.png": (180, 180),
                "checkers-og-image.png": (1200, 630)}
    for name, size in checkers.items():
        with PIL.open(tmp_path / name) as image:
            assert (name, image.size, image.format) == (name, size, "PNG")
    with PIL.open(tmp_path / "checkers-icon-512.png") as icon:
        assert icon.getpixel((0, 0))[3] == 0  # rounded corner
        assert icon.getpixel((90, 90))[:3] == (0xD9, 0xB7, 0x7E)  # a light square
        assert icon.getpixel((200, 90))[:3] == (0x1F, 0x5C, 0x45)  # a dark square
    with PIL.open(tmp_path / "checkers-apple-touch-icon.png") as apple:
        assert apple.mode == "RGB" and apple.getpixel((0, 0)) == (0x6B, 0x42, 0x26)
    # the committed icons are the script's output
    for name in [*sizes, *checkers]:
        assert (STATIC / "icons" / name).exists()


def test_style_css_takes_its_board_colours_from_the_mark() -> None:
    colours = load_script().palette()
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    root = css[css.index(":root {"):css.index("}", css.index(":root {"))]
    for variable, value in colours.items():
        found = re.search(rf"{re.escape(variable)}:\s*(#[0-9a-fA-F]{{6}});", root)
        assert found is not None, variable
        assert (variable, found.group(1).lower()) == (variable, value)


def test_manifest_and_its_icons_are_served(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from backgammon.server import ServerSettings, create_app

    with TestClient(create_app(ServerSettings(db_path=tmp_path / "g.sqlite3"))) as client:
        response = client.get("/static/manifest.webmanifest")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/manifest+json")
        manifest = response.json()
        assert manifest["display"] == "standalone" and manifest["name"] == "Backgammon"
        assert manifest["theme_color"] == "#1f5c45"
        for icon in manifest["icons"]:
            got = client.get(icon["src"])
            assert (icon["src"], got.status_code) == (icon["src"], 200)
            assert got.headers["content-type"] == icon["type"]
        for address in ("/", "/checkers"):
            page = client.get(address).text
            for href in re.findall(r'(?:href|content|src)="(/static/[^"]+)"', page):
                assert (href, client.get(href).status_code) == (href, 200)
        checkers = client.get("/static/checkers.webmanifest")
        assert checkers.headers["content-type"].startswith("application/manifest+json")
        assert checkers.json()["name"] == "Checkers" and checkers.json()["start_url"] == "/checkers"
        for icon in checkers.json()["icons"]:
            got = client.get(icon["src"])
            assert (icon["src"], got.status_code, got.headers["content-type"]) == (
                icon["src"], 200, icon["type"])
        assert client.get("/favicon.ico").content[:4] == b"\x00\x00\x01\x00"
        assert json.loads(client.get("/static/manifest.webmanifest").text) == manifest
