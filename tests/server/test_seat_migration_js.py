"""The page's half of the rooms' move to the shared door (``static/js/seat_migration.js``), run
by Node with the browser's storage, address and ``fetch`` stood in for: an old-door seat whose
room the server says it moved (``POST /api/online/moved``) is kept as the shared door's seat
under the code the server moved the room to
(:func:`backgammon.services.room_migration.table_code`) and forgotten at the old door, the
address naming it rewritten; a seat whose room did not move is left as it is. The module is
the page's one reader of the old door's localStorage format (``keptSeats``): entries that
are not old seats are not read as seats."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from backgammon.server.app import STATIC_DIR
from backgammon.services.room_migration import table_code

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

MOVED = "aB3_xyz-12345678Q"
STAYS = "stillOldRoom1234"

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
const loc = { pathname: "/", search: "?x=1", hash: "#online=MOVED", origin: "http://page" };
globalThis.window = { localStorage: local, sessionStorage: session, location: loc };
globalThis.location = loc;
globalThis.history = { state: null, replaceState(state, title, url) {
  const at = url.indexOf("#"); loc.hash = at < 0 ? "" : url.slice(at); } };
globalThis.document = { getElementById() { return null; }, addEventListener() {},
  querySelector() { return null; }, querySelectorAll() { return []; } };
local.setItem("backgammon.online.MOVED.host", JSON.stringify({ token: "host-token", seen: 5 }));
local.setItem("backgammon.online.STAYS.guest", JSON.stringify({ token: "guest-token", seen: 3 }));
local.setItem("backgammon.online.name", "Ann");
local.setItem("backgammon.online.short1.host", JSON.stringify({ token: "x" }));
local.setItem("backgammon.online.noToken12.guest", JSON.stringify({ seen: 9 }));
const asked = [];
globalThis.fetch = async (path, init) => {
  asked.push([path, init.method, JSON.parse(init.body)]);
  const moved = JSON.parse(init.body).codes.includes("MOVED") ? { ["MOVED"]: "NEWCODE" } : {};
  return { ok: true, status: 200, json: async () => ({ moved }) };
};
const { keptSeats, migrateOldSeats } = await import(process.argv[2]);
const kept = keptSeats();
const result = await migrateOldSeats(loc);
console.log(JSON.stringify({ kept, left: keptSeats(), result, asked, hash: loc.hash,
  seats: JSON.parse(local.getItem("gametable.seats")),
  hosted: JSON.parse(local.getItem("bg.onlineTables.hosted")),
  moved: local.getItem("backgammon.online.MOVED.host"),
  stays: local.getItem("backgammon.online.STAYS.guest") }));
""".replace("NEWCODE", table_code(MOVED)).replace("MOVED", MOVED).replace("STAYS", STAYS)


def test_a_moved_rooms_seat_is_kept_at_the_shared_door_and_the_address_follows(
        tmp_path: Path) -> None:
    assert NODE is not None
    harness = tmp_path / "harness.mjs"
    harness.write_text(HARNESS, encoding="utf-8")
    module = (STATIC_DIR / "js" / "seat_migration.js").as_uri()
    done = subprocess.run([NODE, str(harness), module], capture_output=True, text=True,
                          timeout=60, check=True)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["kept"] == [{"code": MOVED, "seat": "host", "seen": 5},
                           {"code": STAYS, "seat": "guest", "seen": 3}]  # the last used first
    assert out["left"] == [{"code": STAYS, "seat": "guest", "seen": 3}]
    code = table_code(MOVED)
    assert code == "AB3XYZ12345678Q"  # what the page's normalCode makes of the old code
    assert out["asked"] == [["/api/online/moved", "POST", {"codes": [MOVED, STAYS]}]]
    assert out["result"] == {"moved": [{"code": MOVED, "next": code, "seat": "host"}],
                             "address": f"/?x=1#online={code}"}
    assert out["seats"] == {code: {"token": "host-token", "game": "backgammon", "side": None,
                                   "at": 5}}
    assert out["hosted"] == [code]
    assert out["hash"] == f"#online={code}"
    assert out["moved"] is None  # forgotten at the old door
    assert json.loads(out["stays"]) == {"token": "guest-token", "seen": 3}  # left alone
