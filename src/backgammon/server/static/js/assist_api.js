// The server's review, hints, explanation and .mat endpoints (server/records_api.py), the
// computer's evaluation (server/analysis_api.py, server/positions_api.py) and the analysis.
// The page never decides a rule: whether a move is allowed, and why not, comes from here.

import { deleteJob, request } from "./api.js";

const game = (id) => `/api/games/${encodeURIComponent(id)}`;

/** Every position of the game to step through: {title, names, history, frames, ...}. */
export function getReview(id) {
  return request("GET", `${game(id)}/review`);
}

/** The legal moves for the dice left: {active, dice_left, moves, plays, plays_total, text}. */
export function getHints(id) {
  return request("GET", `${game(id)}/hints`);
}

/**
 * Why a checker cannot go from `from` to `to` ("1".."24", "bar", "off"; `to` null: why it
 * cannot be picked up). Resolves to {legal, text, reason, rule, source}.
 */
export function explainMove(id, from, to) {
  const place = (where) => (/^\d+$/.test(String(where)) ? Number(where) : where);
  const body = { from: place(from) };
  if (to !== null && to !== undefined) body.to = place(to);
  return request("POST", `${game(id)}/explain`, body);
}

/** The URL of the .mat download: the whole session, or game `number` only. */
export function exportUrl(id, number = null) {
  return `${game(id)}/export.mat${number ? `?game=${number}` : ""}`;
}

/** The .mat text of the session (or one game). */
export function exportText(id, number = null) {
  return fetchText(exportUrl(id, number));
}

/** GET a text file (`headers` added to the request); an error answer throws an ApiError in
 * the server's words, an unreachable server one saying so. */
export function fetchText(url, headers = {}) {
  return request("GET", url, undefined, { headers, text: true });
}

/** Read and replay a .mat transcript on the server; resolves to its review. */
export function importMat(text, name) {
  return request("POST", "/api/records/import", { text, name });
}

/** The computer's hint now (GET /api/games/{id}/evaluation): ranked plays or the cube hint. */
export function getEvaluation(id) {
  return request("GET", `${game(id)}/evaluation`);
}

/**
 * The computer's evaluation of the decision an XGID describes (POST /api/positions/evaluation):
 * the same answer as getEvaluation, for a position of a review. `gammons` false: the game was
 * played without gammons (an XGID cannot say so).
 */
export function evaluatePosition(position, gammons = true) {
  return request("POST", "/api/positions/evaluation", { position, gammons });
}

/** Start an analysis of a saved game (`{game_id}`) or a .mat text (`{mat, name}`): its job. */
export function startAnalysis(body) {
  return request("POST", "/api/analysis", body);
}

/** An analysis job: {id, status, done, total, progress, result, error}. */
export function getAnalysis(jobId) {
  return request("GET", `/api/analysis/${encodeURIComponent(jobId)}`);
}

/** Cancel an analysis this page started: the job, its status "cancelled" (or as it ended).
 * `keepalive`: sent even as the page goes away. */
export function cancelAnalysis(jobId, options = {}) {
  return deleteJob(`/api/analysis/${encodeURIComponent(jobId)}`, options);
}
