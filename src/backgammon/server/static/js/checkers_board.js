// The checkerboard, drawn in HTML/CSS (and an SVG layer for the move lines) from the view the
// server sends, and the person's moves made on it.
//
// PDN numbers the 32 dark squares from Black's side: seen from White's side, row 0 at the top
// holds squares 1-4 in columns 1, 3, 5, 7; row 1 holds 5-8 in columns 0, 2, 4, 6; and so on to
// row 7 (29-32). Black's men start on 1-12, White's on 21-32. Seen from Black's side (the
// viewer "black") the board is turned round.
//
// Every size is a multiple of --u, one square's width, so the board scales from a phone to a
// desktop. Pieces are <div class="ck-piece" data-square="N" data-color="black|white"
// data-king="0|1">; dark squares are <div class="ck-sq dark" data-square="N">.
//
// The board decides no rule. It offers the moves the server listed (each legal move's full
// path): a multi-jump is built hop by hop, each landing a square that some legal path takes
// next, and handed to `onMove` as one path when the hops so far are a complete legal path that
// no longer legal path continues. A move the server did not list (a piece that cannot move
// put down somewhere) goes to `onRefused`, for the server to say in words why not.
//
// The keyboard plays as the pointer does: with the board focused and the person to move, the
// arrow keys move a cursor over the squares (it starts on a piece that can move), Enter or
// Space picks up the piece under it or puts the piece in hand down there (a hop at a time),
// Escape puts the piece back; `onCursor` gets the square under the cursor in words. While
// nobody may move, the arrow keys are left to the page (review).

import { part } from "./dom.js";
import { capturePointer, follow, letGo } from "./drag.js";

const SVG = "http://www.w3.org/2000/svg";
const FRAME = 0.3; // the frame round the squares, in units
export const SIZE = 8 + 2 * FRAME;

/** Row and column of a PDN square seen from White's side (row 0 at the top). */
export function rowCol(square) {
  const row = Math.floor((square - 1) / 4);
  const place = (square - 1) % 4;
  return [row, row % 2 === 0 ? 2 * place + 1 : 2 * place];
}

/** The square at a row and column seen from White's side, or 0 for a light square. */
export function squareAt(row, col) {
  if (row < 0 || row > 7 || col < 0 || col > 7 || (row + col) % 2 === 0) return 0;
  return row * 4 + Math.floor(col / 2) + 1;
}

/** The square between two squares a jump apart, or 0 when they are not. */
export function jumpedSquare(a, b) {
  const [ra, ca] = rowCol(a);
  const [rb, cb] = rowCol(b);
  if (Math.abs(ra - rb) !== 2 || Math.abs(ca - cb) !== 2) return 0;
  return squareAt((ra + rb) / 2, (ca + cb) / 2);
}

/** The squares a path's jumps pass over (display only: the server says what was captured). */
export function jumpedSquares(path) {
  const out = [];
  for (let i = 1; i < path.length; i++) {
    const over = jumpedSquare(path[i - 1], path[i]);
    if (over) out.push(over);
  }
  return out;
}

function startsWith(path, prefix) {
  return prefix.every((square, i) => path[i] === square);
}

function crown() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "ck-crown");
  svg.setAttribute("aria-hidden", "true");
  const shape = document.createElementNS(SVG, "path");
  shape.setAttribute("d", "M3 8 L7.5 12 L12 5 L16.5 12 L21 8 L19 18 H5 Z");
  const band = document.createElementNS(SVG, "rect");
  band.setAttribute("x", "5");
  band.setAttribute("y", "19");
  band.setAttribute("width", "14");
  band.setAttribute("height", "2.2");
  band.setAttribute("rx", "0.6");
  svg.append(shape, band);
  return svg;
}

export class CheckersBoard {
  /**
   * @param {HTMLElement} root the #board element
   * @param {{onMove: (path: number[]) => void, onRefused: (path: number[]) => void,
   *   onChain?: (chain: number[]) => void, onCursor?: (words: string) => void}} handlers
   *   onMove with a whole legal path; onRefused with a path the server did not list; onChain
   *   whenever the hops in hand change; onCursor when the keyboard's cursor moves
   */
  constructor(root, handlers) {
    this.root = root;
    this.handlers = handlers;
    this.viewer = "white";
    this.board = {}; // square (string) -> "b" | "B" | "w" | "W"
    this.legal = [];
    this.mover = null; // "black" | "white": whose pieces may be picked up
    this.enabled = false;
    this.chain = []; // [origin, landing, landing, ...] of the move being built
    this.lastMove = null;
    this.pieces = new Map(); // square -> element
    this.drag = null;
    this.cursor = null; // [x, y] on the screen's grid while the keyboard's cursor shows
    root.style.setProperty("--board-size", String(SIZE));
    this.build();
    root.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    root.addEventListener("pointermove", (e) => this.onPointerMove(e));
    root.addEventListener("pointerup", (e) => this.onPointerUp(e));
    root.addEventListener("pointercancel", () => this.cancelDrag());
    root.addEventListener("dragstart", (e) => e.preventDefault());
    root.addEventListener("keydown", (e) => this.onKeyDown(e));
    root.addEventListener("focus", () => this.showCursor());
    root.addEventListener("blur", () => this.hideCursor());
  }

  build() {
    this.root.replaceChildren();
    this.root.dataset.viewer = this.viewer;
    this.squaresLayer = part("div", "ck-squares", this.root);
    this.squares = new Map();
    for (let r = 0; r < 8; r++) {
      for (let c = 0; c < 8; c++) {
        const square = squareAt(r, c);
        const cell = part("div", square ? "ck-sq dark" : "ck-sq light", this.squaresLayer);
        this.placeAt(cell, r, c);
        if (!square) continue;
        cell.dataset.square = String(square);
        this.squares.set(square, cell);
      }
    }
    this.lines = document.createElementNS(SVG, "svg");
    this.lines.setAttribute("class", "ck-lines");
    this.lines.setAttribute("viewBox", "0 0 8 8");
    this.lines.setAttribute("aria-hidden", "true");
    this.root.appendChild(this.lines);
    this.piecesLayer = part("div", "ck-pieces-layer", this.root);
    this.pieces = new Map();
    this.cursorNode = part("div", "ck-cursor", this.root);
    this.cursorNode.hidden = true;
    // The square numbers, above the pieces (in each square's top left corner).
    const numbers = part("div", "ck-numbers", this.root);
    numbers.setAttribute("aria-hidden", "true");
    for (const square of this.squares.keys()) {
      const number = part("span", "ck-num", numbers);
      number.textContent = String(square);
      number.dataset.square = String(square);
      this.place(number, square);
    }
  }

  /** Where a square is drawn: [x, y] in units from the squares' top left, for this viewer. */
  xy(square) {
    const [row, col] = rowCol(square);
    return this.viewer === "black" ? [7 - col, 7 - row] : [col, row];
  }

  placeAt(node, row, col) {
    const [x, y] = this.viewer === "black" ? [7 - col, 7 - row] : [col, row];
    node.style.setProperty("--x", String(x));
    node.style.setProperty("--y", String(y));
  }

  place(node, square) {
    const [x, y] = this.xy(square);
    node.style.setProperty("--x", String(x));
    node.style.setProperty("--y", String(y));
  }

  /** Turn the board so that `viewer`'s side is at the bottom. */
  setViewer(viewer) {
    const wanted = viewer === "black" ? "black" : "white";
    if (wanted === this.viewer) return;
    this.viewer = wanted;
    this.build();
    this.drawPieces(false);
    this.refresh();
  }

  setNumbers(show) {
    this.root.classList.toggle("no-numbers", !show);
  }

  /**
   * Draw a view's state: `state.board`, `state.legal`, `state.last_move`; `mover` is the side
   * whose pieces may be picked up now (null: none). The move in hand is dropped.
   */
  show(state, { mover = null, animate = true } = {}) {
    this.board = { ...state.board };
    this.legal = (state.legal || []).map((path) => path.slice());
    this.mover = mover;
    this.lastMove = state.last_move;
    this.chain = [];
    this.cursor = null; // a new position: the cursor starts again on a piece that can move
    this.cancelDrag();
    this.root.dataset.fen = state.fen || "";
    this.drawPieces(animate);
    this.refresh();
    this.emitChain();
  }

  /** Draw the position with `path` played (before the server's answer comes). */
  showPending(path) {
    const code = this.board[String(path[0])];
    if (!code) return;
    const board = { ...this.board };
    delete board[String(path[0])];
    for (const over of jumpedSquares(path)) delete board[String(over)];
    board[String(path[path.length - 1])] = code;
    this.board = board;
    this.lastMove = { path, captures: jumpedSquares(path) };
    this.legal = [];
    this.chain = [];
    this.cancelDrag();
    this.drawPieces(false, path);
    this.refresh();
    this.emitChain();
  }

  setEnabled(enabled) {
    this.enabled = enabled;
    this.root.classList.toggle("interactive", enabled);
    if (enabled && document.activeElement === this.root) this.showCursor();
    if (!enabled) {
      this.hideCursor();
      this.cancelDrag();
      if (this.chain.length) {
        this.chain = [];
        this.emitChain();
      }
    }
    this.refresh();
  }

  /**
   * Put the pieces of `this.board` on their squares. With `animate`, the piece of the last
   * move slides from its origin; `moved`: a path whose piece is already drawn at its origin
   * and is moved there without a slide (the person's own move).
   */
  drawPieces(animate, moved = null) {
    const old = this.pieces;
    const next = new Map();
    const last = this.lastMove && this.lastMove.path;
    const carry = moved || (animate ? last : null);
    if (carry) {
      const from = carry[0];
      const to = carry[carry.length - 1];
      const node = old.get(from);
      const code = this.board[String(to)];
      if (node && code && node.dataset.color === (code.toLowerCase() === "b" ? "black" : "white")
          && !this.board[String(from)]) {
        old.delete(from);
        node.classList.remove("dragging", "dropped");
        node.style.transform = "";
        node.classList.toggle("no-slide", Boolean(moved));
        this.setPiece(node, to, code);
        next.set(to, node);
      }
    }
    for (const [key, code] of Object.entries(this.board)) {
      const square = Number(key);
      if (next.has(square)) continue;
      let node = old.get(square);
      if (node && node.dataset.code === code) {
        old.delete(square);
        node.classList.remove("dragging", "dropped", "no-slide");
        node.style.transform = "";
      } else {
        node = part("div", "ck-piece no-slide", this.piecesLayer);
      }
      this.setPiece(node, square, code);
      next.set(square, node);
    }
    for (const node of old.values()) node.remove();
    this.pieces = next;
  }

  setPiece(node, square, code) {
    node.dataset.square = String(square);
    node.dataset.code = code;
    node.dataset.color = code.toLowerCase() === "b" ? "black" : "white";
    const king = code === code.toUpperCase();
    if ((node.dataset.king === "1") !== king || !node.firstChild) {
      node.replaceChildren();
      if (king) node.appendChild(crown());
    }
    node.dataset.king = king ? "1" : "0";
    node.title = `${node.dataset.color === "black" ? "Black" : "White"} ${king ? "king" : "man"} on ${square}`;
    this.place(node, square);
  }

  // ------------------------------------------------------------------ the move in hand

  /** The legal paths that begin with the hops in hand. */
  candidates(chain = this.chain) {
    return this.legal.filter((path) => path.length >= chain.length && startsWith(path, chain));
  }

  /** The squares the piece in hand may land on next. */
  targets() {
    if (!this.chain.length) return new Set();
    const n = this.chain.length;
    return new Set(this.candidates().filter((p) => p.length > n).map((p) => p[n]));
  }

  origins() {
    return new Set(this.legal.map((path) => path[0]));
  }

  /** The square where the piece in hand stands now. */
  current() {
    return this.chain.length ? this.chain[this.chain.length - 1] : 0;
  }

  own(square) {
    const code = this.board[String(square)];
    return Boolean(code && this.mover && code.toLowerCase() === this.mover[0]);
  }

  /** Take back the last hop of the move in hand (the piece itself stays picked up). */
  undoHop() {
    if (this.chain.length > 1) {
      this.chain = this.chain.slice(0, -1);
    } else {
      this.chain = [];
    }
    this.cancelDrag();
    this.refresh();
    this.emitChain();
  }

  /** Put the piece in hand back where it started. */
  cancelChain() {
    this.chain = [];
    this.cancelDrag();
    this.refresh();
    this.emitChain();
  }

  hops() {
    return Math.max(0, this.chain.length - 1);
  }

  emitChain() {
    this.root.dataset.chain = this.chain.join("-");
    if (this.handlers.onChain) this.handlers.onChain(this.chain.slice());
  }

  pick(square) {
    this.chain = [square];
    this.refresh();
    this.emitChain();
  }

  /**
   * The person chose `square` with a piece in hand: a hop (or several, when `square` lies
   * further along exactly one way), a move the server did not list, or nothing.
   */
  land(square) {
    const n = this.chain.length;
    if (this.targets().has(square)) {
      this.chain = [...this.chain, square];
    } else {
      const along = this.candidates().filter((p) => p.indexOf(square, n) >= n);
      const ends = new Set(along.map((p) => p.slice(0, p.indexOf(square, n) + 1).join("-")));
      if (ends.size !== 1) {
        // Not a way the server offered: it says why (all hops in hand, then this square).
        if (!this.board[String(square)] || square === this.chain[0]) {
          const path = [...this.chain, square];
          this.handlers.onRefused(path);
        }
        return;
      }
      const path = along[0];
      this.chain = path.slice(0, path.indexOf(square, n) + 1);
    }
    const left = this.candidates();
    const complete = left.some((p) => p.length === this.chain.length);
    const longer = left.some((p) => p.length > this.chain.length);
    if (complete && !longer) {
      const path = this.chain.slice();
      this.handlers.onMove(path);
      return;
    }
    this.refresh();
    this.emitChain();
  }

  // ------------------------------------------------------------------ marks

  refresh() {
    const root = this.root;
    for (const node of root.querySelectorAll(".movable, .selected, .target, .landing, .taken, .last-path, .last-captured, .origin")) {
      node.classList.remove("movable", "selected", "target", "landing", "taken", "last-path", "last-captured", "origin");
    }
    for (const node of root.querySelectorAll(".ck-step")) node.remove();
    this.lines.replaceChildren();
    const chain = this.chain;
    // The piece in hand is drawn where its hops have taken it.
    for (const [square, node] of this.pieces) {
      const at = chain.length > 1 && square === chain[0] ? chain[chain.length - 1] : square;
      this.place(node, at);
    }
    if (this.lastMove && this.lastMove.path && !chain.length) {
      const path = this.lastMove.path;
      for (const square of path) this.squares.get(square)?.classList.add("last-path");
      for (const square of this.lastMove.captures || []) this.squares.get(square)?.classList.add("last-captured");
      this.drawLine(path, "ck-line-last");
    }
    if (!this.enabled || !this.mover) return;
    if (chain.length <= 1) {
      // The pieces that can move (the others stay marked while one is picked up).
      for (const square of this.origins()) this.pieces.get(square)?.classList.add("movable");
      if (!chain.length) return;
    }
    const origin = chain[0];
    this.pieces.get(origin)?.classList.add("selected");
    if (chain.length > 1) {
      this.squares.get(origin)?.classList.add("origin");
      chain.slice(1).forEach((square, i) => {
        const cell = this.squares.get(square);
        if (!cell) return;
        cell.classList.add("landing");
        const step = part("span", "ck-step", cell);
        step.textContent = String(i + 1);
      });
      for (const over of jumpedSquares(chain)) this.pieces.get(over)?.classList.add("taken");
      this.drawLine(chain, "ck-line-chain");
    }
    for (const square of this.targets()) this.squares.get(square)?.classList.add("target");
  }

  // ------------------------------------------------------------------ keyboard input

  /** The square (0 for a light one) at the screen's grid place [x, y] for this viewer. */
  squareAtScreen(x, y) {
    return this.viewer === "black" ? squareAt(7 - y, 7 - x) : squareAt(y, x);
  }

  /** Show the cursor (on focus, while the person may move): on the piece in hand, else on
   * the first piece that can move. */
  showCursor() {
    if (!this.enabled || !this.mover) return;
    if (!this.cursor) {
      const origins = [...this.origins()].sort((a, b) => a - b);
      const square = this.current() || origins[0] || 0;
      this.cursor = square ? this.xy(square) : [3, 4];
    }
    this.drawCursor();
  }

  hideCursor() {
    this.cursorNode.hidden = true;
    this.root.removeAttribute("data-cursor");
  }

  drawCursor() {
    if (!this.cursor) return;
    const [x, y] = this.cursor;
    this.cursorNode.style.setProperty("--x", String(x));
    this.cursorNode.style.setProperty("--y", String(y));
    this.cursorNode.hidden = false;
    const square = this.squareAtScreen(x, y);
    this.root.dataset.cursor = String(square);
    if (this.handlers.onCursor) this.handlers.onCursor(this.describe(square));
  }

  /** A square in words, for the person who cannot see the board. */
  describe(square) {
    if (!square) return "A light square: pieces never stand there.";
    const code = this.board[String(square)];
    let words = `Square ${square}: `;
    if (code) {
      const color = code.toLowerCase() === "b" ? "black" : "white";
      words += `${color} ${code === code.toUpperCase() ? "king" : "man"}`;
    } else words += "empty";
    if (this.chain.length && square === this.current()) words += ", the piece in hand";
    else if (this.targets().has(square)) words += ", the piece in hand can land here";
    else if (!this.chain.length && this.origins().has(square)) words += ", can move";
    return `${words}.`;
  }

  onKeyDown(event) {
    if (!this.enabled || !this.mover || event.altKey || event.ctrlKey || event.metaKey) return;
    const step = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] }[event.key];
    if (step) {
      if (!this.cursor) this.showCursor();
      else {
        const [x, y] = this.cursor;
        this.cursor = [Math.max(0, Math.min(7, x + step[0])), Math.max(0, Math.min(7, y + step[1]))];
        this.drawCursor();
      }
    } else if (event.key === "Enter" || event.key === " ") {
      if (!this.cursor) this.showCursor();
      const square = this.squareAtScreen(...this.cursor);
      if (square) this.onClick(square);
      if (this.enabled && this.cursor) this.drawCursor();
    } else if (event.key === "Escape" && this.chain.length) {
      this.cancelChain();
      this.drawCursor();
    } else return;
    event.preventDefault();
    event.stopPropagation(); // the page's own keys (review) wait while the board has them
  }

  drawLine(path, className) {
    if (path.length < 2) return;
    const points = path.map((square) => {
      const [x, y] = this.xy(square);
      return `${x + 0.5},${y + 0.5}`;
    });
    const line = document.createElementNS(SVG, "polyline");
    line.setAttribute("points", points.join(" "));
    line.setAttribute("class", className);
    this.lines.appendChild(line);
    const [x, y] = this.xy(path[path.length - 1]);
    const dot = document.createElementNS(SVG, "circle");
    dot.setAttribute("cx", String(x + 0.5));
    dot.setAttribute("cy", String(y + 0.5));
    dot.setAttribute("r", "0.09");
    dot.setAttribute("class", `${className} ck-line-end`);
    this.lines.appendChild(dot);
  }

  // ------------------------------------------------------------------ pointer input

  squareUnder(x, y) {
    const hits = document.elementsFromPoint(x, y);
    for (const hit of hits) {
      if (!this.root.contains(hit)) continue;
      const cell = hit.closest(".ck-sq.dark");
      if (cell) return Number(cell.dataset.square);
    }
    return 0;
  }

  /** The square a pointer event is on: the square under it (a piece in hand stands elsewhere). */
  squareOf(event) {
    return this.squareUnder(event.clientX, event.clientY);
  }

  onPointerDown(event) {
    if (!this.enabled || event.button > 0) return;
    const square = this.squareOf(event);
    this.drag = { x: event.clientX, y: event.clientY, square, moved: false, node: null };
    // The piece that may be dragged: the one in hand (where its hops put it) or an own piece.
    const inHand = this.chain.length && square === this.current();
    const pickable = !this.chain.length || this.chain.length === 1 || inHand;
    if (square && (inHand || (pickable && this.own(square)))) {
      const from = inHand ? this.chain[0] : square;
      this.drag.node = this.pieces.get(from) || null;
      this.drag.from = square;
      capturePointer(this.root, event);
    }
    event.preventDefault();
  }

  onPointerMove(event) {
    const drag = this.drag;
    const moving = follow(drag, event, () => {
      if (!this.chain.length || (this.chain.length === 1 && this.chain[0] !== drag.from)) this.pick(drag.from);
    });
    if (!moving) return;
    const over = this.squareUnder(event.clientX, event.clientY);
    for (const cell of this.root.querySelectorAll(".ck-sq.hover")) cell.classList.remove("hover");
    if (over && this.targets().has(over)) this.squares.get(over)?.classList.add("hover");
  }

  onPointerUp(event) {
    const drag = this.drag;
    this.drag = null;
    if (!drag) return;
    for (const cell of this.root.querySelectorAll(".ck-sq.hover")) cell.classList.remove("hover");
    if (drag.moved) {
      const over = this.squareUnder(event.clientX, event.clientY);
      letGo(drag.node);
      drag.node.classList.add("dropped"); // no slide back from where it was let go
      requestAnimationFrame(() => drag.node.classList.remove("dropped"));
      if (over && over !== drag.from) this.land(over);
      else this.refresh();
      return;
    }
    this.onClick(drag.square);
  }

  onClick(square) {
    if (!square) return;
    const chain = this.chain;
    if (!chain.length) {
      if (this.own(square)) this.pick(square);
      return;
    }
    if (chain.length === 1) {
      if (square === chain[0]) {
        this.cancelChain();
      } else if (this.own(square)) {
        this.pick(square);
      } else {
        this.land(square);
      }
      return;
    }
    // Hops in hand.
    if (square === this.current()) {
      const left = this.candidates();
      if (left.some((p) => p.length === chain.length)) this.handlers.onMove(chain.slice());
      return;
    }
    if (this.own(square) && square !== chain[0] && this.origins().has(square)) {
      this.pick(square); // another piece: the hops in hand are put back
      return;
    }
    this.land(square);
  }

  cancelDrag() {
    if (this.drag) letGo(this.drag.node);
    this.drag = null;
  }
}
