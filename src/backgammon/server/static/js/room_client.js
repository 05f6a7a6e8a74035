// The online rooms' client, for every game (gametable/online.py): make or join a room over
// HTTP, then play over its WebSocket. It knows no game: actions are the game's own JSON, views
// are handed to the page as they come.
//
//   POST /api/rooms {game, settings, time_control, side, name} -> {code, token, side, view}
//   GET  /api/rooms/{code}                                     -> {code, game, settings, ..., open}
//   POST /api/rooms/{code}/join {name}                         -> {code, token, side, view}
//   WS   /ws/rooms/{code}: hello {token, patch: true} first; then action, commit, secret,
//        reveal, claim, leave, rematch, state; the server pushes {type: "view", view} to both
//        seats after each accepted message and answers a refusal with {type: "error", code,
//        message, ref}. The hello's answer (a connection's first view) carries `server`
//        {started, now}: a reconnection whose server started after the last answer's `now`
//        reached a server that restarted and kept the room (`onConnection("open",
//        {restarted: true})`). {type: "left", side}: the other seat left the room
//        (`onLeft(side)`); the room keeps it too, in every view after (`room.left`, the
//        sides that left), so a page reloaded or away at the time learns it there.
//
// Patches: the hello asks for them, so each connection's first view comes whole and every
// later one as {type: "patch", patch, round?, rematch?, ref?}: a JSON Patch (RFC 6902: add,
// replace, remove; an array that grew gets its new items at "-"; gametable/wire.py
// view_patch) from the view before.
// The client applies it (`applyPatch`, copying what it changes: an older view handed out is
// left as it was) and hands its users whole views as before (`client.view`, `onView(view,
// message)` with message.type "view").
//
// The seat's token is kept in localStorage under the room's code, so a reload or a reopened
// tab returns to the seat (`storedSeat`). A dropped connection is opened again by itself,
// waiting longer after each failed try (BACKOFF_MS); a refused seat ("not_found",
// "not_your_room") or a seat opened in another window ("replaced") is not retried.
//
// Fair-random rounds (gametable/fair.py), for games with chance: `roll()` opens a round by a
// commitment; whenever a view shows the round waiting on this side, the client answers by
// itself: a commit (a round both sides play), its secret in the clear (the roller's opponent),
// or the reveal of its committed secret. Each fresh 32-byte secret is written to
// sessionStorage BEFORE its SHA-256 commitment is sent, so a reload between commit and reveal
// can still reveal (a reveal that does not match forfeits the game). A game without chance
// never sees a round.

import { ApiError, request } from "./api.js";

export { ApiError };

/** localStorage: {CODE: {token, game, side, at}} for the rooms this browser sits in. */
export const SEATS_KEY = "gametable.seats";
/** sessionStorage: the secret of round N of room CODE is under `${SECRET_KEY}.CODE.N`. */
export const SECRET_KEY = "gametable.secret";
/** Waits before each reconnection try, in ms (the last one repeats). */
export const BACKOFF_MS = [300, 700, 1500, 3000, 5000];

/**
 * The connection's state (`onConnection`) in the words both games' pages show. `restarted`:
 * the open connection found a server that restarted and kept the room.
 */
export function connectionWords(state, { restarted = false } = {}) {
  return {
    connecting: "Connecting…",
    open: restarted ? "The server restarted; reconnected." : "Connected.",
    reconnecting: "Connection lost: reconnecting…",
    replaced: "This game was opened in another window or tab; this one stepped aside.",
    gone: "This online game no longer exists (a room left empty expires).",
    closed: "Not connected.",
  }[state] || "";
}
/**
 * The short words a page's heading shows for a connection that is not open, beside the room
 * panel's (`connectionWords`): a page that had the room and lost it is "Reconnecting…", not
 * connecting for the first time.
 */
export function connectionHeading(state) {
  if (state === "reconnecting") return "Reconnecting…";
  if (state === "connecting" || !state) return "Connecting…";
  return "Not connected.";
}
/** Seats kept in localStorage, the most recent first. */
const MAX_SEATS = 40;
/** Refusals that end a connection for good: the room or the seat is not there. */
const FATAL = new Set(["not_found", "not_your_room"]);
const SECRET_BYTES = 32;

// ------------------------------------------------------------------ storage

function store(kind) {
  try {
    return kind === "session" ? window.sessionStorage : window.localStorage;
  } catch (err) {
    return null; // storage disabled
  }
}

function readSeats() {
  const local = store("local");
  try {
    const seats = JSON.parse((local && local.getItem(SEATS_KEY)) || "{}");
    return seats && typeof seats === "object" && !Array.isArray(seats) ? seats : {};
  } catch (err) {
    return {};
  }
}

function writeSeats(seats) {
  const local = store("local");
  if (!local) return;
  const kept = Object.entries(seats)
    .sort((a, b) => (b[1].at || 0) - (a[1].at || 0))
    .slice(0, MAX_SEATS);
  try {
    local.setItem(SEATS_KEY, JSON.stringify(Object.fromEntries(kept)));
  } catch (err) {
    // full or disabled: the seat lasts for this visit
  }
}

/** A room code as the server spells it (upper case, letters and digits only). */
export function normalCode(code) {
  return String(code || "").trim().toUpperCase().replace(/[^A-Z0-9]/g, "");
}

/** This browser's seat in room `code`: {token, game, side, at}, or null. */
export function storedSeat(code) {
  const seat = readSeats()[normalCode(code)];
  return seat && typeof seat.token === "string" ? seat : null;
}

function keepSeat(code, seat) {
  const seats = readSeats();
  seats[normalCode(code)] = { ...seat, at: Date.now() };
  writeSeats(seats);
}

/** Forget this browser's seat in room `code`. */
export function forgetSeat(code) {
  const seats = readSeats();
  delete seats[normalCode(code)];
  writeSeats(seats);
}

// ------------------------------------------------------------------ HTTP

const roomPath = (code) => `/api/rooms/${encodeURIComponent(normalCode(code))}`;

/**
 * Make a room: `game` the game's wire name, `settings` its settings, `timeControl` ("none",
 * "bullet", ...), `side` ("white", "black", "random"), `name` the host's. The seat is kept.
 * Resolves to {code, token, side, view}; rejects with ApiError.
 */
export async function createRoom({ game, settings = {}, timeControl = "none", side = "white", name = "" }) {
  const made = await request("POST", "/api/rooms", {
    game, settings, time_control: timeControl, side, name,
  });
  keepSeat(made.code, { token: made.token, game, side: made.side });
  return made;
}

/** What a page says of a room whose host left before anyone joined (`closed` in `roomInfo`'s
 * answer; a join is refused with `room_closed`). */
export const ROOM_CLOSED = "That game was closed by its host: ask them for a new invitation.";

/** What a page says of a room whose two seats are taken (`open` false in `roomInfo`'s answer;
 * a join is refused with `seats_taken`). */
export const SEATS_TAKEN = "That game already has two players.";

/** What a page says of a join refused because the room's storage is used up (`room_full`: a
 * room stores so many messages and bytes; the same code refuses its players' messages). */
export const ROOM_FULL = "That game has stored all the server keeps for one game, so it takes no one new: ask for a new invitation.";

/** Words for a refused join: `room_closed`, `seats_taken` and `room_full` in the page's words,
 * else the server's. */
export function joinWords(err) {
  const words = { room_closed: ROOM_CLOSED, seats_taken: SEATS_TAKEN, room_full: ROOM_FULL };
  if (err && Object.prototype.hasOwnProperty.call(words, err.code)) return words[err.code];
  return err && typeof err.message === "string" ? err.message : String(err);
}

/** What a guest sees before joining: {code, game, settings, time_control, names, open,
 * closed} (`closed`: its host left before anyone joined; `open`: a seat is free to take). */
export function roomInfo(code) {
  return request("GET", roomPath(code));
}

/** Take the free seat of room `code` (the seat is kept): {code, token, side, view}. */
export async function joinRoom(code, name = "") {
  const joined = await request("POST", `${roomPath(code)}/join`, { name });
  keepSeat(joined.code, { token: joined.token, game: joined.view && joined.view.game, side: joined.side });
  return joined;
}

// ------------------------------------------------------------------ patches

function pointer(path) {
  if (typeof path !== "string" || !path.startsWith("/")) throw new Error(`not a member's path: ${path}`);
  return path.slice(1).split("/").map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
}

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
const has = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

/** An array index of a pointer ("-": past the end, with `end`). */
function indexIn(items, token, end = false) {
  if (end && token === "-") return items.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= items.length + (end ? 1 : 0)) {
    throw new Error(`no item ${token} in an array of ${items.length}`);
  }
  return Number(token);
}

/**
 * `doc` with the JSON Patch `operations` (RFC 6902's add, replace and remove, as the server's
 * gametable.wire.view_patch makes them: object members, and array items by index or "-" for
 * the end) applied, as a new object: `doc` is left as it was (the objects and arrays on each
 * operation's path are copied, the rest shared). Throws on anything else.
 */
export function applyPatch(doc, operations) {
  if (!isObject(doc) || !Array.isArray(operations)) throw new Error("a patch is a list of operations");
  const root = { ...doc };
  const copied = new Set([root]);
  for (const operation of operations) {
    if (!isObject(operation)) throw new Error("an operation is an object");
    const keys = pointer(operation.path);
    if (keys.includes("__proto__")) throw new Error("no such member");
    let parent = root;
    for (const key of keys.slice(0, -1)) {
      const at = Array.isArray(parent) ? indexIn(parent, key) : key;
      let child = Array.isArray(parent) || has(parent, key) ? parent[at] : undefined;
      if (child === null || typeof child !== "object") throw new Error(`${operation.path} goes through a non-container`);
      if (!copied.has(child)) {
        child = Array.isArray(child) ? [...child] : { ...child };
        parent[at] = child;
        copied.add(child);
      }
      parent = child;
    }
    const last = keys[keys.length - 1];
    const { op } = operation;
    if (!["add", "replace", "remove"].includes(op) || (op !== "remove" && !has(operation, "value"))) {
      throw new Error(`unknown operation ${op}`);
    }
    if (Array.isArray(parent)) {
      const index = indexIn(parent, last, op === "add");
      if (op === "remove") parent.splice(index, 1);
      else if (op === "replace") parent[index] = operation.value;
      else parent.splice(index, 0, operation.value);
    } else {
      if (op !== "add" && !has(parent, last)) throw new Error(`${op} of ${operation.path}: no such member`);
      if (op === "remove") delete parent[last];
      else parent[last] = operation.value;
    }
  }
  return root;
}

// ------------------------------------------------------------------ fair rounds

function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i += 1) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** SHA-256 of `bytes`, 64 lowercase hex digits (crypto.subtle; the vendored hash where the
 * page is not a secure context and crypto.subtle is missing). */
export async function sha256Hex(bytes) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (subtle) return toHex(new Uint8Array(await subtle.digest("SHA-256", bytes)));
  const { sha256 } = await import("./vendor/noble-hashes/sha2.js");
  return toHex(sha256(bytes));
}

function freshSecret() {
  const secret = new Uint8Array(SECRET_BYTES);
  globalThis.crypto.getRandomValues(secret);
  return secret;
}

/** The sides of a completed round whose revealed secret is missing or does not hash (SHA-256)
 * to the commitment it sent: `round` is a room view's round, {number, commitments, secrets};
 * an empty array when every commitment checks out. */
export async function unmatchedSecrets(round) {
  const unmatched = [];
  for (const [side, commitment] of Object.entries(round.commitments || {})) {
    const secret = (round.secrets || {})[side];
    let hash = null;
    try {
      hash = secret ? await sha256Hex(fromHex(secret)) : null;
    } catch (err) {
      hash = null; // not hex: it cannot match
    }
    if (hash !== commitment) unmatched.push(side);
  }
  return unmatched;
}

/** What the page says of a side whose secret does not match its commitment. */
export function unmatchedWords(round, side) {
  return `Round ${round.number}: ${side}'s secret does not match its commitment.`;
}

/** The step a round waits for from `side`: "commit", "secret", "reveal", or null (the same
 * rule as gametable.fair.FairRound.expects). */
export function expectedStep(round, side) {
  if (!round || !round.awaiting.includes(side)) return null;
  const committed = side in (round.commitments || {});
  if (!committed && (round.roller === null || round.roller === side)) return "commit";
  return round.roller !== null && side !== round.roller ? "secret" : "reveal";
}

// ------------------------------------------------------------------ the connection

/**
 * One seat's connection to room `code`.
 *
 * Handlers: `onView(view, message)` for every view pushed (message: the whole frame, with
 * `round` when a round just completed and `rematch` when a rematch began); `onError({code,
 * message, ref})` for a refusal; `onConnection(state)` when the connection's state changes:
 * "connecting", "open" (the first view came), "reconnecting", "replaced" (the seat was opened
 * in another window), "gone" (the room or the seat is not on the server), "closed"; "open"
 * comes with {restarted: true} when the server restarted since this client's last connection
 * (and kept the room). `onLeft(side)`: the other seat left the room.
 */
export class RoomClient {
  constructor(code, { onView = () => {}, onError = () => {}, onConnection = () => {}, onLeft = () => {} } = {}) {
    this.code = normalCode(code);
    this.onView = onView;
    this.onError = onError;
    this.onConnection = onConnection;
    this.onLeft = onLeft;
    this.server = null; // the last hello's answer's {started, now}
    this.ws = null;
    this.state = "closed";
    this.view = null;
    this.attempt = 0;
    this.timer = 0;
    this.final = false;
    this.nextRef = 1;
    this.pending = new Map(); // ref -> resolve
    this.roundSent = new Set(); // "number:step" sent on this connection
    this.memorySecrets = new Map(); // where sessionStorage is unavailable
    this.rematched = false; // a rematch began: the next view is its first
    this.wake = () => {
      if (this.state === "reconnecting") this.reconnectNow();
    };
  }

  /** The seat's token (from localStorage), or null. */
  get token() {
    const seat = storedSeat(this.code);
    return seat ? seat.token : null;
  }

  /** Open the connection (with the stored token); false when this browser has no seat here. */
  open() {
    if (!this.token) return false;
    this.final = false;
    window.addEventListener("online", this.wake);
    document.addEventListener("visibilitychange", this.wake);
    this.connect();
    return true;
  }

  /** Close for good (no reconnection); the seat stays stored. */
  close() {
    this.final = true;
    clearTimeout(this.timer);
    window.removeEventListener("online", this.wake);
    document.removeEventListener("visibilitychange", this.wake);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close(1000);
    this.settleAll("closed", "the connection was closed");
    this.setState("closed");
  }

  setState(state, detail = {}) {
    if (this.state === state) return;
    this.state = state;
    this.onConnection(state, detail);
  }

  url() {
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${window.location.host}/ws/rooms/${encodeURIComponent(this.code)}`;
  }

  connect({ quiet = false } = {}) {
    clearTimeout(this.timer);
    if (this.final) return;
    const token = this.token;
    if (!token) {
      this.finish("gone");
      return;
    }
    if (!quiet) this.setState(this.attempt === 0 && !this.view ? "connecting" : "reconnecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (err) {
      this.retry();
      return;
    }
    this.ws = ws;
    this.greeted = false; // the server's first view on this connection came
    this.roundSent.clear();
    ws.addEventListener("open", () => {
      if (ws === this.ws) ws.send(JSON.stringify({ type: "hello", token, patch: true }));
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      this.receive(frame);
    });
    ws.addEventListener("close", () => {
      if (ws !== this.ws) return;
      this.ws = null;
      this.settleAll("offline", "the connection was lost");
      this.retry();
    });
  }

  /** Say hello again on a new connection, without reporting a lost connection. */
  reopen() {
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close(1000);
    this.settleAll("offline", "the connection was renewed");
    this.connect({ quiet: true });
  }

  retry() {
    if (this.final) return;
    const wait = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    this.setState("reconnecting");
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), wait);
  }

  /** Try again now (the network came back, the tab was shown again). */
  reconnectNow() {
    if (this.final || this.ws) return;
    clearTimeout(this.timer);
    this.connect();
  }

  finish(state) {
    this.final = true;
    clearTimeout(this.timer);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close(1000);
    this.settleAll(state, state === "replaced" ? "this seat was opened in another window" : "the room is gone");
    this.setState(state);
  }

  receive(frame) {
    if (frame.type === "patch") {
      // The changes from the last view this connection brought (frames come in order).
      let view;
      try {
        view = applyPatch(this.view, frame.patch);
      } catch (err) {
        this.reopen(); // no view to patch: a new connection's first view comes whole
        return;
      }
      const { patch, ...fields } = frame;
      frame = { ...fields, type: "view", view };
    }
    if (frame.type === "view" && frame.rematch) {
      // The door keeps each connection on the side it said hello as, while a rematch swaps
      // the seats: this frame is the other seat's view. A fresh hello on a new connection
      // opens the seat this token holds now; its first view is delivered as the rematch's.
      this.settle(frame.ref, { ok: true, view: null });
      this.rematched = true;
      this.reopen();
      return;
    }
    if (frame.type === "view") {
      if (this.rematched) {
        this.rematched = false;
        frame = { ...frame, rematch: true };
      }
      this.view = frame.view;
      this.greeted = true;
      this.attempt = 0;
      const server = frame.server;
      const restarted = Boolean(server && this.server && server.started > this.server.now);
      if (server) this.server = server;
      this.setState("open", { restarted });
      this.forgetOldSecrets(frame.view);
      this.onView(frame.view, frame);
      if (frame.round) this.checkRound(frame.round);
      this.settle(frame.ref, { ok: true, view: frame.view });
      this.answerRound(frame.view);
      return;
    }
    if (frame.type === "left") {
      this.onLeft(frame.side);
      return;
    }
    if (frame.type !== "error") return;
    const error = { code: frame.code, message: frame.message, ref: frame.ref };
    if (frame.code === "replaced") {
      this.finish("replaced");
      this.onError(error);
      return;
    }
    if (FATAL.has(frame.code) && !this.greeted) {
      forgetSeat(this.code);
      this.finish("gone");
      this.onError(error);
      return;
    }
    const automatic = typeof frame.ref === "string" && frame.ref.startsWith("round:");
    if (automatic) {
      // a step that crossed a reconnection: the next view says what is awaited
      if (this.ws) this.ws.send(JSON.stringify({ type: "state" }));
      return;
    }
    if (!this.settle(frame.ref, { ok: false, ...error })) this.onError(error);
  }

  settle(ref, answer) {
    if (ref === undefined || ref === null || !this.pending.has(ref)) return false;
    const resolve = this.pending.get(ref);
    this.pending.delete(ref);
    resolve(answer);
    return true;
  }

  settleAll(code, message) {
    for (const resolve of this.pending.values()) resolve({ ok: false, code, message });
    this.pending.clear();
  }

  /**
   * Send one message ({type, ...}); resolves to {ok: true, view} once the server accepted it,
   * or {ok: false, code, message} (refused, or "offline" when the connection is not open).
   */
  send(message) {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || this.state !== "open") {
      return Promise.resolve({ ok: false, code: "offline", message: "Not connected to the game: reconnecting…" });
    }
    const ref = this.nextRef++;
    return new Promise((resolve) => {
      this.pending.set(ref, resolve);
      ws.send(JSON.stringify({ ...message, ref }));
    });
  }

  /** The game's action JSON (e.g. checkers {type: "move", path}). */
  act(action) {
    return this.send({ type: "action", action });
  }

  claim() {
    return this.send({ type: "claim" });
  }

  rematch() {
    return this.send({ type: "rematch" });
  }

  /** Leave the room (a game in play is forfeited); the connection closes after it. */
  async leave() {
    const answer = await this.send({ type: "leave" });
    this.close();
    return answer;
  }

  /** Ask for the view again. */
  refresh() {
    return this.send({ type: "state" });
  }

  // ---------------------------------------------------------------- fair rounds

  secretKey(number) {
    return `${SECRET_KEY}.${this.code}.${number}`;
  }

  readSecret(number) {
    const session = store("session");
    let hex = null;
    try {
      hex = session && session.getItem(this.secretKey(number));
    } catch (err) {
      hex = null;
    }
    hex = hex || this.memorySecrets.get(number) || null;
    return hex && /^[0-9a-f]{64}$/.test(hex) ? hex : null;
  }

  /** The secret of round `number`: the one kept, or a fresh one written to sessionStorage
   * (and memory) before anything is sent. */
  keepSecret(number) {
    const kept = this.readSecret(number);
    if (kept) return kept;
    const hex = toHex(freshSecret());
    this.memorySecrets.set(number, hex);
    const session = store("session");
    try {
      if (session) session.setItem(this.secretKey(number), hex);
    } catch (err) {
      // no sessionStorage: the secret lives in memory (a reload before the reveal loses it)
    }
    return hex;
  }

  /** Drop the secrets of rounds that are over. */
  forgetOldSecrets(view) {
    const room = view && view.room;
    if (!room) return;
    const current = room.round ? room.round.number : null;
    const session = store("session");
    const prefix = `${SECRET_KEY}.${this.code}.`;
    const old = (number) => number < room.next_round && number !== current;
    for (const number of [...this.memorySecrets.keys()]) if (old(number)) this.memorySecrets.delete(number);
    if (!session) return;
    try {
      for (let i = session.length - 1; i >= 0; i -= 1) {
        const key = session.key(i);
        if (key && key.startsWith(prefix) && old(Number(key.slice(prefix.length)))) session.removeItem(key);
      }
    } catch (err) {
      // storage disabled
    }
  }

  async commit(number) {
    const hex = this.keepSecret(number); // kept BEFORE the commitment leaves the page
    const commitment = await sha256Hex(fromHex(hex));
    return this.sendRoundStep(number, "commit", { commitment });
  }

  sendRoundStep(number, step, fields) {
    const key = `${number}:${step}`;
    const ws = this.ws;
    if (this.roundSent.has(key) || !ws || ws.readyState !== WebSocket.OPEN) return false;
    this.roundSent.add(key);
    ws.send(JSON.stringify({ type: step, round: number, ...fields, ref: `round:${key}` }));
    return true;
  }

  /** Open a round (a roll): commit to the next round when the game's chance is due to this
   * side. False when it is not. */
  async roll() {
    const room = this.view && this.view.room;
    if (!room || room.round || !room.chance_due.includes(room.you)) return false;
    return this.commit(room.next_round);
  }

  /** Answer the round in progress when it waits on this side. */
  async answerRound(view) {
    const room = view && view.room;
    const round = room && room.round;
    const step = expectedStep(round, room && room.you);
    if (!step) return;
    if (step === "commit") {
      await this.commit(round.number);
    } else if (step === "secret") {
      this.sendRoundStep(round.number, "secret", { secret: toHex(freshSecret()) });
    } else {
      const hex = this.readSecret(round.number);
      if (!hex) {
        this.onError({ code: "lost_secret", message: "This page lost the secret it committed to: the dice cannot be thrown from here.", ref: null });
        return;
      }
      this.sendRoundStep(round.number, "reveal", { secret: hex });
    }
  }

  /** Check a completed round: each commitment matches its revealed secret. */
  async checkRound(round) {
    for (const side of await unmatchedSecrets(round)) {
      this.onError({ code: "unfair_round", message: unmatchedWords(round, side), ref: null });
    }
  }
}
