"""GNU Backgammon SGF: the letters, the cube, resignations, bad input with lines, round trips,
what gnubg saves read by us, and what we write loaded by gnubg."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from backgammon.core.dice import FixedDice
from backgammon.core.match import Match
from backgammon.core.types import BLACK, WHITE
from backgammon.records.mat import format_mat, read_and_replay
from backgammon.records.sgf import (
    SgfParseError,
    SgfReplayError,
    format_sgf,
    read_and_replay_sgf,
    read_sgf_or_mat,
)
from conftest import find_shared_dir, shared_path
from gnubg_support import final_score, needs_gnubg, run_gnubg

DATA = Path(__file__).resolve().parents[1] / "data"

ROOT = "(;FF[4]GM[6]CA[UTF-8]MI[length:3][game:0][ws:0][bs:0]PW[Ann]PB[Bob]RU[Crawford]"


def plays(match: Match) -> list[Any]:
    """Each game's plays (who, dice high first, position after) and its winner and points."""
    return [([(t.color, None if t.dice is None else tuple(sorted(t.dice)), t.position)
              for t in g.history if t.action == "move"],
             None if g.outcome is None else (g.outcome.winner, g.outcome.points))
            for g in match.games]


def signature(match: Match) -> list[Any]:
    """Each game's turns (who, what, dice high first, position after) and its outcome; the
    resignation offers are left out (a record writes only the result)."""
    return [([(t.color, t.action, None if t.dice is None else tuple(sorted(t.dice)),
               t.position) for t in g.history if t.action not in ("resign", "accept",
                                                                   "decline", "timeout")],
             None if g.outcome is None else (g.outcome.winner, g.outcome.points))
            for g in match.games]


def test_a_small_match() -> None:
    text = (ROOT + "RE[B+1]\n"
            ";B[31qtst]\n"      # Black: 8/5 6/5 (Black's letter q is its 8-point)
            ";W[64xrmi]\n"      # White: 24/18 13/9
            ";B[double]\n"
            ";W[drop])\n")
    replay = read_and_replay_sgf(text)
    game = replay.match.current
    assert [(t.color, t.text) for t in game.history] == [
        (BLACK, "8/5 6/5"), (WHITE, "24/18 13/9"), (BLACK, "Doubles => 2"), (WHITE, "Drops")]
    assert replay.score == (0, 1) and replay.record.names == ("Ann", "Bob")
    assert replay.record.match_length == 3 and not replay.complete
    assert replay.results[0].kind == "drop"


def test_dance_beaver_resignation_after_rolling_and_analysis_are_read() -> None:
    text = ("(;FF[4]GM[6]MI[length:0][game:0][ws:0][bs:0]PW[Ann \\] Co]PB[Bob]RE[W+4]\n"
            ";W[31hefe]A[0][hefe E ver 3 0.5 0.1 0.0 0.1 0.0 0.2 0C 0 1 0.0 1]LU[0.1]\n"
            ";B[double]C[a comment with \\] and\n two lines]\n"
            ";W[double]\n"
            ";B[take]\n"
            ";B[65aglq]\n"
            ";W[double]\n"
            ";B[drop])\n"
            "(;FF[4]GM[6]MI[length:0][game:1][ws:4][bs:0]PW[Ann \\] Co]PB[Bob]RE[W+1R]\n"
            ";W[65xrmh]\n"
            ";PL[B]DI[65])\n")
    replay = read_and_replay_sgf(text)
    assert replay.record.names == ("Ann ] Co", "Bob")
    assert replay.match.beavers and replay.score == (5, 0)
    first, second = replay.match.games
    assert [t.text for t in first.history][1:4] == ["Doubles => 2", "Beavers => 4", "Takes"]
    assert second.outcome is not None and second.outcome.kind == "resign"
    assert any("rolled 65 with legal plays but played nothing" in w for w in replay.warnings)


def test_a_roll_that_cannot_be_played() -> None:
    # From a .mat whose second player dances with 1-1 (see test_mat_variants).
    mat = read_and_replay((DATA / "mat_variants" / "cannot_move.mat").read_bytes())
    text = format_sgf(mat.match)
    assert ";B[11]\n" in text
    again = read_and_replay_sgf(text)
    assert signature(again.match) == signature(mat.match)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("(;FF[4]GM[1]SZ[19];B[pd])", 1, "GM[1] is not backgammon (GM[6])"),
        (ROOT + "\n;B[31qtst]\n;W[64xrmi", 3, "the value of W is not closed"),
        (ROOT + "\n;B[31qtst]\n;W[64xrm])", 3, "the move '64xrm' has 3 letters"),
        (ROOT + "\n;B[31q!st])", 2, "cannot read the move '31q!st'"),
        (ROOT + "\n;B[31qtst]\n;W[double now])", 3, "cannot read the move 'double now'"),
        (ROOT + "AB[a][b])", 1, "AB[...] sets up a position"),
        (ROOT + "\n;B[31qtst]\n;CV[4])", 3, "CV[4] sets the position or the cube"),
        (ROOT + "\n;B[31qtst] what)", 2, "unexpected 'what)'"),
        ("hello", 1, "unexpected 'hello'"),
        (ROOT + "\n;B[31qtst]W[64xrmi])", 2, "a node with moves for both W and B"),
    ],
)
def test_bad_files_name_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(SgfParseError, match=re.escape(message)) as info:
        read_and_replay_sgf(text)
    assert info.value.line == line


def test_an_illegal_play_is_reported_with_its_line() -> None:
    text = ROOT + "\n;B[31qtst]\n;W[64xrma])"  # 13/1 with a 6-4
    with pytest.raises(SgfReplayError, match="illegal or unparsable play '24/18 13/1'") as info:
        read_and_replay_sgf(text)
    assert info.value.line == 3


def test_the_first_problem_is_reported() -> None:
    # An illegal play on line 3, a syntax error on line 5: line 3 is reported.
    text = ROOT + "\n;B[31qtst]\n;W[64xrma]\n;B[66]\n;W[6!]\n)"
    with pytest.raises(SgfReplayError) as info:
        read_and_replay_sgf(text)
    assert info.value.line == 3


def test_a_result_that_disagrees_with_the_board() -> None:
    text = ROOT + "RE[B+1]\n;B[31qtst]\n;W[double]\n;B[drop])"
    message = "the file says the second player (Bob) wins 1"
    with pytest.raises(SgfReplayError, match=re.escape(message)):
        read_and_replay_sgf(text)


def play_match(seed: int, length: int) -> Match:
    from test_mat import play_random_match

    return play_random_match(seed, length)


def beaver_session() -> Match:
    match = Match(0, beavers=True, names=("Ann", "Bob"),
                  dice=FixedDice([(3, 1)] + [(6, 5)] * 9))
    game = match.current
    game.roll()
    game.play("8/5 6/5")
    game.double()
    game.beaver()
    game.take()
    game.roll()
    game.play(game.legal_plays()[0])
    game.double()
    game.drop()
    match.new_game()
    game = match.current
    game.roll()
    game.play(game.legal_plays()[0])
    game.roll()
    game.resign(BLACK, "single")
    game.accept_resignation()
    return match


MATCHES = {f"random:{seed}": (seed, length) for seed, length in
           ((0, 1), (1, 3), (2, 5), (3, 7), (4, 9), (5, 11))}


def a_match(name: str) -> Match:
    if name == "beavers":
        return beaver_session()
    seed, length = MATCHES[name]
    return play_match(seed, length)


@pytest.mark.parametrize("name", [*MATCHES, "beavers"])
def test_write_then_read_gives_the_same_match(name: str) -> None:
    match = a_match(name)
    text = format_sgf(match)
    replay = read_and_replay_sgf(text)
    assert signature(replay.match) == signature(match)
    assert replay.score == match.score and replay.record.names == match.names
    assert format_sgf(replay.match) == text


def test_the_written_layout_is_gnubgs() -> None:
    match = Match(3, names=("Ann", "Bob"), dice=FixedDice([(1, 3), (6, 4)]))
    game = match.current
    game.roll()
    game.play("8/5 6/5")
    game.roll()
    game.play("24/18 13/9")
    game.double()
    game.drop()
    assert format_sgf(match) == (
        "(;FF[4]GM[6]CA[UTF-8]AP[backgammon]MI[length:3][game:0][ws:0][bs:0]PW[Ann]PB[Bob]"
        "RU[Crawford]RE[B+1]\n"
        ";B[31qtst]\n"
        ";W[64xrmi]\n"
        ";B[double]\n"
        ";W[drop])\n"
    )


def test_mat_and_sgf_convert_into_each_other() -> None:
    mat = read_and_replay((DATA / "mat" / "gnubg_selfplay_1p_s1026.mat").read_bytes())
    sgf = read_and_replay_sgf(format_sgf(mat.match))
    back = read_and_replay(format_mat(sgf.match))
    assert signature(back.match) == signature(mat.match) == signature(sgf.match)
    assert read_sgf_or_mat(format_sgf(mat.match)).score == read_sgf_or_mat(
        format_mat(mat.match)).score


def test_files_gnubg_saved() -> None:
    """SGF files GNU Backgammon 1.07 saved (its import of our shared .mat files, one
    analysed): the same plays and score as the .mat."""
    for sgf_name, mat_name in (("gnubg_selfplay_5p_s1004.sgf", None),
                               ("gnubg_selfplay_1p_s1020_analysed.sgf",
                                "gnubg_selfplay_1p_s1020.mat")):
        replay = read_and_replay_sgf((DATA / "sgf" / sgf_name).read_bytes())
        if mat_name is not None:
            mat = read_and_replay((DATA / "mat" / mat_name).read_bytes())
            assert signature(replay.match) == signature(mat.match)
        else:
            assert replay.score == (7, 0) and len(replay.match.games) == 3
            assert [g.settings.crawford for g in replay.match.games] == [False, False, True]


# --------------------------------------------------------------------------------------------
# With GNU Backgammon


def shared_names() -> list[str]:
    base = find_shared_dir()
    path = base / "mat" / "expected.json" if base else None
    if path is None or not path.exists():
        return ["(reference data absent)"]
    cases = json.loads(path.read_text(encoding="utf-8"))
    # Left out: a file with an illegal play and one without a header (gnubg imports neither
    # as a match), and one where gnubg plays the only legal play of a roll the player
    # resigned after (we read the roll as not played, as the .mat writes it).
    skip = {"TGSBot__MrDoc.mat", "TGSBot__You_vs_AVZ_1214295791952.mat"}
    return sorted(name for name, case in cases.items() if "problem" not in case
                  and name not in skip)


@pytest.fixture(scope="module")
def gnubg_saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every shared .mat imported by gnubg and saved as SGF (one gnubg run)."""
    workdir = tmp_path_factory.mktemp("gnubg-sgf")
    commands = []
    saved = {}
    for name in shared_names():
        path = workdir / f"{name}.sgf"
        commands += [f"import mat {shared_path('mat', name)}", f"save match {path}"]
        saved[name] = path
    run_gnubg(commands, workdir, timeout=300)
    return saved


@needs_gnubg
@pytest.mark.parametrize("name", shared_names())
def test_what_gnubg_saves_reads_as_the_mat(name: str, gnubg_saved: dict[str, Path]) -> None:
    # The same plays and results; not always the same cube actions: gnubg reads TGSBot's
    # garbled 'Drops' (see test_mat) as a resignation, we as a double and a drop.
    ours = read_and_replay(shared_path("mat", name))
    theirs = read_and_replay_sgf(gnubg_saved[name])
    assert plays(theirs.match) == plays(ours.match)
    assert theirs.score == ours.score and theirs.record.names == ours.record.names


@needs_gnubg
@pytest.mark.parametrize("name", [*MATCHES, "beavers"])
def test_gnubg_loads_what_we_write(name: str, tmp_path: Path) -> None:
    match = a_match(name)
    path = tmp_path / "ours.sgf"
    path.write_text(format_sgf(match), encoding="utf-8")
    back = tmp_path / "back.mat"
    output = run_gnubg([f"load match {path}", "show score", f"export match mat {back}"],
                       tmp_path)
    assert final_score(output) == match.score
    # gnubg's own .mat of what it loaded: the same match.
    assert signature(read_and_replay(back).match) == signature(match)
