/* My hand (#hand), strongest on the left, in rank groups: each card a toggle
 * button (.pcard[data-index] into state.displayHand); each group's "×n" chip
 * selects the whole group (again: none of it). On a touch screen a tap on a
 * card adds one more card of that rank (hand_touch.js: swipes, long-press).
 * Shown only while the game runs. */

import {cardEl, isJoker, jokerName, rankText} from "./cards.js";
import {$, clear, el} from "./dom.js";
import {T, fmt} from "./i18n.js";
import {displayHand, state} from "./state.js";

/* The indices of the group a card or chip belongs to. */
export function groupOf(node) {
  const label = node.closest(".rank-group").querySelector(".rank-label");
  return label.dataset.indices.split(",").map(Number);
}

/* Clicks call onToggle(index) for a card (a touch tap: onTapCard(index,
   [group indices])), onGroup([indices]) for a group's chip. */
export function wireHand({onToggle, onTapCard, onGroup}) {
  const box = $("hand");
  let touch = false;
  box.addEventListener("pointerdown", (e) => { touch = e.pointerType === "touch"; });
  box.addEventListener("click", (e) => {
    const card = e.target.closest(".pcard[data-index]");
    if (card) {
      if (card.dataset.swiped === "1") { delete card.dataset.swiped; return; }
      const i = Number(card.dataset.index);
      if (touch) onTapCard(i, groupOf(card)); else onToggle(i);
      return;
    }
    const label = e.target.closest(".rank-label");
    if (label) onGroup(label.dataset.indices.split(",").map(Number));
  });
}

/* Runs of the same rank (jokers: the same card), as index lists. */
function groups(hand) {
  const out = [];
  hand.forEach((c, idx) => {
    const key = isJoker(c) ? c : c[0];
    if (!out.length || out[out.length - 1].key !== key) out.push({key, idx: []});
    out[out.length - 1].idx.push(idx);
  });
  return out;
}

export function renderHand(s = state) {
  const box = $("hand");
  clear(box);
  const hand = displayHand(s);
  box.hidden = !hand.length;
  if (!hand.length) return;
  const dao = s.view.dao;
  groups(hand).forEach((g) => {
    const ge = el("div", "rank-group");
    ge.dataset.rank = g.key;
    if (isJoker(g.key)) ge.classList.add("jokers");
    if (g.key === dao) ge.classList.add("dao");
    const label = el("button", "rank-label", "×" + g.idx.length);
    label.type = "button";
    label.dataset.rank = g.key;
    label.dataset.indices = g.idx.join(",");
    label.title = T.select_group;
    label.setAttribute("aria-label", (isJoker(g.key) ? jokerName(g.key) : rankText(g.key)) +
      " ×" + g.idx.length + " · " + T.select_group);
    ge.appendChild(label);
    const cards = el("div", "group-cards");
    g.idx.forEach((idx) => {
      const c = cardEl(hand[idx], {tag: "button", dao});
      c.type = "button";
      c.dataset.index = idx;
      cards.appendChild(c);
    });
    ge.appendChild(cards);
    box.appendChild(ge);
  });
  box.appendChild(el("div", "hand-count", fmt(T.hand_count, {n: hand.length})));
  spread();
  renderSelection(s);
}

// On a wide screen (site.css, min-width 720px: cards 50 px wide) a short hand
// spreads out: each card shows --step px (18 to 30), the rank groups 10 px
// more apart, so the hand fills its row rather than bunching at the left.
const WIDE = window.matchMedia("(min-width: 720px)");
const CARD_PX = 50, GROUP_PX = 10, PAD_PX = 60, MIN_STEP = 18, MAX_STEP = 30;

function spread() {
  const box = $("hand");
  const n = box.querySelectorAll(".pcard").length;
  const g = box.querySelectorAll(".rank-group").length;
  if (!WIDE.matches || n < 2) { box.style.removeProperty("--step"); return; }
  const room = box.clientWidth - PAD_PX - CARD_PX - GROUP_PX * (g - 1);
  const step = Math.max(MIN_STEP, Math.min(MAX_STEP, Math.floor(room / (n - 1))));
  box.style.setProperty("--step", step + "px");
}
window.addEventListener("resize", spread);

/* Mark the selected cards (after a click, without redrawing the hand). */
export function renderSelection(s = state) {
  document.querySelectorAll("#hand .pcard").forEach((c) => {
    const on = s.selected.includes(Number(c.dataset.index));
    c.classList.toggle("selected", on);
    c.setAttribute("aria-pressed", on ? "true" : "false");
  });
}
