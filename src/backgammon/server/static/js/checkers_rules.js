// The checkers rules page: each worked example (GET /api/checkers/rules/examples: the
// position, its legal moves and outcome as the engine works them out) drawn on a small board
// where its <div class="ck-example" data-example="id"> stands, with its caption and moves.
//
// Test hook: <body data-ready="1"> once every example is drawn; each example's board has
// data-fen.

import { request } from "./api.js";
import { CheckersBoard } from "./checkers_board.js";
import { el } from "./dom.js";
import { applyTheme, loadSettings } from "./settings.js";

const NAME = { black: "Black", white: "White" };

function draw(holder, example) {
  holder.replaceChildren();
  const root = el("div", undefined, "ck-board");
  root.setAttribute("role", "img");
  holder.appendChild(root);
  const board = new CheckersBoard(root, { onMove: () => {}, onRefused: () => {} });
  // Black at the bottom when Black is to move, as a player of that side sees it.
  board.setViewer(example.turn);
  board.show({ board: example.board, legal: [], last_move: example.shown, fen: example.fen },
    { animate: false });
  root.setAttribute("aria-label",
    `${example.title}: ${NAME[example.turn]} to move, position ${example.fen}`);
  holder.appendChild(el("p", example.caption, "ck-example-caption"));
  const moves = el("p", undefined, "ck-example-moves");
  if (example.legal.length) {
    moves.append(`${NAME[example.turn]}'s legal moves: `);
    moves.appendChild(el("strong", example.legal.join(", ")));
  } else {
    moves.append(`${NAME[example.turn]} has no legal move: `);
    moves.appendChild(el("strong", example.outcome || "the game is over"));
  }
  moves.append(` (position ${example.fen})`);
  holder.appendChild(moves);
}

async function init() {
  applyTheme(loadSettings().theme);
  try {
    const { examples } = await request("GET", "/api/checkers/rules/examples");
    const byId = new Map(examples.map((example) => [example.id, example]));
    for (const holder of document.querySelectorAll(".ck-example[data-example]")) {
      const example = byId.get(holder.dataset.example);
      if (example) draw(holder, example);
    }
  } catch (err) {
    for (const holder of document.querySelectorAll(".ck-example[data-example]")) {
      holder.textContent = "The example could not be loaded.";
    }
  }
  document.body.dataset.ready = "1";
}

init();
