// Making the page's elements, the same in every module that draws (both boards, both rules
// pages, the hints, the rollout, the analysis).

/** A new element `tag` with its words `text` (none: undefined or null) and class `cls`. */
export function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

/** A new element `tag` of class `className`, appended to `parent` when one is given. */
export function part(tag, className, parent) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (parent) parent.appendChild(node);
  return node;
}
