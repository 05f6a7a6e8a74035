// Checkers' draws in words, for the page (checkers_main.js) and online play
// (checkers_online.js): why a game was drawn, and the draw a player may claim now.
//
// The ACF plays the WCDF rules harmonised in 2008: a draw by threefold repetition (rule
// 1.32.1) or by the 40-move rule (rule 1.32.2) is claimed by a player while it holds. A table
// whose draws are claimed (view.state.draws === "claim") says which draw the viewer may claim
// (view.state.claimable) and whether it can (view.state.can.claim_draw); a game left unclaimed
// is drawn by itself at a fifth repetition or after 80 moves each (this program's own bound).

/** Why a game was drawn, by the outcome's reason: "The game is drawn <why>." */
export const DRAW_WHY = {
  agreement: "by agreement",
  "threefold repetition": "by threefold repetition: the same position occurred a third time",
  "40-move rule": "by the 40-move rule: 40 moves each without a capture or a man's move",
  "fivefold repetition": "by repetition: the same position occurred a fifth time",
  "80-move limit": "after 80 moves each without a capture or a man's move",
};

/** The claim button's label for a claimable reason. */
export function claimLabel(reason) {
  return `Claim draw (${reason})`;
}

/** What a claim is about, in words: the claimable reason, and how often the position on the
 * board has occurred (`repetitions`). */
export function claimWhy(reason, repetitions) {
  if (reason === "40-move rule") {
    return "40 moves each have been played without a capture or a man's move";
  }
  if (repetitions >= 3) return `this position has occurred ${repetitions} times`;
  return "a move of yours would bring a position back a third time";
}

/** The words of a drawn game: `who` ("You", "Black", ...) claimed it, or it came by itself. */
export function drawnWords(reason, who) {
  const why = DRAW_WHY[reason] || `(${reason})`;
  if (who) return `${who} claimed the draw ${why}.`;
  return `The game is drawn ${why}.`;
}
