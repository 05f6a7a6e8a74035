"""The checkers rules page (``/checkers/rules``) in a real browser: every worked example drawn
on its board from the engine's position, with its caption and legal moves, each rule with its
source, the FAQ, at desktop and phone size, without console errors."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import test_checkers_page as page_test
from browser_support import ARTIFACTS, ServerProcess

from backgammon.server.middleware import PAGE_CSP

browser = page_test.browser
server = page_test.server

EXAMPLES = {
    "mandatory-capture": {"14": "b", "9": "b", "18": "w"},
    "multi-jump": {"1": "b", "6": "w", "15": "w", "24": "w"},
    "crowning": {"22": "b", "26": "w", "27": "w"},
    "blocked": {"29": "w", "22": "b", "25": "b"},
    "forty-moves": {"1": "B", "30": "W"},
}


@pytest.fixture
def page(browser: Any, server: ServerProcess) -> Iterator[tuple[Any, list[str]]]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    errors: list[str] = []
    opened = context.new_page()
    page_test.watch(opened, errors)
    yield opened, errors
    context.close()


def test_the_rules_page_draws_every_example_with_its_source(
        page: tuple[Any, list[str]], server: ServerProcess) -> None:
    with urllib.request.urlopen(server.url + "/checkers/rules", timeout=10) as response:
        assert response.headers["content-security-policy"] == PAGE_CSP
        html = response.read().decode()
    assert "style=" not in html and "<script>" not in html
    with urllib.request.urlopen(server.url + "/checkers", timeout=10) as response:
        assert 'id="rules-link" href="/checkers/rules"' in response.read().decode()
    tab, errors = page
    tab.goto(server.url + "/checkers/rules")
    tab.wait_for_function("() => document.body.dataset.ready === '1'")
    for example, pieces in EXAMPLES.items():
        holder = tab.locator(f'.ck-example[data-example="{example}"]')
        drawn = holder.locator(".ck-piece").evaluate_all(
            "nodes => Object.fromEntries(nodes.map(n => [n.dataset.square, "
            "n.dataset.code]))")
        assert drawn == pieces, example
        assert holder.locator(".ck-sq.dark").count() == 32
        assert holder.locator(".ck-example-caption").inner_text()
    capture = tab.locator('.ck-example[data-example="mandatory-capture"]')
    assert capture.locator(".ck-example-moves").inner_text() == (
        "Black's legal moves: 14x23 (position B:W18:B9,14)")
    # The move the caption is about is marked: its path and the piece it takes.
    assert capture.locator(".ck-sq.last-path").evaluate_all(
        "ns => ns.map(n => Number(n.dataset.square)).sort((a, b) => a - b)"
    ) == [14, 23]
    jump = tab.locator('.ck-example[data-example="multi-jump"]')
    assert jump.locator(".ck-sq.last-captured").evaluate_all(
        "ns => ns.map(n => Number(n.dataset.square)).sort((a, b) => a - b)"
    ) == [6, 15, 24]
    blocked = tab.locator('.ck-example[data-example="blocked"]')
    assert blocked.locator(".ck-example-moves").inner_text().startswith(
        "White has no legal move: Black wins: White has no legal move")
    # Every rule names its source; the FAQ opens.
    rules = tab.locator("section.rule")
    assert rules.count() == 10
    assert tab.locator("section.rule .source").count() == 10
    assert "WCDF" in tab.locator("#mandatory-capture .source").inner_text()
    tab.click("#faq-most-pieces summary")
    assert "any jump may be chosen" in tab.inner_text("#faq-most-pieces")
    tab.screenshot(path=str(ARTIFACTS / "checkers-rules.png"), full_page=True)
    tab.set_viewport_size({"width": 390, "height": 844})
    assert tab.evaluate("() => document.documentElement.scrollWidth") <= 390
    tab.screenshot(path=str(ARTIFACTS / "checkers-rules-phone.png"))
    assert errors == []
