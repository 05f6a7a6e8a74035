"""Render the app's icons and social card from the one mark, ``server/static/mark.svg``.

No browser in the loop: CairoSVG rasterises the SVG and Pillow writes the files.

    python scripts/render_images.py              # writes src/backgammon/server/static/icons/
    python scripts/render_images.py --out DIR    # somewhere else
    python scripts/render_images.py --palette    # the board colours sampled from the mark

Files (square PNGs unless said): ``favicon-16.png``, ``favicon-32.png``; ``icon-128.png``,
``icon-192.png``, ``icon-512.png`` (the web app manifest's); ``apple-touch-icon.png`` at 180,
flattened onto the board's frame colour (iOS draws no transparency); ``favicon.ico`` holding
the 16, 32 and 48 px renders; ``og-image.png``, 1200x630, the mark on a social card.

The checkers page has its own mark, ``server/static/checkers_mark.svg`` (a corner of the board
with a white man and a black king, in the same colours), rendered beside them with the prefix
``checkers-``: ``checkers-favicon-16.png``, ``checkers-favicon-32.png``,
``checkers-icon-192.png``, ``checkers-icon-512.png`` (``checkers.webmanifest``'s),
``checkers-apple-touch-icon.png`` and ``checkers-og-image.png``.

The palette: each element of the mark with an ``id`` is a CSS variable of ``style.css``'s
light theme (``--frame``, ``--felt``, ...; :data:`PALETTE` says which attribute).
``--palette`` prints them as CSS; paste them into ``:root`` after changing the mark.
``tests/scripts/test_render_images.py`` checks the two agree.
"""

from __future__ import annotations

import argparse
import io
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from xml.sax.saxutils import escape

import cairosvg
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "src" / "backgammon" / "server" / "static"
MARK = STATIC / "mark.svg"
CHECKERS_MARK = STATIC / "checkers_mark.svg"
OUT = STATIC / "icons"

#: CSS variable -> (element id in the mark, attribute).
PALETTE = {
    "--frame": ("frame", "fill"),
    "--felt": ("felt", "fill"),
    "--point-a": ("point-a", "fill"),
    "--point-b": ("point-b", "fill"),
    "--white-checker": ("white-checker", "fill"),
    "--white-edge": ("white-checker", "stroke"),
    "--black-checker": ("black-checker", "fill"),
    "--black-edge": ("black-checker", "stroke"),
}
SQUARES = {"favicon-16.png": 16, "favicon-32.png": 32, "icon-128.png": 128,
           "icon-192.png": 192, "icon-512.png": 512}
APPLE_SIZE = 180
ICO_SIZES = (16, 32, 48)
CARD_SIZE = (1200, 630)
CARD_TITLE = "Backgammon"
CARD_LINES = ("In the browser or the terminal,", "against a computer that taught",
              "itself by self-play.")
CHECKERS_PREFIX = "checkers-"
CHECKERS_SQUARES = {"favicon-16.png": 16, "favicon-32.png": 32, "icon-192.png": 192,
                    "icon-512.png": 512}
CHECKERS_TITLE = "Checkers"
CHECKERS_LINES = ("American checkers in the browser:", "against the computer at four levels,",
                  "pass & play, or a friend online.")


def palette(mark: Path = MARK) -> dict[str, str]:
    """The colours of :data:`PALETTE` read from ``mark``.

    Raises:
        ValueError: an element or attribute of :data:`PALETTE` missing from the mark.
    """
    tree = ET.parse(mark)
    by_id = {el.get("id"): el for el in tree.iter() if el.get("id")}
    colours = {}
    for variable, (element, attribute) in PALETTE.items():
        node = by_id.get(element)
        value = None if node is None else node.get(attribute)
        if value is None:
            raise ValueError(f"{mark}: no {attribute} on an element with id {element!r} "
                             f"(for {variable})")
        colours[variable] = value.lower()
    return colours


def render(svg: bytes, width: int, height: int | None = None) -> Image.Image:
    """``svg`` rasterised at ``width`` x ``height`` pixels (RGBA)."""
    png = cairosvg.svg2png(bytestring=svg, output_width=width, output_height=height or width)
    return Image.open(io.BytesIO(png)).convert("RGBA")


def flatten(image: Image.Image, colour: str) -> Image.Image:
    """``image`` composited onto an opaque ``colour`` (``#rrggbb``): RGB, no alpha."""
    back = Image.new("RGBA", image.size, colour)
    return Image.alpha_composite(back, image).convert("RGB")


def card(mark: bytes, colours: dict[str, str], title: str = CARD_TITLE,
         words: tuple[str, ...] = CARD_LINES) -> Image.Image:
    """The 1200x630 social card: the mark on the felt, the name and a line beside it."""
    width, height = CARD_SIZE
    lines = "".join(
        f'<text x="520" y="{360 + 48 * i}" font-size="34" fill="#f1e6d2">{escape(text)}</text>'
        for i, text in enumerate(words))
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
           f'<rect width="{width}" height="{height}" fill="{colours["--frame"]}"/>'
           f'<rect x="24" y="24" width="{width - 48}" height="{height - 48}" rx="36" '
           f'fill="{colours["--felt"]}"/>'
           f'<text x="516" y="270" font-family="DejaVu Sans, sans-serif" font-size="84" '
           f'font-weight="bold" fill="#f8f5ec">{escape(title)}</text>'
           f'<g font-family="DejaVu Sans, sans-serif">{lines}</g></svg>')
    image = render(svg.encode(), width, height)
    image.alpha_composite(render(mark, 380), (80, 125))
    return flatten(image, colours["--felt"])


def write_all(out: Path, mark: Path = MARK) -> list[Path]:
    """Write every file into ``out`` (created if needed); returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    svg = mark.read_bytes()
    colours = palette(mark)
    written = []
    for name, size in SQUARES.items():
        render(svg, size).save(out / name, optimize=True)
        written.append(out / name)
    flatten(render(svg, APPLE_SIZE), colours["--frame"]).save(out / "apple-touch-icon.png")
    written.append(out / "apple-touch-icon.png")
    renders = [render(svg, size) for size in ICO_SIZES]
    renders[-1].save(out / "favicon.ico", format="ICO",
                     sizes=[(s, s) for s in ICO_SIZES], append_images=renders[:-1])
    written.append(out / "favicon.ico")
    card(svg, colours).save(out / "og-image.png", optimize=True)
    written.append(out / "og-image.png")
    return written


def write_checkers(out: Path, mark: Path = CHECKERS_MARK) -> list[Path]:
    """Write the checkers page's files (prefixed ``checkers-``) into ``out``; returns their
    paths. The card and the iOS icon take the backgammon mark's frame and felt."""
    out.mkdir(parents=True, exist_ok=True)
    svg = mark.read_bytes()
    colours = palette(MARK)
    written = []
    for name, size in CHECKERS_SQUARES.items():
        render(svg, size).save(out / f"{CHECKERS_PREFIX}{name}", optimize=True)
        written.append(out / f"{CHECKERS_PREFIX}{name}")
    apple = out / f"{CHECKERS_PREFIX}apple-touch-icon.png"
    flatten(render(svg, APPLE_SIZE), colours["--frame"]).save(apple)
    written.append(apple)
    social = out / f"{CHECKERS_PREFIX}og-image.png"
    card(svg, colours, CHECKERS_TITLE, CHECKERS_LINES).save(social, optimize=True)
    written.append(social)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder (default {OUT})")
    parser.add_argument("--mark", type=Path, default=MARK, help="the source SVG")
    parser.add_argument("--palette", action="store_true",
                        help="print the board colours sampled from the mark, as CSS")
    args = parser.parse_args(argv)
    if args.palette:
        for variable, value in palette(args.mark).items():
            print(f"  {variable}: {value};")
        return 0
    for path in [*write_all(args.out, args.mark), *write_checkers(args.out)]:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
