// This browser's record of its checkers games: won, lost and drawn against the computer by
// level, and against people online, kept by the server (/api/stats/tables and
// /api/stats/rooms, gametable/stats_http.py) under this browser's random id (the one the
// backgammon page's record and saved positions use).
//
// A game is counted when it ends: a game against the computer by its table's id and token
// (countTable), an online game by its room's code and this seat's token (countRoom,
// checkers_online.js asks after each game of a room). The result is the server's, read from
// the table or the room it refereed, never the page's; a game is counted once however often
// the page asks. The Record dialog shows the counts and clears them after asking.

import { errorWords, request } from "./api.js";
import { browserId } from "./saved.js";

const $ = (id) => document.getElementById(id);
const GAME = "checkers";
export const LEVEL_NAMES = { easy: "Easy", medium: "Medium", hard: "Hard", expert: "Expert" };
/** The record's opponent for the games played against a person in an online room. */
export const ONLINE = "online";

const query = (browser) => `?browser=${encodeURIComponent(browser)}&game=${GAME}`;

/** This browser's checkers record: {game, rows: [{opponent, games, won, lost, drawn}], total}. */
export function fetchRecord(browser = browserId()) {
  return request("GET", `/api/stats/tables${query(browser)}`);
}

/** Count the finished game at a table in this browser's record: {counted, record}. */
export function countTable(table, token, browser = browserId()) {
  return request("POST", "/api/stats/tables", { browser, table, token });
}

/**
 * Count the finished games of an online room's seat in this browser's record: {counted}, how
 * many of the seat's games of the game in play the record holds (the server reads the result
 * from the room; this seat's token proves the seat).
 */
export function countRoom(code, token, browser = browserId()) {
  return request("POST", "/api/stats/rooms", { browser, code, token });
}

/** The Record dialog's name of an opponent: "Computer (Easy)", "A person online". */
export function opponentWords(opponent) {
  if (opponent === ONLINE) return "A person online";
  return `Computer (${LEVEL_NAMES[opponent] || opponent})`;
}

/** Forget this browser's checkers record: {cleared}. */
export function clearRecord(browser = browserId()) {
  return request("DELETE", `/api/stats/tables${query(browser)}`);
}

/** "2 won, 1 lost, 0 drawn" */
export function recordWords(row) {
  return `${row.won} won, ${row.lost} lost, ${row.drawn} drawn`;
}

function cell(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  node.textContent = String(text);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

function line(row, name, kind) {
  const tr = document.createElement("tr");
  tr.dataset.kind = kind;
  if (row.opponent) tr.dataset.level = row.opponent;
  tr.append(cell("th", name, { scope: "row" }), cell("td", row.games), cell("td", row.won),
    cell("td", row.lost), cell("td", row.drawn));
  return tr;
}

/** The Record dialog (#record-dialog) and its button. */
export class RecordView {
  constructor() {
    $("record-button").addEventListener("click", () => this.open());
    $("record-close").addEventListener("click", () => $("record-dialog").close());
    $("record-clear").addEventListener("click", () => this.ask(true));
    $("record-clear-no").addEventListener("click", () => this.ask(false));
    $("record-clear-yes").addEventListener("click", () => this.clear());
  }

  async open() {
    this.ask(false);
    $("record-status").textContent = "";
    const dialog = $("record-dialog");
    // busy until the server's figures are drawn (the ones shown are the last read)
    dialog.setAttribute("aria-busy", "true");
    if (!dialog.open) dialog.showModal();
    try {
      await this.refresh();
    } finally {
      dialog.removeAttribute("aria-busy");
    }
  }

  ask(asking) {
    $("record-confirm").hidden = !asking;
    $("record-clear").hidden = asking;
    if (asking) $("record-clear-no").focus();
  }

  async refresh() {
    try {
      this.draw(await fetchRecord());
    } catch (err) {
      $("record-status").textContent = errorWords(err);
    }
  }

  draw(record) {
    const body = $("record-body");
    const rows = record.rows.map((row) => line(row, opponentWords(row.opponent), "row"));
    if (record.total.games) rows.push(line(record.total, "Total", "total"));
    body.replaceChildren(...rows);
    $("record-table").hidden = !record.total.games;
    $("record-empty").hidden = Boolean(record.total.games);
    $("record-clear").disabled = !record.total.games;
  }

  async clear() {
    try {
      const { cleared } = await clearRecord();
      this.ask(false);
      $("record-status").textContent = `The record is cleared (${cleared} game${cleared === 1 ? "" : "s"} forgotten).`;
      await this.refresh();
    } catch (err) {
      $("record-status").textContent = errorWords(err);
    }
  }
}
