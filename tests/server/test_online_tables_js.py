"""The online page module (``static/js/online_tables.js``), its parts that decide without a
server, run by Node with the browser's storage, address and ``fetch`` stood in for: the room
an address names and the code in a pasted invite (the shared door's codes, and the old door's,
which seat_migration.js carries over), one game cut from a ``.mat`` match for the export, and
this browser's backgammon seats at the shared door for the New game dialog; nothing asks the
server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from node_support import STORE_JS, needs_node, run_node

pytestmark = needs_node

HARNESS = STORE_JS + """
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
out.rooms = [m.roomFromLocation(at("", "")), m.roomFromLocation(at("", "#join=ABCD2345")),
  m.roomFromLocation(at("?x=1", "#online=old_Room-held1")), m.roomFromLocation(at("", "#join=ab")),
  m.roomFromLocation(at("", "#game=g1&online=ABCD2345"))];
out.codes = [m.codeFromText(" ABCD2345 "), m.codeFromText("http://host:8765/#join=ABCD2345"),
  m.codeFromText("see http://h/?a=1#online=old_Room-held1 now"), m.codeFromText("ABC"),
  m.codeFromText("")];
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
const roomView = (you, names) => ({
  room: { you, names, code: "AAAA2222", games_before: 0, version: 3, round: null, rematch: [] },
  state: { can: { roll: false, rematch: false }, phase: "move", result: null }, outcome: null,
  clock: null });
out.players = [
  m.pageView(roomView("white", { white: "Alice", black: "Bob" })).players,
  m.pageView(roomView("black", { white: "", black: "" })).players];
const points = Array(26).fill(0);
points[6] = 5; points[8] = 3; points[13] = 5; points[24] = 2;  // White's start
points[1] = -2; points[12] = -5; points[17] = -3; points[19] = -5;
const moving = { room: { you: "white", names: { white: "A", black: "B" }, code: "AAAA2222",
    games_before: 0, version: 3, round: null, rematch: [] },
  state: { can: { roll: false, rematch: false }, phase: "move", result: null, dice: [3, 5],
    message: "You rolled 5-3: move a checker.", pips: { white: 167, black: 167 } },
  outcome: null, clock: null };
const after = points.slice(); after[8] = 2; after[3] = 1;  // 8/3 moved on the page
const half = { board: { points: after, off: { white: 0, black: 0 } }, legal: [1],
  played: ["8/3"], dice_left: [3], complete: false };
const done = { ...half, played: ["8/3", "6/3"], dice_left: [], complete: true };
out.moving = [m.pageView(moving, half), m.pageView(moving, done), m.pageView(moving)]
  .map((v) => [v.message, v.pips.white]);
out.opening = m.turnWords({ dice: [6, 5],
  message: "Opening roll: Alice 6, Bob 5. You start with 6-5: move a checker." },
  { ...half, dice_left: [5] });
out.doubles = m.turnWords({ dice: [4, 4], message: "You rolled 4-4: move a checker." },
  { ...half, dice_left: [4, 4] });
out.asked = asked;
console.log(JSON.stringify(out));
"""


def run_harness(tmp_path: Path) -> dict[str, Any]:
    out = run_node(tmp_path, HARNESS, "online_tables.js")
    assert out["asked"] == []  # nothing here asks the server
    return out


def test_the_address_the_invite_the_export_cut_and_the_seats(tmp_path: Path) -> None:
    out = run_harness(tmp_path)
    # the room an address names: an invite (join) or a page in the room (online)
    assert out["rooms"] == [None, {"code": "ABCD2345", "mode": "join"},
                            {"code": "old_Room-held1", "mode": "online"}, None,
                            {"code": "ABCD2345", "mode": "online"}]
    # the code in what a person pasted: the code, or a link holding it
    assert out["codes"] == ["ABCD2345", "ABCD2345", "old_Room-held1", None, None]
    assert out["whole"] is True
    assert out["game2"] == (" 3 point match\n\n Game 2\n White : 1   Black : 0\n"
                            "  1)    52: 13/8 13/11\n")
    assert out["error"] == "This match has 2 games: there is no game 3."
    assert out["seats"] == [
        {"code": "CCCC4444", "side": "black", "seen": 7, "host": False},
        {"code": "AAAA2222", "side": "white", "seen": 5, "host": True},
    ]
    assert out["after"] == [["CCCC4444"], []]


def test_the_players_names_the_page_shows(tmp_path: Path) -> None:
    """Your own name with "(you)", or "You" when you gave none (never "You (you)"); the
    opponent's name, or its colour."""
    out = run_harness(tmp_path)
    named, nameless = out["players"]
    assert (named["white"]["name"], named["black"]["name"]) == ("Alice (you)", "Bob")
    assert (nameless["white"]["name"], nameless["black"]["name"]) == ("White", "You")


def test_the_status_and_pips_follow_the_turn_built_on_the_page(tmp_path: Path) -> None:
    """Online, a turn is sent whole at Done; while it is built the status line and the
    player's pips follow each checker moved, as they do offline (words.py's words)."""
    out = run_harness(tmp_path)
    assert out["moving"] == [["You play 5-3: move a checker with the 3.", 162],
                             ["You played 5-3: press Done (or Undo).", 162],
                             ["You rolled 5-3: move a checker.", 167]]
    assert out["opening"] == ("Opening roll: Alice 6, Bob 5. You play 6-5: move a checker "
                              "with the 5.")
    assert out["doubles"] == "You play 4-4: move a checker (2 of the 4 dice left)."
