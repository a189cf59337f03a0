// The replay page (RULES.md §11 record): step through every action with all four
// hands (forward, back, jump to a trick, play). Hands are rebuilt here from the
// record's dealt hands and the server's frames (one per action, with its trick).
const record = JSON.parse(document.getElementById("replay-record").textContent);
const frames = JSON.parse(document.getElementById("replay-frames").textContent);
const names = JSON.parse(document.getElementById("replay-names").textContent);
const SEATS = JSON.parse(document.getElementById("replay-seats").textContent); // 北 东 南 西
const SUITS = {S: "♠", H: "♥", C: "♣", D: "♦"};
const ORDER = "3456789TJQKA2";  // RULES.md §2 (games/engine/cards.py RANKS), jokers last
const box = document.getElementById("replay-hands");

// "TD" shown as 10♦, the jokers by name; the record and its download keep §2 notation
function cardText(c) {
  if (c === "RJ") return box.dataset.bigJoker;
  if (c === "BJ") return box.dataset.smallJoker;
  return (c[0] === "T" ? "10" : c[0]) + SUITS[c[1]];
}

function rankOf(c) { return c === "BJ" ? 13 : c === "RJ" ? 14 : ORDER.indexOf(c[0]); }

function sorted(cards) {
  return cards.slice().sort((a, b) => rankOf(a) - rankOf(b) || a.localeCompare(b));
}

let step = 0;  // actions applied
let timer = null;

function handsAt(n) {
  let half = null;
  let hands = null;
  for (let i = 0; i < n; i++) {
    const f = frames[i];
    if (f.half !== half) { half = f.half; hands = dealt(half); }
    for (const c of f.cards) hands[f.seat].splice(hands[f.seat].indexOf(c), 1);
  }
  if (hands === null) hands = dealt(frames.length ? frames[0].half : 1);
  const next = frames[n];
  if (next && next.half !== half && half !== null) hands = dealt(next.half);
  return hands;
}

function dealt(half) {
  const h = record.halves.find((x) => x.half === half);
  return h.hands.map((x) => x.slice());
}

function show() {
  const hands = handsAt(step);
  box.replaceChildren();
  const last = frames[step - 1];
  hands.forEach((cards, seat) => {
    const div = document.createElement("div");
    div.className = "replay-hand" + (frames[step] && frames[step].seat === seat ? " acting" : "");
    div.dataset.seat = seat;
    div.textContent = `${SEATS[seat]} ${names[seat]} (${cards.length}): `
      + sorted(cards).map(cardText).join(" ");
    box.append(div);
  });
  document.getElementById("replay-step").textContent = `${step} / ${frames.length}`;
  document.getElementById("replay-action").textContent = last
    ? `${SEATS[last.seat]} ${names[last.seat]}: ${last.cards.length ? sorted(last.cards).map(cardText).join(" ") : "—"}`
    : "";
  const trick = document.getElementById("replay-trick");
  if (last) trick.value = String(last.trick);
}

function go(n) { step = Math.max(0, Math.min(frames.length, n)); show(); }

const trickSelect = document.getElementById("replay-trick");
const tricks = [...new Set(frames.map((f) => f.trick))];
for (const t of tricks) {
  const o = document.createElement("option");
  o.value = String(t); o.textContent = String(t);
  trickSelect.append(o);
}
trickSelect.addEventListener("change", () => {
  const t = Number(trickSelect.value);
  go(frames.findIndex((f) => f.trick === t) + 1);
});
document.getElementById("replay-start").addEventListener("click", () => go(0));
document.getElementById("replay-back").addEventListener("click", () => go(step - 1));
document.getElementById("replay-forward").addEventListener("click", () => go(step + 1));
document.getElementById("replay-play").addEventListener("click", () => {
  if (timer) { clearInterval(timer); timer = null; return; }
  timer = setInterval(() => { if (step >= frames.length) { clearInterval(timer); timer = null; } else go(step + 1); }, 600);
});
show();
