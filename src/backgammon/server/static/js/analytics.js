// The analytics hook: privacy-friendly, Plausible-compatible, off by default.
//
// It is on only when the server put the analytics script tag in the page
// (`backgammon serve --analytics-domain DOMAIN`: <script data-analytics data-domain src>). Then
// the page sends exactly three custom events through Plausible's API,
// window.plausible(name, {props}), every prop a string:
//
//   "Game Completed"        {mode, result, reason, points, level, clock, cube}
//                           a game reached its end after at least one turn was played
//   "Played Again"          {mode}   another game began straight after one finished
//   "Online Game Connected" {role}   both sides completed the handshake and a game started
//                           (once per room and seat in this browser)
//
// mode: "computer", "pass_and_play" or "online"; result: "win" or "loss" for the person at
// this page (against the computer, online), the winner's colour ("white", "black") in pass &
// play; reason: "board" (borne off), "drop", "resign" or "timeout"; points: what
// the game scored; level: the computer's level ("none" without one); clock: the time control
// ("none", "bullet", ...); cube: "off" without the cube, else its value at the end ("1", "2",
// ...); role: "host" or "guest".
//
// Nothing here decides or waits on anything: the calls go to Plausible's queue stub
// (window.plausible.q) when the script has not arrived, and stay there when it never does, so
// a blocked or offline script changes nothing in play. Every call is wrapped: an analytics
// failure never reaches the game.

const COMPLETED = "Game Completed";
const AGAIN = "Played Again";
const CONNECTED = "Online Game Connected";

/** Whether the page carries the analytics script tag (the server adds it only when on). */
export function analyticsOn(doc = document) {
  return Boolean(doc.querySelector("script[data-analytics][data-domain]"));
}

function send(name, props) {
  if (!analyticsOn()) return;
  try {
    // Plausible's queue stub: calls made before (or without) the script wait in .q.
    window.plausible = window.plausible || function queue() {
      (window.plausible.q = window.plausible.q || []).push(arguments);
    };
    window.plausible(name, { props });
  } catch (err) {
    // an analytics failure changes nothing in play
  }
}

// What this page has reported: the games completed (by key), the rooms connected, and whether
// the last game it showed had finished (so that the next one to begin is "played again").
const reported = new Set();
let finishedKey = null;

function gameStarted(key, mode) {
  if (finishedKey !== null && key !== finishedKey) {
    finishedKey = null;
    send(AGAIN, { mode });
  }
}

/** How many turns (a roll and its play, or a roll that could not be played) game `number`
 * of a local state's history holds. */
function turnsPlayed(history, number) {
  return history.filter((entry) => entry.game === number && entry.kind === "play").length;
}

/**
 * A local game's state as the page shows it (main.js calls this for every state it shows).
 * @param {object|null} previous the state shown before (null: the first one)
 * @param {object} game the state now
 */
export function localState(previous, game) {
  try {
    const number = game.score ? game.score.game_number : 1;
    const key = `local:${game.id}:${number}`;
    const settings = game.settings || {};
    if (!game.result) {
      // A game begins with no turn played yet (a game in progress opened by its link is not
      // one played again).
      if (turnsPlayed(game.history || [], number) === 0) gameStarted(key, settings.mode);
      else finishedKey = null; // a game in progress came between
      return;
    }
    const sameGame = previous && previous.id === game.id && previous.score &&
      previous.score.game_number === number && !previous.result;
    if (sameGame && !reported.has(key) && turnsPlayed(game.history || [], number) > 0) {
      reported.add(key);
      const result = game.result;
      const human = settings.human;
      send(COMPLETED, {
        mode: settings.mode,
        result: human ? (result.winner === human ? "win" : "loss") : result.winner,
        reason: result.reason,
        points: String(result.points),
        level: settings.mode === "computer" ? settings.level : "none",
        clock: settings.time_control || "none",
        cube: settings.cube ? String(game.cube ? game.cube.value : 1) : "off",
      });
    }
    finishedKey = key;
  } catch (err) {
    // never in the way of play
  }
}

const REASONS = new Set(["drop", "resign", "timeout"]);

/**
 * An online room's state (online_tables.js calls this for every view it receives).
 * @param {object} state the room's state for this seat: {code, you: {seat, color}, phase,
 *   opponent}
 * @param {boolean} connected whether this page's connection has been welcomed
 */
export function onlineState(state, connected) {
  try {
    const seat = `${state.code}.${state.you.seat}`;
    if (connected && state.phase === "playing" && state.opponent && !reported.has(seat) &&
        !alreadyConnected(seat)) {
      reported.add(seat);
      markConnected(seat);
      send(CONNECTED, { role: state.you.seat });
    }
  } catch (err) {
    // never in the way of play
  }
}

/**
 * An online game's end (online_tables.js calls this when a view shows a result).
 * @param {object} state the room for this seat: {code, you, settings, game}
 * @param {object} event the game's end: {seq, outcome, log}
 */
export function onlineGameOver(state, event) {
  try {
    const key = `online:${state.code}:${event.seq}`;
    const events = (event.log && event.log.events) || [];
    if (events.some((e) => e.type === "play" || e.type === "pass") && !reported.has(key)) {
      reported.add(key);
      const outcome = event.outcome;
      const control = state.settings.time_control;
      send(COMPLETED, {
        mode: "online",
        result: outcome.winner === state.you.color ? "win" : "loss",
        reason: REASONS.has(outcome.kind) ? outcome.kind : "board",
        points: String(outcome.points),
        level: "none",
        clock: control ? String(control.name) : "none",
        cube: state.settings.cube ? String(state.game.cube.value) : "off",
      });
    }
    finishedKey = key;
  } catch (err) {
    // never in the way of play
  }
}

/**
 * An online game began after one (online_tables.js calls this for the next game of a match
 * and for a rematch).
 * @param {object} state the room for this seat: {code}
 * @param {object} event {seq}
 */
export function onlineGameBegan(state, event) {
  try {
    gameStarted(`online:${state.code}:${event.seq}`, "online");
  } catch (err) {
    // never in the way of play
  }
}

// A seat's "connected" event is sent once per room in this browser: a reload, another tab or a
// reconnection of the same seat is not a new game.
const CONNECTED_KEY = "backgammon.analytics.connected";

function alreadyConnected(seat) {
  try {
    return window.localStorage.getItem(`${CONNECTED_KEY}.${seat}.sent`) === "1";
  } catch (err) {
    return false;
  }
}

function markConnected(seat) {
  try {
    window.localStorage.setItem(`${CONNECTED_KEY}.${seat}.sent`, "1");
  } catch (err) {
    // storage refused: the in-memory set above still holds it for this page
  }
}
