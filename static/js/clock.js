/* The turn clock: counts down locally from the view's time_left_ms (relative,
 * because clients' clocks are wrong: docs/protocol.md) since the view arrived,
 * on the seat to act (.seat.is-turn .seat-timer) and, on my turn, #my-timer. */

import {$} from "./dom.js";
import {T, fmt} from "./i18n.js";
import {myTurn, playing, state} from "./state.js";

const URGENT_S = 10;

export function tick(s = state) {
  const t = document.querySelector(".seat.is-turn .seat-timer");
  const left_ms = s.view && s.view.time_left_ms;
  if (!t || !playing(s) || left_ms === null || left_ms === undefined) return;
  const secs = Math.ceil(Math.max(0, left_ms - (performance.now() - s.viewAt)) / 1000);
  t.textContent = secs + "″";
  t.classList.toggle("urgent", secs <= URGENT_S);
  const bar = $("my-timer");
  if (bar) bar.textContent = myTurn(s) ? fmt(T.seconds_left, {s: secs}) : "";
}

export function startClock(everyMs = 250) { setInterval(() => tick(), everyMs); }
