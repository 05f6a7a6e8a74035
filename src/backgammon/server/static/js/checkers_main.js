// The checkers page: American checkers against the computer or pass & play, at the shared table
// (gametable/http.py: POST /api/tables, GET /api/tables/{id}, POST /api/tables/{id}/actions,
// POST /api/tables/{id}/clock, GET /api/tables/{id}/export.pdn).
//
// A timed game's clock runs only while a page watches (gametable/presence.py, as at
// backgammon's local door): while a timed table is in play the page sends its heartbeat
// (heartbeat.js: every `clock.heartbeat` seconds, when the tab is visible again, when the
// running clock shows zero, and a "leave" when the page closes). An answer that shows another
// action at the table or an outcome (a flag fell) makes the page read the table again; else its
// fresher clock is shown.
//
// The page decides no rule: it shows the board, the legal moves, the clocks and the outcome
// the server sends, and sends whole moves (a multi-jump is one action). The table's id and
// token are kept in localStorage, so a reload picks the game up where it stands.
//
// Review: the arrow keys (←/→, Home/End), the buttons under the board or a click on a move of
// the list show an earlier position (read-only while the game goes on; End or the last move
// returns to it), with that move's path and captures marked. The positions come from the
// server (GET /api/checkers/tables/{id}/review).
//
// A PDN file (chosen or pasted) is read by the server (POST /api/checkers/pdn) and its games
// open in review, one at a time; a game the server could not read whole says where and why
// (game, move number, side, reason) and shows the moves read before the problem.
//
// Against the computer, the page says how long it thought for its last move (the view's
// thought, timed by the table), and a finished game is counted in this browser's record
// (js/checkers_record.js: won, lost and drawn by level; the Record button shows it).
//
// Test hooks: <body data-state="idle|busy">; the board's data-fen, data-chain and data-ply
// (the position shown in review, absent when the board shows the game as it stands).

import { errorWords } from "./api.js";
import {
  ApiError, act, createTable, exportPdn, listBallots, openPdn, readTable, reviewTable,
} from "./checkers_api.js";
import { CheckersBoard } from "./checkers_board.js";
import { claimLabel, claimWhy, drawnWords } from "./checkers_draws.js";
import { createOnline } from "./checkers_online.js";
import { RecordView, countTable, fetchRecord, recordWords } from "./checkers_record.js";
import {
  capturedBy, countPieces, frameState, liveMoves, moveWords, renderMoveList,
} from "./checkers_review.js";
import { ClockDisplay, amount, controlName } from "./clock.js";
import { Heartbeat } from "./heartbeat.js";
import { showError, showText } from "./notes.js";
import { applyTheme, loadSettings, saveSettings } from "./settings.js";

const TABLE_KEY = "checkers.table";
const SETTINGS_KEY = "checkers.settings";
const LEVELS = { easy: "Easy", medium: "Medium", hard: "Hard", expert: "Expert" };
const NAME = { black: "Black", white: "White" };
/** The person's move stays on the board this long before the computer's reply is drawn. */
const REPLY_PAUSE_MS = 350;

const $ = (id) => document.getElementById(id);

function other(side) {
  return side === "black" ? "white" : "black";
}

function storage() {
  try {
    return window.localStorage;
  } catch (err) {
    return null; // storage disabled: the game lasts for this visit only
  }
}

function readJson(key) {
  const store = storage();
  try {
    return JSON.parse((store && store.getItem(key)) || "null");
  } catch (err) {
    return null;
  }
}

function writeJson(key, value) {
  const store = storage();
  if (!store) return;
  if (value === null) store.removeItem(key);
  else store.setItem(key, JSON.stringify(value));
}

const SETTING_DEFAULTS = Object.freeze({
  numbers: true,
  mode: "computer",
  level: "easy",
  side: "black",
  time_control: "none",
  opening: "usual", // "usual" | "random" | "choose" (a three-move ballot)
  ballot: "", // the chosen ballot's key
});

function loadCheckersSettings() {
  const saved = readJson(SETTINGS_KEY) || {};
  const out = { ...SETTING_DEFAULTS };
  for (const [key, value] of Object.entries(saved)) {
    if (key in SETTING_DEFAULTS && typeof value === typeof SETTING_DEFAULTS[key]) out[key] = value;
  }
  return out;
}

const app = {
  settings: loadCheckersSettings(),
  table: null, // {id, token, mode, level, sideChoice, side, timeControl, start, ballot}
  view: null,
  busy: false,
  thinking: false, // the person's move is sent, the computer's answer awaited
  notice: "", // a line for the status (the computer's answer to a draw offer)
  // What the live region has said of the table's game: {table, moves, over}.
  announced: null,
  // Stepping through a game: {source: "table", frames, ply} (the table's game), or {source:
  // "file", file, index, frames, ply} (a game of a PDN file); null: the game as it stands.
  review: null,
};

const board = new CheckersBoard($("board"), {
  onMove: (path) => sendMove(path),
  onRefused: (path) => sendMove(path, { refused: true }),
  onChain: (chain) => showChain(chain),
  onCursor: (words) => {
    $("cursor-words").textContent = words;
  },
});
// The clocks: the view's `clock` counted down; at zero the server is asked (it records the
// loss) through the heartbeat of a local table, else the table is read.
const clocks = new ClockDisplay($("clocks"), {
  sides: ["black", "white"],
  caption: clockCaption,
  onZero: () => (heartbeat.watching ? heartbeat.check() : reread()),
});
// The page's heartbeat while a timed local table is in play (the clock runs while it comes).
// Out of reach, the clock box says so and stops the clock where the server does (clock.js).
const heartbeat = new Heartbeat({
  onAnswer: (answer) => heartbeatAnswered(answer),
  onContact: ({ reached, sentAt }) => {
    if (reached && sentAt) clocks.heard(sentAt);
    clocks.connection(reached);
  },
});
let watchedTable = null; // the app.table the heartbeat is about
const record = new RecordView();
// Online play (checkers_online.js): a room of the shared table instead of app.table.
const online = createOnline({
  board,
  show: (view, options) => show(view, options),
  showError: (message) => showError(message),
  setBusy: (busy) => setBusy(busy),
  connection: (reachable) => clocks.connection(reachable),
  reset: () => {
    app.table = null;
    watchClock(null); // the local table is left: its clock stops
    app.view = null;
    app.review = null;
    app.notice = "";
    board.cancelChain();
  },
  idle: () => {
    showStart();
    openNewGame();
  },
});

// ------------------------------------------------------------------ who is who

function isComputerGame() {
  return Boolean(app.table && app.table.mode === "computer");
}

/** The side whose view the page reads: the person's against the computer, else the side the
 * game waits on (pass & play). */
function viewerSide(view) {
  if (online.active) return online.side;
  if (isComputerGame()) return app.table.side;
  if (!view) return null;
  return (view.to_act && view.to_act[0]) || view.state.turn;
}

/** The players' names: "You" and "Computer (Hard)" (`short`: "Computer"), or the sides'. */
/** The caption of a checkers clock: "Blitz: 3 min each, and 2 s more after every move." */
function clockCaption(clock) {
  return `${controlName(clock)}: ${amount(clock.reserve)} each, and ${clock.increment} s more after every move.`;
}

function names(short = false) {
  if (online.active) return online.names();
  if (!isComputerGame()) return { black: "Black", white: "White" };
  const me = app.table.side;
  const computer = short ? "Computer" : `Computer (${LEVELS[app.table.level] || app.table.level})`;
  return { [me]: "You", [other(me)]: computer };
}

// ------------------------------------------------------------------ drawing a view

function setBusy(busy) {
  app.busy = busy;
  document.body.dataset.state = busy ? "busy" : "idle";
  document.body.classList.toggle("busy", busy);
  updateControls();
}

function show(view, { animate = true } = {}) {
  app.view = view;
  const state = view.state;
  if (app.review && app.review.source === "table" && app.review.frames.moves.length !== state.moves.length) {
    app.review = null; // the game went on: its frames are out of date
  }
  const over = Boolean(view.outcome);
  const mover = !over && state.can.move ? state.turn : null;
  if (app.table) board.setViewer(isComputerGame() ? app.table.side : "white");
  board.show(state, { mover, animate });
  board.setEnabled(Boolean(mover) && !app.busy);
  clocks.show(view.clock, { names: names(true), over });
  watchClock(view);
  drawPieces(state);
  drawMoves(state);
  drawBallot(state);
  drawOffer(view);
  drawResult(view);
  drawThought(view);
  countFinished(view);
  drawStatus();
  updateControls();
  announce(view);
  if (app.review) drawReview();
  else drawReviewBar();
  if (online.active) online.decorate(view);
}

function drawPieces(state) {
  // the computer without its level, as in the clock box: "Computer (Hard)" was cut short
  drawCounts(state.pieces, !app.view.outcome ? state.turn : null, names(true), state.captured, names());
}

/** The pieces table: each side's men and kings (`pieces`), the side to move marked;
 * `label` names the sides in the table, `whole` in its title (where a long name is cut). */
function drawCounts(pieces, turn, label = names(), captured = null, whole = label) {
  for (const side of ["black", "white"]) {
    const row = $(`pieces-${side}`);
    row.querySelector(".name").textContent = label[side];
    row.querySelector("th").title = whole[side]; // whole, where the table cuts a long name
    row.querySelector(".men").textContent = String(pieces[side].men);
    row.querySelector(".kings").textContent = String(pieces[side].kings);
    row.classList.toggle("on-roll", turn === side);
    // The opponent's pieces this side has taken: the count, and as many small pieces.
    const taken = captured ? captured[side] : 0;
    row.querySelector(".ck-taken-count").textContent = String(taken);
    const chips = row.querySelector(".ck-taken-chips");
    if (chips.childElementCount !== taken) {
      chips.replaceChildren(...Array.from({ length: taken }, () => {
        const chip = document.createElement("span");
        chip.className = `ck-mini ${side === "black" ? "white" : "black"}`;
        return chip;
      }));
    }
  }
}

/** The move list in PDN, numbered by moves (Black's and White's), as a PDN file writes it. */
function drawMoves(state) {
  renderMoveList($("move-list"), liveMoves(state));
  const counts = [];
  if (state.quiet_plies >= 20) {
    counts.push(`${Math.floor(state.quiet_plies / 2)} of 40 moves each without a capture or a man's move (the 40-move rule).`);
  }
  if (state.repetitions >= 2) {
    const third = state.draws === "claim" ? "at the third, a draw can be claimed" : "the third is a draw";
    counts.push(`This position has occurred ${state.repetitions} times (${third}).`);
  }
  $("draw-counts").textContent = counts.join(" ");
}

/**
 * Say each new move and the result in the live region (#announce), for screen readers:
 * "You played 11-15. The computer took 1 piece: 23x14. Your move." The first view of a table
 * picked up on reload says nothing; a new game's says its first moves (a ballot's too).
 */
function announce(view) {
  if (!app.table) return;
  const state = view.state;
  const over = Boolean(view.outcome);
  const heard = app.announced;
  if (!heard || heard.table !== app.table.id) {
    app.announced = { table: app.table.id, moves: state.moves.length, over };
    return;
  }
  const parts = [];
  const computer = isComputerGame();
  for (const move of liveMoves(state).slice(heard.moves)) {
    const who = computer ? (move.side === app.table.side ? "You" : "The computer") : NAME[move.side];
    const taken = move.text.split("x").length - 1;
    parts.push(taken
      ? `${who} took ${taken} piece${taken === 1 ? "" : "s"}: ${move.text}.`
      : `${who} played ${move.text}.`);
  }
  if (over && !heard.over) parts.push(resultWords(view).join(": "));
  else if (!over && parts.length && state.can.move) {
    parts.push(computer ? "Your move." : `${NAME[state.turn]} to move.`);
  }
  // A draw the viewer may claim, said once: the 40-move rule once a side, a repetition at
  // each position it comes with.
  const claimable = !over && state.can.claim_draw ? state.claimable : null;
  const side = viewerSide(view);
  const claim = claimable && (claimable === "40-move rule" ? `${side}:40` : `${side}:${state.moves.length}`);
  if (claim && claim !== heard.claim) {
    const who = computer ? "You" : NAME[side];
    parts.push(`${who} may claim a draw (${claimable}): ${claimWhy(claimable, state.repetitions)}.`);
  }
  app.announced = { table: app.table.id, moves: state.moves.length, over, claim };
  if (parts.length) $("announce").textContent = parts.join(" ");
}

/** The three-move ballot the game started from, named. */
function drawBallot(state) {
  const note = $("ballot-note");
  note.hidden = !state.ballot;
  // each move whole on one line ("24-19", never "24-" then "19")
  const words = state.ballot ? `Three-move ballot ${state.ballot.label}`.split(" ") : [];
  note.replaceChildren(...words.flatMap((word, i) => {
    const part = /\d[-x]\d/.test(word) ? Object.assign(document.createElement("span"),
      { className: "ck-nowrap", textContent: word }) : word;
    return i ? [" ", part] : [part];
  }));
}

function drawOffer(view) {
  const box = $("offer");
  const offer = view.offer;
  if (!offer || view.outcome || offer.kind !== "draw") {
    box.hidden = true;
    return;
  }
  const answerer = other(offer.by);
  if (isComputerGame()) {
    box.hidden = true; // the computer answers at once
    return;
  }
  $("offer-text").textContent = `${NAME[offer.by]} offers a draw. ${NAME[answerer]}, do you accept?`;
  box.hidden = !(view.state.can.accept_draw || view.state.can.decline_draw);
}

function resultWords(view) {
  const { winner, reason } = view.outcome;
  const computer = isComputerGame();
  if (!winner) {
    const by = view.state.claimed_by;
    const claimer = !by ? null : computer ? (by === app.table.side ? "You" : "The computer") : NAME[by];
    return ["Draw", drawnWords(reason, claimer)];
  }
  const loser = other(winner);
  const you = computer && loser === app.table.side;
  const title = computer ? (winner === app.table.side ? "You win" : "The computer wins") : `${NAME[winner]} wins`;
  const who = computer ? (you ? "You" : "The computer") : NAME[loser];
  const has = you ? "You have" : `${who} has`;
  let text;
  if (reason === "resignation") text = `${who} resigned.`;
  else if (reason === "time") text = `${who} ran out of time.`;
  else if (reason === "no legal move") {
    const left = view.state.pieces[loser];
    text = left.men + left.kings === 0 ? `${has} no pieces left.` : `${has} no legal move left.`;
  } else text = `The game ended: ${reason}.`;
  return [title, text];
}

function drawResult(view) {
  const box = $("result");
  if (!view.outcome) {
    box.hidden = true;
    return;
  }
  const [title, text] = resultWords(view);
  $("result-title").textContent = title;
  $("result-text").textContent = text;
  box.hidden = false;
  box.dataset.winner = view.outcome.winner || "draw";
  box.dataset.reason = view.outcome.reason;
}

/** Seconds in words: "less than 0.01 s", "0.04 s", "0.8 s", "12 s". */
function secondsWords(seconds) {
  if (seconds < 0.005) return "less than 0.01 s";
  if (seconds < 0.095) return `${seconds.toFixed(2)} s`;
  return seconds < 9.95 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds)} s`;
}

/** How long the computer thought for its last move, while that move is the game's last. */
function drawThought(view) {
  const node = $("thought-note");
  const state = view.state;
  const thought = view.thought;
  const shown = isComputerGame() && !online.active && Boolean(thought) && thought.actions === view.actions
    && state.moves.length > 0;
  node.hidden = !shown;
  if (!shown) {
    node.textContent = "";
    delete node.dataset.seconds;
    return;
  }
  const level = LEVELS[app.table.level] || app.table.level;
  const move = document.createElement("span");
  move.className = "ck-nowrap";
  move.textContent = state.moves[state.moves.length - 1];
  node.replaceChildren(`The computer (${level}) thought ${secondsWords(thought.seconds)} for `, move, ".");
  node.dataset.seconds = String(thought.seconds);
}

/**
 * A game against the computer that is over is counted in this browser's record (once: the
 * table remembers it was, and the server counts a table once); the result box then says the
 * record against that level.
 */
function countFinished(view) {
  const line = $("result-record");
  const table = app.table;
  if (!view.outcome || !isComputerGame() || online.active) {
    line.hidden = true;
    return;
  }
  if (table.counting) return;
  table.counting = true;
  const asked = table.counted ? fetchRecord() : countTable(table.id, table.token).then((answer) => {
    table.counted = true;
    if (table === app.table) writeJson(TABLE_KEY, { ...table, counting: undefined });
    return answer.record;
  });
  asked.then((counts) => {
    if (table !== app.table) return;
    const row = counts.rows.find((r) => r.opponent === table.level);
    if (!row) return;
    line.textContent = `Your record against the computer (${LEVELS[table.level] || table.level}): ${recordWords(row)}.`;
    line.dataset.games = String(row.games);
    line.hidden = false;
  }).catch(() => {
    table.counting = false; // asked again at the next view
  });
}

function drawStatus() {
  const view = app.view;
  const status = $("status");
  const note = $("capture-note");
  if (!view) {
    status.textContent = "Start a new game.";
    note.hidden = true;
    return;
  }
  const state = view.state;
  if (view.outcome) {
    status.textContent = resultWords(view)[0] + ".";
    note.hidden = true;
    return;
  }
  let text;
  if (app.busy && isComputerGame() && (app.thinking || state.turn !== app.table.side)) {
    text = "The computer is thinking…";
  } else if (view.offer && !isComputerGame() && (state.can.accept_draw || state.can.decline_draw)) {
    text = `${NAME[other(view.offer.by)]}: answer ${NAME[view.offer.by]}'s draw offer.`;
  } else if (isComputerGame()) {
    text = state.turn === app.table.side ? `Your move (${NAME[state.turn]}).` : `${NAME[state.turn]} to move.`;
  } else {
    text = `${NAME[state.turn]} to move.`;
  }
  if (app.notice) text = `${app.notice} ${text}`;
  status.textContent = text;
  const mine = state.can.move;
  note.hidden = !(mine && state.capture_forced);
  if (mine && state.capture_forced) {
    const jumps = state.legal.some((path) => path.length > 2);
    note.textContent = jumps
      ? "A capture is mandatory: a marked piece must jump, and go on jumping while it can."
      : "A capture is mandatory: a marked piece must jump.";
  }
}

function showChain(chain) {
  if (chain.length) showError(""); // a new try: the last refusal's words go
  const node = $("chain-note");
  const hops = chain.length - 1;
  if (hops < 1) {
    node.hidden = true;
    node.textContent = "";
  } else {
    const next = [...board.targets()].sort((a, b) => a - b);
    node.textContent = `Jumping ${chain.join("x")}: land on ${next.join(" or ")} next (Undo takes the last hop back).`;
    node.hidden = false;
  }
  updateControls();
}

function updateControls() {
  const view = app.view;
  const state = view && view.state;
  const over = !view || Boolean(view.outcome) || Boolean(app.review && app.review.source === "file");
  $("undo-button").disabled = app.busy || board.chain.length < 1 || over;
  const draw = $("draw-button");
  draw.disabled = app.busy || over || !state.can.offer_draw || Boolean(view.offer);
  // the one reason the button is off that the board does not show: an offer already made
  // since the side's last move (the table allows one between two of its moves)
  draw.title = !over && !view.offer && !state.can.offer_draw && state.can.resign
    ? "One draw offer between two of your own moves: move first, then you may offer again."
    : "";
  // A draw the viewer may claim (threefold repetition, the 40-move rule): shown while it can.
  const claim = $("claim-button");
  const claimable = !over && state.can.claim_draw ? state.claimable : null;
  claim.hidden = !claimable;
  claim.disabled = app.busy || !claimable;
  if (claimable) {
    claim.textContent = claimLabel(claimable);
    claim.title = `You may claim a draw: ${claimWhy(claimable, state.repetitions)}.`;
  }
  $("resign-button").disabled = app.busy || over || !state.can.resign;
  const exportable = (online.active ? Boolean(view)
    : Boolean(app.table && view)) && !(app.review && app.review.source === "file");
  $("pdn-copy").disabled = !exportable;
  $("pdn-download").disabled = !exportable;
  $("rematch-button").disabled = app.busy;
}

// ------------------------------------------------------------------ review

/** The number of moves of the game shown (reviewed or as it stands). */
function gameLength() {
  if (app.review) return app.review.frames.moves.length;
  return app.view ? app.view.state.moves.length : 0;
}

/** The ply on the board: the reviewed one, else the game's last. */
function currentPly() {
  return app.review ? app.review.ply : gameLength();
}

/**
 * Show the position after `ply` moves (0: the start). The table's game is read-only while
 * reviewed; its last position returns to the game as it stands.
 */
async function goTo(ply) {
  if (app.reviewLoading) return;
  const length = gameLength();
  const wanted = Math.max(0, Math.min(length, ply));
  if (!app.review) {
    if (wanted === length || !app.table || !app.view || app.busy) return;
    app.reviewLoading = true;
    try {
      const frames = await reviewTable(app.table.id, app.table.token);
      if (!app.view || frames.moves.length !== app.view.state.moves.length) return; // a move came between
      board.cancelChain();
      app.review = { source: "table", frames, ply: wanted };
    } catch (err) {
      showError(errorWords(err));
      return;
    } finally {
      app.reviewLoading = false;
    }
  }
  app.review.ply = wanted;
  if (app.review.source === "table" && wanted === app.review.frames.moves.length) {
    leaveReview();
    return;
  }
  drawReview();
}

function leaveReview() {
  app.review = null;
  document.body.classList.remove("file-review");
  $("file-box").hidden = true;
  delete $("board").dataset.ply;
  if (app.view) show(app.view, { animate: false });
  else drawReviewBar();
}

function drawReview() {
  const { frames, ply } = app.review;
  const length = frames.moves.length;
  board.show(frameState(frames, ply), { mover: null, animate: false });
  board.setEnabled(false);
  $("board").dataset.ply = String(ply);
  renderMoveList($("move-list"), frames.moves, ply);
  const turn = ply < length ? frames.moves[ply].side : null;
  const file = app.review.source === "file";
  const tags = frames.tags || {};
  const label = file ? { black: tags.Black || "Black", white: tags.White || "White" } : names();
  const lost = capturedBy(frames, ply);
  drawCounts(countPieces(frames.boards[ply]), turn, label, { black: lost.white, white: lost.black });
  $("capture-note").hidden = true;
  // counted in half-moves (each side's move), as the arrows step; the move list numbers
  // moves as PDN does, Black's and White's together
  const place = ply === 0
    ? `The start of the game (${halfMoves(length)} played).`
    : `After ${ply} of ${halfMoves(length)}: ${moveWords(frames.moves[ply - 1])}.`;
  const back = app.review.source === "table" ? " End returns to the game." : "";
  const which = app.review.source === "file" ? `Game ${frames.number}: ` : "";
  $("status").textContent = `${which}${place} ← and → step through the game.${back}`;
  document.body.classList.toggle("file-review", app.review.source === "file");
  drawReviewBar();
  updateControls();
}

function drawReviewBar() {
  const length = gameLength();
  const ply = currentPly();
  const bar = $("review-bar");
  bar.hidden = length === 0;
  $("review-first").disabled = ply === 0;
  $("review-prev").disabled = ply === 0;
  $("review-next").disabled = ply >= length;
  $("review-last").disabled = ply >= length;
  $("review-place").textContent = app.review
    ? `${ply} / ${length}`
    : halfMoves(length);
  bar.classList.toggle("reviewing", Boolean(app.review));
}

/** "1 half-move", "54 half-moves": each side's move, as the review steps. */
function halfMoves(count) {
  return `${count} half-move${count === 1 ? "" : "s"}`;
}

/** ←/→ a move back or forward, Home the start, End the last move (or the game itself). */
function onReviewKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  if (document.querySelector("dialog[open]")) return;
  const target = event.target;
  if (target && target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
  const step = { ArrowLeft: -1, ArrowRight: 1 }[event.key];
  let ply = null;
  if (step) ply = currentPly() + step;
  else if (event.key === "Home") ply = 0;
  else if (event.key === "End") ply = gameLength();
  if (ply === null || gameLength() === 0) return;
  event.preventDefault();
  goTo(ply);
}

// ------------------------------------------------------------------ PDN files

const RESULT_WORDS = {
  "1-0": "Black won (1-0).",
  "0-1": "White won (0-1).",
  "1/2-1/2": "Drawn (1/2-1/2).",
  "*": "No result (*).",
};

/** Send a PDN text to the server and open its games in review. */
async function openFile(text, name) {
  const status = $("import-status");
  status.textContent = name ? `Reading ${name}…` : "Reading the PDN…";
  try {
    const file = await openPdn(text, name);
    board.cancelChain();
    const first = Math.max(0, file.games.findIndex((game) => game.ok));
    showFileGame(file, first);
    const bad = file.games.filter((game) => !game.ok).length;
    const count = `${file.count} game${file.count === 1 ? "" : "s"}`;
    status.textContent = `${name || "The PDN"}: ${count} opened${bad ? `, ${bad} with a problem` : ""}.`;
  } catch (err) {
    status.textContent = errorWords(err);
  }
}

/** Show game `index` of an opened file at its start. */
function showFileGame(file, index) {
  const frames = file.games[index];
  app.review = { source: "file", file, index, frames, ply: 0 };
  const box = $("file-box");
  const title = file.name ? `From ${file.name}` : "From the pasted PDN";
  const more = file.left_out ? ` (the first ${file.games.length} of ${file.count} games)` : "";
  $("file-title").textContent = `${title}${more}`;
  const select = $("file-game");
  if (select.file !== file) { // each file or paste opened lists its own games
    select.file = file;
    select.replaceChildren();
    file.games.forEach((game, i) => {
      const option = document.createElement("option");
      option.value = String(i);
      option.textContent = `${game.number}. ${game.title} ${game.result}${game.ok ? "" : " ⚠"}`;
      select.appendChild(option);
    });
  }
  select.value = String(index);
  $("file-result").textContent = RESULT_WORDS[frames.result] || "";
  const error = $("file-error");
  error.hidden = !frames.error;
  error.textContent = frames.error
    ? `${frames.error.message}. The moves before it can be reviewed.`
    : "";
  const problems = file.games.filter((game) => !game.ok);
  $("file-problems").hidden = problems.length === 0;
  $("file-problems-title").textContent =
    `${problems.length} game${problems.length === 1 ? "" : "s"} of this file could not be read whole`;
  $("file-problems-list").replaceChildren(...problems.map((game) => {
    const li = document.createElement("li");
    li.textContent = game.error.message;
    return li;
  }));
  box.hidden = false;
  board.setViewer("white");
  drawReview();
}

function closeFile() {
  $("import-status").textContent = "";
  leaveReview();
  if (!app.view) showStart();
}

// ------------------------------------------------------------------ the heartbeat

/**
 * The heartbeat follows the view drawn: on while the local table's timed game is in play,
 * else off. A table left for another (a new game, online play) is told this page has gone.
 */
function watchClock(view) {
  const table = online.active ? null : app.table;
  const on = Boolean(table && view && view.clock && !view.outcome);
  const fresh = table !== watchedTable;
  if (fresh && heartbeat.watching) heartbeat.leave(); // the table watched until now is left
  if (!on) {
    watchedTable = null;
    heartbeat.watch(null);
    return;
  }
  if (fresh) {
    watchedTable = table;
    heartbeat.watch({
      url: `/api/tables/${encodeURIComponent(table.id)}/clock`,
      headers: { "X-Table-Token": table.token }, // as checkers_api.js sends it
      body: {},
      seconds: view.clock.heartbeat,
    });
  }
  if (fresh || view.clock.paused) heartbeat.check();
}

/** The server's answer to a heartbeat {actions, outcome, clock}: a flag that fell or another
 * action at the table (the count differs from the view drawn) reads the table again; else the
 * fresher clock is shown. */
function heartbeatAnswered(answer) {
  const view = app.view;
  if (online.active || !app.table || app.table !== watchedTable || !view || app.busy) return;
  if (answer.outcome || answer.actions !== view.actions) {
    reread();
  } else if (answer.clock && !clocks.local) {
    view.clock = answer.clock; // drawn again, the view keeps counting from this clock
    clocks.show(answer.clock, { names: names(true), over: false });
  }
}

// ------------------------------------------------------------------ talking to the table

function forget(message) {
  app.table = null;
  watchClock(null);
  app.view = null;
  writeJson(TABLE_KEY, null);
  if (message) showError(message);
}

/** Read the table again as the side the page shows (pass & play: the side to act). */
async function fetchView(side) {
  const answer = await readTable(app.table.id, app.table.token, side);
  if (!isComputerGame()) {
    const wanted = viewerSide(answer.view);
    if (wanted && wanted !== side) return (await readTable(app.table.id, app.table.token, wanted)).view;
  }
  return answer.view;
}

async function reread() {
  if (!app.table || app.busy) return;
  try {
    const view = await fetchView(viewerSide(app.view));
    if (!app.busy) show(view, { animate: false });
  } catch (err) {
    // the next action says what is wrong
  }
}

function wait(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Send one action for `side`; draw the answer (after the computer's reply). Returns true when
 * the server took it.
 */
async function send(side, action, { before = null } = {}) {
  if (online.active) return online.send(action, { before });
  const table = app.table;
  setBusy(true);
  showError("");
  const started = performance.now();
  if (before) before();
  try {
    const answer = await act(table.id, table.token, side, action);
    let view = answer.view;
    if (table !== app.table) {
      app.thinking = false;
      return false; // a new game began meanwhile
    }
    if (!isComputerGame()) view = await fetchView(viewerSide(view));
    const left = REPLY_PAUSE_MS - (performance.now() - started);
    if (action.type === "move" && isComputerGame() && left > 0) await wait(left);
    app.thinking = false;
    setBusy(false);
    show(view);
    return true;
  } catch (err) {
    app.thinking = false;
    setBusy(false);
    if (app.view) show(app.view, { animate: false });
    showError(errorWords(err));
    if (err instanceof ApiError && (err.status === 404 || err.status === 403)) {
      forget("This game is no longer on the server. Start a new game.");
    } else if (err instanceof ApiError && err.code === "game_over") {
      reread(); // a flag fell before the move: show how the game ended
    }
    return false;
  }
}

async function sendMove(path, { refused = false } = {}) {
  if (!app.view || app.busy) return;
  const side = app.view.state.turn;
  app.notice = "";
  await send(side, { type: "move", path }, {
    before: refused ? null : () => {
      board.showPending(path);
      board.setEnabled(false);
      if (isComputerGame()) {
        clocks.runLocally(other(side));
        app.thinking = true;
        $("thought-note").hidden = true;
      }
      drawStatus();
    },
  });
}

async function offerDraw() {
  if (!app.view) return;
  const side = viewerSide(app.view);
  app.notice = "";
  const done = await send(side, { type: "offer_draw" });
  if (done && isComputerGame() && app.view && !app.view.outcome) {
    app.notice = "The computer declines the draw.";
    drawStatus();
  }
}

async function claimDraw() {
  if (!app.view || !app.view.state.can.claim_draw) return;
  const side = viewerSide(app.view);
  app.notice = "";
  await send(side, { type: "claim_draw" });
}

async function answerDraw(accept) {
  if (!app.view) return;
  const side = viewerSide(app.view);
  app.notice = "";
  await send(side, { type: accept ? "accept_draw" : "decline_draw" });
}

async function resign() {
  if (!app.view) return;
  const side = isComputerGame() ? app.table.side : viewerSide(app.view);
  app.notice = "";
  await send(side, { type: "resign" });
}

/** Start a table with `choice` {mode, level, side ("random" too), time_control, start, ballot}. */
async function startGame(choice) {
  online.stop(); // a local game ends online play on this page
  const side = choice.side === "random" ? (Math.random() < 0.5 ? "black" : "white") : choice.side;
  const computer = choice.mode === "computer";
  const seats = computer
    ? { [side]: { kind: "person" }, [other(side)]: { kind: "computer", level: choice.level } }
    : { black: { kind: "person" }, white: { kind: "person" } };
  setBusy(true);
  try {
    const made = await createTable({
      seats, timeControl: choice.time_control, start: choice.start || null, ballot: choice.ballot || null,
    });
    app.table = {
      id: made.id,
      token: made.token,
      mode: computer ? "computer" : "pass_and_play",
      level: choice.level,
      sideChoice: choice.side,
      side: computer ? side : null,
      timeControl: choice.time_control,
      start: choice.start || null,
      ballot: choice.ballot || null,
    };
    writeJson(TABLE_KEY, app.table);
    app.notice = "";
    app.announced = { table: made.id, moves: 0, over: false }; // say the first moves
    app.review = null;
    document.body.classList.remove("file-review");
    $("file-box").hidden = true;
    delete $("board").dataset.ply;
    let view = made.view;
    if (!computer) view = await fetchView(viewerSide(view));
    setBusy(false);
    showError("");
    show(view, { animate: false });
    return null;
  } catch (err) {
    setBusy(false);
    return errorWords(err);
  }
}

async function rematch() {
  if (online.active) return online.rematch();
  const table = app.table;
  if (!table) return;
  const error = await startGame({
    mode: table.mode,
    level: table.level,
    side: table.sideChoice || table.side || "black",
    time_control: table.timeControl,
    start: table.start,
    ballot: table.ballot || null, // "random" draws another ballot
  });
  if (error) showError(error);
}

// ------------------------------------------------------------------ PDN export

async function pdnText() {
  if (online.active) return online.pdn(); // the room's game, read with the seat's token
  return exportPdn(app.table.id, app.table.token);
}

async function copyPdn() {
  const status = $("pdn-status");
  const area = $("pdn-text");
  try {
    const text = await pdnText();
    area.value = text;
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
      await navigator.clipboard.writeText(text);
      area.hidden = true;
      status.textContent = "The game is copied as PDN.";
    } catch (err) {
      area.hidden = false;
      area.focus();
      area.select();
      status.textContent = "Copy the PDN below (Ctrl+C): this page may not use the clipboard.";
    }
  } catch (err) {
    status.textContent = errorWords(err);
  }
}

async function downloadPdn() {
  const status = $("pdn-status");
  try {
    const text = await pdnText();
    const url = URL.createObjectURL(new Blob([text], { type: "application/x-pdn" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = online.active ? `checkers-${document.body.dataset.room}.pdn` : `checkers-${app.table.id}.pdn`;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    status.textContent = "The game is downloaded as a .pdn file.";
  } catch (err) {
    status.textContent = errorWords(err);
  }
}

// ------------------------------------------------------------------ dialogs

function openNewGame(fen = null) {
  const form = $("new-game-form");
  const s = app.settings;
  form.querySelector(`input[name=mode][value=${["pass_and_play", "online"].includes(s.mode) ? s.mode : "computer"}]`).checked = true;
  $("level-select").value = s.level;
  $("side-select").value = s.side;
  $("clock-select").value = s.time_control;
  $("opening-select").value = fen !== null ? "usual" : s.opening;
  if (fen !== null) {
    $("fen-input").value = fen;
    $("fen-details").open = true;
  }
  syncOpening();
  $("new-game-error").hidden = true;
  syncModeRows();
  const dialog = $("new-game-dialog");
  if (!dialog.open) dialog.showModal();
}

let ballotsLoaded = null;

/** Fill the ballot list (once) from the server. */
function loadBallots() {
  if (!ballotsLoaded) {
    ballotsLoaded = listBallots().then(({ ballots }) => {
      const select = $("ballot-select");
      select.replaceChildren(...ballots.map((ballot) => {
        const option = document.createElement("option");
        option.value = ballot.key;
        option.textContent = ballot.label;
        return option;
      }));
      if (app.settings.ballot) select.value = app.settings.ballot;
    }).catch((err) => {
      ballotsLoaded = null;
      showText("new-game-error", errorWords(err));
    });
  }
  return ballotsLoaded;
}

/** The opening rows: the ballot list for a chosen ballot; a FEN only for the usual start. */
function syncOpening() {
  const opening = $("opening-select").value;
  $("ballot-row").hidden = opening !== "choose";
  $("ballot-help").hidden = opening === "usual";
  $("fen-details").hidden = opening !== "usual";
  if (opening === "choose") loadBallots();
}

function syncModeRows() {
  const mode = $("new-game-form").querySelector("input[name=mode]:checked").value;
  for (const row of document.querySelectorAll("#new-game-form .computer-only")) row.hidden = mode !== "computer";
  for (const row of document.querySelectorAll("#new-game-form .online-only")) row.hidden = mode !== "online";
}

async function submitNewGame(event) {
  event.preventDefault();
  const form = $("new-game-form");
  const choice = {
    mode: form.querySelector("input[name=mode]:checked").value,
    level: $("level-select").value,
    side: $("side-select").value,
    time_control: $("clock-select").value,
    start: null,
    ballot: null,
  };
  const opening = $("opening-select").value;
  if (opening === "random") choice.ballot = "random";
  else if (opening === "choose") {
    await loadBallots();
    choice.ballot = $("ballot-select").value || null;
  } else choice.start = $("fen-input").value.trim() || null;
  app.settings = {
    ...app.settings, mode: choice.mode, level: choice.level, side: choice.side, time_control: choice.time_control,
    opening, ballot: opening === "choose" ? choice.ballot || "" : app.settings.ballot,
  };
  writeJson(SETTINGS_KEY, app.settings);
  $("new-game-start").disabled = true;
  const error = choice.mode === "online" ? await online.start(choice) : await startGame(choice);
  $("new-game-start").disabled = false;
  if (error) {
    showText("new-game-error", error);
    return;
  }
  $("new-game-dialog").close();
  if (new URLSearchParams(window.location.search).has("fen")) {
    history.replaceState(null, "", window.location.pathname); // a reload picks the game up
  }
}

function wire() {
  $("new-game-button").addEventListener("click", () => openNewGame());
  $("result-new-game-button").addEventListener("click", () => openNewGame());
  $("new-game-cancel").addEventListener("click", () => $("new-game-dialog").close());
  $("new-game-form").addEventListener("submit", submitNewGame);
  $("opening-select").addEventListener("change", syncOpening);
  for (const radio of document.querySelectorAll("#new-game-form input[name=mode]")) {
    radio.addEventListener("change", syncModeRows);
  }
  $("settings-button").addEventListener("click", () => {
    $("theme-select").value = loadSettings().theme;
    $("numbers-input").checked = app.settings.numbers;
    $("settings-dialog").showModal();
  });
  $("theme-select").addEventListener("change", (event) => {
    const shared = loadSettings(); // the theme is the site's: the backgammon page's too
    shared.theme = event.target.value;
    saveSettings(shared);
    applyTheme(shared.theme);
  });
  $("numbers-input").addEventListener("change", (event) => {
    app.settings = { ...app.settings, numbers: event.target.checked };
    writeJson(SETTINGS_KEY, app.settings);
    board.setNumbers(app.settings.numbers);
  });
  $("undo-button").addEventListener("click", () => board.undoHop());
  $("draw-button").addEventListener("click", () => offerDraw());
  $("claim-button").addEventListener("click", () => claimDraw());
  $("accept-button").addEventListener("click", () => answerDraw(true));
  $("decline-button").addEventListener("click", () => answerDraw(false));
  $("resign-button").addEventListener("click", () => {
    const side = isComputerGame() ? app.table.side : viewerSide(app.view);
    $("resign-text").textContent = isComputerGame()
      ? "Resign this game? The computer wins it."
      : `${NAME[side]} resigns this game? ${NAME[other(side)]} wins it.`;
    $("resign-dialog").showModal();
  });
  $("resign-dialog").addEventListener("close", () => {
    if ($("resign-dialog").returnValue === "resign") resign();
  });
  $("rematch-button").addEventListener("click", () => rematch());
  $("pdn-copy").addEventListener("click", () => copyPdn());
  $("pdn-download").addEventListener("click", () => downloadPdn());
  $("move-list").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-ply]");
    if (button) goTo(Number(button.dataset.ply));
  });
  $("review-first").addEventListener("click", () => goTo(0));
  $("review-prev").addEventListener("click", () => goTo(currentPly() - 1));
  $("review-next").addEventListener("click", () => goTo(currentPly() + 1));
  $("review-last").addEventListener("click", () => goTo(gameLength()));
  document.addEventListener("keydown", onReviewKey);
  $("pdn-file").addEventListener("change", async (event) => {
    const file = event.target.files && event.target.files[0];
    if (!file) return;
    const text = await file.text();
    event.target.value = ""; // the same file may be chosen again
    await openFile(text, file.name);
  });
  $("paste-open").addEventListener("click", () => {
    const text = $("paste-text").value;
    if (text.trim()) openFile(text, null);
  });
  $("file-game").addEventListener("change", (event) => {
    if (app.review && app.review.source === "file") showFileGame(app.review.file, Number(event.target.value));
  });
  $("file-close").addEventListener("click", () => closeFile());
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && board.chain.length && !document.querySelector("dialog[open]")) {
      board.cancelChain();
    }
  });
}

// ------------------------------------------------------------------ start

/** No game: the usual start, to look at while the New game dialog is open. */
function showStart() {
  const start = {};
  for (let square = 1; square <= 32; square++) {
    if (square <= 12) start[square] = "b";
    else if (square >= 21) start[square] = "w";
  }
  board.show({ board: start, legal: [], last_move: null, fen: "" }, { animate: false });
  drawStatus();
  drawReviewBar();
}

async function init() {
  applyTheme(loadSettings().theme);
  board.setNumbers(app.settings.numbers);
  wire();
  setBusy(false);
  const fen = new URLSearchParams(window.location.search).get("fen");
  if (fen === null && (await online.boot())) {
    document.body.dataset.ready = "1"; // an invite link, or the online game this page was in
    return;
  }
  const stored = readJson(TABLE_KEY);
  if (stored && stored.id && stored.token) {
    app.table = stored;
    try {
      const view = await fetchView(viewerSide(null));
      show(view, { animate: false });
    } catch (err) {
      const gone = err instanceof ApiError && [403, 404].includes(err.status);
      if (gone) forget("The game kept in this browser is no longer on the server.");
      else showError(errorWords(err));
    }
  }
  if (!app.view) showStart();
  drawStatus();
  document.body.dataset.ready = "1";
  if (fen !== null || !app.view) openNewGame(fen);
}

init();
