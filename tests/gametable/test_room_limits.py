"""What one room and one address may store at the shared door (issue 33): a room takes at
most ``max_room_messages`` messages over all its games and stores at most ``max_room_bytes``;
the rooms of one address store at most ``max_owner_bytes``. Past them a message is refused
``room_full`` in words that say what to do, the game left as it was, and what ends the game (a
leave, a claim) is still taken (gametable.rooms; the same in Redis: test_redis_limits.py). A
join to a room whose two seats are taken is ``seats_taken``, another case and another code."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import checkers.adapter
from backgammon.adapter import MAX_TAKE_BACKS
from backgammon.adapter import RULES as BACKGAMMON
from checkers.adapter import RULES as CHECKERS
from fake_clock import FakeNow
from gametable.errors import ActionRefused
from gametable.online import MissLimiter, install
from gametable.room import CLAIM_AFTER, THINK_AFTER
from gametable.room_store import RoomStore
from gametable.rooms import RoomService
from room_rounds import throw_opening
from ws_peer import WsPeer

GAMES: Any = {"checkers": CHECKERS}
OFFER = {"type": "action", "action": {"type": "offer_draw"}}
DECLINE = {"type": "action", "action": {"type": "decline_draw"}}


@pytest.fixture(autouse=True)
def _offers_unbounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests fill rooms with draw offers declined, over and over: the table's policy of
    one offer a move (tests/checkers/test_checkers_draw_offers.py) is lifted here."""
    monkeypatch.setattr(checkers.adapter, "draw_offer_refusal", lambda game, color: None)
FULL_WORDS = ("this room has taken all the 12 messages a room takes: start a new room to play"
              " on (this game can still be left or claimed)")


def _seated(svc: RoomService, owner: str | None = None) -> str:
    code, _token, _side, _room = svc.create("checkers", {}, "none", name="Ann", side="white",
                                            owner=owner)  # fmt: skip
    svc.join(code, "Bob")
    return code


def _refused(svc: RoomService, code: str, side: Any, message: dict[str, Any]) -> ActionRefused:
    with pytest.raises(ActionRefused) as refused:
        svc.handle(code, side, message)
    return refused.value


def test_a_room_takes_so_many_messages_over_its_games_and_its_rematch_counts() -> None:
    svc = RoomService(GAMES, RoomStore(":memory:"), now=FakeNow(), max_room_messages=12)
    code = _seated(svc)  # the join: version 1
    for _ in range(2):
        svc.handle(code, "white", OFFER)
        svc.handle(code, "black", DECLINE)
    svc.handle(code, "white", {"type": "action", "action": {"type": "resign"}})
    svc.handle(code, "white", {"type": "rematch"})
    svc.handle(code, "black", {"type": "rematch"})  # a new game: the count goes on
    room = svc.room(code)
    assert room.version == 8 and len(room.history) == 1
    svc.handle(code, "white", OFFER)  # (sides swapped: Bob is White now)
    svc.handle(code, "black", DECLINE)
    svc.handle(code, "white", OFFER)
    svc.handle(code, "black", DECLINE)
    assert room.version == 12
    view = room.view("white")
    refused = _refused(svc, code, "white", OFFER)
    assert (refused.code, str(refused)) == ("room_full", FULL_WORDS)
    assert svc.room(code).view("white") == view  # the game as it was
    # a restart finds it full too (the count is the room's version, in its record)
    assert svc.store is not None
    again = RoomService(GAMES, svc.store, now=FakeNow(), max_room_messages=12)
    assert again.restore() == [code]
    assert _refused(again, code, "black", OFFER).code == "room_full"
    # what ends the game is still taken; then no rematch in a full room
    out = again.handle(code, "black", {"type": "leave"})
    assert out[0].payload["view"]["outcome"]["winner"] == "white"
    assert _refused(again, code, "white", {"type": "rematch"}).code == "room_full"
    assert again.room(code).version == 13


def test_a_room_stores_so_many_bytes_then_refuses_before_acting() -> None:
    store = RoomStore(":memory:")
    svc = RoomService(GAMES, store, now=FakeNow(), max_room_bytes=4000)
    code = _seated(svc)
    taken = 0
    with pytest.raises(ActionRefused) as refused:
        for _ in range(200):
            svc.handle(code, "white", OFFER)
            svc.handle(code, "black", DECLINE)
            taken += 2
    assert refused.value.code == "room_full"
    assert str(refused.value) == ("this room holds all a room may store (3 KiB): start a new"
                                  " room to play on (this game can still be left or claimed)")
    stored = store.load_all()
    entry = svc._entry(code)
    assert 4000 <= entry.stored_bytes() < 4000 + 200  # passed by its last step at most
    assert 10 < taken < 200
    version = svc.room(code).version
    for message in (OFFER, DECLINE, {"type": "rematch"}):
        assert _refused(svc, code, "white", message).code == "room_full"
    assert svc.room(code).version == version and store.load_all() == stored  # nothing stored
    assert stored[0].steps[-1]["rv"] == version  # the last message taken is the last stored
    out = svc.handle(code, "white", {"type": "leave"})  # the game can still be ended
    assert out[0].payload["view"]["outcome"]["winner"] == "black"


def test_the_rooms_of_one_address_store_so_many_bytes() -> None:
    now = FakeNow()
    svc = RoomService(GAMES, RoomStore(":memory:"), now=now, max_owner_bytes=6000)
    first = _seated(svc, owner="10.0.0.7")
    second = _seated(svc, owner="10.0.0.7")
    elsewhere = _seated(svc, owner="10.0.0.8")
    while svc._owner_bytes.get("10.0.0.7", 0) < 6000:
        for code in (first, second):
            svc.handle(code, "white", OFFER)
            svc.handle(code, "black", DECLINE)
    # the games in play go on (to their own room's bound: nobody stops a game, and its
    # claims, by filling other rooms); the address starts no new game and makes no room
    svc.handle(first, "white", OFFER)
    assert not svc.room(first).full
    svc.handle(first, "white", {"type": "action", "action": {"type": "resign"}})
    refused = _refused(svc, first, "white", {"type": "rematch"})
    assert refused.code == "room_full"
    assert str(refused).startswith("the rooms made from this room's address hold all")
    made = _refused_create(svc, "10.0.0.7")
    assert (made.code, str(made)) == (
        "too_many_rooms", "the rooms made from your address hold all the server keeps for one"
        " address: try again when older ones have expired")
    svc.handle(elsewhere, "white", OFFER)  # another address's rooms go on
    svc.create("checkers", {}, "none", owner="10.0.0.8")
    # a room's game can still be ended; once the rooms expire the address makes rooms again
    svc.handle(first, "black", {"type": "leave"})
    svc.handle(second, "black", {"type": "leave"})
    now.advance(svc.over_expiry + 1)
    assert set(svc.sweep()) >= {first, second}
    assert "10.0.0.7" not in svc._owner_bytes
    svc.create("checkers", {}, "none", owner="10.0.0.7")


def _refused_create(svc: RoomService, owner: str) -> ActionRefused:
    with pytest.raises(ActionRefused) as refused:
        svc.create("checkers", {}, "none", owner=owner)
    return refused.value


def test_a_full_room_answers_its_sender_in_words_and_stays_open() -> None:
    svc = RoomService(GAMES, RoomStore(":memory:"), now=FakeNow(), max_room_messages=3)
    app = FastAPI()
    install(app, svc)
    with TestClient(app) as client:
        host = client.post("/api/rooms", json={"game": "checkers", "name": "Ann"}).json()
        client.post(f"/api/rooms/{host['code']}/join", json={"name": "Bob"})
        with client.websocket_connect(f"/ws/rooms/{host['code']}") as ws:
            peer = WsPeer(ws)
            peer.send(type="hello", token=host["token"])
            peer.expect("view")
            peer.send(**OFFER, ref=1)
            assert peer.expect("view")["view"]["room"]["version"] == 2
            peer.send(type="action", action={"type": "resign"}, ref=2)
            assert peer.expect("view")["view"]["outcome"]["winner"] == "black"
            peer.send(type="rematch", ref=3)
            error = peer.expect("error")
            assert error == {"type": "error", "code": "room_full", "ref": 3, "message": (
                "this room has taken all the 3 messages a room takes: start a new room to"
                " play on (this game can still be left or claimed)")}
            peer.send(type="state", ref=4)  # still open, the game as it was
            assert peer.expect("view")["view"]["room"]["version"] == 3


def test_a_join_to_a_seated_room_is_seats_taken_and_a_message_to_a_full_room_room_full() -> None:
    """Two cases, two codes: a join to a room whose seats are both taken is refused
    ``seats_taken``, whether or not its storage is used up; a message to a room whose storage
    is used up is refused ``room_full``."""
    svc = RoomService(GAMES, RoomStore(":memory:"), now=FakeNow(), max_room_messages=2)
    app = FastAPI()
    install(app, svc)
    seats_taken = {"code": "seats_taken", "message": "both seats of this room are taken"}
    with TestClient(app) as client:
        host = client.post("/api/rooms", json={"game": "checkers", "name": "Ann"}).json()
        code = host["code"]
        assert client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).status_code == 200
        refused = client.post(f"/api/rooms/{code}/join", json={"name": "Eve"})
        assert (refused.status_code, refused.json()["error"]) == (409, seats_taken)
        with client.websocket_connect(f"/ws/rooms/{code}") as ws:
            peer = WsPeer(ws)
            peer.send(type="hello", token=host["token"])
            peer.expect("view")
            peer.send(**OFFER, ref=1)  # the room's second message: its last
            assert peer.expect("view")["view"]["room"]["version"] == 2
            peer.send(**OFFER, ref=2)
            error = peer.expect("error")
            assert (error["code"], error["ref"]) == ("room_full", 2)
            assert error["message"].startswith("this room has taken all the 2 messages")
        refused = client.post(f"/api/rooms/{code}/join", json={"name": "Eve"})
        assert (refused.status_code, refused.json()["error"]) == (409, seats_taken)


def test_a_hello_to_a_room_that_does_not_exist_is_a_miss() -> None:
    """A hello with any token tells a room that exists (``not_your_room``) from one that does
    not (``not_found``): each of the latter counts against the address like a lookup, and an
    address past its misses is told nothing of any room. A seat's own token is no guess: it
    opens the seat whatever the address's misses (a player reloading behind the same address
    as a guesser is not locked out of its game while its clock runs)."""
    now = FakeNow()
    app = FastAPI()
    install(app, RoomService(GAMES), MissLimiter(limit=2, window=60.0, now=now))
    with TestClient(app) as client:
        made = client.post("/api/rooms", json={"game": "checkers", "name": "Ann"}).json()
        for guess in ("AAAAAAAA", "BBBBBBBB"):
            with client.websocket_connect(f"/ws/rooms/{guess}") as ws:
                peer = WsPeer(ws)
                peer.send(type="hello", token="x" * 32)
                assert peer.expect("error")["code"] == "not_found"
        for code, token in (("CCCCCCCC", "x" * 32), (made["code"], "y" * 32)):
            with client.websocket_connect(f"/ws/rooms/{code}") as ws:
                peer = WsPeer(ws)
                peer.send(type="hello", token=token)  # the address used up its misses
                refused = peer.expect("error")
                assert refused["code"] == "rate_limited"  # found or not, it is not told
                assert refused["message"].startswith("2 rooms asked for from your address")
        with client.websocket_connect(f"/ws/rooms/{made['code']}") as ws:
            peer = WsPeer(ws)
            peer.send(type="hello", token=made["token"])  # the seat's own token opens it
            assert peer.expect("view")["view"]["room"]["version"] == 0
        assert client.get(f"/api/rooms/{made['code']}").status_code == 429
        now.advance(60.0)
        with client.websocket_connect(f"/ws/rooms/{made['code']}") as ws:
            peer = WsPeer(ws)
            peer.send(type="hello", token="y" * 32)
            assert peer.expect("error")["code"] == "not_your_room"


def test_an_address_stores_its_share_of_full_rooms_by_default() -> None:
    assert RoomService(GAMES).max_owner_bytes == 10 * 1536 * 1024  # 10 rooms of 1.5 MiB
    lifted = RoomService(GAMES, max_per_owner=1 << 30)  # a bench's one address
    assert lifted.max_owner_bytes == (1 << 30) * 1536 * 1024
    assert RoomService(GAMES, max_room_bytes=1000, max_owner_bytes=5).max_owner_bytes == 5


def test_a_full_room_opens_a_claim_only_against_a_player_who_has_gone() -> None:
    """In a full room the awaited player's messages are refused: its wait is not its doing,
    so no claim opens for its thinking; one that has gone may still be claimed against."""
    now = FakeNow()
    svc = RoomService(GAMES, RoomStore(":memory:"), now=now, max_room_messages=5)
    code = _seated(svc)
    for side in ("white", "black"):
        svc.connect(code, side)
    for _ in range(2):
        svc.handle(code, "white", OFFER)
        svc.handle(code, "black", DECLINE)
    move = {"type": "action", "action": {"type": "move", "path": [11, 15]}}
    assert _refused(svc, code, "black", move).code == "room_full"  # Black, to move, cannot
    now.advance(THINK_AFTER + 1)
    assert _refused(svc, code, "white", {"type": "claim"}).code == "not_claimable"
    assert not svc.room(code).view("white")["room"]["can_claim"]
    svc.disconnect(code, "black")
    now.advance(CLAIM_AFTER + 1)
    svc.handle(code, "white", {"type": "claim"})
    assert svc.room(code).view("white")["room"]["forfeit"] == {"side": "black",
                                                               "cause": "claimed"}


def test_a_turn_takes_so_many_take_backs() -> None:
    """No player fills a room alone moving a checker to and fro: past MAX_TAKE_BACKS
    take-backs in one turn the next is refused; the turn can still be played and ended."""
    svc = RoomService({"backgammon": BACKGAMMON}, RoomStore(":memory:"), now=FakeNow())
    code, _, _, _ = svc.create("backgammon", {"length": 3}, "none", name="Ann", side="white")
    svc.join(code, "Bob")
    room = svc.room(code)
    throw_opening(svc, code)
    mover: Any = next(iter(room.table.game.to_act()))

    def act(action: dict[str, Any]) -> None:
        svc.handle(code, mover, {"type": "action", "action": action})

    legal = room.view(mover)["state"]["legal"][0]
    step = {"type": "move_checker", "from": legal["from"],
            "to": legal["destinations"][0]["to"]}
    for _ in range(MAX_TAKE_BACKS):
        act(step)
        act({"type": "undo"})
    act(step)
    version = room.version
    refused = _refused(svc, code, mover, {"type": "action", "action": {"type": "undo"}})
    assert (refused.code, str(refused)) == (
        "not_allowed", f"you have taken back {MAX_TAKE_BACKS} checker moves this turn, the "
        "most a turn takes: play on")
    assert room.version == version
    while room.table.game.to_act() == {mover} and room.view(mover)["state"]["legal"]:
        legal = room.view(mover)["state"]["legal"][0]
        act({"type": "move_checker", "from": legal["from"],
             "to": legal["destinations"][0]["to"]})
    act({"type": "end_turn"})
    assert room.table.game.to_act() != {mover}


def test_a_room_is_marked_full_by_the_message_that_fills_it_and_on_restore() -> None:
    """The views after the last message a room takes already say no claim opens for a
    player's thinking (the page offers none the server would refuse), and a restart knows."""
    now = FakeNow()
    store = RoomStore(":memory:")
    svc = RoomService(GAMES, store, now=now, max_room_messages=3)
    code = _seated(svc)
    for side in ("white", "black"):
        svc.connect(code, side)
    svc.handle(code, "white", OFFER)
    svc.handle(code, "black", DECLINE)  # the third message: the room is full
    assert svc.room(code).full
    now.advance(THINK_AFTER + 1)
    assert not svc.room(code).view("white")["room"]["can_claim"]
    again = RoomService(GAMES, store, now=FakeNow(), max_room_messages=3)
    assert again.restore() == [code] and again.room(code).full
