"""The rules page in a real browser: the worked examples drawn on small boards, each the
engine's position with the engine's legal plays, and the common questions."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser_support import ARTIFACTS, ServerProcess, launched_chromium, served

from backgammon.services.rule_examples import RULE_EXAMPLES, example_plays, example_position

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "server-rules")


def expected_checkers(example_id: str) -> list[tuple[str, str]]:
    """Every checker of the example's position as (colour, place), as board.js names them."""
    example = next(e for e in RULE_EXAMPLES if e.id == example_id)
    position = example_position(example)
    out: list[tuple[str, str]] = []
    for point in range(1, 25):
        count = position.points[point]
        out += [("white" if count > 0 else "black", str(point))] * abs(count)
    out += [("white", "bar")] * position.points[25] + [("black", "bar")] * -position.points[0]
    out += [("white", "off")] * position.off[0] + [("black", "off")] * position.off[1]
    return sorted(out)


def test_the_worked_examples_are_drawn_with_the_engines_plays(
        browser: Browser, server: ServerProcess) -> None:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(server.url + "/rules")
    page.wait_for_function("() => document.body.dataset.examples === 'ready'")
    for example in RULE_EXAMPLES:
        slot = page.locator(f'[data-example="{example.id}"]')
        assert slot.get_attribute("data-drawn") == "1"
        # In the section of the rule it illustrates.
        assert page.locator(f'#{example.rule} [data-example="{example.id}"]').count() == 1
        assert slot.get_attribute("data-position-id") == example.position_id
        board = slot.locator(".board.rule-board")
        assert board.count() == 1 and board.is_visible()
        box = board.bounding_box()
        assert box is not None and 200 < box["width"] <= 15.45 * 24 + 1
        checkers = board.locator(".checker").evaluate_all(
            "nodes => nodes.map(n => [n.dataset.color, n.dataset.point])")
        assert sorted((c, p) for c, p in checkers) == expected_checkers(example.id)
        dice = board.locator(".die").evaluate_all(
            "nodes => nodes.map(n => Number(n.dataset.value))")
        assert dice == list(example.dice)
        shown = slot.locator(".rule-example-play").all_inner_texts()
        assert shown == example_plays(example)  # exactly the engine's plays
        assert example.caption in slot.inner_text()
        assert not board.evaluate("node => node.classList.contains('interactive')")
    assert page.locator('[data-example="dance"] .rule-example-none').inner_text() == (
        "none (the turn passes)")
    page.screenshot(path=str(ARTIFACTS / "rules-examples.png"), full_page=True)
    assert errors == []
    context.close()


def test_the_common_questions(browser: Browser, server: ServerProcess) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 800})
    page = context.new_page()
    page.goto(server.url + "/rules#faq")
    questions = page.locator(".faq-item summary").all_inner_texts()
    assert questions == ["How do I play?", "Who goes first?", "What if I cannot use both dice?",
                         "How does bearing off work?", "What is the pip count?",
                         "What is the doubling cube?", "Is my game saved?"]
    page.click("#faq-pips summary")
    assert "Both sides start at 167" in page.inner_text("#faq-pips")
    page.click("#faq-both-dice summary")
    assert "you must play the larger" in page.inner_text("#faq-both-dice").replace("\n", " ")
    # Its links lead to the rules above.
    for link in page.locator(".faq-item a[href^='#']").evaluate_all(
            "nodes => nodes.map(n => n.getAttribute('href'))"):
        assert page.locator(link).count() == 1, link
    context.close()
