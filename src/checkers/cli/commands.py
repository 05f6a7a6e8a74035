"""``checkers perft``, ``moves``, ``hint`` and ``replay``: the one-shot subcommands.

Output for tools (``--json``): one JSON object a line.

* ``moves``: ``{"fen": ..., "moves": [[11, 15], [15, 22, 31], ...]}``, each move as its path.
* ``hint``: ``{"fen": ..., "move": [11, 15], "score": 12, "depth": 8}`` (score in hundredths
  of a man, for the side to move; ``move`` is null when the side to move has no move).
* ``replay``: ``{"game": 1, "tags": {...}, "moves": 45, "result": "1-0", "error": null}`` or
  ``"error": {"move": 12, "side": "white", "message": ...}``.

A bad FEN is reported on standard error with where it was (``argument 2``, ``line 3``) and what
part is wrong; the other FENs are still answered (with ``--json``, as ``{"fen": ...,
"error": ...}`` in their place), and the exit status is 2.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any, Final

from checkers.cli.common import UsageError, fen_inputs, printable
from checkers.errors import CheckersError, PdnError
from checkers.moves import legal_moves
from checkers.pdn import PdnMoveError, decode, read_pdn
from checkers.perft import divide, perft
from checkers.position import Position


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add perft, moves, hint and replay to the command's subparsers."""
    from checkers.ai import LEVELS

    parser = sub.add_parser(
        "perft",
        help="count the move tree to a depth (the move generator's check)",
        description="Print the number of leaf nodes DEPTH plies deep (the last word), as "
        "perft programs do; from the start they equal Aart J. C. Bik's published counts.",
    )
    parser.add_argument("depth", type=int, metavar="DEPTH", help="plies, 0 to 100")
    parser.add_argument("--fen", help="a position in PDN FEN (default: the start)")
    parser.add_argument("--divide", action="store_true", help="one line per first move")
    parser.set_defaults(run=run_perft)

    parser = sub.add_parser(
        "moves",
        help="list the legal moves of positions",
        description="Print every legal move of each FEN (PDN notation, full paths).",
    )
    parser.add_argument(
        "fens", nargs="+", metavar="FEN", help="PDN FEN, or - for standard input, one FEN a line"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object a line")
    parser.set_defaults(run=run_moves)

    parser = sub.add_parser(
        "hint",
        help="the computer's move for positions",
        description="Print the computer's move for each FEN, with its score (hundredths of "
        "a man, for the side to move) and the depth searched.",
    )
    parser.add_argument(
        "fens", nargs="+", metavar="FEN", help="PDN FEN, or - for standard input, one FEN a line"
    )
    parser.add_argument("--level", default="hard", choices=LEVELS, help="default hard")
    parser.add_argument("--seed", type=int, default=0, help="seed of the levels' randomness")
    parser.add_argument("--json", action="store_true", help="one JSON object a line")
    parser.set_defaults(run=run_hint)

    parser = sub.add_parser(
        "replay",
        help="replay every game of a PDN file through the engine",
        description="Read a PDN file, check every move of every game, and print one line a "
        "game. Exit status 2 when the file cannot be read or any game has a bad move.",
    )
    parser.add_argument("file", type=Path, metavar="FILE.pdn")
    parser.add_argument("--json", action="store_true", help="one JSON object a game")
    parser.set_defaults(run=run_replay)


def _position(fen: str | None) -> Position:
    if fen is None:
        return Position.start()
    try:
        return Position.from_fen(fen)
    except CheckersError as error:
        raise UsageError(str(error)) from None


#: The deepest perft the command counts (plies).
MAX_PERFT_DEPTH: Final = 100


def run_perft(args: argparse.Namespace) -> int:
    """``checkers perft DEPTH [--fen FEN] [--divide]``."""
    position = _position(args.fen)
    if not 0 <= args.depth <= MAX_PERFT_DEPTH:  # (deeper would never finish, and would
        # run out of Python's recursion first)
        raise UsageError(f"DEPTH must be 0 to {MAX_PERFT_DEPTH}, not {args.depth}")
    started = time.perf_counter()
    if args.divide and args.depth >= 1:
        rows = divide(position, args.depth)
        for move, count in rows:
            print(f"{move:<12} {count}")
        total = sum(count for _, count in rows)
    else:
        total = perft(position, args.depth)
    seconds = time.perf_counter() - started
    print(f"depth {args.depth} ({seconds:.3f} s) nodes {total}")
    return 0


def _each_fen(args: argparse.Namespace, answer: Any) -> int:
    """Call ``answer(position) -> (json object, text line)`` for each FEN input; a bad FEN is
    reported and skipped. Returns the exit status."""
    status = 0
    for where, text in fen_inputs(args.fens):
        try:
            position = Position.from_fen(text)
        except CheckersError as error:
            print(f"checkers {args.command}: {where}: {error}", file=sys.stderr)
            if args.json:
                print(json.dumps({"fen": text, "error": str(error)}), flush=True)
            status = 2
            continue
        row, line = answer(position)
        print(json.dumps({"fen": text, **row}) if args.json else f"{text}: {line}", flush=True)
    return status


def run_moves(args: argparse.Namespace) -> int:
    """``checkers moves FEN [FEN ...] [--json]``."""

    def answer(position: Position) -> tuple[dict[str, Any], str]:
        moves = sorted(legal_moves(position), key=lambda m: m.path)
        line = " ".join(str(m) for m in moves) or f"no legal move: {position.turn} has lost"
        return {"moves": [list(m.path) for m in moves]}, line

    return _each_fen(args, answer)


def run_hint(args: argparse.Namespace) -> int:
    """``checkers hint FEN [FEN ...] [--level LEVEL] [--seed S] [--json]``."""
    from checkers.ai import choose_move

    def answer(position: Position) -> tuple[dict[str, Any], str]:
        if not legal_moves(position):
            return (
                {"move": None, "score": None, "depth": 0},
                f"no legal move: {position.turn} has lost",
            )
        other = position.turn.opponent
        if not position.side_mask(other):  # its last piece was taken: the game is over
            return (
                {"move": None, "score": None, "depth": 0},
                f"no move to hint: {other} has no pieces left and has lost",
            )
        found = choose_move(position, args.level, rng=random.Random(args.seed))
        row = {"move": list(found.move.path), "score": found.score, "depth": found.depth}
        return row, f"{found.move} (score {found.score:+d}, depth {found.depth})"

    return _each_fen(args, answer)


def run_replay(args: argparse.Namespace) -> int:
    """``checkers replay FILE.pdn [--json]``."""
    try:
        games = read_pdn(decode(args.file.read_bytes()))
    except OSError as failure:
        raise UsageError(f"{args.file}: {failure.strerror or failure}") from None
    except PdnError as failure:
        raise UsageError(f"{args.file}: {failure}") from None
    status = 0
    for game in games:
        error: dict[str, Any] | None = None
        if game.error is not None:
            status = 2
            error = {"move": None, "side": None, "message": str(game.error)}
            if isinstance(game.error, PdnMoveError):
                error.update(move=game.error.move_number, side=game.error.side.value)
            print(f"checkers replay: {args.file}: {printable(str(game.error))}",
                  file=sys.stderr)
        elif not game.terminated and game.moves:
            print(f"checkers replay: {args.file}: warning: game {game.number} has no result "
                  "after its moves (the file may be cut short); its result is the Result "
                  f"tag's, {game.result}", file=sys.stderr)
        if args.json:
            row = {
                "game": game.number,
                "tags": game.tags,
                "moves": game.move_count,
                "plies": game.plies,
                "result": game.result,
                "error": error,
            }
            print(json.dumps(row), flush=True)
        else:
            black = printable(game.tags.get("Black", "").strip()) or "?"
            white = printable(game.tags.get("White", "").strip()) or "?"
            players = f"{black} - {white}"
            state = ("ok" if error is None else "refused" if error["move"] is None
                     else f"refused at move {error['move']} ({error['side']})")
            moves = f"{game.move_count} move{'' if game.move_count == 1 else 's'}"
            print(f"game {game.number}: {players}, {moves}, {game.result}: {state}")
    if not games:
        raise UsageError(f"{args.file}: no game found")
    return status
