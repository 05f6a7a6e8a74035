"""One flow, proved: the same seeded match played through both doors gives the same game.

The local door is the HTTP API (pass & play, the dice of a seeded generator); the online door is
the WebSocket room, whose dice come from the players' secrets: for each roll the scripted
players pick secrets that give the dice the local game threw (a search over fresh secrets, 36
tries on average). Both run on fake clocks moved by the same steps (2 s before each roll, 4 s
before each play, 1 s before a cube action), so the event logs, with their seconds, and the
views after every action must be the same.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from backgammon.core.dice import commitment, dice_from_secrets
from backgammon.server import ServerSettings, create_app
from backgammon.server.online import OnlineHub, RoomManager, router
from backgammon.services.clock import TIME_CONTROLS
from fake_clock import FakeNow
from ws_peer import WsPeer

#: The keys of the game view both doors share (local: the state; online: ``state.game``).
SHARED = ("phase", "turn", "to_act", "board", "pips", "dice", "dice_left", "cube",
          "last_turn", "opening", "history", "played", "legal")


class Clocks:
    """Both doors' fake clocks, moved together."""

    def __init__(self) -> None:
        self.local, self.online = FakeNow(7000.0), FakeNow(7000.0)

    def advance(self, seconds: float) -> None:
        self.local.advance(seconds)
        self.online.advance(seconds)


class Peer(WsPeer):
    """One scripted browser of the online door."""

    def state(self) -> dict[str, Any]:
        self.send(type="state")
        return dict(self.expect("state")["state"])


class Online:
    """The online door: host (White, named "White") and guest (Black, named "Black")."""

    def __init__(self, client: TestClient, rng: random.Random, **settings: Any) -> None:
        self.rng = rng
        room = client.post("/api/online/rooms", json={"name": "White", **settings}).json()
        self.host = Peer(client.websocket_connect(room["ws_path"]).__enter__())
        self.host.send(type="hello", token=room["token"])
        self.host.color = self.host.expect("welcome")["color"]
        self.guest = Peer(client.websocket_connect(room["ws_path"]).__enter__())
        self.guest.send(type="hello", name="Black")
        self.guest.color = self.guest.expect("welcome")["color"]
        self.host.expect("opponent")
        self.round = 1

    def close(self) -> None:
        for peer in (self.guest, self.host):
            peer.ws.__exit__(None, None, None)

    def peer(self, color: str) -> Peer:
        return self.host if self.host.color == color else self.guest

    def both(self, kind: str) -> dict[str, Any]:
        messages = [self.host.expect(kind), self.guest.expect(kind)]
        for message in messages:
            message.pop("legal_moves", None)
            message.pop("legal", None)
        assert messages[0] == messages[1]
        return messages[0]

    def secrets_for(self, dice: tuple[int, int]) -> tuple[bytes, bytes]:
        """Two fresh secrets whose derivation for this round gives ``dice``."""
        first = self.rng.randbytes(32)
        while True:
            second = self.rng.randbytes(32)
            if dice_from_secrets(first, second, self.round) == dice:
                return first, second

    def opening(self, white: int, black: int) -> dict[str, Any]:
        mine, theirs = self.secrets_for((white, black))
        secret = {"white": mine, "black": theirs}
        for peer in (self.host, self.guest):
            peer.send(type="commit", round=self.round, commitment=commitment(secret[peer.color]))
            self.both("commit")
        for peer in (self.host, self.guest):
            peer.send(type="reveal", round=self.round, secret=secret[peer.color].hex())
            self.both("reveal")
        self.round += 1
        return self.both("rolled")

    def roll(self, color: str, dice: tuple[int, int]) -> dict[str, Any]:
        roller = self.peer(color)
        other = self.guest if roller is self.host else self.host
        mine, theirs = self.secrets_for(dice)
        roller.send(type="commit", round=self.round, commitment=commitment(mine))
        self.both("commit")
        other.send(type="secret", round=self.round, secret=theirs.hex())
        self.both("secret")
        roller.send(type="reveal", round=self.round, secret=mine.hex())
        self.both("reveal")
        self.round += 1
        return self.both("rolled")

    def act(self, color: str, kind: str, event: str | None = None, **fields: Any
            ) -> dict[str, Any]:
        self.peer(color).send(type=kind, **fields)
        return self.both(event or kind)


def _own(place: Any, color: str) -> int:
    if place == "bar":
        return 25
    if place == "off":
        return 0
    return int(place) if color == "white" else 25 - int(place)


#: The local session's seeds (its dice: services/seeds.py): with 5 a roll that cannot be played
#: comes in the first game.
SEEDS = (5, 11, 23)


@pytest.fixture(params=SEEDS)
def doors(request: pytest.FixtureRequest, tmp_path: Path
          ) -> Iterator[tuple[TestClient, TestClient, Clocks, int]]:
    clocks = Clocks()
    local = TestClient(create_app(ServerSettings(
        db_path=tmp_path / "games.sqlite3", rng=random.Random(request.param), now=clocks.local,
        time_controls=TIME_CONTROLS)))
    app = FastAPI()
    app.include_router(router)
    app.state.online = OnlineHub(RoomManager(now=clocks.online, time_controls=TIME_CONTROLS))
    online = TestClient(app)
    with local, online:
        yield local, online, clocks, request.param


def _local(client: TestClient, game_id: str, action: str, body: Any = None) -> dict[str, Any]:
    response = client.post(f"/api/games/{game_id}/{action}", json=body or {})
    assert response.status_code in (200, 201), response.text
    return dict(response.json())


def _log(client: TestClient, game_id: str) -> dict[str, Any]:
    service = client.app.state.games  # type: ignore[attr-defined]
    return dict(service.inspect(game_id, lambda match, settings: match.to_log()))


def _same_view(local: dict[str, Any], online: Online, local_log: dict[str, Any],
               *, keys: tuple[str, ...] = SHARED) -> None:
    """The online view, from the side that must act (or White), is the local one; the logs
    so far are the same, seconds included."""
    actor = local["to_act"] or local["turn"] or "white"
    online_state = online.peer(actor).state()
    assert _events(online_state["match"]) == _events(local_log)
    view = online_state["view"]
    for key in keys:
        assert view[key] == local[key], (key, view[key], local[key])
    if local["phase"] != "opening":  # (the online opening is thrown by the pages themselves)
        assert view["can"] == local["can"]
    if local["result"] is not None:
        for key in ("winner", "kind", "points", "reason", "match_over"):
            assert view["result"][key] == local["result"][key]
    assert view["score"]["white"] == local["score"]["white"]
    assert view["score"]["black"] == local["score"]["black"]
    if local["clock"] is not None:
        clock = online_state["clock"]
        assert {"white": clock["white"], "black": clock["black"]} == (
            local["clock"]["remaining"])


def _events(log: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Each game's events, without ``given`` (online dice are given by the secrets)."""
    return [[{k: v for k, v in event.items() if k != "given"} for event in game["events"]]
            for game in log["games"]]


def test_the_same_match_through_both_doors(
        doors: tuple[TestClient, TestClient, Clocks, int]) -> None:
    local_client, online_client, clocks, seed = doors
    settings = {"cube": True, "time_control": "blitz"}
    state = local_client.post("/api/games", json={"mode": "pass_and_play", "kind": "match",
                                                  "length": 7, "seed": seed,
                                                  **settings}).json()
    game_id = state["id"]
    online = Online(online_client, random.Random(5), match_length=7, **settings)
    try:
        doubled = False
        for _ in range(400):
            if state["phase"] == "opening":
                state = _local(local_client, game_id, "roll")
                opening = _log(local_client, game_id)["games"][-1]["events"][-1]
                online.opening(opening["white"], opening["black"])
            elif state["phase"] == "roll":
                color = state["turn"]
                if state["can"]["double"] and not doubled:
                    doubled = True
                    clocks.advance(1)
                    state = _local(local_client, game_id, "double")
                    online.act(color, "double")
                    _same_view(state, online, _log(local_client, game_id))
                    clocks.advance(1)
                    state = _local(local_client, game_id, "take")
                    online.act(_other(color), "take")
                    _same_view(state, online, _log(local_client, game_id))
                clocks.advance(2)
                state = _local(local_client, game_id, "roll")
                thrown = _log(local_client, game_id)["games"][-1]["events"]
                roll = next(e for e in reversed(thrown) if e["type"] == "roll")
                online.roll(color, (roll["dice"][0], roll["dice"][1]))
            elif state["phase"] == "move":
                color = state["turn"]
                if not state["played"]:
                    clocks.advance(4)  # the time after the roll, before the play
                if state["legal"]:
                    entry = state["legal"][0]
                    destination = entry["destinations"][-1]  # the farthest: several dice
                    state = _local(local_client, game_id, "move",
                                   {"from": entry["from"], "to": destination["to"]})
                    path = [[_own(m["from"], color), _own(m["to"], color), m["die"]]
                            for m in destination["moves"]]
                    moved = online.act(color, "move", moves=path)
                    assert moved["moves"] == path
                else:
                    state = _local(local_client, game_id, "done")
                    online.act(color, "end_turn", event="play")
                    if state["result"] is not None:
                        over = online.both("game_over")
                        assert over["outcome"]["points"] == state["result"]["points"]
            elif state["phase"] == "game_over":
                break
            else:  # match_over: the first game won the match? (not with 7 points)
                pytest.fail(f"unexpected phase {state['phase']}")
            _same_view(state, online, _log(local_client, game_id))
        else:
            pytest.fail("the game did not end in 400 steps")
        # The same record, seconds included.
        local_log = _log(local_client, game_id)
        online_log = online.host.state()["match"]
        assert _events(local_log) == _events(online_log)
        kinds = {e["type"] for e in _events(local_log)[0]}
        assert {"opening_roll", "roll", "play", "double", "take"} <= kinds
        assert ("pass" in kinds) is (seed == 5)  # a forced pass, charged alike
        assert any(e.get("seconds") == 2.0 and e["type"] == "roll" for e in _events(local_log)[0])
        assert any(e.get("seconds") == 4.0 and e["type"] == "play" for e in _events(local_log)[0])
        # The next game, by the same policy: a player asks for it.
        state = _local(local_client, game_id, "next")
        online.act("white", "next_game", event="new_game")
        assert state["phase"] == "opening"
        _same_view(state, online, _log(local_client, game_id))
        # Its opening roll, then the side on roll resigns a gammon: at one screen the offer is
        # accepted at once; online the opponent accepts it. The same record either way.
        state = _local(local_client, game_id, "roll")
        opening = _log(local_client, game_id)["games"][-1]["events"][-1]
        online.opening(opening["white"], opening["black"])
        _same_view(state, online, _log(local_client, game_id))
        resigner = state["turn"]
        clocks.advance(3)
        state = _local(local_client, game_id, "resign", {"level": "gammon"})
        online.act(resigner, "resign", level="gammon")
        online.act(_other(resigner), "accept")
        online.both("game_over")
        assert state["result"]["reason"] == "resign" and state["result"]["points"] == 2
        _same_view(state, online, _log(local_client, game_id))
        assert _log(local_client, game_id)["games"][-1]["events"][-2:] == [
            {"type": "resign", "color": resigner, "kind": "gammon", "seconds": 3.0},
            {"type": "accept", "color": _other(resigner), "seconds": 0.0}]
    finally:
        online.close()


def _other(color: str) -> str:
    return "black" if color == "white" else "white"
