/* 快捷语: the row of quick phrases and emoji reactions under the
 * chat (#phrases), each sent as {"type": "phrase", "index"} into the server's
 * list (boot.phrases); and the mute switch (#chat-mute) that hides the
 * table's chat lines from others, remembered per browser. */

import {$, clear, el} from "./dom.js";
import {richText} from "./emoji.js";

const MUTE_KEY = "yuanzi.chatMuted";

export function muted() {
  try { return localStorage.getItem(MUTE_KEY) === "1"; } catch (e) { return false; }
}

/* The server's phrase → its words in the page's language (a chat line made by
   a phrase reads in the reader's language). */
const labels = new Map();
export function phraseLabel(text) { return labels.has(text) ? labels.get(text) : text; }

/* commands.phrase(index) → sent or not; `phraseLabels`: the phrases in the page's language. */
export function wirePhrases(commands, {phrases, phraseLabels, reactionsFrom, loggedIn}) {
  const row = $("phrases");
  clear(row);
  (phrases || []).forEach((text, i) => {
    const label = (phraseLabels && phraseLabels[i]) || text;
    labels.set(text, label);
    const b = richText(el("button", i >= reactionsFrom ? "phrase reaction" : "phrase"), label);
    b.type = "button";
    b.dataset.index = i;
    b.disabled = !loggedIn;
    row.appendChild(b);
  });
  row.addEventListener("click", (e) => {
    const b = e.target.closest("button.phrase");
    if (b) commands.phrase(Number(b.dataset.index));
  });
  const mute = $("chat-mute");
  mute.checked = muted();
  mute.addEventListener("change", () => {
    try { localStorage.setItem(MUTE_KEY, mute.checked ? "1" : "0"); } catch (e) { /* private mode */ }
    $("chat-log").classList.toggle("muted", mute.checked);
  });
  $("chat-log").classList.toggle("muted", mute.checked);
}
