"""The words both games' pages show when something goes wrong, run by Node: ``api.js``'s
``request`` turning a server's refusal ``{error: {code, message}}`` into an ``ApiError`` (a
JSON answer, a text answer, no server), ``errorWords`` for a refusal, a room's WebSocket
error frame ``{code, message}`` and the page's own error, ``room_client.js``'s
``connectionWords`` for the connection's states (and ``connectionHeading``, the heading's
short words for one that is not open) and ``joinWords`` for a refused join, and
``notes.js``'s note box (its words, hidden when there are none)."""

from __future__ import annotations

from typing import Any

import pytest

from node_support import needs_node, run_node

pytestmark = needs_node

HARNESS = r"""
const boxes = {};
globalThis.document = { getElementById: (id) => (boxes[id] ||= { textContent: "x",
    hidden: false }) };
globalThis.window = { localStorage: null, sessionStorage: null, location: { hash: "" } };
const answers = {
  "/refused": { ok: false, status: 422, body: { error: { code: "illegal_move",
      message: "That checker cannot move there." } } },
  "/broken": { ok: false, status: 500, body: null },
  "/text": { ok: true, status: 200, text: "a .mat" },
  "/gone.mat": { ok: false, status: 404, body: { error: { code: "not_found",
      message: "No such room." } } },
  "/empty": { ok: true, status: 204, body: null },
};
globalThis.fetch = async (path, init) => {
  if (path === "/down") throw new TypeError("Failed to fetch");
  const a = answers[path];
  return { ok: a.ok, status: a.status, text: async () => a.text,
    json: async () => { if (a.body === null) throw new SyntaxError("no JSON"); return a.body; } };
};
const [apiUrl, roomUrl, notesUrl] = process.argv.slice(2);
const { ApiError, errorWords, request } = await import(apiUrl);
const { connectionHeading, connectionWords, joinWords } = await import(roomUrl);
const { showError, showText } = await import(notesUrl);
const out = { refusals: [] };
for (const [path, text] of [["/refused", false], ["/broken", false], ["/gone.mat", true], ["/down",
    false]]) {
  try {
    await request("GET", path, undefined, { text });
    out.refusals.push(null);
  } catch (err) {
    out.refusals.push([err instanceof ApiError, err.status, err.code, errorWords(err)]);
  }
}
out.text = await request("GET", "/text", undefined, { text: true });
out.empty = await request("DELETE", "/empty");
out.words = [
  errorWords({ code: "not_your_turn", message: "It is not your turn.", ref: 3 }),
  errorWords(new Error("13/8 cannot be played now.")),
  errorWords(new TypeError("x is undefined")),
  errorWords("lost"),
];
out.connection = ["connecting", "open", "reconnecting", "replaced", "gone", "closed", "other"]
  .map((state) => connectionWords(state));
out.restarted = connectionWords("open", { restarted: true });
out.heading = [undefined, "connecting", "reconnecting", "replaced", "closed"]
  .map((state) => connectionHeading(state));
out.join = ["room_closed", "seats_taken", "room_full", "invalid_name"].map((code) => joinWords(
  new ApiError(`the server's words for ${code}`, 409, code)));
showError("The server cannot be reached.");
out.error = { ...boxes.error };
showError("");
out.cleared = { ...boxes.error };
showText("online-note", "Rematch: you play black this time.");
out.note = { ...boxes["online-note"] };
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_node(tmp_path_factory.mktemp("words-js"), HARNESS,
                    "api.js", "room_client.js", "notes.js")


def test_a_refusal_in_the_servers_words(out: dict[str, Any]) -> None:
    assert out["refusals"] == [
        [True, 422, "illegal_move", "That checker cannot move there."],
        [True, 500, "http_error", "The server answered 500."],
        [True, 404, "not_found", "No such room."],  # a text request's refusal: the same words
        [True, 0, "network", "The server cannot be reached. Is `backgammon serve` still running?"],
    ]
    assert out["text"] == "a .mat"
    assert out["empty"] is None


def test_the_words_of_a_frame_and_of_the_pages_own_error(out: dict[str, Any]) -> None:
    assert out["words"] == [
        "It is not your turn.",
        "Something went wrong: 13/8 cannot be played now.",
        "Something went wrong: x is undefined",
        "Something went wrong: lost",
    ]


def test_the_connections_words(out: dict[str, Any]) -> None:
    assert out["connection"] == [
        "Connecting…", "Connected.", "Connection lost: reconnecting…",
        "This game was opened in another window or tab; this one stepped aside.",
        "This online game no longer exists (a room left empty expires).", "Not connected.", "",
    ]
    assert out["restarted"] == "The server restarted; reconnected."
    # the heading of a page that had its room and lost the connection: not "Connecting…"
    assert out["heading"] == [
        "Connecting…", "Connecting…", "Reconnecting…", "Not connected.", "Not connected."]


def test_a_refused_join_in_the_words_of_its_code(out: dict[str, Any]) -> None:
    """Each code a join is refused with has its own words: a room whose host left, a room
    whose seats are taken, a room whose storage is used up; any other code the server's."""
    assert out["join"] == [
        "That game was closed by its host: ask them for a new invitation.",
        "That game already has two players.",
        "That game has stored all the server keeps for one game, so it takes no one new: ask"
        " for a new invitation.",
        "the server's words for invalid_name",
    ]


def test_the_note_box(out: dict[str, Any]) -> None:
    assert out["error"] == {"textContent": "The server cannot be reached.", "hidden": False}
    assert out["cleared"] == {"textContent": "", "hidden": True}
    assert out["note"] == {"textContent": "Rematch: you play black this time.", "hidden": False}
