// Recent games and the start screen.
//
// Every local game is started with this browser's anonymous id (saved.js browserId), so the
// server can list the browser's unfinished games (GET /api/games?browser=...). The New game
// dialog lists them, each with a Resume button: a game replaced by "New game" is never lost.
// The start screen is what the page shows while no game is on the board (a first visit whose
// New game dialog was closed): the starting position, a line of welcome and a New game button.

import { ApiError, request } from "./api.js";
import { forgetTablesSeat, tablesSeats } from "./online_tables.js";

const $ = (id) => document.getElementById(id);

/** This browser's unfinished games, the last played first: [{id, title, description, ...}]. */
export async function recentGames(browser) {
  const answer = await request("GET", `/api/games?browser=${encodeURIComponent(browser)}`);
  return answer.games;
}

/** "just now", "5 minutes ago", "3 hours ago", "2 days ago". */
export function ago(seconds, now = Date.now() / 1000) {
  const s = Math.max(0, now - seconds);
  if (s < 60) return "just now";
  const units = [[86400, "day"], [3600, "hour"], [60, "minute"]];
  for (const [size, name] of units) {
    if (s >= size) {
      const n = Math.floor(s / size);
      return `${n} ${name}${n === 1 ? "" : "s"} ago`;
    }
  }
  return "just now";
}

export class RecentGames {
  /**
   * @param {object} hooks
   * @param {() => string} hooks.browser this browser's id
   * @param {(id: string) => void} hooks.resume open a game by its id
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.section = $("recent-games");
    this.list = $("recent-list");
    this.sequence = 0;
  }

  /** List the browser's unfinished games but `current` (the one on the board). */
  async refresh(current) {
    const sequence = ++this.sequence;
    let games = [];
    try {
      games = await recentGames(this.hooks.browser());
    } catch (err) {
      games = []; // the list is a convenience: a server that cannot answer shows none
    }
    if (sequence !== this.sequence) return; // a newer refresh is under way
    games = games.filter((g) => g.id !== current);
    this.list.replaceChildren();
    for (const game of games) {
      const item = document.createElement("li");
      item.className = "recent-game";
      item.dataset.id = game.id;
      const text = document.createElement("span");
      text.className = "recent-text";
      const title = document.createElement("strong");
      title.textContent = game.title;
      const detail = document.createElement("span");
      detail.className = "small-note";
      detail.textContent = `${game.description} · ${game.turns} turn${game.turns === 1 ? "" : "s"} · ${ago(game.updated_at)}`;
      text.append(title, detail);
      const button = document.createElement("button");
      button.type = "button";
      button.className = "recent-resume";
      button.textContent = "Resume";
      button.setAttribute("aria-label", `Resume ${game.title}, ${game.description}`);
      button.addEventListener("click", () => this.hooks.resume(game.id));
      item.append(text, button);
      this.list.appendChild(item);
    }
    this.section.hidden = games.length === 0;
    document.body.dataset.recentGames = String(games.length);
  }
}

/** What an online room plays, from its settings (GET /api/rooms/CODE: `single` is one
 * game, length 0 money play, 1 a 1-point match). */
function tablesKind(settings) {
  if (settings.single) return "single game";
  if (settings.length === 0) return "money play";
  return settings.length > 1 ? `match to ${settings.length}` : "1-point match";
}

/** A seat of this browser at the shared table's door (online_tables.js tablesSeats), with its
 * room (GET /api/rooms/CODE), as the list shows it; null when the room is gone (the seat is
 * forgotten) or cannot be read now. */
async function tablesEntry(kept) {
  let room;
  try {
    room = await request("GET", `/api/rooms/${encodeURIComponent(kept.code)}`);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) forgetTablesSeat(kept.code);
    return null;
  }
  if (room.game !== "backgammon") return null;
  const names = room.names || {};
  const mine = kept.side === "black" ? "black" : "white";
  const theirs = names[mine === "white" ? "black" : "white"];
  const kind = tablesKind(room.settings || {});
  return {
    code: kept.code,
    kind,
    who: kept.host ? `Your room (${names[mine] || "you"})` : `${theirs || "A friend"}'s room`,
    phase: room.open ? "waiting for your friend to join" : "your friend has joined: return to play on, or for a rematch",
    seen: kept.seen,
  };
}

/**
 * The New game dialog's list of this browser's online games (the seats room_client.js keeps;
 * a seat of the old door is carried to the shared door first, seat_migration.js): each with a
 * Return button, so that a closed tab can come back to its seat. A room that is gone
 * (expired) is forgotten.
 */
export class OnlineSeats {
  /**
   * @param {object} hooks
   * @param {(code: string) => void} hooks.open go back to room `code`
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.section = $("online-seats");
    this.list = $("online-seats-list");
    this.sequence = 0;
  }

  /** List the rooms this browser has a seat in, but `current` (the one on the page). */
  async refresh(current) {
    const sequence = ++this.sequence;
    const kept = tablesSeats().filter((s) => s.code !== current).slice(0, 8);
    const rooms = await Promise.all(kept.map(tablesEntry));
    if (sequence !== this.sequence) return;
    const shown = rooms.filter(Boolean);
    this.list.replaceChildren();
    for (const { code, kind, who, phase } of shown) {
      const item = document.createElement("li");
      item.className = "recent-game";
      item.dataset.code = code;
      const text = document.createElement("span");
      text.className = "recent-text";
      const title = document.createElement("strong");
      title.textContent = `Online ${kind}`;
      const detail = document.createElement("span");
      detail.className = "small-note";
      detail.textContent = `${who} · ${phase} · code ${code}`;
      text.append(title, detail);
      const button = document.createElement("button");
      button.type = "button";
      button.className = "recent-resume";
      button.textContent = "Return";
      button.setAttribute("aria-label", `Return to the online ${kind}, ${who}`);
      button.addEventListener("click", () => this.hooks.open(code));
      item.append(text, button);
      this.list.appendChild(item);
    }
    this.section.hidden = shown.length === 0;
    document.body.dataset.onlineSeats = String(shown.length);
  }
}

const START = [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0];

/** The start screen: shown while no game is on the board, gone as soon as one is drawn. */
export class StartScreen {
  /**
   * @param {import("./board.js").BoardView} board
   */
  constructor(board) {
    this.board = board;
    this.active = false;
    this.drawing = false;
    // Any other position drawn on the board (a game, a review, online play) ends it.
    board.root.addEventListener("position", () => {
      if (!this.drawing) this.hide();
    });
  }

  show() {
    this.active = true;
    document.body.classList.add("no-game");
    $("start-panel").hidden = false;
    $("status").textContent = "No game on the board yet: start one with New game.";
    this.drawing = true;
    try {
      this.board.setLegal(null, []);
      this.board.setEnabled(false);
      this.board.drawPosition({ points: [...START], off: { white: 0, black: 0 } });
      this.board.drawDice(null, [], null, null);
    } finally {
      this.drawing = false;
    }
  }

  hide() {
    if (!this.active) return;
    this.active = false;
    document.body.classList.remove("no-game");
    $("start-panel").hidden = true;
  }
}
