/* Touch gestures on my hand (#hand), beside hand.js's taps:
 * a swipe across neighbouring cards selects every card it passes over; a
 * long press (450 ms without moving) shows the card large (#card-zoom) until
 * the finger lifts. Pointer events, so a mouse drag does the same. */

import {cardEl} from "./cards.js";
import {$, clear} from "./dom.js";
import {state} from "./state.js";

const LONG_PRESS_MS = 450;

/* onSwipe([indices]) when a swipe passed over cards. */
export function wireTouch({onSwipe}) {
  const box = $("hand");
  const zoom = $("card-zoom");
  let start = null, passed = [], timer = null, zoomed = false;

  function cardAt(x, y) {
    const e = document.elementFromPoint(x, y);
    const c = e && e.closest("#hand .pcard[data-index]");
    return c || null;
  }

  function hideZoom() {
    clearTimeout(timer);
    timer = null;
    if (zoomed) { zoom.hidden = true; clear(zoom); }
  }

  box.addEventListener("pointerdown", (e) => {
    const c = e.target.closest(".pcard[data-index]");
    if (!c) return;
    start = c;
    passed = [Number(c.dataset.index)];
    zoomed = false;
    clearTimeout(timer);
    timer = setTimeout(() => {
      zoomed = true;
      clear(zoom);
      zoom.appendChild(cardEl(c.dataset.card, {dao: state.view && state.view.dao}));
      zoom.hidden = false;
    }, LONG_PRESS_MS);
  });
  box.addEventListener("pointermove", (e) => {
    if (!start) return;
    const c = cardAt(e.clientX, e.clientY);
    if (!c) return;
    const i = Number(c.dataset.index);
    if (!passed.includes(i)) { passed.push(i); clearTimeout(timer); }
  });
  function end() {
    if (!start) return;
    const swipe = passed.length > 1 && !zoomed;
    if (swipe) onSwipe(passed.slice());
    if (swipe || zoomed) start.dataset.swiped = "1"; // no tap after a gesture
    hideZoom();
    start = null;
    passed = [];
  }
  box.addEventListener("pointerup", end);
  box.addEventListener("pointercancel", () => { hideZoom(); start = null; passed = []; });
  box.addEventListener("contextmenu", (e) => { if (start || zoomed) e.preventDefault(); });
}
