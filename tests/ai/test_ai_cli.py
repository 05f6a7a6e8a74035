"""``backgammon hint`` and ``backgammon selfplay``."""

from __future__ import annotations

import json

import pytest

from backgammon.cli import main

START_ID = "4HPwATDgc/ABMA"


def test_hint_ranks_the_plays(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hint", START_ID, "31"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"white to play 31 in {START_ID} (expert)"
    assert lines[1].split()[:2] == ["1.", "8/5"]
    assert len(lines) == 1 + 16  # every legal play of 3-1 at the start


def test_hint_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hint", START_ID, "6-5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["dice"] == [6, 5] and data["level"] == "expert"
    assert data["plays"][0]["play"] == "24/13"
    assert data["plays"][0]["behind"] == 0.0
    # the plays searched deepest come first; expert goes to 2-ply only for close ones
    plies = [row["ply"] for row in data["plays"]]
    assert plies[0] == max(plies) >= 1 and set(plies) <= {0, 1, 2}
    win, win_gammon, win_bg, lose_gammon, lose_bg = data["plays"][0]["probabilities"]
    assert 0.45 < win < 0.6 and win_bg <= win_gammon <= win and lose_bg <= lose_gammon
    assert main(["hint", START_ID, "6-5", "--level", "easy", "--json"]) == 0
    assert {row["ply"] for row in json.loads(capsys.readouterr().out)["plays"]} == {0}
    assert main(["hint", START_ID, "6-5", "--level", "classic", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["plays"]
    assert rows[0]["ply"] == 2 and rows[0]["probabilities"] is None


def test_hint_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hint", START_ID, "71"]) == 2
    assert "dice must be two digits" in capsys.readouterr().err
    assert main(["hint", "nonsense", "31"]) == 2


OPENING_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"


def test_hint_of_an_xgid_is_the_pages_evaluation(capsys: pytest.CaptureFixture[str]) -> None:
    """With an XGID (or PID:MID) the hint is the page's: the plays in EMG at the ID's score,
    the cube decision without dice, the answer with a double pending."""
    from backgammon.core.xgid import Xgid
    from backgammon.services.analysis_jobs import position_evaluation

    assert main(["hint", OPENING_31, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["xgid"] == OPENING_31 and data["level"] == "expert"
    assert {k: v for k, v in data.items() if k not in ("xgid", "level")} == \
        position_evaluation(Xgid.parse(OPENING_31))
    assert data["kind"] == "plays" and data["plays"][0]["play"] == "8/5 6/5"
    assert main(["hint", OPENING_31]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [f"{OPENING_31} (money, expert)",
                         "white to play 31; equities in EMG, white's view"]
    assert lines[2].split()[:3] == ["1.", "8/5", "6/5"]
    # DICE replaces the ID's roll; the same position read as Position ID:Match ID
    assert main(["hint", "4HPwATDgc/ABMA:cAkAAAAAAAAA", "65", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["dice"] == [6, 5] and data["plays"][0]["play"] == "24/13"
    # before the roll: the cube; at double match point: a dead cube; a double pending
    assert main(["hint", OPENING_31.replace(":31:", ":00:")]) == 0
    out = capsys.readouterr().out
    assert "cube for white: no double, take" in out and "double/pass +1.000" in out
    dmp = OPENING_31.replace(":31:0:0:0:0:10", ":00:4:4:0:5:10")
    assert main(["hint", dmp]) == 0
    assert "white cannot double (cube dead): roll" in capsys.readouterr().out
    pending = OPENING_31.replace(":31:0:0:0:0:10", ":D:3:3:0:5:10")
    assert main(["hint", pending]) == 0
    assert "answer to the double: take" in capsys.readouterr().out
    # refusals: a malformed XGID, classic (no nets), a Position ID without dice
    assert main(["hint", "XGID=bad"]) == 2
    assert "invalid XGID" in capsys.readouterr().err
    assert main(["hint", OPENING_31, "--level", "classic"]) == 2
    assert "evaluated by the nets" in capsys.readouterr().err
    assert main(["hint", START_ID]) == 2
    assert "give the dice" in capsys.readouterr().err
    # --turn with an ID that says who is on roll; a game already over, in either form
    assert main(["hint", OPENING_31, "--turn", "black"]) == 2
    assert "leave out --turn" in capsys.readouterr().err
    for over in (["AAAAAAAAAAAAAA", "31"], ["AAAAAAAAAAAAAA:cAkAAAAAAAAA"]):
        assert main(["hint", *over]) == 2
        assert capsys.readouterr().err.endswith(
            "the game in that position is over: a side has borne off all its checkers\n")


def test_hint_takes_a_bare_xgid_that_starts_with_a_dash(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Most XGIDs start with "-" (White's bar empty): without the XGID= prefix one is still
    the ID, not an option."""
    bare = OPENING_31.removeprefix("XGID=")
    assert main(["hint", bare, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["xgid"] == OPENING_31 and data["plays"][0]["play"] == "8/5 6/5"


def test_selfplay_prints_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--games", "2", "--white", "medium", "--black", "easy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 games, white medium v black easy")
    assert "win rate" in out
    assert main(["selfplay", "--games", "0"]) == 2


def test_hint_rows_go_down_and_never_show_minus_zero(capsys: pytest.CaptureFixture[str]) -> None:
    """A play cut at 1-ply scoring above the 2-ply ones is scored at 2-ply too, so the rows
    go down; a tie with the best is "+0.000", never "-0.000"."""
    assert main(["hint", "inPwATDg8+ABMA", "22", "--turn", "black"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    equities = [float(next(w for w in row[1:] if w[0] in "+-" and "." in w)) for row in rows]
    assert equities == sorted(equities, reverse=True)
    assert all("-0.000" not in row for row in rows)
    made = next(row for row in rows if row[1:4] == ["24/22*", "8/4", "6/4"])
    assert "2-ply" in made


def test_hint_of_a_position_to_beaver_says_beaver(capsys: pytest.CaptureFixture[str]) -> None:
    """``backgammon hint`` prints the computer's own cube decision (it said "no double,
    take" where the computer's double_decision said beaver), and the answer to the double
    and to its beaver."""
    from scenarios import BEAVER_XGID

    assert main(["hint", BEAVER_XGID, "--level", "easy"]) == 0
    out = capsys.readouterr().out
    assert "cube for white: no double, beaver; equities in EMG, white's view" in out
    assert main(["hint", BEAVER_XGID.replace(":1:00:", ":1:D:"), "--level", "easy"]) == 0
    out = capsys.readouterr().out
    assert ("answer to the double: beaver (proper cube action: no double, beaver)" in out)
    assert main(["hint", BEAVER_XGID.replace(":1:00:", ":1:B:"), "--level", "easy"]) == 0
    out = capsys.readouterr().out
    assert ("answer to the double: drop (proper cube action: no double, beaver; the beaver: "
            "pass)" in out)


def test_hint_of_a_beaver_to_raccoon_says_raccoon(capsys: pytest.CaptureFixture[str]) -> None:
    """``backgammon hint`` of a beaver the doubler should raccoon (scenarios.RACCOON_XGID with
    the beaver pending, ``B``), and of the raccoon pending (``R``): the beaver takes it."""
    from scenarios import RACCOON_XGID

    assert main(["hint", RACCOON_XGID.replace(":1:00:", ":1:B:"), "--level", "easy"]) == 0
    out = capsys.readouterr().out
    assert ("answer to the double: raccoon (proper cube action: double, take; the beaver: "
            "raccoon)" in out)
    assert main(["hint", RACCOON_XGID.replace(":1:00:", ":1:R:"), "--level", "easy"]) == 0
    out = capsys.readouterr().out
    assert ("answer to the double: take (proper cube action: double, take; the raccoon: "
            "take)" in out)
