"""Our cube actions judged by GNU Backgammon: every cube decision of gnubg's analysed matches.

GNU Backgammon 1.07 (the ``gnubg`` command) analyses each ``.mat`` file (``analyse match``, its
default: 2-ply "world class", cubeful), shows its statistics and saves it as SGF
(:func:`gnubg_analysis.gnubg_output` and :func:`gnubg_analysis.gnubg_sgf`, cached in
``bench/.cache/gnubg_analysis/``). There each cube decision carries a ``DA[...]``
property: ``E ver 3``, the evaluation's settings (``2C 1 0.000000 1``), then two sets of seven
outputs (five chances, cubeless equity, cubeful match winning chance) for the side deciding
whether to double, the cube as it is (*no double*) and doubled and taken (*double, take*).
gnubg writes it on the checker play that followed a decision not to double (where the cube was
the mover's to turn), on a double, and on the take or drop that answered it. The figures read
are checked: the actions the match's players took must lose, by them, what gnubg's own ``show
statistics match`` says (its cube decisions and each player's error total, to 0.002 EMG).

Our analysis (:func:`backgammon.analysis.analyze` at ``--level``: the computer's own cube
lookahead on every decision that is close or was acted on) makes the same decisions. This
bench sets each of ours beside gnubg's equities and scores it as gnubg does: in equity
normalised to the cube's value (``gnubg.mwc2eq`` with the decision's cube, score and match
length; a pass is +1 for the doubler), the loss is gnubg's best action's equity minus that of
the action we choose. A double we call "too good" is played on, as the computer does.

It prints, for each file, the decisions judged and the losses, then the totals: missed and
wrong doubles, wrong takes and wrong drops, and the loss a decision (mEMG), over all the
decisions and over the close ones (a double made or answered, a double gnubg or we would make,
or gnubg's double within 0.16 of no double).

Run::

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/gnubg_cube.py [FILES...] \
        [--level expert] [--weights CHECKPOINT] [--jobs 2] [--worst 10]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gnubg_analysis import (
    CACHE_DIR,
    SHARED_MAT,
    _setup_worker,
    gnubg_available,
    gnubg_output,
    gnubg_sgf,
    map_files,
)

#: A node of gnubg's SGF: the side (W, player 0; B, player 1), the move and the properties.
_NODE: Final = re.compile(r";(?P<side>[BW])\[(?P<move>[^\]]*)\]"
                          r"(?P<props>(?:[A-Z]+(?:\[[^\]]*\])+)*)")
_DA: Final = re.compile(r"(?<![A-Z])DA\[E ver 3 (?P<figures>[^\]]*)\]")
_HEADER: Final = re.compile(r"MI\[length:(?P<length>\d+)\]\[game:\d+\]\[ws:(?P<ws>\d+)\]"
                            r"\[bs:(?P<bs>\d+)\]")
#: A decision is close when gnubg's double is within this much of no double (equity).
CLOSE: Final = 0.16


@dataclass(frozen=True)
class GnubgCube:
    """One cube decision in gnubg's analysis.

    Attributes:
        kind: ``"double"`` (double or not, before the roll) or ``"take"`` (take or drop).
        player: who decides: 0 (W, the ``.mat`` file's first player) or 1.
        acted: what the player did: ``"double"``, ``"no double"``, ``"take"`` or ``"drop"``.
        no_double, double_take: gnubg's cubeful match winning chances of the side that may
            double (0..1), the cube as it is and doubled and taken.
        chances: gnubg's cubeless chances of that side before the roll: win, win a gammon,
            win a backgammon, lose a gammon, lose a backgammon (0..1).
        cube, owner: the cube's value and who holds it (-1: centred, else 0 or 1).
        length, score: the match length and the score (player 0's, player 1's) before the game.
    """

    kind: str
    player: int
    acted: str
    no_double: float
    double_take: float
    chances: tuple[float, float, float, float, float]
    cube: int
    owner: int
    length: int
    score: tuple[int, int]


def parse_cube_decisions(text: str) -> list[list[GnubgCube]]:
    """Per game, gnubg's cube decisions in order, from its analysed match saved as SGF.

    Raises:
        ValueError: a game has no ``MI[length:..][game:..][ws:..][bs:..]`` header, or a
            ``DA[...]`` property has not two sets of seven figures.
    """
    games: list[list[GnubgCube]] = []
    for number, part in enumerate(text.split("(;FF[4]")[1:]):
        header = _HEADER.search(part)
        if header is None:
            raise ValueError(f"game {number + 1}: no MI[length..][ws..][bs..] header")
        length = int(header["length"])
        score = (int(header["ws"]), int(header["bs"]))
        cube, owner = 1, -1
        found: list[GnubgCube] = []
        for node in _NODE.finditer(part):
            player = 0 if node["side"] == "W" else 1
            move = node["move"]
            analysis = _DA.search(node["props"])
            if analysis is not None:
                figures = analysis["figures"].split()[4:]
                if len(figures) != 14:
                    raise ValueError(f"game {number + 1}: a DA[...] with {len(figures)} "
                                     "figures after its settings, not 14")
                nd, dt = float(figures[6]), float(figures[13])
                w, wg, wb, lg, lb = (float(f) for f in figures[:5])
                if move in ("take", "drop"):
                    found.append(GnubgCube("take", player, move, nd, dt, (w, wg, wb, lg, lb),
                                           cube, owner, length, score))
                else:
                    found.append(GnubgCube("double", player,
                                           "double" if move == "double" else "no double",
                                           nd, dt, (w, wg, wb, lg, lb), cube, owner, length,
                                           score))
            if move == "take":
                cube, owner = cube * 2, player
        games.append(found)
    return games


def normalised(decision: GnubgCube) -> tuple[float, float, float]:
    """gnubg's (no double, double take, double pass) as equity normalised to the cube, the
    doubler's view (``gnubg.mwc2eq``); a pass is +1 by definition."""
    import gnubg

    doubler = decision.player if decision.kind == "double" else 1 - decision.player
    info = gnubg.cubeinfo(decision.cube, decision.owner, doubler, decision.length,
                          decision.score, 0, 1)
    return gnubg.mwc2eq(decision.no_double, info), gnubg.mwc2eq(decision.double_take, info), 1.0


def gnubg_loss(decision: GnubgCube, action: str) -> float:
    """The equity (normalised to the cube) that ``action`` loses against gnubg's best.

    ``action``: for a double decision ``"double"``, ``"no double"`` or ``"too good"`` (played
    on, as no double); for a take decision ``"take"`` or ``"drop"``.

    Raises:
        ValueError: an action that does not fit the decision.
    """
    nd, dt, dp = normalised(decision)
    if decision.kind == "double":
        if action not in ("double", "no double", "too good"):
            raise ValueError(f"not a double decision's action: {action!r}")
        doubled = min(dt, dp)
        return max(nd, doubled) - (doubled if action == "double" else nd)
    if action not in ("take", "drop"):
        raise ValueError(f"not a take decision's action: {action!r}")
    take, drop = -dt, -dp
    return max(take, drop) - (take if action == "take" else drop)


def gnubg_best(decision: GnubgCube) -> str:
    """gnubg's own action: ``"double"``, ``"no double"`` or ``"too good"``; ``"take"`` or
    ``"drop"``."""
    nd, dt, dp = normalised(decision)
    if decision.kind == "take":
        return "take" if dt <= dp else "drop"
    if min(dt, dp) > nd:
        return "double"
    return "too good" if dt > dp else "no double"


def close(decision: GnubgCube) -> bool:
    """A double made, an answer to one, a double gnubg would make, or gnubg's double within
    :data:`CLOSE` of no double (as our analysis counts cube decisions)."""
    if decision.kind == "take" or decision.acted == "double":
        return True
    nd, dt, dp = normalised(decision)
    return min(dt, dp) > nd - CLOSE


_TOTAL: Final = re.compile(r"^Total cube decisions\s+(\d+)\s+(\d+)\s*$")
_ERROR: Final = re.compile(r"^Error total EMG \(MWC\)\s+(-?\d+\.\d+) \(.*?\)\s+"
                           r"(-?\d+\.\d+) \(")


def gnubg_cube_statistics(text: str) -> tuple[tuple[int, int], tuple[float, float]]:
    """Both players' cube decisions and cube error totals (EMG, >= 0) in gnubg's ``show
    statistics match`` (:func:`gnubg_analysis.gnubg_output`): what the losses read from its
    SGF must add up to.

    Raises:
        ValueError: the text has no cube statistics.
    """
    section = text.split("Cube statistics", 1)
    if len(section) < 2:
        raise ValueError("not gnubg's statistics table: no cube statistics")
    totals: tuple[int, int] | None = None
    errors: tuple[float, float] | None = None
    for line in section[1].splitlines():
        if (found := _TOTAL.match(line)) is not None and totals is None:
            totals = (int(found[1]), int(found[2]))
        elif (found := _ERROR.match(line)) is not None and errors is None:
            errors = (abs(float(found[1])), abs(float(found[2])))
    if totals is None or errors is None:
        raise ValueError("not gnubg's statistics table: no cube decisions or error totals")
    return totals, errors


def own_losses(games: Sequence[Sequence[GnubgCube]]) -> tuple[tuple[int, int],
                                                               tuple[float, float]]:
    """Each player's cube decisions and the loss of the actions they took, by gnubg's
    figures as read here (to set beside :func:`gnubg_cube_statistics`)."""
    count, loss = [0, 0], [0.0, 0.0]
    for game in games:
        for decision in game:
            count[decision.player] += 1
            loss[decision.player] += gnubg_loss(decision, decision.acted)
    return (count[0], count[1]), (loss[0], loss[1])


@dataclass(frozen=True)
class Judged:
    """One of our cube decisions and gnubg's verdict on it: the action each finds best, the
    loss (equity normalised to the cube) of ours by gnubg's figures, and the chance that the
    side that may double wins the game, by our analysis and by gnubg (cubeless, 0..1)."""

    file: str
    game: int
    position_id: str
    kind: str
    ours: str
    gnubg: str
    loss: float
    close: bool
    win: float
    gnubg_win: float


def judge_file(path: Path, level: str = "expert",
               cache: Path | None = CACHE_DIR) -> tuple[list[Judged], int]:
    """Our cube decisions in the match at ``path`` with gnubg's verdicts, and the number of
    games left out because the two analyses do not list the same cube decisions."""
    from backgammon.analysis import analyze
    from backgammon.records import read_mat

    theirs = parse_cube_decisions(gnubg_sgf(path, cache))
    counted, lost = own_losses(theirs)
    stated, errors = gnubg_cube_statistics(gnubg_output(path, cache))
    if counted != stated or any(abs(a - b) > 0.002 for a, b in zip(lost, errors,
                                                                     strict=True)):
        raise RuntimeError(f"{path.name}: gnubg's cube figures read as {counted} decisions "
                           f"losing {lost}, its statistics say {stated} losing {errors}")
    result = analyze(read_mat(path.read_text(encoding="utf-8")), level)
    if len(theirs) != len(result.games):
        raise RuntimeError(f"{path.name}: gnubg saved {len(theirs)} games, we analysed "
                           f"{len(result.games)}")
    judged: list[Judged] = []
    skipped = 0
    for game, gnubg_game in zip(result.games, theirs, strict=True):
        ours = [d for d in game.decisions if d.kind in ("double", "take")]
        same = len(ours) == len(gnubg_game) and all(
            o.kind == g.kind and o.player == g.player for o, g in zip(ours, gnubg_game,
                                                                     strict=True))
        if not same:
            skipped += 1
            continue
        for o, g in zip(ours, gnubg_game, strict=True):
            doubler = o.player if o.kind == "double" else 1 - o.player
            win = o.win if doubler == 0 else 1.0 - o.win  # o.win: the first player's
            judged.append(Judged(path.name, game.index, o.position_id, o.kind, o.best,
                                 gnubg_best(g), gnubg_loss(g, o.best),
                                 close(g) or o.best == "double", win, g.chances[0]))
    return judged, skipped


def _judge_job(job: tuple[Path, str]) -> tuple[list[Judged], int]:
    return judge_file(*job)


def summary(judged: Sequence[Judged]) -> dict[str, Any]:
    """The counts and mean losses (mEMG a decision) of ``judged``."""
    def wrong(kind: str, ours: set[str], theirs: set[str]) -> int:
        return sum(j.kind == kind and j.ours in ours and j.gnubg in theirs for j in judged)

    close_ones = [j for j in judged if j.close]
    return {
        "decisions": len(judged),
        "close": len(close_ones),
        "missed_doubles": wrong("double", {"no double", "too good"}, {"double"}),
        "wrong_doubles": wrong("double", {"double"}, {"no double", "too good"}),
        "wrong_takes": wrong("take", {"take"}, {"drop"}),
        "wrong_drops": wrong("take", {"drop"}, {"take"}),
        "memg": 1000 * sum(j.loss for j in judged) / len(judged) if judged else 0.0,
        "memg_close": (1000 * sum(j.loss for j in close_ones) / len(close_ones)
                       if close_ones else 0.0),
        "total_emg": sum(j.loss for j in judged),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path,
                        help="the .mat files (default ../shared/mat/gnubg_selfplay_*.mat)")
    parser.add_argument("--level", default="expert")
    parser.add_argument("--weights", type=Path,
                        help="a weights file (e.g. a training checkpoint) in place of the "
                        "shipped nets")
    parser.add_argument("--jobs", type=int, default=1,
                        help="files analysed at once, one process each (one per core)")
    parser.add_argument("--worst", type=int, default=10, help="list the K worst decisions")
    args = parser.parse_args(argv)
    _setup_worker(args.weights)
    if not gnubg_available():
        print("gnubg is not installed: nothing to judge with", file=sys.stderr)
        return 1
    files = args.files or sorted(SHARED_MAT.glob("gnubg_selfplay_*.mat"))
    jobs = [(path, args.level) for path in files]
    if args.jobs > 1:
        for path in files:  # gnubg's analyses first, one run at a time, so none is made twice
            gnubg_output(path)
            gnubg_sgf(path)
    results = map_files(_judge_job, jobs, args.jobs, args.weights)
    judged: list[Judged] = []
    skipped = 0
    print(f"{'file':34} {'decisions':>9} {'close':>6} {'differ':>6} {'mEMG':>7}")
    for path, (found, left_out) in zip(files, results, strict=True):
        judged.extend(found)
        skipped += left_out
        s = summary(found)
        differ = sum(j.ours != j.gnubg for j in found)
        print(f"{path.name:34} {s['decisions']:9d} {s['close']:6d} {differ:6d} "
              f"{s['memg']:7.2f}" + (f"  ({left_out} games left out)" if left_out else ""),
              flush=True)
    s = summary(judged)
    print(f"\n{args.level} cube decisions judged by gnubg 2-ply: {s['decisions']} "
          f"({s['close']} close) in {len(files)} files, {skipped} games left out; "
          f"missed doubles {s['missed_doubles']}, wrong doubles {s['wrong_doubles']}, "
          f"wrong takes {s['wrong_takes']}, wrong drops {s['wrong_drops']}; "
          f"{s['memg']:.2f} mEMG a decision, {s['memg_close']:.2f} a close one, "
          f"{s['total_emg']:.3f} EMG in all")
    for j in sorted(judged, key=lambda j: -j.loss)[:args.worst]:
        if j.loss > 0:
            print(f"  {j.file} game {j.game + 1} {j.position_id} {j.kind}: ours {j.ours}, "
                  f"gnubg {j.gnubg}, {1000 * j.loss:.0f} mEMG; the doubler wins "
                  f"{100 * j.win:.0f} % by us, {100 * j.gnubg_win:.0f} % by gnubg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
