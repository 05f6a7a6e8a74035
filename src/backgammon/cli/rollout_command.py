"""``backgammon rollout ID``: roll out a decision (:func:`backgammon.ai.rollout.rollout`).

``ID`` is read as ``backgammon position`` reads it: an XGID, a Position ID with its Match ID
(``POSID:MATCHID``, or as two arguments), or a bare Position ID (the side on roll from
``--turn``). With dice (the ID's own, or ``--dice``) every legal play of the roll is rolled out
(``--top N``: the first N by the level's ranking); without, the cube decision with
``--cubeful`` (no double, double/take, double/pass), else the position's cubeless chances. A
double pending in the ID is rolled out as the cube decision (cubeful).

Prints each candidate's equity with its standard error, the chances (win, win gammon, win
backgammon; lose gammon, lose backgammon) and the trials; whether the best is ahead of the
next at 95 %; for a cube decision, the proper action. Equities are EMG from the side to
decide's view: money points per cube of the ID's value; match-winning chances turned to EMG.
``--json`` prints one object (:meth:`backgammon.ai.rollout.Rollout.to_dict`; each candidate
with ``equity``, ``se``, ``win``, ``win_gammon``, ``win_backgammon``, ``lose_gammon``,
``lose_backgammon`` and ``trials``).

On a terminal a progress bar runs on standard error. Ctrl-C stops the rollout and prints what
was done (the trials finished). Bad input prints a one-line error (exit status 2).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from backgammon.ai.cube import CubeState
from backgammon.ai.rollout import Rollout, RolloutError, RolloutSettings, rollout
from backgammon.cli.common import UsageError
from backgammon.cli.moves_command import parse_dice_arg
from backgammon.cli.position_command import parse_ids
from backgammon.core.errors import BackgammonError
from backgammon.core.xgid import Xgid


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "rollout",
        help="roll out the plays of a roll, a cube decision or a position",
        description="Roll out a decision: the computer plays it out many times (variance "
        "reduction and quasi-random dice as GNU Backgammon's rollouts) and reports each "
        "candidate's equity with its standard error.",
    )
    parser.add_argument("id", metavar="ID",
                        help="XGID, 'PositionID:MatchID', or a Position ID")
    parser.add_argument("match_id", metavar="MATCH_ID", nargs="?",
                        help="the Match ID, when not joined to the Position ID")
    parser.add_argument("--turn", default=None, choices=["white", "black"],
                        help="the side on roll for a Position ID alone (default white)")
    parser.add_argument("--dice", default=None,
                        help="the roll to play, e.g. 31 (default: the ID's own, if any)")
    parser.add_argument("--trials", type=int, default=1296,
                        help="trials per candidate (default 1296)")
    parser.add_argument("--truncate", type=int, default=0,
                        help="stop each trial after T plies and evaluate (default 0: play "
                        "to the end)")
    parser.add_argument("--level", type=int, default=0,
                        help="the players' plies, 0 or 1 (default 0)")
    parser.add_argument("--cubeful", action="store_true",
                        help="play with the cube (money or match, as the ID says)")
    parser.add_argument("--top", type=int, default=None,
                        help="roll out only the first N plays by the level's ranking")
    parser.add_argument("--play", dest="plays", metavar="PLAY", action="append", default=None,
                        help="roll out this play (notation, e.g. '8/5 6/5'; repeat for "
                        "more); with --top, the level's ranking adds others up to N")
    parser.add_argument("--seed", type=int, default=0, help="the dice's seed (default 0)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="worker processes (default 1, at most the machine's cores are "
                        "started; the figures do not depend on it)")
    parser.add_argument("--no-variance-reduction", dest="variance_reduction",
                        action="store_false", help="keep the dice's luck in each trial")
    parser.add_argument("--no-quasi-random", dest="quasi_random", action="store_false",
                        help="plain random dice, not stratified")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.set_defaults(run=run)


def read_decision(args: argparse.Namespace) -> tuple[Xgid, tuple[int, int] | None, bool]:
    """The ID's position and context, the dice to play (None: before the roll), and whether
    the rollout is cubeful.

    Raises:
        UsageError: a malformed ID, dice or option, in words.
    """
    try:
        xgid = parse_ids(args.id, args.match_id, args.turn)
    except BackgammonError as exc:
        raise UsageError(str(exc)) from None
    cubeful = bool(args.cubeful)
    if xgid.cube_action is not None:
        if xgid.cube_action != "double":
            raise UsageError(f"a {xgid.cube_action} pending: roll out the double before it")
        if args.dice is not None:
            raise UsageError("a double is pending: there are no dice to play")
        return dataclasses.replace(xgid, cube_action=None), None, True
    dice = xgid.dice
    if args.dice is not None:
        try:
            high, low = sorted(parse_dice_arg(args.dice), reverse=True)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        dice = (high, low)
    return xgid, dice, cubeful


def cube_of(xgid: Xgid) -> CubeState:
    """The cube and match score an XGID holds."""
    return CubeState(value=xgid.cube_value, owner=xgid.cube_owner,
                     match_length=xgid.match_length, score=xgid.score, crawford=xgid.crawford,
                     jacoby=xgid.jacoby, beavers=xgid.beavers)


class _Interrupt:
    """Ctrl-C asks the rollout to stop (a second one interrupts at once)."""

    def __init__(self) -> None:
        self.asked = False

    def __call__(self) -> bool:
        return self.asked

    @contextmanager
    def installed(self) -> Iterator[None]:
        def handler(signum: int, frame: FrameType | None) -> None:
            if self.asked:
                raise KeyboardInterrupt
            self.asked = True

        previous = signal.signal(signal.SIGINT, handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)


def run(args: argparse.Namespace) -> int:
    xgid, dice, cubeful = read_decision(args)
    if dice is not None and xgid.dice != dice:  # the ID as rolled out: with --dice's roll
        xgid = dataclasses.replace(xgid, dice=dice)
    # each option's bounds in its own name (the settings' own messages use theirs)
    if args.level not in (0, 1):
        raise UsageError(f"--level is the players' plies: 0 or 1, got {args.level}")
    if args.top is not None and args.top < 1:
        raise UsageError(f"--top must be 1 or more, got {args.top}")
    if args.trials < 1:
        raise UsageError(f"--trials must be 1 or more, got {args.trials}")
    if args.truncate < 0:
        raise UsageError(f"--truncate must be 0 (play to the end) or more, got {args.truncate}")
    if args.plays is not None and dice is None:
        raise UsageError("--play names plays of a roll: give --dice (or an ID with dice)")
    try:
        settings = RolloutSettings(
            trials=args.trials, truncate=args.truncate, plies=args.level, cubeful=cubeful,
            variance_reduction=args.variance_reduction, quasi_random=args.quasi_random,
            seed=args.seed, top=args.top)
        if args.jobs < 1:
            raise RolloutError(f"jobs must be >= 1, got {args.jobs}")
    except RolloutError as exc:
        raise UsageError(str(exc)) from None
    stop = _Interrupt()
    try:
        with stop.installed(), _progress(not args.json and sys.stderr.isatty()) as progress:
            result = rollout(xgid.position, dice, cube=cube_of(xgid), settings=settings,
                             jobs=args.jobs, progress=progress, should_stop=stop,
                             plays=args.plays)
    except (RolloutError, BackgammonError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps({"xgid": str(xgid), "dice": list(dice) if dice else None,
                          **result.to_dict()}))
        return 0
    for line in describe(xgid, dice, result):
        print(line)
    return 0


@contextmanager
def _progress(shown: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on standard error, or nothing."""
    if not shown:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress("rollout", BarColumn(), MofNCompleteColumn(), "trials",
                  TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("rollout", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def describe(xgid: Xgid, dice: tuple[int, int] | None, result: Rollout) -> list[str]:
    """The rollout in lines for people."""
    s = result.settings
    who = str(xgid.position.turn).capitalize()
    where = (f"match to {xgid.match_length}, {xgid.score[0]}-{xgid.score[1]}"
             if xgid.match_length else "money")
    if result.kind == "plays" and dice is not None:
        what = f"{who} to play {dice[0]}{dice[1]}"
    elif result.kind == "cube":
        what = f"cube decision for {who}"
    else:
        what = f"{who} to roll"
    how = [f"{s.plies}-ply", "cubeful" if s.cubeful else "cubeless",
           f"truncated at {s.truncate}" if s.truncate else "to the end",
           "variance reduction" if s.variance_reduction else "no variance reduction",
           "quasi-random dice" if s.quasi_random else "random dice", f"seed {s.seed}"]
    each = f"{result.trials} trial{'' if result.trials == 1 else 's'} each"
    lines = [f"{xgid} ({where})", f"{what}: {each}, {', '.join(how)}"]
    if result.trials == 0:
        lines.append(f"stopped before the first trials were done: no figures for "
                     f"{', '.join(c.name for c in result.candidates)}")
        return lines
    if result.stopped:
        lines.append(f"stopped after {result.trials} of {s.trials} trials")
    lines.append(f"equities in EMG, {who}'s view, +- one standard error; chances in percent")
    width = max(len(c.name) for c in result.candidates)
    for rank, c in enumerate(result.candidates, start=1):
        p = [100 * x for x in c.probs]
        lines.append(
            f"{rank:>3}. {c.name:<{width}}  {c.equity:+.4f} +- {c.se:.4f}  "
            f"win {p[0]:5.1f} (g {p[1]:4.1f} bg {p[2]:3.1f})  "
            f"lose g {p[3]:4.1f} bg {p[4]:3.1f}  {c.trials} trials")
    sure = "yes" if result.separated else "no"
    if result.kind == "cube":
        lines.append(f"proper cube action: {result.decision}; clear at 95%: {sure} "
                     f"(double against no double {result.lead:+.4f} +- {result.lead_se:.4f})")
    elif len(result.candidates) > 1:
        lines.append(f"best: {result.best.name}, ahead of the next at 95%: {sure} "
                     f"(lead {result.lead:+.4f} +- {result.lead_se:.4f})")
    lines.append(f"{result.seconds:.1f} s")
    return lines
