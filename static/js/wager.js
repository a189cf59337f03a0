/* The table's coin wager (押宝; shop.wagers, docs/protocol.md "Wagers"), in
 * #wager-box (templates/shop/_wager_box.html): the wager, my own balance, what
 * a game wins or loses, on each seat whether that player can afford the wager,
 * the owner's control to set it, and once a wager game is over each seat's
 * coin change in the result panel.
 *
 * Nothing here is computed: every figure is one the server sent (the table
 * snapshot's wager / wager_afford / wager_stakes, boot me.coins, a finished
 * view's coins and coin_changes). Hooks: #wager-box[data-wager],
 * #wager-select, #wager-set, .seat .wager-afford[data-afford=1|0],
 * #result-body .coin-changes li[data-seat][data-coins].
 */

import {$, el, show} from "./dom.js";
import {T, fmt, signed, useStrings} from "./i18n.js";
import {playerName} from "./names.js";
import {isOwner, state, tableWaiting} from "./state.js";

let coins = null; // my latest balance from the server: boot me.coins, `me` frames, a finished view's
let overTaken = null; // the finished game whose view's coins were taken (once: a later `me` frame wins)

/* My balance from a `me` frame of the per-user channel (table.js). */
export function setMyCoins(n) {
  if (typeof n === "number") coins = n;
}
let chosen = false; // the owner picked a rung not yet set: table updates must not undo it

/* The form calls setWager(n) with the chosen rung of the ladder. */
export function wireWager(setWager) {
  if (!$("wager-box")) return;
  useStrings("wager-strings");
  coins = typeof state.me.coins === "number" ? state.me.coins : null;
  $("wager-select").addEventListener("change", () => { chosen = true; });
  // the escape dialog (controls.js) names the rating penalty; a wager table adds
  // its coins (RULES.md §9: wager × the penalty), once that listener has written
  const escape = $("escape-btn");
  if (escape) escape.addEventListener("click", () => setTimeout(() => {
    const t = state.table, v = state.view, text = $("escape-text");
    if (!t || !t.wager || !v || v.practice || !text || $("escape-dialog").hidden) return;
    text.textContent += " " + fmt(T.escape_wager, {coins: t.wager * v.escape_penalty});
  }, 0));
  $("wager-form").addEventListener("submit", (e) => {
    e.preventDefault();
    chosen = false;
    setWager(Number($("wager-select").value));
  });
}

export function renderWager(s = state) {
  const box = $("wager-box");
  if (!box || !s.table) return;
  const t = s.table;
  const v = s.view;
  const wager = t.wager || 0;
  box.dataset.wager = wager;
  if (v && v.status === "over" && typeof v.coins === "number" && overTaken !== v.game_id) {
    overTaken = v.game_id;
    coins = v.coins;
  }
  $("wager-amount").textContent = wager ? fmt(T.wager_amount, {wager}) : T.no_wager;
  $("my-coins").textContent = coins === null ? "" : fmt(T.my_coins, {coins});
  const st = t.wager_stakes;
  $("wager-stakes").textContent = st
    ? fmt(T.wager_stakes, {stake: st.stake, normal: st.normal, double: st.double_clamp}) : "";
  show($("wager-form"), isOwner(s) && tableWaiting(s));
  const select = $("wager-select");
  if (!chosen && document.activeElement !== select) select.value = String(wager);
  renderAfford(t, tableWaiting(s) ? wager : 0);
  renderCoinChanges(s);
}

/* On each seat: can that player afford the wager (a yes or no, never a balance). */
function renderAfford(t, wager) {
  document.querySelectorAll(".seat[data-seat]").forEach((seatBox) => {
    const i = Number(seatBox.dataset.seat);
    const afford = wager && t.wager_afford ? t.wager_afford[i] : null;
    let mark = seatBox.querySelector(".wager-afford");
    if (afford === null || afford === undefined) {
      if (mark) mark.remove();
      return;
    }
    if (!mark) {
      mark = el("span", "badge wager-afford");
      seatBox.appendChild(mark);
    }
    mark.dataset.afford = afford ? "1" : "0";
    mark.textContent = afford ? T.can_afford : T.cannot_afford;
  });
}

/* The result panel (result.js redraws #result-body first): each seat's coin change. */
function renderCoinChanges(s) {
  const v = s.view;
  const body = $("result-body");
  if (!body || $("result-panel").hidden || !(v && v.status === "over" && v.coin_changes)) return;
  if (body.querySelector(".coin-changes")) return;
  const box = el("div", "coin-changes");
  box.appendChild(el("h3", "", fmt(T.wager_amount, {wager: v.wager})));
  const list = el("ul", "");
  v.coin_changes.forEach((c, i) => {
    const li = el("li", c > 0 ? "up" : c < 0 ? "down" : "");
    li.dataset.seat = i;
    li.dataset.coins = c;
    li.appendChild(el("span", "who", playerName(i, s)));
    li.appendChild(document.createTextNode(" "));
    li.appendChild(el("strong", "delta", fmt(T.coins_signed, {coins: signed(c)})));
    list.appendChild(li);
  });
  box.appendChild(list);
  body.appendChild(box);
}
