// Backgammon online at the shared table's door (gametable/online.py), behind a setting: the
// page uses it instead of online.js when the address says `?door=tables` or
// localStorage["bg.onlineDoor"] is "tables" (`onlineDoor`). The default stays online.js and
// backgammon's own door until the migration is done (docs/architecture.md, "Backgammon's
// online play moves to the shared door").
//
// room_client.js makes or joins the room, keeps the seat, reconnects, and answers the dice's
// commit-reveal rounds by itself; table.js draws the view (its `state` is backgammon's view,
// services/table.py `describe`; its `room` the room's part). The door takes whole plays: the
// checkers a person moves are kept here, each step asked of the server
// (POST /api/positions/turn: the board after it, where each checker can go next, the play so
// far in notation), and Done sends the play as one action {type: "move", play}.
//
// main.js hands this class the person's actions exactly as it hands them to online.js
// (`perform`), so the board, the buttons and the dialogs are the same.

import { ApiError, request } from "./api.js";
import { diceFromSecrets, fromHex } from "./fairdice.js";
import { OnlineClock, codeFromText, roomFromLocation, wireOnlineControls } from "./online.js";
import { RoomClient, createRoom, forgetSeat, joinRoom, normalCode, roomInfo, storedSeat } from "./room_client.js";
import { drawControls, drawView } from "./table.js";

const $ = (id) => document.getElementById(id);
/** The setting: "tables" plays online at the shared table's door. */
export const DOOR_KEY = "bg.onlineDoor";
const NAME_KEY = "backgammon.online.name";
const MAX_DICE_LOG = 60;
/** The buttons online play shows and hides (local play's, and the room's own). */
const CONTROLS = ["roll-button", "double-button", "take-button", "drop-button", "undo-button",
  "done-button", "next-game-button", "resign-button", "online-accept-button", "online-decline-button",
  "online-claim-button", "beaver-button", "raccoon-button"];
/** The person's action (main.js's names) -> the table's action type. */
const ACTIONS = {
  double: "double", take: "take", drop: "drop", beaver: "beaver", raccoon: "raccoon",
  accept: "accept_resignation", decline: "decline_resignation", next: "next_game",
};

/** Which door online play uses: "tables" (the shared table's) or "rooms" (backgammon's own,
 * the default). `?door=tables` (or `?door=rooms`) in the address decides; else the setting. */
export function onlineDoor(loc = window.location) {
  const asked = new URLSearchParams(loc.search).get("door");
  if (asked) return asked === "tables" ? "tables" : "rooms";
  try {
    return window.localStorage.getItem(DOOR_KEY) === "tables" ? "tables" : "rooms";
  } catch (err) {
    return "rooms";
  }
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
export function pageView(view, turn = null) {
  const room = view.room;
  const me = room.you;
  const name = (side) => (side === me ? `${room.names[side] || "You"} (you)` : room.names[side] || (side === "white" ? "White" : "Black"));
  const state = view.state;
  const shown = {
    ...state,
    // what the page's other modules read (announce.js, hints.js): an online game, no hints
    // while it is played (as at backgammon's own door)
    id: `tables:${room.code}:${room.games_before}`,
    version: room.version,
    hints: Boolean(view.outcome),
    viewer: me,
    players: { white: { name: name("white"), computer: false }, black: { name: name("black"), computer: false } },
    clock: view.clock,
    can: { ...state.can, roll: state.can.roll && state.phase === "roll" && !room.round, rematch: state.can.rematch && !room.rematch.includes(me) },
  };
  if (turn) {
    shown.board = turn.board;
    shown.legal = turn.legal;
    shown.played = turn.played;
    shown.dice_left = turn.dice_left;
    shown.can = { ...shown.can, undo: turn.played.length > 0, done: turn.complete && turn.played.length > 0 };
  }
  return shown;
}

export class OnlineTables {
  /** The same hooks as online.js's OnlineGame (board, hasLocalGame, openNewGame, ...). */
  constructor(hooks) {
    this.hooks = hooks;
    this.board = hooks.board;
    this.active = false;
    this.code = null;
    this.client = null;
    this.view = null;
    this.turns = []; // the turn being built: the server's answer after each gesture
    this.busy = false;
    this.clock = new OnlineClock($("online-clocks"));
    this.shownClock = null; // [view.clock, the reading OnlineClock was given for it]
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
    document.body.classList.add("online");
    document.body.dataset.online = "connecting";
    document.body.dataset.onlineDoor = "tables";
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
      onConnection: (state) => this.connection(state),
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
    this.board.setEnabled(false);
    $("online-panel").hidden = true;
    for (const id of CONTROLS) $(id).hidden = true;
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

  connection(state) {
    document.body.dataset.online = state;
    $("online-connection").textContent = {
      connecting: "Connecting…", open: "Connected.", reconnecting: "Connection lost: reconnecting…",
      replaced: "This game was opened in another window or tab; this one stepped aside.",
      gone: "This online game no longer exists here.", closed: "Not connected.",
    }[state] || "";
    this.draw();
  }

  received(view, frame) {
    const before = this.view;
    this.view = view;
    this.busy = false;
    const state = view.state;
    const mine = state.phase === "move" && state.turn === view.room.you;
    if (!mine || !before || before.actions !== view.actions || frame.rematch) this.turns = [];
    if (frame.rematch) this.showNote(`Rematch: you play ${view.room.you} this time.`);
    else if (frame.round && frame.round.roller !== null) this.showNote(""); // (an opening keeps it)
    if (frame.round) this.logRound(frame.round, view);
    const room = view.room;
    const joined = room.joined.white && room.joined.black;
    if (joined && state.phase === "opening" && !room.round && room.chance_due.includes(room.you)) {
      this.client.roll(); // the opening roll throws itself, as at backgammon's own door
    }
    this.draw();
  }

  refused(error) {
    this.busy = false;
    if (error.code === "unfair_round" || error.code === "lost_secret") this.alarm(error.message);
    else this.showError(error.message);
    this.draw();
  }

  /** A round's dice in the fair-dice log, checked: its secrets give the dice the board shows. */
  logRound(round, view) {
    let dice = null;
    try {
      dice = roundDice(round);
    } catch (err) {
      this.alarm(`Round ${round.number}: the secrets cannot be read (${err.message}).`);
      return;
    }
    const state = view.state;
    const opening = round.roller === null;
    const shown = state.dice || (state.last_turn && state.last_turn.dice) ||
      (state.opening ? [state.opening.white, state.opening.black] : null);
    const same = opening || !shown ||
      [...shown].sort().join(",") === [...dice].sort().join(",");
    const names = view.room.names;
    const roller = opening ? "Opening roll" : names[round.roller] || round.roller;
    const text = same ? `Round ${round.number}: ${roller} ${dice.join("-")}; both secrets check out and give these dice.`
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
    if (!same) this.alarm(text);
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
      this.showError(answer.message);
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
      this.showError(err.message);
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
    if (this.hooks.isReviewing && this.hooks.isReviewing()) {
      drawControls(shown, { busy: this.busy, live });
    } else {
      drawView(shown, { board: this.board, busy: this.busy, live, labels: me });
    }
    if (!joined) $("status").textContent = "Waiting for your friend to join: send them the invite link.";
    else if (room.round) $("status").textContent = "Throwing the dice…";
    else if (!connected) $("status").textContent = "Connecting…";
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
    $("result").dataset.online = shown.result ? "1" : "";
    if (view.outcome && room.rematch.length) {
      this.showNote(room.rematch.includes(me) ? "You asked for a rematch; waiting for your opponent."
        : `${room.names[other(me)] || "Your opponent"} asks for a rematch.`);
    }
    this.drawPanel(view, joined);
    this.drawClock(view);
    const body = document.body;
    body.dataset.onlinePhase = !joined ? "waiting" : view.outcome ? "finished" : "playing";
    body.dataset.onlineSeq = String(room.version);
    body.dataset.onlineYou = me;
    if (this.hooks.onView && this.shownView !== view) this.hooks.onView(this.shownPage || null, shown);
    this.shownView = view;
    this.shownPage = shown;
    this.markIdle();
  }

  drawPanel(view, joined) {
    const room = view.room;
    const me = room.you;
    const them = other(me);
    const line = $("online-opponent");
    if (!joined) {
      line.textContent = "Nobody has joined yet.";
      line.dataset.status = "waiting";
    } else {
      const name = room.names[them] || "Your opponent";
      const here = room.connected[them];
      line.textContent = here ? `Playing ${name} (${them}).` : `${name} (${them}) is not connected.`;
      line.dataset.status = here ? "joined" : "disconnected";
    }
    $("online-you").textContent = `You play ${me}.`;
    $("online-invite").hidden = joined;
  }

  drawClock(view) {
    const clock = view.clock;
    if (!clock) {
      this.clock.stop();
      return;
    }
    // the same reading is handed over once (drawing again must not restart its count)
    if (!this.shownClock || this.shownClock[0] !== clock) {
      this.shownClock = [clock, { ...clock.remaining, running: clock.running }];
    }
    const names = pageView(view).players;
    this.clock.show(this.shownClock[1], { name: clock.control, reserve: clock.reserve, increment: clock.increment },
      { white: names.white.name, black: names.black.name });
  }

  /** data-online-idle="1" when nothing is on its way: no action, no round, no opening roll
   * about to throw itself (what the browser tests wait for). */
  markIdle() {
    const view = this.view;
    const room = view && view.room;
    const opening = Boolean(room && view.state.phase === "opening" && room.joined.white &&
      room.joined.black && room.chance_due.includes(room.you));
    const idle = Boolean(this.active && this.client && this.client.state === "open" && view &&
      !this.busy && !room.round && !opening);
    document.body.dataset.onlineIdle = idle ? "1" : "0";
  }

  showInvite() {
    const link = `${location.origin}/?door=tables#join=${this.code}`;
    $("online-code").textContent = this.code;
    $("online-link").value = link;
    $("online-link-hint").hidden = !["localhost", "127.0.0.1", "[::1]"].includes(location.hostname);
    $("online-copy-status").textContent = "";
  }

  showNote(text) {
    $("online-note").textContent = text || "";
    $("online-note").hidden = !text;
  }

  showError(text) {
    $("error").textContent = text || "";
    $("error").hidden = !text;
  }

  alarm(text) {
    $("online-alarm").textContent = text;
    $("online-alarm").hidden = false;
  }

  // Not yet at this door (docs/architecture.md): the review, the .mat export, "why not".
  reviewSource() {
    return null;
  }

  exportSource() {
    return null;
  }

  explainSource() {
    return null;
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
    $("online-dialog-error").textContent = text || "";
    $("online-dialog-error").hidden = !text;
  }

  async describeRoom(code) {
    const info = $("online-room-info");
    try {
      const room = await roomInfo(code);
      const s = room.settings;
      const host = Object.values(room.names || {}).find(Boolean) || "Your friend";
      const rules = [s.jacoby ? "the Jacoby rule" : "", s.beavers ? "beavers" : ""].filter(Boolean);
      const what = s.length === 0 ? `money play${rules.length ? ` (${rules.join(", ")})` : ""}`
        : s.length === 1 ? "a single game" : `a match to ${s.length}`;
      const clock = room.time_control && room.time_control !== "none" ? `${room.time_control} clock` : "no clock";
      info.textContent = `${host} invites you to ${what}, ${s.cube ? "with" : "without"} the cube, ${clock}.`;
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
    const settings = {
      length: kind === "match" ? Math.max(1, Math.min(25, Number($("online-length").value) || 3)) : money ? 0 : 1,
      cube,
      jacoby: money && cube && $("online-jacoby").checked,
      beavers: money && cube && $("online-beavers").checked,
    };
    let made;
    try {
      made = await createRoom({ game: "backgammon", settings, timeControl: $("online-clock").value, side: "white", name });
    } catch (err) {
      this.dialogError(err.message);
      return;
    }
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
        this.dialogError(err.message);
        return;
      }
    }
    $("online-dialog").close();
    this.enter(code, "online");
  }

  wire() {
    wireOnlineControls(this, () => {
      $("online-link").select();
      $("online-copy-status").textContent = "The link is selected: copy it with Ctrl+C.";
    }, normalCode);
  }
}
