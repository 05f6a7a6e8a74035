// What the page shows of the dice between actions, so that no roll goes unseen:
// - the opening roll: each side's die on its own half, with who won it, also while the
//   computer plays its first turn (it waits a moment first, so the roll can be read);
// - the dice of the turn before stay on the board (faded) until the next roll, so the
//   computer's roll is still there after its playback;
// - a roll that cannot be played shows "No legal move" and stays for a moment (PASS_HOLD_MS,
//   or until the player clicks or presses a key) before the turn passes on.
// The page decides no rule: the server says who rolled what and whether it could be played.

/** How long a roll that cannot be played stays before the turn passes, in ms. */
export const PASS_HOLD_MS = 1500;
/** The label on the board for a roll that cannot be played. */
export const NO_MOVE = "No legal move";

/** How long the opening roll won by the computer is shown before its play, in ms. */
export function openingHold(speed) {
  return { normal: 1200, fast: 600, instant: 0 }[speed] ?? 1200;
}

/** How long a pass is held at `speed` ("Instant" holds nothing). */
export function passHold(speed) {
  return speed === "instant" ? 0 : PASS_HOLD_MS;
}

/** "Opening roll: Computer (Easy) 5, You 3." from a state with its opening roll. */
export function openingText(game) {
  const opening = game.opening;
  if (!opening) return "";
  const first = opening.white > opening.black ? "white" : "black";
  const second = first === "white" ? "black" : "white";
  const name = (color) => game.players[color].name;
  return `Opening roll: ${name(first)} ${opening[first]}, ${name(second)} ${opening[second]}.`;
}

/** Draw the dice of a state: the roll being played, or the turn before's until the next. */
export function drawStateDice(board, game) {
  if (game.dice) {
    board.drawDice(game.dice, game.dice_left, game.turn, game.opening);
    return;
  }
  const last = game.last_turn;
  if (last && last.dice) {
    const label = last.cannot_move && game.phase === "roll" ? NO_MOVE : null;
    board.drawDice(last.dice, [], last.color, null, { last: true, label });
    return;
  }
  board.drawDice(null, [], null, null);
}

/** Whether the state follows a person's roll that could not be played, the computer to act. */
export function personPassed(game) {
  const last = game.last_turn;
  return Boolean(game.computer_to_act && last && last.cannot_move &&
    !(game.players[last.color] && game.players[last.color].computer));
}

/**
 * Wait `ms`, or less when the player acknowledges (a click or touch anywhere, or a key).
 * While it waits, `document.body.dataset.holding` is `what`.
 */
export function hold(ms, what = "pass") {
  if (!ms) return Promise.resolve();
  return new Promise((resolve) => {
    const body = document.body;
    const done = () => {
      clearTimeout(timer);
      document.removeEventListener("pointerdown", done, true);
      document.removeEventListener("keydown", done, true);
      delete body.dataset.holding;
      resolve();
    };
    const timer = setTimeout(done, ms);
    document.addEventListener("pointerdown", done, true);
    document.addEventListener("keydown", done, true);
    body.dataset.holding = what;
  });
}
