// The friends page. Every button is a plain form posting to the JSON
// API (it works without this script: the server redirects back with a
// message). Here each post goes by fetch, the answer's message is said, and on
// success the lists are redrawn from the server's own page — the server stays
// the authority on who is a friend, online or where. The lists are redrawn too
// when a friend request or acceptance arrives (the per-user channel's
// notification, me.js), every 30 s while the page is looked at (who is
// online, where), and when it is looked at again; never while a button's
// post is on its way or the search box is being typed in.
const T = JSON.parse(document.getElementById("friends-strings").textContent);

function fmt(template, values) {
  return String(template).replace(/%\((\w+)\)s/g, (_, k) => values[k] ?? "");
}

function say(text, failed) {
  const box = document.getElementById("social-message");
  box.textContent = text;
  box.classList.toggle("failed", Boolean(failed));
}

let posting = 0;

async function redraw() {
  const r = await fetch(location.href, {headers: {"Accept": "text/html"}});
  if (!r.ok) return;
  const page = new DOMParser().parseFromString(await r.text(), "text/html");
  const fresh = page.getElementById("social");
  const message = document.getElementById("social-message").cloneNode(true);
  document.getElementById("social").replaceWith(fresh);
  fresh.querySelector("#social-message").replaceWith(message);
}

async function send(form) {
  const body = new FormData(form);
  const r = await fetch(form.action, {
    method: "POST",
    body,
    headers: {"Accept": "application/json", "X-CSRFToken": body.get("csrfmiddlewaretoken")},
    credentials: "same-origin",
  });
  return r.json();
}

document.addEventListener("submit", async (event) => {
  const form = event.target.closest("form.social-action");
  if (!form) return;
  event.preventDefault();
  if (form.dataset.confirm && !window.confirm(fmt(form.dataset.confirm, {name: form.dataset.name}))) {
    return;
  }
  const button = form.querySelector("button");
  button.disabled = true;
  posting += 1;
  let answer;
  try {
    answer = await send(form);
  } catch {
    button.disabled = false;
    say(T.failed, true);
    return;
  } finally {
    posting -= 1;
  }
  say(answer.message || (answer.ok ? "" : T.failed), !answer.ok);
  if (answer.ok) {
    await redraw();
  } else {
    button.disabled = false;
  }
});

function quietRedraw() {
  const typing = document.activeElement && document.activeElement.id === "social-q";
  if (posting || typing || document.hidden) return;
  redraw().catch(() => {});  // offline for a moment: the next one will do
}

const LIVE_KINDS = ["friend_request", "friend_accepted"];
document.addEventListener("yuanzi:notification", (e) => {
  if (e.detail && LIVE_KINDS.includes(e.detail.kind)) quietRedraw();
});
document.addEventListener("visibilitychange", quietRedraw);
setInterval(quietRedraw, 30000);
