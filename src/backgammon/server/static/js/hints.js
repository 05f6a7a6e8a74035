// Hints: with hints on, the checkers that can move are marked on the board and the panel
// lists the engine's legal moves for the dice left, and the ways to finish the turn
// (GET /api/games/{id}/hints), and the computer's evaluation (GET /api/games/{id}/evaluation):
// the best plays for the dice, each with its equity (EMG), its difference to the best and its
// win / gammon / backgammon chances; before the roll the cube hint. Hints are on by default
// (local games); on or off is remembered between visits. Online games have no hints until the
// game is over (the room gives none).

import { getEvaluation, getHints } from "./assist_api.js";

const $ = (id) => document.getElementById(id);
const KEY = "backgammon.hints";

function remembered() {
  try {
    return window.localStorage.getItem(KEY) !== "off";
  } catch (err) {
    return true;
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
    if (game.hints === false) { // a game against a person (online): no hints
      this.shownFor = key;
      this.draw({ active: false, moves: [], plays: [], plays_total: 0, text: "No hints in a game against a person." }, key);
      this.drawEvaluation(null);
      return;
    }
    const moving = game.phase === "move" && !game.computer_to_act;
    const cubeTime = (game.phase === "roll" || game.phase === "cube") && !game.computer_to_act;
    if (!moving) {
      this.shownFor = key;
      this.draw({ active: false, moves: [], plays: [], plays_total: 0, text: "No dice to play now." }, key);
      if (cubeTime && game.id) this.evaluate(game, key);
      else this.drawEvaluation(null);
      return;
    }
    this.evaluate(game, key);
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

  /** Ask the computer for its evaluation of the decision now and show it. */
  async evaluate(game, key) {
    this.evalPending = key;
    $("hints-eval").replaceChildren(Object.assign(document.createElement("p"), { className: "hints-text", textContent: "Thinking…" }));
    let answer;
    try {
      answer = await getEvaluation(game.id);
    } catch (err) {
      answer = { kind: "error", text: err.message };
    }
    if (this.evalPending !== key) return;
    this.drawEvaluation(answer);
  }

  drawEvaluation(answer) {
    const box = $("hints-eval");
    box.replaceChildren();
    delete box.dataset.kind;
    if (!answer) return;
    box.dataset.kind = answer.kind;
    const el = (tag, text, cls) => {
      const node = document.createElement(tag);
      if (text !== undefined) node.textContent = text;
      if (cls) node.className = cls;
      return node;
    };
    const pct = (x) => `${x.toFixed(1)}%`;
    const eq = (x) => (x >= 0 ? `+${x.toFixed(3)}` : x.toFixed(3));
    if (answer.kind === "plays") {
      if (!answer.plays.length) return;
      const table = el("table", undefined, "hints-ranked");
      table.id = "hints-ranked";
      const head = el("tr");
      for (const label of ["#", "Play", "Equity", "Diff", "Win", "W g", "W bg", "L g", "L bg"]) head.appendChild(el("th", label));
      table.appendChild(head);
      answer.plays.forEach((play, i) => {
        const row = el("tr");
        row.dataset.play = play.play;
        const p = play.probs;
        for (const text of [String(i + 1), play.play, eq(play.equity), i ? play.diff.toFixed(3) : "", pct(p.win), pct(p.win_gammon), pct(p.win_backgammon), pct(p.lose_gammon), pct(p.lose_backgammon)]) row.appendChild(el("td", text));
        row.title = `${play.ply}-ply`;
        table.appendChild(row);
      });
      box.append(el("p", "Best plays (equity in EMG):", "hints-plays-title"), table);
    } else if (answer.kind === "cube" || answer.kind === "take") {
      const e = answer.equities;
      const text = answer.kind === "take" ? `Your answer: ${answer.action}. Proper cube action: ${answer.text}.` : `Cube: ${answer.text}.`;
      const p = el("p", text, "hints-cube");
      p.id = "hints-cube";
      const list = el("p", `No double ${eq(e.no_double)} · Double/take ${eq(e.double_take)} · Double/pass ${eq(e.double_drop)} · Win ${pct(answer.probs.win)}`, "hints-text");
      box.append(p, list);
    } else if (answer.kind === "error") {
      box.append(el("p", `No evaluation: ${answer.text}`, "hints-text"));
    }
  }
}
