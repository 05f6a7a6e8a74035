"""Online play in two real browsers: Playwright drives two chromium contexts (two people on two
machines, as far as the page can tell) against the real server (``backgammon serve`` in a
subprocess), through the page's own buttons and board.

The pages run the commit-reveal dice by themselves; every roll is checked here as well: the
secrets each page shows in its fair-dice log give, through the engine's
:func:`~backgammon.core.dice.dice_from_secrets`, the dice the board shows. Two tests put
Playwright between a page and the server (``route_web_socket``) to hold back or alter messages:
one reloads a page whose reveal never arrived, one checks that a page notices dice or a reveal
that do not match. Screenshots go to ``test-artifacts/e2e/online-*.png``.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import (
    ARTIFACTS,
    ServerProcess,
    console_errors,
    expected_rows,
    launched_chromium,
    mat_turns,
    ranked_rows,
    served,
)

from backgammon.core.dice import commitment, dice_from_secrets

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser
Page = sync_api.Page

#: Settings every test page starts with (local play's; the light theme for screenshots).
BASE_SETTINGS = {"speed": "instant", "theme": "light"}
#: How long the pages may take to agree after an action, in seconds.
SETTLE_TIMEOUT = 10.0
#: A name the browser resolves to 127.0.0.1: a page there is on plain HTTP and not localhost,
#: so it has no secure context and no WebCrypto, as for a friend on the LAN.
LAN_NAME = "backgammon-lan.test"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium((f"--host-resolver-rules=MAP {LAN_NAME} 127.0.0.1",))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "online-server")


class OnlinePage:
    """One person's browser page, with the steps they take and what they can read."""

    def __init__(self, page: Page, server: ServerProcess, base: str) -> None:
        self.page = page
        self.server = server
        self.base = base
        self.errors: list[str] = []
        self.csp: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", self._console)

    def _console(self, message: Any) -> None:
        if "Content Security Policy" in message.text:
            self.csp.append(message.text)

    # -- reading ---------------------------------------------------------------------------

    def data(self, name: str) -> str:
        """``document.body.dataset[name]`` ("" when unset)."""
        value = self.page.evaluate("(name) => document.body.dataset[name] || ''", name)
        return str(value)

    @property
    def idle(self) -> bool:
        return self.data("onlineIdle") == "1"

    @property
    def seq(self) -> int:
        return int(self.data("onlineSeq") or 0)

    @property
    def color(self) -> str:
        return self.data("onlineYou")

    def wait_idle(self, timeout: float = SETTLE_TIMEOUT) -> None:
        self.page.wait_for_function("() => document.body.dataset.onlineIdle === '1'",
                                    timeout=timeout * 1000)

    def visible(self, selector: str) -> bool:
        return self.page.locator(selector).is_visible()

    def text(self, selector: str) -> str:
        return self.page.inner_text(selector).strip()

    def board(self) -> list[tuple[str, str]]:
        """Every checker on the board as (colour, place), sorted."""
        items = self.page.eval_on_selector_all(
            "#board .checker", "nodes => nodes.map(n => [n.dataset.color, n.dataset.point])")
        return sorted((color, where) for color, where in items)

    def dice(self) -> list[int]:
        """The values of the dice drawn on the board, in order."""
        items = self.page.eval_on_selector_all("#board .die", "nodes => nodes.map(n => "
                                                              "Number(n.dataset.value))")
        return [int(v) for v in items]

    def dice_log(self) -> list[dict[str, str]]:
        """The fair-dice log: one entry a roll (round, dice, check, secrets, roller)."""
        items: list[dict[str, str]] = self.page.eval_on_selector_all(
            "#online-dice-list li",
            "nodes => nodes.map(n => ({...n.dataset, text: n.textContent}))")
        return items

    def history(self) -> list[str]:
        return [t.strip() for t in self.page.locator("#move-list li").all_inner_texts()]

    def movable(self) -> list[str]:
        """The places the board offers a checker from (as the server listed them)."""
        items = self.page.eval_on_selector_all(
            "#board.interactive .checker.top.movable", "nodes => nodes.map(n => n.dataset.point)")
        return [str(p) for p in items]

    # -- acting ----------------------------------------------------------------------------

    def open(self, path: str = "/") -> None:
        self.page.goto(self.base + path)

    def close_new_game_dialog(self) -> None:
        if self.visible("#new-game-dialog"):
            self.page.click("#new-game-cancel")

    def create(self, *, name: str, cube: bool = True, clock: str = "none",
               match: int = 0) -> str:
        """Create a room from the page's Play online dialog; returns the invite link."""
        page = self.page
        if self.visible("#new-game-dialog"):
            page.click("#new-game-online")
        else:
            page.click("#online-button")
        page.check("input[name=online-mode][value=create]")
        page.select_option("#online-kind", "match" if match else "single")
        if match:
            page.fill("#online-length", str(match))
        page.set_checked("#online-cube", cube)
        page.select_option("#online-clock", clock)
        page.fill("#online-name", name)
        page.click("#online-submit")
        self.wait_idle()
        return self.page.input_value("#online-link")

    def join_by_link(self, link: str, *, name: str) -> str:
        """Open the invite link and join; returns what the dialog said about the room."""
        self.page.goto(link)
        self.page.wait_for_selector("#online-dialog[open]")
        info = self.page.locator("#online-room-info")
        info.wait_for(state="visible")
        self.page.wait_for_function(
            "() => document.getElementById('online-room-info').textContent.length > 0")
        self.page.fill("#online-name", name)
        self.page.click("#online-submit")
        return self.text("#online-room-info")

    def click_move(self, source: str) -> str:
        """Pick up the top checker on ``source`` and put it on the first place offered."""
        page = self.page
        ring = f'#board .landing-ring[data-from="{source}"]'
        if not page.locator(ring).count():
            page.click(f'#board .checker.top.movable[data-point="{source}"]')
        target = str(page.locator(ring).first.get_attribute("data-point"))
        page.locator(ring).first.click()
        return target

    def screenshot(self, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True, animations="disabled")
        return path


@pytest.fixture
def open_page(browser: Browser, server: ServerProcess) -> Iterator[Callable[..., OnlinePage]]:
    """``open_page(route=None, path="/", lan=False, viewport=(1280, 900))``: a fresh browser
    context (a person of their own) on ``path`` (None: nowhere yet); ``route`` handles the
    page's WebSockets (Playwright's ``route_web_socket``); ``lan``: the server by
    :data:`LAN_NAME`, not localhost."""
    contexts = []
    pages: list[OnlinePage] = []

    def open_(route: Callable[[Any], None] | None = None, path: str | None = "/",
              lan: bool = False, viewport: tuple[int, int] = (1280, 900)) -> OnlinePage:
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        settings = json.dumps(json.dumps(BASE_SETTINGS))
        # These pages test backgammon's own (older) online door, pinned by its setting (the
        # default is the shared table's door: test_online_tables_backgammon.py); they go
        # when that door is deleted.
        context.add_init_script(f"localStorage.setItem('backgammon.settings', {settings});"
                                "localStorage.setItem('backgammon.hints', 'on');"
                                "localStorage.setItem('bg.onlineDoor', 'rooms');")
        contexts.append(context)
        page = context.new_page()
        if route is not None:
            page.route_web_socket("**/api/online/rooms/*/ws", route)
        base = f"http://{LAN_NAME}:{server.port}" if lan else server.url
        online = OnlinePage(page, server, base)
        if path is not None:
            online.open(path)
        pages.append(online)
        return online

    yield open_
    for online in pages:
        assert online.errors == [], online.errors
        assert online.csp == [], online.csp
    for context in contexts:
        context.close()


def settle(*pages: OnlinePage, timeout: float = SETTLE_TIMEOUT) -> int:
    """Wait until every page has drawn the same latest event with nothing in flight; returns
    the event number."""
    deadline = time.monotonic() + timeout
    agreed = None
    while time.monotonic() < deadline:
        for online in pages:
            online.wait_idle(timeout=max(0.1, deadline - time.monotonic()))
        seqs = {online.seq for online in pages}
        if len(seqs) == 1 and all(online.idle for online in pages):
            seq = seqs.pop()
            if agreed == seq:
                return seq
            agreed = seq
            time.sleep(0.05)  # and still so a moment later: no dice message was on its way
        else:
            agreed = None
            time.sleep(0.02)
    raise AssertionError(f"the pages did not settle: seqs {[o.seq for o in pages]}, idle "
                         f"{[o.idle for o in pages]}")


def check_rolls(*pages: OnlinePage) -> list[dict[str, str]]:
    """Every roll in each page's fair-dice log checked out there, the logs agree, and the
    engine's derivation of each roll's secrets gives its dice."""
    keys = ("round", "dice", "check", "opening", "roller", "white", "black")
    logs = [online.dice_log() for online in pages]
    # A page that was reloaded lists only the rolls since; the rolls both list are the same.
    for log in logs[1:]:
        shared = {e["round"] for e in log} & {e["round"] for e in logs[0]}
        assert [[e[k] for k in keys] for e in log if e["round"] in shared] == [
            [e[k] for k in keys] for e in logs[0] if e["round"] in shared]
    longest = max(logs, key=len)
    for entry in (entry for log in logs for entry in log):
        assert entry["check"] == "ok", entry["text"]
        white, black = bytes.fromhex(entry["white"]), bytes.fromhex(entry["black"])
        number = int(entry["round"])
        if entry["opening"] == "true" or entry["roller"] == "white":
            expected = dice_from_secrets(white, black, number)
        else:
            expected = dice_from_secrets(black, white, number)
        assert [int(d) for d in entry["dice"].split(",")] == list(expected), entry
    return longest


def act(pages: tuple[OnlinePage, ...]) -> tuple[OnlinePage, str]:
    """Whoever must act does one thing, as a person would: take a double, roll, move a
    checker (the first one the board offers, to the first place offered), or end the turn."""
    for online in pages:
        if online.visible("#take-button"):
            online.page.click("#take-button")
            return online, "take"
        if online.visible("#roll-button"):
            online.page.click("#roll-button")
            return online, "roll"
        sources = online.movable()
        if sources:
            online.click_move(sources[0])
            return online, "move"
        if online.visible("#done-button"):
            online.page.click("#done-button")
            return online, "done"
    states = [(o.color, o.data("phase"), o.data("turn"), o.text("#status")) for o in pages]
    raise AssertionError(f"nobody can act: {states}")


def play_turns(pages: tuple[OnlinePage, ...], turns: int) -> list[tuple[str, str]]:
    """Play until ``turns`` turns have ended (Done, or a roll that could not be played)."""
    done = 0
    actions: list[tuple[str, str]] = []
    for _ in range(200):
        if done >= turns:
            return actions
        online, action = act(pages)
        settle(*pages)
        actions.append((online.color, action))
        if action == "done" or (action == "roll" and "cannot move: the turn passes" in
                                online.text("#online-note")):
            done += 1
    raise AssertionError(f"{turns} turns took too long: {actions}")


def start_room(open_page: Callable[..., OnlinePage], *, host_route: Any = None,
               guest_route: Any = None, **settings: Any) -> tuple[OnlinePage, OnlinePage]:
    """Alice creates a room, Bob opens the invite link and joins; both pages settle after
    the opening roll."""
    host = open_page(route=host_route)
    link = host.create(name="Alice", **settings)
    guest = open_page(route=guest_route, path=None)
    guest.join_by_link(link, name="Bob")
    settle(host, guest)
    return host, guest


# --------------------------------------------------------------------------------------------


def test_create_join_play_double_take_resign_and_rematch(
        open_page: Callable[..., OnlinePage], server: ServerProcess) -> None:
    host = open_page()
    link = host.create(name="Alice", cube=True)
    code = host.text("#online-code")
    assert len(code) >= 16
    assert link == f"{server.url}/#join={code}"
    assert host.text("#status") == "Waiting for your friend to join: send them the invite link."
    assert host.visible("#online-invite")
    assert host.data("onlinePhase") == "waiting"
    room = server.get(f"/api/online/rooms/{code}")
    assert room == {"code": code, "phase": "waiting", "host": "Alice", "open": True,
                    "settings": {"cube": True, "time_control": None, "match_length": 0,
                                 "money": False, "jacoby": False, "beavers": False}}
    host.screenshot("online-invite")

    guest = open_page(path=None)
    info = guest.join_by_link(link, name="Bob")
    assert info == ("Alice invites you to a single game, with the cube, no clock. A player who "
                    "is gone (disconnected for 2 minutes, or thinking for 10 in one turn) can be "
                    "claimed against: the other wins.")
    settle(host, guest)
    assert server.get(f"/api/online/rooms/{code}")["open"] is False
    assert (host.color, guest.color) == ("white", "black")
    assert guest.page.evaluate("location.hash") == f"#online={code}"
    assert host.text("#online-opponent") == "Bob joined: the game begins with the opening roll."
    assert host.page.get_attribute("#board", "data-viewer") == "white"
    assert guest.page.get_attribute("#board", "data-viewer") == "black"
    # The opening roll went by itself: one die each, both secrets committed then revealed
    # (a tie throws again in the next round).
    openings = check_rolls(host, guest)
    assert [e["round"] for e in openings] == [str(n) for n in range(1, len(openings) + 1)]
    assert all(e["opening"] == "true" for e in openings)
    opening = openings[-1]
    white_die, black_die = (int(d) for d in opening["dice"].split(","))
    assert white_die != black_die
    assert all(len(set(e["dice"].split(","))) == 1 for e in openings[:-1])
    first = "white" if white_die > black_die else "black"
    assert host.data("turn") == guest.data("turn") == first
    assert host.data("phase") == "move"
    # The server's words, as in local play: the opening roll, then who starts with what.
    mover_page, waiter = (host, guest) if first == "white" else (guest, host)
    opening_words = f"Opening roll: White {white_die}, Black {black_die}. "
    high, low = max(white_die, black_die), min(white_die, black_die)
    assert mover_page.text("#status") == (
        f"{opening_words}You start with {high}-{low}: move a checker.")
    mover_name = "Alice" if mover_page is host else "Bob"
    assert waiter.text("#status") == f"{opening_words}{mover_name} is playing {high}-{low}."
    assert host.history() == guest.history() == []
    assert host.board() == guest.board() and len(host.board()) == 30
    assert host.text("#online-dice-check") == (
        f"Dice checked: {white_die}-{black_die} (round {opening['round']})")

    # Several turns, each roll by commit-reveal between the two pages.
    actions = play_turns((host, guest), 4)
    assert {color for color, action in actions if action == "done"} == {"white", "black"}
    rolls = check_rolls(host, guest)
    assert len(rolls) >= 4
    assert [int(e["round"]) for e in rolls] == list(range(1, len(rolls) + 1))
    assert host.board() == guest.board()
    assert host.text("#pips-white") == guest.text("#pips-white")
    host.screenshot("online-host-mid-game")
    guest.screenshot("online-guest-mid-game")

    # Double and take: the side on roll doubles before rolling.
    for _ in range(20):
        roller = next((o for o in (host, guest) if o.visible("#roll-button")), None)
        if roller is not None and roller.visible("#double-button"):
            break
        act((host, guest))
        settle(host, guest)
    else:
        raise AssertionError("no chance to double came")
    taker = guest if roller is host else host
    roller.page.click("#double-button")
    settle(host, guest)
    assert taker.visible("#take-button") and taker.visible("#drop-button")
    assert not roller.visible("#roll-button")
    assert taker.text("#status") == f"{'Alice' if roller is host else 'Bob'} doubles to 2: take " \
                                    "or drop?"
    assert taker.page.get_attribute("#board .cube", "class") == "cube offered"
    taker.page.click("#take-button")
    settle(host, guest)
    for online in (host, guest):
        assert online.page.get_attribute("#board .cube", "data-value") == "2"
        assert online.page.get_attribute("#board .cube", "data-owner") == taker.color
    assert roller.visible("#roll-button") and not roller.visible("#double-button")
    assert roller.history()[-2:] == taker.history()[-2:] == [
        f"{player_name(roller)} doubles to 2", f"{player_name(taker)} takes"]

    # The doubler resigns a single game: worth the cube's 2 points once accepted.
    roller.page.click("#resign-button")
    roller.page.click("#resign-dialog [data-resign=single]")
    settle(host, guest)
    assert taker.visible("#online-accept-button") and taker.visible("#online-decline-button")
    taker.page.click("#online-accept-button")
    settle(host, guest)
    winner_name = "Alice" if taker is host else "Bob"
    # The result in local play's words, from each page's side.
    assert taker.text("#result-text") == "You win a single game by resignation (2 points)."
    assert roller.text("#result-text") == (
        f"{winner_name} wins a single game by resignation (2 points).")
    for online in (host, guest):
        assert online.visible("#result")
        assert online.text(f"#score-{taker.color}-points") == "2"
        assert online.text(f"#score-{roller.color}-points") == "0"
        assert online.visible("#rematch-button")
        assert online.data("onlinePhase") == "finished"
    assert taker.text("#result-title") == "You win"
    assert roller.text("#result-title") == f"{winner_name} wins"
    taker.screenshot("online-result")

    # Rematch: both ask; the colours swap and the new match opens with its own opening roll.
    host.page.click("#rematch-button")
    settle(host, guest)
    assert not host.visible("#rematch-button")
    assert guest.text("#online-note") == "Alice asks for a rematch."
    guest.page.click("#rematch-button")
    settle(host, guest)
    assert (host.color, guest.color) == ("black", "white")
    assert host.page.get_attribute("#board", "data-viewer") == "black"
    assert host.text("#online-you") == "You play black."
    assert host.text("#online-opponent") == "Playing Bob (white)."
    note = host.text("#online-note")  # (unless the new opening roll was a tie, said instead)
    assert note == "Rematch: you play black this time." or note.endswith("; throw again."), note
    assert not host.visible("#result")
    assert host.text("#score-white-points") == host.text("#score-black-points") == "0"
    rolls_after = check_rolls(host, guest)
    assert rolls_after[-1]["opening"] == "true"
    assert int(rolls_after[-1]["round"]) > int(rolls[-1]["round"])
    assert host.data("phase") == "move"
    assert host.board() == guest.board() and len(host.board()) == 30
    play_turns((host, guest), 1)
    check_rolls(host, guest)
    guest.screenshot("online-rematch")


def player_name(online: OnlinePage) -> str:
    """The name the move list gives ``online``'s player (on both pages)."""
    return "Alice" if online.data("onlineSeat") == "host" else "Bob"


def test_a_two_dice_move_then_review_and_export_of_the_online_game(
        open_page: Callable[..., OnlinePage]) -> None:
    from backgammon.records import read_mat, replay_mat

    host, guest = start_room(open_page, cube=False)
    mover = host if host.data("turn") == host.color else guest
    watcher = guest if mover is host else host
    # A checker put somewhere it cannot go is explained, as in local play: moving backwards
    # from the mover's 13-point (page point 13 for White, 12 for Black).
    source, back = ("13", "14") if mover.color == "white" else ("12", "11")
    mover.page.click(f'#board .checker.top[data-point="{source}"]')
    box = mover.page.locator(f'#board .point[data-point="{back}"]').bounding_box()
    assert box is not None
    mover.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.4)
    mover.page.wait_for_selector("#explanation:not([hidden])")
    assert mover.text("#explanation-text").startswith("13/14: ")
    assert mover.page.get_attribute("#explanation-rule", "href").startswith("/rules#")
    mover.page.click(f'#board .checker.top[data-point="{source}"]')  # put it back
    # The board offers a checker's farther places too, several dice on (as in local play):
    # the ring's title names the moves that take it there.
    chosen = None
    for source in mover.movable():
        mover.page.click(f'#board .checker.top.movable[data-point="{source}"]')
        rings = mover.page.locator(f'#board .landing-ring[data-from="{source}"]')
        titles = [str(rings.nth(i).get_attribute("title")) for i in range(rings.count())]
        two = [i for i, title in enumerate(titles) if len(title.split()) == 2]
        if two:
            chosen = (source, str(rings.nth(two[0]).get_attribute("data-point")), titles[two[0]])
            rings.nth(two[0]).click()
            break
        mover.page.click(f'#board .checker.top[data-point="{source}"]')  # put it back
    assert chosen is not None, "the opening roll offers no place two dice away"
    source, target, moves = chosen
    settle(host, guest)
    # Both moves were made (one message, all or nothing): the opening roll's dice are used up.
    assert mover.visible("#done-button") and not mover.movable()
    assert mover.text("#status").endswith(": press Done (or Undo).")
    # The live region announces each move, as in local play (announce.js on the table's view).
    said = [t.strip() for t in mover.page.locator("#announcer p").all_inner_texts()]
    for text in moves.split():
        assert f"You move {text}" in said, said
    assert watcher.board() == mover.board()
    mover.page.click("#done-button")
    settle(host, guest)
    assert not mover.visible("#explanation")  # it was about a position gone by
    # The previous turn is highlighted on both boards, as in local play: where the checker
    # came from and where it went.
    for online in (host, guest):
        assert online.page.locator("#board .last-from").count() >= 1
        assert online.page.locator("#board .last-to").count() >= 1
    play_turns((host, guest), 2)

    # Review, on the watcher's page: every position of the online match, from the start.
    lines = len(watcher.history())
    watcher.page.click("#review-button")
    watcher.page.wait_for_selector("body.reviewing")
    label = watcher.text("#review-label")
    # three turns: the opening one and two more, numbered as a .mat numbers its lines
    second = "black" if mover.color == "white" else "white"
    turns = mat_turns([{"game": 1, "kind": "play", "color": c}
                       for c in (mover.color, second, mover.color)])
    assert label.startswith(f"Turn {turns[-1]} of {turns[-1]}: ")
    history = watcher.history()
    assert history[0].startswith(("Alice", "Bob")) and "…" not in " ".join(history)
    watcher.page.click("#review-first")
    assert watcher.text("#review-label") == "The starting position"
    start = watcher.board()
    assert len(start) == 30
    watcher.page.click("#review-next")
    first_name = "Alice" if mover is host else "Bob"
    assert watcher.text("#review-label").startswith(f"Turn 1 of {turns[-1]}: {first_name} ")
    after = watcher.board()
    # the opening play: the chosen checker left its place for the one two dice away
    assert (after.count((mover.color, source)), after.count((mover.color, target))) == (
        start.count((mover.color, source)) - 1, start.count((mover.color, target)) + 1)
    watcher.screenshot("online-review")
    watcher.page.click("#review-exit")
    settle(host, guest)
    assert watcher.board() == mover.board()
    assert len(watcher.history()) == lines

    # Export: the .mat transcript of the match so far, copied or downloaded as a file.
    mover.page.click("#export-button")
    mover.page.wait_for_selector("#export-dialog[data-ready]")
    text = mover.page.input_value("#export-text")
    assert "Alice" in text and "Bob" in text and " 1) " in text
    href = str(mover.page.get_attribute("#export-download", "href"))
    assert href.startswith("blob:")
    assert str(mover.page.get_attribute("#export-download", "download")).endswith(".mat")
    replayed = replay_mat(read_mat(text))
    assert len(replayed.match.games) == 1 and not replayed.match.current.is_over
    mover.page.click("#export-close")


def test_a_dropped_connection_a_reload_mid_turn_and_mid_roll_then_play_on(
        open_page: Callable[..., OnlinePage]) -> None:
    held: list[str] = []
    hold = {"reveal": False}
    links: dict[str, Any] = {}

    def route(ws: Any) -> None:
        """Between Bob's page and the server: hold back his reveal while asked to."""
        server = ws.connect_to_server()
        links.update(page=ws, server=server)

        def to_server(message: str | bytes) -> None:
            if hold["reveal"] and isinstance(message, str) and '"type":"reveal"' in message:
                held.append(message)
                return
            server.send(message)

        ws.on_message(to_server)
        server.on_message(ws.send)

    host, guest = start_room(open_page, guest_route=route, cube=False)
    # The network drops Bob's connection: his page reconnects by itself with its seat token.
    board = guest.board()
    links["server"].close()
    links["page"].close(code=1001, reason="network gone")
    guest.page.wait_for_function("() => document.body.dataset.online === 'reconnecting'")
    settle(host, guest)
    assert guest.data("online") == "connected" and guest.text("#online-connection") == "Connected."
    assert host.text("#online-opponent") == "Bob is back."
    assert guest.board() == board == host.board()
    # Mid-turn: whoever moves first makes one move, then reloads the page.
    mover = host if host.movable() else guest
    other = guest if mover is host else host
    mover.click_move(mover.movable()[0])
    settle(host, guest)
    board, pending = mover.board(), mover.text("#status")
    assert "You " in pending and pending.endswith(".")
    mover.page.reload()
    settle(host, guest)
    assert mover.board() == board == other.board()
    assert mover.text("#status") == pending
    assert mover.color == ("white" if mover is host else "black")
    assert mover.data("onlineSeat") == ("host" if mover is host else "guest")
    assert other.page.locator("#online-opponent").get_attribute("data-status") == "reconnected"
    assert other.text("#online-opponent") == f"{'Alice' if mover is host else 'Bob'} is back."
    play_turns((host, guest), 2)
    check_rolls(host, guest)

    # Mid-roll: Bob commits, Alice's page answers with its secret, and his reveal is held
    # back; he reloads. The secret kept in his browser finishes the round with the same dice
    # his commitment fixed.
    for _ in range(40):
        if guest.visible("#roll-button"):
            break
        act((host, guest))
        settle(host, guest)
    else:
        raise AssertionError("Bob never came to roll")
    last_round = int(check_rolls(host, guest)[-1]["round"])
    hold["reveal"] = True
    guest.page.click("#roll-button")
    guest.page.wait_for_function("() => document.body.dataset.onlineIdle === '0'")
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while not held and time.monotonic() < deadline:
        guest.page.wait_for_timeout(20)
    assert len(held) == 1
    reveal = json.loads(held[0])
    assert host.text("#status") == "Bob is rolling…"
    stored = guest.page.evaluate("() => Object.entries(localStorage).filter(([k]) => "
                                 "k.endsWith('.guest')).map(([, v]) => JSON.parse(v))")
    assert stored[0]["secrets"] == {str(reveal["round"]): reveal["secret"]}
    hold["reveal"] = False
    guest.page.reload()
    settle(host, guest)
    last = check_rolls(host, guest)[-1]  # (each page lists the rolls since its last reload)
    assert int(last["round"]) == last_round + 1
    assert (int(last["round"]), last["roller"], last["black"]) == (
        reveal["round"], "black", reveal["secret"])
    assert guest.dice() == host.dice()
    if guest.data("phase") == "move":  # (not a roll that could not be played)
        dice = [int(d) for d in last["dice"].split(",")]
        assert guest.dice() == (dice * 2 if dice[0] == dice[1] else dice)
    assert guest.page.evaluate("() => Object.entries(localStorage).filter(([k]) => "
                               "k.endsWith('.guest')).map(([, v]) => JSON.parse(v).secrets)"
                               ) == [{}]
    play_turns((host, guest), 2)
    check_rolls(host, guest)
    assert host.board() == guest.board()
    guest.screenshot("online-after-reload")


def test_a_page_says_so_when_a_reveal_or_the_dice_do_not_check_out(
        open_page: Callable[..., OnlinePage]) -> None:
    """Playwright stands in for a dishonest relay: Alice's page gets Bob's opening reveal with
    a changed secret, Bob's page gets the opening roll with changed dice. Each page says so."""

    def tamper(kind: str) -> Callable[[Any], None]:
        def route(ws: Any) -> None:
            server = ws.connect_to_server()

            def to_page(message: str | bytes) -> None:
                if isinstance(message, str):
                    event = json.loads(message)
                    if (kind == "reveal" and event["type"] == "reveal" and event["round"] == 1
                            and event["color"] == "black"):
                        flipped = "0" if event["secret"][0] != "0" else "1"
                        event["secret"] = flipped + event["secret"][1:]
                        message = json.dumps(event)
                    if kind == "dice" and event["type"] == "rolled" and event["round"] == 1:
                        event["dice"] = [7 - event["dice"][0], 7 - event["dice"][1]]
                        message = json.dumps(event)
                ws.send(message)

            server.on_message(to_page)
        return route

    host = open_page(route=tamper("reveal"))
    link = host.create(name="Alice", cube=False)
    guest = open_page(route=tamper("dice"), path=None)
    guest.join_by_link(link, name="Bob")
    settle(host, guest)
    assert host.visible("#online-alarm")
    assert host.text("#online-alarm") == (
        "Bob's revealed secret for round 1 does not match the commitment it sent: these dice "
        "cannot be trusted.")
    entry = host.dice_log()[0]
    assert entry["check"] == "ok"  # the roll itself (from the server's secrets) checks out
    assert guest.visible("#online-alarm")
    bad = guest.dice_log()[0]
    assert bad["check"] == "failed"
    real = dice_from_secrets(bytes.fromhex(bad["white"]), bytes.fromhex(bad["black"]), 1)
    sent = [7 - real[0], 7 - real[1]]
    assert guest.text("#online-alarm") == (
        f"Round 1: the dice do not check out: the server announced {sent[0]}-{sent[1]} but the "
        f"secrets give {real[0]}-{real[1]}.")
    if len(guest.dice_log()) == 1:  # (a tie's next round checks out)
        assert guest.page.get_attribute("#online-dice-check", "data-check") == "failed"
    guest.screenshot("online-dice-alarm")


def test_the_host_comes_back_by_its_invite_link_and_the_old_tab_says_so(
        open_page: Callable[..., OnlinePage]) -> None:
    host, guest = start_room(open_page, cube=False)
    link = host.page.input_value("#online-link")
    code = host.text("#online-code")
    # The host, in another tab of the same browser, opens the only link it has: the guest
    # has joined, so the tab goes back to the host's seat instead of offering to join.
    again = OnlinePage(host.page.context.new_page(), host.server, host.base)
    again.page.goto(link)
    again.page.wait_for_function("() => document.body.dataset.onlineSeat === 'host'")
    again.wait_idle()
    assert again.page.evaluate("location.hash") == f"#online={code}"
    assert not again.visible("#online-dialog")
    assert again.board() == guest.board()
    # The first tab stepped aside, and says so (not the game's status line).
    host.page.wait_for_function("() => document.body.dataset.online === 'replaced'")
    expected = ("This game was opened in another window or tab; this one stepped aside. "
                "Reload this page to play here again.")
    assert host.text("#status") == expected
    time.sleep(0.3)  # the socket's close comes after the refusal: the words stay
    assert host.text("#status") == expected
    assert host.text("#online-connection") == "Not connected."
    assert again.errors == []


def test_over_plain_http_on_the_lan_join_by_code_timed_match_and_the_opponent_leaving(
        open_page: Callable[..., OnlinePage]) -> None:
    """Both pages reach the server by a LAN name over plain HTTP: no secure context, no
    WebCrypto; the dice still run and check out (vendored SHA-256)."""
    host = open_page(lan=True)
    assert host.page.evaluate("() => [window.isSecureContext, Boolean(crypto.subtle)]") == [
        False, False]
    link = host.create(name="Alice", cube=True, clock="blitz", match=3)
    code = host.text("#online-code")
    assert link == f"http://{LAN_NAME}:{host.server.port}/#join={code}"
    assert not host.visible("#online-link-hint")  # (shown only on localhost)
    guest = open_page(lan=True, viewport=(360, 740))  # Bob is on his phone
    guest.close_new_game_dialog()
    guest.page.click("#menu-button")  # on a phone the header's buttons open from its menu
    guest.page.click("#online-button")
    guest.page.check("input[name=online-mode][value=join]")
    guest.page.fill("#online-code-input", f"  {code} ")
    guest.page.fill("#online-name", "Bob")
    guest.page.click("#online-submit")
    settle(host, guest)
    assert guest.color == "black"
    for online in (host, guest):
        assert online.visible("#online-clocks")
        assert not online.visible("#clocks")
        assert online.text("#online-clocks .clock-caption") == (
            "Blitz: 3 min + 4 s a turn (the server keeps the time)")
        assert online.text("#score-caption") == "Match to 3 points · game 1"
        running = online.page.eval_on_selector_all(
            "#online-clocks .clock.running", "nodes => nodes.map(n => n.dataset.color)")
        assert running == [online.data("turn")]
        for color in ("white", "black"):
            shown = online.text(f"#online-clock-{color}")
            minutes, seconds = shown.split(":")
            assert minutes in ("2", "3") and 0 <= float(seconds) < 60
    play_turns((host, guest), 1)
    check_rolls(host, guest)
    assert guest.page.evaluate("document.documentElement.scrollWidth") <= 360
    guest.screenshot("online-phone")
    guest.page.click("#online-leave")
    host.page.wait_for_function(
        "() => document.getElementById('online-opponent').dataset.status === 'left'")
    settle(host)
    assert host.text("#online-opponent") == "Bob has left the game."
    assert host.data("onlinePhase") == "closed"
    assert host.text("#result-title") == "Room closed"
    assert host.text("#result-text") == "Bob (black) left the room."
    assert not host.visible("#roll-button") and not host.visible("#resign-button")
    assert guest.visible("#new-game-dialog") and not guest.visible("#online-panel")
    assert guest.page.evaluate("location.hash") == ""
    host.screenshot("online-opponent-left")


#: The vectors of tests/core/test_dice.py and tests/server/test_fairdice_js.py.
VECTORS = [
    (bytes(32), bytes([1]) * 32, 0),
    (bytes(32), bytes([1]) * 32, 1),
    (bytes([1]) * 32, bytes(32), 2),
    (bytes([44]) * 32, bytes(32), 0),  # skips a 0xFF byte
    (bytes([28]) * 32, bytes(32), 82),  # skips three bytes >= 252
    (bytes(range(32)), bytes(range(32, 64)), 2**40 + 7),
]


def test_the_browser_derives_the_python_dice(open_page: Callable[..., OnlinePage]) -> None:
    rng = random.Random(8)
    cases = [*VECTORS, *((rng.randbytes(32), rng.randbytes(32), rng.randrange(2**40))
                         for _ in range(40))]
    online = open_page()
    answers = online.page.evaluate(
        """async (cases) => {
          const m = await import("/static/js/fairdice.js");
          return cases.map(([a, b, n]) => {
            const [x, y] = [m.fromHex(a), m.fromHex(b)];
            return [m.diceFromSecrets(x, y, n), m.commitment(x),
                    m.verifyCommitment(y, m.commitment(x))];
          });
        }""",
        [[a.hex(), b.hex(), n] for a, b, n in cases],
    )
    assert answers[0][0] == [4, 3]
    assert answers[3][0] == [1, 3]
    assert answers[4][0] == [4, 6]
    for (a, b, n), (dice, digest, crossed) in zip(cases, answers, strict=True):
        assert dice == list(dice_from_secrets(a, b, n)), (a.hex(), b.hex(), n)
        assert digest == commitment(a)
        assert crossed is (a == b)
    assert online.page.evaluate("() => window.isSecureContext") is True  # localhost


def test_after_a_server_restart_the_pages_reconnect_say_so_and_play_on(
        open_page: Callable[..., OnlinePage], server: ServerProcess,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # this door's own restart: its rooms stay with it (not moved to the shared door at start,
    # services/room_migration.py)
    monkeypatch.setenv("BACKGAMMON_KEEP_OLD_ROOMS", "1")
    host, guest = start_room(open_page, cube=True)
    play_turns((host, guest), 2)
    board, history = host.board(), host.history()
    server.stop()  # SIGTERM: the rooms are in the database, the pages keep trying
    for online in (host, guest):
        online.page.wait_for_function("() => document.body.dataset.online === 'reconnecting'")
        assert online.text("#online-connection") == "Connection lost: reconnecting…"
    host.page.wait_for_timeout(1500)  # a few attempts fail while the server is down
    server.start()
    for online in (host, guest):
        online.page.wait_for_function(
            "() => document.getElementById('online-connection').textContent === "
            "'The server restarted; reconnected.'", timeout=30_000)
    settle(host, guest)
    assert host.board() == board == guest.board()
    assert host.history() == history
    play_turns((host, guest), 2)
    check_rolls(host, guest)
    assert host.board() == guest.board()
    guest.screenshot("online-after-server-restart")


def test_both_players_analyse_the_finished_online_game(
        open_page: Callable[..., OnlinePage]) -> None:
    """Issue 15: the analysis of a finished online game is there for both players (the room's
    .mat transcript, analysed by the server as an opened file would be); while the game is
    played, Analyze says it comes once the game is over and asks the server nothing."""
    host, guest = start_room(open_page, cube=False)
    play_turns((host, guest), 4)
    asked: list[str] = []
    host.page.on("request", lambda r: asked.append(r.url) if "/api/analysis" in r.url else None)
    # while the game is played Analyze is off, and says when it comes
    assert host.page.is_disabled("#analyze-button")
    assert "once the game is over" in (host.page.get_attribute("#analyze-button", "title") or "")
    assert asked == []
    resigner = host if host.visible("#resign-button") else guest
    other = guest if resigner is host else host
    assert resigner.visible("#resign-button")
    resigner.page.click("#resign-button")
    resigner.page.click("#resign-dialog [data-resign=single]")
    settle(host, guest)
    other.page.click("#online-accept-button")
    settle(host, guest)
    for online in (host, guest):
        assert online.visible("#result")
    # Each browser's record counts the online game, as the room refereed it (issue 18).
    for online, won in ((resigner, 0), (other, 1)):
        online.page.wait_for_function(
            "async () => (await (await fetch('/api/stats?browser=' + localStorage.getItem("
            "'backgammon.browser'))).json()).total.games === 1")
        stats = online.page.evaluate(
            "async () => (await fetch('/api/stats?browser=' + localStorage.getItem("
            "'backgammon.browser'))).json()")
        online_row = [r for r in stats["by_opponent"] if r["opponent"] == "online"]
        assert online_row and online_row[0]["games"] == 1 and online_row[0]["won"] == won
    for online in (host, guest):
        online.page.click("#analyze-button")
    for online in (host, guest):
        online.page.wait_for_selector('#analysis-panel[data-state="done"]', timeout=240_000)
        names = online.page.eval_on_selector_all(
            "#analysis-summary th[data-player]", "cells => cells.map(c => c.dataset.player)")
        assert sorted(names) == ["Alice", "Bob"]
        # the moves of the game are marked or not in the move list: one line per turn played
        assert online.page.locator("#analysis-graph svg circle.win-point").count() >= 4


def test_no_hints_while_the_online_game_is_played_then_hints_in_its_review(
        open_page: Callable[..., OnlinePage]) -> None:
    """Issue 15: during a game against a person the hints panel says there are none, and
    reviewing the game in progress shows none and asks the server for no evaluation (the
    room's view says ``hints`` False); once the game is over (a resignation), the panel says
    hints are back and the review shows the computer's evaluation of a turn. No console
    errors."""
    from backgammon.core.position import Position
    from backgammon.core.xgid import Xgid
    from backgammon.services.analysis_jobs import position_evaluation

    host, guest = start_room(open_page, cube=True)
    errors = {online.color: console_errors(online.page) for online in (host, guest)}
    play_turns((host, guest), 2)
    watcher = guest
    page = watcher.page
    asked: list[tuple[str, str]] = []
    page.on("request", lambda r: asked.append((r.url, r.post_data or ""))
            if "evaluation" in r.url or r.url.endswith("/hints") else None)
    none = "No hints in a game against a person until the game is over."
    assert watcher.visible("#hints-panel") and watcher.text("#hints-text") == none
    assert page.locator("#board.hints").count() == 0  # not even the movable checkers marked

    def review_opening_play() -> None:
        page.click("#review-button")
        page.wait_for_selector("body.reviewing")
        page.click("#review-first")
        page.click("#review-next")
        page.wait_for_function("() => document.body.dataset.reviewIndex === '1'")
        page.wait_for_selector('#hints-panel[data-for^="review:1:0:"]')

    review_opening_play()
    assert watcher.text("#hints-text") == none and watcher.text("#hints-eval") == ""
    page.wait_for_timeout(600)  # well past the moment the panel would ask (120 ms)
    page.click("#review-next")
    page.wait_for_function("() => document.body.dataset.reviewIndex === '2'")
    page.wait_for_timeout(600)
    assert watcher.text("#hints-text") == none and asked == []
    page.click("#review-exit")
    settle(host, guest)

    resigner = host if host.visible("#resign-button") else guest
    other = guest if resigner is host else host
    resigner.page.click("#resign-button")
    resigner.page.click("#resign-dialog [data-resign=single]")
    settle(host, guest)
    assert asked == []  # the game was still on until the resignation was accepted
    other.page.click("#online-accept-button")
    settle(host, guest)
    page.wait_for_function("() => document.getElementById('hints-text').textContent"
                           ".startsWith('The game is over: hints are back.')")

    review_opening_play()
    page.wait_for_selector('#hints-eval[data-kind="plays"] #hints-ranked tr[data-play]',
                           timeout=60_000)
    posted = [json.loads(body)["position"] for url, body in asked
              if url.endswith("/api/positions/evaluation")]
    assert len(posted) == 1 and not [url for url, _ in asked if "/api/games/" in url]
    xgid = Xgid.parse(posted[0])  # the opening position, the opening roll, money play
    assert list(xgid.position.points) == list(Position.start().points)
    assert xgid.dice is not None and sorted(xgid.dice) == sorted(watcher.dice())
    assert (xgid.match_length, xgid.cube_value, xgid.cube_owner) == (0, 1, None)
    assert ranked_rows(page) == expected_rows(position_evaluation(xgid))
    watcher.screenshot("online-review-hints")
    assert errors == {host.color: [], guest.color: []}
