"""What backgammon's page gives a player online at the shared table's door
(js/online_tables.js), in real browsers, beside the game itself (test_online_tables_backgammon):
the live region hears each checker moved and the opponent's play; "why can't this checker go
there" answered for the turn built on the page; the review and the .mat export of the room's
match; the forfeit's words in the result box; an opponent who leaves closes the room ("Room
closed", no rematch), also when the game was over and after a reload (the room's
``room.left``); a link to a room its host left before anyone joined says so; the claim warning
counted down while the opponent is gone; auto-roll; the finished games in the browser's
record; the New game dialog's list of this browser's seats, with Return. Screenshots:
``test-artifacts/e2e/tables-page-*.png``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
import test_online_tables_backgammon
from browser_support import ARTIFACTS, ServerProcess
from test_online_tables_backgammon import (  # noqa: F401 - the fixtures
    Player,
    browser,
    mover,
    open_player,
    play_turn,
    server,
    settle,
)

pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")


def shot(player: Player, name: str) -> None:
    player.page.screenshot(path=str(ARTIFACTS / f"tables-page-{name}.png"), full_page=True,
                           animations="disabled")


def start(open_player: Callable[..., Player], *, length: int = 0, cube: bool = True,  # noqa: F811
          kind: str = "single", clock: str = "none") -> tuple[Player, Player, str]:
    """Alice makes a room from the New game dialog, Bob joins by the invite link; both pages
    settle after the opening roll. Returns (alice, bob, code)."""
    alice = open_player()
    page = alice.page
    page.wait_for_selector("#new-game-dialog[open]")
    page.click("#new-game-online")
    page.check("input[name=online-mode][value=create]")
    page.select_option("#online-kind", kind)
    if length:
        page.fill("#online-length", str(length))
    page.set_checked("#online-cube", cube)
    page.select_option("#online-clock", clock)
    page.fill("#online-name", "Alice")
    page.click("#online-submit")
    alice.wait_idle()
    link = page.input_value("#online-link")
    code = alice.text("#online-code")
    assert link.endswith(f"/#join={code}")  # no door in the invite: the default's
    bob = open_player(None)
    bob.page.goto(link)
    bob.page.wait_for_selector("#online-dialog[open]")
    bob.page.wait_for_function(
        "() => document.getElementById('online-room-info').textContent.length > 0")
    bob.page.fill("#online-name", "Bob")
    bob.page.click("#online-submit")
    settle(alice, bob)
    return alice, bob, code


def closed(player: Player, name: str, side: str) -> None:
    """The page says the room is closed: ``name`` (``side``) left it; no rematch is offered."""
    assert player.text("#online-note") == f"Room closed: {name} ({side}) left the room."
    assert player.text("#online-opponent") == f"{name} has left the game."
    assert player.data("onlinePhase") == "closed"
    assert not player.visible("#rematch-button")


def announced(player: Player) -> list[str]:
    lines: list[str] = player.page.eval_on_selector_all(
        "#announcer p", "ns => ns.map(n => n.textContent)")
    return lines


def test_moves_are_announced_refusals_explained_review_and_export_read_the_room(
        open_player: Callable[..., Player]) -> None:  # noqa: F811
    alice, bob, code = start(open_player, length=3, kind="match")
    first, second = mover(alice, bob)

    # "why can't this checker go there": a checker picked up, put on a point the opponent
    # holds; the server answers for the turn as built here, nothing moves
    source = first.movable()[0]
    held = (["12", "1"] if first.color == "white" else ["13", "24"])
    target = held[0] if (int(source) > int(held[0])) == (first.color == "white") else held[1]
    board = first.board()
    first.page.click(f'#board .checker.top.movable[data-point="{source}"]')
    box = first.page.locator(f'#board .point[data-point="{target}"]').bounding_box()
    assert box is not None
    first.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.4)
    first.page.wait_for_selector("#explanation:not([hidden])")
    own = (lambda p: p) if first.color == "white" else (lambda p: str(25 - int(p)))
    words = first.text("#explanation-text")
    assert words.startswith(f"{own(source)}/{own(target)}: "), words
    assert announced(first)[-1] == words
    assert first.board() == board  # nothing moved
    shot(first, "1-explained")

    # each checker moved is announced to the mover; the opponent hears the play when sent
    line = play_turn(first, second)
    mine = [t for t in announced(first) if t.startswith("You move ")]
    assert mine and all(re.fullmatch(r"You move (bar|\d+)/\d+\*?", t) for t in mine), mine
    assert announced(first)[-1] != mine[-1] or len(mine) == 4  # then Done's news came
    assert line in announced(second), (line, announced(second))  # the play, as listed
    assert line.startswith(f"{'Alice' if first is alice else 'Bob'} "), line
    # the review of the room's match: the players' names, every position of it
    second.page.click("#review-button")
    second.page.wait_for_function("() => document.body.dataset.reviewSource === 'live'")
    title = second.text("#review-title")
    assert title.startswith("Alice vs Bob"), title
    assert len(second.history()) >= 1
    shot(second, "2-review")
    second.page.click("#review-exit")
    second.page.wait_for_function("() => !document.body.classList.contains('reviewing')")

    # the .mat export: the room's transcript, as a file of its own
    first.page.click("#export-button")
    first.page.wait_for_selector("#export-dialog[data-ready='true']")
    text = first.page.input_value("#export-text")
    assert text.startswith(" 3 point match") and " Game 1" in text, text
    dice = re.search(r" (\d)-(\d): ", line)
    assert dice is not None, line
    written = re.search(rf"{dice.group(1)}{dice.group(2)}: (.+)$", text, re.MULTILINE)
    assert written is not None, text
    moves = sorted(t.removeprefix("You move ") for t in mine)  # each move, as announced
    assert sorted(written.group(1).split()) == moves, (moves, text)
    download = first.page.locator("#export-download")
    assert download.get_attribute("download") == f"backgammon-{code}.mat"
    assert (download.get_attribute("href") or "").startswith("blob:")
    shot(first, "3-export")


def test_a_forfeit_is_worded_the_record_counts_it_and_the_seats_list_returns(
        open_player: Callable[..., Player], server: ServerProcess) -> None:  # noqa: F811
    alice, bob, code = start(open_player)
    # the New game dialog of another tab of Alice's browser lists her seat; Return goes back
    context = alice.page.context
    again = context.new_page()
    again.goto(server.url + "/")
    again.wait_for_selector("#new-game-dialog[open]")
    item = again.locator(f'#online-seats-list li[data-code="{code}"]')
    item.wait_for()
    assert re.fullmatch(r"Online single game\s*Your room \(Alice\) · your friend has joined: "
                        rf"return to play on, or for a rematch · code {code}\s*Return",
                        item.inner_text()), (
        item.inner_text())
    shot(Player(again, server.url), "4-seats")
    again.close()

    # Bob leaves: Alice wins by forfeit, in the words of the old door; both records count it
    bob.page.click("#online-leave")
    alice.page.wait_for_function("() => document.body.dataset.onlinePhase === 'closed'")
    alice.wait_idle()
    # (a single game left: three times the cube, as the old door forfeits it)
    assert alice.text("#result-text") == "You win 3 points by forfeit: Bob left the game."
    closed(alice, "Bob", "black")
    shot(alice, "5-forfeit")
    alice.page.reload()  # the room keeps the cause: a reload still says it
    alice.page.wait_for_function("() => document.body.dataset.onlinePhase === 'closed'")
    alice.wait_idle()
    assert alice.text("#result-text") == "You win 3 points by forfeit: Bob left the game."
    closed(alice, "Bob", "black")
    browser_id = alice.page.evaluate("localStorage.getItem('backgammon.browser')")
    alice.page.wait_for_function(
        "(id) => fetch('/api/stats?browser=' + id).then(r => r.json())"
        ".then(s => s.total.games === 1)", arg=browser_id)
    stats = server.get(f"/api/stats?browser={browser_id}")
    assert stats["rows"] == [{**stats["rows"][0], "opponent": "online", "mode": "single",
                              "games": 1, "won": 1, "points_won": 3}]
    # Bob's page left the room: its seat is forgotten, not listed
    bob.page.wait_for_selector("#new-game-dialog[open]")
    assert bob.page.evaluate("localStorage.getItem('gametable.seats')").find(code) < 0


def test_the_opponent_leaving_a_finished_game_closes_the_room(
        open_player: Callable[..., Player]) -> None:  # noqa: F811
    alice, bob, _code = start(open_player)
    first, second = mover(alice, bob)
    first.page.click("#resign-button")
    first.page.click('#resign-dialog button[value="single"]')
    settle(alice, bob)
    second.page.click("#online-accept-button")
    settle(alice, bob)
    title = alice.text("#result-title")
    assert alice.visible("#rematch-button") and alice.data("onlinePhase") == "finished"
    # the game is over; Bob leaves the room: Alice's page says the room is closed (the door
    # tells her, "left"), the result stays, no rematch is offered
    bob.page.click("#online-leave")
    alice.page.wait_for_function("() => document.body.dataset.onlinePhase === 'closed'",
                                 timeout=10_000)
    alice.wait_idle()
    closed(alice, "Bob", "black")
    assert alice.text("#result-title") == title
    shot(alice, "7-closed")
    # the room keeps who left (its view's room.left): a reload still says it is closed
    alice.page.reload()
    alice.page.wait_for_function("() => document.body.dataset.onlinePhase === 'closed'",
                                 timeout=10_000)
    alice.wait_idle()
    closed(alice, "Bob", "black")
    assert alice.text("#result-title") == title


def test_a_room_its_host_left_says_so_to_a_friend_with_the_link(
        open_player: Callable[..., Player]) -> None:  # noqa: F811
    alice = open_player()
    page = alice.page
    page.wait_for_selector("#new-game-dialog[open]")
    page.click("#new-game-online")
    page.check("input[name=online-mode][value=create]")
    page.fill("#online-name", "Alice")
    page.click("#online-submit")
    alice.wait_idle()
    link = page.input_value("#online-link")
    page.click("#online-leave")  # before anyone joined: the room is closed
    page.wait_for_selector("#new-game-dialog[open]", timeout=10_000)
    bob = open_player(None)
    bob.page.goto(link)
    bob.page.wait_for_function(
        "() => document.getElementById('online-dialog-error').textContent.length > 0",
        timeout=10_000)
    assert bob.text("#online-dialog-error") == (
        "That game was closed by its host: ask them for a new invitation.")
    assert bob.text("#online-room-info") == ""  # it invites nobody


def test_a_full_room_says_so_to_a_third_person_and_invites_nobody(
        open_player: Callable[..., Player]) -> None:  # noqa: F811
    alice, _bob, code = start(open_player)
    carol = open_player(None)
    carol.page.goto(alice.page.url.split("#")[0] + f"#join={code}")
    carol.page.wait_for_function(
        "() => document.getElementById('online-dialog-error').textContent.length > 0",
        timeout=10_000)
    assert carol.text("#online-dialog-error") == "That game already has two players."
    assert carol.text("#online-room-info") == ""  # not "Alice invites you to ..."


def test_the_claim_warning_counts_down_while_the_opponent_is_gone(
        open_player: Callable[..., Player]) -> None:  # noqa: F811
    alice, bob, _code = start(open_player)
    first, second = mover(alice, bob)
    gone = first.color
    first.page.context.close()  # the player the game waits on is gone (not left)
    line = second.page.locator("#online-opponent")
    second.page.wait_for_function(
        "() => document.getElementById('online-opponent').dataset.claim === 'soon'")
    text = line.inner_text()
    found = re.fullmatch(r"(Alice|Bob) \((white|black)\) is not connected: if they do not come "
                         r"back, you may claim the game in (\d):(\d\d)\.", text)
    assert found and found.group(2) == gone, text
    left = int(found.group(3)) * 60 + int(found.group(4))
    assert 100 <= left <= 120, text
    # counted down on the page
    second.page.wait_for_function(
        "(t) => document.getElementById('online-opponent').textContent !== t", arg=text)
    assert not second.visible("#online-claim-button")
    shot(second, "6-claim-warning")


def test_a_timed_opponent_gone_is_said_to_lose_time(
        open_player: Callable[..., Player]) -> None:  # noqa: F811
    alice, bob, _code = start(open_player, clock="rapid")
    first, second = mover(alice, bob)
    first.page.context.close()  # gone, not left: no claim in a timed game, the clock runs
    second.page.wait_for_function(
        "() => document.getElementById('online-opponent').dataset.status === 'disconnected'")
    assert re.fullmatch(r"(Alice|Bob) \((white|black)\) is not connected\. Their clock keeps "
                        r"running\.", second.text("#online-opponent"))
    assert second.page.evaluate(
        "() => document.getElementById('online-opponent').dataset.claim") is None


def test_auto_roll_rolls_when_no_double_is_possible(
        open_player: Callable[..., Player],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(test_online_tables_backgammon.SETTINGS, "auto_roll", True)
    alice, bob, _code = start(open_player, cube=False)  # no cube: rolling is all there is
    first, second = mover(alice, bob)
    rounds = len(second.dice_log())
    play_turn(first, second)
    settle(alice, bob)  # nobody clicked Roll: the second player's dice were thrown
    log = second.dice_log()
    assert len(log) == rounds + 1 and log[-1]["roller"] == second.color, log
