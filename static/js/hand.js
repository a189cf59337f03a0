/* My hand (#hand), strongest on the left, in rank groups: each card a toggle
 * button (.pcard[data-index] into state.displayHand), each group's "×n" label
 * adds one more card of that rank. Shown only while the game runs. */

import {cardEl, isJoker, jokerName, rankText} from "./cards.js";
import {$, clear, el} from "./dom.js";
import {T, fmt} from "./i18n.js";
import {displayHand, state} from "./state.js";

/* Clicks call onToggle(index) for a card, onOneMore([indices]) for a group label. */
export function wireHand({onToggle, onOneMore}) {
  $("hand").addEventListener("click", (e) => {
    const card = e.target.closest(".pcard[data-index]");
    if (card) { onToggle(Number(card.dataset.index)); return; }
    const label = e.target.closest(".rank-label");
    if (label) onOneMore(label.dataset.indices.split(",").map(Number));
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
    label.title = T.select_one_more;
    label.setAttribute("aria-label", (isJoker(g.key) ? jokerName(g.key) : rankText(g.key)) +
      " ×" + g.idx.length + " · " + T.select_one_more);
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
  renderSelection(s);
}

/* Mark the selected cards (after a click, without redrawing the hand). */
export function renderSelection(s = state) {
  document.querySelectorAll("#hand .pcard").forEach((c) => {
    const on = s.selected.includes(Number(c.dataset.index));
    c.classList.toggle("selected", on);
    c.setAttribute("aria-pressed", on ? "true" : "false");
  });
}
