"""The rules the engine enforces, each with its published source, and which rule an
explanation of a refused move names.

:data:`RULES` is the table behind the page's rules page (``server/static/rules.html`` has one
section per rule, its ``id`` the rule's :attr:`Rule.id`; a test checks the two agree) and
behind the "which rule?" link shown with an explanation. Section numbers are those of the WBF
(World Backgammon Federation) "Rules of Backgammon" as :mod:`backgammon.core.moves`,
:mod:`backgammon.core.game` and :mod:`backgammon.core.position` cite them; the cube and match
rules come from the sources :mod:`backgammon.core.game` and :mod:`backgammon.core.match` name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule as the engine enforces it.

    Attributes:
        id: the anchor of its section on the rules page (``/rules#open-point``).
        title: a few words: ``"Open points only"``.
        source: where it is published: ``"WBF Rules of Backgammon 3.1"``.
    """

    id: str
    title: str
    source: str


#: Every rule the engine enforces, in the order of the rules page.
RULES: Final = (
    Rule("setup", "Fifteen checkers and the starting position", "WBF Rules of Backgammon 1.1-1.2"),
    Rule("opening", "The opening roll", "WBF Rules of Backgammon 2.1"),
    Rule("direction", "Checkers move forward only", "WBF Rules of Backgammon 3.1"),
    Rule("dice", "Each die is a move of exactly its number", "WBF Rules of Backgammon 3.1"),
    Rule("open-point", "Open points only; a blot is hit", "WBF Rules of Backgammon 3.1"),
    Rule("doubles", "Doubles are played four times", "WBF Rules of Backgammon 3.4"),
    Rule("both-dice", "Use both dice when you can", "WBF Rules of Backgammon 3.5"),
    Rule("larger-die", "Only one die playable: the larger", "WBF Rules of Backgammon 3.5"),
    Rule("pass", "No legal move: the turn passes", "WBF Rules of Backgammon 3.5-3.6"),
    Rule("bar", "A checker on the bar enters first", "WBF Rules of Backgammon 3.6"),
    Rule("bear-off", "Bearing off needs all 15 checkers home", "WBF Rules of Backgammon 4.1"),
    Rule("bear-off-higher", "A larger die bears off from the highest point only",
         "WBF Rules of Backgammon 4.2"),
    Rule("bear-off-hit", "A hit checker comes home before bearing off resumes",
         "WBF Rules of Backgammon 4.3"),
    Rule("results", "Single game, gammon, backgammon", "WBF Rules of Backgammon 5.1-5.3"),
    Rule("cube", "The doubling cube: double, take, drop",
         "Rules of Backgammon, bkgm.com, \"Doubling Cube\"; WBGF tournament rules"),
    Rule("match", "Match play to N points", "WBGF tournament rules, match play"),
    Rule("crawford", "The Crawford rule",
         "The Crawford rule (John R. Crawford); WBGF tournament rules; GNU Backgammon"),
    Rule("resign", "Resigning a game",
         "Not in the WBF rules: the convention of GNU Backgammon and backgammon servers"),
    Rule("money-rules", "Money play: the Jacoby rule, beavers and raccoons",
         "Rules of Backgammon, bkgm.com, \"Optional rules\"; rec.games.backgammon FAQ 8, "
         "\"What are those critters --- beavers, raccoons?\""),
    Rule("online-fair-play", "Online: a player who is gone, leaves or cheats loses",
         "Not in the WBF rules: this server's refereeing of online games"),
)

#: The rules by id.
RULES_BY_ID: Final = {rule.id: rule for rule in RULES}

# Which rule an explanation sentence of :func:`backgammon.core.explain.explain_move` or
# :func:`~backgammon.core.explain.explain_pass` names, by a phrase it contains; the phrase that
# comes first in the sentence wins (a sentence gives its main reason first). The phrases are
# the engine's own wording (tests/services/test_rules.py checks each).
_PHRASES: Final = (
    ("must enter first", "bar"),
    ("on the bar cannot enter", "bar"),
    ("bearing off needs all 15", "bear-off"),
    ("only when no checker stands higher", "bear-off-higher"),
    ("must be the larger", "larger-die"),
    ("you must use both dice", "both-dice"),
    ("play as many dice as you can", "both-dice"),
    ("is held by", "open-point"),
    ("the way is blocked", "open-point"),
    ("no die shows", "dice"),
    ("move forward only", "direction"),
    ("the turn passes", "pass"),
)


def rule_of(sentence: str | None) -> Rule | None:
    """The rule an explanation names, or None (a sentence that names none, such as "you have
    no checker on the 7-point", or None itself)."""
    if not sentence:
        return None
    found = [(sentence.find(phrase), rule_id) for phrase, rule_id in _PHRASES
             if phrase in sentence]
    return RULES_BY_ID[min(found)[1]] if found else None


__all__ = ["RULES", "RULES_BY_ID", "Rule", "rule_of"]
