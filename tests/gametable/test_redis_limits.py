"""The limits of the rooms shared through Redis (issues 33 and 36): one count for every
process of an address's rooms made a minute, its rooms nobody has joined and its lookups of
rooms that do not exist, and a room's cap on its messages and bytes, whichever process takes
the message (gametable.redis_rooms; the in-process service's: test_room_limits.py).

Each test runs its own ``redis-server`` (test_redis_rooms.py's fixture) and two
:class:`SharedRoomService` on it, two processes' worth, on one fake clock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from test_redis_rooms import GAMES, REDIS, RedisServer, redis_server  # noqa: F401

import checkers.adapter
from gametable.errors import ActionRefused
from gametable.redis_rooms import RedisRoomStore, SharedRoomService

pytestmark = pytest.mark.skipif(
    REDIS is None, reason="redis-server is not installed (scripts/test.sh installs Debian's)"
)
OFFER = {"type": "action", "action": {"type": "offer_draw"}}
DECLINE = {"type": "action", "action": {"type": "decline_draw"}}


@pytest.fixture(autouse=True)
def _offers_unbounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests fill rooms with draw offers declined, over and over: the table's policy of
    one offer a move (tests/checkers/test_checkers_draw_offers.py) is lifted here."""
    monkeypatch.setattr(checkers.adapter, "draw_offer_refusal", lambda game, color: None)
ADDRESS = "10.0.0.9"


def _two(url: str, clock: list[float], **limits: Any) -> list[SharedRoomService]:
    return [SharedRoomService(GAMES, RedisRoomStore(url), now=lambda: clock[0],
                              wall=lambda: clock[0], **limits) for _ in "ab"]  # fmt: skip


def _run(url: str, clock: list[float], body: Callable[..., Awaitable[None]],
         **limits: Any) -> None:
    async def run() -> None:
        services = _two(url, clock, **limits)
        try:
            await body(*services)
        finally:
            for service in services:
                await service.stop()

    asyncio.run(run())


async def _make(service: SharedRoomService, owner: str | None = ADDRESS) -> str:
    code, _token, _side, _view = await service.open_room(
        "checkers", {}, "none", name="Ann", side="white", owner=owner
    )
    return code


async def _refused(awaitable: Awaitable[Any]) -> ActionRefused:
    with pytest.raises(ActionRefused) as refused:
        await awaitable
    return refused.value


def test_an_address_makes_so_many_rooms_a_minute_whichever_processes_make_them(
    redis_server: RedisServer,  # noqa: F811
) -> None:
    clock = [1000.0]

    async def body(first: SharedRoomService, second: SharedRoomService) -> None:
        await _make(first)
        clock[0] += 10.0
        await _make(second)
        await _make(first)  # 3 rooms, 2 by the first process, 1 by the second
        refused = await _refused(_make(second))
        assert (refused.code, str(refused)) == (
            "rate_limited", "3 rooms made from your address in the last 60 s: try again in 50 s")
        assert (await _refused(_make(first))).code == "rate_limited"
        await _make(second, owner="10.0.0.10")  # another address is not held back
        clock[0] += 50.0  # the first room is a minute old: one more
        await _make(second)
        assert (await _refused(_make(first))).code == "rate_limited"

    _run(redis_server.url, clock, body, create_rate=3)


def test_an_address_holds_so_many_rooms_nobody_has_joined_over_the_processes(
    redis_server: RedisServer,  # noqa: F811
) -> None:
    clock = [1000.0]

    async def body(first: SharedRoomService, second: SharedRoomService) -> None:
        code = await _make(first)
        await _make(second)
        refused = await _refused(_make(first))
        assert (refused.code, str(refused)) == (
            "rate_limited", "your address has 2 rooms nobody has joined: share one, or wait"
            " until they expire")
        await second.join_room(code, "Bob")  # joined through the other process: not waiting
        await _make(first)
        assert (await _refused(_make(second))).code == "rate_limited"
        clock[0] += 601.0  # a room nobody joined counts 10 minutes from when it was made
        await _make(second)

    _run(redis_server.url, clock, body, max_waiting=2)


def test_lookups_of_rooms_that_do_not_exist_are_counted_once_for_all_processes(
    redis_server: RedisServer,  # noqa: F811
) -> None:
    clock = [1000.0]

    async def body(first: SharedRoomService, second: SharedRoomService) -> None:
        code = await _make(first, owner=None)
        misses = [service.miss_counter(3, 60.0) for service in (first, second)]
        for counter, guess in zip((misses[0], misses[1], misses[0]), "ABC", strict=True):
            await counter.check(ADDRESS)
            assert (await _refused(second.room_details(guess * 8))).code == "not_found"
            await counter.note(ADDRESS)
            clock[0] += 5.0
        # each process saw fewer than 3 misses; together they saw 3: both refuse now
        for counter in misses:
            refused = await _refused(counter.check(ADDRESS))
            assert (refused.code, str(refused)) == (
                "rate_limited", "3 rooms asked for from your address do not exist: check the"
                " code, and try again in 45 s")
        await misses[1].check("10.0.0.10")  # another address is not held back
        await misses[0].check(None)
        clock[0] += 45.0  # the first miss is a minute old
        await misses[1].check(ADDRESS)
        assert (await second.room_details(code))["open"] is True

    _run(redis_server.url, clock, body)


def test_the_door_of_each_process_counts_its_misses_in_redis(
    redis_server: RedisServer,  # noqa: F811
) -> None:
    """The door takes the shared service's count (no MissLimiter of its own)."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from gametable.online import MAX_MISSES, install

    clients = []
    services = [SharedRoomService(GAMES, RedisRoomStore(redis_server.url)) for _ in "ab"]
    for service in services:
        app = FastAPI()
        install(app, service)
        clients.append(TestClient(app))
    with clients[0] as one, clients[1] as two:
        for number in range(MAX_MISSES):
            door = one if number % 2 else two
            answer = door.get(f"/api/rooms/{'A' * 7}{number % 10}")
            assert answer.status_code == 404, answer.json()
        for door in (one, two):
            refused = door.get("/api/rooms/ZZZZZZZZ")
            assert refused.status_code == 429
            assert refused.json()["error"]["code"] == "rate_limited"
            joined = door.post("/api/rooms/ZZZZZZZZ/join", json={"name": "Eve"})
            assert joined.status_code == 429
        one.portal.call(services[0].redis_store.close)  # type: ignore[union-attr]
        two.portal.call(services[1].redis_store.close)  # type: ignore[union-attr]


def test_a_room_takes_so_many_messages_whichever_process_takes_them(
    redis_server: RedisServer,  # noqa: F811
) -> None:
    clock = [1000.0]

    async def body(first: SharedRoomService, second: SharedRoomService) -> None:
        code = await _make(first)
        await second.join_room(code, "Bob")  # version 2 (made, joined)
        by_side = {"white": first, "black": second}
        for _ in range(3):
            await by_side["white"].message(code, "white", OFFER)
            await by_side["black"].message(code, "black", DECLINE)
        stored = await first.redis_store.load(code)
        assert stored is not None and stored.record["room_version"] == 7
        for side, message in (("white", OFFER), ("black", OFFER)):
            refused = await _refused(by_side[side].message(code, side, message))
            assert (refused.code, str(refused)) == (
                "room_full", "this room has taken all the 7 messages a room takes: start a new"
                " room to play on (this game can still be left or claimed)")
        assert (await first.redis_store.version(code)) == stored.version  # nothing stored
        await second.message(code, "black", {"type": "leave"})  # still ends the game
        left = await first.redis_store.load(code)
        assert left is not None and left.record["forfeit"] == {"side": "black", "cause": "left"}
        refused = await _refused(first.message(code, "white", {"type": "rematch"}))
        assert refused.code == "room_full"
        # a join is another case: the seats are taken, whether or not the room is full
        for service in (first, second):
            refused = await _refused(service.join_room(code, "Eve"))
            assert (refused.code, str(refused)) == (
                "seats_taken", "both seats of this room are taken")

    _run(redis_server.url, clock, body, max_room_messages=7)


def test_a_room_stores_so_many_bytes_whichever_process_stores_them(
    redis_server: RedisServer,  # noqa: F811
) -> None:
    clock = [1000.0]
    cap = 3000

    async def body(first: SharedRoomService, second: SharedRoomService) -> None:
        code = await _make(first)
        await second.join_room(code, "Bob")
        by_side = {"white": first, "black": second}
        with pytest.raises(ActionRefused) as refused:
            for _ in range(200):
                await by_side["white"].message(code, "white", OFFER)
                await by_side["black"].message(code, "black", DECLINE)
        assert refused.value.code == "room_full"
        assert str(refused.value) == ("this room holds all a room may store (2 KiB): start a"
                                      " new room to play on (this game can still be left or"
                                      " claimed)")
        stored = await first.redis_store.load(code)
        assert stored is not None
        assert cap <= stored.size < cap + 100  # passed by the last message taken at most
        # refused from now on, in either process, and in a third that loads it
        third = SharedRoomService(GAMES, RedisRoomStore(redis_server.url),
                                  now=lambda: clock[0], wall=lambda: clock[0],
                                  max_room_bytes=cap)  # fmt: skip
        try:
            for service, side in ((first, "white"), (second, "black"), (third, "white")):
                for message in (OFFER, DECLINE):
                    assert (await _refused(service.message(code, side, message))).code \
                        == "room_full"  # fmt: skip
            assert (await first.redis_store.version(code)) == stored.version
            await third.message(code, "white", {"type": "leave"})
            left = await first.redis_store.load(code)
            assert left is not None
            assert left.record["forfeit"] == {"side": "white", "cause": "left"}
        finally:
            await third.stop()

    _run(redis_server.url, clock, body, max_room_bytes=cap)
