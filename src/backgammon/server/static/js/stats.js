// This browser's record and stats, the seed of the game on the board, and the Options that
// forget things: the record, the settings, and (Start over) the games not finished in this
// browser with the saved positions. Each of those asks first.
//
// The record is kept by the server (SQLite) under this browser's random id (the one the saved
// positions use, from localStorage); it is written when a game this browser started ends.
// Nothing is sent anywhere else.

import { errorWords, request } from "./api.js";
import { showText } from "./notes.js";
import { recentGames } from "./recent.js";
import { browserId } from "./saved.js";
import { clearSettings } from "./settings.js";

const $ = (id) => document.getElementById(id);

/** The largest seed: 2**53 - 1, as the server takes it. */
export const MAX_SEED = Number.MAX_SAFE_INTEGER;

const OPPONENTS = {
  easy: "Computer (Easy)",
  medium: "Computer (Medium)",
  hard: "Computer (Hard)",
  expert: "Computer (Expert)",
  master: "Computer (Master)",
  pass_and_play: "Pass & play",
  online: "Online",
};
const MODES = { single: "Single game", match: "Match", money: "Money" };

/** This browser's stats: {rows, by_opponent, by_mode, total}. */
export function fetchStats(browser = browserId()) {
  return request("GET", `/api/stats?browser=${encodeURIComponent(browser)}`);
}

/** Forget this browser's record: {cleared}. */
export function clearRecord(browser = browserId()) {
  return request("DELETE", `/api/stats?browser=${encodeURIComponent(browser)}`);
}

/** Forget the game `game` (an id or null) and this browser's saved positions. */
export function startOver(game, browser = browserId()) {
  return request("POST", "/api/start-over", { browser, game: game || null });
}

/**
 * A seed typed by a person: null when empty (a new seed), the digits when valid; throws an
 * Error with the reason otherwise (the server checks again and says the same).
 */
export function readSeed(text) {
  const value = String(text || "").trim();
  if (!value) return null;
  if (!/^\d+$/.test(value)) {
    throw new Error(`A seed is a whole number from 0 to ${MAX_SEED} (digits only): "${value}" is not one.`);
  }
  if (value.length > 16 || Number(value) > MAX_SEED) {
    throw new Error(`A seed is a whole number from 0 to ${MAX_SEED}: ${value} is too large.`);
  }
  return value;
}

function pair(won, lost) {
  return `${won}–${lost}`;
}

export class StatsView {
  /**
   * @param {object} hooks
   * @param {() => object|null} hooks.getGame the local game on the board
   * @param {() => void} hooks.onSettingsCleared the settings went back to the defaults
   * @param {() => void} hooks.onStartOver the game in progress is forgotten (the page forgets
   *   its online seats too)
   * @param {(seed: string) => void} hooks.newGameFromSeed open the New game form with a seed
   */
  constructor(hooks) {
    this.hooks = hooks;
    $("stats-button").addEventListener("click", () => this.open());
    $("options-stats").addEventListener("click", () => {
      $("settings-dialog").close();
      this.open();
    });
    $("stats-close").addEventListener("click", () => $("stats-dialog").close());
    $("stats-clear").addEventListener("click", () => this.clearRecord($("stats-status")));
    $("options-clear-record").addEventListener("click", () => this.clearRecord($("options-status")));
    $("options-clear-settings").addEventListener("click", () => this.clearSettings());
    $("options-start-over").addEventListener("click", () => this.startOver());
    $("seed-copy").addEventListener("click", () => this.copySeed());
    $("seed-new-game").addEventListener("click", () => {
      const seed = $("seed-value").textContent;
      if (seed) this.hooks.newGameFromSeed(seed);
    });
    $("seed-input").addEventListener("input", () => this.showSeedError(""));
  }

  // -- the seed ---------------------------------------------------------------------------

  /** Show the seed of the local game on the board (hidden for a game without one). */
  showSeed(game) {
    const seed = game && game.seed !== null && game.seed !== undefined ? String(game.seed) : "";
    $("seed-value").textContent = seed;
    $("seed-line").hidden = !seed;
    $("seed-status").textContent = "";
  }

  hideSeed() {
    $("seed-line").hidden = true;
  }

  async copySeed() {
    const seed = $("seed-value").textContent;
    try {
      await navigator.clipboard.writeText(seed);
      $("seed-status").textContent = "Seed copied.";
    } catch (err) {
      // No clipboard (an insecure origin, permissions): select it to copy by hand.
      const range = document.createRange();
      range.selectNodeContents($("seed-value"));
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      $("seed-status").textContent = "Press Ctrl+C to copy the seed.";
    }
  }

  /** The New game form's seed: true when it can be sent (empty or valid), else the reason
   * is shown in the form. */
  checkSeed() {
    try {
      readSeed($("seed-input").value);
      this.showSeedError("");
      return true;
    } catch (err) {
      this.showSeedError(err.message);
      $("seed-input").focus();
      return false;
    }
  }

  showSeedError(message) {
    showText("seed-error", message);
  }

  /** What a new game adds to its request: this browser's id, and the seed typed (the field
   * is then emptied: the next game gets a new seed). */
  takeNewGameFields() {
    const seed = readSeed($("seed-input").value);
    $("seed-input").value = "";
    return seed === null ? { browser: browserId() } : { browser: browserId(), seed };
  }

  // -- the stats --------------------------------------------------------------------------

  async open() {
    const dialog = $("stats-dialog");
    $("stats-status").textContent = "Loading…";
    if (!dialog.open) dialog.showModal();
    await this.refresh();
  }

  /** Read and draw the stats, then show `message` in the dialog's status line. */
  async refresh(message = "") {
    try {
      this.draw(await fetchStats());
      $("stats-status").textContent = message;
    } catch (err) {
      $("stats-status").textContent = errorWords(err);
    }
  }

  draw(stats) {
    const body = $("stats-body");
    body.replaceChildren();
    const empty = stats.total.games === 0;
    $("stats-empty").hidden = !empty;
    $("stats-table").hidden = empty;
    $("stats-clear").disabled = empty;
    const line = (label, row, kind) => {
      const tr = document.createElement("tr");
      tr.dataset.kind = kind;
      if (row.opponent) tr.dataset.opponent = row.opponent;
      if (row.mode) tr.dataset.mode = row.mode;
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = label;
      tr.appendChild(th);
      const cells = [
        ["games", String(row.games)],
        ["won", String(row.won)],
        ["lost", String(row.lost)],
        ["points", pair(row.points_won, row.points_lost)],
        ["gammons", pair(row.gammons_won, row.gammons_lost)],
        ["backgammons", pair(row.backgammons_won, row.backgammons_lost)],
        ["matches", pair(row.matches_won, row.matches_lost)],
      ];
      for (const [name, text] of cells) {
        const td = document.createElement("td");
        td.dataset.col = name;
        td.textContent = text;
        tr.appendChild(td);
      }
      body.appendChild(tr);
    };
    for (const group of stats.by_opponent) {
      line(OPPONENTS[group.opponent] || group.opponent, group, "opponent");
      for (const row of stats.rows.filter((r) => r.opponent === group.opponent)) {
        line(`· ${MODES[row.mode] || row.mode}`, row, "row");
      }
    }
    for (const row of stats.by_mode) line(`All: ${MODES[row.mode] || row.mode}`, row, "mode");
    line("Total", stats.total, "total");
  }

  // -- forgetting -------------------------------------------------------------------------

  async clearRecord(status) {
    const yes = await confirmDialog(
      "Clear the record?",
      "Every game this browser has finished is forgotten: the stats start again from zero.",
      "Clear the record",
    );
    if (!yes) return;
    try {
      const answer = await clearRecord();
      const done = `The record is cleared (${answer.cleared} game${answer.cleared === 1 ? "" : "s"} forgotten).`;
      if ($("stats-dialog").open) await this.refresh(done);
      status.textContent = done;
    } catch (err) {
      status.textContent = errorWords(err);
    }
  }

  async clearSettings() {
    const yes = await confirmDialog(
      "Clear the settings?",
      "The theme, the computer's speed and the New game choices go back to their defaults.",
      "Clear the settings",
    );
    if (!yes) return;
    clearSettings();
    this.hooks.onSettingsCleared();
    $("options-status").textContent = "The settings are back to their defaults.";
  }

  async startOver() {
    const yes = await confirmDialog(
      "Start over?",
      "The games not finished in this browser (the one on the board and those under Recent games), its seats in online games and the positions saved here are forgotten (the record stays).",
      "Start over",
    );
    if (!yes) return;
    const game = this.hooks.getGame();
    try {
      // every unfinished game this browser started, the one on the board first
      const ids = (await recentGames(browserId())).map((g) => g.id);
      if (game && !ids.includes(game.id)) ids.unshift(game.id);
      if (!ids.length) await startOver(null); // the saved positions still go
      for (const id of ids) await startOver(id);
    } catch (err) {
      $("options-status").textContent = errorWords(err);
      return;
    }
    $("options-status").textContent = "";
    $("settings-dialog").close();
    this.hideSeed();
    this.hooks.onStartOver();
  }
}

/** Ask a yes/no question in the confirmation dialog; resolves to true for yes. */
export function confirmDialog(title, text, yes) {
  const dialog = $("confirm-dialog");
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  $("confirm-yes").textContent = yes;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
    dialog.returnValue = "";
    dialog.showModal();
  });
}
