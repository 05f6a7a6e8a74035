"""The ``checkers`` command: perft, moves, hint, replay, and the terminal game."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from checkers import BLACK, WHITE, Game, Position, legal_moves
from checkers.cli import main
from checkers.cli.terminal import Seats, TerminalGame
from conftest import shared_path

SRC = Path(__file__).resolve().parents[2] / "src"


def run(
    capsys: pytest.CaptureFixture[str], *argv: str, stdin: str | None = None
) -> tuple[int, str, str]:
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        status = main(list(argv))
    finally:
        sys.stdin = sys.__stdin__
    out, err = capsys.readouterr()
    return status, out, err


# ---------------------------------------------------------------- perft


def test_perft_prints_the_node_count_last(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "perft", "5")
    assert status == 0 and out.split()[-1] == "7361"


def test_perft_divide_and_fen(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "perft", "2", "--divide")
    lines = out.splitlines()
    assert status == 0 and lines[0].split() == ["9-13", "7"] and len(lines) == 8
    assert out.split()[-1] == "49"
    status, out, _ = run(capsys, "perft", "1", "--fen", "B:W14,15,22,23:BK10")
    assert status == 0 and out.split()[-1] == "2"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("perft", "3", "--fen", "B:W1:B1"), "square 1 is given twice"),
        (("perft", "3", "--fen", "Q:W1:B2"), "the side to move 'Q' is not B or W"),
        (("perft", "-1"), "DEPTH must be 0 to 100, not -1"),
        (("perft", "99999"), "DEPTH must be 0 to 100, not 99999"),
    ],
)
def test_perft_refuses_bad_input_with_status_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("checkers perft: ") and message in err


# ---------------------------------------------------------------- moves


def test_moves_json_gives_each_move_as_its_path(capsys: pytest.CaptureFixture[str]) -> None:
    fen = "B:W14,15,22,23:BK10"
    status, out, _ = run(capsys, "moves", fen, Position.start().fen(), "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    assert rows[0] == {"fen": fen, "moves": [[10, 17, 26, 19, 10], [10, 19, 26, 17, 10]]}
    assert rows[1]["moves"][:2] == [[9, 13], [9, 14]] and len(rows[1]["moves"]) == 7


def test_moves_reads_fens_from_standard_input(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys, "moves", "-", "--json", stdin="W:W5:B26\n\nnot a fen\nB:W29:B22,25\n"
    )
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 2
    assert rows[0] == {"fen": "W:W5:B26", "moves": [[5, 1]]}
    assert rows[1]["fen"] == "not a fen" and "is not B or W" in rows[1]["error"]
    assert rows[2] == {"fen": "B:W29:B22,25", "moves": [[22, 26], [25, 30]]}
    assert err.count("\n") == 1 and "line 3: FEN 'not a fen'" in err


def test_moves_as_text_says_when_a_side_has_lost(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "moves", "W:W29:B22,25")
    assert status == 0 and out == "W:W29:B22,25: no legal move: white has lost\n"


# ---------------------------------------------------------------- hint


def test_hint_json_gives_a_legal_move_with_score_and_depth(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shot = "W:W21,26,30:B13,14,17"
    status, out, _ = run(capsys, "hint", shot, "W:W29:B22,25", "--level", "easy", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(rows) == 2
    legal = [list(m.path) for m in legal_moves(Position.from_fen(shot))]
    assert rows[0]["move"] in legal and rows[0]["depth"] >= 1 and isinstance(rows[0]["score"], int)
    assert rows[1] == {"fen": "W:W29:B22,25", "move": None, "score": None, "depth": 0}


def test_hint_gives_no_move_when_the_other_side_has_no_pieces(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "hint", "B:W:B1")
    assert status == 0 and out == "B:W:B1: no move to hint: white has no pieces left and has lost\n"


def test_hint_refuses_a_bad_fen(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "hint", "B:W0:B1")
    assert status == 2 and "argument 1: FEN 'B:W0:B1': '0' is not a square" in err


# ---------------------------------------------------------------- replay


def test_replay_json_reads_every_shared_game(capsys: pytest.CaptureFixture[str]) -> None:
    path = shared_path("checkers", "wiegerw_pdn__OCA_2.0.pdn")
    status, out, err = run(capsys, "replay", str(path), "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and err == ""
    assert len(rows) == 43 and all(row["error"] is None for row in rows)
    assert rows[0]["game"] == 1 and rows[0]["tags"]["Event"] == "Manchester 1841"
    assert rows[0]["result"] == "0-1" and rows[0]["moves"] == 22


BAD_FILE = """[Event "good"]
[Result "1-0"]
1. 11-15 23-19 2. 8-11 22-17 1-0

[Event "bad"]
[Result "0-1"]
1. 11-15 23-19 2. 8-11 22-17 3. 15-10 0-1

[Event "good again"]
1. 9-14 22-18 *
"""


def test_replay_reports_a_bad_move_and_reads_the_other_games(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "games.pdn"
    path.write_text(BAD_FILE, encoding="utf-8")
    status, out, err = run(capsys, "replay", str(path), "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 2 and [row["game"] for row in rows] == [1, 2, 3]
    assert rows[0]["error"] is None and rows[2]["error"] is None and rows[2]["moves"] == 1
    error = rows[1]["error"]
    assert error["move"] == 3 and error["side"] == "black"
    assert "15-10: a man moves forward only" in error["message"]
    assert err.count("\n") == 1 and "game 2" in err
    status, out, _ = run(capsys, "replay", str(path))
    assert status == 2 and "game 2: ? - ?, 2 moves, 0-1: refused at move 3" in out


def test_replay_refuses_a_file_it_cannot_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = run(capsys, "replay", str(tmp_path / "missing.pdn"))
    assert status == 2 and out == "" and "missing.pdn" in err and err.count("\n") == 1
    binary = tmp_path / "binary.pdn"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    status, _, err = run(capsys, "replay", str(binary))
    assert status == 2 and "binary.pdn" in err and err.count("\n") == 1
    empty = tmp_path / "empty.pdn"
    empty.write_text("\n", encoding="utf-8")
    status, _, err = run(capsys, "replay", str(empty))
    assert status == 2 and "no game found" in err


def test_the_console_script_runs_as_a_module() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "checkers", "perft", "3"],
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0 and done.stdout.split()[-1] == "302"


# ---------------------------------------------------------------- play


class Script:
    """Typed lines for the terminal game, and what it wrote."""

    def __init__(self, lines: list[str]) -> None:
        self.lines: Iterator[str] = iter(lines)
        self.out: list[str] = []
        self.prompts: list[str] = []

    def read(self, prompt: str) -> str:
        self.prompts.append(prompt)
        try:
            return next(self.lines)
        except StopIteration:
            raise EOFError from None

    def write(self, text: str) -> None:
        self.out.append(text)

    @property
    def text(self) -> str:
        return "\n".join(self.out)


def test_pass_and_play_moves_explains_refusals_and_saves(tmp_path: Path) -> None:
    script = Script(
        ["11-15", "23-19", "8-11", "22-17", "11-7", "moves", "undo", "save game.pdn", "quit"]
    )
    game = Game()
    loop = TerminalGame(game, Seats(None), read=script.read, write=script.write)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        assert loop.run() == 0
    text = script.text
    assert "Black plays 11-15." in text and "White plays 22-17." in text
    assert "Not played: 11-7: a man moves forward only" in text
    before = Game.replay([{"move": m} for m in ("11-15", "23-19", "8-11", "22-17")])
    assert "Legal moves: " + " ".join(str(m) for m in before.legal_moves()) in text
    assert [str(m) for m in game.moves] == ["11-15", "23-19", "8-11"]  # undo took 22-17 back
    saved = (tmp_path / "game.pdn").read_text(encoding="utf-8")
    assert "1. 11-15 23-19 2. 8-11 *" in saved and '[Black "Black"]' in saved


def test_a_capture_is_announced_and_the_shorthand_accepted() -> None:
    start = Position.from_fen("B:W18,27:B14,K1")
    script = Script(["moves", "14-17", "14x32", "quit", "y"])
    game = Game(start)
    TerminalGame(game, Seats(None), read=script.read, write=script.write).run()
    assert "Legal moves (a capture must be played): 14x23x32" in script.text
    assert "a capture is available: 14x23x32 must be played" in script.text
    assert [str(m) for m in game.moves] == ["14x23x32"]
    assert game.outcome is not None and game.outcome.winner is BLACK


def test_against_the_computer_it_replies_and_a_saved_game_resumes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    script = Script(["11-15", "save " + str(tmp_path / "g.pdn"), "quit"])
    game = Game()
    TerminalGame(game, Seats(WHITE, "easy"), read=script.read, write=script.write, seed=3).run()
    assert "Checkers: you play Black against the computer (Easy)" in script.text
    assert "You play 11-15." in script.text
    assert "The computer plays" in script.text and len(game.moves) == 2
    status, out, _ = run(capsys, "play", "--resume", str(tmp_path / "g.pdn"), stdin="board\n")
    assert status == 0  # the game resumed, drew the board twice, and ended with the input
    assert out.count("Last move: ") == 2 and "Black to move" in out


def test_resume_refuses_a_finished_or_broken_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    over = tmp_path / "over.pdn"
    over.write_text('[Result "1-0"]\n1. 11-15 1-0\n', encoding="utf-8")
    status, _, err = run(capsys, "play", "--resume", str(over))
    assert status == 2 and "is over (1-0)" in err
    broken = tmp_path / "broken.pdn"
    broken.write_text("1. 22-18 *\n", encoding="utf-8")
    status, _, err = run(capsys, "play", "--resume", str(broken))
    assert status == 2 and "22-18" in err and err.count("\n") == 1


def test_replay_names_a_problem_outside_the_moves_and_warns_of_a_cut_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad_fen = tmp_path / "fen.pdn"
    bad_fen.write_text('[FEN "B:W99:B1"]\n1. 1-6 *\n', encoding="utf-8")
    status, out, err = run(capsys, "replay", str(bad_fen))
    assert status == 2 and "'99' is not a square" in err
    assert out == "game 1: ? - ?, 0 moves, *: refused\n"  # no "move None"
    cut = tmp_path / "cut.pdn"
    cut.write_text('[Result "1/2-1/2"]\n1. 11-15 23-19 2. 8-11\n', encoding="utf-8")
    status, out, err = run(capsys, "replay", str(cut))
    assert status == 0 and out == "game 1: ? - ?, 2 moves, 1/2-1/2: ok\n"
    assert "warning: game 1 has no result after its moves (the file may be cut short)" in err


def test_replay_refuses_a_result_the_moves_contradict(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    wrong = tmp_path / "wrong.pdn"
    wrong.write_text('[SetUp "1"]\n[FEN "B:W18:B14"]\n1. 14x23 0-1\n', encoding="utf-8")
    status, _, err = run(capsys, "replay", str(wrong))
    assert status == 2 and "line 3: the result says 0-1, but white has no legal move after " \
        "the moves: black won (1-0)" in err
    over = tmp_path / "over.pdn"
    over.write_text('[SetUp "1"]\n[FEN "W:W:B14"]\n0-1\n', encoding="utf-8")
    status, _, err = run(capsys, "replay", str(over))
    assert status == 2 and "white has no legal move from the start: black won (1-0)" in err
    over.write_text('[SetUp "1"]\n[FEN "W:W:B14"]\n1-0\n', encoding="utf-8")
    status, out, _ = run(capsys, "replay", str(over))
    assert status == 0 and out == "game 1: ? - ?, 0 moves, 1-0: ok\n"  # no move: 0, not 1
    right = tmp_path / "right.pdn"
    right.write_text('[SetUp "1"]\n[FEN "B:W18:B14"]\n1. 14x23 1-0\n', encoding="utf-8")
    assert run(capsys, "replay", str(right))[0] == 0


def test_replay_reads_a_windows_1252_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    latin = tmp_path / "latin.pdn"
    latin.write_bytes('[Black "Ren\u00e9 Mu\u00f1oz"]\n1. 11-15 *\n'.encode("cp1252"))
    status, out, _ = run(capsys, "replay", str(latin))
    assert status == 0 and out == "game 1: Ren\u00e9 Mu\u00f1oz - ?, 1 move, *: ok\n"


def test_undo_after_a_draw_offer_and_answers_asked_again() -> None:
    # Black declines White's offer only after being asked again; undo then takes back
    # Black's move with the offer
    script = Script(["11-15", "draw", "23-19", "n", "undo", "board", "resign", "moves", "y",
                     ""])
    game = Game()
    TerminalGame(game, Seats(None), read=script.read, write=script.write).run()
    text = script.text
    assert text.count("Please answer y or n.") == 2  # 23-19 and moves are not answers
    assert "The draw is declined; play on." in text and "Taken back." in text
    assert game.moves == [] and game.outcome is not None and game.outcome.winner is WHITE
    assert "Black: 12 men, 0 kings; White: 12 men, 0 kings" in text
    assert script.prompts[-1] == "Resign the game? [y/n] "  # no move: nothing to save


def test_a_finished_game_can_be_saved_and_one_piece_is_said_so(tmp_path: Path) -> None:
    script = Script(["14x23", "save " + str(tmp_path / "won.pdn")])
    game = Game(Position.from_fen("B:W18:BK14"))
    TerminalGame(game, Seats(None), read=script.read, write=script.write).run()
    assert "Black: 0 men, 1 king; White: 1 man, 0 kings" in script.text
    assert script.prompts[-1] == "Type save [FILE] to keep the game, or press Enter to leave> "
    assert "1. 14x23 1-0" in (tmp_path / "won.pdn").read_text(encoding="utf-8")


def test_replay_prints_names_with_control_characters_as_codes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    named = tmp_path / "named.pdn"
    named.write_text('[Black "Ann\x1b[2J"]\n1. 11-15 *\n', encoding="utf-8")
    status, out, _ = run(capsys, "replay", str(named))
    assert status == 0 and out == "game 1: Ann\\x1b[2J - ?, 1 move, *: ok\n"


def test_ctrl_c_stops_a_command_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from checkers.cli import commands

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "run_perft", interrupted)
    status, out, err = run(capsys, "perft", "15")
    assert status == 130 and out == "" and err == "\ncheckers perft: interrupted\n"


def test_binary_data_is_refused_as_such(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    garbage = tmp_path / "garbage.pdn"
    garbage.write_bytes(bytes(range(256)) * 4)
    status, out, err = run(capsys, "replay", str(garbage))
    assert status == 2 and out == ""
    assert err == (f"checkers replay: {garbage}: not a PDN text: the file holds binary data, "
                   "not text\n")
    from checkers.adapter import RULES
    from gametable.errors import ActionRefused

    with pytest.raises(ActionRefused, match="binary data") as refused:  # the page's import
        RULES.open_pdn((bytes(range(256)) * 4).decode("latin-1"))
    assert refused.value.code == "pdn_unreadable"
