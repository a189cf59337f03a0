/* Small DOM helpers shared by the page scripts (lobby.js, table.js and the
 * table's region modules). User text only ever goes in with textContent. */

/* A new element: tag, class names, text (any value; null/undefined: none). */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

export function $(id) { return document.getElementById(id); }

export function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

export function show(node, on) { node.hidden = !on; }

/* Keep at most `max` toasts in `box`: a notification's go first (the 消息 list
   keeps them), so news of the game itself (a wager settled) stays on screen. */
export function trimToasts(box, max) {
  while (box.children.length > max) {
    box.removeChild(box.querySelector(".notification-toast") || box.firstChild);
  }
}
