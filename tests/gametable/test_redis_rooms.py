"""Online rooms shared by several server processes through a real Redis (gametable.redis_rooms).

Each test starts Debian's ``redis-server`` on a free port in a temporary directory (AOF on,
``appendfsync always``) and two servers on it (two apps, each on its own uvicorn event loop,
each with its own rooms' copies: two processes as far as the rooms can tell). A game is played
with the host on one and the guest on the other, the dice (backgammon) by commit-reveal
rounds; the state each step comes from the record in Redis and the computer chooses the
action, the seat whose turn it is sends it to its own server, and the other seat must be
pushed the same version through the other server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.sync.client import ClientConnection, connect

from backgammon.adapter import RULES as BACKGAMMON
from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings
from checkers.adapter import RULES as CHECKERS
from gametable.errors import ActionRefused
from gametable.fair import commitment_of
from gametable.redis_rooms import RedisRoomStore, SharedRoomService
from gametable.room import Outgoing, Room
from serve_support import running_uvicorn

GAMES: Any = {"backgammon": BACKGAMMON, "checkers": CHECKERS}
REDIS = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(
    REDIS is None, reason="redis-server is not installed (scripts/test.sh installs Debian's)"
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RedisServer:
    """A redis-server of the test's own: AOF with fsync at every write."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None
        (directory / "redis.conf").write_text(
            f"port {self.port}\nbind 127.0.0.1\ndir {directory}\nappendonly yes\n"
            "appendfsync always\nsave \"\"\ndaemonize no\nlogfile redis.log\n"
        )

    def start(self) -> None:
        assert REDIS is not None
        self.process = subprocess.Popen([REDIS, str(self.directory / "redis.conf")])
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL: no shutdown save; what survives is what the AOF holds."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self.process = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None

    def command(self, *args: str) -> Any:
        import redis

        client = redis.Redis(port=self.port, socket_timeout=5)
        try:
            return client.execute_command(*args)
        finally:
            client.close()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def game_server(redis_url: str, db: Path) -> Iterator[str]:
    """A server on its own event loop, its online rooms in ``redis_url``; yields its base URL."""
    app = create_app(ServerSettings(db_path=db, redis_url=redis_url))
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    with running_uvicorn(config) as port:
        yield f"127.0.0.1:{port}"


class Seat:
    """One player's WebSocket to one server; keeps the views it is pushed."""

    def __init__(self, host: str, code: str, token: str) -> None:
        self.host, self.code, self.token = host, code, token
        self._socket = connect(f"ws://{host}/ws/rooms/{code}", open_timeout=5)
        self.ws: ClientConnection = self._socket.__enter__()
        self.view: dict[str, Any] = {}
        self.versions: list[int] = []
        self.refs = 0
        first = self.send({"type": "hello", "token": token}, wait=False)
        assert first is None
        self.until(lambda frame: frame["type"] == "view")

    def frame(self, timeout: float = 10.0) -> dict[str, Any]:
        frame: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        if frame["type"] == "view":
            self.view = frame["view"]
            self.versions.append(frame["view"]["room"]["version"])
        return frame

    def until(self, done: Any, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            frame = self.frame(max(0.01, deadline - time.monotonic()))
            if done(frame):
                return frame

    def send(self, message: dict[str, Any], wait: bool = True) -> dict[str, Any] | None:
        """Send ``message``; returns the answer to it (a view or an error)."""
        self.refs += 1
        ref = self.refs
        self.ws.send(json.dumps({**message, "ref": ref} if wait else message))
        if not wait:
            return None
        return self.until(lambda frame: frame.get("ref") == ref)

    def wait_version(self, version: int) -> None:
        """Read pushed views until this seat has seen ``version``."""
        if self.view and self.view["room"]["version"] >= version:
            return
        self.until(lambda f: f["type"] == "view" and f["view"]["room"]["version"] >= version)

    def close(self) -> None:
        self._socket.__exit__(None, None, None)


def next_message(
    room: Room, rng: random.Random, secrets: dict[tuple[int, str], bytes]
) -> tuple[str, dict[str, Any]]:
    """Whose step it is in ``room`` and what it sends: a round's step (``secrets`` keeps
    each commitment's secret for its reveal) or the computer's action."""
    current = room.round
    if current is None:
        due = sorted(room.table.chance_due())
        if due:
            side = due[0]
            secret = rng.randbytes(32)
            secrets[(room.next_round, side)] = secret
            return side, {"type": "commit", "round": room.next_round,
                          "commitment": commitment_of(secret)}  # fmt: skip
        side = sorted(room.table.game.to_act())[0]
        action = GAMES[room.table.rules.name].computer_action(room.table.game, side, "easy", rng)
        return side, {"type": "action", "action": action}
    side = sorted(current.awaiting())[0]
    kind = current.expects(side)
    if kind == "commit":
        secret = rng.randbytes(32)
        secrets[(current.number, side)] = secret
        return side, {"type": "commit", "round": current.number,
                      "commitment": commitment_of(secret)}  # fmt: skip
    if kind == "secret":
        return side, {"type": "secret", "round": current.number,
                      "secret": rng.randbytes(32).hex()}  # fmt: skip
    return side, {"type": "reveal", "round": current.number,
                  "secret": secrets[(current.number, side)].hex()}  # fmt: skip


class Match:
    """A room between two seats, each on a server of its own; the state read from Redis."""

    def __init__(self, redis_url: str, game: str, settings: dict[str, Any],
                 hosts: tuple[str, str], seed: int) -> None:  # fmt: skip
        import redis

        self.redis = redis.Redis.from_url(redis_url, socket_timeout=5)
        self.game = game
        self.rng = random.Random(seed)
        made = httpx.post(f"http://{hosts[0]}/api/rooms", json={
            "game": game, "settings": settings, "side": "white", "name": "Ann"}, timeout=10)
        assert made.status_code == 201, made.text
        self.code = made.json()["code"]
        joined = httpx.post(f"http://{hosts[1]}/api/rooms/{self.code}/join",
                            json={"name": "Bob"}, timeout=10)  # fmt: skip
        assert joined.status_code == 200, joined.text
        assert joined.json()["side"] == "black"
        self.tokens = {"white": made.json()["token"], "black": joined.json()["token"]}
        self.seats = {"white": Seat(hosts[0], self.code, self.tokens["white"]),
                      "black": Seat(hosts[1], self.code, self.tokens["black"])}  # fmt: skip
        self.secrets: dict[tuple[int, str], bytes] = {}
        self.accepted = 0

    def stored(self) -> Room:
        record = json.loads(self.redis.hget(f"gt:room:{self.code}", "record"))
        return Room.from_record(record, GAMES, time.monotonic)

    def next_message(self) -> tuple[str, dict[str, Any]]:
        """Whose step it is and what it sends, from the stored room."""
        return next_message(self.stored(), self.rng, self.secrets)

    def step(self) -> None:
        """One step by the seat whose turn it is; the other seat is pushed the same version."""
        side, message = self.next_message()
        answer = self.send(side, message)
        assert answer["type"] == "view", answer
        version = answer["view"]["room"]["version"]
        other = "black" if side == "white" else "white"
        self.seats[other].wait_version(version)
        assert self.seats[other].view["room"]["version"] == version
        self.accepted += 1

    def send(self, side: str, message: dict[str, Any]) -> dict[str, Any]:
        answer = self.seats[side].send(message)
        assert answer is not None
        return answer

    def play(self, steps: int) -> None:
        for _ in range(steps):
            if self.stored().table.game.outcome() is not None:
                return
            self.step()

    def draw(self) -> None:
        """End a checkers game by agreement."""
        room = self.stored()
        side = sorted(room.table.game.to_act())[0]
        other = "black" if side == "white" else "white"
        offered = self.send(side, {"type": "action", "action": {"type": "offer_draw"}})
        assert offered["type"] == "view", offered
        self.seats[other].wait_version(offered["view"]["room"]["version"])
        accepted = self.send(other, {"type": "action", "action": {"type": "accept_draw"}})
        assert accepted["type"] == "view", accepted
        self.seats[side].wait_version(accepted["view"]["room"]["version"])

    def close(self) -> None:
        for seat in self.seats.values():
            with _quiet():
                seat.close()
        self.redis.close()


def _quiet() -> contextlib.suppress:
    """Closing what may be gone already."""
    return contextlib.suppress(Exception)


def _same_game(match: Match) -> None:
    """Both seats end on the same version and outcome as the record in Redis."""
    room = match.stored()
    white, black = match.seats["white"].view, match.seats["black"].view
    assert white["room"]["version"] == black["room"]["version"] == room.version
    outcome = room.table.game.outcome()
    assert outcome is not None
    assert white["outcome"] == black["outcome"] == outcome.to_dict()
    for side in ("white", "black"):
        assert match.seats[side].versions == sorted(match.seats[side].versions)


@pytest.fixture
def two_servers(redis_server: RedisServer, tmp_path: Path) -> Iterator[tuple[str, str]]:
    with game_server(redis_server.url, tmp_path / "a.sqlite3") as first, \
            game_server(redis_server.url, tmp_path / "b.sqlite3") as second:  # fmt: skip
        yield first, second


def test_a_checkers_game_with_the_host_on_one_process_and_the_guest_on_the_other(
    redis_server: RedisServer, two_servers: tuple[str, str]
) -> None:
    match = Match(redis_server.url, "checkers", {}, two_servers, seed=36)
    try:
        match.play(16)
        match.draw()
        _same_game(match)
        assert match.seats["white"].view["outcome"] == {"winner": None, "reason": "agreement",
                                                       "points": 0}  # fmt: skip
        infos = [httpx.get(f"http://{host}/api/rooms/{match.code}", timeout=5).json()
                 for host in two_servers]  # fmt: skip
        assert infos[0] == infos[1]
        assert infos[0]["names"] == {"white": "Ann", "black": "Bob"}
        # the stream holds every accepted step once, in order of version
        entries = match.redis.xrange(f"gt:room:{match.code}:events")
        versions = [int(f[b"v"]) for _, f in entries if json.loads(f[b"e"])["kind"] != "seat"]
        assert versions == list(range(1, len(versions) + 1))
        assert len(versions) == 1 + 1 + match.accepted + 2  # create, join, steps, the draw
    finally:
        match.close()


def test_a_backgammon_game_by_commit_reveal_across_two_processes(
    redis_server: RedisServer, two_servers: tuple[str, str]
) -> None:
    match = Match(redis_server.url, "backgammon", {"length": 1}, two_servers, seed=7)
    try:
        match.play(600)
        _same_game(match)
        room = match.stored()
        rolls = [e for e in room.table.game.log()[0]["games"][0]["events"]
                 if e["type"] in ("roll", "opening_roll")]  # fmt: skip
        assert len(rolls) > 10
        assert all("given" in e for e in rolls)  # every roll came from a round's secrets
    finally:
        match.close()


def test_a_process_stopped_mid_game_and_the_game_finished_through_the_other(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    with ExitStack() as stack:
        survivor = stack.enter_context(game_server(redis_server.url, tmp_path / "b.sqlite3"))
        with game_server(redis_server.url, tmp_path / "a.sqlite3") as doomed:
            match = Match(redis_server.url, "checkers", {}, (doomed, survivor), seed=5)
            stack.callback(match.close)
            match.play(6)
            before = match.stored().version
        # the host's process is gone: its player comes back through the other one
        match.seats["white"] = Seat(survivor, match.code, match.tokens["white"])
        assert match.seats["white"].view["room"]["version"] == before
        match.play(6)
        match.draw()
        _same_game(match)


def test_a_redis_restart_mid_game_loses_nothing_acknowledged(
    redis_server: RedisServer, two_servers: tuple[str, str]
) -> None:
    match = Match(redis_server.url, "checkers", {}, two_servers, seed=11)
    try:
        match.play(8)
        acknowledged = match.seats["white"].view["room"]["version"]
        redis_server.kill()  # SIGKILL: only the AOF (fsync always) survives
        redis_server.start()
        assert match.stored().version == acknowledged
        _retry_until_accepted(match)
        match.play(6)
        match.draw()
        _same_game(match)
    finally:
        match.close()


def _retry_until_accepted(match: Match, seconds: float = 15.0) -> list[str]:
    """Send the next step until a server takes it (it answers ``unavailable`` meanwhile);
    returns the refusals' codes."""
    codes: list[str] = []
    deadline = time.monotonic() + seconds
    while True:
        side, message = match.next_message()
        answer = match.send(side, message)
        if answer["type"] == "view":
            other = "black" if side == "white" else "white"
            match.seats[other].wait_version(answer["view"]["room"]["version"])
            return codes
        codes.append(answer["code"])
        assert answer["code"] == "unavailable", answer
        assert time.monotonic() < deadline, "the servers did not recover"
        time.sleep(0.2)


def test_redis_down_refuses_with_unavailable_then_recovers(
    redis_server: RedisServer, two_servers: tuple[str, str]
) -> None:
    match = Match(redis_server.url, "checkers", {}, two_servers, seed=3)
    try:
        match.play(4)
        room = match.stored()
        side = sorted(room.table.game.to_act())[0]
        action = CHECKERS.computer_action(room.table.game, side, "easy", random.Random(1))
        version = match.seats[side].view["room"]["version"]
        redis_server.stop()
        answer = match.send(side, {"type": "action", "action": action})
        assert answer["type"] == "error" and answer["code"] == "unavailable", answer
        assert "nothing was done" in answer["message"]
        state = match.send(side, {"type": "state"})  # nothing half-applied
        assert state["type"] == "error" or state["view"]["room"]["version"] == version
        made = httpx.post(f"http://{two_servers[0]}/api/rooms", json={"game": "checkers"},
                          timeout=10)  # fmt: skip
        assert made.status_code == 503 and made.json()["error"]["code"] == "unavailable"
        redis_server.start()  # the same AOF: the room is there
        codes = _retry_until_accepted(match)
        assert set(codes) <= {"unavailable"}
        assert match.stored().version == version + 1
        match.draw()
        _same_game(match)
    finally:
        match.close()


def test_two_processes_racing_the_same_action_exactly_one_is_accepted(
    redis_server: RedisServer,
) -> None:
    async def race() -> None:
        services = [SharedRoomService(GAMES, RedisRoomStore(redis_server.url)) for _ in "ab"]
        try:
            first, second = services
            code, white, _side, _view = await first.open_room(
                "checkers", {}, "none", name="Ann", side="white", owner="10.0.0.1"
            )
            await second.join_room(code, "Bob")
            room = (await first._fresh(code)).room
            move = CHECKERS.computer_action(room.table.game, "black", "easy", random.Random(2))
            assert sorted(room.table.game.to_act()) == ["black"]
            # both processes hold the room at the same version; both take the same move
            await first._fresh(code)
            await second._fresh(code)
            results = await asyncio.gather(
                *(s.message(code, "black", {"type": "action", "action": move})
                  for s in services),
                return_exceptions=True,
            )
            accepted = [r for r in results if isinstance(r, list)]
            refused = [r for r in results if not isinstance(r, list)]
            assert len(accepted) == 1 and len(refused) == 1, results
            assert getattr(refused[0], "code", None) == "not_your_turn", refused
            stored = await first.redis_store.load(code)
            assert stored is not None and stored.version == 3  # create, join, one move
            events = await first.redis_store.events(code, "0-0")
            assert [e.event["kind"] for e in events] == ["create", "join", "action"]
            # and both copies agree after catching up
            a, b = await first._fresh(code), await second._fresh(code)
            assert a.room.to_record()["table"]["log"] == b.room.to_record()["table"]["log"]
            assert white
        finally:
            for service in services:
                await service.stop()

    asyncio.run(race())


def test_a_flag_falls_once_whichever_processes_sweep(redis_server: RedisServer) -> None:
    async def flags() -> None:
        clock = [1000.0]
        services = [SharedRoomService(GAMES, RedisRoomStore(redis_server.url),
                                      now=lambda: clock[0], wall=lambda: clock[0])
                    for _ in "ab"]  # fmt: skip
        try:
            first, second = services
            code, _token, _side, _view = await first.open_room(
                "checkers", {}, "bullet", name="Ann", side="white", owner=None
            )
            await second.join_room(code, "Bob")
            room = (await second._fresh(code)).room
            move = CHECKERS.computer_action(room.table.game, "black", "easy", random.Random(4))
            await second.message(code, "black", {"type": "action", "action": move})
            clock[0] += 3600.0  # white, on move since, has run out of time long ago
            due = await first.redis_store.due(clock[0])
            assert due == [code]
            results = await asyncio.gather(first.due(code), second.due(code))
            ticked = [r for r in results if r]
            assert len(ticked) == 1
            events = await first.redis_store.events(code, "0-0")
            assert [e.event["kind"] for e in events] == ["create", "join", "action", "tick"]
            stored = await first.redis_store.load(code)
            assert stored is not None
            assert stored.record["table"]["log"]  # the timeout is in the log
            assert await first.redis_store.due(clock[0]) == []
            room = Room.from_record(stored.record, GAMES, time.monotonic)
            outcome = room.table.game.outcome()
            assert outcome is not None and outcome.reason == "time"
            assert outcome.winner == "black"
        finally:
            for service in services:
                await service.stop()

    asyncio.run(flags())


def test_per_address_room_limit_is_shared_by_the_processes(redis_server: RedisServer) -> None:
    async def limit() -> None:
        services = [SharedRoomService(GAMES, RedisRoomStore(redis_server.url), max_per_owner=2)
                    for _ in "ab"]  # fmt: skip
        try:
            for service in services:
                await service.open_room("checkers", {}, "none", name="", side="white",
                                        owner="10.0.0.9")  # fmt: skip
            with pytest.raises(Exception) as refused:
                await services[0].open_room("checkers", {}, "none", name="", side="white",
                                            owner="10.0.0.9")  # fmt: skip
            assert getattr(refused.value, "code", None) == "too_many_rooms"
            await services[1].open_room("checkers", {}, "none", name="", side="white",
                                        owner="10.0.0.10")  # fmt: skip
        finally:
            for service in services:
                await service.stop()

    asyncio.run(limit())


def test_serve_takes_a_redis_url() -> None:
    from backgammon.cli.common import UsageError
    from backgammon.cli.serve_command import _redis_url

    assert _redis_url(None) is None
    assert _redis_url("redis://127.0.0.1:6379/2") == "redis://127.0.0.1:6379/2"
    with pytest.raises(UsageError, match="redis://HOST:PORT/DB"):
        _redis_url("127.0.0.1:6379")
    assert os.environ.get("NO_SUCH_VARIABLE_FOR_REDIS") is None


def test_a_claim_against_a_player_gone_from_another_process(redis_server: RedisServer) -> None:
    async def claim() -> None:
        clock = [5000.0]
        services = [SharedRoomService(GAMES, RedisRoomStore(redis_server.url),
                                      now=lambda: clock[0], wall=lambda: clock[0])
                    for _ in "ab"]  # fmt: skip
        try:
            first, second = services
            code, _token, _side, _view = await first.open_room(
                "checkers", {}, "none", name="Ann", side="white", owner=None
            )
            await second.join_room(code, "Bob")
            await first.seat_connected(code, "white")
            await second.seat_connected(code, "black")
            held = await first._fresh(code)
            assert held.room.connections == {"white": 1, "black": 1}
            marks = await first.redis_store.seats_many([code, "NOSUCH"])
            assert marks == {code: {"white": f"on|{first.process}|{5000.0 + 15.0!r}",
                                    "black": f"on|{second.process}|{5000.0 + 15.0!r}"},
                             "NOSUCH": {}}  # fmt: skip
            # black (on move) is connected to the other process: no claim
            with pytest.raises(Exception) as early:
                await first.message(code, "white", {"type": "claim"})
            assert getattr(early.value, "code", None) == "not_claimable"
            await second.seat_disconnected(code, "black")
            clock[0] += 121.0
            held = await first._fresh(code)  # the seat event read from the stream
            assert held.room.connections == {"white": 1, "black": 0}
            assert held.room.claimable() == "black"
            out = await first.message(code, "white", {"type": "claim"})
            assert out[0].payload["view"]["outcome"]["winner"] == "white"
            stored = await second.redis_store.load(code)
            assert stored is not None
            room = Room.from_record(stored.record, GAMES, time.monotonic)
            outcome = room.table.game.outcome()
            assert outcome is not None and outcome.winner == "white"
        finally:
            for service in services:
                await service.stop()

    asyncio.run(claim())


def _timed(room: Room) -> tuple[str, float]:
    """The side being timed now and its time left: a round's awaited side (its wait) or the
    side whose clock runs."""
    clock = room.table.clock
    assert clock is not None
    if room.round is not None:
        side = sorted(room.round.awaiting())[0]
        left = room.wait_left(side)
        assert left is not None
        return side, left
    assert clock.running is not None
    return clock.running, clock.remaining(clock.running)


def _services(url: str, clock: list[float], count: int = 2) -> list[SharedRoomService]:
    """``count`` processes' services on one fake clock (monotonic and wall alike)."""
    return [SharedRoomService(GAMES, RedisRoomStore(url, timeout=0.5), now=lambda: clock[0],
                              wall=lambda: clock[0]) for _ in range(count)]  # fmt: skip


@pytest.mark.parametrize("game", ["checkers", "backgammon"])
def test_the_clocks_are_not_charged_for_a_redis_outage_on_any_process(
    redis_server: RedisServer, game: str
) -> None:
    async def outage() -> None:
        clock = [1000.0]
        first, second, third = services = _services(redis_server.url, clock, 3)
        try:
            code, _token, _side, _view = await first.open_room(
                game, {"length": 1} if game == "backgammon" else {}, "blitz", name="Ann",
                side="white", owner=None,
            )
            await second.join_room(code, "Bob")
            await first.seat_connected(code, "white")
            await second.seat_connected(code, "black")
            by_side = {"white": first, "black": second}
            rng, secrets = random.Random(8), {}
            side, message = next_message((await second._fresh(code)).room, rng, secrets)
            await by_side[side].message(code, side, message)  # a move, or a round opened
            clock[0] += 10.0
            timed, before = _timed((await first._fresh(code)).room)
            assert before == 170.0  # blitz: 180 s, 10 of them used
            assert _timed((await second._fresh(code)).room) == (timed, 170.0)
            side, message = next_message((await first._fresh(code)).room, rng, secrets)
            assert side == timed
            redis_server.stop()
            clock[0] += 1.0  # both processes find Redis gone at 1011
            with pytest.raises(ActionRefused) as refused:
                await by_side[side].message(code, side, message)
            assert refused.value.code == "unavailable"
            with pytest.raises(ActionRefused):
                await by_side["black" if side == "white" else "white"]._fresh(code)
            clock[0] += 300.0  # far longer than the 169 s left
            redis_server.start()
            for service in (first, second):
                room = (await service._fresh(code)).room  # Redis answers: the outage given back
                assert _timed(room) == (timed, 169.0)
                assert room.table.game.outcome() is None
            # a process that held no copy rebuilds the room from the record saved at 1000,
            # charged 1311 - 1000 less the 300 s outage the others recorded in Redis
            assert await third.redis_store.outages() == [(1011.0, 1311.0)]
            assert _timed((await third._fresh(code)).room) == (timed, 169.0)
            clock[0] += 2.0
            await by_side[side].message(code, side, message)  # 13 s charged in all
            stored = await third.redis_store.load(code)
            assert stored is not None
            assert stored.record["table"]["log"]
            if game == "checkers":  # the move: 180 - 13 + the 4 s increment
                assert stored.record["table"]["clock"]["remaining"][side] == 171.0
            else:  # the round's wait: 180 - 13, charged when the step came
                assert stored.record["table"]["clock"]["remaining"][side] == 167.0
        finally:
            for service in services:
                await service.stop()

    asyncio.run(outage())


@pytest.mark.parametrize(("game", "steps"), [("checkers", 40), ("backgammon", 80)])
def test_the_other_process_applies_each_action_as_the_stored_record_has_it(
    redis_server: RedisServer, game: str, steps: int
) -> None:
    """Each action taken by one process reaches the other's copy by its stream event, at the
    writer's instant; the copy then equals the room rebuilt from the stored record."""

    async def play() -> None:
        clock = [2000.0]
        first, second = services = _services(redis_server.url, clock)
        try:
            code, _token, _side, _view = await first.open_room(
                game, {"length": 3} if game == "backgammon" else {}, "rapid", name="Ann",
                side="white", owner=None,
            )
            await second.join_room(code, "Bob")
            await first.seat_connected(code, "white")
            await second.seat_connected(code, "black")
            by_side = {"white": first, "black": second}
            rng, secrets = random.Random(36), {}
            taken = {"white": 0, "black": 0}
            for _ in range(steps):
                writer = await first._fresh(code)
                if writer.room.table.game.outcome() is not None:
                    break
                side, message = next_message(writer.room, rng, secrets)
                out = await by_side[side].message(code, side, message)
                assert out, message
                taken[side] += 1
                clock[0] += float(rng.randint(1, 6))  # read later than written
                reader = by_side["black" if side == "white" else "white"]
                copy = (await reader._fresh(code)).room
                stored = await reader.redis_store.load(code)
                assert stored is not None
                rebuilt = reader._rebuild(stored.record, stored.saved_at)
                assert copy.to_record() == rebuilt.to_record()
                assert copy.to_record() == (await by_side[side]._fresh(code)).room.to_record()
            assert min(taken.values()) > 5
            # every action reached the other process by its event, none by a rebuild
            assert (first.applied, first.rebuilt) == (taken["black"], 0)
            assert (second.applied, second.rebuilt) == (taken["white"], 0)
        finally:
            for service in services:
                await service.stop()

    asyncio.run(play())


def test_a_rematch_across_two_processes_pushes_each_seat_its_new_side(
    redis_server: RedisServer,
) -> None:
    """The seats swap sides in a rematch: each process pushes its own seat the view of the
    side it now plays, whichever process stored the rematch."""

    async def rematch() -> None:
        clock = [3000.0]
        first, second = services = _services(redis_server.url, clock)
        pushed: dict[str, list[Outgoing]] = {"first": [], "second": []}
        first.bind(lambda code, out: pushed["first"].extend(out), lambda code, side: None)
        second.bind(lambda code, out: pushed["second"].extend(out), lambda code, side: None)
        try:
            code, _token, _side, _view = await first.open_room(
                "checkers", {}, "none", name="Ann", side="white", owner=None
            )
            await second.join_room(code, "Bob")
            await first.seat_connected(code, "white")
            await second.seat_connected(code, "black")
            offer = {"type": "action", "action": {"type": "offer_draw"}}
            await second.message(code, "black", offer)
            await first._fresh(code)
            accept = {"type": "action", "action": {"type": "accept_draw"}}
            await first.message(code, "white", accept)
            await second._fresh(code)
            await first.message(code, "white", {"type": "rematch"})
            await second._fresh(code)
            out = await second.message(code, "black", {"type": "rematch"})
            # Bob (black so far, on the second process) now plays white
            assert [(o.side, o.payload["view"]["room"]["names"]["white"]) for o in out] == [
                ("white", "Bob")
            ]
            assert out[0].payload["rematch"] is True
            pushed["first"].clear()
            await first._fresh(code)  # Ann's process reads the rematch from the stream
            assert [(o.side, o.payload["view"]["room"]["you"]) for o in pushed["first"]] == [
                ("black", "black")
            ]
            assert pushed["first"][0].payload["rematch"] is True
            assert first._held[code].local == {"white": 0, "black": 1}
            assert second._held[code].local == {"white": 1, "black": 0}
            assert first.rebuilt == second.rebuilt == 0
            # the seats' marks swapped with the sides, in Redis and in both copies: each
            # process counts both players present, and its refresh finds its own mark
            marks = await first.redis_store.seats(code)
            assert marks["white"].startswith(f"on|{second.process}|")
            assert marks["black"].startswith(f"on|{first.process}|")
            assert first._held[code].seats == second._held[code].seats == marks
            for service in services:
                assert service._held[code].room.connections == {"white": 1, "black": 1}
            await first.redis_store.refresh_seats([(code, "black")], first.process, 9999.0, 600)
            assert (await first.redis_store.seats(code))["black"] == f"on|{first.process}|9999.0"
        finally:
            for service in services:
                await service.stop()

    asyncio.run(rematch())


def test_a_seat_that_leaves_a_finished_game_is_kept_for_the_other_process(
    redis_server: RedisServer,
) -> None:
    """Bob leaves a finished game on his process: Ann's process is pushed her view saying so
    (``room.left``), and the room's record in Redis keeps it (a later read says it too)."""

    async def leave() -> None:
        clock = [5000.0]
        first, second = services = _services(redis_server.url, clock)
        pushed: list[Outgoing] = []
        first.bind(lambda code, out: pushed.extend(out), lambda code, side: None)
        second.bind(lambda code, out: None, lambda code, side: None)
        try:
            code, _token, _side, _view = await first.open_room(
                "checkers", {}, "none", name="Ann", side="white", owner=None
            )
            await second.join_room(code, "Bob")
            await first.seat_connected(code, "white")
            await second.seat_connected(code, "black")
            await first._fresh(code)
            await first.message(code, "white", {"type": "action",
                                                "action": {"type": "resign"}})  # fmt: skip
            await second._fresh(code)
            out = await second.message(code, "black", {"type": "leave"})
            assert [o.payload["view"]["room"]["left"] for o in out] == [["black"]]
            pushed.clear()
            await first._fresh(code)  # Ann's process reads the leave from the stream
            assert [(o.side, o.payload["view"]["room"]["left"]) for o in pushed] == [
                ("white", ["black"])]
            third = _services(redis_server.url, clock, 1)[0]
            services.append(third)
            assert (await third._fresh(code)).room.left == {"black"}  # from the record
        finally:
            for service in services:
                await service.stop()

    asyncio.run(leave())


def test_an_outage_not_recorded_at_once_is_recorded_later(redis_server: RedisServer) -> None:
    async def later() -> None:
        clock = [4000.0]
        (service,) = _services(redis_server.url, clock, 1)
        try:
            service._unpublished.append((3990.0, 3995.0))
            redis_server.stop()
            await service._publish_outages()  # Redis is gone again: kept for later
            assert service._unpublished == [(3990.0, 3995.0)]
            redis_server.start()
            clock[0] += 7.0
            await service._publish_outages()  # the heartbeat's retry
            assert service._unpublished == []
            assert await service.redis_store.outages() == [(3990.0, 3995.0), (4000.0, 4007.0)]
            assert service._overlap(3980.0, 4010.0) == 12.0
        finally:
            await service.stop()

    asyncio.run(later())


def test_an_untimed_claim_opens_later_by_the_outages_since_the_player_left(
    redis_server: RedisServer,
) -> None:
    """A claim against a gone player waits CLAIM_AFTER seconds of time when actions could be
    taken: an outage of the room store since the player left moves it later, on the
    process that saw the outage and on one that only reads it."""

    async def claim() -> None:
        clock = [5000.0]
        first, second = services = _services(redis_server.url, clock)
        try:
            code, _token, _side, _view = await first.open_room(
                "checkers", {}, "none", name="Ann", side="white", owner=None
            )
            await second.join_room(code, "Bob")
            await first.seat_connected(code, "white")
            await second.seat_connected(code, "black")
            await first._fresh(code)
            await second.seat_disconnected(code, "black")  # Black, to move, is gone at 5000
            clock[0] += 10.0
            await first._recovered(5005.0, 5035.0)  # Redis was out of reach for 30 s
            clock[0] += 100.0
            copy = await first._fresh(code)
            assert copy.room.gone_for("black") == pytest.approx(80.0)
            assert copy.room.next_deadline() == pytest.approx(clock[0] + 40.0)
            other = await second._fresh(code)
            await second.redis_store.ping()
            second._learn_outages(await second.redis_store.outages())
            second._presence(other)
            assert other.room.gone_for("black") == pytest.approx(80.0)
            clock[0] += 41.0
            first._presence(copy)
            assert copy.room.claimable() == "black"
        finally:
            for service in services:
                await service.stop()

    asyncio.run(claim())


def test_a_timed_room_before_its_clock_starts_opens_a_claim_once(
        redis_server: RedisServer) -> None:
    """Before checkers' first move no clock runs: the first mover who never moves may be
    claimed against after the reserve (bullet: 60 s); the sweep opens that claim once and
    then has no deadline in the past to spin on."""
    async def claim() -> None:
        clock = [1000.0]
        service = SharedRoomService(GAMES, RedisRoomStore(redis_server.url),
                                    now=lambda: clock[0], wall=lambda: clock[0])
        try:
            code, _token, _side, _view = await service.open_room(
                "checkers", {}, "bullet", name="Ann", side="white", owner=None)
            await service.join_room(code, "Bob")
            for side in ("white", "black"):
                await service.seat_connected(code, side)
            clock[0] += 61.0  # Black, to move first, has not moved
            assert await service.redis_store.due(clock[0]) == [code]
            opened = await service.due(code)
            assert opened and opened[0][0] == code
            assert await service.redis_store.due(clock[0]) == []  # announced: no spin
            room = (await service._fresh(code)).room
            view = room.view("white")["room"]
            assert view["can_claim"] and view["claim_cause"] == "thinking"
            assert room.table.clock is not None and room.table.clock.running is None
        finally:
            await service.stop()

    asyncio.run(claim())
