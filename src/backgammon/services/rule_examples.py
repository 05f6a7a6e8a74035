"""The rules page's worked examples: real positions, with the plays the engine allows.

Each example is a GNU Backgammon Position ID (White on roll), a roll and the words around it;
:func:`examples_json` decodes the position and asks the engine (:func:`legal_plays`) for the
legal plays, so what the page shows is what the game enforces. The page
(``static/rules.html``, ``static/js/rules.js``) draws each on a small board in the section of
the rule it illustrates (``rule``: the section's id).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from typing_extensions import TypedDict

from backgammon.core.moves import legal_plays
from backgammon.core.position import Position
from backgammon.core.types import WHITE
from backgammon.services.destinations import move_json
from backgammon.services.state import BoardJSON, MoveJSON


@dataclass(frozen=True, slots=True)
class RuleExample:
    """One worked example.

    Attributes:
        id: its name on the page (``data-example``).
        rule: the id of the rules page's section it illustrates.
        title: a heading.
        position_id: the position, White on roll (GNU Backgammon Position ID).
        dice: the roll.
        caption: what it shows, in words (the plays themselves come from the engine).
        source: where the rule is published.
    """

    id: str
    rule: str
    title: str
    position_id: str
    dice: tuple[int, int]
    caption: str
    source: str


#: The examples, in the order of the page.
RULE_EXAMPLES: Final = (
    RuleExample(
        id="dance",
        rule="pass",
        title="A dance from the bar: 5-2 against two made entry points",
        # White: one on the bar, 6-point 5, 8-point 3, 13-point 4, 24-point 2; Black holds
        # White's 20- and 23-points (its own 5- and 2-points), the 19-, 17- and 12-points.
        position_id="xp6DBwDgc/AAWA",
        dice=(5, 2),
        caption="White has a checker on the bar and rolls 5-2. The 5 would enter on White's "
        "20-point and the 2 on its 23-point, and Black has made both. A checker on the bar "
        "must enter before any other moves, so White cannot play at all: White dances, and "
        "the turn passes.",
        source="WBF Rules of Backgammon 3.5-3.6",
    ),
    RuleExample(
        id="larger-die",
        rule="larger-die",
        title="One die playable: only the larger, 10/4 with 6-2",
        # White: 10-point 1, 1-point 2, twelve off; Black holds White's 2-point and its home.
        position_id="3N0DABgDCAAAAA",
        dice=(6, 2),
        caption="White rolls 6-2. Either die alone can move the checker on the 10-point, "
        "but after 10/4 the 2 would land on the 2-point Black holds, and after 10/8 so "
        "would the 6; the checkers on the 1-point cannot move. Only one die can be played, "
        "so it must be the larger: 10/4, and 10/8 is not allowed.",
        source="WBF Rules of Backgammon 3.5",
    ),
    RuleExample(
        id="bear-off-six",
        rule="bear-off-higher",
        title="Bearing off from the highest point with a 6",
        # White: two on the 5-point, one on the 3-point, twelve off; Black all home.
        position_id="7u4OAABkAAAAAA",
        dice=(6, 1),
        caption="White rolls 6-1 with every checker home and none on the 6-point. The 6 "
        "bears off a checker from the 5-point, the highest one occupied; it may not bear off "
        "the checker on the 3-point while one stands higher. The 1 is played as well.",
        source="WBF Rules of Backgammon 4.2",
    ),
)


class PlayJSON(TypedDict):
    """A legal play: its notation and its moves (as the board marks them)."""

    text: str
    moves: list[MoveJSON]


class RuleExampleJSON(TypedDict):
    """An example as the rules page draws it: the words, the position (``board``, White on
    roll), the roll, and ``plays``, every legal play as the engine lists it (``[]``: the
    roll cannot be played)."""

    id: str
    rule: str
    title: str
    caption: str
    source: str
    position_id: str
    turn: str
    dice: list[int]
    board: BoardJSON
    plays: list[PlayJSON]


def example_position(example: RuleExample) -> Position:
    """The example's position, White on roll."""
    return Position.from_id(example.position_id, WHITE)


def example_plays(example: RuleExample) -> list[str]:
    """The legal plays of the example's position and roll, in standard notation, sorted."""
    return sorted(str(play) for play in legal_plays(example_position(example), example.dice))


def examples_json() -> list[RuleExampleJSON]:
    """Every example of :data:`RULE_EXAMPLES`, with the engine's legal plays."""
    out: list[RuleExampleJSON] = []
    for example in RULE_EXAMPLES:
        position = example_position(example)
        plays = sorted(legal_plays(position, example.dice), key=str)
        out.append({
            "id": example.id,
            "rule": example.rule,
            "title": example.title,
            "caption": example.caption,
            "source": example.source,
            "position_id": example.position_id,
            "turn": "white",
            "dice": list(example.dice),
            "board": {"points": list(position.points),
                      "off": {"white": position.off[0], "black": position.off[1]}},
            "plays": [{"text": str(play), "moves": [move_json(m, WHITE) for m in play.moves]}
                      for play in plays],
        })
    return out


__all__ = ["RULE_EXAMPLES", "PlayJSON", "RuleExample", "RuleExampleJSON", "example_plays",
           "example_position", "examples_json"]
