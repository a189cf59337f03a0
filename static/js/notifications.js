/* The notification centre's page (消息, /notifications/): opening a row's
 * link marks it read first (then the page follows the link); "Mark read" and "Mark all as read" post without reloading the page
 * (the forms work without this script too); a notification arriving while
 * the page is open (the per-user channel, me.js) is added at the top of the
 * first page. Every answer's unread count goes to the header's badge. */

import {$, el} from "./dom.js";
import {notificationText, setUnread} from "./me.js";

const root = $("inbox");
const READ_URL = root.dataset.readUrl;

function csrf() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

function read(body, keepalive = false) {
  return fetch(READ_URL, {
    method: "POST", credentials: "same-origin", keepalive,
    headers: {"Content-Type": "application/json", "Accept": "application/json",
              "X-CSRFToken": csrf()},
    body: JSON.stringify(body),
  }).then((r) => r.json()).then((answer) => {
    if (answer.ok) setUnread(answer.unread);
    return answer;
  });
}

function markRow(row) {
  row.classList.remove("unread");
  const form = row.querySelector("form.inbox-read-one");
  if (form) form.remove();
}

root.addEventListener("click", (e) => {
  const link = e.target.closest("a.inbox-text");
  if (!link) return;
  const row = link.closest(".inbox-row");
  if (!row.classList.contains("unread")) return;
  markRow(row);
  const done = read({ids: [Number(row.dataset.id)]}, true).catch(() => {});
  // a plain click goes on once the row is read, so the next page's badge
  // already counts it (a new tab's or window's click just goes)
  if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  const go = () => { location.href = link.href; };
  setTimeout(go, 3000);
  done.then(go);
});

root.addEventListener("submit", (e) => {
  const form = e.target;
  if (form.id === "inbox-read-all") {
    e.preventDefault();
    read({all: true}).then((a) => {
      if (a.ok) root.querySelectorAll(".inbox-row.unread").forEach(markRow);
    }).catch(() => form.submit());
  } else if (form.classList.contains("inbox-read-one")) {
    e.preventDefault();
    const row = form.closest(".inbox-row");
    read({ids: [Number(row.dataset.id)]}).then((a) => {
      if (a.ok) markRow(row);
    }).catch(() => form.submit());
  }
});

/* A new one while the page is open: at the top of the first page. */
document.addEventListener("yuanzi:notification", (e) => {
  const n = e.detail;
  const onFirst = !new URLSearchParams(location.search).get("page") ||
    new URLSearchParams(location.search).get("page") === "1";
  if (!onFirst || root.querySelector(`.inbox-row[data-id="${n.id}"]`)) return;
  let list = $("inbox-list");
  if (!list) {
    list = el("ul", "inbox-list");
    list.id = "inbox-list";
    const empty = root.querySelector(".inbox-empty");
    if (empty) empty.replaceWith(list); else root.appendChild(list);
  }
  const row = el("li", "inbox-row unread");
  row.dataset.id = n.id;
  row.appendChild(el("span", "inbox-dot"));
  const text = el(n.link ? "a" : "span", "inbox-text", notificationText(n));
  if (n.link) text.href = n.link;
  const when = el("time", "inbox-time", new Date(n.created_at).toLocaleString());
  when.dateTime = n.created_at;
  text.appendChild(when);
  row.appendChild(text);
  list.prepend(row);
});
