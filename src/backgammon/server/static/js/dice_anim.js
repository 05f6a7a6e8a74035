// Dice that tumble: a short roll when new dice land on the board.
//
// The board draws each die with its final face (board.js drawDice: data-value and its pips)
// before anything moves; this module only moves the drawn dice, with the Web Animations API
// (no stylesheet, nothing inline), so the animation shows and decides nothing: what lands is the
// number already drawn, and it is that number all along. With prefers-reduced-motion there is
// no animation at all. While a die tumbles it has the class "tumbling".

/** How long a die tumbles, in milliseconds (the second one starts a little later). */
export const TUMBLE_MS = 420;
const STAGGER_MS = 60;

/** Whether the person asked for less motion (the system's prefers-reduced-motion). */
export function reducedMotion() {
  return Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

/**
 * The name of a roll as the board shows it: who threw what ("white:6-2", "opening:5-3"), or
 * null when no dice are shown. The same roll drawn again (a move played with it) has the
 * same name; a new roll has another.
 */
export function rollKey(dice, color, opening) {
  if (dice && color) return `${color}:${dice.join("-")}`;
  if (opening) return `opening:${opening.white}-${opening.black}`;
  return null;
}

/** The keyframes of one die: in from the side, spinning, settling on its face. */
function keyframes(index) {
  const turn = index % 2 ? 1 : -1;
  return [
    { transform: `translate(${-90 * turn}%, -45%) rotate(${turn * 320}deg) scale(0.75)`, opacity: 0.5 },
    { transform: `translate(${12 * turn}%, 8%) rotate(${turn * -18}deg) scale(1.06)`, opacity: 1, offset: 0.7 },
    { transform: "none", opacity: 1 },
  ];
}

/** Remembers the roll on the board and tumbles the dice of each new one. */
export class DiceTumble {
  constructor() {
    this.shown = undefined; // the roll drawn last (undefined: none drawn yet on this page)
    this.started = null; // when its dice began to tumble (performance.now()); null: at rest
  }

  /**
   * The board has just drawn `nodes` (the dice elements) for the roll named `key`
   * (rollKey). A new roll tumbles, except the first one drawn on a page (a reload shows the
   * dice as they lie) and with reduced motion; the same roll drawn again while it tumbles
   * goes on tumbling.
   * @returns {boolean} whether the dice tumble
   */
  landed(nodes, key) {
    const previous = this.shown;
    this.shown = key;
    const now = performance.now();
    let elapsed = 0;
    if (key !== null && key === previous && this.started !== null) {
      // The same roll drawn again (a move played with it) while it still tumbles: the new
      // nodes carry on from where the old ones were.
      elapsed = now - this.started;
      if (elapsed >= TUMBLE_MS + STAGGER_MS) this.started = null;
    } else if (key === null || previous === undefined || key === previous) {
      this.started = null;
    } else {
      this.started = now;
    }
    if (this.started === null || reducedMotion()) return false;
    nodes.forEach((node, index) => {
      if (typeof node.animate !== "function") return;
      // a die whose tumble is already over lies at rest: no class, no finished animation
      if (elapsed >= index * STAGGER_MS + TUMBLE_MS) return;
      node.classList.add("tumbling");
      const animation = node.animate(keyframes(index), {
        duration: TUMBLE_MS,
        delay: index * STAGGER_MS,
        easing: "cubic-bezier(0.2, 0.7, 0.3, 1)",
        fill: "backwards",
      });
      animation.currentTime = elapsed;
      const done = () => node.classList.remove("tumbling");
      animation.addEventListener("finish", done);
      animation.addEventListener("cancel", done);
    });
    return true;
  }
}
