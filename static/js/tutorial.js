/* The tutorial page (/tutorial/<n>/): shows the step the server sends
 * (GET /api/tutorial/<n>?step=k), lets the learner pick cards or an answer,
 * and posts it (POST /api/tutorial/<n>/play). No rules here: the server
 * judges every play with the engine and words every explanation. A finished
 * lesson is posted to /complete (stored for an account) and kept in
 * localStorage for a visitor; once logged in, the lessons this browser holds
 * and the account lacks are posted to /api/tutorial/sync (then the browser's
 * record is the account's and is cleared). The step shown is kept in
 * sessionStorage per lesson, so a reload or a language switch stays on it. */

import {$, clear, el} from "./dom.js";
import {cardEl, cardsRow, handOrder, playName} from "./cards.js";
import {T, fmt, useStrings} from "./i18n.js";
import {forgetStored, markStored, storedDone} from "./tutorial_store.js";

const root = $("tutorial");
const n = Number(root.dataset.lesson || 0);
const signedIn = root.dataset.saved === "1";
const STEP_KEY = `yuanzi.tutorial.step.${n}`;  // sessionStorage: the step shown
let step = null;
let selected = [];  // indexes into step.hand
let busy = false;

/* The step to show on opening the page: the one shown last in this tab (a
   reload, a language switch), if it is a step of this lesson; else the first. */
function savedStep() {
  let k = NaN;
  try { k = Number(sessionStorage.getItem(STEP_KEY)); } catch (e) { /* private mode */ }
  const steps = Number(root.dataset.steps || 0);
  return Number.isInteger(k) && k >= 0 && k < steps ? k : 0;
}

function keepStep(index) {
  try {
    if (index === null) sessionStorage.removeItem(STEP_KEY);
    else sessionStorage.setItem(STEP_KEY, String(index));
  } catch (e) { /* private mode */ }
}

/* Ticks the lesson list from this browser's own record (a visitor's progress)
   and the lessons of `extra`. */
function tickStored(extra = []) {
  const done = [...storedDone(), ...extra];
  document.querySelectorAll("#tut-lessons li[data-code]").forEach((li) => {
    if (done.includes(li.dataset.code)) {
      li.classList.add("done");
      li.querySelector(".tut-done-mark").hidden = false;
    }
  });
}

function csrf() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

/* Signed in: the lessons this browser finished logged out, which the account
   lacks, go to the account (validated there), then the browser forgets them. */
async function syncStored() {
  const stored = storedDone();
  if (!stored.length) return;
  const lessons = [];
  document.querySelectorAll("#tut-lessons li[data-code]").forEach((li) => {
    if (stored.includes(li.dataset.code) && li.dataset.saved !== "1") {
      lessons.push(Number(li.dataset.n));
    }
  });
  if (lessons.length) {
    const response = await fetch("/api/tutorial/sync", {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf()},
      body: JSON.stringify({lessons}),
    });
    if (!response.ok) return;  // kept in the browser: tried again on the next page
  }
  tickStored();
  forgetStored();
}

async function api(path, body) {
  const options = body === undefined ? {credentials: "same-origin"} : {
    method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json", "X-CSRFToken": csrf()},
    body: JSON.stringify(body),
  };
  const response = await fetch(`/api/tutorial/${n}${path}`, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.message || T.error);
  return data;
}

function playsList(list, plays, dao) {
  clear(list);
  plays.forEach((p) => {
    const li = el("li", "tut-play");
    li.dataset.seat = p.seat;
    li.appendChild(el("span", "tut-who", p.name));
    if (p.cards.length) {
      li.appendChild(cardsRow(p.cards, {cls: "tut-cards", dao}));
      li.appendChild(el("span", "play-kind", playName(p.kind, p.cards)));
    } else {
      li.appendChild(el("span", "pass-mark", T.pass_mark));
    }
    if (p.note) li.appendChild(el("span", "tut-note", p.note));
    list.appendChild(li);
  });
}

function feedback(ok, text) {
  const box = $("tut-feedback");
  box.hidden = false;
  box.className = "tut-feedback " + (ok ? "ok" : "wrong");
  box.textContent = text;
}

function renderHand() {
  const hand = $("tut-hand");
  clear(hand);
  // as at the table: strongest on the left, the jokers apart at the right
  const order = handOrder(step.hand.map((c, i) => [c, i]), ([c]) => c);
  for (const [c, i] of order) {
    const b = cardEl(c, {tag: "button", dao: step.dao});
    b.type = "button";
    b.dataset.index = i;
    if (selected.includes(i)) b.classList.add("selected");
    b.setAttribute("aria-pressed", selected.includes(i) ? "true" : "false");
    b.addEventListener("click", () => {
      selected = selected.includes(i) ? selected.filter((j) => j !== i) : [...selected, i];
      renderHand();
    });
    hand.appendChild(b);
  }
  $("tut-play").disabled = busy || selected.length === 0;
}

function render(s, total) {
  step = s;
  selected = [];
  keepStep(s.index);
  $("tut-step-of").textContent = fmt(T.step_of, {n: s.index + 1, total});
  $("tut-prompt").textContent = s.prompt;
  $("tut-feedback").hidden = true;
  $("tut-after").hidden = true;
  $("tut-next").hidden = true;
  const isPlay = s.kind === "play";
  $("tut-table").hidden = !isPlay;
  $("tut-controls").hidden = !isPlay;
  clear($("tut-hand"));
  clear($("tut-options"));
  if (isPlay) {
    $("tut-dao").textContent = fmt(T.dao_is, {rank: s.dao === "T" ? "10" : s.dao});
    playsList($("tut-plays"), s.table, s.dao);
    if (!s.table.some((p) => p.cards.length)) {
      $("tut-plays").appendChild(el("li", "tut-play lead-note", T.you_lead));
    }
    $("tut-pass").hidden = !s.can_pass;
    renderHand();
  } else {
    s.options.forEach((o) => {
      const b = el("button", "secondary tut-option", o.text);
      b.type = "button";
      b.dataset.choice = o.id;
      b.addEventListener("click", () => answer({choice: o.id}, b));
      $("tut-options").appendChild(b);
    });
  }
}

let total = 0;
let pendingNext = null;

/* Posts the learner's answer (`extra`: {cards} or {choice}; `button`: the
   option clicked) and shows the server's verdict. */
async function answer(extra, button) {
  if (busy) return;
  busy = true;
  try {
    const r = await api("/play", {step: step.index, ...extra});
    feedback(r.ok, r.explanation);
    if (button) button.classList.add(r.ok ? "right" : "wrong");
    if (!r.ok) {
      // the step as it was, the refused cards put back: a tester's next pick
      // joined them and was judged as one (A♠ with the refused 4♠)
      if (extra.cards) { selected = []; renderHand(); }
      return;
    }
    $("tut-controls").hidden = true;
    clear($("tut-hand"));  // the play made is the first of `after`
    $("tut-options").querySelectorAll("button").forEach((b) => { b.disabled = true; });
    if (r.after.length) {
      $("tut-after").hidden = false;
      playsList($("tut-after"), r.after, step.dao);
    }
    if (r.next) {
      pendingNext = r.next;
      $("tut-next").hidden = false;
      $("tut-next").focus();
    } else {
      await complete(r.token);
    }
  } catch (e) {
    feedback(false, e.message || T.error);  // the server's words (seated_elsewhere)
  } finally {
    busy = false;
    if (step && step.kind === "play") $("tut-play").disabled = selected.length === 0;
  }
}

async function complete(token) {
  const r = await api("/complete", {token});
  keepStep(null);  // opened again, the lesson starts at its first step
  if (r.saved) {
    const li = document.querySelector(`#tut-lessons li[data-code="${r.lesson}"]`);
    if (li) li.dataset.saved = "1";
  } else {
    markStored(r.lesson);  // a visitor's: kept in this browser
  }
  tickStored([r.lesson]);
  $("tut-saved").textContent = r.saved ? T.saved_account : T.saved_browser;
  $("tut-complete").hidden = false;
  root.dataset.complete = "1";
}

async function start() {
  useStrings("tutorial-strings");
  tickStored();
  if (signedIn) {
    try { await syncStored(); } catch (e) { /* offline: the browser keeps its record */ }
    root.dataset.synced = "1";
  }
  if (!n) return;
  $("tut-play").addEventListener("click", () => {
    const cards = selected.map((i) => step.hand[i]);
    answer({cards});
  });
  $("tut-pass").addEventListener("click", () => answer({cards: []}));
  $("tut-clear").addEventListener("click", () => { selected = []; renderHand(); });
  $("tut-next").addEventListener("click", () => {
    if (pendingNext) render(pendingNext, total);
    pendingNext = null;
  });
  const at = savedStep();
  let first;
  try {
    first = await api(at ? `?step=${at}` : "");
  } catch (e) {
    first = await api("");  // the step is no longer one of the lesson's: start over
  }
  total = first.lesson.steps;
  render(first.step, total);
  root.dataset.ready = "1";
}

start();
