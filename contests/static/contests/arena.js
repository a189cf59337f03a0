// Arenas (比赛): countdowns on the lobby's panel and the arena pages; on an
// arena's page the standings, its players and pool, and "your table" refresh
// every 5 s from
// GET /api/arenas/<id>, and a player whose table is ready is taken to it
// (they confirm there within 30 s): at once on the per-user channel's
// `arena_seated` frame, else at the next refresh, once per seating (a
// seating after a lapse often reuses the same table, so not once per table).
// No rules here: the server says it all.

const panel = document.getElementById("arena-lobby");
const main = document.querySelector("main");
if (panel && main) main.prepend(panel); // the lobby includes it after the page

function clock(seconds) {
  const s = Math.max(0, seconds);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(r)}` : `${two(m)}:${two(r)}`;
}

const started = Date.now();
function tick() {
  const gone = Math.floor((Date.now() - started) / 1000);
  for (const el of document.querySelectorAll("[data-countdown]")) {
    const left = Number(el.dataset.countdown) - gone;
    el.textContent = clock(left);
    if (left <= 0 && !el.dataset.done) {
      el.dataset.done = "1";
      if (document.getElementById("arena")) setTimeout(() => location.reload(), 2500);
    }
  }
}
tick();
setInterval(tick, 1000);

const page = document.getElementById("arena");
function cell(text) {
  const td = document.createElement("td");
  td.textContent = text;
  return td;
}
async function refresh() {
  const id = page.dataset.arenaId;
  const query = new URLSearchParams(location.search).get("page") || "1";
  const response = await fetch(`/api/arenas/${id}?page=${encodeURIComponent(query)}`,
    { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!response.ok) return;
  const data = await response.json();
  // the arena moved on (began, ended, was cancelled): the page says it afresh
  if (data.status !== page.dataset.status) { location.reload(); return; }
  for (const [id, values] of [["arena-players", {n: data.players, m: data.max_players}],
                              ["arena-pool", {pool: data.pool}]]) {
    const span = document.getElementById(id);
    if (span) span.textContent = span.dataset.pattern.replace(/\{(\w+)\}/g, (_, k) => values[k]);
  }
  const body = document.querySelector("#arena-standings tbody");
  if (body && data.standings.rows.length) {
    body.replaceChildren(...data.standings.rows.map((r) => {
      const tr = document.createElement("tr");
      tr.className = `arena-${r.status}`;
      tr.append(cell(r.place ?? "–"), cell(r.username), cell(r.points), cell(r.games),
        cell(`${r.win_rate}%`), cell(r.prize || ""));
      return tr;
    }));
  }
  const me = data.me;
  const key = me && me.seating ? `arena-seating-${me.seating}` : null;
  if (me && me.table && me.status === "seated" && key && !sessionStorage.getItem(key)) {
    sessionStorage.setItem(key, "1"); // once per seating: coming back stays here
    location.href = me.table;
  }
}
if (page) {
  setInterval(() => { refresh().catch(() => {}); }, 5000);
  // at once too: a seating made while this page loaded is not 5 s away
  if (page.dataset.status === "running") setTimeout(() => { refresh().catch(() => {}); }, 300);
  // seated by the arena (me.js re-dispatches the per-user channel's frames)
  document.addEventListener("yuanzi:frame", (ev) => {
    const msg = ev.detail;
    if (!msg || msg.type !== "arena_seated" || typeof msg.path !== "string") return;
    if (!msg.path.startsWith("/tables/")) return;
    // marked as gone to only when the page goes: a reload meanwhile (the start's
    // countdown, the status moving on) left a tester's page here for good
    setTimeout(() => {
      if (msg.seating) sessionStorage.setItem(`arena-seating-${msg.seating}`, "1");
      location.href = msg.path;
    }, 1200);
  });
}
