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
