/* 快捷语: the row of quick phrases and emoji reactions under the
 * chat (#phrases), each sent as {"type": "phrase", "index"} into the server's
 * list (boot.phrases). Hiding someone's lines is a block (social/table.js:
 * the server stops sending them), no longer a switch of this page. */

import {$, clear, el} from "./dom.js";
import {richText} from "./emoji.js";

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
}
