"""Review, hints, explanations, .mat export and import, and the rules page over HTTP
(:mod:`backgammon.server.records_api`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from api_support import Clients, act, new_game
from fastapi.testclient import TestClient

from backgammon.core.game import Phase
from backgammon.core.match import Match
from backgammon.core.moves import legal_moves
from backgammon.core.position import Position
from backgammon.records import read_and_replay
from backgammon.server import ServerSettings, create_app
from backgammon.server.middleware import PAGE_CSP
from backgammon.server.settings import DEFAULT_MAX_UPLOAD_BYTES
from backgammon.services.review import match_mat, pass_reason
from backgammon.services.rules import RULES
from gametable.game_store import GameStore
from scenarios import find_turn, random_match, session_record


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Clients]:
    with Clients(tmp_path / "games.sqlite3") as opened:
        yield opened


def stored(clients: Clients, game_id: str, match: Match, **settings: Any) -> None:
    """Save ``match`` as session ``game_id`` in the clients' database."""
    with GameStore(clients.db_path) as store:
        store.save(game_id, session_record(match, **settings))


def without_words(frames: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """A review's frames without the words, nor the order of the dice (a .mat writes the
    higher die first)."""
    return [(f["kind"], f["board"], f["dice"] and sorted(f["dice"]), f["moves"],
             f["cube"]["value"],
             f["cube"]["owner"], f["cube"]["offered_by"], f["score"]) for f in frames]


# --------------------------------------------------------------------------------------------
# Review


def test_review_has_a_frame_for_each_line_of_the_move_list(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1), (6, 5), (4, 2)])
    game = new_game(client, cube=False)
    gid = game["id"]
    act(client, gid, "roll")
    act(client, gid, "move", {"from": 8, "to": 5})
    act(client, gid, "move", {"from": 6, "to": 5})
    act(client, gid, "done")
    state = act(client, gid, "roll")  # Black's 6-5 is being played: not part of the review
    response = client.get(f"/api/games/{gid}/review")
    assert response.status_code == 200
    review = response.json()
    assert review["history"] == state["history"]
    assert review["title"] == "White vs Black · single game"
    assert [f["kind"] for f in review["frames"]] == ["start", "play"]
    play = review["frames"][1]
    assert play["text"] == "White 3-1: 8/5 6/5"
    assert play["dice"] == [3, 1]
    assert [m["text"] for m in play["moves"]] == ["8/5", "6/5"]
    assert play["board"]["points"][5] == 2 and play["board"]["points"][6] == 4
    assert client.get("/api/games/nosuchgame/review").status_code == 404


@pytest.mark.parametrize("human", ["white", "black"])
def test_the_review_of_a_game_against_the_computer_says_you_and_computer(
        clients: Clients, human: str) -> None:
    """As the live move list does: its lines, and the words of each frame, name "You" and
    "Computer", never White and Black."""
    client = clients.new()
    match = random_match(8, games=2, cube=True, double=0.1)
    stored(clients, f"versus{human}", match, kind="money", mode="computer", human=human)
    state = client.get(f"/api/games/versus{human}").json()
    review = client.get(f"/api/games/versus{human}/review").json()
    assert review["history"] == state["history"]
    texts = [f["text"] for f in review["frames"]]
    assert not [t for t in texts if t.startswith(("White", "Black"))]
    you = [t for t in texts if t.startswith("You ")]
    assert you and [t for t in texts if t.startswith("Computer ")]
    assert not [t for t in you if t.split()[1] in ("wins", "takes", "drops", "doubles")]


def test_a_finished_match_is_reviewed_whole(clients: Clients) -> None:
    client = clients.new()
    match = random_match(6, games=3, cube=True, double=0.1)
    stored(clients, "storedmatch", match, kind="money")
    state = client.get("/api/games/storedmatch").json()
    review = client.get("/api/games/storedmatch/review").json()
    assert review["history"] == state["history"]
    assert {f["game"] for f in review["frames"]} == {1, 2, 3}
    assert review["score"] == {"white": match.score[0], "black": match.score[1]}
    indexes = [f["history_index"] for f in review["frames"]]
    assert indexes == list(range(len(state["history"])))


# --------------------------------------------------------------------------------------------
# Hints and explanations


def test_hints_are_the_engines_legal_moves(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    gid = new_game(client, cube=False)["id"]
    assert client.get(f"/api/games/{gid}/hints").json()["active"] is False  # not rolled yet
    act(client, gid, "roll")
    hints = client.get(f"/api/games/{gid}/hints").json()
    expected = legal_moves(Position.start(), (3, 1))
    assert [m["text"] for m in hints["moves"]] == [str(m) for m in expected]
    assert hints["plays_total"] == 16
    act(client, gid, "move", {"from": 8, "to": 5})
    hints = client.get(f"/api/games/{gid}/hints").json()
    assert hints["dice_left"] == [1]
    assert [m["text"] for m in hints["moves"]] == ["24/23", "8/7", "6/5", "5/4"]


def test_no_hints_on_the_computers_turn(clients: Clients) -> None:
    client = clients.new(rolls=[(1, 3)])  # Black, the computer, wins the opening roll
    gid = new_game(client, mode="computer", side="white", cube=False)["id"]
    state = act(client, gid, "roll")
    assert state["computer_to_act"] is True
    assert client.get(f"/api/games/{gid}/hints").json()["active"] is False
    answer = client.post(f"/api/games/{gid}/explain", json={"from": 12, "to": 13}).json()
    assert answer["text"] == "it is the computer's turn"


def test_an_attempt_is_explained_and_changes_nothing(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    gid = new_game(client, cube=False)["id"]
    before = act(client, gid, "roll")
    response = client.post(f"/api/games/{gid}/explain", json={"from": 13, "to": 12})
    assert response.status_code == 200
    assert response.json() == {
        "legal": False, "text": "13/12: the 12-point is held by Black",
        "reason": "the 12-point is held by Black", "rule": "open-point",
        "source": "WBF Rules of Backgammon 3.1"}
    answer = client.post(f"/api/games/{gid}/explain", json={"from": 6, "to": "off"}).json()
    assert answer["rule"] == "bear-off"
    assert answer["text"] == ("6/off: bearing off needs all 15 checkers home: 10 are still "
                              "outside your home board")
    answer = client.post(f"/api/games/{gid}/explain", json={"from": 8}).json()
    assert answer == {"legal": True, "text": "8 can move: 8/5, 8/7", "reason": None,
                      "rule": None, "source": None}
    assert client.get(f"/api/games/{gid}").json() == before


def test_explain_requests_are_checked(clients: Clients) -> None:
    client = clients.new(rolls=[(3, 1)])
    gid = new_game(client, cube=False)["id"]
    response = client.post(f"/api/games/{gid}/explain", json={"from": "up"})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"
    response = client.post(f"/api/games/{gid}/explain", json={"to": 3})
    assert response.status_code == 422


def test_a_pass_says_why(clients: Clients) -> None:
    client = clients.new()
    match = find_turn(lambda g: g.phase is Phase.ROLL and bool(g.history)
                      and g.history[-1].action == "move" and not g.history[-1].moves)
    stored(clients, "passedturn", match)
    turn = match.current.history[-1]
    reason = pass_reason(turn)
    assert reason
    state = client.get("/api/games/passedturn").json()
    mover = str(turn.color).capitalize()
    dice = f"{max(turn.dice or ())}-{min(turn.dice or ())}"
    assert state["message"].startswith(f"{mover} rolled {dice} and cannot move: {reason}. ")
    assert state["history"][-1]["text"] == f"{mover} {dice}: cannot move"


# --------------------------------------------------------------------------------------------
# .mat


def test_export_downloads_the_mat_and_import_reviews_the_same_game(clients: Clients) -> None:
    client = clients.new()
    match = random_match(12, games=2, cube=True, double=0.1)
    stored(clients, "exported", match, kind="money", mode="computer", human="white")
    response = client.get("/api/games/exported/export.mat")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.headers["content-disposition"] == \
        'attachment; filename="backgammon-exported.mat"'
    text = response.text
    assert text.startswith(" 0 point match\n\n Game 1\n You : 0")
    assert "Computer (Easy) : 0" in text.splitlines()[3]
    replay = read_and_replay(text)
    assert replay.match.score == match.score
    imported = client.post("/api/records/import", json={"text": text, "name": "mine.mat"})
    assert imported.status_code == 200
    review = client.get("/api/games/exported/review").json()
    assert without_words(imported.json()["frames"]) == without_words(review["frames"])
    assert imported.json()["names"] == {"white": "You", "black": "Computer (Easy)"}

    one = client.get("/api/games/exported/export.mat?game=2")
    assert one.headers["content-disposition"] == \
        'attachment; filename="backgammon-exported-game2.mat"'
    assert " Game 2\n" in one.text and " Game 1\n" not in one.text
    missing = client.get("/api/games/exported/export.mat?game=3")
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == (
        "this session has 2 games: ask for game 1 to 2, not 3")
    assert client.get("/api/games/exported/export.mat?game=0").status_code == 422


def test_a_transcript_with_a_problem_gets_its_line_and_reason(clients: Clients) -> None:
    client = clients.new()
    header = " 3 point match\n\n Game 1\n A : 0                          B : 0\n"
    bad_line = client.post("/api/records/import",
                           json={"text": header + "  1) 3x: 8/5\n", "name": "bad.mat"})
    assert bad_line.status_code == 422
    error = bad_line.json()["error"]
    assert error["code"] == "mat_parse_error"
    assert error["line"] == 5
    assert error["message"] == f"bad.mat, line 5: {error['detail']}"
    illegal = client.post("/api/records/import", json={"text": header + "  1) 31: 8/4 6/5\n"})
    error = illegal.json()["error"]
    assert illegal.status_code == 422
    assert error["code"] == "mat_replay_error"
    assert error["line"] == 5
    assert error["message"].startswith("line 5: illegal or unparsable play '8/4 6/5'")
    empty = client.post("/api/records/import", json={"text": ""})
    assert empty.status_code == 422
    assert empty.json()["error"]["line"] is None


def test_a_long_transcript_is_accepted_and_a_huge_one_refused(clients: Clients) -> None:
    client = clients.new()
    match = random_match(30, games=12, cube=True)
    long_text = match_mat(match, ("White", "Black"))
    assert len(long_text) > 16 * 1024  # over the JSON API's body limit
    response = client.post("/api/records/import", json={"text": long_text})
    assert response.status_code == 200
    assert len(response.json()["frames"]) == len(response.json()["history"])
    huge = client.post("/api/records/import",
                       content=b'{"text": "' + b"x" * DEFAULT_MAX_UPLOAD_BYTES + b'"}',
                       headers={"content-type": "application/json"})
    assert huge.status_code == 413
    other = client.post("/api/games", content=b"{" + b" " * (20 * 1024) + b"}",
                        headers={"content-type": "application/json"})
    assert other.status_code == 413  # the other endpoints keep their limit


# --------------------------------------------------------------------------------------------
# The rules page


def test_the_rules_page_is_served_with_every_rule(clients: Clients) -> None:
    client = clients.new()
    response = client.get("/rules")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["content-security-policy"] == PAGE_CSP
    for rule in RULES:
        assert f'id="{rule.id}"' in response.text
        assert f"Source: {rule.source}" in response.text
    for path in ("/static/rules.css", "/static/js/rules.js", "/static/assist.css",
                 "/static/js/assist.js", "/static/js/review.js", "/static/js/keyboard.js",
                 "/static/js/announce.js", "/static/js/boardtext.js", "/static/js/hints.js",
                 "/static/js/records.js", "/static/js/assist_api.js"):
        assert client.get(path).status_code == 200, path
    page = client.get("/").text
    assert 'href="/rules"' in page
    assert 'id="announcer"' in page and 'aria-live="polite"' in page


# --------------------------------------------------------------------------------------------
# Uploads: read in a worker thread, within a time limit


def test_an_upload_is_read_off_the_event_loop(clients: Clients,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """While one upload is being read, other requests are answered."""
    import backgammon.services.review as review

    reading, release = threading.Event(), threading.Event()
    real = review.read_and_replay

    def slow(text: str, **kwargs: Any) -> Any:
        reading.set()
        release.wait(10)
        return real(text, **kwargs)

    monkeypatch.setattr(review, "read_and_replay", slow)
    client = clients.new()
    text = match_mat(random_match(3, games=1, cube=True), ("White", "Black"))
    answers: list[int] = []
    upload = threading.Thread(target=lambda: answers.append(
        client.post("/api/records/import", json={"text": text}).status_code))
    upload.start()
    try:
        assert reading.wait(10)
        started = time.perf_counter()
        assert client.get("/health").status_code == 200
        assert time.perf_counter() - started < 2
    finally:
        release.set()
        upload.join(10)
    assert answers == [200]


def test_an_upload_read_for_longer_than_the_limit_is_refused(tmp_path: Path) -> None:
    text = match_mat(random_match(30, games=12, cube=True), ("White", "Black"))
    settings = ServerSettings(db_path=tmp_path / "games.sqlite3", upload_seconds=0.005)
    with TestClient(create_app(settings)) as client:
        for path, key, status in (("/api/records/import", "text", 422),
                                  ("/api/analysis", "mat", 400)):
            # (that reading stopped early is the line it stopped at and the words, not a
            # wall-clock bound, which a loaded machine can pass)
            response = client.post(path, json={key: text, "name": "long.mat"})
            assert response.status_code == status
            error = response.json()["error"]
            assert error["code"] == "too_large"
            assert error["line"] > 1
            assert error["detail"] == ("reading stopped here after 0.005 s, the longest a "
                                       "transcript is read: send a shorter one")
            assert error["message"] == f"long.mat, line {error['line']}: {error['detail']}"


def money_session(games: int) -> str:
    """A money session of ``games`` games of 3 turns each (two rolls and a double), 6 lines
    each after 2 header lines."""
    game = (" Game {n}\n Ann : 0                        Bob : 0\n"
            "  1) 31: 8/5 6/5                 64: 24/18 13/9\n"
            "  2)  Doubles => 2                Drops\n"
            "      Wins 1 point\n")
    return " 0 point match\n\n" + "\n".join(game.format(n=n) for n in range(1, games + 1))


def test_an_upload_of_too_many_turns_is_refused_while_it_is_read(clients: Clients) -> None:
    """A 1.9 MB record was read in full (14 s) before the analysis refused it, and imported
    whole: both refuse it at its 3,001st turn, the rest unread."""
    client = clients.new()
    text = money_session(12_000)
    assert len(text) > 1_800_000
    line = 2 + 1000 * 6 + 3  # game 1,001's first roll: turn 3,001
    for path, key, status in (("/api/records/import", "text", 422),
                              ("/api/analysis", "mat", 400)):
        # refused at its 3,001st turn (the line says where reading stopped), not timed: a
        # test that times fails on a loaded machine
        response = client.post(path, json={key: text})
        assert response.status_code == status
        assert response.json()["error"] == {
            "code": "too_large", "line": line,
            "detail": "more than 3000 turns (rolls and doubles): at most 3000 are read; "
                      "send fewer games",
            "message": f"line {line}: more than 3000 turns (rolls and doubles): at most 3000 "
                       "are read; send fewer games"}
    accepted = client.post("/api/records/import", json={"text": money_session(1000)})
    assert accepted.status_code == 200
    assert accepted.json()["title"] == "Ann vs Bob · money session, 1000 games"
