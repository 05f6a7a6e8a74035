"""``backgammon analyze FILE.mat [--json] [--level expert|hard] [--plies N]``: analyse a match.

Every checker play with a choice and every cube decision of the transcript is scored by the
computer (:func:`backgammon.analysis.analyze`): a table per game of the decisions that lost
equity (marked ``?!`` doubtful, ``?`` bad, ``??`` very bad) and each player's figures, then the
whole match's. Equities are in EMG, rates in mEMG (thousandths of a point of money equity) per
decision counted. A progress bar runs on standard error. A file that is not a legal match
prints its line-numbered error (exit status 1).

``--json`` prints ``{"match_length", "players": [...], "games": [{"decisions": [...]}],
"warnings": [...]}`` (the reader's, each ``"line N: ..."``, also on standard error): each
player ``{"name", "chequer_error_rate_memg", "cube_error_rate_memg", "error_rate_memg", "pr",
"unforced_moves", "cube_decisions", "doubtful", "bad", "very_bad", "luck_emg", "rating"}``
(``rating`` null for a player with no decision counted; the table says "no decisions"),
each game its ``"winner"`` (0, 1, null while unfinished), ``"points"`` and ``"crawford"``,
each decision ``{"player", "kind", "dice", "played", "best", "loss", "mark", "luck"}`` (and
more: see :meth:`backgammon.analysis.Decision.to_dict`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from backgammon.ai.levels import LEVELS
from backgammon.analysis import Analysis, Decision, GameAnalysis, PlayerSummary, analyze
from backgammon.cli.common import RecordError, printable, signed
from backgammon.cli.replay_command import load_record

#: The marks as players write them beside a move.
SYMBOLS = {"doubtful": "?!", "bad": "?", "very bad": "??", "": ""}
#: The rating column of a player with no decision counted (no PR to rate).
NO_DECISIONS = "no decisions"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "analyze",
        help="analyse every decision of a .mat match: errors, luck, PR",
        description="Analyse a Jellyfish/GNU Backgammon .mat transcript with the computer: "
        "each checker play and cube decision, its loss in equity, the luck of each roll, and "
        "each player's error rates and PR.",
    )
    parser.add_argument("file", metavar="FILE.mat",
                        help="the transcript, .mat or GNU Backgammon .sgf ('-' for stdin)")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.add_argument("--level", default="expert", choices=list(LEVELS),
                        help="the search that scores the plays (default expert)")
    parser.add_argument("--plies", type=int, choices=(0, 1, 2, 3), default=None,
                        help="override the level's deepest ply (3: a play made that is not "
                        "the 2-ply best is searched 3-ply, several times slower)")
    parser.set_defaults(run=run)


def _player_row(p: PlayerSummary) -> list[str]:
    return [escape(printable(p.name)), f"{p.chequer_error_rate_memg:.1f}",
            f"{p.cube_error_rate_memg:.1f}", f"{p.error_rate_memg:.1f}", f"{p.pr:.1f}",
            p.rating or NO_DECISIONS,
            str(p.unforced_moves), str(p.cube_decisions), str(p.doubtful), str(p.bad),
            str(p.very_bad), signed(p.luck_emg)]


def _players_table(title: str, players: tuple[PlayerSummary, PlayerSummary]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("player", "chequer mEMG", "cube mEMG", "overall mEMG", "PR", "rating",
                   "moves", "cube", "?!", "?", "??", "luck EMG"):
        table.add_column(column, justify="left" if column in ("player", "rating") else "right")
    for p in players:
        table.add_row(*_player_row(p))
    return table


def _decision_text(d: Decision) -> str:
    if d.kind == "move" and d.dice:
        return f"{d.dice[0]}{d.dice[1]}: {d.played or '(no move)'}"
    return d.played


def _errors_table(title: str, decisions: tuple[Decision, ...], names: tuple[str, str]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("turn", "player", "played", "best", "loss", "", "luck"):
        table.add_column(column, justify="right" if column in ("turn", "loss", "luck")
                         else "left")
    for d in decisions:
        if not d.mark:
            continue
        best = d.best if d.kind != "double" or d.best != "double" else \
            f"double/{d.response}"
        table.add_row(str(d.turn + 1), names[d.player], _decision_text(d), best,
                      f"{d.loss:.3f}", SYMBOLS[d.mark],
                      "" if d.luck is None else signed(d.luck))
    return table


def _game_result(game: GameAnalysis, names: tuple[str, str]) -> str:
    """``"Ann wins 2 points"``, ``"unfinished"``; ``"the Crawford game, "`` before it."""
    crawford = "the Crawford game, " if game.crawford else ""
    if game.winner is None or game.points is None:
        return f"{crawford}unfinished"
    plural = "point" if game.points == 1 else "points"
    return f"{crawford}{names[game.winner]} wins {game.points} {plural}"


def _json(result: Analysis, warnings: tuple[str, ...]) -> dict[str, Any]:
    data = result.to_dict()
    data["names"] = list(result.names)
    data["warnings"] = list(warnings)  # what the reader made of the file, as the API says
    return data


def run(args: argparse.Namespace) -> int:
    name, replay = load_record(args.file)
    for warning in replay.warnings:
        print(f"warning: {printable(name)}: {printable(warning)}", file=sys.stderr)
    err = Console(stderr=True)
    columns = (TextColumn("analysing"), BarColumn(), MofNCompleteColumn(),
               TextColumn("turns"), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True) as bar:
        task = bar.add_task("analysing", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        try:
            result = analyze(replay, args.level, progress, plies=args.plies)
        except ValueError as exc:  # a match longer than the match equity table
            raise RecordError(f"{name}: {exc}") from None
    if args.json:
        print(json.dumps(_json(result, replay.warnings)))
        return 0
    out = Console(highlight=False, width=None if sys.stdout.isatty() else 132)
    names = (escape(printable(result.names[0])), escape(printable(result.names[1])))
    length = result.match_length
    heading = f"{length}-point match" if length else "money session"
    out.print(f"{names[0]} vs {names[1]}, {heading}: analysed at {result.level} "
              f"({result.plies}-ply); equities in EMG, rates in mEMG per decision")
    out.print("turn: the game's turns counted from 1 (each roll, double and answer one), as "
              "the page's move list")
    for game in result.games:
        out.print()
        title = f"Game {game.index + 1} ({names[0]} {game.score[0]}, {names[1]} " \
                f"{game.score[1]}), {_game_result(game, names)}"
        if any(d.mark for d in game.decisions):
            out.print(_errors_table(f"{title}: errors", game.decisions, names))
        else:
            out.print(f"{title}: no errors")
        out.print(_players_table(f"Game {game.index + 1}: players", game.players))
    out.print()
    out.print(_players_table("Match", result.players))
    return 0
