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
 * (detail: the `me` frame) and of a new notification through
 * "yuanzi:notification" (detail: the notification, docs/api.md's row). Hooks
 * for tests: #me-figures[data-coins][data-held][data-level],
 * #me-toasts .toast[data-code], #me-toasts .notification-toast[data-kind],
 * #inbox-badge[data-unread], #site-notice[data-id]. */

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

/* Put a toast in the header's own box (pages without the table's toasts). */
function addToast(t) {
  let box = $("me-toasts");
  if (!box) {
    box = el("div", "toasts me-toasts");
    box.id = "me-toasts";
    box.setAttribute("aria-live", "polite");
    document.body.appendChild(box);
  }
  t.setAttribute("role", "status");
  box.appendChild(t);
  setTimeout(() => t.classList.add("fade"), 9000);
  setTimeout(() => t.remove(), 9700);
  while (box.children.length > MAX_TOASTS) box.removeChild(box.firstChild);
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

/* A notification as a toast: its text, a link to what it is about. */
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

/* One frame of the per-user channel: a `me` frame updates the header; a
   `notice` is shown as a toast unless `notices` is false (the page shows it
   itself); a `site_notice` fills the banner; a `notification` bumps the
   badge and toasts unless quiet; `unread` sets the badge. Returns true when
   the frame was the channel's. */
export function personalFrame(msg, {notices = true} = {}) {
  if (msg.type === "notification") {
    setUnread(msg.unread);
    if (!msg.quiet) toastNotification(msg.notification);
    document.dispatchEvent(new CustomEvent("yuanzi:notification", {detail: msg.notification}));
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
