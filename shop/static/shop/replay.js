/* The replay page (RULES.md §11 record, §12 录像机): the table drawn as at
 * the table page — four seats 北东南西 with their hands as card faces, the
 * trick in the middle, the scores — stepped through with buttons or keys
 * (← →, Home, End, Space), a jump to any trick, and play / pause.
 *
 * Steps: each half's deal, then one step per action. The server sends every
 * action with what followed it (points taken, points on the table, who is
 * out, a half's final score: shop/replays.py frames) and each half's hands
 * as dealt, sorted (deals); this module only takes played cards out of the
 * dealt hands. No rules here. */

import {cardsRow, handRow} from "../js/cards.js";
import {$, clear, el} from "../js/dom.js";
import {T, fmt, useStrings} from "../js/i18n.js";

useStrings("replay-strings");
const data = (id) => JSON.parse($(id).textContent);
const frames = data("replay-frames");
const deals = data("replay-deals");
const names = data("replay-names");
const SEATS = data("replay-seats"); // 北 东 南 西
const bottom = data("replay-bottom");
// where each seat is drawn; play goes counterclockwise (RULES.md §2): the
// 下家 (s+3)%4 sits on the right, as on the table page
const POS = {bottom, right: (bottom + 3) % 4, top: (bottom + 2) % 4, left: (bottom + 1) % 4};

// the steps: {half, frame} with frame -1 for a half's deal
const steps = [];
deals.forEach((d) => {
  steps.push({half: d.half, frame: -1});
  frames.forEach((f, i) => { if (f.half === d.half) steps.push({half: d.half, frame: i}); });
});
const last = steps.length - 1;
let step = 0;
let timer = null;

function halfName(half) { return half === 1 ? T.first_half : T.second_half; }

/* The four hands after `s`: the half's deal less every card played in it so far. */
function handsAt(s) {
  const {half, frame} = steps[s];
  const hands = deals.find((d) => d.half === half).hands.map((h) => h.slice());
  if (frame < 0) return hands;
  for (let i = 0; i <= frame; i++) {
    const f = frames[i];
    if (f.half !== half) continue;
    f.cards.forEach((c) => hands[f.seat].splice(hands[f.seat].indexOf(c), 1));
  }
  return hands;
}

/* Each seat's latest action in the trick of step `s` (up to it): {seat: frame}. */
function trickAt(s) {
  const {frame} = steps[s];
  const out = {};
  if (frame < 0) return out;
  const trick = frames[frame].trick;
  for (let i = 0; i <= frame; i++) if (frames[i].trick === trick) out[frames[i].seat] = i;
  return out;
}

function teamScore(captured) {
  return [captured[0] + captured[2], captured[1] + captured[3]];
}

function drawSeat(pos, seat, hands, s) {
  const box = document.querySelector(`.replay-seat[data-pos="${pos}"]`);
  const {half, frame} = steps[s];
  const f = frame >= 0 ? frames[frame] : null;
  const dao = deals.find((d) => d.half === half).dao;
  clear(box);
  box.dataset.seat = seat;
  box.classList.toggle("acting", !!f && f.seat === seat);
  const head = el("p", "replay-seat-head");
  head.appendChild(el("span", "replay-compass", SEATS[seat]));
  head.appendChild(el("span", "replay-name", names[seat]));
  const count = el("span", "replay-count", fmt(T.cards_left, {n: hands[seat].length}));
  count.dataset.n = hands[seat].length;
  head.appendChild(count);
  const place = f ? f.out.indexOf(seat) : -1;
  if (place >= 0) head.appendChild(el("span", "badge place place-" + (place + 1), T.places[place]));
  box.appendChild(head);
  const row = handRow(hands[seat], {cls: "mini replay-hand", dao});
  row.dataset.seat = seat;
  box.appendChild(row);
}

function drawTrick(s) {
  const box = $("replay-trick-cards");
  clear(box);
  const {half, frame} = steps[s];
  const dao = deals.find((d) => d.half === half).dao;
  const plays = trickAt(s);
  Object.entries(POS).forEach(([pos, seat]) => {
    const slot = el("div", "replay-slot");
    slot.dataset.pos = pos;
    const i = plays[seat];
    if (i !== undefined) {
      slot.classList.toggle("is-last", i === frame);
      slot.appendChild(el("span", "replay-slot-who", SEATS[seat]));
      slot.appendChild(frames[i].cards.length ? cardsRow(frames[i].cards, {dao})
        : el("span", "pass-mark", T.pass_mark));
    }
    box.appendChild(slot);
  });
}

function drawScores(s) {
  const {half, frame} = steps[s];
  const f = frame >= 0 ? frames[frame] : null;
  const d = deals.find((x) => x.half === half);
  $("replay-half").textContent = (f ? halfName(half) + " · " + fmt(T.trick_n, {n: f.trick})
    : fmt(T.deal, {half: halfName(half)})) + " · " + fmt(T.dao_is, {rank: d.dao === "T" ? "10" : d.dao});
  const team = f ? teamScore(f.captured) : [0, 0];
  const score = $("replay-score");
  score.dataset.ns = team[0];
  score.dataset.ew = team[1];
  score.textContent = `${T.team_ns} ${team[0]} · ${T.team_ew} ${team[1]}` +
    (f && f.table_points ? " · " + fmt(T.trick_points, {points: f.table_points}) : "");
  // the halves finished by this step, with their scores after §5
  const done = frames.filter((x, i) => x.half_points && i <= frame);
  $("replay-halves").textContent = done.map((x) => fmt(T.half_score, {
    half: halfName(x.half), ns: T.team_ns, ns_points: x.half_points[0],
    ew: T.team_ew, ew_points: x.half_points[1]})).join(" · ");
}

function describe(s) {
  const {half, frame} = steps[s];
  if (frame < 0) return fmt(T.deal, {half: halfName(half)});
  const f = frames[frame];
  return `${SEATS[f.seat]} ${names[f.seat]}: ` +
    (f.cards.length ? f.cards.map(cardName).join(" ") : T.pass_mark);
}

const SUIT = {S: "♠", H: "♥", C: "♣", D: "♦"};
function cardName(c) {
  if (c === "RJ") return T.big_joker;
  if (c === "BJ") return T.small_joker;
  return (c[0] === "T" ? "10" : c[0]) + SUIT[c[1]];
}

function show() {
  const hands = handsAt(step);
  Object.entries(POS).forEach(([pos, seat]) => drawSeat(pos, seat, hands, step));
  drawTrick(step);
  drawScores(step);
  $("replay-step").textContent = `${step} / ${last}`;
  $("replay-action").textContent = describe(step);
  const f = steps[step].frame >= 0 ? frames[steps[step].frame] : null;
  if (f) $("replay-trick").value = String(f.trick);
  $("replay-start").disabled = $("replay-back").disabled = step === 0;
  $("replay-forward").disabled = $("replay-end").disabled = step === last;
}

function go(n) { step = Math.max(0, Math.min(last, n)); show(); }

function playPause() {
  const button = $("replay-play");
  if (timer) {
    clearInterval(timer);
    timer = null;
  } else {
    if (step === last) go(0);
    timer = setInterval(() => {
      if (step >= last) playPause(); else go(step + 1);
    }, 700);
  }
  button.textContent = timer ? T.pause : T.play;
  button.setAttribute("aria-pressed", timer ? "true" : "false");
}

const trickSelect = $("replay-trick");
[...new Set(frames.map((f) => f.trick))].forEach((t) => {
  const o = el("option", "", t);
  o.value = String(t);
  trickSelect.appendChild(o);
});
trickSelect.addEventListener("change", () => {
  const t = Number(trickSelect.value);
  go(steps.findIndex((x) => x.frame >= 0 && frames[x.frame].trick === t));
});
$("replay-start").addEventListener("click", () => go(0));
$("replay-back").addEventListener("click", () => go(step - 1));
$("replay-forward").addEventListener("click", () => go(step + 1));
$("replay-end").addEventListener("click", () => go(last));
$("replay-play").addEventListener("click", playPause);
const KEYS = {ArrowLeft: () => go(step - 1), ArrowRight: () => go(step + 1),
  Home: () => go(0), End: () => go(last), " ": playPause};
document.addEventListener("keydown", (e) => {
  const tag = e.target && e.target.tagName;
  if (e.altKey || e.ctrlKey || e.metaKey || tag === "INPUT" || tag === "SELECT" ||
      tag === "TEXTAREA" || !KEYS[e.key]) return;
  if (e.key === " " && tag === "BUTTON") return; // the button's own click
  e.preventDefault();
  KEYS[e.key]();
});
show();
