// Stepping through a checkers game: the frames the server sends (backgammon/server/
// checkers_api.py: a table's game, or each game of a PDN file) and the move list in PDN.
//
// Frames: {start, first: "black"|"white", moves: [{text, path, captures, side, number}],
// boards: [32 letters per position, squares 1-32: b/w a man, B/W a king, "." empty]};
// boards[i] is the position before moves[i]. A place in the game is a ply: 0 the start,
// i the position after moves[i - 1].

/** The board of a frame as the board view takes it: {square: "b"|"B"|"w"|"W"}. */
export function boardOf(letters) {
  const board = {};
  for (let i = 0; i < letters.length; i++) {
    if (letters[i] !== ".") board[String(i + 1)] = letters[i];
  }
  return board;
}

/** Men and kings of each side on a frame's board: {black: {men, kings}, white: {...}}. */
export function countPieces(letters) {
  const count = { black: { men: 0, kings: 0 }, white: { men: 0, kings: 0 } };
  for (const letter of letters) {
    if (letter === "b") count.black.men++;
    else if (letter === "B") count.black.kings++;
    else if (letter === "w") count.white.men++;
    else if (letter === "W") count.white.kings++;
  }
  return count;
}

/** The state the board view draws for `ply` of `frames` (nobody may move). */
export function frameState(frames, ply) {
  const last = ply > 0 ? frames.moves[ply - 1] : null;
  return {
    board: boardOf(frames.boards[ply]),
    legal: [],
    last_move: last ? { path: last.path, captures: last.captures } : null,
    fen: "",
  };
}

/** The pieces each side has lost by `ply`: {black: {men, kings}, white: {...}} against the
 * start of the game (what was captured, a man crowned counted as a man lost and a king won). */
export function capturedBy(frames, ply) {
  const start = countPieces(frames.boards[0]);
  const now = countPieces(frames.boards[ply]);
  const lost = {};
  for (const side of ["black", "white"]) {
    lost[side] = start[side].men + start[side].kings - now[side].men - now[side].kings;
  }
  return lost;
}

/** How a move reads in words: "White's 23x14 (move 3)". */
export function moveWords(move) {
  const side = move.side === "black" ? "Black" : "White";
  return `${side}'s ${move.text} (move ${move.number})`;
}

/**
 * Moves from a live view's state in the frames' shape: [{text, side, number}] (the first
 * mover is the side to move after an even number of moves).
 */
export function liveMoves(state) {
  const moves = state.moves || [];
  const first = moves.length % 2 === 0 ? state.turn : state.turn === "black" ? "white" : "black";
  const offset = first === "black" ? 0 : 1;
  return moves.map((text, i) => ({
    text,
    side: (i + offset) % 2 === 0 ? "black" : "white",
    number: Math.floor((i + offset) / 2) + 1,
  }));
}

/**
 * Draw the move list in PDN: one row a move number, Black's move then White's ("1. 11-15
 * 23-19"), "…" where a game begins with White's move. Each move is a button with data-ply
 * (the position after it); `current` is the ply shown (null: none marked).
 */
export function renderMoveList(list, moves, current = null) {
  list.replaceChildren();
  const rows = [];
  moves.forEach((move, i) => {
    let row = rows[rows.length - 1];
    if (!row || row.number !== move.number) {
      row = { number: move.number, black: null, white: null };
      rows.push(row);
    }
    row[move.side] = { move, ply: i + 1 };
  });
  for (const row of rows) {
    const li = document.createElement("li");
    const number = document.createElement("span");
    number.className = "ck-no";
    number.textContent = `${row.number}.`;
    li.appendChild(number);
    for (const side of ["black", "white"]) {
      const entry = row[side];
      if (!entry) {
        const gap = document.createElement("span");
        gap.className = `ck-mv ck-gap ${side}`;
        gap.textContent = side === "black" ? "…" : "";
        li.appendChild(gap);
        continue;
      }
      const button = document.createElement("button");
      button.type = "button";
      button.className = `ck-mv ${side}`;
      button.textContent = entry.move.text;
      button.dataset.ply = String(entry.ply);
      button.title = `Show the position after ${moveWords(entry.move)}`;
      if (current === entry.ply) {
        button.classList.add("current");
        button.setAttribute("aria-current", "step");
      }
      li.appendChild(button);
    }
    list.appendChild(li);
  }
  const marked = list.querySelector(".ck-mv.current");
  if (marked) {
    // Only the list scrolls (the list is the buttons' offset parent), never the page.
    const row = marked.parentElement;
    if (row.offsetTop < list.scrollTop || row.offsetTop + row.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = row.offsetTop - list.clientHeight / 2;
    }
  } else list.scrollTop = list.scrollHeight;
}
