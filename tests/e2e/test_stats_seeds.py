"""The record, seeded games and "Start over" in a real browser (Debian's chromium under
Playwright, the real server in a subprocess)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from browser_support import ARTIFACTS, ServerProcess, launched_chromium, served

from conftest import shared_path

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser
Page = sync_api.Page

BASE_SETTINGS = {"speed": "instant", "theme": "light"}
SEED = "1234567890"  # Dice(random.Random(1234567890)): opening roll White 5, Black 6


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "server-stats")


@pytest.fixture
def page(browser: Browser, server: ServerProcess) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(
        "if (!sessionStorage.getItem('seeded')) {"
        f"localStorage.setItem('backgammon.settings', {json.dumps(json.dumps(BASE_SETTINGS))});"
        "sessionStorage.setItem('seeded', '1'); }")
    errors: list[str] = []
    opened = context.new_page()
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(server.url + "/")
    yield opened
    assert errors == []
    context.close()


def wait_idle(page: Page) -> None:
    page.wait_for_function(
        "() => document.body.dataset.version && !document.body.classList.contains('busy')")


def game_id(page: Page) -> str:
    fragment: str = page.evaluate("location.hash")
    return fragment.split("game=", 1)[1]


def start(page: Page, seed: str = "", mode: str = "pass_and_play") -> None:
    if not page.locator("#new-game-dialog").is_visible():
        page.click("#new-game-button")
        page.wait_for_selector("#new-game-dialog[open], #replace-dialog[open]")
        if page.locator("#replace-dialog").is_visible():  # a game in progress: asked first
            page.click("#replace-confirm")
            page.wait_for_selector("#new-game-dialog[open]")
    page.check(f"input[name=mode][value={mode}]")
    page.set_checked("#cube-input", False)
    page.fill("#seed-input", seed)
    before = page.evaluate("location.hash")
    page.click("#new-game-start")
    page.wait_for_function("(h) => location.hash.includes('game=') && location.hash !== h",
                           arg=before)
    wait_idle(page)


def shown_dice(page: Page) -> list[str]:
    values: list[str] = page.eval_on_selector_all("#board .die", "n => n.map(d => d.dataset.value)")
    return values


def test_the_same_seed_gives_the_same_dice(page: Page, server: ServerProcess) -> None:
    start(page, SEED)
    assert page.inner_text("#seed-line").startswith("Seed of this game: 1234567890")
    first = game_id(page)
    page.click("#roll-button")
    wait_idle(page)
    assert sorted(shown_dice(page)) == ["5", "6"]
    state = server.get(f"/api/games/{first}")
    assert state["seed"] == 1234567890 and state["opening"] == {"white": 5, "black": 6}

    # "New game from this seed" fills in the form; the new game throws the same dice.
    page.click("#seed-new-game")
    assert page.input_value("#seed-input") == SEED
    page.check("input[name=mode][value=pass_and_play]")
    page.click("#new-game-start")
    page.wait_for_function("(id) => !location.hash.includes(id)", arg=first)
    wait_idle(page)
    second = game_id(page)
    page.click("#roll-button")
    wait_idle(page)
    assert sorted(shown_dice(page)) == ["5", "6"]
    assert server.get(f"/api/games/{second}")["opening"] == {"white": 5, "black": 6}
    assert page.input_value("#seed-input") == ""  # the next game gets a new seed

    # Without a seed: a new one, shown.
    start(page)
    shown = page.inner_text("#seed-value")
    assert shown.isdigit() and len(shown) == 10 and shown != SEED
    assert server.get(f"/api/games/{game_id(page)}")["seed"] == int(shown)

    # An opened .mat is not that game: its seed is not shown while the record is reviewed.
    record = shared_path("mat", "gnubg_selfplay_1p_s1020.mat")
    page.set_input_files("#import-file", str(record))
    page.wait_for_function("() => document.body.dataset.reviewSource === 'record'")
    assert page.locator("#seed-line").is_hidden()
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.body.classList.contains('reviewing')")
    assert page.locator("#seed-line").is_visible()


def test_a_bad_seed_is_explained_in_the_form(page: Page) -> None:
    if not page.locator("#new-game-dialog").is_visible():
        page.click("#new-game-button")
    page.fill("#seed-input", "12a")
    page.click("#new-game-start")
    error = page.locator("#seed-error")
    error.wait_for(state="visible")
    assert error.inner_text() == ("A seed is a whole number from 0 to 9007199254740991 "
                                  '(digits only): "12a" is not one.')
    assert page.locator("#new-game-dialog").is_visible()
    assert "game=" not in page.evaluate("location.hash")
    page.fill("#seed-input", "99999999999999999")
    page.click("#new-game-start")
    assert "is too large" in error.inner_text()
    page.fill("#seed-input", "42")
    assert error.is_hidden()


def test_the_stats_view_counts_a_game_and_clears_after_asking(page: Page) -> None:
    start(page, SEED)
    page.click("#roll-button")  # Black wins the opening roll (6-5)
    wait_idle(page)
    page.click("#resign-button")  # Black resigns a gammon: White (this browser) wins 2
    page.click('#resign-dialog [data-resign="gammon"]')
    page.wait_for_function("() => document.querySelector('#result-text').textContent")
    page.click("#stats-button")
    table = page.locator("#stats-table")
    table.wait_for(state="visible")
    row = page.locator('#stats-body tr[data-kind="row"][data-opponent="pass_and_play"]'
                       '[data-mode="single"]')
    cells = row.locator("td").all_inner_texts()
    assert row.locator("th").inner_text() == "· Single game"
    assert cells == ["1", "1", "0", "2–0", "1–0", "0–0", "0–0"]
    total = page.locator('#stats-body tr[data-kind="total"] td').all_inner_texts()
    assert total == cells
    page.screenshot(path=str(ARTIFACTS / "stats.png"))

    page.click("#stats-clear")  # asks first: Cancel keeps the record
    page.locator("#confirm-dialog").wait_for(state="visible")
    assert page.inner_text("#confirm-title") == "Clear the record?"
    page.click("#confirm-cancel")
    assert table.is_visible()
    page.click("#stats-clear")
    page.click("#confirm-yes")
    page.locator("#stats-empty").wait_for(state="visible")
    assert table.is_hidden()
    assert page.inner_text("#stats-status") == "The record is cleared (1 game forgotten)."


def test_options_clear_the_settings_after_asking(page: Page) -> None:
    page.click("#new-game-cancel")
    page.click("#settings-button")
    page.select_option("#theme-select", "dark")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.click("#options-clear-settings")
    page.click("#confirm-cancel")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.click("#options-clear-settings")
    page.click("#confirm-yes")
    page.wait_for_function("() => document.documentElement.dataset.theme === 'system'")
    assert page.input_value("#theme-select") == "system"
    assert page.input_value("#speed-select") == "normal"
    assert page.evaluate("localStorage.getItem('backgammon.settings')") is None
    assert page.inner_text("#options-status") == "The settings are back to their defaults."


def test_start_over_forgets_the_game_and_the_saved_positions(page: Page,
                                                             server: ServerProcess) -> None:
    start(page, SEED)
    page.click("#roll-button")
    wait_idle(page)
    current = game_id(page)
    page.click("#save-position-button")
    page.fill("#saved-name", "mid game")
    page.click("#saved-save")
    page.locator("#saved-list li").first.wait_for()
    page.click("#saved-close")
    browser_id = page.evaluate("localStorage.getItem('backgammon.browser')")
    assert len(server.get(f"/api/saved-positions?browser={browser_id}")["positions"]) == 1

    page.click("#settings-button")
    page.click("#options-start-over")
    assert page.inner_text("#confirm-title") == "Start over?"
    page.click("#confirm-cancel")
    assert server.get(f"/api/games/{current}")["id"] == current
    page.click("#options-start-over")
    page.click("#confirm-yes")
    page.locator("#new-game-dialog").wait_for(state="visible")
    assert page.evaluate("localStorage.getItem('backgammon.game')") is None
    assert "game=" not in page.evaluate("location.hash")
    assert page.locator("#seed-line").is_hidden()
    assert server.get(f"/api/saved-positions?browser={browser_id}")["positions"] == []
    with pytest.raises(Exception, match="404"):
        server.get(f"/api/games/{current}")
    page.reload()  # nothing to resume: the New game form opens
    page.locator("#new-game-dialog").wait_for(state="visible")
