"""``backgammon moves POSITION_ID DICE``: every legal play, one a line."""

from __future__ import annotations

import argparse
import json

from backgammon.cli.common import UsageError, add_position_arguments
from backgammon.core.errors import BackgammonError
from backgammon.core.moves import legal_plays
from backgammon.core.position import GAME_OVER_TEXT, Position, outcome
from backgammon.core.types import Color


def parse_dice_arg(text: str) -> tuple[int, int]:
    """``"31"``, ``"3-1"``, ``"3,1"`` or ``"3 1"`` -> (3, 1).

    Raises:
        ValueError: not two digits 1..6, with the text quoted.
    """
    digits = [c for c in text if not c.isspace() and c not in "-,/"]
    if len(digits) != 2 or not all(c in "123456" for c in digits):
        raise ValueError(f"dice must be two digits 1-6 like 31 or 3-1, got {text!r}")
    return int(digits[0]), int(digits[1])


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "moves",
        help="list every legal play for a position and roll",
        description="List every legal play, one a line, in standard notation with the "
        "GNU Backgammon Position ID of its result (opponent on roll).",
    )
    add_position_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        dice = parse_dice_arg(args.dice)
        position = Position.from_id(args.position_id, Color.parse(args.turn or "white"))
        if outcome(position) is not None:
            raise ValueError(GAME_OVER_TEXT)
        plays = legal_plays(position, dice)
    except (ValueError, BackgammonError) as exc:
        raise UsageError(str(exc)) from None
    rows = [
        {"play": str(play), "result_id": play.result.with_turn(position.turn.opponent).id()}
        for play in plays
    ]
    if args.json:
        print(json.dumps({"position_id": position.id(), "turn": str(position.turn),
                          "dice": list(dice), "plays": rows}))
    elif not rows:
        print("no legal play: the roll cannot be played")
    else:
        width = max(len(r["play"]) for r in rows)
        for row in rows:
            print(f"{row['play']:<{width}}  {row['result_id']}")
    return 0
