"""What the subcommands share."""

from __future__ import annotations

import argparse
import unicodedata


class UsageError(Exception):
    """Bad command-line input; printed as one line, exit status 2."""


class RecordError(Exception):
    """A bad file or record named on the command line; printed as is, exit status 1."""


def signed(x: float) -> str:
    """``x`` (an equity, EMG or points) to 3 decimals with its sign; a value that rounds to
    zero is "+0.000", never "-0.000"."""
    return f"{round(x, 3) + 0.0:+.3f}"


def add_position_arguments(parser: argparse.ArgumentParser, *, ids: bool = False) -> None:
    """POSITION_ID, DICE, ``--turn`` and ``--json``: what ``moves`` and ``hint`` both take;
    with ``ids`` POSITION_ID may also be an XGID or ``PID:MID``, and DICE is optional."""
    if ids:
        parser.add_argument("position_id", metavar="POSITION_ID",
                            help="GNU Backgammon Position ID, PositionID:MatchID, or XGID")
        parser.add_argument("dice", metavar="DICE", nargs="?", default=None,
                            help="the roll, e.g. 31 or 3-1 (with an XGID or Match ID: "
                            "instead of its own)")
    else:
        parser.add_argument("position_id", metavar="POSITION_ID",
                            help="GNU Backgammon Position ID")
        parser.add_argument("dice", metavar="DICE", help="the roll, e.g. 31 or 3-1")
    parser.add_argument(
        "--turn",
        default=None,
        choices=["white", "black"],
        help="the side on roll of a bare Position ID (it is read from its view; default "
        "white)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON for machines")


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: each control or format character (an escape
    sequence's ESC, a carriage return, a right-to-left override) written as its code
    (``\\x1b``), so that a name read from a file cannot move the cursor or clear the screen."""
    return "".join(ch.encode("unicode_escape").decode("ascii")
                   if unicodedata.category(ch) in ("Cc", "Cf") else ch for ch in text)
