"""Issue 34's page points in a real browser: a ranked play of the hints is still clickable
after a partial move (the moves made are taken back, then the play is made), and Start over
forgets this browser's online seats as it forgets its unfinished games.

The fixtures (the server, chromium, ``open_page``) are those of ``test_player_trial.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import test_player_trial
from browser_support import ServerProcess
from test_player_trial import played_text

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")

browser = test_player_trial.browser
server = test_player_trial.server
open_page = test_player_trial.open_page


def test_a_ranked_play_is_clickable_after_a_partial_move(
        open_page: Any, server: ServerProcess) -> None:
    game = open_page()
    page = game.page
    page.wait_for_selector("#new-game-dialog[open]")
    game.start(mode="pass_and_play", cube=False)
    game.press("#roll-button")
    state = game.state()
    entry = state["legal"][0]
    game.click_move(state["turn"], entry["from"], entry["destinations"][0]["to"])
    partial = played_text(server, state["id"])
    assert partial and game.state()["can"]["undo"]
    page.click("#hints-button")
    rows = page.locator("#hints-ranked tr[data-play].playable")
    rows.first.wait_for(timeout=60_000)
    # a play that does not begin with the move made: it must be taken back first
    plays = [rows.nth(i).get_attribute("data-play") for i in range(rows.count())]
    play = next(p for p in plays if p and not p.startswith(partial.split()[0]))
    rows.nth(plays.index(play)).click()
    game.wait_idle()
    after = game.state()
    assert after["can"]["done"] and not after["legal"]
    assert played_text(server, state["id"]) == play
    assert game.errors == []


def test_start_over_forgets_the_online_seats(open_page: Any, server: ServerProcess) -> None:
    """Both kinds this browser may hold: a seat at the shared door (room_client.js's
    ``gametable.seats``), listed with Return, and an old door's seat not carried over (its
    room did not move), as the old page kept it."""
    room = server.post("/api/rooms", {"game": "backgammon", "name": "Alice"})
    code = room["code"]
    old = "backgammon.online.oldRoom_12345.host"
    game = open_page()
    page = game.page
    page.wait_for_selector("#new-game-dialog[open]")
    seats = {code: {"token": room["token"], "game": "backgammon", "side": room["side"],
                    "at": 1}}
    page.evaluate("([seats, old, kept]) => { localStorage.setItem('gametable.seats', seats);"
                  " localStorage.setItem(old, kept); }",
                  [json.dumps(seats), old, json.dumps({"token": "old-token", "seen": 1})])
    page.reload()
    page.wait_for_selector("#new-game-dialog[open]")
    page.locator(f'#online-seats-list li[data-code="{code}"]').wait_for()  # offered
    assert page.evaluate("(key) => localStorage.getItem(key)", old) is not None  # not moved
    page.click("#new-game-cancel")
    page.click("#settings-button")
    page.click("#options-start-over")
    page.wait_for_selector("#confirm-dialog[open]")
    assert "online games" in page.inner_text("#confirm-text")
    page.click("#confirm-yes")
    page.wait_for_selector("#new-game-dialog[open]")
    page.wait_for_timeout(500)  # the lists are read from the server
    assert page.evaluate("(key) => localStorage.getItem(key)", old) is None
    assert code not in json.loads(page.evaluate("localStorage.getItem('gametable.seats')"))
    assert page.locator(f'#online-seats-list li[data-code="{code}"]').count() == 0
    page.reload()
    page.wait_for_selector("#new-game-dialog[open]")
    page.wait_for_timeout(500)
    assert page.locator(f'#online-seats-list li[data-code="{code}"]').count() == 0


def mirrored(play: str) -> str:
    """A play counted from the other side, as the page's "mine" numbering writes it."""
    import re

    return re.sub(r"\d+(?!\))", lambda m: str(25 - int(m.group())), play)


def test_the_numbering_setting_reaches_the_computers_words_and_the_review(
        open_page: Any) -> None:
    """With "Moves in the move list: all from my side", the computer's play is written from
    the person's side in its playback's words and in the review's line, as in the move list."""
    from test_web_game import play_until

    game = open_page(settings={"numbering": "mine"})
    page = game.page
    page.wait_for_selector("#new-game-dialog[open]")
    game.start(mode="computer", level="easy", side="white", cube=False)
    state = play_until(game, lambda s: any(h["color"] == "black" and h["kind"] == "play"
                                           and ":" in h["text"] for h in s["history"]))
    line = next(h["text"] for h in state["history"]
                if h["color"] == "black" and h["kind"] == "play")
    own = line.split(": ", 1)[1]  # the computer's play in its own numbering
    assert own != "cannot move"
    mine = mirrored(own)
    assert mine != own
    shown = page.locator("#move-list li").all_inner_texts()
    assert any(text.strip().endswith(mine) for text in shown), shown
    note = page.inner_text("#computer-note")
    if "plays" in note:  # the computer's last words: its play, from the person's side
        assert mine in note and own not in note, note
    # the review's line of that play
    page.click("#review-button")
    page.locator("#move-list li", has_text=mine).first.click()
    page.wait_for_function("(mine) => document.getElementById('review-label').textContent"
                           ".includes(mine)", arg=mine)
    assert own not in page.inner_text("#review-label")
