/* The notification centre's page (消息, /notifications/): opening a row's
 * link (or its prompt's button) marks it read first (then the page follows
 * the link); "Mark read" and "Mark all as read" post without reloading the page
 * (the forms work without this script too); a notification arriving while
 * the page is open (the per-user channel, me.js) is added at the top of the
 * first page as the server renders its row (GET /notifications/<id>/row:
 * the same time format and zone, 标为已读, a prompt's button). A prompt's
 * button (an arena's table to confirm, RULES.md §12 "Arenas") goes at its
 * deadline, by the server's clock. Every answer's unread count goes to the
 * header's badge. */

import {$, el} from "./dom.js";
import {setUnread} from "./me.js";

const root = $("inbox");
const READ_URL = root.dataset.readUrl;
// the server's clock minus this device's, when the page was rendered
const SKEW = (Date.parse(root.dataset.now) - Date.now()) || 0;

/* Remove the prompt buttons under `node` at their deadlines (past ones now). */
function expireActions(node) {
  for (const a of node.querySelectorAll("a.inbox-action[data-until]")) {
    const left = Date.parse(a.dataset.until) - (Date.now() + SKEW);
    if (!(left > 0)) a.remove();
    else setTimeout(() => a.remove(), left);
  }
}
expireActions(root);

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
  const link = e.target.closest("a.inbox-text, a.inbox-action");
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

/* A new one while the page is open: at the top of the first page, its row
   as the server renders it. */
async function addRow(id) {
  const here = location.pathname + location.search;
  const r = await fetch(`/notifications/${encodeURIComponent(id)}/row?next=${encodeURIComponent(here)}`,
                        {credentials: "same-origin", headers: {"Accept": "text/html"}});
  if (!r.ok || r.redirected) return;
  const tpl = document.createElement("template");
  tpl.innerHTML = (await r.text()).trim();  // the server's own HTML (autoescaped)
  const row = tpl.content.querySelector("li.inbox-row");
  if (!row || root.querySelector(`.inbox-row[data-id="${CSS.escape(String(id))}"]`)) return;
  let list = $("inbox-list");
  if (!list) {
    list = el("ul", "inbox-list");
    list.id = "inbox-list";
    const empty = root.querySelector(".inbox-empty");
    if (empty) empty.replaceWith(list); else root.appendChild(list);
  }
  expireActions(row);
  list.prepend(row);
}

document.addEventListener("yuanzi:notification", (e) => {
  const n = e.detail;
  const page = new URLSearchParams(location.search).get("page");
  if ((page && page !== "1") || !n || !Number.isInteger(n.id)) return;
  if (root.querySelector(`.inbox-row[data-id="${n.id}"]`)) return;
  addRow(n.id).catch(() => {});
});
