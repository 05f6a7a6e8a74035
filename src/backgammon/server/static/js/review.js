// Review: step through every position of the game (or of a .mat file) on the board.
//
// The positions come from the server (GET /api/games/{id}/review, the online room's `review`
// answer, or the answer to a .mat import): one frame per line of the move list, plus the start
// of each game, each with the board, dice and cube as they were, and the decisions made there as
// XGIDs (for the hints panel). While reviewing, the board only shows; the live game's controls
// are hidden; leaving review shows the live position again.

import { getReview } from "./assist_api.js";
import { fillHistory, pointsFor, turnNumbers } from "./table.js";

const $ = (id) => document.getElementById(id);

/**
 * The scoreboard's caption for a frame of a review: "5-point match, game 2", "Money session,
 * game 3", "Single game" (the length and the games of the review, not of the live game).
 */
export function reviewCaption(data, frame) {
  const length = Number(data.length) || 0;
  const frames = data.frames || [];
  const games = frames.length ? Math.max(...frames.map((f) => f.game || 1)) : 1;
  const game = (frame && frame.game) || 1;
  if (length > 0) return `${length}-point match, game ${game}`;
  if (games > 1) return `Money session, game ${game}`;
  return "Single game";
}

/** Scroll `list` (a box that scrolls) so that `item` shows in it: the list alone moves, never
 * the page (scrollIntoView would move the page too, taking the board out of view). */
export function scrollWithin(list, item) {
  const top = item.getBoundingClientRect().top - list.getBoundingClientRect().top + list.scrollTop;
  const bottom = top + item.offsetHeight;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
}

export class Review {
  /**
   * @param {object} hooks
   * @param {import("./board.js").BoardView} hooks.board
   * @param {() => object|null} hooks.getGame the live state
   * @param {() => boolean} hooks.isBusy true while a request or the computer's turn runs
   * @param {() => void} hooks.showLive draw the live state again
   * @param {(text: string) => void} hooks.say announce a line
   * @param {() => object|null} [hooks.liveSource] where the live review comes from instead of
   *   the local game (online play): see liveSource()
   * @param {(frame: object) => void} [hooks.onFrame] a frame is shown
   * @param {() => void} [hooks.onExit] the review ends (before the live state is drawn again)
   * @param {(ids: object|null) => void} [hooks.showIds] show the IDs of the position on the
   *   board (each frame's; null when the review ends, before the live game's come back)
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.active = false;
    this.data = null; // the review: {title, names, history, frames, warnings}
    this.source = null; // "live" | "record"
    this.index = 0;
    this.liveKey = null; // which live state the data was made from
    this.viewer = "white"; // the side the board is drawn from
    this.sameHistory = true; // the page's move list is the review's history, line for line
    $("review-first").addEventListener("click", () => this.go(0));
    $("review-prev").addEventListener("click", () => this.step(-1));
    $("review-next").addEventListener("click", () => this.step(1));
    $("review-last").addEventListener("click", () => this.go(Infinity));
    $("review-exit").addEventListener("click", () => this.exit());
    $("move-list").addEventListener("click", (event) => {
      const item = event.target.closest("li");
      if (!item) return;
      const index = [...$("move-list").children].indexOf(item);
      this.jumpToLine(index);
    });
  }

  /**
   * Where the live game's review comes from: {key (which state it shows), viewer, sameHistory
   * (the page's move list has the review's lines), load () => Promise<review>}; the hook's
   * (online play) or the local game's; null when there is no game.
   */
  liveSource() {
    const own = this.hooks.liveSource && this.hooks.liveSource();
    if (own) return own;
    const game = this.hooks.getGame();
    if (!game) return null;
    return { key: `${game.id}:${game.version}`, viewer: game.viewer, sameHistory: true,
      load: () => getReview(game.id) };
  }

  /** Review the live game; at the frame of move-list line `line` (default: the last). */
  async enterLive(line = null) {
    const source = this.liveSource();
    if (!source) return;
    if (this.hooks.isBusy()) {
      this.hooks.say("Wait for the turn being shown to finish, then review.");
      return;
    }
    if (!this.data || this.source !== "live" || this.liveKey !== source.key) {
      const data = await source.load();
      this.data = data;
      this.source = "live";
      this.liveKey = source.key;
    }
    this.viewer = source.viewer;
    this.sameHistory = source.sameHistory;
    this.begin();
    if (!this.sameHistory) this.drawHistory();
    this.go(line === null || !this.sameHistory ? Infinity : this.frameOfLine(line));
  }

  /** Review a record read from a .mat file (the answer of the import). */
  enterRecord(data, fileName, text = null) {
    this.recordNumber = (this.recordNumber || 0) + 1; // which record this is, for its analysis
    this.data = data;
    this.recordText = text;
    this.source = "record";
    this.liveKey = null;
    this.viewer = "white";
    this.sameHistory = false;
    this.fileName = fileName;
    this.begin();
    this.drawHistory();
    this.go(0);
  }

  begin() {
    this.active = true;
    document.body.classList.add("reviewing");
    document.body.dataset.reviewSource = this.source;
    const board = this.hooks.board;
    board.select(null);
    board.setLegal(null, []);
    board.setEnabled(false);
    $("review-bar").hidden = false;
    if (this.liveCaption === undefined || this.liveCaption === null) {
      this.liveCaption = $("score-caption").textContent; // given back when the review ends
    }
    const title = $("review-title");
    title.replaceChildren(this.data.title);
    if (this.source === "record" && this.fileName) {
      // a long file name may break after its _ - . (not in the middle of a word, nor before
      // its closing bracket)
      title.append(" (");
      this.fileName.split(/(?<=[_.\-])/).forEach((part, i) => {
        if (i) title.append(document.createElement("wbr"));
        title.append(part);
      });
      title.append(")");
    }
    const warnings = this.data.warnings || [];
    $("review-warnings").hidden = !warnings.length;
    $("review-warnings").textContent = warnings.length ? `Read with ${warnings.length} note${warnings.length > 1 ? "s" : ""}: ${warnings.join("; ")}` : "";
    $("review-button").setAttribute("aria-pressed", "true");
    if (this.source === "record") {
      for (const color of ["white", "black"]) {
        $(`score-${color}`).querySelector(".name").textContent = this.data.names[color];
      }
    }
    this.hooks.say(`Review: ${title}. Left and right arrows step through the turns; Escape goes back to the game.`);
  }

  /** Leave review: the live position comes back. */
  exit() {
    if (!this.active) return;
    this.active = false;
    document.body.classList.remove("reviewing");
    delete document.body.dataset.reviewSource;
    delete document.body.dataset.reviewIndex;
    $("review-bar").hidden = true;
    $("review-button").setAttribute("aria-pressed", "false");
    for (const item of $("move-list").querySelectorAll(".current")) item.classList.remove("current");
    this.hooks.board.setLastTurn(null);
    if (this.hooks.showIds) this.hooks.showIds(null);
    $("score-caption").textContent = this.liveCaption || "";
    this.liveCaption = null;
    if (this.hooks.onExit) this.hooks.onExit();
    this.hooks.showLive();
    this.hooks.say("Back to the game.");
  }

  toggle() {
    if (this.active) this.exit();
    else this.enterLive();
  }

  step(delta) {
    if (this.active) this.go(this.index + delta);
  }

  frameOfLine(line) {
    const frames = this.data.frames;
    const found = frames.findIndex((frame) => frame.history_index === line);
    return found >= 0 ? found : frames.length - 1;
  }

  /** A click on line `line` of the move list (or on its point of the analysis graph). */
  jumpToLine(line) {
    if (!this.active) {
      this.enterLive(line).then(() => this.boardIntoView())
        .catch((err) => this.hooks.say(`Review failed: ${err.message}`));
      return;
    }
    this.go(this.frameOfLine(line));
    this.boardIntoView();
  }

  /** On a narrow screen the move list lies below the board: the board shown for a line
   * tapped there is scrolled into view when it is out of it (while reviewing the board stays
   * at the top of the screen, page.css; this is for a browser that cannot keep it there). */
  boardIntoView() {
    const board = $("board");
    const box = board.getBoundingClientRect();
    if (box.bottom < 0 || box.top > window.innerHeight) board.scrollIntoView({ block: "start" });
  }

  drawHistory() {
    const board = this.hooks.board;
    fillHistory($("move-list"), this.data.history, board.labels || this.viewer);
  }

  /** The review's counter for `frame`: "Turn 12 of 36" as the move list numbers its lines
   * (the turns of the frame's game), or "" for a game's start and end. */
  counter(frame) {
    if (this.numbered !== this.data) {
      this.numbers = turnNumbers(this.data.history);
      this.numbered = this.data;
    }
    const number = frame.history_index === null ? null : this.numbers[frame.history_index];
    if (!number) return "";
    const game = this.data.history[frame.history_index].game;
    const last = Math.max(...this.numbers.filter((n, i) => n && this.data.history[i].game === game)
      .map((n) => n.turn));
    return `Turn ${number.turn} of ${last}`;
  }

  /** Show frame `index` (clamped to the first and last). */
  go(index) {
    if (!this.active || !this.data) return;
    const frames = this.data.frames;
    this.index = Math.max(0, Math.min(frames.length - 1, index));
    const frame = frames[this.index];
    const board = this.hooks.board;
    const viewer = this.viewer || "white";
    if (board.viewer !== viewer) board.build(viewer);
    board.setLabels(viewer);
    board.setLegal(null, []);
    board.setEnabled(false);
    board.drawPosition(frame.board);
    const dice = frame.dice;
    const all = dice ? (dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : [...dice]) : [];
    board.drawDice(dice, all, frame.color, null, { still: true }); // shown, not thrown now
    board.drawCube(frame.cube);
    board.setLastTurn(frame.moves.length ? { color: frame.color, moves: frame.moves } : null);
    for (const color of ["white", "black"]) {
      $(`pips-${color}`).textContent = String(frame.pips[color]);
      $(`score-${color}-points`).textContent = String(frame.score[color]);
    }
    const list = $("move-list");
    for (const item of list.querySelectorAll(".current")) {
      item.classList.remove("current");
      item.removeAttribute("aria-current");
    }
    const item = frame.history_index === null ? null : list.children[frame.history_index];
    if (item) {
      item.classList.add("current");
      item.setAttribute("aria-current", "step");
      scrollWithin(list, item);
    } else if (this.index === 0) {
      list.scrollTop = 0;
    }
    $("score-caption").textContent = reviewCaption(this.data, frame);
    const counter = this.counter(frame); // as the move list numbers the line shown
    const text = pointsFor(frame.text, frame.color); // its plays as the move list writes them
    const label = counter ? `${counter}: ${text}` : text;
    $("review-label").textContent = label;
    $("status").textContent = `Reviewing. ${text}`;
    document.body.dataset.reviewIndex = String(this.index);
    if (this.hooks.showIds) this.hooks.showIds(frame.ids || null); // the position on the board
    if (this.hooks.onFrame) this.hooks.onFrame(frame);
    this.hooks.say(text);
  }
}
