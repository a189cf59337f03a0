/* What the table page tells the person: the notices above the felt (#notices:
 * stood up, 托管 switched on by the server, the table closed) and the toasts
 * (#toasts: refusals and one-off news, a few seconds each). */

import {$, el} from "./dom.js";
import {T} from "./i18n.js";
import {autoIn, closed, playing, state, stoodUp} from "./state.js";

const MAX_TOASTS = 3;

/* A toast: kind "error" (an alert) or "info" (a status), gone after `ms`. */
export function toast(message, kind = "error", ms = 3500) {
  const box = $("toasts");
  const t = el("div", "toast " + kind, message);
  t.setAttribute("role", kind === "info" ? "status" : "alert");
  box.appendChild(t);
  setTimeout(() => t.classList.add("fade"), ms);
  setTimeout(() => t.remove(), ms + 700);
  while (box.children.length > MAX_TOASTS) box.removeChild(box.firstChild);
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
