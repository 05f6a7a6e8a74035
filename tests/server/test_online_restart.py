"""Online rooms survive a restart of a real ``backgammon serve``, by SIGTERM and by SIGKILL.

Two scripted players (real WebSockets, the ``websockets`` client) play a game against the
server in a subprocess; mid-game, with a commit-reveal round open, the server is stopped and
started again on the same database. Both players reconnect with their seat tokens, are told
the server restarted, find the same position, round, cube, score, log and clocks, and finish
the game with identical records on both sides (which replay to the result both were sent).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backgammon.core.dice import commitment
from backgammon.core.game import Game
from backgammon.core.moves import Move, apply_play

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
                stdout=log, stderr=subprocess.STDOUT, env={
                    **os.environ, "OPENBLAS_NUM_THREADS": "1",
                    # this door's own restarts: its rooms stay with it (room_migration)
                    "BACKGAMMON_KEEP_OLD_ROOMS": "1"})
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
    """One scripted page: its WebSocket, its seat token and its secrets."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.ws: Any = None
        self.token: str | None = None
        self.color = ""
        self.welcome: dict[str, Any] = {}

    def connect(self, server: Server, code: str) -> dict[str, Any]:
        self.ws = _open(f"ws://{HOST}:{server.port}/api/online/rooms/{code}/ws")
        hello: dict[str, Any] = {"type": "hello"}
        if self.token is not None:
            hello["token"] = self.token
        self.send(hello)
        self.welcome = self.expect("welcome")
        self.token = self.welcome["token"]
        self.color = self.welcome["color"]
        return self.welcome

    def send(self, payload: dict[str, Any]) -> None:
        self.ws.send(json.dumps(payload))

    def expect(self, kind: str) -> dict[str, Any]:
        """The next message of type ``kind``; ``opponent`` notices on the way are skipped."""
        while True:
            message = json.loads(self.ws.recv(timeout=30))
            if message["type"] == kind:
                message.pop("legal_moves", None)
                message.pop("legal", None)
                return dict(message)
            if message["type"] != "opponent":
                raise AssertionError(f"expected {kind}, got {message}")

    def state(self) -> dict[str, Any]:
        self.send({"type": "state"})
        return dict(self.expect("state")["state"])

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.ws = None


def _without_roll_seconds(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if not (e["type"] == "roll" and k == "seconds")}
            for e in events]


class Duel:
    """Host and guest of one room playing a game to its end, message by message, with a
    replica of the game built from the events both received (compared as they arrive)."""

    def __init__(self, server: Server, seed: int, **settings: Any) -> None:
        self.server = server
        rng = random.Random(seed)
        self.host, self.guest = Player(random.Random(rng.random())), Player(
            random.Random(rng.random()))
        room = server.post("/api/online/rooms", {"name": "Ann", **settings})
        self.code = room["code"]
        self.host.token = room["token"]
        self.host.connect(server, self.code)
        self.guest.connect(server, self.code)
        self.replica = Game()
        self.round = 1
        self.last: dict[str, Any] = {}
        self.over: list[dict[str, Any]] = []

    @property
    def players(self) -> tuple[Player, Player]:
        return self.host, self.guest

    def by_color(self, color: str) -> Player:
        return self.host if self.host.color == color else self.guest

    def relay(self, sender: Player, payload: dict[str, Any]) -> dict[str, Any]:
        sender.send(payload)
        seen = [player.expect(payload["type"]) for player in self.players]
        assert seen[0] == seen[1]
        self.last = seen[0]
        return seen[0]

    def both(self, kind: str) -> dict[str, Any]:
        seen = [player.expect(kind) for player in self.players]
        assert seen[0] == seen[1]
        self.last = seen[0]
        return seen[0]

    def script(self) -> Iterator[str]:
        """Plays the game; yields the name of each step once both sides have its event."""
        while True:  # the opening roll: both commit, both reveal; a tie is thrown again
            number, self.round = self.round, self.round + 1
            secrets = {p.color: p.rng.randbytes(32) for p in self.players}
            for color in ("white", "black"):
                self.relay(self.by_color(color), {"type": "commit", "round": number,
                                                  "commitment": commitment(secrets[color])})
                yield "opening commit"
            for color in ("white", "black"):
                self.relay(self.by_color(color), {"type": "reveal", "round": number,
                                                  "secret": secrets[color].hex()})
            rolled = self.both("rolled")
            self.replica.roll(dice=rolled["dice"])
            if not rolled["tie"]:
                break
        while not self.replica.is_over:
            mover = self.by_color(str(self.replica.on_roll))
            other = self.guest if mover is self.host else self.host
            if self.replica.phase == "roll":
                number, self.round = self.round, self.round + 1
                mine, theirs = mover.rng.randbytes(32), other.rng.randbytes(32)
                self.relay(mover, {"type": "commit", "round": number,
                                   "commitment": commitment(mine)})
                yield "commit"
                self.relay(other, {"type": "secret", "round": number, "secret": theirs.hex()})
                yield "secret"
                self.relay(mover, {"type": "reveal", "round": number, "secret": mine.hex()})
                rolled = self.both("rolled")
                self.replica.roll(dice=rolled["dice"])
                yield "rolled"
                continue
            plays = self.replica.legal_plays()
            play = plays[mover.rng.randrange(len(plays))]
            event = self.relay(mover, {"type": "play", "moves": [
                [m.from_point, m.to_point, m.die] for m in play.moves]})
            moves = [Move(*m) for m in event["moves"]]
            found = self.replica.legal_plays().by_result(apply_play(self.replica.turn_start,
                                                                    moves))
            assert found is not None, event
            self.replica.play(found, seconds=event["seconds"])
            yield "play"
        self.over = [player.expect("game_over") for player in self.players]

    def finish(self, steps: Iterator[str]) -> None:
        for _ in steps:
            pass
        first, second = self.over
        assert first == second
        # The replica is told the dice, not the seconds a roll took (the rolled message does
        # not carry them): the roll events are compared without them.
        assert _without_roll_seconds(first["log"]["events"]) == _without_roll_seconds(
            self.replica.to_log()["events"])
        replayed = Game.replay(first["log"])
        assert replayed.outcome is not None
        assert replayed.outcome.to_dict() == first["outcome"]


def _comparable(state: dict[str, Any]) -> dict[str, Any]:
    """A state without what a restart may change: who is connected, and the clocks (compared
    on their own)."""
    state = json.loads(json.dumps(state))
    state["you"].pop("connected")
    if state["opponent"] is not None:
        state["opponent"].pop("connected")
    state.pop("clock")
    return state


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    process = Server(tmp_path / "games.sqlite3", tmp_path / "server.log")
    process.start()
    yield process
    if process.process is not None:
        process.stop(signal.SIGKILL)


def _restart(server: Server, duel: Duel, how: signal.Signals, *, down: float = 0.0
             ) -> tuple[float, float]:
    """Stop the server with ``how`` and start it again; both players reconnect. Returns the
    seconds from the start command to both welcomes, and the downtime before it."""
    stopped = time.monotonic()
    server.stop(how)
    for player in duel.players:
        player.close()
    time.sleep(down)
    started = time.monotonic()
    server.start()
    for player in duel.players:
        welcome = player.connect(server, duel.code)
        assert welcome["restarted"] is True
    return time.monotonic() - started, started - stopped


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_a_restart_mid_round_keeps_the_game_and_both_finish_it(server: Server,
                                                               how: signal.Signals) -> None:
    duel = Duel(server, seed=7, cube=True)
    steps = duel.script()
    commits = 0
    for step in steps:  # stop with a roll's commitment in, its secret not yet sent
        commits += step == "commit"
        if commits == 3:
            break
    before = {player.color: player.state() for player in duel.players}
    assert before["white"]["round"]["open"]["kind"] == "roll"
    assert len(before["white"]["round"]["open"]["commitments"]) == 1

    _restart(server, duel, how)

    for player in duel.players:
        after = player.welcome["state"]
        assert _comparable(after) == _comparable(before[player.color])
        assert after["clock"] is None
    # the seat tokens still authenticate; a forged one is still refused
    intruder = Player(random.Random(1))
    intruder.token = "x" * 32
    intruder.ws = _open(f"ws://{HOST}:{server.port}/api/online/rooms/{duel.code}/ws")
    intruder.send({"type": "hello", "token": intruder.token})
    assert intruder.expect("error")["code"] == "bad_token"
    intruder.close()
    # a second reconnection is an ordinary one
    duel.guest.close()
    assert duel.guest.connect(server, duel.code)["restarted"] is False

    duel.finish(steps)


def test_clock_times_are_the_same_after_a_restart_and_the_downtime_is_not_charged(
        server: Server) -> None:
    duel = Duel(server, seed=11, time_control="blitz")
    steps = duel.script()
    for step in steps:  # after a play: the next side's clock runs, before its roll
        if step == "play" and duel.replica.phase == "roll":
            break
    last_clock = duel.last["clock"]  # the clocks as the last action left them
    running = last_clock["running"]
    idle = "white" if running == "black" else "black"
    assert running == str(duel.replica.on_roll)

    to_welcome, downtime = _restart(server, duel, signal.SIGKILL, down=3.0)

    assert downtime >= 3.0
    for player in duel.players:
        clock = player.welcome["state"]["clock"]
        assert clock["running"] == running
        assert clock[idle] == last_clock[idle]  # exactly as committed
        # The running side resumed from its committed time when the server restarted: it
        # has lost at most the time since then, not the downtime before.
        charged = last_clock[running] - clock[running]
        assert -0.001 <= charged <= to_welcome + 0.01, (charged, to_welcome, downtime)
    duel.finish(steps)


def test_two_restarts_then_one_after_the_game_each_come_back_where_they_were(
        server: Server) -> None:
    duel = Duel(server, seed=3, cube=True, match_length=3)
    steps = duel.script()
    for step in steps:  # the roller's commitment and the opponent's secret are in
        if step == "secret":
            break
    _restart(server, duel, signal.SIGKILL)
    for step in steps:
        if step == "play":
            break
    _restart(server, duel, signal.SIGTERM)
    assert duel.host.state()["game"]["played"] == []
    duel.finish(steps)
    score = duel.over[0]["score"]
    duel.host.send({"type": "next_game"})  # either player starts the next game
    assert duel.both("new_game")["score"] == score  # a match to 3 goes on
    before = _comparable(duel.host.state())
    _restart(server, duel, signal.SIGKILL)
    after = duel.host.welcome["state"]
    assert _comparable(after) == before
    assert after["score"] == score
    assert after["game_number"] == 2


def test_a_damaged_room_is_refused_at_start_with_a_logged_error_and_the_others_come_back(
        server: Server) -> None:
    good, bad = Duel(server, seed=21), Duel(server, seed=22)
    good_steps, bad_steps = good.script(), bad.script()
    for steps in (good_steps, bad_steps):
        for step in steps:
            if step == "commit":
                break
    server.stop(signal.SIGKILL)
    for player in (*good.players, *bad.players):
        player.close()
    with contextlib.closing(sqlite3.connect(server.db)) as db, db:  # damaged while it was down
        db.execute("UPDATE online_actions SET action = '{\"kind\": \"message\", \"seat\": "
                   "\"host\", \"text\": \"{]\"}' WHERE code = ? AND seq = 3", (bad.code,))
    server.start()
    for player in good.players:
        assert player.connect(server, good.code)["restarted"] is True
    bad.host.ws = _open(f"ws://{HOST}:{server.port}/api/online/rooms/{bad.code}/ws")
    bad.host.send({"type": "hello", "token": bad.host.token})
    assert bad.host.expect("error")["code"] == "room_not_restored"  # said so, not "not found"
    bad.host.close()
    log = server.log.read_text()
    assert (f"online room refused at start: stored room {bad.code!r} does not replay: action 3 "
            f"(message) is refused: OnlineError: ") in log
    assert "online rooms: 1 restored from" in log and ", 1 refused" in log
    good.finish(good_steps)
