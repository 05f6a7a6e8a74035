// The shared table's door (gametable/http.py) as the checkers page uses it: make a table, read
// it, act at it, export it. Every request after the first brings the table's token in the
// X-Table-Token header. Refusals reject with ApiError carrying the server's words.

import { ApiError, request } from "./api.js";

export { ApiError };

/** The site's one request function, with the table's token when there is one. */
function call(method, path, { token, body, text = false } = {}) {
  return request(method, path, body, { headers: token ? { "X-Table-Token": token } : {}, text });
}

const base = (id) => `/api/tables/${encodeURIComponent(id)}`;

/**
 * Make a checkers table. `seats` {black: {kind, level?}, white: {...}}; `start` a FEN or null;
 * `ballot` a three-move ballot's key, "random" or null. Resolves to {id, token, view}.
 */
export function createTable({ seats, timeControl = "none", start = null, ballot = null }) {
  const settings = ballot ? { ballot } : start ? { start } : {};
  return call("POST", "/api/tables", {
    body: { game: "checkers", settings, seats, time_control: timeControl },
  });
}

/** Read a table (its clock checked by the server first): {id, view}; `side` picks the viewer. */
export function readTable(id, token, side = null) {
  const query = side ? `?side=${encodeURIComponent(side)}` : "";
  return call("GET", `${base(id)}${query}`, { token });
}

/** One action of `side` ({type: "move", path} | {type: "offer_draw"} | ...): {id, view}. */
export function act(id, token, side, action) {
  return call("POST", `${base(id)}/actions`, { token, body: { side, action } });
}

/** The game as a PDN file's text. */
export function exportPdn(id, token) {
  return call("GET", `${base(id)}/export.pdn`, { token, text: true });
}

/** Every position of the table's game: the frames (checkers_review.js). */
export function reviewTable(id, token) {
  return call("GET", `/api/checkers/tables/${encodeURIComponent(id)}/review`, { token });
}

/** Open a PDN file's text: {name, count, games: [{number, title, result, ok, error, ...frames}],
 * left_out} (backgammon/server/checkers_api.py). */
export function openPdn(text, name = null) {
  return call("POST", "/api/checkers/pdn", { body: { text, name } });
}

/** The three-move ballots of the ACF's deck: {ballots: [{key, number, moves, name, label}]}. */
export function listBallots() {
  return call("GET", "/api/checkers/ballots");
}
