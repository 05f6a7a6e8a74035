"""Both games through both doors of the shared table: the same seeded games played through the
HTTP door (``/api/tables``, two people at one screen) and the WebSocket door (``/ws/rooms``,
two screens, the dice by commit-reveal), with the logs, the clocks and the views compared after
every action.

* Backgammon: a seeded timed match; each online roll's secrets are found so that they give
  the dice the seeded door threw (one round per roll, opening ties included).
* Checkers: a seeded game ended by a draw by agreement, one ended by a claimed threefold
  repetition (kings shuttling, then a claim), and one lost on time, noticed in both doors
  without any move.

The HTTP door's clock runs only while a page watches (:mod:`gametable.presence`), the room's
always: the HTTP door's client is a page that stays open, its heartbeat
(``POST /api/tables/{id}/clock``) sent every ``HEARTBEAT_SECONDS`` while time passes, so both
doors' clocks run alike; the HTTP door's clock is never paused.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from backgammon.adapter import RULES as BACKGAMMON
from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings
from fake_clock import FakeNow
from gametable.presence import HEARTBEAT_SECONDS
from room_support import RoomSeats

COMPARED = ("game", "to_act", "offer", "outcome", "state")


#: The clock's keys both doors send (the HTTP door adds ``paused``, ``heartbeat``, ``warning``).
CLOCK_KEYS = ("control", "reserve", "increment", "remaining", "running")


def _rounded(clock: dict[str, Any] | None) -> Any:
    """The clock both doors send, to the millisecond (the HTTP door's is rounded so)."""
    if clock is None:
        return None
    core = {key: clock[key] for key in CLOCK_KEYS}
    return {**core, "remaining": {s: round(v, 3) for s, v in clock["remaining"].items()}}


class Doors:
    """One app, one fake clock; a table at the HTTP door and a room at the WebSocket door
    (:class:`room_support.RoomSeats`), played side by side."""

    def __init__(self, client: TestClient, now: FakeNow) -> None:
        self.client = client
        self.now = now
        self.app: Any = client.app
        self.seats: RoomSeats | None = None
        self.table_id = ""
        self.headers: dict[str, str] = {}

    # ------------------------------------------------------------ making

    def open(self, game: str, settings: dict[str, Any], time_control: str) -> None:
        made = self.client.post(
            "/api/tables",
            json={
                "game": game,
                "settings": settings,
                "time_control": time_control,
                # named as the room's players: both doors' words then name them alike
                "seats": {"white": {"kind": "person", "name": "Ann"},
                          "black": {"kind": "person", "name": "Bob"}},
            },
        )
        assert made.status_code == 201, made.text
        self.table_id = made.json()["id"]
        self.headers = {"X-Table-Token": made.json()["token"]}
        self.seats = RoomSeats(self.client, game, settings, time_control)

    @property
    def online(self) -> RoomSeats:
        assert self.seats is not None
        return self.seats

    @property
    def views(self) -> dict[str, dict[str, Any]]:
        return self.online.views

    def close(self) -> None:
        if self.seats is not None:
            self.seats.close()

    def drain(self) -> None:
        """Read every frame waiting on both sockets; keep each side's last view."""
        self.online.drain()

    # ------------------------------------------------------------ the two doors' tables

    def http_table(self) -> Any:
        return self.app.state.tables._tables[self.table_id].table

    def room(self) -> Any:
        return self.online.room()

    def http_view(self, side: str) -> dict[str, Any]:
        answer = self.client.get(f"/api/tables/{self.table_id}?side={side}", headers=self.headers)
        assert answer.status_code == 200, answer.text
        view: dict[str, Any] = answer.json()["view"]
        return view

    # ------------------------------------------------------------ time passing

    def heartbeat(self) -> dict[str, Any]:
        """The HTTP door's page says it is still watching."""
        answer = self.client.post(
            f"/api/tables/{self.table_id}/clock", json={"page": "tab"}, headers=self.headers
        )
        assert answer.status_code == 200, answer.text
        checked: dict[str, Any] = answer.json()
        return checked

    def advance(self, seconds: float) -> None:
        """``seconds`` pass with the HTTP door's page open: its heartbeat every
        ``HEARTBEAT_SECONDS`` at most (and once at the end)."""
        while seconds > 0:
            step = min(seconds, HEARTBEAT_SECONDS)
            self.now.advance(step)
            seconds -= step
            self.heartbeat()

    # ------------------------------------------------------------ acting

    def act(self, side: str, action: dict[str, Any]) -> None:
        answer = self.client.post(
            f"/api/tables/{self.table_id}/actions",
            json={"side": side, "action": action},
            headers=self.headers,
        )
        assert answer.status_code == 200, answer.text
        self.online.act(side, action)
        self.compare()

    def roll(self, side: str) -> None:
        """A roll at the HTTP door (seeded dice), then the same dice by a commit-reveal round
        at the WebSocket door."""
        before = len(self.http_table().game.match.current.events)
        answer = self.client.post(
            f"/api/tables/{self.table_id}/actions",
            json={"side": side, "action": {"type": "roll"}},
            headers=self.headers,
        )
        assert answer.status_code == 200, answer.text
        game = self.http_table().game.match.current
        event = game.events[before]
        if event["type"] == "opening_roll":
            self.online.roll(side, (event["white"], event["black"]), opening=True)
        else:
            self.online.roll(side, tuple(event["dice"]))
        self.compare()

    def compare(self) -> None:
        """The logs, the clocks and every side's view agree between the doors."""
        mine_views = {side: self.http_view(side) for side in ("white", "black")}
        http, room = self.http_table(), self.room()
        assert _log(http.game.log()) == _log(room.table.game.log())
        for side in ("white", "black"):
            mine = mine_views[side]
            theirs = self.views[side]
            for key in COMPARED:
                assert mine[key] == theirs[key], (side, key)
            assert _rounded(mine["clock"]) == _rounded(theirs["clock"]), side
            assert mine["clock"] is None or mine["clock"]["paused"] is None, side


def _log(value: Any) -> Any:
    """A log without what says where the dice came from: the seed (the seeded door's dice
    have one, the fair door's none) and ``given`` (dice from a round)."""
    if isinstance(value, dict):
        return {k: _log(v) for k, v in value.items() if k not in ("seed", "given")}
    if isinstance(value, list):
        return [_log(v) for v in value]
    return value


@pytest.fixture
def doors(tmp_path: Path) -> Iterator[Doors]:
    now = FakeNow()
    with TestClient(create_app(ServerSettings(db_path=tmp_path / "db.sqlite3", now=now))) as client:
        doors = Doors(client, now)
        yield doors
        doors.close()


def test_a_seeded_backgammon_match_through_both_doors(doors: Doors) -> None:
    doors.open("backgammon", {"length": 3, "cube": True}, "blitz")
    rng = random.Random(33)
    actions = 0
    while doors.http_table().game.outcome() is None and actions < 3000:  # (dice unseeded)
        table = doors.http_table()
        game = table.game
        waiting = sorted(game.to_act())
        doors.advance(rng.uniform(0.2, 4.0))
        if not waiting:  # between two games of the match
            doors.act("white", {"type": "next_game"})
            actions += 1
            continue
        side = waiting[0] if len(waiting) == 1 else rng.choice(waiting)
        action = BACKGAMMON.computer_action(game, side, "easy", rng)
        if action["type"] == "roll":
            doors.roll(side)
        else:
            doors.act(side, action)
        actions += 1
    outcome = doors.http_table().game.outcome()
    assert outcome is not None and outcome.points >= 3
    assert doors.views["white"]["outcome"] == outcome.to_dict()
    # the words name the players as backgammon's own online door does: "You" and the
    # opponent's name; the move list both names
    winner = outcome.winner
    assert winner is not None
    loser = "black" if winner == "white" else "white"
    name = {"white": "Ann", "black": "Bob"}
    assert doors.views[winner]["state"]["result"]["title"] == "You win the match"
    assert doors.views[loser]["state"]["result"]["title"] == f"{name[winner]} wins the match"
    lines = [entry["text"] for entry in doors.views["white"]["state"]["history"]]
    assert any(line.startswith("Ann ") for line in lines)
    assert any(line.startswith("Bob ") for line in lines)
    assert actions > 40


def _checkers_moves(doors: Doors, rng: random.Random, count: int) -> None:
    for _ in range(count):
        view = doors.http_view("white")
        if view["outcome"] is not None:
            return
        side = view["to_act"][0]
        legal = doors.http_view(side)["state"]["legal"]
        doors.advance(rng.uniform(0.2, 3.0))
        doors.act(side, {"type": "move", "path": rng.choice(legal)})


def test_a_checkers_draw_by_agreement_through_both_doors(doors: Doors) -> None:
    doors.open("checkers", {}, "rapid")
    rng = random.Random(35)
    _checkers_moves(doors, rng, 12)
    side = doors.http_view("white")["to_act"][0]
    other = "black" if side == "white" else "white"
    doors.act(side, {"type": "offer_draw"})
    assert doors.views[other]["offer"] == {"kind": "draw", "by": side}
    doors.act(other, {"type": "accept_draw"})
    assert doors.views["white"]["outcome"] == {"winner": None, "reason": "agreement",
                                              "points": 0}  # fmt: skip


def test_a_checkers_draw_by_threefold_repetition_claimed_through_both_doors(doors: Doors) -> None:
    doors.open("checkers", {"start": "B:WK4,K8:BK29,K25"}, "none")
    shuttle = [("black", [25, 22]), ("white", [8, 11]), ("black", [22, 25]), ("white", [11, 8])]
    for side, path in shuttle * 2:
        doors.advance(1.0)
        doors.act(side, {"type": "move", "path": path})
    # the start stands a third time: not drawn by itself (the ACF's draws are claimed), and
    # either side may claim it, through either door
    assert doors.views["black"]["outcome"] is None
    for side in ("black", "white"):
        assert doors.views[side]["state"]["claimable"] == "threefold repetition"
        assert doors.views[side]["state"]["can"]["claim_draw"] is True
    doors.act("black", {"type": "claim_draw"})
    outcome = doors.views["black"]["outcome"]
    assert outcome == {"winner": None, "reason": "threefold repetition", "points": 0}
    assert doors.http_table().game.log()[-1] == {"claim_draw": "black"}
    assert doors.room().table.game.log() == doors.http_table().game.log()


def test_a_checkers_game_lost_on_time_in_both_doors(doors: Doors) -> None:
    doors.open("checkers", {}, "bullet")
    rng = random.Random(36)
    _checkers_moves(doors, rng, 4)
    side = doors.http_view("white")["to_act"][0]
    left = doors.http_view(side)["clock"]["remaining"][side]
    doors.advance(left + 0.5)
    doors.drain()  # the room sees the flag when its player asks (or its timer fires)
    doors.compare()
    winner = "black" if side == "white" else "white"
    assert doors.views[side]["outcome"] == {"winner": winner, "reason": "time", "points": 1}
    assert doors.views[side]["clock"]["remaining"][side] == 0.0


def test_a_backgammon_timeout_in_both_doors(doors: Doors) -> None:
    doors.open("backgammon", {"length": 1}, "bullet")
    doors.roll("white")
    side = doors.http_view("white")["to_act"][0]
    doors.advance(61.0)
    doors.drain()
    doors.compare()
    assert doors.views[side]["outcome"]["reason"] == "time"
