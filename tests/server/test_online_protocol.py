"""Online play through scripted WebSocket clients: rooms, commit-reveal dice, the referee.

Each test drives two (or three) scripted players against a minimal app that mounts the online
router, with the rooms' ``now()`` a fake clock. Every refusal is checked for its error code and
words, and for leaving the room's full state exactly as it was.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from backgammon.core.dice import commitment, dice_from_secrets
from backgammon.core.game import Game, GameSettings
from backgammon.core.moves import Move
from backgammon.server.online import OnlineHub, RoomManager, router
from backgammon.services.clock import TIME_CONTROLS, TimeControl
from backgammon.services.online.protocol import MAX_MESSAGE_BYTES, OnlineError, parse_message
from backgammon.services.online.rooms import (
    TRANSITIONS,
    OnlineSettings,
    Room,
    RoomPhase,
    RoomStateError,
)
from fake_clock import FakeNow
from ws_peer import WsPeer

EXPIRY = 60.0


class Player(WsPeer):
    """One scripted browser: a WebSocket, its secrets, and its own replica of the game built
    from the events it receives (so both sides' records can be compared)."""

    def __init__(self, ws: Any, rng: random.Random) -> None:
        super().__init__(ws)
        self.rng = rng
        self.token = ""
        self.replica: Game | None = None

    def error(self, code: str) -> str:
        message = self.expect("error")
        assert message["code"] == code, message
        return str(message["message"])

    def state(self) -> dict[str, Any]:
        self.send(type="state")
        return dict(self.expect("state")["state"])

    def secret(self) -> bytes:
        return self.rng.randbytes(32)


class Table:
    """Host and guest in one room; helpers that run the protocol and read both sides."""

    def __init__(self, host: Player, guest: Player, settings: GameSettings) -> None:
        self.host = host
        self.guest = guest
        self.settings = settings
        self.next_round = 1
        self.code = ""
        self.ws_path = ""
        for player in (host, guest):
            player.replica = Game(settings)

    @property
    def players(self) -> tuple[Player, Player]:
        return (self.host, self.guest)

    def by_color(self, color: str) -> Player:
        return self.host if self.host.color == color else self.guest

    def both(self, kind: str) -> list[dict[str, Any]]:
        found = [player.expect(kind) for player in self.players]
        for message in found:
            message.pop("legal_moves", None)
            message.pop("legal", None)
        assert found[0] == found[1]
        return found

    def apply_roll(self, rolled: dict[str, Any]) -> None:
        for player in self.players:
            assert player.replica is not None
            player.replica.roll(dice=rolled["dice"])

    def opening(self) -> dict[str, Any]:
        """The opening roll by commit-reveal (ties thrown again); returns ``rolled``."""
        while True:
            number = self.next_round
            self.next_round += 1
            secrets = {p.color: p.secret() for p in self.players}
            for player in self.players:
                player.send(type="commit", round=number,
                            commitment=commitment(secrets[player.color]))
                self.both("commit")
            for player in self.players:
                player.send(type="reveal", round=number, secret=secrets[player.color].hex())
                self.both("reveal")
            rolled = self.both("rolled")[0]
            assert rolled["opening"] is True
            assert tuple(rolled["dice"]) == dice_from_secrets(secrets["white"],
                                                             secrets["black"], number)
            self.apply_roll(rolled)
            if not rolled["tie"]:
                return rolled

    def roll(self, roller: Player) -> dict[str, Any]:
        """A turn's roll, three messages; returns the roller's ``rolled`` (with legal moves)."""
        other = self.guest if roller is self.host else self.host
        number = self.next_round
        self.next_round += 1
        mine, theirs = roller.secret(), other.secret()
        roller.send(type="commit", round=number, commitment=commitment(mine))
        self.both("commit")
        other.send(type="secret", round=number, secret=theirs.hex())
        self.both("secret")
        roller.send(type="reveal", round=number, secret=mine.hex())
        self.both("reveal")
        rolled = roller.expect("rolled")
        seen = other.expect("rolled")
        assert {k: v for k, v in rolled.items() if k not in ("legal_moves", "legal")} == seen
        assert tuple(rolled["dice"]) == dice_from_secrets(mine, theirs, number)
        self.apply_roll(rolled)
        return rolled

    def to_move(self) -> Player:
        replica = self.host.replica
        assert replica is not None and replica.turn is not None
        return self.by_color(str(replica.turn))

    def play_random(self, mover: Player) -> dict[str, Any]:
        """A random legal play (chosen on the mover's replica); returns the ``play`` event."""
        assert mover.replica is not None
        plays = sorted(mover.replica.legal_plays(), key=lambda p: str(p))
        play = mover.rng.choice(plays)
        mover.send(type="play", moves=[[m.from_point, m.to_point, m.die] for m in play.moves])
        event = self.both("play")[0]
        for player in self.players:
            assert player.replica is not None
            for move in event["moves"]:
                player.replica.move(Move(*move))
            player.replica.end_turn(seconds=event["seconds"])
        return event


@pytest.fixture
def now() -> FakeNow:
    return FakeNow()


@pytest.fixture
def client(now: FakeNow) -> Iterator[TestClient]:
    app = FastAPI()
    app.include_router(router)
    app.state.online = OnlineHub(RoomManager(now=now, expiry=EXPIRY))
    # One portal (event loop) for every connection, as under uvicorn.
    with TestClient(app) as test_client:
        yield test_client


def create(client: TestClient, **settings: Any) -> dict[str, Any]:
    response = client.post("/api/online/rooms", json=settings)
    assert response.status_code == 201, response.text
    return dict(response.json())


@pytest.fixture
def table_factory(client: TestClient) -> Iterator[Any]:
    stack: list[Any] = []

    def make(seed: int = 1, **settings: Any) -> Table:
        room = create(client, name="Ann", **settings)
        rng = random.Random(seed)
        host_ws = client.websocket_connect(room["ws_path"]).__enter__()
        stack.append(host_ws)
        host = Player(host_ws, random.Random(rng.random()))
        host.send(type="hello", token=room["token"])
        welcome = host.expect("welcome")
        host.color, host.token = welcome["color"], welcome["token"]
        guest_ws = client.websocket_connect(room["ws_path"]).__enter__()
        stack.append(guest_ws)
        guest = Player(guest_ws, random.Random(rng.random()))
        guest.send(type="hello", name="Bob")
        welcome = guest.expect("welcome")
        guest.color, guest.token = welcome["color"], welcome["token"]
        joined = host.expect("opponent")
        assert (joined["status"], joined["name"]) == ("joined", "Bob")
        game_settings = GameSettings(cube=bool(settings.get("cube", False)),
                                     match_length=int(settings.get("match_length", 0)))
        table = Table(host, guest, game_settings)
        table.code, table.ws_path = room["code"], room["ws_path"]
        return table

    yield make
    for ws in reversed(stack):
        ws.__exit__(None, None, None)


def unchanged(table: Table, before: tuple[dict[str, Any], dict[str, Any]]) -> None:
    """Both players' full states are exactly what they were."""
    assert (table.host.state(), table.guest.state()) == before


def states(table: Table) -> tuple[dict[str, Any], dict[str, Any]]:
    return (table.host.state(), table.guest.state())


# ------------------------------------------------------------------------------------------
# Creating and joining


def test_create_gives_a_long_url_safe_code_and_the_settings(client: TestClient) -> None:
    room = create(client, cube=True, time_control="blitz", match_length=5)
    assert len(room["code"]) == 16 and len(room["token"]) == 32
    assert set(room["code"] + room["token"]) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert room["settings"] == {"cube": True, "match_length": 5,
                                "time_control": {"name": "blitz", "reserve": 180.0,
                                                 "increment": 4.0},
                                "money": False, "jacoby": False, "beavers": False}
    assert room["invite_path"] == f"/#join={room['code']}"
    info = client.get(f"/api/online/rooms/{room['code']}").json()
    assert info == {"code": room["code"], "phase": "waiting", "settings": room["settings"],
                    "host": "Host", "open": True}
    other = create(client)
    assert other["code"] != room["code"] and other["token"] != room["token"]


def test_create_refuses_bad_settings(client: TestClient) -> None:
    response = client.post("/api/online/rooms", json={"time_control": "glacial"})
    assert response.status_code == 422
    assert response.json()["error"]["message"] == (
        "time_control must be one of none, bullet, blitz, rapid, got 'glacial'")
    response = client.post("/api/online/rooms", json={"match_length": 40})
    assert response.status_code == 422
    assert "match_length must be 0 (a single game) or 1 to 25" in response.text
    assert client.get("/api/online/rooms/nosuchroom").status_code == 404


def test_the_handshake_sends_the_hosts_settings_to_the_guest(table_factory: Any) -> None:
    table = table_factory(cube=True, time_control="rapid", match_length=3)
    guest_state = table.guest.state()
    assert guest_state["settings"] == {"cube": True, "match_length": 3, "time_control": {
        "name": "rapid", "reserve": 600.0, "increment": 8.0}, "money": False, "jacoby": False,
        "beavers": False}
    assert guest_state["you"] == {"seat": "guest", "color": "black", "name": "Bob",
                                  "connected": True}
    assert guest_state["opponent"] == {"seat": "host", "color": "white", "name": "Ann",
                                       "connected": True}
    assert guest_state["phase"] == "playing" and guest_state["round"] == {"next": 1, "open": None}
    assert guest_state["game"]["phase"] == "opening"
    assert guest_state["match"]["length"] == 3 and guest_state["match"]["names"] == ["Ann", "Bob"]


def test_a_third_joiner_is_refused_and_closed(client: TestClient, table_factory: Any) -> None:
    table = table_factory()
    before = states(table)
    with client.websocket_connect(table.ws_path) as ws:
        third = Player(ws, random.Random(0))
        third.send(type="hello", name="Eve")
        assert third.error("room_full") == f"room {table.code} already has two players"
        with pytest.raises(WebSocketDisconnect) as closed:
            third.recv()
        assert closed.value.code == 4403
    unchanged(table, before)


def test_a_forged_seat_token_is_refused(client: TestClient, table_factory: Any) -> None:
    table = table_factory()
    before = states(table)
    with client.websocket_connect(table.ws_path) as ws:
        forger = Player(ws, random.Random(0))
        forger.send(type="hello", token="A" * 32)
        assert forger.error("bad_token") == (
            f"that seat token does not belong to room {table.code}")
        with pytest.raises(WebSocketDisconnect):
            forger.recv()
    unchanged(table, before)


def test_unknown_room_and_messages_before_hello(client: TestClient) -> None:
    room = create(client)
    with client.websocket_connect(room["ws_path"]) as ws:
        player = Player(ws, random.Random(0))
        player.send(type="state")
        assert player.error("hello_first") == "say hello first (got 'state')"
        player.send(type="hello", token=room["token"])
        assert player.expect("welcome")["seat"] == "host"
        player.send(type="hello", token=room["token"])
        player.error("already_joined")
    with client.websocket_connect("/api/online/rooms/AAAAAAAAAAAAAAAA/ws") as ws:
        player = Player(ws, random.Random(0))
        player.send(type="hello")
        assert player.error("room_not_found").startswith("no room 'AAAAAAAAAAAAAAAA'")


# ------------------------------------------------------------------------------------------
# A whole game


def test_a_full_game_through_commit_reveal_dice(table_factory: Any) -> None:
    table = table_factory(seed=7)
    rolled = table.opening()
    mover = table.by_color(rolled["color"])
    turns = 0
    while True:
        event = table.play_random(mover)
        assert event["color"] == mover.color
        turns += 1
        assert table.host.replica is not None
        if table.host.replica.is_over:
            break
        mover = table.to_move()
        while True:  # a roll that cannot be played passes by itself
            rolled = table.roll(mover)
            if not rolled["passed"]:
                break
            assert "legal_moves" not in rolled and "legal" not in rolled  # the turn passed
            mover = table.to_move()
        assert turns < 400
    over = table.both("game_over")[0]
    assert over["match_over"] is True
    assert table.host.replica is not None and table.guest.replica is not None
    record = table.host.replica.to_log()
    assert over["log"] == record == table.guest.replica.to_log()
    replayed = Game.replay(over["log"])
    assert replayed.outcome is not None and replayed.outcome.to_dict() == over["outcome"]
    assert over["text"].startswith(("Ann wins ", "Bob wins "))
    for player in table.players:
        state = player.state()
        assert state["phase"] == "finished"
        assert state["match"]["games"][0] == record
        winner = over["outcome"]["winner"]
        assert state["score"][winner] == over["outcome"]["points"] >= 1
    assert sum(1 for e in record["events"] if e["type"] == "play") >= turns - 1


def test_single_moves_undo_and_end_turn_are_relayed(table_factory: Any) -> None:
    table = table_factory(seed=3)
    rolled = table.opening()
    mover = table.by_color(rolled["color"])
    other = table.guest if mover is table.host else table.host
    assert mover.replica is not None
    first = mover.replica.legal_moves()[0]
    mover.send(type="move", moves=[[first.from_point, first.to_point, first.die]])
    mine, theirs = mover.expect("move"), other.expect("move")
    assert mine["moves"] == theirs["moves"] == [[first.from_point, first.to_point, first.die]]
    assert mine["hits"] == theirs["hits"] == [False]
    assert "legal_moves" in mine and "legal_moves" not in theirs
    assert "legal" in mine and "legal" not in theirs
    # the state's record holds the turn in progress too
    assert mover.state()["match"]["games"][-1]["moves"] == [
        [first.from_point, first.to_point, first.die]]
    mover.send(type="end_turn")
    assert "the play is not complete" in mover.error("not_allowed")
    mover.send(type="undo")
    assert table.both("undo")[0]["move"] == [first.from_point, first.to_point, first.die]
    play = sorted(mover.replica.legal_plays(), key=str)[0]
    for move in play.moves:
        mover.send(type="move", moves=[[move.from_point, move.to_point, move.die]])
        table.both("move")
    mover.send(type="end_turn")
    event = table.both("play")[0]
    assert event["moves"] == [[m.from_point, m.to_point, m.die] for m in play.moves]


def test_the_mover_gets_the_boards_destinations_as_local_play(table_factory: Any) -> None:
    from backgammon.services.destinations import legal_json

    table = table_factory(seed=3)
    rolled = table.opening()
    mover = table.by_color(rolled["color"])
    other = table.guest if mover is table.host else table.host
    assert mover.replica is not None
    # the same list local play draws: one entry per checker that can move, with every place
    # it reaches (several dice on: more than one move), hits marked
    legal = mover.state()["game"]["legal"]
    assert legal == legal_json(mover.replica)
    assert any(len(d["moves"]) == 2 for entry in legal for d in entry["destinations"])
    assert other.state()["game"]["legal"] == []
    # a two-dice destination is one gesture: its single moves in one message, all or none
    entry = next(e for e in legal if any(len(d["moves"]) == 2 for d in e["destinations"]))
    destination = next(d for d in entry["destinations"] if len(d["moves"]) == 2)
    color = mover.color
    path = [[_own(step["from"], color), _own(step["to"], color), step["die"]]
            for step in destination["moves"]]
    mover.send(type="move", moves=path)
    mine = mover.expect("move")
    assert other.expect("move")["moves"] == mine["moves"] == path
    # after the last die, the mover is told that nothing is left to move
    assert mine["legal"] == [] and mine["legal_moves"] == []
    board = mover.state()["game"]["board"]["points"]
    target = destination["to"]
    assert (board[target] > 0) if color == "white" else (board[target] < 0)


def _own(place: Any, color: str) -> int:
    """A page place (White's numbering, "bar", "off") in ``color``'s numbering."""
    if place == "bar":
        return 25
    if place == "off":
        return 0
    return int(place) if color == "white" else 25 - int(place)


def test_the_state_names_each_play_as_the_move_list_shows_it(table_factory: Any) -> None:
    table = table_factory(seed=11)
    mover = table.by_color(table.opening()["color"])
    event = table.play_random(mover)
    state = table.host.state()
    assert state["crawford"] is False
    assert mover.replica is not None
    turn = mover.replica.history[-1]
    log = state["match"]["games"][-1]["events"]
    # [index of the play's event in the log, the play in standard notation]
    assert state["game"]["play_texts"] == [[turn.event_index, turn.text]]
    assert log[turn.event_index]["type"] == "play"
    assert log[turn.event_index]["moves"] == event["moves"]
    assert turn.text and "/" in turn.text


def test_explain_says_why_a_checker_cannot_go_there_to_the_asker_only(
        table_factory: Any) -> None:
    from backgammon.services.review import explain_attempt

    table = table_factory(seed=3)
    mover = table.by_color(table.opening()["color"])
    other = table.guest if mover is table.host else table.host
    assert mover.replica is not None
    before = states(table)
    # A checker moved backwards: refused with the engine's words and the rule's source, the
    # same answer local play gives.
    source, target = (13, 14) if mover.color == "white" else (12, 11)
    mover.send(type="explain", **{"from": source, "to": target}, ref=4)
    answer = mover.expect("explain")
    assert answer["ref"] == 4
    explained = answer["explain"]
    assert explained == explain_attempt(mover.replica, source, target)
    assert explained["legal"] is False and explained["text"].startswith("13/14: ")
    assert explained["rule"] is not None
    # The opponent asking about the mover's turn is told whose turn it is.
    other.send(type="explain", **{"from": 24 if other.color == "white" else 1})
    assert other.expect("explain")["explain"] == {
        "legal": False, "text": f"it is {mover.color}'s turn",
        "reason": f"it is {mover.color}'s turn", "rule": None, "source": None}
    # A place that is no place is refused as malformed.
    mover.send(type="explain", **{"from": 30})
    assert mover.error("malformed").endswith(
        "a place is 1..24 (White's numbering), 'bar' or 'off', got 30")
    unchanged(table, before)


def test_review_and_export_answer_the_asker_only(table_factory: Any) -> None:
    table = table_factory(seed=3)
    rolled = table.opening()
    mover = table.by_color(rolled["color"])
    other = table.guest if mover is table.host else table.host
    table.play_random(mover)
    other.send(type="review", ref=7)
    answer = other.expect("review")
    assert answer["ref"] == 7
    review = answer["review"]
    assert review["names"] == {"white": "Ann", "black": "Bob"}
    assert review["title"] == "Ann vs Bob · online, single game"
    # the start, then one frame per line of the move list: the opening roll's play
    assert [f["kind"] for f in review["frames"]] == ["start", "play"]
    assert review["frames"][1]["dice"] == sorted(rolled["dice"], reverse=True)
    mover.send(type="export")
    exported = mover.expect("export")
    assert exported["game"] is None
    assert exported["filename"].startswith("backgammon-online-")
    assert exported["filename"].endswith(".mat")
    text = exported["text"]
    assert " 1) " in text and "Ann" in text and "Bob" in text
    assert text.endswith("\n")
    mover.send(type="export", game=2, ref="x")
    error = mover.expect("error")
    assert (error["code"], error["ref"]) == ("no_such_game", "x")
    assert "ask for game 1 to 1" in error["message"]
    # nothing reached the other side, and the game goes on
    other.send(type="state")
    assert other.expect("state")["state"]["game"]["phase"] == "roll"


# ------------------------------------------------------------------------------------------
# The dice protocol, refused


def test_a_reveal_that_does_not_match_its_commitment_forfeits(table_factory: Any) -> None:
    """A broken reveal has no innocent cause (the page keeps its secret before committing):
    the roller, who saw its dice before revealing, forfeits the match, and the record keeps
    the game so far; it no longer voids the match."""
    table = table_factory(seed=11, match_length=5)
    rolled = table.opening()
    mover = table.by_color(rolled["color"])
    table.play_random(mover)
    roller = table.to_move()
    other = table.guest if roller is table.host else table.host
    events_before = roller.state()["match"]["games"][0]["events"]
    number = table.next_round
    roller.send(type="commit", round=number, commitment=commitment(b"\x01" * 32))
    table.both("commit")
    other.send(type="secret", round=number, secret=(b"\x02" * 32).hex())
    table.both("secret")
    roller.send(type="reveal", round=number, secret=(b"\x03" * 32).hex())
    forfeit = table.both("forfeit")[0]
    name, winner = ("Ann", "Bob") if roller is table.host else ("Bob", "Ann")
    assert {k: v for k, v in forfeit.items() if k != "seq"} == {
        "type": "forfeit", "color": roller.color, "reason": "reveal_mismatch", "points": 5,
        "message": f"{name}'s secret for round {number} did not match its commitment: "
                   f"{name} forfeits the match."}
    over = table.both("game_over")[0]
    assert over["outcome"] == {"winner": other.color, "kind": "forfeit", "points": 5,
                               "result_kind": "single"}
    assert over["match_over"] is True
    assert over["text"].startswith(f"{winner} wins 5 points by forfeit: {name}'s secret for "
                                   f"round {number} did not match its commitment.")
    for player in table.players:
        state = player.state()
        assert state["phase"] == "finished"
        assert state["score"][other.color] == 5
        events = state["match"]["games"][0]["events"]
        assert events[:-1] == events_before  # the game so far, then the forfeit
        assert events[-1] == {"type": "forfeit", "color": roller.color, "points": 5}
    roller.send(type="commit", round=number + 1, commitment=commitment(b"\x04" * 32))
    assert roller.error("not_now") == (
        "cannot commit to a roll: the match is over (ask for a rematch)")


def test_a_replayed_round_number_is_refused(table_factory: Any) -> None:
    table = table_factory(seed=5)
    rolled = table.opening()
    mover = table.by_color(rolled["color"])
    table.play_random(mover)
    roller = table.to_move()
    other = table.guest if roller is table.host else table.host
    before = states(table)
    roller.send(type="commit", round=1, commitment=commitment(b"\x05" * 32))
    assert roller.error("bad_round") == (
        "a commitment for round 1 refused: round 1 is over; the next round is 2")
    roller.send(type="commit", round=9, commitment=commitment(b"\x05" * 32))
    assert roller.error("bad_round") == (
        "a commitment for round 9 refused: round 9 has not come; the next round is 2")
    unchanged(table, before)
    # Mid-round: the same dice message twice is refused, and no fresh round can open.
    roller.send(type="commit", round=2, commitment=commitment(b"\x06" * 32))
    table.both("commit")
    other.send(type="secret", round=2, secret=(b"\x07" * 32).hex())
    table.both("secret")
    before = states(table)
    other.send(type="secret", round=2, secret=(b"\x08" * 32).hex())
    assert other.error("replayed") == f"{other.color} has already sent its secret for round 2"
    roller.send(type="commit", round=3, commitment=commitment(b"\x09" * 32))
    assert roller.error("bad_round") == (
        "a commitment for round 3 refused: round 3 has not come; round 2 is open")
    roller.send(type="commit", round=2, commitment=commitment(b"\x09" * 32))
    assert roller.error("replayed").startswith(f"{roller.color} has already committed to round 2")
    unchanged(table, before)


def test_dice_sent_by_the_wrong_side_are_refused(table_factory: Any) -> None:
    table = table_factory(seed=2)
    rolled = table.opening()
    table.play_random(table.by_color(rolled["color"]))
    roller = table.to_move()
    other = table.guest if roller is table.host else table.host
    roller.send(type="commit", round=2, commitment=commitment(b"\x01" * 32))
    table.both("commit")
    before = states(table)
    roller.send(type="secret", round=2, secret=(b"\x01" * 32).hex())
    assert roller.error("wrong_side") == (
        f"{roller.color} rolls in round 2: it reveals its own secret after the opponent's")
    other.send(type="reveal", round=2, secret=(b"\x02" * 32).hex())
    assert other.error("wrong_side") == (
        f"round 2 is {roller.color}'s roll: only {roller.color} reveals")
    other.send(type="commit", round=2, commitment=commitment(b"\x02" * 32))
    assert other.error("wrong_side") == (
        f"round 2 is {roller.color}'s roll: {other.color} answers with its secret, not a "
        f"commitment")
    roller.send(type="reveal", round=2, secret=(b"\x01" * 32).hex())
    assert roller.error("not_now") == f"round 2: wait for {other.color}'s secret before revealing"
    unchanged(table, before)


def test_a_roll_request_out_of_turn_is_refused(table_factory: Any) -> None:
    table = table_factory(seed=4, cube=True)
    rolled = table.opening()
    mover = table.by_color(rolled["color"])
    other = table.guest if mover is table.host else table.host
    before = states(table)
    other.send(type="commit", round=2, commitment=commitment(b"\x01" * 32), ref="r1")
    refused = other.expect("error")
    assert refused == {"type": "error", "code": "not_now", "ref": "r1", "message":
                       f"{other.color} cannot roll now: the game is in the move phase"}
    unchanged(table, before)
    table.play_random(mover)
    before = states(table)
    mover.send(type="commit", round=2, commitment=commitment(b"\x01" * 32))
    assert mover.error("not_your_turn") == (
        f"{mover.color} cannot roll: it is {other.color}'s turn")
    mover.send(type="double")
    assert mover.error("not_your_turn") == (
        f"{mover.color} cannot double: it is {other.color}'s turn")
    mover.send(type="play", moves=[])
    assert mover.error("not_your_turn") == (
        f"{mover.color} cannot play: it is {other.color}'s turn")
    unchanged(table, before)


def test_the_roller_cannot_double_or_resign_once_committed(table_factory: Any) -> None:
    table = table_factory(seed=4, cube=True)
    table.play_random(table.by_color(table.opening()["color"]))
    roller = table.to_move()
    other = table.guest if roller is table.host else table.host
    roller.send(type="commit", round=2, commitment=commitment(b"\x01" * 32))
    table.both("commit")
    before = states(table)
    roller.send(type="double")
    assert roller.error("not_now") == (
        "cannot double now: round 2 is being thrown; finish the roll first")
    other.send(type="resign", level="single")
    other.error("not_now")
    unchanged(table, before)


def test_an_illegal_play_is_refused_and_changes_nothing(table_factory: Any) -> None:
    table = table_factory(seed=9)
    rolled = table.opening()
    mover = table.by_color(rolled["color"])
    assert mover.replica is not None and mover.replica.dice is not None
    high, low = sorted(mover.replica.dice, reverse=True)
    roll = f"{mover.replica.dice[0]}{mover.replica.dice[1]}"
    legal = next(m for m in mover.replica.legal_moves() if m.die == high)
    first = [legal.from_point, legal.to_point, legal.die]
    before = states(table)
    # Bearing off with checkers outside the home board: impossible.
    mover.send(type="play", moves=[first, [1, 0, low]])
    assert mover.error("illegal_move") == (
        f"{legal} 1/off is not a legal play with {roll}: a move is blocked or impossible")
    # A die that was not thrown.
    missing = next(die for die in range(1, 7) if die not in (high, low))
    mover.send(type="play", moves=[first, [13, 13 - missing, missing]])
    assert mover.error("illegal_move") == (
        f"13/{13 - missing}: no {missing} is left to play with {roll}")
    # Only one die of two that can both be played.
    mover.send(type="play", moves=[first])
    assert mover.error("illegal_move") == (
        f"{legal} does not use as many dice as can be played with {roll}")
    # No move at all while a checker can move.
    mover.send(type="play", moves=[])
    assert mover.error("illegal_move") == (
        f"an empty play is not legal with {roll}: a checker can move")
    # One checker at a time, the engine's words.
    mover.send(type="move", moves=[[13, 13 - missing, missing]])
    assert mover.error("illegal_move").startswith(
        f"13/{13 - missing} (die {missing}) is not a legal move now; legal: ")
    unchanged(table, before)


# ------------------------------------------------------------------------------------------
# Malformed and oversized messages


def test_malformed_messages_are_refused_and_the_connection_stays_up(table_factory: Any) -> None:
    table = table_factory(seed=6)
    table.opening()
    player = table.host
    before = states(table)
    player.ws.send_text("{not json")
    assert player.error("malformed").startswith("the message is not JSON: ")
    player.ws.send_text("[1, 2]")
    assert player.error("malformed") == "a message must be a JSON object, got list"
    player.send(type="commit", commitment="ab" * 32, ref=17)
    message = player.expect("error")
    assert message == {"type": "error", "code": "malformed", "message": "commit: missing round",
                       "ref": 17}
    player.send(type="commit", round=2, commitment="XYZ")
    assert player.error("malformed") == (
        "commit: commitment must be 64 lowercase hex digits (32 bytes), got 'XYZ'")
    player.send(type="play", moves=[[1, 2]], color="white")
    assert player.error("malformed") == "play: unknown field 'color'"
    player.send(type="play", moves=[[30, 2, 1]])
    assert player.error("malformed") == (
        "play: a move is [from 1..25, to 0..24, die 1..6], got [30, 2, 1]")
    player.send(type="roll")
    assert player.error("unknown_type").startswith("unknown message type 'roll'")
    player.ws.send_bytes(b"\x00\x01")
    assert player.error("malformed") == "send JSON text frames, not binary ones"
    unchanged(table, before)


def test_oversized_messages_are_refused(table_factory: Any) -> None:
    table = table_factory(seed=6)
    before = states(table)
    big = json.dumps({"type": "state", "padding": "x" * MAX_MESSAGE_BYTES})
    table.guest.ws.send_text(big)
    assert table.guest.error("too_large") == (
        f"the message is {len(big)} bytes: the limit is {MAX_MESSAGE_BYTES}")
    table.guest.ws.send_text(json.dumps({"type": "state", "x": "é" * 2100}))
    table.guest.error("too_large")
    unchanged(table, before)


# ------------------------------------------------------------------------------------------
# Reconnecting, leaving, expiry


def test_reconnect_with_the_seat_token_restores_the_state(client: TestClient,
                                                          table_factory: Any) -> None:
    table = table_factory(seed=8)
    rolled = table.opening()
    mover = table.by_color(rolled["color"])
    assert mover.replica is not None
    first = mover.replica.legal_moves()[0]
    mover.send(type="move", moves=[[first.from_point, first.to_point, first.die]])
    table.both("move")
    before = table.guest.state()
    table.guest.ws.__exit__(None, None, None)
    dropped = table.host.expect("opponent")
    assert (dropped["status"], dropped["message"]) == (
        "disconnected", "Bob's connection dropped; they can come back to their seat.")
    assert table.host.state()["opponent"]["connected"] is False
    with client.websocket_connect(table.ws_path) as ws:
        back = Player(ws, random.Random(0))
        back.send(type="hello", token=table.guest.token)
        welcome = back.expect("welcome")
        assert (welcome["seat"], welcome["color"]) == ("guest", "black")
        assert welcome["state"] == before
        assert welcome["state"]["game"]["played"] == [[first.from_point, first.to_point,
                                                       first.die]]
        assert table.host.expect("opponent")["status"] == "reconnected"
        # The same seat opened again elsewhere: the older connection is told and closed.
        with client.websocket_connect(table.ws_path) as ws2:
            again = Player(ws2, random.Random(0))
            again.send(type="hello", token=table.guest.token)
            assert again.expect("welcome")["state"] == before
            assert back.error("replaced").startswith("this seat was opened in another window")
            with pytest.raises(WebSocketDisconnect):
                back.recv()


@pytest.mark.parametrize("on_turn", [True, False])
def test_a_dropped_player_is_said_to_lose_time_only_while_its_clock_runs(
        table_factory: Any, on_turn: bool) -> None:
    table = table_factory(seed=8, time_control="blitz")
    mover = table.by_color(table.opening()["color"])
    dropping = mover if on_turn else (table.guest if mover is table.host else table.host)
    staying = table.guest if dropping is table.host else table.host
    dropping.ws.__exit__(None, None, None)
    message = staying.expect("opponent")["message"]
    name = "Ann" if dropping is table.host else "Bob"
    expected = f"{name}'s connection dropped; they can come back to their seat."
    assert message == expected + (" Their clock keeps running." if on_turn else "")


def test_leaving_tells_the_opponent(table_factory: Any) -> None:
    table = table_factory(seed=8)
    table.opening()
    table.guest.send(type="leave")
    forfeit = table.host.expect("forfeit")
    assert (forfeit["color"], forfeit["reason"], forfeit["points"]) == ("black", "left", 3)
    assert forfeit["message"] == "Bob left the game: Bob forfeits the game."
    over = table.host.expect("game_over")
    assert over["outcome"]["winner"] == "white" and over["match_over"] is True
    closed = table.host.expect("closed")
    assert closed["reason"] == "Bob (black) left the room"
    left = table.host.expect("opponent")
    assert (left["status"], left["message"]) == ("left", "Bob has left the game.")
    state = table.host.state()
    assert (state["phase"], state["reason"]) == ("closed", "Bob (black) left the room")
    assert state["score"] == {"white": 3, "black": 0}
    assert state["view"]["result"]["text"] == (
        "You win 3 points by forfeit: Bob left the game.")


def test_leaving_a_match_behind_forfeits_it(table_factory: Any) -> None:
    """The player behind who leaves loses the match: the leader's record has it won."""
    table = table_factory(seed=9, match_length=5)
    table.opening()
    table.host.send(type="leave")
    forfeit = table.guest.expect("forfeit")
    assert (forfeit["color"], forfeit["reason"], forfeit["points"]) == ("white", "left", 5)
    over = table.guest.expect("game_over")
    assert over["match_over"] is True and over["score"] == {"white": 0, "black": 5}
    assert over["outcome"]["kind"] == "forfeit"


def test_leaving_a_money_session_forfeits_the_game_at_three_times_the_cube(
        table_factory: Any) -> None:
    table = table_factory(seed=12, cube=True, money=True)
    roller, other = _to_a_roll_phase(table)
    roller.send(type="double")
    table.both("double")
    other.send(type="take")
    table.both("take")
    other.send(type="leave")
    forfeit = roller.expect("forfeit")
    assert (forfeit["color"], forfeit["points"]) == (other.color, 6)
    over = roller.expect("game_over")
    assert over["outcome"]["points"] == 6 and over["match_over"] is True
    roller.expect("closed")
    roller.expect("opponent")
    assert roller.state()["score"][roller.color] == 6


def test_moving_and_undoing_does_not_reset_the_claim_timer(table_factory: Any,
                                                            now: FakeNow) -> None:
    """A side that makes a move and takes it back every 50 s has not finished its turn: the
    game has waited on it all along, and it can be claimed against once that wait is long
    enough (it could not, as long as it kept moving)."""
    table = table_factory(seed=26)
    mover = table.by_color(table.opening()["color"])
    other = table.guest if mover is table.host else table.host
    first = mover.state()["game"]["legal_moves"][0]
    for _ in range(9):
        now.advance(50)
        mover.send(type="move", moves=[first])
        table.both("move")
        mover.send(type="undo")
        table.both("undo")
    now.advance(130)  # 580 s of the mover's turn, none of it finishing the turn
    other.send(type="state")
    assert table.both("silence")[0]["color"] == mover.color  # warned at 480 s
    other.expect("state")
    now.advance(20)
    other.send(type="claim")
    assert table.both("claimable")[0]["color"] == mover.color
    assert table.both("abandoned")[0]["color"] == mover.color
    assert table.both("game_over")[0]["outcome"]["winner"] == other.color


def test_a_player_thinking_at_the_board_is_warned_and_claimable_only_after_long(
        table_factory: Any, now: FakeNow) -> None:
    """Claims are for players who are gone. One who is connected and thinking (an untimed
    game) can be claimed against only after 10 minutes of its turn, and is warned 2 minutes
    before; one whose connection dropped, 2 minutes after it dropped."""
    table = table_factory(seed=27)
    mover = table.by_color(table.opening()["color"])
    other = table.guest if mover is table.host else table.host
    name = "Ann" if mover is table.host else "Bob"
    now.advance(121)
    before = states(table)
    other.send(type="claim")
    assert other.error("not_now") == (
        f"cannot claim the game yet: {name} is at the board and has been thinking for 121 s; "
        f"a game can be claimed after 600 s of thinking, or 120 s after a player's "
        f"connection dropped")
    unchanged(table, before)
    now.advance(480 - 121)
    other.send(type="state")
    silence = table.both("silence")[0]
    assert {k: v for k, v in silence.items() if k != "seq"} == {
        "type": "silence", "color": mover.color, "seconds": 480.0, "claimable_in": 120.0}
    theirs = other.expect("state")["state"]
    assert theirs["silence"] == {"color": mover.color, "seconds": 480.0, "claimable_in": 120.0}
    assert theirs["view"]["claim_warning"] == (
        f"{name} has been thinking for 8 minutes: you may claim the game after 10.")
    mine = mover.state()
    assert mine["view"]["claim_warning"] == (
        "You have been thinking for 8 minutes: after 10 your opponent may claim the game.")
    now.advance(120)
    other.send(type="claim")
    assert table.both("claimable")[0]["color"] == mover.color
    assert table.both("abandoned")[0]["color"] == mover.color
    over = table.both("game_over")[0]
    assert over["text"].startswith(f"{'Bob' if name == 'Ann' else 'Ann'} wins a single game "
                                   f"(1 point): {name} was silent for 600 s")


def test_an_empty_room_expires_after_the_configured_time(client: TestClient,
                                                         now: FakeNow) -> None:
    room = create(client)
    now.advance(EXPIRY - 1)
    assert client.get(f"/api/online/rooms/{room['code']}").status_code == 200
    with client.websocket_connect(room["ws_path"]) as ws:  # the host comes: not empty
        host = Player(ws, random.Random(0))
        host.send(type="hello", token=room["token"])
        host.expect("welcome")
        now.advance(EXPIRY * 3)
        host.send(type="state")
        assert host.expect("state")["state"]["phase"] == "waiting"
    now.advance(EXPIRY - 1)  # left empty: the seat can still be taken back
    with client.websocket_connect(room["ws_path"]) as ws:
        host = Player(ws, random.Random(0))
        host.send(type="hello", token=room["token"])
        host.expect("welcome")
    now.advance(EXPIRY)
    response = client.get(f"/api/online/rooms/{room['code']}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "room_not_found"
    with client.websocket_connect(room["ws_path"]) as ws:
        host = Player(ws, random.Random(0))
        host.send(type="hello", token=room["token"])
        host.error("room_not_found")


# ------------------------------------------------------------------------------------------
# Cube, resignation, rematch, clocks


def _to_a_roll_phase(table: Table) -> tuple[Player, Player]:
    table.play_random(table.by_color(table.opening()["color"]))
    roller = table.to_move()
    return roller, table.guest if roller is table.host else table.host


def test_double_take_then_double_drop(table_factory: Any) -> None:
    table = table_factory(seed=12, cube=True)
    roller, other = _to_a_roll_phase(table)
    roller.send(type="double")
    assert table.both("double")[0]["cube"] == 2
    roller.send(type="take")
    assert roller.error("not_your_turn") == (
        f"{roller.color} cannot take: it is {other.color}'s turn")
    other.send(type="take")
    table.both("take")
    for player in table.players:
        assert player.replica is not None
        player.replica.double()
        player.replica.take()
    cube = table.host.state()["game"]["cube"]
    assert (cube["value"], cube["owner"]) == (2, other.color)
    rolled = table.roll(roller)
    if not rolled["passed"]:
        table.play_random(roller)
    # The cube's owner doubles again; this time it is dropped.
    assert table.to_move() is other
    other.send(type="double")
    assert table.both("double")[0]["cube"] == 4
    roller.send(type="drop")
    table.both("drop")
    over = table.both("game_over")[0]
    assert over["outcome"] == {"winner": other.color, "kind": "drop", "points": 2,
                               "result_kind": "single"}
    assert over["text"].endswith(" wins: the double was dropped (2 points).")


def test_double_refused_when_the_opponent_owns_the_cube(table_factory: Any) -> None:
    table = table_factory(seed=3, cube=False)
    roller, _ = _to_a_roll_phase(table)
    before = states(table)
    roller.send(type="double")
    assert roller.error("not_allowed") == (
        f"{roller.color.capitalize()} cannot double: this game is played without the cube")
    unchanged(table, before)


def test_resign_declined_then_accepted(table_factory: Any) -> None:
    table = table_factory(seed=13, match_length=3)
    roller, other = _to_a_roll_phase(table)
    other.send(type="resign", level="gammon")  # either side may resign, even out of turn
    assert table.both("resign")[0]["level"] == "gammon"
    other.send(type="accept")
    assert other.error("not_your_turn") == (
        f"{other.color} cannot accept a resignation: it is {roller.color}'s turn")
    roller.send(type="decline")
    table.both("decline")
    assert table.host.state()["game"]["phase"] == "roll"
    # One offer a side a turn: a declined offer cannot be sent again to stop play.
    before = states(table)
    other.send(type="resign", level="single")
    assert other.error("not_now") == (
        f"{other.color} has already offered a resignation this turn: one offer a turn")
    unchanged(table, before)
    roller.send(type="resign", level="single")  # the other side still has its own offer
    table.both("resign")
    other.send(type="accept")
    table.both("accept")
    over = table.both("game_over")[0]
    assert over["outcome"] == {"winner": other.color, "kind": "resign", "points": 1,
                               "result_kind": "single"}
    assert over["match_over"] is False
    # The next game starts when a player asks for it (the table's policy, as in local play).
    state = table.host.state()
    assert (state["game_number"], state["game"]["phase"]) == (1, "game_over")
    other.send(type="next_game")
    new_game = table.both("new_game")[0]
    assert new_game["game"] == 2 and new_game["score"][other.color] == 1
    state = table.host.state()
    assert state["game_number"] == 2 and state["game"]["phase"] == "opening"
    assert state["round"]["next"] == table.next_round


def test_rematch_needs_both_and_swaps_colours(table_factory: Any) -> None:
    table = table_factory(seed=14)
    roller, other = _to_a_roll_phase(table)
    before_round = table.next_round
    table.host.send(type="rematch")
    assert table.host.error("not_now") == "a rematch is for when the match is over"
    roller.send(type="resign", level="backgammon")
    table.both("resign")
    other.send(type="accept")
    table.both("accept")
    assert table.both("game_over")[0]["match_over"] is True
    table.host.send(type="rematch")
    assert table.both("rematch")[0]["color"] == "white"
    table.host.send(type="rematch")
    assert table.host.error("replayed") == "you have already asked for a rematch"
    table.guest.send(type="rematch")
    host_new, guest_new = table.host.expect("new_match"), table.guest.expect("new_match")
    assert host_new["colors"] == guest_new["colors"] == {"host": "black", "guest": "white"}
    assert (host_new["you"], guest_new["you"]) == ("black", "white")
    host_state = table.host.state()
    assert host_state["you"]["color"] == "black" and host_state["phase"] == "playing"
    assert host_state["match"]["names"] == ["Bob", "Ann"]
    assert host_state["game"]["phase"] == "opening"
    assert host_state["round"] == {"next": before_round, "open": None}
    table.host.color, table.guest.color = "black", "white"
    for player in table.players:
        player.replica = Game(table.settings)
    assert table.opening()["round"] >= before_round


def test_a_player_out_of_time_loses_on_time(table_factory: Any, now: FakeNow) -> None:
    table = table_factory(seed=15, time_control="bullet", cube=True)
    rolled = table.opening()
    mover = table.by_color(rolled["color"])
    assert rolled["clock"] == {"white": 60.0, "black": 60.0, "running": mover.color,
                               "waiting": [mover.color]}
    now.advance(10)
    event = table.play_random(mover)
    assert event["seconds"] == 10.0
    assert event["clock"][mover.color] == 52.0  # 60 - 10 + the 2 s increment
    roller = table.to_move()
    other = table.guest if roller is table.host else table.host
    # Waiting for the opponent's secret costs the roller nothing: the opponent is on its clock.
    roller.send(type="commit", round=table.next_round, commitment=commitment(b"\x01" * 32))
    assert table.both("commit")[0]["clock"] == {
        roller.color: 60.0, other.color: 52.0, "running": other.color, "waiting": [other.color]}
    now.advance(30)
    assert roller.state()["clock"] == {
        roller.color: 60.0, other.color: 22.0, "running": other.color, "waiting": [other.color]}
    other.send(type="secret", round=table.next_round, secret=(b"\x02" * 32).hex())
    assert table.both("secret")[0]["clock"] == {
        roller.color: 60.0, other.color: 22.0, "running": roller.color,
        "waiting": [roller.color]}
    now.advance(61)
    other.send(type="state")  # any message: the server flags the side whose time is up
    timeout = table.both("timeout")[0]
    assert timeout["color"] == roller.color
    over = table.both("game_over")[0]
    assert over["outcome"] == {"winner": other.color, "kind": "timeout", "points": 1,
                               "result_kind": "single"}
    assert over["log"]["events"][-1] == {"type": "timeout", "color": roller.color}
    assert other.expect("state")["state"]["phase"] == "finished"


def test_a_clock_reading_far_from_the_servers_is_corrected(table_factory: Any,
                                                            now: FakeNow) -> None:
    table = table_factory(seed=16, time_control="blitz")
    mover = table.by_color(table.opening()["color"])
    assert mover.replica is not None
    now.advance(5)
    play = sorted(mover.replica.legal_plays(), key=str)[0]
    mover.send(type="play", moves=[[m.from_point, m.to_point, m.die] for m in play.moves],
               clock=100.0)
    assert mover.expect("clock_sync") == {"type": "clock_sync", "reported": 100.0,
                                          "server": 175.0, "drift": -75.0}
    event = table.both("play")[0]
    assert event["clock"][mover.color] == 179.0  # 180 - 5 + 4


# ------------------------------------------------------------------------------------------
# Units: the parser and the state machine


def test_parse_message_checks_and_converts_fields() -> None:
    message = parse_message(json.dumps({"type": "secret", "round": 3, "secret": "0f" * 32}))
    assert (message.type, message["round"], message["secret"]) == ("secret", 3, b"\x0f" * 32)
    message = parse_message('{"type": "play", "moves": [[25, 22, 3]], "clock": 12}')
    assert message["moves"] == ((25, 22, 3),) and message["clock"] == 12.0
    assert parse_message('{"type": "end_turn", "clock": null}').fields == {}


def test_the_state_answer_is_encoded_once_per_event_and_reads_back_the_same() -> None:
    from backgammon.services.online.rooms import Seat

    room = Room("code", OnlineSettings(), "token", now=FakeNow())
    room.join("Bob")
    answers = {}
    for seat in (Seat.HOST, Seat.GUEST):
        [(to, payload)] = room.handle(seat, parse_message('{"type": "state"}'))
        assert to is seat
        assert json.loads(payload.text) == {"type": "state", "state": room.state_for(seat)}
        answers[seat] = payload
    cached = room._match_text
    assert cached is not None and cached[3] in answers[Seat.GUEST].text
    # a dice message leaves the match's log as it was: the same text serves
    room.handle(Seat.HOST, parse_message(json.dumps(
        {"type": "commit", "round": 1, "commitment": commitment(b"\x02" * 32)})))
    [(_, payload)] = room.handle(Seat.GUEST, parse_message('{"type": "state"}'))
    assert room._match_text is cached
    read = json.loads(payload.text)
    assert read == {"type": "state", "state": room.state_for(Seat.GUEST)}
    assert read["state"]["round"]["open"]["commitments"] == {"white": commitment(b"\x02" * 32)}
    # a game event (here the opening roll) makes a new one
    room.handle(Seat.GUEST, parse_message(json.dumps(
        {"type": "commit", "round": 1, "commitment": commitment(b"\x03" * 32)})))
    for seat, secret in ((Seat.HOST, b"\x02"), (Seat.GUEST, b"\x03")):
        room.handle(seat, parse_message(json.dumps(
            {"type": "reveal", "round": 1, "secret": (secret * 32).hex()})))
    [(_, payload)] = room.handle(Seat.HOST, parse_message('{"type": "state"}'))
    assert room._match_text is not cached
    assert json.loads(payload.text) == {"type": "state", "state": room.state_for(Seat.HOST)}
    assert len(json.loads(payload.text)["state"]["match"]["games"][0]["events"]) == 1


def test_the_log_encoder_writes_what_json_writes_game_after_game() -> None:
    from backgammon.core.match import Match
    from backgammon.services.online.rooms import _LogEncoder

    encoder = _LogEncoder()
    match = Match(3, cube=False, names=("Ann", "Bob"), seed=4)
    rng = random.Random(4)
    checked = 0
    while True:
        game = match.current
        while not game.is_over:
            if game.phase.value in ("opening", "roll"):
                game.roll()
            else:
                moves = game.legal_moves()
                if moves and rng.random() < 0.5:
                    game.move(moves[0])  # a turn in progress: the log has its "moves"
                else:
                    while game.legal_moves():
                        game.move(game.legal_moves()[0])
                    game.end_turn()
            log, text = encoder.encode(match)
            assert log == match.to_log()
            assert text == json.dumps(log, separators=(",", ":"))
            checked += 1
        if match.is_over:
            break
        match.new_game()
    assert len(match.games) >= 2 and checked > 100


def test_room_phase_changes_outside_the_table_raise() -> None:
    room = Room("code", OnlineSettings(), "token", now=FakeNow())
    assert room.phase is RoomPhase.WAITING
    assert RoomPhase.FINISHED not in TRANSITIONS[RoomPhase.WAITING]
    room.expire()
    with pytest.raises(RoomStateError, match="room code cannot go from expired to expired"):
        room.expire()
    with pytest.raises(OnlineError, match="room code is expired: the room was left empty too "
                                          "long"):
        room.join("late")


def test_an_opening_tie_is_thrown_again_in_the_next_round(table_factory: Any) -> None:
    table = table_factory(seed=17)
    white, black = table.by_color("white"), table.by_color("black")
    search = random.Random(3)
    white_secret, black_secret = search.randbytes(32), search.randbytes(32)
    while len(set(dice_from_secrets(white_secret, black_secret, 1))) != 1:
        white_secret = search.randbytes(32)
    for player, secret in ((white, white_secret), (black, black_secret)):
        player.send(type="commit", round=1, commitment=commitment(secret))
        table.both("commit")
    black.send(type="reveal", round=1, secret=black_secret.hex())
    table.both("reveal")
    black.send(type="reveal", round=1, secret=black_secret.hex())
    assert black.error("replayed") == "black has already revealed for round 1"
    white.send(type="reveal", round=1, secret=white_secret.hex())
    table.both("reveal")
    rolled = table.both("rolled")[0]
    die = dice_from_secrets(white_secret, black_secret, 1)[0]
    assert (rolled["tie"], rolled["color"], rolled["dice"]) == (True, None, [die, die])
    table.apply_roll(rolled)
    table.next_round = 2
    state = white.state()
    assert state["round"] == {"next": 2, "open": None} and state["game"]["phase"] == "opening"
    assert state["match"]["games"][0]["events"] == [
        {"type": "opening_roll", "white": die, "black": die, "given": True}]
    assert table.opening()["round"] == 2


def test_the_server_flags_a_side_whose_time_runs_out_unprompted() -> None:
    app = FastAPI()
    app.include_router(router)
    # The configured time controls (as `backgammon serve` passes them), on the real clock.
    controls = {**TIME_CONTROLS, "bullet": TimeControl("bullet", 0.3, 0.0)}
    app.state.online = OnlineHub(RoomManager(time_controls=controls))
    with TestClient(app) as real_client:
        room = create(real_client, time_control="bullet")
        assert room["settings"]["time_control"] == {"name": "bullet", "reserve": 0.3,
                                                    "increment": 0.0}
        with real_client.websocket_connect(room["ws_path"]) as host_ws, \
                real_client.websocket_connect(room["ws_path"]) as guest_ws:
            host, guest = Player(host_ws, random.Random(1)), Player(guest_ws, random.Random(2))
            host.send(type="hello", token=room["token"])
            host.color = host.expect("welcome")["color"]
            guest.send(type="hello")
            guest.color = guest.expect("welcome")["color"]
            host.expect("opponent")
            table = Table(host, guest, GameSettings())
            mover = table.by_color(table.opening()["color"])
            # Nobody sends anything: the room's timer flags the mover after 0.3 s.
            timeout = table.both("timeout")[0]
            assert timeout["color"] == mover.color
            assert table.both("game_over")[0]["outcome"]["kind"] == "timeout"


def test_the_rooms_and_the_protocol_import_no_web_framework() -> None:
    from pathlib import Path

    import backgammon.services.online as online

    folder = Path(online.__file__).parent
    for name in ("rooms.py", "protocol.py"):
        for line in (folder / name).read_text(encoding="utf-8").splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] in ("import", "from"):
                assert words[1].split(".")[0] not in ("fastapi", "starlette", "pydantic"), line


def test_a_room_its_host_left_takes_no_guest(client: TestClient) -> None:
    room = create(client, name="Ann")
    with client.websocket_connect(room["ws_path"]) as ws:
        host = Player(ws, random.Random(0))
        host.send(type="hello", token=room["token"])
        host.expect("welcome")
        host.send(type="leave")
        assert host.expect("closed")["reason"] == "Ann (white) left the room"
    with client.websocket_connect(room["ws_path"]) as ws:
        guest = Player(ws, random.Random(0))
        guest.send(type="hello")
        assert guest.error("room_full") == (
            f"room {room['code']} is closed: Ann (white) left the room")


# ------------------------------------------------------------------------------------------
# Stalling costs: whoever must send the next message is on its clock, or can be claimed against


def _room(client: TestClient, table: Table) -> Room:
    return client.app.state.online.rooms.get(table.code)  # type: ignore[attr-defined,no-any-return]


def test_a_withheld_secret_runs_the_withholders_clock_out(table_factory: Any,
                                                          now: FakeNow) -> None:
    table = table_factory(seed=21, time_control="bullet", cube=True)
    mover = table.by_color(table.opening()["color"])
    table.play_random(mover)  # at once: the mover has 62 s
    roller = table.to_move()
    other = table.guest if roller is table.host else table.host
    roller.send(type="double")
    table.both("double")
    other.send(type="take")
    table.both("take")
    roller.send(type="commit", round=table.next_round, commitment=commitment(b"\x03" * 32))
    table.both("commit")
    # The opponent never sends its secret: its clock runs, the roller's does not.
    now.advance(61.9)
    assert roller.state()["clock"] == {roller.color: 60.0, other.color: 0.1,
                                       "running": other.color, "waiting": [other.color]}
    now.advance(0.1)
    roller.send(type="state")
    assert table.both("timeout")[0]["color"] == other.color
    over = table.both("game_over")[0]
    # Out of time: a single game at the cube's value (2), whatever the position.
    assert over["outcome"] == {"winner": roller.color, "kind": "timeout", "points": 2,
                               "result_kind": "single"}
    assert over["match_over"] is True
    state = roller.expect("state")["state"]
    assert state["phase"] == "finished" and state["round"]["open"] is None
    assert state["clock"] == {roller.color: 60.0, other.color: 0.0, "running": None,
                              "waiting": []}


def test_a_withheld_reveal_in_an_untimed_match_can_be_claimed(table_factory: Any,
                                                              now: FakeNow) -> None:
    table = table_factory(seed=22, match_length=5)
    mover = table.by_color(table.opening()["color"])
    table.play_random(mover)
    roller = table.to_move()
    other = table.guest if roller is table.host else table.host
    number = table.next_round
    roller.send(type="commit", round=number, commitment=commitment(b"\x04" * 32))
    table.both("commit")
    other.send(type="secret", round=number, secret=(b"\x05" * 32).hex())
    table.both("secret")
    # The roller never reveals. Reading the state is no action: its silence goes on.
    now.advance(100)
    roller.state()
    now.advance(19)
    before = states(table)
    other.send(type="claim")
    assert other.error("not_now") == (
        f"cannot claim the game yet: {roller.color} has been silent 119 s; a game can be "
        f"claimed after 120 s")
    roller.send(type="claim")
    assert roller.error("not_now") == (
        f"cannot claim the game: it is waiting on you, not on {other.color}")
    unchanged(table, before)
    now.advance(1)
    other.send(type="state")  # any message: the server sees the silence first
    assert table.both("claimable")[0] == {"type": "claimable", "color": roller.color,
                                          "seconds": 120.0, "seq": before[0]["seq"] + 1}
    assert other.expect("state")["state"]["claimable"] == roller.color
    other.send(type="claim")
    assert table.both("abandoned")[0]["color"] == roller.color
    over = table.both("game_over")[0]
    assert over["outcome"] == {"winner": other.color, "kind": "timeout", "points": 1,
                               "result_kind": "single"}
    assert over["match_over"] is True  # the claim wins the match, not only the game
    name, silent = ("Ann", "Bob") if other is table.host else ("Bob", "Ann")
    assert over["text"].startswith(f"{name} wins a single game (1 point): {silent} was silent "
                                   f"for 120 s and the game was claimed as abandoned.")
    state = other.state()
    assert (state["phase"], state["reason"]) == ("finished", over["text"])
    other.send(type="rematch")  # the room goes on as after any match
    table.both("rematch")


def test_an_opening_never_committed_runs_the_silent_sides_clock_out(table_factory: Any,
                                                                     now: FakeNow) -> None:
    table = table_factory(seed=23, time_control="bullet")
    assert table.host.state()["clock"] == {"white": 60.0, "black": 60.0, "running": None,
                                           "waiting": ["black", "white"]}
    now.advance(5)
    table.host.send(type="commit", round=1, commitment=commitment(b"\x06" * 32))
    commit = table.both("commit")[0]
    guest = table.guest.color
    assert commit["clock"] == {table.host.color: 55.0, guest: 55.0, "running": guest,
                               "waiting": [guest]}
    now.advance(55)
    table.host.send(type="state")
    assert table.both("timeout")[0]["color"] == guest
    over = table.both("game_over")[0]
    assert over["outcome"] == {"winner": table.host.color, "kind": "timeout", "points": 1,
                               "result_kind": "single"}
    assert over["log"]["events"] == [{"type": "timeout", "color": guest}]


def test_an_opening_never_committed_in_an_untimed_game_can_be_claimed(table_factory: Any,
                                                                       now: FakeNow) -> None:
    table = table_factory(seed=24)
    now.advance(300)  # neither has committed: both are silent, neither can claim
    table.host.send(type="claim")
    assert [table.both("claimable")[0]["color"] for _ in range(2)] == ["black", "white"]
    assert table.host.error("not_now") == (
        f"cannot claim the game: it is waiting on you, not on {table.guest.color}")
    table.host.send(type="commit", round=1, commitment=commitment(b"\x07" * 32))
    table.both("commit")
    assert table.host.state()["claimable"] == table.guest.color  # the host acted
    now.advance(1)
    table.host.send(type="claim")
    assert table.both("abandoned")[0] == {"type": "abandoned", "color": table.guest.color,
                                          "seconds": 301.0, "seq": 4}
    over = table.both("game_over")[0]
    assert over["outcome"]["points"] == 1 and over["match_over"] is True
    assert over["text"].startswith("Ann wins a single game (1 point): Bob was silent")


def test_a_dropped_player_is_claimable_once_the_game_waits_on_it(client: TestClient,
                                                                  table_factory: Any,
                                                                  now: FakeNow) -> None:
    table = table_factory(seed=25)
    mover = table.by_color(table.opening()["color"])
    other = table.guest if mover is table.host else table.host
    mover.ws.close()  # the mover leaves without a word, mid-turn
    other.expect("opponent")
    now.advance(119)
    other.send(type="claim")
    assert other.error("not_now").startswith("cannot claim the game yet: ")
    now.advance(1)  # 2 minutes gone
    other.send(type="claim")
    assert other.expect("claimable")["color"] == mover.color
    assert other.expect("abandoned")["color"] == mover.color
    assert other.expect("game_over")["outcome"]["winner"] == other.color


def test_the_time_before_a_forced_pass_is_charged(client: TestClient, table_factory: Any,
                                                  now: FakeNow) -> None:
    from backgammon.core.match import Match, MatchSetup
    from backgammon.core.position import Position
    from backgammon.core.types import BLACK
    from backgammon.services.online.rooms import _NoDice

    table = table_factory(seed=26, time_control="bullet")
    room = _room(client, table)
    # Black is on the bar against White's closed board: every roll passes.
    points = [0] * 26
    for point in range(1, 7):
        points[point] = 2
    points[13], points[0], points[12] = 3, -1, -14
    start = Position.from_points(points, "black")
    room.match = Match(0, cube=False, dice=_NoDice(), setup=MatchSetup(start))
    assert room.clock is not None
    room.clock.start(BLACK)
    black, white = table.by_color("black"), table.by_color("white")
    now.advance(20)  # Black waits 20 s before rolling a roll that must pass
    number = table.next_round
    black.send(type="commit", round=number, commitment=commitment(b"\x08" * 32))
    table.both("commit")
    white.send(type="secret", round=number, secret=(b"\x09" * 32).hex())
    table.both("secret")
    black.send(type="reveal", round=number, secret=(b"\x08" * 32).hex())
    table.both("reveal")
    rolled = black.expect("rolled")
    white.expect("rolled")
    assert rolled["passed"] is True
    # Charged, not given back: 60 - 20, plus the increment of a completed turn.
    assert rolled["clock"] == {"white": 60.0, "black": 42.0, "running": "white",
                               "waiting": ["white"]}


# ------------------------------------------------------------------------------------------
# The same flow as local play (issue 16: every drift between the two doors)


def test_the_app_gives_online_rooms_the_configured_time_controls(tmp_path: Any) -> None:
    from backgammon.server.app import create_app
    from backgammon.server.settings import ServerSettings

    controls = {**TIME_CONTROLS, "blitz": TimeControl("blitz", 20.0, 2.0)}
    app = create_app(ServerSettings(db_path=tmp_path / "games.sqlite3", time_controls=controls))
    with TestClient(app) as app_client:
        room = create(app_client, time_control="blitz")
        assert room["settings"]["time_control"] == {"name": "blitz", "reserve": 20.0,
                                                    "increment": 2.0}
        info = app_client.get(f"/api/online/rooms/{room['code']}").json()
        assert info["settings"]["time_control"]["reserve"] == 20.0


def test_event_seconds_mean_what_they_mean_locally(table_factory: Any, now: FakeNow) -> None:
    """Roll seconds: the roller's time before the roll; play seconds: its time after it. (The
    opponent's secret is the opponent's time, in neither.)"""
    table = table_factory(seed=15, time_control="blitz")
    table.play_random(table.by_color(table.opening()["color"]))
    roller = table.to_move()
    other = table.guest if roller is table.host else table.host
    now.advance(2)
    number = table.next_round
    table.next_round += 1
    mine, theirs = roller.secret(), other.secret()
    roller.send(type="commit", round=number, commitment=commitment(mine))
    table.both("commit")
    now.advance(1)  # the opponent's page answers after 1 s: its time
    other.send(type="secret", round=number, secret=theirs.hex())
    table.both("secret")
    roller.send(type="reveal", round=number, secret=mine.hex())
    table.both("reveal")
    rolled = roller.expect("rolled")
    other.expect("rolled")
    table.apply_roll(rolled)
    if rolled["passed"]:
        pytest.skip("this seed's roll cannot be played")
    now.advance(4)
    event = table.play_random(roller)
    assert event["seconds"] == 4.0
    events = roller.state()["match"]["games"][0]["events"]
    roll = next(e for e in reversed(events) if e["type"] == "roll")
    assert roll["seconds"] == 2.0
    assert events[-1] == {"type": "play", "color": roller.color, "moves": event["moves"],
                          "seconds": 4.0}


def test_turn_phase_and_cube_read_as_in_local_play(table_factory: Any) -> None:
    table = table_factory(seed=12, cube=True)
    roller, other = _to_a_roll_phase(table)
    game = roller.state()["game"]
    assert (game["phase"], game["turn"], game["to_act"]) == ("roll", roller.color, roller.color)
    roller.send(type="double")
    table.both("double")
    game = other.state()["game"]
    # `turn` is the side on roll (the doubler), `to_act` the doubled side, as locally.
    assert (game["phase"], game["turn"], game["to_act"]) == ("cube", roller.color, other.color)
    assert game["cube"] == {"enabled": True, "value": 1, "owner": None,
                            "offered_by": roller.color, "can_double": False}
    other.send(type="drop")
    table.both("drop")
    over = table.both("game_over")[0]
    assert over["match_over"] is True
    game = roller.state()["game"]
    assert (game["phase"], game["turn"], game["to_act"]) == ("match_over", None, None)


def test_the_crawford_cube_is_shown_as_locally(table_factory: Any) -> None:
    table = table_factory(seed=13, match_length=2, cube=True)
    roller, other = _to_a_roll_phase(table)
    roller.send(type="resign", level="single")
    table.both("resign")
    other.send(type="accept")
    table.both("accept")
    assert table.both("game_over")[0]["match_over"] is False
    assert roller.state()["game"]["phase"] == "game_over"
    roller.send(type="next_game")
    assert table.both("new_game")[0]["crawford"] is True
    state = roller.state()
    assert state["crawford"] is True
    # The cube is in play (shown), but nobody may double in the Crawford game.
    assert state["game"]["cube"] == {"enabled": True, "value": 1, "owner": None,
                                     "offered_by": None, "can_double": False}


def test_hints_only_once_the_game_is_over(table_factory: Any) -> None:
    """The view's ``hints``: no computer's evaluation while a game against a person is being
    played; once it is over (between the games of a match, after the match), there is."""
    table = table_factory(seed=13, match_length=2, cube=True)

    def hints() -> list[bool]:
        return [player.state()["view"]["hints"] for player in table.players]

    assert hints() == [False, False]  # the opening roll is on
    roller, other = _to_a_roll_phase(table)
    assert hints() == [False, False]
    roller.send(type="resign", level="single")
    table.both("resign")
    assert hints() == [False, False]  # the game goes on until the resignation is accepted
    other.send(type="accept")
    table.both("accept")
    assert table.both("game_over")[0]["match_over"] is False
    assert hints() == [True, True]
    roller.send(type="next_game")
    table.both("new_game")
    assert hints() == [False, False]
    for player in table.players:
        player.replica = Game(GameSettings(cube=True, match_length=2, score=(0, 0)))
    loser, winner = roller, other
    _to_a_roll_phase(table)
    assert hints() == [False, False]
    loser.send(type="resign", level="single")  # again: the match is over
    table.both("resign")
    winner.send(type="accept")
    table.both("accept")
    assert table.both("game_over")[0]["match_over"] is True
    assert hints() == [True, True]


def test_next_game_only_once_a_game_of_a_match_is_over(table_factory: Any) -> None:
    table = table_factory(seed=13, match_length=3)
    roller, _ = _to_a_roll_phase(table)
    before = states(table)
    roller.send(type="next_game")
    assert roller.error("not_now") == "cannot start the next game: this game is not over"
    unchanged(table, before)


def test_a_gesture_over_two_dice_is_all_or_nothing(table_factory: Any) -> None:
    table = table_factory(seed=3)
    rolled = table.opening()
    mover = table.by_color(rolled["color"])
    assert mover.replica is not None
    first = mover.replica.legal_moves()[0]
    before = states(table)
    # The first step is legal, the second uses the same die again: refused, and the first
    # step is taken back (nothing was relayed, the position is as it was).
    path = [[first.from_point, first.to_point, first.die],
            [first.to_point, first.to_point - first.die, first.die]]
    if rolled["dice"][0] == rolled["dice"][1]:
        pytest.skip("a double: the same die may be played again")
    mover.send(type="move", moves=path)
    assert mover.error("illegal_move")
    unchanged(table, before)
    mover.send(type="move", moves=[])
    assert "1 to 4 moves" in mover.error("malformed")


def test_the_previous_turn_is_in_the_state_for_the_highlight(table_factory: Any) -> None:
    table = table_factory(seed=3)
    rolled = table.opening()
    mover = table.by_color(rolled["color"])
    assert mover.state()["view"]["last_turn"] is None
    event = table.play_random(mover)
    last = table.host.state()["view"]["last_turn"]
    assert last["color"] == mover.color
    assert [[m["die"]] for m in last["moves"]] == [[m[2]] for m in event["moves"]]


def test_money_play_online_with_jacoby_and_beavers(table_factory: Any,
                                                   client: TestClient) -> None:
    for bad, words in (
            ({"jacoby": True, "cube": True}, "the Jacoby rule is for money play only"),
            ({"money": True, "beavers": True}, "beavers needs the doubling cube"),
            ({"money": True, "match_length": 3}, "money play has no match length, got 3")):
        response = client.post("/api/online/rooms", json=bad)
        assert response.status_code == 422, bad
        assert response.json()["error"] == {"code": "invalid_settings", "message": words}
    table = table_factory(seed=12, cube=True, money=True, jacoby=True, beavers=True)
    roller, other = _to_a_roll_phase(table)
    state = roller.state()
    assert state["settings"] == {"cube": True, "time_control": None, "match_length": 0,
                                 "money": True, "jacoby": True, "beavers": True}
    assert state["match"]["jacoby"] is True and state["match"]["beavers"] is True
    assert state["view"]["score"]["description"] == "Money session · game 1"
    roller.send(type="double")
    table.both("double")
    other.send(type="beaver")
    assert table.both("beaver")[0]["cube"] == 4
    beaver = other.state()["game"]
    assert (beaver["phase"], beaver["to_act"], beaver["cube"]["value"]) == (
        "cube", roller.color, 2)
    roller.send(type="drop")  # the doubler drops the beaver: loses twice the old cube
    table.both("drop")
    over = table.both("game_over")[0]
    assert over["outcome"]["points"] == 2 and over["match_over"] is False
    state = roller.state()
    assert (state["phase"], state["view"]["phase"]) == ("playing", "game_over")
    assert state["view"]["can"]["next_game"] is True
    assert state["view"]["result"]["text"].endswith(
        f"Running total: White {state['score']['white']}, Black {state['score']['black']}.")
    roller.send(type="next_game")
    assert table.both("new_game")[0]["game"] == 2
