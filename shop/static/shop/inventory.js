// The inventory grid: click one slot then another to swap; double-click
// (or tap, then 使用) to use. Every use names its slot, the item expected there
// and a key made here, so a double-clicked or resent use acts once.
const grid = document.getElementById("inventory");
const T = JSON.parse(document.getElementById("shop-strings").textContent);
const message = document.getElementById("inventory-message");
const useBtn = document.getElementById("use-btn");
const TABLE_ITEMS = ["sign", "gold_sign", "tablecloth", "card_counter"];
let selected = null;

function csrf() {
  return document.querySelector("#shop-panel [name=csrfmiddlewaretoken]").value;
}

export function newKey() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return String(Date.now()) + Math.random().toString(16).slice(2);
}

async function post(url, body) {
  const r = await fetch(url, {
    method: "POST",
    headers: {"Content-Type": "application/json", "X-CSRFToken": csrf(), "Accept": "application/json"},
    body: JSON.stringify(body),
  });
  return r.json();
}

function say(text) { message.textContent = text; }

function render(me) {
  document.getElementById("shop-coins").textContent = me.coins;
  const held = document.getElementById("shop-held"); // RULES.md §12 "Held stake"
  held.hidden = !me.coins_held;
  held.textContent = me.coins_held ? T.held.replace("%(held)s", me.coins_held) : "";
  document.getElementById("disarm-btn").disabled = !me.inventory.some((s) => s.armed);
  for (const s of me.inventory) {
    const b = grid.querySelector(`[data-slot="${s.slot}"]`);
    b.dataset.item = s.item || "";
    b.dataset.count = s.count;
    b.classList.toggle("armed", s.armed);
    b.replaceChildren();
    // the slot's name goes with its item: a swapped slot keeps no old tooltip
    const name = s.item ? (T.items[s.item] || s.item) : "";
    if (name) b.title = name; else b.removeAttribute("title");
    if (s.item) {
      const img = document.createElement("img");
      img.src = grid.dataset.static + s.item + ".svg";
      img.alt = name; img.width = 40; img.height = 40;
      const n = document.createElement("span");
      n.className = "count"; n.textContent = s.count;
      b.append(img, n);
      if (s.armed) {
        const a = document.createElement("span");
        a.className = "armed-mark"; a.textContent = T.armed_mark;
        b.append(a);
      }
    }
  }
}

function select(b) {
  if (selected) selected.classList.remove("selected");
  selected = b;
  if (b) b.classList.add("selected");
  useBtn.disabled = !(b && b.dataset.item);
}

async function use(b) {
  const item = b.dataset.item;
  if (!item) return;
  if (TABLE_ITEMS.includes(item)) { say(T.at_table); return; }
  if (item === "recorder") { say(T.at_result); return; }
  const reply = await post(grid.dataset.useUrl, {slot: Number(b.dataset.slot), item, key: newKey()});
  if (!reply.ok) { say(reply.message || T.failed); return; }
  render(reply);
  select(null);
  say(item === "timer" ? T.armed : T.gem.replace("%(points)s", reply.result.points));
}

grid.addEventListener("click", async (ev) => {
  const b = ev.target.closest(".slot");
  if (!b) return;
  if (selected && selected !== b) {
    const a = selected;
    select(null);
    const reply = await post(grid.dataset.swapUrl, {a: Number(a.dataset.slot), b: Number(b.dataset.slot)});
    if (reply.ok) render(reply); else say(reply.message || T.failed);
    return;
  }
  select(b);
  if (b.dataset.item) say(T.select);
});
grid.addEventListener("dblclick", (ev) => {
  const b = ev.target.closest(".slot");
  if (b) { select(null); use(b); }
});
useBtn.addEventListener("click", () => { if (selected) { const b = selected; select(null); use(b); } });
document.getElementById("disarm-btn").addEventListener("click", async () => {
  const reply = await post(grid.dataset.disarmUrl, {});
  if (reply.ok) { render(reply); say(T.disarmed); }
});

// 录像机 from the profile's recent games: the first recorder in the inventory.
// With none left the buttons say so (their title) and a click says where to buy one.
function markRecordButtons() {
  const none = !grid.querySelector('[data-item="recorder"]');
  for (const b of document.querySelectorAll(".record-btn")) {
    b.classList.toggle("secondary", none);
    if (none) b.title = T.no_recorder; else b.removeAttribute("title");
  }
}
markRecordButtons();
for (const btn of document.querySelectorAll(".record-btn")) {
  btn.addEventListener("click", async () => {
    if (btn.disabled) return;  // a double click: the first is on its way
    const slot = grid.querySelector('[data-item="recorder"]');
    if (!slot) { say(T.no_recorder); return; }
    btn.disabled = true;
    let reply;
    try {
      reply = await post(grid.dataset.useUrl, {
        slot: Number(slot.dataset.slot), item: "recorder", key: newKey(), game: Number(btn.dataset.game)});
    } catch (e) {
      reply = {ok: false};
    }
    btn.disabled = false;
    if (!reply.ok) { say(reply.message || T.failed); return; }
    render(reply);
    markRecordButtons();
    say(T.saved);
    // 已保存 and the replay's link in the button's place (as the page renders a saved game)
    const badge = document.createElement("span");
    badge.className = "badge saved";
    badge.textContent = T.saved_badge;
    const link = document.createElement("a");
    link.href = "/replays/" + reply.result.token + "/";
    link.textContent = T.open_replay;
    btn.replaceWith(badge, " ", link);
  });
}

// the balance live: a `me` frame of the per-user channel (static/js/me.js)
document.addEventListener("yuanzi:me", (e) => {
  document.getElementById("shop-coins").textContent = e.detail.coins;
});

// 购买: the form posts once. The server already buys once per form (its one-time
// `key`); here the button is disabled once pressed, so a double click or a
// double tap sends nothing more. A page restored from the back/forward cache
// gets its buttons back, each form with a new key (the old one was spent).
for (const form of document.querySelectorAll("form.buy-form")) {
  form.addEventListener("submit", (ev) => {
    if (form.dataset.sent) { ev.preventDefault(); return; }
    form.dataset.sent = "1";
    const btn = form.querySelector("button[type=submit]");
    if (btn) { btn.disabled = true; btn.dataset.pressed = "1"; }
  });
}
window.addEventListener("pageshow", (ev) => {
  if (!ev.persisted) return;
  for (const form of document.querySelectorAll("form.buy-form")) {
    if (!form.dataset.sent) continue;
    delete form.dataset.sent;
    const key = form.querySelector("input[name=key]");
    if (key) key.value = newKey();
    const btn = form.querySelector("button[type=submit][data-pressed]");
    if (btn) { btn.disabled = false; delete btn.dataset.pressed; }
  }
});
