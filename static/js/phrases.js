/* 快捷语 (issue 13): the row of quick phrases and emoji reactions under the
 * chat (#phrases), each sent as {"type": "phrase", "index"} into the server's
 * list (boot.phrases); and the mute switch (#chat-mute) that hides the
 * table's chat lines from others, remembered per browser. */

import {$, clear, el} from "./dom.js";
import {richText} from "./emoji.js";

const MUTE_KEY = "yuanzi.chatMuted";

export function muted() {
  try { return localStorage.getItem(MUTE_KEY) === "1"; } catch (e) { return false; }
}

/* commands.phrase(index) → sent or not. */
export function wirePhrases(commands, {phrases, reactionsFrom, loggedIn}) {
  const row = $("phrases");
  clear(row);
  (phrases || []).forEach((text, i) => {
    const b = richText(el("button", i >= reactionsFrom ? "phrase reaction" : "phrase"), text);
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
