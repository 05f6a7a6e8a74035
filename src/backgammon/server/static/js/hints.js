// Hints: with hints on, the checkers that can move are marked on the board and the panel
// lists the engine's legal moves for the dice left, and the ways to finish the turn
// (GET /api/games/{id}/hints), and the computer's evaluation (GET /api/games/{id}/evaluation):
// the best plays for the dice, each with its equity (EMG), its difference to the best and its
// win / gammon / backgammon chances; before the roll the cube hint. Hints are off until the
// person asks for them (H, or the Hints button: the best play is a spoiler for a beginner); on
// or off is remembered between visits. A row of the ranked plays, or a line of the ways to
// finish the turn, makes that play on the board (the person still ends the turn with Done).
//
// In review the panel shows the computer's evaluation of the decisions of the turn on the board
// (each frame names them as XGIDs: POST /api/positions/evaluation), drawn as the live hint is:
// for a play, the cube hint before its roll (when the roller could double) and the ranked plays
// of its roll, the play made marked; for a double, the cube hint; for a take or a drop, the
// answer to the double.
//
// Beside an evaluation of ranked plays or of a cube decision, live or in review, "Roll out"
// opens the rollout panel for that decision (rollout.js).
//
// Online, the room decides (its view's `hints`): while a game against a person is played there
// are no hints, live or in review, and no evaluation is asked for (and no rollout); once the
// game is over they come back.

import { evaluatePosition, getEvaluation, getHints } from "./assist_api.js";
import { el } from "./dom.js";
import { RolloutView } from "./rollout.js";
import { pointsFor } from "./table.js";

const $ = (id) => document.getElementById(id);
const KEY = "backgammon.hints";
/** Evaluations of review positions kept (by XGID), so that stepping back costs nothing. */
const CACHE_SIZE = 256;
/** A review frame's evaluation is asked for once the frame has been shown this long (ms):
 * stepping quickly through a review asks only for the frame it stops at. */
const REVIEW_DELAY_MS = 120;
/** While the server's evaluation slots are all taken (503 busy), the frame on screen asks
 * again after this long, up to BUSY_TRIES times. */
const BUSY_RETRY_MS = 700;
const BUSY_TRIES = 30;

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

const pct = (x) => `${x.toFixed(1)}%`;
const eq = (x) => (x >= 0 ? `+${x.toFixed(3)}` : x.toFixed(3));

/** Whether `game` is an online room's view (it says whether hints are allowed), not a local
 * game (which has the game endpoints). */
function isOnline(game) {
  return Boolean(game) && typeof game.hints === "boolean";
}

/** The key of an evaluation kept: the XGID, marked when the game had no gammons. */
function cacheKey(xgid, gammons) {
  return gammons ? xgid : `${xgid} no gammons`;
}

/** What the hints panel says while there is nothing to move (the dice of the turn before may
 * still lie on the board). */
function idleText(game) {
  if (game.result) return "The game is over: review it (V) for the computer's view of each turn.";
  if (game.computer_to_act) return "The computer's turn: hints come back at yours.";
  if (game.phase === "cube") return "A double waits for its answer.";
  if (game.phase === "roll" || game.phase === "opening") return "Roll: the hints for the play come with the dice.";
  return "Nothing to move now.";
}

/** The play a review frame made, as the evaluation writes plays ("8/5 6/5"), or null. */
function playedOf(frame) {
  if (!frame || frame.kind !== "play") return null;
  const at = frame.text.lastIndexOf(": ");
  return at >= 0 ? frame.text.slice(at + 2) : null;
}

/** A place of the mover's numbering in a play's notation ("bar", "off", "1".."24") as the
 * page names it (White's numbering). */
function pagePlace(word, mover) {
  if (word === "bar" || word === "off") return word;
  const point = Number(word);
  return String(mover === "white" ? point : 25 - point);
}

/**
 * The moves of a play written in notation from the mover's side ("8/5 6/5", "bar/22 13/8*",
 * "6/2(2)", "6/off", "24/18/13"), as the board sends them: [{from, to}] in the page's places,
 * one for each step written (a checker moved on through a point written in between, where
 * it hits or stops, is two moves). The server checks every one.
 * @param {string} text the play
 * @param {string} mover "white" or "black"
 * @returns {{from: string, to: string}[]} empty when the text is not a play
 */
export function playMoves(text, mover) {
  const moves = [];
  for (const token of String(text).trim().split(/\s+/)) {
    const found = /^(bar|\d+)((?:\/(?:\d+|off)\*?)+)(?:\((\d)\))?$/.exec(token);
    if (!found) return [];
    const places = [found[1], ...found[2].split("/").slice(1).map((p) => p.replace("*", ""))];
    const times = Number(found[3] || 1);
    for (let n = 0; n < times; n++) {
      for (let i = 1; i < places.length; i++) {
        moves.push({ from: pagePlace(places[i - 1], mover), to: pagePlace(places[i], mover) });
      }
    }
  }
  return moves;
}

/** The ranked plays as GNU Backgammon lists them: those searched deepest first, best first,
 * then each shallower depth, best first (an equity is compared with those of its own depth). */
export function rankedByDepth(plays) {
  return [...plays].sort((a, b) => (b.ply - a.ply) || (b.equity - a.equity));
}

export class Hints {
  /**
   * @param {object} hooks
   * @param {import("./board.js").BoardView} hooks.board
   * @param {() => object|null} hooks.getGame the live state
   * @param {(text: string) => void} hooks.say announce a line
   * @param {(play: string, options: {whole: boolean}) => void} [hooks.play] make a play (in
   *   notation) on the board; `whole`: a ranked play, from the turn's start
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.on = remembered();
    this.shownFor = null; // "id:version" of the hints on screen
    this.pending = null; // "id:version" of the hints being asked for
    this.live = null; // the live state last shown (local game or online view)
    this.frame = null; // the review frame on the board, while reviewing
    this.cache = new Map(); // XGID -> evaluation
    this.rollout = new RolloutView({ say: (text) => this.hooks.say(text) });
    this.apply();
  }

  /** Whether the live game waits for the person's play: a ranked play, a whole turn's, can
   * then be made (the checkers moved so far this turn are taken back first). */
  wholeTurnAhead() {
    const game = this.live;
    return Boolean(game && !isOnline(game) && game.phase === "move" && !game.computer_to_act);
  }

  /** Whether the computer's evaluation may be shown now: not during an online game that is
   * not over (the room's `hints`). */
  allowed() {
    return !(this.live && this.live.hints === false);
  }

  toggle() {
    this.on = !this.on;
    remember(this.on);
    this.shownFor = null;
    this.pending = null;
    this.apply();
    this.hooks.say(this.on ? "Hints on." : "Hints off.");
    if (this.frame) this.showFrame(this.frame);
    else this.refresh(this.live || this.hooks.getGame());
  }

  apply() {
    const allowed = this.allowed();
    if (!(this.on && allowed)) this.rollout.close(); // no rollout where there are no hints
    this.hooks.board.root.classList.toggle("hints", this.on && allowed);
    $("hints-button").setAttribute("aria-pressed", String(this.on));
    $("hints-panel").hidden = !this.on;
    // During an online game against a person the Hints and Analyze buttons do nothing: they
    // say so, disabled, until the game is over.
    for (const id of ["hints-button", "analyze-button"]) {
      const button = $(id);
      if (button.dataset.title === undefined) button.dataset.title = button.title;
      button.disabled = !allowed;
      button.title = allowed ? button.dataset.title
        : "Not in a game against a person: it comes back once the game is over";
    }
  }

  /** Bring the panel up to date with the live state `game` (asks the server when the person
   * is to move). While reviewing, the panel stays on the review. */
  async refresh(game) {
    this.setLive(game);
    if (this.frame) return;
    this.apply();
    if (!this.on || !game) return;
    const key = `${game.id}:${game.version}`;
    if (this.shownFor === key || this.pending === key) return;
    if (isOnline(game)) { // the room's game: no requests to the local game's endpoints
      this.shownFor = key;
      const text = game.hints
        ? "The game is over: hints are back. Review it (V) for the computer's evaluation of each turn."
        : "No hints in a game against a person until the game is over.";
      this.draw({ active: false, moves: [], plays: [], plays_total: 0, text }, key);
      this.drawEvaluation(null);
      return;
    }
    const moving = game.phase === "move" && !game.computer_to_act;
    // the cube advice only when the person has a cube decision: may double, or must answer
    const can = game.can || {};
    const cubeTime = !game.computer_to_act && Boolean(can.double || can.take);
    if (!moving) {
      this.shownFor = key;
      this.draw({ active: false, moves: [], plays: [], plays_total: 0, text: idleText(game) }, key);
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
    this.pending = null;
    this.shownFor = key;
    this.draw(hints, key);
  }

  /** The live state changed (also while reviewing): when that allows or forbids hints, the
   * review's panel is drawn again. */
  setLive(game) {
    const was = this.allowed();
    this.live = game || null;
    if (was !== this.allowed()) {
      this.apply();
      if (this.frame) this.showFrame(this.frame);
    }
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
      // as the move list's setting writes plays (data-play stays the mover's notation)
      item.textContent = pointsFor(play, this.live && this.live.turn);
      item.dataset.play = play;
      this.playable(item, play);
      plays.appendChild(item);
    }
    const more = hints.plays_total - hints.plays.length;
    $("hints-plays-title").textContent = hints.plays_total
      ? `Ways to finish the turn (${hints.plays_total}${more > 0 ? `, the first ${hints.plays.length} shown` : ""}):`
      : "";
    $("hints-panel").dataset.ready = "true";
  }

  /** Make `node` (a row of the ranked plays, a line of the ways to finish the turn) play
   * `play` on a click or Enter, while the person is to move in the live game; `whole`: a
   * ranked play, from the turn's start (the moves made so far are taken back first), not
   * the rest of the turn. */
  playable(node, play, whole = false) {
    if (!this.hooks.play || this.frame) return;
    node.classList.add("playable");
    node.tabIndex = 0;
    node.title = `Play ${play} (then Done ends the turn, Undo takes it back)`;
    const go = () => this.hooks.play(play, { whole });
    node.addEventListener("click", go);
    node.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        event.stopPropagation();
        go();
      }
    });
  }

  /** Ask the computer for its evaluation of the decision now and show it. */
  async evaluate(game, key) {
    this.evalPending = key;
    $("hints-eval").replaceChildren(el("p", "Thinking…", "hints-text"));
    let answer;
    try {
      answer = await getEvaluation(game.id);
    } catch (err) {
      answer = { kind: "error", text: err.message };
    }
    if (this.evalPending !== key) return;
    this.drawEvaluations([answer], {
      mover: game.turn,
      positions: [game.ids ? game.ids.xgid : null],
      gammons: !(game.settings && game.settings.gammons === false),
    });
  }

  // -------------------------------------------------------------------------------------------
  // Review

  /** The review shows `frame` (review.js's onFrame): the evaluation of its decisions. */
  showFrame(frame) {
    this.frame = frame;
    this.shownFor = null; // the live hints are no longer on screen
    this.pending = null;
    this.evalPending = null;
    clearTimeout(this.reviewTimer);
    this.apply();
    if (!this.on || !frame) return;
    const decisions = frame.decisions || [];
    const key =
      `review:${frame.game}:${frame.history_index}:${decisions.join(",")}:${frame.gammons}`;
    this.reviewKey = key;
    let text;
    if (!this.allowed()) text = "No hints in a game against a person until the game is over.";
    else if (!decisions.length) text = "No decision here: step to a turn for the computer's evaluation.";
    else text = `${frame.text}: the computer's evaluation.`;
    this.draw({ active: false, moves: [], plays: [], plays_total: 0, text }, key);
    if (!this.allowed() || !decisions.length) {
      this.drawEvaluation(null);
      return;
    }
    const gammons = frame.gammons !== false;
    const known = decisions.map((xgid) => this.cache.get(cacheKey(xgid, gammons)));
    if (known.every(Boolean)) {
      this.drawEvaluations(known, { played: playedOf(frame), review: true,
        positions: decisions, gammons, mover: frame.color });
      return;
    }
    $("hints-eval").replaceChildren(el("p", "Thinking…", "hints-text"));
    this.reviewTimer = setTimeout(() => this.evaluateFrame(frame, key), REVIEW_DELAY_MS);
  }

  async evaluateFrame(frame, key, tries = 0) {
    if (this.reviewKey !== key || !this.allowed()) return;
    const answers = await Promise.all(
      frame.decisions.map((xgid) => this.evaluation(xgid, frame.gammons !== false)));
    if (this.reviewKey !== key || this.frame !== frame || !this.on || !this.allowed()) return;
    if (answers.some((answer) => answer.busy) && tries < BUSY_TRIES) {
      // the slots are taken (often by the frames just stepped past): ask again shortly
      this.reviewTimer = setTimeout(() => this.evaluateFrame(frame, key, tries + 1),
        BUSY_RETRY_MS);
      return;
    }
    this.drawEvaluations(answers, { played: playedOf(frame), review: true,
      positions: frame.decisions, gammons: frame.gammons !== false, mover: frame.color });
  }

  /** The evaluation of `xgid` (kept), or {kind: "error", text}; `gammons` false for a game
   * played without them. */
  async evaluation(xgid, gammons = true) {
    const key = cacheKey(xgid, gammons);
    const known = this.cache.get(key);
    if (known) return known;
    try {
      const answer = await evaluatePosition(xgid, gammons);
      this.cache.set(key, answer);
      if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value);
      return answer;
    } catch (err) {
      return { kind: "error", text: err.message, busy: err.code === "busy" };
    }
  }

  /** The review ended: the live hints come back. */
  exitReview() {
    clearTimeout(this.reviewTimer);
    this.frame = null;
    this.reviewKey = null;
    this.shownFor = null;
    this.refresh(this.live || this.hooks.getGame());
  }

  // -------------------------------------------------------------------------------------------
  // Drawing an evaluation

  drawEvaluation(answer) {
    this.drawEvaluations(answer ? [answer] : []);
  }

  /**
   * Draw evaluations (the answers of the evaluation endpoints), one after the other.
   * @param {object[]} answers
   * @param {{played?: string|null, review?: boolean, positions?: (string|null)[],
   *   gammons?: boolean}} [options] `played`: the play made (its row is marked); `review`:
   *   words for a turn gone by, not for the person to act now; `positions`: the XGID of each
   *   answer's decision (a "Roll out" button follows each known one); `gammons`: false for
   *   a game without them
   */
  drawEvaluations(answers, options = {}) {
    const box = $("hints-eval");
    box.replaceChildren();
    delete box.dataset.kind;
    const positions = options.positions || [];
    // a rollout belongs to the decision it was asked for: gone from the panel, it closes
    this.rollout.keepOnly(answers.length ? positions : []);
    if (!answers.length) return;
    box.dataset.kind = answers.map((answer) => answer.kind).join(" ");
    answers.forEach((answer, i) => {
      box.append(...this.evaluationNodes(answer, { ...options, position: positions[i] || null }));
    });
  }

  evaluationNodes(answer, { played = null, review = false, position = null, gammons = true,
    mover = null } = {}) {
    const playable = !review && this.wholeTurnAhead() ? (row, play) => this.playable(row, play, true)
      : null;
    const nodes = evaluationNodes(answer, { played, review, playable, mover });
    const button = position && this.allowed() ? this.rolloutButton(answer, position, gammons, played) : null;
    if (button) nodes.push(button);
    return nodes;
  }

  /** "Roll out" for an evaluation's decision (ranked plays with a choice, a cube decision, a
   * double to answer: rolled out as the cube decision), or null. The plays rolled out are the
   * evaluation's own best, in its order, and in a review the play made. */
  rolloutButton(answer, position, gammons, played = null) {
    let kind;
    let what;
    if (answer.kind === "plays" && answer.plays.length >= 2) {
      kind = "plays";
      what = `the best plays of ${Math.max(...answer.dice)}-${Math.min(...answer.dice)}`;
    } else if (answer.kind === "cube" || answer.kind === "take") {
      kind = "cube";
      what = answer.kind === "cube" ? "the cube decision" : "the double (its cube decision)";
    } else {
      return null;
    }
    const button = el("button", "Roll out", "hints-rollout");
    button.type = "button";
    button.dataset.rollout = kind;
    button.title = `Settle ${what} by playing it out many times`;
    const candidates = kind === "plays" ? answer.plays.map((row) => row.play) : null;
    button.addEventListener("click", () => this.rollout.open({ position, gammons, kind, what, candidates, played }));
    return button;
  }
}

/**
 * The nodes that draw an evaluation (the answer of the evaluation endpoints): the ranked plays
 * (the deepest search first, with each play's depth) or the cube decision, as the hints panel
 * and the position editor show them.
 * @param {object} answer the evaluation
 * @param {{played?: string|null, review?: boolean, playable?: Function|null, ids?: boolean}}
 *   [options] `played`: the play made (its row marked); `review`: words for a turn gone by;
 *   `playable(row, play)`: makes a row play its play; `mover`: whose numbering the plays use
 *   (shown as the move list's setting writes plays: table.js pointsFor); `ids`: give the table and the cube line
 *   their ids (the hints panel's)
 * @returns {Node[]}
 */
export function evaluationNodes(answer, { played = null, review = false, playable = null,
  ids = true, mover = null } = {}) {
  if (answer.kind === "plays") {
    const roll = answer.dice ? `${Math.max(...answer.dice)}-${Math.min(...answer.dice)}` : "";
    if (!answer.plays.length) return review ? [el("p", `No play: ${roll} cannot be played.`, "hints-text")] : [];
    const table = el("table", undefined, "hints-ranked");
    if (ids) table.id = "hints-ranked";
    const head = el("tr");
    for (const label of ["#", "Play", "Depth", "Equity", "Diff", "Win", "W g", "W bg", "L g", "L bg"]) head.appendChild(el("th", label));
    head.children[2].title = "How deep the play was searched: an equity is compared with those of its own depth";
    table.appendChild(head);
    rankedByDepth(answer.plays).forEach((play, i) => {
      const row = el("tr");
      row.dataset.play = play.play;
      row.dataset.ply = String(play.ply);
      const p = play.probs;
      for (const text of [String(i + 1), pointsFor(play.play, mover), `${play.ply}-ply`, eq(play.equity), i ? play.diff.toFixed(3) : "", pct(p.win), pct(p.win_gammon), pct(p.win_backgammon), pct(p.lose_gammon), pct(p.lose_backgammon)]) row.appendChild(el("td", text));
      // where the plays searched less deep begin: a line between (like is ranked with like)
      if (i && row.dataset.ply !== table.lastChild.dataset.ply) row.classList.add("shallower");
      row.title = `searched ${play.ply}-ply`;
      if (played !== null && play.play === played) {
        row.classList.add("played");
        row.dataset.played = "true";
        row.title += ", the play made";
      }
      if (playable) playable(row, play.play);
      table.appendChild(row);
    });
    const title = review ? `Best plays for ${roll} (equity in EMG, deepest search first):`
      : "Best plays (equity in EMG, deepest search first):";
    return [el("p", title, "hints-plays-title"), table];
  }
  if (answer.kind === "cube" || answer.kind === "take") {
    const e = answer.equities;
    let text;
    if (answer.kind === "take") {
      text = review
        ? `Answer to the double: ${answer.action}. Proper cube action: ${answer.text}.`
        : `Best answer: ${answer.action}. Proper cube action: ${answer.text}.`;
    } else {
      text = review ? `Cube before the roll: ${answer.text}.` : `Cube: ${answer.text}.`;
    }
    const p = el("p", text, "hints-cube");
    if (ids) p.id = "hints-cube";
    const list = el("p", `No double ${eq(e.no_double)} · Double/take ${eq(e.double_take)} · Double/pass ${eq(e.double_drop)} · Win ${pct(answer.probs.win)}`, "hints-text");
    return [p, list];
  }
  if (answer.kind === "none" && answer.reason) {
    return [el("p", `${review ? "Cube before the roll" : "Cube"}: no double possible (${answer.reason}).`, "hints-text")];
  }
  if (answer.kind === "error") return [el("p", `No evaluation: ${answer.text}`, "hints-text")];
  return [];
}
