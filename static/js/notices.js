/* What the table page tells the person: the notices above the felt (#notices:
 * stood up, 托管 switched on by the server, the table closed, no watching at
 * this table) and the toasts
 * (#toasts: refusals and one-off news, a few seconds each). */

import {$, el, trimToasts} from "./dom.js";
import {richText} from "./emoji.js";
import {T, fmt, inMyLanguage} from "./i18n.js";
import {autoByClock, closed, playing, sitRefused, state, stoodUp, watchBarred} from "./state.js";

const MAX_TOASTS = 3;
const said = new WeakMap();  // a toast → the message it was made with

/* A toast: kind "error" (an alert) or "info" (a status), gone after `ms`.
   One saying what a toast on screen already says takes its place: the same
   words never stand twice in the stack (a player stood up for coins got the
   wager's notice, then the same sentence as the refusal of 坐下). */
export function toast(message, kind = "error", ms = 3500) {
  const box = $("toasts");
  for (const old of [...box.children]) {
    if (said.get(old) === String(message)) old.remove();
  }
  const t = richText(el("div", "toast " + kind), message);  // an emoji as the site's icon
  said.set(t, String(message));
  t.setAttribute("role", kind.startsWith("info") ? "status" : "alert");
  box.appendChild(t);
  setTimeout(() => t.classList.add("fade"), ms);
  setTimeout(() => t.remove(), ms + 700);
  trimToasts(box, MAX_TOASTS);
  placeToasts();
  return t;
}

// What a toast never covers: the action row (提示 / 不要 / 出牌, ready), the
// hand, the seat at the bottom of the felt (mine: my clock and my count), and
// the seats' own buttons (坐下, a bot): a game-end toast hid an empty seat's 坐下.
// An open dialog's box too (a turn-timeout toast hid 要逃跑吗？ on a phone).
const KEEP_CLEAR = ["#controls", "#hand", '.seat[data-pos="bottom"]', ".seat-actions",
                    ".overlay:not([hidden]) > .overlay-box"];
const MARGIN = 6;  // px between a toast and what it keeps clear of

/* Put the toasts in the tallest band of the screen that is free of the
   controls and the hand (in the felt's columns), at its bottom edge, next
   to the buttons; the newest toast stays in view if the band is short.
   Called when a toast appears, on every render, on scroll and resize. */
export function placeToasts() {
  const box = $("toasts");
  if (!box || !box.children.length) return;
  const vh = window.innerHeight;
  const vw = document.documentElement.clientWidth;
  const felt = $("felt") && $("felt").getBoundingClientRect();
  const inView = felt && felt.width > 0 && felt.right > 0 && felt.left < vw;
  const left = inView ? Math.max(felt.left, 0) : 0;
  const right = inView ? Math.min(felt.right, vw) : vw;
  const width = Math.min(right - left - 2 * MARGIN, 416, vw * 0.92);
  // the screen's rows taken by what is kept clear (where it meets those columns)
  const taken = KEEP_CLEAR.flatMap((sel) => [...document.querySelectorAll(sel)])
    .map((n) => n.getBoundingClientRect())
    .filter((r) => r.height > 0 && r.bottom > 0 && r.top < vh && r.right > left && r.left < right)
    .map((r) => [Math.max(r.top - MARGIN, 0), Math.min(r.bottom + MARGIN, vh)])
    .sort((a, b) => a[0] - b[0]);
  let best = [0, 0];
  let from = 0;
  for (const [top, bottom] of [...taken, [vh, vh]]) {
    if (top - from > best[1] - best[0]) best = [from, top];
    from = Math.max(from, bottom);
  }
  box.style.left = (left + right) / 2 + "px";
  box.style.width = Math.max(width, 0) + "px";
  box.style.top = "auto";
  box.style.bottom = vh - best[1] + MARGIN + "px";
  box.style.maxHeight = Math.max(best[1] - best[0] - 2 * MARGIN, 0) + "px";
}
// the header's notices and notifications join this page's toasts (me.js)
document.addEventListener("yuanzi:toasts", placeToasts);
// a dialog opening or closing moves the toasts out of its way (or back)
const dialogs = new MutationObserver(placeToasts);
document.querySelectorAll(".overlay").forEach(
  (o) => dialogs.observe(o, {attributes: true, attributeFilter: ["hidden"]}));
window.addEventListener("scroll", placeToasts, {passive: true});
window.addEventListener("resize", placeToasts);

/* Show notice `id` saying `text` (none: its own words, from the template), or hide it. */
function notice(id, on, text) {
  const n = $(id);
  if (text !== undefined) n.textContent = on ? text : "";
  n.hidden = !on;
  return on;
}

// why the server stood me up at this table after game `game`, when a notice said
// so (e.g. a wager table: not enough coins); else the stand-up notice's own words
let standReason = {text: null, game: null};

/* Why I am no longer seated after a game: leaving a practice game is no
   escape (RULES.md §7), so its words say leaving, not 逃跑. A page that never
   saw me seated (opened after I stood, on purpose or not) cannot tell why, so
   it only says where I am. */
export function stoodUpText(s = state) {
  if (!s.sawSeated) return T.not_seated;
  return s.view && s.view.practice ? T.stood_up_practice : T.stood_up;
}

/* What the page says about my being stood up: why, when a notice said so,
   else the stand-up words (stoodUpText). */
export function stoodUpMessage(s = state) {
  const why = s.view && standReason.game === s.view.game_id ? standReason.text : null;
  // the server's reason (a kick and until when, an arena's next step), also after a reload
  return why || inMyLanguage(s.view && s.view.stood_reason) || stoodUpText(s);
}

/* Called after renderResult: while the result panel is up it says that I was
   stood up, so the banner does not say it a second time (a tester saw it twice). */
export function renderNotices(s = state) {
  const stood = stoodUp(s);
  $("table-app").classList.toggle("stood-up", stood);
  const auto = playing(s) && autoByClock(s.view);  // also after a reload
  const shown = [
    notice("stood-notice", stood && $("result-panel").hidden, stoodUpMessage(s)),
    notice("sit-notice", !stood && !!sitRefused(s), sitRefused(s) || ""),
    notice("auto-notice", auto, T.auto_by_timeout),
    notice("closed-notice", closed(s)),
    notice("nowatch-notice", watchBarred(s) && s.table.status !== "waiting", T.no_watching),
  ];
  $("notices").hidden = !shown.some(Boolean);
}

/* A card's short name, for a notice ("7♠", "大王"). */
function cardName(card) {
  if (card === "RJ") return T.big_joker;
  if (card === "BJ") return T.small_joker;
  return (card[0] === "T" ? "10" : card[0]) + ({S: "♠", H: "♥", C: "♣", D: "♦"}[card[1]] || "");
}

/* A `notice` frame from the server (docs/protocol.md): {code, message, params},
   sent to every connection of this person. Codes the page words itself
   (turn_timeout: what the clock did for me) use T; any other shows the
   server's own message. Shown as an info toast; returns its text. */
export function showNotice(msg) {
  const params = msg.params || {};
  // the second timeout in a row: the 托管 notice (state.trackAuto) says it
  if (msg.code === "turn_timeout" && params.auto) return "";
  let text = msg.message || T.error;
  // coins received and such: their words in this page's language
  if (T["notice_" + msg.code]) text = fmt(T["notice_" + msg.code], params);
  if (msg.code === "turn_timeout") {
    text = params.action === "play"
      ? fmt(T.timeout_played, {cards: (params.cards || []).map(cardName).join(" ")})
      : T.timeout_passed;
  }
  const t = toast(text, "info notice-toast", 9000);
  t.dataset.code = msg.code || "";
  // a seat refusal after a game names this table: the stand-up banner says why
  if (state.table && params.table_id === state.table.id && "table" in params) {
    standReason = {text, game: state.view ? state.view.game_id : null};
    const inPanel = document.querySelector("#result-body .result-stood");
    if (inPanel) inPanel.textContent = text;
    renderNotices();
  }
  return text;
}
