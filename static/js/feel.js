/* Table feel: sounds and motion, from the change between the view
 * shown before and the one just drawn.
 *
 * Sounds are made on the spot with WebAudio (nothing downloaded): my turn, a
 * bomb, an atom, a hydrogen bomb, someone going out, a few seconds left on my
 * clock. Off by default; the toggle (#sound-btn) is remembered per browser.
 * Motion: the newest play slides in from its seat; a bomb, atom or hydrogen
 * bomb shakes the trick briefly. CSS turns both off under
 * prefers-reduced-motion (static/css/page.css). */

import {$} from "./dom.js";
import {T} from "./i18n.js";
import {myGameSeat, myTurn, playing, state} from "./state.js";

const SOUND_KEY = "yuanzi.sound";
const FEW_SECONDS = 5;
let ctx = null;
let warnedFor = null; // the turn (game:seq) whose few-seconds warning sounded

export function soundOn() {
  try { return localStorage.getItem(SOUND_KEY) === "1"; } catch (e) { return false; }
}

function audio() {
  if (!ctx) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    ctx = new Ctx();
  }
  return ctx;
}

/* A few tones: [[frequency Hz, start s, length s, type]]. */
function tones(list, gain = 0.08) {
  if (!soundOn()) return;
  const a = audio();
  if (!a) return;
  const now = a.currentTime;
  list.forEach(([f, at, len, type = "sine"]) => {
    const o = a.createOscillator(), g = a.createGain();
    o.type = type;
    o.frequency.setValueAtTime(f, now + at);
    g.gain.setValueAtTime(gain, now + at);
    g.gain.exponentialRampToValueAtTime(0.0001, now + at + len);
    o.connect(g).connect(a.destination);
    o.start(now + at);
    o.stop(now + at + len + 0.02);
  });
}

export const SOUNDS = {
  turn: () => tones([[660, 0, 0.12], [880, 0.12, 0.18]]),
  bomb: () => tones([[110, 0, 0.35, "sawtooth"], [80, 0.05, 0.4, "square"]], 0.1),
  atom: () => tones([[220, 0, 0.2, "sawtooth"], [440, 0.15, 0.25], [880, 0.3, 0.3]], 0.1),
  hydrogen: () => tones([[60, 0, 0.6, "sawtooth"], [120, 0.1, 0.6, "square"], [1200, 0.3, 0.4]], 0.12),
  out: () => tones([[523, 0, 0.12], [659, 0.1, 0.12], [784, 0.2, 0.25]]),
  hurry: () => tones([[990, 0, 0.08, "square"], [990, 0.16, 0.08, "square"]], 0.06),
};

function drawToggle() {
  const b = $("sound-btn");
  const on = soundOn();
  b.textContent = on ? T.sound_on : T.sound_off;
  b.setAttribute("aria-pressed", on ? "true" : "false");
  b.dataset.on = on ? "1" : "0";
}

export function wireFeel() {
  drawToggle();
  $("sound-btn").addEventListener("click", () => {
    try { localStorage.setItem(SOUND_KEY, soundOn() ? "0" : "1"); } catch (e) { /* private mode */ }
    drawToggle();
    if (soundOn()) { const a = audio(); if (a && a.resume) a.resume(); SOUNDS.turn(); }
  });
  setInterval(hurry, 500);
}

/* A few seconds left on my turn: one warning per turn. */
function hurry(s = state) {
  if (!myTurn(s) || s.view.time_left_ms === null || s.view.time_left_ms === undefined) return;
  const left = s.view.time_left_ms - (performance.now() - s.viewAt);
  const key = s.view.game_id + ":" + s.view.seq;
  if (left > 0 && left <= FEW_SECONDS * 1000 && warnedFor !== key) {
    warnedFor = key;
    SOUNDS.hurry();
  }
}

const BIG = ["bomb", "atom", "hydrogen"];

/* After the page drew view `s.view` in place of `old`: sound and motion. */
export function afterView(old, s = state) {
  const v = s.view;
  if (!v || !old || old.game_id !== v.game_id || !playing(s)) return;
  const plays = v.trick ? v.trick.plays : [];
  const before = old.trick ? old.trick.plays.length : 0;
  const fresh = plays.length > before || (plays.length && before && old.seq !== v.seq &&
                                          plays.length <= before);
  if (fresh && plays.length) {
    const [seat, cards] = plays[plays.length - 1];
    const slot = document.querySelector('.trick-slot[data-seat="' + seat + '"]');
    if (slot && cards.length) {
      slot.classList.remove("arrive");
      void slot.offsetWidth; // restart the animation
      slot.classList.add("arrive");
    }
    const kind = (v.trick_kinds || [])[plays.length - 1];
    if (kind && BIG.includes(kind.kind)) {
      const trick = $("trick");
      trick.classList.remove("boom", "boom-bomb", "boom-atom", "boom-hydrogen");
      void trick.offsetWidth;
      trick.classList.add("boom", "boom-" + kind.kind);
      SOUNDS[kind.kind]();
    }
  }
  if ((v.finish_order || []).length > (old.finish_order || []).length) SOUNDS.out();
  const mine = myGameSeat(s);
  if (mine !== null && v.turn === mine && (old.turn !== mine || old.half !== v.half)) SOUNDS.turn();
}
