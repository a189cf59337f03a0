/* 上一轮: the previous trick as it was played, from the view's
 * previous_trick (so it survives a reload): a button (#prev-trick-btn) and
 * the key "L" open the panel (#prev-trick); any click or key closes it. */

import {cardsRow, playName} from "./cards.js";
import {$, clear, el, show} from "./dom.js";
import {T, fmt} from "./i18n.js";
import {playerName} from "./names.js";
import {playing, state} from "./state.js";

function close() { $("prev-trick").hidden = true; }

export function openPrevTrick(s = state) {
  const prev = s.view && s.view.previous_trick;
  const box = $("prev-trick");
  if (!prev) return;
  const list = $("prev-trick-list");
  clear(list);
  prev.plays.forEach(([seat, cards], k) => {
    const li = el("li", cards.length ? "prev-play" : "prev-play passed");
    li.dataset.seat = seat;
    li.appendChild(el("span", "who", playerName(seat, s)));
    if (cards.length) {
      li.appendChild(cardsRow(cards, {dao: s.view.dao}));
      const kind = prev.kinds && prev.kinds[k];
      if (kind) li.appendChild(el("span", "play-kind", playName(kind, cards)));
    } else {
      li.appendChild(el("span", "pass-mark", T.pass_mark));
    }
    list.appendChild(li);
  });
  $("prev-trick-winner").textContent = fmt(T.prev_trick_winner, {name: playerName(prev.winner, s)});
  box.hidden = false;
}

export function renderPrevTrick(s = state) {
  const has = playing(s) && !!(s.view.previous_trick);
  show($("prev-trick-btn"), playing(s));
  $("prev-trick-btn").disabled = !has;
  if (!has) close();
}

export function wirePrevTrick() {
  $("prev-trick-btn").addEventListener("click", (e) => {
    e.stopPropagation();
    if ($("prev-trick").hidden) openPrevTrick(); else close();
  });
  $("prev-trick-close").addEventListener("click", close);
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, textarea")) return;
    if (e.key === "l" || e.key === "L") {
      if ($("prev-trick").hidden) openPrevTrick(); else close();
    } else if (e.key === "Escape") {
      close();
    }
  });
}
