"""What the ``checkers`` subcommands share: the usage error, reading FENs."""

from __future__ import annotations

import sys
import unicodedata
from collections.abc import Iterator, Sequence


class UsageError(Exception):
    """Bad input on the command line; the message is printed after the command's name and
    the exit status is 2."""


def fen_inputs(fens: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(where, FEN text) for each FEN argument, ``-`` reading standard input one a line
    (blank lines skipped). ``where`` names the input in an error: ``"argument 2"`` or
    ``"line 3"``."""
    for number, fen in enumerate(fens, start=1):
        if fen == "-":
            for line_number, line in enumerate(sys.stdin, start=1):
                if line.strip():
                    yield f"line {line_number}", line.strip()
        else:
            yield f"argument {number}", fen


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: each control or format character (an escape
    sequence's ESC, a carriage return, a right-to-left override) written as its code
    (``\\x1b``), so that a name read from a file cannot move the cursor or clear the screen."""
    return "".join(ch.encode("unicode_escape").decode("ascii")
                   if unicodedata.category(ch) in ("Cc", "Cf") else ch for ch in text)
