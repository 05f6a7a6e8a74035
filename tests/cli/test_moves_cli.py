"""``backgammon moves POSITION_ID DICE``."""

from __future__ import annotations

import json

import pytest

from backgammon.cli import main


def test_moves_lists_every_play_with_result_ids(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["moves", "4HPwATDgc/ABMA", "31"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 16
    assert "8/5 6/5      sGfwATDgc/ABMA" in lines


def test_moves_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["moves", "4HPwATDgc/ABMA", "6-6", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["dice"] == [6, 6]
    assert {"play": "24/18(2) 13/7(2)", "result_id": "4NvBwQDgc/ABMA"} in data["plays"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["moves", "4HPwATDgc/ABMA", "71"], "dice must be two digits 1-6"),
        (["moves", "4HPwATDgc/ABM", "31"], "13 characters, expected 14"),
        (["moves", "4HPwATDgc/AB!A", "31"], "Position ID"),
        (["moves", "AAAAAAAAAAAAAA", "31"], "the game in that position is over"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_position_says_a_game_is_over(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["position", "AAAAAAAAAAAAAA"]) == 0
    assert "the game is over: White has borne off all 15; cube 1" in capsys.readouterr().out


def test_ctrl_c_stops_a_command_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from backgammon.cli import moves_command

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(moves_command, "run", interrupted)
    assert main(["moves", "4HPwATDgc/ABMA", "31"]) == 130
    assert capsys.readouterr().err == "\nbackgammon moves: interrupted\n"
