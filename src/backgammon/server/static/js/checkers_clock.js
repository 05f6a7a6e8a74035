// The clocks of a checkers table: both sides' remaining time from the view's `clock`
// ({control, remaining: {white, black}, running}), the running side counted down on the
// display between the server's answers.
//
// The server is the authority (gametable/clock.py): it charges time from its own timestamps.
// This module notes when an answer arrived and counts down from there, one animation frame at a
// time, so a throttled tab costs display accuracy, never time. When the running clock shown
// reaches zero it calls `onZero` (the page reads the table: the server then records the loss
// on time), at most every half second until a new clock is shown.

import { clockRow, formatClock } from "./clock.js";

const SIDES = ["black", "white"];
const WARNING = 10; // seconds: the last ones are shown in tenths, in the warning colour
const ZERO_RECHECK_MS = 500;

export class CheckersClock {
  /**
   * @param {HTMLElement} root where the clocks are drawn (hidden without a clock)
   * @param {{onZero: () => void}} handlers
   */
  constructor(root, { onZero }) {
    this.root = root;
    this.onZero = onZero;
    this.clock = null;
    this.over = false;
    this.receivedAt = 0;
    this.frame = 0;
    this.lastZeroCheck = 0;
    this.rows = {};
    for (const side of SIDES) this.rows[side] = clockRow(root, side, `clock-${side}`);
    this.caption = document.createElement("p");
    this.caption.className = "clock-caption";
    root.appendChild(this.caption);
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.draw();
    });
  }

  /** Show a view's clock (null: no clock); `names` {black, white}; `over` once the game ended. */
  show(clock, names, over) {
    this.clock = clock ? { ...clock, remaining: { ...clock.remaining } } : null;
    this.over = over;
    this.receivedAt = performance.now();
    this.lastZeroCheck = 0;
    this.root.hidden = !clock;
    for (const side of SIDES) this.rows[side].name.textContent = names[side];
    if (clock) {
      const name = `${clock.control[0].toUpperCase()}${clock.control.slice(1)}`;
      const reserve = clock.reserve >= 60 ? `${clock.reserve / 60} min` : `${clock.reserve} s`;
      this.caption.textContent = `${name}: ${reserve} each, and ${clock.increment} s more after every move.`;
    }
    this.draw();
    cancelAnimationFrame(this.frame);
    if (this.clock && this.clock.running && !over) this.frame = requestAnimationFrame(() => this.tick());
  }

  /** While the page waits for the server's answer: count `side`'s clock down from now. */
  runLocally(side) {
    const clock = this.clock;
    if (!clock || this.over) return;
    const remaining = { black: this.remaining("black"), white: this.remaining("white") };
    this.clock = { ...clock, remaining, running: side, local: true };
    this.receivedAt = performance.now();
    this.draw();
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this.tick());
  }

  /** Seconds left to `side` as displayed now. */
  remaining(side) {
    const clock = this.clock;
    if (!clock) return 0;
    let left = clock.remaining[side];
    if (clock.running === side && !this.over) left -= (performance.now() - this.receivedAt) / 1000;
    return Math.max(0, left);
  }

  draw() {
    const clock = this.clock;
    if (!clock) return;
    for (const side of SIDES) {
      const { row, time } = this.rows[side];
      const left = this.remaining(side);
      time.textContent = formatClock(left, WARNING);
      row.dataset.seconds = left.toFixed(1);
      row.classList.toggle("running", clock.running === side && !this.over);
      row.classList.toggle("warning", left < WARNING);
      row.classList.toggle("flagged", this.over && left <= 0);
    }
  }

  tick() {
    this.draw();
    const clock = this.clock;
    if (!clock || !clock.running || this.over) return;
    if (this.remaining(clock.running) <= 0 && !clock.local) {
      const now = performance.now();
      if (now - this.lastZeroCheck >= ZERO_RECHECK_MS) {
        this.lastZeroCheck = now;
        this.onZero();
      }
    }
    this.frame = requestAnimationFrame(() => this.tick());
  }
}
