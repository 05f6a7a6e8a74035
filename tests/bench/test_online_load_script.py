"""``bench/online_load.py`` still runs: a few rooms play whole games through it (a smoke test
of the script, its checks included; the figures it prints are not judged here, beyond being
real: every message answered, every latency positive)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "online_load.py"

pytest.importorskip("websockets", reason="the load test's clients need websockets")


def test_three_backgammon_rooms_play_whole_games_every_message_answered() -> None:
    """The bench's default: backgammon rooms at the table's door play their games to the end,
    every roll's dice checked against the round's secrets, every message saved, and each
    room's file the same for both seats and legal."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--rooms", "3", "--think-ms", "0", "--seed", "5",
         "--limit", "120", "--target-ms", "1000000"],
        capture_output=True, text=True, timeout=300, check=False,
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "online load: tables door (/api/rooms, /ws/rooms), game backgammon" in out
    assert "rooms completed: 3/3" in out and "backgammon 3/3 (3 played to the end" in out
    answered = re.search(r"every message answered: yes \((\d+)/(\d+)\)", out)
    assert answered is not None and answered[1] == answered[2] and int(answered[1]) > 100
    checked = re.search(r"dice checked against the secrets: (\d+)", out)
    assert checked is not None and int(checked[1]) >= 3 * 10  # every game rolls many times
    assert ("every record identical on both sides and legal: yes (3 of 3 finished rooms'"
            in out)  # each seat's .mat the same, replayed by the rules to the outcome sent
    assert "store (file, wal, synchronous normal):" in out  # persistence on by default
    assert "send -> opponent's view: p50" in out


def test_the_tables_door_answers_every_message_of_both_games(tmp_path: Path) -> None:
    """``--door tables``: two rooms (one checkers, one backgammon) at ``/api/rooms`` and
    ``/ws/rooms``, a few dozen messages each (the dice by commit-reveal rounds), every one
    answered by the sender's own view and timed."""
    summary_path = tmp_path / "summary.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--door", "tables", "--game", "mixed", "--rooms", "2",
         "--actions", "30", "--think-ms", "0", "--seed", "7", "--limit", "120",
         "--target-ms", "1000000", "--pieces", "--json", str(summary_path)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "rooms completed: 2/2" in out
    assert "every message answered: yes" in out
    summary = json.loads(summary_path.read_text())
    assert summary["door"] == "tables" and summary["completed"] == 2
    # a room stops at the first turn past 30 messages (a roll's round is 3 or 4 of them)
    messages = summary["messages"]
    assert 60 <= messages <= 68 and summary["answered"] == messages
    assert summary["errors"] == []
    assert summary["own_view_ms"]["count"] == messages
    assert summary["min_own_view_ms"] > 0 and summary["min_opponent_view_ms"] > 0
    assert 0 < summary["own_view_ms"]["p50"] <= summary["own_view_ms"]["p99"]
    assert summary["own_view_ms"]["p99"] <= summary["own_view_ms"]["max"]
    # in: 2 hellos and 3 state requests a room besides the messages timed; out: two views
    # (one a side) for every message, besides those of connecting
    assert summary["server_in"] == messages + 2 * 5
    assert summary["server_out"] > 2 * messages
    assert summary["server_in_per_s"] > 0 and summary["server_out_per_s"] > 0
    assert summary["dice_checked"] >= 1  # the backgammon room's rolls match their secrets
    assert summary["store_ms"]["count"] >= messages  # every accepted message saved
    assert summary["pieces_ms"]["RoomService.handle"]["count"] >= messages
