"""The shared door's page module (``static/js/online_tables.js``), its parts that decide
without a server, run by Node with the browser's storage, address and ``fetch`` stood in for:
which door the page plays at (the shared one by default; ``?door=rooms``, the setting, or a
room backgammon's own door still holds: the old one), one game cut from a ``.mat`` match for
the export, and this browser's backgammon seats at the shared door for the New game dialog."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from backgammon.server.app import STATIC_DIR

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

HARNESS = """
class Store {
  constructor() { this.m = new Map(); }
  get length() { return this.m.size; }
  key(i) { return [...this.m.keys()][i] ?? null; }
  getItem(k) { return this.m.has(k) ? this.m.get(k) : null; }
  setItem(k, v) { this.m.set(k, String(v)); }
  removeItem(k) { this.m.delete(k); }
}
const local = new Store(), session = new Store();
const at = (search, hash) => ({ pathname: "/", search, hash, origin: "http://page" });
globalThis.window = { localStorage: local, sessionStorage: session, location: at("", "") };
globalThis.location = window.location;
globalThis.document = { getElementById() { return null; }, addEventListener() {},
  querySelector() { return null; }, querySelectorAll() { return []; } };
const asked = [];
globalThis.fetch = async (path) => {
  asked.push(path);
  const held = path.endsWith("/old_Room-held1");
  return { ok: held, status: held ? 200 : 404,
    json: async () => (held ? { open: true }
      : { error: { code: "room_not_found", message: "no room" } }) };
};
const m = await import(process.argv[2]);
const out = {};
out.doors = [m.onlineDoor(at("", "")), m.onlineDoor(at("?door=rooms", "")),
  m.onlineDoor(at("?door=tables", ""))];
local.setItem("bg.onlineDoor", "rooms");
out.doors.push(m.onlineDoor(at("", "")), m.onlineDoor(at("?door=tables", "")));
local.removeItem("bg.onlineDoor");
out.picked = [
  await m.pickDoor(at("", "")),
  await m.pickDoor(at("", "#join=ABCD2345")),
  await m.pickDoor(at("", "#join=old_Room-held1")),
  await m.pickDoor(at("", "#online=old_Room-gone1")),
  await m.pickDoor(at("?door=tables", "#join=old_Room-held1")),
];
out.asked = asked;
const mat = [" 3 point match", "", " Game 1", " White : 0   Black : 0", "  1) 31: 8/5 6/5",
  "      Wins 1 point", "", " Game 2", " White : 1   Black : 0", "  1)    52: 13/8 13/11",
  ""].join("\\n");
out.whole = m.matGame(mat, null) === mat;
out.game2 = m.matGame(mat, 2);
try { m.matGame(mat, 3); } catch (err) { out.error = err.message; }
local.setItem("gametable.seats", JSON.stringify({
  AAAA2222: { token: "t1", game: "backgammon", side: "white", at: 5 },
  BBBB3333: { token: "t2", game: "checkers", side: "black", at: 9 },
  CCCC4444: { token: "t3", game: "backgammon", side: "black", at: 7 },
  DDDD5555: { game: "backgammon", side: "white", at: 8 } }));
local.setItem("bg.onlineTables.hosted", JSON.stringify(["AAAA2222"]));
out.seats = m.tablesSeats();
m.forgetTablesSeat("AAAA2222");
out.after = [m.tablesSeats().map((s) => s.code),
  JSON.parse(local.getItem("bg.onlineTables.hosted"))];
console.log(JSON.stringify(out));
"""


def run_harness(tmp_path: Path) -> dict[str, Any]:
    assert NODE is not None
    harness = tmp_path / "harness.mjs"
    harness.write_text(HARNESS, encoding="utf-8")
    module = (STATIC_DIR / "js" / "online_tables.js").as_uri()
    done = subprocess.run([NODE, str(harness), module], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out


def test_the_door_the_export_cut_and_the_seats(tmp_path: Path) -> None:
    out = run_harness(tmp_path)
    # the shared door by default; the old one when asked by the address or the setting
    assert out["doors"] == ["tables", "rooms", "tables", "rooms", "tables"]
    # no room, a code as the shared door makes them: no question asked; an old code: the old
    # door while it holds the room, else the shared door's (moved, or gone); ?door= decides
    assert out["picked"] == ["tables", "tables", "rooms", "tables", "tables"]
    assert out["asked"] == ["/api/online/rooms/old_Room-held1",
                            "/api/online/rooms/old_Room-gone1"]
    assert out["whole"] is True
    assert out["game2"] == (" 3 point match\n\n Game 2\n White : 1   Black : 0\n"
                            "  1)    52: 13/8 13/11\n")
    assert out["error"] == "This match has 2 games: there is no game 3."
    assert out["seats"] == [
        {"code": "CCCC4444", "side": "black", "seen": 7, "host": False},
        {"code": "AAAA2222", "side": "white", "seen": 5, "host": True},
    ]
    assert out["after"] == [["CCCC4444"], []]
