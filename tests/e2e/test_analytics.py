"""The analytics hook in a real browser, with a fake collector.

Playwright answers the analytics script's URL with a fake ``plausible`` that records its calls
(and plays back what waited in Plausible's queue stub, as the real script does): the tests
assert exactly the events the page sends and their props. Off (no flag), the page carries no
script tag and its CSP no other origin, and nothing is asked of the analytics origin; with the
script blocked (the route aborted), play goes on unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser_support import ServerProcess, launched_chromium, served

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser
Page = sync_api.Page

DOMAIN = "games.example.org"
SCRIPT = "https://plausible.io/js/script.js"
BASE_SETTINGS = {"speed": "instant", "theme": "light"}

#: The fake collector: Plausible's API (window.plausible(name, options)), recording each call.
FAKE_PLAUSIBLE = """
(function () {
  var queued = (window.plausible && window.plausible.q) || [];
  var me = document.currentScript;
  window.__collector = {domain: me && me.getAttribute("data-domain"), calls: []};
  window.plausible = function (name, options) {
    window.__collector.calls.push({name: name, options: options === undefined ? null : options});
  };
  for (var i = 0; i < queued.length; i++) window.plausible.apply(null, queued[i]);
})();
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server_on(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "server-analytics-on", ["--analytics-domain", DOMAIN])


@pytest.fixture(scope="module")
def server_off(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "server-analytics-off", [])


class Person:
    """A browser page on the game; ``asked`` lists the requests made to the analytics origin."""

    def __init__(self, page: Page, server: ServerProcess) -> None:
        self.page = page
        self.server = server
        self.errors: list[str] = []
        self.csp: list[str] = []
        self.asked: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", lambda m: self.csp.append(m.text)
                if "Content Security Policy" in m.text else None)

    def wait_idle(self) -> None:
        self.page.wait_for_function(
            "() => document.body.dataset.version && !document.body.classList.contains('busy')")

    @property
    def game_id(self) -> str:
        fragment: str = self.page.evaluate("location.hash")
        return fragment.split("game=", 1)[1]

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.server.get(f"/api/games/{self.game_id}")
        return state

    def press(self, selector: str) -> None:
        self.page.click(selector)
        self.wait_idle()

    def click_move(self, color: str, source: Any, target: Any) -> None:
        ring = f'#board .landing-ring[data-from="{source}"][data-point="{target}"]'
        if not self.page.locator(ring).count():
            self.page.click(f'#board .checker.top[data-color="{color}"][data-point="{source}"]')
        self.page.click(ring)
        self.wait_idle()

    def calls(self) -> list[dict[str, Any]] | None:
        """What the fake collector received (None: it never ran)."""
        calls: list[dict[str, Any]] | None = self.page.evaluate(
            "() => window.__collector ? window.__collector.calls : null")
        return calls

    def start_vs_computer(self) -> dict[str, Any]:
        page = self.page
        if not page.locator("#new-game-dialog").is_visible():
            page.click("#new-game-button")
        page.check("input[name=mode][value=computer]")
        page.select_option("#level-select", "easy")
        page.select_option("#side-select", "white")
        page.select_option("#kind-select", "single")
        page.set_checked("#cube-input", False)
        page.click("#new-game-start")
        self.wait_idle()
        return self.state()

    def play_one_turn_of_white(self) -> dict[str, Any]:
        """Roll and play (the first move listed each time) until White has played a turn and
        White is to act again (the computer's turns are the page's)."""
        for _ in range(60):
            self.wait_idle()
            state = self.state()
            played = any(e["kind"] == "play" and e["color"] == "white" for e in state["history"])
            can = state["can"]
            if played and can["resign"]:
                return state
            if can["roll"]:
                self.press("#roll-button")
            elif state["legal"]:
                entry = state["legal"][0]
                self.click_move("white", entry["from"], entry["destinations"][-1]["to"])
            elif can["done"]:
                self.press("#done-button")
            else:
                raise AssertionError(f"nothing to do: {state['message']}")
        raise AssertionError("White never got to play a turn")

    def resign(self, level: str) -> None:
        self.page.click("#resign-button")
        self.page.click(f'#resign-dialog button[data-resign="{level}"]')
        # (the dialog's close event sends it: wait for the answer, the game's end)
        self.page.locator("#result").wait_for(state="visible")
        self.wait_idle()


@pytest.fixture
def open_person(browser: Browser) -> Iterator[Callable[..., Person]]:
    """``open_person(server, script="fake"|"blocked"|None, path="/")``: a fresh browser
    context on ``server``; ``script`` says how the analytics script's URL is answered."""
    contexts = []
    people: list[Person] = []

    def open_(server: ServerProcess, script: str | None = "fake",
              path: str | None = "/") -> Person:
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        context.add_init_script(
            "localStorage.setItem('backgammon.settings', "
            f"{json.dumps(json.dumps(BASE_SETTINGS))});")
        contexts.append(context)
        page = context.new_page()
        person = Person(page, server)

        def answer(route: Any) -> None:
            person.asked.append(route.request.url)
            if script == "fake":
                route.fulfill(status=200, content_type="text/javascript", body=FAKE_PLAUSIBLE)
            else:
                route.abort()

        context.route("https://plausible.io/**", answer)
        if path is not None:
            page.goto(server.url + path)
        people.append(person)
        return person

    yield open_
    for person in people:
        assert person.errors == [], person.errors
        assert person.csp == [], person.csp
    for context in contexts:
        context.close()


def endgame(server: ServerProcess, cube: bool, mode: str = "computer") -> str:
    """A game against the computer (Easy; the person White), or pass & play, from a set-up
    position: White to play 2-1 with one checker left on its 2-point, Black one on its
    1-point: 2/off wins a single game. Returns its id."""
    points = [0] * 26
    points[2] = 1
    points[24] = -1
    setup = {"board": {"points": points, "off": {"white": 14, "black": 14}},
             "turn": "white", "dice": [2, 1], "cube": {"value": 1, "owner": None},
             "doubled": False, "match_length": 0, "score": {"white": 0, "black": 0},
             "crawford": False, "jacoby": False, "beavers": False}
    state = server.post("/api/games", {"mode": mode, "level": "easy", "side": "white",
                                       "cube": cube, "setup": setup})
    game_id: str = state["id"]
    return game_id


def bear_off_the_last_checker(person: Person) -> dict[str, Any]:
    person.wait_idle()
    person.click_move("white", 2, "off")
    state = person.state()
    if state["result"] is None:
        person.press("#done-button")
        state = person.state()
    assert state["result"] is not None
    person.page.locator("#result").wait_for(state="visible")
    return state


def completed(**props: str) -> dict[str, Any]:
    return {"name": "Game Completed", "options": {"props": props}}


# --------------------------------------------------------------------------------------------


def test_a_game_to_its_end_play_again_and_another_to_the_end_send_exactly_their_events(
        open_person: Callable[..., Person], server_on: ServerProcess) -> None:
    person = open_person(server_on)
    page = person.page
    tag = page.locator("script[data-analytics]")
    assert tag.get_attribute("data-domain") == DOMAIN
    assert tag.get_attribute("src") == SCRIPT
    page.wait_for_function("() => window.__collector !== undefined")
    assert page.evaluate("window.__collector.domain") == DOMAIN
    assert person.calls() == []  # nothing at load

    state = person.start_vs_computer()
    assert state["phase"] == "opening"
    person.play_one_turn_of_white()
    assert person.calls() == []  # nothing while the game is played
    person.resign("backgammon")
    state = person.state()
    assert (state["result"]["reason"], state["result"]["points"]) == ("resign", 3)
    assert person.calls() == [completed(mode="computer", result="loss", reason="resign",
                                        points="3", level="easy", clock="none", cube="off")]

    person.press("#rematch-button")
    assert page.evaluate("document.body.dataset.phase") == "opening"  # a new game
    again = {"name": "Played Again", "options": {"props": {"mode": "computer"}}}
    assert person.calls()[1:] == [again]

    # Another game (the rematch left unfinished), from a set-up position with the cube on,
    # opened by its link and played to its end on the board.
    page.goto(f"{server_on.url}/#game={endgame(server_on, cube=True)}")
    person.wait_idle()
    assert len(person.calls()) == 2  # opening a game in progress sends nothing
    state = bear_off_the_last_checker(person)
    assert (state["result"]["winner"], state["result"]["reason"]) == ("white", "board")
    assert person.calls()[2:] == [completed(mode="computer", result="win", reason="board",
                                        points="1", level="easy", clock="none", cube="1")]
    page.reload()
    person.wait_idle()
    page.wait_for_function("() => window.__collector !== undefined")
    assert person.calls() == []  # a finished game opened again is not completed again

    # Straight after it, a pass & play game, won by White.
    page.goto(f"{server_on.url}/#game={endgame(server_on, cube=False, mode='pass_and_play')}")
    person.wait_idle()
    assert person.calls() == [{"name": "Played Again", "options": {"props": {
        "mode": "pass_and_play"}}}]
    bear_off_the_last_checker(person)
    assert person.calls()[1:] == [completed(mode="pass_and_play", result="white",
                                            reason="board", points="1", level="none",
                                            clock="none", cube="off")]
    assert person.asked and set(person.asked) == {SCRIPT}


def test_an_online_game_connecting_is_reported_once_by_each_side(
        open_person: Callable[..., Person], server_on: ServerProcess) -> None:
    host = open_person(server_on)
    page = host.page
    if page.locator("#new-game-dialog").is_visible():
        page.click("#new-game-online")
    else:
        page.click("#online-button")
    page.check("input[name=online-mode][value=create]")
    page.fill("#online-name", "Alice")
    page.click("#online-submit")
    page.wait_for_function("() => document.body.dataset.onlinePhase === 'waiting'")
    link = page.input_value("#online-link")
    assert host.calls() == []  # alone in the room: no game yet

    guest = open_person(server_on, path=None)
    guest.page.goto(link)
    guest.page.wait_for_selector("#online-dialog[open]")
    guest.page.wait_for_function(
        "() => document.getElementById('online-room-info').textContent.length > 0")
    guest.page.fill("#online-name", "Bob")
    guest.page.click("#online-submit")
    for person in (host, guest):
        person.page.wait_for_function(
            "() => document.body.dataset.onlinePhase === 'playing' && "
            "document.body.dataset.onlineIdle === '1' && window.__collector && "
            "window.__collector.calls.length > 0")
    connected = [{"name": "Online Game Connected", "options": {"props": {"role": "host"}}}]
    assert host.calls() == connected
    assert guest.calls() == [{"name": "Online Game Connected",
                              "options": {"props": {"role": "guest"}}}]
    # A reload of the same seat (a reconnection) is not a new game.
    guest.page.reload()
    idle = "() => document.body.dataset.onlineIdle === '1' && window.__collector !== undefined"
    guest.page.wait_for_function(idle)
    assert guest.calls() == []

    # The opening roll's winner plays its turn; the other resigns and the first accepts.
    first, second = (host, guest) if data(host, "turn") == data(host, "onlineYou") else (
        guest, host)
    for _ in range(8):
        first.page.wait_for_function(idle)
        if first.page.locator("#done-button").is_visible():
            break
        source = first.page.locator("#board.interactive .checker.top.movable").first
        source.click()
        first.page.locator("#board .landing-ring").first.click()
    first.page.click("#done-button")
    second.page.locator("#resign-button").wait_for(state="visible")
    second.page.click("#resign-button")
    second.page.click('#resign-dialog button[data-resign="single"]')
    first.page.locator("#online-accept-button").wait_for(state="visible")
    first.page.click("#online-accept-button")
    for person in (first, second):
        person.page.wait_for_function(
            "() => document.body.dataset.onlinePhase === 'finished' && "
            "document.body.dataset.onlineIdle === '1'")
    # (a single game: one game of money play, the cube on as the dialog chose, at 1)
    props = {"mode": "online", "reason": "resign", "points": "1", "level": "none",
             "clock": "none", "cube": "1"}
    assert first.calls()[-1:] == [completed(**{**props, "result": "win"})]
    assert second.calls()[-1:] == [completed(**{**props, "result": "loss"})]
    assert len(host.calls()) == 2 and len(guest.calls()) == 1  # (the guest reloaded)


def data(person: Person, name: str) -> str:
    return str(person.page.evaluate("(name) => document.body.dataset[name] || ''", name))


def test_off_by_default_no_script_no_origin_and_nothing_sent(
        open_person: Callable[..., Person], server_off: ServerProcess) -> None:
    person = open_person(server_off, path=f"/#game={endgame(server_off, cube=False)}")
    page = person.page
    response = page.request.get(server_off.url + "/")
    csp = response.headers["content-security-policy"]
    assert "plausible" not in csp and "https:" not in csp and "http:" not in csp
    assert page.locator("script[data-analytics]").count() == 0
    assert page.locator("script[src^='http']").count() == 0
    bear_off_the_last_checker(person)
    assert page.evaluate("typeof window.plausible") == "undefined"
    assert person.calls() is None
    assert person.asked == []


def test_a_blocked_script_changes_nothing_in_play(
        open_person: Callable[..., Person], server_on: ServerProcess) -> None:
    person = open_person(server_on, script="blocked")
    page = person.page
    assert page.locator("script[data-analytics]").count() == 1
    state = person.start_vs_computer()
    assert state["phase"] == "opening"
    person.play_one_turn_of_white()
    page.goto(f"{server_on.url}/#game={endgame(server_on, cube=False)}")
    state = bear_off_the_last_checker(person)
    assert page.inner_text("#result-title") == state["result"]["title"] == "You win"
    assert person.asked == [SCRIPT]  # asked for once, at load, and refused
    # The event waits in Plausible's queue stub, harmlessly: nothing else happened.
    queued = page.evaluate("() => Array.from(window.plausible.q || [], (args) => [...args])")
    assert queued == [["Game Completed", {"props": {
        "mode": "computer", "result": "win", "reason": "board", "points": "1",
        "level": "easy", "clock": "none", "cube": "off"}}]]
