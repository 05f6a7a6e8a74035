"""Room codes cannot be found by trying them (issue 33): the shared door counts each client
address's lookups and joins of rooms that do not exist (gametable.online.MissLimiter) and
refuses the address for the rest of the minute past the limit."""

from __future__ import annotations

import asyncio

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from checkers.adapter import RULES as CHECKERS
from fake_clock import FakeNow
from gametable import online
from gametable.errors import ActionRefused
from gametable.online import MissLimiter, install
from gametable.rooms import RoomService


def _door(now: FakeNow) -> FastAPI:
    """The rooms' door of checkers, 3 misses a minute for an address."""
    app = FastAPI()
    install(app, RoomService({"checkers": CHECKERS}), MissLimiter(limit=3, window=60.0, now=now))
    return app


def _made(client: TestClient) -> dict[str, str]:
    made: dict[str, str] = client.post("/api/rooms", json={
        "game": "checkers", "side": "white", "name": "Ann"}).json()
    return made


def test_an_address_that_misses_too_often_is_refused_for_the_rest_of_the_window() -> None:
    now = FakeNow()
    with TestClient(_door(now)) as client:
        code = _made(client)["code"]
        assert client.get(f"/api/rooms/{code}").status_code == 200  # a room that exists: no miss
        for guess in ("AAAAAAAA", "BBBBBBBB"):
            answer = client.get(f"/api/rooms/{guess}")
            assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
        assert client.post("/api/rooms/CCCCCCCC/join", json={"name": "Eve"}).status_code == 404
        now.advance(20.0)
        # three misses: even a room that exists is refused now, lookup and join alike
        refused = client.get(f"/api/rooms/{code}")
        assert refused.status_code == 429
        assert refused.json()["error"] == {
            "code": "rate_limited",
            "message": "3 rooms asked for from your address do not exist: check the code, "
                       "and try again in 40 s"}  # fmt: skip
        joined = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
        assert joined.status_code == 429 and joined.json()["error"]["code"] == "rate_limited"
        assert client.get(f"/api/rooms/{code}").json()["error"]["code"] == "rate_limited"
        now.advance(40.0)  # the first misses are a minute old: the address may ask again
        assert client.get(f"/api/rooms/{code}").json()["open"] is True
        joined = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
        assert joined.status_code == 200 and joined.json()["side"] == "black"


def test_the_limiter_forgets_the_oldest_addresses_past_its_bound(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(online, "MAX_TRACKED", 2)
    limiter = MissLimiter(limit=1, now=FakeNow())

    async def run() -> None:
        for address in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):
            await limiter.note(address)
        await limiter.check("10.0.0.1")  # forgotten: not refused
        for address in ("10.0.0.2", "10.0.0.3"):
            with pytest.raises(ActionRefused) as refused:
                await limiter.check(address)
            assert refused.value.code == "rate_limited"
        await limiter.check(None)  # an address unknown to the server is not limited

    asyncio.run(run())


def test_an_export_of_a_room_that_does_not_exist_is_a_miss() -> None:
    """``GET /api/rooms/{code}/export.pdn`` with any token would otherwise tell which codes
    exist (404 against 403): its misses count, and past the limit it is refused too."""
    now = FakeNow()
    with TestClient(_door(now)) as client:
        made = _made(client)
        code, token = made["code"], made["token"]
        headers = {"X-Seat-Token": "x" * 40}
        assert client.get(f"/api/rooms/{code}/export.pdn", headers=headers).status_code == 403
        for guess in ("AAAAAAAA", "BBBBBBBB", "CCCCCCCC"):
            missed = client.get(f"/api/rooms/{guess}/export.pdn", headers=headers)
            assert missed.status_code == 404
        refused = client.get(f"/api/rooms/{code}/export.pdn", headers=headers)
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
        own = client.get(f"/api/rooms/{code}/export.pdn", headers={"X-Seat-Token": token})
        assert own.status_code == 429  # the address waits out the window, as for a lookup
        now.advance(61.0)
        own = client.get(f"/api/rooms/{code}/export.pdn", headers={"X-Seat-Token": token})
        assert own.status_code == 200 and "[GameType" in own.text
