/* Why the selection cannot be played: after a pause on a selection that is no
 * legal play (none of the view's hints), the page asks the server (`why`,
 * docs/protocol.md), whose sentence names the rule (RULES.md §3–§4) and stands
 * in for "these cards cannot be played now". The rules stay on the server;
 * an answer counts only for the very cards and position it was asked for. */

import {myGameSeat, myTurn, selectedCards, selectedHint, state} from "./state.js";

const PAUSE_MS = 400;  // a selection still being made is not asked about
let timer = null;
let waitingFor = null;  // the key a timer or a question is out for
let answer = null;      // {key, text}: the last answer

function keyOf(cards, seq) { return cards.slice().sort().join(" ") + "|" + seq; }

/* The server's sentence for the current selection, or null (not asked yet). */
export function whyText(s = state) {
  if (!answer || !s.view) return null;
  return answer.key === keyOf(selectedCards(s), s.view.seq) ? answer.text : null;
}

/* After any change: ask about the selection once it has rested PAUSE_MS,
   when it is my turn, nothing is pending and no hint matches it. */
export function askWhy(send, s = state) {
  const cards = selectedCards(s);
  const auto = s.view && s.view.players && (s.view.players[myGameSeat(s)] || {}).auto_play;
  const ask = cards.length && myTurn(s) && !s.pending && !auto && !selectedHint(s);
  const key = ask ? keyOf(cards, s.view.seq) : null;
  if (key === waitingFor || (key && answer && answer.key === key)) return;
  clearTimeout(timer);
  waitingFor = key;
  if (!key) return;
  timer = setTimeout(() => {
    if (waitingFor === key) send({type: "why", cards}, true);
  }, PAUSE_MS);
}

/* A `why` frame: keep its sentence; true when there is one to show. */
export function takeWhy(msg) {
  if (!Array.isArray(msg.cards) || msg.legal) return false;
  answer = {key: keyOf(msg.cards, msg.seq), text: msg.message};
  waitingFor = null;
  return true;
}
