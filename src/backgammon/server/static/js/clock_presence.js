// Local backgammon's clocks (the game's own door; the rules: gametable/presence.py): the one clock display
// (clock.js) fed each state's `clock`, and beside it the presence the local door's clock
// needs, since it runs only while a page is watching:
// - a heartbeat (POST /api/games/{id}/clock with this page's random id and the state version
//   drawn) every `clock.heartbeat` seconds while the game is timed and in play;
// - at once when the display of the running clock reaches zero (the server then records the
//   timeout and the page reads the result), when the page becomes visible again, and when a
//   turn waits for this page to show it (after the computer's turn is played back);
// - a keepalive "leave" on pagehide, so the clock stops as soon as the last page goes away.
// The heartbeat itself (the interval, visibility, pagehide, one request at a time) is
// heartbeat.js's, shared with the checkers page at the table's door.
// When the answer's version is not the one drawn (a timeout, another tab), `onStale` is called.
// When the heartbeat cannot reach the server, the clock box says the connection is lost and
// the running clock stops where the server stops it (clock.js, `heard` and `connection`).
//
// The computer's turn: the server runs the computer's clock while it thinks (well under the
// increment, so its figure alone would only ever grow). While the page waits for the turn and
// plays it back, the computer's clock counts down on the display like the person's
// (runLocally); the state after the turn brings the server's figures, increment included.

import { ClockDisplay, amount, controlName } from "./clock.js";
import { Heartbeat } from "./heartbeat.js";

/** The caption of a local game's clock: "Blitz: 3 min + 5 s a turn". */
export function localCaption(clock) {
  return `${controlName(clock)}: ${amount(clock.reserve)} + ${amount(clock.increment)} a turn`;
}

export class LocalClock {
  /**
   * @param {HTMLElement} root the element the clocks are drawn in (hidden for untimed games)
   * @param {{onStale: (version: number) => void}} options `onStale` is called when the server
   *   has a newer state than the one drawn (read it again)
   */
  constructor(root, { onStale }) {
    this.onStale = onStale;
    this.game = null; // the last state drawn
    this.watched = null; // the state the heartbeat reports having drawn
    this.display = new ClockDisplay(root, {
      sides: ["white", "black"], caption: localCaption, onZero: () => this.check(),
    });
    this.heartbeat = new Heartbeat({
      onAnswer: (answer) => this.answered(answer),
      // the server out of reach: the display stops the clock where the server stops it
      // (gametable/presence.py's PRESENCE_SECONDS after it last heard from this page)
      onContact: ({ reached, sentAt }) => {
        if (reached && sentAt) this.display.heard(sentAt);
        this.display.connection(reached);
      },
    });
  }

  /** Draw the clocks of a state from the server (every state the page shows). The same state
   * drawn again keeps the fresher clock a heartbeat brought, unless the page counted alone. */
  show(game) {
    const sameGame = this.game && this.game.id === game.id;
    const again = game === this.game && !this.display.local;
    this.game = game;
    // the clock box names the computer without its level (the score table gives it)
    const short = (player) => (player.computer ? "Computer" : player.name);
    const names = { white: short(game.players.white), black: short(game.players.black) };
    if (!again) this.display.show(game.clock, { names, over: Boolean(game.result) });
    this.schedule();
    if (!sameGame || (game.clock && game.clock.paused && !game.result)) this.check();
  }

  /** The computer's turn is being computed and played back: count `color`'s clock down on the
   * display from what it shows now, until the next state is shown. */
  runLocally(color) {
    this.display.runLocally(color);
  }

  /** Heartbeats while a timed game is in play, with the state version drawn (the same state
   * drawn again goes on as it was: an answer on its way about it is still shown). */
  schedule() {
    const game = this.game;
    if (!game || !game.clock || game.result) {
      this.watched = null;
      this.heartbeat.watch(null);
      return;
    }
    if (game === this.watched && this.heartbeat.watching) return;
    this.watched = game;
    this.heartbeat.watch({
      url: `/api/games/${encodeURIComponent(game.id)}/clock`,
      body: { shown: game.version },
      seconds: game.clock.heartbeat,
    });
  }

  /** Tell the server this page is watching; show the clock it answers with. */
  check() {
    return this.heartbeat.check();
  }

  /** The server's answer to a heartbeat about the state still drawn. */
  answered(answer) {
    const game = this.game;
    if (!game) return;
    if (answer.version !== game.version) {
      this.onStale(answer.version);
    } else if (!this.display.local && answer.clock) {
      this.display.show(answer.clock, { over: false });
    }
  }

  /** The page is going away: the server pauses the clock unless another page watches. */
  leave() {
    this.heartbeat.leave();
  }
}
