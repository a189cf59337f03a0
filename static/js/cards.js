/* Card faces: how a card (RULES.md §2 notation: "7S", "TD", "RJ", "BJ") is
 * drawn and named — the same face as templates/games/_card.html renders on the
 * server (games/ui.py card_face). Also the name of a play ("Pair of 8s"),
 * made from the kind the server sent with it (games read side: hints,
 * trick_kinds). No game rules here: the server classifies every play. */

import {el} from "./dom.js";
import {T, fmt} from "./i18n.js";

const SUIT_SYMBOL = {S: "♠", H: "♥", C: "♣", D: "♦"};

export function isJoker(card) { return card === "RJ" || card === "BJ"; }

export function rankText(rank) { return rank === "T" ? "10" : rank; }

export function jokerName(card) { return card === "RJ" ? T.big_joker : T.small_joker; }

/* A card as a styled element (a <span>, or `tag`): rank and suit symbol, red
   for ♥♦, 大王/小王 for RJ/BJ; class "dao" when its rank is `dao`. */
export function cardEl(card, {tag = "span", dao = null} = {}) {
  const e = el(tag, "pcard");
  e.dataset.card = card;
  if (isJoker(card)) {
    e.classList.add("joker", card === "RJ" ? "red" : "black");
    e.setAttribute("aria-label", jokerName(card));
    const corner = el("span", "card-corner");
    corner.appendChild(el("span", "card-rank joker-text",
      card === "RJ" ? T.big_joker_short : T.small_joker_short));
    e.appendChild(corner);
    e.appendChild(el("span", "card-center", "★"));
    return e;
  }
  const rank = rankText(card[0]);
  const suit = SUIT_SYMBOL[card[1]];
  e.classList.add(card[1] === "H" || card[1] === "D" ? "red" : "black");
  if (card[0] === dao) e.classList.add("dao");
  e.setAttribute("aria-label", rank + suit);
  const corner = el("span", "card-corner");
  // "10" is narrowed (.ten): an overlapped card shows only a strip of its corner
  corner.appendChild(el("span", rank === "10" ? "card-rank ten" : "card-rank", rank));
  corner.appendChild(el("span", "card-suit", suit));
  e.appendChild(corner);
  e.appendChild(el("span", "card-center", suit));
  return e;
}

/* A hand in the table's order: strongest on the left, the jokers apart at the
   right, the weak end (a lone joker plays as the lowest 3, and with other
   cards it takes their rank: RULES.md §3). `items` come from the server
   weakest first, jokers last (the engine's sort_hand); `card(item)` is an
   item's card code, for items that carry more (["RJ", 7]: a card and its
   index). The server's own is games.results.hand_as_shown. */
export function handOrder(items, card = (x) => x) {
  const shown = items.slice().reverse();
  const joker = (x) => isJoker(card(x));
  return [...shown.filter((x) => !joker(x)), ...shown.filter(joker)];
}

function row(cards, cls, dao) {
  const e = el("span", "cards " + cls);
  cards.forEach((c) => e.appendChild(cardEl(c, {dao})));
  return e;
}

/* A row of cards, strongest on the left. `cards` come from the server weakest
   first (a play: the engine sorts them), so the row is their reverse. */
export function cardsRow(cards, {cls = "mini", dao = null} = {}) {
  return row(cards.slice().reverse(), cls, dao);
}

/* A hand (weakest first, as the server sends one) as a row in handOrder. */
export function handRow(cards, {cls = "mini", dao = null} = {}) {
  return row(handOrder(cards), cls, dao);
}

/* The name of a play: `kind` is the server's {kind, rank, jokers} for these
   `cards` ("单张 7", "对 8", "三个 10 的炸弹", "原子 8♠", "大王原子" …). */
export function playName(kind, cards) {
  let rank;
  if (kind.kind === "atom") {
    rank = kind.jokers ? jokerName(cards[0]) : rankText(kind.rank) + SUIT_SYMBOL[cards[0][1]];
  } else if (cards.length === 1 && kind.jokers) {
    rank = jokerName(cards[0]);  // "单张 大王", not "Single jokers"
  } else if (kind.jokers === cards.length) {
    rank = T.jokers;
  } else {
    rank = rankText(kind.rank);
  }
  // "Pair of 10s", "Pair of jokers" (Chinese: 对 10)
  const ranks = kind.jokers === cards.length ? rank : fmt(T.rank_plural, {rank});
  return fmt(T.kinds[kind.kind], {rank, ranks, n: cards.length});
}
