/* The per-user channel on every page (docs/protocol.md "The per-user
 * channel"): the logged-in person's coins, held coins, level and title in the
 * header (#me-figures, templates/_me_figures.html), kept live by `me` frames,
 * and their `notice` frames as toasts.
 *
 * A page with a socket of its own (the lobby, a table) hands each frame to
 * personalFrame(); any other page opens /ws/me/ for it (personal.js). Other
 * modules hear of new figures through the "yuanzi:me" event on document
 * (detail: the `me` frame), and of every frame through "yuanzi:frame". Hooks for tests: #me-figures[data-coins]
 * [data-held][data-level], #me-toasts .toast[data-code], #site-notice[data-id]. */

import {$, el} from "./dom.js";
import {T, fmt, useStrings} from "./i18n.js";

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

/* A notice as a toast of the header's own (pages without the table's toasts). */
export function toastNotice(msg) {
  let box = $("me-toasts");
  if (!box) {
    box = el("div", "toasts me-toasts");
    box.id = "me-toasts";
    box.setAttribute("aria-live", "polite");
    document.body.appendChild(box);
  }
  const t = el("div", "toast info notice-toast", noticeText(msg));
  t.setAttribute("role", "status");
  t.dataset.code = msg.code || "";
  box.appendChild(t);
  setTimeout(() => { if (!t.keep) t.classList.add("fade"); }, 9000);
  setTimeout(() => { if (!t.keep) t.remove(); }, 9700);
  while (box.children.length > MAX_TOASTS) box.removeChild(box.firstChild);
  return t;
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

/* A table invite (a `notification` of kind table_invite, social.invites): a
   toast naming the table, its wager and minimum (the server's words, in this
   page's language) with 加入 / 拒绝, until answered or expired. 加入 posts
   /api/invites/<id>/accept and goes to the table. Hook: .invite-toast[data-invite]. */
export function inviteToast(n) {
  words();
  const t = toastNotice({code: "table_invite",
                         message: n.text[T.lang === "en" ? "en" : "zh-hans"] || ""});
  t.classList.add("invite-toast");
  t.dataset.invite = n.params.invite_id;
  const row = el("span", "invite-buttons");
  const answer = async (action) => {
    row.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    try {
      const r = await fetch(`/api/invites/${n.params.invite_id}/${action}`, {
        method: "POST", headers: {"Accept": "application/json", "X-CSRFToken": csrfToken()}});
      const body = await r.json();
      if (body.ok && body.url) { location.href = body.url; return; }
      t.textContent = body.message || "";
    } catch (e) {
      t.textContent = T.invite_failed || "";
    }
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
  const left = Date.parse(n.params.expires_at) - Date.now();
  t.keep = true;
  setTimeout(() => t.remove(), Math.max(left, 5000));
  return t;
}

/* One frame of the per-user channel: a `me` frame updates the header; a
   `notice` is shown as a toast unless `notices` is false (the page shows it
   itself); a `site_notice` fills the banner. Returns true when the frame was
   the channel's. */
export function personalFrame(msg, {notices = true} = {}) {
  // every frame of the channel, for the page's other modules (e.g. the lobby's tasks)
  document.dispatchEvent(new CustomEvent("yuanzi:frame", {detail: msg}));
  if (msg.type === "site_notice") {
    showSiteNotice(msg.notice);
    return true;
  }
  if (msg.type === "me") {
    renderMe(msg);
    return true;
  }
  if (msg.type === "notification" && msg.notification && msg.notification.kind === "table_invite") {
    inviteToast(msg.notification);
    return true;
  }
  if (msg.type === "notice" && notices) {
    toastNotice(msg);
    return true;
  }
  return false;
}
