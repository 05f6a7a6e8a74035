"""Review frames, hints, explanations of refused attempts, and .mat export/import of sessions
(:mod:`backgammon.services.review`)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from backgammon import Move, Position
from backgammon.core.dice import Dice, FixedDice
from backgammon.core.explain import explain_move, explain_pass
from backgammon.core.game import Game, Phase
from backgammon.core.match import Match
from backgammon.core.moves import apply_play, legal_moves
from backgammon.core.types import BLACK, START_POINTS, WHITE
from backgammon.core.xgid import Xgid
from backgammon.records import MatParseError, MatReplayError, read_and_replay
from backgammon.services.review import (
    MAX_HINT_PLAYS,
    NoSuchGameError,
    explain_attempt,
    hints_for,
    import_mat,
    match_mat,
    pass_reason,
    player_names,
    review_match,
    session_title,
)
from backgammon.services.rules import RULES_BY_ID
from scenarios import ATTEMPT_PHRASES, find_attempt, find_turn, play_random_turn, random_match

#: The seeds of find_attempt's games for each kind (found once; replaying one game is quick).
ATTEMPT_SEEDS = {"open-point": 1, "bar": 1, "dice": 1, "bear-off": 1, "bear-off-higher": 2,
                 "both-dice": 3, "larger-die": 27, "blocked": 1}


def attempt(kind: str) -> Any:
    return find_attempt(kind, first_seed=ATTEMPT_SEEDS[kind], seeds=1)


def frames_key(frames: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What a position of a review shows, without the words (names differ between a session
    and its .mat) and without whether the cube is used (a .mat does not say: its games are
    replayed with the cube), nor the order of the dice (a .mat writes the higher die first)."""
    return [(f["game"], f["kind"], f["color"], f["history_index"], f["board"],
             f["dice"] and sorted(f["dice"]),
             f["moves"], {k: v for k, v in f["cube"].items() if k != "enabled"}, f["score"],
             f["pips"]) for f in frames]


# --------------------------------------------------------------------------------------------
# Review


def test_a_single_game_has_a_start_frame_and_one_frame_per_line() -> None:
    match = random_match(5)
    game = match.current
    review = review_match(match, title="Single game")
    frames, history = review["frames"], review["history"]
    assert len(frames) == len(history) + 1
    assert frames[0]["kind"] == "start" and frames[0]["history_index"] is None
    assert frames[0]["board"] == {"points": list(START_POINTS), "off": {"white": 0, "black": 0}}
    assert frames[0]["pips"] == {"white": 167, "black": 167}
    assert frames[0]["dice"] is None
    for index, frame in enumerate(frames[1:]):
        assert frame["history_index"] == index
        assert frame["text"] == history[index]["text"]
    turns = game.history
    assert len(frames) == len(turns) + 2  # the start and the result
    for frame, turn in zip(frames[1:-1], turns, strict=True):
        assert frame["board"]["points"] == list(turn.position.points)
        assert frame["dice"] == (list(turn.dice) if turn.dice is not None else None)
        assert frame["pips"] == {"white": turn.position.pip_count(WHITE),
                                 "black": turn.position.pip_count(BLACK)}
    # The first play shows the opening roll, the mover's die first, and the moves to mark.
    first = frames[1]
    assert first["kind"] == "play" and first["dice"] == list(turns[0].dice or ())
    assert [m["text"] for m in first["moves"]] == [str(m) for m in turns[0].moves]
    result = frames[-1]
    assert result["kind"] == "result" and game.outcome is not None
    assert result["text"] == f"{str(game.outcome.winner).capitalize()} wins " \
                             f"{game.outcome.points} point{'s' if game.outcome.points > 1 else ''}"
    assert result["board"]["points"] == list(game.position.points)
    winner = str(game.outcome.winner)
    assert result["score"][winner] == game.outcome.points
    assert review["score"] == result["score"]


def test_a_match_is_reviewed_game_by_game_with_the_cube() -> None:
    match = random_match(3, games=3, cube=True, double=0.15)
    assert len(match.games) == 3
    review = review_match(match)
    frames, history = review["frames"], review["history"]
    assert len(frames) == len(history)  # each game's start is its header line
    headers = [h for h in history if h["kind"] == "game"]
    assert [h["text"] for h in headers] == [
        f"Game {n} (score {match.score_before(n - 1)[0]}-{match.score_before(n - 1)[1]})"
        for n in (1, 2, 3)]
    for frame in frames:
        assert history[frame["history_index"]]["text"] == frame["text"] or frame["kind"] == "start"
    starts = [f for f in frames if f["kind"] == "start"]
    assert [f["game"] for f in starts] == [1, 2, 3]
    assert [f["score"] for f in starts] == [
        {"white": match.score_before(n)[0], "black": match.score_before(n)[1]} for n in range(3)]
    doubles = [f for f in frames if f["kind"] == "double"]
    takes = [f for f in frames if f["kind"] == "take"]
    assert doubles and takes
    for frame in doubles:
        assert frame["cube"]["offered_by"] == frame["color"]
    for frame in takes:
        assert frame["cube"]["owner"] == frame["color"]
        assert frame["cube"]["offered_by"] is None
        before = frames[frames.index(frame) - 1]
        assert frame["cube"]["value"] == 2 * before["cube"]["value"]


def test_the_turn_being_played_is_not_reviewed() -> None:
    match = Match(0, cube=False, dice=FixedDice([(3, 1)]))
    game = match.current
    game.roll()
    game.move(Move(8, 5, 3))
    review = review_match(match)
    assert [f["kind"] for f in review["frames"]] == ["start"]
    assert review["history"] == []


def test_each_frame_names_its_decisions_as_xgids() -> None:
    """A play: the cube decision before the roll (not before the opening roll, nor after a
    double this turn) and the play of the roll; a double: the doubler's cube decision; a
    take: the answer to the double (the cube as it was before it)."""
    match = Match(0, cube=True, dice=FixedDice([(3, 1), (6, 4), (5, 2)]))
    game = match.current
    game.roll()
    game.move(Move(8, 5, 3))
    game.move(Move(6, 5, 1))
    game.end_turn()
    game.double()
    game.take()
    game.roll()
    game.move(Move(24, 18, 6))
    game.move(Move(18, 14, 4))
    game.end_turn()
    frames = review_match(match)["frames"]
    assert [f["kind"] for f in frames] == ["start", "play", "double", "take", "play"]
    after_31 = "XGID=-b---BD-B---eE---c-e----B-"  # White's 8/5 6/5 played
    assert [f["decisions"] for f in frames] == [
        [],
        ["XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"],
        [f"{after_31}:0:0:-1:00:0:0:0:0:10"],
        [f"{after_31}:0:0:-1:D:0:0:0:0:10"],
        [f"{after_31}:1:1:-1:64:0:0:0:0:10"],
    ]


def test_a_resignation_after_rolling_keeps_the_roll_and_its_play_to_review() -> None:
    match = Match(0, cube=False, dice=FixedDice([(3, 1), (6, 4)]))
    game = match.current
    game.roll()
    game.move(Move(8, 5, 3))
    game.move(Move(6, 5, 1))
    game.end_turn()
    game.roll()
    game.resign("black", "gammon")
    game.accept_resignation()
    review = review_match(match)
    frames = review["frames"]
    assert [(f["kind"], f["text"], f["dice"]) for f in frames[2:4]] == [
        ("resign", "Black 6-4: resigns a gammon", [6, 4]), ("accept", "White accepts", None)]
    after_31 = "XGID=-b---BD-B---eE---c-e----B-"
    assert frames[2]["decisions"] == [f"{after_31}:0:0:-1:64:0:0:0:0:10"]
    assert frames[3]["decisions"] == []


def test_each_frame_names_the_position_it_shows_by_its_ids() -> None:
    """The IDs of a frame are those of its board (the side acting next on roll), not the live
    game's; a double waits for its answer in the XGID."""
    match = random_match(5, games=2, length=5, cube=True, double=0.3)
    frames = review_match(match)["frames"]
    assert any(f["kind"] == "double" for f in frames)
    for frame in frames:
        ids = frame["ids"]
        assert ids is not None
        xgid = Xgid.parse(ids["xgid"])
        points = list(xgid.position.points)
        assert points == frame["board"]["points"], frame["text"]
        assert xgid.position.id() == ids["position_id"]
        assert (xgid.cube_action == "double") == (frame["kind"] == "double")
        if frame["kind"] == "double":  # the doubler on roll, as XGIDs write a double
            assert str(xgid.position.turn) == frame["color"]
        elif frame["color"] is not None and frame["kind"] != "result":
            assert str(xgid.position.turn) != frame["color"]  # the other side acts next


def test_each_frame_says_whether_gammons_count() -> None:
    """An XGID cannot say that gammons are off, so each frame says it beside its decisions
    (the page asks for their evaluation with it)."""
    for gammons in (True, False):
        match = Match(0, gammons=gammons, dice=FixedDice([(3, 1)]))
        game = match.current
        game.roll()
        game.move(Move(8, 5, 3))
        game.move(Move(6, 5, 1))
        game.end_turn()
        frames = review_match(match)["frames"]
        assert [f["kind"] for f in frames] == ["start", "play"]
        assert [f["gammons"] for f in frames] == [gammons, gammons]


def test_a_matchs_decisions_carry_its_score_and_the_crawford_game() -> None:
    match = random_match(4, games=9, length=5, cube=True, double=0.15)
    assert [g.settings.crawford for g in match.games] == [False, True, False]
    frames = review_match(match)["frames"]
    board = None
    for frame in frames:
        game = match.games[frame["game"] - 1]
        if frame["kind"] == "start":
            board = frame["board"]
        for text in frame["decisions"]:
            xgid = Xgid.parse(text)
            assert xgid.match_length == 5 and xgid.crawford is game.settings.crawford
            assert xgid.score == (frame["score"]["white"], frame["score"]["black"])
            assert list(xgid.position.points) == board["points"]  # before the line's action
            if frame["kind"] == "play" and xgid.dice is not None:
                assert sorted(xgid.dice) == sorted(frame["dice"])
                assert str(xgid.position.turn) == frame["color"]
        if game.settings.crawford and frame["kind"] == "play":
            assert all(Xgid.parse(t).dice is not None for t in frame["decisions"])
        board = frame["board"]
    plays = [f for f in frames if f["kind"] == "play"]
    assert all(f["decisions"] for f in plays)


def test_history_matches_the_sessions_move_list_words() -> None:
    match = random_match(11, games=2, cube=True, double=0.1)
    lines = [h["text"] for h in review_match(match)["history"]]
    assert lines[0] == "Game 1 (score 0-0)"
    assert any(line.startswith(("White ", "Black ")) and ": " in line for line in lines)
    named = review_match(match, ("Ann", "Bob"))["history"]
    assert named[1]["text"].startswith(("Ann ", "Bob "))
    cube = [h["text"] for h in review_match(match, ("You", "Bob"))["history"]
            if h["kind"] in ("double", "take", "drop", "result") and h["color"] == "white"]
    assert cube  # "You double to 2", "You take", "You win 2 points"
    assert {line.split()[1] for line in cube} <= {"double", "take", "drop", "win"}


def test_player_names_and_titles() -> None:
    settings: Any = {"mode": "computer", "level": "hard", "human": "black", "cube": True,
                     "kind": "match", "length": 5}
    assert player_names(settings) == ("Computer (Hard)", "You")
    assert session_title(settings, player_names(settings)) == \
        "Computer (Hard) vs You · match to 5"
    settings = {**settings, "mode": "pass_and_play", "human": None, "kind": "money"}
    assert player_names(settings) == ("White", "Black")
    assert session_title(settings, ("White", "Black")) == "White vs Black · money session"


# --------------------------------------------------------------------------------------------
# Hints


def rest_of_turn_by_search(game: Game) -> set[Position]:
    """Every position the turn can end in from the moves made, by walking the engine's
    legal_moves one move at a time (slow, and plainly right)."""
    start, played = game.turn_start, list(game.played)
    frontier = {(game.position, tuple(sorted(game.dice_left))): list[Move]()}
    finished: set[Position] = set()
    while frontier:
        following: dict[tuple[Position, tuple[int, ...]], list[Move]] = {}
        for (position, left), path in frontier.items():
            options = legal_moves(start, left, played + path) if left else []
            if not options:
                finished.add(position)
            for move in options:
                rest = list(left)
                rest.remove(move.die)
                following.setdefault((apply_play(position, [move]), tuple(sorted(rest))),
                                     [*path, move])
        frontier = following
    return finished


def test_hints_list_the_engines_legal_moves_at_the_opening() -> None:
    match = Match(0, cube=False, dice=FixedDice([(3, 1)]))
    game = match.current
    game.roll()
    hints = hints_for(game)
    assert hints["active"] is True
    assert hints["dice_left"] == [3, 1]
    assert [m["text"] for m in hints["moves"]] == [str(m) for m in game.legal_moves()]
    assert {m["text"] for m in hints["moves"]} == {
        "24/21", "13/10", "8/5", "6/3", "24/23", "8/7", "6/5"}
    assert hints["plays_total"] == len(game.legal_plays()) == 16
    assert "8/5 6/5" in hints["plays"] and "24/20" in hints["plays"]
    assert hints["text"] == ("Dice left: 3, 1. 7 moves can be made now; 16 ways to play the "
                             "rest of the turn.")


def test_hints_after_a_move_and_when_the_play_is_complete() -> None:
    match = Match(0, cube=False, dice=FixedDice([(3, 1)]))
    game = match.current
    game.roll()
    game.move(Move(8, 5, 3))
    hints = hints_for(game)
    assert [m["text"] for m in hints["moves"]] == [str(m) for m in game.legal_moves()]
    assert sorted(hints["plays"]) == sorted(str(m) for m in game.legal_moves())
    game.move(Move(6, 5, 1))
    done = hints_for(game)
    assert done["active"] is True and done["moves"] == [] and done["plays"] == []
    assert done["text"] == "The play is complete: press Done (or Undo)."


def test_hints_are_off_when_there_is_nothing_to_play_or_it_is_not_the_persons_turn() -> None:
    match = Match(0, cube=False, dice=FixedDice([(3, 1)]))
    assert hints_for(match.current)["active"] is False
    match.current.roll()
    assert hints_for(match.current, allowed=False) == {
        "active": False, "dice_left": [], "moves": [], "plays": [], "plays_total": 0,
        "text": "No dice to play now."}


@pytest.mark.parametrize("seed", [2, 8])
def test_rest_of_turn_plays_are_the_positions_a_search_reaches(seed: int) -> None:
    rng = random.Random(seed)
    match = Match(0, cube=False, dice=Dice(random.Random(seed)))
    game = match.current
    checked = doubles = 0
    while not game.is_over and checked < 120:
        if game.phase is not Phase.MOVE:
            play_random_turn(game, rng)
            continue
        while game.legal_moves():
            hints = hints_for(game)
            reached = rest_of_turn_by_search(game)
            assert hints["plays_total"] == len(reached)
            if hints["plays_total"] <= MAX_HINT_PLAYS:
                assert len(set(hints["plays"])) == len(hints["plays"])
            checked += 1
            doubles += game.dice is not None and game.dice[0] == game.dice[1]
            if rng.random() < 0.4:
                break
            game.move(rng.choice(game.legal_moves()))
        while game.legal_moves():
            game.move(rng.choice(game.legal_moves()))
        game.end_turn()
    assert checked > 40 and doubles > 3


def test_a_double_lists_at_most_the_cap_and_counts_them_all() -> None:
    match = find_turn(lambda g: g.phase is Phase.MOVE and len(g.legal_plays()) > MAX_HINT_PLAYS)
    hints = hints_for(match.current)
    assert hints["plays_total"] == len(match.current.legal_plays()) > MAX_HINT_PLAYS
    assert len(hints["plays"]) == MAX_HINT_PLAYS


# --------------------------------------------------------------------------------------------
# Explanations


@pytest.mark.parametrize("kind", sorted(ATTEMPT_PHRASES))
def test_each_kind_of_refused_attempt_is_explained_with_its_rule(kind: str) -> None:
    found = attempt(kind)
    game = found.match.current
    answer = explain_attempt(game, _page(found.from_place), _page(found.to_place))
    prefix = f"{'bar' if found.src == 25 else found.src}"
    if found.dst is not None:
        prefix += f"/{'off' if found.dst == 0 else found.dst}"
    assert answer["legal"] is False
    assert answer["reason"] == found.reason
    assert answer["text"] == f"{prefix}: {found.reason}"
    rule = {"blocked": "open-point"}.get(kind, kind)
    assert answer["rule"] == rule
    assert answer["source"] == RULES_BY_ID[rule].source


def _page(place: str | None) -> Any:
    return int(place) if place is not None and place.isdigit() else place


def test_legal_attempts_and_pick_ups() -> None:
    match = Match(0, cube=False, dice=FixedDice([(3, 1)]))
    game = match.current
    game.roll()
    assert explain_attempt(game, 8, 5) == {"legal": True, "text": "8/5 is a legal move",
                                           "reason": None, "rule": None, "source": None}
    assert explain_attempt(game, 13, None)["text"] == "13 can move: 13/10"
    assert explain_attempt(game, 7, None)["text"] == "7: you have no checker on the 7-point"
    assert explain_attempt(game, 24, 20)["legal"] is True  # both dice through an open point
    assert explain_attempt(game, 12, None)["text"] == "12: you have no checker on the 12-point"


def test_black_attempts_are_named_in_blacks_numbering() -> None:
    match = Match(0, cube=False, dice=FixedDice([(1, 3)]))  # Black wins the opening: 3-1
    game = match.current
    game.roll()
    assert game.on_roll is BLACK
    # Black's 13-point is White's 12; Black's 12-point is White's 13 (five White checkers).
    answer = explain_attempt(game, 12, 13)
    assert answer["text"] == "13/12: the 12-point is held by White"


def test_a_checker_with_a_different_reason_for_each_die() -> None:
    match = find_turn(lambda g: g.phase is Phase.MOVE and len(set(g.dice_left)) == 2 and any(
        len({explain_move(g.turn_start, g.dice_left, (), p, max(p - d, 0)) for d in g.dice_left})
        == 2 and all(explain_move(g.turn_start, g.dice_left, (), p, max(p - d, 0))
                     for d in g.dice_left)
        and g.turn_start.own_points(g.turn_start.turn)[p] > 0
        and not g.turn_start.own_points(g.turn_start.turn)[25]
        for p in range(1, 25)))
    game = match.current
    own = game.turn_start.own_points(game.turn_start.turn)
    high, low = sorted(set(game.dice_left), reverse=True)
    for point in range(1, 25):
        reasons = [explain_move(game.turn_start, game.dice_left, (), point, max(point - d, 0))
                   for d in (high, low)]
        if own[point] > 0 and all(reasons) and reasons[0] != reasons[1]:
            break
    place = point if game.on_roll is WHITE else 25 - point
    answer = explain_attempt(game, place, None)
    assert answer["text"] == f"{point}: with the {high}, {reasons[0]}; with the {low}, {reasons[1]}"


def test_attempts_outside_the_persons_turn_and_odd_places() -> None:
    match = Match(0, cube=False, dice=FixedDice([(3, 1)]))
    game = match.current
    assert explain_attempt(game, 8, 5)["text"] == "there are no dice to play: roll first"
    game.roll()
    assert explain_attempt(game, 8, 5, computer=WHITE)["text"] == "it is the computer's turn"
    assert explain_attempt(game, "off", None)["text"] == "a checker borne off stays off"
    assert explain_attempt(game, 6, "bar")["text"] == (
        "6: a checker never moves to the bar: only a hit checker goes there")
    assert explain_attempt(game, 30, None)["text"] == "there is no point 30"
    game.move(Move(8, 5, 3))
    game.move(Move(6, 5, 1))
    assert explain_attempt(game, 13, 10)["text"] == "13/10: the turn is over: all dice are played"


def test_explaining_changes_nothing() -> None:
    found = attempt("both-dice")
    game = found.match.current
    log = game.to_log()
    explain_attempt(game, _page(found.from_place), _page(found.to_place))
    explain_attempt(game, _page(found.from_place), None)
    hints_for(game)
    assert game.to_log() == log


def test_pass_reason_says_why_a_roll_passed() -> None:
    match = find_turn(lambda g: bool(g.history) and g.history[-1].action == "move"
                      and not g.history[-1].moves)
    turn = match.current.history[-1]
    reason = pass_reason(turn)
    assert reason is not None
    assert reason == explain_pass(turn.position.with_turn(turn.color), turn.dice or (1, 1))
    assert pass_reason(match.current.history[0]) is None  # a turn that was played


# --------------------------------------------------------------------------------------------
# .mat


def test_a_session_written_as_mat_reads_back_as_the_same_games() -> None:
    match = random_match(17, games=2, cube=True, double=0.12)
    text = match_mat(match, ("You", "Computer (Easy)"))
    assert text.startswith(" 0 point match\n\n Game 1\n You : 0")
    replay = read_and_replay(text)
    assert replay.record.names == ("You", "Computer (Easy)")

    def turns(m: Match) -> list[list[tuple[Any, ...]]]:
        return [[(t.color, t.action, t.dice and sorted(t.dice), t.moves, t.cube_value,
                  t.cube_owner)
                 for t in g.history] for g in m.games]

    assert turns(replay.match) == turns(match)
    assert replay.match.score == match.score
    assert frames_key(import_mat(text)["frames"]) == frames_key(review_match(match)["frames"])


def test_an_unfinished_game_is_written_with_its_whole_turns() -> None:
    match = random_match(4, games=1)
    game = match.new_game()
    rng = random.Random(1)
    for _ in range(6):
        play_random_turn(game, rng)
    if game.phase is not Phase.MOVE:
        game.roll()
    if game.legal_moves():
        game.move(game.legal_moves()[0])  # a move of the turn being played: not written
    text = match_mat(match, ("White", "Black"))
    review = import_mat(text)
    assert frames_key(review["frames"]) == frames_key(review_match(match)["frames"])
    assert any("has no result" in w for w in review["warnings"])


def test_one_game_of_a_session() -> None:
    match = random_match(21, games=2)
    text = match_mat(match, ("White", "Black"), game=2)
    assert " Game 1" not in text and " Game 2" in text
    with pytest.raises(NoSuchGameError, match="this session has 2 games: ask for game 1 to 2"):
        match_mat(match, ("White", "Black"), game=3)


def test_an_imported_file_names_its_players_and_match() -> None:
    match = random_match(9, games=2, length=3, cube=True)
    text = match_mat(match, ("charlot1", "charlot2"))
    review = import_mat(text)
    assert review["title"] == "charlot1 vs charlot2 · 3-point match"
    assert review["names"] == {"white": "charlot1", "black": "charlot2"}
    assert review["length"] == 3
    assert review["history"][1]["text"].startswith(("charlot1 ", "charlot2 "))


def test_a_file_with_a_problem_names_the_line() -> None:
    with pytest.raises(MatParseError) as parse:
        import_mat(" 3 point match\n\n Game 1\n A : 0                B : 0\n  1) 3x: 8/5\n")
    assert parse.value.line == 5
    with pytest.raises(MatReplayError) as replay:
        import_mat(" 3 point match\n\n Game 1\n A : 0                B : 0\n  1) 31: 8/4 6/5\n")
    assert replay.value.line == 5
    assert "not a legal play" in str(replay.value)
