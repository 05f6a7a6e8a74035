// Online play: two browsers, one server that referees, dice that neither side can steer.
//
// The protocol is documented in backgammon/services/online/protocol.py. In short: the host
// creates a room over HTTP (POST /api/online/rooms) and shares the invite link (the server's
// `invite_path`, "/#join=CODE"); each page opens the WebSocket /api/online/rooms/CODE/ws and
// says hello (with its seat token when it has one). Every event the server sends changes the
// room; after each one this page asks for the full `state` and draws it with the same board,
// controls, scoreboard, result box, review and .mat export as local play.
//
// The page decides no rule. What may move comes from the server's `legal` (the board's list, as
// local play gets it: each checker that can move, every place it can reach with one or more
// dice, and the single moves that take it there, sent one `move` message each); the buttons
// shown follow the state's phase.
//
// Fair dice, the page's half (fairdice.js):
// - the opening roll: this page commits to a fresh secret, then reveals it once both sides
//   have committed (by itself, no click);
// - its own roll (the Roll button): it commits, the opponent's page answers with a secret in
//   the clear, then this page reveals (by itself);
// - the opponent's roll: it answers the commitment with a fresh secret (by itself).
// A secret is written to localStorage before its commitment is sent, so a page that reloads
// mid-round can still reveal it. Every roll is checked here: the revealed secrets against
// their commitments, this page's own secret as it sent it, and the dice derived from the two
// secrets against the dice the server announced. A failed check is shown as an alarm.
//
// The WebSocket reconnects by itself after a dropped connection (waiting longer after each failed
// attempt, RECONNECT_MS, for as long as the server is down), with the seat token kept in
// localStorage (and which seat this tab plays in sessionStorage, so a host can open the invite
// link in a second tab of the same browser to try it).

import { onlineGameBegan, onlineGameOver, onlineState } from "./analytics.js";
import { ApiError, request } from "./api.js";
import { clockRow, formatClock } from "./clock.js";
import { commitment, diceFromSecrets, fromHex, newSecret, toHex, verifyCommitment } from "./fairdice.js";
import { browserId } from "./saved.js";
import { drawControls, drawView } from "./table.js";

const $ = (id) => document.getElementById(id);
const COLORS = ["white", "black"];
/** The server closes with this code after a refusal that ends the connection. */
const CLOSE_REFUSED = 4403;
/** Waits before each reconnection attempt, in ms (the last one repeats). */
const RECONNECT_MS = [300, 1000, 2000, 4000, 8000];
/** Error codes after which this browser's seat in the room is gone. */
const SEAT_GONE = new Set(["room_not_found", "bad_token", "room_full"]);
/** Errors an automatic dice message may meet after a reconnection: the state says what is next. */
const QUIET = new Set(["replayed", "bad_round"]);
const KEY = "backgammon.online";
const NAME_KEY = "backgammon.online.name";
const CODE_RE = /^[A-Za-z0-9_-]{8,64}$/;
const MAX_DICE_LOG = 60;
/** The buttons online play shows and hides (local play's, and Accept/Decline). */
const CONTROLS = ["roll-button", "double-button", "take-button", "drop-button", "undo-button",
  "done-button", "next-game-button", "resign-button", "online-accept-button", "online-decline-button",
  "online-claim-button", "beaver-button", "raccoon-button"];

function other(color) {
  return color === "white" ? "black" : "white";
}

function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

function storage(kind) {
  try {
    return window[kind];
  } catch (err) {
    return null; // storage disabled: nothing survives a reload
  }
}

function readJSON(kind, key) {
  const store = storage(kind);
  try {
    return JSON.parse((store && store.getItem(key)) || "null");
  } catch (err) {
    return null;
  }
}

function writeJSON(kind, key, value) {
  const store = storage(kind);
  if (!store) return;
  if (value === null || value === undefined) store.removeItem(key);
  else store.setItem(key, JSON.stringify(value));
}

/** This browser's seat in room `code`: {token, invite, secrets: {round: hex}}, or null. */
function loadSeat(code, seat) {
  return readJSON("localStorage", `${KEY}.${code}.${seat}`);
}

function saveSeat(code, seat, value) {
  writeJSON("localStorage", `${KEY}.${code}.${seat}`, value);
}

/**
 * This browser's seats in online rooms (each kept in localStorage with its token), the one
 * used last first: [{code, seat, seen}] (`seen`: when it last connected, ms, or 0).
 */
export function keptSeats() {
  const store = storage("localStorage");
  if (!store) return [];
  const pattern = /^backgammon\.online\.([A-Za-z0-9_-]{8,64})\.(host|guest)$/;
  const seats = [];
  for (let i = 0; i < store.length; i++) {
    const found = pattern.exec(store.key(i) || "");
    const saved = found && readJSON("localStorage", found[0]);
    if (saved && saved.token) seats.push({ code: found[1], seat: found[2], seen: saved.seen || 0 });
  }
  return seats.sort((a, b) => b.seen - a.seen);
}

/** Forget this browser's seat in a room that is gone. */
export function forgetKeptSeat(code, seat) {
  saveSeat(code, seat, null);
}

/**
 * The room named by the address: "#join=CODE" (an invite link) or "#online=CODE" (a page
 * already in the room), or null.
 */
export function roomFromLocation(loc = window.location) {
  const params = new URLSearchParams(loc.hash.slice(1));
  for (const mode of ["online", "join"]) {
    const code = params.get(mode);
    if (code && CODE_RE.test(code)) return { code, mode };
  }
  return null;
}

/** The invite code in what a person pasted: the code itself or a link that holds it. */
export function codeFromText(text) {
  const value = String(text || "").trim();
  if (CODE_RE.test(value)) return value;
  const found = /[#&?](?:join|online)=([A-Za-z0-9_-]{8,64})/.exec(value);
  return found ? found[1] : null;
}

/** A roll as players say it, the higher die first: "4-1" (as the server writes it). */
export function rollText(dice) {
  return dice && dice.length ? `${Math.max(...dice)}-${Math.min(...dice)}` : "";
}

/** A place on the page ("bar", "off", "1".."24" from White's side) in `color`'s numbering. */
function ownPoint(place, color, source) {
  if (source && place === "bar") return 25;
  if (!source && place === "off") return 0;
  const point = Number(place);
  return color === "white" ? point : 25 - point;
}

/** The clocks of a timed online game: the server's readings, counted down between events
 * (online_tables.js draws the shared door's with it too). */
export class OnlineClock {
  constructor(root) {
    this.root = root;
    this.clock = null;
    this.receivedAt = 0;
    this.frame = 0;
    this.rows = {};
    for (const color of COLORS) this.rows[color] = clockRow(root, color, `online-clock-${color}`);
    this.caption = document.createElement("p");
    this.caption.className = "clock-caption";
    root.appendChild(this.caption);
  }

  /**
   * @param {{white: number, black: number, running: string|null}|null} clock seconds left,
   *   as the server read them when it sent them
   * @param {{name: string, reserve: number, increment: number}|null} control
   * @param {{white: string, black: string}} names
   */
  show(clock, control, names) {
    this.root.hidden = !clock || !control;
    for (const color of COLORS) this.rows[color].name.textContent = names[color];
    if (control) {
      this.caption.textContent = `${capital(control.name)}: ${control.reserve / 60} min + ` +
        `${control.increment} s a turn (the server keeps the time)`;
    }
    this.update(clock);
  }

  /** A fresher reading (each event of a timed game carries one; drawing the same state
   * again passes the same reading, which must not restart the count from now). */
  update(clock) {
    if (!clock || clock === this.clock) return;
    this.clock = clock;
    this.receivedAt = performance.now();
    cancelAnimationFrame(this.frame);
    this.tick();
  }

  /** Seconds left to `color` as displayed now. */
  remaining(color) {
    const clock = this.clock;
    if (!clock) return 0;
    let left = clock[color];
    if (this.ticking(color)) left -= (performance.now() - this.receivedAt) / 1000;
    return Math.max(0, left);
  }

  /** Whether `color`'s time runs now (both sides' in the opening round). */
  ticking(color) {
    const clock = this.clock;
    return Boolean(clock) && (clock.running === color || (clock.waiting || []).includes(color));
  }

  tick() {
    const clock = this.clock;
    if (!clock) return;
    for (const color of COLORS) {
      const { row, time } = this.rows[color];
      const left = this.remaining(color);
      time.textContent = formatClock(left);
      row.classList.toggle("running", this.ticking(color));
      row.classList.toggle("warning", left < 10);
    }
    if (clock.running || (clock.waiting || []).length) this.frame = requestAnimationFrame(() => this.tick());
  }

  stop() {
    cancelAnimationFrame(this.frame);
    this.clock = null;
    this.root.hidden = true;
  }
}

/**
 * Wire the online dialog and the room's buttons to `online` (either online mode: this
 * module's OnlineGame or online_tables.js's OnlineTables), which has `openDialog(mode)`,
 * `syncDialog()`, `submitDialog()`, `describeRoom(code)`, `leave()`, `perform(what)`,
 * `enter(code, mode)`, `active` and `code`; `copy` answers the Copy button; `normal` turns a
 * code from the address into the form `online.code` keeps.
 */
export function wireOnlineControls(online, copy, normal = (code) => code) {
  $("online-button").addEventListener("click", () => online.openDialog("create"));
  $("new-game-online").addEventListener("click", () => {
    $("new-game-dialog").close();
    online.openDialog("create");
  });
  const form = $("online-form");
  form.addEventListener("change", () => online.syncDialog());
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    online.submitDialog();
  });
  $("online-cancel").addEventListener("click", () => $("online-dialog").close());
  $("online-code-input").addEventListener("change", (event) => {
    // The old words stay until the new answer comes: hiding them at once would move the
    // Join button away from a click already on its way.
    const code = codeFromText(event.target.value);
    if (code) online.describeRoom(code);
  });
  $("online-copy").addEventListener("click", copy);
  $("online-leave").addEventListener("click", () => online.leave());
  $("online-accept-button").addEventListener("click", () => online.perform("accept"));
  $("online-decline-button").addEventListener("click", () => online.perform("decline"));
  $("online-claim-button").addEventListener("click", () => online.perform("claim"));
  window.addEventListener("hashchange", () => {
    const found = roomFromLocation();
    if (found && !(online.active && online.code === normal(found.code))) {
      online.enter(found.code, found.mode);
    }
  });
}

export class OnlineGame {
  /**
   * @param {object} hooks
   * @param {import("./board.js").BoardView} hooks.board the page's board
   * @param {() => boolean} hooks.hasLocalGame true when the page shows a local game (going
   *   online then reloads the page, so nothing of the local game keeps running)
   * @param {() => void} hooks.openNewGame open the local New game dialog
   * @param {() => boolean} [hooks.isReviewing] true while the board shows a review (the live
   *   position waits until it ends)
   * @param {(previous: object|null, view: object) => void} [hooks.onView] a new view is drawn
   * @param {(view: object) => void} [hooks.onViewWhileReviewing] a new view came while the
   *   board shows a review (it is drawn when the review ends)
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.board = hooks.board;
    this.active = false;
    this.code = null;
    this.seat = null;
    this.token = null;
    this.ws = null;
    this.welcomed = false;
    this.state = null;
    this.lastSeq = 0;
    this.stateInFlight = false;
    this.stateWanted = false;
    this.busy = false; // a person's action waits for its answer
    this.dutyPending = false; // a dice message sent by itself waits for its answer
    this.sent = new Set(); // dice messages sent on this connection: "commit:7"
    this.rounds = new Map(); // round -> {commitments, secrets, mine}: what this page saw
    this.attempt = 0;
    this.reconnectTimer = 0;
    this.finished = false; // no more reconnecting (left, refused, stopped)
    this.lastTie = null;
    this.ref = 0;
    this.asked = new Map(); // ref -> {resolve, reject}: questions answered to this page only
    this.clock = new OnlineClock($("online-clocks"));
    this.wire();
  }

  // -------------------------------------------------------------------------------------------
  // Entering and leaving a room

  /** When the address names a room, go there; true when it did (the page shows no local game). */
  resumeFromLocation() {
    const found = roomFromLocation();
    if (!found) return false;
    this.enter(found.code, found.mode);
    return true;
  }

  /**
   * Play in room `code`: reconnect with this browser's seat there, or (an invite) ask the
   * person to join it as the guest.
   */
  enter(code, mode) {
    if (this.hooks.hasLocalGame()) {
      // Start from a clean page: the local game's requests and clocks stop with it.
      history.replaceState(null, "", `#${mode}=${code}`);
      location.reload();
      return;
    }
    if (this.active && this.code === code) return;
    this.stop();
    const tab = readJSON("sessionStorage", `${KEY}.tab.${code}`);
    let seat = tab && loadSeat(code, tab) ? tab : null;
    if (!seat && mode === "online") seat = ["host", "guest"].find((s) => loadSeat(code, s)) || null;
    if (!seat && mode === "join" && loadSeat(code, "guest")) seat = "guest";
    if (!seat && mode === "join" && loadSeat(code, "host") && !this.confirmedJoin(code, false)) {
      // The host opening its own invite link: back to the host seat once the guest has come.
      // (While the guest seat is free, another tab of this browser may take it, to try.)
      request("GET", `/api/online/rooms/${encodeURIComponent(code)}`)
        .then((room) => room.open)
        .catch(() => true)
        .then((open) => {
          if (open) this.askToJoin(code, mode);
          else {
            history.replaceState(null, "", `#online=${code}`);
            this.begin(code, "host", loadSeat(code, "host").token);
          }
        });
      return;
    }
    this.askToJoin(code, mode, seat);
  }

  /** Reconnect with `seat` when this browser has one, else ask to join as the guest. */
  askToJoin(code, mode, seat = null) {
    history.replaceState(null, "", `#${seat ? "online" : "join"}=${code}`);
    if (seat) {
      this.begin(code, seat, loadSeat(code, seat).token);
    } else if (mode === "join" && this.confirmedJoin(code)) {
      this.begin(code, "guest", null);
    } else {
      $("status").textContent = "Join the game you were invited to.";
      this.openDialog("join", code);
    }
  }

  /** Show the online panel and connect. `token` null: join as the guest. */
  begin(code, seat, token) {
    this.active = true;
    this.finished = false;
    this.endNote = null; // why this page stopped playing (a refusal), kept in the status line
    this.code = code;
    this.seat = seat;
    this.token = token;
    this.state = null;
    this.lastSeq = 0;
    this.rounds = new Map();
    this.lastTie = null;
    this.shownView = null;
    document.body.classList.add("online");
    document.body.dataset.online = "connecting";
    $("online-panel").hidden = false;
    $("online-dice-list").replaceChildren();
    $("online-dice-check").hidden = true;
    this.showNote("");
    this.showError("");
    this.showInvite();
    $("status").textContent = "Connecting…";
    this.connect();
  }

  /** Leave online play on this page (the seat is kept: the invite link or a reload comes back). */
  stop() {
    if (!this.active) return;
    this.active = false;
    this.finished = true;
    this.dropQuestions("You left the online game.");
    clearTimeout(this.reconnectTimer);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close(1000);
    this.clock.stop();
    this.board.setEnabled(false);
    $("online-panel").hidden = true;
    for (const id of CONTROLS) $(id).hidden = true; // local play shows its own
    if ($("result").dataset.online === "1") $("result").hidden = true;
    document.body.classList.remove("online");
    delete document.body.dataset.online;
    delete document.body.dataset.onlineIdle;
  }

  /** Leave the room for good: the opponent is told, the room closes. */
  leave() {
    if (!this.active) return;
    if (this.ws && this.welcomed) this.send({ type: "leave" });
    this.forgetSeat();
    this.stop();
    history.replaceState(null, "", location.pathname);
    $("status").textContent = "You left the online game.";
    this.hooks.openNewGame();
  }

  forgetSeat() {
    if (!this.code || !this.seat) return;
    saveSeat(this.code, this.seat, null);
    writeJSON("sessionStorage", `${KEY}.tab.${this.code}`, null);
  }

  // -------------------------------------------------------------------------------------------
  // The connection

  connect() {
    clearTimeout(this.reconnectTimer);
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/api/online/rooms/${encodeURIComponent(this.code)}/ws`);
    this.ws = ws;
    this.welcomed = false;
    this.sent.clear();
    this.stateInFlight = false;
    this.stateWanted = false;
    this.dutyPending = false;
    this.busy = false;
    this.markIdle();
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      const hello = { type: "hello" };
      if (this.token) hello.token = this.token;
      const name = storage("localStorage") && storage("localStorage").getItem(NAME_KEY);
      if (name) hello.name = name;
      ws.send(JSON.stringify(hello));
    });
    ws.addEventListener("message", (event) => {
      if (this.ws !== ws) return;
      let message;
      try {
        message = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      this.receive(message);
      this.markIdle();
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.welcomed = false;
      this.dropQuestions("The connection to the online game dropped: try again.");
      this.markIdle();
      if (this.finished || !this.active || event.code === CLOSE_REFUSED) {
        this.draw();
        return;
      }
      const wait = RECONNECT_MS[Math.min(this.attempt, RECONNECT_MS.length - 1)];
      this.attempt += 1;
      document.body.dataset.online = "reconnecting";
      $("online-connection").textContent = "Connection lost: reconnecting…";
      this.draw();
      this.reconnectTimer = setTimeout(() => this.connect(), wait);
    });
  }

  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Ask the room something it answers to this page only (`review`, `export`): a promise of
   * the answer, rejected with the server's words when it refuses. */
  ask(type, fields = {}) {
    this.ref += 1;
    const ref = this.ref;
    return new Promise((resolve, reject) => {
      if (!this.welcomed || !this.send({ type, ...fields, ref })) {
        reject(new Error("Not connected to the online game."));
        return;
      }
      this.asked.set(ref, { resolve, reject });
    });
  }

  dropQuestions(text) {
    for (const { reject } of this.asked.values()) reject(new Error(text));
    this.asked.clear();
  }

  /** The review of the online match, for review.js (its liveSource hook). */
  reviewSource() {
    const state = this.state;
    if (!this.active || !state) return null;
    return {
      key: `online:${this.code}:${state.seq}:${state.view.played.length}`,
      viewer: state.you.color,
      sameHistory: false, // this page lists the current game's events; the review, the match's
      load: async () => (await this.ask("review")).review,
    };
  }

  /** Why a checker cannot go somewhere, for assist.js (its explainSource hook). */
  explainSource() {
    const state = this.state;
    if (!this.active || !state) return null;
    const place = (where) => (/^\d+$/.test(String(where)) ? Number(where) : where);
    return {
      key: `online:${this.code}:${state.seq}`,
      ask: async (from, to) => {
        const fields = { from: place(from) };
        if (to !== null && to !== undefined) fields.to = place(to);
        return (await this.ask("explain", fields)).explain;
      },
    };
  }

  /**
   * Count the room's finished games in this browser's record (the Stats view): the server
   * reads the results from the room it refereed, this seat's token proves the seat; a game is
   * counted once however often it is asked. Best effort: a failure changes nothing in play.
   */
  countInRecord() {
    if (!this.code || !this.token) return;
    request("POST", "/api/stats/online", { browser: browserId(), code: this.code, token: this.token })
      .catch(() => {});
  }

  /** The .mat transcript of the online match, for records.js (its exportSource hook). */
  exportSource() {
    const state = this.state;
    if (!this.active || !state) return null;
    return {
      games: state.game_number,
      match: state.settings.match_length > 0,
      url: () => null,
      load: async (number) => {
        const answer = await this.ask("export", number ? { game: number } : {});
        return { text: answer.text, filename: answer.filename };
      },
    };
  }

  requestState() {
    if (this.stateInFlight) {
      this.stateWanted = true;
      return;
    }
    this.stateWanted = false;
    this.stateInFlight = this.send({ type: "state" });
  }

  /** For tests and the curious: data-online-idle="1" when nothing is in flight. */
  markIdle() {
    const idle = Boolean(this.active && this.ws && this.welcomed && this.state && !this.busy &&
      !this.dutyPending && !this.stateInFlight && !this.stateWanted);
    document.body.dataset.onlineIdle = idle ? "1" : "0";
  }

  receive(message) {
    switch (message.type) {
      case "welcome":
        this.welcome(message);
        return;
      case "state":
        this.stateInFlight = false;
        this.applyState(message.state);
        if (this.stateWanted) this.requestState();
        return;
      case "error":
        if (this.asked.has(message.ref)) {
          this.asked.get(message.ref).reject(new Error(message.message));
          this.asked.delete(message.ref);
          return;
        }
        this.refused(message);
        return;
      case "review":
      case "export":
      case "explain":
        if (this.asked.has(message.ref)) {
          this.asked.get(message.ref).resolve(message);
          this.asked.delete(message.ref);
        }
        return;
      case "clock_sync":
        this.requestState(); // the state carries the server's clock
        return;
      case "opponent":
        $("online-opponent").textContent = message.message;
        $("online-opponent").dataset.status = message.status;
        this.requestState();
        return;
      default:
        this.event(message);
    }
  }

  welcome(message) {
    this.welcomed = true;
    this.attempt = 0;
    this.seat = message.seat;
    this.token = message.token;
    const saved = loadSeat(this.code, this.seat) || {};
    saveSeat(this.code, this.seat, { ...saved, token: message.token, secrets: saved.secrets || {},
      seen: Date.now() });
    writeJSON("sessionStorage", `${KEY}.tab.${this.code}`, this.seat);
    history.replaceState(null, "", `#online=${this.code}`);
    // The server restarted and rebuilt the room from its store: this seat's first connection since.
    $("online-connection").textContent = message.restarted ? "The server restarted; reconnected." : "Connected.";
    document.body.dataset.online = "connected";
    this.applyState(message.state);
  }

  refused(message) {
    const code = message.code;
    this.busy = false;
    this.dutyPending = false;
    if (SEAT_GONE.has(code)) {
      this.forgetSeat();
      this.finished = true;
      this.endNote = {
        room_not_found: "This online game no longer exists (a room left empty expires).",
        room_full: "That game already has two players.",
        bad_token: "This browser's seat in that game is not valid any more.",
      }[code];
      document.body.dataset.online = "refused";
      $("online-connection").textContent = "Not connected.";
      this.draw();
      $("status").textContent = this.endNote;
      this.showError(message.message);
      return;
    }
    if (code === "replaced") {
      this.finished = true;
      this.endNote = "This game was opened in another window or tab; this one stepped aside. " +
        "Reload this page to play here again.";
      document.body.dataset.online = "replaced";
      $("online-connection").textContent = "Not connected.";
      this.draw();
      $("status").textContent = this.endNote;
      return;
    }
    if (code === "reveal_mismatch") this.alarm(message.message);
    else if (!QUIET.has(code) || message.ref !== undefined) this.showError(message.message);
    this.requestState();
  }

  /** One event of the room (numbered by `seq`): note it, check the dice, read the state. */
  event(message) {
    if (typeof message.seq === "number") this.lastSeq = Math.max(this.lastSeq, message.seq);
    this.busy = false;
    this.dutyPending = false;
    if (message.clock) this.clock.update(message.clock);
    const names = this.names();
    const who = names[message.color] || "";
    // The analytics hook (off unless the server turned it on): a game's end, the next one.
    if (message.type === "game_over") {
      onlineGameOver(this.state, message);
      this.countInRecord();
    }
    else if (message.type === "new_game" || message.type === "new_match") onlineGameBegan(this.state, message);
    switch (message.type) {
      case "commit":
        this.record(message.round).commitments[message.color] ??= message.commitment;
        break;
      case "secret":
        this.record(message.round).secrets[message.color] = message.secret;
        break;
      case "reveal":
        this.checkReveal(message);
        break;
      case "rolled":
        this.checkRoll(message);
        if (message.passed) this.showNote(`${who} rolled ${rollText(message.dice)} and cannot move: the turn passes.`);
        else if (message.tie) this.showNote(`Opening roll: both threw ${message.dice[0]}; throw again.`);
        else if (!message.opening) this.showNote(""); // (an opening keeps the note before it)
        break;
      case "double":
      case "take":
      case "drop":
      case "beaver":
      case "raccoon":
      case "resign":
      case "decline":
      case "timeout":
      case "new_game":
        // The game's own flow: the view says it (status line, move list, result box), and the
        // live region announces it, as in local play.
        this.showNote("");
        break;
      case "claimable": {
        const minutes = Math.round(message.seconds / 60);
        this.showNote(message.color === this.color()
          ? `The game has waited on you for ${minutes} minutes: your opponent may now claim it as abandoned. Play on to keep it.`
          : `${who} has been silent for ${minutes} minutes: you may claim the game (Claim the game), or wait.`);
        break;
      }
      case "abandoned":
        this.showNote(message.color === this.color() ? "Your opponent claimed the game: you were silent too long."
          : `You claimed the game: ${who} was silent too long.`);
        break;
      case "rematch":
        this.showNote(message.color === this.color() ? "You asked for a rematch; waiting for your opponent."
          : `${who} asks for a rematch.`);
        break;
      case "new_match":
        this.lastTie = null;
        delete $("online-opponent").dataset.status; // redrawn with the new colours
        this.showNote(`Rematch: you play ${message.you} this time.`);
        break;
      case "aborted":
        this.alarm(message.reason);
        break;
      case "closed":
        this.showNote(""); // the opponent line and the result box say who left
        break;
      default:
        break;
    }
    this.requestState();
  }

  // -------------------------------------------------------------------------------------------
  // Fair dice

  record(round) {
    if (!this.rounds.has(round)) this.rounds.set(round, { commitments: {}, secrets: {}, mine: null });
    return this.rounds.get(round);
  }

  storedSecrets() {
    const saved = loadSeat(this.code, this.seat);
    return (saved && saved.secrets) || {};
  }

  storeSecret(round, hex) {
    const saved = loadSeat(this.code, this.seat) || { token: this.token };
    const secrets = { ...(saved.secrets || {}) };
    if (hex) secrets[round] = hex;
    else delete secrets[round];
    saveSeat(this.code, this.seat, { ...saved, secrets });
  }

  /** Commit to a roll of round `round` (the opening's, or this side's turn); true if sent. */
  commit(round) {
    const key = `commit:${round}`;
    if (this.sent.has(key)) return false;
    // The same round always gets the same secret: a commitment sent twice stays one.
    let hex = this.storedSecrets()[round];
    if (!hex) {
      hex = toHex(newSecret());
      this.storeSecret(round, hex); // kept before it is committed to
    }
    this.record(round).mine = hex;
    if (!this.send({ type: "commit", round, commitment: commitment(fromHex(hex)) })) return false;
    this.sent.add(key);
    this.dutyPending = true;
    return true;
  }

  /** Answer the opponent's commitment with a fresh secret in the clear. */
  answer(round) {
    const key = `secret:${round}`;
    if (this.sent.has(key)) return;
    const hex = toHex(newSecret());
    this.record(round).mine = hex;
    if (this.send({ type: "secret", round, secret: hex })) {
      this.sent.add(key);
      this.dutyPending = true;
    }
  }

  /** Reveal this page's committed secret for `round`. */
  reveal(round, committed) {
    const key = `reveal:${round}`;
    if (this.sent.has(key)) return;
    const hex = this.storedSecrets()[round];
    if (!hex || !verifyCommitment(fromHex(hex), committed)) {
      this.sent.add(key);
      this.alarm(`This page no longer has the secret it committed to for round ${round}, so it ` +
        "cannot reveal it: the roll cannot be finished from here.");
      return;
    }
    this.record(round).mine = hex;
    if (this.send({ type: "reveal", round, secret: hex })) {
      this.sent.add(key);
      this.dutyPending = true;
    }
  }

  /** The dice messages the state asks of this page, sent by themselves. */
  duties() {
    const state = this.state;
    if (!state || state.phase !== "playing" || !this.welcomed || state.seq < this.lastSeq) return;
    const game = state.view;
    const me = state.you.color;
    const open = state.round.open;
    if (open) {
      const mine = open.commitments[me];
      if (open.kind === "opening") {
        if (!mine) this.commit(open.number);
        else if (open.commitments[other(me)] && !open.secrets[me]) this.reveal(open.number, mine);
      } else if (open.roller === me) {
        if (open.secrets[other(me)] && !open.secrets[me]) this.reveal(open.number, mine);
      } else if (!open.secrets[me]) {
        this.answer(open.number);
      }
    } else if (game.phase === "opening") {
      this.commit(state.round.next);
    }
  }

  checkReveal(message) {
    const seen = this.record(message.round);
    const committed = seen.commitments[message.color];
    seen.secrets[message.color] = message.secret;
    if (message.color !== this.color() && committed &&
        !verifyCommitment(fromHex(message.secret), committed)) {
      this.alarm(`${this.names()[message.color]}'s revealed secret for round ${message.round} does ` +
        "not match the commitment it sent: these dice cannot be trusted.");
    }
  }

  /** Check a roll: both secrets as committed or sent, and the dice they give. */
  checkRoll(message) {
    const round = message.round;
    const seen = this.record(round);
    const me = this.color();
    const names = this.names();
    const secrets = message.secrets;
    const problems = [];
    const committers = message.opening ? COLORS : [message.color];
    for (const color of committers) {
      const committed = seen.commitments[color];
      if (!committed) problems.push(`no commitment from ${names[color]} was seen`);
      else if (!verifyCommitment(fromHex(secrets[color]), committed)) {
        problems.push(`${names[color]}'s secret does not match its commitment`);
      }
    }
    if (seen.mine && secrets[me] !== seen.mine) problems.push("this page's own secret came back changed");
    const first = message.opening ? secrets.white : secrets[message.color];
    const second = message.opening ? secrets.black : secrets[other(message.color)];
    let derived = null;
    try {
      derived = diceFromSecrets(fromHex(first), fromHex(second), round);
    } catch (err) {
      problems.push(`the secrets cannot be read (${err.message})`);
    }
    if (derived && (derived[0] !== message.dice[0] || derived[1] !== message.dice[1])) {
      problems.push(`the server announced ${message.dice.join("-")} but the secrets give ${derived.join("-")}`);
    }
    this.lastTie = message.tie ? message.dice : null;
    if (seen.mine && seen.mine === this.storedSecrets()[round]) this.storeSecret(round, null);
    const ok = problems.length === 0;
    const roller = message.opening ? "Opening roll" : names[message.color];
    const text = ok
      ? `Round ${round}: ${roller} ${message.dice.join("-")}; both secrets check out and give these dice.`
      : `Round ${round}: the dice do not check out: ${problems.join("; ")}.`;
    const check = $("online-dice-check");
    check.hidden = false;
    check.textContent = ok ? `Dice checked: ${message.dice.join("-")} (round ${round})`
      : `Dice check failed (round ${round})`;
    check.dataset.check = ok ? "ok" : "failed";
    check.dataset.round = String(round);
    check.classList.toggle("error", !ok);
    const item = document.createElement("li");
    item.textContent = text;
    item.dataset.round = String(round);
    item.dataset.check = ok ? "ok" : "failed";
    item.dataset.dice = message.dice.join(",");
    item.dataset.opening = String(Boolean(message.opening));
    item.dataset.roller = message.color || "";
    item.dataset.white = secrets.white;
    item.dataset.black = secrets.black;
    const list = $("online-dice-list");
    list.appendChild(item);
    while (list.children.length > MAX_DICE_LOG) list.firstElementChild.remove();
    if (!ok) this.alarm(text);
  }

  alarm(text) {
    const box = $("online-alarm");
    box.textContent = text;
    box.hidden = false;
  }

  // -------------------------------------------------------------------------------------------
  // The person's actions (main.js hands them over while online play is on)

  /** `action` as main.js names it: roll, move ({from, to}), undo, done, double, take, drop,
   * resign ({level}), rematch; and accept, decline from the online panel. */
  perform(action, body = {}) {
    const state = this.state;
    if (!this.active || !state || !this.welcomed || this.busy) return;
    const game = state.view; // the table's view: what the page shows is what it acts on
    const me = state.you.color;
    const clock = state.clock ? { clock: Number(this.clock.remaining(me).toFixed(3)) } : {};
    let message = null;
    switch (action) {
      case "roll":
        if (!game.can.roll) return;
        this.busy = this.commit(state.round.next);
        this.draw();
        return;
      case "move": {
        // The server's path to that place (one move, or several dice through open points),
        // sent as one message: all its moves are made, or none (as local play's move).
        const entry = game.legal.find((e) => String(e.from) === String(body.from));
        const destination = entry && entry.destinations.find((d) => String(d.to) === String(body.to));
        if (!destination) return;
        this.board.select(null);
        const moves = destination.moves.map((m) => [ownPoint(m.from, me, true), ownPoint(m.to, me, false), m.die]);
        message = { type: "move", moves };
        break;
      }
      case "undo":
        message = { type: "undo" };
        break;
      case "done":
        message = { type: "end_turn", ...clock };
        break;
      case "double":
      case "take":
      case "drop":
      case "beaver":
      case "raccoon":
      case "accept":
      case "decline":
        message = { type: action, ...clock };
        break;
      case "resign":
        message = { type: "resign", level: body.level, ...clock };
        break;
      case "rematch":
        message = { type: "rematch" };
        break;
      case "next":
        message = { type: "next_game" };
        break;
      case "claim":
        message = { type: "claim" };
        break;
      default:
        return;
    }
    this.ref += 1;
    if (this.send({ ...message, ref: this.ref })) {
      this.busy = true;
      this.showError("");
      this.draw();
    }
  }

  // -------------------------------------------------------------------------------------------
  // Drawing

  color() {
    return this.state ? this.state.you.color : null;
  }

  names() {
    const state = this.state;
    const names = { white: "White", black: "Black" };
    if (!state) return names;
    names[state.you.color] = `${state.you.name} (you)`;
    if (state.opponent) names[state.opponent.color] = state.opponent.name;
    return names;
  }

  applyState(state) {
    this.state = state;
    onlineState(state, this.welcomed); // the analytics hook: both sides there, a game on
    const open = state.round.open;
    if (open) {
      const seen = this.record(open.number);
      for (const [color, value] of Object.entries(open.commitments)) seen.commitments[color] ??= value;
      for (const [color, value] of Object.entries(open.secrets)) seen.secrets[color] ??= value;
    }
    this.duties();
    this.draw();
  }

  draw() {
    const state = this.state;
    if (!this.active || !state) {
      this.markIdle();
      return;
    }
    const view = state.view;
    const me = state.you.color;
    const connected = Boolean(this.ws && this.welcomed);
    const playing = state.phase === "playing" && connected;
    const history = state.match.games || [];
    $("review-button").disabled = !history.some((log) => log.events.length);
    if (state.seq !== this.drawnSeq) $("explanation").hidden = true; // it was about the last state
    this.drawnSeq = state.seq;
    $("export-button").disabled = false;
    if (this.hooks.isReviewing && this.hooks.isReviewing()) {
      // The board shows the review; the live position comes back when it ends.
      drawControls(view, { busy: this.busy, live: playing });
      this.drawRoomControls(state, playing);
      this.drawPanel(state);
      this.clock.show(state.clock, state.settings.time_control, this.names());
      if (this.hooks.onViewWhileReviewing) this.hooks.onViewWhileReviewing(view);
      this.markIdle();
      return;
    }
    // The table's view, drawn as local play draws it (table.js); then what is the room's own.
    drawView(view, { board: this.board, busy: this.busy, live: playing, labels: me });
    if (view.phase === "opening" && this.lastTie) {
      this.board.drawDice(null, [], null, { white: this.lastTie[0], black: this.lastTie[1] });
    }
    const body = document.body;
    body.dataset.onlinePhase = state.phase;
    body.dataset.onlineSeq = String(state.seq);
    body.dataset.onlineYou = me;
    body.dataset.onlineSeat = state.you.seat;
    if (this.endNote) $("status").textContent = this.endNote;
    else if (!connected && !this.finished) $("status").textContent = "Connecting…";
    this.drawRoomControls(state, playing);
    this.drawRoomResult(state, connected);
    this.drawPanel(state);
    this.clock.show(state.clock, state.settings.time_control, this.names());
    if (this.hooks.onView && this.shownView !== view) this.hooks.onView(this.shownView || null, view);
    this.shownView = view;
    this.markIdle();
  }

  /** The room's own buttons: answer a resignation, claim an abandoned game. */
  drawRoomControls(state, playing) {
    const view = state.view;
    const me = state.you.color;
    const answer = playing && view.phase === "resign" && view.to_act === me;
    const visible = {
      "online-accept-button": answer,
      "online-decline-button": answer,
      "online-claim-button": playing && state.claimable === other(me),
    };
    for (const [id, show] of Object.entries(visible)) {
      const button = $(id);
      button.hidden = !show;
      button.disabled = this.busy;
    }
  }

  /** A room that ended without a result (a reveal that did not match, a player who left). */
  drawRoomResult(state, connected) {
    // A rematch is asked for once the match is over (the room no longer "playing").
    $("rematch-button").hidden = !(connected && state.view.result && state.view.can.rematch);
    $("rematch-button").disabled = this.busy;
    let title = "";
    let text = "";
    if (state.phase === "aborted") {
      title = "Game stopped";
      text = state.reason || "";
    } else if (state.phase === "closed") {
      title = "Room closed";
      text = `${state.reason || "a player left"}.`;
    }
    $("result").dataset.online = title || state.view.result ? "1" : "";
    if (!title) return;
    $("result").hidden = false;
    $("result-title").textContent = title;
    $("result-text").textContent = text;
    $("rematch-button").hidden = true;
  }

  drawPanel(state) {
    const opponent = state.opponent;
    const line = $("online-opponent");
    if (!opponent) {
      line.textContent = "Nobody has joined yet.";
      line.dataset.status = "waiting";
    } else if (!line.dataset.status || line.dataset.status === "waiting") {
      line.textContent = `Playing ${opponent.name} (${opponent.color}).`;
      line.dataset.status = opponent.connected ? "joined" : "disconnected";
    }
    $("online-you").textContent = `You play ${state.you.color}.`;
    $("online-invite").hidden = state.phase !== "waiting";
  }

  showInvite() {
    const saved = loadSeat(this.code, this.seat) || {};
    const path = saved.invite || `/#join=${this.code}`;
    const link = `${location.origin}${path}`;
    $("online-code").textContent = this.code;
    $("online-link").value = link;
    const local = ["localhost", "127.0.0.1", "[::1]"].includes(location.hostname);
    $("online-link-hint").hidden = !local;
    $("online-copy-status").textContent = "";
  }

  showNote(text) {
    const note = $("online-note");
    note.textContent = text || "";
    note.hidden = !text;
  }

  showError(text) {
    const box = $("error");
    box.textContent = text || "";
    box.hidden = !text;
  }

  async copyLink() {
    const input = $("online-link");
    const status = $("online-copy-status");
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
      await navigator.clipboard.writeText(input.value);
      status.textContent = "Link copied.";
    } catch (err) {
      // Plain HTTP on a LAN address has no clipboard API: select the link for Ctrl+C.
      input.focus();
      input.select();
      let copied = false;
      try {
        copied = document.execCommand("copy");
      } catch (ignored) {
        copied = false;
      }
      status.textContent = copied ? "Link copied." : "The link is selected: copy it with Ctrl+C.";
    }
  }

  // -------------------------------------------------------------------------------------------
  // The Play online dialog

  openDialog(mode, code = "") {
    const dialog = $("online-dialog");
    const form = $("online-form");
    form.elements["online-mode"].value = mode;
    $("online-code-input").value = code;
    $("online-name").value = (storage("localStorage") && storage("localStorage").getItem(NAME_KEY)) || "";
    $("online-dialog-error").hidden = true;
    $("online-room-info").textContent = "";
    this.syncDialog();
    if (!dialog.open) dialog.showModal();
    if (mode === "join" && code) this.describeRoom(code);
  }

  syncDialog() {
    const form = $("online-form");
    const mode = form.elements["online-mode"].value;
    for (const row of form.querySelectorAll(".online-create-only")) row.hidden = mode !== "create";
    for (const row of form.querySelectorAll(".online-join-only")) row.hidden = mode !== "join";
    $("online-length-row").hidden = mode !== "create" || $("online-kind").value !== "match";
    $("online-money-row").hidden = mode !== "create" || $("online-kind").value !== "money";
    $("online-submit").textContent = mode === "create" ? "Create game" : "Join game";
  }

  dialogError(text) {
    const box = $("online-dialog-error");
    box.textContent = text || "";
    box.hidden = !text;
  }

  /** What the invite leads to: the host's name and settings, or why it cannot be joined. */
  async describeRoom(code) {
    const info = $("online-room-info");
    try {
      const room = await request("GET", `/api/online/rooms/${encodeURIComponent(code)}`);
      const s = room.settings;
      const rules = [s.jacoby ? "the Jacoby rule" : "", s.beavers ? "beavers" : ""].filter(Boolean);
      const money = `money play${rules.length ? ` (${rules.join(", ")})` : ""}`;
      const length = s.match_length ? `a match to ${s.match_length}` : s.money ? money : "a single game";
      const clock = s.time_control ? `${s.time_control.name} clock` : "no clock";
      const stall = s.time_control ? "Every wait is on the clock of the side that must act."
        : "A player who is gone (disconnected for 2 minutes, or thinking for 10 in one turn) can be claimed against: the other wins.";
      info.textContent = `${room.host} invites you to ${length}, ${s.cube ? "with" : "without"} the cube, ${clock}. ${stall}`;
      this.dialogError(room.open ? "" : "That game already has two players.");
      return room;
    } catch (err) {
      info.textContent = "";
      this.dialogError(err instanceof ApiError && err.status === 404
        ? "There is no such game: check the code (a game left empty expires)." : err.message);
      return null;
    }
  }

  async submitDialog() {
    const form = $("online-form");
    const mode = form.elements["online-mode"].value;
    const name = $("online-name").value.trim();
    const store = storage("localStorage");
    if (store) {
      if (name) store.setItem(NAME_KEY, name);
      else store.removeItem(NAME_KEY);
    }
    this.dialogError("");
    $("online-submit").disabled = true;
    try {
      if (mode === "create") await this.create(name);
      else await this.join($("online-code-input").value);
    } finally {
      $("online-submit").disabled = false;
    }
  }

  async create(name) {
    const kind = $("online-kind").value;
    const length = Math.max(1, Math.min(25, Number($("online-length").value) || 3));
    const cube = $("online-cube").checked;
    const money = kind === "money";
    const body = {
      cube,
      time_control: $("online-clock").value,
      match_length: kind === "match" ? length : 0,
    };
    if (money) {
      // Money play: games one after another, the Jacoby rule and beavers as chosen (both
      // need the cube).
      body.money = true;
      body.jacoby = cube && $("online-jacoby").checked;
      body.beavers = cube && $("online-beavers").checked;
    }
    if (name) body.name = name;
    let room;
    try {
      room = await request("POST", "/api/online/rooms", body);
    } catch (err) {
      this.dialogError(err.message);
      return;
    }
    saveSeat(room.code, "host", { token: room.token, invite: room.invite_path, secrets: {} });
    writeJSON("sessionStorage", `${KEY}.tab.${room.code}`, "host");
    $("online-dialog").close();
    if (this.hooks.hasLocalGame()) {
      this.enter(room.code, "online"); // reloads into the room
      return;
    }
    this.stop();
    history.replaceState(null, "", `#online=${room.code}`);
    this.begin(room.code, "host", room.token);
  }

  async join(text) {
    const code = codeFromText(text);
    if (!code) {
      this.dialogError("Paste the invite code or the whole link your friend sent.");
      return;
    }
    const tab = readJSON("sessionStorage", `${KEY}.tab.${code}`);
    let seat = tab && loadSeat(code, tab) ? tab : loadSeat(code, "guest") ? "guest" : null;
    if (!seat) {
      const room = await this.describeRoom(code);
      if (!room) return;
      if (!room.open) {
        if (!loadSeat(code, "host")) return;
        seat = "host"; // this browser's own game: back to the host seat
        this.dialogError("");
      }
    }
    $("online-dialog").close();
    if (this.hooks.hasLocalGame()) {
      if (seat) {
        writeJSON("sessionStorage", `${KEY}.tab.${code}`, seat);
        this.enter(code, "online"); // reloads into this browser's seat there
        return;
      }
      // Reload into the room: `enter` finds no seat and would ask again, so join straight away.
      writeJSON("sessionStorage", `${KEY}.confirmed`, code);
      this.enter(code, "join");
      return;
    }
    if (seat) this.begin(code, seat, loadSeat(code, seat).token);
    else this.begin(code, "guest", null);
    history.replaceState(null, "", `#join=${code}`);
  }

  wire() {
    wireOnlineControls(this, () => this.copyLink());
    window.addEventListener("online", () => {
      if (this.active && !this.ws && !this.finished) this.connect();
    });
  }

  /** After a reload that a join asked for: join without asking again (`consume` false: only
   * look). */
  confirmedJoin(code, consume = true) {
    const confirmed = readJSON("sessionStorage", `${KEY}.confirmed`);
    if (confirmed !== code) return false;
    if (consume) writeJSON("sessionStorage", `${KEY}.confirmed`, null);
    return true;
  }
}
