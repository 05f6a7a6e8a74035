""".mat variants other programs write, one tiny file each (tests/data/mat_variants/), errors in
line order, and what we write from each read back the same and imported by GNU Backgammon."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest

from backgammon.core.types import BLACK
from backgammon.records.mat import (
    MatParseError,
    MatReplayError,
    format_mat,
    read_and_replay,
    read_mat,
    replay_mat,
)
from gnubg_support import final_score, needs_gnubg, run_gnubg

DATA = Path(__file__).resolve().parents[1] / "data" / "mat_variants"
HEAD = " 3 point match\n\n Game 1\n Ann : 0                        Bob : 0\n"
OPENING = "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"

#: file -> (final score, each game's (winner, points, kind), a warning that must be there)
VARIANTS: dict[str, tuple[tuple[int, int], list[tuple[int, int, str]], str | None]] = {
    "resigns_xg.mat": ((4, 0), [(0, 4, "resign")], None),
    "resigns_line.mat": ((1, 0), [(0, 1, "resign")], None),
    "wins_midgame.mat": ((1, 6), [(1, 4, "resign"), (0, 1, "resign"), (1, 2, "resign")], None),
    "cannot_move.mat": ((1, 0), [(0, 1, "resign")], None),
    "one_column.mat": ((0, 2), [(1, 2, "resign")], None),
    "no_leading_space.mat": ((0, 1), [(1, 1, "drop")], None),
    "xg_tags_bom_beaver.mat": ((5, 0), [(0, 4, "resign"), (0, 1, "resign")],
                               "line 25: the second player rolled 64 with legal plays but "
                               "played nothing: read as resigning after the roll"),
    "moves_variants.mat": ((1, 0), [(0, 1, "resign")], None),
    "crlf_trailing_spaces.mat": ((1, 0), [(0, 1, "resign")], None),
    "javafibs_wins_column.mat": ((0, 3), [(1, 2, "resign"), (1, 1, "single")],
                                 "line 68: the file says the first player (gnubg) wins 1 "
                                 "point(s), but the game is over, the second player (root) "
                                 "winning 1 (single): read as the result on the board"),
}


def variant(name: str) -> bytes:
    return (DATA / name).read_bytes()


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_each_variant_replays(name: str) -> None:
    score, results, warning = VARIANTS[name]
    replay = read_and_replay(variant(name))
    assert replay.score == score
    assert [(r.winner, r.points, r.kind) for r in replay.results] == results
    if warning is not None:
        assert warning in replay.warnings
    # read_mat then replay_mat gives the same.
    again = replay_mat(read_mat(variant(name)))
    assert again.score == score and again.warnings == replay.warnings


def test_xg_tags_set_the_money_rules_and_names() -> None:
    replay = read_and_replay(variant("xg_tags_bom_beaver.mat"))
    record = replay.record
    assert record.tags["Site"] == "eXtreme Gammon" and record.tags["Jacoby"] == "On"
    assert record.comments[0] == '; [Site "eXtreme Gammon"]'  # the byte order mark is gone
    assert record.match_length == 0 and record.names == ("Ann", "Bob")
    assert replay.match.jacoby and replay.match.beavers
    first = replay.match.games[0]
    assert [t.text for t in first.history][3:6] == ["Doubles => 2", "Beavers => 4", "Takes"]
    assert first.outcome is not None and first.outcome.points == 4


def test_a_gammon_resigned_with_the_jacoby_rule_and_a_centred_cube_is_refused() -> None:
    text = variant("xg_tags_bom_beaver.mat").decode("utf-8").replace(
        "64: ???\n      Wins 1 point", "64: ???\n      Wins 2 points")
    with pytest.raises(MatReplayError, match="the Jacoby rule counts only a single game"):
        read_and_replay(text)


def test_moves_in_every_notation_give_gnubgs_own_game() -> None:
    ours = read_and_replay(variant("moves_variants.mat"))
    reference = Path(__file__).resolve().parents[1] / "data" / "mat" / \
        "gnubg_selfplay_1p_s1026.mat"
    theirs = read_and_replay(reference.read_bytes())
    assert [t.position for t in ours.match.current.history] == \
        [t.position for t in theirs.match.current.history]


def test_crlf_and_trailing_spaces_read_as_the_plain_file() -> None:
    plain = Path(__file__).resolve().parents[1] / "data" / "mat" / "gnubg_selfplay_1p_s1020.mat"
    assert b"\r\n" in variant("crlf_trailing_spaces.mat")
    ours = read_and_replay(variant("crlf_trailing_spaces.mat"))
    theirs = read_and_replay(plain.read_bytes())
    assert [t.position for t in ours.match.current.history] == \
        [t.position for t in theirs.match.current.history]


def test_cannot_move_is_the_dance_it_says() -> None:
    replay = read_and_replay(variant("cannot_move.mat"))
    turns = replay.match.current.history
    assert (turns[2].color, turns[2].dice, turns[2].moves) == (BLACK, (1, 1), ())


def test_the_first_problem_in_the_file_is_reported() -> None:
    # An illegal play at line 11 comes before the unreadable line 21: line 11 is reported,
    # though parsing alone (read_mat) finds only line 21.
    text = variant("error_order.mat")
    with pytest.raises(MatReplayError) as info:
        read_and_replay(text)
    assert info.value.line == 11
    assert "illegal or unparsable play '20/18 6/5' for the second player 21" in str(info.value)
    with pytest.raises(MatParseError) as parse_only:
        read_mat(text)
    assert parse_only.value.line == 21
    # With the play mended, the unreadable line is the first problem.
    mended = text.replace(b"21: 20/18 6/5", b"21: 6/5 7/5")
    with pytest.raises(MatParseError) as later:
        read_and_replay(mended)
    assert later.value.line == 21 and "cannot read 'five/0 1/0" in str(later.value)


def test_an_unreadable_line_before_an_illegal_play_is_reported_first() -> None:
    text = (HEAD + "  1) 31: 8/5 6/5   oops   64: 24/18 13/9\n"
            "  2) 52: 8/3 8/3                 43: 24/20 24/21\n")
    with pytest.raises(MatParseError) as info:
        read_and_replay(text)
    assert info.value.line == 5


def test_a_play_held_back_is_checked_before_the_next_line_fails_to_read() -> None:
    # The play of line 5 is held back (what follows can change its meaning); the unreadable
    # line 6 must not hide that it is illegal.
    text = HEAD + "  1) 31: 8/3\n  2) what is this\n"
    with pytest.raises(MatReplayError) as info:
        read_and_replay(text)
    assert info.value.line == 5


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("  1) 31: 8/5 6/5                 64: Cannot Move\n", 5,
         "'Cannot Move' for the second player (Bob) with 64, but one of the"),
        ("  1) 31: 8/5 6/5                 64: ???\n  2) 52: 13/8 13/11\n", 5,
         "the play of the second player (Bob) with 64 is not written ('???') and the game "
         "goes on"),
        (OPENING + "                                 Resigns\n"
         "                                 Wins 1 point\n", 7,
         "the second player (Bob) resigns at line 6, but the file says the second player "
         "(Bob) wins"),
        (OPENING + "  2)  Doubles => 2               Resigns\n", 6,
         "the second player (Bob) resigns, but the game expects the second player (Bob) to "
         "take or drop"),
        (OPENING + "      Resigns\n", 6, "the first player (Ann) resigns, but no 'Wins' line "
         "follows"),
    ],
)
def test_bad_variant_cells(body: str, line: int, message: str) -> None:
    with pytest.raises(MatReplayError, match=re.escape(message)) as info:
        read_and_replay(HEAD + body)
    assert info.value.line == line


def test_a_resignation_the_game_goes_on_after_is_declined() -> None:
    text = HEAD + OPENING + "  2)  Resigns\n  3) 52: 13/8 13/11\n"
    replay = read_and_replay(text)
    game = replay.match.current
    assert [t.action for t in game.history][-3:] == ["resign", "decline", "move"]
    assert any("read as a resignation declined" in w for w in replay.warnings)


def signature(replay: Any) -> list[Any]:
    return [([(t.color, t.action, t.position) for t in g.history
              if t.action not in ("resign", "accept", "decline")],
             None if g.outcome is None else (g.outcome.winner, g.outcome.points))
            for g in replay.match.games]


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_written_back_in_gnubgs_layout_reads_the_same(name: str) -> None:
    replay = read_and_replay(variant(name))
    text = format_mat(replay.match)
    again = read_and_replay(text)
    assert signature(again) == signature(replay) and again.score == replay.score
    # The higher die first, as GNU Backgammon writes it.
    for die_a, die_b in re.findall(r"\b([1-6])([1-6]):", text):
        assert die_a >= die_b


@needs_gnubg
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_gnubg_imports_what_we_write_from_each_variant(name: str, tmp_path: Path) -> None:
    replay = read_and_replay(variant(name))
    path = tmp_path / "ours.mat"
    path.write_text(format_mat(replay.match), encoding="utf-8")
    output = run_gnubg(["set beavers on" if replay.match.beavers else "set beavers off",
                        f"import mat {path}", "show score"], tmp_path)
    assert final_score(output) == replay.score


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_file_with_its_byte_order_mark_reads_as_the_utf8_one(
        encoding: str, tmp_path: Path) -> None:
    """Some Windows programs save text as UTF-16 with a byte order mark: bytes, a binary
    file and a path read the same as the UTF-8 file."""
    raw = variant("xg_tags_bom_beaver.mat")
    text = raw.decode("utf-8").removeprefix("\ufeff")
    data = ("\ufeff" + text).encode(encoding)
    if encoding == "utf-16":
        assert data[:2] in (b"\xff\xfe", b"\xfe\xff")
    expected = read_mat(raw)
    assert read_mat(data) == expected
    assert read_mat(io.BytesIO(data)) == expected
    path = tmp_path / "windows.mat"
    path.write_bytes(data)
    assert read_mat(path) == expected


def test_a_wins_line_only_confirms_a_game_over_on_the_board() -> None:
    """JavaFIBS writes the last 'Wins' in the other player's column after a game won by
    bearing off (GNU Backgammon imports it); a 'Wins' in a game still running is the other
    column's player resigning, as before, and points that disagree with the board are still
    refused."""
    replay = read_and_replay(variant("javafibs_wins_column.mat"))
    assert replay.complete and replay.match.games[1].outcome is not None
    assert replay.match.games[1].outcome.winner is BLACK
    running = read_and_replay(HEAD + OPENING + " " * 34 + "Wins 1 point\n")
    assert [(r.winner, r.points, r.kind) for r in running.results] == [(1, 1, "resign")]
    text = variant("javafibs_wins_column.mat").decode().replace(
        "Wins 1 point and", "Wins 2 points and")
    with pytest.raises(MatReplayError) as refused:
        read_and_replay(text)
    assert refused.value.line == 68
    assert refused.value.detail == (
        "the file says the first player (gnubg) wins 2 point(s), but the game ends with the "
        "second player (root) winning 1 (single, cube 1)")


def test_a_name_saved_in_windows_1252_reads_as_written() -> None:
    """Bytes that are not UTF-8 (an older Windows program's "José") are Windows-1252, not
    replacement characters; UTF-8 stays UTF-8."""
    text = HEAD.replace("Ann", "José").replace("Bob", "Zoë") + OPENING
    legacy = read_mat(text.encode("cp1252"))
    assert legacy == read_mat(text.encode("utf-8")) == read_mat(text)
    assert "\ufffd" not in repr(legacy)
