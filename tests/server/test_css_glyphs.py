"""The pages' stylesheets draw no character that common fonts lack.

A ``content:`` string of a stylesheet is drawn in the page's font; a character that font lacks
shows as an empty box. The pause symbol U+23F8 did (Debian's chromium with its DejaVu fonts), so
the paused clock says "paused" in a word, as the held clock says "held". A character outside
ASCII is allowed here only once it has been seen to render in Debian's chromium (DejaVu Sans;
``fc-list ':charset=HEX'`` names the fonts that have it).
"""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "src" / "backgammon" / "server" / "static"

#: Characters outside ASCII seen to render in Debian's chromium (all in DejaVu Sans).
RENDERED = frozenset("\u00a0\u00d7\u2026\u25cf\u2713")

CONTENT = re.compile(r"""content\s*:\s*((?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^;}"'])*)""")
STRING = re.compile(r""""((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'""")
ESCAPE = re.compile(r"\\([0-9a-fA-F]{1,6})\s?|\\(.)", re.DOTALL)


def unescape(text: str) -> str:
    """A CSS string's characters (``\\00a0`` and ``\\"`` escapes read)."""
    return ESCAPE.sub(lambda m: chr(int(m[1], 16)) if m[1] else m[2], text)


def drawn_strings(css: str) -> list[str]:
    """The strings of every ``content:`` declaration of ``css``, unescaped."""
    return [unescape(m[1] if m[1] is not None else m[2])
            for declaration in CONTENT.finditer(css)
            for m in STRING.finditer(declaration[1])]


def test_the_reader_finds_escaped_and_plain_strings() -> None:
    css = '.a::after { content: "\\00a0●"; } .b::before { content: \'x\' " \\23F8"; }'
    assert drawn_strings(css) == ["\u00a0●", "x", " \u23f8"]


def test_no_stylesheet_draws_a_character_common_fonts_lack() -> None:
    sheets = sorted(STATIC.glob("*.css"))
    assert sheets
    missing = {
        sheet.name: [f"U+{ord(ch):04X} in {text!r}" for text in drawn_strings(
            sheet.read_text(encoding="utf-8")) for ch in text
                     if ord(ch) > 0x7E and ch not in RENDERED]
        for sheet in sheets
    }
    assert {name: chars for name, chars in missing.items() if chars} == {}


def test_a_paused_and_a_held_clock_say_so_in_words() -> None:
    css = (STATIC / "style.css").read_text(encoding="utf-8")
    said = {state: drawn_strings(m[0])
            for state in ("paused", "held")
            for m in [re.search(rf"\.clock\.{state} \.clock-time::after \{{[^}}]*\}}", css)]
            if m is not None}
    assert said == {"paused": [" paused"], "held": [" held"]}
