// Hints: with hints on, the checkers that can move are marked on the board and the panel
// lists the engine's legal moves for the dice left, and the ways to finish the turn
// (GET /api/games/{id}/hints). Hints on or off is remembered between visits.

import { getHints } from "./assist_api.js";

const $ = (id) => document.getElementById(id);
const KEY = "backgammon.hints";

function remembered() {
  try {
    return window.localStorage.getItem(KEY) === "on";
  } catch (err) {
    return false;
  }
}

function remember(on) {
  try {
    window.localStorage.setItem(KEY, on ? "on" : "off");
  } catch (err) {
    // storage disabled: hints last for this visit
  }
}

export class Hints {
  /**
   * @param {object} hooks
   * @param {import("./board.js").BoardView} hooks.board
   * @param {() => object|null} hooks.getGame the live state
   * @param {(text: string) => void} hooks.say announce a line
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.on = remembered();
    this.shownFor = null; // "id:version" of the hints on screen
    this.apply();
  }

  toggle() {
    this.on = !this.on;
    remember(this.on);
    this.shownFor = null;
    this.apply();
    this.hooks.say(this.on ? "Hints on." : "Hints off.");
    this.refresh(this.hooks.getGame());
  }

  apply() {
    this.hooks.board.root.classList.toggle("hints", this.on);
    $("hints-button").setAttribute("aria-pressed", String(this.on));
    $("hints-panel").hidden = !this.on;
  }

  /** Bring the panel up to date with `game` (asks the server when the person is to move). */
  async refresh(game) {
    this.apply();
    if (!this.on || !game) return;
    const key = `${game.id}:${game.version}`;
    if (this.shownFor === key) return;
    const moving = game.phase === "move" && !game.computer_to_act;
    if (!moving) {
      this.shownFor = key;
      this.draw({ active: false, moves: [], plays: [], plays_total: 0, text: "No dice to play now." }, key);
      return;
    }
    this.pending = key;
    let hints;
    try {
      hints = await getHints(game.id);
    } catch (err) {
      hints = { active: false, moves: [], plays: [], plays_total: 0, text: `No hints: ${err.message}` };
    }
    if (this.pending !== key) return; // a newer state came meanwhile
    this.shownFor = key;
    this.draw(hints, key);
  }

  draw(hints, key) {
    $("hints-panel").dataset.for = key;
    $("hints-text").textContent = hints.text;
    const moves = $("hints-moves");
    moves.replaceChildren();
    for (const move of hints.moves) {
      const item = document.createElement("li");
      item.textContent = move.text;
      item.dataset.move = move.text;
      item.dataset.from = String(move.from);
      item.dataset.to = String(move.to);
      moves.appendChild(item);
    }
    const plays = $("hints-plays");
    plays.replaceChildren();
    for (const play of hints.plays) {
      const item = document.createElement("li");
      item.textContent = play;
      plays.appendChild(item);
    }
    const more = hints.plays_total - hints.plays.length;
    $("hints-plays-title").textContent = hints.plays_total
      ? `Ways to finish the turn (${hints.plays_total}${more > 0 ? `, the first ${hints.plays.length} shown` : ""}):`
      : "";
    $("hints-panel").dataset.ready = "true";
  }
}
