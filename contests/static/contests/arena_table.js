// Arenas on the table page (contests.plugin page_modules): when the arena
// seats this player at a new table ({"type": "arena_seated", "path",
// "message"} on the per-user channel), say so and go there, after 10 s when
// the last game's result is open (reload it when
// already there: a seating after a lapse often reuses the same table, whose
// page was left showing its empty seats); the toast has a button meanwhile:
// Ready when the new table is this one (the finished game's page), else "go to
// your table and confirm" at once (RULES.md §12 "Arenas": 30 s to confirm).
// The seating's notification (消息) only counts on the badge here: this toast
// says it. At an arena
// table (the snapshot's "arena" key) the banner (#arena-banner) tells the
// seated four to confirm with Ready before the deadline, with its own Ready
// button (it presses the page's #ready-btn).

import { setUnread } from "../js/me.js";
import { toast } from "../js/notices.js";
import { mySnapshotSeat, tableWaiting } from "../js/state.js";

const $ = (id) => document.getElementById(id);
let last = null;
let timer = null;

// a lapsed seating stood this table's four up (contests.arena_run.lapse): the
// arena page is where they wait (its queue, 继续 for the paused), and it follows
// the next seating; this emptied table would only say "choose a seat"
const LAPSED = new Set(["arena_requeued", "arena_paused"]);
const LAPSE_WAIT = 5000;

function lapsed(msg) {
  const p = msg.params || {};
  const a = last && last.table && last.table.arena;
  if (!a || p.arena_id !== a.id || typeof p.path !== "string" || !p.path.startsWith("/arenas/")) {
    return false;
  }
  const t = toast(msg.message || "", "info notice-toast", LAPSE_WAIT);
  t.dataset.code = msg.code;
  setTimeout(() => { location.href = p.path; }, LAPSE_WAIT);
  return true;
}

/* The seating toast's button: on the table it seats me at (the finished
   game's page, reused), Ready; elsewhere, go there now. */
function confirmButton(path, here, going) {
  const box = $("arena-banner");
  const same = here === path;
  const label = same ? ($("arena-ready-btn") || {}).textContent : box && box.dataset.go;
  const b = document.createElement("button");
  b.type = "button";
  b.className = "small arena-toast-btn";
  b.textContent = label || "OK";
  b.addEventListener("click", () => {
    const ready = $("ready-btn");
    if (same && ready && !ready.disabled) {
      clearTimeout(going.timer); // confirmed here: no reload needed
      b.disabled = true;
      ready.click();
    } else if (same) {
      location.reload();
    } else {
      location.href = path;
    }
  });
  return b;
}

export function onMessage(msg) {
  if (msg.type === "notice" && LAPSED.has(msg.code)) return lapsed(msg);
  // the seating's notification: the badge counts it, the toast below says it
  if (msg.type === "notification" && msg.notification &&
      msg.notification.kind === "arena_seated") {
    setUnread(msg.unread);
    document.dispatchEvent(new CustomEvent("yuanzi:notification", { detail: msg.notification }));
    return true;
  }
  if (msg.type !== "arena_seated" || typeof msg.path !== "string") return false;
  if (!msg.path.startsWith("/tables/")) return true;
  const here = location.pathname + location.search;
  // the last game's result stays readable a while (the confirm window is 30 s)
  const panel = $("result-panel");
  const reading = panel && !panel.hidden;
  const wait = reading ? 10000 : 1200;
  const going = {};
  if (msg.message) {
    const t = toast(msg.message, "info arena-seated-toast", wait);
    t.style.pointerEvents = "auto"; // the stack lets clicks through to the felt
    t.append(" ", confirmButton(msg.path, here, going));
  }
  going.timer = setTimeout(() => {
    if (here === msg.path) location.reload();
    else location.href = msg.path;
  }, wait);
  return true;
}

export function wire() {
  const btn = $("arena-ready-btn");
  if (btn) btn.addEventListener("click", () => { const r = $("ready-btn"); if (r) r.click(); });
}

function paint() {
  const box = $("arena-banner");
  const s = last;
  const a = s && s.table && s.table.arena;
  if (!box) return;
  // a closed arena table: the way back is the arena, not the lobby
  const back = $("closed-lobby-link");
  if (a && back) {
    back.href = a.path;
    back.textContent = $("arena-banner-link").textContent;
  }
  if (!a || !tableWaiting(s)) { box.hidden = true; return; }
  const seat = mySnapshotSeat(s);
  const mine = seat !== null && seat !== undefined ? s.table.seats[seat] : null;
  const text = $("arena-banner-text");
  const btn = $("arena-ready-btn");
  $("arena-banner-link").href = a.path;
  btn.hidden = true;
  const left = a.confirm_by
    ? Math.max(0, Math.ceil((Date.parse(a.confirm_by) - Date.now()) / 1000)) : null;
  if (mine && mine.ready) {
    // how long the others have, and how many have confirmed
    const ready = s.table.seats.filter((x) => x.ready).length;
    text.textContent = left === null ? box.dataset.confirmed
      : box.dataset.confirmedLeft.replace("{n}", String(ready)).replace("{s}", String(left));
  } else if (mine && left !== null) {
    text.textContent = box.dataset.confirm.replace("{s}", String(left));
    btn.hidden = false;
    // it presses the page's Ready, which waits for the connection: a press
    // before it opened was lost without a word (a tester was then paused)
    const ready = $("ready-btn");
    btn.disabled = !ready || ready.disabled;
  } else {
    text.textContent = box.dataset.watch;
    // only the arena seats here: the page's "choose an empty seat" would mislead
    const note = $("waiting-note");
    if (note) note.textContent = "";
  }
  box.hidden = false;
}

export function render(s) {
  last = s;
  paint();
  if (!timer && s && s.table && s.table.arena) timer = setInterval(paint, 1000);
}
