/* Emoji drawn with the site's own icons (static/icons/, listed by games/ui.py
 * EMOJI_ICONS and sent as T.emoji_icons), never with a colour-emoji font: a
 * machine without one shows empty boxes. The emoji itself stays in the page
 * as visually hidden text (screen readers, copying, searching the chat). */

import {el} from "./dom.js";
import {T} from "./i18n.js";

let pattern = null;

function emojiPattern() {
  if (pattern === null) {
    // longest first: "⏱️" (with its variation selector) before "⏱"
    const keys = Object.keys(T.emoji_icons || {}).sort((a, b) => b.length - a.length);
    pattern = keys.length
      ? new RegExp("(" + keys.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|") + ")", "u")
      : null;
  }
  return pattern;
}

/* One emoji as its icon: <span class="emoji"><img …><span class="visually-hidden">👍</span></span>. */
export function emojiEl(emoji) {
  const box = el("span", "emoji");
  const img = document.createElement("img");
  img.className = "emoji-img";
  img.src = T.emoji_icons[emoji];
  img.alt = "";
  img.setAttribute("aria-hidden", "true");
  img.draggable = false;
  box.append(img, el("span", "visually-hidden", emoji));
  return box;
}

/* Put `text` into `parent` as text, each known emoji as its icon. */
export function richText(parent, text) {
  if (text === undefined || text === null) return parent;
  const re = emojiPattern();
  const parts = re ? String(text).split(re) : [String(text)];
  parts.forEach((part, i) => {
    if (!part) return;
    parent.appendChild(i % 2 ? emojiEl(part) : document.createTextNode(part));
  });
  return parent;
}
