// The page's note boxes, one way on both games' pages: the error box (#error: a refusal or a
// lost connection, in api.js errorWords's words) and the notes beside the board (the
// computer's, the room's). A box shows its words and is hidden when there are none.

/** Show `text` in `box` (an element or its id); no text: the box is hidden. */
export function showText(box, text) {
  const node = typeof box === "string" ? document.getElementById(box) : box;
  node.textContent = text || "";
  node.hidden = !text;
}

/** The page's error box (empty: hidden). */
export function showError(text) {
  showText("error", text);
}
