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

/** One JSON request; resolves to the answer's JSON, rejects with ApiError. */
export async function request(method, path, body) {
  const init = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError("The server cannot be reached. Is `backgammon serve` still running?", 0, "network");
  }
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

/** Start a game; `settings` as the new-game form gives them. Resolves to the state. */
export function createGame(settings) {
  return request("POST", "/api/games", settings);
}

/** The state of a saved game. */
export function getGame(id) {
  return request("GET", `/api/games/${encodeURIComponent(id)}`);
}

/**
 * Send one action: "roll", "undo", "done", "double", "take", "drop", "next", "rematch",
 * "move" (body {from, to}) or "resign" (body {level}). Resolves to the new state.
 */
export function act(id, action, body = {}) {
  return request("POST", `/api/games/${encodeURIComponent(id)}/${action}`, body);
}

/** Let the computer take its turn; resolves to {steps, state}. */
export function computerTurn(id) {
  return request("POST", `/api/games/${encodeURIComponent(id)}/computer`, {});
}
