// Backgammon online, at the shared table's door (gametable/online.py: /api/rooms, /ws/rooms).
//
// room_client.js makes or joins the room, keeps the seat, reconnects, and answers the dice's
// commit-reveal rounds by itself; table.js draws the view (its `state` is backgammon's view,
// services/table.py `describe`; its `room` the room's part). The door takes whole plays: the
// checkers a person moves are kept here, each step asked of the server
// (POST /api/positions/turn: the board after it, where each checker can go next, the play so
// far in notation), and Done sends the play as one action {type: "move", play}.
//
// main.js hands this class the person's actions as it plays them locally (`perform`), so the
// board, the buttons and the dialogs are the same. What the page's other modules ask of online
// play comes from the room: the review and the .mat export from the room's transcript
// (GET /api/rooms/{code}/export.mat with the seat's token; the review is the server's reading
// of it, POST /api/records/import), "why can't this checker go there" from
// POST /api/positions/turn/explain (the turn as built here), the browser's record from
// POST /api/stats/rooms (the server reads the results from the room).
//
// What the room says beside its views: a reconnection to a server that restarted (and kept
// the room) is said so ("The server restarted; reconnected."); an opponent who leaves closes
// the room to this page ("Room closed: ... left the room.", no rematch), from the door's
// `left` frame, or from the room's view (`room.left`, kept in the room: a reload, or a page
// that was away or on another server process, still says it).

import { onlineGameBegan, onlineGameOver, onlineState } from "./analytics.js";
import { ApiError, errorWords, request } from "./api.js";
import { fetchText, importMat } from "./assist_api.js";
import { autoRollPause, automaticAction } from "./autoplay.js";
import { pipCounts } from "./boardtext.js";
import { ClockDisplay, amount, controlName, formatClock } from "./clock.js";
import { diceFromSecrets, fromHex } from "./fairdice.js";
import { showText } from "./notes.js";
import {
  ROOM_CLOSED, RoomClient, SEATS_KEY, SEATS_TAKEN, connectionHeading, connectionWords, createRoom, forgetSeat, joinRoom,
  joinWords, normalCode, roomInfo, storedSeat, unmatchedSecrets, unmatchedWords,
} from "./room_client.js";
import { browserId } from "./saved.js";
import { drawControls, drawView } from "./table.js";

const $ = (id) => document.getElementById(id);
const COLORS = ["white", "black"];
/** localStorage: the codes of the rooms this browser made (its seat is the host's). */
export const HOSTED_KEY = "bg.onlineTables.hosted";
const MAX_HOSTED = 40;
const NAME_KEY = "backgammon.online.name";
const MAX_DICE_LOG = 60;
/** A room code in an address: this door's (8 letters and digits) or one the old door made
 * (seat_migration.js carries those here). */
const CODE_RE = /^[A-Za-z0-9_-]{8,64}$/;
/** The buttons online play shows and hides (local play's, and the room's own). */
const CONTROLS = ["roll-button", "double-button", "take-button", "drop-button", "undo-button",
  "done-button", "next-game-button", "resign-button", "online-accept-button", "online-decline-button",
  "online-claim-button", "beaver-button", "raccoon-button"];
/** The person's action (main.js's names) -> the table's action type. */
const ACTIONS = {
  double: "double", take: "take", drop: "drop", beaver: "beaver", raccoon: "raccoon",
  accept: "accept_resignation", decline: "decline_resignation", next: "next_game",
};

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

/** The caption of an online game's clock: "Blitz: 3 min + 4 s a turn (the server keeps the time)". */
export function onlineCaption(clock) {
  return `${controlName(clock)}: ${amount(clock.reserve)} + ${amount(clock.increment)} a turn (the server keeps the time)`;
}

function readHosted() {
  try {
    const codes = JSON.parse(window.localStorage.getItem(HOSTED_KEY) || "[]");
    return Array.isArray(codes) ? codes.filter((c) => typeof c === "string") : [];
  } catch (err) {
    return [];
  }
}

/** Note room `code` as made by this browser (its seat is the host's). */
export function keepHosted(code) {
  try {
    const codes = [code, ...readHosted().filter((c) => c !== code)].slice(0, MAX_HOSTED);
    window.localStorage.setItem(HOSTED_KEY, JSON.stringify(codes));
  } catch (err) {
    // storage disabled: the room is still played, only named the guest's in the lists
  }
}

/**
 * This browser's backgammon seats at the shared door (room_client.js keeps them, every game's,
 * in localStorage["gametable.seats"]), the one used last first: [{code, side, seen, host}]
 * (`seen`: when the seat was kept, ms; `host`: this browser made the room).
 */
export function tablesSeats() {
  let seats = {};
  try {
    seats = JSON.parse(window.localStorage.getItem(SEATS_KEY) || "{}") || {};
  } catch (err) {
    return [];
  }
  if (typeof seats !== "object" || Array.isArray(seats)) return [];
  const hosted = new Set(readHosted());
  return Object.entries(seats)
    .filter(([, seat]) => seat && seat.game === "backgammon" && typeof seat.token === "string")
    .map(([code, seat]) => ({ code, side: seat.side, seen: seat.at || 0, host: hosted.has(code) }))
    .sort((a, b) => b.seen - a.seen);
}

/** Forget this browser's seat in shared-door room `code` (gone, or the record started over). */
export function forgetTablesSeat(code) {
  forgetSeat(code);
  try {
    window.localStorage.setItem(HOSTED_KEY, JSON.stringify(readHosted().filter((c) => c !== code)));
  } catch (err) {
    // storage disabled
  }
}

/** The .mat text of room `code`'s match, read with this browser's seat token. Rejects with an
 * ApiError in words (no seat here, the server's refusal, no connection). */
export async function roomMat(code) {
  const seat = storedSeat(code);
  if (!seat) throw new ApiError("This browser no longer has a seat in that game.", 403, "no_seat");
  return fetchText(`/api/rooms/${encodeURIComponent(normalCode(code))}/export.mat`,
    { "X-Seat-Token": seat.token });
}

/**
 * Game `number` (from 1) of a .mat transcript: its header (the match length) and that game's
 * section (its score before it); the whole text when `number` is null. Throws an Error when
 * the transcript has no such game.
 */
export function matGame(text, number) {
  if (!number) return text;
  const lines = text.split("\n");
  const starts = [];
  lines.forEach((line, index) => {
    if (/^\s*Game \d+\s*$/.test(line)) starts.push(index);
  });
  if (number < 1 || number > starts.length) {
    throw new Error(`This match has ${starts.length} game${starts.length === 1 ? "" : "s"}: there is no game ${number}.`);
  }
  const header = lines.slice(0, starts[0]);
  const game = lines.slice(starts[number - 1], starts[number] ?? lines.length);
  const body = [...header, ...game].join("\n");
  return body.endsWith("\n") ? body : `${body}\n`;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A place as the server takes it: "13" -> 13; "bar" and "off" stay words. */
function placeValue(where) {
  return /^\d+$/.test(String(where)) ? Number(where) : where;
}

function other(side) {
  return side === "white" ? "black" : "white";
}

function storedName() {
  try {
    return window.localStorage.getItem(NAME_KEY) || "";
  } catch (err) {
    return "";
  }
}

function keepName(name) {
  try {
    if (name) window.localStorage.setItem(NAME_KEY, name);
    else window.localStorage.removeItem(NAME_KEY);
  } catch (err) {
    // storage disabled
  }
}

/** The dice a completed round gives (the opening's first die is White's). */
export function roundDice(round) {
  const first = round.roller || "white";
  const secrets = round.secrets || {};
  return diceFromSecrets(fromHex(secrets[first]), fromHex(secrets[other(first)]), round.number);
}

/**
 * What table.js draws: backgammon's view (`view.state`) with the room's viewer and names, and
 * the turn being built here (`turn`: the server's answer for the moves made so far) over it.
 */
/** Why a game was forfeited, in words for the viewer `me` (the room's `forfeit`: the side that
 * forfeited and the cause the server recorded), or null. */
export function forfeitWords(room) {
  const forfeit = room && room.forfeit;
  if (!forfeit) return null;
  const me = room.you;
  const mine = forfeit.side === me;
  const name = (side) => room.names[side] || (side === me ? "You" : "Your opponent");
  const them = name(other(me));
  if (forfeit.cause === "left") return mine ? "you left the game" : `${them} left the game`;
  if (forfeit.cause === "claimed") {
    return mine ? `you kept the game waiting too long: ${them} claimed it`
      : `you claimed the game: ${them} kept it waiting too long`;
  }
  if (forfeit.cause === "broken_reveal") {
    return mine ? "your secret did not match its commitment"
      : `${them}'s secret did not match its commitment`;
  }
  return null;
}

export function pageView(view, turn = null) {
  const room = view.room;
  const me = room.you;
  // the player's own name with "(you)", or "You" for a player who gave none
  const name = (side) => (side === me ? (room.names[side] ? `${room.names[side]} (you)` : "You")
    : room.names[side] || (side === "white" ? "White" : "Black"));
  const state = view.state;
  const shown = {
    ...state,
    // what the page's other modules read (announce.js, hints.js): an online game, no hints
    // while it is played (issue 15)
    id: `tables:${room.code}:${room.games_before}`,
    version: room.version,
    hints: Boolean(view.outcome),
    viewer: me,
    players: { white: { name: name("white"), computer: false }, black: { name: name("black"), computer: false } },
    clock: view.clock,
    can: { ...state.can, roll: state.can.roll && state.phase === "roll" && !room.round, rematch: state.can.rematch && !room.rematch.includes(me) },
  };
  const cause = forfeitWords(room);
  if (cause && state.result && state.result.reason === "forfeit") {
    // the room says who forfeited and why ("by forfeit: Bob left the game.")
    const text = state.result.text.replace(/ by forfeit\./, ` by forfeit: ${cause}.`);
    shown.result = { ...state.result, text };
    if (state.message === state.result.text) shown.message = text;
  }
  if (turn) {
    shown.board = turn.board;
    shown.legal = turn.legal;
    shown.played = turn.played;
    shown.dice_left = turn.dice_left;
    shown.can = { ...shown.can, undo: turn.played.length > 0, done: turn.complete && turn.played.length > 0 };
    shown.pips = pipCounts(turn.board); // the checkers moved so far count, as offline
    if (turn.played.length && state.dice) shown.message = turnWords(state, turn);
  }
  return shown;
}

/**
 * The status line while the player builds a turn on the page (the room hears the turn
 * whole, at Done): what the local game's server says after each checker (words.py),
 * "You play 6-5: move a checker with the 5." and "You played 6-5: press Done (or Undo).",
 * after the opening roll's words when it was one.
 */
export function turnWords(state, turn) {
  const [a, b] = state.dice;
  const rolled = `${Math.max(a, b)}-${Math.min(a, b)}`;
  const opening = (/^Opening roll: [^.]*\. /.exec(state.message || "") || [""])[0];
  if (turn.complete) return `${opening}You played ${rolled}: press Done (or Undo).`;
  const left = turn.dice_left || [];
  const rest = a === b ? `move a checker (${left.length} of the 4 dice left)`
    : `move a checker with the ${left[0]}`;
  return `${opening}You play ${rolled}: ${rest}.`;
}

export class OnlineTables {
  /**
   * @param {object} hooks
   * @param {import("./board.js").BoardView} hooks.board the page's board
   * @param {() => boolean} hooks.hasLocalGame true when the page shows a local game (going
   *   online then reloads the page, so nothing of the local game keeps running)
   * @param {() => void} hooks.openNewGame open the local New game dialog
   * @param {() => boolean} [hooks.isReviewing] true while the board shows a review
   * @param {(previous: object|null, view: object) => void} [hooks.onView] a new view is shown
   * @param {() => object} [hooks.settings] the page's settings (auto-roll, auto-confirm)
   * @param {(text: string) => void} [hooks.say] the live region
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.board = hooks.board;
    this.active = false;
    this.code = null;
    this.client = null;
    this.view = null;
    this.turns = []; // the turn being built: the server's answer after each gesture
    this.busy = false;
    this.clock = new ClockDisplay($("online-clocks"), { sides: COLORS, idPrefix: "online-clock-", caption: onlineCaption });
    this.claimAt = null; // performance.now() at which a claim opens (room.claim_in)
    this.thinkAt = null; // ... against this page's side, kept waiting on (room.think_claim_in)
    this.thinkNote = false; // the note shows the warning
    this.claimTimer = 0;
    this.counted = new Set(); // the games over asked to be counted in the browser's record
    this.leftSide = null; // the door said this side left the room (its `left` frame)
    this.autoKey = null; // the room's version the automatic roll or play was tried at
    this.logging = Promise.resolve(); // the fair-dice log's entries, written one after another
    this.logPending = 0; // ... and how many are still being checked
    this.wire();
  }

  // ------------------------------------------------------------ entering and leaving

  resumeFromLocation() {
    const found = roomFromLocation();
    if (!found) return false;
    this.enter(found.code, found.mode);
    return true;
  }

  enter(code, mode) {
    code = normalCode(code);
    if (this.hooks.hasLocalGame()) {
      history.replaceState(null, "", `${location.search}#${mode}=${code}`);
      location.reload();
      return;
    }
    if (this.active && this.code === code) return;
    this.stop();
    if (storedSeat(code)) {
      this.begin(code);
      return;
    }
    $("status").textContent = "Join the game you were invited to.";
    this.openDialog("join", code);
  }

  begin(code) {
    this.active = true;
    this.code = normalCode(code);
    this.view = null;
    this.turns = [];
    this.busy = false;
    this.shownView = null;
    this.shownPage = null;
    document.body.classList.add("online");
    document.body.dataset.online = "connecting";
    this.leftSide = null;
    $("online-panel").hidden = false;
    $("online-dice-list").replaceChildren();
    $("online-dice-check").hidden = true;
    this.showNote("");
    this.showError("");
    this.showInvite();
    history.replaceState(null, "", `${location.search}#online=${this.code}`);
    $("status").textContent = "Connecting…";
    this.client = new RoomClient(this.code, {
      onView: (view, frame) => this.received(view, frame),
      onError: (error) => this.refused(error),
      onConnection: (state, detail) => this.connection(state, detail),
      onLeft: (side) => {
        this.leftSide = side;
        this.draw();
      },
    });
    this.client.open();
    this.markIdle();
  }

  stop() {
    if (!this.active) return;
    this.active = false;
    if (this.client) this.client.close();
    this.client = null;
    this.clock.stop();
    clearTimeout(this.claimTimer);
    this.claimTimer = 0;
    this.board.setEnabled(false);
    $("online-panel").hidden = true;
    for (const id of CONTROLS) $(id).hidden = true;
    if ($("result").dataset.online === "1") $("result").hidden = true;
    document.body.classList.remove("online");
    delete document.body.dataset.online;
    delete document.body.dataset.onlineIdle;
  }

  async leave() {
    if (!this.active) return;
    const code = this.code;
    if (this.client) await this.client.leave();
    forgetSeat(code);
    this.stop();
    history.replaceState(null, "", location.pathname + location.search);
    $("status").textContent = "You left the online game.";
    this.hooks.openNewGame();
  }

  // ------------------------------------------------------------ what the room says

  /** The connection's state (room_client.js): "open" with {restarted} when the server
   * restarted since this page's last connection and kept the room. */
  connection(state, detail = {}) {
    document.body.dataset.online = state;
    const words = connectionWords(state, detail);
    $("online-connection").textContent = state === "replaced" ? `${words} Reload this page to play here again.` : words;
    // the clock box says what the room charges meanwhile, not the connection's state again
    // (clock.js offlineWords)
    this.clock.connection(state !== "reconnecting");
    if (state === "open") this.showError(""); // a refusal while connecting is over once open
    this.draw();
  }

  received(view, frame) {
    const before = this.view;
    this.view = view;
    this.busy = false;
    const state = view.state;
    const mine = state.phase === "move" && state.turn === view.room.you;
    if (!mine || !before || before.actions !== view.actions || frame.rematch) this.turns = [];
    if (frame.rematch) {
      this.leftSide = null;
      this.showNote(`Rematch: you play ${view.room.you} this time.`);
    } else if (frame.round && frame.round.roller !== null) this.showNote(""); // (an opening keeps it)
    if (frame.round) {
      const round = frame.round;
      this.logPending += 1;
      this.logging = this.logging.then(() => this.logRound(round, view)) // in the rounds' order
        .catch((err) => console.error(err)) // (one entry's fault stops none after it)
        .finally(() => { this.logPending -= 1; this.markIdle(); });
    }
    const room = view.room;
    const joined = room.joined.white && room.joined.black;
    if (joined && state.phase === "opening" && !room.round && room.chance_due.includes(room.you)) {
      this.client.roll(); // the opening roll throws itself
    }
    this.claimAt = typeof room.claim_in === "number" ? performance.now() + room.claim_in * 1000 : null;
    this.thinkAt = typeof room.think_claim_in === "number" ? performance.now() + room.think_claim_in * 1000 : null;
    if (before && !frame.rematch) this.sawForfeit(before, view);
    this.reportGames(before, view, frame);
    this.draw();
    this.automatic();
  }

  /** A game the opponent forfeited by a secret that did not match its commitment: the
   * alarm (the result box says it too, from the room's `forfeit`). */
  sawForfeit(before, view) {
    const forfeit = view.room.forfeit;
    if (!forfeit || before.room.forfeit || forfeit.cause !== "broken_reveal") return;
    const them = other(view.room.you);
    if (forfeit.side !== them) return;
    const name = view.room.names[them] || "Your opponent";
    const round = before.room.round;
    const which = round ? ` for round ${round.number}` : "";
    this.alarm(`${name}'s revealed secret${which} did not match the commitment it sent: ${name} forfeits.`);
  }

  /** The analytics hook (off unless the server turned it on) and the browser's record. */
  reportGames(before, view, frame) {
    const room = view.room;
    const state = view.state;
    const me = room.you;
    const joined = room.joined.white && room.joined.black;
    const game = state.score ? state.score.game_number : 1;
    const seq = `${room.games_before}.${game}`;
    const hosted = readHosted().includes(this.code);
    onlineState({ code: this.code, you: { seat: hosted ? "host" : "guest", color: me },
      phase: joined && !view.outcome ? "playing" : "waiting", opponent: joined ? {} : null },
    Boolean(this.client && this.client.state === "open"));
    const clock = view.clock;
    const shape = { code: this.code, you: { color: me },
      settings: { time_control: clock ? { name: clock.control } : null, cube: Boolean(state.cube && state.cube.enabled) },
      game: { cube: { value: state.cube ? state.cube.value : 1 } } };
    const result = state.result;
    if (result && before && !before.state.result && !frame.rematch) {
      const played = (state.history || []).some((e) => e.game === game && e.kind === "play");
      onlineGameOver(shape, { seq, outcome: { winner: result.winner, kind: result.reason, points: result.points },
        log: { events: played ? [{ type: "play" }] : [] } });
    } else if (!result && before && (before.state.result || frame.rematch)) {
      onlineGameBegan(shape, { seq });
    }
    const key = `${this.code}:${room.games_before}:${game}`;
    if (result && !this.counted.has(key)) {
      this.counted.add(key);
      this.countInRecord();
    }
  }

  /**
   * Count the room's finished games in this browser's record (the Stats view): the server
   * reads the results from the room it refereed, this seat's token proves the seat; a game is
   * counted once however often it is asked. Best effort: a failure changes nothing in play.
   */
  countInRecord() {
    const seat = storedSeat(this.code);
    if (!seat) return;
    request("POST", "/api/stats/rooms", { browser: browserId(), code: this.code, token: seat.token })
      .catch(() => {});
  }

  /** Auto-roll and auto-confirm (autoplay.js), once per view, when the settings ask. */
  async automatic() {
    const settings = this.hooks.settings ? this.hooks.settings() : null;
    const view = this.view;
    if (!settings || !view || !this.active || this.busy || this.turns.length) return;
    if (this.hooks.isReviewing && this.hooks.isReviewing()) return;
    const room = view.room;
    if (!(this.client && this.client.state === "open" && room.joined.white && room.joined.black)) return;
    const shown = pageView(view);
    if (shown.turn !== room.you || view.outcome) return;
    const next = automaticAction(shown, settings);
    const key = `${this.code}:${room.version}`;
    if (!next || this.autoKey === key) return;
    this.autoKey = key;
    if (next.action === "roll") {
      await sleep(autoRollPause(settings.speed));
      if (this.view === view && !this.busy) this.perform("roll");
      return;
    }
    this.busy = true;
    this.draw();
    const play = next.moves.map((m) => m.text).join(" ");
    const answer = await this.client.act({ type: "move", play });
    this.busy = false;
    if (!answer.ok) this.showError(errorWords(answer));
    this.draw();
  }

  refused(error) {
    this.busy = false;
    if (error.code === "unfair_round" || error.code === "lost_secret") this.alarm(errorWords(error));
    else this.showError(errorWords(error));
    this.draw();
  }

  /** A round's dice in the fair-dice log, checked: each secret matches its commitment and the
   * secrets give the dice the board shows. (A secret that does not match is alarmed by the room
   * client; the entry says so and is marked failed.) */
  async logRound(round, view) {
    const unmatched = await unmatchedSecrets(round);
    let dice = null;
    try {
      dice = roundDice(round);
    } catch (err) {
      this.alarm(`Round ${round.number}: the secrets cannot be read (${err.message}).`);
      return;
    }
    const state = view.state;
    const opening = round.roller === null;
    // the opening round's dice are White's then Black's, in that order (a tie is thrown
    // again); a roll's may be shown high die first
    const shown = opening ? (state.opening ? [state.opening.white, state.opening.black] : null)
      : state.dice || (state.last_turn && state.last_turn.dice) || null;
    const agree = !shown || (opening ? shown.join(",") === dice.join(",")
      : [...shown].sort().join(",") === [...dice].sort().join(","));
    const same = agree && unmatched.length === 0;
    const names = view.room.names;
    const roller = opening ? "Opening roll" : names[round.roller] || round.roller;
    const text = same ? `Round ${round.number}: ${roller} ${dice.join("-")}; both secrets check out and give these dice.`
      : unmatched.length ? unmatchedWords(round, unmatched[0])
        : `Round ${round.number}: the secrets give ${dice.join("-")} but the board shows ${shown.join("-")}.`;
    const check = $("online-dice-check");
    check.hidden = false;
    check.textContent = same ? `Dice checked: ${dice.join("-")} (round ${round.number})` : `Dice check failed (round ${round.number})`;
    check.dataset.check = same ? "ok" : "failed";
    const item = document.createElement("li");
    item.textContent = text;
    Object.assign(item.dataset, {
      round: String(round.number), check: same ? "ok" : "failed", dice: dice.join(","),
      opening: String(opening), roller: round.roller || "",
      white: round.secrets.white, black: round.secrets.black,
    });
    const list = $("online-dice-list");
    list.appendChild(item);
    while (list.children.length > MAX_DICE_LOG) list.firstElementChild.remove();
    if (!agree && unmatched.length === 0) this.alarm(text);
  }

  // ------------------------------------------------------------ the person's actions

  async perform(action, body = {}) {
    const view = this.view;
    if (!this.active || !view || !this.client || this.busy) return;
    const client = this.client;
    let answer;
    this.showError("");
    if (action === "move") {
      await this.move(body.from, body.to);
      return;
    }
    if (action === "undo") {
      this.turns.pop();
      this.draw();
      return;
    }
    this.busy = true;
    this.draw();
    if (action === "roll") answer = (await client.roll()) ? { ok: true } : { ok: false, message: "You cannot roll now." };
    else if (action === "done") {
      const turn = this.turns[this.turns.length - 1];
      answer = turn && turn.complete ? await client.act({ type: "move", play: turn.play })
        : { ok: false, message: "Move your checkers first." };
    } else if (action === "resign") answer = await client.act({ type: "resign", level: body.level || "single" });
    else if (action === "rematch") answer = await client.rematch();
    else if (action === "claim") answer = await client.claim();
    else if (ACTIONS[action]) answer = await client.act({ type: ACTIONS[action] });
    else answer = { ok: true };
    if (!answer.ok) {
      this.busy = false;
      this.showError(errorWords(answer));
    } else if (action === "roll") {
      return; // busy until the round's view comes
    }
    this.busy = false;
    this.draw();
  }

  /** One gesture on the board: the checker on `from` to `to` (one die or several), asked of
   * the server with the moves before it. */
  async move(from, to) {
    const state = this.view.state;
    const turn = this.turns[this.turns.length - 1];
    const legal = turn ? turn.legal : state.legal;
    const entry = legal.find((e) => String(e.from) === String(from));
    const destination = entry && entry.destinations.find((d) => String(d.to) === String(to));
    if (!destination) return;
    this.board.select(null);
    const actions = this.view.actions;
    const made = (turn ? turn.played : []).map((m) => ({ from: m.from, to: m.to, die: m.die }));
    const moves = [...made, ...destination.moves.map((m) => ({ from: m.from, to: m.to, die: m.die }))];
    this.busy = true;
    this.draw();
    try {
      const next = await request("POST", "/api/positions/turn", {
        board: state.board, turn: state.turn, dice: state.dice, moves,
      });
      if (this.view && this.view.actions === actions) this.turns.push(next);
    } catch (err) {
      this.showError(errorWords(err));
    } finally {
      this.busy = false;
      this.draw();
    }
  }

  // ------------------------------------------------------------ drawing

  draw() {
    const view = this.view;
    if (!this.active || !view) {
      this.markIdle();
      return;
    }
    const room = view.room;
    const me = room.you;
    const connected = Boolean(this.client && this.client.state === "open");
    const joined = room.joined.white && room.joined.black;
    const live = connected && joined;
    const shown = pageView(view, this.turns[this.turns.length - 1] || null);
    const gone = this.closedBy(view);
    if (gone) shown.can = { ...shown.can, rematch: false }; // nobody to play it with
    if (this.hooks.isReviewing && this.hooks.isReviewing()) {
      drawControls(shown, { busy: this.busy, live });
    } else {
      drawView(shown, { board: this.board, busy: this.busy, live, labels: me });
    }
    if (!joined) $("status").textContent = "Waiting for your friend to join: send them the invite link.";
    else if (room.round) $("status").textContent = "Throwing the dice…";
    else if (!connected) $("status").textContent = connectionHeading(this.client && this.client.state);
    const answer = live && shown.phase === "resign" && shown.to_act === me;
    const visible = {
      "online-accept-button": answer,
      "online-decline-button": answer,
      "online-claim-button": live && room.can_claim,
    };
    for (const [id, show] of Object.entries(visible)) {
      $(id).hidden = !show;
      $(id).disabled = this.busy;
    }
    $("online-claim-button").title = {
      step: "Your opponent has not answered the dice round for 2 minutes",
      thinking: "Your opponent has kept the game waiting on their turn a long time",
    }[room.claim_cause] || "Your opponent is gone: disconnected for 2 minutes while the game waits on them";
    $("result").dataset.online = shown.result ? "1" : "";
    if (gone) {
      this.showNote(`Room closed: ${room.names[gone] || "your opponent"} (${gone}) left the room.`);
    } else if (view.outcome && room.rematch.length) {
      this.showNote(room.rematch.includes(me) ? "You asked for a rematch; waiting for your opponent."
        : `${room.names[other(me)] || "Your opponent"} asks for a rematch.`);
    }
    this.drawPanel(view, joined, gone);
    this.drawClaim(view, live);
    this.drawClock(view);
    const body = document.body;
    body.dataset.onlinePhase = !joined ? "waiting" : gone ? "closed" : view.outcome ? "finished" : "playing";
    body.dataset.onlineSeq = String(room.version);
    body.dataset.onlineYou = me;
    const turn = this.turns[this.turns.length - 1] || null;
    if (this.shownView !== view || this.shownTurn !== turn) this.announce(this.shownPage || null, shown);
    this.shownView = view;
    this.shownTurn = turn;
    this.shownPage = shown;
    this.markIdle();
  }

  /**
   * Tell the page's other modules (assist.js: the live region, hints, the keyboard) what is
   * shown now: the players named as the live region says them ("You",
   * the opponent's name), each checker moved here (the turn built on the page), and the
   * opponent's plays, which come whole.
   */
  announce(previous, shown) {
    if (!this.hooks.onView) return;
    const me = this.view.room.you;
    const names = this.view.room.names;
    const spoken = (page) => page && {
      ...page,
      players: {
        [me]: { name: "You", computer: false },
        [other(me)]: { name: names[other(me)] || "Your opponent", computer: false },
      },
    };
    this.hooks.onView(spoken(previous), spoken(shown));
    if (!previous || previous.id !== shown.id || !this.hooks.say) return;
    const before = previous.history.length;
    for (const entry of shown.history.slice(before)) {
      if (entry.kind === "play" && entry.color === other(me) && !entry.text.endsWith("cannot move")) {
        this.hooks.say(entry.text);
      }
    }
  }

  /** While the game waits on an opponent who is gone (untimed), the opponent's line says
   * when a claim opens, counted down each second (room.claim_in), then that it is open. */
  drawClaim(view, live) {
    clearTimeout(this.claimTimer);
    this.claimTimer = 0;
    const room = view.room;
    const line = $("online-opponent");
    const them = other(room.you);
    const name = room.names[them] || "Your opponent";
    let text = "";
    if (live && room.can_claim) {
      // gone, or (untimed) withholding its step of a dice round as long, or keeping the game
      // waiting on its turn far longer (room.claim_cause)
      const why = {
        step: "has not answered the dice round for 2 minutes",
        thinking: "has kept the game waiting on their turn a long time",
      }[room.claim_cause] || "has been gone for 2 minutes while the game waits on them";
      text = `${name} (${them}) ${why}: you may claim the game (Claim the game), or wait.`;
    } else if (live && this.claimAt !== null) {
      const left = Math.max(0, (this.claimAt - performance.now()) / 1000);
      text = `${name} (${them}) is not connected: if they do not come back, you may claim the game in ${formatClock(left, 0)}.`;
      this.claimTimer = setTimeout(() => {
        if (this.active && this.view) this.drawClaim(this.view, this.live());
      }, 1000);
    }
    if (text) {
      line.textContent = text;
      line.dataset.claim = room.can_claim ? "open" : "soon";
    } else {
      delete line.dataset.claim;
    }
    // this page's own side keeps the game waiting on its turn: warned, counted down
    if (live && this.thinkAt !== null && !view.outcome) {
      const left = Math.max(0, (this.thinkAt - performance.now()) / 1000);
      this.showNote(`You have kept the game waiting on your turn a long time: play within ${formatClock(left, 0)}, or your opponent may claim the game.`);
      $("online-note").dataset.think = "1";
      this.thinkNote = true;
      if (!this.claimTimer) {
        this.claimTimer = setTimeout(() => {
          if (this.active && this.view) this.drawClaim(this.view, this.live());
        }, 1000);
      }
    } else if (this.thinkNote) {
      this.thinkNote = false;
      delete $("online-note").dataset.think;
      this.showNote("");
    }
  }

  live() {
    const room = this.view && this.view.room;
    return Boolean(this.active && room && this.client && this.client.state === "open" &&
      room.joined.white && room.joined.black);
  }

  /** The side that left this room (the opponent), or null: the door's `left` frame, the
   * room's `left` where it keeps one, or a game forfeited by leaving. */
  closedBy(view) {
    const room = view.room;
    const them = other(room.you);
    const forfeit = room.forfeit;
    const left = this.leftSide === them || (Array.isArray(room.left) && room.left.includes(them)) ||
      Boolean(forfeit && forfeit.cause === "left" && forfeit.side === them);
    return left ? them : null;
  }

  drawPanel(view, joined, gone = null) {
    const room = view.room;
    const me = room.you;
    const them = other(me);
    const line = $("online-opponent");
    if (!joined) {
      line.textContent = "Nobody has joined yet.";
      line.dataset.status = "waiting";
    } else if (gone) {
      line.textContent = `${room.names[them] || "Your opponent"} has left the game.`;
      line.dataset.status = "left";
    } else {
      const name = room.names[them];
      const here = room.connected[them];
      // a timed game's clock runs on for a player who is gone: leaving does not stop it
      const ticking = Boolean(view.clock) && !view.outcome ? " Their clock keeps running." : "";
      line.textContent = here ? `Playing ${name || "your opponent"} (${them}).`
        : `${name || "Your opponent"} (${them}) is not connected.${ticking}`;
      line.dataset.status = here ? "joined" : "disconnected";
    }
    $("online-you").textContent = `You play ${me}.`;
    $("online-invite").hidden = joined;
  }

  drawClock(view) {
    const names = pageView(view).players;
    this.clock.show(view.clock, { names: { white: names.white.name, black: names.black.name }, over: Boolean(view.outcome) });
  }

  /** data-online-idle="1" when nothing is on its way: no action, no round, no opening roll
   * about to throw itself, no dice-log entry being checked (what the browser tests wait for). */
  markIdle() {
    const view = this.view;
    const room = view && view.room;
    const opening = Boolean(room && view.state.phase === "opening" && room.joined.white &&
      room.joined.black && room.chance_due.includes(room.you));
    const idle = Boolean(this.active && this.client && this.client.state === "open" && view &&
      !this.busy && !room.round && !opening && this.logPending === 0);
    document.body.dataset.onlineIdle = idle ? "1" : "0";
  }

  showInvite() {
    const link = `${location.origin}/#join=${this.code}`;
    $("online-code").textContent = this.code;
    $("online-link").value = link;
    $("online-link-hint").hidden = !["localhost", "127.0.0.1", "[::1]"].includes(location.hostname);
    $("online-copy-status").textContent = "";
  }

  showNote(text) {
    showText("online-note", text);
  }

  showError(text) {
    showText("error", text);
  }

  alarm(text) {
    showText("online-alarm", text);
  }

  /** The review of the room's match, for review.js (its liveSource hook): the server reads
   * the room's transcript as it reads a .mat file; the players keep their names. */
  reviewSource() {
    const view = this.view;
    if (!this.active || !view) return null;
    const code = this.code;
    const names = view.room.names;
    return {
      key: `tables:${code}:${view.room.games_before}:${view.room.version}`,
      viewer: view.room.you,
      sameHistory: false, // this page lists the current game's lines; the review, the match's
      load: async () => {
        const data = await importMat(await roomMat(code), `backgammon-${code}.mat`);
        const white = names.white || "White";
        const black = names.black || "Black";
        // (the game in play is no transcript's unfinished game: the reader's note is dropped)
        const warnings = (data.warnings || []).filter((w) => !/has no result: imported as an unfinished game/.test(w));
        return { ...data, names: { white, black }, warnings,
          title: String(data.title || "").replace(/^White vs Black/, `${white} vs ${black}`) };
      },
    };
  }

  /** The .mat transcript of the room's match, for records.js (its exportSource hook). */
  exportSource() {
    const view = this.view;
    if (!this.active || !view) return null;
    const code = this.code;
    const score = view.state.score || { game_number: 1, length: 1 };
    return {
      games: score.game_number,
      match: score.length > 1,
      url: () => null,
      load: async (number) => ({
        text: matGame(await roomMat(code), number),
        filename: `backgammon-${code}${number ? `-game${number}` : ""}.mat`,
      }),
    };
  }

  /** Why a checker cannot go somewhere, for assist.js (its explainSource hook): the server
   * answers for the turn as built on this page (POST /api/positions/turn/explain). */
  explainSource() {
    const view = this.view;
    if (!this.active || !view) return null;
    const state = view.state;
    const me = view.room.you;
    const turn = this.turns[this.turns.length - 1] || null;
    const refused = (reason) => ({ legal: false, text: reason, reason, rule: null, source: null });
    return {
      key: `tables:${this.code}:${view.room.version}:${turn ? turn.played.length : 0}`,
      ask: async (from, to) => {
        if (view.outcome || state.result) return refused("the game is over");
        if (state.phase !== "move" || !state.dice) return refused("there are no dice to play: roll first");
        if (state.turn !== me) return refused(`it is ${state.turn}'s turn`);
        const body = {
          board: state.board, turn: state.turn, dice: state.dice,
          moves: (turn ? turn.played : []).map((m) => ({ from: m.from, to: m.to, die: m.die })),
          from: placeValue(from),
        };
        if (to !== null && to !== undefined) body.to = placeValue(to);
        return request("POST", "/api/positions/turn/explain", body);
      },
    };
  }

  // ------------------------------------------------------------ the Play online dialog

  openDialog(mode, code = "") {
    const form = $("online-form");
    form.elements["online-mode"].value = mode;
    $("online-code-input").value = code;
    $("online-name").value = storedName();
    this.dialogError("");
    $("online-room-info").textContent = "";
    this.syncDialog();
    if (!$("online-dialog").open) $("online-dialog").showModal();
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
    showText("online-dialog-error", text);
  }

  async describeRoom(code) {
    const info = $("online-room-info");
    try {
      const room = await roomInfo(code);
      const s = room.settings;
      const host = Object.values(room.names || {}).find(Boolean) || "Your friend";
      const rules = [s.jacoby ? "the Jacoby rule" : "", s.beavers ? "beavers" : ""].filter(Boolean);
      const what = s.single ? "a single game"
        : s.length === 0 ? `money play${rules.length ? ` (${rules.join(", ")})` : ""}`
          : s.length === 1 ? "a 1-point match" : `a match to ${s.length}`;
      const clock = room.time_control && room.time_control !== "none" ? `${room.time_control} clock` : "no clock";
      // (a 1-point match has no cube: the rules' own case)
      const cube = s.cube && s.length !== 1;
      const stall = clock === "no clock"
        ? "A player who is gone (disconnected for 2 minutes, or thinking for 10 in one turn) can be claimed against: the other wins."
        : "Every wait is on the clock of the side that must act.";
      // a game nobody may join any more invites nobody: only why is said
      const joinable = room.open && !room.closed;
      info.textContent = joinable
        ? `${host} invites you to ${what}, ${cube ? "with" : "without"} the cube, ${clock}. ${stall}` : "";
      this.dialogError(room.closed ? ROOM_CLOSED : joinable ? "" : SEATS_TAKEN);
      return room;
    } catch (err) {
      info.textContent = "";
      this.dialogError(err instanceof ApiError && err.status === 404
        ? "There is no such game: check the code (a game left empty expires)." : errorWords(err));
      return null;
    }
  }

  async submitDialog() {
    const mode = $("online-form").elements["online-mode"].value;
    const name = $("online-name").value.trim();
    keepName(name);
    this.dialogError("");
    $("online-submit").disabled = true;
    try {
      if (mode === "create") await this.create(name);
      else await this.join($("online-code-input").value, name);
    } finally {
      $("online-submit").disabled = false;
    }
  }

  async create(name) {
    const kind = $("online-kind").value;
    const cube = $("online-cube").checked;
    const money = kind === "money";
    // A single game is one game of money play with the cube, as the local door plays it
    // (the table's `single` setting); a match to 1 has no cube.
    const settings = {
      length: kind === "match" ? Math.max(1, Math.min(25, Number($("online-length").value) || 3)) : 0,
      single: kind !== "match" && !money,
      cube,
      jacoby: money && cube && $("online-jacoby").checked,
      beavers: money && cube && $("online-beavers").checked,
    };
    let made;
    try {
      made = await createRoom({ game: "backgammon", settings, timeControl: $("online-clock").value, side: "white", name });
    } catch (err) {
      this.dialogError(errorWords(err));
      return;
    }
    keepHosted(normalCode(made.code));
    $("online-dialog").close();
    this.enter(made.code, "online");
  }

  async join(text, name) {
    const found = codeFromText(text);
    const code = found && normalCode(found);
    if (!code) {
      this.dialogError("Paste the invite code or the whole link your friend sent.");
      return;
    }
    if (!storedSeat(code)) {
      const room = await this.describeRoom(code);
      if (!room || !room.open) return;
      try {
        await joinRoom(code, name);
      } catch (err) {
        this.dialogError(err instanceof ApiError ? joinWords(err) : errorWords(err));
        return;
      }
    }
    $("online-dialog").close();
    this.enter(code, "online");
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

  /** The Play online dialog, the panel's buttons, and an address that names another room. */
  wire() {
    $("online-button").addEventListener("click", () => this.openDialog("create"));
    $("new-game-online").addEventListener("click", () => {
      $("new-game-dialog").close();
      this.openDialog("create");
    });
    const form = $("online-form");
    form.addEventListener("change", () => this.syncDialog());
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submitDialog();
    });
    $("online-cancel").addEventListener("click", () => $("online-dialog").close());
    $("online-code-input").addEventListener("change", (event) => {
      // The old words stay until the new answer comes: hiding them at once would move the
      // Join button away from a click already on its way.
      const code = codeFromText(event.target.value);
      if (code) this.describeRoom(code);
    });
    $("online-copy").addEventListener("click", () => this.copyLink());
    $("online-leave").addEventListener("click", () => this.leave());
    $("online-accept-button").addEventListener("click", () => this.perform("accept"));
    $("online-decline-button").addEventListener("click", () => this.perform("decline"));
    $("online-claim-button").addEventListener("click", () => this.perform("claim"));
    window.addEventListener("hashchange", () => {
      const found = roomFromLocation();
      if (found && !(this.active && this.code === normalCode(found.code))) this.enter(found.code, found.mode);
    });
  }
}
