// The game clocks on the page, one display for every game and door: both sides' remaining
// time, the running side counted down, in the warning colour and in tenths in the last seconds.
//
// The server is the authority (the table's one clock, gametable/clock.py, at every door; the
// local doors hold it while no page watches: gametable/presence.py). It charges time from its own timestamps, and every answer carries
// the remaining times as of that answer. Both doors' clock JSON has the same core,
// {control, reserve, increment, remaining: {side: seconds}, running: side|null}, and the local
// doors (backgammon's /api/games, the table's /api/tables) add `paused` (the side whose clock
// waits for a page to watch) and `warning` (seconds).
// This module only shows it: it notes when the answer arrived and counts the running side down
// from there, one animation frame at a time, so a throttled or sleeping tab costs display
// accuracy, never time. When the running clock shown reaches zero it calls `onZero` (the door
// asks the server, which then records the loss on time), at most every half second until a
// new clock is shown.
//
// Each door adapts only what differs: the sides' order, the rows' ids, the caption's words and
// the players' names (main.js through clock_presence.js, online_tables.js, checkers_main.js).
// The presence heartbeat is beside this display, in heartbeat.js (local backgammon's through
// clock_presence.js; checkers_main.js's for a timed table).
//
// When the server cannot be reached (`connection(false)`), the display follows the server's
// rule for that door, and the clock box says what that rule does to the clock shown. At a
// local door the box is the one place that says the connection is lost, so it starts with
// "Connection lost: reconnecting…"; an online room's page says that in its room panel
// (room_client.js connectionWords), so there the box does not repeat it:
// - A clock held by presence (the local doors: its JSON has `heartbeat`): the server charges a
//   person's clock only up to PRESENCE_SECONDS after it last heard from a page, then pauses it
//   (gametable/presence.py: PRESENCE_SECONDS, Presence.due/sync). So the running side is
//   counted only up to that instant (`heard(at)` tells when the server last heard from this
//   page; every clock the server sends counts too) and then shown held; the answer that comes
//   once the server is reached again carries the same figure, paused there and running again.
// - An online room's clock (no `heartbeat`): the room charges the side to act whether its page
//   is connected or not (gametable/room.py: "Every wait is timed"; Room.disconnect stops no
//   clock), and no clock while the server itself is down (gametable/rooms.py: a restored room
//   comes back as at its last save). The page cannot tell which of the two it is, so it counts
//   on as a server that is up does, and says both; the view after reconnecting is the server's.

/** While the display shows zero: how often `onZero` is called, in ms. */
export const ZERO_RECHECK_MS = 500;
/** Under this many seconds left: tenths, and the warning colour (unless the clock says). */
export const WARNING_SECONDS = 10;
/**
 * A clock held by presence (the local doors) is charged only this many seconds after the
 * server last heard from a page, then paused: gametable/presence.py's PRESENCE_SECONDS.
 */
export const PRESENCE_SECONDS = 10;

/** The clock box's words while the server cannot be reached, by the door's rule (see above):
 * a room's page says "Connection lost: reconnecting…" in its room panel, so its clock box
 * says only what becomes of the clock. */
export function offlineWords(clock) {
  return clock && clock.heartbeat !== undefined
    ? `Connection lost: reconnecting… The server stops a clock ${PRESENCE_SECONDS} s after it last hears from this page, so the clock shown stops there too.`
    : "While this page is cut off, the clock of the side to play runs on at the server (though not while the server itself is down).";
}

function pad(n) {
  return String(n).padStart(2, "0");
}

/**
 * A clock reading as people read one: "10:00", "0:59"; under `warning` seconds, tenths:
 * "0:09.4". Never negative.
 */
export function formatClock(seconds, warning = WARNING_SECONDS) {
  const s = Math.max(0, seconds);
  if (s >= warning) {
    const whole = Math.ceil(s - 1e-9);
    return `${Math.floor(whole / 60)}:${pad(whole % 60)}`;
  }
  const tenths = Math.floor(s * 10 + 1e-9);
  const whole = Math.floor(tenths / 10);
  return `${Math.floor(whole / 60)}:${pad(whole % 60)}.${tenths % 10}`;
}

/** "1 min", "10 min", "90 s", "3 s": a reserve or increment in words. */
export function amount(seconds) {
  return seconds >= 60 && seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

/** "Blitz": a control's name as a caption starts. */
export function controlName(clock) {
  const name = String(clock.control || "");
  return name ? `${name[0].toUpperCase()}${name.slice(1)}` : name;
}

/** One side's clock row (chip, name, time) appended to `root`; the time element gets id `id`. */
function clockRow(root, side, id) {
  const row = document.createElement("div");
  row.className = "clock";
  row.dataset.color = side;
  const chip = document.createElement("span");
  chip.className = `chip ${side}`;
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

export class ClockDisplay {
  /**
   * @param {HTMLElement} root where the clocks are drawn (hidden without a clock)
   * @param {object} options
   * @param {string[]} options.sides the sides in the order their rows are drawn
   * @param {string} [options.idPrefix] each row's time element is `${idPrefix}${side}`
   * @param {(clock: object) => string} options.caption the caption under the rows
   * @param {() => void} [options.onZero] the running clock shown has reached zero
   */
  constructor(root, { sides, idPrefix = "clock-", caption, onZero = () => {} }) {
    this.root = root;
    this.sides = sides;
    this.captionWords = caption;
    this.onZero = onZero;
    this.source = null; // the server's clock JSON last shown (drawing it again changes nothing)
    this.clock = null; // what is counted down: the source, or a count the page runs alone
    this.over = false;
    this.receivedAt = 0; // performance.now() when `clock` arrived
    this.frame = 0;
    this.lastZeroCheck = 0;
    this.heardAt = 0; // performance.now() when the server last heard from this page
    this.reachable = true; // false: the server cannot be reached (`connection`)
    this.rows = {};
    root.replaceChildren();
    for (const side of sides) this.rows[side] = clockRow(root, side, `${idPrefix}${side}`);
    this.notice = document.createElement("p");
    this.notice.className = "clock-offline";
    this.notice.setAttribute("role", "status");
    this.notice.hidden = true;
    root.appendChild(this.notice);
    this.caption = document.createElement("p");
    this.caption.className = "clock-caption";
    root.appendChild(this.caption);
    root.hidden = true;
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.draw();
    });
  }

  /**
   * Show a door's clock JSON (null: no clock, the rows hidden). `names` {side: name}; `over`
   * once the game has ended (nothing runs; a side at zero is shown flagged). The same clock
   * object shown again (a view drawn again) goes on counting from when it first came.
   */
  show(clock, { names = null, over = false } = {}) {
    if (names) {
      for (const side of this.sides) {
        // a long name ("Computer (Expert)") is cut short in a narrow clock box: whole on hover
        const name = this.rows[side].name;
        name.textContent = names[side] || "";
        name.title = names[side] || "";
      }
    }
    const same = clock === this.source && !this.clock?.local && over === this.over;
    this.over = Boolean(over);
    if (same) {
      this.draw();
      return;
    }
    this.source = clock || null;
    this.root.hidden = !clock;
    if (clock) this.caption.textContent = this.captionWords(clock);
    this.start(clock ? { ...clock, remaining: { ...clock.remaining } } : null);
  }

  /** No clock: the rows hidden, nothing counted. */
  stop() {
    this.show(null);
  }

  /**
   * While the page waits for an answer that will bring the server's figures (the computer's
   * turn): count `side`'s clock down on the display from what it shows now. No zero check.
   */
  runLocally(side) {
    const clock = this.clock;
    if (!clock || !side || this.over) return;
    const remaining = {};
    for (const s of this.sides) remaining[s] = this.remaining(s);
    this.start({ ...clock, remaining, running: side, paused: null, local: true });
  }

  /**
   * The server heard from this page at `at` (a performance.now() reading: when a request it
   * answered was sent). A clock held by presence is counted up to PRESENCE_SECONDS after it.
   */
  heard(at = performance.now()) {
    if (at <= this.heardAt) return;
    if (this.held) {
      // the server resumes the clock it held where it stopped it: so does the count shown
      this.start(this.clock, { keep: true });
    }
    this.heardAt = at;
    this.draw();
  }

  /** Whether the server can be reached (false: the clock box says the connection is lost). */
  connection(reachable) {
    this.reachable = Boolean(reachable);
    this.draw();
  }

  /** Whether the clock is counted up to presence's limit (the local doors' clocks). */
  get presence() {
    return Boolean(this.clock && this.clock.heartbeat !== undefined && !this.clock.local);
  }

  /** performance.now() up to which the running side is counted (Infinity: no limit). */
  get countedUntil() {
    return this.presence ? Math.max(this.heardAt, this.receivedAt) + PRESENCE_SECONDS * 1000 : Infinity;
  }

  /** Whether the running clock is shown stopped at presence's limit (the server holds it). */
  get held() {
    const clock = this.clock;
    return Boolean(clock && clock.running && !this.over && performance.now() >= this.countedUntil);
  }

  /** Whether the count shown is the page's own (runLocally), not the server's. */
  get local() {
    return Boolean(this.clock && this.clock.local);
  }

  start(clock, { keep = false } = {}) {
    if (keep && clock) {
      // go on from the figures shown (the running side stopped at the limit): those are what
      // the server charged; the time held is not counted
      const remaining = {};
      for (const s of this.sides) remaining[s] = this.remaining(s);
      clock = { ...clock, remaining };
    }
    this.clock = clock;
    this.receivedAt = performance.now();
    this.lastZeroCheck = 0;
    cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.draw();
    if (clock && clock.running && !this.over) this.frame = requestAnimationFrame(() => this.tick());
  }

  /** Seconds left to `side` as displayed now. */
  remaining(side) {
    const clock = this.clock;
    if (!clock) return 0;
    let left = clock.remaining[side];
    if (clock.running === side && !this.over) {
      left -= (Math.min(performance.now(), this.countedUntil) - this.receivedAt) / 1000;
    }
    return Math.max(0, left);
  }

  draw() {
    const clock = this.clock;
    if (!clock) return;
    const warning = clock.warning ?? WARNING_SECONDS;
    const held = this.held;
    const lost = !this.reachable && !this.over;
    this.root.dataset.connection = lost ? "lost" : held ? "held" : "";
    this.notice.hidden = !lost && !held;
    this.notice.textContent = this.notice.hidden ? "" : offlineWords(clock);
    for (const side of this.sides) {
      const { row, time } = this.rows[side];
      const left = this.remaining(side);
      const paused = clock.paused === side && !this.over;
      time.textContent = formatClock(left, warning);
      row.dataset.seconds = left.toFixed(1);
      row.classList.toggle("running", clock.running === side && !this.over);
      row.classList.toggle("paused", paused);
      row.classList.toggle("warning", left < warning);
      row.classList.toggle("flagged", this.over && left <= 0);
      row.classList.toggle("held", held && clock.running === side);
      row.title = paused ? "Paused: waiting for the page"
        : held && clock.running === side ? "Held: the server has not heard from this page" : "";
    }
  }

  tick() {
    this.draw();
    const clock = this.clock;
    if (!clock || !clock.running || this.over) return;
    if (this.held && this.remaining(clock.running) > 0) {
      this.frame = 0; // stopped where the server stops it: `heard` or a new clock goes on
      return;
    }
    if (this.remaining(clock.running) <= 0 && !clock.local) {
      const now = performance.now();
      if (!this.lastZeroCheck || now - this.lastZeroCheck >= ZERO_RECHECK_MS) {
        this.lastZeroCheck = now;
        this.onZero();
      }
    }
    this.frame = requestAnimationFrame(() => this.tick());
  }
}
