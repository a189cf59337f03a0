/* What the table page tells the person: the notices above the felt (#notices:
 * stood up, 托管 switched on by the server, the table closed) and the toasts
 * (#toasts: refusals and one-off news, a few seconds each). */

import {$, el} from "./dom.js";
import {T, fmt} from "./i18n.js";
import {autoIn, closed, playing, state, stoodUp} from "./state.js";

const MAX_TOASTS = 3;

/* A toast: kind "error" (an alert) or "info" (a status), gone after `ms`. */
export function toast(message, kind = "error", ms = 3500) {
  const box = $("toasts");
  const t = el("div", "toast " + kind, message);
  t.setAttribute("role", kind.startsWith("info") ? "status" : "alert");
  box.appendChild(t);
  setTimeout(() => t.classList.add("fade"), ms);
  setTimeout(() => t.remove(), ms + 700);
  while (box.children.length > MAX_TOASTS) box.removeChild(box.firstChild);
  return t;
}

/* Show notice `id` saying `text` (none: its own words, from the template), or hide it. */
function notice(id, on, text) {
  const n = $(id);
  if (text !== undefined) n.textContent = on ? text : "";
  n.hidden = !on;
  return on;
}

export function renderNotices(s = state) {
  const stood = stoodUp(s);
  $("table-app").classList.toggle("stood-up", stood);
  const auto = playing(s) && s.autoByServer === s.view.game_id && autoIn(s.view);
  const shown = [
    notice("stood-notice", stood, T.stood_up),
    notice("auto-notice", auto, T.auto_by_timeout),
    notice("closed-notice", closed(s)),
  ];
  $("notices").hidden = !shown.some(Boolean);
}

/* A card's short name, for a notice ("7♠", "大王"). */
function cardName(card) {
  if (card === "RJ") return T.big_joker;
  if (card === "BJ") return T.small_joker;
  return (card[0] === "T" ? "10" : card[0]) + ({S: "♠", H: "♥", C: "♣", D: "♦"}[card[1]] || "");
}

/* A `notice` frame from the server (docs/protocol.md): {code, message, params},
   sent to every connection of this person. Codes the page words itself
   (turn_timeout: what the clock did for me) use T; any other shows the
   server's own message. Shown as an info toast; returns its text. */
export function showNotice(msg) {
  const params = msg.params || {};
  // the second timeout in a row: the 托管 notice (state.trackAuto) says it
  if (msg.code === "turn_timeout" && params.auto) return "";
  let text = msg.message || T.error;
  // coins received and such (issue 16): their words in this page's language
  if (T["notice_" + msg.code]) text = fmt(T["notice_" + msg.code], params);
  if (msg.code === "turn_timeout") {
    text = params.action === "play"
      ? fmt(T.timeout_played, {cards: (params.cards || []).map(cardName).join(" ")})
      : T.timeout_passed;
  }
  const t = toast(text, "info notice-toast", 9000);
  t.dataset.code = msg.code || "";
  return text;
}
