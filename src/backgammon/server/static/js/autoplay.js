// The settings that act for the player, as other backgammon programs offer them:
// - auto-roll: the dice are rolled by themselves when the player could only roll (no double
//   is possible: no cube, the opponent owns it, the Crawford game, ...); never the opening roll;
// - auto-confirm: a roll with exactly one legal play (the server's `forced_play`) is played and
//   the turn ended by itself.
// The server still checks every action; the page only saves the clicks.

/**
 * What the page should do by itself for `game` with `settings`: {action: "roll"},
 * {action: "forced", moves} or null.
 */
export function automaticAction(game, settings) {
  if (!game || game.result || game.computer_to_act || !game.can) return null;
  if (settings.auto_roll && game.phase === "roll" && game.can.roll && !game.can.double) {
    return { action: "roll" };
  }
  if (settings.auto_confirm && game.phase === "move" && game.forced_play && game.forced_play.length &&
    !game.played.length) {
    return { action: "forced", moves: game.forced_play };
  }
  return null;
}

/** How long the board stays as it is before an automatic roll, in ms (the dice of the turn
 * before can be read). */
export function autoRollPause(speed) {
  return { normal: 900, fast: 300, instant: 0 }[speed] ?? 900;
}
