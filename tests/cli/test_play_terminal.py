"""``backgammon play`` through a pseudo-terminal (pexpect): what a person at a terminal sees.

A whole game against Easy, an illegal move explained with its rule, save and resume.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from backgammon.cli.terminal import load_game

pexpect = pytest.importorskip("pexpect")

SRC = Path(__file__).resolve().parents[2] / "src"
PROMPTS = [
    r"White to play (\d)-(\d)> ",
    r"White to roll> ",
    r"Press Enter for the next game \(save \[FILE\] keeps the match\)> ",
    r"Game over\.",
]


def spawn(*args: str, cwd: Path) -> pexpect.spawn:
    env = dict(os.environ, PYTHONPATH=str(SRC), COLUMNS="200", LINES="60", TERM="xterm")
    child = pexpect.spawn(sys.executable, ["-m", "backgammon", "play", *args], cwd=str(cwd),
                          env=env, encoding="utf-8", timeout=60, dimensions=(60, 200))
    return child


def first_legal_play(child: pexpect.spawn) -> str:
    child.sendline("moves")
    child.expect(r"Legal plays of \d-\d \(\d+\):\r\n\s+1\. ([^\r\n]+)\r\n")
    return str(child.match.group(1)).strip()


def play_turns(child: pexpect.spawn, turns: int | None) -> int:
    """Play the first legal play at each of White's turns (``turns`` of them, or to the end
    of the game); returns the turns played."""
    played = 0
    while turns is None or played < turns:
        index = child.expect(PROMPTS)
        if index == 0:
            child.sendline(first_legal_play(child))
            child.expect(r"White plays [^\r\n]+\.")
            played += 1
        elif index == 1:
            child.sendline("roll")
        else:
            return played
    return played


def test_whole_game_against_easy(tmp_path: Path) -> None:
    child = spawn("--level", "easy", "--seed", "11", "--no-cube", "--plain", cwd=tmp_path)
    child.expect("you play White against the computer \\(Easy\\)")
    turns = play_turns(child, None)
    assert turns > 5
    assert re.search(r"(White|Black) wins [123] points? \((a single game|a gammon|a backgammon)\)",
                     child.before)
    # the finished game can still be saved
    child.expect(r"Type save \[FILE\] to keep the game, or press Enter to leave> ")
    child.sendline(f"save {tmp_path / 'over.json'}")
    child.expect("Saved to ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    match, _, single = load_game(tmp_path / "over.json")
    assert single and match.current.is_over


def test_illegal_move_is_explained_with_its_rule(tmp_path: Path) -> None:
    child = spawn("--level", "easy", "--seed", "11", "--no-cube", "--plain", cwd=tmp_path)
    child.expect(PROMPTS[:2])
    if child.match.re.pattern == PROMPTS[1]:
        child.sendline("roll")
        child.expect(PROMPTS[0])
    child.sendline("6/off")
    child.expect(r"6/off is not allowed: bearing off needs all 15 checkers home[^\r\n]*"
                 r"\(rule: Bearing off needs all 15 checkers home, WBF Rules of Backgammon "
                 r"4\.1\)")
    child.expect("Nothing was moved")
    child.sendline("bar/20")
    child.expect("bar/20 is not allowed: you have no checker on the bar")
    child.sendline("13/nowhere")
    child.expect(r"'13/nowhere' in '13/nowhere' is not a move like 13/7")
    child.expect(PROMPTS[0])  # still White's turn, nothing moved
    child.sendline("quit")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_save_and_resume(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    child = spawn("--level", "easy", "--seed", "5", "--no-cube", "--plain", cwd=tmp_path)
    assert play_turns(child, 3) == 3
    child.expect(PROMPTS[:2])
    child.sendline(f"save {save}")
    child.expect(f"Saved to {re.escape(str(save))}")
    child.sendline("quit")
    child.expect("Goodbye")
    child.expect(pexpect.EOF)

    match, seats, single = load_game(save)
    assert single and seats.level == "easy" and str(seats.computer) == "black"
    position = match.current.position
    assert len(match.current.history) >= 6

    child = spawn("--resume", str(save), "--plain", cwd=tmp_path)
    child.expect(f"Pips: White {position.pip_count('white')}, Black "
                 f"{position.pip_count('black')}\\.")
    assert play_turns(child, None) > 0  # and the game plays on to its end
    child.expect(r"or press Enter to leave> ")
    child.sendline("")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_resume_of_a_bad_file_says_why(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    child = spawn("--resume", str(bad), cwd=tmp_path)
    child.expect(r"backgammon play: .*bad\.json: not a saved game \(not JSON")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
