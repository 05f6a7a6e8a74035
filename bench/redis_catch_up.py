"""The catch-up path of rooms shared through Redis: what one process spends taking another
process's action into its copy of a room (issue 36).

Two :class:`~gametable.redis_rooms.SharedRoomService` (two processes as far as the rooms can
tell) share a redis-server of the bench's own (``bench/online_load.py``'s: AOF on,
``appendfsync everysec``). Each room's host is seated on the first, its guest on the second;
every message (backgammon: the commit-reveal rounds' steps and the computer's plays, easy;
checkers: the computer's moves) is sent by the seat whose turn it is to its own service, and
the other service then catches up (:meth:`SharedRoomService._fresh`: the stream read, then
the event applied to its copy at the writer's instant, or with ``rebuild`` the stored record
loaded and replayed). Each catch-up is timed: wall time and this process's CPU time (the
redis-server is another process).

**Run:** ``python bench/redis_catch_up.py [--game backgammon|checkers] [--rooms 4]
[--length 1] [--seed 1]``. It prints, for each way, the catch-ups' count, their CPU time's
mean, median and p99 (ms) and the mean by the room's step (the rebuild replays the whole
log; applying an event does not), then the ratio of the means.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from backgammon.adapter import RULES as BACKGAMMON
from checkers.adapter import RULES as CHECKERS
from gametable.fair import commitment_of
from gametable.redis_rooms import RedisRoomStore, SharedRoomService
from gametable.room import Room
from online_load import _redis_server

GAMES: Any = {"backgammon": BACKGAMMON, "checkers": CHECKERS}
#: Steps a room plays at most.
MAX_STEPS = 2000


def next_message(
    room: Room, rng: random.Random, secrets: dict[tuple[int, str], bytes]
) -> tuple[str, dict[str, Any]]:
    """Whose step it is in ``room`` and what it sends (a round's step or an action)."""
    current = room.round
    if current is None:
        due = sorted(room.table.chance_due())
        if due:
            secret = rng.randbytes(32)
            secrets[(room.next_round, due[0])] = secret
            return due[0], {"type": "commit", "round": room.next_round,
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


async def measure(url: str, args: argparse.Namespace, apply_events: bool
                  ) -> list[tuple[int, float, float]]:  # fmt: skip
    """Play ``args.rooms`` rooms; returns ``(the room's version, CPU s, wall s)`` per
    catch-up (the version counts the room's steps so far)."""
    services = [SharedRoomService(GAMES, RedisRoomStore(url), apply_events=apply_events,
                                  process=f"p{i}") for i in range(2)]  # fmt: skip
    samples: list[tuple[int, float, float]] = []
    rng = random.Random(args.seed)
    try:
        for _ in range(args.rooms):
            settings = {"length": args.length} if args.game == "backgammon" else {}
            code, _token, _side, _view = await services[0].open_room(
                args.game, settings, "rapid", name="A", side="white", owner=None
            )
            await services[1].join_room(code, "B")
            await services[0].seat_connected(code, "white")
            await services[1].seat_connected(code, "black")
            by_side = {"white": services[0], "black": services[1]}
            secrets: dict[tuple[int, str], bytes] = {}
            for _step in range(MAX_STEPS):
                room = (await services[0]._fresh(code)).room
                if room.table.game.outcome() is not None or not (
                    room.round or room.table.chance_due() or room.table.game.to_act()
                ):
                    break
                side, message = next_message(room, rng, secrets)
                await by_side[side].message(code, side, message)
                reader = by_side["black" if side == "white" else "white"]
                cpu, wall = time.process_time(), time.perf_counter()
                copy = (await reader._fresh(code)).room
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                samples.append((copy.version, cpu, wall))
        counts = [(s.applied, s.rebuilt) for s in services]
        print(f"  (applied, rebuilt) by process: {counts}")
    finally:
        for service in services:
            await service.stop()
    return samples


def report(name: str, samples: list[tuple[int, float, float]]) -> float:
    """Print the figures of one way; returns the mean CPU ms."""
    cpu = sorted(s[1] * 1000 for s in samples)
    wall = sorted(s[2] * 1000 for s in samples)
    p99 = cpu[min(len(cpu) - 1, int(len(cpu) * 0.99))]
    mean = statistics.fmean(cpu)
    print(f"{name}: {len(cpu)} catch-ups, CPU ms mean {mean:.3f}, median "
          f"{statistics.median(cpu):.3f}, p99 {p99:.3f}; wall ms mean "
          f"{statistics.fmean(wall):.3f}")  # fmt: skip
    longest = max(s[0] for s in samples)
    for low in range(0, longest + 1, max(1, longest // 4 + 1)):
        part = [s[1] * 1000 for s in samples if low <= s[0] < low + longest // 4 + 1]
        if part:
            print(f"  after step {low}-{low + longest // 4}: CPU ms mean "
                  f"{statistics.fmean(part):.3f} ({len(part)})")  # fmt: skip
    return mean


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("backgammon", "checkers"), default="backgammon")
    parser.add_argument("--rooms", type=int, default=4, help="rooms played one after the other")
    parser.add_argument("--length", type=int, default=1, help="backgammon: the match's length")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"catch-up: {args.game}, {args.rooms} rooms; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} before")  # fmt: skip
    url, stop = _redis_server()
    try:
        applied = report("applying the event", asyncio.run(measure(url, args, True)))
        rebuilt = report("rebuilding the copy", asyncio.run(measure(url, args, False)))
    finally:
        stop()
    print(f"rebuild / apply: {rebuilt / applied:.1f}x the CPU; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} after")  # fmt: skip


if __name__ == "__main__":
    main()
