"""``backgammon hint POSITION_ID DICE [--level expert]``: a roll's plays, ranked by the computer.

Prints every legal play, best first, with its cubeless money equity after the play (points, the
mover's view), how far each is behind the best, its chances (win, win gammon, win backgammon;
lose gammon, lose backgammon, in percent) and the ply that scored it (GNU Backgammon's count:
0-ply is the nets on the position after the play). The plays searched deepest come first.
``--json`` prints the same for machines.
"""

from __future__ import annotations

import argparse
import json

from backgammon.ai.choose import rank_plays
from backgammon.ai.levels import CLASSIC, LEVELS
from backgammon.cli.common import UsageError, add_position_arguments
from backgammon.cli.moves_command import parse_dice_arg
from backgammon.core.errors import BackgammonError
from backgammon.core.position import Position
from backgammon.core.types import Color


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "hint",
        help="rank the plays of a roll as the computer sees them",
        description="Rank every legal play of a roll by the computer's evaluation: cubeless "
        "money equity after the play, in points, from the mover's view.",
    )
    add_position_arguments(parser)
    parser.add_argument(
        "--level", default="expert", choices=[*LEVELS, CLASSIC.name],
        help="the computer's level (default expert)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        dice = parse_dice_arg(args.dice)
        position = Position.from_id(args.position_id, Color.parse(args.turn))
        ranked = rank_plays(position, dice, args.level)
    except (ValueError, BackgammonError) as exc:
        raise UsageError(str(exc)) from None
    best = ranked[0].equity if ranked else 0.0
    if args.json:
        rows = [
            {"rank": i + 1, "play": str(r.play), "equity": round(r.equity, 4),
             "behind": round(best - r.equity, 4), "ply": r.ply,
             "probabilities": None if r.probs is None else [round(p, 4) for p in r.probs]}
            for i, r in enumerate(ranked)
        ]
        print(json.dumps({"position_id": position.id(), "turn": str(position.turn),
                          "dice": list(dice), "level": args.level, "plays": rows}))
        return 0
    print(f"{position.turn} to play {dice[0]}{dice[1]} in {position.id()} ({args.level})")
    if not ranked:
        print("no legal play: the roll cannot be played")
        return 0
    texts = [str(r.play) for r in ranked]
    width = max(map(len, texts))
    for rank, (text, r) in enumerate(zip(texts, ranked, strict=True), start=1):
        behind = f"{r.equity - best:+.3f}" if rank > 1 else ""
        chances = "" if r.probs is None else "  " + _percent(r.probs)
        print(f"{rank:>3}. {text:<{width}}  {r.equity:+.3f}  {behind:>7}  {r.ply}-ply{chances}")
    return 0


def _percent(p: tuple[float, float, float, float, float]) -> str:
    """``win 52.1% (g 14.0 bg 0.6)  lose g 12.3 bg 0.5``."""
    return (f"win {100 * p[0]:5.1f}% (g {100 * p[1]:4.1f} bg {100 * p[2]:3.1f})"
            f"  lose g {100 * p[3]:4.1f} bg {100 * p[4]:3.1f}")
