// The JSON API of the server: one function per request, errors as ApiError with the server's
// readable message. The page never decides a rule: it sends what the person did and shows the
// state the server answers with.

export class ApiError extends Error {
  /**
   * @param {string} message what went wrong, in words a person can read
   * @param {number} status the HTTP status (0 when the server could not be reached)
   * @param {string} code the server's error code, e.g. "illegal_move"
   */
  constructor(message, status, code) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
  }
}

/**
 * The words a page shows for what went wrong, the same at every door: a server's refusal
 * ({error: {code, message}}, as ApiError), a room's WebSocket error frame ({code, message},
 * room_client.js), or the page's own error ("Something went wrong: ...").
 */
export function errorWords(err) {
  if (err instanceof ApiError) return err.message;
  if (err && typeof err === "object" && !(err instanceof Error) && typeof err.message === "string") {
    return err.message;
  }
  return `Something went wrong: ${err instanceof Error ? err.message : String(err)}`;
}

const UNREACHABLE = "The server cannot be reached. Is `backgammon serve` still running?";

/**
 * One request; resolves to the answer's JSON (or its text with `text`), rejects with ApiError.
 * `headers` are added to the request's (e.g. the shared table's X-Table-Token).
 */
export async function request(method, path, body, { headers = {}, text = false } = {}) {
  const init = { method, headers: { Accept: text ? "text/plain" : "application/json", ...headers } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(UNREACHABLE, 0, "network");
  }
  if (response.ok && text) return response.text();
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    const error = data && data.error;
    const message = error && error.message ? error.message : `The server answered ${response.status}.`;
    throw new ApiError(message, response.status, (error && error.code) || "http_error");
  }
  return data;
}

/**
 * DELETE a job this page started (an analysis, a rollout): resolves to the job as it ended.
 * `keepalive`: sent even as the page goes away, its answer not waited for (resolves to null).
 */
export function deleteJob(path, { keepalive = false } = {}) {
  if (keepalive) {
    fetch(path, { method: "DELETE", keepalive: true }).catch(() => {});
    return Promise.resolve(null);
  }
  return request("DELETE", path);
}

/** Start a game; `settings` as the new-game form gives them. Resolves to the state. */
export function createGame(settings) {
  return request("POST", "/api/games", settings);
}

/** The state of a saved game. */
export function getGame(id) {
  return request("GET", `/api/games/${encodeURIComponent(id)}`);
}

/** The table's action type of each of the page's buttons (the rest have the same name). */
const ACTION_TYPES = { move: "move_checker", done: "end_turn", next: "next_game" };

/**
 * Send one action: "roll", "undo", "done", "double", "take", "beaver", "raccoon", "drop",
 * "next", "move" (body {from, to}: one checker) or "resign" (body {level}), as the table's
 * action JSON (POST /api/games/{id}/actions, the same JSON as every door); "rematch" starts a
 * new session (POST /api/games/{id}/rematch). Resolves to the new state.
 */
export function act(id, action, body = {}) {
  const game = `/api/games/${encodeURIComponent(id)}`;
  if (action === "rematch") return request("POST", `${game}/rematch`, {});
  return request("POST", `${game}/actions`, { ...body, type: ACTION_TYPES[action] || action });
}

/** Let the computer take its turn; resolves to {steps, state}. */
export function computerTurn(id) {
  return request("POST", `/api/games/${encodeURIComponent(id)}/computer`, {});
}

/** Read a Position ID (with `turn` on roll), "PositionID:MatchID" or an XGID: {setup, ids, text, summary}. */
export function readPosition(text, turn = "white") {
  return request("POST", "/api/positions/read", { text, turn });
}

/** Check a position set up by hand: {setup, ids, text, summary}, or ApiError with the reason. */
export function checkPosition(setup) {
  return request("POST", "/api/positions/check", { setup });
}

/** The computer's advice in a setup: {kind: "plays"|"cube", text, plays}. */
export function positionHint(setup) {
  return request("POST", "/api/positions/hint", { setup });
}

/** This browser's saved positions: {positions: [...], limit}. */
export function savedPositions(browser) {
  return request("GET", `/api/saved-positions?browser=${encodeURIComponent(browser)}`);
}

/** Keep a position under a name; ApiError 409 when six are kept already. */
export function savePosition(browser, name, setup) {
  return request("POST", "/api/saved-positions", { browser, name, setup });
}

/** Forget a saved position. */
export function deletePosition(browser, id) {
  return request("DELETE", `/api/saved-positions/${encodeURIComponent(id)}?browser=${encodeURIComponent(browser)}`);
}
