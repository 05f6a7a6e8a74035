""".mat transcripts: every shared file replays to expected.json, round trips, errors with line
numbers, the variants people and programs write, and GNU Backgammon importing what we write."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon.core.dice import FixedDice
from backgammon.core.game import Phase
from backgammon.core.match import Match
from backgammon.core.position import Position
from backgammon.core.types import BLACK, WHITE
from backgammon.records.mat import (
    MatAction,
    MatGame,
    MatParseError,
    MatRecord,
    MatReplay,
    MatReplayError,
    MatWriteError,
    format_mat,
    read_mat,
    record_from_match,
    replay_mat,
    write_mat,
)
from conftest import shared_path
from gnubg_support import final_score, needs_gnubg, run_gnubg

WINNER = {"first": 0, "second": 1, None: None}


def expected_cases() -> list[str]:
    """The file names in shared/mat/expected.json (empty when the data is absent)."""
    from conftest import find_shared_dir

    base = find_shared_dir()
    path = base / "mat" / "expected.json" if base else None
    if path is None or not path.exists():
        return ["(reference data absent)"]
    return sorted(json.loads(path.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    return json.loads(shared_path("mat", "expected.json").read_text(encoding="utf-8"))


@functools.cache
def replayed(name: str) -> MatReplay:
    """A shared file read and replayed once per test session (tests only read the result)."""
    return replay_mat(read_mat(shared_path("mat", name)))


def signature(match: Match) -> list[Any]:
    """What makes two matches the same: each game's turns (who, what, dice, position after)
    and its outcome. Resignation offers are left out: a .mat file writes only the result; so
    is the order of the dice (the writer puts the higher die first)."""
    return [
        (
            [(t.color, t.action, None if t.dice is None else tuple(sorted(t.dice)), t.position)
             for t in game.history
             if t.action not in ("resign", "accept", "decline", "timeout")],
            None if game.outcome is None else (game.outcome.winner, game.outcome.points),
        )
        for game in match.games
    ]


# --------------------------------------------------------------------------------------------
# The shared transcripts


@pytest.mark.parametrize("name", expected_cases())
def test_shared_file_replays_to_expected_outcome(name: str, expected: dict[str, Any]) -> None:
    case = expected[name]
    record = read_mat(shared_path("mat", name))
    assert record.match_length == case["match_length"]
    if "problem" in case:
        line = int(re.match(r"line (\d+):", case["problem"]).group(1))  # type: ignore[union-attr]
        quoted = re.search(r"'[^']*'", case["problem"]).group(0)  # type: ignore[union-attr]
        with pytest.raises(MatReplayError) as info:
            replay_mat(record)
        assert info.value.line == line
        assert str(info.value).startswith(case["problem"])
        assert quoted in str(info.value)
        return
    replay = replayed(name)
    games = [{"winner": r.winner, "points": r.points} for r in replay.results]
    assert games == [{"winner": WINNER[g["winner"]], "points": g["points"]}
                     for g in case["games"]]
    assert list(replay.score) == case["final_score"]
    assert replay.complete == case.get("match_complete", False)
    if "note" in case:
        # e.g. "line 24: the first player rolled 64 with legal plays but played nothing"
        note = case["note"].split(": ", 1)[1]
        assert any(w.startswith(note) for w in replay.warnings), replay.warnings


def test_problem_file_reports_line_18_and_what_was_expected() -> None:
    with pytest.raises(MatReplayError) as info:
        replay_mat(read_mat(shared_path("mat", "TGSBot__yonay.mat")))
    message = str(info.value)
    assert info.value.line == 18
    assert "'8/6 12/9'" in message and "second player 32" in message
    assert "expected one of the 23 legal plays" in message


def test_unfinished_file_without_header_imports_as_unfinished() -> None:
    replay = replay_mat(read_mat(shared_path("mat", "TGSBot__MrDoc.mat")))
    assert replay.record.match_length is None and replay.match.length == 0
    assert replay.results[0].winner is None and replay.score == (0, 0)
    game = replay.match.current
    assert game.phase is Phase.DOUBLE_OFFERED and game.turn is WHITE
    assert any("no 'N point match' header" in w for w in replay.warnings)
    assert any("line 5: game 1 has no result" in w for w in replay.warnings)
    assert replay.to_summary() == {"match_length": None,
                                   "games": [{"winner": None, "points": None}],
                                   "score": [0, 0]}


def test_tgsbot_quirks() -> None:
    replay = replay_mat(read_mat(shared_path("mat", "TGSBot__CharlieDontSurf.mat")))
    assert any(w.startswith("line 26: 'Drops' by the second player (You) with no double")
               for w in replay.warnings)
    first = replay.match.games[0].outcome
    assert first is not None and (first.winner, first.kind, first.points) == (WHITE, "drop", 2)
    assert any("line 101" in w and "dead cube" in w for w in replay.warnings)


def test_all_shared_files_round_trip(expected: dict[str, Any]) -> None:
    for name, case in expected.items():
        if "problem" in case:
            continue
        replay = replayed(name)
        text = format_mat(replay.match)
        again = replay_mat(read_mat(text))
        assert signature(again.match) == signature(replay.match), name
        assert again.score == replay.score and again.record.names == replay.record.names
        assert format_mat(again.match) == text, name


# --------------------------------------------------------------------------------------------
# Writing our own matches


def play_random_match(seed: int, length: int = 5) -> Match:
    """A seeded random match with cube actions, passes, resignations (some after rolling)."""
    rng = random.Random(seed)
    match = Match(length, names=("Alice", "Bob Smith"), seed=seed)
    while not match.is_over:
        game = match.current
        while not game.is_over:
            if game.phase is Phase.ROLL and game.can_double() and rng.random() < 0.1:
                game.double()
                game.take() if rng.random() < 0.7 else game.drop()
            elif game.phase is Phase.MOVE and rng.random() < 0.01:
                assert game.on_roll is not None
                game.resign(game.on_roll, rng.choice(["single", "gammon", "backgammon"]))
                game.accept_resignation()
            elif game.phase in (Phase.OPENING, Phase.ROLL):
                game.roll()
            else:
                game.play(rng.choice(list(game.legal_plays())))
        if not match.is_over:
            match.new_game()
    return match


@pytest.mark.parametrize("seed", range(6))
def test_write_then_read_gives_the_same_match(seed: int) -> None:
    match = play_random_match(seed, length=(1, 3, 5, 7, 9, 11)[seed])
    handle = io.StringIO()
    write_mat(match, handle)
    replay = replay_mat(read_mat(handle.getvalue()))
    assert signature(replay.match) == signature(match)
    assert replay.score == match.score and replay.complete
    assert replay.record.names == ("Alice", "Bob Smith")
    assert [g.settings for g in replay.match.games] == [
        g.settings.__class__(**{**g.settings.to_dict(), "score": tuple(g.settings.score),
                                "allow_dead_doubles": True})
        for g in match.games
    ]


def test_written_layout_is_gnubgs() -> None:
    match = Match(3, names=("Ann", "Bob"), dice=FixedDice([(3, 1), (6, 4)]))
    game = match.current
    game.roll()
    game.play("8/5 6/5")
    game.roll()
    game.play("24/18 13/9")
    game.double()
    game.drop()
    text = format_mat(match)
    assert text == (
        " 3 point match\n"
        "\n"
        " Game 1\n"
        " Ann : 0                        Bob : 0\n"
        "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
        "  2)  Doubles => 2                Drops\n"
        "      Wins 1 point\n"
        "\n"
    )
    # The first player's drop shares its line with the second player's Wins, as gnubg writes.
    match = Match(3, names=("Ann", "Bob"), dice=FixedDice([(3, 1)]))
    match.current.roll()
    match.current.play("8/5 6/5")
    match.current.double()
    match.current.drop()
    assert format_mat(match).splitlines()[-2] == "  2)  Drops                       Wins 1 point"


def test_resigned_after_rolling_is_written_as_a_roll_without_play() -> None:
    match = Match(1, names=("Ann", "Bob"), dice=FixedDice([(3, 1), (6, 4)]))
    game = match.current
    game.roll()
    game.play("8/5 6/5")
    game.roll()
    game.resign(BLACK, "gammon")
    game.accept_resignation()
    lines = format_mat(match).splitlines()
    assert lines[-3:-1] == ["  1) 31: 8/5 6/5                 64:",
                          "      Wins 2 points and the match"]
    replay = replay_mat(read_mat("\n".join(lines)))
    assert replay.score == (2, 0)
    assert replay.match.games[0].outcome.kind == "resign"  # type: ignore[union-attr]


def test_money_session_with_a_beaver_round_trips() -> None:
    match = Match(0, beavers=True, names=("Ann", "Bob"), dice=FixedDice([(3, 1)] + [(6, 5)] * 9))
    game = match.current
    game.roll()
    game.play("8/5 6/5")
    game.double()  # Black doubles
    game.beaver()  # White beavers: 4, White keeps the cube
    game.take()
    game.roll()
    game.play(game.legal_plays()[0])
    game.double()  # White redoubles to 8
    game.drop()
    match.new_game()
    match.current.roll()
    match.current.resign(BLACK, "single")
    match.current.accept_resignation()
    text = format_mat(match)
    assert text.startswith('; [Beaver "On"]\n\n 0 point match\n')
    assert "  1) 31: 8/5 6/5                  Doubles => 2\n" in text
    assert "  2)  Beavers => 4                Takes\n" in text
    replay = replay_mat(read_mat(text))
    assert replay.record.match_length == 0 and replay.match.beavers
    assert signature(replay.match) == signature(match)
    assert replay.score == match.score == (4 + 1, 0)


def test_a_set_up_game_cannot_be_written() -> None:
    match = Match(0)
    from backgammon.core.game import Game, GameSettings

    match._games[-1] = Game(GameSettings(cube=True, start=Position.start(WHITE)))
    with pytest.raises(MatWriteError, match="set-up position"):
        record_from_match(match)


# --------------------------------------------------------------------------------------------
# Reading the variants


def variant_text(match: Match) -> str:
    """The match written as people and other programs do: whole checker paths with ``bar``,
    ``off``, ``(2)`` and ``*`` (not one die step at a time), no header indentation, narrow
    columns, lower-case keywords, a comment header."""
    from backgammon.core.notation import format_play

    record = record_from_match(match)
    games = []
    for mat_game, game in zip(record.games, match.games, strict=True):
        # Each roll entry is a history "move" line, except a last roll with no play that the
        # player resigned after: that one has none and keeps its (empty) play.
        plays = [format_play(t.moves) for t in game.history if t.action == "move"]
        actions = []
        for action in mat_game.actions:
            if action.kind == "roll" and plays:
                action = MatAction(action.line, action.player, "roll", action.dice,
                                   plays.pop(0))
            actions.append(action)
        games.append(MatGame(mat_game.number, 0, mat_game.names, mat_game.score,
                             tuple(actions), mat_game.result))
    text = format_mat(MatRecord(record.match_length, record.names, tuple(games),
                                ('; [Site "hand typed"]', "; a comment")))
    lines = []
    for line in text.splitlines():
        turn = re.match(r"^(\s*\d+\))( {1,3}\S.*?) {3,}(\S.*)$", line)
        if turn:  # both columns filled: squeeze the gap between them
            line = f"{turn.group(1)}{turn.group(2)}   {turn.group(3)}"
        lines.append(line.strip() if "point match" in line or "Game" in line else line)
    return "\n".join(lines).replace("Wins", "wins").replace("Takes", "takes")


def test_reads_the_variants() -> None:
    for seed in range(3):
        match = play_random_match(seed + 10, 5)
        text = variant_text(match)
        assert "bar/" in text or "/off" in text or "(2)" in text
        record = read_mat(text)
        assert record.comments == ('; [Site "hand typed"]', "; a comment")
        replay = replay_mat(record)
        assert signature(replay.match) == signature(match)
        assert replay.score == match.score


@pytest.mark.parametrize(
    "source_kind", ["text", "bytes", "text handle", "binary handle", "path", "crlf"]
)
def test_sources(source_kind: str, tmp_path: Path) -> None:
    text = format_mat(play_random_match(1, 3))
    source: Any
    if source_kind == "text":
        source = text
    elif source_kind == "bytes":
        source = text.encode()
    elif source_kind == "text handle":
        source = io.StringIO(text)
    elif source_kind == "binary handle":
        source = io.BytesIO(text.encode())
    elif source_kind == "path":
        path = tmp_path / "m.mat"
        path.write_text(text)
        source = path
    else:
        source = text.replace("\n", "\r\n")
    assert replay_mat(read_mat(source)).score == play_random_match(1, 3).score


# --------------------------------------------------------------------------------------------
# Malformed transcripts: named errors with line numbers


GOOD_HEAD = " 3 point match\n\n Game 1\n Ann : 0            Bob : 0\n"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("hello\n Game 1\n", 1, "before the first 'Game N'"),
        (GOOD_HEAD + "  1) 31: 8/5 6/5   what?\n", 5, "cannot read 'what?'"),
        (GOOD_HEAD + "  1)  Doubles => 3\n", 5, "power of two"),
        (GOOD_HEAD + "  1)  Doubles 2\n", 5, "expected 'Doubles => N'"),
        (GOOD_HEAD + "  1) 31: 8/5 6/5   64: 24/18 13/9  Takes\n", 5, "more than two entries"),
        (GOOD_HEAD + " Wins 1 point\n  2) 31: 8/5 6/5\n", 6, "after the result"),
        (GOOD_HEAD + "this is not a move\n", 5, "cannot read 'this is not a move'"),
        (" 3 point match\n 5 point match\n Game 1\n", 2, "a second match header"),
        (" 3 point match\n Game 1\n", 2, "'Game 1' has nothing after it"),
        (" 3 point match\n", None, "no 'Game N' found"),
    ],
)
def test_malformed_text(text: str, line: int | None, message: str) -> None:
    with pytest.raises(MatParseError, match=re.escape(message)) as info:
        read_mat(text)
    assert info.value.line == line
    if line is not None:
        assert str(info.value).startswith(f"line {line}: ")


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("  1) 31: 8/5 6/5\n  2) 42: 8/4 6/4\n", 6,
         "the first player (Ann) rolls 42, but the game expects the second player (Bob) to "
         "roll (or double)"),
        ("  1) 33: 8/5 6/5\n", 5, "the opening roll 33 is a double"),
        ("  1) 31: 8/3\n", 5, "illegal or unparsable play '8/3' for the first player 31"),
        ("  1) 31: 8/5\n", 5, "does not use as many dice"),
        ("  1) 31: 8/5 6/5    Takes\n", 5,
         "the second player (Bob) takes, but no double has been offered"),
        ("  1) 31: 8/5 6/5    Doubles => 2\n  2)                             Drops\n", 6,
         "the second player (Bob) drops, but the game expects the first player (Ann) to "
         "take or drop"),
        ("  1) 31: 8/5 6/5    Doubles => 4\n", 5, "expected 'Doubles => 2'"),
        ("  1) 31: 8/5 6/5\n      Wins 5 points\n", 6, "not 1, 2 or 3 times the cube"),
        ("  1) 31: 8/5 6/5\n Wins 1 point\n\n Game 2\n Ann : 1   Bob : 0\n"
         "  1) 31: 8/5 6/5\n Wins 1 point\n\n Game 3\n Ann : 2   Bob : 0\n"
         "  1) 31: 8/5 6/5    Doubles => 2\n", 15,
         "the second player (Bob) cannot double: this is the Crawford game"),
        ("  1) 31: 8/5 6/5\n\n Game 2\n Ann : 0   Bob : 0\n  1) 31: 8/5 6/5\n", 5,
         "game 1 stops without a result, and another game follows"),
    ],
)
def test_illegal_transcripts(body: str, line: int, message: str) -> None:
    record = read_mat(GOOD_HEAD + body)
    with pytest.raises(MatReplayError, match=re.escape(message)) as info:
        replay_mat(record)
    assert info.value.line == line


def test_game_over_without_a_wins_line_is_a_warning() -> None:
    replay = replay_mat(read_mat(GOOD_HEAD + "  1) 31: 8/5 6/5    Doubles => 2\n  2)  Drops\n"))
    assert replay.results[0].winner == 1 and replay.results[0].points == 1
    assert any(w.startswith("line 6: game 1 ends") for w in replay.warnings)


def test_result_that_disagrees_with_the_board() -> None:
    match = play_random_match(2, 1)
    text = format_mat(match)
    outcome = match.games[0].outcome
    assert outcome is not None
    wrong = outcome.points + 1 if outcome.kind not in ("resign",) else outcome.points
    if outcome.kind in ("single", "gammon", "backgammon", "drop"):
        text = re.sub(r"Wins \d+ points?", f"Wins {wrong} points", text)
        with pytest.raises(MatReplayError, match="but the game ends with"):
            replay_mat(read_mat(text))


def test_a_huge_bad_line_is_quoted_cut_short() -> None:
    """A hostile file's line of 100,000 characters: the error names the line and quotes its
    first 60 characters only, in the reading and in the replay."""
    with pytest.raises(MatParseError) as caught:
        read_mat("x" * 100_000)
    assert str(caught.value) == (f"line 1: unexpected '{'x' * 60}…' before the first 'Game N' "
                                 "(expected comments starting with ';' or 'N point match')")
    text = sample_transcript()
    first = next(line for line in text.splitlines() if line.startswith("  1)"))
    play = first.split(":", 1)[1].split()[0]
    bad = text.replace(first, first.replace(play, "24/" + "1" * 5000, 1), 1)
    with pytest.raises((MatParseError, MatReplayError)) as replayed:
        replay_mat(read_mat(bad))
    assert len(str(replayed.value)) < 400 and "1" * 61 not in str(replayed.value)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=" \n:;/()*=>0123456789WinsGamepointchDdrobltkTsu", max_size=300))
def test_reader_fuzz_raises_only_parse_errors(text: str) -> None:
    try:
        record = read_mat(text)
    except MatParseError:
        return
    with contextlib.suppress(MatReplayError):
        replay_mat(record)


@functools.cache
def sample_transcript() -> str:
    return format_mat(play_random_match(3, 3))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31))
def test_mutated_lines_fail_cleanly(seed: int) -> None:
    """Dropping or changing one line of a real transcript gives a named error or a replay."""
    rng = random.Random(seed)
    lines = sample_transcript().splitlines()
    index = rng.randrange(len(lines))
    if rng.random() < 0.5:
        del lines[index]
    else:
        chars = list(lines[index])
        if chars:
            chars[rng.randrange(len(chars))] = rng.choice("0123456789/ *:x")
        lines[index] = "".join(chars)
    try:
        replay = replay_mat(read_mat("\n".join(lines)))
    except (MatParseError, MatReplayError) as exc:
        assert exc.line is None or 1 <= exc.line <= len(lines) + 1
    else:
        assert isinstance(replay, MatReplay)


# --------------------------------------------------------------------------------------------
# GNU Backgammon imports what we write


@needs_gnubg
@pytest.mark.parametrize("source", ["random:0", "random:4", "random:5",
                                    "TGSBot__Salevet.mat", "gnubg_selfplay_7p_s1005.mat",
                                    "TGSBot__You_vs_AVZ_1214293396673.mat"])
def test_gnubg_imports_what_we_write(source: str, tmp_path: Path) -> None:
    if source.startswith("random:"):
        seed = int(source.split(":")[1])
        match = play_random_match(seed, length=(1, 3, 5, 7, 9, 11)[seed])
    else:
        match = replay_mat(read_mat(shared_path("mat", source))).match
    path = tmp_path / "ours.mat"
    with path.open("w", encoding="utf-8") as handle:
        write_mat(match, handle)
    output = run_gnubg([f"import mat {path}", "show score"], tmp_path)
    assert final_score(output) == match.score


def test_a_money_session_with_the_jacoby_rule_keeps_it() -> None:
    match = Match(0, jacoby=True, names=("Ann", "Bob"), dice=FixedDice([(3, 1)]))
    match.current.roll()
    match.current.play("8/5 6/5")
    match.current.resign(BLACK, "single")
    match.current.accept_resignation()
    text = format_mat(match)
    assert text.startswith('; [Jacoby "On"]\n\n 0 point match\n')
    assert replay_mat(read_mat(text)).match.jacoby
