// Playing without a mouse.
//
// The board is one tab stop (role="application"). On it the arrow keys move a cursor between
// the points, the bar and the trays, as they lie on the screen (left and right along a row,
// up and down between the rows); Enter or Space picks up the checker under the cursor and puts
// it down on a lit destination; Escape puts it back. Anywhere on the page (not while typing in
// a field or with a dialog open): R rolls, D ends the turn (Done), U undoes, H toggles hints,
// C doubles, T takes, P drops (passes), N starts the next game, V reviews, B reads the board,
// and in review the arrow keys, Home and End step through the turns (H still toggles hints).
//
// The keys press the page's own buttons, so what is allowed is what the server said; a move
// the server did not offer is sent to it to be explained.

const $ = (id) => document.getElementById(id);

/** The action keys and the buttons they press. */
export const ACTION_KEYS = Object.freeze({
  r: "roll-button",
  d: "done-button",
  u: "undo-button",
  c: "double-button",
  t: "take-button",
  p: "drop-button",
  n: "next-game-button",
});

function typing(target) {
  if (!target || !(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName);
}

export class Keyboard {
  /**
   * @param {object} hooks
   * @param {import("./board.js").BoardView} hooks.board
   * @param {import("./review.js").Review} hooks.review
   * @param {import("./hints.js").Hints} hooks.hints
   * @param {() => object|null} hooks.getGame the live state
   * @param {(text: string) => void} hooks.say announce a line
   * @param {() => void} hooks.readBoard announce the board as text
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.cursor = null; // {row: "top"|"bottom", index}
    const root = hooks.board.root;
    root.tabIndex = 0;
    root.setAttribute("role", "application");
    root.setAttribute("aria-roledescription", "backgammon board");
    root.setAttribute(
      "aria-label",
      "Board. Arrow keys choose a point, Enter picks a checker up and puts it down, Escape puts it back.",
    );
    root.addEventListener("focus", () => {
      if (!this.cursor) this.cursor = this.initialCursor();
      this.draw();
    });
    root.addEventListener("pointerdown", () => root.classList.remove("kbd-active"));
    document.addEventListener("keydown", (event) => this.onKey(event));
  }

  /** Zones of a row, left to right as drawn: points, the bar (in both rows), a tray. */
  row(name) {
    const root = this.hooks.board.root;
    const nodes = [...root.querySelectorAll(".point, .bar-zone, .tray")].filter(
      (node) => node.classList.contains("bar-zone") || node.classList.contains(name),
    );
    const x = (node) => parseFloat(node.style.getPropertyValue("--x")) || 0;
    return nodes.sort((a, b) => x(a) - x(b));
  }

  initialCursor() {
    const board = this.hooks.board;
    for (const name of ["bottom", "top"]) {
      const nodes = this.row(name);
      const index = nodes.findIndex((node) => board.sources.has(node.dataset.point));
      if (index >= 0) return { row: name, index };
    }
    return { row: "bottom", index: 0 };
  }

  /** The zone under the cursor. */
  current() {
    if (!this.cursor) return null;
    const nodes = this.row(this.cursor.row);
    if (!nodes.length) return null;
    this.cursor.index = Math.max(0, Math.min(nodes.length - 1, this.cursor.index));
    return nodes[this.cursor.index];
  }

  /** Redraw the cursor (after the board was redrawn or rebuilt). */
  draw() {
    const root = this.hooks.board.root;
    for (const node of root.querySelectorAll(".kbd-cursor")) node.classList.remove("kbd-cursor");
    const node = this.current();
    if (!node) return;
    node.classList.add("kbd-cursor");
    node.id = `zone-${this.cursor.row}-${node.dataset.point}`;
    node.setAttribute("role", "button");
    node.setAttribute("aria-label", this.describe(node));
    root.setAttribute("aria-activedescendant", node.id);
    root.dataset.cursor = node.dataset.point;
  }

  /** The viewer's number for a place: "13" -> "13-point" in the numbering shown. */
  placeName(where) {
    if (where === "bar") return "the bar";
    if (where === "off") return "off";
    const labels = this.hooks.board.labels || "white";
    const n = labels === "white" ? Number(where) : 25 - Number(where);
    return `the ${n}-point`;
  }

  describe(node) {
    const board = this.hooks.board;
    const where = node.dataset.point;
    let words = where === "off" ? `the ${node.dataset.color} tray` : this.placeName(where);
    const counts = [];
    for (const color of ["white", "black"]) {
      const here = board.checkersAt(color, where).length;
      if (here && (where !== "off" || node.dataset.color === color)) counts.push(`${here} ${color}`);
    }
    words += counts.length ? `: ${counts.join(", ")}` : ": empty";
    if (board.selected === where) words += ", picked up";
    else if (board.targetOf(where)) words += ", a destination";
    else if (board.enabled && board.sources.has(where)) words += ", can move";
    return words;
  }

  move(key) {
    if (!this.cursor) this.cursor = this.initialCursor();
    const nodes = this.row(this.cursor.row);
    const count = nodes.length;
    if (key === "ArrowLeft") this.cursor.index = (this.cursor.index - 1 + count) % count;
    else if (key === "ArrowRight") this.cursor.index = (this.cursor.index + 1) % count;
    else if (key === "Home") this.cursor.index = 0;
    else if (key === "End") this.cursor.index = count - 1;
    else {
      // Up and down: the zone of the other row nearest in x.
      const here = nodes[this.cursor.index];
      const x = parseFloat(here.style.getPropertyValue("--x")) || 0;
      const name = this.cursor.row === "top" ? "bottom" : "top";
      const other = this.row(name);
      let best = 0;
      other.forEach((node, i) => {
        const dx = Math.abs((parseFloat(node.style.getPropertyValue("--x")) || 0) - x);
        const bestDx = Math.abs((parseFloat(other[best].style.getPropertyValue("--x")) || 0) - x);
        if (dx < bestDx) best = i;
      });
      this.cursor = { row: name, index: best };
    }
    this.draw();
  }

  /** Enter on the zone under the cursor: pick up, put down, or ask why not. */
  activate() {
    const node = this.current();
    if (!node) return;
    const board = this.hooks.board;
    const where = node.dataset.point;
    if (!board.enabled) {
      const game = this.hooks.getGame();
      this.hooks.say(`Nothing to move now. ${game ? game.message : ""}`.trim());
      return;
    }
    if (board.selected) {
      const dest = board.targetOf(where);
      if (dest) {
        board.handlers.onMove(board.selected, dest.to);
        return;
      }
      if (where === board.selected) {
        this.putBack();
        return;
      }
      if (board.sources.has(where)) {
        this.pickUp(where);
        return;
      }
      // As with a click: one's own checker while the one in hand must enter is a pick-up.
      const own = board.mover && board.checkersAt(board.mover, where).length > 0;
      if (board.selected === "bar" && own) board.explain(where, null);
      else board.explain(board.selected, where);
      return;
    }
    if (board.sources.has(where)) {
      this.pickUp(where);
      return;
    }
    board.explain(where, null);
  }

  pickUp(where) {
    const board = this.hooks.board;
    board.select(where);
    const targets = (board.sources.get(where) || []).map((dest) => this.placeName(dest.to));
    this.hooks.say(`Picked up a checker from ${this.placeName(where)}: it can go to ${targets.join(", ")}.`);
    this.draw();
  }

  putBack() {
    const board = this.hooks.board;
    if (!board.selected) return false;
    const where = board.selected;
    board.select(null);
    this.hooks.say(`Put back on ${this.placeName(where)}.`);
    this.draw();
    return true;
  }

  press(id) {
    const button = $(id);
    if (button && !button.hidden && !button.disabled) {
      button.click();
      return true;
    }
    const label = button ? button.textContent.trim() : id;
    this.hooks.say(`${label} is not possible now.`);
    return false;
  }

  onKey(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target) || document.querySelector("dialog[open]")) return;
    if (document.body.classList.contains("setting-up")) return; // the editor has the board
    const { review, board } = this.hooks;
    const key = event.key;
    const onBoard = document.activeElement === board.root;
    if (review.active) {
      const steps = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
      if (key in steps) review.step(steps[key]);
      else if (key === "Home") review.go(0);
      else if (key === "End") review.go(Infinity);
      else if (key === "Escape" || key === "v" || key === "V") review.exit();
      else if (key === "h" || key === "H") this.hooks.hints.toggle(); // hints work in review
      else if (key.length === 1 && key.toLowerCase() in ACTION_KEYS) {
        this.hooks.say("Leave the review first (Escape).");
      } else return;
      event.preventDefault();
      return;
    }
    if (onBoard && ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"].includes(key)) {
      board.root.classList.add("kbd-active");
      this.move(key);
    } else if (onBoard && (key === "Enter" || key === " ")) {
      board.root.classList.add("kbd-active");
      this.activate();
    } else if (key === "Escape") {
      if (!this.putBack()) return;
    } else if (key.length === 1 && key.toLowerCase() in ACTION_KEYS) {
      this.press(ACTION_KEYS[key.toLowerCase()]);
    } else if (key === "h" || key === "H") {
      this.hooks.hints.toggle();
    } else if (key === "v" || key === "V") {
      if ($("review-button").disabled) return; // nothing to review yet, as the button says
      review.enterLive().catch((err) => this.hooks.say(`Review failed: ${err.message}`));
    } else if (key === "b" || key === "B") {
      this.hooks.readBoard();
    } else if (key === "?") {
      const help = $("keys-help");
      help.open = true;
      help.querySelector("summary").focus();
    } else {
      return;
    }
    event.preventDefault();
  }
}
