// The board as text: one line per quadrant, as a player reads it from their own side, then
// the bar, the checkers borne off and the pip counts. Drawn from the 26-slot board the server
// sends (points[1..24] White positive, Black negative; points[25] White's bar, points[0]
// Black's bar).

function name(color) {
  return color === "white" ? "White" : "Black";
}

/** Pip counts (DESIGN.md): White sums point x checkers, Black (25 - point); the bar is 25. */
export function pipCounts(board) {
  let white = 25 * Math.max(board.points[25], 0);
  let black = 25 * Math.max(-board.points[0], 0);
  for (let p = 1; p <= 24; p++) {
    const n = board.points[p];
    if (n > 0) white += p * n;
    else if (n < 0) black += (25 - p) * -n;
  }
  return { white, black };
}

/**
 * @param {{points: number[], off: {white: number, black: number}}} board
 * @param {"white"|"black"} side whose numbering the points are read in
 * @returns {string[]} five lines
 */
export function boardText(board, side) {
  const other = side === "white" ? "black" : "white";
  const absolute = (n) => (side === "white" ? n : 25 - n);
  const quadrant = (title, from, to) => {
    const items = [];
    for (let n = from; n <= to; n++) {
      const count = board.points[absolute(n)];
      if (count > 0) items.push(`${n}-point: ${count} White`);
      else if (count < 0) items.push(`${n}-point: ${-count} Black`);
    }
    return `${title} (points ${from}-${to}): ${items.length ? items.join(", ") : "empty"}`;
  };
  const bar = [];
  if (board.points[25] > 0) bar.push(`${board.points[25]} White`);
  if (board.points[0] < 0) bar.push(`${-board.points[0]} Black`);
  const pips = pipCounts(board);
  return [
    quadrant(`${name(side)}'s home board`, 1, 6),
    quadrant(`${name(side)}'s outer board`, 7, 12),
    quadrant(`${name(other)}'s outer board`, 13, 18),
    quadrant(`${name(other)}'s home board`, 19, 24),
    `Bar: ${bar.length ? bar.join(", ") : "none"}. Borne off: White ${board.off.white}, ` +
      `Black ${board.off.black}. Pips: White ${pips.white}, Black ${pips.black}.`,
  ];
}
