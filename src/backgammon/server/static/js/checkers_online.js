// Online checkers on the checkers page: two screens at one room of the shared table
// (gametable/online.py), through the game-agnostic room client (room_client.js).
//
// The host picks "Online: invite a friend" in the New game dialog (a side or a random one, a
// clock, a start); the page shows the room's code and its link, /checkers#join=CODE; opening
// the link joins. Both boards play through the room: the board module is the local game's,
// the moves it offers are the view's `state.legal` (the server sends them to the side to move
// only), and each action is the table's own JSON. The page decides no rule.
//
// What this module adds to the page (checkers_main.js draws the view; it calls `decorate`
// after each drawing): the invite, the players' names and presence, the connection's state,
// the status and the result in the players' words, the rematch (sides swap), and the claim
// of a game whose opponent is gone (`view.room.can_claim`). The seat's token is the room
// client's (localStorage, per room code); the room this page plays in is kept under
// CURRENT_KEY, so a reload or a reopened tab returns to it.
//
// Each game of the room that ends is counted in this browser's record against "a person
// online" (checkers_record.js countRoom: POST /api/stats/rooms with the seat's token; the
// server reads the result from the room), once per game of the room (`games_before`): best
// effort, asked again at the next view when the server could not be reached.
//
// An opponent who left the room (`room.left`, kept in the room's view) closes it to this page
// ("Room closed: Ann (Black) left the room.", no rematch). A link to a room its host left
// before anyone joined says so (`closed` in GET /api/rooms/{code}).
//
// Test hooks: <body data-online="connecting|open|reconnecting|replaced|gone|closed"> and
// data-room (the code), both absent in a local game; data-recorded, the last game counted in
// the record ("CODE:games_before").

import { errorWords } from "./api.js";
import { fetchText } from "./assist_api.js";
import {
  ApiError, ROOM_CLOSED, RoomClient, SEATS_TAKEN, connectionWords, createRoom, forgetSeat, joinRoom, joinWords,
  normalCode, roomInfo, storedSeat,
} from "./room_client.js";
import { claimWhy, drawnWords } from "./checkers_draws.js";
import { countRoom } from "./checkers_record.js";
import { showText } from "./notes.js";

const CURRENT_KEY = "checkers.online";
const NAME_KEY = "checkers.online.name";
const NAME = { black: "Black", white: "White" };

const $ = (id) => document.getElementById(id);

function other(side) {
  return side === "black" ? "white" : "black";
}

function local(key, value) {
  try {
    if (value === undefined) return window.localStorage.getItem(key);
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch (err) {
    // storage disabled: the room lasts for this visit
  }
  return null;
}

/** The invite link of room `code` on this site. */
export function inviteLink(code) {
  return `${window.location.origin}/checkers#join=${normalCode(code)}`;
}

/** The room code an address's fragment names (#join=CODE or #room=CODE), or null. */
export function codeInHash(hash = window.location.hash) {
  const match = /^#(?:join|room)=([A-Za-z0-9]{4,16})$/.exec(hash || "");
  return match ? normalCode(match[1]) : null;
}

/**
 * The online half of the checkers page. `page` gives what the page draws with:
 * {board, show(view, {animate}), showError(text), setBusy(busy), reset() (forget the local
 * game shown), idle() (no game: the start position and the New game dialog), connection(
 * reachable) (false while the connection is lost and reconnecting: the clock box says what
 * becomes of the clock, the online box that the connection is lost)}.
 */
export function createOnline(page) {
  let client = null;
  let view = null;
  let sending = false;
  let latest = null; // a view that came while an action was in flight
  let notice = "";
  let restarted = false; // the last connection found a server that had restarted
  let heard = null; // what the live region has said: {key, moves, over}
  const recorded = new Set(); // the games of rooms counted (or being counted): "CODE:n"

  const online = {
    get active() {
      return client !== null;
    },

    /** This page's side in the room (null before the first view). */
    get side() {
      if (view && view.room) return view.room.you;
      const seat = client && storedSeat(client.code);
      return seat ? seat.side : null;
    },

    /** The players for the clocks and the pieces: "You" and the opponent's name. */
    names() {
      const me = online.side || "white";
      const name = view && view.room ? view.room.names[other(me)] : "";
      return { [me]: "You", [other(me)]: name || "Opponent" };
    },

    /** The room's game as PDN, read with this browser's seat token (GET
     * /api/rooms/{code}/export.pdn); rejects with an ApiError in words. */
    pdn() {
      const seat = client && storedSeat(client.code);
      if (!seat) return Promise.reject(new ApiError("This browser no longer has a seat in that game.", 403, "no_seat"));
      return fetchText(`/api/rooms/${encodeURIComponent(normalCode(client.code))}/export.pdn`,
        { "X-Seat-Token": seat.token });
    },

    start, boot, stop, decorate, send, rematch,
  };

  function opponentName(capital = false) {
    const me = online.side;
    const name = me && view && view.room ? view.room.names[other(me)] : "";
    return name || (capital ? "Your opponent" : "your opponent");
  }

  function setConnection(state) {
    if (state) {
      document.body.dataset.online = state;
      document.body.dataset.room = client ? client.code : "";
    } else {
      delete document.body.dataset.online;
      delete document.body.dataset.room;
      delete document.body.dataset.side;
    }
  }

  // ---------------------------------------------------------------- the room

  /** Open the room `code` this browser has a seat in; `first` a view already in hand. */
  function resume(code, first = null) {
    if (client) client.close();
    notice = "";
    page.reset();
    view = null;
    client = new RoomClient(code, {
      onView: (next, frame) => received(next, frame),
      onError: (error) => refused(error),
      onConnection: (state, detail) => connection(state, detail),
    });
    local(CURRENT_KEY, client.code);
    if (codeInHash() !== client.code || !window.location.hash.startsWith("#room=")) {
      history.replaceState(null, "", `${window.location.pathname}${window.location.search}#room=${client.code}`);
    }
    $("online-box").hidden = false;
    setConnection("connecting");
    if (first) received(first, { type: "view", view: first });
    else drawBox();
    client.open();
  }

  /** The view as the page may act on it: nothing to do before the opponent has joined (the
   * room refuses every action until then). */
  function gated(next) {
    const room = next.room;
    if (!room || room.joined[other(room.you)]) return next;
    const can = Object.fromEntries(Object.keys(next.state.can).map((key) => [key, false]));
    return { ...next, state: { ...next.state, legal: [], can } };
  }

  function received(next, frame) {
    const before = view;
    view = next;
    if (frame && frame.rematch) notice = "The rematch has begun: you have swapped sides.";
    else if (offerAnswer(before, next)) {
      notice = offerAnswer(before, next) === "declined"
        ? `${opponentName(true)} declined your draw offer.`
        : `${opponentName(true)} played on: your draw offer lapsed.`;
      $("announce").textContent = notice;
    } else if (before && next.state.moves.length !== before.state.moves.length) {
      notice = ""; // a move was played since: the last notice is past
    }
    page.board.setViewer(next.room.you);
    if (sending) {
      latest = next;
      return;
    }
    page.show(gated(next), { animate: true });
  }

  function refused(error) {
    if (error.code === "replaced") {
      page.showError("This game was opened in another window or tab.");
    } else if (client && client.state === "gone") {
      const code = client.code;
      stop();
      page.showError(`The online game ${code} is no longer on the server. Start a new game.`);
      page.idle();
      return;
    } else {
      page.showError(errorWords(error));
    }
    drawBox();
  }

  /** `detail.restarted`: the server restarted since the last connection, and kept the room
   * (said until the connection changes again). */
  function connection(state, detail = {}) {
    restarted = state === "open" && Boolean(detail.restarted);
    setConnection(state);
    // the clock box says what the room charges meanwhile (clock.js offlineWords)
    if (page.connection) page.connection(state !== "reconnecting");
    drawBox();
    if (state === "open") page.showError("");
  }

  /** Leave online play on this page (a local game begins); the seat stays stored, so the
   * invite link returns to it. */
  function stop() {
    if (client) client.close();
    client = null;
    view = null;
    latest = null;
    sending = false;
    local(CURRENT_KEY, null);
    setConnection(null);
    $("online-box").hidden = true;
    if (codeInHash()) history.replaceState(null, "", `${window.location.pathname}${window.location.search}`);
  }

  /** Make a room from the New game dialog's `choice` {time_control, start, ballot} and its
   * online rows (the side, the name); resolves to an error's words, or null. */
  async function start(choice) {
    const name = ($("online-name").value || "").trim();
    local(NAME_KEY, name || null);
    const settings = {};
    if (choice.start) settings.start = choice.start;
    if (choice.ballot) settings.ballot = choice.ballot;
    page.setBusy(true);
    try {
      const made = await createRoom({
        game: "checkers", settings, timeControl: choice.time_control, side: $("online-side-select").value, name,
      });
      page.setBusy(false);
      page.showError("");
      resume(made.code, made.view);
      return null;
    } catch (err) {
      page.setBusy(false);
      return errorWords(err);
    }
  }

  /** Join room `code` (or return to this browser's seat there); an error's words, or null. */
  async function join(code) {
    code = normalCode(code);
    if (storedSeat(code)) {
      resume(code);
      return null;
    }
    try {
      const info = await roomInfo(code);
      if (info.game !== "checkers") {
        return `The game ${code} is a ${info.game} game: open its link on the ${info.game} page.`;
      }
      // a closed room, or one whose seats are taken: the words of the join refused so
      // (room_client.js joinWords), as the backgammon page says them
      if (info.closed) return ROOM_CLOSED;
      if (!info.open) return SEATS_TAKEN;
      // the name typed in the dialog (kept for the next time), else the one kept before
      const typed = ($("online-name").value || "").trim();
      if (typed) local(NAME_KEY, typed);
      const joined = await joinRoom(code, typed || local(NAME_KEY) || "");
      resume(joined.code, joined.view);
      return null;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return `No online game has the code ${code}.`;
      if (err instanceof ApiError) return joinWords(err);
      return errorWords(err);
    }
  }

  /** At load: the link's room, or the room this browser played in. True when the page is
   * online. */
  async function boot() {
    const code = codeInHash();
    if (code) {
      const error = await join(code);
      if (!error) return true;
      history.replaceState(null, "", `${window.location.pathname}${window.location.search}`);
      page.showError(error);
      return false;
    }
    const current = local(CURRENT_KEY);
    if (current && storedSeat(current)) {
      resume(current);
      return true;
    }
    local(CURRENT_KEY, null);
    return false;
  }

  // ---------------------------------------------------------------- acting

  /**
   * The opponent's "no" to the draw this seat offered in `before`, as `next` shows it (the
   * offer gone, the same game going on): "declined" (no move played), "lapsed" (the opponent
   * played on), or null (no offer gone, or this seat's own move let it lapse).
   */
  function offerAnswer(before, next) {
    const offer = before && before.offer;
    const me = next.room.you;
    if (!(offer && offer.kind === "draw" && offer.by === me && !next.offer && !next.outcome
      && before.room.games_before === next.room.games_before)) return null;
    if (before.state.moves.length === next.state.moves.length) return "declined";
    return before.state.turn !== me ? "lapsed" : null;
  }

  /** Send one game action; the answer's view is drawn. True when the room took it. */
  async function send(action, { before = null } = {}) {
    if (!client || sending) return false;
    sending = true;
    latest = null;
    notice = "";
    page.setBusy(true);
    page.showError("");
    if (before) before();
    const answer = await client.act(action);
    sending = false;
    page.setBusy(false);
    const next = latest || (answer.ok ? answer.view : view);
    latest = null;
    if (next) page.show(gated(next), { animate: false });
    if (!answer.ok) page.showError(errorWords(answer));
    return answer.ok;
  }

  async function message(kind) {
    if (!client) return;
    const answer = await client.send({ type: kind });
    if (!answer.ok) page.showError(errorWords(answer));
  }

  function rematch() {
    return message("rematch");
  }

  // ---------------------------------------------------------------- drawing

  function resultWords(next) {
    const { winner, reason } = next.outcome;
    const me = next.room.you;
    if (!winner) {
      const by = next.state.claimed_by;
      return ["Draw", drawnWords(reason, !by ? null : by === me ? "You" : opponentName(true))];
    }
    const loser = other(winner);
    const mine = loser === me;
    const who = mine ? "You" : opponentName(true);
    const title = winner === me ? "You win" : `${opponentName(true)} wins`;
    let text;
    if (reason === "resignation") text = `${who} resigned.`;
    else if (reason === "time") text = `${who} ran out of time.`;
    else if (reason === "no legal move") {
      const left = next.state.pieces[loser];
      const has = mine ? "You have" : `${who} has`;
      text = left.men + left.kings === 0 ? `${has} no pieces left.` : `${has} no legal move left.`;
    } else if (reason === "forfeit") {
      text = mine
        ? "You forfeited the game: you left it, or were away too long."
        : `${who} forfeited the game: they left it, or were away too long.`;
    } else text = `The game ended: ${reason}.`;
    return [title, text];
  }

  function statusWords(next) {
    const room = next.room;
    const me = room.you;
    const state = next.state;
    if (!room.joined[other(me)]) return "Waiting for your opponent to join: send them the invite link.";
    if (next.outcome) return `${resultWords(next)[0]}.`;
    if (next.offer && next.offer.kind === "draw") {
      if (next.offer.by === me) return `You offered a draw: waiting for ${opponentName()}'s answer.`;
      return `${opponentName(true)} offers a draw: accept or decline it.`;
    }
    if (state.turn === me) return `Your move (${NAME[me]}).`;
    return `${opponentName(true)} (${NAME[state.turn]}) to move.`;
  }

  /** After the page drew `next`: the online words, the invite, presence and the rematch. */
  function decorate(next) {
    if (!client || !next || !next.room) return;
    view = next;
    document.body.dataset.side = next.room.you;
    announce(next);
    if (next.outcome) record(next);
    $("status").textContent = notice ? `${notice} ${statusWords(next)}` : statusWords(next);
    $("review-bar").hidden = true; // review needs the table's own door
    if (next.offer && next.offer.kind === "draw" && next.offer.by !== next.room.you) {
      $("offer-text").textContent = `${opponentName(true)} offers a draw. Do you accept?`;
    }
    if (next.outcome) {
      const [title, text] = resultWords(next);
      $("result-title").textContent = title;
      const asked = next.room.rematch;
      const me = next.room.you;
      const button = $("rematch-button");
      let line = text;
      if ((next.room.left || []).includes(other(me))) {
        // the opponent left the room: nobody to play a rematch with
        button.textContent = "Rematch";
        button.disabled = true;
        line += ` Room closed: ${opponentName(true)} (${NAME[other(me)]}) left the room.`;
      } else if (asked.includes(me)) {
        button.textContent = "Rematch asked…";
        button.disabled = true;
        line += ` You asked for a rematch: waiting for ${opponentName()}.`;
      } else if (asked.includes(other(me))) {
        button.textContent = "Accept the rematch";
        button.disabled = false;
        line += ` ${opponentName(true)} asks for a rematch (you would swap sides).`;
      } else {
        button.textContent = "Rematch";
        button.disabled = false;
      }
      $("result-text").textContent = line;
    } else {
      $("rematch-button").textContent = "Rematch";
    }
    drawBox();
  }

  /** Count the game that ended in this browser's record (once per game of the room). */
  function record(next) {
    const code = client.code;
    const key = `${code}:${next.room.games_before}`;
    const seat = storedSeat(code);
    if (recorded.has(key) || !seat) return;
    recorded.add(key);
    countRoom(code, seat.token).then(() => {
      document.body.dataset.recorded = key;
    }).catch(() => {
      recorded.delete(key); // asked again at the next view
    });
  }

  /** The live region: the opponent's moves and the end, once each. */
  function announce(next) {
    const key = `${client.code}:${next.room.games_before}`;
    const count = next.state.moves.length;
    const over = Boolean(next.outcome);
    if (!heard || heard.key !== key) {
      if (heard) $("announce").textContent = ""; // a new game: nothing of the last one is said
      heard = { key, moves: count, over };
      return;
    }
    const parts = [];
    const me = next.room.you;
    next.state.moves.slice(heard.moves).forEach((text, i) => {
      const side = (heard.moves + i) % 2 === 0 ? firstMover(next) : other(firstMover(next));
      if (side === me) return;
      const taken = text.split("x").length - 1;
      parts.push(taken
        ? `${opponentName(true)} took ${taken} piece${taken === 1 ? "" : "s"}: ${text}.`
        : `${opponentName(true)} played ${text}.`);
    });
    if (over && !heard.over) parts.push(resultWords(next).join(": "));
    else if (!over && parts.length && next.state.can.move) parts.push("Your move.");
    // A draw this side may claim, said once: the 40-move rule once, a repetition at each
    // position it comes with.
    const state = next.state;
    const claimable = !over && state.can.claim_draw ? state.claimable : null;
    const claim = claimable && (claimable === "40-move rule" ? "40" : String(count));
    if (claim && claim !== heard.claim) {
      parts.push(`You may claim a draw (${claimable}): ${claimWhy(claimable, state.repetitions)}.`);
    }
    heard = { key, moves: count, over, claim };
    if (parts.length) $("announce").textContent = parts.join(" ");
  }

  /** The side that made the game's first move (Black, unless a position began with White). */
  function firstMover(next) {
    const played = next.state.moves.length;
    return played % 2 === 0 ? next.state.turn : other(next.state.turn);
  }

  function drawBox() {
    if (!client) return;
    const code = client.code;
    $("online-code").textContent = code;
    $("online-link").value = inviteLink(code);
    const room = view && view.room;
    const me = online.side;
    const joined = Boolean(room && me && room.joined[other(me)]);
    $("online-invite").hidden = joined;
    $("online-code-small").textContent = joined ? `Online game ${code}` : "";
    const players = $("online-players");
    const presence = $("online-presence");
    if (room && me) {
      const you = room.names[me] ? `You (${room.names[me]})` : "You";
      players.textContent = `${you}: ${NAME[me]}. ${joined ? `${opponentName(true)}: ${NAME[other(me)]}.` : ""}`.trim();
      const them = other(me);
      if (!joined || client.state !== "open") presence.textContent = ""; // not known while away
      // the room keeps who left it (room.left): said after a reload too
      else if ((room.left || []).includes(them)) presence.textContent = `Room closed: ${opponentName(true)} (${NAME[them]}) left the room.`;
      else if (room.connected[them]) presence.textContent = `${opponentName(true)} is here.`;
      else if (view.outcome) presence.textContent = `${opponentName(true)} has left.`;
      else if ((view.to_act || []).includes(them)) { // their move: the game waits on them
        const untimed = !view.clock;
        presence.textContent = `${opponentName(true)} is away: the game waits for them.`
          + (untimed ? " If they stay away for two minutes on their move, you may claim the game." : "");
      } else presence.textContent = `${opponentName(true)} is away.`; // (your move)
      presence.dataset.present = String(Boolean(room.connected[them]));
      $("online-claim").hidden = !room.can_claim;
    } else {
      players.textContent = "";
      presence.textContent = "";
      $("online-claim").hidden = true;
    }
    const state = client.state;
    // (an alarm line: a connection that is simply open says nothing)
    $("online-connection").textContent = state === "open" && !restarted ? "" : connectionWords(state, { restarted });
    $("online-here").hidden = state !== "replaced";
  }

  // ---------------------------------------------------------------- wiring

  $("online-name").value = local(NAME_KEY) || "";
  $("online-copy").addEventListener("click", async () => {
    const input = $("online-link");
    try {
      if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
      await navigator.clipboard.writeText(input.value);
      $("online-copied").textContent = "The link is copied.";
    } catch (err) {
      input.focus();
      input.select();
      $("online-copied").textContent = "Copy the selected link (Ctrl+C).";
    }
  });
  $("online-claim").addEventListener("click", () => message("claim"));
  // The host takes the invitation back before anyone joined: the room is closed (a friend who
  // opens the link is told so), this browser forgets the seat, and a new game may begin.
  $("online-withdraw").addEventListener("click", async () => {
    if (!client) return;
    const code = client.code;
    const answer = await client.leave();
    if (!answer.ok) {
      page.showError(errorWords(answer));
      return;
    }
    forgetSeat(code);
    stop();
    page.idle();
    page.showError("");
    $("status").textContent = "You withdrew the invitation: its link opens no game now.";
  });
  $("online-here").addEventListener("click", () => {
    if (client) resume(client.code);
  });
  $("join-code-button").addEventListener("click", async () => {
    const code = normalCode($("join-code-input").value);
    const error = code ? await join(code) : "Type the code of the game to join.";
    if (error) {
      showText("new-game-error", error);
      return;
    }
    $("new-game-dialog").close();
  });
  window.addEventListener("hashchange", async () => {
    const code = codeInHash();
    if (!code || (client && client.code === code)) return;
    const error = await join(code);
    if (error) page.showError(error);
  });
  return online;
}
