"""Load test of online play: N rooms of scripted clients playing whole games over WebSockets.

    python bench/online_load.py [--rooms 200] [--think-ms 200] [--pages] [--seed 1]
                                [--limit 300] [--deflate] [--default-gc]
                                [--loop auto|asyncio] [--profile PATH]
                                [--store file|memory|none] [--synchronous normal|full]

The server (the online router in a minimal FastAPI app, under uvicorn) runs in this process on
a free port of 127.0.0.1 only. The scripted clients run in one child process (Python runs one
core per process, and this machine has two), each room one coroutine driving both players over
real WebSockets (the ``websockets`` client): the opening roll and every roll by commit-reveal
(three messages), then a random legal play chosen on the client's own replica of the game, until
the game ends.

It prints the rooms completed, the messages per second both ways, and the latency from a
player's send to the opponent's receipt of the relayed message (commit, secret, reveal, play):
p50 to max, in milliseconds. It checks that every game finished and that its record is
identical and legal on both sides: every event is compared as the two players received it, a
replica of the game built from those events (its plays checked by the engine) equals the log
the server sent both in ``game_over``, and, once every room has finished (so that it delays
no timed message), ``Game.replay`` accepts that log and reaches the result both were sent.

Pacing: with ``--think-ms N`` (default 200) a player takes N ms on average (0.5N to 1.5N)
before each roll and each play; the pages' dice answers (``secret``, ``reveal``) never wait.
That is still ten times faster than people play (a real turn takes several seconds), so 200
rooms here send more than 200 real games would. ``--think-ms 0`` is a saturation test: every
room sends its next message the moment it has the last answer, so about one message per room
is always in flight and the latency is simply rooms / throughput (Little's law): it measures
throughput, not responsiveness.

``--pages`` makes each client behave as the page does on top of that: after every event it
asks for the full state (at most one request in flight, as ``online.js`` does), which more
than doubles the messages and makes the server build two full states per event.

Both processes run as ``backgammon serve`` does: uvloop when it is installed (``--loop
asyncio`` for the standard loop) and the garbage collector tuned by
:func:`backgammon.server.runtime.tune_gc` (``--default-gc`` for Python's defaults). To tell the
server's own cost from a busy machine, the last lines give each process's collector pauses and
event-loop lag (how late a 10 ms sleep woke up: time the process wanted the CPU and did not get
it, or spent in one long step).

Persistence is on, as under ``backgammon serve``: the rooms are
:class:`~backgammon.services.online.persist.PersistentRooms` on an SQLite file in a temporary
folder (WAL, ``synchronous=NORMAL``), every accepted action committed in its own transaction
before it is relayed (``--store memory`` for an in-memory database, ``--store none`` for rooms
in memory only; ``--synchronous full`` to sync each commit to disk). The store's cost per
action is printed: the mean and p99 of a commit, in milliseconds.

Every loop is bounded: a room gives up after ``MAX_TURNS`` turns, the clients after ``--limit``
seconds, and the script stops by itself. Traffic goes to 127.0.0.1 only. The exit status is 0
when every room completed with a good record and p99 met ``--target-ms``.
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
from dataclasses import dataclass, field
from typing import Any

HOST = "127.0.0.1"


@dataclass
class RoomResult:
    """What one room's script saw."""

    ok: bool = False
    error: str = ""
    turns: int = 0
    sent: int = 0
    received: int = 0
    latencies: list[tuple[float, float]] = field(default_factory=list)
    log: dict[str, Any] | None = None
    outcome: dict[str, Any] | None = None


def _verify(result: RoomResult) -> None:
    """After the timed run: the room's record replays to the result both sides were sent."""
    from backgammon.core.game import Game

    if result.error or result.log is None:
        return
    try:
        replayed = Game.replay(result.log)
    except Exception as exc:
        result.error = f"the record does not replay: {type(exc).__name__}: {exc}"[:300]
        return
    if replayed.outcome is None or replayed.outcome.to_dict() != result.outcome:
        result.error = "the record does not replay to the same result"
        return
    result.ok = True
    result.log = None


class _Seat:
    def __init__(self, ws: Any, rng: random.Random) -> None:
        self.ws = ws
        self.rng = rng
        self.color = ""
        self.log: dict[str, Any] | None = None
        self.state_in_flight = False
        self.state_wanted = False


class _RoomScript:
    """Both players of one room, played by one coroutine, message by message."""

    def __init__(self, result: RoomResult, rng: random.Random, think: float,
                 pages: bool = False) -> None:
        self.result = result
        self.rng = rng
        self.think = think
        self.pages = pages
        self.round = 1

    async def recv(self, seat: _Seat, kind: str) -> dict[str, Any]:
        while True:
            async with asyncio.timeout(30):
                text = await seat.ws.recv()
            self.result.received += 1
            if self.pages and text.startswith('{"type":"state"'):
                # A page would read and draw it; here one process stands for 400 pages, so
                # the state is not parsed (it is the server's cost that is measured).
                seat.state_in_flight = False
                if seat.state_wanted:
                    seat.state_wanted = False
                    await self.ask_state(seat)
                continue
            message = json.loads(text)
            if message.get("type") != kind:
                raise RuntimeError(f"expected {kind}, got {str(message)[:300]}")
            if self.pages and kind != "welcome":
                await self.ask_state(seat)
            return dict(message)

    async def ask_state(self, seat: _Seat) -> None:
        """What the page does after every event: ask for the full state, one request in
        flight at a time (online.js requestState)."""
        if seat.state_in_flight:
            seat.state_wanted = True
            return
        seat.state_in_flight = True
        await self.send(seat, {"type": "state"})

    async def send(self, seat: _Seat, payload: dict[str, Any]) -> None:
        await seat.ws.send(json.dumps(payload))
        self.result.sent += 1

    async def relay(self, sender: _Seat, other: _Seat, payload: dict[str, Any], *,
                    human: bool = False) -> dict[str, Any]:
        """Send (after a person's thinking time, for a person's action), time the opponent's
        receipt of the relayed event, then read the echo."""
        if human and self.think:
            await asyncio.sleep(self.think * (0.5 + self.rng.random()))
        start = time.perf_counter()
        await self.send(sender, payload)
        seen = await self.recv(other, payload["type"])
        self.result.latencies.append((start, time.perf_counter() - start))
        echo = await self.recv(sender, payload["type"])
        for message in (seen, echo):  # the mover's copy also lists what it can move
            message.pop("legal_moves", None)
            message.pop("legal", None)
        if seen != echo:
            raise RuntimeError(f"the two sides got different events: {seen} / {echo}")
        return seen

    async def both(self, a: _Seat, b: _Seat, kind: str) -> dict[str, Any]:
        first, second = await self.recv(a, kind), await self.recv(b, kind)
        for message in (first, second):
            message.pop("legal_moves", None)
            message.pop("legal", None)
        if first != second:
            raise RuntimeError(f"the two sides got different {kind} events")
        return first

    async def run(self, http: Any, port: int, compression: str | None) -> None:
        import httpx
        from websockets.asyncio.client import connect

        from backgammon.core.dice import commitment
        from backgammon.core.game import Game

        for attempt in range(3):  # a pooled connection the server closed meanwhile: retry
            try:
                response = await http.post("/api/online/rooms", json={})
                break
            except httpx.TransportError:
                if attempt == 2:
                    raise
        response.raise_for_status()
        room = response.json()
        uri = f"ws://{HOST}:{port}{room['ws_path']}"
        async with connect(uri, compression=compression, max_size=1 << 20,
                           open_timeout=30) as host_ws, \
                connect(uri, compression=compression, max_size=1 << 20,
                        open_timeout=30) as guest_ws:
            host = _Seat(host_ws, random.Random(self.rng.random()))
            guest = _Seat(guest_ws, random.Random(self.rng.random()))
            await self.send(host, {"type": "hello", "token": room["token"]})
            host.color = (await self.recv(host, "welcome"))["color"]
            await self.send(guest, {"type": "hello"})
            guest.color = (await self.recv(guest, "welcome"))["color"]
            await self.recv(host, "opponent")
            seats = {host.color: host, guest.color: guest}
            # Every event is compared as both sides received it (relay, both), so one replica
            # built from them stands for both sides' records.
            game = Game()

            # The opening roll: both commit, both reveal; ties are thrown again.
            while True:
                number = self.round
                self.round += 1
                secrets = {c: s.rng.randbytes(32) for c, s in seats.items()}
                for color, other in (("white", "black"), ("black", "white")):
                    await self.relay(seats[color], seats[other], {
                        "type": "commit", "round": number,
                        "commitment": commitment(secrets[color])}, human=True)
                for color, other in (("white", "black"), ("black", "white")):
                    await self.relay(seats[color], seats[other], {
                        "type": "reveal", "round": number, "secret": secrets[color].hex()})
                rolled = await self.both(host, guest, "rolled")
                game.roll(dice=rolled["dice"])
                if not rolled["tie"]:
                    break

            while not game.is_over:
                self.result.turns += 1
                if self.result.turns > MAX_TURNS:
                    raise RuntimeError(f"no result after {MAX_TURNS} turns")
                mover_color = str(game.on_roll)
                mover = seats[mover_color]
                other = seats["black" if mover_color == "white" else "white"]
                if game.phase == "roll":
                    number = self.round
                    self.round += 1
                    mine, theirs = mover.rng.randbytes(32), other.rng.randbytes(32)
                    await self.relay(mover, other, {"type": "commit", "round": number,
                                                    "commitment": commitment(mine)}, human=True)
                    await self.relay(other, mover, {"type": "secret", "round": number,
                                                    "secret": theirs.hex()})
                    await self.relay(mover, other, {"type": "reveal", "round": number,
                                                    "secret": mine.hex()})
                    rolled = await self.both(mover, other, "rolled")
                    game.roll(dice=rolled["dice"])
                    continue
                plays = game.legal_plays()
                play = plays[mover.rng.randrange(len(plays))]
                event = await self.relay(mover, other, {
                    "type": "play",
                    "moves": [[m.from_point, m.to_point, m.die] for m in play.moves]},
                    human=True)
                _apply(game, event["moves"])
            over = await self.both(host, guest, "game_over")
            log = over["log"]
            if log != game.to_log():
                raise RuntimeError("the server's record differs from the one the sides built")
            # Replaying the whole record is checked once every room has finished (_verify),
            # so that its CPU time does not delay the other rooms' messages being timed.
            self.result.log = log
            self.result.outcome = over["outcome"]


MAX_TURNS = 3000


def _apply(replica: Any, moves: list[list[int]]) -> None:
    """Apply a relayed play to a replica: by its result, as the server checks it."""
    from backgammon.core.moves import Move, apply_play

    result = apply_play(replica.turn_start, [Move(*m) for m in moves])
    play = replica.legal_plays().by_result(result)
    if play is None:
        raise RuntimeError(f"the relayed play {moves} is not legal on this side's replica")
    replica.play(play)


async def _clients(port: int, rooms: int, seed: int, think: float, limit: float,
                   compression: str | None, pages: bool) -> dict[str, Any]:
    import httpx

    watch = _Watch()
    probe = asyncio.create_task(watch.run_lag_probe())
    rng = random.Random(seed)
    results = [RoomResult() for _ in range(rooms)]
    limits = httpx.Limits(max_connections=50)
    http = httpx.AsyncClient(base_url=f"http://{HOST}:{port}", timeout=30, limits=limits)

    async def one(index: int) -> None:
        script = _RoomScript(results[index], random.Random(rng.random()), think, pages)
        try:
            await script.run(http, port, compression)
        except Exception as exc:  # a room's failure is reported, not raised
            results[index].error = f"{type(exc).__name__}: {exc}"[:300]

    start = time.perf_counter()
    tasks = [asyncio.create_task(one(i)) for i in range(rooms)]
    _done, pending = await asyncio.wait(tasks, timeout=limit)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    elapsed = time.perf_counter() - start
    probe.cancel()
    await http.aclose()
    for index, task in enumerate(tasks):
        if task in pending and not results[index].error:
            results[index].error = f"not finished within {limit:g} s"
    usage = resource.getrusage(resource.RUSAGE_SELF)
    summary = watch.summary()
    for result in results:
        _verify(result)
    return {
        "elapsed": elapsed,
        "cpu": usage.ru_utime + usage.ru_stime,
        "watch": summary,
        "results": [r.__dict__ for r in results],
    }


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


def _client_process(port: int, args: argparse.Namespace, out: Any) -> None:
    from backgammon.server.runtime import tune_gc

    if not args.default_gc:
        tune_gc()
    compression = "deflate" if args.deflate else None
    with asyncio.Runner(loop_factory=_loop_factory(args.loop)) as runner:
        summary = runner.run(_clients(port, args.rooms, args.seed, args.think_ms / 1000,
                                      args.limit, compression, args.pages))
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


async def _serve_and_run(args: argparse.Namespace) -> dict[str, Any]:
    import uvicorn
    from fastapi import FastAPI

    from backgammon.server.online import OnlineHub, RoomManager, router
    from backgammon.server.runtime import tune_gc
    from backgammon.services.online.persist import PersistentRooms
    from backgammon.services.room_store import RoomStore

    app = FastAPI()
    app.include_router(router)
    # Every simulated client comes from this machine's one address: lift the per-address room
    # limits, which would otherwise stop the bench at 10 rooms a minute.
    limits = {"create_rate": 1 << 30, "max_waiting": 1 << 30}
    timings: list[float] = []
    folder = None
    if args.store == "none":
        rooms: RoomManager = RoomManager(**limits)
    else:
        import tempfile

        folder = tempfile.TemporaryDirectory(prefix="online-load-")
        path = ":memory:" if args.store == "memory" else f"{folder.name}/games.sqlite3"
        store = RoomStore(path, synchronous=args.synchronous)
        rooms = PersistentRooms(store, timings=timings, **limits)
    app.state.online = OnlineHub(rooms)
    port = _free_port()
    config = uvicorn.Config(app, host=HOST, port=port, log_level="warning", access_log=False,
                            ws_per_message_deflate=args.deflate, backlog=4096,
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
    watch = _Watch()
    probe = asyncio.create_task(watch.run_lag_probe())
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_client_process, args=(port, args, queue), daemon=True)
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
        server.should_exit = True
        await asyncio.wait_for(serving, timeout=15)
    probe.cancel()
    summary["server_cpu"] = time.process_time() - cpu_before
    summary["store_timings"] = timings
    if isinstance(rooms, PersistentRooms):
        summary["store_mode"] = f"{rooms.store.journal_mode}, synchronous {args.synchronous}"
        rooms.store.close()
    if folder is not None:
        folder.cleanup()
    summary["server_watch"] = watch.summary()
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    return summary


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
    parser.add_argument("--pages", action="store_true",
                        help="the clients also do what the page does after every event: ask "
                             "for the full state (one request in flight at a time)")
    parser.add_argument("--deflate", action="store_true",
                        help="negotiate permessage-deflate (uvicorn's default; off here)")
    parser.add_argument("--default-gc", action="store_true",
                        help="keep Python's default collector settings in both processes "
                             "instead of backgammon serve's tune_gc")
    parser.add_argument("--loop", choices=("auto", "asyncio"), default="auto",
                        help="the event loop of the server and the clients: auto (uvloop when "
                             "installed, as backgammon serve does; default) or asyncio")
    parser.add_argument("--store", choices=("file", "memory", "none"), default="file",
                        help="where the rooms are committed, action by action: an SQLite file "
                             "in a temporary folder (default, as backgammon serve), an "
                             "in-memory database, or none (rooms in memory only)")
    parser.add_argument("--synchronous", choices=("normal", "full"), default="normal",
                        help="SQLite's synchronous for the store: normal (default; durable "
                             "when the process dies) or full (each commit synced to disk)")
    parser.add_argument("--profile", metavar="PATH",
                        help="write the server's cProfile statistics to PATH")
    args = parser.parse_args(argv)

    try:
        import websockets  # noqa: F401  (the clients' library; uvicorn's WebSockets need it too)
    except ImportError:
        print("bench/online_load.py needs the websockets package: pip install -e '.[dev]'")
        return 2
    load = os.getloadavg()
    print(f"online load: {args.rooms} rooms, think {args.think_ms:g} ms, "
          f"{'clients ask for the state after every event as pages do, ' if args.pages else ''}"
          f"deflate {'on' if args.deflate else 'off'}, loop {_loop_name(args.loop)}, gc "
          f"{'default' if args.default_gc else 'tuned as backgammon serve does'}, store "
          f"{args.store}{'' if args.store == 'none' else ' ' + args.synchronous}; "
          f"{os.cpu_count()} CPUs, load average "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} before the run")
    with asyncio.Runner(loop_factory=_loop_factory(args.loop)) as runner:
        summary = runner.run(_serve_and_run(args))
    results = [RoomResult(**r) for r in summary["results"]]
    completed = sum(r.ok for r in results)
    elapsed = summary["elapsed"]
    sent = sum(r.sent for r in results)
    received = sum(r.received for r in results)
    timed = [(at, lag * 1000) for r in results for at, lag in r.latencies]
    latencies = sorted(lag for _, lag in timed)
    turns = sum(r.turns for r in results if r.ok)
    print(f"rooms completed: {completed}/{args.rooms} in {elapsed:.1f} s "
          f"({turns} turns; every record identical on both sides and legal: "
          f"{'yes' if completed == args.rooms else 'no'})")
    print(f"messages: {sent} client->server ({sent / elapsed:,.0f}/s), {received} "
          f"server->client ({received / elapsed:,.0f}/s)")
    p99 = float("nan")
    if latencies:
        def pct(q: float) -> float:
            return latencies[min(len(latencies) - 1, int(len(latencies) * q))]

        p99 = pct(0.99)
        print(f"send -> opponent's receipt over {len(latencies)} relayed messages: p50 "
              f"{statistics.median(latencies):.1f} ms, p90 {pct(0.9):.1f}, p99 {p99:.1f}, "
              f"p99.9 {pct(0.999):.1f}, max {latencies[-1]:.1f} ms "
              f"(target p99 <= {args.target_ms:g} ms)")
        slow_seconds = {int(at) for at, lag in timed if lag > 100}
        print(f"  messages over 100 ms: {sum(1 for lag in latencies if lag > 100)}, sent in "
              f"{len(slow_seconds)} distinct seconds of the run")
    commits = sorted(t * 1000 for t in summary["store_timings"])
    if commits:
        print(f"store ({args.store}, {summary['store_mode']}): {len(commits)} commits, one "
              f"transaction per action: mean {statistics.fmean(commits):.3f} ms, p99 "
              f"{commits[min(len(commits) - 1, int(len(commits) * 0.99))]:.3f} ms, max "
              f"{commits[-1]:.1f} ms; {sum(commits) / 1000:.2f} s in all")
    else:
        print("store: none (rooms in memory only)")
    print(f"CPU seconds: server {summary['server_cpu']:.1f}, clients {summary['cpu']:.1f}; "
          f"load average after {os.getloadavg()[0]:.2f}")
    for name, watch in (("server", summary["server_watch"]), ("clients", summary["watch"])):
        print(f"  {name}: gc {watch['gc_runs']:.0f} runs ({watch['gc_full']:.0f} full), "
              f"{watch['gc_total']:.2f} s in all, longest {watch['gc_max'] * 1000:.0f} ms; "
              f"event loop lag p99 {watch['lag_p99'] * 1000:.1f} ms, max "
              f"{watch['lag_max'] * 1000:.0f} ms, {watch['lag_over_100ms']:.0f} over 100 ms")
    failures = [r.error for r in results if not r.ok]
    for error in sorted(set(failures))[:5]:
        print(f"  failed ({failures.count(error)}): {error}")
    return 0 if completed == args.rooms and p99 <= args.target_ms else 1


if __name__ == "__main__":
    sys.exit(main())
