"""``backgammon.analysis``: decisions found, losses, marks, luck, the EMG conversion, figures."""

from __future__ import annotations

import pytest

from backgammon.ai.cube import CubeState, cube_equities
from backgammon.ai.met import match_equity_table
from backgammon.ai.netsearch import preroll, shared_net_evaluator
from backgammon.ai.player import ComputerPlayer
from backgammon.analysis import (
    Decision,
    analyze,
    emg_scale,
    luck_mark,
    mark,
    rating,
    summarize,
)
from backgammon.core.game import Game, GameSettings
from backgammon.core.match import Match
from backgammon.core.types import BLACK, WHITE
from backgammon.records import MatReplayError, read_mat
from conftest import shared_path
from scenarios import SMALL_MAT


def _opening(play: str, dice: tuple[int, int] = (3, 1)) -> Game:
    game = Game(GameSettings(cube=True))
    game.roll(dice)  # the opening roll: White's die first, White moves
    game.play(play)
    return game


def test_marks_at_gnubg_thresholds() -> None:
    assert [mark(x) for x in (0.0, 0.0399, 0.04, 0.0799, 0.08, 0.1599, 0.16, 1.0)] == [
        "", "", "doubtful", "doubtful", "bad", "bad", "very bad", "very bad"]
    assert [luck_mark(x) for x in (0.61, 0.3, 0.29, -0.3, -0.6)] == [
        "very lucky", "lucky", "", "unlucky", "very unlucky"]


def test_rating_bands() -> None:
    assert [rating(x) for x in (2.0, 5.0, 7.4, 12.4, 17.4, 22.4, 40.0)] == [
        "world class", "expert", "expert", "advanced", "intermediate", "casual", "beginner"]


def test_match_equity_converts_to_emg_as_gnubg_does() -> None:
    cube = CubeState(value=2, match_length=7, score=(2, 4))
    table = match_equity_table()
    win = table.after(7 - 2 - 2, 3, "normal")
    lose = table.after(5, 3 - 2, "normal")
    scale = emg_scale(cube, WHITE)
    assert scale.emg(win) == pytest.approx(1.0)
    assert scale.emg(lose) == pytest.approx(-1.0)
    assert scale.emg((win + lose) / 2) == pytest.approx(0.0)
    # money play: cubeless equity is per cube of 1 already
    assert emg_scale(CubeState(value=4), BLACK).emg(0.25) == 0.25


def test_a_blunder_is_marked_and_the_best_play_named() -> None:
    game = _opening("8/7 8/5")
    result = analyze(game, "hard")
    move = next(d for d in result.decisions if d.kind == "move")
    assert move.player == 0 and move.dice == (3, 1)
    assert move.best == "8/5 6/5"
    assert move.played == "8/7 8/5"
    assert move.loss == pytest.approx(move.best_equity - move.played_equity)
    assert move.loss >= 0.08 and move.mark in ("bad", "very bad")
    assert move.alternatives[0].play == "8/5 6/5"
    assert "8/7 8/5" in [a.play for a in move.alternatives]  # the play made, at 1-ply too
    assert {a.ply for a in move.alternatives if a.play in ("8/5 6/5", "8/7 8/5")} == {1}
    assert 0.0 < move.alternatives[0].probs[0] < 1.0


def test_three_plies_rescore_the_play_made_beside_the_best() -> None:
    """``plies=3``: a play made that is not the 2-ply best is scored at 3 plies beside the
    2-ply best (and its second within 0.04), the loss their difference at that depth."""
    from backgammon.ai.netsearch import MONEY
    from backgammon.core.moves import legal_plays
    from backgammon.core.position import Position

    game = Game(GameSettings(cube=False))  # cubeless money: plays valued by MONEY
    game.roll((3, 1))
    game.play("8/7 8/5")
    move = next(d for d in analyze(game, plies=3).decisions if d.kind == "move")
    deep = {a.play: a for a in move.alternatives if a.ply == 3}
    assert set(deep) == {"8/5 6/5", "8/7 8/5"}  # the second best at 2-ply is 0.17 behind
    assert move.alternatives[0].play == move.best == "8/5 6/5"
    evaluator = shared_net_evaluator()
    plays = {str(p): p for p in legal_plays(Position.start(), (3, 1))}
    for name, alternative in deep.items():
        probs = evaluator.probs3(plays[name].result.own_points(WHITE), MONEY)
        assert alternative.probs == pytest.approx(tuple(probs), abs=1e-4)
    assert move.loss == pytest.approx(deep["8/5 6/5"].equity - deep["8/7 8/5"].equity,
                                      abs=1e-4)
    assert move.loss > 0.2
    shallow = next(d for d in analyze(game, plies=2).decisions if d.kind == "move")
    assert max(a.ply for a in shallow.alternatives) == 2
    # the Master level's search is this one: its analysis scores the play the same
    master = analyze(game, "master")
    assert (master.level, master.plies) == ("master", 3)
    same = next(d for d in master.decisions if d.kind == "move")
    assert (same.played, same.best, same.mark) == (move.played, move.best, move.mark)
    assert [(a.play, a.ply) for a in same.alternatives] == [
        (a.play, a.ply) for a in move.alternatives]
    # the same search; float32 batches of other sizes may differ in the last digits
    assert same.loss == pytest.approx(move.loss, abs=1e-6)


def test_the_best_play_loses_nothing() -> None:
    result = analyze(_opening("8/5 6/5"), "hard")
    move = next(d for d in result.decisions if d.kind == "move")
    assert (move.loss, move.mark, move.played, move.best) == (0.0, "", "8/5 6/5", "8/5 6/5")
    white = result.players[0]
    assert (white.unforced_moves, white.chequer_error_rate_memg, white.pr) == (1, 0.0, 0.0)
    assert white.rating == "world class"


def test_a_game_without_gammons_is_analysed_without_them() -> None:
    """Off, every win is a single game: a play's equity is then its winning chances alone,
    2p - 1 (with them, 8/5 6/5's gammons are worth something)."""
    plain = Game(GameSettings(cube=False, gammons=False))
    plain.roll((3, 1))
    plain.play("8/5 6/5")
    without = next(d for d in analyze(plain, "hard").decisions if d.kind == "move")
    for alternative in without.alternatives:
        assert alternative.equity == pytest.approx(2 * alternative.probs[0] - 1, abs=1e-6)
    counted = next(d for d in analyze(_opening("8/5 6/5"), "hard").decisions
                   if d.kind == "move")
    best = counted.alternatives[0]
    assert best.equity != pytest.approx(2 * best.probs[0] - 1, abs=0.02)


def test_opening_luck_31_beats_54() -> None:
    good = next(d for d in analyze(_opening("8/5 6/5"), plies=0).decisions)
    poor = next(d for d in analyze(_opening("24/20 13/8", (5, 4)), plies=0).decisions)
    assert good.luck is not None and poor.luck is not None
    # 3-1 is the best opening roll; 5-4 one of the poorest (gnubg's rollouts: about +0.14 and
    # -0.02 against the mean of the 30 opening rolls)
    assert good.luck > 0.05 and good.luck > poor.luck + 0.05


def test_cube_decisions_double_and_drop() -> None:
    result = analyze(read_mat(SMALL_MAT), "hard")
    kinds = [(d.player, d.kind, d.played) for d in result.decisions]
    assert kinds == [(0, "move", "8/5 6/5"), (1, "double", "no double"),
                     (1, "move", "24/18 13/9"), (0, "double", "double"), (1, "take", "drop")]
    double, drop = result.decisions[3], result.decisions[4]
    # the take and the drop are the doubler's equities turned round
    assert drop.equities["take"] == pytest.approx(-double.equities["double_take"])
    assert drop.equities["drop"] == pytest.approx(-1.0)  # dropping loses the cube: -1 EMG
    assert drop.played_equity == pytest.approx(-1.0)
    assert double.loss == pytest.approx(double.best_equity - double.played_equity)
    # an early double is a big error (bad or worse); so is dropping it
    assert double.best == "no double" and double.loss >= 0.08
    assert double.mark in ("bad", "very bad")
    assert drop.best == "take" and drop.loss > 0.5
    assert result.players[1].cube_decisions == 1  # the no double was not close: not counted
    assert result.decisions[1].unforced is False


def test_the_answer_to_a_double_shows_the_doublers_winning_chance() -> None:
    """The graph's point for the take or drop is the double's: nothing was rolled between them
    (at Expert the cube is priced at 2 plies; the winning chance is the turn's pre-roll one)."""
    decisions = analyze(read_mat(SMALL_MAT), "expert").decisions
    double, drop = decisions[3], decisions[4]
    assert (double.kind, drop.kind) == ("double", "take")
    assert drop.win == double.win
    assert 0.4 < double.win < 0.6  # White after 8/5 6/5 and 24/18 13/9: about even


def test_money_cube_equities_are_per_cube_of_one() -> None:
    match = Match(0, cube=True)
    game = match.current
    game.roll((3, 1))
    game.play("8/5 6/5")
    before = game.turn_start
    game.double()
    game.take()
    game.roll((6, 4))
    game.play("24/14")
    result = analyze(match, "hard")
    double = next(d for d in result.decisions if d.kind == "double" and d.played == "double")
    # a double made counts, so it is scored on the level's own cube lookahead: Hard's 2 plies,
    # the chances the computer itself doubles on (not the 1-ply chances every turn gets first)
    p = ComputerPlayer("hard", evaluator=shared_net_evaluator()).probabilities(before)
    eq = cube_equities(p, CubeState(), BLACK)
    assert double.equities["no_double"] == pytest.approx(eq.no_double, abs=1e-6)
    assert double.equities["double_take"] == pytest.approx(eq.double_take, abs=1e-6)
    one = preroll(before, shared_net_evaluator(), 1)
    shallow = cube_equities((float(one[0]), float(one[1]), float(one[2]), float(one[3]),
                             float(one[4])), CubeState(), BLACK)
    assert abs(shallow.no_double - eq.no_double) > 1e-4  # the lookahead is not the 1-ply one
    assert double.equities["double_drop"] == 1.0
    take = next(d for d in result.decisions if d.kind == "take")
    assert take.player == 0 and take.played == "take"


def test_figures_per_player() -> None:
    def d(kind: str, loss: float, player: int = 0, unforced: bool = True,
          luck: float | None = None) -> Decision:
        return Decision(game=0, turn=0, player=player, kind=kind, dice=None, position_id="",
                        played="", best="", played_equity=0.0, best_equity=loss, loss=loss,
                        mark=mark(loss) if unforced else "", luck=luck, luck_mark="",
                        unforced=unforced)

    decisions = [d("move", 0.0, luck=0.4), d("move", 0.05, luck=-0.1), d("move", 0.1),
                 d("move", 0.0, unforced=False, luck=0.2), d("double", 0.2),
                 d("double", 0.0, unforced=False), d("move", 0.5, player=1)]
    s = summarize(decisions, 0, "Ann")
    assert (s.unforced_moves, s.cube_decisions) == (3, 1)
    assert s.chequer_error_rate_memg == pytest.approx(50.0)
    assert s.cube_error_rate_memg == pytest.approx(200.0)
    assert s.error_rate_memg == pytest.approx(87.5)
    assert s.pr == pytest.approx(43.75)
    assert (s.doubtful, s.bad, s.very_bad) == (1, 1, 1)
    assert s.luck_emg == pytest.approx(0.5)
    assert s.rating == "beginner"


def test_progress_only_goes_up_to_the_total() -> None:
    seen: list[tuple[int, int]] = []
    analyze(read_mat(SMALL_MAT), plies=0, progress=lambda done, total: seen.append((done, total)))
    dones = [done for done, _ in seen]
    assert dones == sorted(dones) and dones[0] >= 1
    assert seen[-1][0] == seen[-1][1] == 3  # the opening roll, a roll, a double
    assert len({total for _, total in seen}) == 1


def test_unforced_moves_counted_as_gnubg_counts_them() -> None:
    # gnubg 1.07's "show statistics match" after "analyse match": 41 and 42 unforced moves
    path = shared_path("mat", "gnubg_selfplay_3p_s1003.mat")
    result = analyze(read_mat(path.read_text(encoding="utf-8")), plies=0)
    assert [p.unforced_moves for p in result.players] == [41, 42]
    assert result.names == ("gnubg", "root")
    assert len(result.games) == len({d.game for d in result.decisions})


def test_an_unfinished_game_is_analysed() -> None:
    game = _opening("8/5 6/5")
    game.roll((6, 4))
    result = analyze(game, plies=0)
    assert [d.kind for d in result.decisions] == ["move", "double"]


def test_bad_input() -> None:
    with pytest.raises(TypeError, match="analyze needs"):
        analyze("not a record")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="plies must be 0, 1, 2 or 3"):
        analyze(Game(), plies=4)
    with pytest.raises(ValueError, match="net level"):
        analyze(Game(), "classic")
    bad = SMALL_MAT.replace("64: 24/18 13/9", "64: 24/18 13/3")
    with pytest.raises(MatReplayError, match="line 5"):
        analyze(read_mat(bad))


#: A money game with no decision: the first player rolls and resigns.
NO_DECISIONS = """ 0 point match

 Game 1
 Ann : 0                        Bob : 0
  1) 31:
                                  Wins 1 point
"""

#: A 2-point match: Ann wins game 1 (Bob drops), game 2 is the Crawford game, Ann wins it.
CRAWFORD = SMALL_MAT.replace(" 3 point match", " 2 point match") + """
 Game 2
 Ann : 1                        Bob : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
      Wins 1 point and the match
"""


def test_a_player_with_no_decisions_has_no_rating() -> None:
    from backgammon.records import read_and_replay

    result = analyze(read_and_replay(NO_DECISIONS).match, "easy")
    assert result.decisions == []
    for player in (*result.players, *result.games[0].players):
        assert player.rating is None and player.pr == 0.0
        assert player.to_dict()["rating"] is None  # JSON null, not ""
    assert summarize([], 0, "Ann").rating is None


def test_each_game_says_who_won_it_and_whether_it_was_the_crawford_game() -> None:
    from backgammon.records import read_and_replay

    result = analyze(read_and_replay(CRAWFORD).match, "easy", plies=0)
    assert [(g.winner, g.points, g.crawford) for g in result.games] == [
        (0, 1, False), (0, 1, True)]
    games = result.to_dict()["games"]
    assert [(g["winner"], g["points"], g["crawford"]) for g in games] == [
        (0, 1, False), (0, 1, True)]
    unfinished = analyze(read_and_replay(SMALL_MAT.replace("      Wins 1 point\n", "")
                                         .replace("Drops", "Takes")).match, "easy", plies=0)
    assert (unfinished.games[0].winner, unfinished.games[0].points) == (None, None)
