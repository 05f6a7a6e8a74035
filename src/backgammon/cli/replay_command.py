"""``backgammon replay FILE``: replay a match record (``.mat`` or GNU Backgammon ``.sgf``)
through the rules.

The kind is read from the text (an SGF file starts with ``(;``). Prints each game's plays and
the final score; ``--positions`` adds the GNU Backgammon Position
ID and Match ID after every turn; ``--json`` prints ``{"match_length": N or null, "games":
[{"winner": 0 or 1, "points": P}, ...], "score": [first, second]}`` (0 is the player named first,
the left column). A file that is not a legal match prints its line-numbered error (exit 1).
Warnings about quirks the reader accepted go to standard error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from backgammon.cli.common import RecordError, UsageError, printable
from backgammon.core.errors import BackgammonError
from backgammon.core.game import Game
from backgammon.core.types import WHITE
from backgammon.records.mat import decode
from backgammon.records.sgf import read_sgf_or_mat
from backgammon.records.transcript import MatReplay, TranscriptError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "replay",
        help="replay a .mat or .sgf match file and print its plays and score",
        description="Replay a Jellyfish/GNU Backgammon .mat transcript or a GNU Backgammon "
        "SGF file move by move through the rules: print each game's plays and the final "
        "score, or the line-numbered error (exit status 1).",
    )
    parser.add_argument("file", metavar="FILE", help="the .mat or .sgf file ('-' for stdin)")
    parser.add_argument(
        "--positions",
        action="store_true",
        help="print the GNU Backgammon Position ID and Match ID after every turn",
    )
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.set_defaults(run=run)


def load_record(path_text: str) -> tuple[str, MatReplay]:
    """Read and replay the .mat or .sgf file at ``path_text`` ('-': standard input).

    Returns:
        The name to show and the replay.

    Raises:
        UsageError: the file cannot be read.
        RecordError: the file is not a legal match (its line-numbered error).
    """
    if path_text == "-":
        # (bytes, decoded as a file's are: a UTF-16 file piped in reads as it does by path)
        text, name = decode(sys.stdin.buffer.read()), "<stdin>"
    else:
        path = Path(path_text)
        try:
            text = decode(path.read_bytes())
        except OSError as exc:
            raise UsageError(f"cannot read {path_text}: {exc.strerror or exc}") from None
        name = path_text
    if not text.strip():
        raise RecordError(f"{name}: the file is empty: no match in it")
    try:
        return name, read_sgf_or_mat(text)
    except TranscriptError as exc:
        raise RecordError(f"{name}: {exc}") from None


def _turn_rows(replay: MatReplay, index: int, game: Game) -> list[dict[str, Any]]:
    """One row per history line of a game: who, what, and the IDs after it."""
    match = replay.match
    score = match.score_before(index)
    if match.length:
        score = (min(score[0], match.length), min(score[1], match.length))
    rows: list[dict[str, Any]] = []
    seen = 0
    for state, _, _ in Game.replay_steps(game.to_log()):
        while seen < len(state.history):
            turn = state.history[seen]
            seen += 1
            row: dict[str, Any] = {
                "player": 0 if turn.color is WHITE else 1,
                "action": turn.action,
                "text": (f"{turn.dice[0]}{turn.dice[1]}: {turn.text}".rstrip()
                         if turn.dice is not None else turn.text),
                "position_id": state.position_id(),
            }
            try:
                row["match_id"] = state.match_id(score)
            except BackgammonError:  # a cube beyond what a Match ID holds (money play)
                row["match_id"] = None
            rows.append(row)
    return rows


def _describe_outcome(replay: MatReplay, index: int) -> str:
    result = replay.results[index]
    names = tuple(printable(n) for n in replay.record.names)
    if result.winner is None:
        return "unfinished"
    plural = "point" if result.points == 1 else "points"
    return f"{names[result.winner]} wins {result.points} {plural} ({result.kind})"


def run(args: argparse.Namespace) -> int:
    name, replay = load_record(args.file)
    for warning in replay.warnings:
        print(f"warning: {printable(name)}: {printable(warning)}", file=sys.stderr)
    match = replay.match
    names = tuple(printable(n) for n in replay.record.names)
    if args.json:
        summary = replay.to_summary()
        if args.positions:
            for index, game in enumerate(match.games):
                summary["games"][index]["turns"] = _turn_rows(replay, index, game)
        print(json.dumps(summary))
        return 0
    length = replay.record.match_length
    heading = (f"{length}-point match" if length else
               "money session" if length == 0 else "match of unknown length")
    print(f"{names[0]} vs {names[1]}, {heading}")
    width = max(len(names[0]), len(names[1]))
    for index, game in enumerate(match.games):
        before = match.score_before(index)
        crawford = " (Crawford game)" if game.settings.crawford else ""
        print()
        print(f"Game {index + 1}: {names[0]} {before[0]}, {names[1]} {before[1]}{crawford}")
        for number, row in enumerate(_turn_rows(replay, index, game), start=1):
            line = f"{number:4d}  {names[row['player']]:<{width}}  {row['text']}"
            if args.positions:
                line = f"{line:<{width + 40}}  {row['position_id']}  {row['match_id'] or '-'}"
            print(line.rstrip())
        print(f"      {_describe_outcome(replay, index)}")
    score = replay.score
    status = "" if not length else (" (match complete)" if replay.complete else
                                     " (match not complete)")
    print()
    print(f"Final score: {names[0]} {score[0]}, {names[1]} {score[1]}{status}")
    return 0
