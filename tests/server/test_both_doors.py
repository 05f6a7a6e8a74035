"""One flow, proved: the same seeded match played through backgammon's local door and the
table's online door gives the same game.

The local door is the HTTP API (``/api/games``, pass & play, the dice of a seeded generator,
a checker moved at a time); the online door is a room of the table's door (``/api/rooms``,
``/ws/rooms``, backgammon's plug-in), whose dice come from the players' secrets: for each roll
the scripted players send secrets that give the dice the local game threw
(:func:`room_support.secrets_for`); each play is the first legal play, made a checker at a time
locally, then sent whole in notation to the room once the local turn is done. Both
run in one app on one fake clock, moved 2 s before each roll, 4 s before each play, 1 s before
a cube action and 3 s before a resignation, so the event logs, the clocks and the views after
every action must be the same. (Both doors act through a ``Table``, whose log keeps no
seconds: the time each action took is compared through the clocks.)
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from backgammon.core.moves import Play
from backgammon.core.notation import format_play
from backgammon.server import ServerSettings, create_app
from backgammon.services.clock import TIME_CONTROLS
from fake_clock import FakeNow
from room_support import RoomSeats, other

#: The keys of the game view both doors share (local: the state; online: the view's
#: ``state``, backgammon's part of the table's view).
SHARED = ("phase", "turn", "to_act", "board", "pips", "dice", "dice_left", "cube",
          "last_turn", "opening", "history", "played", "legal")

#: The local session's seeds (its dice: services/seeds.py): with 14 a roll that cannot be
#: played comes in the first game.
SEEDS = (14, 11, 23)


@pytest.fixture(params=SEEDS)
def doors(request: pytest.FixtureRequest, tmp_path: Path
          ) -> Iterator[tuple[TestClient, FakeNow, int]]:
    now = FakeNow(7000.0)
    app = create_app(ServerSettings(db_path=tmp_path / "games.sqlite3",
                                    rng=random.Random(request.param), now=now,
                                    time_controls=TIME_CONTROLS))
    with TestClient(app) as client:
        yield client, now, request.param


def _local(client: TestClient, game_id: str, action: str, body: Any = None) -> dict[str, Any]:
    response = client.post(f"/api/games/{game_id}/{action}", json=body or {})
    assert response.status_code in (200, 201), response.text
    return dict(response.json())


def _log(client: TestClient, game_id: str) -> dict[str, Any]:
    service = client.app.state.games  # type: ignore[attr-defined]
    return dict(service.inspect(game_id, lambda match, settings: match.to_log()))


def _events(log: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Each game's events, without ``given`` (online dice are given by the secrets) and
    ``seconds`` (the table keeps none); a play's moves as ``[from, to]`` in order (the
    notation the room is sent keeps neither the order they were made in nor which die bore a
    checker off when either could)."""
    return [[_event(event) for event in game["events"]] for game in log["games"]]


def _event(event: dict[str, Any]) -> dict[str, Any]:
    kept = {k: v for k, v in event.items() if k not in ("given", "seconds")}
    if kept["type"] == "play":
        kept["moves"] = sorted(move[:2] for move in kept["moves"])
    return kept


def _online_log(seats: RoomSeats) -> dict[str, Any]:
    log: dict[str, Any] = seats.room().table.game.match.to_log()
    return log


def _shown(key: str, value: Any) -> Any:
    """A view's ``value`` of ``key`` as compared: the last turn's moves without their dice, in
    order (as :func:`_events`)."""
    if key == "last_turn" and value is not None:
        moves = [{k: v for k, v in move.items() if k != "die"} for move in value["moves"]]
        return {**value, "moves": sorted(moves, key=json.dumps)}
    return value


def _same_view(local: dict[str, Any], seats: RoomSeats, local_log: dict[str, Any]) -> None:
    """The room's view, from the side that must act (or White), is the local one; the logs
    so far are the same; so are the clocks."""
    assert _events(_online_log(seats)) == _events(local_log)
    actor = local["to_act"] or local["turn"] or "white"
    view = seats.views[actor]
    online = view["state"]
    for key in SHARED:
        assert _shown(key, online[key]) == _shown(key, local[key]), (key, online[key],
                                                                     local[key])
    if local["phase"] != "opening":  # (the room's opening is thrown by the pages themselves)
        assert online["can"] == local["can"]
    if local["result"] is not None:
        for key in ("winner", "kind", "points", "reason", "match_over"):
            assert online["result"][key] == local["result"][key]
    for side in ("white", "black"):
        assert online["score"][side] == local["score"][side]
    if local["clock"] is not None:
        assert {side: round(left, 6) for side, left in view["clock"]["remaining"].items()} == {
            side: round(left, 6) for side, left in local["clock"]["remaining"].items()}


def _first_play(client: TestClient, game_id: str) -> Play:
    """The local game's first legal play of the turn (the one the engine lists first)."""
    service = client.app.state.games  # type: ignore[attr-defined]
    plays = service.inspect(game_id, lambda match, settings: match.current.legal_plays())
    play: Play = plays[0]
    return play


def _place(point: int, color: str) -> int | str:
    """A point of ``color``'s numbering (bar 25, off 0) as the local door names it: White's
    numbering, ``"bar"``, ``"off"``."""
    if point == 25:
        return "bar"
    if point == 0:
        return "off"
    return point if color == "white" else 25 - point


def _last(client: TestClient, game_id: str, kind: str) -> dict[str, Any]:
    """The local game's last event of ``kind``."""
    events = _log(client, game_id)["games"][-1]["events"]
    return dict(next(e for e in reversed(events) if e["type"] == kind))


def test_the_same_match_through_both_doors(doors: tuple[TestClient, FakeNow, int]) -> None:
    client, now, seed = doors
    state = client.post("/api/games", json={"mode": "pass_and_play", "kind": "match",
                                            "length": 7, "seed": seed, "cube": True,
                                            "time_control": "blitz"}).json()
    game_id = state["id"]
    # the players named as the local door names the sides: the move lists then read alike
    seats = RoomSeats(client, "backgammon", {"length": 7, "cube": True}, "blitz",
                      names=("White", "Black"))
    try:
        doubled = False
        for _ in range(400):
            if state["phase"] == "opening":
                state = _local(client, game_id, "roll")
                opening = _last(client, game_id, "opening_roll")
                seats.roll("white", (opening["white"], opening["black"]), opening=True)
            elif state["phase"] == "roll":
                color = state["turn"]
                if state["can"]["double"] and not doubled:
                    doubled = True
                    now.advance(1)
                    state = _local(client, game_id, "double")
                    seats.act(color, {"type": "double"})
                    _same_view(state, seats, _log(client, game_id))
                    now.advance(1)
                    state = _local(client, game_id, "take")
                    seats.act(other(color), {"type": "take"})
                    _same_view(state, seats, _log(client, game_id))
                now.advance(2)
                state = _local(client, game_id, "roll")
                roll = _last(client, game_id, "roll")
                seats.roll(color, (roll["dice"][0], roll["dice"][1]))
            elif state["phase"] == "move":
                color = state["turn"]
                now.advance(4)  # the time after the roll, before the play
                play = _first_play(client, game_id)
                for move in play.moves:  # a checker at a time, one die each
                    state = _local(client, game_id, "move",
                                   {"from": _place(move.from_point, color),
                                    "to": _place(move.to_point, color)})
                state = _local(client, game_id, "done")
                seats.act(color, {"type": "move", "play": format_play(play.moves)})
            elif state["phase"] == "game_over":
                break
            else:  # match_over: the first game won the match? (not with 7 points)
                pytest.fail(f"unexpected phase {state['phase']}")
            _same_view(state, seats, _log(client, game_id))
        else:
            pytest.fail("the game did not end in 400 steps")
        # The same record.
        local_log = _log(client, game_id)
        assert _events(local_log) == _events(_online_log(seats))
        kinds = {e["type"] for e in _events(local_log)[0]}
        assert {"opening_roll", "roll", "play", "double", "take"} <= kinds
        assert ("pass" in kinds) is (seed == 14)  # a forced pass, charged alike (the clocks)
        first = local_log["games"][0]["events"]
        # both doors' logs are the table's: no seconds in them (the clocks are compared)
        assert not any("seconds" in e for e in first)
        # The next game, by the same policy: a player asks for it.
        state = _local(client, game_id, "next")
        seats.act("white", {"type": "next_game"})
        assert state["phase"] == "opening"
        _same_view(state, seats, _log(client, game_id))
        # Its opening roll, then the side on roll resigns a gammon: at one screen the offer is
        # accepted at once; online the opponent accepts it. The same record either way.
        state = _local(client, game_id, "roll")
        opening = _last(client, game_id, "opening_roll")
        seats.roll("white", (opening["white"], opening["black"]), opening=True)
        _same_view(state, seats, _log(client, game_id))
        resigner = state["turn"]
        now.advance(3)
        state = _local(client, game_id, "resign", {"level": "gammon"})
        seats.act(resigner, {"type": "resign", "level": "gammon"})
        seats.act(other(resigner), {"type": "accept_resignation"})
        assert state["result"]["reason"] == "resign" and state["result"]["points"] == 2
        _same_view(state, seats, _log(client, game_id))
        assert _log(client, game_id)["games"][-1]["events"][-2:] == [
            {"type": "resign", "color": resigner, "kind": "gammon"},
            {"type": "accept", "color": other(resigner)}]
    finally:
        seats.close()
