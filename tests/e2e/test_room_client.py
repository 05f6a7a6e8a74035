"""The game-agnostic room client (``static/js/room_client.js``) in a real browser, against the
rooms' door (``/api/rooms``, ``/ws/rooms``) of a server on a thread of this process, with the
other seat played from Python over its own WebSocket.

Backgammon is the game with chance, so the fair-random rounds are tested with it: the opening
roll (a round both sides play) with the page's tab reloaded between its commitment and its
reveal (the secret kept in sessionStorage before the commitment left the page answers the
reveal), then a roll of Python's side (the page answers with its secret in the clear), then a
roll of the page's side (commit, Python's secret, the page's reveal); each round's dice are
checked against the derivation of the secrets the page kept. Also: the seat kept in
localStorage per room code, the refusal of an unknown room, and a reconnection after the
connection is dropped.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from browser_support import launched_chromium

from backgammon.adapter import RULES as BACKGAMMON
from backgammon.core.dice import dice_from_secrets
from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings
from serve_support import gc_restored, running_uvicorn

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
websockets_sync = pytest.importorskip("websockets.sync.client")
Browser = sync_api.Browser
Page = sync_api.Page


class Live:
    """The app served on a thread: its URL and its rooms."""

    def __init__(self, url: str, app: Any) -> None:
        self.url = url
        self.app = app

    def room(self, code: str) -> Any:
        return self.app.state.rooms.service.room(code)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            self.url + path, data=json.dumps(body).encode(), method="POST",
            headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    folder: Path = tmp_path_factory.mktemp("room-client")
    app = create_app(ServerSettings(db_path=folder / "games.sqlite3"))
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    with gc_restored(), running_uvicorn(config) as port:
        yield Live(f"http://127.0.0.1:{port}", app)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched_chromium()


@pytest.fixture
def page(browser: Browser, live: Live) -> Iterator[Page]:
    context = browser.new_context()
    opened = context.new_page()
    errors: list[str] = []
    opened.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto(live.url + "/rules")  # any page of the site: the client is imported into it
    yield opened
    # (an unknown room's 404 is the one resource error a test provokes)
    assert [e for e in errors if "404" not in e] == []
    context.close()


#: Opens the client of room `code` in the page: window.client, its views in window.frames_,
#: its refusals in window.errors_, its connection states in window.states_.
OPEN = """async (code) => {
  const m = await import('/static/js/room_client.js');
  window.m = m;
  window.frames_ = []; window.errors_ = []; window.states_ = [];
  window.client = new m.RoomClient(code, {
    onView: (view, frame) => window.frames_.push(frame),
    onError: (error) => window.errors_.push(error),
    onConnection: (state) => window.states_.push(state),
  });
  return window.client.open();
}"""


class Seat:
    """Python's seat: its WebSocket and the last view."""

    def __init__(self, live: Live, code: str, token: str) -> None:
        ws_url = live.url.replace("http://", "ws://") + f"/ws/rooms/{code}"
        self._context = websockets_sync.connect(ws_url)
        self.ws = self._context.__enter__()
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        self.view: dict[str, Any] = {}
        self.next_view()

    def next_view(self) -> dict[str, Any]:
        frame = json.loads(self.ws.recv(timeout=10))
        assert frame["type"] == "view", frame
        self.view = frame["view"]
        return frame

    def send(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send, then read views until the answer to this message (its ref) came."""
        self.ws.send(json.dumps({**message, "ref": "py"}))
        while True:
            frame = json.loads(self.ws.recv(timeout=10))
            assert frame["type"] == "view", frame
            self.view = frame["view"]
            if frame.get("ref") == "py":
                return frame

    def until(self, test: Any, timeout: float = 10.0) -> dict[str, Any]:
        """Read views until ``test(view)``."""
        deadline = time.monotonic() + timeout
        while not test(self.view):
            assert time.monotonic() < deadline, self.view["room"]
            self.next_view()
        return self.view

    def close(self) -> None:
        self._context.__exit__(None, None, None)


def last_roll(live: Live, code: str) -> tuple[int, ...]:
    """The dice of the room's last roll (a roll that cannot be played is followed by a pass)."""
    events = live.room(code).table.game.match.current.events
    return tuple(next(e for e in reversed(events) if e["type"] == "roll")["dice"])


def wait_page(page: Page, test: str, timeout: float = 10_000) -> None:
    page.wait_for_function(test, timeout=timeout)


def kept_secret(page: Page, code: str, number: int) -> str | None:
    value: str | None = page.evaluate(
        "([code, n]) => sessionStorage.getItem(`gametable.secret.${code}.${n}`)", [code, number])
    return value


def make_room(page: Page, live: Live) -> tuple[str, Seat]:
    """The page hosts a backgammon room as White; Python joins as Black."""
    made = page.evaluate("""async () => {
      const m = await import('/static/js/room_client.js');
      return m.createRoom({game: 'backgammon', settings: {length: 1, cube: false},
                           timeControl: 'none', side: 'white', name: 'Page'});
    }""")
    code = made["code"]
    assert made["side"] == "white"
    seats = page.evaluate("() => JSON.parse(localStorage.getItem('gametable.seats'))")
    assert seats[code]["token"] == made["token"] and seats[code]["side"] == "white"
    joined = live.post(f"/api/rooms/{code}/join", {"name": "Python"})
    assert joined["side"] == "black"
    assert page.evaluate(OPEN, code) is True
    wait_page(page, "() => window.client.state === 'open'")
    return code, Seat(live, code, joined["token"])


def test_fair_rounds_answered_by_the_client(page: Page, live: Live) -> None:
    code, python = make_room(page, live)
    room = python.view["room"]
    assert room["chance_due"] == ["black", "white"] and room["round"] is None

    # The opening roll: the page commits (its secret kept first), then its tab reloads
    # before the round goes on.
    assert page.evaluate("() => window.client.roll()") is True
    view = python.until(lambda v: "white" in (v["room"]["round"] or {}).get("commitments", {}))
    commitment = view["room"]["round"]["commitments"]["white"]
    secret = kept_secret(page, code, 0)
    assert secret is not None and len(secret) == 64
    assert hashlib.sha256(bytes.fromhex(secret)).hexdigest() == commitment
    page.reload()
    python.until(lambda v: not v["room"]["connected"]["white"])
    assert kept_secret(page, code, 0) == secret  # sessionStorage outlives the reload

    # Python commits; the reloaded page, back at its seat, reveals the kept secret. Python
    # picks a secret whose opening dice differ (a tie would open a second opening round, which
    # both sides commit to, and the loop below plays rolls only).
    seeds = random.Random(7)
    mine = seeds.randbytes(32)
    while len(set(dice_from_secrets(bytes.fromhex(secret), mine, 0))) == 1:
        mine = seeds.randbytes(32)
    python.send({"type": "commit", "round": 0,
                 "commitment": hashlib.sha256(mine).hexdigest()})
    assert page.evaluate(OPEN, code) is True
    python.until(lambda v: v["room"]["round"] is not None
                 and v["room"]["round"]["awaiting"] == ["black"])
    done = python.send({"type": "reveal", "round": 0, "secret": mine.hex()})
    assert done["round"]["secrets"] == {"white": secret, "black": mine.hex()}
    events = live.room(code).table.game.match.current.events
    opening = next(e for e in events if e["type"] == "opening_roll")
    assert (opening["white"], opening["black"]) == dice_from_secrets(
        bytes.fromhex(secret), mine, 0)
    # The page saw the same round, and forgot its secret once the round was over.
    wait_page(page, "() => window.frames_.some(f => f.round && f.round.number === 0)")
    wait_page(page, f"() => !sessionStorage.getItem('gametable.secret.{code}.0')")
    assert page.evaluate("() => window.errors_") == []

    rng = random.Random(35)
    rolls = {"white": 0, "black": 0}
    for _ in range(12):
        game = live.room(code).table.game
        if game.outcome() is not None or min(rolls.values()) >= 1:
            break
        waiting = sorted(game.to_act())
        side = waiting[0]
        action = BACKGAMMON.computer_action(game, side, "easy", rng)
        before = python.view["room"]["version"]
        number = python.view["room"]["next_round"]
        if action["type"] == "move" and side == "white":
            answer = page.evaluate("(a) => window.client.act(a)", action)
            assert answer["ok"] is True, answer
            python.until(lambda v, b=before: v["room"]["version"] > b)
        elif action["type"] == "move":
            python.send({"type": "action", "action": action})
        elif side == "white":  # the page rolls: commit, Python's secret, the page's reveal
            # (once the page has the view where the roll is due: Python's move may be on its way)
            wait_page(page, "() => { const r = window.client.view && window.client.view.room;"
                            " return Boolean(r) && !r.round && r.chance_due.includes(r.you); }")
            assert page.evaluate("() => window.client.roll()") is True
            view = python.until(lambda v: v["room"]["round"] is not None)
            assert view["room"]["round"]["awaiting"] == ["black"]
            theirs = view["room"]["round"]["commitments"]["white"]
            kept = kept_secret(page, code, number)
            assert kept is not None
            assert hashlib.sha256(bytes.fromhex(kept)).hexdigest() == theirs
            other = rng.randbytes(32)
            python.send({"type": "secret", "round": number, "secret": other.hex()})
            python.until(lambda v, n=number: v["room"]["round"] is None
                         and v["room"]["next_round"] > n)
            dice = last_roll(live, code)
            assert dice == dice_from_secrets(bytes.fromhex(kept), other, number)
            rolls["white"] += 1
        else:  # Python rolls: the page answers with its secret in the clear by itself
            mine = rng.randbytes(32)
            python.send({"type": "commit", "round": number,
                         "commitment": hashlib.sha256(mine).hexdigest()})
            view = python.until(lambda v: "white" in v["room"]["round"]["secrets"])
            theirs = view["room"]["round"]["secrets"]["white"]
            assert len(theirs) == 64 and theirs != kept_secret(page, code, number)
            python.send({"type": "reveal", "round": number, "secret": mine.hex()})
            dice = last_roll(live, code)
            assert dice == dice_from_secrets(mine, bytes.fromhex(theirs), number)
            rolls["black"] += 1
    assert rolls == {"white": 1, "black": 1}
    assert page.evaluate("() => window.errors_") == []
    python.close()


def test_refusals_reconnection_and_the_kept_seat(page: Page, live: Live) -> None:
    code, python = make_room(page, live)
    # A refused action comes back to the sender's promise in the server's words.
    answer = page.evaluate("() => window.client.act({type: 'move', play: '24/23'})")
    assert answer["ok"] is False and answer["code"] == "not_allowed"
    answer = page.evaluate("() => window.client.act({type: 'roll'})")  # dice come by rounds
    assert answer == {"ok": False, "code": "invalid_action", "ref": 2,
                      "message": "the dice come from a commit-reveal round: send commit"}
    # The connection dropped: the client comes back by itself to the same seat.
    page.evaluate("() => window.client.ws.close()")
    python.until(lambda v: not v["room"]["connected"]["white"])
    python.until(lambda v: v["room"]["connected"]["white"])
    wait_page(page, "() => window.client.state === 'open'")
    states = page.evaluate("() => window.states_")
    assert "reconnecting" in states and states[-1] == "open"
    assert page.evaluate("() => window.client.view.room.you") == "white"
    # A second client on the same seat replaces the first, which does not fight back.
    page.evaluate("""(code) => {
      window.second = new window.m.RoomClient(code, {});
      window.second.open();
    }""", code)
    wait_page(page, "() => window.client.state === 'replaced' && window.second.state === 'open'")
    page.wait_for_timeout(1200)
    assert page.evaluate("() => window.client.state") == "replaced"
    assert page.evaluate("() => window.second.state") == "open"
    page.evaluate("() => window.second.close()")
    # An unknown room: no seat kept, and a room the server never had is refused for good.
    assert page.evaluate("(code) => window.m.storedSeat(code) !== null", code) is True
    gone = page.evaluate("""async () => {
      const m = window.m;
      try { await m.roomInfo('ZZZZZZZZ'); return 'found'; } catch (e) { return e.status; }
    }""")
    assert gone == 404
    page.evaluate("""() => {
      const seats = JSON.parse(localStorage.getItem('gametable.seats'));
      seats.ZZZZZZZZ = {token: 'x'.repeat(43), side: 'white', at: Date.now()};
      localStorage.setItem('gametable.seats', JSON.stringify(seats));
      window.ghost = new window.m.RoomClient('zzzz-zzzz', {});
      window.ghost.open();
    }""")
    wait_page(page, "() => window.ghost.state === 'gone'")
    assert page.evaluate("() => window.m.storedSeat('ZZZZZZZZ')") is None
    python.close()
