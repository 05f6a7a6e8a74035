"""Load test of online play: N rooms of scripted clients playing whole games over WebSockets
at the door every game shares (``/api/rooms``, ``/ws/rooms``: :mod:`gametable.online`).

    python bench/online_load.py [--rooms 200] [--game checkers|backgammon|mixed]
                                [--think-ms 200] [--seed 1] [--limit 300] [--default-gc]
                                [--loop auto|asyncio] [--profile PATH]
                                [--store file|memory|none] [--actions N]
                                [--time-control none|bullet|blitz|rapid]
                                [--pieces] [--json PATH] [--whole-views]
                                [--redis [URL]] [--processes N] [--rebuild-copies]
                                [--in-process]

(``--door tables`` is accepted: it is the only door; backgammon's older door is gone.)

The server is :func:`gametable.online.install` on a :class:`gametable.rooms.RoomService` for
both games with its SQLite :class:`~gametable.room_store.RoomStore` (``--store``: an SQLite
file in a temporary folder, WAL, ``synchronous=NORMAL``, every accepted message saved before
it is relayed: a step a message, the room's whole record now and then), under uvicorn in this
process on a free port of 127.0.0.1 only (:func:`start_server`, the one place a server is
made). The scripted clients run in one child process (Python runs one core per process, and
this machine has two), each room one coroutine driving both players over real WebSockets
(the ``websockets`` client). Each room (``--game``: all checkers, all backgammon, or
``mixed``, alternating) is made by ``POST /api/rooms`` and joined by ``POST
/api/rooms/{code}/join``; its two players open ``WS /ws/rooms/{code}``, say ``hello`` with
their tokens and play a whole game (or ``--actions N`` messages): checkers a random path of
the mover's view's ``state.legal``; backgammon its rolls by commit-reveal rounds with fresh
32-byte secrets (the opening's: both commit, both reveal; then the roller's commit, the
opponent's secret, the roller's reveal; the dice the views show are checked against the
secrets) and a random whole play of the view's board and dice (the view's ``legal`` lists
single checker moves, so the client's engine lists the whole plays, as the page's replica
checks them). Every message carries a ``ref``; its latency is the time from the send to the
sender's own view (the answer with that ``ref``), and the opponent's pushed view is timed too.
Once every room is over (nothing timed waits on it), each finished room's file (``.mat``,
``.pdn``) is downloaded by each seat through its own process, and must be the same for both
and replay, by the game's own rules (``backgammon.records.mat.read_and_replay``,
``checkers.pdn``), to the outcome both players were sent.

Pacing: with ``--think-ms N`` (default 200) a player takes N ms on average (0.5N to 1.5N)
before each move and each commit of a roll; the pages' dice answers (``secret``,
``reveal``) never wait. That is still ten times faster than people play (a real turn takes
several seconds), so 200 rooms here send more than 200 real games would. ``--think-ms 0`` is
a saturation test: every room sends its next message the moment it has the last answer.

It prints p50, p95, p99, p99.9 and max, the server's messages in and out per second, each
store write's time, and with ``--pieces`` the time of each piece of the server's work
(:data:`PIECES`: the room, its views, its record, the save, the dispatch); ``--json PATH``
writes the summary. The clients ask for patches in their hello, as ``room_client.js`` does
(each view after a connection's first comes as the JSON Patch from the one before, applied by
the client with :func:`gametable.wire.apply_patch`); ``--whole-views`` makes them take every
view whole. Both processes run as ``backgammon serve`` does: uvloop when it is installed
(``--loop asyncio`` for the standard loop) and the garbage collector tuned by
:func:`backgammon.server.runtime.tune_gc` (``--default-gc`` for Python's defaults); the last
lines give each process's collector pauses and event-loop lag (how late a 10 ms sleep woke
up: time the process wanted the CPU and did not get it, or spent in one long step).

Every loop is bounded: a room gives up after :data:`MAX_TABLE_ACTIONS` messages, the clients
after ``--limit`` seconds, and the script stops by itself. Traffic goes to 127.0.0.1 only.
The exit status is 0 when every room completed, every message was answered and p99 met
``--target-ms``.

**In process** (``--in-process``): no server, no network, no clients: the same games played
through the room service in this process, one message a room in turn, each message handled
as the door handles it (the room's clock checked, the message with its save, each view's
frame: the patch from the seat's last view and its JSON), and the server's CPU time a message
summed from its thread time, with the collector's share: a figure the machine's other load
hardly moves.

**Rooms on Redis** (``--redis [URL] [--processes N]``): the rooms live in Redis
(:mod:`gametable.redis_rooms`, as ``backgammon serve --redis URL`` keeps them); without a URL
the bench starts a redis-server of its own on a free port in a temporary folder (AOF on,
``appendfsync everysec``). With ``--processes N`` there are N server processes, each room's
host connected to one and its guest to the next, so every action crosses from one process to
the other through Redis (its script, its stream, the doorbell). It prints Redis's CPU time per
message and its commands' time (``INFO commandstats``), and each server process's CPU seconds.
``--rebuild-copies`` makes a process rebuild its copy of a room from the stored record for
each action of the other process, as before the copies applied the stream's events.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import resource
import socket
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

HOST = "127.0.0.1"


# ------------------------------------------------------------------ the tables door (gametable)


@dataclass
class TableRoomResult:
    """What one room's script saw at the game-agnostic door (``--door tables``).

    ``latencies`` holds one ``(sent at, own view after, opponent's view after, kind)`` per
    message sent in play (seconds; kind ``action``, ``commit``, ``secret`` or ``reveal``).
    """

    game: str = ""
    ok: bool = False
    error: str = ""
    finished: bool = False
    actions: int = 0
    answered: int = 0
    dice_checked: int = 0
    sent: int = 0
    received: int = 0
    outcome: dict[str, Any] | None = None
    latencies: list[tuple[float, float, float, str]] = field(default_factory=list)
    #: The room's code, each seat's token and the port of the process it played through.
    code: str = ""
    seats: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: Once every room is over: the room's file as each seat downloaded it was the same, and
    #: the rules replayed it to the outcome both were sent ("" when checked and good).
    record_error: str | None = None


class _Player:
    """One seat's WebSocket and the last view it was sent."""

    def __init__(self, ws: Any, side: str) -> None:
        self.ws = ws
        self.side = side
        self.view: dict[str, Any] = {}


class _TableRoomScript:
    """Both players of one room at ``/ws/rooms``, played by one coroutine: every message
    carries a ``ref``; the server answers the sender with its own view (``ref`` echoed) and
    pushes the opponent's view, and both are timed from the send."""

    def __init__(self, result: TableRoomResult, rng: random.Random, think: float,
                 actions: int, time_control: str, patches: bool = True) -> None:
        self.result = result
        self.rng = rng
        self.think = think
        self.max_actions = actions
        self.time_control = time_control
        self.patches = patches
        self.ref = 0

    async def read(self, player: _Player) -> dict[str, Any]:
        """The next frame, a view (a patch applied to the player's last view, as the page's
        room_client.js applies it, and handed on as a whole view)."""
        from gametable.wire import apply_patch

        async with asyncio.timeout(30):
            text = await player.ws.recv()
        self.result.received += 1
        frame: dict[str, Any] = json.loads(text)
        if frame.get("type") == "patch" and self.patches and player.view:
            frame["view"] = apply_patch(player.view, frame.pop("patch"))
            frame["type"] = "view"
        if frame.get("type") != "view":
            raise RuntimeError(f"{player.side} got {str(frame)[:300]}")
        player.view = frame["view"]
        return frame

    async def sync(self, player: _Player) -> None:
        """Ask for the view and read up to its answer (the views pushed on connecting)."""
        self.ref += 1
        ref = self.ref
        await player.ws.send(json.dumps({"type": "state", "ref": ref}))
        self.result.sent += 1
        while (await self.read(player)).get("ref") != ref:
            pass

    async def step(self, sender: _Player, other: _Player, payload: dict[str, Any], *,
                   human: bool) -> dict[str, Any]:
        """Send one message (after a person's thinking time, for a person's move), and read
        the sender's own view (its ``ref``) and the opponent's pushed view, each timed."""
        if human and self.think:
            await asyncio.sleep(self.think * (0.5 + self.rng.random()))
        self.ref += 1
        ref = self.ref
        text = json.dumps({**payload, "ref": ref})
        start = time.perf_counter()
        await sender.ws.send(text)
        self.result.sent += 1
        self.result.actions += 1

        async def theirs() -> float:
            await self.read(other)
            return time.perf_counter() - start

        pushed = asyncio.create_task(theirs())
        try:
            mine = await self.read(sender)
            own = time.perf_counter() - start
        except BaseException:
            pushed.cancel()
            raise
        opponent = await pushed
        if mine.get("ref") != ref:
            raise RuntimeError(f"the answer to ref {ref} came with ref {mine.get('ref')!r}")
        self.result.answered += 1
        if sender.view["room"]["version"] != other.view["room"]["version"]:
            raise RuntimeError("the two sides' views are at different versions")
        self.result.latencies.append((start, own, opponent, payload["type"]))
        return mine

    async def run(self, http: Any, port: int, guest_port: int | None = None) -> None:
        """Play the room: the host makes it and plays through ``port``, the guest joins and
        plays through ``guest_port`` (another server process; default the same)."""
        import httpx
        from websockets.asyncio.client import connect

        game = self.result.game
        guest_port = port if guest_port is None else guest_port
        for attempt in range(3):  # a pooled connection the server closed meanwhile: retry
            try:
                made = await http.post(f"http://{HOST}:{port}/api/rooms", json={
                    "game": game, "settings": {}, "time_control": self.time_control,
                    "side": "white", "name": "Host"})
                made.raise_for_status()
                code = made.json()["code"]
                joined = await http.post(f"http://{HOST}:{guest_port}/api/rooms/{code}/join",
                                         json={"name": "Guest"})
                joined.raise_for_status()
                break
            except httpx.TransportError:
                if attempt == 2:
                    raise
        tokens = {made.json()["side"]: made.json()["token"],
                  joined.json()["side"]: joined.json()["token"]}
        self.result.code = code
        self.result.seats = {made.json()["side"]: (made.json()["token"], port),
                             joined.json()["side"]: (joined.json()["token"], guest_port)}
        uris = {made.json()["side"]: f"ws://{HOST}:{port}/ws/rooms/{code}",
                joined.json()["side"]: f"ws://{HOST}:{guest_port}/ws/rooms/{code}"}
        async with connect(uris["white"], compression=None, max_size=1 << 20,
                           open_timeout=30) as w_ws, \
                connect(uris["black"], compression=None, max_size=1 << 20,
                        open_timeout=30) as b_ws:
            players = {"white": _Player(w_ws, "white"), "black": _Player(b_ws, "black")}
            # One hello at a time, each followed by a state request read up to its answer, and
            # White's once more: every view pushed on connecting is read before play starts.
            for side, player in players.items():
                hello: dict[str, Any] = {"type": "hello", "token": tokens[side]}
                if self.patches:
                    hello["patch"] = True
                await player.ws.send(json.dumps(hello))
                self.result.sent += 1
                await self.sync(player)
            await self.sync(players["white"])
            await self.play(players)

    async def play(self, players: dict[str, _Player]) -> None:
        white, black = players["white"], players["black"]
        while white.view["outcome"] is None:
            if self.max_actions and self.result.actions >= self.max_actions:
                self.result.ok = True
                return
            if self.result.actions > MAX_TABLE_ACTIONS:
                raise RuntimeError(f"no result after {MAX_TABLE_ACTIONS} messages")
            room = white.view["room"]
            if room["round"] is None and room["chance_due"]:
                await self.roll(players, room["chance_due"], room["next_round"])
                continue
            to_act = white.view["to_act"]
            if len(to_act) != 1:
                raise RuntimeError(f"the game waits on {to_act} outside a round")
            mover = players[to_act[0]]
            other = players["black" if mover.side == "white" else "white"]
            action = self.choose(mover.view["state"])
            await self.step(mover, other, {"type": "action", "action": action}, human=True)
        if white.view["outcome"] != black.view["outcome"]:
            raise RuntimeError("the two sides were sent different outcomes")
        self.result.outcome = white.view["outcome"]
        self.result.finished = True
        self.result.ok = True

    def choose(self, state: dict[str, Any]) -> dict[str, Any]:
        """A random legal move read off the mover's view: checkers lists its legal paths
        (``state.legal``); backgammon's view gives the board and the dice, and its ``legal``
        lists single checker moves only, so the whole plays are listed from those by the
        engine on the client (as the page's own replica checks a play)."""
        if self.result.game == "checkers":
            legal = state["legal"]
            if not legal:
                raise RuntimeError("checkers: the mover's view lists no legal move")
            return {"type": "move", "path": legal[self.rng.randrange(len(legal))]}
        from backgammon.core.moves import legal_plays
        from backgammon.core.position import Position

        if state["phase"] != "move":
            raise RuntimeError(f"backgammon: the mover's view is in phase {state['phase']!r}")
        position = Position.from_points(state["board"]["points"], state["turn"])
        dice = state["dice"]
        plays = legal_plays(position, (int(dice[0]), int(dice[1])))
        if not len(plays):
            raise RuntimeError("backgammon: a move phase with no legal play")
        return {"type": "move", "play": str(plays[self.rng.randrange(len(plays))])}

    async def roll(self, players: dict[str, _Player], due: list[str], number: int) -> None:
        """A commit-reveal round with fresh 32-byte secrets: the opening's (both commit, then
        both reveal) or a roll's (commit, the opponent's secret, reveal); the dice the views
        show are checked against the secrets, as the page checks them."""
        from backgammon.core.dice import dice_from_secrets
        from gametable.fair import commitment_of

        white, black = players["white"], players["black"]
        if len(due) == 2:
            secrets = {"white": self.rng.randbytes(32), "black": self.rng.randbytes(32)}
            for player, other in ((white, black), (black, white)):
                await self.step(player, other, {"type": "commit", "round": number,
                                                "commitment": commitment_of(secrets[player.side])},
                                human=True)
            await self.step(white, black, {"type": "reveal", "round": number,
                                           "secret": secrets["white"].hex()}, human=False)
            frame = await self.step(black, white, {"type": "reveal", "round": number,
                                                   "secret": secrets["black"].hex()}, human=False)
            dice = dice_from_secrets(secrets["white"], secrets["black"], number)
            opening = frame["view"]["state"]["opening"]
            if dice[0] != dice[1] and opening is not None:
                if (opening["white"], opening["black"]) != tuple(dice):
                    raise RuntimeError(f"opening {opening} is not the secrets' {dice}")
                self.result.dice_checked += 1
            return
        roller = players[due[0]]
        other = black if roller is white else white
        mine, theirs = self.rng.randbytes(32), self.rng.randbytes(32)
        await self.step(roller, other, {"type": "commit", "round": number,
                                        "commitment": commitment_of(mine)}, human=True)
        await self.step(other, roller, {"type": "secret", "round": number,
                                        "secret": theirs.hex()}, human=False)
        frame = await self.step(roller, other, {"type": "reveal", "round": number,
                                                "secret": mine.hex()}, human=False)
        dice = dice_from_secrets(mine, theirs, number)
        state = frame["view"]["state"]
        if state["turn"] == roller.side and state["dice"]:
            if sorted(state["dice"][:2]) != sorted(dice):
                raise RuntimeError(f"dice {state['dice']} are not the secrets' {dice}")
            self.result.dice_checked += 1


#: A room at the tables door gives up after this many messages.
MAX_TABLE_ACTIONS = 12000


def _table_game(game: str, index: int) -> str:
    """The game room ``index`` plays: ``mixed`` alternates checkers and backgammon."""
    if game == "mixed":
        return "checkers" if index % 2 == 0 else "backgammon"
    return game


async def _clients(port: int, args: argparse.Namespace,
                   ports: list[int] | None = None) -> dict[str, Any]:
    import httpx

    watch = _Watch()
    probe = asyncio.create_task(watch.run_lag_probe())
    rng = random.Random(args.seed)
    think = args.think_ms / 1000
    results = [TableRoomResult(game=_table_game(args.game, i)) for i in range(args.rooms)]
    limits = httpx.Limits(max_connections=50)
    http = httpx.AsyncClient(base_url=f"http://{HOST}:{port}", timeout=30, limits=limits)

    async def one(index: int) -> None:
        room_rng = random.Random(rng.random())
        try:
            # several server processes: each room's host on one, its guest on the next
            host, guest = ((port, port) if not ports else
                           (ports[index % len(ports)], ports[(index + 1) % len(ports)]))
            await _TableRoomScript(results[index], room_rng, think, args.actions,
                                   args.time_control, not args.whole_views).run(
                http, host, guest)
        except Exception as exc:  # a room's failure is reported, not raised
            results[index].error = f"{type(exc).__name__}: {exc}"[:300]

    start = time.perf_counter()
    tasks = [asyncio.create_task(one(i)) for i in range(args.rooms)]
    _done, pending = await asyncio.wait(tasks, timeout=args.limit)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    elapsed = time.perf_counter() - start
    probe.cancel()
    # every room is over (nothing timed is waiting): each finished room's file, as each seat
    # downloads it through its own process, compared and replayed by the game's own rules
    for result in results:
        if result.finished:
            result.record_error = await _check_record(http, result)
    await http.aclose()
    for index, task in enumerate(tasks):
        if task in pending and not results[index].error:
            results[index].error = f"not finished within {args.limit:g} s"
    usage = resource.getrusage(resource.RUSAGE_SELF)
    summary = watch.summary()
    return {
        "elapsed": elapsed,
        "cpu": usage.ru_utime + usage.ru_stime,
        "watch": summary,
        "results": [r.__dict__ for r in results],
    }


async def _check_record(http: Any, result: TableRoomResult) -> str:
    """"" when both seats download the same file of the room's game and the game's rules
    replay it to the outcome both were sent; else what is wrong."""
    fmt = "mat" if result.game == "backgammon" else "pdn"
    texts = []
    for token, port in result.seats.values():
        answer = await http.get(f"http://{HOST}:{port}/api/rooms/{result.code}/export.{fmt}",
                                headers={"X-Seat-Token": token})
        if answer.status_code != 200:
            return f"export.{fmt}: {answer.status_code} {answer.text[:100]}"
        texts.append(answer.text)
    if texts[0] != texts[1]:
        return f"the two seats' .{fmt} files differ"
    outcome = result.outcome or {}
    try:
        if fmt == "mat":
            from backgammon.records.mat import read_and_replay

            match = read_and_replay(texts[0]).match
            winner = match.winner if match.length else match.current.outcome
            if winner is None:
                return "the .mat replays to no result"
            side = winner.name.lower() if match.length else winner.winner.name.lower()
        else:
            from checkers.pdn import read_pdn_game

            # the rooms play the tables' draws ("claim": a game goes on past an unclaimed
            # repetition), so the file replays under the same rule
            ended = read_pdn_game(texts[0]).to_game(draws="claim").outcome
            if ended is None:
                return "the .pdn replays to no result"
            side = None if ended.winner is None else ended.winner.name.lower()
    except Exception as exc:  # a file the rules refuse is this room's failure
        return f"the .{fmt} does not replay: {type(exc).__name__}: {exc}"[:300]
    if side != outcome.get("winner"):
        return f"the .{fmt} replays to {side!r}, the room said {outcome.get('winner')!r}"
    return ""


class _Watch:
    """Where a process lost time: garbage collector pauses (seconds, per generation) and the
    event loop's lag (how late a 10 ms sleep wakes up: time the process could not run)."""

    def __init__(self) -> None:
        import gc

        self.gc_pauses: list[tuple[int, float]] = []
        self.lags: list[float] = []
        self._started = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.gc_pauses.append((info["generation"], time.perf_counter() - self._started))

    async def run_lag_probe(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(0.01)
            self.lags.append(time.perf_counter() - start - 0.01)

    def summary(self) -> dict[str, float]:
        full = [pause for generation, pause in self.gc_pauses if generation == 2]
        lags = sorted(self.lags) or [0.0]
        return {
            "gc_runs": len(self.gc_pauses), "gc_full": len(full),
            "gc_total": sum(pause for _, pause in self.gc_pauses),
            "gc_max": max((pause for _, pause in self.gc_pauses), default=0.0),
            "gc_full_max": max(full, default=0.0),
            "lag_p99": lags[int(len(lags) * 0.99)], "lag_max": lags[-1],
            "lag_over_100ms": sum(1 for lag in lags if lag > 0.1),
        }


def _client_process(port: int, args: argparse.Namespace, out: Any,
                    ports: list[int] | None = None) -> None:
    from backgammon.server.runtime import tune_gc

    if not args.default_gc:
        tune_gc()
    with asyncio.Runner(loop_factory=_loop_factory(args.loop)) as runner:
        summary = runner.run(_clients(port, args, ports))
    out.put(summary)


def _loop_factory(name: str) -> Any:
    """The event loop both processes run: ``auto`` is uvloop when it is installed, as
    ``backgammon serve`` (uvicorn's ``loop="auto"``) chooses; ``asyncio`` the standard one."""
    if name == "auto":
        try:
            import uvloop
        except ImportError:
            return None
        return uvloop.new_event_loop
    return None


def _loop_name(name: str) -> str:
    return "uvloop" if _loop_factory(name) is not None else "asyncio"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


#: What a door's app gives back to close its store: the summary items it adds.
_Close = Callable[[], dict[str, Any]]


@dataclass
class RunningServer:
    """A door's app served by uvicorn in this process (:func:`start_server`).

    ``store_timings`` collects each store write's seconds; ``pieces`` (``--pieces``) the
    seconds of each timed piece of the server's work, by name; ``close`` releases the store
    and returns what to add to the summary."""

    port: int
    server: Any
    serving: asyncio.Task[Any]
    store_timings: list[float]
    pieces: dict[str, list[float]]
    close: _Close

    async def stop(self) -> dict[str, Any]:
        """Stop serving; returns ``close()``'s summary items."""
        self.server.should_exit = True
        await asyncio.wait_for(self.serving, timeout=15)
        return self.close()


def _tables_door_app(args: argparse.Namespace, timings: list[float]) -> tuple[Any, _Close]:
    """The game-agnostic door (``/api/rooms``, ``/ws/rooms``: :mod:`gametable.online`) for
    both games, as ``backgammon serve`` composes it: a :class:`~gametable.rooms.RoomService`
    saving every accepted message to a :class:`~gametable.room_store.RoomStore` (SQLite,
    WAL, ``synchronous=NORMAL``) before it is relayed."""
    import tempfile

    from fastapi import FastAPI

    from backgammon.adapter import RULES as BACKGAMMON
    from checkers.adapter import RULES as CHECKERS
    from gametable.online import install
    from gametable.room_store import RoomStore
    from gametable.rooms import RoomService

    class TimedRoomStore(RoomStore):
        """The store, each write timed: a snapshot (the record's JSON and its transaction)
        or a step (its one-row insert)."""

        def save(self, code: str, game: str, owner: str | None, version: int,
                 record: dict[str, Any]) -> str:
            start = time.perf_counter()
            try:
                return super().save(code, game, owner, version, record)
            finally:
                timings.append(time.perf_counter() - start)

        def append(self, code: str, version: int, step: str) -> None:
            start = time.perf_counter()
            try:
                super().append(code, version, step)
            finally:
                timings.append(time.perf_counter() - start)

    if getattr(args, "redis", None):
        return _shared_door_app(args, timings)
    folder = tempfile.TemporaryDirectory(prefix="online-load-")
    store = None
    if args.store != "none":
        path = ":memory:" if args.store == "memory" else f"{folder.name}/games.sqlite3"
        store = TimedRoomStore(path)
    # Every simulated client comes from this machine's one address: lift the share per address.
    service = RoomService({"backgammon": BACKGAMMON, "checkers": CHECKERS}, store,
                          max_rooms=1 << 30, max_per_owner=1 << 30, create_rate=1 << 30,
                          max_waiting=1 << 30)
    app = FastAPI()
    install(app, service)

    def close() -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if store is not None:
            extra["store_mode"] = "wal, synchronous normal"
            store.close()
        folder.cleanup()
        return extra

    return app, close


def _shared_door_app(args: argparse.Namespace, timings: list[float]) -> tuple[Any, _Close]:
    """The game-agnostic door with its rooms in Redis (``--redis``), as ``backgammon serve
    --redis URL`` composes it: a :class:`~gametable.redis_rooms.SharedRoomService`, each
    accepted message one Lua script (timed: the script's round trip) before it is relayed."""
    from contextlib import asynccontextmanager

    from fastapi import FastAPI

    from backgammon.adapter import RULES as BACKGAMMON
    from checkers.adapter import RULES as CHECKERS
    from gametable.online import install
    from gametable.redis_rooms import RedisRoomStore, SharedRoomService

    class TimedRedisStore(RedisRoomStore):
        """The store, each save (the record's JSON and the script's round trip) timed."""

        async def save(self, *a: Any, **k: Any) -> str:
            start = time.perf_counter()
            try:
                return await super().save(*a, **k)
            finally:
                timings.append(time.perf_counter() - start)

    service = SharedRoomService({"backgammon": BACKGAMMON, "checkers": CHECKERS},
                                TimedRedisStore(args.redis), max_rooms=1 << 30,
                                max_per_owner=1 << 30, create_rate=1 << 30, max_waiting=1 << 30,
                                apply_events=not getattr(args, "rebuild_copies", False))

    @asynccontextmanager
    async def lifespan(_app: Any) -> Any:
        await service.start()
        yield
        await service.stop()

    app = FastAPI(lifespan=lifespan)
    install(app, service)
    return app, lambda: {"store_mode": "redis"}


def _redis_server() -> tuple[str, Callable[[], dict[str, Any]]]:
    """A redis-server of the bench's own on a free port in a temporary folder (AOF on,
    ``appendfsync everysec`` as a deployment would run it); returns its URL and a stop that
    gives its cost figures."""
    import shutil
    import subprocess
    import tempfile

    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("--redis needs redis-server (Debian: apt-get install redis-server) or "
                         "a URL: --redis redis://HOST:PORT/DB")
    folder = tempfile.TemporaryDirectory(prefix="online-load-redis-")
    port = _free_port()
    conf = f"{folder.name}/redis.conf"
    with open(conf, "w", encoding="utf-8") as out:
        out.write(f"port {port}\nbind {HOST}\ndir {folder.name}\nappendonly yes\n"
                  "appendfsync everysec\nsave \"\"\nlogfile redis.log\n")
    process = subprocess.Popen([binary, conf])
    for _ in range(200):
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                break
        except OSError:
            time.sleep(0.05)

    def stop() -> dict[str, Any]:
        process.terminate()
        process.wait(10)
        folder.cleanup()
        return {}

    return f"redis://{HOST}:{port}/0", stop


def _redis_figures(url: str) -> dict[str, float]:
    """Redis's own counters: CPU seconds (user + system) and each command's calls and
    microseconds."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5)
    try:
        cpu = client.info("cpu")
        stats = client.info("commandstats")
    finally:
        client.close()
    figures = {"cpu": float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])}
    for name, value in stats.items():
        figures[f"{name}.calls"] = float(value["calls"])
        figures[f"{name}.usec"] = float(value["usec"])
    return figures


#: The pieces of the door's work that ``--pieces`` times: (module, class, method). They
#: nest: RoomService.handle holds Room.handle (the game's action and the two views:
#: Room.views) and the save (a step: RoomStore.append, its one-row insert; now and then a
#: snapshot: Room.to_record, then RoomStore.save, the record's JSON and its transaction);
#: RoomHub.dispatch is the views' patches, their json.dumps and their queueing.
PIECES: tuple[tuple[str, str, str], ...] = (
    ("gametable.online", "", "parse_message"),
    ("gametable.rooms", "RoomService", "handle"),
    ("gametable.room", "Room", "handle"),
    ("gametable.room", "Room", "views"),
    ("gametable.room", "Room", "to_record"),
    ("gametable.room_store", "RoomStore", "save"),
    ("gametable.room_store", "RoomStore", "append"),
    ("gametable.online", "RoomHub", "dispatch"),
    ("gametable.online", "RoomHub", "schedule"),
)


def _time_pieces(pieces: dict[str, list[float]]) -> None:
    """Wrap each of :data:`PIECES` in this (the server's) process with a timer."""
    import functools
    import importlib

    for module_name, class_name, name in PIECES:
        module = importlib.import_module(module_name)
        owner: Any = getattr(module, class_name) if class_name else module
        original = getattr(owner, name)
        times = pieces.setdefault(f"{class_name or module_name}.{name}", [])

        def timed(*a: Any, __original: Any = original, __times: list[float] = times,
                  **k: Any) -> Any:
            start = time.perf_counter()
            try:
                return __original(*a, **k)
            finally:
                __times.append(time.perf_counter() - start)

        setattr(owner, name, functools.wraps(original)(timed))


async def start_server(args: argparse.Namespace) -> RunningServer:
    """The one place the bench makes its server: the door's app (``--door``) under uvicorn on
    a free port of 127.0.0.1, in this process, as ``backgammon serve`` runs it (uvloop when
    ``--loop auto``; the tuned collector unless ``--default-gc``)."""
    import uvicorn

    from backgammon.server.runtime import tune_gc

    timings: list[float] = []
    pieces: dict[str, list[float]] = {}
    app, close = _tables_door_app(args, timings)
    if args.pieces:
        _time_pieces(pieces)
    port = _free_port()
    config = uvicorn.Config(app, host=HOST, port=port, log_level="warning", access_log=False,
                            ws_per_message_deflate=False, backlog=4096,
                            ws_max_size=1 << 16, timeout_keep_alive=60)
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    if not args.default_gc:
        tune_gc()
    for _ in range(200):
        if server.started:
            break
        await asyncio.sleep(0.05)
    else:
        raise RuntimeError("uvicorn did not start")
    return RunningServer(port, server, serving, timings, pieces, close)


async def _serve_and_run(args: argparse.Namespace) -> dict[str, Any]:
    running = await start_server(args)
    watch = _Watch()
    probe = asyncio.create_task(watch.run_lag_probe())
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_client_process, args=(running.port, args, queue),
                              daemon=True)
    cpu_before = time.process_time()
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    process.start()
    loop = asyncio.get_running_loop()
    try:
        summary: dict[str, Any] = await loop.run_in_executor(
            None, lambda: queue.get(timeout=args.limit + 60))
    finally:
        process.join(timeout=10)
        if process.is_alive():
            process.terminate()
        extra = await running.stop()
    probe.cancel()
    summary["server_cpu"] = time.process_time() - cpu_before
    summary["store_timings"] = running.store_timings
    summary["pieces"] = running.pieces
    summary.update(extra)
    summary["server_watch"] = watch.summary()
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    return summary


def _server_process(args: argparse.Namespace, ports: Any, stop: Any, out: Any) -> None:
    """One of ``--processes`` server processes: serves until ``stop`` is set, then reports its
    CPU seconds, store timings and watch."""

    async def serve() -> None:
        running = await start_server(args)
        watch = _Watch()
        probe = asyncio.create_task(watch.run_lag_probe())
        cpu_before = time.process_time()
        profiler = None
        if args.profile:  # one file a process: PATH.PID
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        ports.put(running.port)
        await asyncio.get_running_loop().run_in_executor(None, stop.wait)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(f"{args.profile}.{os.getpid()}")
        probe.cancel()
        await running.stop()
        out.put({"cpu": time.process_time() - cpu_before, "store_timings": running.store_timings,
                 "watch": watch.summary()})

    with asyncio.Runner(loop_factory=_loop_factory(args.loop)) as runner:
        runner.run(serve())


async def _serve_many_and_run(args: argparse.Namespace) -> dict[str, Any]:
    """``--processes N``: N server processes on one Redis, the clients in another; each
    room's host on one server and its guest on the next."""
    context = multiprocessing.get_context("spawn")
    ports, outs, stop = context.Queue(), context.Queue(), context.Event()
    servers = [context.Process(target=_server_process, args=(args, ports, stop, outs),
                               daemon=True) for _ in range(args.processes)]
    for server in servers:
        server.start()
    loop = asyncio.get_running_loop()
    port_list = [await loop.run_in_executor(None, lambda: ports.get(timeout=60))
                 for _ in servers]
    before = _redis_figures(args.redis)
    queue = context.Queue()
    client = context.Process(target=_client_process,
                             args=(port_list[0], args, queue, port_list), daemon=True)
    client.start()
    try:
        summary: dict[str, Any] = await loop.run_in_executor(
            None, lambda: queue.get(timeout=args.limit + 60))
    finally:
        client.join(timeout=10)
        if client.is_alive():
            client.terminate()
        after = _redis_figures(args.redis)
        stop.set()
        reports = [await loop.run_in_executor(None, lambda: outs.get(timeout=30))
                   for _ in servers]
        for server in servers:
            server.join(timeout=10)
            if server.is_alive():
                server.terminate()
    summary["server_cpu"] = sum(r["cpu"] for r in reports)
    summary["server_cpus"] = [r["cpu"] for r in reports]
    summary["store_timings"] = [t for r in reports for t in r["store_timings"]]
    summary["pieces"] = {}
    summary["store_mode"] = f"redis, {args.processes} server processes"
    summary["server_watch"] = max((r["watch"] for r in reports), key=lambda w: w["lag_p99"])
    summary["redis"] = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}
    return summary


def _pct(values: list[float], q: float) -> float:
    """The ``q`` quantile of sorted ``values`` (the nearest rank below)."""
    return values[min(len(values) - 1, int(len(values) * q))]


def _spread(values: list[float]) -> dict[str, float]:
    """p50 to max of ``values`` (any order), and their count."""
    ordered = sorted(values)
    if not ordered:
        return {"count": 0}
    return {"count": len(ordered), "p50": _pct(ordered, 0.5), "p95": _pct(ordered, 0.95),
            "p99": _pct(ordered, 0.99), "p999": _pct(ordered, 0.999), "max": ordered[-1],
            "mean": statistics.fmean(ordered)}


def _busiest(times: list[float], window: float) -> float:
    """The most of sorted ``times`` in any ``window`` seconds (or in all of them, when they
    span less), per second."""
    if not times:
        return 0.0
    window = max(1e-3, min(window, times[-1] - times[0]))
    most = 0
    first = 0
    for last, at in enumerate(times):
        while at - times[first] > window:
            first += 1
        most = max(most, last - first + 1)
    return most / window


def _report_tables(args: argparse.Namespace, summary: dict[str, Any],
                   load_before: tuple[float, float, float]) -> tuple[dict[str, Any], bool]:
    """Print the tables door's figures; returns the JSON summary and whether p99 met the
    target with every room complete."""
    results = [TableRoomResult(**r) for r in summary["results"]]
    elapsed = summary["elapsed"]
    completed = sum(r.ok for r in results)
    finished = sum(r.finished for r in results)
    actions = sum(r.actions for r in results)
    answered = sum(r.answered for r in results)
    sent = sum(r.sent for r in results)
    received = sum(r.received for r in results)
    by_game = {g: [r for r in results if r.game == g] for g in sorted({r.game for r in results})}
    games = ", ".join(
        f"{g} {sum(r.ok for r in rs)}/{len(rs)} ({sum(r.finished for r in rs)} played to the "
        f"end, {sum(r.actions for r in rs)} messages)" for g, rs in by_game.items())
    print(f"rooms completed: {completed}/{args.rooms} in {elapsed:.1f} s: {games}; every "
          f"message answered: {'yes' if answered == actions and completed == args.rooms else 'no'}"
          f" ({answered}/{actions}); dice checked against the secrets: "
          f"{sum(r.dice_checked for r in results)}")
    checked = [r for r in results if r.record_error is not None]
    bad = [r for r in checked if r.record_error]
    print(f"every record identical on both sides and legal: "
          f"{'no' if bad else 'yes' if checked else 'not checked'} ({len(checked) - len(bad)} of "
          f"{len(checked)} finished rooms' files the same for both seats and replayed by the "
          f"rules to the outcome sent)" + "".join(
              f"\n  room {r.code}: {r.record_error}" for r in bad[:5]))
    starts = sorted(lat[0] for r in results for lat in r.latencies)
    peak = _busiest(starts, 10.0)
    print(f"server messages: in {sent} ({sent / elapsed:,.0f}/s), out {received} "
          f"({received / elapsed:,.0f}/s); the busiest 10 s: {peak:,.0f} timed messages/s in")
    own = [lat[1] * 1000 for r in results for lat in r.latencies]
    theirs = [lat[2] * 1000 for r in results for lat in r.latencies]
    own_spread, their_spread = _spread(own), _spread(theirs)
    p99 = own_spread.get("p99", float("nan"))
    if own:
        s = own_spread
        print(f"send -> own view over {s['count']} messages: p50 {s['p50']:.1f} ms, p95 "
              f"{s['p95']:.1f}, p99 {s['p99']:.1f}, p99.9 {s['p999']:.1f}, max {s['max']:.1f} ms"
              f" (target p99 <= {args.target_ms:g} ms)")
        t = their_spread
        print(f"send -> opponent's view: p50 {t['p50']:.1f} ms, p95 {t['p95']:.1f}, p99 "
              f"{t['p99']:.1f}, max {t['max']:.1f} ms")
        kinds = sorted({lat[3] for r in results for lat in r.latencies})
        per_kind = {k: _spread([lat[1] * 1000 for r in results for lat in r.latencies
                                if lat[3] == k]) for k in kinds}
        print("  own view by message: " + ", ".join(
            f"{k} {v['count']} p50 {v['p50']:.1f} p99 {v['p99']:.1f}" for k, v in per_kind.items()))
        if len(by_game) > 1:
            print("  own view by game: " + ", ".join(
                f"{g} p50 {v['p50']:.1f} p99 {v['p99']:.1f}" for g, v in (
                    (g, _spread([lat[1] * 1000 for r in rs for lat in r.latencies]))
                    for g, rs in by_game.items()) if v["count"]))
        slow = [(at, lag) for r in results for at, lag, _, _ in r.latencies if lag > 0.1]
        print(f"  messages over 100 ms: {len(slow)}, sent in "
              f"{len({int(at) for at, _ in slow})} distinct seconds of the run")
    commits = [t * 1000 for t in summary["store_timings"]]
    store = _spread(commits)
    if commits:
        print(f"store ({args.store}, {summary.get('store_mode', '')}): {len(commits)} writes "
              f"(a step a message, a snapshot now and then), one transaction each: mean "
              f"{store['mean']:.3f} ms, p99 {store['p99']:.3f} ms, max {store['max']:.1f} ms; "
              f"{sum(commits) / 1000:.2f} s in all")
    else:
        print("store: none (rooms in memory only)")
    pieces = {name: _spread([t * 1000 for t in times])
              for name, times in summary["pieces"].items()}
    for name, spread in pieces.items():
        if spread["count"]:
            print(f"  {name}: {spread['count']} calls, mean {spread['mean']:.3f} ms, p99 "
                  f"{spread['p99']:.3f} ms, max {spread['max']:.1f} ms, "
                  f"{spread['mean'] * spread['count'] / 1000:.2f} s in all")
    redis_cost = summary.get("redis")
    if redis_cost:
        scripts = redis_cost.get("cmdstat_evalsha.calls", 0.0)
        busy = {k[len("cmdstat_"):-len(".usec")]: v for k, v in redis_cost.items()
                if k.endswith(".usec") and v}
        print(f"redis: {redis_cost['cpu']:.2f} CPU s in all, "
              f"{redis_cost['cpu'] / actions * 1000 if actions else float('nan'):.3f} ms a "
              f"message; {scripts:.0f} scripts (one per stored step), "
              f"{busy.get('evalsha', 0.0) / max(scripts, 1):.1f} us each inside Redis; "
              "commands' time: " + ", ".join(
                  f"{k} {v / 1e6:.2f} s"
                  for k, v in sorted(busy.items(), key=lambda kv: -kv[1])[:6]))
        print(f"server processes' CPU seconds: "
              f"{', '.join(f'{c:.1f}' for c in summary.get('server_cpus', []))}")
    load_after = os.getloadavg()
    per_message = summary["server_cpu"] / sent * 1000 if sent else float("nan")
    print(f"CPU seconds: server {summary['server_cpu']:.1f} ({per_message:.2f} ms a message in),"
          f" clients {summary['cpu']:.1f}; load average after {load_after[0]:.2f}")
    _print_watches(summary)
    failures = [r.error for r in results if not r.ok]
    for error in sorted(set(failures))[:5]:
        print(f"  failed ({failures.count(error)}): {error}")
    good = (completed == args.rooms and answered == actions and not bad
            and p99 <= args.target_ms)
    data = {
        "door": "tables", "game": args.game, "rooms": args.rooms, "think_ms": args.think_ms,
        "time_control": args.time_control, "store": args.store, "actions_cap": args.actions,
        "patches": not args.whole_views,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"), "cpus": os.cpu_count(),
        "load_before": list(load_before), "load_after": list(load_after),
        "completed": completed, "finished": finished, "elapsed_s": elapsed,
        "messages": actions, "answered": answered,
        "records_checked": len(checked), "records_bad": [r.record_error for r in bad],
        "dice_checked": sum(r.dice_checked for r in results),
        "server_in": sent, "server_out": received,
        "server_in_per_s": sent / elapsed, "server_out_per_s": received / elapsed,
        "busiest_10s_in_per_s": peak,
        "own_view_ms": own_spread, "opponent_view_ms": their_spread,
        "min_own_view_ms": min(own, default=float("nan")),
        "min_opponent_view_ms": min(theirs, default=float("nan")),
        "store_ms": store, "pieces_ms": pieces,
        "server_cpu_s": summary["server_cpu"], "client_cpu_s": summary["cpu"],
        "server_watch": summary["server_watch"], "client_watch": summary["watch"],
        "errors": failures, "target_ms": args.target_ms, "met": good,
        "processes": getattr(args, "processes", 1), "redis": summary.get("redis"),
    }
    return data, good


def _print_watches(summary: dict[str, Any]) -> None:
    for name, watch in (("server", summary["server_watch"]), ("clients", summary["watch"])):
        print(f"  {name}: gc {watch['gc_runs']:.0f} runs ({watch['gc_full']:.0f} full), "
              f"{watch['gc_total']:.2f} s in all, longest {watch['gc_max'] * 1000:.0f} ms; "
              f"event loop lag p99 {watch['lag_p99'] * 1000:.1f} ms, max "
              f"{watch['lag_max'] * 1000:.0f} ms, {watch['lag_over_100ms']:.0f} over 100 ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=200, help="concurrent rooms (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the secrets and plays")
    parser.add_argument("--think-ms", type=float, default=200.0,
                        help="a player's mean thinking time before a roll or a play, drawn "
                             "from 0.5x-1.5x; the pages' dice answers never wait (default "
                             "200; 0: flat out, a saturation test)")
    parser.add_argument("--limit", type=float, default=300.0,
                        help="seconds before the clients give up (default 300)")
    parser.add_argument("--target-ms", type=float, default=50.0, help="p99 target (default 50)")
    parser.add_argument("--default-gc", action="store_true",
                        help="keep Python's default collector settings in both processes "
                             "instead of backgammon serve's tune_gc")
    parser.add_argument("--loop", choices=("auto", "asyncio"), default="auto",
                        help="the event loop of the server and the clients: auto (uvloop when "
                             "installed, as backgammon serve does; default) or asyncio")
    parser.add_argument("--store", choices=("file", "memory", "none"), default="file",
                        help="where the rooms are saved: an SQLite file in a temporary folder "
                             "(default, as backgammon serve), an in-memory database, or none "
                             "(rooms in memory only)")
    parser.add_argument("--profile", metavar="PATH",
                        help="write the server's cProfile statistics to PATH (with "
                             "--processes: PATH.PID, one file a process)")
    parser.add_argument("--door", choices=("tables",), default="tables",
                        help="the door: tables, the one every game shares (/api/rooms, "
                             "/ws/rooms; the only one, kept for the commands written with it)")
    parser.add_argument("--game", choices=("checkers", "backgammon", "mixed"),
                        default="backgammon",
                        help="the game every room plays (mixed: checkers and backgammon room "
                             "by room; default backgammon)")
    parser.add_argument("--actions", type=int, default=0,
                        help="messages a room sends before it stops (0: play every game to "
                             "its end; default)")
    parser.add_argument("--time-control", default="none",
                        choices=("none", "bullet", "blitz", "rapid"),
                        help="the rooms' time control (default none)")
    parser.add_argument("--pieces", action="store_true",
                        help="time the pieces of the server's work per message (the room, its "
                             "views, the record, the save, the dispatch)")
    parser.add_argument("--json", metavar="PATH", dest="json_out",
                        help="also write the summary to PATH as JSON")
    parser.add_argument("--processes", type=int, default=1,
                        help="--redis: server processes sharing the rooms (default 1); each "
                             "room's host plays through one, its guest through the next")
    parser.add_argument("--rebuild-copies", action="store_true",
                        help="--redis: a process takes the other processes' actions into its "
                             "copy of a room by rebuilding it from the stored record, as "
                             "before issue 36's catch-up by events (for comparison)")
    parser.add_argument("--whole-views", action="store_true",
                        help="the clients take every view whole (no patches in their hello), "
                             "as before patches")
    parser.add_argument("--redis", metavar="URL", nargs="?", const="auto", default=None,
                        help="the rooms in Redis (gametable.redis_rooms): a URL, or none to "
                             "start a redis-server of the bench's own")
    parser.add_argument("--in-process", action="store_true",
                        help="no server and no network: the rooms' games played in this "
                             "process through the room service, the server's CPU time a "
                             "message measured (its thread time), whatever the machine's load")
    args = parser.parse_args(argv)
    if args.processes < 1 or (args.processes > 1 and not args.redis):
        parser.error("--processes N > 1 needs --redis (the processes share the rooms there)")
    if args.in_process and (args.redis or args.whole_views or args.pieces or args.profile):
        parser.error("--in-process takes --rooms, --game, --seed, --store, --time-control, "
                     "--actions, --default-gc and --json")
    if args.in_process:
        return _in_process_main(args)

    try:
        import websockets  # noqa: F401  (the clients' library; uvicorn's WebSockets need it too)
    except ImportError:
        print("bench/online_load.py needs the websockets package: pip install -e '.[dev]'")
        return 2
    load = os.getloadavg()
    print(f"online load: tables door (/api/rooms, /ws/rooms), game {args.game}"
          f"{'' if not args.actions else f', {args.actions} messages a room'}, time control "
          f"{args.time_control}, {'whole views' if args.whole_views else 'views as patches'}, "
          f"{args.rooms} rooms, think {args.think_ms:g} ms, loop {_loop_name(args.loop)}, gc "
          f"{'default' if args.default_gc else 'tuned as backgammon serve does'}, store "
          f"{'redis' if args.redis else args.store}; {os.cpu_count()} CPUs, load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} before the run")
    stop_redis: Callable[[], dict[str, Any]] = dict
    if args.redis == "auto":
        args.redis, stop_redis = _redis_server()
    try:
        with asyncio.Runner(loop_factory=_loop_factory(args.loop)) as runner:
            if args.processes > 1:
                summary = runner.run(_serve_many_and_run(args))
            else:
                summary = runner.run(_serve_and_run(args))
                if args.redis:
                    summary["store_mode"] = "redis, 1 server process"
    finally:
        stop_redis()
    data, good = _report_tables(args, summary, load)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1)
    return 0 if good else 1


# ------------------------------------------------------------------ in process (--in-process)


def _next_messages(view: dict[str, Any], views: dict[str, dict[str, Any]],
                   rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    """The messages of a room's next step of play, as the clients above send them: a dice
    round (the opening's commits and reveals, or a roll's commit, secret and reveal, fresh
    32-byte secrets) or the mover's random move (``views``: each side's last view)."""
    from gametable.fair import commitment_of

    room = view["room"]
    if room["round"] is None and room["chance_due"]:
        number, due = room["next_round"], room["chance_due"]
        if len(due) == 2:
            secrets = {side: rng.randbytes(32) for side in ("white", "black")}
            return [*((side, {"type": "commit", "round": number,
                              "commitment": commitment_of(secrets[side])})
                      for side in ("white", "black")),
                    *((side, {"type": "reveal", "round": number,
                              "secret": secrets[side].hex()})
                      for side in ("white", "black"))]  # fmt: skip
        roller = due[0]
        other = "black" if roller == "white" else "white"
        mine, theirs = rng.randbytes(32), rng.randbytes(32)
        return [(roller, {"type": "commit", "round": number, "commitment": commitment_of(mine)}),
                (other, {"type": "secret", "round": number, "secret": theirs.hex()}),
                (roller, {"type": "reveal", "round": number, "secret": mine.hex()})]
    mover = view["to_act"][0]
    state = views[mover]["state"]
    if view["game"] == "checkers":
        legal = state["legal"]
        return [(mover, {"type": "action",
                         "action": {"type": "move", "path": legal[rng.randrange(len(legal))]}})]
    from backgammon.core.moves import legal_plays
    from backgammon.core.position import Position

    position = Position.from_points(state["board"]["points"], state["turn"])
    plays = legal_plays(position, (int(state["dice"][0]), int(state["dice"][1])))
    play = str(plays[rng.randrange(len(plays))])
    return [(mover, {"type": "action", "action": {"type": "move", "play": play}})]


def _in_process(args: argparse.Namespace) -> dict[str, Any]:
    """``--in-process``: ``--rooms`` rooms made, joined and connected through a
    :class:`~gametable.rooms.RoomService` (its store as ``--store``), then their games played
    one message a room in turn, as the door handles a message: the room's clock checked
    (``tick_room``), the message (``handle``: the room, its views, the save), and each view's
    frame for its seat, a patch from the seat's last view with its JSON, as the door's
    dispatch makes it. Each message's thread time is summed, and the collector's share."""
    import gc
    import tempfile

    from backgammon.adapter import RULES as BACKGAMMON
    from backgammon.server.runtime import tune_gc
    from checkers.adapter import RULES as CHECKERS
    from gametable.room_store import RoomStore
    from gametable.rooms import RoomService
    from gametable.seam import Side
    from gametable.wire import view_patch

    if not args.default_gc:
        tune_gc()
    folder = tempfile.TemporaryDirectory(prefix="online-load-")
    store = None
    if args.store != "none":
        store = RoomStore(":memory:" if args.store == "memory" else f"{folder.name}/g.sqlite3")
    service = RoomService({"backgammon": BACKGAMMON, "checkers": CHECKERS}, store,
                          max_rooms=1 << 30, max_per_owner=1 << 30, create_rate=1 << 30,
                          max_waiting=1 << 30)
    rng = random.Random(args.seed)
    last: dict[tuple[str, str], dict[str, Any]] = {}  # each seat's last view sent

    def frames(code: str, out: list[Any], sender: str | None = None,
               ref: int | None = None) -> None:
        for message in out:
            text = None
            for side in ("white", "black") if message.side is None else (message.side,):
                payload = message.payload
                if side == sender and ref is not None:
                    payload = {**payload, "ref": ref}
                view, key = payload.get("view"), (code, side)
                if view is not None and key in last:
                    frame = {k: v for k, v in payload.items() if k != "view"}
                    frame["type"] = "patch"
                    frame["patch"] = view_patch(last[key], view)
                    json.dumps(frame, separators=(",", ":"))
                elif text is None or side == sender:
                    text = json.dumps(payload, separators=(",", ":"))
                if view is not None:
                    last[key] = view

    codes = []
    for index in range(args.rooms):
        code, _, _, _ = service.create(_table_game(args.game, index), {}, args.time_control,
                                       name="Host", side="white", owner="bench")
        frames(code, service.join(code, "Guest")[2])
        for side in ("white", "black"):
            frames(code, service.connect(code, side))
        codes.append(code)
    collector = {"time": 0.0, "runs": 0, "start": 0.0}

    def on_gc(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            collector["start"] = time.thread_time()
        else:
            collector["time"] += time.thread_time() - collector["start"]
            collector["runs"] += 1

    gc.callbacks.append(on_gc)
    spent, count, ref = 0.0, 0, 0
    pending: dict[str, list[tuple[str, dict[str, Any]]]] = {code: [] for code in codes}
    sent = dict.fromkeys(codes, 0)
    live = list(codes)
    started = time.perf_counter()
    try:
        while live:
            for code in list(live):
                views = {side: last[(code, side)] for side in ("white", "black")}
                if not pending[code]:
                    if views["white"]["outcome"] is not None or (
                            args.actions and sent[code] >= args.actions):
                        live.remove(code)
                        continue
                    pending[code] = _next_messages(views["white"], views, rng)
                side, message = pending[code].pop(0)
                ref += 1
                begin = time.thread_time()
                frames(code, service.tick_room(code))
                seat: Side = "white" if side == "white" else "black"
                frames(code, service.handle(code, seat, message), side, ref)
                spent += time.thread_time() - begin
                count += 1
                sent[code] += 1
    finally:
        gc.callbacks.remove(on_gc)
        if store is not None:
            store.close()
        folder.cleanup()
    return {"rooms": args.rooms, "game": args.game, "messages": count,
            "elapsed_s": time.perf_counter() - started,
            "finished": sum(1 for code in codes if last[(code, "white")]["outcome"] is not None),
            "cpu_ms_a_message": spent * 1000 / max(count, 1),
            "gc_ms_a_message": collector["time"] * 1000 / max(count, 1),
            "gc_runs": collector["runs"]}


def _in_process_main(args: argparse.Namespace) -> int:
    load = os.getloadavg()
    print(f"online load in process: game {args.game}, {args.rooms} rooms, time control "
          f"{args.time_control}, store {args.store}; load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f} before the run")
    data = _in_process(args)
    data["load_before"], data["load_after"] = list(load), list(os.getloadavg())
    print(f"{data['messages']} messages in {data['elapsed_s']:.1f} s, {data['finished']} of "
          f"{args.rooms} games finished; the server's work: {data['cpu_ms_a_message']:.3f} ms "
          f"of CPU a message (thread time), of it the collector {data['gc_ms_a_message']:.3f} "
          f"ms ({data['gc_runs']} runs); load average after {data['load_after'][0]:.2f}")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
