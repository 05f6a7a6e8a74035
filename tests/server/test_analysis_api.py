"""Analysis jobs and hints over HTTP (:mod:`backgammon.server.analysis_api`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import Clients, act, app_of, new_game
from fastapi.testclient import TestClient

from backgammon.services.analysis_jobs import AnalysisJobs, TooManyJobsError, read_record
from conftest import shared_path
from scenarios import BEAVER_SETUP, BEAVER_XGID, SMALL_MAT


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Clients]:
    with Clients(tmp_path / "games.sqlite3") as opened:
        yield opened


def fast(client: TestClient, workers: int = 2) -> None:
    """Analyses at 0-ply (the jobs' mechanics, not the search, are under test here)."""
    client.app.state.analysis_jobs = AnalysisJobs(workers=workers, level="medium")  # type: ignore[attr-defined]


def wait(client: TestClient, job_id: str, seen: list[dict[str, Any]] | None = None,
         limit: float = 300.0) -> dict[str, Any]:
    start = time.monotonic()
    while True:
        job = client.get(f"/api/analysis/{job_id}").json()
        if seen is not None:
            seen.append(job)
        if job["status"] in ("done", "failed", "cancelled") or \
                time.monotonic() - start > limit:
            return job
        time.sleep(0.02)


def test_a_bad_mat_is_refused_with_its_line(clients: Clients) -> None:
    client = clients.new()
    bad = SMALL_MAT.replace("64: 24/18 13/9", "64: 24/18 13/3")
    response = client.post("/api/analysis", json={"mat": bad, "name": "x.mat"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "mat_replay_error"
    assert error["line"] == 5
    assert error["message"].startswith("x.mat, line 5")
    garbage = client.post("/api/analysis", json={"mat": "hello\n 1) 99: x"})
    assert garbage.status_code == 400 and garbage.json()["error"]["line"] is not None
    neither = client.post("/api/analysis", json={})
    assert neither.status_code == 400
    huge = client.post("/api/analysis", json={"mat": "x" * 1_900_000})  # one line
    assert huge.status_code == 400 and len(huge.content) < 1000
    assert huge.json()["error"]["line"] == 1


def test_a_number_too_long_to_read_is_a_400_with_its_line_not_a_500(clients: Clients) -> None:
    client = clients.new()
    huge = SMALL_MAT.replace(" 3 point match", " " + "9" * 5000 + " point match")
    response = client.post("/api/analysis", json={"mat": huge})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["line"] == 1 and "has 5000 digits" in error["message"]
    response = client.post("/api/records/import", json={"text": huge})
    assert response.status_code == 422 and "has 5000 digits" in response.text


def test_a_files_first_problem_is_the_one_told_as_the_import_tells_it(
        clients: Clients) -> None:
    """An illegal play, then a line that cannot be read: both endpoints name the play's line
    (the file is read and replayed in one pass, as the CLI does)."""
    client = clients.new()
    bad = SMALL_MAT.replace("64: 24/18 13/9", "64: 24/18 13/3") + "  9) garbage here\n"
    analysis = client.post("/api/analysis", json={"mat": bad}).json()["error"]
    imported = client.post("/api/records/import", json={"text": bad}).json()["error"]
    assert analysis["line"] == imported["line"] == 5
    assert analysis["code"] == imported["code"] == "mat_replay_error"


def test_an_analysis_of_a_mat(clients: Clients) -> None:
    client = clients.new()
    response = client.post("/api/analysis", json={"mat": SMALL_MAT})
    assert response.status_code == 202
    job = response.json()
    assert job["status"] in ("queued", "running", "done") and len(job["id"]) == 32
    done = wait(client, job["id"])
    assert done["status"] == "done" and done["progress"] == 1.0
    result = done["result"]
    assert result["names"] == ["Ann", "Bob"] and result["match_length"] == 3
    kinds = [(d["player"], d["kind"], d["played"]) for d in result["games"][0]["decisions"]]
    assert kinds[-2:] == [(0, "double", "double"), (1, "take", "drop")]
    assert result["players"][1]["cube_decisions"] == 1
    assert result["warnings"] == []
    assert client.get("/api/analysis/nope").status_code == 404


def test_an_analysis_says_what_the_reader_made_of_the_file(clients: Clients) -> None:
    # one game of a 5-point match, written at 2-1: analysed at that score, and said so
    text = SMALL_MAT.replace(" 3 point match", " 5 point match").replace(
        "Game 1", "Game 4").replace("Ann : 0", "Ann : 2").replace("Bob : 0", "Bob : 1")
    client = clients.new()
    done = wait(client, client.post("/api/analysis", json={"mat": text}).json()["id"])
    result = done["result"]
    assert result["match_length"] == 5
    assert [w for w in result["warnings"] if "picked up" in w] == [
        "line 4: the file starts at game 4, at 2-1: the match is picked up at that score"]


def test_two_analyses_at_once_and_progress_only_rises(clients: Clients) -> None:
    client = clients.new()
    fast(client)
    text = shared_path("mat", "gnubg_selfplay_3p_s1003.mat").read_text(encoding="utf-8")
    first = client.post("/api/analysis", json={"mat": text}).json()
    second = client.post("/api/analysis", json={"mat": SMALL_MAT}).json()
    assert first["id"] != second["id"]
    seen: list[dict[str, Any]] = []
    a = wait(client, first["id"], seen)
    b = wait(client, second["id"])
    assert a["status"] == b["status"] == "done"
    assert a["result"]["names"] == ["gnubg", "root"] and b["result"]["names"] == ["Ann", "Bob"]
    progress = [j["progress"] for j in seen]
    assert progress == sorted(progress) and progress[-1] == 1.0
    dones = [j["done"] for j in seen]
    assert dones == sorted(dones)
    assert a["total"] == 90  # a step per roll (gnubg counts 45 + 44 moves) and 1 double


def test_long_matches_are_analysed_up_to_64_points_and_refused_beyond(
        clients: Clients) -> None:
    """The match equity table covers 64 points (as gnubg's): a 26-point match is analysed;
    a 65-point one is refused with the reason, as is a record of more turns than one
    analysis takes; the evaluation of a position says the same."""
    client = clients.new()
    fast(client)
    job = client.post("/api/analysis", json={"mat": SMALL_MAT.replace(" 3 point", " 26 point")})
    assert job.status_code == 202
    done = wait(client, job.json()["id"])
    assert done["status"] == "done" and done["result"]["match_length"] == 26
    long = client.post("/api/analysis", json={"mat": SMALL_MAT.replace(" 3 point", " 65 point")})
    assert long.status_code == 400
    assert long.json()["error"] == {"code": "too_large", "message": "a match to 65 points: the "
                                    "analysis covers matches up to 64 points (its match "
                                    "equity table)"}
    client.app.state.analysis_jobs = AnalysisJobs(level="medium", max_turns=2)  # type: ignore[attr-defined]
    many = client.post("/api/analysis", json={"mat": SMALL_MAT})
    assert many.status_code == 400
    assert many.json()["error"]["message"] == ("3 turns: one analysis takes at most 2; send "
                                               "fewer games")
    # a 3-ply analysis counts each turn six times against the budget
    client.app.state.analysis_jobs = AnalysisJobs(level="medium", max_turns=17)  # type: ignore[attr-defined]
    deep = client.post("/api/analysis", json={"mat": SMALL_MAT, "level": "master"})
    assert deep.status_code == 400
    assert deep.json()["error"]["message"] == ("3 turns: one analysis at Master (3-ply) takes "
                                               "at most 2; send fewer games, or analyse at "
                                               "Expert (2-ply)")
    assert client.post("/api/analysis", json={"mat": SMALL_MAT}).status_code == 202
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:{}:10"
    fine = client.post("/api/positions/evaluation", json={"position": xgid.format(26)})
    assert fine.status_code == 200 and fine.json()["plays"][0]["play"] == "8/5 6/5"
    refused = client.post("/api/positions/evaluation", json={"position": xgid.format(65)})
    assert refused.status_code == 422
    assert refused.json()["error"]["message"] == ("a match to 65 points: the computer "
                                                  "evaluates matches up to 64 points")


class Gate:
    """The jobs' analysis held at a gate until :meth:`open` (the real one then runs); the
    jobs that reached it, in order."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import backgammon.services.analysis_jobs as module

        self.event = threading.Event()
        self.reached: list[Any] = []
        real = module.analyze

        def gated(source: Any, level: str, progress: Any, **kw: Any) -> Any:
            self.reached.append(source)
            self.event.wait(30)
            return real(source, level, progress, **kw)

        monkeypatch.setattr(module, "analyze", gated)

    def open(self) -> None:
        self.event.set()


def wait_status(client: TestClient, job_id: str, status: str) -> None:
    deadline = time.monotonic() + 10
    while client.get(f"/api/analysis/{job_id}").json()["status"] != status:
        assert time.monotonic() < deadline, f"job {job_id} never {status}"
        time.sleep(0.01)


def test_one_client_has_at_most_two_analyses_unfinished(
        clients: Clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """One address cannot fill the queue: its third unfinished analysis is refused with 503
    ``busy``, and taken again once one of its analyses is done."""
    gate = Gate(monkeypatch)
    client = clients.new()
    jobs = AnalysisJobs(workers=1, level="medium")
    client.app.state.analysis_jobs = jobs  # type: ignore[attr-defined]
    first = client.post("/api/analysis", json={"mat": SMALL_MAT})
    second = client.post("/api/analysis", json={"mat": SMALL_MAT})
    assert first.status_code == second.status_code == 202
    third = client.post("/api/analysis", json={"mat": SMALL_MAT})
    assert third.status_code == 503
    assert third.json()["error"] == {"code": "busy", "message": "you have 2 analyses waiting "
                                     "or running: try again once one is done"}
    other = jobs.submit(read_record(SMALL_MAT), client="10.0.0.9")  # another address goes on
    gate.open()
    assert wait(client, first.json()["id"])["status"] == "done"
    assert wait(client, other.id)["status"] == "done"
    assert client.post("/api/analysis", json={"mat": SMALL_MAT}).status_code == 202
    jobs.close()


def test_one_client_never_takes_every_worker(
        clients: Clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """With 2 workers, a client's second analysis waits while its first runs, so another
    client's analysis starts at once on the other worker."""
    gate = Gate(monkeypatch)
    client = clients.new()
    jobs = AnalysisJobs(workers=2, level="medium")
    client.app.state.analysis_jobs = jobs  # type: ignore[attr-defined]
    assert jobs.running_per_client == 1
    first = client.post("/api/analysis", json={"mat": SMALL_MAT}).json()
    second = client.post("/api/analysis", json={"mat": SMALL_MAT}).json()
    other = jobs.submit(read_record(SMALL_MAT), client="10.0.0.9")
    wait_status(client, first["id"], "running")
    wait_status(client, other.id, "running")
    assert client.get(f"/api/analysis/{second['id']}").json()["status"] == "queued"
    gate.open()
    for job_id in (first["id"], second["id"], other.id):
        assert wait(client, job_id)["status"] == "done"
    jobs.close()


def test_a_queued_analysis_is_cancelled_by_its_own_client_only(
        clients: Clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """DELETE cancels a queued job (it never starts, and no longer counts against the client's
    two); another address's DELETE is refused with 403, an unknown id with 404."""
    gate = Gate(monkeypatch)
    client = clients.new()
    jobs = AnalysisJobs(workers=1, level="medium")
    client.app.state.analysis_jobs = jobs  # type: ignore[attr-defined]
    first = client.post("/api/analysis", json={"mat": SMALL_MAT}).json()
    second = client.post("/api/analysis", json={"mat": SMALL_MAT}).json()
    other = jobs.submit(read_record(SMALL_MAT), client="10.0.0.9")
    refused = client.delete(f"/api/analysis/{other.id}")
    assert refused.status_code == 403
    assert refused.json()["error"] == {"code": "forbidden", "message": "this analysis was "
                                       "started by another client"}
    assert client.delete("/api/analysis/nope").status_code == 404
    cancelled = client.delete(f"/api/analysis/{second['id']}")
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled" and cancelled.json()["result"] is None
    third = client.post("/api/analysis", json={"mat": SMALL_MAT})  # 2 unfinished again
    assert third.status_code == 202
    gate.open()
    for job_id in (first["id"], other.id, third.json()["id"]):
        assert wait(client, job_id)["status"] == "done"
    assert len(gate.reached) == 3  # the cancelled job never started
    after = client.get(f"/api/analysis/{second['id']}").json()
    assert (after["status"], after["done"], after["result"]) == ("cancelled", 0, None)
    # a job already over is answered as it is
    over = client.delete(f"/api/analysis/{first['id']}").json()
    assert over["status"] == "done" and over["result"] is not None
    jobs.close()


def test_another_clients_jobs_do_not_push_out_a_finished_result(clients: Clients) -> None:
    """Past the jobs kept, the client with the most finished jobs loses its oldest: a flood
    of jobs from one address leaves another's result readable."""
    client = clients.new()
    jobs = AnalysisJobs(workers=1, level="medium", max_jobs=4)
    client.app.state.analysis_jobs = jobs  # type: ignore[attr-defined]
    mine = client.post("/api/analysis", json={"mat": SMALL_MAT}).json()
    assert wait(client, mine["id"])["status"] == "done"
    flood = []
    for _ in range(10):
        job = jobs.submit(read_record(SMALL_MAT), client="10.0.0.9")
        jobs.cancel(job.id, "10.0.0.9")
        flood.append(job.id)
    assert client.get(f"/api/analysis/{mine['id']}").json()["status"] == "done"
    kept = [job_id for job_id in flood if client.get(f"/api/analysis/{job_id}").status_code
            == 200]
    assert kept == flood[-3:]  # 4 kept in all: the other address's 3 newest and mine
    jobs.close()


def test_closing_cancels_what_runs_and_returns_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server stopping does not wait for its analyses: close() cancels them and returns, the
    workers are daemon threads, and no job is taken after."""
    gate = Gate(monkeypatch)
    jobs = AnalysisJobs(workers=1, level="medium")
    running = jobs.submit(read_record(SMALL_MAT), client="a")
    queued = jobs.submit(read_record(SMALL_MAT), client="b")
    deadline = time.monotonic() + 10
    while running.status != "running":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    started = time.monotonic()
    jobs.close()
    assert time.monotonic() - started < 1.0
    assert (running.status, queued.status) == ("cancelled", "cancelled")
    assert all(thread.daemon for thread in jobs._threads)
    with pytest.raises(TooManyJobsError, match="stopping"):
        jobs.submit(read_record(SMALL_MAT), client="c")
    gate.open()
    for thread in jobs._threads:
        thread.join(10)
        assert not thread.is_alive()
    assert (running.status, running.result) == ("cancelled", None)
    assert len(gate.reached) == 1


def test_a_running_analysis_stops_at_its_next_turn_when_cancelled(
        clients: Clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """A running job's worker is freed at the turn after the DELETE: the job's progress stays
    where it was, and the next job on the one worker runs."""
    import backgammon.services.analysis_jobs as module

    reached, go_on = threading.Event(), threading.Event()
    real = module.analyze
    turns: list[int] = []

    def slow_first(source: Any, level: str, progress: Any, **kw: Any) -> Any:
        if not turns:
            for turn in range(1, 11):
                turns.append(turn)
                progress(turn, 10)
                if turn == 3:
                    reached.set()
                    go_on.wait(10)
            raise AssertionError("not cancelled")
        return real(source, level, progress, **kw)

    monkeypatch.setattr(module, "analyze", slow_first)
    client = clients.new()
    fast(client, workers=1)
    job = client.post("/api/analysis", json={"mat": SMALL_MAT}).json()
    assert reached.wait(10)
    running = client.get(f"/api/analysis/{job['id']}").json()
    assert (running["status"], running["done"], running["total"]) == ("running", 3, 10)
    assert client.delete(f"/api/analysis/{job['id']}").json()["status"] == "cancelled"
    go_on.set()
    nxt = client.post("/api/analysis", json={"mat": SMALL_MAT}).json()
    assert wait(client, nxt["id"])["status"] == "done"
    assert turns == [1, 2, 3, 4]  # the progress call after the DELETE stopped it
    final = client.get(f"/api/analysis/{job['id']}").json()
    assert (final["status"], final["done"], final["error"]) == ("cancelled", 3, None)


def saved_game(clients: Clients, *moves: tuple[int, int]) -> tuple[TestClient, str]:
    """A client (its analyses at 0-ply) and a saved cubeless game whose first turn, a 3-1,
    White played as ``moves`` (``(from, to)`` each)."""
    client = clients.new(rolls=[(3, 1), (6, 4)])
    fast(client)
    gid = new_game(client, cube=False)["id"]
    act(client, gid, "roll")
    for source, target in moves:
        act(client, gid, "move", {"from": source, "to": target})
    act(client, gid, "done")
    return client, gid


def test_an_analysis_at_master_is_3_ply_and_other_levels_are_refused(
        clients: Clients) -> None:
    """``level`` master: the Master level's 3-ply analysis (the pool's own level otherwise);
    any level but expert and master is refused with the field named."""
    client, gid = saved_game(clients, (8, 7), (8, 5))
    job = client.post("/api/analysis", json={"game_id": gid, "level": "master"}).json()
    done = wait(client, job["id"])
    result = done["result"]
    assert (result["level"], result["plies"]) == ("master", 3)
    move = result["games"][0]["decisions"][0]
    assert (move["played"], move["best"]) == ("8/7 8/5", "8/5 6/5")
    assert max(a["ply"] for a in move["alternatives"]) == 3
    shallow = wait(client, client.post("/api/analysis", json={"game_id": gid}).json()["id"])
    assert (shallow["result"]["level"], shallow["result"]["plies"]) == ("medium", 0)
    jobs = AnalysisJobs(workers=1, level="medium")
    with pytest.raises(ValueError, match="unknown analysis level 'hard': expected one of "
                                         "expert, master"):
        jobs.submit(read_record(SMALL_MAT), level="hard")
    assert not jobs._jobs and not jobs._inputs  # refused before anything was queued
    jobs.close()
    for bad in ("hard", "grandmaster", 3):
        refused = client.post("/api/analysis", json={"game_id": gid, "level": bad})
        assert refused.status_code == 422
        assert refused.json()["error"]["message"].startswith(
            "invalid request: level: Input should be 'expert' or 'master'")


def test_an_analysis_of_a_saved_game(clients: Clients) -> None:
    client, gid = saved_game(clients, (8, 5), (6, 5))
    job = client.post("/api/analysis", json={"game_id": gid}).json()
    done = wait(client, job["id"])
    decisions = done["result"]["games"][0]["decisions"]
    assert decisions[0]["played"] == "8/5 6/5" and decisions[0]["player"] == 0
    assert client.post("/api/analysis", json={"game_id": "missing"}).status_code == 404


def test_the_hint_ranks_the_plays_with_equities_and_chances(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    gid = new_game(client, cube=False)["id"]
    act(client, gid, "roll")
    hint = client.get(f"/api/games/{gid}/evaluation").json()
    assert hint["kind"] == "plays" and hint["dice"] == [3, 1]
    plays = hint["plays"]
    assert plays[0]["play"] == "8/5 6/5" and plays[0]["diff"] == 0.0
    equities = [p["equity"] for p in plays]
    top = plays[0]["ply"]
    deepest = [p["equity"] for p in plays if p["ply"] == top]
    assert top >= 1 and deepest == sorted(deepest, reverse=True)
    assert len({p["ply"] for p in plays}) >= 2  # the rest scored less deep, after them
    assert equities[: len(deepest)] == deepest  # those searched deepest first
    assert all(p["diff"] == pytest.approx(p["equity"] - equities[0], abs=2e-3) for p in plays)
    assert 50.0 < plays[0]["probs"]["win"] < 60.0
    assert 0.0 < plays[0]["probs"]["win_gammon"] < plays[0]["probs"]["win"]


def test_the_cube_hint(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1), (6, 4)])
    gid = new_game(client, cube=True)["id"]
    act(client, gid, "roll")
    for step in ({"from": 8, "to": 5}, {"from": 6, "to": 5}):
        act(client, gid, "move", step)
    act(client, gid, "done")
    hint = client.get(f"/api/games/{gid}/evaluation").json()
    assert hint["kind"] == "cube"
    assert hint["action"] == "no double" and hint["response"] == "take"
    assert hint["text"] == "no double, take"
    eq = hint["equities"]
    assert eq["double_drop"] == 1.0 and eq["no_double"] > eq["double_take"]
    assert 30.0 < hint["probs"]["win"] < 50.0  # Black, on roll, after White's good 31


def test_the_hint_is_computed_without_holding_the_game(
        clients: Clients, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hint is worked out on a copy of the game taken under its lock, so a request for
    the game itself does not wait behind a slow evaluation."""
    from backgammon.server import analysis_api

    client = clients.new(rolls=[(3, 1)])
    game = act(client, new_game(client)["id"], "roll")
    service = app_of(client).state.games
    seen: list[bool] = []

    def evaluation_for(copy: Any) -> dict[str, Any]:
        lock = service._get(game["id"]).lock
        free = lock.acquire(blocking=False)
        if free:
            lock.release()
        seen.append(free)
        assert copy.dice == (3, 1) and copy is not service._get(game["id"]).match.current
        return {"kind": "none"}

    monkeypatch.setattr(analysis_api, "evaluation_for", evaluation_for)
    assert client.get(f"/api/games/{game['id']}/evaluation").json() == {"kind": "none"}
    assert seen == [True]


def test_the_cube_hint_says_beaver_where_the_computer_would_beaver(clients: Clients) -> None:
    """Money play with beavers, White on roll at 36% (scenarios.BEAVER_SETUP): the page's
    hint is the computer's own decision, beaver included (it said "no double, take")."""
    client = clients.new()
    gid = new_game(client, setup=BEAVER_SETUP)["id"]
    hint = client.get(f"/api/games/{gid}/evaluation").json()
    assert (hint["kind"], hint["action"], hint["response"], hint["text"]) == (
        "cube", "no double", "beaver", "no double, beaver")
    assert hint["probs"]["win"] == 36.3
    assert hint["equities"]["double_take"] == -1.012 and hint["equities"]["double_drop"] == 1.0
    act(client, gid, "double")
    answer = client.get(f"/api/games/{gid}/evaluation").json()
    assert (answer["kind"], answer["action"], answer["text"]) == (
        "take", "beaver", "no double, beaver")
    assert answer["equities"] == hint["equities"]
    act(client, gid, "beaver")
    after = client.get(f"/api/games/{gid}/evaluation").json()
    assert (after["kind"], after["action"]) == ("take", "drop")  # -2.02 taken, -2 dropped
    assert after["text"] == "no double, beaver; the beaver: pass"
    assert after["equities"] == hint["equities"]
    editor = client.post("/api/positions/evaluation", json={"position": BEAVER_XGID}).json()
    assert editor["text"] == "no double, beaver" and editor["response"] == "beaver"


def test_an_analysis_with_no_decisions_has_a_null_rating(clients: Clients) -> None:
    client = clients.new()
    text = (" 0 point match\n\n Game 1\n Ann : 0                        Bob : 0\n"
            "  1) 31:\n                                  Wins 1 point\n")
    done = wait(client, client.post("/api/analysis", json={"mat": text}).json()["id"])
    assert done["status"] == "done"
    result = done["result"]
    assert [p["rating"] for p in result["players"]] == [None, None]
    assert [p["rating"] for p in result["games"][0]["players"]] == [None, None]
    assert (result["games"][0]["winner"], result["games"][0]["points"]) == (1, 1)
