// Saved positions: up to six per browser, kept by the server (SQLite), each with its name, the
// board as text, and what it holds (who is on roll with what, the cube, the score).
//
// The browser is known by a random id kept in localStorage. "Save this position" keeps the
// position on the board (or the one in the editor); "Load" replaces the game on the board with
// it, after asking when a game is in progress; "Delete" forgets it. The seventh is refused by
// the server, whose message says the limit is six.

import { ApiError, deletePosition, errorWords, readPosition, savePosition, savedPositions } from "./api.js";

const $ = (id) => document.getElementById(id);
const BROWSER_KEY = "backgammon.browser";

/** This browser's id (made once, kept in localStorage). */
export function browserId() {
  let store = null;
  try {
    store = window.localStorage;
  } catch (err) {
    store = null;
  }
  let id = store && store.getItem(BROWSER_KEY);
  if (!id || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    if (store) store.setItem(BROWSER_KEY, id);
  }
  return id;
}

export class SavedPositions {
  /**
   * @param {object} hooks
   * @param {() => object|null} hooks.current the setup to save now: the editor's, or null to
   *   save the position of the game on the board
   * @param {() => object|null} hooks.getGame the game on the board
   * @param {(setup: object) => void} hooks.load play from a saved position
   * @param {(text: string) => void} hooks.say announce a line
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.browser = browserId();
    this.limit = 6;
    $("saved-save").addEventListener("click", () => this.saveNow());
    $("saved-name").addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        this.saveNow();
      }
    });
    $("saved-close").addEventListener("click", () => $("saved-dialog").close());
  }

  /** Open the list; `setup` given: the position to offer for saving (from the editor). */
  async open(setup = null) {
    this.pending = setup;
    const dialog = $("saved-dialog");
    $("saved-status").textContent = "";
    $("saved-name").value = this.defaultName();
    delete dialog.dataset.ready;
    if (!dialog.open) dialog.showModal();
    await this.refresh();
    dialog.dataset.ready = "true";
  }

  defaultName() {
    const game = this.hooks.getGame();
    const stamp = new Date().toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
    if (this.pending) return `Set-up position, ${stamp}`;
    if (game && game.players) return `${game.players.white.name} v ${game.players.black.name}, ${stamp}`;
    return `Position, ${stamp}`;
  }

  async refresh() {
    const list = $("saved-list");
    try {
      const answer = await savedPositions(this.browser);
      this.limit = answer.limit;
      list.replaceChildren(...answer.positions.map((saved) => this.item(saved)));
      $("saved-count").textContent = `${answer.positions.length} of ${answer.limit} kept`;
      $("saved-empty").hidden = answer.positions.length > 0;
    } catch (err) {
      $("saved-status").textContent = errorWords(err);
    }
  }

  item(saved) {
    const item = document.createElement("li");
    item.className = "saved-item";
    item.dataset.id = saved.id;
    const name = document.createElement("p");
    name.className = "saved-name";
    name.textContent = saved.name;
    const summary = document.createElement("p");
    summary.className = "saved-summary";
    summary.textContent = saved.summary;
    const board = document.createElement("pre");
    board.className = "saved-board";
    board.textContent = saved.text;
    board.setAttribute("aria-label", `The board of ${saved.name}`);
    const buttons = document.createElement("div");
    buttons.className = "saved-buttons";
    const load = document.createElement("button");
    load.type = "button";
    load.className = "primary saved-load";
    load.textContent = "Load";
    load.addEventListener("click", () => {
      $("saved-dialog").close();
      this.hooks.load(saved.setup, saved.name);
    });
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "saved-delete";
    remove.textContent = "Delete";
    remove.addEventListener("click", () => this.remove(saved));
    buttons.append(load, remove);
    item.append(name, summary, board, buttons);
    return item;
  }

  async saveNow() {
    const status = $("saved-status");
    const name = $("saved-name").value;
    try {
      let setup = this.pending || this.hooks.current();
      if (!setup) {
        const game = this.hooks.getGame();
        if (!game || !game.ids) throw new ApiError("There is no position on the board to save.", 0, "none");
        setup = (await readPosition(game.ids.xgid)).setup;
      }
      const saved = await savePosition(this.browser, name, setup);
      status.textContent = `Saved “${saved.name}”.`;
      this.hooks.say(status.textContent);
      await this.refresh();
    } catch (err) {
      status.textContent = errorWords(err);
      this.hooks.say(status.textContent);
    }
  }

  async remove(saved) {
    const status = $("saved-status");
    try {
      await deletePosition(this.browser, saved.id);
      status.textContent = `Deleted “${saved.name}”.`;
      this.hooks.say(status.textContent);
      await this.refresh();
    } catch (err) {
      status.textContent = errorWords(err);
    }
  }
}
