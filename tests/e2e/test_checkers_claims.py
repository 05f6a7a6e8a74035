"""Claimed draws on the checkers page, in a real browser: kings shuttling in pass & play from a
FEN start until the page offers "Claim draw (threefold repetition)" (the WCDF rules the ACF
plays under, rule 1.32.1: a draw by repetition is claimed, not automatic), the live region
saying so, then the claim ending the game with the reason shown. The page is watched for
console errors.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser_support import ARTIFACTS, ServerProcess, launched_chromium
from test_checkers_page import api, click_path, picture, start, table_of, wait_idle, watch

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser

#: A lone king each: Black's shuttles 1-6-1, White's 32-27-32.
KINGS = "B:WK32:BK1"
SHUTTLE = ([1, 6], [32, 27], [6, 1], [27, 32])


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    folder = tmp_path_factory.mktemp("checkers-claims")
    process = ServerProcess(folder / "games.sqlite3", ARTIFACTS / "checkers-claims-server.log")
    process.start()
    yield process
    process.stop()


def test_kings_shuttle_until_the_page_offers_the_claim_and_the_claim_draws(
        browser: Browser, server: ServerProcess) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    errors: list[str] = []
    page = context.new_page()
    watch(page, errors)
    page.goto(server.url + "/checkers")
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    start(page, mode="pass_and_play", fen=KINGS)
    table = table_of(page)
    assert api(server, table)["state"]["draws"] == "claim"  # the page's tables claim draws
    claim = page.locator("#claim-button")
    for path in [*SHUTTLE, *SHUTTLE[:3]]:
        assert claim.is_hidden()
        click_path(page, path)
        wait_idle(page)
    # White to move: 27-32 would bring the start back a third time, so White may claim now
    assert page.inner_text("#status") == "White to move."
    assert claim.is_visible() and claim.is_enabled()
    assert claim.inner_text() == "Claim draw (threefold repetition)"
    assert page.inner_text("#announce").endswith(
        "White may claim a draw (threefold repetition): a move of yours would bring a "
        "position back a third time.")
    assert "This position has occurred 2 times (at the third, a draw can be claimed)." in (
        page.inner_text("#draw-counts"))
    # White plays on instead: the start stands a third time, and Black may claim it
    click_path(page, SHUTTLE[3])
    wait_idle(page)
    assert page.locator("#result").is_hidden()  # not drawn by itself
    assert page.inner_text("#status") == "Black to move."
    assert claim.inner_text() == "Claim draw (threefold repetition)"
    assert page.inner_text("#announce").endswith(
        "Black may claim a draw (threefold repetition): this position has occurred 3 times.")
    picture(page, "checkers-claim.png")
    claim.click()
    page.wait_for_selector("#result:not([hidden])")
    assert page.inner_text("#result-title") == "Draw"
    assert page.inner_text("#result-text") == (
        "Black claimed the draw by threefold repetition: the same position occurred a third "
        "time.")
    assert claim.is_hidden()
    assert page.inner_text("#announce").endswith(
        "Draw: Black claimed the draw by threefold repetition: the same position occurred a "
        "third time.")
    view = api(server, table)
    assert view["outcome"] == {"winner": None, "reason": "threefold repetition", "points": 0}
    assert view["state"]["claimed_by"] == "black" and len(view["state"]["moves"]) == 8
    assert errors == []
    context.close()
