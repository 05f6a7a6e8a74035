"""The page's choice of plays to roll out (``static/js/rollout.js``'s ``candidatesOf``), run
by Node: the hint's first N plays, best first, and in a review the play made in the last place
when it is not among them; never a play twice."""

from __future__ import annotations

from pathlib import Path

from node_support import needs_node, run_node

pytestmark = needs_node

HARNESS = r"""
const { candidatesOf } = await import(process.argv[2]);
const hint = ["8/5 6/5", "24/23 13/10", "13/10 6/5", "24/21 6/5", "13/9"];
console.log(JSON.stringify({
  first3: candidatesOf({ candidates: hint }, 3),
  playedAmong: candidatesOf({ candidates: hint, played: "24/23 13/10" }, 3),
  playedLast: candidatesOf({ candidates: hint, played: "24/20" }, 3),
  short: candidatesOf({ candidates: hint.slice(0, 2), played: "24/20" }, 5),
  all: candidatesOf({ candidates: hint, played: null }, 16),
}));
"""


def test_the_plays_rolled_out_are_the_hints_and_the_play_made(tmp_path: Path) -> None:
    out = run_node(tmp_path, HARNESS, "rollout.js")
    assert out["first3"] == ["8/5 6/5", "24/23 13/10", "13/10 6/5"]
    assert out["playedAmong"] == ["8/5 6/5", "24/23 13/10", "13/10 6/5"]
    assert out["playedLast"] == ["8/5 6/5", "24/23 13/10", "24/20"]
    assert out["short"] == ["8/5 6/5", "24/23 13/10", "24/20"]
    assert out["all"] == ["8/5 6/5", "24/23 13/10", "13/10 6/5", "24/21 6/5", "13/9"]
