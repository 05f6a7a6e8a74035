"""A room's views, built once for each state of the game, and sent as patches.

* :meth:`Room.view` reuses the game's part of the view until the game changes: over whole
  backgammon and checkers games (a timed match, so the clock moves), every view it returns
  equals the table's view built afresh, and a dice round's commitment and secret build no
  game view at all.
* :func:`gametable.wire.view_patch` and :func:`~gametable.wire.apply_patch`: each view
  patched from the one before gives exactly the new view, the old one left as it was; nulls,
  removed members and keys with ``/`` and ``~`` go through; an operation the server never
  makes is refused.
* The door sends a connection whose hello asked for patches its first view whole and the
  rest as patches, which applied give exactly the room's view; a connection that did not ask
  is sent whole views as before.
* ``room_client.js``'s ``applyPatch`` (under Node.js, when it is installed) turns each old
  view into the new one as Python does, leaving the old one as it was.
* A save that fails sends the room back to the record stored last, the time since charged.
"""

from __future__ import annotations

import copy
import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from backgammon.adapter import RULES as BACKGAMMON
from backgammon.server.app import create_app
from backgammon.server.settings import ServerSettings
from checkers.adapter import RULES as CHECKERS
from fake_clock import FakeNow
from gametable.errors import ActionRefused
from gametable.fair import commitment_of
from gametable.room import Outgoing
from gametable.room_store import RoomStore
from gametable.rooms import RoomService
from gametable.seam import SIDES, Side
from gametable.table import Table
from gametable.wire import apply_patch, view_patch

GAMES = {"backgammon": BACKGAMMON, "checkers": CHECKERS}
MODULE = (
    Path(__file__).resolve().parents[2] / "src/backgammon/server/static/js/room_client.js"
)


def _other(side: str) -> Side:
    return "black" if side == "white" else "white"


def _messages(svc: RoomService, code: str, rng: random.Random) -> list[tuple[Side, dict[str, Any]]]:
    """The next messages of room ``code``'s game: a dice round's, or the mover's action (the
    computer's choice)."""
    room = svc.room(code)
    table = room.table
    due = sorted(table.chance_due())
    number = room.next_round
    if due and room.round is None:
        secrets = {side: rng.randbytes(32) for side in SIDES}
        if len(due) == 2:
            return [
                ("white", {"type": "commit", "round": number,
                           "commitment": commitment_of(secrets["white"])}),
                ("black", {"type": "commit", "round": number,
                           "commitment": commitment_of(secrets["black"])}),
                ("white", {"type": "reveal", "round": number, "secret": secrets["white"].hex()}),
                ("black", {"type": "reveal", "round": number, "secret": secrets["black"].hex()}),
            ]  # fmt: skip
        roller: Side = "white" if due[0] == "white" else "black"
        return [
            (roller, {"type": "commit", "round": number,
                      "commitment": commitment_of(secrets[roller])}),
            (_other(roller), {"type": "secret", "round": number,
                              "secret": secrets[_other(roller)].hex()}),
            (roller, {"type": "reveal", "round": number, "secret": secrets[roller].hex()}),
        ]  # fmt: skip
    if not table.game.to_act():  # between two games of a match: either player starts the next
        return [("white", {"type": "action", "action": {"type": "next_game"}})]
    mover: Side = "white" if sorted(table.game.to_act())[0] == "white" else "black"
    action = table.rules.computer_action(table.game, mover, "easy", rng)
    return [(mover, {"type": "action", "action": action})]


def _play(game: str, settings: dict[str, Any], control: str, steps: int,
          check: Any) -> int:
    """Play up to ``steps`` messages of a room of ``game``, the clock moving between them;
    ``check(room, message kind, the views sent)`` after each. Returns the messages played."""
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now)
    code, _, _, _ = svc.create(game, settings, control, name="Ann", side="white")
    svc.join(code, "Bob")
    rng = random.Random(7)
    played = 0
    while played < steps and svc.room(code).table.game.outcome() is None:
        for side, message in _messages(svc, code, rng):
            now.advance(rng.uniform(0.1, 3.0))
            out = svc.handle(code, side, message)
            check(svc.room(code), message["type"], out)
            played += 1
    return played


@pytest.mark.parametrize(("game", "settings"), [("backgammon", {"length": 3}),
                                                ("checkers", {})])
def test_every_view_equals_the_tables_view_built_afresh(game: str,
                                                        settings: dict[str, Any]) -> None:
    original = Table.view
    built = [0]
    builds: dict[str, list[int]] = {}  # by message kind: table views built in its handling

    def counted(self: Table, *args: Any, **kwargs: Any) -> dict[str, Any]:
        built[0] += 1
        return original(self, *args, **kwargs)

    def check(room: Any, kind: str, out: list[Outgoing]) -> None:
        builds.setdefault(kind, []).append(built[0])
        assert [m.side for m in out] == ["white", "black"]
        for message in out:
            side = message.side
            assert side is not None
            view = dict(message.payload["view"])
            assert view.pop("room")["you"] == side
            assert view == original(room.table, side, names=room.names)
            assert message.payload["view"] == room.view(side)
        built[0] = 0

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Table, "view", counted)
        played = _play(game, settings, "blitz", 400, check)
    assert played >= 100
    if game == "checkers":
        assert builds["action"][0] == 4  # the join's two views counted with the first move
    assert set(builds["action"][game == "checkers":]) == {2}  # both seats' views, once each
    if game == "backgammon":
        # a roll's commitment and the opponent's secret change no game: no view is built
        assert set(builds["secret"]) == {0}
        assert builds["commit"].count(0) >= len(builds["commit"]) - 1  # the first: the join's
        assert set(builds["reveal"]) == {0, 2}  # the opening's first reveal throws nothing


def test_a_patch_applied_gives_exactly_the_new_view_and_leaves_the_old_one() -> None:
    last: dict[Side, dict[str, Any]] = {}
    sizes = {"whole": 0, "patch": 0}

    def check(room: Any, kind: str, out: list[Outgoing]) -> None:
        for message in out:
            side = message.side
            assert side is not None
            new = json.loads(json.dumps(message.payload["view"]))
            old = last.get(side)
            if old is not None:
                kept = copy.deepcopy(old)
                patch = view_patch(old, new)
                assert apply_patch(old, patch) == new
                assert old == kept
                assert apply_patch(old, json.loads(json.dumps(patch))) == new
                sizes["whole"] += len(json.dumps(new))
                sizes["patch"] += len(json.dumps(patch))
            last[side] = new

    _play("backgammon", {"length": 3}, "blitz", 300, check)
    assert sizes["patch"] * 5 < sizes["whole"]


def test_patches_carry_nulls_removals_and_escaped_keys() -> None:
    old = {"offer": {"kind": "draw", "by": "white"}, "a/b": 1, "t~": [1, 2], "gone": 0,
           "n": {"x": None, "y": {"z": 1}}, "same": {"k": [1]}}  # fmt: skip
    new = {"offer": None, "a/b": 2, "t~": [1, 2, 3], "n": {"x": 5, "y": {"z": 1}, "w": None},
           "same": {"k": [1]}, "flag": False}  # fmt: skip
    patch = view_patch(old, new)
    assert patch == [
        {"op": "replace", "path": "/offer", "value": None},
        {"op": "replace", "path": "/a~1b", "value": 2},
        {"op": "add", "path": "/t~0/-", "value": 3},
        {"op": "replace", "path": "/n/x", "value": 5},
        {"op": "add", "path": "/n/w", "value": None},
        {"op": "add", "path": "/flag", "value": False},
        {"op": "remove", "path": "/gone"},
    ]
    assert apply_patch(old, patch) == new
    assert view_patch(new, new) == []
    assert view_patch({"a": 1}, {"a": True}) == [{"op": "replace", "path": "/a", "value": True}]


def test_an_array_that_grew_at_its_end_gets_its_new_items_only() -> None:
    lines = [{"game": 1, "text": "Ann 3-1: 8/5 6/5"}, {"game": 1, "text": "Bob 6-5"}]
    old = {"history": lines, "dice": [3, 1], "moves": ["11-15"]}
    new = {"history": [lines[0], {"game": 1, "text": "Bob 6-5: 24/13"},
                       {"game": 1, "text": "Ann 4-2"}],
           "dice": [6, 6, 6, 6], "moves": ["11-15", "22-18", "15-22"]}  # fmt: skip
    patch = view_patch(old, new)
    assert patch == [
        {"op": "replace", "path": "/history/1/text", "value": "Bob 6-5: 24/13"},
        {"op": "add", "path": "/history/-", "value": {"game": 1, "text": "Ann 4-2"}},
        {"op": "replace", "path": "/dice", "value": [6, 6, 6, 6]},  # not a growth of [3, 1]
        {"op": "add", "path": "/moves/-", "value": "22-18"},
        {"op": "add", "path": "/moves/-", "value": "15-22"},
    ]
    kept = copy.deepcopy(old)
    assert apply_patch(old, patch) == new
    assert old == kept  # the arrays changed were copies
    shrunk = {"history": lines[:1], "dice": [], "moves": ["11-15"]}
    assert view_patch(old, shrunk) == [
        {"op": "replace", "path": "/history", "value": lines[:1]},
        {"op": "replace", "path": "/dice", "value": []},
    ]
    assert view_patch({"x": []}, {"x": [1]}) == [{"op": "replace", "path": "/x", "value": [1]}]
    assert apply_patch({"a": [1, 2]}, [{"op": "add", "path": "/a/0", "value": 0},
                                       {"op": "remove", "path": "/a/2"}]) == {"a": [0, 1]}


@pytest.mark.parametrize(
    "operations",
    [
        {"op": "add"},
        [{"op": "move", "path": "/a", "from": "/b"}],
        [{"op": "replace", "path": "/missing", "value": 1}],
        [{"op": "remove", "path": "/missing"}],
        [{"op": "add", "path": "/a/b", "value": 1}],  # through a number
        [{"op": "add", "path": "a", "value": 1}],  # not a pointer
        [{"op": "add", "path": "/b"}],  # no value
        ["add"],
        [{"op": "replace", "path": "/l/2", "value": 1}],  # past the end
        [{"op": "replace", "path": "/l/-", "value": 1}],  # "-" only to add
        [{"op": "add", "path": "/l/01", "value": 1}],  # not an index
        [{"op": "add", "path": "/l/x/y", "value": 1}],
    ],
)
def test_an_operation_the_server_never_makes_is_refused(operations: Any) -> None:
    with pytest.raises(ValueError):
        apply_patch({"a": 1, "l": [1, 2]}, operations)


def _until(ws: WebSocketTestSession, ref: str, views: dict[str, Any], side: str) -> dict[str, Any]:
    """Read up to the frame of ``ref``, each view (whole or a patch applied) kept as
    ``views[side]``; the frames' types are counted under ``views["types"]``."""
    while True:
        frame: dict[str, Any] = ws.receive_json()
        assert frame["type"] != "error", frame
        views["types"].append((side, frame["type"]))
        if frame["type"] == "patch":
            assert "view" not in frame
            frame["view"] = apply_patch(views[side], frame.pop("patch"))
        views[side] = frame["view"]
        if frame.get("ref") == ref:
            return frame


def test_the_door_sends_patches_to_the_connection_that_asked(tmp_path: Path) -> None:
    app = create_app(ServerSettings(db_path=tmp_path / "db.sqlite3"))
    with TestClient(app) as client:
        host = client.post("/api/rooms", json={"game": "backgammon", "side": "white",
                                               "settings": {"length": 1}, "name": "Ann"}).json()
        code = host["code"]
        guest = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
        service = app.state.rooms.service
        with client.websocket_connect(f"/ws/rooms/{code}") as ann, client.websocket_connect(
            f"/ws/rooms/{code}"
        ) as bob:
            ann.send_json({"type": "hello", "token": host["token"], "patch": True, "ref": "h"})
            bob.send_json({"type": "hello", "token": guest["token"], "ref": "h"})
            views: dict[str, Any] = {"types": []}
            sockets = {"white": ann, "black": bob}
            for side, ws in sockets.items():
                ws.send_json({"type": "state", "ref": f"s-{side}"})
                _until(ws, f"s-{side}", views, side)
            ann.send_json({"type": "state", "ref": "again"})
            _until(ann, "again", views, "white")
            rng = random.Random(3)
            sent = 0
            while sent < 40 and service.room(code).table.game.outcome() is None:
                for side, message in _messages(service, code, rng):
                    sent += 1
                    ref = f"m{sent}"
                    sockets[side].send_json({**message, "ref": ref})
                    frame = _until(sockets[side], ref, views, side)
                    assert frame["view"]["room"]["version"] == service.room(code).version
                    other = _other(side)
                    # the other seat's pushed view is the next frame on its connection
                    pushed = sockets[other].receive_json()
                    views["types"].append((other, pushed["type"]))
                    if pushed["type"] == "patch":
                        pushed["view"] = apply_patch(views[other], pushed.pop("patch"))
                    views[other] = pushed["view"]
                    if message["type"] == "reveal" and "round" in frame:
                        assert pushed["round"] == frame["round"]
                    for seat in SIDES:
                        assert views[seat] == json.loads(json.dumps(service.room(code).view(seat)))
            assert sent >= 20
    types = views["types"]
    assert {t for s, t in types if s == "black"} == {"view"}  # asked for no patches
    white = [t for s, t in types if s == "white"]
    assert white[0] == "view" and set(white[1:]) == {"patch"}


def test_a_hello_asks_for_patches_with_a_bool_only(tmp_path: Path) -> None:
    app = create_app(ServerSettings(db_path=tmp_path / "db.sqlite3"))
    with TestClient(app) as client:
        host = client.post("/api/rooms", json={"game": "checkers", "side": "white"}).json()
        with client.websocket_connect(f"/ws/rooms/{host['code']}") as ws:
            ws.send_json({"type": "hello", "token": host["token"], "patch": "yes", "ref": 1})
            frame = ws.receive_json()
            assert frame == {"type": "error", "code": "invalid_message",
                             "message": "hello: patch is true or false", "ref": 1}


def test_the_page_applies_patches_as_python_does() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the browser tests cover room_client.js")
    cases: list[tuple[dict[str, Any], Any, dict[str, Any]]] = []
    last: dict[Side, dict[str, Any]] = {}

    def collect(room: Any, kind: str, out: list[Outgoing]) -> None:
        for message in out:
            side = message.side
            assert side is not None
            new = json.loads(json.dumps(message.payload["view"]))
            if side in last:
                cases.append((last[side], view_patch(last[side], new), new))
            last[side] = new

    _play("backgammon", {"length": 1}, "blitz", 60, collect)
    cases.append(({"a": {"b": 1}, "c": None}, [{"op": "add", "path": "/a/x~1y", "value": None},
                                             {"op": "remove", "path": "/c"}],
                  {"a": {"b": 1, "x/y": None}}))  # fmt: skip
    cases.append(({"l": [1, {"t": "a"}]}, [{"op": "replace", "path": "/l/1/t", "value": "b"},
                                           {"op": "add", "path": "/l/-", "value": 3},
                                           {"op": "add", "path": "/l/0", "value": 0}],
                  {"l": [0, 1, {"t": "b"}, 3]}))  # fmt: skip
    script = f"""
import {{ applyPatch }} from {json.dumps(MODULE.as_uri())};
import {{ readFileSync }} from "node:fs";
const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map(([old, patch]) => {{
  const before = JSON.stringify(old);
  const got = applyPatch(old, patch);
  return [got, JSON.stringify(old) === before];
}});
let refused = 0;
for (const bad of [[{{op: "replace", path: "/nope", value: 1}}],
                   [{{op: "add", path: "/__proto__/x", value: 1}}], "x",
                   [{{op: "replace", path: "/l/-", value: 1}}],
                   [{{op: "add", path: "/l/5", value: 1}}]]) {{
  try {{ applyPatch({{a: 1, l: [1]}}, bad); }} catch (err) {{ refused += 1; }}
}}
console.log(JSON.stringify({{out, refused}}));
"""
    result = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps([[old, patch] for old, patch, _ in cases]),
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    got = json.loads(result.stdout)
    assert got["refused"] == 5
    assert len(got["out"]) == len(cases) > 50
    for (new, untouched), (_, _, expected) in zip(got["out"], cases, strict=True):
        assert new == expected
        assert untouched


class _FailingStore(RoomStore):
    """A room store whose next save fails (a full disk)."""

    fail = False

    def save(self, code: str, game: str, owner: str | None, version: int,
             record: dict[str, Any]) -> str:
        if self.fail:
            self.fail = False
            raise OSError("disk full")
        return super().save(code, game, owner, version, record)

    def append(self, code: str, version: int, step: str) -> None:
        if self.fail:
            self.fail = False
            raise OSError("disk full")
        super().append(code, version, step)


def test_a_failed_save_sends_the_room_back_to_its_last_record_the_time_charged(
    tmp_path: Path,
) -> None:
    now = FakeNow()
    store = _FailingStore(tmp_path / "rooms.sqlite3")
    svc = RoomService(GAMES, store, now=now)
    code, _, _, _ = svc.create("checkers", {}, "blitz", name="Ann", side="white")
    svc.join(code, "Bob")
    svc.connect(code, "white")
    svc.handle(code, "black", {"type": "action", "action": {"type": "move", "path": [11, 15]}})
    now.advance(7)
    clock = svc.room(code).table.clock
    assert clock is not None and clock.running == "white"
    left = clock.remaining("white")
    version = svc.room(code).version
    store.fail = True
    with pytest.raises(ActionRefused, match="could not be saved"):  # refused in words
        svc.handle(code, "white", {"type": "action",
                                   "action": {"type": "move", "path": [22, 18]}})
    room = svc.room(code)
    assert room.version == version
    assert room.table.game.to_act() == {"white"}
    assert room.connections == {"white": 1, "black": 0}
    clock = room.table.clock
    assert clock is not None and clock.running == "white"
    assert clock.remaining("white") == pytest.approx(left)  # the 7 s since the save charged
    now.advance(3)
    assert clock.remaining("white") == pytest.approx(left - 3)
    svc.handle(code, "white", {"type": "action", "action": {"type": "move", "path": [22, 18]}})
    assert room.view("white")["state"]["moves"] == ["11-15", "22-18"]


def test_a_refused_message_changes_no_cached_view() -> None:
    now = FakeNow()
    svc = RoomService(GAMES, None, now=now)
    code, _, _, _ = svc.create("checkers", {}, "none", name="Ann", side="white")
    svc.join(code, "Bob")
    before = json.loads(json.dumps(svc.room(code).view("black")))
    with pytest.raises(ActionRefused):
        svc.handle(code, "black", {"type": "action", "action": {"type": "move", "path": [9, 5]}})
    assert svc.room(code).view("black") == before
