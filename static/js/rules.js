/* 原子 rules in the browser: a faithful port of games/engine/combos.py and the
 * card helpers of games/engine/cards.py (RULES.md §2, §3).
 *
 * Only used to check a selection instantly; the server decides every move.
 *   YuanziRules.classify(cards, dao) -> play object or null (throws Error on a bad card)
 *   YuanziRules.beats(newPlay, tablePlay) -> bool
 * A play: {kind, rank, size, cards, dao, jokers, strength, isDao}.
 */
(function (root) {
  "use strict";

  var RANKS = "3456789TJQKA2";
  var SUITS = "SHCD"; // high to low for atoms: ♠ > ♥ > ♣ > ♦
  var BIG_JOKER = "RJ";
  var SMALL_JOKER = "BJ";
  var COPIES = 3;
  var SINGLE = "single", PAIR = "pair", TRIPLE = "triple", BOMB = "bomb",
      ATOM = "atom", HYDROGEN = "hydrogen";
  var SMALL_KIND = {1: SINGLE, 2: PAIR, 3: TRIPLE};

  function isCard(c) {
    if (typeof c !== "string") return false;
    if (c === BIG_JOKER || c === SMALL_JOKER) return true;
    return c.length === 2 && RANKS.indexOf(c[0]) >= 0 && SUITS.indexOf(c[1]) >= 0;
  }

  function parseCards(cards) {
    if (!Array.isArray(cards)) throw new Error("expected a list of cards");
    var counts = {};
    cards.forEach(function (c) {
      if (!isCard(c)) throw new Error("not a card: " + JSON.stringify(c));
      counts[c] = (counts[c] || 0) + 1;
      if (counts[c] > COPIES) throw new Error(counts[c] + " copies of " + c);
    });
    return cards.slice();
  }

  function isJoker(c) { return c[1] === "J"; }

  function checkDao(dao) {
    if (typeof dao !== "string" || dao.length !== 1 || RANKS.indexOf(dao) < 0) {
      throw new Error("not a dao rank: " + JSON.stringify(dao));
    }
    return dao;
  }

  /* 3 -> 0 … 2 -> 12, dao -> 13 */
  function rankStrength(rank, dao) { return rank === dao ? 13 : RANKS.indexOf(rank); }

  /* Jokers alone: with the 3s, or below the 4s when 3 is dao (§3). */
  function jokerStrength(dao) { return dao === "3" ? -1 : 0; }

  /* dao atoms > RJ atom > BJ atom > 2 … 3; ♠ > ♥ > ♣ > ♦ */
  function atomStrength(card, dao) {
    if (card[1] === "J") return card === BIG_JOKER ? 61 : 60;
    var suit = 3 - SUITS.indexOf(card[1]);
    if (card[0] === dao) return 70 + suit;
    return RANKS.indexOf(card[0]) * 4 + suit;
  }

  function makePlay(kind, rank, cards, dao, jokers, strength, isDao) {
    return {kind: kind, rank: rank, size: cards.length, cards: cards, dao: dao,
            jokers: jokers, strength: strength, isDao: isDao};
  }

  function classify(cards, dao) {
    var cs = parseCards(cards);
    checkDao(dao);
    var n = cs.length;
    if (n === 0) return null;
    var jokers = cs.filter(isJoker);
    var plain = cs.filter(function (c) { return !isJoker(c); });
    var nj = jokers.length;
    if (n === 3 && cs[0] === cs[1] && cs[1] === cs[2]) {
      var c = cs[0];
      return makePlay(ATOM, nj ? "3" : c[0], cs, dao, nj, atomStrength(c, dao), false);
    }
    if (plain.length === 0) {
      return makePlay(SMALL_KIND[n] || BOMB, "3", cs, dao, nj, jokerStrength(dao), false);
    }
    var rank = plain[0][0];
    for (var i = 0; i < plain.length; i++) {
      if (plain[i][0] !== rank) return null;
    }
    if (rank === dao && nj) return null; // jokers never join dao cards (§3)
    if (n === 8 && !nj) {
      var suits = {S: 0, H: 0, C: 0, D: 0};
      plain.forEach(function (p) { suits[p[1]] += 1; });
      if (suits.S === 2 && suits.H === 2 && suits.C === 2 && suits.D === 2) {
        return makePlay(HYDROGEN, rank, cs, dao, 0, rankStrength(rank, dao), false);
      }
    }
    return makePlay(SMALL_KIND[n] || BOMB, rank, cs, dao, nj, rankStrength(rank, dao),
                    rank === dao);
  }

  function beats(nw, table) {
    if (nw.dao !== table.dao) throw new Error("plays read under different daos");
    var nk = nw.kind, tk = table.kind;
    if (nk === HYDROGEN) return tk !== HYDROGEN || nw.strength > table.strength;
    if (tk === HYDROGEN) return false;
    if (nk === ATOM) return tk !== ATOM || nw.strength > table.strength;
    if (tk === ATOM) return false;
    if (nk === BOMB) {
      if (tk === BOMB) {
        return nw.size > table.size || (nw.size === table.size && nw.strength > table.strength);
      }
      return !table.isDao;
    }
    return nk === tk && nw.strength > table.strength;
  }

  /* Sort key for showing a hand, weakest first; jokers after everything (cards.py). */
  function cardSortKey(card, dao) {
    if (isJoker(card)) return [card === BIG_JOKER ? 20 : 19, 0];
    return [rankStrength(card[0], dao), 3 - SUITS.indexOf(card[1])];
  }

  function sortHand(cards, dao) {
    return cards.slice().sort(function (a, b) {
      var ka = cardSortKey(a, dao), kb = cardSortKey(b, dao);
      return ka[0] - kb[0] || ka[1] - kb[1];
    });
  }

  function cardPoints(card) {
    if (isJoker(card)) return 0;
    return card[0] === "5" ? 5 : (card[0] === "T" || card[0] === "K") ? 10 : 0;
  }

  var api = {
    RANKS: RANKS, SUITS: SUITS, KINDS: [SINGLE, PAIR, TRIPLE, BOMB, ATOM, HYDROGEN],
    isCard: isCard, isJoker: isJoker, classify: classify, beats: beats,
    rankStrength: rankStrength, cardSortKey: cardSortKey, sortHand: sortHand,
    cardPoints: cardPoints,
  };
  root.YuanziRules = api;
  if (typeof module !== "undefined" && module.exports) module.exports = api;
})(typeof window !== "undefined" ? window : globalThis);
