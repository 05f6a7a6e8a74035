"""Cube decisions in money and match play, from given chances and from real positions."""

from __future__ import annotations

import pytest

from backgammon import BLACK, WHITE
from backgammon.ai.cube import (
    CubeAction,
    CubeState,
    beaver_equities,
    beaver_response,
    cube_equities,
    double_decision,
    may_double,
    raccoon_equities,
    raccoon_response,
    take_decision,
)
from backgammon.ai.met import solve
from backgammon.ai.player import ComputerPlayer
from boards import diagram

MONEY = CubeState()
BEAVERS = CubeState(beavers=True)


def chances(win: float, gammons: float = 0.0, lost_gammons: float = 0.0):
    """5 probabilities: ``gammons`` of the wins and ``lost_gammons`` of the losses."""
    return (win, win * gammons, 0.0, (1 - win) * lost_gammons, 0.0)


def test_money_take_point_without_gammons() -> None:
    # Dead cube: 25%; fully live: 20% (Keeler and Spencer); with efficiency 0.68 between.
    def after_take(p: float) -> float:
        return cube_equities(chances(p), MONEY, WHITE).double_take

    take_point = 1.0 - solve(after_take, 1.0)
    assert 0.205 < take_point < 0.22


def test_clear_double_and_take() -> None:
    decision = double_decision(chances(0.72), MONEY, WHITE)
    assert decision.action is CubeAction.DOUBLE
    assert decision.response is CubeAction.TAKE
    assert decision.equities is not None
    assert decision.equities.double_take > decision.equities.no_double


def test_clear_double_and_drop() -> None:
    decision = double_decision(chances(0.86), MONEY, WHITE)
    assert decision.action is CubeAction.DOUBLE
    assert decision.response is CubeAction.DROP
    assert take_decision((0.14, 0.0, 0.0, 0.0, 0.0), MONEY, BLACK) is CubeAction.DROP


def test_too_early_to_double() -> None:
    decision = double_decision(chances(0.58), MONEY, WHITE)
    assert decision.action is CubeAction.NO_DOUBLE
    assert take_decision((0.42, 0.0, 0.0, 0.0, 0.0), MONEY, BLACK) is CubeAction.TAKE


def test_too_good_to_double() -> None:
    # 88% to win, half of the wins gammons, hardly any lost gammons: playing on is worth more
    # than the one point a drop would give.
    decision = double_decision(chances(0.88, gammons=0.5), MONEY, WHITE)
    assert decision.action is CubeAction.TOO_GOOD
    assert decision.response is CubeAction.DROP
    assert decision.equities is not None
    assert decision.equities.no_double > decision.equities.double_drop


def test_gammons_lower_the_take_point() -> None:
    # The taker's lost gammons make the same winning chance a drop.
    assert take_decision(chances(0.24), MONEY, BLACK) is CubeAction.TAKE
    assert take_decision(chances(0.24, lost_gammons=0.5), MONEY, BLACK) is CubeAction.DROP


def test_beaver_when_the_taker_is_the_favourite() -> None:
    beavers = CubeState(beavers=True)
    assert take_decision(chances(0.6), beavers, BLACK) is CubeAction.BEAVER
    assert take_decision(chances(0.6), MONEY, BLACK) is CubeAction.TAKE
    assert take_decision(chances(0.4), beavers, BLACK) is CubeAction.TAKE


def test_jacoby_keeps_gammonish_positions_from_waiting() -> None:
    # With gammons not counting until the cube is turned, playing on is worth less.
    p = chances(0.8, gammons=0.4)
    plain = cube_equities(p, CubeState(), WHITE)
    jacoby = cube_equities(p, CubeState(jacoby=True), WHITE)
    assert jacoby.no_double < plain.no_double
    assert jacoby.double_take == pytest.approx(plain.double_take)


def test_the_owner_alone_may_double() -> None:
    owned = CubeState(value=2, owner=BLACK)
    assert may_double(owned, WHITE) == "opponent owns the cube"
    assert may_double(owned, BLACK) == ""
    decision = double_decision(chances(0.95), owned, WHITE)
    assert decision.action is CubeAction.NO_DOUBLE
    assert decision.reason == "opponent owns the cube"


def test_never_double_in_the_crawford_game() -> None:
    crawford = CubeState(match_length=5, score=(2, 4), crawford=True)
    for p in (0.6, 0.8, 0.99):
        decision = double_decision(chances(p), crawford, WHITE)
        assert decision.action is CubeAction.NO_DOUBLE
        assert decision.reason == "Crawford game"


def test_no_double_when_the_cube_is_dead() -> None:
    # White needs 2 points and the cube is on 2: winning already wins the match.
    dead = CubeState(value=2, owner=WHITE, match_length=5, score=(3, 0))
    decision = double_decision(chances(0.75), dead, WHITE)
    assert decision.action is CubeAction.NO_DOUBLE
    assert decision.reason == "cube dead"


def test_post_crawford_trailer_doubles_at_once() -> None:
    # Black leads 4-1 in a 5-point match after the Crawford game: White, 4-away, should
    # double even in an even position, and Black (1-away) should take.
    post = CubeState(match_length=5, score=(1, 4))
    assert post.post_crawford()
    decision = double_decision(chances(0.5, 0.25, 0.25), post, WHITE)
    assert decision.action is CubeAction.DOUBLE
    assert decision.response is CubeAction.TAKE



def test_the_taker_of_a_dead_cube_redoubles_at_once() -> None:
    # White leads 5-0 in a 7-point match (2-away against 7-away) and doubles with 75 %: any
    # win on 2 already wins White the match, so Black loses nothing by redoubling to 4 at
    # once, and does. Taken, the game is then worth White's win against Black's 4 points:
    # p + (1 - p) x MWC(2-away, 3-away), below the 2 points of a drop, so Black takes (gnubg
    # takes such doubles too).
    from backgammon.ai.met import match_equity_table

    lead = CubeState(match_length=7, score=(5, 0))
    eq = cube_equities(chances(0.75), lead, WHITE)
    table = match_equity_table()
    assert eq.double_take == pytest.approx(0.75 + 0.25 * table.after(2, 3, "normal"))
    assert eq.double_drop == pytest.approx(table.after(1, 7, "normal"))
    assert eq.double_take < eq.double_drop
    assert double_decision(chances(0.75), lead, WHITE).response is CubeAction.TAKE

def test_match_double_take_and_drop() -> None:
    match = CubeState(match_length=7, score=(0, 0))
    assert double_decision(chances(0.55, 0.2, 0.2), match, WHITE).action is CubeAction.NO_DOUBLE
    assert double_decision(chances(0.72, 0.2, 0.2), match, WHITE).action is CubeAction.DOUBLE
    assert double_decision(chances(0.9, 0.1, 0.1), match, WHITE).response is CubeAction.DROP


def test_real_positions_through_the_player() -> None:
    player = ComputerPlayer("hard")
    # Bear-offs, where the chances are exact. White, on roll with two checkers on its 6-point,
    # wins unless it rolls no double and Black then bears off three: about 90%. Double, drop.
    clear_drop = diagram(white="6:2", black="6:2 4:1", turn="white")
    assert player.probabilities(clear_drop)[0] == pytest.approx(0.899, abs=0.001)
    decision = player.double_decision(clear_drop, MONEY)
    assert decision.action is CubeAction.DOUBLE
    assert decision.response is CubeAction.DROP
    assert player.take_decision(clear_drop, MONEY) is CubeAction.DROP
    # About 74% for White: double, take.
    clear_take = diagram(white="6:3", black="5:2 4:2", turn="white")
    assert 0.7 < player.probabilities(clear_take)[0] < 0.77
    decision = player.double_decision(clear_take, MONEY)
    assert (decision.action, decision.response) == (CubeAction.DOUBLE, CubeAction.TAKE)
    assert player.take_decision(clear_take, MONEY) is CubeAction.TAKE
    # A race White leads by some 60 pips with Black far from home: too good to double.
    crushing = diagram(white="6:5 5:5 4:5", black="6:3 8:4 10:4 12:4", turn="white")
    assert player.double_decision(crushing, MONEY).action is CubeAction.TOO_GOOD
    # The start: no double, and a double would be taken.
    from backgammon import Position

    assert player.double_decision(Position.start(), MONEY).action is CubeAction.NO_DOUBLE
    assert player.take_decision(Position.start(), MONEY) in (CubeAction.TAKE, CubeAction.BEAVER)


# -- textbook positions, decided on the nets (Expert) ------------------------------------------


def test_a_closed_board_with_two_on_the_bar_is_too_good_to_double() -> None:
    # White has closed its board with two Black checkers on the bar and Black's others far
    # from home: gammons are likely, so White plays on for them rather than cash a point.
    position = diagram(white="1:2 2:2 3:2 4:2 5:2 6:2 8:3",
                       black="bar:2 12:3 11:3 10:3 9:2 8:2", turn="white")
    decision = ComputerPlayer("expert").double_decision(position, MONEY)
    assert decision.action is CubeAction.TOO_GOOD
    assert decision.response is CubeAction.DROP


def test_a_mid_race_lead_of_eight_percent_doubles_and_is_taken() -> None:
    # a 94-102 race, White on roll: 8.5% ahead, about 73% to win: double, take
    position = diagram(white="6:3 5:3 4:2 3:2 8:2 10:2 11:1",
                       black="6:3 5:2 4:2 3:1 8:3 9:2 10:1 11:1", turn="white")
    assert (position.pip_count(WHITE), position.pip_count(BLACK)) == (94, 102)
    player = ComputerPlayer("expert")
    decision = player.double_decision(position, MONEY)
    assert (decision.action, decision.response) == (CubeAction.DOUBLE, CubeAction.TAKE)
    assert player.take_decision(position, MONEY) is CubeAction.TAKE


def test_a_small_race_lead_is_no_double() -> None:
    # 95-99, White on roll: about 66%, no double yet
    position = diagram(white="6:3 5:3 4:2 3:2 8:2 10:2 12:1",
                       black="6:3 5:2 4:2 3:2 8:2 9:2 11:1 12:1", turn="white")
    decision = ComputerPlayer("expert").double_decision(position, MONEY)
    assert decision.action is CubeAction.NO_DOUBLE


def test_a_twenty_percent_race_lead_doubles_and_is_dropped() -> None:
    # 94-113, White on roll: far past the take point
    position = diagram(white="6:3 5:3 4:2 3:2 8:2 10:2 11:1",
                       black="6:3 5:2 4:2 8:2 9:2 10:2 11:1 12:1", turn="white")
    player = ComputerPlayer("expert")
    decision = player.double_decision(position, MONEY)
    assert (decision.action, decision.response) == (CubeAction.DOUBLE, CubeAction.DROP)
    assert player.take_decision(position, MONEY) is CubeAction.DROP


def test_with_gammons_off_the_closed_board_cashes() -> None:
    # the same closed board with two on the bar: without gammons there is nothing to play on
    # for, so White doubles and Black drops
    position = diagram(white="1:2 2:2 3:2 4:2 5:2 6:2 8:3",
                       black="bar:2 12:3 11:3 10:3 9:2 8:2", turn="white")
    decision = ComputerPlayer("expert").double_decision(position, CubeState(gammons=False))
    assert (decision.action, decision.response) == (CubeAction.DOUBLE, CubeAction.DROP)
    from backgammon.ai.choose import play_utility

    assert play_utility(CubeState(gammons=False), WHITE).weights == (2.0, 0.0, 0.0, 0.0, 0.0)


def test_the_doubler_takes_a_beaver_unless_the_cube_at_four_times_costs_more() -> None:
    # after a beaver the doubler takes without the cube (the beaver keeps it): its take
    # point is far higher than a double's, about 37% with the cube's usual efficiency
    for win, answer in ((0.45, CubeAction.TAKE), (0.40, CubeAction.TAKE),
                        (0.30, CubeAction.DROP), (0.10, CubeAction.DROP)):
        take, drop = beaver_equities(chances(win), BEAVERS, WHITE)
        assert drop == -2.0
        assert take == pytest.approx(
            2 * cube_equities(chances(win), BEAVERS, WHITE).double_take, abs=0.02)
        assert beaver_response(chances(win), BEAVERS, WHITE) is answer


def test_one_cube_decision_for_a_game_beaver_included() -> None:
    """Where double_decision says beaver, the advice of a game and the computer's answers
    say it too (the computer took such a double); after the beaver the doubler takes or
    drops by beaver_response (never a beaver of a beaver)."""
    from backgammon.ai.player import cube_advice
    from backgammon.core.xgid import Xgid
    from backgammon.services.setup import setup_match
    from scenarios import BEAVER_XGID

    player = ComputerPlayer("easy")
    game = setup_match(Xgid.parse(BEAVER_XGID)).current
    probs = player.probabilities(game.position)
    assert round(probs[0], 3) == 0.363
    decision = double_decision(probs, BEAVERS, WHITE)
    assert (decision.action, decision.response) == (CubeAction.NO_DOUBLE, CubeAction.BEAVER)
    advice = cube_advice(game, probs)
    assert advice is not None and advice.stage == "double" and advice.decision == decision
    assert player.cube_action(game) is CubeAction.NO_DOUBLE
    game.double()
    advice = cube_advice(game, probs)
    assert advice is not None and (advice.stage, advice.answer) == ("take", CubeAction.BEAVER)
    assert advice.decision == decision
    assert player.cube_action(game) is CubeAction.BEAVER
    assert player.answer_double(game) == "beaver"
    game.beaver()
    advice = cube_advice(game, probs)
    expected = beaver_response(probs, BEAVERS, WHITE)
    assert advice is not None and (advice.stage, advice.answer) == ("beaver", expected)
    assert advice.decision == decision and advice.cube == BEAVERS
    assert player.answer_double(game) == expected.value
    # without beavers the same double is taken
    plain = setup_match(Xgid.parse(BEAVER_XGID.replace(":2:0:10", ":0:0:10"))).current
    plain.double()
    assert player.answer_double(plain) == "take"


def test_the_doubler_raccoons_a_beaver_when_it_is_the_favourite() -> None:
    # after a raccoon the cube is at eight times, still the beaver's (rec.games.backgammon FAQ
    # 8): worth twice the take of the beaver to the doubler, or 4 if the beaver drops
    for win, answer in ((0.75, CubeAction.RACCOON), (0.60, CubeAction.RACCOON),
                        (0.45, CubeAction.TAKE), (0.30, CubeAction.DROP)):
        take, _drop = beaver_equities(chances(win), BEAVERS, WHITE)
        r_take, r_drop = raccoon_equities(chances(win), BEAVERS, WHITE)
        assert r_drop == 4.0
        assert r_take == pytest.approx(2 * take, abs=0.02)
        assert beaver_response(chances(win), BEAVERS, WHITE) is answer
    # the raccoon is the favourite's answer exactly when it holds the edge at the beaver's cube
    assert beaver_equities(chances(0.60), BEAVERS, WHITE)[0] > 0
    assert beaver_equities(chances(0.45), BEAVERS, WHITE)[0] < 0
    # the beaver takes a raccoon unless the cube at eight times costs it more than 4
    assert raccoon_response(chances(0.75), BEAVERS, WHITE) is CubeAction.TAKE
    assert raccoon_response(chances(0.95, gammons=0.5), BEAVERS, WHITE) is CubeAction.DROP
    # without beavers there is no raccoon: the beaver is taken
    assert beaver_response(chances(0.75), MONEY, WHITE) is CubeAction.TAKE


def test_one_cube_decision_for_a_game_raccoon_included() -> None:
    """White doubles at 77.2% (scenarios.RACCOON_XGID); a beaver by Black is a mistake:
    the advice of the game and the computer's answer is a raccoon, which Black takes."""
    from backgammon.ai.player import cube_advice
    from backgammon.core.xgid import Xgid
    from backgammon.services.setup import setup_match
    from scenarios import RACCOON_XGID

    player = ComputerPlayer("easy")
    game = setup_match(Xgid.parse(RACCOON_XGID)).current
    probs = player.probabilities(game.position)
    assert round(probs[0], 3) == 0.772
    decision = double_decision(probs, BEAVERS, WHITE)
    assert (decision.action, decision.response) == (CubeAction.DOUBLE, CubeAction.TAKE)
    assert player.cube_action(game) is CubeAction.DOUBLE
    game.double()
    assert player.answer_double(game) == "take"  # Black takes, never beavers
    game.beaver()
    advice = cube_advice(game, probs)
    assert advice is not None and (advice.stage, advice.answer) == ("beaver", CubeAction.RACCOON)
    assert advice.decision == decision and advice.cube == BEAVERS
    assert player.cube_action(game) is CubeAction.RACCOON
    assert player.answer_double(game) == "raccoon"
    game.raccoon()
    advice = cube_advice(game, probs)
    assert advice is not None and (advice.stage, advice.answer) == ("raccoon", CubeAction.TAKE)
    assert advice.decision == decision and advice.cube == BEAVERS
    assert player.answer_double(game) == "take"
    game.take()
    assert (game.cube_value, game.cube_owner) == (8, BLACK)
