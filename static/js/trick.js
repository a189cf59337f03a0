/* The trick in the middle of the felt (.trick-slot[data-pos] per seat): each
 * seat's latest play in the current trick with its name (the server's
 * trick_kinds), 不要 for a pass, the play to beat marked, and who leads. */

import {cardsRow, playName} from "./cards.js";
import {$, clear, el} from "./dom.js";
import {T, fmt} from "./i18n.js";
import {playerName} from "./names.js";
import {playing, positions, state} from "./state.js";

export function renderTrick(s = state) {
  const view = s.view;
  const latest = {}; // seat -> {cards, kind}
  let last = null;
  if (playing(s) && view.trick) {
    const kinds = view.trick_kinds || [];
    view.trick.plays.forEach(([seat, cards], k) => { latest[seat] = {cards, kind: kinds[k]}; });
    last = view.trick.last;
  }
  const pos = positions(s);
  Object.keys(pos).forEach((where) => {
    const i = pos[where];
    const slot = document.querySelector('.trick-slot[data-pos="' + where + '"]');
    slot.dataset.seat = i;
    clear(slot);
    slot.classList.remove("is-last", "passed");
    const play = latest[i];
    if (!play) return;
    if (!play.cards.length) {
      slot.classList.add("passed");
      slot.appendChild(el("span", "pass-mark", T.pass_mark));
      return;
    }
    if (last && last[0] === i) slot.classList.add("is-last");
    slot.appendChild(cardsRow(play.cards, {dao: view.dao}));
    if (play.kind) slot.appendChild(el("span", "play-kind", playName(play.kind, play.cards)));
  });
  const leading = playing(s) && view.trick && !view.trick.plays.length;
  $("lead-note").textContent = leading ? fmt(T.leads, {name: playerName(view.turn, s)}) : "";
}
