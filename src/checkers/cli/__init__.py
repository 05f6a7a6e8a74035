"""The ``checkers`` command: perft, legal moves, hints, PDN replay and terminal play.

Exit status: 0 on success; 2 for bad input (a malformed FEN, an unreadable or bad PDN file, a
bad option), with a one-line error on standard error naming the part that is wrong.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from checkers.cli import commands, terminal
from checkers.cli.common import UsageError


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="checkers",
        description="American checkers (English draughts): rules engine, perft, PDN, "
        "computer player, terminal game.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.register(sub)
    terminal.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args))
    except UsageError as error:
        print(f"checkers {args.command}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:  # Ctrl-C: stop without a traceback (128 + SIGINT, as shells do)
        print(f"\ncheckers {args.command}: interrupted", file=sys.stderr)
        return 130
