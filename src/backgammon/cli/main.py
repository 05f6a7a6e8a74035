"""Entry point of the ``backgammon`` console script.

Each subcommand lives in its own module and registers itself with :func:`build_parser`.
Exit status: 0 on success, 1 when a file or record is bad, 2 on bad command-line input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from backgammon.cli import (
    analyze_command,
    convert_command,
    hint_command,
    moves_command,
    play_command,
    position_command,
    replay_command,
    rollout_command,
    selfplay_command,
    serve_command,
    train_command,
)
from backgammon.cli.common import RecordError, UsageError
from backgammon.core.xgid import looks_like_xgid


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="backgammon",
        description="Backgammon: rules engine, computer player, .mat files, web game.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    moves_command.register(sub)
    hint_command.register(sub)
    selfplay_command.register(sub)
    replay_command.register(sub)
    analyze_command.register(sub)
    convert_command.register(sub)
    position_command.register(sub)
    rollout_command.register(sub)
    serve_command.register(sub)
    play_command.register(sub)
    train_command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["train"]:  # its options are the training module's own, --help included
        return train_command.train(words[1:])
    parser = build_parser()
    # An XGID often starts with "-" (an empty bar): given bare, it is no option but the ID
    words = [f"XGID={w}" if w.startswith("-") and looks_like_xgid(w) else w for w in words]
    args = parser.parse_args(words)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args))
    except UsageError as exc:
        print(f"backgammon {args.command}: {exc}", file=sys.stderr)
        return 2
    except RecordError as exc:
        print(f"backgammon {args.command}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:  # Ctrl-C: stop without a traceback (128 + SIGINT, as shells do)
        print(f"\nbackgammon {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
