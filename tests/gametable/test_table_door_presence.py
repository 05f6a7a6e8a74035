"""The table's own door (``TableService``, ``/api/tables``) holds a timed table's clock while no
page watches, by the rules of :mod:`gametable.presence`, as backgammon's local door does: a
person's clock runs while heartbeats come, is charged only the grace when they stop and is
paused, and resumes on the next request; a "leave" pauses it at once (unless another page
watches); a flag falls only within the watched time, exactly at zero; the computer's clock runs
only while it thinks; a table restored from its record (evicted from memory, or a new service on
the same store) is not charged the time it was away. Then the route,
``POST /api/tables/{id}/clock``, in the real app: its answer, the views' clock, and its
refusals."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from backgammon.adapter import RULES as BACKGAMMON
from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings
from checkers.adapter import RULES as CHECKERS
from fake_clock import FakeNow
from gametable import TimeControl
from gametable.errors import ActionRefused
from gametable.game_store import GameStore
from gametable.presence import HEARTBEAT_SECONDS, PRESENCE_SECONDS, WARNING_SECONDS
from gametable.service import TableService
from gametable.table import Table

#: The computer's thinking time on the fake clock, per action.
THINKS = 2.5

CONTROLS: dict[str, TimeControl | None] = {
    "none": None,
    "minute": TimeControl("minute", 60.0, 0.0),
    "quarter": TimeControl("quarter", 15.0, 0.0),
}

PERSON = {"kind": "person"}
COMPUTER = {"kind": "computer", "level": "easy"}


class Thinking:
    """Checkers whose computer takes :data:`THINKS` seconds of the fake clock to choose."""

    def __init__(self, now: FakeNow, rules: Any = CHECKERS) -> None:
        self._now = now
        self._rules = rules

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rules, name)

    def computer_action(self, game: Any, side: Any, level: str, rng: random.Random) -> Any:
        self._now.advance(THINKS)
        return self._rules.computer_action(game, side, level, rng)


class Door:
    """A table service on a fake clock and a store, and one table at it."""

    def __init__(self, store: GameStore, now: FakeNow, **options: Any) -> None:
        self.now = now
        self.store = store
        self.service = TableService(
            {"checkers": Thinking(now), "backgammon": Thinking(now, BACKGAMMON)},
            store,
            now=now,
            time_controls=CONTROLS,
            **options,
        )
        self.id = ""
        self.token = ""

    def make(
        self,
        black: Mapping[str, Any] = PERSON,
        white: Mapping[str, Any] = COMPUTER,
        control: str = "minute",
        game: str = "checkers",
        **options: Any,
    ) -> Table:
        self.id, self.token, table = self.service.create(
            game, {}, {"black": black, "white": white}, control, **options
        )
        return table

    def act(self, side: str, *path: int, page: str = "tab") -> Table:
        return self.service.act(
            self.id, self.token, side, {"type": "move", "path": list(path)}, page
        )

    def legal(self, side: str = "black") -> list[int]:
        """The first legal move of ``side`` now (read without a request)."""
        path: list[int] = self.table().game.view(side)["legal"][0]
        return path

    def beat(self, page: str = "tab", leave: bool = False) -> dict[str, Any]:
        return self.service.clock_check(self.id, self.token, page, leave)

    def watch(self, seconds: float, page: str = "tab") -> dict[str, Any]:
        """``seconds`` pass with ``page`` open: its heartbeat every HEARTBEAT_SECONDS."""
        answer = self.beat(page)
        while seconds > 0:
            step = min(seconds, HEARTBEAT_SECONDS)
            self.now.advance(step)
            seconds -= step
            answer = self.beat(page)
        return answer

    def table(self) -> Table:
        return self.service._tables[self.id].table

    def clock(self) -> tuple[str | None, str | None, dict[str, float]]:
        """(running, paused, remaining) as the table has them now, with no request."""
        clock = self.table().clock
        assert clock is not None
        left = {side: clock.remaining(side) for side in ("black", "white")}
        return clock.running, clock.paused, left

    def quiet(self) -> None:
        """What the table's clock is once brought up to now, with no page noted."""
        presence = self.service._tables[self.id].presence
        assert presence is not None
        presence.due()
        presence.sync()


@pytest.fixture
def door(tmp_path: Path) -> Iterator[Door]:
    store = GameStore(tmp_path / "tables.sqlite3")
    yield Door(store, FakeNow())
    store.close()


# ---------------------------------------------------------------- a person's clock


def test_a_persons_clock_runs_while_heartbeats_come_then_only_the_grace(door: Door) -> None:
    door.make()
    assert door.clock() == (None, None, {"black": 60.0, "white": 60.0})  # before the first move
    door.act("black", 11, 15)  # the computer answers, thinking THINKS s: Black's turn again
    assert door.clock() == ("black", None, {"black": 60.0, "white": 60.0 - THINKS})
    answer = door.watch(20.0)
    assert answer["clock"]["remaining"] == {"black": 40.0, "white": 57.5}
    assert answer["clock"]["running"] == "black" and answer["clock"]["paused"] is None
    assert answer["actions"] == 2 and answer["outcome"] is None
    # the page goes quiet (the tab closed without a word, a laptop asleep): 300 s later only
    # the grace is charged, and the clock waits
    door.now.advance(300.0)
    door.quiet()
    assert door.clock() == (None, "black", {"black": 40.0 - PRESENCE_SECONDS, "white": 57.5})
    door.now.advance(100.0)
    door.quiet()
    assert door.clock()[2]["black"] == 30.0
    # the next request resumes it from now: a read, as a page reloaded
    door.service.read(door.id, door.token, "again")
    assert door.clock() == ("black", None, {"black": 30.0, "white": 57.5})
    door.now.advance(3.0)
    assert door.beat("again")["clock"]["remaining"]["black"] == 27.0


def test_a_quiet_page_is_charged_the_grace_at_the_next_request(door: Door) -> None:
    door.make()
    door.act("black", 11, 15)
    door.watch(5.0)
    door.now.advance(60.0)  # nothing heard: the next heartbeat finds the clock due
    answer = door.beat()
    assert answer["clock"]["remaining"]["black"] == 55.0 - PRESENCE_SECONDS
    assert answer["clock"]["running"] == "black" and answer["clock"]["paused"] is None


def test_leaving_pauses_at_once_unless_another_page_watches(door: Door) -> None:
    door.make(page="a")
    door.act("black", 11, 15, page="a")
    door.watch(4.0, page="a")
    door.watch(2.0, page="b")  # two tabs
    answer = door.beat("a", leave=True)  # one closes: the other still watches
    assert answer["clock"]["paused"] is None
    door.watch(3.0, page="b")
    answer = door.beat("b", leave=True)  # the last one closes
    assert answer["clock"]["paused"] == "black" and answer["clock"]["running"] is None
    assert answer["clock"]["remaining"]["black"] == 51.0
    door.now.advance(3.0)  # within the grace: nothing charged after a leave
    door.quiet()
    assert door.clock() == (None, "black", {"black": 51.0, "white": 57.5})
    door.now.advance(600.0)
    assert door.watch(1.0, page="c")["clock"]["remaining"]["black"] == 50.0


def test_an_action_resumes_the_clock_and_marks_the_page(door: Door) -> None:
    door.make()
    door.act("black", 11, 15)
    door.beat(leave=True)
    door.now.advance(200.0)
    door.act("black", *door.legal())  # 1 s charged, the computer's THINKS, Black's again
    assert door.clock() == ("black", None, {"black": 60.0, "white": 60.0 - 2 * THINKS})


def test_two_people_at_one_screen_each_clock_runs_only_while_watched(door: Door) -> None:
    door.make(black=PERSON, white=PERSON)
    door.act("black", 11, 15)
    door.watch(10.0)
    door.act("white", 22, 18)
    door.now.advance(25.0)  # the players walk away
    door.quiet()
    assert door.clock() == (None, "black", {"black": 50.0, "white": 50.0})
    door.act("black", 15, 22, page="tab2")  # a capture, from another tab: runs from now
    assert door.clock() == ("white", None, {"black": 50.0, "white": 50.0})


# ---------------------------------------------------------------- losing on time


def test_a_flag_falls_within_the_watched_time_exactly_at_zero(door: Door) -> None:
    door.make(control="quarter")
    door.act("black", 11, 15)
    answer = door.watch(10.0)
    assert answer["clock"]["remaining"]["black"] == 5.0
    door.now.advance(4.0)
    assert door.beat()["outcome"] is None
    door.now.advance(3.0)  # 1 s left at the last heartbeat: out 2 s ago, within the grace
    answer = door.beat()
    assert answer["outcome"] == {"winner": "white", "reason": "time", "points": 1}
    assert answer["clock"]["remaining"]["black"] == 0.0 and answer["clock"]["running"] is None
    assert door.table().clock is not None and door.table().clock.remaining("black") == 0.0
    # saved: a new service on the same store finds it over
    again = Door(door.store, door.now)
    found = again.service.read(door.id, door.token)
    assert found.view()["outcome"] == {"winner": "white", "reason": "time", "points": 1}


def test_no_flag_falls_while_nobody_watches(door: Door) -> None:
    door.make(control="quarter")
    door.act("black", 11, 15)
    door.watch(3.0)  # 12 s left: more than the grace
    door.now.advance(1000.0)
    answer = door.beat()
    assert answer["outcome"] is None
    assert answer["clock"]["remaining"]["black"] == 12.0 - PRESENCE_SECONDS
    door.now.advance(2.5)
    answer = door.beat()
    assert answer["outcome"] is not None and answer["outcome"]["reason"] == "time"
    assert answer["clock"]["remaining"]["black"] == 0.0


def test_an_action_after_the_flag_is_refused_saying_who_ran_out(door: Door) -> None:
    door.make(control="quarter")
    door.act("black", 11, 15)
    door.watch(10.0)
    door.now.advance(5.5)  # the flag falls; nobody has asked yet
    path = door.legal()
    with pytest.raises(ActionRefused) as refused:
        door.act("black", *path)
    assert refused.value.code == "game_over"
    assert str(refused.value) == "Black ran out of time: the game is over"
    table = door.service.read(door.id, door.token)
    assert table.view()["outcome"] == {"winner": "white", "reason": "time", "points": 1}
    assert table.game.log()[2:] == [{"time_out": "black"}]  # the refused move was not made
    with pytest.raises(ActionRefused) as again:
        door.act("black", *path)
    assert again.value.code == "game_over"


def test_a_read_records_the_flag(door: Door) -> None:
    door.make(control="quarter")
    door.act("black", 11, 15)
    door.watch(14.0)
    door.now.advance(2.0)
    table = door.service.read(door.id, door.token)
    assert table.game.outcome() is not None
    assert door.service.view(table, "black")["clock"]["remaining"]["black"] == 0.0


# ---------------------------------------------------------------- the computer's clock


def test_the_computers_clock_runs_only_while_it_thinks(door: Door) -> None:
    # the computer moves first (Black): nobody's clock before the first move
    door.make(black=COMPUTER, white=PERSON)
    assert door.clock() == ("white", None, {"black": 60.0, "white": 60.0})
    door.watch(5.0)
    door.act("white", 22, 18)  # Black thinks THINKS s, then White's turn
    assert door.clock() == ("white", None, {"black": 60.0 - THINKS, "white": 55.0})
    # however long the person takes, the computer's clock stands
    door.watch(30.0)
    door.now.advance(100.0)
    door.quiet()
    assert door.clock()[2] == {"black": 60.0 - THINKS, "white": 15.0}


def test_a_long_think_leaves_the_persons_clock_running(door: Door) -> None:
    class Slow(Thinking):
        def computer_action(self, game: Any, side: Any, level: str, rng: random.Random) -> Any:
            door.now.advance(PRESENCE_SECONDS + 5.0)
            return CHECKERS.computer_action(game, side, level, rng)

    door.service.games["checkers"] = Slow(door.now)
    door.make()
    door.act("black", 11, 15)  # the page waits for the answer: still there after 15 s
    assert door.clock() == ("black", None, {"black": 60.0, "white": 45.0})
    door.now.advance(4.0)
    door.quiet()
    assert door.clock() == ("black", None, {"black": 56.0, "white": 45.0})


def test_the_computer_may_lose_on_time_while_it_thinks(door: Door) -> None:
    class Slow(Thinking):
        def computer_action(self, game: Any, side: Any, level: str, rng: random.Random) -> Any:
            door.now.advance(20.0)
            return CHECKERS.computer_action(game, side, level, rng)

    door.service.games["checkers"] = Slow(door.now)
    door.make(control="quarter")
    door.act("black", 11, 15)  # White thinks 20 s with 15 s on its clock: the move stands
    outcome = door.table().game.outcome()
    assert outcome is not None
    assert outcome.to_dict() == {"winner": "black", "reason": "time", "points": 1}
    assert door.clock() == (None, None, {"black": 15.0, "white": 0.0})
    assert door.table().game.log() == [{"move": "11-15"}, {"time_out": "white"}]
    again = Door(door.store, door.now)  # saved
    assert again.service.read(door.id, door.token).game.outcome() == outcome


# ---------------------------------------------------------------- restored tables


def test_a_table_evicted_from_memory_is_not_charged_the_time_away(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "tables.sqlite3")
    door = Door(store, FakeNow(), max_tables=1)
    door.make()
    door.act("black", 11, 15)
    door.watch(10.0)  # 50 s left, saved by the last heartbeat
    first = (door.id, door.token)
    door.make()  # another table: the first leaves memory
    assert first[0] not in door.service._tables
    door.now.advance(500.0)
    door.id, door.token = first
    answer = door.beat()  # restored: its first request pauses, then runs from now
    assert answer["clock"]["remaining"]["black"] == 50.0
    assert answer["clock"]["running"] == "black"
    assert door.watch(5.0)["clock"]["remaining"]["black"] == 45.0
    store.close()


@pytest.mark.parametrize("first", ["read", "act", "heartbeat"])
def test_a_new_service_on_the_same_store_does_not_charge_the_downtime(
    door: Door, first: str
) -> None:
    door.make()
    door.act("black", 11, 15)
    door.watch(7.0)  # 53 s left, saved by the last heartbeat
    door.now.advance(3.0)  # not saved: the server stops between two heartbeats
    restarted = Door(door.store, door.now)
    restarted.id, restarted.token = door.id, door.token
    door.now.advance(3600.0)
    if first == "read":
        table = restarted.service.read(door.id, door.token)
        assert restarted.service.view(table)["clock"]["remaining"]["black"] == 53.0
    elif first == "act":
        path = Table.from_record(door.table().to_record(), {"checkers": CHECKERS}).game.view(
            "black"
        )["legal"][0]
        restarted.act("black", *path)
        assert restarted.clock()[2] == {"black": 53.0, "white": 60.0 - 2 * THINKS}
    else:
        assert restarted.beat()["clock"]["remaining"]["black"] == 53.0
    assert restarted.clock()[:2] == ("black", None)


def test_a_restored_table_nobody_asks_about_keeps_its_time(door: Door) -> None:
    door.make()
    door.act("black", 11, 15)
    door.watch(5.0)
    restarted = Door(door.store, door.now)
    restarted.id, restarted.token = door.id, door.token
    restarted.service._restore(door.id, door.token)  # back in memory, no page yet
    door.now.advance(50.0)
    restarted.quiet()
    assert restarted.clock() == (None, "black", {"black": 55.0, "white": 57.5})


# ---------------------------------------------------------------- backgammon at the table


def test_backgammon_at_the_table_follows_the_same_rule(door: Door) -> None:
    door.make(black=PERSON, white=PERSON, game="backgammon", seed=5)
    table = door.table()
    door.service.act(door.id, door.token, "white", {"type": "roll"}, "tab")
    side = sorted(table.game.to_act())[0]
    assert door.clock()[0] == side
    door.watch(10.0)
    door.now.advance(40.0)
    door.quiet()
    running, paused, left = door.clock()
    assert (running, paused) == (None, side) and left[side] == 60.0 - 10.0 - PRESENCE_SECONDS


def test_a_table_without_a_clock_has_no_presence(door: Door) -> None:
    door.make(control="none")
    assert door.service._tables[door.id].presence is None
    door.act("black", 11, 15)
    assert door.beat() == {"actions": 2, "outcome": None, "clock": None}
    assert door.service.view(door.table())["clock"] is None


# ---------------------------------------------------------------- the route


@pytest.fixture
def client(tmp_path: Path) -> Iterator[tuple[TestClient, FakeNow]]:
    now = FakeNow()
    settings = ServerSettings(db_path=tmp_path / "db.sqlite3", now=now, time_controls=CONTROLS)
    with TestClient(create_app(settings)) as test_client:
        yield test_client, now


def _made(client: TestClient, control: str = "minute") -> tuple[str, dict[str, str], Any]:
    made = client.post(
        "/api/tables",
        json={"game": "checkers", "seats": {"black": PERSON, "white": COMPUTER},
              "time_control": control},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    return made.json()["id"], {"X-Table-Token": made.json()["token"]}, made.json()["view"]


def test_the_route_answers_the_heartbeat_and_every_view_has_the_presence_clock(
    client: tuple[TestClient, FakeNow],
) -> None:
    http, now = client
    table_id, headers, view = _made(http)
    assert view["clock"] == {
        "control": "minute",
        "reserve": 60.0,
        "increment": 0.0,
        "remaining": {"white": 60.0, "black": 60.0},
        "running": None,
        "paused": None,
        "heartbeat": HEARTBEAT_SECONDS,
        "warning": WARNING_SECONDS,
    }
    acted = http.post(
        f"/api/tables/{table_id}/actions",
        json={"side": "black", "action": {"type": "move", "path": [11, 15]}},
        headers=headers,
    )
    assert acted.status_code == 200, acted.text
    view = acted.json()["view"]
    assert view["clock"]["running"] == "black" and view["clock"]["paused"] is None
    assert view["clock"]["heartbeat"] == HEARTBEAT_SECONDS
    url = f"/api/tables/{table_id}/clock"
    for _ in range(3):
        now.advance(HEARTBEAT_SECONDS)
        answer = http.post(url, json={"page": "p-1_x"}, headers=headers)
        assert answer.status_code == 200, answer.text
    clock = {**view["clock"], "remaining": {**view["clock"]["remaining"], "black": 45.0}}
    assert answer.json() == {"actions": 2, "outcome": None, "clock": clock}
    left = http.post(url, json={"page": "p-1_x", "leave": True}, headers=headers).json()
    assert left["clock"]["paused"] == "black" and left["clock"]["running"] is None
    now.advance(100.0)
    read = http.get(f"/api/tables/{table_id}", headers=headers).json()["view"]
    assert read["clock"]["remaining"]["black"] == 45.0 and read["clock"]["paused"] is None
    assert http.post(url, json={}, headers=headers).status_code == 200  # an unnamed page


def test_the_route_reports_a_flag_that_fell(client: tuple[TestClient, FakeNow]) -> None:
    http, now = client
    table_id, headers, _ = _made(http, "quarter")
    http.post(f"/api/tables/{table_id}/actions",
              json={"side": "black", "action": {"type": "move", "path": [11, 15]}},
              headers=headers)  # fmt: skip
    url = f"/api/tables/{table_id}/clock"
    for _ in range(4):
        now.advance(HEARTBEAT_SECONDS)
        answer = http.post(url, json={"page": "tab"}, headers=headers).json()
    assert answer["outcome"] == {"winner": "white", "reason": "time", "points": 1}
    assert answer["clock"]["remaining"]["black"] == 0.0 and answer["actions"] == 2
    refused = http.post(f"/api/tables/{table_id}/actions",
                        json={"side": "black", "action": {"type": "move", "path": [9, 13]}},
                        headers=headers)  # fmt: skip
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "game_over"


def test_the_route_refuses_in_the_doors_shape(client: tuple[TestClient, FakeNow]) -> None:
    http, _ = client
    table_id, headers, _ = _made(http)
    url = f"/api/tables/{table_id}/clock"
    wrong = http.post(url, json={"page": "tab"}, headers={"X-Table-Token": "x" * 32})
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "not_your_table"
    missing = http.post("/api/tables/AAAAAAAAAAAA/clock", json={"page": "tab"}, headers=headers)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    for body in (
        {"page": "p" * 65},
        {"page": "a page"},
        {"page": "tab/1"},
        {"page": 7},
        {"page": "tab", "leave": "yes"},
        {"page": "tab", "leave": 1},
        {"page": "tab", "shown": 3},
        ["tab"],
    ):
        refused = http.post(url, json=body, headers=headers)
        assert refused.status_code == 422, (body, refused.text)
        error = refused.json()["error"]
        assert error["code"] == "invalid_request" and error["message"], body
    unreadable = http.post(
        url, content=b"{not json", headers={**headers, "Content-Type": "application/json"}
    )
    assert unreadable.status_code == 422
    assert unreadable.json()["error"]["code"] == "invalid_request"
    no_token = http.post(url, json={"page": "tab"})
    assert no_token.status_code == 422 and no_token.json()["error"]["code"] == "invalid_request"
    # nothing refused touched the table
    view = http.get(f"/api/tables/{table_id}", headers=headers).json()["view"]
    assert view["actions"] == 0
