"""``backgammon position ID``: the board of a Position ID, a Position ID with a Match ID, or
an XGID, as text.

``ID`` is GNU Backgammon's Position ID (``4HPwATDgc/ABMA``; the side on roll from ``--turn``),
the Position ID and Match ID together (``4HPwATDgc/ABMA:cAkAAAAAAAAA``, as gnubg copies them,
or as two arguments), or an eXtreme Gammon XGID (``XGID=-b----E-C---eE---c-e----B-:...``).
Prints the board, who is on roll with the dice, the cube and the score, and the position's
Position ID, Match ID and XGID. A malformed ID prints its one-line error (exit status 2).
"""

from __future__ import annotations

import argparse
import json

from backgammon.cli.common import UsageError
from backgammon.core.errors import BackgammonError
from backgammon.core.position import Position, outcome
from backgammon.core.text import board_text
from backgammon.core.types import Color
from backgammon.core.xgid import Xgid, looks_like_xgid


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "position",
        help="print the board of a Position ID, Position ID + Match ID, or XGID",
        description="Print the board as text for a GNU Backgammon Position ID (with its "
        "Match ID if given: 'PID:MID' or two arguments) or an eXtreme Gammon XGID, with its "
        "IDs in all three forms.",
    )
    parser.add_argument("id", metavar="ID", help="Position ID, 'PositionID:MatchID', or XGID")
    parser.add_argument("match_id", metavar="MATCH_ID", nargs="?",
                        help="the Match ID, when not joined to the Position ID")
    parser.add_argument("--turn", default=None, choices=["white", "black"],
                        help="the side on roll for a Position ID alone (default white)")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.set_defaults(run=run)


def parse_ids(text: str, match_id: str | None = None, turn: str | None = None) -> Xgid:
    """The position and its context from any of the three forms.

    Raises:
        InvalidIdError: a malformed ID, naming what is wrong.
        UsageError: ``--turn`` with a Match ID or an XGID (they say who is on roll).
    """
    text = text.strip()
    if looks_like_xgid(text):
        if match_id is not None or turn is not None:
            raise UsageError("an XGID says everything: give no Match ID and no --turn")
        return Xgid.parse(text)
    if match_id is None and ":" in text:
        text, _, match_id = text.partition(":")
    if match_id is not None:
        if turn is not None:
            raise UsageError("the Match ID says who is on roll: leave out --turn")
        return Xgid.from_gnubg_ids(text, match_id.strip())
    return Xgid(position=Position.from_id(text, Color.parse(turn or "white")))


def describe(xgid: Xgid) -> list[str]:
    """The lines under the board: on roll, dice, cube, score."""
    position = xgid.position
    on_roll = str(position.turn).capitalize()
    over = outcome(position)
    if over is not None:
        doing = f"the game is over: {str(over.winner).capitalize()} has borne off all 15"
    elif xgid.cube_action is not None:
        doing = f"{on_roll} has doubled ({xgid.cube_action} pending) to {xgid.cube_value * 2}"
    elif xgid.dice is not None:
        doing = f"{on_roll} to play {xgid.dice[0]}-{xgid.dice[1]}"
    else:
        doing = f"{on_roll} to roll"
    owner = "centred" if xgid.cube_owner is None else f"owned by {xgid.cube_owner}"
    if xgid.match_length:
        score = (f"{xgid.match_length}-point match, White {xgid.score[0]}, Black "
                 f"{xgid.score[1]}" + (" (Crawford game)" if xgid.crawford else ""))
    else:
        rules = [name for name, on in (("Jacoby rule", xgid.jacoby),
                                       ("beavers", xgid.beavers)) if on]
        score = "money play" + (f" ({', '.join(rules)})" if rules else "")
    return [f"{doing}; cube {xgid.cube_value}, {owner}; {score}"]


def run(args: argparse.Namespace) -> int:
    try:
        xgid = parse_ids(args.id, args.match_id, args.turn)
        match_id: str | None = xgid.match_id()
    except BackgammonError as exc:
        if "cannot hold a pending" not in str(exc):
            raise UsageError(str(exc)) from None
        match_id = None
    position = xgid.position
    if args.json:
        print(json.dumps({
            "position_id": xgid.position_id(), "match_id": match_id, "xgid": str(xgid),
            "points": list(position.points), "off": list(position.off),
            "turn": str(position.turn), "dice": list(xgid.dice) if xgid.dice else None,
            "cube": {"value": xgid.cube_value, "owner": None if xgid.cube_owner is None
                     else str(xgid.cube_owner), "action": xgid.cube_action},
            "match_length": xgid.match_length, "score": list(xgid.score),
            "crawford": xgid.crawford, "jacoby": xgid.jacoby, "beavers": xgid.beavers,
        }))
        return 0
    print(board_text(position))
    for line in describe(xgid):
        print(line)
    print(f"Position ID: {xgid.position_id()}")
    print(f"Match ID:    {match_id or '- (a Match ID cannot hold a beaver)'}")
    print(f"XGID:        {xgid}")
    return 0
