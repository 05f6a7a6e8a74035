"""A new player's trial of the page (desktop and phone, light and dark), point by point, in a
real browser: Playwright drives Debian's chromium against ``backgammon serve``.

Each test names the trial's point it checks. Games in chosen states are made by the engine
(``tests/scenarios.py``) and saved in the server's database, or played through the API with a
fixed seed; screenshots go to ``test-artifacts/e2e/``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from browser_support import ARTIFACTS, ServerProcess, launched_chromium, mat_turns, served
from test_web_game import BASE_SETTINGS, GamePage

from gametable.game_store import GameStore
from scenarios import random_match, session_record

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser

DESKTOP = (1280, 860)
PHONE = (390, 844)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "server-trial")


@pytest.fixture
def open_page(browser: Browser, server: ServerProcess) -> Iterator[Any]:
    """``open_page(path, viewport=..., settings={...}, storage={...}, init=script)``: a fresh
    browser context on the page; ``storage`` is put in localStorage before the page loads."""
    contexts = []
    pages: list[GamePage] = []

    def open_(path: str = "/", viewport: tuple[int, int] = DESKTOP,
              settings: dict[str, Any] | None = None, storage: dict[str, str] | None = None,
              init: str | None = None) -> GamePage:
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        chosen = {**BASE_SETTINGS, **(settings or {})}
        items = {"backgammon.settings": json.dumps(chosen), **(storage or {})}
        context.add_init_script(
            f"for (const [k, v] of Object.entries({json.dumps(items)})) "
            "{ if (localStorage.getItem(k) === null) localStorage.setItem(k, v); }")
        if init:
            context.add_init_script(init)
        contexts.append(context)
        page = context.new_page()
        game_page = GamePage(page, server)
        page.goto(server.url + path)
        pages.append(game_page)
        if "#game=" in path:
            game_page.wait_idle()
        return game_page

    yield open_
    for game_page in pages:
        assert game_page.errors == [], game_page.errors
    for context in contexts:
        context.close()


def store(server: ServerProcess, game_id: str, match: Any, **settings: Any) -> str:
    """Save ``match`` as session ``game_id`` in the running server's database."""
    with GameStore(server.db_path) as games:
        games.save(game_id, session_record(match, **settings))
    return game_id


def post(server: ServerProcess, path: str, body: dict[str, Any] | None = None) -> Any:
    return server.post(path, body)


def board_box(page: Any) -> dict[str, float]:
    box: dict[str, float] = page.evaluate(
        "(() => { const r = document.getElementById('board').getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, height: innerHeight}; })()")
    return box


def assert_board_in_view(page: Any) -> None:
    box = board_box(page)
    assert box["top"] >= -1 and box["bottom"] <= box["height"] + 1, box


# --------------------------------------------------------------------------------------------
# 1. Review and analysis keep the board in view


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_1_the_board_stays_in_view_while_the_move_list_and_review_scroll(
        open_page: Any, server: ServerProcess, viewport: tuple[int, int]) -> None:
    gid = store(server, f"inview{viewport[0]}", random_match(21, games=1, cube=True))
    game = open_page(f"/#game={gid}", viewport=viewport, storage={"backgammon.hints": "on"})
    page = game.page
    assert page.evaluate("scrollY") == 0
    page.keyboard.press("v")
    page.wait_for_function("() => document.body.classList.contains('reviewing')")
    # opening the review does not scroll the page (it jumped to the move list's last line)
    assert page.evaluate("scrollY") == 0
    item = page.locator("#move-list li").nth(30)
    item.scroll_into_view_if_needed()
    item.click()
    page.wait_for_function("() => document.body.dataset.reviewIndex === '31'")
    assert_board_in_view(page)
    for step in range(8):
        # each turn's evaluation (the hints panel) is drawn before the next step
        page.wait_for_selector("#hints-eval[data-kind]", timeout=60_000)
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"() => document.body.dataset.reviewIndex === '{32 + step}'")
        assert_board_in_view(page)
    page.wait_for_selector("#hints-eval[data-kind]", timeout=60_000)
    assert_board_in_view(page)
    page.screenshot(path=str(ARTIFACTS / f"trial-1-review-{viewport[0]}.png"))


# --------------------------------------------------------------------------------------------
# 2. Dice tumble only when someone rolls

#: Records every die that tumbles: the status line then, and the die's classes.
TUMBLES = """
window.__tumbles = [];
new MutationObserver(() => {
  const status = document.getElementById('status');
  for (const die of document.querySelectorAll('#board .die.tumbling')) {
    window.__tumbles.push([status ? status.textContent : '', die.className]);
  }
}).observe(document, {subtree: true, attributes: true, attributeFilter: ['class']});
"""


def advance(server: ServerProcess, gid: str, stop: Any, limit: int = 200) -> dict[str, Any]:
    """Play the game through the API (the person's side: the first legal move each time,
    the computer's turns asked for) until ``stop(state)``."""
    for _ in range(limit):
        state: dict[str, Any] = server.get(f"/api/games/{gid}")
        if stop(state):
            return state
        if state["computer_to_act"]:
            post(server, f"/api/games/{gid}/computer")
        elif state["can"]["roll"]:
            post(server, f"/api/games/{gid}/roll")
        elif state["legal"]:
            entry = state["legal"][0]
            post(server, f"/api/games/{gid}/move",
                 {"from": entry["from"], "to": entry["destinations"][0]["to"]})
        elif state["can"]["done"]:
            post(server, f"/api/games/{gid}/done")
        elif state["can"]["take"]:
            post(server, f"/api/games/{gid}/take")
        else:
            raise AssertionError(state["message"])
    raise AssertionError("the game went on too long")


def race_setup(turn: str) -> dict[str, Any]:
    """A race, Black far ahead (57 pips to 93): the computer, Black, doubles on its turn."""
    points = [0] * 26
    for p in (4, 5, 6):
        points[p] = 3
    for p in (7, 8, 9):
        points[p] = 2
    for p in (19, 20, 21):
        points[p] = -3
    for p in (22, 23, 24):
        points[p] = -2
    return {"board": {"points": points, "off": {"white": 0, "black": 0}}, "turn": turn,
            "dice": None, "cube": {"value": 1, "owner": None}, "doubled": False,
            "match_length": 0, "score": {"white": 0, "black": 0}, "crawford": False,
            "jacoby": False, "beavers": False}


#: The board shows one roll's dice, faded: two dice, or four equal ones (a double).
FADED_ROLL = """() => {
  const values = [...document.querySelectorAll('#board .die.last')].map(d => d.dataset.value);
  return values.length === 2 || (values.length === 4 && values.every(v => v === values[0]));
}"""


def test_2_no_dice_tumble_when_nobody_rolled(open_page: Any, server: ServerProcess) -> None:
    # the person doubles mid-game and the computer takes: "Your turn: roll."
    for seed in range(1, 30):
        state = post(server, "/api/games", {"mode": "computer", "level": "easy",
                                            "side": "white", "cube": True, "seed": str(seed)})
        gid = state["id"]
        state = advance(server, gid, lambda s: s["can"]["double"] and len(s["history"]) > 4)
        game = open_page(f"/#game={gid}", settings={"speed": "normal"}, init=TUMBLES)
        game.page.click("#double-button")
        game.wait_idle()
        if game.state()["phase"] == "roll":  # taken
            break
    page = game.page
    assert page.inner_text("#status") == "Your turn: roll."
    # the computer's last roll, faded (two dice, or four of a double)
    page.wait_for_function(FADED_ROLL)
    page.wait_for_timeout(700)
    assert page.evaluate("window.__tumbles") == []

    # the computer doubles after the person's turn: "The computer doubles to 2: take or drop?"
    state = post(server, "/api/games", {"mode": "computer", "level": "easy", "side": "white",
                                        "cube": True, "setup": race_setup("white")})
    game = open_page(f"/#game={state['id']}", settings={"speed": "normal"}, init=TUMBLES)
    page = game.page
    game.press("#roll-button")
    tumbled = page.evaluate("window.__tumbles")
    assert tumbled and all("last" not in classes for _, classes in tumbled)
    page.wait_for_function("() => !document.querySelector('#board .die.tumbling')")
    page.evaluate("window.__tumbles = []")
    while game.state()["legal"]:
        entry = game.state()["legal"][0]
        game.click_move("white", entry["from"], entry["destinations"][0]["to"])
    game.press("#done-button")
    page.wait_for_function("() => document.getElementById('status').textContent"
                           ".includes('take or drop')")
    page.wait_for_timeout(700)
    assert page.evaluate("window.__tumbles") == []
    # the person's roll, faded (two dice, or four of a double)
    page.wait_for_function(FADED_ROLL)


# --------------------------------------------------------------------------------------------
# 3. An analysis leaves the screen with what it analysed

SHORT_MATCH = """ 5 point match

 Game 1
 Alice : 0                      Bob : 0
  1) 31: 8/5 6/5                 Doubles => 2
  2)  Drops
                                  Wins 1 point

 Game 2
 Alice : 0                      Bob : 1
  1)                             31: 8/5 6/5
  2)  Doubles => 2               Drops
      Wins 1 point
"""


def analyse_record(page: Any, path: Any) -> None:
    """Open the .mat at ``path`` and analyse it to the end."""
    page.evaluate("delete document.body.dataset.reviewIndex")
    page.set_input_files("#import-file", str(path))
    page.wait_for_function("() => document.body.dataset.reviewIndex === '0' && document"
                           f".getElementById('review-title').textContent.endsWith('({path.name})')")
    page.click("#analyze-button")
    page.wait_for_selector('#analysis-panel[data-state="done"]', timeout=120_000)
    assert page.locator("#analysis-graph svg").count() == 1


def assert_no_analysis(page: Any) -> None:
    page.wait_for_selector("#analysis-panel", state="hidden")
    assert page.locator("#analysis-graph svg, #analysis-detail *").count() == 0
    assert page.locator("#move-list li[data-mark]").count() == 0


def test_3_an_analysis_goes_when_another_record_game_or_position_is_shown(
        open_page: Any, server: ServerProcess, tmp_path: Any) -> None:
    first, second = tmp_path / "first.mat", tmp_path / "second.mat"
    first.write_text(SHORT_MATCH, encoding="utf-8")
    second.write_text(SHORT_MATCH.replace("Alice", "Carol"), encoding="utf-8")
    gid = store(server, "beforeanalyses", random_match(3, games=1))
    game = open_page(f"/#game={gid}")
    page = game.page
    analyse_record(page, first)
    page.set_input_files("#import-file", str(second))  # another record
    page.wait_for_function("() => document.getElementById('review-title').textContent"
                           ".endsWith('(second.mat)')")
    assert_no_analysis(page)

    analyse_record(page, second)
    page.click("#new-game-button")  # a new game
    game.start(mode="pass_and_play")
    assert_no_analysis(page)

    analyse_record(page, first)
    page.click("#review-exit")  # back to the game: the record's analysis is not the game's
    assert_no_analysis(page)

    analyse_record(page, second)
    page.click("#setup-button")  # a game from a set-up position
    page.wait_for_function("() => document.body.dataset.setupValid === 'true'")
    page.click("#setup-play-pass")
    game.wait_idle()
    assert_no_analysis(page)


# --------------------------------------------------------------------------------------------
# 4. Hints: off by default, beside the score (not over it), a play made from a row


def played_text(server: ServerProcess, gid: str) -> str:
    """The moves made so far in the turn being played, in notation, from the engine."""
    from backgammon.core.match import Match
    from backgammon.core.notation import format_play

    with GameStore(server.db_path) as games:
        game = Match.replay(games.load(gid).record["log"]).current
    return format_play(game.played)


def test_4_hints_are_off_at_first_keep_the_score_in_view_and_make_a_play(
        open_page: Any, server: ServerProcess) -> None:
    game = open_page()
    page = game.page
    page.wait_for_selector("#new-game-dialog[open]")
    page.select_option("#clock-select", "rapid")
    state = game.start(mode="pass_and_play", cube=True)
    game.press("#roll-button")
    assert not game.visible("#hints-panel")  # a spoiler for a beginner: off until asked for
    assert page.locator("#board.hints").count() == 0
    assert page.get_attribute("#hints-button", "aria-pressed") == "false"

    page.click("#hints-button")
    page.wait_for_selector("#hints-ranked tr[data-play]", timeout=60_000)
    page.wait_for_selector("#hints-plays li")
    # the score, the clocks and the move list stay where they were, in view
    for selector in ("#scoreboard", "#clocks"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["y"] + box["height"] <= DESKTOP[1], selector
    box = page.locator(".history").bounding_box()
    assert box is not None and box["y"] + 40 <= DESKTOP[1]
    # no line of the ways to finish the turn is cut in half by the list's edge
    cut = page.evaluate("""(() => {
      const list = document.getElementById('hints-plays').getBoundingClientRect();
      return [...document.querySelectorAll('#hints-plays li')].filter((li) => {
        const r = li.getBoundingClientRect();
        return r.top < list.bottom - 0.5 && r.bottom > list.bottom + 0.5;
      }).map((li) => li.textContent);
    })()""")
    assert cut == []
    game.screenshot("trial-4-hints")

    # a row of the ranked plays makes its play
    play = page.locator("#hints-ranked tr[data-play]").nth(1).get_attribute("data-play")
    # (found again by its play: a hint redrawn meanwhile under load keeps the row, not its place)
    page.locator(f'#hints-ranked tr[data-play="{play}"]').first.click()
    game.wait_idle()
    state = game.state()
    assert state["can"]["done"] and not state["legal"]
    assert played_text(server, state["id"]) == play
    game.press("#undo-button")
    while game.state()["played"]:
        game.press("#undo-button")
    # and a line of the ways to finish the turn makes the rest of the turn (the panel drawn for
    # the state after the undoes, not one of the states on the way there)
    game.wait_idle()
    now = game.state()
    panel = f'#hints-panel[data-for="{now["id"]}:{now["version"]}"]'
    page.wait_for_selector(f"{panel} #hints-plays li")
    item = page.locator(f"{panel} #hints-plays li").nth(2)
    play = item.inner_text()
    item.click()
    game.wait_idle()
    assert game.state()["can"]["done"]
    assert played_text(server, state["id"]) == play


# --------------------------------------------------------------------------------------------
# 5. The IDs shown in review are the reviewed position's


def test_5_the_ids_in_review_are_the_reviewed_positions(
        open_page: Any, server: ServerProcess) -> None:
    from backgammon.core.position import Position
    from backgammon.core.types import BLACK, WHITE

    match = random_match(8, games=1, cube=True)
    gid = store(server, "reviewids", match)
    game = open_page(f"/#game={gid}")
    page = game.page
    page.click("#ids-details summary")
    live = page.input_value('#game-ids input[data-id="position_id"]')
    page.locator("#move-list li").nth(6).click()
    page.wait_for_function("() => document.body.dataset.reviewIndex === '7'")
    turn = match.current.history[6]  # the line clicked: the position after it
    expected = turn.position.with_turn(BLACK if turn.color is WHITE else WHITE)
    shown = page.input_value('#game-ids input[data-id="position_id"]')
    assert shown == expected.id() and shown != live
    xgid = page.input_value('#game-ids input[data-id="xgid"]')
    assert xgid.startswith("XGID=") and Position.from_id(shown, expected.turn) == expected
    page.click("#review-exit")
    page.wait_for_function("() => !document.body.classList.contains('reviewing')")
    assert page.input_value('#game-ids input[data-id="position_id"]') == live


# --------------------------------------------------------------------------------------------
# 6. Each equity says how deep it was searched; deeper plays rank first


def test_6_ranked_plays_show_their_depth_and_rank_deeper_first(
        open_page: Any, server: ServerProcess, tmp_path: Any) -> None:
    game = open_page(storage={"backgammon.hints": "on"})
    page = game.page
    page.wait_for_selector("#new-game-dialog[open]")
    game.start(mode="pass_and_play", cube=False)
    game.press("#roll-button")
    page.wait_for_selector("#hints-ranked tr[data-play]", timeout=60_000)
    head = page.eval_on_selector_all("#hints-ranked tr:first-child th",
                                     "cells => cells.map(c => c.textContent)")
    assert head[:5] == ["#", "Play", "Depth", "Equity", "Diff"]
    rows = page.eval_on_selector_all(
        "#hints-ranked tr[data-play]",
        "rows => rows.map(r => [...r.children].map(c => c.textContent))")
    plies = [int(row[2].removesuffix("-ply")) for row in rows]
    assert all(row[2].endswith("-ply") for row in rows)
    assert plies == sorted(plies, reverse=True)  # the deeper-searched plays first
    for ply in set(plies):  # like with like: each depth best first
        equities = [float(row[3]) for row, p in zip(rows, plies, strict=True) if p == ply]
        assert equities == sorted(equities, reverse=True)
    game.screenshot("trial-6-depths")

    # the analysis says the depth of each alternative too
    path = tmp_path / "short.mat"
    path.write_text(SHORT_MATCH, encoding="utf-8")
    analyse_record(page, path)
    page.click("#review-first")
    page.click("#review-next")
    page.wait_for_selector(".analysis-alternatives li")
    for text in page.eval_on_selector_all(".analysis-alternatives li",
                                          "items => items.map(i => i.textContent)"):
        assert "-ply" in text, text


# --------------------------------------------------------------------------------------------
# 7. The words of the page


def test_7_the_graph_caption_says_your_chances(open_page: Any, server: ServerProcess) -> None:
    import random

    from backgammon.core.match import Match
    from scenarios import play_random_turn

    match = Match(0, cube=False)
    rng = random.Random(4)
    while len(match.current.history) < 4:
        play_random_turn(match.current, rng)
    gid = store(server, "yourchances", match, mode="computer", human="white")
    game = open_page(f"/#game={gid}")
    page = game.page
    page.click("#analyze-button")
    page.wait_for_selector('#analysis-panel[data-state="done"]', timeout=120_000)
    caption = page.inner_text("#analysis-graph .graph-caption")
    assert caption.startswith("Your chances of winning the game"), caption
    label = page.get_attribute("#analysis-graph svg", "aria-label")
    assert label is not None and label.startswith("Your chances")


def test_7_no_cube_advice_without_a_cube_decision_and_no_dice_words_beside_dice(
        open_page: Any, server: ServerProcess) -> None:
    for seed in range(1, 30):
        state = post(server, "/api/games", {"mode": "computer", "level": "easy",
                                            "side": "white", "cube": True, "seed": str(seed)})
        gid = state["id"]
        advance(server, gid, lambda s: s["can"]["double"] and len(s["history"]) > 4)
        game = open_page(f"/#game={gid}", storage={"backgammon.hints": "on"})
        page = game.page
        page.wait_for_selector("#hints-cube")  # the person may double: the cube advice
        page.click("#double-button")
        game.wait_idle()
        if game.state()["phase"] == "roll":  # the computer took: the person rolls, no double
            break
    assert page.inner_text("#status") == "Your turn: roll."
    page.wait_for_timeout(500)
    assert page.locator("#hints-cube").count() == 0
    assert page.inner_text("#hints-eval") == ""
    # the faded dice of the computer's last roll lie on the board: not "no dice"
    assert page.locator("#board .die").count() == 2
    assert "No dice" not in page.inner_text("#hints-text")


def test_7_mid_match_the_result_says_which_button_leaves_the_match(
        open_page: Any, server: ServerProcess) -> None:
    from backgammon.core.match import Match
    from backgammon.core.types import BLACK

    match = Match(3, cube=False)
    match.current.roll(dice=(3, 1))
    match.current.resign(BLACK, "single")
    match.current.accept_resignation()
    gid = store(server, "midmatch", match, kind="match", mode="computer", human="white")
    game = open_page(f"/#game={gid}")
    page = game.page
    assert game.visible("#result") and game.visible("#next-game-button")
    leave = page.inner_text("#result-new-game-button")
    assert "leave the match" in leave, leave
    assert page.get_attribute("#next-game-button", "title") or ""
    page.click("#next-game-button")
    game.wait_idle()
    assert game.state()["score"]["game_number"] == 2


# --------------------------------------------------------------------------------------------
# 8. The rules page says what the game offers


def test_8_the_rules_page_tells_the_optional_rules_and_the_online_games_as_they_are(
        open_page: Any, server: ServerProcess) -> None:
    game = open_page("/rules")
    page = game.page
    page.wait_for_function("() => document.body.dataset.examples === 'ready'")
    text = page.inner_text("main")
    assert "does not use" not in text
    money = page.inner_text("#money-rules")
    assert "Jacoby" in money and "beaver" in money.lower() and "Money session" in money
    for item in page.locator("details.faq-item").all():
        item.locator("summary").click()
    saved = page.inner_text("#faq-saved")
    assert "not a restart" not in saved and "restart" in saved
    cube = page.inner_text("#faq-cube").strip()
    assert not cube.endswith("(the cube).") and "(the cube)" not in cube
    game.screenshot("trial-8-rules")


# --------------------------------------------------------------------------------------------
# 9. The live region tells the opening roll the computer won


def test_9_the_opening_roll_won_by_the_computer_is_announced(
        open_page: Any, server: ServerProcess) -> None:
    settings = {"mode": "computer", "level": "easy", "side": "white", "cube": False}
    for seed in range(1, 60):  # a seed whose opening roll the computer wins
        probe = post(server, "/api/games", {**settings, "seed": str(seed)})
        if post(server, f"/api/games/{probe['id']}/roll")["turn"] == "black":
            break
    state = post(server, "/api/games", {**settings, "seed": str(seed)})
    game = open_page(f"/#game={state['id']}")
    page = game.page
    page.click("#roll-button")
    game.wait_idle()
    opening = game.state()["history"][0]["text"]  # the computer's first play
    lines = page.eval_on_selector_all("#announcer p", "ps => ps.map(p => p.textContent)")
    said = [line for line in lines if line.startswith("Opening roll: You ")]
    assert said and "Computer" in said[0], lines
    assert lines.index(said[0]) < next(i for i, line in enumerate(lines)
                                       if line.startswith("The computer plays")), (lines, opening)


# --------------------------------------------------------------------------------------------
# 10. The move list is numbered by turns, and the review's counter agrees with it


def test_10_the_move_list_is_numbered_by_turns_and_the_counter_agrees(
        open_page: Any, server: ServerProcess) -> None:
    match = random_match(21, games=1, cube=True, double=0.2)
    gid = store(server, "turns", match)
    game = open_page(f"/#game={gid}")
    page = game.page
    history = game.state()["history"]
    expected = mat_turns(history)
    shown = page.eval_on_selector_all(
        "#move-list li", "items => items.map(i => i.dataset.turn ? Number(i.dataset.turn) : null)")
    assert shown == expected
    # the number is drawn once a turn: both sides' lines of a turn share it
    markers = page.eval_on_selector_all(
        "#move-list li", "items => items.map(i => getComputedStyle(i).listStyleType)")
    numbered = [turn for turn, style in zip(shown, markers, strict=True) if style != "none"]
    assert numbered == list(range(1, max(t for t in expected if t) + 1))
    last = max(t for t in expected if t)
    play = max(i for i, t in enumerate(expected) if t)
    page.locator("#move-list li").nth(play).click()
    page.wait_for_function("() => document.body.classList.contains('reviewing')")
    label = page.inner_text("#review-label")
    assert label == f"Turn {expected[play]} of {last}: {history[play]['text']}"
    page.locator("#move-list li").nth(3).click()
    page.wait_for_function("() => document.body.dataset.reviewIndex === '4'")
    assert page.inner_text("#review-label") == (
        f"Turn {expected[3]} of {last}: {history[3]['text']}")
    page.keyboard.press("Home")
    page.wait_for_function("() => document.body.dataset.reviewIndex === '0'")
    assert page.inner_text("#review-label") == "The starting position"
    game.screenshot("trial-10-turns")


# --------------------------------------------------------------------------------------------
# 11. The analysis says when the computer grades itself, and the units of its figures


def test_11_the_computer_graded_by_its_own_engine_says_so_and_figures_have_units(
        open_page: Any, server: ServerProcess) -> None:
    import random

    from backgammon.core.match import Match
    from scenarios import play_random_turn

    match = Match(0, cube=False)
    rng = random.Random(11)
    while len(match.current.history) < 6:
        play_random_turn(match.current, rng)
    gid = store(server, "selfgraded", match, mode="computer", human="white")
    game = open_page(f"/#game={gid}")
    page = game.page
    page.click("#analyze-button")
    page.wait_for_selector('#analysis-panel[data-state="done"]', timeout=120_000)
    players = page.eval_on_selector_all("#analysis-summary th[data-player]",
                                        "cells => cells.map(c => c.dataset.player)")
    computer = players.index(next(p for p in players if p.startswith("Computer")))
    pr = page.eval_on_selector_all('#analysis-summary tr[data-figure="pr"] td',
                                   "cells => cells.map(c => c.textContent)")
    assert "self-graded" in pr[computer] and "self-graded" not in pr[1 - computer]
    assert "self-graded" in page.inner_text("#analysis-status")
    assert "graded by the engine that played" in page.inner_text("#analysis-summary caption")
    labels = page.eval_on_selector_all("#analysis-summary tr[data-figure] th",
                                       "cells => cells.map(c => c.textContent)")
    assert labels[:3] == ["Checker play (mEMG)", "Cube (mEMG)", "Overall (mEMG)"]
    assert "Luck (EMG)" in labels
    game.screenshot("trial-11-analysis")


# --------------------------------------------------------------------------------------------
# 12. The New game dialog offers a way back to this browser's online games



def test_12_a_closed_online_tab_can_return_to_its_seat(
        open_page: Any, server: ServerProcess) -> None:
    host = open_page()
    page = host.page
    page.wait_for_selector("#new-game-dialog[open]")
    page.click("#new-game-online")
    page.wait_for_selector("#online-dialog[open]")
    page.fill("#online-name", "Alice")
    page.click("#online-submit")
    page.wait_for_function("() => document.body.dataset.online === 'open'")
    link = page.input_value("#online-link")
    code = link.rsplit("=", 1)[1]
    guest = open_page("/health")
    guest.page.goto(link)
    guest.page.wait_for_selector("#online-dialog[open]")
    guest.page.wait_for_function(
        "() => document.getElementById('online-room-info').textContent.length > 0")
    guest.page.fill("#online-name", "Bob")
    guest.page.click("#online-submit")
    guest.page.wait_for_function("() => document.body.dataset.online === 'open'"
                                 " && document.body.dataset.onlinePhase === 'playing'")

    context = page.context
    page.close()  # the tab is closed; the plain address is opened again
    again = context.new_page()
    again.goto(server.url + "/")
    again.wait_for_selector("#new-game-dialog[open]")
    item = again.locator(f'#online-seats-list li[data-code="{code}"]')
    item.wait_for()
    assert "Alice" in item.inner_text() and "your friend has joined" in item.inner_text()
    again.screenshot(path=str(ARTIFACTS / "trial-12-online-seats.png"))
    item.locator("button").click()
    again.wait_for_function("() => document.body.dataset.online === 'open'")
    assert again.evaluate("document.body.dataset.onlineYou") == "white"  # the host's seat
    assert again.evaluate("location.hash") == f"#online={code}"


# --------------------------------------------------------------------------------------------
# 13. "New game" keeps the game it promises to keep; "Start over" forgets every game


def start_and_roll(game: GamePage) -> str:
    """Start a game against the computer from the open New game dialog and roll: a game in
    progress; its id."""
    game.page.wait_for_selector("#new-game-dialog[open]")
    game.start(mode="computer", cube=False)
    game.press("#roll-button")
    return game.game_id


def test_13_the_new_game_dialog_lists_the_game_it_replaces_and_start_over_forgets_all(
        open_page: Any) -> None:
    game = open_page()
    page = game.page
    first = start_and_roll(game)
    page.click("#new-game-button")
    page.wait_for_selector("#replace-dialog[open]")
    assert "Recent games" in page.inner_text("#replace-text")  # the promise
    page.click("#replace-confirm")
    page.wait_for_selector(f'#recent-list li[data-id="{first}"]')  # kept
    second = start_and_roll(game)
    assert second != first

    page.click("#settings-button")
    page.click("#options-start-over")
    page.wait_for_selector("#confirm-dialog[open]")
    page.click("#confirm-yes")
    page.wait_for_selector("#new-game-dialog[open]")
    page.wait_for_timeout(500)  # the list is read from the server
    assert page.locator("#recent-list li").count() == 0  # none of this browser's games
    assert not game.visible("#recent-games")


# --------------------------------------------------------------------------------------------
# 14. Loading a saved position asks who plays it


def test_14_loading_a_saved_position_asks_who_plays_it(open_page: Any) -> None:
    game = open_page()
    page = game.page
    page.wait_for_selector("#new-game-dialog[open]")
    first = game.start(mode="computer", cube=False)["id"]  # at its opening roll: not in play
    page.click("#saved-button")
    page.wait_for_selector("#saved-dialog[data-ready]")
    page.fill("#saved-name", "The start")
    page.click("#saved-save")
    page.wait_for_selector(".saved-item")
    page.locator(".saved-item").first.locator(".saved-load").click()
    page.wait_for_selector("#play-position-dialog[open]")
    assert game.game_id == first  # nothing started before the answer
    assert "The start" in page.inner_text("#play-position-title")
    page.screenshot(path=str(ARTIFACTS / "trial-14-who-plays.png"))
    page.click("#play-position-pass")
    page.wait_for_function(f"() => !location.hash.includes('{first}')")
    game.wait_idle()
    assert game.state()["settings"]["mode"] == "pass_and_play"
    second = game.game_id

    page.click("#saved-button")
    page.wait_for_selector("#saved-dialog[data-ready]")
    page.locator(".saved-item").first.locator(".saved-load").click()
    page.wait_for_selector("#replace-dialog[open]")  # a game is in play: replacing it asks
    page.click("#replace-confirm")
    page.wait_for_selector("#play-position-dialog[open]")
    page.select_option("#play-position-side", "black")
    page.click("#play-position-computer")
    page.wait_for_function(f"() => !location.hash.includes('{second}')")
    game.wait_idle()
    settings = game.state()["settings"]
    assert settings["mode"] == "computer" and settings["human"] == "black"

    page.click("#saved-button")  # and Cancel starts nothing
    page.wait_for_selector("#saved-dialog[data-ready]")
    third = game.game_id
    page.locator(".saved-item").first.locator(".saved-load").click()
    if game.visible("#replace-dialog"):
        page.click("#replace-confirm")
    page.wait_for_selector("#play-position-dialog[open]")
    page.click("#play-position-cancel")
    page.wait_for_timeout(300)
    assert game.game_id == third


# --------------------------------------------------------------------------------------------
# 15. Whose numbering the move list uses, and the player's own as a setting


def mirrored(play: str) -> str:
    """A play in notation, its points counted from the other side."""
    import re

    return re.sub(r"\d+(?!\))", lambda m: str(25 - int(m.group())), play)


def test_15_the_move_list_says_whose_numbering_and_can_use_the_players(
        open_page: Any, server: ServerProcess) -> None:
    settings = {"mode": "computer", "level": "easy", "side": "white", "cube": False}
    state = post(server, "/api/games", {**settings, "seed": "15"})
    gid = state["id"]
    advance(server, gid, lambda s: sum(e["color"] == "black" and e["kind"] == "play"
                                       and ":" in e["text"] and "cannot" not in e["text"]
                                       for e in s["history"]) >= 2 and s["can"]["roll"])
    history = server.get(f"/api/games/{gid}")["history"]
    index = next(i for i, e in enumerate(history) if e["color"] == "black"
                 and e["kind"] == "play" and "cannot" not in e["text"])
    own = history[index]["text"]
    game = open_page(f"/#game={gid}")
    page = game.page
    lines = page.locator("#move-list li")
    assert lines.nth(index).inner_text() == own  # the computer's play from its own side
    assert "own side" in page.inner_text(".history-title")

    page.click("#settings-button")
    page.select_option("#numbering-select", "mine")
    page.click("#settings-close")
    head, play = own.split(": ", 1)
    assert lines.nth(index).inner_text() == f"{head}: {mirrored(play)}"
    assert "your side" in page.inner_text(".history-title")
    page.reload()  # remembered
    game.wait_idle()
    assert page.locator("#move-list li").nth(index).inner_text() == f"{head}: {mirrored(play)}"
    game.screenshot("trial-15-numbering")


# --------------------------------------------------------------------------------------------
# 16. Polish


@pytest.mark.parametrize("width", [1280, 390, 340])
def test_16_the_turn_dot_stays_on_the_line_of_its_name(
        open_page: Any, server: ServerProcess, width: int) -> None:
    state = post(server, "/api/games", {"mode": "computer", "level": "medium", "side": "black"})
    game = open_page(f"/#game={state['id']}", viewport=(width, 860))
    page = game.page
    page.evaluate("document.getElementById('score-white').classList.add('on-roll')")
    assert page.inner_text("#score-white .name").startswith("Computer (Medium)")
    # the last line of the name (its dot drawn after it) holds more than the dot alone
    last, size = page.evaluate("""(() => {
      const name = document.querySelector('#score-white .name');
      const rects = [...name.getClientRects()];
      return [rects[rects.length - 1].width, parseFloat(getComputedStyle(name).fontSize)];
    })()""")
    assert last > 2 * size, (last, size)


def _open_setup_at(open_page: Any, xgid: str) -> Any:
    game = open_page()
    page = game.page
    page.wait_for_selector("#new-game-dialog[open]")
    page.click("#new-game-cancel")
    page.click("#setup-button")
    page.fill("#setup-id-input", xgid)
    page.click("#setup-read")
    page.wait_for_function("() => document.body.dataset.setupValid === 'true'")
    return game


def test_16_the_setup_hint_is_drawn_as_the_games_hint(open_page: Any) -> None:
    game = _open_setup_at(open_page, "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10")
    page = game.page
    page.click("#setup-hint")
    page.wait_for_selector("#setup-hint-box[data-ready]", timeout=90_000)
    assert page.locator("#setup-hint-eval .hints-problem").count() == 0, page.inner_text(
        "#setup-hint-eval")
    head = page.eval_on_selector_all("#setup-hint-box table.hints-ranked tr:first-child th",
                                     "cells => cells.map(c => c.textContent)")
    assert head[:5] == ["#", "Play", "Depth", "Equity", "Diff"]
    game.screenshot("trial-16-setup-hint")


def test_16_the_setup_hint_asks_again_while_busy_and_says_when_no_table_can_be_had(
        open_page: Any) -> None:
    """A busy server (503 "busy") is asked again until it answers; any other refusal is
    shown in the hint box, in words, in place of the table."""
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
    game = _open_setup_at(open_page, xgid)
    page = game.page
    refused: list[int] = []

    def busy_twice(route: Any) -> None:
        if len(refused) < 2:
            refused.append(1)
            route.fulfill(status=503, content_type="application/json", body=json.dumps(
                {"error": {"code": "busy", "message": "the computer is busy"}}))
        else:
            route.continue_()

    page.route("**/api/positions/evaluation", busy_twice)
    page.click("#setup-hint")
    page.wait_for_selector("#setup-hint-box[data-ready]", timeout=90_000)
    assert len(refused) == 2
    assert page.locator("#setup-hint-eval table.hints-ranked tr[data-play]").count() > 0
    page.unroute("**/api/positions/evaluation")

    def broken(route: Any) -> None:
        route.fulfill(status=500, content_type="application/json", body=json.dumps(
            {"error": {"code": "internal", "message": "the evaluation failed"}}))

    page.route("**/api/positions/evaluation", broken)
    page.click("#setup-hint")
    page.wait_for_selector("#setup-hint-box[data-ready] .hints-problem", timeout=30_000)
    words = page.inner_text("#setup-hint-eval")
    assert words.startswith("No table of plays: "), words
    assert "the evaluation failed" in words, words
    assert page.locator("#setup-hint-eval table").count() == 0
    assert page.inner_text("#setup-hint-text") not in ("", "Thinking…")
    game.screenshot("trial-16-setup-hint-problem")


def test_16_online_hints_and_analyze_are_off_in_play_and_the_invite_link_shows_whole(
        open_page: Any, server: ServerProcess) -> None:
    host = open_page(viewport=PHONE)
    page = host.page
    page.wait_for_selector("#new-game-dialog[open]")
    page.click("#new-game-online")
    page.wait_for_selector("#online-dialog[open]")
    page.click("#online-submit")
    page.wait_for_function("() => document.body.dataset.online === 'open'")
    fits = page.evaluate("""(() => { const l = document.getElementById('online-link');
      return [l.scrollWidth <= l.clientWidth + 1, l.scrollHeight <= l.clientHeight + 1]; })()""")
    assert fits == [True, True]  # the whole link, not cut off
    host.screenshot("trial-16-invite-phone")
    link = page.input_value("#online-link")
    guest = open_page("/health")
    guest.page.goto(link)
    guest.page.wait_for_selector("#online-dialog[open]")
    guest.page.wait_for_function(
        "() => document.getElementById('online-room-info').textContent.length > 0")
    guest.page.click("#online-submit")
    for online in (host, guest):
        online.page.wait_for_function("() => document.body.dataset.online === 'open' &&"
                                      " document.body.dataset.onlinePhase === 'playing'")
        assert online.page.is_disabled("#hints-button")
        assert online.page.is_disabled("#analyze-button")
        assert "over" in (online.page.get_attribute("#analyze-button", "title") or "")


def test_16_the_phone_header_is_one_row_with_a_menu(open_page: Any) -> None:
    game = open_page(viewport=PHONE)
    page = game.page
    page.wait_for_selector("#new-game-dialog[open]")
    page.click("#new-game-cancel")
    header = page.locator("header.topbar").bounding_box()
    assert header is not None and header["height"] <= 56  # one row (it took three: 163 px)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    page.click("#menu-button")
    for name in ("new-game", "setup", "saved", "online", "stats", "settings"):
        assert game.visible(f"#{name}-button"), name
    game.screenshot("trial-16-phone-menu")
    page.click("#settings-button")
    page.wait_for_selector("#settings-dialog[open]")
    page.click("#settings-close")
    assert not game.visible("#stats-button")  # the menu closed with the choice
    desktop = open_page()
    assert not desktop.visible("#menu-button") and desktop.visible("#settings-button")
