// The page: settings, the controls, and the loop that shows the server's state.
//
// Flow: every action is a request; the server answers with the whole state, which the page
// draws. When the computer is to act the page asks /computer and plays back the steps it gets
// (each roll, each checker, each cube decision) one by one before showing the final state.

import { localState as analyticsLocalState } from "./analytics.js";
import { ApiError, act, computerTurn, createGame, errorWords, getGame, readPosition } from "./api.js";
import { Assist } from "./assist.js";
import { autoRollPause, automaticAction } from "./autoplay.js";
import { BoardView } from "./board.js";
import { LocalClock } from "./clock_presence.js";
import { playMoves } from "./hints.js";
import { IdsView } from "./ids.js";
import { showError, showText } from "./notes.js";
import { OnlineTables, forgetTablesSeat, tablesSeats } from "./online_tables.js";
import { OnlineSeats, RecentGames, StartScreen } from "./recent.js";
import { SavedPositions, browserId } from "./saved.js";
import { forgetKeptSeat, keptSeats, migrateOldSeats } from "./seat_migration.js";
import { SetupEditor } from "./setup.js";
import { StatsView } from "./stats.js";
import { Tutor } from "./tutor.js";
import {
  NO_MOVE,
  hold,
  openingHold,
  openingText,
  passHold,
  personPassed,
} from "./turnshow.js";
import { drawControls, drawView, pointsFor, setNumbering } from "./table.js";
import {
  DEFAULTS,
  applyTheme,
  loadGameId,
  loadSettings,
  saveGameId,
  saveSettings,
  stepDelay,
} from "./settings.js";

const $ = (id) => document.getElementById(id);

const app = {
  settings: loadSettings(),
  game: null, // the last state from the server
  busy: false,
  board: null,
};

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------------------------
// Drawing the state

function show(game) {
  if (app.online) app.online.stop(); // a local game on the board ends online play here
  if (app.clock) app.clock.show(game);
  const previous = app.game;
  app.game = game;
  analyticsLocalState(previous, game); // the analytics hook (off unless the server turned it on)
  if (app.stats) app.stats.showSeed(game); // "Seed of this game: …"
  if (app.setup && app.setup.active) return; // the board shows the editor until it closes
  if (app.assist && app.assist.reviewing()) return; // the board shows the review until it ends
  if (app.ids) app.ids.show(game.ids); // (in review, the reviewed position's: review.js)
  const passAndPlay = game.settings.mode === "pass_and_play";
  drawView(game, {
    board: app.board,
    busy: app.busy,
    labels: passAndPlay ? game.to_act || game.turn || game.viewer : game.viewer,
    homeLeft: app.settings.home === "left",
  });
  document.body.dataset.version = String(game.version);
  if (app.assist) app.assist.onState(previous, game);
}

function showNote(text) {
  showText("computer-note", text);
}

function setBusy(busy) {
  app.busy = busy;
  document.body.classList.toggle("busy", busy);
  if (app.game && !(app.assist && app.assist.reviewing())) {
    drawControls(app.game, { busy });
    const humanMoves = app.game.phase === "move" && !app.game.computer_to_act;
    app.board.setEnabled(humanMoves && !busy);
  }
}

// ---------------------------------------------------------------------------------------------
// Talking to the server

async function run(task) {
  if (app.busy) return;
  setBusy(true);
  showError("");
  showNote("");
  try {
    const game = await task();
    if (game) {
      setBusy(false);
      show(game);
      await playComputer();
    }
  } catch (err) {
    showError(errorWords(err));
    await refresh(err);
  } finally {
    setBusy(false);
  }
  maybeAutomatic();
}

/** Auto-roll and auto-confirm (autoplay.js): once per state shown, when the settings ask. */
async function maybeAutomatic() {
  const game = app.game;
  if (!game || app.busy || (app.online && app.online.active)) return;
  if ((app.setup && app.setup.active) || (app.assist && app.assist.reviewing())) return;
  const next = automaticAction(game, app.settings);
  const key = `${game.id}:${game.version}`;
  if (!next || app.autoKey === key) return;
  app.autoKey = key;
  if (next.action === "roll") {
    setBusy(true);
    const speed = app.settings.speed;
    const passed = game.last_turn && game.last_turn.cannot_move; // "No legal move" stays as long
    await hold(passed ? Math.max(passHold(speed), autoRollPause(speed)) : autoRollPause(speed),
      "auto-roll");
    setBusy(false);
    if (app.game !== game) return; // something else happened meanwhile
    perform("roll", {});
    return;
  }
  run(async () => {
    let state = game;
    for (const move of next.moves) {
      state = await act(game.id, "move", { from: move.from, to: move.to });
      show(state);
    }
    return act(game.id, "done");
  });
}

/** After a refused action, show the game as the server has it (another tab may have moved:
 * then the action is refused as not allowed now, 409, or as an illegal move, 422). */
async function refresh(err) {
  if (!app.game) return;
  if (err instanceof ApiError && (err.status === 409 || err.status === 422)) {
    try {
      app.game = await getGame(app.game.id);
    } catch (ignored) {
      // keep what we had: the error above is already shown
    }
  }
  show(app.game);
}

/** While the computer is to act: ask the server, then play back its steps one by one. The
 * person's roll that could not be played, and the opening roll the computer won, are shown for
 * a moment first (turnshow.js). */
async function playComputer() {
  for (let guard = 0; app.game && app.game.computer_to_act && guard < 8; guard++) {
    setBusy(true);
    const before = app.game;
    if (app.clock) app.clock.runLocally(before.to_act); // the computer's clock counts down
    if (personPassed(before) && app.heldPass !== `${before.id}:${before.version}`) {
      app.heldPass = `${before.id}:${before.version}`;
      await hold(passHold(app.settings.speed));
    }
    const opening = before.opening ? { ...before.opening } : null;
    const openingWords = opening ? openingText(before) : "";
    if (opening) {
      $("status").textContent = `${openingWords} ${before.players[before.turn].name} moves first.`;
      await hold(openingHold(app.settings.speed), "opening");
    }
    document.body.classList.add("computer-thinking");
    $("status").textContent = `${app.game.players[app.game.to_act].name} is thinking…`;
    let answer;
    try {
      answer = await computerTurn(app.game.id);
    } finally {
      document.body.classList.remove("computer-thinking");
    }
    const delay = stepDelay(app.settings.speed);
    app.board.root.classList.toggle("no-anim", delay === 0);
    let firstTurn = Boolean(opening);
    for (const step of answer.steps) {
      if (step.kind === "roll" || step.kind === "pass") firstTurn = false; // a new roll
      const pass = step.kind === "pass";
      app.board.drawPosition(step.board);
      app.board.drawDice(step.dice, step.dice_left, step.color, firstTurn ? opening : null,
        { label: pass ? NO_MOVE : null });
      app.board.drawCube(step.cube);
      const said = pointsFor(step.text, step.color); // the setting's numbering
      $("status").textContent = firstTurn ? `${openingWords} ${said}` : said;
      if (app.assist) app.assist.onStep(step);
      if (pass) await hold(passHold(app.settings.speed));
      else if (delay) await sleep(delay);
    }
    app.board.root.classList.remove("no-anim");
    // The computer's last words stay in view (its cube answer, its play) until the next action.
    showNote(pointsFor(answer.summary, answer.steps.length ? answer.steps[0].color : null));
    setBusy(false);
    show(answer.state);
  }
}

/** Make a play of the hints panel (in notation: "8/5 6/5"), move by move as the board
 * sends them; each move is one the server offers now (a move it does not offer ends it, said
 * in words). `whole`: a ranked play, a whole turn's from its start: the checkers moved so far
 * this turn are taken back first (else the rest of the turn, from where it stands). The
 * person ends the turn (Done) or takes it back (Undo). */
function playHint(text, { whole = false } = {}) {
  const game = app.game;
  if (!game || app.busy || (app.online && app.online.active)) return;
  if (game.phase !== "move" || game.computer_to_act) return;
  const left = playMoves(text, game.turn);
  const offered = (state, move) => (state.legal || []).some((entry) => String(entry.from) ===
    move.from && entry.destinations.some((d) => String(d.to) === move.to));
  app.board.select(null);
  run(async () => {
    let state = game;
    while (whole && state.played && state.played.length) {
      state = await act(state.id, "undo");
    }
    while (left.length) {
      // the moves of a play in the order the server allows them (a checker on the bar first)
      const next = left.findIndex((move) => offered(state, move));
      if (next < 0) throw new Error(`${text} cannot be played now.`);
      const [move] = left.splice(next, 1);
      state = await act(state.id, "move", { from: placeValue(move.from), to: placeValue(move.to) });
      if (left.length) show(state);
    }
    return state;
  });
}

function perform(action, body) {
  // an online game's actions go to its room: the tutor never judges them
  if (app.online && app.online.active) return app.online.perform(action, body);
  const id = app.game && app.game.id;
  if (!id) return;
  if (action === "move") app.board.select(null);
  run(async () => {
    // tutor mode: a play or a cube action that loses more than the threshold waits for the
    // person's answer (Rethink or Hint: nothing is sent)
    if (app.tutor && !(await app.tutor.allows(app.game, action))) return null;
    const game = await act(id, action, body);
    if (action === "rematch") { // a new session: the address and a reload follow it
      saveGameId(game.id);
      history.replaceState(null, "", `#game=${game.id}`);
    }
    return game;
  });
}

async function startGame(settings) {
  const payload = {
    mode: settings.mode,
    level: settings.level,
    side: settings.side,
    cube: settings.cube,
    gammons: settings.gammons,
    kind: settings.kind,
    length: Number(settings.length) || 1,
    time_control: settings.time_control,
    // this browser's id (its record, its recent games) and the seed typed, if any
    ...app.stats.takeNewGameFields(),
  };
  if (settings.kind === "money" && settings.cube) {
    // The money-play rules, as online play offers them (they need the cube).
    payload.jacoby = Boolean(settings.jacoby);
    payload.beavers = Boolean(settings.beavers);
  }
  await createAndShow(payload);
}

/** Make a game from `payload` (POST /api/games) and show it, the review left first. */
async function createAndShow(payload) {
  endReview(); // the new game is shown, not the game or record under review
  await run(async () => {
    const game = await createGame(payload);
    saveGameId(game.id);
    history.replaceState(null, "", `#game=${game.id}`);
    return game;
  });
}

/** Leave the review, if one is on: what comes next is shown instead. */
function endReview() {
  if (app.assist && app.assist.reviewing()) app.assist.review.exit();
}

/** Start a game from a position (the editor's, or a saved one) with `options`. */
async function startFromSetup(setup, options) {
  const payload = {
    mode: options.mode,
    level: options.level || app.settings.level,
    side: options.side || "white",
    cube: options.cube !== false,
    gammons: options.gammons !== undefined ? options.gammons !== false : app.settings.gammons,
    kind: "single",
    length: 1,
    time_control: "none",
    browser: browserId(),
    setup,
  };
  await createAndShow(payload);
}

/** Whether a game is being played (past its start, not finished): loading a position asks
 * first. A game waiting for its opening roll is not yet in progress. */
function gameInProgress() {
  const game = app.game;
  return Boolean(game && !game.result && game.phase !== "opening");
}

const REPLACE_WORDS = {
  position: {
    title: "Replace the game?",
    text: "A game is in progress. Loading this position replaces it on the board (the game stays saved: its link still opens it).",
    confirm: "Replace",
  },
  new: {
    title: "Start a new game?",
    text: "A game is in progress. It stays saved: the New game dialog lists it under Recent games, to resume it later.",
    confirm: "New game",
  },
};

/** Ask before replacing a game in progress (`kind` "position" or "new"); resolves to true to
 * go ahead. */
function confirmReplace(kind = "position") {
  if (!gameInProgress()) return Promise.resolve(true);
  const dialog = $("replace-dialog");
  const words = REPLACE_WORDS[kind] || REPLACE_WORDS.position;
  $("replace-title").textContent = words.title;
  $("replace-text").textContent = words.text;
  $("replace-confirm").textContent = words.confirm;
  dialog.dataset.kind = kind;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "replace"), { once: true });
    dialog.returnValue = "";
    dialog.showModal();
  });
}

/** Ask who plays a saved position (`name`): resolves to {mode, side}, or null (Cancel). */
function askWhoPlays(name) {
  const dialog = $("play-position-dialog");
  $("play-position-title").textContent = name ? `Play “${name}”` : "Play this position";
  $("play-position-side").value = app.settings.side === "black" ? "black" : "white";
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      const mode = dialog.returnValue;
      if (mode !== "computer" && mode !== "pass_and_play") resolve(null);
      else resolve({ mode, side: mode === "computer" ? $("play-position-side").value : "white" });
    }, { once: true });
    dialog.returnValue = "";
    dialog.showModal();
  });
}

async function openSetup() {
  if (app.online && app.online.active) {
    showError("Leave the online game to set up a position.");
    return;
  }
  if (app.assist && app.assist.reviewing()) app.assist.review.exit();
  let setup = null;
  if (app.game && app.game.ids && !app.game.result) {
    try {
      setup = (await readPosition(app.game.ids.xgid)).setup;
    } catch (err) {
      setup = null; // the starting position then
    }
  }
  showError("");
  app.setup.open(setup);
}

async function resume() {
  if (app.online.resumeFromLocation()) return; // an online room (#online= or #join=)
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("game");
  const id = fromHash || loadGameId();
  if (!id) {
    openNewGame();
    return;
  }
  setBusy(true);
  try {
    const game = await getGame(id);
    saveGameId(game.id);
    if (!fromHash) history.replaceState(null, "", `#game=${game.id}`);
    setBusy(false);
    show(game);
    await playComputer();
  } catch (err) {
    setBusy(false);
    if (err instanceof ApiError && err.status === 404) {
      saveGameId(null);
      $("status").textContent = "Start a new game.";
      openNewGame();
    } else {
      $("status").textContent = "This saved game cannot be opened.";
      showError(errorWords(err));
    }
  } finally {
    setBusy(false);
  }
  maybeAutomatic();
}

// ---------------------------------------------------------------------------------------------
// Dialogs

/** "New game": ask first when a game is in progress, then open the New game dialog. */
async function askNewGame() {
  const asked = gameInProgress();
  if (!(await confirmReplace("new"))) return;
  // the game in progress is listed among the recent games, as the question promised
  openNewGame({ listCurrent: asked });
}

/** Open a game of this browser's recent games (the New game dialog's Resume). */
function resumeGame(id) {
  const dialog = $("new-game-dialog");
  if (dialog.open) dialog.close("resume");
  if (app.assist && app.assist.reviewing()) app.assist.review.exit();
  if (app.setup && app.setup.active) app.setup.close();
  saveGameId(id);
  history.replaceState(null, "", `#game=${id}`);
  resume();
}

/** Back to this browser's seat in online room `code` (the New game dialog's Return). */
function returnOnline(code) {
  const dialog = $("new-game-dialog");
  if (dialog.open) dialog.close("resume");
  endReview();
  if (app.setup && app.setup.active) app.setup.close();
  app.online.enter(code, "online"); // (a page showing a local game reloads into the room)
}

/** Nothing on the board (the New game dialog closed on a first visit): the start screen. */
function showStartIfEmpty() {
  if (app.game || app.busy) return;
  if (app.online && app.online.active) return;
  if (app.setup && app.setup.active) return;
  if (app.assist && app.assist.reviewing()) return;
  app.start.show();
}

/** Open the New game dialog; `listCurrent`: list the game on the board among the recent
 * games too (it is about to be replaced). */
function openNewGame({ listCurrent = false } = {}) {
  const form = $("new-game-form");
  const s = app.settings;
  form.elements.mode.value = s.mode;
  form.elements.level.value = s.level;
  form.elements.side.value = s.side;
  form.elements.kind.value = s.kind;
  $("length-input").value = String(s.length);
  form.elements.cube.checked = s.cube;
  form.elements.gammons.checked = s.gammons;
  form.elements.jacoby.checked = s.jacoby;
  form.elements.beavers.checked = s.beavers;
  form.elements.time_control.value = s.time_control;
  // a saved value the form does not offer (an old or hand-edited setting): the default
  for (const name of ["level", "side", "kind", "time_control"]) {
    if (!form.elements[name].value) form.elements[name].value = DEFAULTS[name];
  }
  syncNewGameForm();
  const dialog = $("new-game-dialog");
  app.recent.refresh(listCurrent ? null : app.game && app.game.id);
  app.onlineSeats.refresh(app.online && app.online.active ? app.online.code : null);
  dialog.returnValue = "";
  if (!dialog.open) dialog.showModal();
}

function syncNewGameForm() {
  const form = $("new-game-form");
  const computer = form.elements.mode.value === "computer";
  for (const row of form.querySelectorAll(".computer-only")) row.hidden = !computer;
  for (const row of form.querySelectorAll(".match-only")) row.hidden = form.elements.kind.value !== "match";
  for (const row of form.querySelectorAll(".money-only")) row.hidden = form.elements.kind.value !== "money";
}

function readNewGameForm() {
  const form = $("new-game-form");
  const length = Math.max(1, Math.min(25, Number($("length-input").value) || 5));
  return {
    ...app.settings,
    mode: form.elements.mode.value,
    level: form.elements.level.value,
    side: form.elements.side.value,
    kind: form.elements.kind.value,
    length,
    cube: form.elements.cube.checked,
    gammons: form.elements.gammons.checked,
    jacoby: form.elements.jacoby.checked,
    beavers: form.elements.beavers.checked,
    time_control: form.elements.time_control.value,
  };
}

/** The board drawn again as it is (after the board flip changed). */
function redrawBoard() {
  const flipped = app.board.setHomeLeft(app.settings.home === "left");
  if (!flipped) return;
  if (app.setup && app.setup.active) app.setup.changed();
  else if (app.assist && app.assist.reviewing()) app.assist.review.go(app.assist.review.index);
  else if (app.online && app.online.active) app.online.draw();
  else if (app.game) show(app.game);
  else if (app.start && app.start.active) app.start.show();
}

/** The move list drawn again (its plays' numbering changed). */
function redrawHistory() {
  const review = app.assist && app.assist.review;
  if (review && review.active) {
    review.drawHistory();
    review.go(review.index); // the current line marked again
    if (app.assist.analysis && app.assist.analysis.result) app.assist.analysis.markList();
  } else if (app.online && app.online.active) app.online.draw();
  else if (app.game) show(app.game);
}

function openSettings() {
  $("theme-select").value = app.settings.theme;
  $("speed-select").value = app.settings.speed;
  $("home-select").value = app.settings.home;
  $("numbering-select").value = app.settings.numbering;
  $("auto-roll-input").checked = app.settings.auto_roll;
  $("auto-confirm-input").checked = app.settings.auto_confirm;
  $("tutor-input").checked = app.settings.tutor;
  $("tutor-threshold-select").value = String(app.settings.tutor_threshold);
  if (!$("tutor-threshold-select").value) $("tutor-threshold-select").value = "0.04";
  $("analysis-level-select").value = app.settings.analysis_level;
  if (!$("analysis-level-select").value) $("analysis-level-select").value = "expert";
  $("settings-dialog").showModal();
}

function wire() {
  // The clocks: a newer state on the server (a side ran out of time) is read and shown.
  app.clock = new LocalClock($("clocks"), {
    onStale: () => {
      if (!app.busy && app.game) run(() => getGame(app.game.id));
    },
  });
  // Back to this tab: the game is read again, as another tab may have moved meanwhile.
  document.addEventListener("visibilitychange", () => {
    if (document.hidden || app.busy || !app.game || (app.online && app.online.active)) return;
    if ((app.setup && app.setup.active) || (app.assist && app.assist.reviewing())) return;
    const shown = app.game;
    getGame(shown.id).then((fresh) => {
      if (app.game === shown && !app.busy && fresh.version !== shown.version) {
        run(async () => fresh);
      }
    }).catch(() => {});
  });
  app.board = new BoardView($("board"), {
    onMove: (from, to) => perform("move", { from: placeValue(from), to: placeValue(to) }),
    onExplain: (from, to) => app.assist && app.assist.explain(from, to),
  });
  app.board.setHomeLeft(app.settings.home === "left");
  app.assist = new Assist({
    board: app.board,
    getGame: () => app.game,
    isBusy: () => app.busy,
    showLive: () => {
      if (app.online && app.online.active) app.online.draw();
      else if (app.game) show(app.game);
      else openNewGame();
    },
    liveSource: () => (app.online && app.online.active ? app.online.reviewSource() : null),
    exportSource: () => (app.online && app.online.active ? app.online.exportSource() : null),
    explainSource: () => (app.online && app.online.active ? app.online.explainSource() : null),
    playHint,
    showIds: (ids) => app.ids && app.ids.show(ids),
  });
  app.tutor = new Tutor({
    settings: () => app.settings,
    hint: () => {
      if (!app.assist.hints.on) app.assist.hints.toggle();
      $("hints-panel").scrollIntoView({ block: "nearest" });
    },
    note: showNote,
  });
  app.ids = new IdsView($("game-ids"), $("game-ids-status"));
  app.recent = new RecentGames({ browser: browserId, resume: resumeGame });
  app.onlineSeats = new OnlineSeats({ open: returnOnline });
  app.start = new StartScreen(app.board);
  app.setup = new SetupEditor({
    board: app.board,
    play: (setup, mode, side, cube, gammons) => startFromSetup(setup, { mode, side, cube, gammons }),
    gammons: () => app.settings.gammons,
    close: () => {
      if (app.game) show(app.game);
      else openNewGame();
    },
    save: (setup) => app.saved.open(setup),
    say: (text) => app.assist && app.assist.say && app.assist.say(text),
  });
  app.saved = new SavedPositions({
    current: () => null,
    getGame: () => app.game,
    load: async (setup, name) => {
      if (!(await confirmReplace("position"))) return;
      const choice = await askWhoPlays(name);
      if (!choice) return;
      if (app.setup.active) app.setup.close();
      startFromSetup(setup, { ...choice, cube: true });
    },
    say: (text) => app.assist && app.assist.say && app.assist.say(text),
  });
  // The record, the seed, and the Options that forget things (js/stats.js).
  app.stats = new StatsView({
    getGame: () => app.game,
    onSettingsCleared: () => {
      app.settings = loadSettings();
      applyTheme(app.settings.theme);
      $("theme-select").value = app.settings.theme;
      $("speed-select").value = app.settings.speed;
    },
    onStartOver: () => {
      // the online seats kept in this browser go too (old-door seats not carried yet with
      // them): the page no longer offers to return to them (an online game on the page is
      // left without a word: its seat is forgotten)
      if (app.online && app.online.active) app.online.stop();
      for (const kept of keptSeats()) forgetKeptSeat(kept.code, kept.seat);
      for (const kept of tablesSeats()) forgetTablesSeat(kept.code);
      saveGameId(null);
      app.game = null;
      history.replaceState(null, "", location.pathname);
      $("move-list").replaceChildren();
      $("result").hidden = true;
      for (const button of document.querySelectorAll("#controls button")) button.hidden = true;
      $("status").textContent = "Start a new game.";
      openNewGame();
    },
    newGameFromSeed: (seed) => {
      openNewGame();
      $("seed-input").value = seed;
    },
  });
  // Online play: the shared table's door (online_tables.js)
  app.online = new OnlineTables({
    board: app.board,
    onView: (previous, view) => app.assist.onState(previous, view),
    onViewWhileReviewing: (view) => app.assist.onLiveWhileReviewing(view),
    hasLocalGame: () => Boolean(app.game),
    isReviewing: () => app.assist.reviewing(),
    openNewGame,
    settings: () => app.settings, // auto-roll and auto-confirm (the shared door honours them)
    say: (text) => app.assist.say(text), // the live region
  });
  for (const button of document.querySelectorAll("#controls [data-action], #rematch-button")) {
    button.addEventListener("click", () => perform(button.dataset.action, {}));
  }
  $("new-game-button").addEventListener("click", askNewGame);
  $("start-new-game").addEventListener("click", openNewGame);
  $("setup-button").addEventListener("click", openSetup);
  $("saved-button").addEventListener("click", () => app.saved.open(null));
  $("save-position-button").addEventListener("click", () => app.saved.open(null));
  $("result-new-game-button").addEventListener("click", openNewGame);
  $("settings-button").addEventListener("click", openSettings);
  $("resign-button").addEventListener("click", () => $("resign-dialog").showModal());
  $("resign-dialog").addEventListener("close", () => {
    const level = $("resign-dialog").returnValue;
    if (["single", "gammon", "backgammon"].includes(level)) perform("resign", { level });
  });
  const form = $("new-game-form");
  form.addEventListener("change", syncNewGameForm);
  $("new-game-cancel").addEventListener("click", () => $("new-game-dialog").close("cancel"));
  $("new-game-dialog").addEventListener("close", () => {
    if (!["start", "resume"].includes($("new-game-dialog").returnValue)) showStartIfEmpty();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!app.stats.checkSeed()) return; // a bad seed is explained in the form
    app.settings = readNewGameForm();
    saveSettings(app.settings);
    $("new-game-dialog").close("start");
    startGame(app.settings);
  });
  $("theme-select").addEventListener("change", (e) => {
    app.settings.theme = e.target.value;
    saveSettings(app.settings);
    applyTheme(app.settings.theme);
  });
  $("speed-select").addEventListener("change", (e) => {
    app.settings.speed = e.target.value;
    saveSettings(app.settings);
  });
  $("home-select").addEventListener("change", (e) => {
    app.settings.home = e.target.value === "left" ? "left" : "right";
    saveSettings(app.settings);
    redrawBoard();
  });
  $("numbering-select").addEventListener("change", (e) => {
    app.settings.numbering = e.target.value === "mine" ? "mine" : "own";
    saveSettings(app.settings);
    setNumbering(app.settings.numbering);
    redrawHistory();
  });
  $("auto-roll-input").addEventListener("change", (e) => {
    app.settings.auto_roll = e.target.checked;
    saveSettings(app.settings);
  });
  $("auto-confirm-input").addEventListener("change", (e) => {
    app.settings.auto_confirm = e.target.checked;
    saveSettings(app.settings);
  });
  $("tutor-input").addEventListener("change", (e) => {
    app.settings.tutor = e.target.checked;
    saveSettings(app.settings);
  });
  $("tutor-threshold-select").addEventListener("change", (e) => {
    app.settings.tutor_threshold = Number(e.target.value);
    saveSettings(app.settings);
  });
  $("analysis-level-select").addEventListener("change", (e) => {
    app.settings.analysis_level = e.target.value;
    saveSettings(app.settings);
  });
  $("settings-dialog").addEventListener("close", () => {
    maybeAutomatic();
    if (app.online && app.online.active && app.online.automatic) app.online.automatic();
  });
  window.addEventListener("hashchange", () => {
    const id = new URLSearchParams(location.hash.slice(1)).get("game");
    if (id && (!app.game || app.game.id !== id)) resume();
  });
}

/** The header's menu on a narrow screen (page.css): the Menu button opens the buttons of the
 * top bar below it; a choice, a click elsewhere or Escape closes it. */
function wireMenu() {
  const bar = document.querySelector(".topbar");
  const button = $("menu-button");
  const setOpen = (open) => {
    bar.classList.toggle("menu-open", open);
    button.setAttribute("aria-expanded", String(open));
  };
  button.addEventListener("click", () => setOpen(!bar.classList.contains("menu-open")));
  $("topnav").addEventListener("click", (event) => {
    if (event.target.closest("button, a")) setOpen(false);
  });
  document.addEventListener("click", (event) => {
    if (!bar.contains(event.target)) setOpen(false);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && bar.classList.contains("menu-open")) {
      setOpen(false);
      button.focus();
    }
  });
}

/** "13" -> 13; "bar" and "off" stay words, as the API takes them. */
function placeValue(where) {
  return /^\d+$/.test(where) ? Number(where) : where;
}

applyTheme(app.settings.theme);
setNumbering(app.settings.numbering);
wireMenu();
// Old-door seats whose rooms moved to the shared door are carried there first (issue 33:
// seat_migration.js, which never rejects), so that an old address opens its room.
migrateOldSeats()
  .catch(() => null)
  .then(() => {
    wire();
    resume();
  });
