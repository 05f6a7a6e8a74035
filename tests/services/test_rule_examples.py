"""The rules page's worked examples: each Position ID is the position its words describe, and
the plays shown are exactly the engine's."""

from __future__ import annotations

from fastapi.testclient import TestClient

from backgammon.core.moves import Move, apply_play, legal_plays
from backgammon.core.position import Position
from backgammon.core.types import BAR, OFF, WHITE
from backgammon.server import ServerSettings, create_app
from backgammon.services.rule_examples import (
    RULE_EXAMPLES,
    example_plays,
    example_position,
    examples_json,
)

EXAMPLES = {example.id: example for example in RULE_EXAMPLES}


def board(white: dict[int, int], black: dict[int, int]) -> Position:
    """A position from White's numbering (25: White's bar), White on roll."""
    points = [0] * 26
    for point, count in white.items():
        points[point] += count
    for point, count in black.items():
        points[point] -= count
    return Position.from_points(points, WHITE)


def test_the_examples_are_the_positions_their_words_describe() -> None:
    assert [e.id for e in RULE_EXAMPLES] == ["dance", "larger-die", "bear-off-six"]
    assert example_position(EXAMPLES["dance"]) == board(
        {25: 1, 6: 5, 8: 3, 13: 4, 24: 2}, {20: 2, 23: 2, 19: 4, 17: 3, 12: 4})
    assert example_position(EXAMPLES["larger-die"]) == board(
        {10: 1, 1: 2}, {2: 2, 19: 4, 20: 3, 21: 3, 22: 3})
    assert example_position(EXAMPLES["bear-off-six"]) == board(
        {5: 2, 3: 1}, {19: 3, 20: 3, 21: 3, 22: 3, 23: 3})
    for example in RULE_EXAMPLES:
        assert example_position(example).id() == example.position_id


def test_a_dance_from_the_bar_5_2_against_two_made_entry_points() -> None:
    example = EXAMPLES["dance"]
    position = example_position(example)
    assert example.dice == (5, 2)
    assert position.points[BAR] == 1  # White's checker on the bar
    # The entry points of the 5 and the 2 (25 - d) are made by Black (and its 6-point); the
    # 1, 3 and 4 would enter.
    assert position.points[20] <= -2 and position.points[23] <= -2
    assert all(position.points[25 - d] >= -1 for d in (1, 3, 4))
    assert example_plays(example) == []
    assert not legal_plays(position, (5, 2))
    # Any other number enters: the rule, not the board, makes this a dance.
    assert legal_plays(position, (5, 3))


def test_one_die_playable_only_the_larger_10_4_with_6_2() -> None:
    example = EXAMPLES["larger-die"]
    position = example_position(example)
    assert example.dice == (6, 2)
    assert example_plays(example) == ["10/4"]
    (play,) = legal_plays(position, (6, 2))
    assert play.moves == (Move(10, 4, 6),)
    # Either die alone moves the 10-point checker; after either, the other die is blocked.
    after_six = apply_play(position, [Move(10, 4, 6)])
    after_two = apply_play(position, [Move(10, 8, 2)])
    assert after_six.points[4] == 1 and after_two.points[8] == 1
    assert not legal_plays(after_six, (2, 2))
    assert not legal_plays(after_two, (6, 6))


def test_bearing_off_from_the_highest_point_with_a_6() -> None:
    example = EXAMPLES["bear-off-six"]
    position = example_position(example)
    assert example.dice == (6, 1)
    assert position.points[6] == 0 and position.off[0] == 12
    assert all(position.points[p] <= 0 for p in range(7, 26))  # every White checker home
    assert example_plays(example) == ["5/4 5/off", "5/off 3/2"]
    for play in legal_plays(position, (6, 1)):
        six = [m for m in play.moves if m.die == 6]
        assert six == [Move(5, OFF, 6)]  # the 6 bears off from the 5-point, never the 3


def test_the_json_shows_exactly_the_engines_plays_and_positions() -> None:
    examples = examples_json()
    assert [e["id"] for e in examples] == ["dance", "larger-die", "bear-off-six"]
    assert [e["rule"] for e in examples] == ["pass", "larger-die", "bear-off-higher"]
    for shown, example in zip(examples, RULE_EXAMPLES, strict=True):
        position = example_position(example)
        assert shown["board"] == {"points": list(position.points),
                                  "off": {"white": position.off[0], "black": position.off[1]}}
        assert shown["dice"] == list(example.dice) and shown["turn"] == "white"
        assert [p["text"] for p in shown["plays"]] == example_plays(example)
        for play in shown["plays"]:
            parsed = {str(p): p for p in legal_plays(position, example.dice)}[play["text"]]
            assert [(m["from"], m["to"], m["die"]) for m in play["moves"]] == [
                ("bar" if m.from_point == BAR else m.from_point,
                 "off" if m.to_point == OFF else m.to_point, m.die)
                for m in parsed.moves]


def test_the_examples_endpoint() -> None:
    with TestClient(create_app(ServerSettings(db_path=":memory:"))) as client:
        response = client.get("/api/rules/examples")
    assert response.status_code == 200
    assert response.json() == examples_json()
