// The game clocks on the page: both players' remaining time, counting down for the side on the
// clock, in the warning colour in the last seconds.
//
// The server is the authority (services/timing.py). It charges time from its own timestamps and
// every state it sends carries the remaining times as of that answer. This module only shows
// them: it notes when the answer arrived and counts the running side down from there, one
// animation frame at a time. A throttled or sleeping tab costs display accuracy, never time.
//
// It also tells the server that a page is watching, since the clock runs only while one is:
// - a heartbeat (POST /api/games/{id}/clock with this page's random id and the state version
//   drawn) every `clock.heartbeat` seconds while the game is timed and in play;
// - at once when the display of the running clock reaches zero (the server then records the
//   timeout and the page reads the result), when the page becomes visible again, and when a
//   turn waits for this page to show it (after the computer's turn is played back);
// - a keepalive "leave" on pagehide, so the clock stops as soon as the last page goes away.
// When the answer's version is not the one drawn (a timeout, another tab), `onStale` is called.
//
// The computer's turn: the server runs the computer's clock while it thinks (well under the
// increment, so its figure alone would only ever grow). While the page waits for the turn and
// plays it back, the computer's clock counts down on the display like the person's
// (runLocally); the state after the turn brings the server's figures, increment included.

/** This page's id for the server's presence count (not a secret; random per load). */
const PAGE_ID = `p${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
const COLORS = ["white", "black"];
/** While the display shows zero: how often to ask the server, in ms. */
const ZERO_RECHECK_MS = 500;

function pad(n) {
  return String(n).padStart(2, "0");
}

/**
 * A clock reading as people read one: "10:00", "0:59"; under `warning` seconds, tenths:
 * "0:09.4". Never negative.
 */
export function formatClock(seconds, warning = 10) {
  const s = Math.max(0, seconds);
  if (s >= warning) {
    const whole = Math.ceil(s - 1e-9);
    return `${Math.floor(whole / 60)}:${pad(whole % 60)}`;
  }
  const tenths = Math.floor(s * 10 + 1e-9);
  const whole = Math.floor(tenths / 10);
  return `${Math.floor(whole / 60)}:${pad(whole % 60)}.${tenths % 10}`;
}

/** "1 min", "10 min", "90 s": a reserve or increment in words. */
function amount(seconds) {
  return seconds >= 60 && seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

/**
 * One side's clock row (chip, name, time) appended to `root`; the time element gets id `id`.
 * Returns {row, name, time}. Local play's clocks and online play's share it.
 */
export function clockRow(root, color, id) {
  const row = document.createElement("div");
  row.className = "clock";
  row.dataset.color = color;
  const chip = document.createElement("span");
  chip.className = `chip ${color}`;
  chip.setAttribute("aria-hidden", "true");
  const name = document.createElement("span");
  name.className = "clock-name";
  const time = document.createElement("span");
  time.className = "clock-time";
  time.id = id;
  time.setAttribute("role", "timer");
  row.append(chip, name, time);
  root.appendChild(row);
  return { row, name, time };
}

export class ClockView {
  /**
   * @param {HTMLElement} root the element the clocks are drawn in (hidden for untimed games)
   * @param {{onStale: (version: number) => void}} options `onStale` is called when the server
   *   has a newer state than the one drawn (read it again)
   */
  constructor(root, { onStale }) {
    this.root = root;
    this.onStale = onStale;
    this.game = null; // the last state drawn
    this.clock = null; // its clock, or a fresher one from a heartbeat
    this.receivedAt = 0; // performance.now() when `clock` arrived
    this.frame = 0;
    this.interval = 0;
    this.checking = false;
    this.lastZeroCheck = 0;
    this.localRun = null; // the side counted down on the display alone (the computer's turn)
    this.rows = {};
    this.build();
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.check();
    });
    window.addEventListener("pageshow", (event) => {
      if (event.persisted) this.check();
    });
    window.addEventListener("pagehide", () => this.leave());
  }

  build() {
    this.root.replaceChildren();
    for (const color of COLORS) {
      this.rows[color] = clockRow(this.root, color, `clock-${color}`);
    }
    this.caption = document.createElement("p");
    this.caption.className = "clock-caption";
    this.root.appendChild(this.caption);
  }

  /** Draw the clocks of a state from the server (every state the page shows). */
  show(game) {
    const sameGame = this.game && this.game.id === game.id;
    this.game = game;
    this.localRun = null;
    for (const color of COLORS) this.rows[color].name.textContent = game.players[color].name;
    this.setClock(game.clock);
    this.schedule();
    if (!sameGame || (game.clock && game.clock.paused && !game.result)) this.check();
  }

  setClock(clock) {
    this.clock = clock || null;
    this.receivedAt = performance.now();
    this.root.hidden = !this.clock;
    if (this.clock) {
      const { control, reserve, increment } = this.clock;
      this.caption.textContent =
        `${control[0].toUpperCase()}${control.slice(1)}: ${amount(reserve)} + ` +
        `${amount(increment)} a turn`;
    }
    this.draw();
    cancelAnimationFrame(this.frame);
    if (this.clock && this.clock.running) this.frame = requestAnimationFrame(() => this.tick());
  }

  /**
   * The computer's turn is being computed and played back: count `color`'s clock down on the
   * display from what it shows now, until the next state is shown.
   */
  runLocally(color) {
    const clock = this.clock;
    if (!clock || !color || (this.game && this.game.result)) return;
    const left = this.remaining(color);
    this.clock = { ...clock, remaining: { ...clock.remaining, [color]: left }, running: color, paused: null };
    this.receivedAt = performance.now();
    this.localRun = color;
    this.draw();
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this.tick());
  }

  /** Seconds left to `color` as displayed now. */
  remaining(color) {
    const clock = this.clock;
    if (!clock) return 0;
    let left = clock.remaining[color];
    if (clock.running === color) left -= (performance.now() - this.receivedAt) / 1000;
    return Math.max(0, left);
  }

  draw() {
    const clock = this.clock;
    if (!clock) return;
    const over = Boolean(this.game && this.game.result);
    for (const color of COLORS) {
      const { row, time } = this.rows[color];
      const left = this.remaining(color);
      time.textContent = formatClock(left, clock.warning);
      row.classList.toggle("running", clock.running === color);
      row.classList.toggle("paused", clock.paused === color && !over);
      row.classList.toggle("warning", left < clock.warning);
      row.classList.toggle("flagged", over && left <= 0);
      row.title = clock.paused === color && !over ? "Paused: waiting for the page" : "";
    }
  }

  tick() {
    this.draw();
    const clock = this.clock;
    if (!clock || !clock.running) return;
    if (this.remaining(clock.running) <= 0 && !this.localRun) {
      const now = performance.now();
      if (now - this.lastZeroCheck >= ZERO_RECHECK_MS) {
        this.lastZeroCheck = now;
        this.check();
      }
    }
    this.frame = requestAnimationFrame(() => this.tick());
  }

  /** Heartbeats while a timed game is in play. */
  schedule() {
    clearInterval(this.interval);
    this.interval = 0;
    const clock = this.clock;
    if (!clock || !this.game || this.game.result) return;
    this.interval = setInterval(() => this.check(), Math.max(1, clock.heartbeat) * 1000);
  }

  url() {
    return `/api/games/${encodeURIComponent(this.game.id)}/clock`;
  }

  /** Tell the server this page is watching; take the clock it answers with. */
  async check() {
    const game = this.game;
    if (!game || !game.clock || game.result || this.checking) return;
    this.checking = true;
    try {
      const response = await fetch(this.url(), {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ page: PAGE_ID, shown: game.version }),
      });
      if (!response.ok) return;
      const answer = await response.json();
      if (this.game !== game) return; // a newer state was drawn meanwhile
      if (answer.version !== game.version) {
        this.onStale(answer.version);
      } else if (!this.localRun) {
        this.setClock(answer.clock);
      }
    } catch (err) {
      // the server is unreachable: the page's next action says so
    } finally {
      this.checking = false;
    }
  }

  /** The page is going away: the server pauses the clock unless another page watches. */
  leave() {
    const game = this.game;
    if (!game || !game.clock || game.result) return;
    try {
      fetch(this.url(), {
        method: "POST",
        keepalive: true,
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ page: PAGE_ID, leave: true }),
      }).catch(() => {});
    } catch (err) {
      // nothing to do: the server pauses the clock when no heartbeat comes
    }
  }
}
