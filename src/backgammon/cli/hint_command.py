"""``backgammon hint POSITION_ID DICE [--level expert]``: a roll's plays, ranked by the computer.

With a Position ID and the dice: every legal play, best first, with its cubeless money equity
after the play (points, the mover's view), how far each is behind the best, its chances (win,
win gammon, win backgammon; lose gammon, lose backgammon, in percent) and the ply that scored it
(GNU Backgammon's count: 0-ply is the nets on the position after the play). The plays searched
deepest come first.

With an XGID or ``PositionID:MatchID`` (the dice optional: the ID's own, or DICE instead): the
evaluation the page's hint shows (:func:`~backgammon.services.analysis_jobs.position_evaluation`)
at the ID's score and cube: the best plays of the roll in EMG; without dice, the cube decision
of the side on roll with its equities; with a double pending, the answer to it.

``--json`` prints the same for machines.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from backgammon.ai.choose import EVERY_PLAY, rank_plays
from backgammon.ai.levels import CLASSIC, LEVELS
from backgammon.cli.common import UsageError, add_position_arguments, signed
from backgammon.cli.moves_command import parse_dice_arg
from backgammon.core.errors import BackgammonError
from backgammon.core.position import GAME_OVER_TEXT, Position, outcome
from backgammon.core.types import Color
from backgammon.core.xgid import looks_like_xgid


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "hint",
        help="rank the plays of a roll as the computer sees them",
        description="Rank every legal play of a roll by the computer's evaluation: cubeless "
        "money equity after the play, in points, from the mover's view.",
    )
    add_position_arguments(parser, ids=True)
    parser.add_argument(
        "--level", default="expert", choices=[*LEVELS, CLASSIC.name],
        help="the computer's level (default expert)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if looks_like_xgid(args.position_id.strip()) or ":" in args.position_id:
        return _run_ids(args)
    try:
        if args.dice is None:
            raise ValueError("give the dice (e.g. 31) after a Position ID, or use an XGID")
        dice = parse_dice_arg(args.dice)
        position = Position.from_id(args.position_id, Color.parse(args.turn or "white"))
        if outcome(position) is not None:
            raise ValueError(GAME_OVER_TEXT)
        # every row in order: a play cut at a shallower ply that scores above a deeper one
        # is scored at the deepest ply too (as the page's hint does)
        ranked = rank_plays(position, dice, args.level, settle=EVERY_PLAY)
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
        behind = signed(r.equity - best) if rank > 1 else ""
        chances = "" if r.probs is None else "  " + _percent(r.probs)
        print(f"{rank:>3}. {text:<{width}}  {r.equity:+.3f}  {behind:>7}  {r.ply}-ply{chances}")
    return 0


def _run_ids(args: argparse.Namespace) -> int:
    """The page's evaluation of the decision an XGID or ``PID:MID`` describes."""
    from backgammon.services.analysis_jobs import position_evaluation
    from backgammon.services.setup import read_ids

    if args.level == CLASSIC.name:
        raise UsageError("an XGID or Match ID is evaluated by the nets: use --level easy, "
                         "medium, hard, expert or master")
    if args.turn is not None:
        raise UsageError("an XGID or a Match ID says who is on roll: leave out --turn")
    try:
        xgid = read_ids(args.position_id)
        if args.dice is not None:
            high, low = sorted(parse_dice_arg(args.dice), reverse=True)
            xgid = dataclasses.replace(xgid, dice=(high, low), cube_action=None)
        answer = position_evaluation(xgid, args.level)
    except (ValueError, BackgammonError) as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps({"xgid": str(xgid), "level": args.level, **answer}))
        return 0
    who = str(xgid.position.turn)
    where = (f"match to {xgid.match_length}, {xgid.score[0]}-{xgid.score[1]}"
             if xgid.match_length else "money")
    print(f"{xgid} ({where}, {args.level})")
    _print_answer(answer, who)
    return 0


def _print_answer(answer: dict[str, Any], who: str) -> None:
    kind = answer["kind"]
    if kind == "plays":
        dice = answer["dice"]
        if not answer["plays"]:
            print(f"{who} cannot play {dice[0]}{dice[1]}: the turn passes")
            return
        plays = answer["plays"]
        print(f"{who} to play {dice[0]}{dice[1]}; equities in EMG, {who}'s view")
        width = max(len(p["play"]) for p in plays)
        for rank, p in enumerate(plays, start=1):
            behind = f"{p['diff']:+.3f}" if rank > 1 else ""
            print(f"{rank:>3}. {p['play']:<{width}}  {p['equity']:+.3f}  {behind:>7}  "
                  f"{p['ply']}-ply  {_chances(p['probs'])}")
        return
    if kind == "none":
        print(f"{who} cannot double ({answer.get('reason') or 'no cube'}): roll")
        return
    e = answer["equities"]
    if kind == "take":
        print(f"answer to the double: {answer['action']} (proper cube action: "
              f"{answer['text']}); equities in EMG, the doubler's view")
    else:
        print(f"cube for {who}: {answer['text']}; equities in EMG, {who}'s view")
    print(f"  no double {e['no_double']:+.3f}  double/take {e['double_take']:+.3f}  "
          f"double/pass {e['double_drop']:+.3f}")
    print(f"  {_chances(answer['probs'])}")


def _percent(p: tuple[float, float, float, float, float]) -> str:
    """``win 52.1% (g 14.0 bg 0.6)  lose g 12.3 bg 0.5`` from the five chances (0..1)."""
    return _chances(dict(zip(_CHANCES, (100 * x for x in p), strict=True)))


#: The keys of the evaluation's chances, in the nets' order.
_CHANCES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def _chances(c: dict[str, float]) -> str:
    """``win 52.1% (g 14.0 bg 0.6)  lose g 12.3 bg 0.5`` from the evaluation's chances in
    percent (``{"win", "win_gammon", ...}``)."""
    return (f"win {c['win']:5.1f}% (g {c['win_gammon']:4.1f} bg {c['win_backgammon']:3.1f})"
            f"  lose g {c['lose_gammon']:4.1f} bg {c['lose_backgammon']:3.1f}")
