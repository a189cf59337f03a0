/* 原子 online — the lobby (templates/games/lobby.html): the entry module. It
 * keeps the server-rendered table list live over /ws/lobby/ (socket.js):
 * "tables" = the whole list, "table" = one row changed, "table_closed" = a row
 * gone (docs/protocol.md). The same socket carries the per-user channel (me.js):
 * the lobby opens one socket. All user text goes in with textContent. */

import {avatarEl} from "./avatar.js";
import {$, clear, el} from "./dom.js";
import {T, fmt, tableName, useStrings} from "./i18n.js";
import {personalFrame} from "./me.js";
import {openSocket} from "./socket.js";

useStrings("lobby-strings");
if ($("wager-strings")) useStrings("wager-strings"); // shop's words for the wager badge
if ($("social-lobby-strings")) useStrings("social-lobby-strings"); // finish-rate badges
const list = $("lobby-tables");
const status = $("lobby-status");
let rows = {};   // id -> row
let order = [];  // ids, newest first

function title(player) { return T.lang === "en" ? player.title_en : player.title; }

/* One seat of a lobby row (the server sends ready false while it plays). */
function seatEl(s) {
  const li = el("li", "lt-seat");
  li.dataset.seat = s.index;
  li.appendChild(el("span", "lt-compass", T.seat_names[s.index]));
  if (s.player) {
    li.appendChild(el("span", "lt-player", s.player.username));
    li.appendChild(document.createTextNode(" "));
    li.appendChild(el("span", "lt-title", title(s.player)));
    if (s.ready) {
      // a check, named: the word took the name's room in a narrow seat
      const ready = el("span", "badge ready", "✓");
      ready.title = T.ready;
      ready.setAttribute("aria-label", T.ready);
      li.appendChild(document.createTextNode(" "));
      li.appendChild(ready);
    }
  } else if (s.bot) {
    li.appendChild(el("span", "lt-player bot", T.bot));
  } else {
    li.classList.add("empty");
    li.appendChild(el("span", "lt-empty", T.empty_seat));
  }
  return li;
}

function rowEl(t) {
  const li = el("li", "lobby-table");
  li.dataset.tableId = t.id;
  li.dataset.status = t.status;
  const head = el("div", "lt-head");
  const a = el("a", "lt-name", tableName(t.name));
  a.href = "/tables/" + t.id + "/";
  head.appendChild(a);
  head.appendChild(el("span", "lt-status " + t.status, t.status === "playing" ? T.playing : T.waiting));
  li.appendChild(head);
  const owner = el("div", "lt-owner");
  const face = t.owner_avatar ? avatarEl(t.owner_avatar.avatar, t.owner_avatar.frame) : null;
  if (face) { owner.appendChild(face); owner.appendChild(document.createTextNode(" ")); }
  owner.appendChild(document.createTextNode(fmt(T.owner, {name: t.owner})));
  if (t.wager) { // a wager table (shop.wagers): the server's figure, as the page renders it
    const badge = el("span", "badge wager", fmt(T.wager_badge, {wager: t.wager}));
    badge.dataset.wager = t.wager;
    owner.appendChild(document.createTextNode(" "));
    owner.appendChild(badge);
  }
  if ("owner_finish_rate" in t) { // the owner's 完成率 (social.reputation), or 新人
    const rate = t.owner_finish_rate;
    const badge = el("span", "badge finish-rate" + (rate === null ? " newcomer" : ""),
      rate === null ? T.newcomer : fmt(T.finish_badge, {rate: rate + "%"}));
    if (rate !== null) badge.dataset.rate = rate;
    owner.appendChild(document.createTextNode(" "));
    owner.appendChild(badge);
  }
  if (t.min_finish_rate) {
    const min = el("span", "badge finish-min", fmt(T.finish_min_badge, {rate: t.min_finish_rate + "%"}));
    min.dataset.min = t.min_finish_rate;
    owner.appendChild(document.createTextNode(" "));
    owner.appendChild(min);
  }
  li.appendChild(owner);
  const seats = el("ol", "lt-seats");
  t.seats.forEach((s) => seats.appendChild(seatEl(s)));
  li.appendChild(seats);
  const foot = el("div", "lt-foot");
  if (t.spectators) foot.appendChild(el("span", "lt-spectators", fmt(T.spectators, {n: t.spectators})));
  const open = el("a", "button small", T.open);
  open.href = "/tables/" + t.id + "/";
  foot.appendChild(open);
  li.appendChild(foot);
  return li;
}

function draw() {
  clear(list);
  if (!order.length) { list.appendChild(el("li", "lobby-empty", T.no_tables)); return; }
  order.forEach((id) => list.appendChild(rowEl(rows[id])));
}

function onMessage(msg) {
  if (personalFrame(msg)) return; // the per-user channel: header figures, notices
  if (msg.type === "tables") {
    rows = {};
    order = [];
    (msg.tables || []).forEach((t) => { rows[t.id] = t; order.push(t.id); });
    draw();
  } else if (msg.type === "table" && msg.table) {
    const t = msg.table;
    if (!(t.id in rows)) order.unshift(t.id);
    rows[t.id] = t;
    const old = list.querySelector('.lobby-table[data-table-id="' + t.id + '"]');
    if (old) list.replaceChild(rowEl(t), old); else draw();
  } else if (msg.type === "table_closed") {
    delete rows[msg.id];
    order = order.filter((id) => id !== msg.id);
    draw();
  }
  // other scripts of the page read the rows (e.g. the shop's 招牌 badges)
  document.dispatchEvent(new CustomEvent("lobby:rows"));
}

window.YuanziLobby = {rows: () => rows};

// the page's lobby filters (?wager=40) go to the socket too: it filters on the server
openSocket("/ws/lobby/" + location.search, {
  onMessage,
  onState: (s) => {
    status.dataset.state = s;
    status.textContent = T["conn_" + s] || "";
    // signed out by the server (a suspension): the next page says why and until when
    if (s === "signed_out") location.reload();
  },
  pingMs: 25000,
});
