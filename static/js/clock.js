/* The turn clock: counts down locally from the view's time_left_ms (relative,
 * because clients' clocks are wrong: docs/protocol.md) since the view arrived,
 * on the seat to act (.seat.is-turn .seat-timer) and in the turn line
 * (#my-timer) after "your turn" / "waiting for …".
 *
 * Only a person's turn clock is counted: a bot's (or a 托管 seat's) turn is its
 * short pause before it moves, shown as "…" on its seat (seats.js) and as no
 * number in the turn line; the line never keeps a number of an earlier turn. */

import {$} from "./dom.js";
import {T, fmt} from "./i18n.js";
import {playing, state} from "./state.js";

const URGENT_S = 10;

/* The seconds left on the turn clock of the seat to act, or null when there
   is none to show: no game running, no clock, or a bot's or 托管 turn. */
export function turnSeconds(s = state) {
  const view = s.view;
  if (!playing(s) || view.turn === null || view.turn === undefined) return null;
  const left_ms = view.time_left_ms;
  if (left_ms === null || left_ms === undefined) return null;
  const who = view.players ? view.players[view.turn] : null;
  if (who && (who.bot || who.auto_play)) return null;
  return Math.ceil(Math.max(0, left_ms - (performance.now() - s.viewAt)) / 1000);
}

export function tick(s = state) {
  const secs = turnSeconds(s);
  const t = document.querySelector(".seat.is-turn .seat-timer");
  if (t) {
    t.textContent = secs === null ? "" : secs + "″";
    t.classList.toggle("urgent", secs !== null && secs <= URGENT_S);
  }
  const bar = $("my-timer");
  if (bar) bar.textContent = secs === null ? "" : fmt(T.seconds_left, {s: secs});
}

export function startClock(everyMs = 250) { setInterval(() => tick(), everyMs); }
