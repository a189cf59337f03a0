/* The table chat: the log (#chat-log, the last 100 lines, kept scrolled to the
 * bottom while the reader is there) and the form (#chat-form). Chat text is
 * raw (docs/protocol.md) and only ever goes in as text. */

import {$, clear, el} from "./dom.js";
import {richText} from "./emoji.js";
import {T} from "./i18n.js";
import {phraseLabel} from "./phrases.js";

const MAX_LINES = 100;
const MAX_CHARS = 200;
// times are the site's (RULES.md §8 clocks run there): Beijing time, said so
const ZONE = "Asia/Shanghai";
let me = null; // my username: my own lines are never muted

export function setChatMe(name) { me = name; }

export function showHistory(lines) {
  clear($("chat-log"));
  (lines || []).forEach(addLine);
}

export function addLine(line) {
  if (!line) return;
  const log = $("chat-log");
  const li = el("li", "chat-line");
  let time = "";
  try {
    time = new Date(line.at).toLocaleTimeString(T.lang === "zh" ? "zh-CN" : "en-GB",
      {hour: "2-digit", minute: "2-digit", timeZone: ZONE, hourCycle: "h23"});
  } catch (e) { /* an unreadable time: none shown */ }
  if (me && line.user === me) li.classList.add("mine");
  const t = el("time", "chat-time", time);
  t.title = T.beijing_time || ZONE;
  if (line.at) t.dateTime = line.at;
  li.appendChild(t);
  li.appendChild(el("span", "chat-user", line.user));
  if (line.moderator) li.appendChild(el("span", "badge mod", $("mod-badge-text").textContent));
  li.appendChild(richText(el("span", "chat-text"), phraseLabel(line.text)));
  const dialog = $("report-dialog");
  // report this line (report.js opens the dialog): not one's own
  if (line.id && dialog && !(me && line.user === me)) {
    li.dataset.lineId = line.id;
    const flag = el("button", "chat-report link", "⚑");
    flag.type = "button";
    flag.title = dialog.dataset.lineTitle;
    li.appendChild(flag);
  }
  const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
  log.appendChild(li);
  while (log.children.length > MAX_LINES) log.removeChild(log.firstChild);
  if (atBottom) log.scrollTop = log.scrollHeight;
}

/* The form calls say(text) → true when it was sent; tooLong() for an over-long line. */
export function wireChat({say, tooLong}) {
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const input = $("chat-input");
    const text = input.value.trim();
    if (!text) return;
    if (text.length > MAX_CHARS) { tooLong(T.chat_too_long); return; }
    if (say(text)) input.value = "";
  });
}
