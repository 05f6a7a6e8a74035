"""``backgammon convert IN OUT``, ``backgammon position ID`` and ``backgammon replay
FILE.sgf``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backgammon.cli import main
from backgammon.records.mat import read_and_replay
from backgammon.records.sgf import read_and_replay_sgf
from gnubg_support import final_score, needs_gnubg, run_gnubg

DATA = Path(__file__).resolve().parents[1] / "data"
MAT = DATA / "mat" / "gnubg_selfplay_1p_s1026.mat"
START_BOARD = [
    " +13-14-15-16-17-18------19-20-21-22-23-24-+   O black  pips 167  off  0",
    " | X           O    |   | O              X |",
]


def positions(path: Path) -> list[object]:
    replay = (read_and_replay_sgf if path.suffix == ".sgf" else read_and_replay)(
        path.read_bytes())
    return [(t.color, t.position) for g in replay.match.games for t in g.history]


def test_convert_mat_to_sgf_and_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sgf = tmp_path / "match.sgf"
    assert main(["convert", str(MAT), str(sgf)]) == 0
    assert capsys.readouterr().out == f"{sgf}: 1 game, gnubg 1 - 0 root\n"
    assert sgf.read_text(encoding="utf-8").startswith("(;FF[4]GM[6]CA[UTF-8]")
    back = tmp_path / "back.mat"
    assert main(["convert", str(sgf), str(back)]) == 0
    assert positions(sgf) == positions(back) == positions(MAT)
    assert back.read_text(encoding="utf-8").startswith(" 1 point match\n\n Game 1\n gnubg : 0")


def test_convert_to_standard_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", str(MAT), "-", "--to", "sgf"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("(;FF[4]GM[6]") and out.count("(;FF[4]") == 1


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["convert", str(MAT), "out.txt"], 2, "cannot tell the format of 'out.txt'"),
        (["convert", str(MAT), "-"], 2, "cannot tell the format of '-'"),
        (["convert", "/nonexistent/x.mat", "out.sgf"], 2, "cannot read /nonexistent/x.mat"),
    ],
)
def test_convert_refuses(argv: list[str], status: int, message: str,
                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == status
    assert message in capsys.readouterr().err


def test_convert_a_bad_file_writes_nothing(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.sgf"
    bad = DATA / "mat_variants" / "error_order.mat"
    assert main(["convert", str(bad), str(out)]) == 1
    assert "line 11: illegal or unparsable play '20/18 6/5'" in capsys.readouterr().err
    assert not out.exists()


def test_replay_reads_sgf(capsys: pytest.CaptureFixture[str]) -> None:
    sgf = DATA / "sgf" / "gnubg_selfplay_5p_s1004.sgf"
    assert main(["replay", str(sgf), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "match_length": 5, "score": [7, 0],
        "games": [{"winner": 0, "points": 2}, {"winner": 0, "points": 2},
                  {"winner": 0, "points": 3}]}
    assert main(["replay", str(sgf)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "gnubg vs root, 5-point match"
    assert out[-1] == "Final score: gnubg 7, root 0 (match complete)"


@needs_gnubg
def test_gnubg_loads_a_converted_file(tmp_path: Path) -> None:
    sgf = tmp_path / "converted.sgf"
    assert main(["convert", str(DATA / "mat_variants" / "wins_midgame.mat"), str(sgf)]) == 0
    assert final_score(run_gnubg([f"load match {sgf}", "show score"], tmp_path)) == (1, 6)


# --------------------------------------------------------------------------------------------
# position


def test_position_of_an_xgid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["position", "XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:2:1:0:5:10"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == START_BOARD
    assert lines[6].endswith("White to move")
    assert lines[13:] == [
        "White to play 5-2; cube 2, owned by black; 5-point match, White 2, Black 1",
        "Position ID: 4HPwATDgc/ABMA",
        "Match ID:    EYGqACAACAAE",
        "XGID:        XGID=-b----E-C---eE---c-e----B-:1:-1:1:52:2:1:0:5:10",
    ]


@pytest.mark.parametrize("argv", [["position", "4HPwATDgc/ABMA:cAkAAAAAAAAA"],
                                  ["position", "4HPwATDgc/ABMA", "cAkAAAAAAAAA"]])
def test_position_of_ids(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == START_BOARD and lines[6].endswith("Black to move")
    assert lines[13:] == [
        "Black to roll; cube 1, centred; money play (Jacoby rule)",
        "Position ID: 4HPwATDgc/ABMA",
        "Match ID:    cAkAAAAAAAAA",
        "XGID:        XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:1:0:10",
    ]


def test_position_id_alone_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["position", "sGfwATDgc/ABMA", "--turn", "black", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["turn"] == "black" and data["dice"] is None and data["match_length"] == 0
    assert data["points"][5:9] == [2, 4, 0, 2]  # White's 8/5 6/5 after the opening 3-1
    assert data["xgid"] == "XGID=-b---BD-B---eE---c-e----B-:0:0:-1:00:0:0:0:0:10"
    assert data["position_id"] == "sGfwATDgc/ABMA" and data["match_id"] == "cAkAAAAAAAAE"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["position", "4HPwATDgc/AB"], "invalid Position ID '4HPwATDgc/AB': 12 characters"),
        (["position", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0"],
         "9 fields separated by ':'"),
        (["position", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "--turn",
          "black"], "an XGID says everything"),
        (["position", "4HPwATDgc/ABMA:cAkAAAAAAAA"], "invalid Match ID 'cAkAAAAAAAA'"),
    ],
)
def test_position_bad_input(argv: list[str], message: str,
                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_utf16_file_piped_in_reads_as_by_its_path(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    wide = tmp_path / "wide.mat"
    wide.write_bytes(MAT.read_text(encoding="utf-8").encode("utf-16"))
    assert main(["replay", str(wide)]) == 0
    by_path = capsys.readouterr().out
    assert "gnubg" in by_path
    piped = io.TextIOWrapper(io.BytesIO(wide.read_bytes()))
    monkeypatch.setattr(sys, "stdin", piped)
    assert main(["replay", "-"]) == 0
    assert capsys.readouterr().out == by_path


def test_convert_says_what_a_mat_file_cannot_hold(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A first game after the Crawford game, picked up at 4-2 with no double in it: the .mat
    file cannot say so (it reads back as the Crawford game), and convert warns."""
    sgf = tmp_path / "after.sgf"
    sgf.write_text("(;FF[4]GM[6]MI[length:5][game:2][ws:4][bs:2]PW[Ann]PB[Bob]RU[Crawford]"
                   "RE[B+1R]\n;B[51lqst];W[65mgmh])", encoding="utf-8")
    out = tmp_path / "after.mat"
    assert main(["convert", str(sgf), str(out)]) == 0
    err = capsys.readouterr().err
    assert (f"warning: {out}: game 1, at 4-2, reads back as the Crawford game: the file "
            "cannot say which it is") in err
    assert main(["convert", str(sgf), str(tmp_path / "same.sgf")]) == 0
    assert "reads back" not in capsys.readouterr().err


def test_names_from_a_file_cannot_drive_the_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A player's name holding an escape sequence (clear the screen) or rich's markup is
    printed as written, the escape as its code."""
    named = tmp_path / "named.mat"
    named.write_text(MAT.read_text(encoding="utf-8").replace(
        " gnubg : 0", " Ann\x1b[2J[bold]x : 0"), encoding="utf-8")
    for argv in (["replay", str(named)], ["analyze", str(named), "--level", "easy"],
                 ["convert", str(named), str(tmp_path / "out.sgf")]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert "\x1b" not in out and "Ann\\x1b[2J[bold]x" in out, argv


def test_an_empty_file_is_said_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("empty.sgf", "empty.mat"):
        (tmp_path / name).write_text("\n  \n", encoding="utf-8")
        assert main(["replay", str(tmp_path / name)]) == 1
        assert capsys.readouterr().err.strip() == (
            f"backgammon replay: {tmp_path / name}: the file is empty: no match in it")
