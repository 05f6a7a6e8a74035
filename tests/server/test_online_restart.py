"""Online rooms survive a restart of a real ``backgammon serve``, by SIGTERM and by SIGKILL.

Two scripted players (real WebSockets, the ``websockets`` client) play a backgammon game in a
room of the table's online door (``/api/rooms``, ``/ws/rooms``) against the server in a
subprocess; mid-game, with a commit-reveal round open, the server is stopped and started again
on the same database. Both players reconnect with their seat tokens, learn from the hello's
answer that the server restarted (its ``server.started`` is later than the ``now`` they last
heard), find the same view (position, round, cube, score, move list) and clocks, and finish
the game, both seeing the same result.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backgammon.core.moves import legal_plays
from backgammon.core.position import Position
from gametable.fair import commitment_of

pytest.importorskip("websockets", reason="the scripted players need websockets")
from websockets.sync.client import connect

HOST = "127.0.0.1"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


class Server:
    """``backgammon serve`` in a subprocess on a free port, on one database file."""

    def __init__(self, db: Path, log: Path) -> None:
        self.db = db
        self.log = log
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self, timeout: float = 60.0) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "backgammon", "serve", "--host", HOST, "--port",
                 str(self.port), "--no-browser", "--db", str(self.db)],
                stdout=log, stderr=subprocess.STDOUT,
                env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=1) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        raise RuntimeError(f"the server did not answer /health in {timeout} s")

    def stop(self, how: signal.Signals) -> None:
        assert self.process is not None
        self.process.send_signal(how)
        self.process.wait(timeout=30)
        self.process = None

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(f"{self.url}{path}", data=json.dumps(body).encode(),
                                         method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())


def _open(uri: str) -> Any:
    """A client connection (entered as the library asks; closed by :meth:`Player.close`)."""
    return connect(uri, open_timeout=30).__enter__()


class Player:
    """One scripted page: its WebSocket, its seat token, its side and its secrets."""

    def __init__(self, side: str, token: str, rng: random.Random) -> None:
        self.side = side
        self.token = token
        self.rng = rng
        self.ws: Any = None
        self.hello: dict[str, Any] = {}  # the answer to the last hello (its first view)
        self.heard = 0.0  # the server's ``now`` of the last hello's answer
        self.secrets: dict[int, bytes] = {}

    def connect(self, server: Server, code: str) -> bool:
        """Open a connection and say hello; whether the server restarted since the last
        hello (its process opened its door after the ``now`` it answered then)."""
        self.ws = _open(f"ws://{HOST}:{server.port}/ws/rooms/{code}")
        self.send({"type": "hello", "token": self.token})
        frame = self.next_frame()
        assert frame["type"] == "view", frame
        self.hello = frame
        restarted = self.heard > 0 and frame["server"]["started"] > self.heard
        self.heard = frame["server"]["now"]
        return restarted

    def send(self, payload: dict[str, Any]) -> None:
        self.ws.send(json.dumps(payload))

    def next_frame(self) -> dict[str, Any]:
        return dict(json.loads(self.ws.recv(timeout=30)))

    def view(self) -> dict[str, Any]:
        """The room's view from this side now (after every frame sent before)."""
        self.send({"type": "state", "ref": "sync"})
        while True:
            frame = self.next_frame()
            assert frame["type"] != "error", frame
            if frame.get("ref") == "sync":
                return dict(frame["view"])

    def secret(self, number: int) -> bytes:
        return self.secrets.setdefault(number, self.rng.randbytes(32))

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.ws = None


class Duel:
    """Ann (White, the host) and Bob (Black) in one room, playing a game to its end message by
    message: each side's dice steps, and the first legal play of each roll."""

    def __init__(self, server: Server, seed: int, settings: dict[str, Any],
                 time_control: str = "none") -> None:
        self.server = server
        rng = random.Random(seed)
        host = server.post("/api/rooms", {"game": "backgammon", "settings": settings,
                                          "time_control": time_control, "side": "white",
                                          "name": "Ann"})
        self.code = host["code"]
        guest = server.post(f"/api/rooms/{self.code}/join", {"name": "Bob"})
        self.players = {"white": Player("white", host["token"], random.Random(rng.random())),
                        "black": Player("black", guest["token"], random.Random(rng.random()))}
        for player in self.players.values():
            player.connect(server, self.code)
        self.last: dict[str, Any] = {}  # White's view after the last step

    def script(self) -> Iterator[str]:
        """Plays the game; yields the name of each step once it is taken."""
        while True:
            view = self.last = self.players["white"].view()
            if view["state"]["result"] is not None:  # the game is over (maybe the match)
                return
            room = view["room"]
            current = room["round"]
            if current is not None:
                side = current["awaiting"][0]
                number = current["number"]
                if current["roller"] is None:  # the opening: both commit, then both reveal
                    kind = "reveal" if side in current["commitments"] else "commit"
                    name = f"opening {kind}"
                else:
                    kind = name = "reveal" if side == current["roller"] else "secret"
            elif room["chance_due"]:
                due = room["chance_due"]
                side = "white" if "white" in due else due[0]
                number, kind = room["next_round"], "commit"
                name = "opening commit" if len(due) == 2 else "commit"
            else:
                side = view["to_act"][0]
                state = view["state"]
                plays = legal_plays(Position(state["board"]["points"], state["turn"]),
                                    state["dice"])
                self.players[side].send({"type": "action", "action": {
                    "type": "move", "play": str(plays[0])}})
                yield "play"
                continue
            player = self.players[side]
            secret = player.secret(number)
            if kind == "commit":
                player.send({"type": "commit", "round": number,
                             "commitment": commitment_of(secret)})
            else:
                player.send({"type": kind, "round": number, "secret": secret.hex()})
            yield name

    def finish(self, steps: Iterator[str]) -> dict[str, Any]:
        """Play on to the game's end; both sides see the same result and move list."""
        for _ in steps:
            pass
        white, black = (self.players[side].view() for side in ("white", "black"))
        result = white["state"]["result"]
        assert result is not None and result["points"] >= 1
        for key in ("winner", "points", "reason", "match_over"):
            assert result[key] == black["state"]["result"][key]
        assert white["outcome"] == black["outcome"]
        assert white["state"]["history"] == black["state"]["history"]
        return white

    def views(self) -> dict[str, dict[str, Any]]:
        return {side: player.view() for side, player in self.players.items()}


def _comparable(view: dict[str, Any]) -> dict[str, Any]:
    """A view without what a restart may change: who is connected (and so the seconds until a
    claim against a player not back yet), and the clock (compared on its own)."""
    view = json.loads(json.dumps(view))
    view["room"].pop("connected")
    view["room"].pop("claim_in")
    view.pop("clock")
    return view


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    process = Server(tmp_path / "games.sqlite3", tmp_path / "server.log")
    process.start()
    yield process
    if process.process is not None:
        process.stop(signal.SIGKILL)


def _restart(server: Server, duel: Duel, how: signal.Signals, *, down: float = 0.0
             ) -> tuple[float, float]:
    """Stop the server with ``how`` and start it again; both players reconnect and are told
    it restarted. Returns the seconds from the start command to both hellos' answers, and the
    downtime before it."""
    stopped = time.monotonic()
    server.stop(how)
    for player in duel.players.values():
        player.close()
    time.sleep(max(down, 1.1))  # (the server's start is stamped in seconds: 1 s apart at least)
    started = time.monotonic()
    server.start()
    for player in duel.players.values():
        assert player.connect(server, duel.code) is True
    return time.monotonic() - started, started - stopped


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_a_restart_mid_round_keeps_the_game_and_both_finish_it(server: Server,
                                                               how: signal.Signals) -> None:
    duel = Duel(server, seed=7, settings={"length": 1, "cube": True})
    steps = duel.script()
    commits = 0
    for step in steps:  # stop with a roll's commitment in, its secret not yet sent
        commits += step == "commit"
        if commits == 3:
            break
    before = duel.views()
    current = before["white"]["room"]["round"]
    assert current is not None and current["roller"] is not None
    assert list(current["commitments"]) == [current["roller"]]

    _restart(server, duel, how)

    for side, player in duel.players.items():
        after = player.hello["view"]
        assert _comparable(after) == _comparable(before[side])
        assert after["clock"] is None
    # the seat tokens still open the seats; a forged one is still refused
    intruder = Player("white", "x" * 32, random.Random(1))
    intruder.ws = _open(f"ws://{HOST}:{server.port}/ws/rooms/{duel.code}")
    intruder.send({"type": "hello", "token": intruder.token})
    assert intruder.next_frame()["code"] == "not_your_room"
    intruder.close()
    # a second reconnection is an ordinary one
    duel.players["black"].close()
    assert duel.players["black"].connect(server, duel.code) is False

    duel.finish(steps)


def test_clock_times_are_the_same_after_a_restart_and_the_downtime_is_not_charged(
        server: Server) -> None:
    duel = Duel(server, seed=11, settings={"length": 1}, time_control="blitz")
    steps = duel.script()
    plays = 0
    for step in steps:  # after a play: the next side's clock runs, before its roll
        plays += step == "play"
        if plays == 2:
            break
    last_clock = duel.players["white"].view()["clock"]  # as the last action left it
    running = last_clock["running"]
    idle = "white" if running == "black" else "black"
    assert running is not None

    to_hello, downtime = _restart(server, duel, signal.SIGKILL, down=3.0)

    assert downtime >= 3.0
    for player in duel.players.values():
        clock = player.hello["view"]["clock"]
        assert clock["running"] == running
        # as saved (to the millisecond: the saved clock is read a moment after the live one)
        assert clock["remaining"][idle] == pytest.approx(last_clock["remaining"][idle], abs=0.01)
        # The running side resumed from its saved time when the server restarted: it has
        # lost at most the time since then, not the downtime before.
        charged = last_clock["remaining"][running] - clock["remaining"][running]
        assert -0.01 <= charged <= to_hello + 0.01, (charged, to_hello, downtime)
    duel.finish(steps)


def test_two_restarts_then_one_after_the_game_each_come_back_where_they_were(
        server: Server) -> None:
    duel = Duel(server, seed=3, settings={"length": 3, "cube": True})
    steps = duel.script()
    for step in steps:  # the roller's commitment and the opponent's secret are in
        if step == "secret":
            break
    _restart(server, duel, signal.SIGKILL)
    for step in steps:
        if step == "play":
            break
    _restart(server, duel, signal.SIGTERM)
    assert duel.players["white"].view()["state"]["played"] == []
    final = duel.finish(steps)
    assert final["outcome"] is None  # a match to 3 goes on (the seed's first game is single)
    duel.players["white"].send({"type": "action", "action": {"type": "next_game"}})
    before = duel.views()
    assert before["white"]["state"]["score"]["game_number"] == 2
    _restart(server, duel, signal.SIGKILL)
    for side, player in duel.players.items():
        after = player.hello["view"]
        assert _comparable(after) == _comparable(before[side])
        assert after["state"]["score"] == before[side]["state"]["score"]
