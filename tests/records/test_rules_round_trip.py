"""The rules a match is played under, and the rarer endings, survive a ``.mat`` and an SGF
round trip: no gammons, no cube, beavers and a raccoon, a forfeit of the rest of a match."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from backgammon.ai import choose_play
from backgammon.core.match import Match
from backgammon.records.mat import MatReplayError, format_mat, read_and_replay
from backgammon.records.sgf import format_sgf, read_and_replay_sgf
from backgammon.records.transcript import MatReplay

READERS: dict[str, Callable[[Match], MatReplay]] = {
    "mat": lambda match: read_and_replay(format_mat(match)),
    "sgf": lambda match: read_and_replay_sgf(format_sgf(match)),
}


def played_out(match: Match) -> Match:
    """Play the match to its end, Easy's plays for both sides (seeded: the same games)."""
    while not match.is_over:
        game = match.current
        if game.is_over:
            match.new_game()
            continue
        game.roll()
        if game.phase.name == "MOVE":
            game.play(choose_play(game.turn_start, game.dice, level="easy", seed=0))
    return match


@pytest.mark.parametrize("form", READERS)
def test_a_match_without_gammons_reads_back_without_them(form: str) -> None:
    match = played_out(Match(5, seed=0, gammons=False))
    # (the seed's first game ends in a backgammon on the board, scored as a single game)
    first = match.games[0].outcome
    assert first is not None and first.points == 1 and first.result_kind.value == 3
    replay = READERS[form](match)
    assert not replay.match.gammons
    assert replay.match.score == match.score
    assert [g.outcome for g in replay.match.games] == [g.outcome for g in match.games]


@pytest.mark.parametrize("form", READERS)
def test_a_session_without_the_cube_reads_back_without_it(form: str) -> None:
    match = Match(0, cube=False, seed=3)
    game = match.current
    game.roll()
    game.play(game.legal_plays()[0])
    game.resign(game.on_roll)
    game.accept_resignation()
    replay = READERS[form](match)
    assert not replay.match.cube and not replay.match.current.can_double(
        replay.match.current.on_roll)


@pytest.mark.parametrize("form", READERS)
def test_beavers_and_a_raccoon_read_back(form: str) -> None:
    match = Match(0, beavers=True, seed=3)
    game = match.current
    game.roll()
    game.play(game.legal_plays()[0])
    game.double()
    game.beaver()
    game.raccoon()
    game.take()
    game.resign(game.on_roll)
    game.accept_resignation()
    if form == "mat":
        text = format_mat(match)
        assert text.startswith('; [Beaver "On"]\n')
        assert "  2)  Doubles => 2                Beavers => 4\n" in text
        assert "  3)  Beavers => 8                Takes\n" in text
    replay = READERS[form](match)
    assert replay.match.beavers
    again = replay.match.games[0]
    assert [e["type"] for e in again.events][2:6] == ["double", "beaver", "raccoon", "take"]
    assert again.outcome is not None and again.outcome.points == 8 == game.cube_value


@pytest.mark.parametrize("form", READERS)
def test_a_forfeit_of_the_rest_of_a_match_reads_back_as_a_forfeit(form: str) -> None:
    match = Match(5, seed=1)
    game = match.current
    game.roll()
    game.play(game.legal_plays()[0])
    game.forfeit(game.on_roll, 5)
    replay = READERS[form](match)
    assert replay.match.score == match.score == (0, 5) and replay.match.is_over
    outcome = replay.match.games[0].outcome
    assert outcome is not None and outcome.kind == "forfeit" and outcome.points == 5
    assert any("read as a forfeit" in warning for warning in replay.warnings)


def test_more_than_a_resignation_scores_mid_match_is_still_refused() -> None:
    match = Match(7, seed=1)
    game = match.current
    game.roll()
    game.play(game.legal_plays()[0])
    game.forfeit(game.on_roll, 5)  # 5 of 7: not the match, not 1-3 times the cube
    with pytest.raises(MatReplayError, match=r"wins 5 point\(s\) before the game is over, "
                                             r"which is not 1, 2 or 3 times the cube"):
        read_and_replay(format_mat(match))


def test_a_file_name_passed_as_text_is_refused_with_the_way_to_read_it() -> None:
    from backgammon.records.mat import MatParseError
    from backgammon.records.sgf import SgfParseError

    with pytest.raises(MatParseError, match=r"'match.mat' looks like a file name, and a str is "
                                            r"read as the file's text: pass Path\('match.mat'\)"):
        read_and_replay("match.mat")
    with pytest.raises(SgfParseError, match=r"looks like a file name"):
        read_and_replay_sgf("C:/games/Match 3.SGF")
    with pytest.raises(SgfParseError, match="cannot read a transcript from NoneType"):
        read_and_replay_sgf(None)  # type: ignore[arg-type]
    with pytest.raises(SgfParseError, match=r"no GM\[...\] property, which SGF reads as GM\[1\]"):
        read_and_replay_sgf("(;)")


@pytest.mark.parametrize("form", READERS)
@pytest.mark.parametrize(("length", "gammons", "rolled"), [
    (3, False, True),   # the rest of a match without gammons: 3, no resignation scores it
    (3, True, True),    # the rest of the match is what a resignation scores: read as one
    (0, True, False),   # money play, before the opening roll: three times the cube
    (0, False, True),   # money play without gammons: the cube's value, as a resignation
])
def test_an_online_forfeit_reads_back_with_its_score(form: str, length: int, gammons: bool,
                                                     rolled: bool) -> None:
    """What an online room's forfeit (``TableMatch.forfeit``: a player who left) writes reads
    back to the same score, whatever the rules."""
    from backgammon.adapter import TableMatch

    match = Match(length, seed=5, gammons=gammons)
    if rolled:
        game = match.current
        game.roll()
        game.play(game.legal_plays()[0])
    TableMatch(match).forfeit("white")
    replay = READERS[form](match)
    assert replay.match.score == match.score
    assert replay.match.is_over == match.is_over


@pytest.mark.parametrize("form", READERS)
def test_a_forfeit_in_the_crawford_game_reads_back(form: str) -> None:
    from backgammon.adapter import TableMatch
    from backgammon.core.match import MatchSetup

    match = Match(3, seed=2, setup=MatchSetup(None, score=(2, 1), crawford=True))
    game = match.current
    game.roll()
    game.play(game.legal_plays()[0])
    TableMatch(match).forfeit("black")
    replay = READERS[form](match)
    assert replay.match.score == match.score == (3, 1)
