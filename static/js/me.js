/* The per-user channel on every page (docs/protocol.md "The per-user
 * channel"): the logged-in person's coins, held coins, level and title in the
 * header (#me-figures, templates/_me_figures.html), kept live by `me` frames,
 * their `notice` frames as toasts, and the 消息 badge (#inbox-badge,
 * templates/_inbox_badge.html) kept live by `notification` frames (with a
 * toast of its text in the page's language, linking to what it is about,
 * unless `quiet`: its cause's notice said it) and `unread` frames.
 *
 * A page with a socket of its own (the lobby, a table) hands each frame to
 * personalFrame(); any other page opens /ws/me/ for it (personal.js). Other
 * modules hear of new figures through the "yuanzi:me" event on document
 * (detail: the `me` frame), of every frame through "yuanzi:frame" and of a
 * new notification through "yuanzi:notification" (detail: the notification,
 * docs/api.md's row). Hooks for tests: #me-figures[data-coins][data-held][data-level],
 * #me-toasts .toast[data-code], #me-toasts .notification-toast[data-kind],
 * #inbox-badge[data-unread], #site-notice[data-id]. */

import {$, el, trimToasts} from "./dom.js";
import {T, fmt, inMyLanguage, useStrings} from "./i18n.js";

const MAX_TOASTS = 3;
let worded = false;

function words() {
  if (!worded && $("me-strings")) useStrings("me-strings");
  worded = true;
}

/* Show the figures of a `me` frame in the header; tell the page's other modules. */
export function renderMe(me) {
  words();
  const box = $("me-figures");
  if (box) {
    box.dataset.coins = me.coins;
    box.dataset.held = me.coins_held || 0;
    box.dataset.level = me.level;
    $("me-coins").textContent = fmt(T.me_coins, {coins: me.coins});
    const held = $("me-held");
    held.textContent = fmt(T.me_held, {coins: me.coins_held || 0});
    held.hidden = !(me.coins_held > 0);
    $("me-level").textContent = fmt(T.me_level, {
      level: me.level, title: T.lang === "en" ? me.title_en : me.title});
  }
  document.dispatchEvent(new CustomEvent("yuanzi:me", {detail: me}));
}

/* A notice's text in this page's language: its code's own words filled from
   its params when the page has them (T.notice_<code>), else the server's. */
export function noticeText(msg) {
  words();
  const own = T["notice_" + msg.code];
  return own ? fmt(own, msg.params || {}) : (msg.message || "");
}

/* Put a toast in the table's stack on a table page (one stack, placed clear
   of the hand and the buttons: two boxes overlapped there), else in the
   header's own box. */
function addToast(t) {
  let box = $("toasts") || $("me-toasts");
  if (!box) {
    box = el("div", "toasts me-toasts");
    box.id = "me-toasts";
    box.setAttribute("aria-live", "polite");
    document.body.appendChild(box);
  }
  t.setAttribute("role", "status");
  box.appendChild(t);
  setTimeout(() => { if (!t.keep) t.classList.add("fade"); }, 9000);
  setTimeout(() => { if (!t.keep) t.remove(); }, 9700);
  trimToasts(box, MAX_TOASTS);
  document.dispatchEvent(new CustomEvent("yuanzi:toasts"));
  return t;
}

/* A notice as a toast of the header's own. */
export function toastNotice(msg) {
  const t = el("div", "toast info notice-toast", noticeText(msg));
  t.dataset.code = msg.code || "";
  return addToast(t);
}

/* A notification's text in this page's language (the frame carries both). */
export function notificationText(n) {
  const zh = (document.documentElement.lang || "zh").startsWith("zh");
  const text = n.text || {};
  return (zh ? text["zh-hans"] : text.en) || text["zh-hans"] || n.kind || "";
}

/* A notification as a toast: its text, a link to what it is about. A
   prompt (`action`: an arena's table to confirm within 30 s, RULES.md §12)
   also has its button to the link and stays until its deadline (by the
   server's clock: its lifetime counted from now), then goes. Hook:
   .notification-toast .toast-action. */
export function toastNotification(n) {
  const t = el("div", "toast info notification-toast");
  t.dataset.kind = n.kind || "";
  if (n.link) {
    const a = el("a", "toast-link", notificationText(n));
    a.href = n.link;
    t.appendChild(a);
  } else {
    t.textContent = notificationText(n);
  }
  const act = n.link && n.action;
  const life = act ? Date.parse(act.until) - Date.parse(n.created_at) : NaN;
  if (life > 0) {
    const zh = (document.documentElement.lang || "zh").startsWith("zh");
    const text = act.text || {};
    const row = el("div");
    row.style.marginTop = ".4rem";
    const b = el("a", "button small toast-action", (zh ? text["zh-hans"] : text.en) || text.en);
    b.href = n.link;
    row.appendChild(b);
    t.appendChild(row);
    t.keep = true;  // not the usual 9 s: until its deadline
    setTimeout(() => t.remove(), life);
  }
  return addToast(t);
}

/* The header's 消息 badge shows `n` unread (hidden at 0). */
export function setUnread(n) {
  const badge = $("inbox-badge");
  if (!badge || typeof n !== "number") return;
  badge.dataset.unread = n;
  badge.querySelector(".inbox-count").textContent = n > 99 ? "99+" : String(n);
  badge.hidden = n <= 0;
}

/* The site notice (维护公告, a `site_notice` frame on any socket): shown in
   #site-notice in this page's language, or hidden when `notice` is null. */
export function showSiteNotice(notice) {
  const box = $("site-notice");
  if (!box) return;
  box.hidden = !notice;
  box.dataset.id = notice ? notice.id : "";
  const zh = (document.documentElement.lang || "zh").startsWith("zh");
  box.textContent = notice ? (zh ? notice.text : notice.text_en) : "";
}

/* The CSRF token for a fetch POST (the cookie every page with a form sets). */
function csrfToken() {
  const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return m ? decodeURIComponent(m[1]) : "";
}

/* The invites this tab answered or saw expire (sessionStorage: a page restored
   from the back/forward cache or a late frame never shows them again). */
const DONE_INVITES = "yuanzi.invites.done";

function doneInvites() {
  try { return JSON.parse(sessionStorage.getItem(DONE_INVITES) || "[]"); } catch (e) { return []; }
}

function inviteDone(id) {
  const done = doneInvites().filter((x) => x !== String(id)).slice(-49);
  done.push(String(id));
  try { sessionStorage.setItem(DONE_INVITES, JSON.stringify(done)); } catch (e) { /* private mode */ }
}

// ms since the epoch, on this device's clock, when toast invite `id` expires
const inviteDeadlines = {};

function inviteOver(id) {
  const deadline = inviteDeadlines[id];
  return (deadline !== undefined && deadline <= Date.now()) || doneInvites().includes(String(id));
}

/* The toast of an invite that is over: its buttons go, "expired" (or the
   server's words) stays a few seconds. */
function closeInviteToast(t, text) {
  inviteDone(t.dataset.invite);
  t.textContent = text;
  t.keep = false;
  setTimeout(() => t.remove(), 4000);
}

// a page back from the back/forward cache: its timers slept, so toasts of
// invites that expired or were answered meanwhile go at once
window.addEventListener("pageshow", (ev) => {
  if (!ev.persisted) return;
  for (const t of document.querySelectorAll(".invite-toast[data-invite]")) {
    if (inviteOver(t.dataset.invite)) t.remove();
  }
});

/* A table invite (a `notification` of kind table_invite, social.invites): a
   toast naming the table, its wager and minimum (the server's words, in this
   page's language) with 加入 / 拒绝, until answered or expired. 加入 posts
   /api/invites/<id>/accept and goes to the table; past its expiry it says
   the invite expired without asking. An invite already answered or expired
   gets no toast (returns null). Hook: .invite-toast[data-invite]. */
export function inviteToast(n) {
  words();
  const id = n.params.invite_id;
  if (inviteOver(id)) return null;
  const shown = document.querySelector(`.invite-toast[data-invite="${CSS.escape(String(id))}"]`);
  if (shown) return shown;  // the same frame heard twice (a table page's modules)
  // its lifetime by the server's clock, counted from now on this device's
  // (a frame is sent live, never queued: a wrong device clock does not matter)
  const life = Date.parse(n.params.expires_at) - Date.parse(n.created_at);
  inviteDeadlines[id] = Date.now() + (life > 0 ? life : 120000);
  const t = toastNotice({code: "table_invite",
                         message: inMyLanguage(n.text)});
  t.classList.add("invite-toast");
  t.dataset.invite = id;
  const row = el("span", "invite-buttons");
  const answer = async (action) => {
    if (inviteOver(id)) { // a sleeping phone's timer: over already
      closeInviteToast(t, T.invite_expired || "");
      return;
    }
    row.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    try {
      const r = await fetch(`/api/invites/${id}/${action}`, {
        method: "POST", headers: {"Accept": "application/json", "X-CSRFToken": csrfToken()}});
      const body = await r.json();
      if (body.ok || body.reason === "invite_expired" || body.reason === "no_invite") inviteDone(id);
      if (body.ok && body.url) { location.href = body.url; return; }
      t.textContent = body.message || "";
    } catch (e) {
      t.textContent = T.invite_failed || "";
    }
    t.keep = false;
    setTimeout(() => t.remove(), 4000);
  };
  for (const [action, label, cls] of [["accept", T.invite_join, "small"],
                                      ["decline", T.invite_decline, "small secondary"]]) {
    const b = el("button", cls, label);
    b.type = "button";
    b.dataset.action = action;
    b.addEventListener("click", () => answer(action));
    row.appendChild(b);
  }
  t.appendChild(row);
  // an invite lasts two minutes (the server refuses it after): the toast too
  const left = inviteDeadlines[id] - Date.now();
  t.keep = true;
  setTimeout(() => { if (t.isConnected && t.keep) closeInviteToast(t, T.invite_expired || ""); },
             Math.max(left, 0));
  return t;
}

/* One frame of the per-user channel: a `me` frame updates the header; a
   `notice` is shown as a toast unless `notices` is false (the page shows it
   itself); a `site_notice` fills the banner; a `notification` bumps the
   badge and toasts unless quiet; `unread` sets the badge. Returns true when
   the frame was the channel's. */
export function personalFrame(msg, {notices = true} = {}) {
  // every frame of the channel, for the page's other modules (e.g. the lobby's tasks)
  document.dispatchEvent(new CustomEvent("yuanzi:frame", {detail: msg}));
  if (msg.type === "notification") {
    setUnread(msg.unread);
    const n = msg.notification;
    // a table invite is answered in its own toast (加入 / 拒绝)
    if (n && n.kind === "table_invite") inviteToast(n);
    else if (!msg.quiet) toastNotification(n);
    document.dispatchEvent(new CustomEvent("yuanzi:notification", {detail: n}));
    return true;
  }
  if (msg.type === "unread") {
    setUnread(msg.unread);
    return true;
  }
  if (msg.type === "site_notice") {
    showSiteNotice(msg.notice);
    return true;
  }
  if (msg.type === "me") {
    renderMe(msg);
    return true;
  }
  if (msg.type === "notice" && notices) {
    toastNotice(msg);
    return true;
  }
  return false;
}
