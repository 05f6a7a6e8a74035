"""``bench/gnubg_cube.py``: our cube actions judged by gnubg's analysed matches.

The SGF reading is checked on a hand-made match and against gnubg's own statistics of a
3-point self-play match of ``../shared/mat`` (the actions its players took must lose, by the
figures read, what gnubg's ``show statistics match`` says); the losses on equities made with
gnubg's own conversion.
"""

from __future__ import annotations

from typing import Any

import pytest

from conftest import bench_module, shared_path

cube = bench_module("gnubg_cube")

SETTINGS = "E ver 3 2C 1 0.000000 1"


def da(no_double: float, double_take: float) -> str:
    """A ``DA[...]`` property with these cubeful match winning chances."""
    chances = "0.6 0.1 0.0 0.05 0.0 0.2"
    return f"DA[{SETTINGS} {chances} {no_double:.6f} {chances} {double_take:.6f}]"


MATCH = (
    "(;FF[4]GM[6]MI[length:5][game:0][ws:0][bs:0]PW[Alpha]PB[Bravo]"
    f";W[31hgfc]A[0][hgfc E ver 3 0.5 0.1 0.0 0.1 0.0 0.0 2C 0 1 0.000000 1]"
    f";B[52ab]{da(0.45, 0.40)}"
    f";W[double]{da(0.62, 0.66)}"
    f";B[take]{da(0.62, 0.66)}"
    ";W[64xy]"
    f";B[double]{da(0.30, 0.28)}"
    f";W[drop]{da(0.30, 0.28)})"
    "(;FF[4]GM[6]MI[length:5][game:1][ws:2][bs:0]"
    f";B[21xy]{da(0.2, 0.1)})"
)


def test_the_cube_decisions_are_read_in_order_with_the_cube_and_score() -> None:
    games = cube.parse_cube_decisions(MATCH)
    assert [len(g) for g in games] == [5, 1]
    first = games[0]
    assert [(d.kind, d.player, d.acted) for d in first] == [
        ("double", 1, "no double"), ("double", 0, "double"), ("take", 1, "take"),
        ("double", 1, "double"), ("take", 0, "drop")]
    assert [(d.cube, d.owner) for d in first] == [(1, -1), (1, -1), (1, -1), (2, 1), (2, 1)]
    assert first[1].no_double == pytest.approx(0.62) and first[1].double_take == pytest.approx(
        0.66)
    assert first[1].chances == pytest.approx((0.6, 0.1, 0.0, 0.05, 0.0))
    assert all(d.length == 5 and d.score == (0, 0) for d in first)
    assert games[1][0].score == (2, 0) and games[1][0].player == 1


@pytest.mark.parametrize(("text", "words"), [
    ("(;FF[4]GM[6];W[double]DA[E ver 3 2C 1 0.000000 1 0.5])", "no MI"),
    ("(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0];W[double]DA[E ver 3 2C 1 0.000000 1 "
     "0.5 0.5])", "game 1: a DA[...] with 2 figures"),
])
def test_a_malformed_match_is_refused_saying_where(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace(".", r"\.")):
        cube.parse_cube_decisions(text)


def decision(kind: str, no_double: float, double_take: float) -> Any:
    """A decision of player 0 (or the take of player 1) at 0-0 to 5, cube 1 centred, whose
    normalised equities are ``no_double`` and ``double_take`` (gnubg's own conversion)."""
    gnubg = pytest.importorskip("gnubg", reason="GNU Backgammon's Python package is not "
                                "installed")
    info = gnubg.cubeinfo(1, -1, 0, 5, (0, 0), 0, 1)
    return cube.GnubgCube(kind, 0 if kind == "double" else 1, "", gnubg.eq2mwc(no_double, info),
                          gnubg.eq2mwc(double_take, info), (0.5, 0.1, 0.0, 0.1, 0.0), 1, -1,
                          5, (0, 0))


def test_losses_of_double_decisions() -> None:
    double = decision("double", 0.6, 0.8)  # double, take
    assert cube.gnubg_best(double) == "double"
    assert cube.gnubg_loss(double, "double") == pytest.approx(0.0, abs=1e-5)
    assert cube.gnubg_loss(double, "no double") == pytest.approx(0.2, abs=1e-4)
    assert cube.gnubg_loss(double, "too good") == pytest.approx(0.2, abs=1e-4)
    assert cube.close(double)
    too_good = decision("double", 1.1, 1.3)  # playing on beats the pass
    assert cube.gnubg_best(too_good) == "too good"
    assert cube.gnubg_loss(too_good, "double") == pytest.approx(0.1, abs=1e-4)
    assert cube.gnubg_loss(too_good, "no double") == pytest.approx(0.0, abs=1e-5)
    near = decision("double", 0.5, 0.4)
    assert cube.gnubg_best(near) == "no double" and cube.close(near)
    far = decision("double", 0.1, -0.3)
    assert cube.gnubg_best(far) == "no double" and not cube.close(far)
    with pytest.raises(ValueError, match="not a double decision's action: 'take'"):
        cube.gnubg_loss(far, "take")


def test_losses_of_take_decisions() -> None:
    take = decision("take", 0.6, 0.8)  # the doubler's view: the taker keeps -0.8 against -1
    assert cube.gnubg_best(take) == "take"
    assert cube.gnubg_loss(take, "drop") == pytest.approx(0.2, abs=1e-4)
    drop = decision("take", 0.9, 1.2)
    assert cube.gnubg_best(drop) == "drop"
    assert cube.gnubg_loss(drop, "take") == pytest.approx(0.2, abs=1e-4)
    with pytest.raises(ValueError, match="not a take decision's action"):
        cube.gnubg_loss(drop, "double")


def test_the_figures_read_add_up_to_gnubgs_own_statistics() -> None:
    pytest.importorskip("gnubg", reason="GNU Backgammon's Python package is not installed")
    if not cube.gnubg_available():
        pytest.skip("GNU Backgammon (gnubg) is not installed")
    path = shared_path("mat", "gnubg_selfplay_3p_s1003.mat")
    analysis = bench_module("gnubg_analysis")
    games = cube.parse_cube_decisions(analysis.gnubg_sgf(path))
    counted, lost = cube.own_losses(games)
    stated, errors = cube.gnubg_cube_statistics(analysis.gnubg_output(path))
    assert counted == stated and sum(counted) == 30
    assert lost == pytest.approx(errors, abs=0.002)
    # and our own cube actions on the same match: every decision judged, none left out
    judged, skipped = cube.judge_file(path, "hard")
    assert skipped == 0 and len(judged) == 30
    assert all(j.loss >= 0 for j in judged)
    assert {j.gnubg for j in judged} <= {"double", "no double", "too good", "take", "drop"}
    assert sum(j.kind == "take" for j in judged) == sum(d.kind == "take" for g in games for d in g)


def test_statistics_without_a_cube_section_are_refused() -> None:
    with pytest.raises(ValueError, match="no cube statistics"):
        cube.gnubg_cube_statistics("Chequerplay statistics\n")
