"""The tutor (:mod:`backgammon.services.tutor`): what a play or a cube action about to be made
loses by the hint's own evaluation, marked with GNU Backgammon's thresholds."""

from __future__ import annotations

import pytest

from backgammon.ai.choose import default_evaluator, play_utility
from backgammon.ai.levels import get_level
from backgammon.ai.netsearch import NetEvaluator
from backgammon.ai.player import cube_state
from backgammon.analysis import emg_scale, mark
from backgammon.core.game import Game
from backgammon.core.xgid import Xgid
from backgammon.services.analysis_jobs import evaluation_for
from backgammon.services.setup import setup_match
from backgammon.services.tutor import tutor_check

#: The starting position, White to play 3-1.
OPENING_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
#: White well ahead before the roll (a double), and the starting position before the roll.
AHEAD = "XGID=-B-bBBBAB---cC---b-ea--bA-:0:0:1:00:0:0:0:0:10"
START = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def game_at(xgid: str, *moves: str) -> Game:
    game = setup_match(Xgid.parse(xgid)).current
    for move in moves:
        game.move(move)
    return game


def test_the_hints_best_play_loses_nothing() -> None:
    game = game_at(OPENING_31, "8/5", "6/5")
    hint = evaluation_for(game)
    verdict = tutor_check(game, "done")
    assert hint["plays"][0]["play"] == "8/5 6/5"
    assert verdict == {"kind": "play", "action": "done", "loss": 0.0, "mark": "",
                       "played": "8/5 6/5", "best": "8/5 6/5",
                       "equities": {"played": hint["plays"][0]["equity"],
                                    "best": hint["plays"][0]["equity"]},
                       "text": "This play loses nothing."}


def test_a_play_searched_less_deep_is_judged_at_the_bests_depth() -> None:
    """13/9 is ranked at 0-ply in the hint; the tutor scores it at the best's ply (1), as the
    analysis does, and marks the loss with gnubg's words."""
    game = game_at(OPENING_31, "13/10", "10/9")
    hint = evaluation_for(game)
    best = hint["plays"][0]
    row = next(p for p in hint["plays"] if p["play"] == "13/9")
    assert row["ply"] < best["ply"]
    evaluator = default_evaluator(get_level("expert"))
    assert isinstance(evaluator, NetEvaluator)
    cube = cube_state(game)
    utility = play_utility(cube, game.turn_start.turn)
    board = game.position.own_points(game.turn_start.turn)
    deep = float(utility.of(evaluator.probs_many([board], best["ply"], utility))[0])
    played = round(emg_scale(cube, game.turn_start.turn).emg(deep), 3)
    verdict = tutor_check(game, "done")
    assert verdict["equities"] == {"played": played, "best": best["equity"]}
    assert verdict["loss"] == pytest.approx(best["equity"] - played, abs=0.0015)
    assert verdict["loss"] > 0.04 and verdict["mark"] == mark(verdict["loss"])
    words = {"very bad": "a very bad error", "bad": "a bad error", "doubtful": "doubtful"}
    assert verdict["text"] == (f"This play is {words[verdict['mark']]}: it loses "
                               f"{verdict['loss']:.3f} equity at {best['ply']}-ply (the best: "
                               "8/5 6/5).")


def test_cube_actions_lose_what_the_cube_hint_says() -> None:
    ahead = game_at(AHEAD)
    hint = evaluation_for(ahead)
    e = hint["equities"]
    double = min(e["double_take"], e["double_drop"])
    assert double > e["no_double"]  # a double
    rolled = tutor_check(ahead, "roll")
    assert (rolled["kind"], rolled["best"], rolled["played"]) == ("cube", "double", "no double")
    assert rolled["loss"] == round(double - e["no_double"], 3) > 0.08
    assert rolled["text"].startswith(f"Rolling without doubling is a {rolled['mark']} error: "
                                     f"it loses {rolled['loss']:.3f} equity")
    assert tutor_check(ahead, "double")["loss"] == 0.0
    start = game_at(START)
    e = evaluation_for(start)["equities"]
    doubled = tutor_check(start, "double")
    assert doubled["loss"] == round(e["no_double"] - min(e["double_take"], e["double_drop"]), 3)
    assert doubled["mark"] == "very bad" and doubled["best"] == "no double"
    # the answer: a pass of a double at the start gives up a point for a position worth less
    start.double()
    e = evaluation_for(start)["equities"]
    passed = tutor_check(start, "drop")
    assert passed["kind"] == "take" and passed["best"] == "take"
    assert passed["equities"] == {"take": round(-e["double_take"], 3), "pass": -1.0}
    assert passed["loss"] == round(-e["double_take"] + 1.0, 3) > 1.0
    assert passed["text"].startswith("Passing is a very bad error: it loses ")
    assert tutor_check(start, "take")["loss"] == 0.0


def test_nothing_to_judge() -> None:
    assert tutor_check(game_at(OPENING_31, "8/5"), "done")["reason"] == "the play is not finished"
    assert tutor_check(game_at(START), "done")["kind"] == "none"
    assert tutor_check(game_at(OPENING_31), "double")["reason"] == "no cube decision now"
    assert tutor_check(game_at(START), "take")["reason"] == "no double to answer now"
    with pytest.raises(ValueError, match="action must be one of done, roll"):
        tutor_check(game_at(START), "resign")
