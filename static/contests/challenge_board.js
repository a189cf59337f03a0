// One daily challenge board (/challenge/<date>/<n>/): the player's seat view,
// moves through POST /api/challenge/board/<id>/act, and a sign of life every
// few seconds (…/sync) while the page is open: the board's clock runs only
// then (RULES.md §12). The server decides everything; this only shows it.
import {handOrder} from "../js/cards.js";
import {hintFor} from "../js/state.js";

const root = document.getElementById("ch-board");
const S = JSON.parse(document.getElementById("ch-strings").textContent);
const token = document.querySelector("input[name=csrfmiddlewaretoken]").value;
const boardId = root.dataset.board;
const own = S.own === "1";
const SUITS = {S: "♠", H: "♥", C: "♣", D: "♦"};
let frame = JSON.parse(document.getElementById("ch-frame").textContent);
let selected = [];
let busy = false;

const $ = (id) => document.getElementById(id);
const TRICK_LINES = 4;  // one round of the four seats

// a refusal's sentence stays until the player's next step: a render (the sign
// of life redraws every 2 s) must not wipe it (a tester saw nothing)
const say = (text) => { $("ch-error").textContent = text; };

function cardText(c) {
  if (c === "RJ") return S.big_joker;
  if (c === "BJ") return S.small_joker;
  return (c[0] === "T" ? "10" : c[0]) + SUITS[c[1]];
}

function cardEl(c, i) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "ch-card" + ("HD".includes(c[1]) || c === "RJ" ? " red" : "");
  b.textContent = cardText(c);
  b.dataset.card = c;
  if (i !== undefined) {
    b.dataset.index = String(i);
    if (selected.includes(i)) b.classList.add("selected");
    b.setAttribute("aria-pressed", String(selected.includes(i)));
    b.addEventListener("click", () => {
      if (frame.status !== "playing") return;  // paused: 继续 first
      selected = selected.includes(i) ? selected.filter((x) => x !== i) : [...selected, i];
      say("");
      render();
      askWhy();
    });
  }
  return b;
}

function line(seat, cards) {
  const li = document.createElement("li");
  li.textContent = S.seats[seat] + S.colon + (cards.length ? cards.map(cardText).join(" ") : S.pass);
  return li;
}

// "dealt to West (bot)": the seat names carry brackets of their own
const dealtTo = (seat) => S.dealt_to.replace("%(name)s", S.seats[seat]);

function render() {
  const f = frame;
  // for tests and styles: the board's state at a glance
  root.dataset.status = f.status;
  root.dataset.mine = f.view && f.view.turn === 2 && f.status === "playing" ? "1" : "0";
  root.dataset.seq = f.view ? String(f.view.seq) : "";
  const running = f.status !== "done" && f.view;
  $("ch-controls").hidden = !own || f.status === "done" || !!f.closed;
  $("ch-resume").hidden = f.status !== "paused";
  const hand = $("ch-hand");
  hand.replaceChildren();
  const log = $("ch-log");
  log.replaceChildren();
  // the whole board's plays, once it is over (while it runs the trick shows them)
  log.hidden = $("ch-log-title").hidden = f.status !== "done";
  if (running) {
    const v = f.view;
    $("ch-info").textContent = `${S.dao} ${v.dao === "T" ? "10" : v.dao} · ${S.indicator} ${cardText(v.indicator)} ${dealtTo(v.indicator_seat)}`;
    $("ch-counts").replaceChildren(...v.counts.map((n, s) => {
      const li = document.createElement("li");
      li.textContent = `${S.seats[s]}${S.colon}${n} ${S.cards}`;
      return li;
    }));
    // a trick's last round only (a long trick pushed the hand off the screen);
    // the trick's first lines are counted, not drawn
    const plays = v.trick.plays;
    const earlier = Math.max(0, plays.length - TRICK_LINES);
    const lines = plays.slice(earlier).map(([s, cards]) => line(s, cards));
    if (earlier) {
      const li = document.createElement("li");
      li.className = "ch-earlier";
      li.textContent = S.earlier.replace("%(n)s", String(earlier));
      lines.unshift(li);
    }
    $("ch-trick").replaceChildren(...lines);
    // as at the table: strongest first, the jokers apart at the weak right end
    handOrder(v.hand.map((c, i) => [c, i]), ([c]) => c).forEach(([c, i]) => hand.append(cardEl(c, i)));
    const mine = v.turn === 2;
    $("ch-status").textContent = f.status === "paused" ? S.paused
      : mine ? `${S.your_turn} · ${Math.ceil(f.time_left_ms / 1000)} ${S.seconds_left}` : S.waiting;
    // only a legal play may be sent (the server's hints are every legal play now)
    $("ch-play").disabled = !mine || !hintFor(selected.map((i) => v.hand[i]), f.hints);
    $("ch-pass").disabled = !mine || v.trick.last === null;
    // as at the table: nothing beats the table, 提示 is off and 不要 the one play
    const beaten = mine && v.trick.last !== null && !(f.hints && f.hints.length);
    $("ch-hint").disabled = !mine || f.status !== "playing" || beaten;
    $("ch-hint").title = beaten ? S.nothing_beats : "";
    $("ch-result").hidden = true;
  } else if (f.status === "done") {
    $("ch-info").textContent = `${S.dao} ${f.dao === "T" ? "10" : f.dao} · ${S.indicator} ${cardText(f.indicator)} ${dealtTo(f.indicator_seat)}`;
    $("ch-counts").replaceChildren();
    $("ch-trick").replaceChildren();
    handOrder(f.hand).forEach((c) => hand.append(cardEl(c)));  // as during play
    f.actions.forEach(([s, cards]) => log.append(line(s, cards)));
    $("ch-log-count").textContent = `(${f.actions.length})`; // the box scrolls: say how many
    $("ch-status").textContent = S.done;
    const r = $("ch-result");
    r.hidden = false;
    r.replaceChildren();
    const p = (t) => { const e = document.createElement("p"); e.textContent = t; r.append(e); };
    p(`${S.raw}${S.colon}${f.raw}` + (f.raw_why ? ` (${f.raw_why})` : ""));
    p(`${S.mp}${S.colon}${Number(f.matchpoints).toFixed(1)}%`);
    p(`${S.field}${S.colon}${f.field.join(", ") || "–"}`);
    if (f.closed && f.best) {
      const a = document.createElement("a");
      a.href = f.best.path; a.id = "ch-best";
      a.textContent = `${S.best}${S.colon}${f.best.player} (${f.best.raw})`;
      const e = document.createElement("p"); e.append(a); r.append(e);
    }
    if (f.closed) renderReplay();
    // a board of the day's eight has not been dealt yet (a tester went back to
    // board 3 after the eighth and was offered a "next" that was refused)
    if (own && !f.closed && S.more === "1") {
      const a = document.createElement("button");
      a.type = "button"; a.className = "primary"; a.id = "ch-next"; a.textContent = S.next;
      a.addEventListener("click", () => post("/api/challenge/today/start", {}, (d) => window.location.assign(d.path)));
      r.append(a);
    }
  }
}

// once the day has closed: step through the board, every hand shown
let step = 0;

function renderReplay() {
  const f = frame;
  $("ch-replay").hidden = false;
  const hands = f.hands.map((h) => [...h]);
  for (const [s, cards] of f.actions.slice(0, step)) {
    for (const c of cards) hands[s].splice(hands[s].indexOf(c), 1);
  }
  $("ch-replay-hands").replaceChildren(...hands.map((h, s) => {
    const li = document.createElement("li");
    li.textContent = `${S.seats[s]}${S.colon}${handOrder(h).map(cardText).join(" ")}`;
    return li;
  }));
  const last = step ? f.actions[step - 1] : null;
  $("ch-replay-step").textContent = `${S.replay} ${step} / ${f.actions.length}` +
    (last ? ` · ${line(last[0], last[1]).textContent}` : "");
  $("ch-prev").disabled = step === 0;
  $("ch-next-step").disabled = step >= f.actions.length;
}

$("ch-prev").addEventListener("click", () => { step = Math.max(0, step - 1); renderReplay(); });
$("ch-next-step").addEventListener("click", () => {
  step = Math.min(frame.actions.length, step + 1); renderReplay();
});

async function post(url, body, then) {
  const res = await fetch(url, {
    method: "POST", body: JSON.stringify(body),
    headers: {"X-CSRFToken": token, "Content-Type": "application/json", "Accept": "application/json"},
  });
  const data = await res.json();
  if (data.ok) then(data); else say(data.message);
}

// why the selection cannot be played, in the rule's words (…/why, RULES.md
// §3–§4): asked once it has rested, shown while it is still the selection
const WHY_PAUSE_MS = 400;
let whyTimer = null;

function askWhy() {
  clearTimeout(whyTimer);
  const v = frame.view;
  if (!v || v.turn !== 2 || frame.status !== "playing" || !selected.length) return;
  const cards = selected.map((i) => v.hand[i]);
  if (hintFor(cards, frame.hints)) return;
  const asked = `${v.seq}|${cards.join(" ")}`;
  whyTimer = setTimeout(() => post(`/api/challenge/board/${boardId}/why`,
    {action: {type: "play", cards}}, (d) => {
      const now = frame.view;
      const still = now && `${now.seq}|${selected.map((i) => now.hand[i]).join(" ")}` === asked;
      if (still && !d.why.legal) say(d.why.message);
    }), WHY_PAUSE_MS);
}

let moves = 0;  // moves sent: a sign of life's answer older than a move is dropped

async function send(what, body = {}) {
  if (what === "sync" && busy) return;  // one sign of life at a time
  const before = what === "sync" ? moves : ++moves;
  if (what === "sync") busy = true; else say("");
  try {
    await post(`/api/challenge/board/${boardId}/${what}`, body, (d) => {
      if (what === "sync" && before !== moves) return;  // a move answered meanwhile
      const was = frame.view;
      frame = d.board;
      // my move, or my turn gone by on the clock: the selection was for it
      const passed = was && was.turn === 2 && (!frame.view || frame.view.seq !== was.seq);
      if (what !== "sync" || passed) selected = [];
      // the clock acted for me (RULES.md §8): say so, it happened unseen
      if (what === "sync" && passed) say(S.timed_out);
      render();
    });
  } finally {
    if (what === "sync") busy = false;
  }
}

$("ch-play").addEventListener("click", () => {
  const cards = selected.map((i) => frame.view.hand[i]);
  send("act", {seq: frame.view.seq, action: {type: "play", cards}});
});
$("ch-pass").addEventListener("click", () => send("act", {seq: frame.view.seq, action: {type: "pass"}}));
$("ch-clear").addEventListener("click", () => { selected = []; say(""); render(); });

// 提示: each press selects the next of the server's legal plays (frame.hints,
// weakest first), as at a table; with none, it says only a pass is left
let hintAt = -1;
let hintSeq = null;
$("ch-hint").addEventListener("click", () => {
  const hints = frame.hints || [];
  if (!hints.length) { say(S.nothing_beats); return; }
  if (hintSeq !== frame.view.seq) { hintSeq = frame.view.seq; hintAt = -1; }
  hintAt = (hintAt + 1) % hints.length;
  const free = frame.view.hand.map((c, i) => [c, i]);
  selected = hints[hintAt].cards.map((c) => {
    const k = free.findIndex(([x]) => x === c);
    return free.splice(k, 1)[0][1];
  });
  say("");
  render();
});
$("ch-resume").addEventListener("click", () => send("resume"));
// 暂时离开: the clock stops at once and the board frees you for a table
$("ch-leave").addEventListener("click", async () => {
  try { await send("leave"); } finally { window.location.href = root.dataset.back; }
});

render();
if (own) {
  // a sign of life every 2 s while the page is open: the clock runs only then
  setInterval(() => { if (frame.status !== "done" && !document.hidden) send("sync"); }, 2000);
  // the page closed or left: say so (keepalive outlives the page) rather
  // than let the server wait out the gap
  window.addEventListener("pagehide", () => {
    if (frame.status === "done") return;
    fetch(`/api/challenge/board/${boardId}/leave`, {method: "POST", keepalive: true,
      credentials: "same-origin", headers: {"X-CSRFToken": token}});
  });
}
