"""Backgammon online through the shared table's door (the default: js/online_tables.js with
js/room_client.js, ``/api/rooms`` and ``/ws/rooms``), in two real browsers: the invite, the
opening roll thrown by both pages' commit-reveal round, a play built checker by checker and sent
whole, a double and a take, a reload mid-game that comes back to the same position, a
resignation accepted that ends the match, then a rematch with the sides swapped. Every roll in
the pages' fair-dice logs is checked against the engine's derivation; every page is watched for
console errors. Screenshots go to ``test-artifacts/e2e/tables-bg-*.png``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_support import ARTIFACTS, ServerProcess, console_errors, launched_chromium, served

from backgammon.core.dice import dice_from_secrets

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser
Page = sync_api.Page

SETTINGS = {"speed": "instant", "theme": "light"}
SETTLE_TIMEOUT = 15.0


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "tables-bg-server")


class Player:
    """One person's page."""

    def __init__(self, page: Page, base: str) -> None:
        self.page = page
        self.base = base
        self.errors = console_errors(page)
        page.on("pageerror", lambda error: self.errors.append(f"{error}\n{error.stack}"))

    def data(self, name: str) -> str:
        return str(self.page.evaluate("(n) => document.body.dataset[n] || ''", name))

    @property
    def idle(self) -> bool:
        return self.data("onlineIdle") == "1"

    @property
    def seq(self) -> int:
        return int(self.data("onlineSeq") or 0)

    @property
    def color(self) -> str:
        return self.data("onlineYou")

    def visible(self, selector: str) -> bool:
        return self.page.locator(selector).is_visible()

    def text(self, selector: str) -> str:
        return self.page.inner_text(selector).strip()

    def board(self) -> list[tuple[str, str]]:
        items = self.page.eval_on_selector_all(
            "#board .checker", "nodes => nodes.map(n => [n.dataset.color, n.dataset.point])")
        return sorted((color, where) for color, where in items)

    def dice(self) -> list[int]:
        items = self.page.eval_on_selector_all(
            "#board .die", "ns => ns.map(n => Number(n.dataset.value))")
        return [int(v) for v in items]

    def history(self) -> list[str]:
        return [t.strip() for t in self.page.locator("#move-list li").all_inner_texts()]

    def dice_log(self) -> list[dict[str, str]]:
        items: list[dict[str, str]] = self.page.eval_on_selector_all(
            "#online-dice-list li", "ns => ns.map(n => ({...n.dataset, text: n.textContent}))")
        return items

    def movable(self) -> list[str]:
        items = self.page.eval_on_selector_all(
            "#board.interactive .checker.top.movable", "ns => ns.map(n => n.dataset.point)")
        return [str(p) for p in items]

    def click_move(self, source: str) -> None:
        page = self.page
        ring = f'#board .landing-ring[data-from="{source}"]'
        if not page.locator(ring).count():
            page.click(f'#board .checker.top.movable[data-point="{source}"]')
        page.locator(ring).first.click()

    def wait_idle(self, timeout: float = SETTLE_TIMEOUT) -> None:
        self.page.wait_for_function("() => document.body.dataset.onlineIdle === '1'",
                                    timeout=timeout * 1000)

    def screenshot(self, name: str) -> Path:
        path = ARTIFACTS / f"tables-bg-{name}.png"
        self.page.screenshot(path=str(path), full_page=True, animations="disabled")
        return path


@pytest.fixture
def open_player(browser: Browser, server: ServerProcess) -> Iterator[Callable[..., Player]]:
    contexts: list[Any] = []
    players: list[Player] = []

    def open_(path: str | None = "/") -> Player:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        settings = json.dumps(json.dumps(SETTINGS))
        context.add_init_script(f"localStorage.setItem('backgammon.settings', {settings});")
        contexts.append(context)
        player = Player(context.new_page(), server.url)
        if path is not None:
            player.page.goto(server.url + path)
        players.append(player)
        return player

    yield open_
    for player in players:
        assert player.errors == [], player.errors
    for context in contexts:
        context.close()


def settle(*players: Player, timeout: float = SETTLE_TIMEOUT) -> int:
    """Both pages idle on the same room version (and still so a moment later)."""
    deadline = time.monotonic() + timeout
    agreed = None
    while time.monotonic() < deadline:
        for player in players:
            player.wait_idle(timeout=max(0.1, deadline - time.monotonic()))
        seqs = {player.seq for player in players}
        if len(seqs) == 1 and all(player.idle for player in players):
            seq = seqs.pop()
            if agreed == seq:
                return seq
            agreed = seq
            time.sleep(0.1)
        else:
            agreed = None
            time.sleep(0.05)
    raise AssertionError(f"no agreement: {[p.seq for p in players]} {[p.idle for p in players]}")


def check_rolls(player: Player) -> list[dict[str, str]]:
    """Every roll in the page's log checked out there and its secrets give its dice."""
    log = player.dice_log()
    for entry in log:
        assert entry["check"] == "ok", entry["text"]
        white, black = bytes.fromhex(entry["white"]), bytes.fromhex(entry["black"])
        first, second = (black, white) if entry["roller"] == "black" else (white, black)
        expected = dice_from_secrets(first, second, int(entry["round"]))
        assert [int(d) for d in entry["dice"].split(",")] == list(expected), entry
    return log


def mover(*players: Player) -> tuple[Player, Player]:
    """The page whose turn it is, and the other."""
    for player in players:
        if player.data("turn") == player.color:
            return player, next(p for p in players if p is not player)
    raise AssertionError("nobody is on roll")


def play_turn(player: Player, other: Player) -> str:
    """Move checkers (the first offered each time) until the play is whole, then Done; returns
    the play's line in the move list."""
    before = len(other.history())
    for _ in range(4):
        if player.visible("#done-button"):
            break
        sources = player.movable()
        assert sources, player.text("#status")
        player.click_move(sources[0])
        player.wait_idle()
    assert player.visible("#done-button") and player.visible("#undo-button")
    player.page.click("#done-button")
    settle(player, other)
    lines = other.history()
    assert len(lines) > before
    return lines[-1]


def test_a_match_at_the_shared_door_double_take_reload_resign_rematch(
        open_player: Callable[..., Player], server: ServerProcess) -> None:
    alice = open_player()
    alice.page.wait_for_selector("#new-game-dialog[open]")
    claims = "p.online-small.online-create-only"  # the online rules' note
    assert not alice.page.locator(f"#new-game-dialog {claims}").count()  # not for local games
    alice.page.click("#new-game-online")
    alice.page.check("input[name=online-mode][value=create]")
    assert alice.page.locator(f"#online-dialog {claims}").is_visible()
    alice.page.select_option("#online-kind", "match")
    alice.page.fill("#online-length", "2")
    alice.page.set_checked("#online-cube", True)
    alice.page.fill("#online-name", "Alice")
    alice.page.click("#online-submit")
    alice.wait_idle()
    code = alice.text("#online-code")
    link = alice.page.input_value("#online-link")
    assert len(code) == 8 and link == f"{server.url}/#join={code}"  # the default door's
    assert alice.text("#status") == "Waiting for your friend to join: send them the invite link."
    assert alice.data("onlinePhase") == "waiting" and alice.color == "white"
    room = server.get(f"/api/rooms/{code}")
    assert room["game"] == "backgammon" and room["open"] is True
    assert room["settings"] == {"length": 2, "cube": True, "gammons": True, "jacoby": False,
                                "beavers": False, "single": False}
    alice.screenshot("1-invite")

    bob = open_player(None)
    bob.page.goto(link)
    bob.page.wait_for_selector("#online-dialog[open]")
    bob.page.wait_for_function(
        "() => document.getElementById('online-room-info').textContent.length > 0")
    assert bob.text("#online-room-info") == (
        "Alice invites you to a match to 2, with the cube, no clock. A player who is gone "
        "(disconnected for 2 minutes, or thinking for 10 in one turn) can be claimed against: "
        "the other wins.")
    bob.page.fill("#online-name", "Bob")
    bob.page.click("#online-submit")
    settle(alice, bob)  # the opening roll threw itself: both pages played its round
    assert bob.color == "black" and alice.data("onlinePhase") == "playing"
    assert alice.text("#online-opponent") == "Playing Bob (black)."
    assert bob.text("#online-opponent") == "Playing Alice (white)."
    assert alice.text("#score-white .name") == "Alice (you)"
    assert alice.text("#score-black .name") == "Bob"
    log = check_rolls(alice)
    assert log and log[-1]["opening"] == "true"
    assert [e["round"] for e in check_rolls(bob)] == [e["round"] for e in log]
    first, second = mover(alice, bob)
    opening = sorted(int(d) for d in log[-1]["dice"].split(","))
    assert first.dice() and sorted(first.dice()) == opening
    first.screenshot("2-opening")

    # a play built checker by checker, sent whole; the other page names its player
    name = {"white": "Alice", "black": "Bob"}
    line = play_turn(first, second)
    assert line.startswith(f"{name[first.color]} ") and ": " in line, line

    # the second player doubles, the first takes
    assert second.visible("#double-button") and second.visible("#roll-button")
    second.page.click("#double-button")
    settle(alice, bob)
    assert first.visible("#take-button") and first.visible("#drop-button")
    status = first.text("#status")
    assert status.startswith(f"{name[second.color]} doubles to 2"), status
    assert second.text("#status").startswith("You double to 2"), second.text("#status")
    first.screenshot("3-double")
    first.page.click("#take-button")
    settle(alice, bob)
    assert second.history()[-1] == f"{name[first.color]} takes"
    assert second.visible("#roll-button") and not second.visible("#double-button")
    second.page.click("#roll-button")
    settle(alice, bob)
    assert second.data("phase") == "move"
    check_rolls(second)

    # a reload mid-game comes back to the same position, dice and move list
    board, dice, lines = second.board(), second.dice(), second.history()
    second.page.reload()
    settle(alice, bob)
    assert second.board() == board and second.dice() == dice and second.history() == lines
    assert second.color == ("white" if second is alice else "black")
    second.screenshot("4-reloaded")

    # the player on move resigns a single game (the cube at 2: the match's 2 points)
    second.page.click("#resign-button")
    second.page.click('#resign-dialog button[value="single"]')
    settle(alice, bob)
    assert first.visible("#online-accept-button") and first.visible("#online-decline-button")
    first.page.click("#online-accept-button")
    settle(alice, bob)
    assert first.text("#result-title") == "You win the match"
    assert second.text("#result-title") == f"{name[first.color]} wins the match"
    assert first.visible("#rematch-button") and second.visible("#rematch-button")
    first.screenshot("5-result")

    # the rematch: both ask, the sides swap, the opening roll throws itself again
    colors = {id(p): p.color for p in (alice, bob)}
    first.page.click("#rematch-button")
    settle(alice, bob)
    assert not first.visible("#rematch-button")
    assert second.text("#online-note") == f"{name[first.color]} asks for a rematch."
    second.page.click("#rematch-button")
    settle(alice, bob)
    for player in (alice, bob):
        assert player.color != colors[id(player)]
        assert player.text("#online-note") == f"Rematch: you play {player.color} this time."
        assert player.data("phase") in ("roll", "move")
        assert player.text("#result") == "" or not player.visible("#result")
    assert alice.text("#score-black .name") == "Alice (you)"
    check_rolls(alice)
    alice.screenshot("6-rematch")
