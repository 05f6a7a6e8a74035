"""PDN files (checkers.pdn): the shared real games, hand-written files of every feature, errors
with their game, line, move and side, round trips, and a fuzz of the reader."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkers import (
    BLACK,
    WHITE,
    Game,
    IllegalMoveError,
    Move,
    PdnError,
    Position,
    Reason,
    apply_move,
)
from checkers.pdn import (
    GAME_TYPE,
    PdnGame,
    PdnGameError,
    PdnMoveError,
    PdnReplayError,
    PdnSyntaxError,
    PdnTagError,
    read_pdn,
    read_pdn_game,
    write_pdn,
    write_pdn_games,
)
from conftest import shared_path

#: The shared files of real games: games, plies (moves of either side) in all.
SHARED_FILES = {
    "wiegerw_pdn__OCA_2.0.pdn": (43, 2280),
    "wiegerw_pdn__inferno.pdn": (68, 3306),
    "wiegerw_pdn__Principles_of_Strategy.pdn": (16, 594),
}


def _shared(name: str) -> list[PdnGame]:
    with shared_path("checkers", name).open(encoding="utf-8") as handle:
        return read_pdn(handle)


def _path(text: str) -> tuple[int, ...]:
    return tuple(int(s) for s in text.replace("x", "-").split("-"))


def _assert_consistent(game: PdnGame) -> None:
    """Each position is the one before it with the move played."""
    assert len(game.positions) == len(game.moves) + 1
    assert game.positions[0] == game.start
    for before, move, after in zip(game.positions, game.moves, game.positions[1:], strict=False):
        assert apply_move(before, move) == after


# ------------------------------------------------------------------ the shared real games


@pytest.mark.parametrize("name", sorted(SHARED_FILES))
def test_every_shared_game_reads_whole(name: str) -> None:
    games = _shared(name)
    count, plies = SHARED_FILES[name]
    assert [g.number for g in games] == list(range(1, count + 1))
    assert [str(g.error) for g in games if g.error is not None] == []
    assert sum(g.plies for g in games) == plies
    for game in games:
        assert game.start == Position.start()
        assert game.result == game.tags["Result"]
        _assert_consistent(game)
        replayed = game.to_game()
        assert replayed.moves == list(game.moves)
        assert replayed.outcome is not None and replayed.outcome.result == game.result


def test_the_first_oca_game_as_recorded() -> None:
    game = _shared("wiegerw_pdn__OCA_2.0.pdn")[0]
    assert game.tags == {
        "Event": "Manchester 1841",
        "Date": "1841-??-??",
        "Black": "Moorhead, W.",
        "White": "Wyllie, J.",
        "Site": "Manchester",
        "Result": "0-1",
    }
    assert (game.line, game.plies, game.move_count, game.result) == (1, 44, 22, "0-1")
    assert [str(m) for m in game.moves[:4]] == ["11-15", "24-20", "8-11", "28-24"]
    assert game.moves[-1] == Move((26, 17, 10, 1), (22, 13, 6))  # a triple jump that crowns
    assert game.end.fen() == "B:WK1,8,12,31,32:B3,9,20,27,28"
    outcome = game.to_game().outcome
    assert outcome is not None and (outcome.winner, outcome.reason) == (WHITE, Reason.RESIGNATION)


def test_the_shorthand_jumps_of_a_shared_file_are_read_as_full_paths() -> None:
    games = _shared("wiegerw_pdn__Principles_of_Strategy.pdn")
    # Dyke example 1 writes "14. 10x26" for the double jump 10x19x26 (CRLF file).
    assert games[0].moves[26] == Move((10, 19, 26))
    # The last game writes "3. 13x22 25x11": White's 25x18x11.
    assert games[15].moves[5] == Move((25, 18, 11))
    assert games[15].tags["Black"] == "Edinburgh" and games[15].line == 218


@pytest.mark.parametrize("name", sorted(SHARED_FILES))
def test_shared_files_round_trip(name: str) -> None:
    games = _shared(name)
    text = write_pdn_games(games)
    assert max(len(line) for line in text.splitlines()) <= 80
    again = read_pdn(text)
    assert len(again) == len(games)
    for before, after in zip(games, again, strict=True):
        assert after.error is None
        assert (after.start, after.moves, after.result) == (
            before.start,
            before.moves,
            before.result,
        )
        assert after.tags == {**before.tags, "GameType": GAME_TYPE}
    assert write_pdn_games(again) == text  # writing is a fixed point


# ------------------------------------------------------------------ hand-written files

ANNOTATED = """\
; a file comment to the end of the line
[Event "Annotated \\"test\\" game"]
[Black "Black, A."]
[White "White, B. \\\\ C."]
[Result "1/2-1/2"]
{A comment before the first move,
spanning lines (with a parenthesis) and [brackets]}
1. 11-15! 23-19?! $14 2.8-11 (2. 9-14 {a side line} (2. 10-14 $2) 22-17) 22-17!!
3.9-13?? {a comment} 3... 17-14 {the sacrifice; 24-20 was (also) possible} 4. 10x17 ; to the end
  21x14 1/2-1/2
"""


def test_comments_variations_nags_and_marks_are_skipped() -> None:
    (game,) = read_pdn(ANNOTATED)
    assert game.error is None
    assert game.tags["Event"] == 'Annotated "test" game'
    assert game.tags["White"] == "White, B. \\ C."
    assert [str(m) for m in game.moves] == [
        "11-15",
        "23-19",
        "8-11",
        "22-17",
        "9-13",
        "17-14",
        "10x17",
        "21x14",
    ]
    assert (game.result, game.plies, game.move_count, game.line) == ("1/2-1/2", 8, 4, 1)


def test_an_unambiguous_shorthand_jump_is_read_and_an_ambiguous_one_refused() -> None:
    (game,) = read_pdn('[SetUp "1"]\n[FEN "B:W18,26:B15"]\n1. 15x31 *\n')
    assert game.error is None and game.moves == (Move((15, 22, 31)),)
    assert write_pdn(game).endswith("1. 15x22x31 *\n")
    (game,) = read_pdn('[FEN "B:W6,7,14,15:B2"]\n1. 2x18 *\n')
    error = game.error
    assert isinstance(error, PdnMoveError)
    assert (error.move_text, error.move_number, error.side, error.line) == ("2x18", 1, BLACK, 2)
    assert error.reason == "2x18 is ambiguous: it could be 2x9x18, 2x11x18"
    assert read_pdn('[FEN "B:W6,7,14,15:B2"]\n1. 2x9x18 *')[0].moves == (Move((2, 9, 18)),)


def test_a_colon_separates_jumps_and_upper_case_x_is_read() -> None:
    (game,) = read_pdn("1. 11-15 23-18 2. 12-16 18:11 3. 8X15 *")
    assert game.error is None
    assert [str(m) for m in game.moves] == ["11-15", "23-18", "12-16", "18x11", "8x15"]


def test_a_setup_position_with_white_to_move() -> None:
    # "Setup" for "SetUp", and the stray "." some files end a FEN with.
    text = '[Event "ending"]\n[Setup "1"]\n[FEN "W:WK27,19:BK1,10."]\n1... 19-15 2. 10x19 27-23 *'
    (game,) = read_pdn(text)
    assert game.error is None
    assert game.start == Position.from_fen("W:WK27,19:BK1,10")
    assert [str(m) for m in game.moves] == ["19-15", "10x19", "27-23"]
    assert (game.plies, game.move_count) == (3, 2)
    assert write_pdn(game) == (
        '[Event "ending"]\n'
        '[Result "*"]\n'
        '[GameType "21"]\n'
        '[SetUp "1"]\n'
        '[FEN "W:W19,K27:BK1,10"]\n'
        "\n"
        "1... 19-15 2. 10x19 27-23 *\n"
    )


def test_a_fen_without_setup_is_used_and_setup_without_fen_refused() -> None:
    (game,) = read_pdn('[FEN "B:W18,26:B15"]\n15x22x31 1-0')
    assert game.error is None and game.start == Position.from_fen("B:W18,26:B15")
    (game,) = read_pdn('[Event "x"]\n[SetUp "1"]\n11-15 *')
    assert isinstance(game.error, PdnTagError)
    assert (game.error.line, game.error.reason) == (
        2,
        'SetUp "1" but no FEN tag gives the position',
    )
    assert game.moves == ()


def test_a_bad_fen_and_another_game_type_are_refused_on_their_line() -> None:
    (game,) = read_pdn('[Event "x"]\n[SetUp "1"]\n[FEN "X:W1:B2"]\n1. 1-5 *')
    assert isinstance(game.error, PdnTagError)
    assert game.error.line == 3
    assert "the side to move 'X' is not B or W" in game.error.reason
    games = read_pdn('[GameType "20"]\n1. 32-28 *\n\n[GameType "21,B,8,8,N2,0"]\n1. 11-15 *\n')
    assert isinstance(games[0].error, PdnTagError)
    assert games[0].error.reason == "GameType '20' is not American checkers (21)"
    assert games[1].error is None and games[1].plies == 1


@pytest.mark.parametrize(
    ("written", "result"),
    [
        ("1-0", "1-0"),
        ("0-1", "0-1"),
        ("1/2-1/2", "1/2-1/2"),
        ("*", "*"),
        ("2-0", "1-0"),
        ("0-2", "0-1"),
        ("1-1", "1/2-1/2"),
    ],
)
def test_each_result_form(written: str, result: str) -> None:
    by_terminator = read_pdn(f"1. 11-15 23-19 {written}")
    by_tag = read_pdn(f'[Result "{written}"]\n1. 11-15 23-19\n')
    both = read_pdn(f'[Result "{written}"]\n1. 11-15 23-19 {written}\n')
    for (game,) in (by_terminator, by_tag, both):
        assert game.error is None and game.result == result and game.plies == 2
    assert write_pdn(both[0]).endswith(
        f'[Result "{result}"]\n[GameType "21"]\n\n1. 11-15 23-19 {result}\n'
    )


def test_no_result_at_all_is_unknown_and_a_contradiction_is_refused() -> None:
    assert read_pdn("1. 11-15 23-19")[0].result == "*"
    (game,) = read_pdn('[Result "1-0"]\n1. 11-15 23-19\n0-1\n')
    assert isinstance(game.error, PdnTagError)
    assert (game.error.line, game.error.reason) == (
        3,
        "the movetext ends with 0-1 but the Result tag says 1-0",
    )
    (game,) = read_pdn('[Result "won"]\n1. 11-15 *')
    assert isinstance(game.error, PdnTagError) and game.error.line == 1


def test_results_end_the_game_in_the_replayed_game() -> None:
    def outcome(result: str) -> tuple[object, object]:
        game = read_pdn(f"1. 11-15 23-19 {result}")[0].to_game()
        return (None, None) if game.outcome is None else (game.outcome.winner, game.outcome.reason)

    assert outcome("1-0") == (BLACK, Reason.RESIGNATION)
    assert outcome("0-1") == (WHITE, Reason.RESIGNATION)
    assert outcome("1/2-1/2") == (None, Reason.AGREEMENT)
    assert outcome("*") == (None, None)
    # When the moves end the game, the rules' outcome stands: White has no move left.
    game = read_pdn('[FEN "B:W18,26:B15"]\n1. 15x22x31 1-0')[0].to_game()
    assert game.outcome is not None
    assert (game.outcome.winner, game.outcome.reason) == (BLACK, Reason.NO_MOVE)


def test_a_record_that_goes_on_after_a_repetition_reads_whole() -> None:
    shuffle = "1-5 32-28 5-1 28-32 " * 2  # the start position occurs a third time after 8 plies
    text = f'[FEN "B:WK32:BK1"]\n{shuffle} 1-6 1/2-1/2'
    (game,) = read_pdn(text)
    assert game.error is None and game.plies == 9
    with pytest.raises(PdnReplayError, match="threefold repetition after 8 moves"):
        game.to_game()
    drawn = game.to_game(stop_at_draw=True)
    assert len(drawn.moves) == 8
    assert drawn.outcome is not None and drawn.outcome.reason is Reason.REPETITION
    # Where draws are claimed, the players went on without claiming: the whole record replays,
    # and the result that follows the last move is their agreed draw.
    claimed = game.to_game(draws="claim")
    assert len(claimed.moves) == 9 and claimed.draws == "claim"
    assert claimed.outcome is not None and claimed.outcome.reason is Reason.AGREEMENT
    with pytest.raises(ValueError, match="draws 'sometimes' is not one of automatic, claim"):
        game.to_game(draws="sometimes")  # type: ignore[arg-type]


# ------------------------------------------------------------------ errors, game by game

THREE_GAMES = """\
[Event "one"]
[Result "1-0"]
1. 11-15 23-18 2. 12-16 18x11 1-0

[Event "two"]
[Result "0-1"]
1. 11-15 23-18 2. 12-16
24-20 3. 8-11 0-1

[Event "three"]
1. 9-14 *
"""


def test_a_bad_move_is_refused_with_its_game_move_side_and_line_and_the_others_load() -> None:
    games = read_pdn(THREE_GAMES)
    assert [(g.number, g.line, g.tags.get("Event")) for g in games] == [
        (1, 1, "one"),
        (2, 5, "two"),
        (3, 10, "three"),
    ]
    assert games[0].error is None and games[0].plies == 4
    assert games[2].error is None and games[2].plies == 1
    error = games[1].error
    assert isinstance(error, PdnMoveError)
    assert (error.game, error.line, error.move_number, error.side, error.move_text) == (
        2,
        8,
        2,
        WHITE,
        "24-20",
    )
    assert error.reason == "24-20: a capture is available: 18x11 must be played"
    assert str(error) == (
        "game 2, line 8, move 2 (white): 24-20: a capture is available: 18x11 must be played"
    )
    assert [str(m) for m in games[1].moves] == ["11-15", "23-18", "12-16"]  # those before it
    assert games[1].result == "0-1"
    with pytest.raises(PdnMoveError):
        games[1].to_game()
    with pytest.raises(PdnError, match="not read whole"):
        write_pdn(games[1])


def test_a_move_number_in_the_file_is_the_one_reported() -> None:
    text = "23. 11-15 24-20 24. 8-11 28-24\n25. 20-16 *"
    error = read_pdn(text)[0].error
    assert isinstance(error, PdnMoveError)
    assert (error.move_number, error.side, error.line) == (25, BLACK, 2)
    assert error.reason == "20-16: the piece on 20 is white's, and black is to move"
    error = read_pdn("1. 11-15 33-29 *")[0].error
    assert isinstance(error, PdnMoveError)
    assert (error.move_number, error.side, error.reason) == (
        1,
        WHITE,
        "'33-29': square 33 is not in 1-32",
    )


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ('[Event "x"]\n[Black "no end\n1. 11-15 *', 2, 'a tag that is not [Name "value"]'),
        ('[Event "x"]\n1. 11-15 {never closed\n23-19 *', 2, "a comment '{' is never closed"),
        ('[Event "x"]\n1. 11-15\n23-19 hello *', 3, "'hello' is not a move, move number or result"),
        ('[Event "x"]\n1. 11-15 23-19 ) *', 2, "')' closes no variation"),
        ('[Event "x"]\n1. 11-15\n(23-19 *', 3, "a variation '(' is never closed"),
        ('[Event "x"]\n1. 11-15 23-19 1/2 *', 2, "'1/2' is not a move, move number or result"),
    ],
)
def test_syntax_errors_are_reported_with_their_line(text: str, line: int, reason: str) -> None:
    games = read_pdn(text + '\n\n[Event "next"]\n1. 10-14 *\n')
    assert len(games) == 2
    error = games[0].error
    assert isinstance(error, PdnSyntaxError)
    assert (error.game, error.line) == (1, line)
    assert error.reason.startswith(reason)
    assert games[1].error is None and games[1].tags == {"Event": "next"}
    assert games[1].moves == (Move((10, 14)),)


def test_games_without_tags_and_comments_between_games() -> None:
    text = "{header}\n1. 11-15 23-19 1-0 {after the result}\n1. 9-14 0-1\n* \n"
    games = read_pdn(text)
    assert [(g.number, g.result, g.plies, g.tags) for g in games] == [
        (1, "1-0", 2, {}),
        (2, "0-1", 1, {}),
    ]
    assert read_pdn("") == [] and read_pdn("  \n{only a comment}\n") == []


def test_a_game_of_tags_alone_ends_where_a_tag_comes_again() -> None:
    games = read_pdn('[Event "a"]\n[Result "0-1"]\n\n[ Event "b"]\n1. 11-15\n[Event "c"]\n')
    assert [(g.number, g.line, g.tags["Event"], g.plies, g.result) for g in games] == [
        (1, 1, "a", 0, "0-1"),
        (2, 4, "b", 1, "*"),
        (3, 6, "c", 0, "*"),
    ]
    assert all(g.error is None for g in games)


def test_read_pdn_game_gives_the_one_game_or_raises() -> None:
    assert read_pdn_game("1. 11-15 *").plies == 1
    with pytest.raises(PdnError, match="expected one game, found 2"):
        read_pdn_game("1. 11-15 * 1. 9-14 *")
    with pytest.raises(PdnMoveError):
        read_pdn_game("1. 11-17 *")


# ------------------------------------------------------------------ sources


def test_reading_a_file_handle_with_crlf_and_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "games.pdn"
    path.write_bytes(("\ufeff" + THREE_GAMES.replace("\n", "\r\n")).encode("utf-8"))
    with path.open(encoding="utf-8") as handle:
        games = read_pdn(handle)
    assert [g.tags.get("Event") for g in games] == ["one", "two", "three"]
    assert isinstance(games[1].error, PdnMoveError) and games[1].error.line == 8


class _Broken(io.StringIO):
    def read(self, size: int | None = -1) -> str:
        raise OSError("disk on fire")


def test_an_unreadable_source_raises_pdn_error() -> None:
    with pytest.raises(PdnError, match="disk on fire"):
        read_pdn(_Broken())
    with pytest.raises(PdnError, match="open the file in text mode"):
        read_pdn(io.BytesIO(b"1. 11-15 *"))  # type: ignore[arg-type]
    with pytest.raises(PdnError, match="cannot read"):
        read_pdn(42)  # type: ignore[arg-type]


# ------------------------------------------------------------------ writing


def test_writing_a_game_with_tags_in_roster_order() -> None:
    game = Game()
    for move in ["11-15", "23-18", "12-16", "18x11", "8x15"]:
        game.play(move)
    tags = {"Annotator": "me", "White": "W", "Black": "B", "Event": 'The "Cup"', "Date": "2024"}
    assert write_pdn(game, tags) == (
        '[Event "The \\"Cup\\""]\n'
        '[Date "2024"]\n'
        '[Black "B"]\n'
        '[White "W"]\n'
        '[Result "*"]\n'
        '[GameType "21"]\n'
        '[Annotator "me"]\n'
        "\n"
        "1. 11-15 23-18 2. 12-16 18x11 3. 8x15 *\n"
    )
    again = read_pdn_game(write_pdn(game, tags))
    assert again.tags["Event"] == 'The "Cup"' and again.moves == tuple(game.moves)


def test_writing_a_finished_game_uses_its_outcome() -> None:
    game = Game()
    game.play("11-15")
    game.resign(WHITE)
    assert write_pdn(game).splitlines()[-1] == "1. 11-15 1-0"
    assert write_pdn(game, {"Result": "1-0"}) == write_pdn(game)
    with pytest.raises(PdnError, match="the Result tag says 0-1 but the game ended 1-0"):
        write_pdn(game, {"Result": "0-1"})
    unfinished = Game()
    assert write_pdn(unfinished, {"Result": "2-0"}).splitlines() == [
        '[Result "1-0"]',
        '[GameType "21"]',
        "",
        "1-0",
    ]


def test_writing_refuses_tags_it_cannot_write() -> None:
    with pytest.raises(PdnError, match="holds a line break"):
        write_pdn(Game(), {"Event": "two\nlines"})
    with pytest.raises(PdnError, match="is not letters, digits"):
        write_pdn(Game(), {"Bad Name": "x"})


def test_writing_a_record_with_new_tags_and_many_games_to_a_handle() -> None:
    first, _, third = read_pdn(THREE_GAMES)
    text = write_pdn(first, {"Site": "Here", "event": "renamed"})
    assert text.splitlines()[:4] == [
        '[event "renamed"]',
        '[Site "Here"]',
        '[Result "1-0"]',
        '[GameType "21"]',
    ]
    handle = io.StringIO()
    written = write_pdn_games([first, third], handle)
    assert handle.getvalue() == written
    assert [g.tags["Event"] for g in read_pdn(written)] == ["one", "three"]
    assert written.count("\n\n[") == 1


def test_long_games_wrap_at_80_characters_keeping_numbers_with_their_moves() -> None:
    game = _random_game(random.Random(7), Position.start(), 120)
    text = write_pdn(game)
    body = text.split("\n\n", 1)[1].splitlines()
    assert len(body) > 3
    assert all(len(line) <= 80 for line in body)
    assert not any(line.rstrip().endswith(".") for line in body)


# ------------------------------------------------------------------ seeded random games


def _random_game(rng: random.Random, start: Position, plies: int) -> Game:
    game = Game(start)
    while not game.is_over and len(game.moves) < plies:
        game.play(rng.choice(game.legal_moves()))
    return game


def test_seeded_random_games_round_trip() -> None:
    rng = random.Random(2026)
    starts = [Position.start()]
    for _ in range(10):  # middle-game positions of other random games, either side to move
        donor = _random_game(rng, Position.start(), rng.randrange(5, 60))
        if not donor.is_over:
            starts.append(donor.position)
    assert any(start.turn is WHITE for start in starts)
    for index in range(60):
        start = starts[index % len(starts)]
        game = _random_game(rng, start, rng.choice([0, 1, 7, 40, 300]))
        tags = {"Event": f"random {index}", "Round": str(index)}
        text = write_pdn(game, tags)
        record = read_pdn_game(text)
        assert record.start == game.start
        assert record.moves == tuple(game.moves)
        assert record.result == (game.outcome.result if game.outcome else "*")
        assert record.tags["Event"] == f"random {index}"
        assert write_pdn(record) == text
        replayed = record.to_game()
        assert replayed.positions == game.positions
        if game.outcome is not None and game.outcome.reason is not Reason.NO_MOVE:
            # a draw by our rules, or no outcome: the replay ends the same way
            assert replayed.outcome == game.outcome


def test_from_game_keeps_positions_and_hand_built_records_are_checked() -> None:
    game = _random_game(random.Random(3), Position.start(), 30)
    record = PdnGame.from_game(game, {"Event": "x"})
    assert record.positions == tuple(game.positions)
    assert PdnGame({}, game.start, tuple(game.moves)).positions == tuple(game.positions)
    with pytest.raises(IllegalMoveError, match=r"^11-7: "):
        PdnGame({}, Position.start(), (Move((11, 7)),))


# ------------------------------------------------------------------ fuzzing the reader

_PIECES = [
    '[Event "x"]',
    '[Result "1-0"]',
    '[SetUp "1"]',
    '[FEN "W:WK27,19:BK1,10"]',
    '[FEN "B:W18,26:B15."]',
    '[GameType "21"]',
    "[Bad",
    '"',
    "1.",
    "2.",
    "1...",
    "...",
    "11-15",
    "23-18",
    "12-16",
    "18x11",
    "8x15",
    "15x22x31",
    "15:31",
    "19-15",
    "10x19",
    "33-1",
    "{",
    "}",
    "{c}",
    "(",
    ")",
    "$7",
    "!",
    "?!",
    ";",
    "1-0",
    "0-1",
    "1/2-1/2",
    "*",
    "2-0",
    "1-1",
    "x",
    "-",
    "\n",
    " ",
    "\r\n",
    "[",
    "]",
]


def _check_games(text: str) -> None:
    games = read_pdn(text)
    lines = text.count("\n") + 1
    assert [g.number for g in games] == list(range(1, len(games) + 1))
    for game in games:
        assert isinstance(game, PdnGame)
        assert game.result in ("1-0", "0-1", "1/2-1/2", "*")
        assert 1 <= game.line <= lines
        if game.error is None:
            assert read_pdn_game(write_pdn(game)).moves == game.moves
        else:
            assert isinstance(game.error, PdnGameError)
            assert game.error.game == game.number
            assert game.line <= game.error.line <= lines
        _assert_consistent(game)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PIECES), max_size=40).map(" ".join))
def test_fuzz_the_reader_with_pdn_pieces(text: str) -> None:
    _check_games(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_fuzz_the_reader_with_any_text(text: str) -> None:
    _check_games(text)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, len(THREE_GAMES)), st.integers(0, 5), st.text('[]{}()"x-.*!?$;1 \n5', max_size=5)
)
def test_fuzz_the_reader_with_damaged_files(at: int, cut: int, insert: str) -> None:
    _check_games(THREE_GAMES[:at] + insert + THREE_GAMES[at + cut :])


def test_an_error_quotes_at_most_40_characters_of_what_it_read() -> None:
    token = read_pdn("1. 11-15 " + "a" * 5000 + " *")[0].error
    assert str(token) == ("game 1, line 1: '" + "a" * 40 + "...' is not a move, move number "
                          "or result")
    move = read_pdn("1. " + "x".join(["11"] * 2000) + " *")[0].error
    assert move is not None and len(str(move)) < 200
    assert "11x11x11x11x11x11x11x11x11x11x11x11x11x1..." in str(move)
