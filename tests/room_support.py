"""Two scripted screens at the table's online door (``/api/rooms``, ``/ws/rooms``), through
Starlette's ``TestClient``, for the tests that play a room beside another door and compare.

:class:`RoomSeats` makes a room (White hosts), seats both players, reads every frame and keeps
each side's last view; :meth:`RoomSeats.roll` throws chosen dice by a commit-reveal round,
with secrets found by :func:`secrets_for` (:func:`throw`: the same through a room service).
"""

from __future__ import annotations

import random
from typing import Any

from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from backgammon.core.dice import dice_from_secrets
from gametable.fair import commitment_of

SIDES = ("white", "black")


def other(side: str) -> str:
    """The other side."""
    return "black" if side == "white" else "white"


def secrets_for(dice: tuple[int, ...], number: int) -> tuple[bytes, bytes]:
    """Two secrets whose dice for round ``number`` are ``dice`` (the roller's, or White's at
    the opening, first): the second all zeros, the first searched (36 tries on average)."""
    rng = random.Random(hash(dice) ^ number)
    second = bytes(32)
    while True:
        first = rng.randbytes(32)
        if dice_from_secrets(first, second, number) == dice:
            return first, second


class RoomSeats:
    """A room of the app ``client`` serves, both seats connected: White (named ``names[0]``)
    made it, Black (``names[1]``) joined.

    Args:
        client: a ``TestClient`` of an app with the table's online door.
        game: the game's name (``"backgammon"``, ``"checkers"``).
        settings: the game's settings.
        time_control: ``"none"``, ``"bullet"``, ``"blitz"``, ``"rapid"``.
        names: the players' names, White's and Black's.

    Raises:
        AssertionError: the door refused to make or join the room.
    """

    def __init__(self, client: TestClient, game: str, settings: dict[str, Any],
                 time_control: str, names: tuple[str, str] = ("Ann", "Bob")) -> None:
        self.client = client
        self.sockets: dict[str, WebSocketTestSession] = {}
        self._contexts: list[Any] = []
        #: Each side's last view (the room's ``view`` frames).
        self.views: dict[str, dict[str, Any]] = {}
        host = client.post("/api/rooms", json={"game": game, "settings": settings,
                                               "time_control": time_control, "side": "white",
                                               "name": names[0]})
        assert host.status_code == 201, host.text
        assert host.json()["side"] == "white"
        self.code: str = host.json()["code"]
        guest = client.post(f"/api/rooms/{self.code}/join", json={"name": names[1]})
        assert guest.status_code == 200, guest.text
        assert guest.json()["side"] == "black"
        self.tokens = {"white": host.json()["token"], "black": guest.json()["token"]}
        for side in SIDES:
            socket = client.websocket_connect(f"/ws/rooms/{self.code}")
            self._contexts.append(socket)
            ws = socket.__enter__()
            self.sockets[side] = ws
            ws.send_json({"type": "hello", "token": self.tokens[side]})
        self.drain()

    def close(self) -> None:
        """Close both sockets."""
        for socket in self._contexts:
            socket.__exit__(None, None, None)

    def room(self) -> Any:
        """The room itself (:class:`gametable.room.Room`) in the app's room service."""
        return self.client.app.state.rooms.service.room(self.code)  # type: ignore[attr-defined]

    def drain(self) -> None:
        """Read every frame waiting on both sockets; keep each side's last view."""
        for side, ws in self.sockets.items():
            ws.send_json({"type": "state", "ref": "sync"})
            while True:
                frame = ws.receive_json()
                assert frame["type"] != "error", frame
                self.views[side] = frame["view"]
                if frame.get("ref") == "sync":
                    break

    def send(self, side: str, frame: dict[str, Any]) -> None:
        """Send ``frame`` from ``side``, then read both sides' frames."""
        self.sockets[side].send_json(frame)
        self.drain()

    def act(self, side: str, action: dict[str, Any]) -> None:
        """``side`` takes ``action`` (the table's action JSON)."""
        self.send(side, {"type": "action", "action": action})

    def roll(self, side: str, dice: tuple[int, ...], *, opening: bool = False) -> None:
        """Throw ``dice`` by one commit-reveal round: at the opening both commit, then both
        reveal (White's secret first, ``dice`` as (White's die, Black's)); a roll: ``side``
        commits, the opponent sends its secret, ``side`` reveals."""
        number = self.room().next_round
        first, second = secrets_for(dice, number)
        if opening:
            for who, secret in (("white", first), ("black", second)):
                self.send(who, {"type": "commit", "round": number,
                                "commitment": commitment_of(secret)})
            for who, secret in (("white", first), ("black", second)):
                self.send(who, {"type": "reveal", "round": number, "secret": secret.hex()})
            return
        opponent = other(side)
        self.send(side, {"type": "commit", "round": number, "commitment": commitment_of(first)})
        assert self.views[opponent]["room"]["round"]["awaiting"] == [opponent]
        self.send(opponent, {"type": "secret", "round": number, "secret": second.hex()})
        self.send(side, {"type": "reveal", "round": number, "secret": first.hex()})


def throw(service: Any, code: str, side: str, dice: tuple[int, ...], *,
          opening: bool = False) -> None:
    """:meth:`RoomSeats.roll` straight through a room service (``service.handle``, as the
    door calls it), for the tests that drive a :class:`gametable.rooms.RoomService`."""
    number = service.room(code).next_round
    first, second = secrets_for(dice, number)
    if opening:
        for who, secret in (("white", first), ("black", second)):
            service.handle(code, who, {"type": "commit", "round": number,
                                       "commitment": commitment_of(secret)})
        for who, secret in (("white", first), ("black", second)):
            service.handle(code, who, {"type": "reveal", "round": number,
                                       "secret": secret.hex()})
        return
    service.handle(code, side, {"type": "commit", "round": number,
                                "commitment": commitment_of(first)})
    service.handle(code, other(side), {"type": "secret", "round": number,
                                       "secret": second.hex()})
    service.handle(code, side, {"type": "reveal", "round": number, "secret": first.hex()})
