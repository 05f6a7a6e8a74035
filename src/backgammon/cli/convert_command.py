"""``backgammon convert IN OUT``: a match record from one format to the other.

``.mat`` (Jellyfish / GNU Backgammon transcript) and ``.sgf`` (GNU Backgammon SGF) in either
direction, the kinds named by the file extensions (or ``--to`` when OUT is ``-``, standard
output). The input is replayed through the rules first; a bad file prints its line-numbered
error (exit status 1) and nothing is written. The file written is read back, and what it
does not hold of the match (a Crawford flag a ``.mat`` cannot say, names it cannot hold as
they are) is said on standard error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from backgammon.cli.common import UsageError, printable
from backgammon.cli.replay_command import load_record
from backgammon.records import MatReplay, read_sgf_or_mat
from backgammon.records.mat import MatWriteError, format_mat
from backgammon.records.sgf import format_sgf
from backgammon.records.transcript import TranscriptError

#: The formats by extension.
FORMATS = {".mat": "mat", ".sgf": "sgf"}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "convert",
        help="convert a match record between .mat and .sgf",
        description="Read a .mat or .sgf match file, replay it through the rules, and write "
        "it in the other format (or the same), as GNU Backgammon writes it.",
    )
    parser.add_argument("input", metavar="IN", help="the .mat or .sgf file ('-' for stdin)")
    parser.add_argument("output", metavar="OUT", help="the file to write: .mat or .sgf "
                        "('-' for stdout, with --to)")
    parser.add_argument("--to", choices=sorted(set(FORMATS.values())),
                        help="the output format (default: from OUT's extension)")
    parser.set_defaults(run=run)


def _lost(replay: MatReplay, text: str) -> list[str]:
    """What the written ``text`` does not hold of the match read: it is read back and each
    game's Crawford flag and the players' names compared (a ``.mat`` file cannot say that a
    first game picked up at a 1-away score, with no double in it, comes after the Crawford
    game; its names are written as :func:`~backgammon.records.mat.mat_name` can)."""
    try:
        again = read_sgf_or_mat(text)
    except TranscriptError as exc:  # (a writer's defect; said, not hidden)
        return [f"the file written does not read back: {exc}"]
    lost = []
    if again.match.names != replay.match.names:
        lost.append(f"the players' names are written {again.match.names[0]!r} and "
                    f"{again.match.names[1]!r}")
    for number, (was, now) in enumerate(zip(replay.match.games, again.match.games,
                                            strict=False), start=1):
        if was.settings.crawford != now.settings.crawford:
            score = was.settings.score
            lost.append(
                f"game {number}, at {score[0]}-{score[1]}, reads back as "
                f"{'the' if now.settings.crawford else 'not the'} Crawford game: the file "
                "cannot say which it is")
    return lost


def run(args: argparse.Namespace) -> int:
    target = args.to
    if target is None:
        suffix = Path(args.output).suffix.lower()
        if suffix not in FORMATS:
            raise UsageError(f"cannot tell the format of {args.output!r}: name it .mat or "
                             ".sgf, or give --to mat or --to sgf")
        target = FORMATS[suffix]
    name, replay = load_record(args.input)
    for warning in replay.warnings:
        print(f"warning: {name}: {warning}", file=sys.stderr)
    try:
        text = format_mat(replay) if target == "mat" else format_sgf(replay.match)
    except MatWriteError as exc:
        raise UsageError(str(exc)) from None
    for warning in _lost(replay, text):
        print(f"warning: {args.output}: {warning}", file=sys.stderr)
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    try:
        Path(args.output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    games = len(replay.match.games)
    print(f"{args.output}: {games} game{'s' if games != 1 else ''}, "
          f"{printable(replay.record.names[0])} {replay.score[0]} - {replay.score[1]} "
          f"{printable(replay.record.names[1])}")
    return 0
