"""``backgammon rollout ID``: plays, the cube, JSON, bad input, jobs and Ctrl-C."""

from __future__ import annotations

import dataclasses
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from backgammon.cli import main
from backgammon.core.xgid import Xgid

#: White on roll, far ahead (gnubg self-play).
AHEAD = "XGID=-B-bBBBAB---cC---b-ea--bA-:0:0:1:00:0:0:0:0:10"


def test_plays_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rollout", AHEAD, "--dice", "64", "--trials", "12", "--truncate", "3",
                 "--top", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{AHEAD.replace(':1:00:', ':1:64:')} (money)"  # the roll rolled out
    assert lines[1] == ("White to play 64: 12 trials each, 0-ply, cubeless, truncated at 3, "
                        "variance reduction, quasi-random dice, seed 0")
    rows = [line for line in lines if line[:4].strip().rstrip(".").isdigit()]
    assert len(rows) == 3 and rows[0].startswith("  1. 24/20* 13/7")
    assert "+-" in rows[0] and "12 trials" in rows[0]
    assert lines[-2].startswith("best: 24/20* 13/7, ahead of the next at 95%: ")


def test_the_plays_named_are_rolled_out(capsys: pytest.CaptureFixture[str]) -> None:
    """--play names the candidates (a hint's, say): they are rolled out, with --top the
    level's ranking adds the next best of the others."""
    assert main(["rollout", "4HPwATDgc/ABMA", "--dice", "31", "--trials", "12", "--truncate",
                 "2", "--play", "24/23 13/10", "--play", "13/9", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {c["name"] for c in data["candidates"]} == {"24/23 13/10", "13/9"}
    assert main(["rollout", "4HPwATDgc/ABMA", "--dice", "31", "--trials", "12", "--truncate",
                 "2", "--play", "24/23 13/10", "--top", "3", "--json"]) == 0
    names = {c["name"] for c in json.loads(capsys.readouterr().out)["candidates"]}
    assert len(names) == 3 and {"24/23 13/10", "8/5 6/5"} <= names


def test_json_of_plays(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rollout", "4HPwATDgc/ABMA", "--dice", "31", "--trials", "36",
                 "--truncate", "4", "--top", "2", "--seed", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "plays" and data["dice"] == [3, 1] and data["trials"] == 36
    assert data["settings"]["seed"] == 3 and data["settings"]["truncate"] == 4
    best = data["candidates"][0]
    assert best["name"] == "8/5 6/5" and best["trials"] == 36
    for key in ("equity", "se", "win", "win_gammon", "win_backgammon", "lose_gammon",
                "lose_backgammon"):
        assert isinstance(best[key], float)
    assert data["separated"] is True


def test_cube_decision_from_a_pending_double(capsys: pytest.CaptureFixture[str]) -> None:
    doubled = AHEAD.replace(":1:00:", ":1:D:")
    assert main(["rollout", doubled, "--trials", "12", "--truncate", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "cube" and data["settings"]["cubeful"] is True
    assert [c["name"] for c in data["candidates"]] == ["no double", "double, take",
                                                      "double, pass"]
    assert data["decision"] in {"no double, take", "no double, pass", "double, take",
                                "double, pass", "too good to double, pass"}


def test_cube_decision_in_words_with_a_match_id(capsys: pytest.CaptureFixture[str]) -> None:
    # White far ahead in a 5-point match, 1-2 (Position ID with its Match ID)
    xgid = Xgid.parse(AHEAD)
    xgid = dataclasses.replace(xgid, match_length=5, score=(1, 2))
    ids = f"{xgid.position_id()}:{xgid.match_id()}"
    assert main(["rollout", ids, "--cubeful", "--trials", "6", "--truncate", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("(match to 5, 1-2)")
    assert lines[1].startswith("cube decision for White: 6 trials each, 0-ply, cubeful")
    assert [line[5:17] for line in lines[3:6]] == ["no double   ", "double, take",
                                                   "double, pass"]
    assert lines[5].split()[3] == "+1.0000"  # passing gives up the cube's value: 1 EMG
    assert lines[6].startswith("proper cube action: ")


def test_jobs_do_not_change_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["rollout", AHEAD, "--dice", "31", "--trials", "10", "--truncate", "3", "--json",
            "--seed", "4"]
    assert main(args) == 0
    one = json.loads(capsys.readouterr().out)
    assert main([*args, "--jobs", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    assert one["candidates"] == two["candidates"]


@pytest.mark.parametrize(("argv", "message"), [
    (["junk"], "invalid Position ID 'junk'"),
    ([AHEAD, "--dice", "71"], "dice must be two digits 1-6"),
    ([AHEAD, "--trials", "0"], "--trials must be 1 or more, got 0"),
    ([AHEAD, "--truncate", "-2"], "--truncate must be 0 (play to the end) or more, got -2"),
    ([AHEAD, "--level", "2"], "--level is the players' plies: 0 or 1, got 2"),
    ([AHEAD, "--jobs", "0"], "jobs must be >= 1, got 0"),
    ([AHEAD, "--top", "0", "--dice", "31"], "--top must be 1 or more, got 0"),
    ([AHEAD, "--play", "8/5 6/5"], "--play names plays of a roll: give --dice"),
    ([AHEAD, "--dice", "31", "--play", "13/8"], "plays[0]: "),
    ([AHEAD, "--dice", "31", "--play", "8/5 6/5", "--play", "6/5 8/5"],
     "plays[1]: 8/5 6/5 comes twice"),
    ([AHEAD.replace(":1:00:", ":1:D:"), "--dice", "31"], "a double is pending"),
    ([AHEAD.replace(":1:00:0:0:0:", ":1:B:0:0:2:"), "--cubeful"], "a beaver pending"),
    ([AHEAD.replace(":0:0:1:00:", ":1:-1:1:00:"), "--cubeful"],
     "White may not double: opponent owns the cube"),
    (["XGID=-------------------o------:0:0:1:00:0:0:0:0:10"],
     "the game in that position is over"),
    ([AHEAD, "--turn", "black"], "an XGID says everything"),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rollout", *argv, "--trials", "1"] if "--trials" not in argv
                else ["rollout", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_ctrl_c_prints_what_was_done(tmp_path: Path) -> None:
    """On a terminal the progress bar runs on standard error; Ctrl-C stops the rollout and
    the trials finished are printed."""
    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS="100")
    process = subprocess.Popen(
        [sys.executable, "-m", "backgammon", "rollout", AHEAD, "--trials", "100000",
         "--truncate", "2"], stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
        env=env, cwd=tmp_path)
    os.close(slave)
    seen = b""
    try:
        deadline = time.monotonic() + 120
        # the progress bar shows trials done: the rollout has figures to print
        done = re.compile(rb"[1-9][0-9]*/100000")
        while not done.search(seen) and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                seen += os.read(master, 4096)
        assert done.search(seen), seen
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    assert process.returncode == 0
    text = out.decode()
    assert "stopped after " in text and " of 100000 trials" in text
    assert "1. " in text
