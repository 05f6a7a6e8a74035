// Everything that helps people follow and learn the game, wired to the page in one place:
// review (review.js), hints (hints.js), keyboard play (keyboard.js), the live region
// (announce.js), the board as text (boardtext.js), explanations of refused moves (from the
// server), and .mat export and import (records.js).
//
// main.js creates one Assist after the board and tells it about each state it shows
// (onState) and each step of the computer's turn it plays back (onStep).

import { explainMove } from "./assist_api.js";
import { Analysis } from "./analysis.js";
import { Announcer, describeChange } from "./announce.js";
import { boardText } from "./boardtext.js";
import { Hints } from "./hints.js";
import { Keyboard } from "./keyboard.js";
import { showError } from "./notes.js";
import { Records } from "./records.js";
import { Review } from "./review.js";

const $ = (id) => document.getElementById(id);

export class Assist {
  /**
   * @param {object} hooks
   * @param {import("./board.js").BoardView} hooks.board
   * @param {() => object|null} hooks.getGame the live state
   * @param {() => boolean} hooks.isBusy true while a request or the computer's turn runs
   * @param {() => void} hooks.showLive draw the live state again (or ask for a new game)
   * @param {() => object|null} [hooks.liveSource] the review of online play (Review.liveSource)
   * @param {() => object|null} [hooks.exportSource] the transcript of online play
   *   (Records.source)
   * @param {() => object|null} [hooks.explainSource] the explanations of online play
   *   (explainSource)
   * @param {(play: string) => void} [hooks.playHint] make a play of the hints (in notation)
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.board = hooks.board;
    this.announcer = new Announcer($("announcer"));
    const say = (text) => this.announcer.say(text);
    this.say = say;
    this.review = new Review({
      ...hooks,
      say,
      onFrame: (frame) => {
        if (this.analysis) this.analysis.onFrame(frame);
        if (this.hints) this.hints.showFrame(frame);
      },
      onExit: () => this.hints.exitReview(),
    });
    this.hints = new Hints({ board: hooks.board, getGame: hooks.getGame, say, play: hooks.playHint });
    this.keyboard = new Keyboard({
      board: hooks.board,
      review: this.review,
      hints: this.hints,
      getGame: hooks.getGame,
      say,
      readBoard: () => this.readBoard(),
    });
    this.records = new Records({
      getGame: hooks.getGame,
      exportSource: hooks.exportSource,
      review: this.review,
      say,
      showError,
    });
    this.analysis = new Analysis({
      review: this.review,
      getGame: hooks.getGame,
      exportSource: hooks.exportSource,
      allowed: () => this.hints.allowed(),
      say,
      showError,
    });
    this.board.root.addEventListener("position", (event) => this.drawText(event.detail));
    $("review-button").addEventListener("click", () => {
      if (this.review.active) this.review.exit();
      else this.review.enterLive().catch((err) => this.showExplanation({ text: `Review failed: ${err.message}` }));
    });
    $("hints-button").addEventListener("click", () => this.hints.toggle());
  }

  reviewing() {
    return this.review.active;
  }

  /** The page shows `game` (it showed `previous` before). */
  onState(previous, game) {
    for (const line of describeChange(previous, game)) this.say(line);
    if (!previous || previous.id !== game.id || previous.version !== game.version) this.showExplanation(null);
    $("review-button").disabled = !game.history.length && !this.review.active;
    $("export-button").disabled = false;
    this.hints.refresh(game);
    if (this.analysis) this.analysis.onLive(game);
    this.keyboard.draw();
  }

  /** A newer live state came while the board shows a review (online play): the hints panel
   * learns whether hints are allowed now. */
  onLiveWhileReviewing(game) {
    this.hints.setLive(game);
  }

  /** The page shows one step of the computer's turn. */
  onStep(step) {
    this.say(step.text);
  }

  /**
   * Where explanations come from: {key (which state of the game), ask (from, to) =>
   * Promise<answer>}; the hook's (online play) or the local game's; null when there is none.
   */
  explainSource() {
    const own = this.hooks.explainSource && this.hooks.explainSource();
    if (own) return own;
    const game = this.hooks.getGame();
    if (!game) return null;
    return { key: `${game.id}:${game.version}`, ask: (from, to) => explainMove(game.id, from, to) };
  }

  /** A move (or pick-up: `to` null) the server did not offer: ask it why, show the answer. */
  async explain(from, to) {
    const source = this.explainSource();
    if (!source || this.review.active) return;
    let answer;
    try {
      answer = await source.ask(from, to);
    } catch (err) {
      answer = { legal: false, text: err.message, rule: null, source: null };
    }
    const now = this.explainSource();
    if (!now || now.key !== source.key || answer.legal) return;
    this.showExplanation(answer);
    this.say(answer.text);
  }

  showExplanation(answer) {
    const box = $("explanation");
    box.hidden = !answer;
    if (!answer) return;
    $("explanation-text").textContent = answer.text;
    const link = $("explanation-rule");
    link.hidden = !answer.rule;
    if (answer.rule) {
      link.href = `/rules#${answer.rule}`;
      link.textContent = `Rule: ${answer.source}`;
    }
  }

  drawText(board) {
    const side = this.board.labels || this.board.viewer || "white";
    $("board-text").textContent = boardText(board, side).join("\n");
  }

  readBoard() {
    const board = this.board.board;
    if (!board) return;
    for (const line of boardText(board, this.board.labels || "white")) this.say(line);
  }
}
