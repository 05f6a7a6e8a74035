"""The rules table behind the rules page and the "which rule?" of an explanation."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from backgammon import Position
from backgammon.core.explain import explain_move, explain_pass
from backgammon.services.rules import RULES, RULES_BY_ID, rule_of
from boards import diagram
from scenarios import ATTEMPT_PHRASES, find_attempt

RULES_HTML = (Path(__file__).resolve().parents[2] / "src" / "backgammon" / "server" / "static"
              / "rules.html")

ATTEMPT_SEEDS = {"open-point": 1, "bar": 1, "dice": 1, "bear-off": 1, "bear-off-higher": 2,
                 "both-dice": 3, "larger-die": 27, "blocked": 1}


class _Sections(HTMLParser):
    """The rules page's sections: id -> (title, source line)."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: dict[str, dict[str, str]] = {}
        self._current: str | None = None
        self._field: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "section" and "rule" in (found.get("class") or ""):
            self._current = found["id"] or ""
            self.sections[self._current] = {"title": "", "source": ""}
        elif self._current and tag == "h3":
            self._field = "title"
        elif self._current and tag == "p" and found.get("class") == "source":
            self._field = "source"

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h3", "p"):
            self._field = None
        if tag == "section":
            self._current = None

    def handle_data(self, data: str) -> None:
        if self._current and self._field:
            self.sections[self._current][self._field] += data


def test_the_rules_page_has_a_section_for_each_rule_with_its_source() -> None:
    parser = _Sections()
    parser.feed(RULES_HTML.read_text(encoding="utf-8"))
    assert list(parser.sections) == [rule.id for rule in RULES]
    for rule in RULES:
        section = parser.sections[rule.id]
        assert section["title"] == rule.title
        assert re.sub(r"\s+", " ", section["source"]) == f"Source: {rule.source}"


@pytest.mark.parametrize("kind", sorted(ATTEMPT_PHRASES))
def test_each_explanation_names_its_rule(kind: str) -> None:
    found = find_attempt(kind, first_seed=ATTEMPT_SEEDS[kind], seeds=1)
    rule = rule_of(found.reason)
    assert rule is not None
    assert rule.id == {"blocked": "open-point"}.get(kind, kind)


def test_other_sentences_of_the_engine() -> None:
    start = Position.start()
    assert rule_of(explain_move(start, (3, 1), [], 6, 9)) == RULES_BY_ID["direction"]
    assert rule_of(explain_move(start, (3, 1), [], 7, 4)) is None  # no checker there
    closed = diagram(white="bar:1 13:14", black="1:2 2:2 3:2 4:2 5:2 6:2 24:3")
    assert rule_of(explain_move(closed, (6, 5), [], 25, 19)) == RULES_BY_ID["pass"]
    assert rule_of(explain_pass(closed, (6, 5))) == RULES_BY_ID["bar"]
    assert rule_of(explain_pass(diagram(white="24:2 6:13", black="7:2 6:2 2:11"), (6, 6))) \
        == RULES_BY_ID["open-point"]
    assert rule_of(None) is None


def test_rule_ids_are_unique_anchors() -> None:
    ids = [rule.id for rule in RULES]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[a-z][a-z-]*", rule_id) for rule_id in ids)
