/* social/reputation.js — the social hall on the table page (social.plugin; RULES.md §12 "Friends and
 * blocks", "Finish rate"), in #finish-box (social/_table_panel.html) and on
 * each seat:
 * - each seated player's finish rate (完成率), or 新人, from the snapshot's
 *   finish_rates (.seat .finish-rate[data-rate]);
 * - the table's minimum (#finish-min) and, for the owner while the table waits,
 *   the control that sets it (#finish-select → set_min_finish_rate);
 * - before sitting: a warning when my own rate is below the minimum
 *   (#finish-warn; the sit buttons are disabled: the server would refuse with
 *   reputation_too_low), and a confirmation when someone I block sits here;
 * - on each other person's seat, 屏蔽 / 取消屏蔽 (.seat-block) through the
 *   JSON API (POST /api/blocks/<name>[/remove]); the server then stops
 *   sending me their chat lines and quick phrases.
 * Nothing here is computed but the comparison of two figures the server sent
 * (boot finish_rate, the snapshot's min_finish_rate). */

import {$, el} from "../js/dom.js";
import {T, fmt, useStrings} from "../js/i18n.js";
import {isOwner, state, tableWaiting} from "../js/state.js";

let boot = {finish_rate: null, blocked: [], minimums: [0]};
let send = null;
let blocked = new Set();

function csrf() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  if (input) return input.value;
  const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return m ? decodeURIComponent(m[1]) : "";
}

const pct = (n) => n + "%";

function blockedSeated(s) {
  const t = s.table;
  if (!t) return [];
  return t.seats.filter((seat) => seat.player && blocked.has(seat.player.username))
    .map((seat) => seat.player.username);
}

function tooLow(s) {
  const min = s.table ? s.table.min_finish_rate || 0 : 0;
  return !!(min && boot.finish_rate !== null && boot.finish_rate < min);
}

async function setBlock(name, on) {
  const url = "/api/blocks/" + encodeURIComponent(name) + (on ? "" : "/remove");
  const r = await fetch(url, {method: "POST", credentials: "same-origin",
    headers: {"Accept": "application/json", "X-CSRFToken": csrf()}});
  if (!r.ok) return;
  const body = await r.json();
  if (body.blocked) blocked.add(name); else blocked.delete(name);
  render(state);
}

export function wire(page) {
  const data = $("social-boot");
  if (!data) return;
  boot = JSON.parse(data.textContent);
  blocked = new Set(boot.blocked || []);
  useStrings("social-strings");
  send = page.send;
  const select = $("finish-select");
  (boot.minimums || [0]).forEach((m) => {
    const option = el("option", "", m ? pct(m) : T.any);
    option.value = m;
    // an owner may not ask for more than their own rate (the server refuses it too)
    option.disabled = boot.finish_rate !== null && m > boot.finish_rate;
    select.appendChild(option);
  });
  select.addEventListener("change", () => {
    send({type: "set_min_finish_rate", minimum: Number(select.value)});
  });
  // before seats.js sits me down: ask when someone I block sits here
  $("felt").addEventListener("click", (e) => {
    const b = e.target.closest(".seat-actions button.sit");
    if (b) {
      const names = blockedSeated(state);
      if (names.length && !window.confirm(fmt(T.sit_blocked, {names: names.join(", ")}))) {
        e.stopPropagation();
        e.preventDefault();
      }
      return;
    }
    const block = e.target.closest("button.seat-block");
    if (!block) return;
    e.stopPropagation();
    const name = block.dataset.name;
    const on = !blocked.has(name);
    if (on && !window.confirm(fmt(T.block_confirm, {name}))) return;
    setBlock(name, on);
  }, true);
}

export function render(s = state) {
  const t = s.table;
  if (!t || !$("finish-box")) return;
  const min = t.min_finish_rate || 0;
  $("finish-min").textContent = min ? fmt(T.min_is, {rate: pct(min)}) : T.min_none;
  const warn = $("finish-warn");
  const low = tooLow(s) && tableWaiting(s);
  warn.hidden = !low;
  warn.textContent = low ? fmt(T.too_low, {mine: pct(boot.finish_rate)}) : "";
  const form = $("finish-form");
  form.hidden = !(isOwner(s) && tableWaiting(s));
  $("finish-min").hidden = !form.hidden;  // the owner's select already says it
  const select = $("finish-select");
  if (document.activeElement !== select) select.value = String(min);
  // nothing to say (no minimum, not the owner's to set): no room taken (a phone sideways)
  $("finish-box").hidden = !min && form.hidden && warn.hidden;
  const rates = t.finish_rates || [];
  document.querySelectorAll(".seat[data-seat]").forEach((box) => {
    box.querySelectorAll(".finish-rate, .seat-block").forEach((n) => n.remove());
    const i = Number(box.dataset.seat);
    const seat = t.seats[i];
    if (!seat || !seat.player) return;
    const rate = rates[i];
    const badge = el("span", "badge finish-rate" + (rate === null || rate === undefined ? " newcomer" : ""),
      rate === null || rate === undefined ? T.newcomer : fmt(T.finish, {rate: pct(rate)}));
    if (rate !== null && rate !== undefined) badge.dataset.rate = rate;
    let meta = box.querySelector(".seat-meta");
    if (!meta) { meta = el("div", "seat-meta"); box.appendChild(meta); }
    meta.appendChild(badge);
    if (s.me.id !== null && seat.player.id !== s.me.id) {
      const name = seat.player.username;
      const b = el("button", "seat-block link small", blocked.has(name) ? T.unblock : T.block);
      b.type = "button";
      b.dataset.name = name;
      b.dataset.blocked = blocked.has(name) ? "1" : "0";
      if (blocked.has(name)) b.title = T.blocked_here;
      meta.appendChild(b);
    }
  });
  if (low) {  // after table.js enabled them (an open connection)
    document.querySelectorAll(".seat-actions button.sit").forEach((b) => {
      b.disabled = true;
      b.title = warn.textContent;
    });
  }
}
