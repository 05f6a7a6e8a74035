"""Timed games in the game service on a fake ``now()``: what each turn is charged, increments, a
forced pass, timeouts (exactly at zero, acting late, the score they give), the computer's time,
presence (no page, no clock), and the clock surviving a reload and a server restart.

Dice are fixed; an opening roll reads as (White's die, Black's die). Places are the page's: points
in White's numbering.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backgammon.core.dice import FixedDice
from backgammon.core.game import Game
from backgammon.core.match import Match
from backgammon.core.moves import Play
from backgammon.services.clock import TIME_CONTROLS, TimeControl
from backgammon.services.computer import RandomPlayer
from backgammon.services.session import GameOptions, GameService
from fake_clock import FakeNow
from gametable.clock import TEST_CONTROLS_ENV, controls_from_env
from gametable.errors import ActionRefused
from gametable.errors import ClockError as TableClockError
from gametable.game_store import GameStore, StoredGameError
from gametable.presence import HEARTBEAT_SECONDS, PRESENCE_SECONDS

BULLET = TimeControl("bullet", 60.0, 2.0)


class Table:
    """A service on a fake clock and fixed dice, with the steps of a test."""

    def __init__(self, db: Path, rolls: list[tuple[int, int]], now: FakeNow | None = None,
                 players: Any = None) -> None:
        self.db = db
        self.now = now or FakeNow(5000.0)
        self.store = GameStore(db)
        self.service = GameService(
            self.store, rng=random.Random(1), dice=FixedDice(rolls), now=self.now,
            players=players or (lambda level, rng: RandomPlayer(rng)),
        )
        self.id = ""

    def new(self, **options: Any) -> dict[str, Any]:
        settings = {"mode": "pass_and_play", "time_control": "bullet", "cube": False, **options}
        state = dict(self.service.create(GameOptions(**settings)))
        self.id = state["id"]
        return state

    def state(self) -> dict[str, Any]:
        return dict(self.service.state(self.id))

    def remaining(self) -> dict[str, float]:
        clock = self.state()["clock"]
        assert clock is not None
        return dict(clock["remaining"])

    def beat(self, page: str = "p1", shown: int | None = None,
             leave: bool = False) -> dict[str, Any]:
        return dict(self.service.clock_check(self.id, page, shown, leave))

    def move(self, *pairs: tuple[int, int]) -> dict[str, Any]:
        state: dict[str, Any] = {}
        for src, dst in pairs:
            state = dict(self.service.move(self.id, src, dst))
        return state

    def events(self, game: int = 0) -> list[dict[str, Any]]:
        record = json.loads(self.store.read_raw(self.id))
        events: list[dict[str, Any]] = record["log"]["games"][game]["events"]
        return events

    def record(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.store.read_raw(self.id))
        return data

    def watch(self, seconds: float) -> dict[str, Any]:
        """An open page: ``seconds`` pass with a heartbeat every 5 s; the last answer."""
        check = self.beat()
        while seconds > 0:
            step = min(HEARTBEAT_SECONDS, seconds)
            self.now.advance(step)
            seconds -= step
            check = self.beat()
        return check


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def table(db: Path) -> Iterator[Table]:
    # Opening 3-1 for White; Black 2-1; White 6-5; Black 4-3; ...
    opened = Table(db, [(3, 1), (2, 1), (6, 5), (4, 3), (5, 2), (6, 3), (4, 1), (2, 2)])
    yield opened
    opened.store.close()


# --------------------------------------------------------------------------------------------
# Charging and increments


def test_nothing_runs_before_the_opening_roll_then_each_turn_is_charged(table: Table) -> None:
    state = table.new()
    assert state["settings"]["time_control"] == "bullet"
    assert state["clock"] == {
        "control": "bullet", "reserve": 60.0, "increment": 2.0,
        "remaining": {"white": 60.0, "black": 60.0}, "running": None, "paused": None,
        "heartbeat": 5.0, "warning": 10.0,
    }
    table.now.advance(300)  # a board nobody has touched costs nothing
    assert table.remaining() == {"white": 60.0, "black": 60.0}

    state = dict(table.service.roll(table.id))  # the opening roll: White 3-1
    assert state["clock"]["running"] == "white"
    table.now.advance(7.5)
    assert table.remaining() == {"white": 52.5, "black": 60.0}
    table.move((8, 5), (6, 5))
    table.now.advance(0.5)
    state = dict(table.service.end_turn(table.id))
    assert state["clock"]["remaining"] == {"white": 54.0, "black": 60.0}  # 60 - 8 + 2
    assert state["clock"]["running"] == "black"

    table.now.advance(3)  # Black thinks about the cube, then rolls 2-1
    table.service.roll(table.id)
    table.now.advance(4)
    table.move((1, 2), (12, 14))
    state = dict(table.service.end_turn(table.id))
    assert state["clock"]["remaining"] == {"white": 54.0, "black": 55.0}  # 60 - 7 + 2
    events = table.events()
    assert events[0] == {"type": "opening_roll", "white": 3, "black": 1}  # no time: nobody's
    # the table's log keeps no seconds: each turn's time is in the clock, charged above
    assert events[1]["type"] == "play" and "seconds" not in events[1]
    assert events[2] == {"type": "roll", "color": "black", "dice": [2, 1]}
    assert events[3]["type"] == "play"


def test_bullet_blitz_and_rapid_are_the_published_values() -> None:
    assert TIME_CONTROLS["bullet"] == TimeControl("bullet", 60.0, 2.0)
    assert TIME_CONTROLS["blitz"] == TimeControl("blitz", 180.0, 4.0)
    assert TIME_CONTROLS["rapid"] == TimeControl("rapid", 600.0, 8.0)
    assert controls_from_env({}) == TIME_CONTROLS


def test_tests_may_shorten_the_controls_through_the_environment() -> None:
    controls = controls_from_env({TEST_CONTROLS_ENV: "bullet=3+1, blitz = 20.5+0"})
    assert controls["bullet"] == TimeControl("bullet", 3.0, 1.0)
    assert controls["blitz"] == TimeControl("blitz", 20.5, 0.0)
    assert controls["rapid"] == TIME_CONTROLS["rapid"]
    with pytest.raises(TableClockError, match="'bullet=fast' is not NAME=RESERVE"):
        controls_from_env({TEST_CONTROLS_ENV: "bullet=fast"})
    with pytest.raises(TableClockError, match="unknown time control 'none'"):
        controls_from_env({TEST_CONTROLS_ENV: "none=3+1"})


def test_the_time_before_a_forced_pass_is_charged(db: Path) -> None:
    # White 2-1: 24/23 24/22; Black 1-1 hits on White's 22 from its 6-point; White dances
    # with 6-6 against Black's 6-point.
    table = Table(db, [(2, 1), (1, 1), (6, 6), (3, 1)])
    table.new()
    table.service.roll(table.id)
    table.now.advance(5)
    table.move((24, 23), (24, 22))
    table.service.end_turn(table.id)
    table.now.advance(2)
    table.service.roll(table.id)
    table.now.advance(3)
    table.move((1, 2), (19, 22))
    state = dict(table.service.end_turn(table.id))
    assert state["board"]["points"][25] == 1  # White is on the bar
    assert state["clock"]["remaining"] == {"white": 57.0, "black": 57.0}

    table.now.advance(4)  # White thinks, rolls 6-6 and cannot enter
    state = dict(table.service.roll(table.id))
    assert state["turn"] == "black"
    assert state["history"][-1]["text"] == "White 6-6: cannot move"
    # Charged, not given back (as online): 57 - 4, plus the increment of a completed turn.
    assert state["clock"]["remaining"] == {"white": 55.0, "black": 57.0}
    assert state["clock"]["running"] == "black"
    assert table.events()[-2:] == [
        {"type": "roll", "color": "white", "dice": [6, 6]},
        {"type": "pass", "color": "white"},
    ]


# --------------------------------------------------------------------------------------------
# Running out of time


def test_timeout_exactly_at_zero_is_seen_by_a_read(table: Table) -> None:
    table.new()
    table.service.roll(table.id)
    assert table.watch(55)["clock"]["running"] == "white"  # the page is open
    table.now.advance(4.999)
    state = table.state()
    assert state["result"] is None
    assert state["clock"]["remaining"]["white"] == pytest.approx(0.001)
    table.now.advance(0.001)
    state = table.state()
    assert state["phase"] == "match_over"  # a single game: over
    result = state["result"]
    assert result["reason"] == "timeout"
    assert result["winner"] == "black"
    # At the start both back checkers still sit in Black's home board, but a timeout loses
    # a single game at the cube's value, never a backgammon.
    assert (result["kind"], result["points"]) == ("single", 1)
    assert result["text"] == ("Black wins a single game on time (1 point): "
                              "White ran out of time.")
    assert state["message"] == result["text"]
    assert state["clock"]["remaining"] == {"white": 0.0, "black": 60.0}
    assert state["clock"]["running"] is None
    assert state["history"][-2:] == [
        {"game": 1, "kind": "timeout", "color": "white", "text": "White 3-1: times out"},
        {"game": 1, "kind": "result", "color": "black", "text": "Black wins 1 point"},
    ]
    assert table.events()[-1] == {"type": "timeout", "color": "white"}
    assert table.record()["version"] == state["version"]


def test_acting_late_loses_and_is_charged_only_to_zero(table: Table) -> None:
    table.new()
    table.service.roll(table.id)
    table.move((8, 5))
    for _ in range(6):  # heartbeats, slow but within the presence limit
        table.now.advance(9)
        table.beat()
    table.now.advance(9)  # 63 s in: the time ran out at 60
    with pytest.raises(ActionRefused, match=r"^White ran out of time: the game is over$"):
        table.move((6, 5))
    state = table.state()
    assert state["result"]["reason"] == "timeout"
    assert state["board"]["points"][8] == 3  # the half-made play is not kept
    assert table.events()[-1] == {"type": "timeout", "color": "white"}
    assert state["clock"]["remaining"]["white"] == 0.0  # charged up to zero, not to 63 s
    with pytest.raises(ActionRefused, match="game is over"):
        table.service.end_turn(table.id)


def test_timeout_scoring_with_the_cube_at_2_is_a_single_game(db: Path) -> None:
    # White escapes both back checkers (6-5: 24/13 twice) after doubling to 2; Black takes.
    # Then White runs out of time: with none borne off it would lose a gammon played out,
    # but a timeout loses the game at the cube's value: 2 points.
    table = Table(db, [(6, 5), (2, 1), (6, 5), (2, 1)])
    table.new(cube=True)
    table.service.roll(table.id)
    table.move((24, 13))
    table.service.end_turn(table.id)
    table.service.roll(table.id)
    table.move((12, 14), (19, 20))
    table.service.end_turn(table.id)
    table.now.advance(2)
    state = dict(table.service.double(table.id))
    assert state["clock"]["running"] == "black"  # Black decides on White's double
    table.now.advance(3)
    state = dict(table.service.take(table.id))
    assert state["cube"] == {"enabled": True, "value": 2, "owner": "black", "offered_by": None}
    assert state["clock"]["running"] == "white"
    # Each side had 62 after its first (instant) turn; the cube actions earn nothing.
    assert state["clock"]["remaining"] == {"white": 60.0, "black": 59.0}
    table.service.roll(table.id)
    table.move((24, 13))
    table.now.advance(1)
    state = dict(table.service.end_turn(table.id))
    assert state["clock"]["remaining"] == {"white": 61.0, "black": 59.0}  # 60 - 1 + 2
    table.service.roll(table.id)
    table.move((14, 16), (20, 21))
    table.service.end_turn(table.id)
    assert all(n <= 0 for n in table.state()["board"]["points"][19:26])
    assert table.watch(60.999)["phase"] == "roll"
    table.now.advance(0.001)  # 61 s: White's flag falls
    check = table.beat()
    assert check["phase"] == "match_over"
    result = table.state()["result"]
    assert (result["reason"], result["winner"], result["kind"], result["points"]) == (
        "timeout", "black", "single", 2)
    assert result["text"] == "Black wins a single game on time (2 points): White ran out of time."
    events = table.events()
    assert [e["type"] for e in events[4:7]] == ["double", "take", "roll"]
    assert events[-1] == {"type": "timeout", "color": "white"}


# --------------------------------------------------------------------------------------------
# Presence: the clock runs only while a page has the game open


def test_a_long_sleep_is_charged_once_and_no_page_no_clock(table: Table) -> None:
    table.new()
    table.service.roll(table.id)
    table.now.advance(9)  # a slow heartbeat, within the presence limit: all of it counts
    assert table.remaining()["white"] == 51.0
    assert table.remaining()["white"] == 51.0  # reading again charges nothing more
    table.now.advance(3600)  # the laptop slept: no page was heard from for an hour
    state = table.state()
    # Charged up to PRESENCE_SECONDS after the last read, once; then the read resumes it.
    assert state["clock"]["remaining"]["white"] == 51.0 - PRESENCE_SECONDS
    assert state["clock"]["running"] == "white"
    assert table.remaining()["white"] == 41.0
    table.move((8, 5), (6, 5))
    state = dict(table.service.end_turn(table.id))
    assert state["clock"]["remaining"]["white"] == 43.0


def test_time_does_not_run_while_the_page_is_closed(table: Table) -> None:
    table.new()
    table.service.roll(table.id)
    table.beat("page-a")
    table.now.advance(4)
    check = table.beat("page-a", leave=True)  # pagehide: the page is gone
    assert check["clock"]["running"] is None
    assert check["clock"]["paused"] == "white"
    assert check["clock"]["remaining"]["white"] == 56.0
    table.now.advance(1000)
    assert table.record()["clock"]["clock"]["remaining"]["white"] == 56.0
    state = table.state()  # a page is back
    assert state["clock"]["remaining"]["white"] == 56.0
    assert state["clock"]["running"] == "white"


def test_the_clock_keeps_running_while_another_page_is_open(table: Table) -> None:
    table.new()
    table.service.roll(table.id)
    table.beat("page-a")
    table.beat("page-b")
    table.now.advance(2)
    table.beat("page-a", leave=True)
    table.now.advance(3)
    check = table.beat("page-b")
    assert check["clock"]["running"] == "white"
    assert check["clock"]["remaining"]["white"] == 55.0


# --------------------------------------------------------------------------------------------
# Against the computer


class SlowPlayer(RandomPlayer):
    """A computer that takes 1.5 s of (fake) time for each play."""

    def __init__(self, rng: random.Random, now: FakeNow) -> None:
        super().__init__(rng)
        self.now = now

    def choose_play(self, game: Game) -> Play:
        self.now.advance(1.5)
        return super().choose_play(game)


def test_the_computers_thinking_is_its_own_and_the_playback_nobodys(db: Path) -> None:
    now = FakeNow(5000.0)
    table = Table(db, [(1, 3), (2, 1), (6, 5)], now=now,
                  players=lambda level, rng: SlowPlayer(rng, now))
    table.new(mode="computer", side="white")
    state = dict(table.service.roll(table.id))  # Black wins the opening: the computer's turn
    assert state["computer_to_act"] is True
    assert state["clock"]["running"] is None and state["clock"]["paused"] == "black"
    now.advance(20)  # the page takes its time to ask: nobody's clock runs
    answer = table.service.computer_turn(table.id)
    clock = answer["state"]["clock"]
    assert clock is not None
    assert clock["remaining"] == {"white": 60.0, "black": 60.5}  # 60 - 1.5 + 2
    assert clock["paused"] == "white"  # waiting for the page to show the computer's play

    now.advance(4)  # the page plays the computer's turn back
    version = answer["state"]["version"]
    assert table.beat(shown=version - 1)["clock"]["running"] is None  # not shown yet
    check = table.beat(shown=version)
    assert check["clock"]["running"] == "white"
    assert check["clock"]["remaining"]["white"] == 60.0
    now.advance(3)
    table.service.roll(table.id)
    now.advance(2)
    state = table.state()
    assert state["clock"]["remaining"]["white"] == 55.0
    assert table.events()[-1] == {"type": "roll", "color": "white", "dice": [2, 1]}


# --------------------------------------------------------------------------------------------
# Reload and restart


def test_a_server_restart_keeps_the_remaining_times(table: Table, db: Path) -> None:
    table.new()
    table.service.roll(table.id)
    table.now.advance(6)
    table.move((8, 5), (6, 5))
    table.service.end_turn(table.id)  # White 56
    table.now.advance(2)
    table.service.roll(table.id)
    table.now.advance(3)
    table.move((1, 2))
    before = table.beat()["clock"]
    assert before["remaining"] == {"white": 56.0, "black": 55.0}
    table.store.close()

    table.now.advance(500)  # the server is down
    again = Table(db, [(4, 3)], now=table.now)
    again.id = table.id
    state = again.state()  # the page reloads on the new server
    assert state["clock"]["remaining"] == {"white": 56.0, "black": 55.0}
    assert state["clock"]["running"] == "black"
    assert [m["text"] for m in state["played"]] == ["24/23"]
    again.now.advance(2)
    again.move((12, 14))
    state = dict(again.service.end_turn(again.id))
    assert state["clock"]["remaining"] == {"white": 56.0, "black": 55.0}  # 55 - 2 + 2
    again.store.close()


def test_a_reload_reads_the_same_clock(table: Table) -> None:
    table.new()
    table.service.roll(table.id)
    table.now.advance(8.25)
    first = table.state()
    second = table.state()
    assert first == second
    assert first["clock"]["remaining"]["white"] == 51.75


def test_a_saved_clock_that_does_not_fit_the_game_is_refused(table: Table, db: Path) -> None:
    table.new()
    table.service.roll(table.id)
    record = table.record()
    broken = dict(record, clock={**record["clock"], "clock": {
        **record["clock"]["clock"], "turn": "black"}})
    table.store.write_raw(table.id, json.dumps(broken))
    expected = r"its clock: the saved clock runs for black, but white is to act"
    with GameStore(db) as store, pytest.raises(StoredGameError, match=expected):
        GameService(store, now=table.now).state(table.id)
    missing = {k: v for k, v in record.items() if k != "clock"}
    table.store.write_raw(table.id, json.dumps(missing))
    expected = "a bullet game saved without its clock"
    with GameStore(db) as store, pytest.raises(StoredGameError, match=expected):
        GameService(store, now=table.now).state(table.id)


def test_each_game_of_a_match_gets_a_fresh_clock(db: Path) -> None:
    table = Table(db, [(3, 1), (5, 2)])
    table.new(kind="match", length=5)
    table.service.roll(table.id)
    table.now.advance(9)
    table.state()
    table.now.advance(25)  # the page went quiet: charged up to 10 s after the last read
    state = table.state()
    assert state["clock"]["remaining"]["white"] == 41.0
    table.watch(41)
    state = table.state()
    assert state["result"]["reason"] == "timeout"
    assert state["score"]["black"] == 1
    state = dict(table.service.next_game(table.id))
    assert state["phase"] == "opening"
    assert state["clock"]["remaining"] == {"white": 60.0, "black": 60.0}
    assert state["clock"]["running"] is None
    assert table.record()["clock"]["game"] == 2
    state = dict(table.service.roll(table.id))
    assert state["clock"]["running"] == "white"
    table.store.close()


def test_a_game_saved_before_the_table_still_loads_and_plays_on(db: Path) -> None:
    """A record the local door wrote before it ran on a Table: each event with its
    ``seconds`` and the clock with its ``lap_start`` (the turn's seconds already given to
    events). It loads with the remaining times as saved, paused, and plays on."""
    now = FakeNow(100.0)
    match = Match(0, cube=True, dice=FixedDice([(3, 1), (2, 1)]))
    match.current.roll()  # the opening roll: White 3-1
    match.current.play("8/5 6/5", seconds=8.0)
    match.current.roll(seconds=3.0)  # Black 2-1, 3 s into its turn
    log = match.to_log()
    old = {
        "settings": {"mode": "pass_and_play", "level": "easy", "human": None, "cube": True,
                     "gammons": True, "kind": "single", "length": 0,
                     "time_control": "bullet", "jacoby": False, "beavers": False},
        "log": log,
        "version": 4,
        "clock": {"game": 1, "lap_start": 3.0, "clock": {
            "control": {"name": "bullet", "reserve": 60.0, "increment": 2.0},
            "remaining": {"white": 54.0, "black": 57.0}, "turn": "black",
            "turn_used": 3.0}},
    }
    with GameStore(db) as store:
        store.save("oldgame1", old)
    table = Table(db, [(6, 5)], now=now)
    table.id = "oldgame1"
    state = table.state()
    assert state["version"] == 4 and state["phase"] == "move"
    assert state["clock"]["remaining"] == {"white": 54.0, "black": 57.0}  # as saved
    assert state["clock"]["running"] == "black"
    now.advance(1)
    table.move((1, 2), (1, 3))
    state = dict(table.service.end_turn(table.id))
    assert state["clock"]["remaining"] == {"white": 54.0, "black": 58.0}  # 60 - 4 + 2
    events = table.events()
    assert events[1]["seconds"] == 8.0  # the old seconds are kept; new events have none
    assert events[-1]["type"] == "play" and "seconds" not in events[-1]
    assert table.record()["game"] == "backgammon"  # saved again in the table's words
    assert table.record()["clock"] == {"game": 1, "clock": {
        "control": {"name": "bullet", "reserve": 60.0, "increment": 2.0},
        "remaining": {"white": 54.0, "black": 58.0}, "turn": "white", "turn_used": 0.0}}
    table.store.close()
    other = dict(old, game="checkers")
    with GameStore(db) as store:
        store.save("oldgame2", other)
        with pytest.raises(StoredGameError, match="is not a backgammon game: 'checkers'"):
            GameService(store, now=now).state("oldgame2")
