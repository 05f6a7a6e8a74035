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
from pathlib import Path

from backgammon.services.room_migration import table_code
from node_support import STORE_JS, needs_node, run_node

pytestmark = needs_node

MOVED = "aB3_xyz-12345678Q"
STAYS = "stillOldRoom1234"

HARNESS = STORE_JS + """
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
    out = run_node(tmp_path, HARNESS, "seat_migration.js")
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
