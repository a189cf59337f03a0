/* The lobby's friends panel (social/_lobby_friends.html): each friend online
 * or not, and where — the table they sit at or watch, with 加入 (a free seat,
 * no game) or 观战 when you may open it; a private table you hold no invite
 * to shows only 在好友房. From GET /api/friends (docs/api.md), again every
 * 20 s and when the tab comes back. User text goes in with textContent. */

import {$, clear, el} from "../js/dom.js";

const REFRESH_MS = 20000;
const panel = $("friends-panel");
const words = panel.dataset;
// the panel template comes at the page's end (the "lobby" slot): show it under the lobby's head
const head = document.querySelector(".lobby-head");
if (head) head.after(panel);

function row(f) {
  const li = el("li", "social-row" + (f.online ? " online" : ""));
  li.dataset.username = f.username;
  const who = el("span", "social-who");
  who.appendChild(el("span", "social-dot"));
  const a = el("a", "", f.username);
  a.href = "/accounts/profile/" + encodeURIComponent(f.username) + "/";
  who.appendChild(a);
  who.appendChild(el("span", "social-state", f.online ? words.online : words.offline));
  li.appendChild(who);
  const t = f.table;
  if (t && t.id === null) {
    li.appendChild(el("span", "social-where", words.private));
  } else if (t) {
    const where = el("span", "social-buttons");
    where.appendChild(el("span", "social-where", t.name));
    const go = el("a", "button small friend-go", t.free_seat ? words.join : words.watch);
    go.href = "/tables/" + t.id + "/";
    go.dataset.table = t.id;
    where.appendChild(go);
    li.appendChild(where);
  }
  return li;
}

async function refresh() {
  try {
    const r = await fetch("/api/friends", {headers: {Accept: "application/json"}});
    if (!r.ok) return;
    const data = await r.json();
    const list = $("friends-panel-list");
    clear(list);
    // online first, each part by name as the server sorted it
    const sorted = [...data.friends.filter((f) => f.online), ...data.friends.filter((f) => !f.online)];
    for (const f of sorted) list.appendChild(row(f));
    $("friends-panel-empty").hidden = data.friends.length > 0;
    panel.dataset.loaded = "1";
  } catch (e) { /* offline: the next round tries again */ }
}

refresh();
setInterval(() => { if (!document.hidden) refresh(); }, REFRESH_MS);
document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
