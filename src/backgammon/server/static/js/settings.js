// Settings that persist between visits (localStorage), and the theme.

const KEY = "backgammon.settings";
const GAME_KEY = "backgammon.game";

export const DEFAULTS = Object.freeze({
  mode: "computer", // "computer" | "pass_and_play"
  level: "easy", // "easy" | "medium" | "hard" | "expert" | "master"
  side: "white", // "white" | "black" | "random"
  kind: "single", // "single" | "match" | "money"
  length: 5, // match length in points
  cube: true,
  gammons: true, // false: every win scores a single game (times the cube)
  jacoby: false, // money play: the Jacoby rule
  beavers: false, // money play: beavers
  time_control: "none", // "none" | "bullet" | "blitz" | "rapid": the clock
  theme: "system", // "system" | "light" | "dark"
  speed: "normal", // "normal" | "fast" | "instant": the computer's moves
  auto_roll: false, // roll by itself when no double is possible (autoplay.js)
  auto_confirm: false, // play a forced play (the roll's only legal play) by itself
  home: "right", // "right" | "left": where the player's home board is drawn
  numbering: "own", // "own" | "mine": the move list's plays each from its side, or all as the board
  tutor: false, // warn before a play or a cube action that loses more than tutor_threshold
  tutor_threshold: 0.04, // equity (EMG): gnubg's doubtful 0.04, bad 0.08, very bad 0.16
  analysis_level: "expert", // "expert" (2-ply) | "master" (3-ply, five to six times as long)
});

function storage() {
  try {
    return window.localStorage;
  } catch (err) {
    return null; // storage disabled: settings last for this visit only
  }
}

/** The saved settings merged over the defaults; unknown or malformed values are ignored. */
export function loadSettings() {
  const store = storage();
  let saved = {};
  try {
    saved = JSON.parse((store && store.getItem(KEY)) || "{}") || {};
  } catch (err) {
    saved = {};
  }
  const result = { ...DEFAULTS };
  for (const [key, value] of Object.entries(saved)) {
    if (key in DEFAULTS && typeof value === typeof DEFAULTS[key]) result[key] = value;
  }
  return result;
}

export function saveSettings(settings) {
  const store = storage();
  if (store) store.setItem(KEY, JSON.stringify(settings));
}

/** Apply the theme: "light", "dark" or "system" (follow prefers-color-scheme). */
export function applyTheme(theme) {
  document.documentElement.dataset.theme = ["light", "dark"].includes(theme) ? theme : "system";
}

/** The id of the game this browser is playing, or null. */
export function loadGameId() {
  const store = storage();
  return (store && store.getItem(GAME_KEY)) || null;
}

export function saveGameId(id) {
  const store = storage();
  if (!store) return;
  if (id) store.setItem(GAME_KEY, id);
  else store.removeItem(GAME_KEY);
}

/** Milliseconds to show each step of the computer's turn. */
export function stepDelay(speed) {
  return { normal: 550, fast: 150, instant: 0 }[speed] ?? 550;
}

/** Forget the saved settings (Options > Clear the settings): the defaults apply again. */
export function clearSettings() {
  const store = storage();
  if (store) store.removeItem(KEY);
}
