/* The social parts of the table page (a page module, social.plugin):
 * - #table-invite: the owner and the seated players invite someone — an
 *   online friend from the list, or anyone by name (POST /api/tables/<id>/invite,
 *   docs/api.md); the answer's message is said in #table-invite-said;
 * - a seat's menu (its name tapped open, .seat.name-open) and each other
 *   person of the result panel (#result-body .rating-changes): 加好友, or the
 *   state (已申请 / 好友), from GET /api/friends;
 * - a `notification` of kind table_invite arriving here: the invite toast
 *   with 加入 / 拒绝 (me.js). */

import {$, el} from "../js/dom.js";
import {inviteToast} from "../js/me.js";
import {isOwner, mySnapshotSeat, tableWaiting} from "../js/state.js";

const REFRESH_MS = 20000;
let known = {friends: new Set(), outgoing: new Set(), incoming: new Set(), online: []};
let fetchedAt = 0;
let meId = null;
let last = null;  // the state last rendered: a seat's menu opening redraws the buttons

function csrf() {
  const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return m ? decodeURIComponent(m[1]) : "";
}

async function post(url, body) {
  const r = await fetch(url, {method: "POST", body,
    headers: {"Accept": "application/json", "X-CSRFToken": csrf()}});
  return r.json();
}

async function loadFriends(force) {
  if (!force && Date.now() - fetchedAt < REFRESH_MS) return;
  fetchedAt = Date.now();
  try {
    const r = await fetch("/api/friends", {headers: {Accept: "application/json"}});
    if (!r.ok) return;
    const d = await r.json();
    known = {friends: new Set(d.friends.map((f) => f.username)), outgoing: new Set(d.outgoing),
             incoming: new Set(d.incoming), online: d.friends.filter((f) => f.online)};
    const list = $("table-invite-friends");
    if (list) {
      list.replaceChildren(...known.online.map((f) => { const o = el("option"); o.value = f.username; return o; }));
    }
  } catch (e) { /* offline: later */ }
}

export function wire(page) {
  meId = page.meId;
  const form = $("table-invite");
  if (!form) return;
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const said = $("table-invite-said");
    try {
      const body = await post(form.action, new FormData(form));
      said.textContent = body.message || "";
      if (body.ok) $("table-invite-name").value = "";
    } catch (err) {
      said.textContent = form.dataset.failed;
    }
  });
  document.addEventListener("click", async (e) => {
    if (e.target.closest("#felt .seat-head") && last) { setTimeout(() => render(last), 0); return; }
    const b = e.target.closest("button.seat-friend");
    if (!b || b.disabled) return;
    b.disabled = true;
    try {
      const body = await post(`/api/friends/${encodeURIComponent(b.dataset.username)}/request`);
      if (body.ok) {
        (body.state === "friends" ? known.friends : known.outgoing).add(b.dataset.username);
      }
      b.textContent = body.ok ? friendLabel(b.dataset.username) : (body.message || "");
    } catch (err) { b.disabled = false; }
  });
  loadFriends(true);
}

function friendLabel(name) {
  const w = $("table-invite") ? $("table-invite").dataset : {};
  if (known.friends.has(name)) return w.friend;
  if (known.outgoing.has(name)) return w.requested;
  return w.add;
}

export function render(s) {
  const form = $("table-invite");
  if (!form || !s.table) return;
  last = s;
  const mine = meId !== null && meId !== undefined;
  // an invite lasts until the game starts: the box only while the table waits
  // an arena seats its own four: nobody invites to its tables
  form.hidden = !(mine && tableWaiting(s) && !s.table.arena
                  && (isOwner(s) || mySnapshotSeat(s) !== null));
  loadFriends(false);
  // the seats' menus: add another seated person as a friend
  document.querySelectorAll("#felt .seat").forEach((box) => {
    const seat = s.table.seats[Number(box.dataset.seat)];
    const p = seat && seat.player;
    if (!mine || !p || p.id === meId || !box.classList.contains("name-open")) return;
    box.appendChild(friendButton(p.username));
  });
  // the result panel's players (rated games): the same button beside each other person
  document.querySelectorAll("#result-body .rating-changes li[data-seat]").forEach((li) => {
    const who = li.querySelector(".who");
    const name = who ? who.textContent : "";
    if (!mine || !name || li.querySelector(".seat-friend")) return;
    const seat = s.view && s.view.players ? s.view.players[Number(li.dataset.seat)] : null;
    if (!seat || seat.bot || seat.user_id === meId) return;
    li.appendChild(friendButton(name));
  });
}

function friendButton(name) {
  const b = el("button", "small secondary seat-friend", friendLabel(name));
  b.type = "button";
  b.dataset.username = name;
  b.disabled = known.friends.has(name) || known.outgoing.has(name);
  return b;
}

export function onMessage(msg) {
  if (msg.type === "notification" && msg.notification && msg.notification.kind === "table_invite") {
    inviteToast(msg.notification);
    return true;
  }
  return false;
}
