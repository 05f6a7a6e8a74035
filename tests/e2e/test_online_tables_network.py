"""Online backgammon at the shared door (js/online_tables.js, js/room_client.js) when the
network or the server gets in the way, in real browsers against ``backgammon serve``: a
dropped connection comes back by itself; a page reloaded between its commitment and its
reveal still throws the dice its commitment fixed; a relay that changes a secret is caught;
the host opening its own invite link in another tab takes the seat there and the old tab
says it stepped aside; over plain HTTP on a LAN name (no secure context, no WebCrypto) a
friend on a phone joins by the code, a timed match runs its clocks, and the friend leaving
closes the room; after a server restart both pages reconnect, say so, and play on.
Playwright stands between a page and the server where a test needs it (``route_web_socket``).
Screenshots go to ``test-artifacts/e2e/tables-net-*.png``."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from browser_support import ARTIFACTS, ServerProcess, launched_chromium, served
from test_online_tables_backgammon import (
    SETTINGS,
    SETTLE_TIMEOUT,
    Player,
    check_rolls,
    mover,
    play_turn,
    settle,
)

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
Browser = sync_api.Browser

#: A name the browser resolves to 127.0.0.1: a page there is on plain HTTP and not localhost,
#: so it has no secure context and no WebCrypto, as for a friend on the LAN.
LAN_NAME = "backgammon-lan.test"
Route = Callable[[Any], None]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium((f"--host-resolver-rules=MAP {LAN_NAME} 127.0.0.1",))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "tables-net-server")


@pytest.fixture
def open_at(browser: Browser, server: ServerProcess) -> Iterator[Callable[..., Player]]:
    """``open_at(path="/", route=None, lan=False, viewport=(1280, 900))``: a person's page
    (a browser context of its own) on ``path`` (None: nowhere yet); ``route`` handles its
    WebSockets; ``lan``: the server by :data:`LAN_NAME`, not localhost."""
    contexts: list[Any] = []
    players: list[Player] = []

    def open_(path: str | None = "/", route: Route | None = None, lan: bool = False,
              viewport: tuple[int, int] = (1280, 900)) -> Player:
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        settings = json.dumps(json.dumps(SETTINGS))
        context.add_init_script(f"localStorage.setItem('backgammon.settings', {settings});")
        contexts.append(context)
        page = context.new_page()
        if route is not None:
            page.route_web_socket("**/ws/rooms/*", route)
        base = f"http://{LAN_NAME}:{server.port}" if lan else server.url
        player = Player(page, base)
        if path is not None:
            page.goto(base + path)
        players.append(player)
        return player

    yield open_
    for player in players:
        # (a page on a plain-HTTP LAN name is told its COOP header does not apply there)
        errors = [e for e in player.errors if "Cross-Origin-Opener-Policy" not in e]
        assert errors == [], errors
    for context in contexts:
        context.close()


def create(player: Player, *, kind: str = "single", length: int = 0, cube: bool = False,
           clock: str = "none", name: str = "Alice") -> str:
    """Make a room from the open New game dialog; the invite link."""
    page = player.page
    page.wait_for_selector("#new-game-dialog[open]")
    page.click("#new-game-online")
    page.check("input[name=online-mode][value=create]")
    page.select_option("#online-kind", kind)
    if length:
        page.fill("#online-length", str(length))
    page.set_checked("#online-cube", cube)
    page.select_option("#online-clock", clock)
    page.fill("#online-name", name)
    page.click("#online-submit")
    player.wait_idle()
    return page.input_value("#online-link")


def join(player: Player, link: str, name: str = "Bob") -> None:
    page = player.page
    page.goto(link)
    page.wait_for_selector("#online-dialog[open]")
    page.wait_for_function(
        "() => document.getElementById('online-room-info').textContent.length > 0")
    page.fill("#online-name", name)
    page.click("#online-submit")


def take_turn(a: Player, b: Player) -> None:
    """The player on roll rolls (by the button) and plays, or the roll passes."""
    first, _ = mover(a, b)
    if first.visible("#roll-button"):
        first.page.click("#roll-button")
        settle(a, b)
    now, other = mover(a, b)
    if now is first and now.data("phase") == "move" and now.movable():
        play_turn(now, other)


def shot(player: Player, name: str) -> None:
    player.page.screenshot(path=str(ARTIFACTS / f"tables-net-{name}.png"), full_page=True,
                           animations="disabled")


def test_a_dropped_connection_comes_back_and_a_reload_mid_roll_throws_the_fixed_dice(
        open_at: Callable[..., Player]) -> None:
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

    alice = open_at()
    link = create(alice)
    bob = open_at(None, route=route)
    join(bob, link)
    settle(alice, bob)
    # The network drops Bob's connection: his page reconnects by itself with its seat token.
    board = bob.board()
    links["server"].close()
    links["page"].close(code=1001, reason="network gone")
    bob.page.wait_for_function("() => document.body.dataset.online === 'reconnecting'")
    assert bob.text("#online-connection") == "Connection lost: reconnecting…"
    settle(alice, bob)
    assert bob.data("online") == "open" and bob.text("#online-connection") == "Connected."
    assert alice.text("#online-opponent") == "Playing Bob (black)."
    assert bob.board() == board == alice.board()

    # Mid-roll: Bob commits, Alice's page answers with its secret, his reveal is held back;
    # he reloads. The secret kept in his tab finishes the round with the dice it fixed.
    for _ in range(20):
        if mover(alice, bob)[0] is bob and bob.visible("#roll-button"):
            break
        take_turn(alice, bob)
    else:
        raise AssertionError("Bob never came to roll")
    rounds = len(bob.dice_log())
    hold["reveal"] = True
    bob.page.click("#roll-button")
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while not held and time.monotonic() < deadline:
        bob.page.wait_for_timeout(20)
    assert len(held) == 1
    reveal = json.loads(held[0])
    assert bob.data("onlineIdle") == "0"  # the round waits on his reveal
    hold["reveal"] = False
    bob.page.reload()
    settle(alice, bob)
    last = check_rolls(bob)[-1]  # (a reloaded page lists the rounds since its reload)
    assert (int(last["round"]), last["roller"], last["black"]) == (
        reveal["round"], "black", reveal["secret"])
    assert check_rolls(alice)[-1]["black"] == reveal["secret"]
    assert len(alice.dice_log()) >= rounds + 1
    assert bob.dice() == alice.dice()
    for _ in range(2):
        take_turn(alice, bob)
    assert alice.board() == bob.board()
    shot(bob, "1-after-reload")


def test_a_page_says_so_when_a_secret_does_not_match_its_commitment(
        open_at: Callable[..., Player]) -> None:
    """Playwright stands in for a dishonest relay: Alice's page gets the opening round with
    Bob's secret changed. Her page says the round cannot be trusted."""
    changed: list[int] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def to_page(message: str | bytes) -> None:
            if isinstance(message, str) and not changed:
                frame = json.loads(message)
                round_ = frame.get("round")
                if isinstance(round_, dict) and round_.get("secrets", {}).get("black"):
                    secret = round_["secrets"]["black"]
                    round_["secrets"]["black"] = ("0" if secret[0] != "0" else "1") + secret[1:]
                    changed.append(round_["number"])
                    message = json.dumps(frame)
            ws.send(message)

        ws.on_message(server.send)
        server.on_message(to_page)

    alice = open_at(route=route)
    link = create(alice)
    bob = open_at(None)
    join(bob, link)
    alice.page.wait_for_selector("#online-alarm:not([hidden])")
    settle(alice, bob)
    number = changed[0]
    assert alice.text("#online-alarm") == (
        f"Round {number}: black's secret does not match its commitment.")
    entry = next(e for e in alice.dice_log() if e["round"] == str(number))
    true = next(e for e in bob.dice_log() if e["round"] == str(number))
    assert entry["black"] != true["black"] and entry["white"] == true["white"]
    # the entry fails on the commitment alone, even where the changed secret happens to give
    # the board's dice or the board shows none (an opening tie, thrown again)
    assert entry["check"] == "failed"
    assert entry["text"] == f"Round {number}: black's secret does not match its commitment."
    assert all(e["check"] == "ok" for e in bob.dice_log())  # Bob's page saw the true round
    assert not bob.visible("#online-alarm")
    shot(alice, "2-dice-alarm")


def test_the_host_opening_its_invite_link_in_another_tab_takes_the_seat_there(
        open_at: Callable[..., Player]) -> None:
    alice = open_at()
    link = create(alice)
    bob = open_at(None)
    join(bob, link)
    settle(alice, bob)
    code = alice.text("#online-code")
    # Alice, in another tab of the same browser, opens the only link she has: her seat is
    # kept in this browser, so the tab goes back to it instead of offering to join.
    again = Player(alice.page.context.new_page(), alice.base)
    again.page.goto(link)
    again.page.wait_for_function("() => document.body.dataset.onlineYou === 'white'")
    again.wait_idle()
    assert again.page.evaluate("location.hash") == f"#online={code}"
    assert not again.visible("#online-dialog")
    assert again.board() == bob.board()
    # the first tab stepped aside, and says so
    alice.page.wait_for_function("() => document.body.dataset.online === 'replaced'")
    assert alice.text("#online-connection") == (
        "This game was opened in another window or tab; this one stepped aside. Reload this "
        "page to play here again.")
    time.sleep(0.3)  # the socket's close comes after the refusal: the words stay
    assert alice.data("online") == "replaced"
    assert again.errors == []


def test_over_plain_http_on_the_lan_a_phone_joins_by_code_a_timed_match_and_a_leave(
        open_at: Callable[..., Player]) -> None:
    """Both pages reach the server by a LAN name over plain HTTP: no secure context, no
    WebCrypto; the dice still run and check out (room_client.js's vendored SHA-256)."""
    alice = open_at(lan=True)
    assert alice.page.evaluate("() => [window.isSecureContext, Boolean(crypto.subtle)]") == [
        False, False]
    link = create(alice, kind="match", length=3, cube=True, clock="blitz")
    code = alice.text("#online-code")
    assert link == f"{alice.base}/#join={code}"
    assert not alice.visible("#online-link-hint")  # (shown only on localhost)
    alice.page.click("#online-copy")  # no clipboard here: the link is selected instead
    assert alice.text("#online-copy-status") in (
        "Link copied.", "The link is selected: copy it with Ctrl+C.")
    bob = open_at(lan=True, viewport=(360, 740))  # Bob is on his phone
    bob.page.wait_for_selector("#new-game-dialog[open]")
    bob.page.click("#new-game-cancel")
    bob.page.click("#menu-button")  # on a phone the header's buttons open from its menu
    bob.page.click("#online-button")
    bob.page.check("input[name=online-mode][value=join]")
    bob.page.fill("#online-code-input", f"  {code} ")
    bob.page.locator("#online-code-input").dispatch_event("change")
    bob.page.wait_for_function(
        "() => document.getElementById('online-room-info').textContent.length > 0")
    assert bob.text("#online-room-info") == (
        "Alice invites you to a match to 3, with the cube, blitz clock. Every wait is on the "
        "clock of the side that must act.")
    bob.page.fill("#online-name", "Bob")
    bob.page.click("#online-submit")
    settle(alice, bob)
    assert bob.color == "black"
    for player in (alice, bob):
        assert player.visible("#online-clocks") and not player.visible("#clocks")
        assert player.text("#online-clocks .clock-caption") == (
            "Blitz: 3 min + 4 s a turn (the server keeps the time)")
        assert player.text("#score-caption") == "Match to 3 points · game 1"
        for color in ("white", "black"):
            minutes, seconds = player.text(f"#online-clock-{color}").split(":")
            assert minutes in ("2", "3") and 0 <= float(seconds) < 60
    first, second = mover(alice, bob)
    play_turn(first, second)
    check_rolls(alice)
    check_rolls(bob)
    assert bob.page.evaluate("document.documentElement.scrollWidth") <= 360
    shot(bob, "3-phone")
    # Bob leaves the match in play: he forfeits it, and the room is closed to Alice
    bob.page.click("#online-leave")
    alice.page.wait_for_function("() => document.body.dataset.onlinePhase === 'closed'")
    alice.wait_idle()
    assert alice.text("#online-note") == "Room closed: Bob (black) left the room."
    assert alice.text("#online-opponent") == "Bob has left the game."
    assert "by forfeit: Bob left the game." in alice.text("#result-text")
    assert not alice.visible("#roll-button") and not alice.visible("#resign-button")
    assert not alice.visible("#rematch-button")
    assert bob.visible("#new-game-dialog") and not bob.visible("#online-panel")
    assert bob.page.evaluate("location.hash") == ""
    shot(alice, "4-opponent-left")


def test_after_a_server_restart_the_pages_reconnect_say_so_and_play_on(
        open_at: Callable[..., Player], server: ServerProcess) -> None:
    alice = open_at()
    link = create(alice, cube=True)
    bob = open_at(None)
    join(bob, link)
    settle(alice, bob)
    for _ in range(2):
        take_turn(alice, bob)
    board, history = alice.board(), alice.history()
    server.stop()  # SIGTERM: the rooms are in the database, the pages keep trying
    for player in (alice, bob):
        player.page.wait_for_function("() => document.body.dataset.online === 'reconnecting'")
        assert player.text("#online-connection") == "Connection lost: reconnecting…"
    alice.page.wait_for_timeout(1500)  # a few tries fail while the server is down
    server.start()
    for player in (alice, bob):
        player.page.wait_for_function(
            "() => document.getElementById('online-connection').textContent === "
            "'The server restarted; reconnected.'", timeout=30_000)
    settle(alice, bob)
    for player in (alice, bob):  # the tries while the server was down are the console's
        player.errors[:] = [e for e in player.errors if "ERR_CONNECTION_REFUSED" not in e]
    assert alice.board() == board == bob.board()
    assert alice.history() == history
    for _ in range(2):
        take_turn(alice, bob)
    check_rolls(alice)
    assert alice.board() == bob.board()
    shot(bob, "5-after-server-restart")
