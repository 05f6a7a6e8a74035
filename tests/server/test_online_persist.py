"""Online rooms kept in the store (:class:`PersistentRooms`), in one process on fake clocks:
a room rebuilt from the store is the room it was (position, round, cube, score, log, clocks),
carries on in step with the original, charges nobody for the downtime, keeps its seat tokens
(stored hashed) and its creator's per-address limits; damaged rooms are refused with a logged
error and the others restored; rooms over are cleaned up."""

from __future__ import annotations

import json
import logging
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from backgammon.core.dice import commitment
from backgammon.core.game import Phase
from backgammon.core.types import WHITE, Color
from backgammon.services.online.persist import ENDING_RESERVE, PersistentRooms, token_hash
from backgammon.services.online.protocol import OnlineError, parse_message
from backgammon.services.online.rooms import OnlineSettings, Outgoing, Room, RoomPhase, Seat
from backgammon.services.room_store import RoomStore
from fake_clock import FakeNow


class Driver:
    """Plays a room's game by sending each next message through its manager, as the
    WebSocket door does (a tick, then the message)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.secrets: dict[tuple[int, Color], bytes] = {}

    def send(self, rooms: PersistentRooms, room: Room, seat: Seat, **fields: Any
             ) -> list[Outgoing]:
        text = json.dumps(fields)
        return rooms.tick(room) + rooms.handle(room, seat, parse_message(text), text)

    def secret(self, number: int, color: Color) -> bytes:
        key = (number, color)
        if key not in self.secrets:
            self.secrets[key] = self.rng.randbytes(32)
        return self.secrets[key]

    def next_message(self, room: Room) -> tuple[Seat, dict[str, Any]]:
        """The next message the game waits for, and from which seat."""
        game, current = room.game, room.round
        number = current.number if current is not None else room.next_round
        if game.phase is Phase.OPENING:
            if current is None or len(current.commitments) < 2:
                done = {} if current is None else current.commitments
                color = next(c for c in sorted(Color) if c not in done)
                return room.seat_of(color), {"type": "commit", "round": number,
                                             "commitment": commitment(self.secret(number,
                                                                                  color))}
            color = next(c for c in sorted(Color) if c not in current.secrets)
            return room.seat_of(color), {"type": "reveal", "round": number,
                                         "secret": self.secret(number, color).hex()}
        if current is not None:
            roller = current.roller
            assert roller is not None
            if roller.opponent not in current.secrets:
                return room.seat_of(roller.opponent), {
                    "type": "secret", "round": number,
                    "secret": self.secret(number, roller.opponent).hex()}
            return room.seat_of(roller), {"type": "reveal", "round": number,
                                          "secret": self.secret(number, roller).hex()}
        color = game.on_roll
        assert color is not None
        if game.phase is Phase.ROLL:
            return room.seat_of(color), {"type": "commit", "round": number,
                                         "commitment": commitment(self.secret(number, color))}
        plays = game.legal_plays()
        play = plays[self.rng.randrange(len(plays))]
        return room.seat_of(color), {"type": "play", "moves": [
            [m.from_point, m.to_point, m.die] for m in play.moves]}

    def step(self, rooms: PersistentRooms, room: Room) -> list[Outgoing]:
        seat, message = self.next_message(room)
        return self.send(rooms, room, seat, **message)


def _views(room: Room) -> list[dict[str, Any]]:
    views = [room.state_for(seat) for seat in (Seat.HOST, Seat.GUEST)]
    for view in views:
        view["you"].pop("connected")
        if view["opponent"] is not None:
            view["opponent"].pop("connected")
    return views


def _rooms(path: Path, now: FakeNow, wall: FakeNow | None = None, **options: Any
           ) -> PersistentRooms:
    wall = wall or FakeNow(1.7e9)
    return PersistentRooms(RoomStore(path, now=wall), now=now, wall=wall, **options)


def _started(rooms: PersistentRooms, **settings: Any) -> tuple[Room, str, str]:
    room, host = rooms.create(OnlineSettings(**settings), "Ann", "127.0.0.2")
    guest = rooms.join(room, "Bob")
    return room, host, guest


def test_a_restored_room_is_the_room_it_was_and_goes_on_in_step_with_it(
        tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    now = FakeNow(1000.0)
    rooms = _rooms(path, now)
    room, host_token, guest_token = _started(rooms, cube=True, time_control="blitz",
                                             match_length=3)
    driver = Driver(5)
    for _ in range(40):  # some turns, ending with a roll's commitment in and its secret not
        now.t += driver.rng.uniform(0.1, 3.0)
        driver.step(rooms, room)
    while room.round is None or room.round.kind != "roll" or room.round.secrets:
        now.t += 0.5
        driver.step(rooms, room)
    assert room.clock is not None and room.clock.running is None  # waiting on the secret
    before = _views(room)

    later = FakeNow(5.0)  # a new process: its monotonic clock starts elsewhere
    twin = tmp_path / "twin.sqlite3"  # (its own file: both go on writing)
    with sqlite3.connect(path) as source, sqlite3.connect(twin) as target:
        source.backup(target)
    source.close()
    target.close()
    again = _rooms(twin, later)
    assert again.load() == 1
    copy = again.get(room.code)
    assert copy is not room
    assert _views(copy) == before  # the position, the open round, cube, score, log, clocks
    assert again.seat_for(copy, host_token) is Seat.HOST
    assert again.seat_for(copy, guest_token) is Seat.GUEST
    with pytest.raises(OnlineError, match="that seat token does not belong to room"):
        again.seat_for(copy, "forged" * 5)
    assert again.restarted(copy, Seat.HOST) is True
    assert again.restarted(copy, Seat.HOST) is False

    # The same actions at the same moments on both: the same states after every one, and the
    # downtime (the new clock's start) is charged to no one.
    for _ in range(400):
        if room.phase is not RoomPhase.PLAYING:
            break
        wait = driver.rng.uniform(0.1, 2.0)
        now.t += wait
        later.t += wait
        seat, message = driver.next_message(room)
        out = driver.send(rooms, room, seat, **message)
        assert driver.send(again, copy, seat, **message) == out
        assert _views(copy) == _views(room)
    assert room.phase is RoomPhase.FINISHED
    assert copy.match.to_log() == room.match.to_log()


def test_the_stored_rows_hold_hashes_of_the_seat_tokens_not_the_tokens(tmp_path: Path
                                                                         ) -> None:
    path = tmp_path / "games.sqlite3"
    rooms = _rooms(path, FakeNow(1.0))
    room, host_token, guest_token = _started(rooms)
    stored = RoomStore(path).load(room.code)
    text = json.dumps(stored.header) + json.dumps([a.action for a in stored.actions])
    assert host_token not in text and guest_token not in text
    assert stored.header["host_token"] == token_hash(host_token)
    assert stored.actions[0].action == {"kind": "join", "name": "Bob",
                                        "token": token_hash(guest_token)}


def test_read_only_messages_and_refused_ones_are_not_stored(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    rooms = _rooms(path, FakeNow(1.0))
    room, _, _ = _started(rooms)
    driver = Driver(1)
    driver.send(rooms, room, Seat.HOST, type="state")
    driver.send(rooms, room, Seat.HOST, type="review")
    with pytest.raises(OnlineError):
        driver.send(rooms, room, Seat.HOST, type="play", moves=[[24, 21, 3]])
    assert RoomStore(path).count_actions(room.code) == 1  # the join
    driver.step(rooms, room)
    assert RoomStore(path).count_actions(room.code) == 2


def test_a_clock_flag_is_stored_and_the_timeout_comes_back(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    now = FakeNow(100.0)
    rooms = _rooms(path, now)
    room, _, _ = _started(rooms, time_control="bullet")
    driver = Driver(2)
    while room.game.phase is Phase.OPENING:
        driver.step(rooms, room)
    now.t += 500  # the side to move runs out
    out = rooms.tick(room)
    assert [p["type"] for s, p in out if s is Seat.HOST][:2] == ["timeout", "game_over"]
    again = _rooms(path, FakeNow(3.0))
    assert again.load() == 1
    copy = again.get(room.code)
    assert copy.phase is RoomPhase.FINISHED
    assert copy.game.outcome == room.game.outcome
    assert copy.game.outcome is not None and copy.game.outcome.kind == "timeout"


def test_a_damaged_room_is_refused_with_a_logged_error_and_the_others_come_back(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "games.sqlite3"
    rooms = _rooms(path, FakeNow(1.0))
    good, _, _ = _started(rooms)
    bad, _, _ = _started(rooms)
    broken, _, _ = _started(rooms)
    driver = Driver(3)
    for room in (good, bad, broken):
        driver.step(rooms, room)
    store = RoomStore(path)
    # an action the rules refuse on replay, and a row that is not JSON
    store.write_raw("online_actions", (bad.code, 3, 2.0, 1.7e9, json.dumps(
        {"kind": "message", "seat": "guest", "text": '{"type": "play", "moves": []}'})))
    store.write_raw("online_actions", (broken.code, 2, 2.0, 1.7e9, "{oops"))
    again = _rooms(path, FakeNow(9.0))
    with caplog.at_level(logging.ERROR, logger="backgammon.online"):
        assert again.load() == 1
    assert _views(again.get(good.code)) == _views(good)
    for code in (bad.code, broken.code):
        with pytest.raises(OnlineError, match="could not be brought back after the server "
                                              "restarted"):
            again.get(code)
    assert set(again.refused) == {bad.code, broken.code}
    assert again.refused[bad.code].startswith(
        f"stored room {bad.code!r} does not replay: action 3 (message) is refused: "
        f"OnlineError: ")
    assert again.refused[broken.code] == (
        f"stored room {broken.code!r} is damaged: its action 2 is not valid JSON (Expecting "
        f"property name enclosed in double quotes: line 1 column 2 (char 1))")
    logged = [r.getMessage() for r in caplog.records]
    assert sorted(logged) == sorted(f"online room refused at start: {why}"
                                    for why in again.refused.values())
    assert RoomStore(path).count_actions(bad.code) == 3  # left as it is, for a look


def test_the_per_address_limits_hold_across_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    wall = FakeNow(1.7e9)
    rooms = _rooms(path, FakeNow(1.0), wall, create_rate=10, max_waiting=5)
    for _ in range(5):
        rooms.create(OnlineSettings(), None, "127.0.0.2")
    again = _rooms(path, FakeNow(50.0), wall, create_rate=10, max_waiting=5)
    assert again.load() == 5
    with pytest.raises(OnlineError, match="your address has 5 rooms nobody has joined"):
        again.create(OnlineSettings(), None, "127.0.0.2")
    again.create(OnlineSettings(), None, "127.0.0.3")  # another address is not held up
    for code in list(again._rooms):  # all joined: only the rate is left, 10 a minute
        again.join(again.get(code), None)
    wall.t += 20
    for _ in range(5):
        again.create(OnlineSettings(), None, "127.0.0.2")
    third = _rooms(path, FakeNow(7.0), wall, create_rate=10, max_waiting=50)
    third.load()
    with pytest.raises(OnlineError, match="10 rooms created from your address in the last "
                                          "60 s: try again in 40 s"):
        third.create(OnlineSettings(), None, "127.0.0.2")


def test_rooms_over_are_cleaned_up_in_the_store_as_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    now, wall = FakeNow(1.0), FakeNow(1.7e9)
    rooms = _rooms(path, now, wall, expiry=60.0)
    left, _, _ = _started(rooms)
    playing, _, _ = _started(rooms)
    Driver(4).send(rooms, left, Seat.GUEST, type="leave")
    assert left.phase is RoomPhase.CLOSED
    # the room left and the one in play both come back right after a restart...
    assert _rooms(path, FakeNow(2.0), wall, expiry=60.0).load() == 2
    # ...but the closed one, past its expiry, is deleted at start; the one in play is kept
    wall.t += 61
    assert _rooms(path, FakeNow(2.0), wall, expiry=60.0).load() == 1
    assert RoomStore(path).codes() == [playing.code]
    # in memory, an empty room expires and is deleted from the store
    for seat in (Seat.HOST, Seat.GUEST):
        playing.disconnect(seat, playing.connect(seat)[0])
    now.t += 61
    assert rooms.sweep() == [left.code, playing.code]
    assert RoomStore(path).codes() == []
    # every room not written for a day goes at start
    _started(rooms)
    wall.t += 24 * 3600 + 1
    assert _rooms(path, FakeNow(2.0), wall).load() == 0
    assert RoomStore(path).codes() == []


def test_a_write_that_fails_leaves_the_room_playing_in_memory_only(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "games.sqlite3"
    rooms = _rooms(path, FakeNow(1.0))
    room, _, _ = _started(rooms)
    driver = Driver(6)

    def full(*args: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(rooms.store, "append", full)
    with caplog.at_level(logging.ERROR, logger="backgammon.online"):
        out = driver.step(rooms, room)
    # relayed all the same, the players told
    assert [p["type"] for s, p in out if s is Seat.HOST] == ["commit", "notice"]
    assert caplog.records[0].getMessage() == (
        f"online room {room.code}: action 2 (message) could not be stored (database or disk "
        f"is full); the room goes on in memory only and will not survive a restart")
    assert RoomStore(path).codes() == []  # not to come back behind what the players saw
    driver.step(rooms, room)
    assert room.round is not None and WHITE in room.round.commitments
    monkeypatch.setattr(rooms.store, "create", full)
    with pytest.raises(OnlineError, match="the server could not save the new room"):
        rooms.create(OnlineSettings(), None, "127.0.0.9")
    assert len(rooms) == 1


def test_a_room_nearing_its_most_actions_is_warned_then_refused_and_never_lost(
        tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    rooms = _rooms(path, FakeNow(1.0), max_actions=20)
    room, _, _ = _started(rooms)
    driver = Driver(8)
    notices: list[tuple[Seat, dict[str, Any]]] = []
    refused = None
    for _ in range(40):
        seat, message = driver.next_message(room)
        before = _views(room)
        try:
            out = driver.send(rooms, room, seat, **message)
        except OnlineError as exc:
            refused = exc
            break
        notices += [(s, p) for s, p in out if p["type"] == "notice"]
    # warned once, both players, as the cap approached (18 of 20 actions stored)
    assert [s for s, _ in notices] == [Seat.HOST, Seat.GUEST]
    notice = notices[0][1]
    assert notice["code"] == "room_log_nearly_full"
    assert notice["message"] == (
        "This room has stored 18 of the 20 actions it can keep: finish this game soon. Past "
        "its limit only resigning or leaving is taken; start a new room to play on.")
    assert "seq" not in notice  # not one of the room's events
    # refused at the cap, in words, the room as it was
    assert refused is not None and refused.code == "room_log_full"
    assert str(refused) == (
        "This room has stored the 20 actions it can keep, its most: the game cannot go on "
        "here. Resign or leave, and start a new room to play on.")
    assert _views(room) == before
    state = room.state_for(Seat.HOST)
    stored = RoomStore(path).count_actions(room.code)
    assert 20 <= stored <= 20 + ENDING_RESERVE[0]  # (the dice round open was thrown)
    assert state["storage"] == {"actions": stored, "max_actions": 20,
                                "bytes": state["storage"]["bytes"],
                                "max_bytes": rooms.max_room_bytes, "saved": True,
                                "warning": str(refused)}
    assert state["view"]["notice"] == str(refused)
    # a restart brings it back, warning and all: nothing is lost
    again = _rooms(path, FakeNow(2.0), max_actions=20)
    assert again.load() == 1
    copy = again.get(room.code)
    assert _views(copy) == _views(room)
    assert copy.state_for(Seat.GUEST)["storage"]["warning"] == str(refused)


def test_a_room_that_cannot_be_restored_is_said_so(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    rooms = _rooms(path, FakeNow(1.0))
    bad, _, _ = _started(rooms)
    RoomStore(path).write_raw("online_actions", (bad.code, 2, 2.0, 1.7e9, "{oops"))
    again = _rooms(path, FakeNow(9.0))
    assert again.load() == 0
    with pytest.raises(OnlineError) as refused:
        again.get(bad.code)
    assert refused.value.code == "room_not_restored" and refused.value.fatal
    assert str(refused.value) == (
        "This room could not be brought back after the server restarted (its saved record "
        "is damaged or no longer replays): start a new room.")


def test_a_room_the_store_cannot_keep_tells_its_players(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "games.sqlite3"
    rooms = _rooms(path, FakeNow(1.0))
    room, _, _ = _started(rooms)

    def full(*args: Any) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(rooms.store, "append", full)
    out = Driver(6).step(rooms, room)
    told = [(s, p) for s, p in out if p["type"] == "notice"]
    assert [s for s, _ in told] == [Seat.HOST, Seat.GUEST]
    words = ("The server could not save this room: play goes on, but a restart of the server "
             "would end it.")
    assert told[0][1] == {"type": "notice", "code": "not_saved", "message": words}
    assert room.state_for(Seat.HOST)["storage"]["saved"] is False
    assert room.state_for(Seat.HOST)["view"]["notice"] == words


def _padded(fields: dict[str, Any], size: int = 4000) -> str:
    """``fields`` as a frame padded with spaces to ``size`` bytes (as a hostile page may)."""
    text = json.dumps(fields)
    return text[:-1] + " " * (size - len(text)) + "}"


def test_a_padded_frame_is_stored_as_its_compact_action(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    rooms = _rooms(path, FakeNow(1.0))
    room, _, _ = _started(rooms)
    driver = Driver(9)
    seat, message = driver.next_message(room)
    text = _padded({**message, "ref": "x" * 60})
    assert len(text) == 4000
    rooms.tick(room)
    rooms.handle(room, seat, parse_message(text), text)
    stored = RoomStore(path).load(room.code).actions[-1].action
    assert stored == {"kind": "message", "seat": str(seat), "message": message}
    assert len(json.dumps(stored, separators=(",", ":"))) < 200  # of the frame's 4,000
    # and it replays: the room comes back with the commitment in its round
    again = _rooms(path, FakeNow(2.0))
    assert again.load() == 1
    assert _views(again.get(room.code)) == _views(room)


def test_a_room_past_its_bytes_refuses_actions_and_stays_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    rooms = _rooms(path, FakeNow(1.0), max_room_bytes=1500)
    room, _, _ = _started(rooms)
    driver = Driver(10)
    refused = None
    for _ in range(100):
        seat, message = driver.next_message(room)
        before = _views(room)
        try:
            driver.send(rooms, room, seat, **message)
        except OnlineError as exc:
            refused = exc
            break
    assert refused is not None and refused.code == "room_log_full"
    assert message["type"] in ("commit", "play")  # a round open is thrown to its end
    assert str(refused) == (
        "This room has stored the 1,500 bytes it can keep, its most: the game cannot go on "
        "here. Resign or leave, and start a new room to play on.")
    assert _views(room) == before  # the game in progress is intact
    stored = RoomStore(path).load(room.code)
    used = sum(len(json.dumps(value, separators=(",", ":")))
               for value in (stored.header, *(a.action for a in stored.actions)))
    assert 1300 < used <= 1500 + ENDING_RESERVE[1]  # the header and the actions
    # what can end the game is still taken
    seat = room.seat_of(room.game.on_roll)
    driver.send(rooms, room, seat, type="resign", level="single")
    driver.send(rooms, room, seat.other, type="accept")
    assert room.game.is_over
    # the restart brings it back as it is: nothing lost
    again = _rooms(path, FakeNow(2.0), max_room_bytes=1500)
    assert again.load() == 1
    assert _views(again.get(room.code)) == _views(room)


def test_the_rooms_of_one_address_share_a_bound_on_bytes_stored(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    rooms = _rooms(path, FakeNow(1.0), max_address_bytes=3000)
    first, _, _ = _started(rooms)  # both from 127.0.0.2
    second, _, _ = _started(rooms)
    other_room, _ = rooms.create(OnlineSettings(), "Cy", "127.0.0.3")
    rooms.join(other_room, "Di")
    driver = Driver(11)
    with pytest.raises(OnlineError) as refused:
        for _ in range(200):
            driver.step(rooms, first)
    assert refused.value.code == "storage_full"
    assert str(refused.value) == (
        "The rooms created from your address hold 3,000 bytes of games, their most: finish "
        "or leave a room (a room left empty is forgotten) to play on.")
    with pytest.raises(OnlineError, match="The rooms created from your address"):
        driver.step(rooms, second)
    with pytest.raises(OnlineError) as created:
        rooms.create(OnlineSettings(), "Ann", "127.0.0.2")
    assert created.value.code == "storage_full"
    for _ in range(20):  # another address plays on
        driver.step(rooms, other_room)
    # the bound counts what the store holds: after a restart, the same
    again = _rooms(path, FakeNow(2.0), max_address_bytes=3000)
    assert again.load() == 3
    with pytest.raises(OnlineError, match="The rooms created from your address"):
        driver.step(again, again.get(second.code))
