"""``backgammon analyze FILE.mat [--json] [--level] [--plies]``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from backgammon.cli import main
from scenarios import SMALL_MAT

PLAYER_KEYS = {"name", "chequer_error_rate_memg", "cube_error_rate_memg", "error_rate_memg",
               "pr", "unforced_moves", "cube_decisions", "doubtful", "bad", "very_bad",
               "luck_emg", "rating"}
DECISION_KEYS = {"player", "kind", "dice", "played", "best", "loss", "mark", "luck"}


def test_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "small.mat"
    path.write_text(SMALL_MAT, encoding="utf-8")
    assert main(["analyze", str(path), "--json", "--level", "hard"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["match_length"] == 3
    assert [p["name"] for p in data["players"]] == ["Ann", "Bob"]
    assert all(set(p) >= PLAYER_KEYS for p in data["players"])
    decisions = data["games"][0]["decisions"]
    assert all(set(d) >= DECISION_KEYS for d in decisions)
    assert [(d["player"], d["kind"], d["played"]) for d in decisions][-2:] == [
        (0, "double", "double"), (1, "take", "drop")]
    assert decisions[-1]["mark"] == "very bad" and decisions[-1]["loss"] > 0.5
    assert data["warnings"] == []


def test_json_says_what_the_reader_made_of_the_file_and_rounds_as_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "game3.mat"
    path.write_text(SMALL_MAT.replace(" 3 point", " 5 point").replace("Game 1", "Game 3")
                    .replace("Ann : 0", "Ann : 1"), encoding="utf-8")
    assert main(["analyze", str(path), "--json", "--plies", "0"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["warnings"] == [
        "line 4: the file starts at game 3, at 1-0: the match is picked up at that score"]
    assert data["games"][0]["score"] == [1, 0]


def test_the_json_figures_round_as_the_table_does() -> None:
    # PR 4.9487: the table says 4.9; JSON rounded to 2 decimals (4.95) made the page say 5.0
    from backgammon.analysis import analyze
    from backgammon.records import read_and_replay

    player = analyze(read_and_replay(SMALL_MAT).match, "hard").players[0]
    data = dataclasses.replace(player, pr=4.9487, chequer_error_rate_memg=12.3456).to_dict()
    assert data["pr"] == 4.9487 and f"{data['pr']:.1f}" == f"{4.9487:.1f}" == "4.9"
    assert data["chequer_error_rate_memg"] == 12.3456


def test_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "small.mat"
    path.write_text(SMALL_MAT, encoding="utf-8")
    assert main(["analyze", str(path), "--plies", "0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Ann vs Bob, 3-point match: analysed at expert (0-ply)")
    assert "drop" in out and "??" in out and "Match" in out
    assert "turn: the game's turns counted from 1" in out


def test_a_bad_file_prints_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.mat"
    path.write_text(SMALL_MAT.replace("64: 24/18 13/9", "64: 24/18 13/3"), encoding="utf-8")
    assert main(["analyze", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}: line 5" in err


def test_a_match_past_the_table_is_refused(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Up to 64 points the match equity table covers; a longer match is refused in words,
    exit status 1, no traceback."""
    path = tmp_path / "long.mat"
    path.write_text(SMALL_MAT.replace(" 3 point", " 65 point"), encoding="utf-8")
    assert main(["analyze", str(path), "--plies", "0"]) == 1
    err = capsys.readouterr().err
    assert f"{path}: a match to 65 points: the analysis covers matches up to 64 points" in err
    assert "Traceback" not in err
    path.write_text(SMALL_MAT.replace(" 3 point", " 26 point"), encoding="utf-8")
    assert main(["analyze", str(path), "--plies", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["match_length"] == 26


def test_signed_figures_never_show_minus_zero() -> None:
    from backgammon.cli.common import signed

    assert [signed(x) for x in (-0.0002, 0.0, -0.0, -0.0006, 0.1234, -1.5)] == [
        "+0.000", "+0.000", "+0.000", "-0.001", "+0.123", "-1.500"]


def test_the_table_says_who_won_each_game_the_crawford_game_and_no_decisions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "crawford.mat"
    path.write_text(SMALL_MAT.replace(" 3 point match", " 2 point match") + """
 Game 2
 Ann : 1                        Bob : 0
  1) 31:
                                  Wins 1 point
""", encoding="utf-8")
    assert main(["analyze", str(path), "--plies", "0", "--level", "easy"]) == 0
    out = capsys.readouterr().out
    assert "Game 1 (Ann 0, Bob 0), Ann wins 1 point: errors" in out
    assert "Game 2 (Ann 1, Bob 0), the Crawford game, Bob wins 1 point: no errors" in out
    game2 = out[out.index("Game 2: players"):out.index("Match")]
    rows = [line for line in game2.splitlines() if "Ann" in line or "Bob" in line]
    assert len(rows) == 2 and all("no decisions" in row for row in rows)
    assert " - " not in game2.replace("─", "")
    path.write_text(SMALL_MAT.replace("      Wins 1 point\n", "").replace("Drops", "Takes"),
                    encoding="utf-8")
    assert main(["analyze", str(path), "--plies", "0", "--level", "easy"]) == 0
    assert "Game 1 (Ann 0, Bob 0), unfinished: " in capsys.readouterr().out


def test_json_rating_is_null_without_decisions(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "none.mat"
    path.write_text(" 0 point match\n\n Game 1\n Ann : 0                        Bob : 0\n"
                    "  1) 31:\n                                  Wins 1 point\n",
                    encoding="utf-8")
    assert main(["analyze", str(path), "--json", "--level", "easy"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["rating"] for p in data["players"]] == [None, None]
    assert data["games"][0]["winner"] == 1 and data["games"][0]["crawford"] is False


def test_plies_three_is_reported_and_four_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "small.mat"
    path.write_text(SMALL_MAT, encoding="utf-8")
    assert main(["analyze", str(path), "--json", "--plies", "3"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["level"], data["plies"]) == ("expert", 3)
    moves = [d for d in data["games"][0]["decisions"] if d["kind"] == "move"]
    assert moves and all(d["loss"] >= 0.0 for d in moves)
    with pytest.raises(SystemExit) as refused:
        main(["analyze", str(path), "--plies", "4"])
    assert refused.value.code == 2
    assert "invalid choice: 4" in capsys.readouterr().err
