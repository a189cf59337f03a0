/* Who is watching: the spectator count (#spectators, info.js)
 * opens the list of their names from the snapshot's `watchers`, moderators
 * with their badge, anonymous watchers as a count. */

import {$, clear, el} from "./dom.js";
import {T, fmt} from "./i18n.js";
import {state} from "./state.js";

export function renderWatchers(s = state) {
  const w = (s.table && s.table.watchers) || {names: [], anonymous: 0};
  const ul = $("watchers-names");
  clear(ul);
  w.names.forEach((p) => {
    const li = el("li", "watcher", p.username);
    if (p.moderator) li.appendChild(el("span", "badge moderator", T.moderator_badge));
    ul.appendChild(li);
  });
  $("watchers-anon").textContent = w.anonymous ? fmt(T.anonymous_watchers, {n: w.anonymous}) : "";
  if (!w.names.length && !w.anonymous) $("watchers-anon").textContent = T.nobody_watching;
}

export function wireWatchers() {
  const button = $("spectators"), list = $("watchers-list");
  button.addEventListener("click", () => {
    list.hidden = !list.hidden;
    button.setAttribute("aria-expanded", list.hidden ? "false" : "true");
  });
}
