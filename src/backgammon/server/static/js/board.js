// The board, drawn in HTML/CSS from the state the server sends.
//
// Every size is a multiple of one unit, the CSS variable --u (one checker's width), so the
// board scales from a 360 px phone to a desktop. Positions are set as --x/--y in units.
//
// Places are named as the server names them: "1".."24" (points numbered from White's side, as
// in the engine's 26-slot board), "bar" and "off". Each checker is an element
//   <div class="checker" data-color="white|black" data-point="1..24|bar|off" data-index="k">
// where k counts from the bottom of its stack; the topmost checker of a stack also has the
// class "top". The numbers drawn next to the points are those of the viewer's side.
//
// The board decides no rule: the destinations it lights up are the ones the server listed.

import { DiceTumble, rollKey } from "./dice_anim.js";
import { part } from "./dom.js";
import { capturePointer, follow, letGo } from "./drag.js";

// Geometry, in units.
const FRAME = 0.35; // frame around the playing area
const LABEL = 0.7; // band for the point numbers, above and below
const BAR_W = 1.1; // the bar between the halves
const TRAY_W = 1.3; // the bear-off tray on the right
const HALF = 5; // length of a point (five checkers)
const GAP = 1.6; // between the top and bottom points: the dice lie here
export const WIDTH = 3 * FRAME + 12 + BAR_W + TRAY_W;
export const HEIGHT = 2 * LABEL + 2 * HALF + GAP;
/**
 * Where the halves, the bar and the tray are across the board, in units: the home board on the
 * right (the tray beside it), or, flipped, on the left.
 */
function across(homeLeft) {
  if (homeLeft) {
    const left = FRAME + TRAY_W + FRAME;
    return { left, bar: left + 6, right: left + 6 + BAR_W, tray: FRAME };
  }
  return { left: FRAME, bar: FRAME + 6, right: FRAME + 6 + BAR_W, tray: FRAME + 12 + BAR_W + FRAME };
}
const Y_TOP = LABEL;
const Y_BOTTOM = LABEL + 2 * HALF + GAP; // the bottom edge of the lower points
const Y_MID = LABEL + HALF + GAP / 2;
const SLAB = 0.32; // height of a borne-off checker seen edge on
const CAP = { point: 5, bar: 3 }; // checkers drawn apart before a stack shows its count

const PIPS = {
  1: ["c"],
  2: ["tl", "br"],
  3: ["tl", "c", "br"],
  4: ["tl", "tr", "bl", "br"],
  5: ["tl", "tr", "c", "bl", "br"],
  6: ["tl", "tr", "ml", "mr", "bl", "br"],
};

const COLORS = ["white", "black"];

function other(color) {
  return color === "white" ? "black" : "white";
}

function place(node, x, y) {
  node.style.setProperty("--x", x.toFixed(3));
  node.style.setProperty("--y", y.toFixed(3));
}

/** How many checkers of `color` stand on each place of `board` ({points: 26 ints, off}). */
export function placeCounts(board, color) {
  const counts = new Map();
  const sign = color === "white" ? 1 : -1;
  for (let p = 1; p <= 24; p++) {
    const n = board.points[p] * sign;
    if (n > 0) counts.set(String(p), n);
  }
  const bar = color === "white" ? board.points[25] : -board.points[0];
  if (bar > 0) counts.set("bar", bar);
  const off = board.off[color];
  if (off > 0) counts.set("off", off);
  return counts;
}

export class BoardView {
  /**
   * @param {HTMLElement} root the #board element
   * @param {{onMove: (from: string, to: string) => void,
   *   onExplain?: (from: string, to: string|null) => void}} handlers: onMove when the person
   *   completes a move (click then destination, or drag and drop) that the server offered;
   *   onExplain when they try one it did not offer (to null: a checker that cannot move was
   *   picked), for the server to say which rule forbids it
   */
  constructor(root, handlers) {
    this.root = root;
    this.handlers = handlers;
    this.viewer = null;
    this.board = null;
    this.checkers = { white: [], black: [] };
    this.sources = new Map(); // place -> [{to, hit, moves}]
    this.mover = null;
    this.selected = null;
    this.drag = null;
    this.enabled = false;
    this.layers = {};
    this.tumble = new DiceTumble(); // new dice roll in (dice_anim.js); their faces are final
    this.homeLeft = false;
    this.gx = across(false);
    root.style.setProperty("--board-w", String(WIDTH));
    root.style.setProperty("--board-h", String(HEIGHT));
    this.build("white");
    root.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    root.addEventListener("pointermove", (e) => this.onPointerMove(e));
    root.addEventListener("pointerup", (e) => this.onPointerUp(e));
    root.addEventListener("pointercancel", () => this.cancelDrag());
    root.addEventListener("dragstart", (e) => e.preventDefault());
  }

  /** The viewer's own number of an absolute point (1..24). */
  own(point) {
    return this.viewer === "white" ? point : 25 - point;
  }

  /** Column of an absolute point: [x, top?]. */
  column(point) {
    const n = this.own(point);
    if (this.homeLeft) {
      if (n <= 6) return [this.gx.left + (n - 1), false];
      if (n <= 12) return [this.gx.right + (n - 7), false];
      if (n <= 18) return [this.gx.right + (18 - n), true];
      return [this.gx.left + (24 - n), true];
    }
    if (n <= 6) return [this.gx.right + (6 - n), false];
    if (n <= 12) return [this.gx.left + (12 - n), false];
    if (n <= 18) return [this.gx.left + (n - 13), true];
    return [this.gx.right + (n - 19), true];
  }

  /**
   * The board flip: the viewer's home board on the left (true) or on the right (false), the
   * bear-off tray beside it. Returns whether it changed (the caller then draws again: the
   * board is built anew).
   */
  setHomeLeft(homeLeft) {
    const flip = Boolean(homeLeft);
    if (flip === this.homeLeft) return false;
    this.homeLeft = flip;
    this.gx = across(flip);
    this.build(this.viewer || "white");
    return true;
  }

  /** Number the points from `color`'s side (in pass & play, the side to act). */
  setLabels(color) {
    if (this.labels === color) return;
    this.labels = color;
    for (const label of this.root.querySelectorAll(".point-label")) {
      const p = Number(label.dataset.point);
      label.textContent = String(color === "white" ? p : 25 - p);
    }
  }

  /** Draw the fixed parts (frame, points, bar, trays, labels) for `viewer`'s side. */
  build(viewer) {
    this.viewer = viewer;
    this.labels = viewer;
    this.root.dataset.viewer = viewer;
    this.root.dataset.home = this.homeLeft ? "left" : "right";
    this.root.replaceChildren();
    this.checkers = { white: [], black: [] };
    const felt = part("div", "felt", this.root);
    felt.setAttribute("aria-hidden", "true");
    for (const [x, w] of [[this.gx.left, 6], [this.gx.right, 6]]) {
      const half = part("div", "half", felt);
      place(half, x, Y_TOP);
      half.style.setProperty("--w", String(w));
    }
    this.buildTapZones(); // under the points, the bar and the trays: they take the rest
    for (let p = 1; p <= 24; p++) {
      const [x, top] = this.column(p);
      const n = this.own(p);
      const point = part("div", `point ${top ? "top" : "bottom"} ${n % 2 ? "odd" : "even"}`, this.root);
      point.dataset.point = String(p);
      place(point, x, top ? Y_TOP : Y_BOTTOM - HALF);
      const label = part("div", "point-label", this.root);
      label.textContent = String(n);
      label.dataset.point = String(p);
      place(label, x, top ? 0 : Y_BOTTOM);
    }
    const bar = part("div", "bar-zone", this.root);
    bar.dataset.point = "bar";
    place(bar, this.gx.bar, Y_TOP);
    for (const color of COLORS) {
      const tray = part("div", `tray ${color === viewer ? "bottom" : "top"}`, this.root);
      tray.dataset.point = "off";
      tray.dataset.color = color;
      place(tray, this.gx.tray, color === viewer ? Y_BOTTOM - HALF : Y_TOP);
    }
    this.layers.checkers = part("div", "layer checkers-layer", this.root);
    this.layers.marks = part("div", "layer marks-layer", this.root);
    this.layers.dice = part("div", "layer dice-layer", this.root);
    this.cube = part("div", "cube", this.root);
    this.cube.hidden = true;
    this.board = null;
  }

  /**
   * Tap zones: a touch target for each place, under everything else, bigger than a checker.
   * Each point's zone is its whole column, from the board's edge to the middle (6.5 units:
   * 157 px on a 390 px phone, whose checkers are 24 px); the bar's is the bar's whole height;
   * each tray's reaches over the frame beside it (1.8 units: 44 px there). A tap or a drop
   * anywhere on a zone counts for its place, as on the point itself.
   */
  buildTapZones() {
    const zone = (where, x, y, w, h) => {
      const node = part("div", "tap-zone", this.root);
      node.dataset.point = where;
      node.setAttribute("aria-hidden", "true");
      node.style.setProperty("--w", w.toFixed(3));
      node.style.setProperty("--h", h.toFixed(3));
      place(node, x, y);
      return node;
    };
    for (let p = 1; p <= 24; p++) {
      const [x, top] = this.column(p);
      zone(String(p), x, top ? 0 : Y_MID, 1, top ? Y_MID : HEIGHT - Y_MID);
    }
    zone("bar", this.gx.bar, 0, BAR_W, HEIGHT);
    const trayW = TRAY_W + 1.5 * FRAME;
    const trayX = this.homeLeft ? 0 : WIDTH - trayW;
    for (const color of COLORS) {
      const bottom = color === this.viewer;
      zone("off", trayX, bottom ? Y_MID : 0, trayW, bottom ? HEIGHT - Y_MID : Y_MID)
        .dataset.color = color;
    }
  }

  /** Where the k-th checker (from 0) of `color` on `where` is drawn: [x, y, slab?]. */
  slot(color, where, k) {
    if (where === "bar") {
      const j = Math.min(k, CAP.bar - 1);
      const x = this.gx.bar + (BAR_W - 1) / 2;
      // A side's checkers on the bar wait next to the half where they will enter.
      return color === this.viewer ? [x, Y_TOP + HALF - 1 - j, false] : [x, Y_BOTTOM - HALF + j, false];
    }
    if (where === "off") {
      return color === this.viewer
        ? [this.gx.tray + 0.1, Y_BOTTOM - SLAB * (k + 1) - 0.02, true]
        : [this.gx.tray + 0.1, Y_TOP + SLAB * k + 0.02, true];
    }
    const [x, top] = this.column(Number(where));
    const j = Math.min(k, CAP.point - 1);
    return [x, top ? Y_TOP + j : Y_BOTTOM - 1 - j, false];
  }

  /**
   * Show a position: the checkers move from where they are to where `board` puts them (the
   * CSS transition animates each checker that changes place).
   * @param {{points: number[], off: {white: number, black: number}}} board
   */
  drawPosition(board) {
    this.board = board;
    for (const color of COLORS) {
      const want = placeCounts(board, color);
      const have = new Map();
      for (const node of this.checkers[color]) {
        const where = node.dataset.point;
        if (!have.has(where)) have.set(where, []);
        have.get(where).push(node);
      }
      for (const list of have.values()) list.sort((a, b) => a.dataset.index - b.dataset.index);
      const free = [];
      for (const [where, list] of have) {
        const n = want.get(where) || 0;
        while (list.length > n) free.push(list.pop());
      }
      for (const [where, n] of want) {
        if (!have.has(where)) have.set(where, []);
        const list = have.get(where);
        while (list.length < n) {
          let node = free.pop();
          if (!node) {
            node = part("div", "checker", this.layers.checkers);
            node.dataset.color = color;
            this.checkers[color].push(node);
          }
          list.push(node);
        }
      }
      for (const node of free) node.remove();
      this.checkers[color] = this.checkers[color].filter((node) => !free.includes(node));
      for (const [where, list] of have) {
        list.forEach((node, k) => {
          const [x, y, slab] = this.slot(color, where, k);
          node.dataset.point = where;
          node.dataset.index = String(k);
          node.classList.toggle("slab", slab);
          node.classList.toggle("top", k === list.length - 1);
          node.style.zIndex = String(k + 1);
          node.textContent = "";
          place(node, x, y);
          if (node.classList.contains("dropped")) {
            // Dropped by a drag: settle from the drop point, not from the old place.
            node.style.transform = "";
            requestAnimationFrame(() => node.classList.remove("dropped"));
          }
        });
        const cap = where === "off" ? Infinity : where === "bar" ? CAP.bar : CAP.point;
        if (list.length > cap) list[list.length - 1].textContent = String(list.length);
      }
    }
    this.refreshMarks();
    // For the text form of the board and other listeners: the position now shown.
    this.root.dispatchEvent(new CustomEvent("position", { detail: board }));
  }

  /**
   * Show the dice.
   * @param {number[]|null} dice the roll, or null
   * @param {number[]} left the dice not used yet
   * @param {string|null} color who threw them
   * @param {{white: number, black: number}|null} opening the opening roll, one die each: each
   *   side's die is drawn on its own half (the higher die moves first)
   * @param {{last?: boolean, still?: boolean, label?: string|null}} [options] `last`: the
   *   dice of the turn before, kept on the board until the next roll; `still`: dice shown as
   *   they lie, not thrown now (a review's); `label`: a word shown in the other half (e.g.
   *   "No legal move"). Only a roll thrown now tumbles: never the turn before's dice, nor a
   *   review's.
   */
  drawDice(dice, left, color, opening, options = {}) {
    const layer = this.layers.dice;
    layer.replaceChildren();
    const last = Boolean(options.last);
    const still = last || Boolean(options.still);
    const drawOne = (value, who, x, used) => {
      const die = part("div", `die ${who}${used ? " used" : ""}${last ? " last" : ""}`, layer);
      die.dataset.value = String(value);
      die.dataset.color = who;
      die.setAttribute("role", "img");
      die.setAttribute("aria-label", `${who} die ${value}${used ? " (used)" : ""}`);
      for (const pip of PIPS[value]) part("span", `pip ${pip}`, die);
      place(die, x, Y_MID - 0.55);
    };
    const centre = (who) => (who === this.viewer ? this.gx.right + 3 : this.gx.left + 3);
    const drawLabel = (text, half) => {
      if (!text) return;
      const node = part("div", "dice-label", layer);
      node.textContent = text;
      node.setAttribute("role", "status");
      place(node, centre(half) - 2.6, Y_MID - 0.4);
    };
    if (opening) {
      const remaining = dice ? [...left] : [opening.white, opening.black];
      for (const who of COLORS) {
        const i = remaining.indexOf(opening[who]);
        if (i >= 0) remaining.splice(i, 1);
        drawOne(opening[who], who, centre(who) - 0.55, i < 0);
      }
      this.tumble.landed([...layer.querySelectorAll(".die")], rollKey(null, null, opening));
      return;
    }
    if (!dice || !color) {
      this.tumble.landed([], null);
      return;
    }
    const values = dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : [...dice];
    const remaining = [...left];
    const used = values.map((v) => {
      const i = remaining.indexOf(v);
      if (i >= 0) {
        remaining.splice(i, 1);
        return false;
      }
      return true;
    });
    // Doubles: the used dice are the last ones drawn, so the unused stay together on the left.
    if (dice[0] === dice[1]) used.sort((a, b) => a - b);
    const step = 1.25;
    const start = centre(color) - (values.length * step - 0.15) / 2;
    values.forEach((v, i) => drawOne(v, color, start + i * step, used[i]));
    this.tumble.landed([...layer.querySelectorAll(".die")], still ? null : rollKey(dice, color, null));
    drawLabel(options.label, other(color));
  }

  /**
   * Show the cube, or hide it when the cube is off.
   * @param {{enabled: boolean, value: number, owner: string|null, offered_by: string|null}} cube
   */
  drawCube(cube) {
    const node = this.cube;
    node.hidden = !cube || !cube.enabled;
    if (node.hidden) return;
    const offered = cube.offered_by;
    const value = offered ? cube.value * 2 : cube.value;
    node.textContent = String(value === 1 ? 64 : value);
    node.dataset.value = String(cube.value);
    node.dataset.owner = cube.owner || "centre";
    node.classList.toggle("offered", Boolean(offered));
    node.setAttribute(
      "aria-label",
      offered
        ? `${offered} offers the cube at ${value}`
        : `cube at ${cube.value}, ${cube.owner ? `owned by ${cube.owner}` : "in the centre"}`,
    );
    let x = this.gx.bar + (BAR_W - 0.9) / 2;
    let y = Y_MID - 0.45;
    if (offered) {
      x = (offered === this.viewer ? this.gx.right : this.gx.left) + 3 - 0.45;
    } else if (cube.owner) {
      y = cube.owner === this.viewer ? Y_BOTTOM - 0.95 : Y_TOP + 0.05;
    }
    place(node, x, y);
  }

  /**
   * What the person may move now, as the server listed it.
   * @param {string|null} mover the colour that moves (null: nothing to move)
   * @param {{from: string|number, destinations: {to: string|number, hit: boolean}[]}[]} legal
   */
  setLegal(mover, legal) {
    this.mover = mover;
    this.sources = new Map();
    for (const entry of legal || []) {
      this.sources.set(
        String(entry.from),
        entry.destinations.map((d) => ({ ...d, to: String(d.to) })),
      );
    }
    if (this.selected && !this.sources.has(this.selected)) this.selected = null;
    if (!this.selected && this.sources.size === 1 && mover && this.sources.has("bar")) {
      this.selected = "bar"; // a checker on the bar must enter: show where at once
    }
    this.refreshMarks();
  }

  /** Allow or forbid moving (while a request is in flight, or during the computer's turn). */
  setEnabled(enabled) {
    this.enabled = enabled;
    this.root.classList.toggle("interactive", enabled);
    if (!enabled) this.cancelDrag();
    this.refreshMarks();
  }

  /** Mark the points the previous turn moved from and to. */
  setLastTurn(lastTurn) {
    this.lastTurn = lastTurn;
    this.refreshMarks();
  }

  select(where) {
    this.selected = where && this.sources.has(where) ? where : null;
    this.refreshMarks();
  }

  refreshMarks() {
    if (!this.layers.marks) return;
    const root = this.root;
    for (const node of root.querySelectorAll(".movable, .selected, .target, .last-from, .last-to")) {
      node.classList.remove("movable", "selected", "target", "last-from", "last-to");
    }
    this.layers.marks.replaceChildren();
    if (this.lastTurn && this.lastTurn.moves) {
      for (const move of this.lastTurn.moves) {
        this.zone(String(move.from), this.lastTurn.color)?.classList.add("last-from");
        this.zone(String(move.to), this.lastTurn.color)?.classList.add("last-to");
      }
    }
    if (!this.enabled || !this.mover || !this.board) return;
    for (const where of this.sources.keys()) {
      for (const node of this.checkersAt(this.mover, where)) node.classList.add("movable");
      this.zone(where, this.mover)?.classList.add("movable");
    }
    if (!this.selected) return;
    for (const node of this.checkersAt(this.mover, this.selected)) {
      if (node.classList.contains("top")) node.classList.add("selected");
    }
    for (const dest of this.sources.get(this.selected) || []) {
      this.zone(dest.to, this.mover)?.classList.add("target");
      const count = dest.hit ? 0 : placeCounts(this.board, this.mover).get(dest.to) || 0;
      const [x, y, slab] = this.slot(this.mover, dest.to, count);
      const ring = part("div", `landing-ring${slab ? " slab" : ""}`, this.layers.marks);
      ring.dataset.point = dest.to;
      ring.dataset.from = this.selected;
      ring.title = dest.moves ? dest.moves.map((m) => m.text).join(" ") : "";
      place(ring, x, y);
    }
  }

  /** The element standing for a place: a point, the bar, or `color`'s tray. */
  zone(where, color) {
    if (where === "off") return this.root.querySelector(`.tray[data-color="${color}"]`);
    if (where === "bar") return this.root.querySelector(".bar-zone");
    return this.root.querySelector(`.point[data-point="${where}"]`);
  }

  checkersAt(color, where) {
    return this.checkers[color].filter((node) => node.dataset.point === where);
  }

  targetOf(where) {
    if (!this.selected) return null;
    return (this.sources.get(this.selected) || []).find((d) => d.to === where) || null;
  }

  placeAt(x, y) {
    const hit = document.elementFromPoint(x, y);
    const node = hit && hit.closest("[data-point]");
    return node && this.root.contains(node) ? node.dataset.point : null;
  }

  onPointerDown(event) {
    if (!this.enabled || event.button > 0) return;
    const node = event.target.closest("[data-point]");
    if (!node || !this.root.contains(node)) return;
    const where = node.dataset.point;
    const fromChecker = node.classList.contains("checker") && node.dataset.color === this.mover;
    this.drag = {
      x: event.clientX,
      y: event.clientY,
      where,
      moved: false,
      node: null,
      wasSelected: this.selected === where,
    };
    if (fromChecker && this.sources.has(where) && !this.targetOf(where)) {
      const top = this.checkersAt(this.mover, where).find((n) => n.classList.contains("top"));
      this.drag.node = top || node;
      this.selected = where;
      this.refreshMarks();
      capturePointer(this.root, event);
    }
    event.preventDefault();
  }

  onPointerMove(event) {
    if (!follow(this.drag, event)) return;
    const over = this.placeAt(event.clientX, event.clientY);
    for (const ring of this.layers.marks.querySelectorAll(".landing-ring")) {
      ring.classList.toggle("hover", ring.dataset.point === over);
    }
  }

  onPointerUp(event) {
    const drag = this.drag;
    this.drag = null;
    if (!drag) return;
    if (drag.moved) {
      const over = this.placeAt(event.clientX, event.clientY);
      const dest = over && this.targetOf(over);
      // Dropped on a place offered, the checker stays there until the server's answer places
      // it, so it does not jump back to where it came from first.
      letGo(drag.node, { keep: Boolean(dest) });
      if (dest) {
        drag.node.classList.add("dropped");
        this.handlers.onMove(this.selected, dest.to);
      } else {
        this.refreshMarks();
        // Dropped where the server did not offer: ask it why.
        if (over && over !== this.selected) this.explain(this.selected, over);
      }
      return;
    }
    letGo(drag.node);
    if (drag.node) {
      // A press on a checker selected it already; a second press on it lets it go (unless it
      // is the only checker that can move, as when one must enter from the bar).
      if (drag.wasSelected && this.sources.size > 1) this.select(null);
      return;
    }
    this.onClick(drag.where);
  }

  onClick(where) {
    const dest = this.targetOf(where);
    if (dest) {
      this.handlers.onMove(this.selected, dest.to);
      return;
    }
    if (where === this.selected) {
      this.select(null);
    } else if (this.sources.has(where)) {
      this.select(where);
    } else {
      // Not offered: ask the server why. A click on one of the mover's checkers is an attempt
      // to pick it up when nothing is in hand (or the checker in hand must enter from the
      // bar); any other click is an attempt to put the checker in hand down there.
      const own = Boolean(this.mover) && this.checkersAt(this.mover, where).length > 0;
      if (this.selected && !(this.selected === "bar" && own)) {
        this.explain(this.selected, where); // keep the checker in hand
      } else if (own) {
        this.explain(where, null);
        if (this.selected !== "bar") this.select(null);
      } else {
        this.select(null);
      }
    }
  }

  /** An attempt the server did not offer: hand it to onExplain (the server says why). */
  explain(from, to) {
    if (this.handlers.onExplain) this.handlers.onExplain(from, to);
  }

  cancelDrag() {
    if (this.drag) letGo(this.drag.node);
    this.drag = null;
  }
}
