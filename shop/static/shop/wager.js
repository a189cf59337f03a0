/* The table's coin wager (押宝; shop.wagers, docs/protocol.md "Wagers"), in
 * #wager-box (templates/shop/_wager_box.html): the wager, my own balance, what
 * a game wins or loses, on each seat whether that player can afford the wager,
 * the owner's control to set it, and once a wager game is over each seat's
 * coin change in the result panel.
 *
 * Nothing here is computed but the owner's greyed-out rungs (their own
 * balance against 100 × the rung, #wager-form[data-seat-factor]; the server
 * refuses them anyway): every figure is one the server sent (the table
 * snapshot's wager / wager_afford / wager_stakes, boot me.coins and
 * me.coins_held, a running view's coins_held, a finished view's coins and
 * coin_changes). A rung that would stand seated players up is refused with
 * wager_stands_up naming how many; the owner confirms in #wager-confirm.
 * Hooks: #wager-box[data-wager], #wager-select (option:disabled), #wager-set,
 * #wager-why, #wager-bots-note (why the owner sees no 加机器人 or no wager control),
 * #wager-confirm, #my-held (N 冻结, RULES.md §12 "Held stake"),
 * .seat .wager-afford[data-afford=1|0], .seat .add-bot and .seat select.bot-level
 * (hidden at a wager table),
 * #result-body .coin-changes li[data-seat][data-coins].
 */

import {$, el, show} from "../js/dom.js";
import {T, fmt, signed, useStrings} from "../js/i18n.js";
import {playerName} from "../js/names.js";
import {isOwner, mySnapshotSeat, state, tableWaiting} from "../js/state.js";

let coins = null; // my latest balance from the server: boot me.coins, `me` frames, a finished view's
let held = 0; // of it, held by my running wager game: boot me.coins_held, then my views'
let overTaken = null; // the finished game whose view's coins were taken (once: a later `me` frame wins)

/* My balance from a `me` frame of the per-user channel (table.js). */
export function setMyCoins(n) {
  if (typeof n === "number") coins = n;
}
let chosen = false; // the owner picked a rung not yet set: table updates must not undo it
let asked = null; // the rung the server asked the owner to confirm (wager_stands_up)

/* The form calls setWager(n, confirm) with the chosen rung of the ladder. */
export function wireWager(setWager) {
  if (!$("wager-box")) return;
  useStrings("wager-strings");
  coins = typeof state.me.coins === "number" ? state.me.coins : null;
  held = state.me.coins_held || 0;
  $("wager-select").addEventListener("change", () => { chosen = true; });
  $("wager-confirm-yes").addEventListener("click", () => {
    $("wager-confirm").hidden = true;
    if (asked !== null) setWager(asked, true);
    asked = null;
  });
  $("wager-confirm-no").addEventListener("click", () => {
    $("wager-confirm").hidden = true;
    asked = null;
    chosen = false;
    renderWager();
  });
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
    setWager(Number($("wager-select").value), false);
  });
}

/* An error frame: true if it was the server asking to confirm a rung that
 * stands seated players up (shown in #wager-confirm instead of a toast). */
export function wagerRefused(msg) {
  if (msg.reason !== "wager_stands_up" || !$("wager-confirm")) return false;
  asked = msg.params && msg.params.wager;
  $("wager-confirm-text").textContent = msg.message;
  $("wager-confirm").hidden = false;
  return true;
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
  if (v && typeof v.seat === "number") held = v.status === "playing" ? v.coins_held || 0 : 0;
  $("wager-amount").textContent = wager ? fmt(T.wager_amount, {wager}) : T.no_wager;
  $("my-coins").textContent = coins === null ? "" : fmt(T.my_coins, {coins});
  const heldBox = $("my-held");
  heldBox.hidden = !held;
  heldBox.textContent = held ? fmt(T.coins_held, {held}) : "";
  const st = t.wager_stakes;
  $("wager-stakes").textContent = st
    ? fmt(T.wager_stakes, {stake: st.stake, normal: st.normal, double: st.double_clamp}) : "";
  // a private table takes no wager (RULES.md §12): no control that could only be refused
  // nor at a table with bots: a wager table takes none (RULES.md §12), so the
  // control could only be refused
  const owner = isOwner(s) && tableWaiting(s) && !t.private;
  const bots = (t.seats || []).some((seat) => seat.bot);
  show($("wager-form"), owner && !bots);
  // the owner is told why 加机器人 (or the wager control) is missing
  const why = !owner ? "" : (wager ? T.wager_no_bots : (bots ? T.bots_no_wager : ""));
  $("wager-bots-note").textContent = why;
  show($("wager-bots-note"), !!why);
  const select = $("wager-select");
  if (!chosen && document.activeElement !== select) select.value = String(wager);
  greyOut(select);
  if (!isOwner(s) || !tableWaiting(s)) $("wager-confirm").hidden = true;
  renderAfford(t, tableWaiting(s) ? wager : 0);
  renderShort(s, wager);
  // a wager table takes no bots (RULES.md §12): no 加机器人 that could only be refused
  document.querySelectorAll(".seat .add-bot, .seat select.bot-level")
    .forEach((control) => show(control, !wager));
  renderCoinChanges(s);
}

/* The owner may set only a rung they could sit at: 100 × it of their own
 * coins (the server refuses the others with not_enough_coins). The current
 * rung too, still shown selected: one they can no longer afford is greyed like
 * the rest, or the hint beside it would be wrong (a tester's 20 at 460 coins). */
function greyOut(select) {
  const factor = Number($("wager-form").dataset.seatFactor) || 0;
  let any = false;
  for (const option of select.options) {
    const w = Number(option.value);
    const off = coins !== null && coins < factor * w;
    option.disabled = off;
    any = any || off;
  }
  const why = $("wager-why");
  why.hidden = !any;
  why.textContent = any ? fmt(T.wager_too_high, {coins}) : "";
}

/* Seated at a waiting wager table without 100 × the wager (RULES.md §9): the
 * game could not start with me (the start would stand me up), so Ready (and
 * the result's) is off, and the box says why and what would change it. */
function renderShort(s, wager) {
  const t = s.table;
  const mine = mySnapshotSeat(s);
  const short = !!(wager && tableWaiting(s) && t.wager_afford && mine !== null &&
                   t.wager_afford[mine] === false);
  const needed = wager * (Number($("wager-form").dataset.seatFactor) || 0);
  const note = $("wager-short-note");
  note.textContent = short ? fmt(T.wager_short, {needed}) : "";
  show(note, short);
  // (already ready: they may still take it back)
  const off = short && !t.seats[mine].ready;
  if (off) $("ready-btn").disabled = true;  // controls.js sets it afresh on each render
  const rr = $("result-ready");  // result.js never disables it: this is its one switch
  if (rr) rr.disabled = off;
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

/* The table page's plugin interface (static/js/table.js, shop.plugin). */
export function wire(page) {
  wireWager((wager, confirm) => page.send(confirm ? {type: "set_wager", wager, confirm: true}
    : {type: "set_wager", wager}));
}

export function render() {
  renderWager(); // after seats and result: it marks them
}

/* `me` frames update my balance (not consumed: the header takes them too);
 * a wager_stands_up refusal is consumed (the owner is asked to confirm). */
export function onMessage(msg) {
  if (msg.type === "me") {
    setMyCoins(msg.coins);
    renderWager();
    return false;
  }
  return msg.type === "error" && wagerRefused(msg);
}
