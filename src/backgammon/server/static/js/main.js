// The page: settings, the controls, and the loop that shows the server's state.
//
// Flow: every action is a request; the server answers with the whole state, which the page
// draws. When the computer is to act the page asks /computer and plays back the steps it gets
// (each roll, each checker, each cube decision) one by one before showing the final state.

import { ApiError, act, computerTurn, createGame, getGame, readPosition } from "./api.js";
import { Assist } from "./assist.js";
import { BoardView } from "./board.js";
import { ClockView } from "./clock.js";
import { IdsView } from "./ids.js";
import { OnlineGame } from "./online.js";
import { SavedPositions } from "./saved.js";
import { SetupEditor } from "./setup.js";
import { drawControls, drawView } from "./table.js";
import {
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

function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

// ---------------------------------------------------------------------------------------------
// Drawing the state

function show(game) {
  if (app.online) app.online.stop(); // a local game on the board ends online play here
  if (app.clock) app.clock.show(game);
  const previous = app.game;
  app.game = game;
  if (app.ids) app.ids.show(game.ids);
  if (app.setup && app.setup.active) return; // the board shows the editor until it closes
  if (app.assist && app.assist.reviewing()) return; // the board shows the review until it ends
  const passAndPlay = game.settings.mode === "pass_and_play";
  drawView(game, {
    board: app.board,
    busy: app.busy,
    labels: passAndPlay ? game.to_act || game.turn || game.viewer : game.viewer,
  });
  document.body.dataset.version = String(game.version);
  if (app.assist) app.assist.onState(previous, game);
}

function showNote(text) {
  const note = $("computer-note");
  note.textContent = text || "";
  note.hidden = !text;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
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
    showError(err instanceof ApiError ? err.message : `Something went wrong: ${err}`);
    await refresh(err);
  } finally {
    setBusy(false);
  }
}

/** After a refused action, show the game as the server has it (another tab may have moved). */
async function refresh(err) {
  if (!app.game) return;
  if (err instanceof ApiError && err.status === 409 && err.code === "not_allowed") {
    try {
      app.game = await getGame(app.game.id);
    } catch (ignored) {
      // keep what we had: the error above is already shown
    }
  }
  show(app.game);
}

/** While the computer is to act: ask the server, then play back its steps one by one. */
async function playComputer() {
  for (let guard = 0; app.game && app.game.computer_to_act && guard < 8; guard++) {
    setBusy(true);
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
    for (const step of answer.steps) {
      app.board.drawPosition(step.board);
      app.board.drawDice(step.dice, step.dice_left, step.color, null);
      app.board.drawCube(step.cube);
      $("status").textContent = step.text;
      if (app.assist) app.assist.onStep(step);
      if (delay) await sleep(delay);
    }
    app.board.root.classList.remove("no-anim");
    // The computer's last words stay in view (its cube answer, its play) until the next action.
    showNote(answer.summary);
    setBusy(false);
    show(answer.state);
  }
}

function perform(action, body) {
  if (app.online && app.online.active) return app.online.perform(action, body);
  const id = app.game && app.game.id;
  if (!id) return;
  if (action === "move") app.board.select(null);
  run(async () => {
    const game = await act(id, action, body);
    if (action === "rematch") saveGameId(game.id);
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
  };
  if (settings.kind === "money" && settings.cube) {
    // The money-play rules, as online play offers them (they need the cube).
    payload.jacoby = Boolean(settings.jacoby);
    payload.beavers = Boolean(settings.beavers);
  }
  await run(async () => {
    const game = await createGame(payload);
    saveGameId(game.id);
    history.replaceState(null, "", `#game=${game.id}`);
    return game;
  });
}

/** Start a game from a position (the editor's, or a saved one) with `options`. */
async function startFromSetup(setup, options) {
  const payload = {
    mode: options.mode,
    level: options.level || app.settings.level,
    side: options.side || "white",
    cube: options.cube !== false,
    kind: "single",
    length: 1,
    time_control: "none",
    setup,
  };
  await run(async () => {
    const game = await createGame(payload);
    saveGameId(game.id);
    history.replaceState(null, "", `#game=${game.id}`);
    return game;
  });
}

/** Whether a game is being played (past its start, not finished): loading a position asks
 * first. A game waiting for its opening roll is not yet in progress. */
function gameInProgress() {
  const game = app.game;
  return Boolean(game && !game.result && game.phase !== "opening");
}

/** Ask before replacing a game in progress; resolves to true to go ahead. */
function confirmReplace() {
  if (!gameInProgress()) return Promise.resolve(true);
  const dialog = $("replace-dialog");
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "replace"), { once: true });
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
      showError(err instanceof ApiError ? err.message : String(err));
    }
  } finally {
    setBusy(false);
  }
}

// ---------------------------------------------------------------------------------------------
// Dialogs

function openNewGame() {
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
  syncNewGameForm();
  const dialog = $("new-game-dialog");
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

function openSettings() {
  $("theme-select").value = app.settings.theme;
  $("speed-select").value = app.settings.speed;
  $("settings-dialog").showModal();
}

function wire() {
  // The clocks: a newer state on the server (a side ran out of time) is read and shown.
  app.clock = new ClockView($("clocks"), {
    onStale: () => {
      if (!app.busy && app.game) run(() => getGame(app.game.id));
    },
  });
  app.board = new BoardView($("board"), {
    onMove: (from, to) => perform("move", { from: placeValue(from), to: placeValue(to) }),
    onExplain: (from, to) => app.assist && app.assist.explain(from, to),
  });
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
  });
  app.ids = new IdsView($("game-ids"), $("game-ids-status"));
  app.setup = new SetupEditor({
    board: app.board,
    play: (setup, mode, side, cube) => startFromSetup(setup, { mode, side, cube }),
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
    load: async (setup) => {
      if (!(await confirmReplace())) return;
      if (app.setup.active) app.setup.close();
      const mode = app.settings.mode;
      const side = mode === "computer" ? (app.settings.side === "black" ? "black" : "white") : "white";
      startFromSetup(setup, { mode, side, cube: true });
    },
    say: (text) => app.assist && app.assist.say && app.assist.say(text),
  });
  app.online = new OnlineGame({
    board: app.board,
    onView: (previous, view) => app.assist.onState(previous, view),
    hasLocalGame: () => Boolean(app.game),
    isReviewing: () => app.assist.reviewing(),
    openNewGame,
  });
  for (const button of document.querySelectorAll("#controls [data-action], #rematch-button")) {
    button.addEventListener("click", () => perform(button.dataset.action, {}));
  }
  $("new-game-button").addEventListener("click", openNewGame);
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
  $("new-game-cancel").addEventListener("click", () => $("new-game-dialog").close());
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    app.settings = readNewGameForm();
    saveSettings(app.settings);
    $("new-game-dialog").close();
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
  window.addEventListener("hashchange", () => {
    const id = new URLSearchParams(location.hash.slice(1)).get("game");
    if (id && (!app.game || app.game.id !== id)) resume();
  });
}

/** "13" -> 13; "bar" and "off" stay words, as the API takes them. */
function placeValue(where) {
  return /^\d+$/.test(where) ? Number(where) : where;
}

applyTheme(app.settings.theme);
wire();
resume();
