"""Rollouts over HTTP (:mod:`backgammon.server.rollouts_api`) and their jobs
(:mod:`backgammon.services.rollout_jobs`): the figures (those of the library, live while the
rollout runs), stopping, the bounds and every kind of refusal."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import Clients, app_of
from fastapi.testclient import TestClient

import backgammon.services.rollout_jobs as rollout_jobs
from backgammon.ai.rollout import RolloutSettings, rollout
from backgammon.core.xgid import Xgid
from backgammon.services.rollout_jobs import (
    RolloutJobs,
    RolloutLimits,
    rollout_request,
)

#: A contact position from GNU Backgammon's self-play, White on roll (tests/ai/test_rollout).
AHEAD = "XGID=-B-bBBBAB---cC---b-ea--bA-:0:0:1:00:0:0:0:0:10"
#: The same with 3-1 to play.
WITH_31 = AHEAD.replace(":1:00:", ":1:31:")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with Clients(tmp_path / "games.sqlite3") as clients:
        yield clients.new()


def jobs_of(client: TestClient) -> RolloutJobs:
    jobs: RolloutJobs = app_of(client).state.rollouts
    return jobs


def wait(client: TestClient, job_id: str, seen: list[dict[str, Any]] | None = None,
         limit: float = 300.0) -> dict[str, Any]:
    start = time.monotonic()
    while True:
        job: dict[str, Any] = client.get(f"/api/rollouts/{job_id}").json()
        if seen is not None:
            seen.append(job)
        if job["status"] in rollout_jobs.FINISHED or time.monotonic() - start > limit:
            return job
        time.sleep(0.02)


class Gate:
    """The jobs' rollouts hold after their first block of trials until :meth:`open`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.first = threading.Event()
        self.go = threading.Event()

        def held(*args: Any, partial: Any, **kw: Any) -> Any:
            def hold(figures: Any) -> None:
                partial(figures)
                self.first.set()
                assert self.go.wait(60)

            return rollout(*args, partial=hold, **kw)

        monkeypatch.setattr(rollout_jobs, "rollout", held)

    def open(self) -> None:
        self.go.set()


def test_a_checker_play_rollout_has_the_librarys_figures(client: TestClient) -> None:
    answer = client.post("/api/rollouts", json={"position": WITH_31, "trials": 36,
                                                "truncate": 2, "plays": 3, "seed": 5})
    assert answer.status_code == 202, answer.text
    job = answer.json()
    assert job["status"] in ("queued", "running") and job["total"] == 36
    assert job["request"] == {"position": WITH_31, "kind": "plays", "dice": [3, 1],
                              "trials": 36, "truncate": 2, "level": 0, "cubeful": False,
                              "seed": 5, "plays": 3, "candidates": None, "gammons": True}
    done = wait(client, job["id"])
    assert (done["status"], done["done"], done["progress"]) == ("done", 36, 1.0)
    result = done["result"]
    expected = rollout(Xgid.parse(WITH_31).position, (3, 1), settings=RolloutSettings(
        trials=36, truncate=2, seed=5, top=3)).to_dict()
    assert result["candidates"] == expected["candidates"]
    assert (result["separated"], result["lead"]) == (expected["separated"], expected["lead"])
    assert len(result["candidates"]) == 3 and result["trials"] == 36
    for row in result["candidates"]:
        assert row["trials"] == 36 and row["se"] > 0 and 0 < row["win"] < 1
        assert set(row) >= {"name", "equity", "se", "win", "win_gammon", "win_backgammon",
                            "lose_gammon", "lose_backgammon"}
    equities = [row["equity"] for row in result["candidates"]]
    assert equities == sorted(equities, reverse=True)


def test_the_candidates_named_are_rolled_out_first(client: TestClient) -> None:
    """A hint's plays, named, are rolled out whatever the players' own ranking says; the
    players' ranking adds the next best of the others up to ``plays``."""
    body = {"position": WITH_31, "trials": 12, "truncate": 1, "seed": 2, "plays": 3,
            "candidates": ["13/9", "5/4 13/10"]}
    answer = client.post("/api/rollouts", json=body)
    assert answer.status_code == 202, answer.text
    assert answer.json()["request"]["candidates"] == ["13/9", "13/10 5/4"]
    done = wait(client, answer.json()["id"])
    expected = rollout(Xgid.parse(WITH_31).position, (3, 1), settings=RolloutSettings(
        trials=12, truncate=1, seed=2, top=3), plays=["13/9", "13/10 5/4"]).to_dict()
    assert done["result"]["candidates"] == expected["candidates"]
    names = {row["name"] for row in done["result"]["candidates"]}
    assert len(names) == 3 and {"13/9", "13/10 5/4"} <= names


def test_the_figures_come_in_while_it_runs(client: TestClient,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """After its first block of trials (8 plays: blocks of 16 trials) a running job shows
    the figures of those trials; then it goes on to the end."""
    gate = Gate(monkeypatch)
    job = client.post("/api/rollouts", json={"position": WITH_31, "trials": 48,
                                             "truncate": 1}).json()
    assert gate.first.wait(120)
    running = client.get(f"/api/rollouts/{job['id']}").json()
    assert running["status"] == "running"
    assert 0 < running["done"] < 48 and running["progress"] == round(running["done"] / 48, 4)
    partial = running["result"]
    assert partial["trials"] == running["done"] and len(partial["candidates"]) == 8
    assert all(row["trials"] == running["done"] for row in partial["candidates"])
    assert isinstance(partial["separated"], bool)
    gate.open()
    done = wait(client, job["id"])
    assert done["status"] == "done" and done["result"]["trials"] == 48


def test_a_cube_decision_and_a_pending_double(client: TestClient) -> None:
    body = {"position": AHEAD, "trials": 36, "truncate": 1, "cubeful": True}
    job = wait(client, client.post("/api/rollouts", json=body).json()["id"])
    assert job["request"]["kind"] == "cube" and job["request"]["plays"] is None
    names = [row["name"] for row in job["result"]["candidates"]]
    assert names == ["no double", "double, take", "double, pass"]
    assert job["result"]["decision"] in ("no double, take", "double, take", "double, pass",
                                         "no double, pass", "too good to double, pass")
    pass_row = job["result"]["candidates"][2]
    assert (pass_row["equity"], pass_row["trials"]) == (1.0, 0)  # the doubler cashes 1 point
    # a double pending: the double's decision is rolled out, cubeful
    pending = AHEAD.replace(":1:00:", ":1:D:")
    again = wait(client, client.post("/api/rollouts", json={
        "position": pending, "trials": 36, "truncate": 1}).json()["id"])
    assert again["request"]["kind"] == "cube" and again["request"]["cubeful"] is True
    assert again["result"]["candidates"] == job["result"]["candidates"]


@pytest.mark.parametrize(("body", "code", "message"), [
    ({"position": "junk"}, "invalid_id",
     "invalid Position ID 'junk': 4 characters, expected 14"),
    ({"position": WITH_31, "trials": 0}, "invalid_rollout",
     "trials must be a whole number from 1 to 1296, got 0"),
    ({"position": WITH_31, "trials": 1297}, "invalid_rollout",
     "trials must be a whole number from 1 to 1296, got 1297"),
    ({"position": WITH_31, "truncate": -1}, "invalid_rollout",
     "truncate must be a whole number from 0 to 500 plies (0: play to the end), got -1"),
    ({"position": WITH_31, "level": 2}, "invalid_rollout",
     "level must be a whole number from 0 to 1 ply, got 2"),
    ({"position": WITH_31, "seed": -1}, "invalid_rollout",
     "seed must be a whole number from 0 to 4294967295, got -1"),
    ({"position": WITH_31, "plays": 17}, "invalid_rollout",
     "plays must be a whole number from 1 to 16, got 17"),
    ({"position": AHEAD, "dice": [7, 1]}, "invalid_rollout",
     "dice must be two whole numbers from 1 to 6, got [7, 1]"),
    ({"position": AHEAD, "dice": [3]}, "invalid_rollout",
     "dice must be two whole numbers from 1 to 6, got [3]"),
    ({"position": "XGID=------------------bbbbbb-O:0:0:1:66:0:0:0:0:10"}, "invalid_rollout",
     "White cannot play 6-6: there is nothing to roll out"),
    ({"position": "XGID=-------------------o------:0:0:1:00:0:0:0:0:10"}, "invalid_rollout",
     "the game in that position is over: a side has borne off all its checkers"),
    ({"position": AHEAD.replace(":0:0:1:00:", ":1:-1:1:00:"), "cubeful": True},
     "invalid_rollout", "White may not double (opponent owns the cube): no cube decision to "
     "roll out"),
    ({"position": AHEAD.replace(":1:00:0:0:0:", ":1:B:0:0:2:")}, "invalid_rollout",
     "a beaver is pending: roll out the double before it"),
    ({"position": AHEAD.replace(":1:00:", ":1:D:"), "dice": [3, 1]}, "invalid_rollout",
     "a double is pending: there are no dice to play"),
    ({"position": WITH_31, "trials": "36"}, "invalid_request",
     "invalid request: trials: Input should be a valid integer"),
    ({"position": WITH_31, "jobs": 8}, "invalid_request",
     "invalid request: jobs: Extra inputs are not permitted"),
    ({"position": "x" * 201}, "invalid_request",
     "invalid request: position: String should have at most 200 characters"),
    ({"position": WITH_31, "candidates": ["13/8"]}, "invalid_rollout",
     "candidates[0]: '13/8' is not a legal play with 31 in this position"),
    ({"position": WITH_31, "candidates": ["13/9", "13/10/9"]}, "invalid_rollout",
     "candidates[1]: 13/9 comes twice"),
    ({"position": WITH_31, "candidates": []}, "invalid_rollout",
     "candidates must be a list of 1 to 16 plays"),
    ({"position": WITH_31, "candidates": ["x" * 41]}, "invalid_rollout",
     "candidates[0] must be a play in notation (at most 40 characters)"),
    ({"position": AHEAD, "candidates": ["13/9"]}, "invalid_rollout",
     "candidates are plays of a roll: this rollout has no dice"),
    ({"position": WITH_31, "candidates": "8/5 6/5"}, "invalid_request",
     "invalid request: candidates: Input should be a valid list"),
    ({"position": WITH_31, "candidates": [31]}, "invalid_request",
     "invalid request: candidates.0: Input should be a valid string"),
])
def test_bad_input_is_refused_with_its_code_and_reason(
        client: TestClient, body: dict[str, Any], code: str, message: str) -> None:
    answer = client.post("/api/rollouts", json=body)
    assert answer.status_code == 422
    assert answer.json()["error"] == {"code": code, "message": message}
    assert not jobs_of(client)._jobs  # nothing queued


def test_one_rollout_per_client_and_stopping(client: TestClient,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A client's second rollout is refused (503 busy) while its first runs; another address
    still gets one (queued behind: one worker); DELETE by another client is refused (403), by
    its own stops it with the trials done, and the queued one then runs."""
    gate = Gate(monkeypatch)
    jobs = jobs_of(client)
    body = {"position": WITH_31, "trials": 48, "truncate": 1}
    first = client.post("/api/rollouts", json=body).json()
    second = client.post("/api/rollouts", json=body)
    assert second.status_code == 503
    assert second.json()["error"] == {
        "code": "busy",
        "message": "you have 1 rollout waiting or running: stop it or wait until it is done"}
    other = jobs.submit(rollout_request(WITH_31, trials=16, truncate=1, plays=2),
                        client="10.0.0.9")
    assert gate.first.wait(120)
    refused = client.delete(f"/api/rollouts/{other.id}")
    assert refused.status_code == 403
    assert refused.json()["error"] == {"code": "forbidden",
                                       "message": "this rollout was started by another client"}
    assert client.delete("/api/rollouts/nope").status_code == 404
    assert client.get("/api/rollouts/nope").json()["error"]["code"] == "not_found"
    assert client.get(f"/api/rollouts/{other.id}").json()["status"] == "queued"
    stopping = client.delete(f"/api/rollouts/{first['id']}").json()
    assert stopping["stopped_by"] == "client"
    gate.open()
    stopped = wait(client, first["id"])
    assert stopped["status"] == "stopped" and stopped["stopped_by"] == "client"
    assert 0 < stopped["done"] < 48 and stopped["result"]["trials"] == stopped["done"]
    assert stopped["result"]["stopped"] is True
    assert wait(client, other.id)["status"] == "done"
    # over: the client may start another
    assert client.post("/api/rollouts", json={**body, "trials": 1}).status_code == 202


def test_a_queued_rollout_stopped_never_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(monkeypatch)
    jobs = RolloutJobs(workers=1)
    first = jobs.submit(rollout_request(WITH_31, trials=32, truncate=1), client="a")
    queued = jobs.submit(rollout_request(WITH_31, trials=32, truncate=1), client="b")
    jobs.stop(queued.id, "b")
    data = queued.to_json()
    assert (data["status"], data["done"], data["result"], data["stopped_by"]) == (
        "stopped", 0, None, "client")
    gate.open()
    while first.status not in rollout_jobs.FINISHED:
        time.sleep(0.02)
    assert first.status == "done" and queued.to_json()["result"] is None
    jobs.close()


def test_a_rollout_stops_at_its_time_limit_keeping_its_trials(
        monkeypatch: pytest.MonkeyPatch) -> None:
    now = [0.0]
    jobs = RolloutJobs(limits=RolloutLimits(max_seconds=10.0), clock=lambda: now[0])
    gate = Gate(monkeypatch)
    job = jobs.submit(rollout_request(WITH_31, trials=48, truncate=1))
    assert gate.first.wait(120)
    now[0] = 11.0  # past the limit: the rollout stops at its next ply
    gate.open()
    while job.status not in rollout_jobs.FINISHED:
        time.sleep(0.02)
    data = job.to_json()
    assert (data["status"], data["stopped_by"]) == ("stopped", "time limit")
    assert 0 < data["done"] < 48 and data["result"]["trials"] == data["done"]
    jobs.close()


def test_the_pool_is_bounded_and_closing_stops_everything() -> None:
    jobs = RolloutJobs(workers=1, max_jobs=2, per_client=2)
    request = rollout_request(WITH_31, trials=1296)
    one = jobs.submit(request, client="a")
    two = jobs.submit(request, client="b")
    with pytest.raises(rollout_jobs.RolloutBusyError, match="2 rollouts are waiting or running"):
        jobs.submit(request, client="c")
    jobs.close()
    while one.status not in rollout_jobs.FINISHED or two.status not in rollout_jobs.FINISHED:
        time.sleep(0.02)
    assert {one.stopped_by, two.stopped_by} == {"server"} and two.to_json()["done"] == 0
    with pytest.raises(rollout_jobs.RolloutBusyError, match="the server is stopping"):
        jobs.submit(request, client="a")


def test_a_game_without_gammons_and_a_position_id(client: TestClient) -> None:
    """The XGID cannot say whether gammons count: ``gammons`` does; a gnubg Position ID with
    its Match ID is read as the position editor reads it."""
    xgid = Xgid.parse(WITH_31)
    ids = f"{xgid.position_id()}:{xgid.match_id()}"
    job = wait(client, client.post("/api/rollouts", json={
        "position": ids, "trials": 36, "truncate": 1, "plays": 2, "gammons": False}).json()["id"])
    assert job["request"]["gammons"] is False and job["request"]["dice"] == [3, 1]
    for row in job["result"]["candidates"]:  # every win a single game: equity = 2 win - 1
        assert row["equity"] == pytest.approx(2 * row["win"] - 1, abs=2e-6)
