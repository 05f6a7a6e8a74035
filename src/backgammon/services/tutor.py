"""The tutor: what a play or a cube action about to be made costs, before it is final.

:func:`tutor_check` answers for the person about to act in a local game: the checker play
made on the board (before Done), a double or the roll instead of one, and the answer to a
double (take, pass, beaver). It uses the hint's own evaluation
(:func:`~backgammon.services.analysis_jobs.evaluation_for`'s ranking of the plays at Expert,
and its cube equities), and measures the loss as the analysis does (``analysis._double_decision``,
``_take_decision``): the best choice's equity minus the choice's, in EMG, never below 0, marked
with GNU Backgammon's thresholds (:func:`backgammon.analysis.mark`: doubtful 0.04, bad 0.08,
very bad 0.16). The page warns when the loss passes the person's threshold; online games
never ask (the page's tutor is for local games only).
"""

from __future__ import annotations

from typing import Any, Final, Literal

from backgammon.ai.choose import default_evaluator, play_utility, rank_plays
from backgammon.ai.levels import get_level
from backgammon.ai.netsearch import NetEvaluator
from backgammon.ai.player import cube_state
from backgammon.analysis import emg_scale, mark
from backgammon.core.game import Game, Phase
from backgammon.core.moves import legal_plays
from backgammon.core.notation import format_play
from backgammon.services.analysis_jobs import HINT_PLAYS, evaluation_for

#: The actions the tutor judges: ``done`` ends a checker play; ``roll`` instead of a double
#: that was possible; ``double``; the answers ``take``, ``drop`` and ``beaver``.
TutorAction = Literal["done", "roll", "double", "take", "drop", "beaver"]
ACTIONS: Final = ("done", "roll", "double", "take", "drop", "beaver")

#: How each action is named in the tutor's sentence.
_SUBJECT: Final = {"done": "This play", "roll": "Rolling without doubling",
                   "double": "Doubling", "take": "Taking", "drop": "Passing",
                   "beaver": "Beavering"}


def _none(reason: str) -> dict[str, Any]:
    return {"kind": "none", "loss": 0.0, "mark": "", "text": "", "reason": reason}


def _verdict(kind: str, action: str, loss: float, played: str, best: str,
             equities: dict[str, float], ply: int | None = None) -> dict[str, Any]:
    loss = round(max(0.0, loss), 3) + 0.0
    word = mark(loss)
    subject = _SUBJECT[action]
    what = {"doubtful": "is doubtful", "bad": "is a bad error",
            "very bad": "is a very bad error"}.get(word, "is an error")
    # a play's depth is said: the hint's table may show the play made at a shallower one
    depth = f" at {ply}-ply" if ply is not None else ""
    text = (f"{subject} {what}: it loses {loss:.3f} equity{depth}" if loss > 0
            else f"{subject} loses nothing.")
    if loss > 0:
        text += f" (the best: {best})."
    return {"kind": kind, "action": action, "loss": loss, "mark": word, "played": played,
            "best": best, "equities": equities, "text": text}


def tutor_check(game: Game, action: str, level: str = "expert") -> dict[str, Any]:
    """What ``action`` costs the side about to make it in ``game``, by the hint's evaluation.

    Args:
        game: the game as it stands (for ``"done"``: the moves of the play made on the board).
        action: one of :data:`ACTIONS`.
        level: the evaluation's level (the hint's: Expert).

    Returns:
        ``{"kind": "play" | "cube" | "take", "action", "loss" (EMG, >= 0, 3 places), "mark"
        ("", "doubtful", "bad", "very bad"), "played", "best" (in words: a play in notation,
        "double", "no double", "take", "pass"), "equities" (EMG, the acting side's view: the
        play's and the best's; a cube decision's no double / double, take / double, pass; an
        answer's take and pass), "text" ("This play is a bad error: it loses 0.094 equity
        at 2-ply (the best: 8/5 6/5).": a play's loss at the depth the best was searched,
        the play made searched as deep)}``; ``{"kind": "none", "loss": 0.0, ..., "reason"}`` where
        there is nothing to judge (no such decision now, a single legal play, a beaver's
        answer).

    Raises:
        ValueError: an action not in :data:`ACTIONS`.
    """
    if action not in ACTIONS:
        raise ValueError(f"action must be one of {', '.join(ACTIONS)}, got {action!r}")
    if action == "done":
        return _play_check(game, level)
    if action in ("roll", "double"):
        if game.phase is not Phase.ROLL:
            return _none("no cube decision now")
        answer = evaluation_for(game, level)
        if answer["kind"] != "cube":
            return _none(answer.get("reason") or "no cube decision now")
        eq = answer["equities"]
        nd, dt, dp = eq["no_double"], eq["double_take"], eq["double_drop"]
        double = min(dt, dp)
        best_eq = max(nd, double)
        best = "double" if double > nd else "no double"
        made = double if action == "double" else nd
        return _verdict("cube", action, best_eq - made, "double" if action == "double"
                        else "no double", best, dict(eq))
    # the answer to a double
    if game.phase is not Phase.DOUBLE_OFFERED or game.cube_offer != "double":
        return _none("no double to answer now")
    answer = evaluation_for(game, level)
    if answer["kind"] != "take":
        return _none("no double to answer now")
    eq = answer["equities"]  # the doubler's view: the taker's is their negation
    take, drop = -eq["double_take"] + 0.0, -eq["double_drop"] + 0.0
    best = "take" if take >= drop else "pass"
    made = drop if action == "drop" else take  # a beaver is a take (and a redouble)
    return _verdict("take", action, max(take, drop) - made,
                    "pass" if action == "drop" else action, best,
                    {"take": round(take, 3), "pass": round(drop, 3)})


def _play_check(game: Game, level: str) -> dict[str, Any]:
    """The checker play made on the board against the hint's ranking: the same
    :func:`~backgammon.ai.choose.rank_plays` call as the hint; the play made, when it was
    searched less deep than the best, searched as deep (as the analysis does)."""
    if game.phase is not Phase.MOVE or game.dice is None:
        return _none("no play to judge now")
    start = game.turn_start
    mover = start.turn
    legal = legal_plays(start, game.dice)
    if len(legal) < 2:
        return _none("the roll has only one play")
    boards = legal.own_boards()
    made_board = game.position.own_points(mover)
    if made_board not in boards:
        return _none("the play is not finished")
    made_index = boards.index(made_board)
    cube = cube_state(game)
    ranked = rank_plays(start, game.dice, level, cube=cube, settle=HINT_PLAYS)
    scale = emg_scale(cube, mover)
    best = ranked[0]
    made_text = format_play(legal[made_index].moves)
    found = next(r for r in ranked if r.play.result.own_points(mover) == made_board)
    value = found.equity
    if found.ply < best.ply:
        evaluator = default_evaluator(get_level(level))
        if isinstance(evaluator, NetEvaluator):
            utility = play_utility(cube, mover)
            probs = evaluator.probs_many([made_board], best.ply, utility)
            value = float(utility.of(probs)[0])
    best_eq, made_eq = scale.emg(best.equity), scale.emg(value)
    return _verdict("play", "done", best_eq - made_eq, made_text,
                    format_play(best.play.moves),
                    {"played": round(made_eq, 3), "best": round(best_eq, 3)}, ply=best.ply)


__all__ = ["ACTIONS", "TutorAction", "tutor_check"]
