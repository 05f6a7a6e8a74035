// A piece dragged on either game's board (board.js, checkers_board.js): the pointer kept on
// the board while a piece is held, a press told from a drag by 6 px, the piece following the
// pointer, and let go. Each board decides what a press, a drag and a drop mean.

/** How far, in CSS pixels, a press must move to become a drag. */
export const DRAG_PX = 6;

/** Keep the pointer's events on `root` while a piece is held. */
export function capturePointer(root, event) {
  try {
    root.setPointerCapture(event.pointerId);
  } catch (err) {
    // capture is a convenience; a drag works within the board without it
  }
}

/**
 * The pointer moved while `drag` ({x, y, node, moved}, from the press) holds a piece: once
 * past DRAG_PX, the piece follows the pointer (`onStart` first, on the first move of a drag).
 * Returns whether it is being dragged.
 */
export function follow(drag, event, onStart = () => {}) {
  if (!drag || !drag.node) return false;
  const dx = event.clientX - drag.x;
  const dy = event.clientY - drag.y;
  if (!drag.moved && Math.hypot(dx, dy) < DRAG_PX) return false;
  if (!drag.moved) {
    drag.moved = true;
    onStart();
  }
  drag.node.classList.add("dragging");
  drag.node.style.transform = `translate(${dx}px, ${dy}px)`;
  return true;
}

/** The dragged piece let go: back in its place (unless the board keeps it where it was dropped). */
export function letGo(node, { keep = false } = {}) {
  if (!node) return;
  node.classList.remove("dragging");
  if (!keep) node.style.transform = "";
}
