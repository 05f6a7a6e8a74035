"""``backgammon replay FILE.mat [--positions] [--json]``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from backgammon.cli import main
from backgammon.core.ids import decode_match_id
from backgammon.core.position import Position
from backgammon.core.types import BLACK
from conftest import find_shared_dir, shared_path
from scenarios import SMALL_MAT


def expected_names() -> list[str]:
    base = find_shared_dir()
    path = base / "mat" / "expected.json" if base else None
    if path is None or not path.exists():
        return ["(reference data absent)"]
    return sorted(json.loads(path.read_text(encoding="utf-8")))


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "small.mat"
    path.write_text(SMALL_MAT, encoding="utf-8")
    return path


def test_prints_plays_and_final_score(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(small)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "Ann vs Bob, 3-point match",
        "",
        "Game 1: Ann 0, Bob 0",
        "   1  Ann  31: 8/5 6/5",
        "   2  Bob  64: 24/18 13/9",
        "   3  Ann  Doubles => 2",
        "   4  Bob  Drops",
        "      Ann wins 1 point (drop)",
        "",
        "Final score: Ann 1, Bob 0 (match not complete)",
    ]


def test_positions_print_position_and_match_ids(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", str(small), "--positions"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if re.match(r"\s+\d+  ", line)]
    ids = [line.split()[-2:] for line in rows]
    assert len(ids) == 4
    # After Ann's 8/5 6/5, Bob on roll: the Position ID `backgammon moves` gives that play.
    after_first = Position.start().with_turn(BLACK)
    assert ids[0][0] == "sGfwATDgc/ABMA" != after_first.id()
    state = decode_match_id(ids[0][1])
    assert (state.match_length, state.score, state.player_on_roll, state.cube_value) == (
        3, (0, 0), 1, 1)
    doubled = decode_match_id(ids[2][1])
    assert doubled.doubled and doubled.turn == 1 and doubled.player_on_roll == 0
    over = decode_match_id(ids[3][1])
    assert over.game_state == "dropped"


def test_json_summary(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(small), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "match_length": 3, "games": [{"winner": 0, "points": 1}], "score": [1, 0]}


def test_json_with_positions(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(small), "--json", "--positions"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    turns = data["games"][0]["turns"]
    assert [t["text"] for t in turns] == ["31: 8/5 6/5", "64: 24/18 13/9", "Doubles => 2",
                                          "Drops"]
    assert turns[0]["position_id"] == "sGfwATDgc/ABMA" and turns[0]["player"] == 0


@pytest.mark.parametrize("name", expected_names())
def test_json_matches_expected_for_every_shared_file(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    case = json.loads(shared_path("mat", "expected.json").read_text(encoding="utf-8"))[name]
    status = main(["replay", str(shared_path("mat", name)), "--json"])
    captured = capsys.readouterr()
    if "problem" in case:
        assert status == 1 and captured.out == ""
        assert case["problem"] in captured.err
        return
    assert status == 0
    data = json.loads(captured.out)
    who = {"first": 0, "second": 1, None: None}
    assert data == {
        "match_length": case["match_length"],
        "games": [{"winner": who[g["winner"]], "points": g["points"]} for g in case["games"]],
        "score": case["final_score"],
    }


def test_bad_file_prints_the_line_numbered_error(capsys: pytest.CaptureFixture[str]) -> None:
    path = shared_path("mat", "TGSBot__yonay.mat")
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"backgammon replay: {path}: line 18: illegal or unparsable play "
                          "'8/6 12/9' for the second player 32")


def test_warnings_go_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(shared_path("mat", "TGSBot__MrDoc.mat"))]) == 0
    captured = capsys.readouterr()
    assert "line 5: game 1 has no result" in captured.err
    assert "unfinished" in captured.out and "match of unknown length" in captured.out


def test_malformed_text_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.mat"
    path.write_text(" 3 point match\n\n Game 1\n A : 0   B : 0\n  1) 31: 8/5 6/5 ???\n")
    assert main(["replay", str(path)]) == 1
    assert "line 5: cannot read '???'" in capsys.readouterr().err


def test_missing_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "none.mat")]) == 2
    assert "cannot read" in capsys.readouterr().err
