// The table's view, drawn the same for local and online play.
//
// Local play and the online room send the same view of a game (services/table.py `describe`):
// the phase, whose turn it is, the board, the dice, the cube, the buttons allowed (`can`), the
// score, the move list, the last turn (highlighted), the result and the status line, every word
// made by the server (services/words.py). main.js draws a local game's state with it,
// online_tables.js the room's (`pageView`: backgammon's view with the room's names and the
// turn built on the page); each then adds only what is its own (the computer's playback; the
// room's panel, the fair-dice checks and the connection).

import { drawStateDice } from "./turnshow.js";

const $ = (id) => document.getElementById(id);

/** The buttons the view's `can` shows (their ids). */
export const BUTTONS = {
  roll: "roll-button",
  double: "double-button",
  take: "take-button",
  drop: "drop-button",
  beaver: "beaver-button",
  raccoon: "raccoon-button",
  undo: "undo-button",
  done: "done-button",
  next_game: "next-game-button",
  resign: "resign-button",
};

/**
 * Draw `view` on the page.
 * @param {object} view the table's view (a local game's state, or an online room's `view`)
 * @param {object} options
 * @param {import("./board.js").BoardView} options.board the board
 * @param {boolean} [options.busy] an action waits for its answer (buttons disabled)
 * @param {boolean} [options.live] the page may act at all (online: connected and playing)
 * @param {string} [options.labels] whose numbering the board's labels show (default the viewer)
 * @param {boolean|null} [options.homeLeft] the home board on the left (the setting), or null to
 *   leave the board as it is
 */
export function drawView(view, { board, busy = false, live = true, labels = null,
  homeLeft = null }) {
  if (homeLeft !== null) board.setHomeLeft(homeLeft);
  if (board.viewer !== view.viewer) board.build(view.viewer);
  board.setLabels(labels || view.viewer);
  board.drawPosition(view.board);
  drawStateDice(board, view); // the roll, or the last turn's dice kept (turnshow.js)
  board.drawCube(view.cube);
  board.setLastTurn(view.last_turn);
  const moves = live && view.phase === "move" && !view.computer_to_act && view.legal.length > 0;
  board.setLegal(moves ? view.turn : null, moves ? view.legal : []);
  board.setEnabled(moves && !busy);
  document.body.dataset.phase = view.phase;
  document.body.dataset.turn = view.turn || "";
  $("status").textContent = view.message;
  drawControls(view, { busy, live });
  drawScore(view);
  drawHistory(view, board.labels || view.viewer);
  drawResult(view, { busy, live });
}

/** The buttons: those `can` allows, disabled while an action waits. */
export function drawControls(view, { busy = false, live = true } = {}) {
  const can = view.computer_to_act || !live ? {} : view.can;
  for (const [name, id] of Object.entries(BUTTONS)) {
    const button = $(id);
    button.hidden = !can[name];
    button.disabled = busy;
  }
}

export function drawScore(view) {
  for (const color of ["white", "black"]) {
    const row = $(`score-${color}`);
    row.querySelector(".name").textContent = view.players[color].name;
    row.classList.toggle("on-roll", view.turn === color && !view.result);
    $(`pips-${color}`).textContent = String(view.pips[color]);
    $(`score-${color}-points`).textContent = String(view.score[color]);
  }
  $("score-caption").textContent = view.score.description;
}

export function drawHistory(view, side = null) {
  const list = $("move-list");
  fillHistory(list, view.history, side);
  list.scrollTop = list.scrollHeight;
}

/** How the move list writes plays: "own" (each from its player's side, as every backgammon
 * program and .mat file writes them) or "mine" (all from the side the board is numbered
 * from: the setting "Moves in the move list"). */
let numbering = "own";

export function setNumbering(mode) {
  numbering = mode === "mine" ? "mine" : "own";
}

/** A play in notation ("24/18 13/9*", "bar/22", "6/off", "8/4(2)") with its points counted
 * from the other side ("1/7 12/16*"). */
export function mirrorPlay(play) {
  return play.replace(/\d+(?!\))/g, (n) => String(25 - Number(n)));
}

const PLAY_LINE = /^(.*? \d-\d: )((?:bar|\d+)(?:\/(?:\d+|off)\*?)+(?:\(\d\))?(?: (?:bar|\d+)(?:\/(?:\d+|off)\*?)+(?:\(\d\))?)*)$/;

/** A play in notation inside a sentence ("The computer plays 6-4: 24/18 13/9*"). */
const PLAY_IN_TEXT = /(?:bar|\d+)(?:\/(?:\d+|off)\*?)+(?:\(\d\))?/g;

/** The side the board was last numbered from, as the move list was drawn (fillHistory): the
 * side "mine" counts every point from. */
let shownSide = null;

/**
 * `text`, a sentence naming the points of `color`'s plays in `color`'s own numbering (a
 * computer's step, a review line, an analysis's "X played ..."), as the setting "Moves in the
 * move list" writes plays: with "mine", counted from `side` (default: the side the board is
 * numbered from) when `color` is the other side; else as it is. The move list's own lines
 * follow the same setting (fillHistory).
 * @param {string} text
 * @param {string|null} color whose numbering the plays in `text` use ("white"/"black")
 * @param {string|null} [side] the side to count from
 * @returns {string}
 */
export function pointsFor(text, color, side = shownSide) {
  if (numbering !== "mine" || !side || !color || color === side || !text) return text;
  return text.replace(PLAY_IN_TEXT, (play) => mirrorPlay(play));
}

/** The text of a move-list line as the setting writes it: a play of the side other than
 * `side` counted from `side` ("mine"), else as the server wrote it. */
function lineText(entry, side) {
  if (!side || entry.kind !== "play" || entry.color === side) return entry.text;
  const found = PLAY_LINE.exec(entry.text);
  return found ? `${found[1]}${mirrorPlay(found[2])}` : entry.text;
}

/**
 * The turn numbers of a move list as a .mat numbers its lines: each numbered line has two
 * columns, White's action on the left and Black's on the right (a line Black begins leaves
 * the left one empty), so both sides' turns share a number; each game counts from 1.
 * @param {{game?: number, kind: string, color: string|null}[]} history the move list
 * @returns {({turn: number, first: boolean}|null)[]} per line: its turn, and whether it
 *   begins it (the number is shown there); null for a game's heading or result
 */
export function turnNumbers(history) {
  const numbers = [];
  let game;
  let turn = 0;
  let rightTaken = true; // the line so far has its right column (or none is open)
  for (const entry of history) {
    if (entry.game !== game) {
      game = entry.game;
      turn = 0;
      rightTaken = true;
    }
    if (entry.kind === "game" || entry.kind === "result" || !entry.color) {
      numbers.push(null);
    } else if (entry.color === "white" || rightTaken) {
      turn += 1;
      rightTaken = entry.color !== "white";
      numbers.push({ turn, first: true });
    } else {
      rightTaken = true;
      numbers.push({ turn, first: false });
    }
  }
  return numbers;
}

/** Fill `list` (the move list's <ol>) with `history`, numbered by turns (turnNumbers); its
 * plays written as the setting says (`side`: the side the board is numbered from). */
export function fillHistory(list, history, side = null) {
  const numbers = turnNumbers(history);
  if (side) shownSide = side;
  const mine = numbering === "mine" && side ? side : null;
  const note = $("history-note");
  if (note) {
    note.textContent = mine ? "· all counted from your side, as the board"
      : "· each play counted from its player's own side";
  }
  list.replaceChildren();
  history.forEach((entry, index) => {
    const item = document.createElement("li");
    item.className = `history-entry ${entry.color || ""}`;
    item.dataset.kind = entry.kind;
    item.textContent = lineText(entry, mine);
    const number = numbers[index];
    if (number) {
      item.value = number.turn;
      item.dataset.turn = String(number.turn);
      if (!number.first) item.classList.add("same-turn"); // the number is on the line before
    } else {
      item.classList.add("unnumbered");
    }
    list.appendChild(item);
  });
}

export function drawResult(view, { busy = false, live = true } = {}) {
  const result = view.result;
  $("result").hidden = !result;
  if (!result) return;
  $("result-title").textContent = result.title;
  $("result-text").textContent = result.text;
  // Mid-match (or mid-session) "Next game" goes on; "New game" leaves: it says so.
  const goesOn = Boolean(view.can && view.can.next_game);
  const what = view.score && view.score.length ? "match" : "session";
  const leave = $("result-new-game-button");
  leave.textContent = goesOn ? `New game (leave the ${what})` : "New game";
  leave.title = goesOn ? `Leave this ${what} and start another game (it stays under Recent games)` : "";
  $("next-game-button").title = goesOn ? `The next game of this ${what}` : "";
  $("rematch-button").hidden = !(live && view.can.rematch);
  $("rematch-button").disabled = busy;
}
