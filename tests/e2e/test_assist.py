"""Review, .mat export and import, keyboard play, the live region, explanations of refused
moves, hints and the rules page, in a real browser (Playwright driving Debian's chromium
against ``backgammon serve``).

Games in chosen states (a finished match, a turn where some attempt is refused) are found by
the engine in seeded random games (``tests/scenarios.py``) and saved in the server's database,
which the server opens like any saved game; what the page shows is compared with the engine.
Screenshots go to ``test-artifacts/e2e/``.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    ARTIFACTS,
    ServerProcess,
    launched_chromium,
    mat_turns,
    served,
)
from test_web_game import BASE_SETTINGS, GamePage

from backgammon.core.game import Phase
from backgammon.core.match import Match
from backgammon.core.position import Position
from backgammon.core.types import WHITE
from backgammon.services.review import pass_reason
from backgammon.services.rules import RULES, RULES_BY_ID
from gametable.game_store import GameStore
from scenarios import Attempt, find_attempt, find_turn, random_match, session_record

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser

#: The seeds of find_attempt's games for each kind of refused attempt (see scenarios.py).
ATTEMPT_SEEDS = {"open-point": 1, "bar": 1, "dice": 1, "bear-off": 1, "bear-off-higher": 2,
                 "both-dice": 3, "larger-die": 27, "blocked": 1}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "server-assist")


@pytest.fixture
def open_page(browser: Browser, server: ServerProcess) -> Iterator[Any]:
    """``open_page(path="/#game=ID")``: a fresh browser context (downloads and the clipboard
    allowed) on the game, with hints on (they are off until asked for: these tests read
    them)."""
    contexts = []
    pages: list[GamePage] = []

    def open_(path: str = "/", viewport: tuple[int, int] = (1280, 900),
              settings: dict[str, Any] | None = None) -> GamePage:
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]},
                                      accept_downloads=True)
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
        chosen = {**BASE_SETTINGS, **(settings or {})}
        context.add_init_script(
            f"localStorage.setItem('backgammon.settings', {json.dumps(json.dumps(chosen))});"
            "if (localStorage.getItem('backgammon.hints') === null) "
            "localStorage.setItem('backgammon.hints', 'on');")
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


def store(server: ServerProcess, game_id: str, match: Match, **settings: Any) -> str:
    """Save ``match`` as session ``game_id`` in the running server's database."""
    with GameStore(server.db_path) as games:
        games.save(game_id, session_record(match, **settings))
    return game_id


def checkers(position: Position | dict[str, Any]) -> list[tuple[str, str]]:
    """Every checker of a position as (colour, place), as GamePage.board() reads the page."""
    if isinstance(position, Position):
        points, off = list(position.points), {"white": position.off[0],
                                              "black": position.off[1]}
    else:
        points, off = position["points"], position["off"]
    found = []
    for point in range(1, 25):
        count = points[point]
        found += [("white" if count > 0 else "black", str(point))] * abs(count)
    found += [("white", "bar")] * max(points[25], 0) + [("black", "bar")] * max(-points[0], 0)
    found += [("white", "off")] * off["white"] + [("black", "off")] * off["black"]
    return sorted(found)


def engine_frames(match: Match) -> list[dict[str, Any]]:
    """What review must show, straight from the engine: each game's start, the position after
    each line of its history, and its end."""
    frames: list[dict[str, Any]] = []
    for game in match.games:
        frames.append({"position": Position.start(WHITE), "dice": None,
                       "cube": ("1", "centre")})
        for turn in game.history:
            owner = str(turn.cube_owner) if turn.cube_owner else "centre"
            frames.append({"position": turn.position, "dice": turn.dice,
                           "cube": (str(turn.cube_value), owner), "text": turn.text})
        if game.outcome is not None:
            frames.append({**frames[-1], "dice": None, "position": game.position})
    return frames


def dice_values(dice: tuple[int, int] | None) -> list[str]:
    if dice is None:
        return []
    return [str(d) for d in (dice * 2 if dice[0] == dice[1] else dice)]


def review_index(game: GamePage) -> int:
    value: str = game.page.evaluate("document.body.dataset.reviewIndex")
    return int(value)


def wait_review_index(game: GamePage, index: int) -> None:
    game.page.wait_for_function(f"() => document.body.dataset.reviewIndex === '{index}'")


def wait_hints_settled(game: GamePage) -> None:
    """The review's evaluation is drawn (no "Thinking…"): the hints panel above the move list
    no longer grows, so a click on a line lands where it was aimed."""
    game.page.wait_for_function(
        "() => !document.getElementById('hints-eval').textContent.includes('Thinking')")


def check_frame(game: GamePage, frame: dict[str, Any], any_order: bool = False) -> None:
    """The page shows ``frame``; ``any_order``: the dice in either order (a .mat writes the
    higher die first)."""
    assert game.board() == checkers(frame["position"])
    shown = [value for value, used in game.dice()]
    if any_order:
        assert sorted(shown) == sorted(dice_values(frame["dice"]))
    else:
        assert shown == dice_values(frame["dice"])
    assert all(not used for _, used in game.dice())
    cube = game.page.locator("#board .cube")
    if cube.is_visible():
        assert (cube.get_attribute("data-value"), cube.get_attribute("data-owner")) == \
            frame["cube"]


def announced(game: GamePage) -> list[str]:
    lines: list[str] = game.page.eval_on_selector_all(
        "#announcer p", "nodes => nodes.map(n => n.textContent)")
    return lines


# --------------------------------------------------------------------------------------------
# Review


def test_review_with_arrow_keys_and_clicks_shows_each_position(
    open_page: Any, server: ServerProcess
) -> None:
    match = random_match(8, games=2, cube=True, double=0.12)
    gid = store(server, "reviewmatch", match, kind="money")
    expected = engine_frames(match)
    game = open_page(f"/#game={gid}")
    live = game.board()
    page = game.page
    assert page.locator("#move-list li").count() == len(expected)  # a header per game

    page.keyboard.press("v")
    wait_review_index(game, len(expected) - 1)
    assert page.locator("#review-bar").is_visible()
    assert not page.locator("#controls").is_visible()
    check_frame(game, expected[-1])
    for back in range(1, 7):
        page.keyboard.press("ArrowLeft")
        wait_review_index(game, len(expected) - 1 - back)
        check_frame(game, expected[-1 - back])
    page.keyboard.press("Home")
    wait_review_index(game, 0)
    check_frame(game, expected[0])
    assert page.inner_text("#review-label") == "Game 1: the starting position"
    page.keyboard.press("ArrowRight")
    wait_review_index(game, 1)
    check_frame(game, expected[1])
    assert page.locator("#move-list li.current").inner_text() == \
        page.locator("#move-list li").nth(1).inner_text()

    # A click on a line of game 2, then on a take: board, dice and cube as they were.
    lines = page.locator("#move-list li").all_inner_texts()
    second = lines.index(next(line for line in lines if line.startswith("Game 2")))
    wait_hints_settled(game)
    page.locator("#move-list li").nth(second + 3).click()
    wait_review_index(game, second + 3)
    check_frame(game, expected[second + 3])
    take = next(i for i, line in enumerate(lines) if line.endswith(" takes"))
    wait_hints_settled(game)
    page.locator("#move-list li").nth(take).click()
    wait_review_index(game, take)
    check_frame(game, expected[take])
    cube = page.locator("#board .cube")
    assert cube.get_attribute("data-owner") == lines[take].split()[0].lower()
    game.screenshot("review-take")

    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.body.classList.contains('reviewing')")
    assert not page.locator("#review-bar").is_visible()
    assert game.board() == live


def play_turn(game: GamePage) -> None:
    """Play the turn on the board by clicks (each move the first legal one), end it, and roll
    for the next."""
    state = game.state()
    while state["legal"]:
        entry = state["legal"][0]
        game.click_move(state["turn"], entry["from"], entry["destinations"][0]["to"])
        state = game.state()
    game.press("#done-button")
    game.press("#roll-button")


def test_review_during_a_game_returns_to_the_live_position(open_page: Any) -> None:
    game = open_page()
    game.start(mode="pass_and_play", cube=False)
    game.press("#roll-button")
    for _ in range(2):  # two whole turns by clicks
        play_turn(game)
    state = game.state()
    entry = state["legal"][0]
    game.click_move(state["turn"], entry["from"], entry["destinations"][0]["to"])
    live = game.state()
    board, dice = game.board(), game.dice()
    page = game.page

    page.click("#review-button")
    wait_review_index(game, 2)  # the start and two turns
    played = [h for h in live["history"] if h["kind"] == "play"]
    turns = mat_turns(live["history"])  # the counter numbers turns as the move list does
    assert page.inner_text("#review-label") == f"Turn {turns[1]} of {turns[1]}: {played[1]['text']}"
    page.click("#review-prev")
    wait_review_index(game, 1)
    assert page.inner_text("#review-label") == f"Turn 1 of {turns[1]}: {played[0]['text']}"
    page.click("#review-first")
    wait_review_index(game, 0)
    assert game.board() == checkers(Position.start())
    page.click("#review-exit")
    page.wait_for_function("() => !document.body.classList.contains('reviewing')")
    assert game.board() == board
    assert game.dice() == dice
    assert game.state() == live  # review changed nothing
    # A click on a line of the move list starts a review there.
    page.wait_for_selector(f'#hints-panel[data-for="{live["id"]}:{live["version"]}"]')
    wait_hints_settled(game)
    page.locator("#move-list li").nth(0).click()
    wait_review_index(game, 1)
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.body.classList.contains('reviewing')")
    assert game.board() == board


# --------------------------------------------------------------------------------------------
# .mat export and import


def test_export_then_import_gives_the_same_game(
    open_page: Any, server: ServerProcess, tmp_path: Path
) -> None:
    match = random_match(12, games=2, cube=True, double=0.1)
    gid = store(server, "exportmatch", match, kind="money", mode="computer", human="white")
    expected = engine_frames(match)
    game = open_page(f"/#game={gid}")
    page = game.page
    served = get_text(server, f"/api/games/{gid}/export.mat")

    page.click("#export-button")
    page.wait_for_selector("#export-dialog[data-ready]")
    assert page.input_value("#export-text") == served
    assert served.startswith(" 0 point match\n\n Game 1\n You : 0")
    page.click("#export-copy")
    page.wait_for_function(
        "() => document.getElementById('export-status').textContent.startsWith('Copied')")
    assert page.evaluate("navigator.clipboard.readText()") == served
    with page.expect_download() as info:
        page.click("#export-download")
    download = info.value
    assert download.suggested_filename == f"backgammon-{gid}.mat"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    assert saved.read_text(encoding="utf-8") == served
    game.screenshot("export-dialog")
    page.click("#export-close")

    page.set_input_files("#import-file", str(saved))
    page.wait_for_function("() => document.body.dataset.reviewSource === 'record'")
    wait_review_index(game, 0)
    assert page.inner_text("#review-title") == \
        f"You vs Computer (Easy) · money session, 2 games ({saved.name})"
    assert page.locator("#move-list li").count() == len(expected)
    assert page.inner_text("#score-black .name") == "Computer (Easy)"
    for index, frame in enumerate(expected):
        if index:
            page.keyboard.press("ArrowRight")
        wait_review_index(game, index)
        check_frame(game, frame, any_order=True)
    game.screenshot("import-review")

    # A file with a problem: its line and the reason are shown, and nothing changes.
    lines = served.splitlines()
    broken_at = next(i for i, line in enumerate(lines) if line.startswith("  3)"))
    lines[broken_at] = "  3) 21: 24/2"
    broken = tmp_path / "broken.mat"
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    page.set_input_files("#import-file", str(broken))
    page.wait_for_selector("#error:not([hidden])")
    error = page.inner_text("#error")
    assert error.startswith(f"broken.mat, line {broken_at + 1}: ")
    assert review_index(game) == len(expected) - 1
    assert page.evaluate("document.body.dataset.reviewSource") == "record"
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.body.classList.contains('reviewing')")
    assert page.inner_text("#score-black .name") == "Computer (Easy)"
    assert game.board() == checkers(match.current.position)


def test_a_utf16_mat_file_opens_as_its_utf8_twin(
    open_page: Any, server: ServerProcess, tmp_path: Path
) -> None:
    """A .mat saved as UTF-16 with its byte order mark (as some Windows programs write) opens
    for review as the same file in UTF-8 does."""
    match = random_match(31, games=1)
    gid = store(server, "utf16source", match)
    served = get_text(server, f"/api/games/{gid}/export.mat")
    game = open_page(f"/#game={gid}")
    page = game.page
    shown = []
    for name, data in (("plain.mat", served.encode("utf-8")),
                       ("windows.mat", served.encode("utf-16"))):
        saved = tmp_path / name
        saved.write_bytes(data)
        page.set_input_files("#import-file", str(saved))
        page.wait_for_function(f"() => document.getElementById('review-title').textContent"
                               f".endsWith('({name})')")
        shown.append(page.locator("#move-list li").all_inner_texts())
    assert shown[1] == shown[0] and len(shown[0]) > 10


def get_text(server: ServerProcess, path: str) -> str:
    """The text of a GET on the server."""
    with urllib.request.urlopen(server.url + path, timeout=10) as response:
        text: str = response.read().decode("utf-8")
        return text


# --------------------------------------------------------------------------------------------
# Keyboard and the live region


def cursor(game: GamePage) -> str | None:
    place: str | None = game.page.evaluate("document.getElementById('board').dataset.cursor")
    return place


def go_to(game: GamePage, place: str) -> None:
    """Move the board's cursor to ``place`` with the arrow keys."""
    for _ in range(2):
        for _ in range(16):
            if cursor(game) == place:
                return
            game.page.keyboard.press("ArrowRight")
        game.page.keyboard.press("ArrowDown")
    raise AssertionError(f"the cursor never reached {place}")


def test_a_whole_turn_with_the_keyboard_alone(open_page: Any) -> None:
    game = open_page()
    game.start(mode="pass_and_play", cube=False)
    page = game.page
    page.evaluate("document.activeElement.blur()")
    for _ in range(20):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "board":
            break
    else:
        raise AssertionError("Tab never reached the board")
    outline = page.evaluate("getComputedStyle(document.getElementById('board')).outlineStyle")
    assert outline == "solid"

    page.keyboard.press("r")
    game.wait_idle()
    state = game.state()
    assert state["phase"] == "move"
    assert announced(game)[-1] == state["message"]
    mover = state["turn"]

    # Pick up, put back with Escape.
    first = state["legal"][0]
    go_to(game, str(first["from"]))
    page.keyboard.press("Enter")
    assert announced(game)[-1].startswith("Picked up a checker from the ")
    assert page.locator("#board .landing-ring").count() == len(first["destinations"])
    page.keyboard.press("Escape")
    assert announced(game)[-1].startswith("Put back on the ")
    assert page.locator("#board .landing-ring").count() == 0
    cursor_style = page.evaluate(
        "getComputedStyle(document.querySelector('#board .kbd-cursor')).outlineStyle")
    assert cursor_style == "solid"
    game.screenshot("keyboard-focus-ring")

    made = []
    undone = False
    for _ in range(12):  # at most four moves, one undo: a bound, not a retry
        if not state["legal"]:
            break
        entry = state["legal"][0]
        target = str(entry["destinations"][-1]["to"])
        go_to(game, str(entry["from"]))
        page.keyboard.press("Enter")
        go_to(game, target)
        page.keyboard.press("Enter")
        game.wait_idle()
        after = game.state()
        assert len(after["played"]) > len(state["played"])
        new = after["played"][len(state["played"]):]
        made += new
        assert announced(game)[-len(new) - (0 if after["legal"] else 1):][:len(new)] == [
            f"{mover.capitalize()} moves {m['text']}" for m in new]
        state = after
        if len(made) == 1 and state["legal"] and not undone:
            undone = True
            page.keyboard.press("u")  # undo once, then make it again
            game.wait_idle()
            assert announced(game)[-1] == f"Taken back: {made[0]['text']}"
            made.clear()
            state = game.state()
    assert not state["legal"], "the turn did not end within the move bound"
    page.keyboard.press("d")
    game.wait_idle()
    done = game.state()
    assert done["last_turn"] == {"color": mover, "moves": made, "dice": state["dice"],
                                 "cannot_move": False, "reason": None}
    assert [h for h in done["history"] if h["kind"] == "play"][-1]["color"] == mover
    assert done["turn"] != mover and done["can"]["roll"]
    assert announced(game)[-1] == done["message"]


@pytest.mark.parametrize("answer", ["t", "p"])
def test_cube_keys_double_take_and_drop(
    open_page: Any, server: ServerProcess, answer: str
) -> None:
    match = find_turn(lambda g: g.phase is Phase.ROLL and g.can_double(), cube=True)
    doubler = match.current.on_roll
    assert doubler is not None
    gid = store(server, f"cubekeys-{answer}", match)
    game = open_page(f"/#game={gid}")
    name, other = str(doubler).capitalize(), str(doubler.opponent).capitalize()
    game.page.keyboard.press("c")
    game.wait_idle()
    state = game.state()
    assert state["phase"] == "cube" and state["cube"]["offered_by"] == str(doubler)
    assert f"{name} doubles to 2" in announced(game)
    game.page.keyboard.press(answer)
    game.wait_idle()
    state = game.state()
    if answer == "t":
        assert state["cube"] == {"enabled": True, "value": 2, "owner": str(doubler.opponent),
                                 "offered_by": None}
        assert f"{other} takes" in announced(game)
    else:
        assert state["result"]["reason"] == "drop"
        assert announced(game)[-2:] == [f"{other} drops", state["result"]["text"]]


def test_the_live_region_after_a_roll_and_a_move(open_page: Any) -> None:
    game = open_page()
    game.start(mode="pass_and_play", cube=False)
    game.press("#roll-button")
    state = game.state()
    assert announced(game)[-1] == state["message"]
    assert state["message"].startswith("Opening roll: White ")
    entry = state["legal"][0]
    game.click_move(state["turn"], entry["from"], entry["destinations"][0]["to"])
    after = game.state()
    assert announced(game)[-1] == f"{state['turn'].capitalize()} moves {after['played'][0]['text']}"
    assert game.page.get_attribute("#announcer", "aria-live") == "polite"
    assert game.page.get_attribute("#announcer", "role") == "log"


def test_the_board_as_text(open_page: Any) -> None:
    game = open_page()
    game.start(mode="computer", side="white", cube=False)
    game.page.click("#board-text-details summary")
    assert game.page.inner_text("#board-text").splitlines() == [
        "White's home board (points 1-6): 1-point: 2 Black, 6-point: 5 White",
        "White's outer board (points 7-12): 8-point: 3 White, 12-point: 5 Black",
        "Black's outer board (points 13-18): 13-point: 5 White, 17-point: 3 Black",
        "Black's home board (points 19-24): 19-point: 5 Black, 24-point: 2 White",
        "Bar: none. Borne off: White 0, Black 0. Pips: White 167, Black 167.",
    ]
    game.page.keyboard.press("b")
    assert announced(game)[-5:] == game.page.inner_text("#board-text").splitlines()


# --------------------------------------------------------------------------------------------
# Explanations


def attempt_by(game: GamePage, found: Attempt, method: str) -> None:
    """Try the refused attempt on the page: by click, drag or keyboard."""
    page = game.page
    mover = str(found.mover)
    src, dst = found.from_place, found.to_place
    target = (f'#board .tray[data-color="{mover}"]' if dst == "off"
              else f'#board .point[data-point="{dst}"]')
    if method == "keyboard":
        page.focus("#board")
        go_to(game, src)
        page.keyboard.press("Enter")
        if dst is not None:
            go_to(game, dst)
            page.keyboard.press("Enter")
    elif method == "click":
        checker = f'#board .checker.top[data-color="{mover}"][data-point="{src}"]'
        page.click(checker)
        if dst is not None:
            box = page.locator(target).bounding_box()
            assert box is not None
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.4)
    else:
        assert dst is not None
        game_checker = page.locator(f'#board .checker.top[data-color="{mover}"]'
                                    f'[data-point="{src}"]')
        game_checker.hover()
        page.mouse.down()
        box = page.locator(target).bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.4, steps=8)
        page.mouse.up()


@pytest.mark.parametrize(("kind", "method"), [
    ("open-point", "click"), ("open-point", "drag"), ("open-point", "keyboard"),
    ("bar", "click"), ("dice", "keyboard"), ("bear-off", "drag"),
    ("bear-off-higher", "click"), ("both-dice", "keyboard"), ("larger-die", "drag"),
    ("blocked", "click"),
])
def test_each_kind_of_illegal_move_attempt_is_explained(
    open_page: Any, server: ServerProcess, kind: str, method: str
) -> None:
    found = find_attempt(kind, first_seed=ATTEMPT_SEEDS[kind], seeds=1)
    gid = store(server, f"explain-{kind}-{method}", found.match)
    game = open_page(f"/#game={gid}")
    before = game.state()
    assert before["phase"] == "move" and before["turn"] == str(found.mover)
    attempt_by(game, found, method)
    game.page.wait_for_selector("#explanation:not([hidden])")
    words = f"{'bar' if found.src == 25 else found.src}"
    if found.dst is not None:
        words += f"/{'off' if found.dst == 0 else found.dst}"
    expected = f"{words}: {found.reason}"
    assert game.page.inner_text("#explanation-text") == expected
    rule = RULES_BY_ID[{"blocked": "open-point"}.get(kind, kind)]
    link = game.page.locator("#explanation-rule")
    assert link.get_attribute("href") == f"/rules#{rule.id}"
    assert link.inner_text() == f"Rule: {rule.source}"
    assert announced(game)[-1] == expected
    assert game.state() == before  # nothing moved
    if kind == "open-point":
        game.screenshot(f"explanation-{method}")


# --------------------------------------------------------------------------------------------
# Hints, a roll that cannot be played, the rules page


def test_hints_list_matches_the_engines_legal_moves(
    open_page: Any, server: ServerProcess
) -> None:
    game = open_page()
    game.start(mode="pass_and_play", cube=False)
    game.press("#roll-button")
    page = game.page
    # hints on (the fixture's choice: they are off until asked for; H turns them off and on)

    def engine_game() -> Any:
        with GameStore(server.db_path) as games:
            return Match.replay(games.load(game.game_id).record["log"]).current

    def check() -> None:
        state = game.state()
        page.wait_for_selector(f'#hints-panel[data-for="{state["id"]}:{state["version"]}"]')
        engine = engine_game()
        shown = page.eval_on_selector_all("#hints-moves li", "n => n.map(x => x.dataset.move)")
        assert shown == [str(m) for m in engine.legal_moves()]
        sources = {str(m.from_point if engine.on_roll is WHITE else 25 - m.from_point)
                   for m in engine.legal_moves()}
        marked = set(page.eval_on_selector_all(
            "#board .checker.movable.top", "n => n.map(x => x.dataset.point)"))
        assert marked == sources
        if not engine.played:
            assert page.inner_text("#hints-plays-title").startswith(
                f"Ways to finish the turn ({len(engine.legal_plays())}")

    assert page.locator("#board.hints").count() == 1
    check()
    state = game.state()
    entry = state["legal"][0]
    game.click_move(state["turn"], entry["from"], entry["destinations"][0]["to"])
    check()
    game.screenshot("hints")
    page.keyboard.press("h")
    assert not page.locator("#hints-panel").is_visible()
    assert page.locator("#board.hints").count() == 0


def test_a_roll_that_cannot_be_played_says_why(open_page: Any, server: ServerProcess) -> None:
    match = find_turn(lambda g: g.phase is Phase.ROLL and bool(g.history)
                      and g.history[-1].action == "move" and not g.history[-1].moves)
    gid = store(server, "passedroll", match)
    turn = match.current.history[-1]
    reason = pass_reason(turn)
    assert reason
    game = open_page(f"/#game={gid}")
    status = game.page.inner_text("#status")
    assert f"and cannot move: {reason}." in status
    assert announced(game)[-1] == status
    assert game.page.locator("#move-list li").last.inner_text().endswith(": cannot move")


def test_the_rules_page_is_reachable_from_the_game(open_page: Any) -> None:
    game = open_page()
    game.start(mode="pass_and_play", cube=False)
    with game.page.context.expect_page() as info:
        game.page.click("#rules-link")
    rules = info.value
    rules.wait_for_load_state()
    errors: list[str] = []
    rules.on("pageerror", lambda error: errors.append(str(error)))
    assert rules.url.endswith("/rules")
    for rule in RULES:
        section = rules.locator(f"section#{rule.id}")
        assert section.locator("h3").inner_text() == rule.title
        assert section.locator(".source").inner_text() == f"Source: {rule.source}"
    rules.screenshot(path=str(ARTIFACTS / "rules-page.png"), full_page=False)
    rules.click("#back-to-game")
    rules.wait_for_url("**/")
    assert errors == []


def test_review_and_hints_fit_a_phone(open_page: Any, server: ServerProcess) -> None:
    match = random_match(14, games=1, cube=True, double=0.1)
    gid = store(server, "phonereview", match)
    game = open_page(f"/#game={gid}", viewport=(360, 740), settings={"theme": "dark"})
    page = game.page
    page.keyboard.press("v")
    page.wait_for_function("() => document.body.classList.contains('reviewing')")
    page.keyboard.press("Home")
    wait_review_index(game, 0)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    buttons = page.eval_on_selector_all(
        ".panel button, .panel .button-link",
        "nodes => nodes.filter(n => n.offsetParent !== null).map(n => {"
        " const r = n.getBoundingClientRect(); return [n.id, r.x, r.y, r.width, r.height]; })")
    assert {"review-first", "review-prev", "review-next", "review-last", "review-exit"} <= {
        b[0] for b in buttons}
    for index, (name, x, y, w, h) in enumerate(buttons):
        assert x >= 0 and x + w <= 360.5, name
        for other, ox, oy, ow, oh in buttons[index + 1:]:
            apart_x = x + w <= ox + 0.5 or ox + ow <= x + 0.5
            apart_y = y + h <= oy + 0.5 or oy + oh <= y + 0.5
            assert apart_x or apart_y, (name, other)
    game.screenshot("phone-360-dark-review")


def test_a_reload_after_a_rematch_keeps_the_rematch(
    open_page: Any, server: ServerProcess
) -> None:
    """The rematch is a new session: the address follows it, so a reload shows the rematch,
    not the finished match."""
    match = random_match(41, games=1, length=1)
    gid = store(server, "beforerematch", match, kind="match", mode="pass_and_play")
    game = open_page(f"/#game={gid}")
    page = game.page
    page.wait_for_selector("#rematch-button", state="visible")
    page.click("#rematch-button")
    page.wait_for_function(f"() => !location.hash.endsWith('={gid}')")
    new_id = page.evaluate("new URLSearchParams(location.hash.slice(1)).get('game')")
    assert new_id and new_id != gid
    page.reload()
    page.wait_for_function(f"() => location.hash.endsWith('={new_id}')")
    state = game.state()
    assert state["id"] == new_id and state["result"] is None


def test_a_tab_left_behind_reads_the_game_again_when_its_move_is_refused(
    open_page: Any,
) -> None:
    """Two tabs on one game: after tab A has moved, tab B's move from its old picture is
    refused as illegal (422), and B then shows the game as the server has it."""
    first = open_page()
    first.start(mode="pass_and_play", cube=False)
    first.press("#roll-button")  # the opening roll: never a double
    state = first.state()
    second = open_page(f"/#game={state['id']}")
    entry = state["legal"][0]
    target = entry["destinations"][0]["to"]
    first.click_move(state["turn"], entry["from"], target)
    assert first.state()["version"] > state["version"]
    # B still shows the roll with both dice unused, and tries the same move
    second.page.click(
        f'#board .checker.top[data-color="{state["turn"]}"][data-point="{entry["from"]}"]')
    second.page.click(f'#board .landing-ring[data-from="{entry["from"]}"]'
                      f'[data-point="{target}"]')
    second.page.wait_for_function(
        f"() => document.body.dataset.version === '{first.state()['version']}'")
    assert second.board() == first.board()
    assert second.page.inner_text("#error").strip() != ""


def test_a_tab_shown_again_reads_the_game_again(open_page: Any) -> None:
    """Back to a tab (visibilitychange): the game is read again, so tab B shows what tab A
    did meanwhile."""
    first = open_page()
    first.start(mode="pass_and_play", cube=False)
    first.press("#roll-button")
    state = first.state()
    second = open_page(f"/#game={state['id']}")
    entry = state["legal"][0]
    first.click_move(state["turn"], entry["from"], entry["destinations"][0]["to"])
    version = first.state()["version"]
    assert second.page.evaluate("document.body.dataset.version") == str(state["version"])
    second.page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    second.page.wait_for_function(f"() => document.body.dataset.version === '{version}'")
    assert second.board() == first.board()


def test_v_opens_no_review_before_there_is_anything_to_review(open_page: Any) -> None:
    """A new game with no move yet: the Review button is disabled, and V does nothing either
    (the Roll button stays)."""
    game = open_page()
    game.start(mode="pass_and_play", cube=False)
    page = game.page
    assert page.locator("#review-button").is_disabled()
    page.locator("body").press("v")
    page.wait_for_timeout(300)
    assert not page.evaluate("document.body.classList.contains('reviewing')")
    assert page.locator("#roll-button").is_visible()


def test_on_a_phone_a_tapped_line_of_the_move_list_brings_the_board_into_view(
    open_page: Any, server: ServerProcess
) -> None:
    """At 375 px the move list lies below the board: a line tapped there shows its position
    on the board, scrolled into view."""
    match = random_match(8, games=1)
    gid = store(server, "phonereview", match)
    game = open_page(f"/#game={gid}", viewport=(375, 700))
    page = game.page
    line = page.locator("#move-list li").nth(3)
    line.scroll_into_view_if_needed()
    assert page.evaluate("document.getElementById('board').getBoundingClientRect().bottom") < 0
    line.click()
    wait_review_index(game, 4)
    page.wait_for_function(
        "() => { const r = document.getElementById('board').getBoundingClientRect();"
        " return r.bottom > 0 && r.top < innerHeight; }")
