/* The controls under the felt: ready / stand up / log in while the table
 * waits, and for a player in a running game the turn line, the selection's
 * name, auto-play, clear, hint, pass, play; the leave-game button and its
 * confirmation dialog (the penalty is the view's escape_penalty, RULES.md §7). */

import {playName} from "./cards.js";
import {$, show} from "./dom.js";
import {T, fmt} from "./i18n.js";
import {playerName} from "./names.js";
import {resultOffersReady} from "./result.js";
import {
  myGameSeat, mySnapshotSeat, myTurn, playing, selectedCards, selectedHint, state, tableWaiting,
} from "./state.js";
import {whyText} from "./why.js";

/* {ok, text}: may the selection be played now, and what is it called (or why
   not)? The server's hints decide (state.hintFor); the server checks the move again. */
export function checkSelection(s = state) {
  const cards = selectedCards(s);
  if (!myTurn(s)) return {ok: false, text: ""};
  // no hint while the table has a play: nothing in the hand beats it (RULES.md §3)
  const beaten = s.view.can_pass && !(s.view.hints && s.view.hints.length);
  if (!cards.length) return {ok: false, text: beaten ? T.nothing_beats : T.select_cards};
  const hint = selectedHint(s);
  // why not, in the rule's words, once the server has said (why.js)
  return hint ? {ok: true, text: playName(hint, cards)}
    : {ok: false, text: whyText(s) || T.cannot_play};
}

export function renderControls(s = state) {
  const {table, view, me, pending} = s;
  const mySeat = mySnapshotSeat(s);
  const seated = mySeat !== null;
  const waiting = tableWaiting(s) && !playing(s);
  const player = playing(s) && myGameSeat(s) !== null;
  const off = s.conn !== "open"; // no line: nothing can be sent (connection.js says so)
  $("ready-btn").disabled = off;
  $("stand-btn").disabled = off;

  const ready = $("ready-btn");
  // the result panel's "ready for the next game" is the one ready control while it shows
  show(ready, waiting && seated && !resultOffersReady());
  if (seated) {
    const isReady = table.seats[mySeat].ready;
    ready.textContent = isReady ? T.unready : T.ready;
    ready.dataset.ready = isReady ? "1" : "0";
    ready.classList.toggle("secondary", isReady);
  }
  show($("stand-btn"), waiting && seated);
  const note = $("waiting-note");
  if (waiting) {
    const filled = table.seats.filter((x) => x.player || x.bot).length;
    const readyN = table.seats.filter((x) => (x.player || x.bot) && x.ready).length;
    note.textContent = !me.id ? T.login_to_play
      : (!seated ? T.choose_seat : fmt(T.waiting_for, {seated: filled, ready: readyN}));
  } else {
    note.textContent = playing(s) && myGameSeat(s) === null ? T.watching : "";
  }
  show($("login-link"), !me.id);

  show($("play-controls"), player);
  show($("escape-btn"), player);
  if (!player) return;
  // leaving a practice game is no escape (RULES.md §7): 离开, not 逃跑
  $("escape-btn").textContent = view.practice ? T.leave_practice : T.leave_rated;
  const turn = myTurn(s);
  const check = checkSelection(s);
  const auto = !!(view.players[myGameSeat(s)] && view.players[myGameSeat(s)].auto_play);
  const idle = off || pending || !turn || auto;  // under 托管 the bot plays the turn
  $("play-btn").disabled = idle || !check.ok;
  $("pass-btn").disabled = idle || !view.can_pass;
  // nothing beats the table: 不要 is the one play, so it looks like one
  const onlyPass = !idle && view.can_pass && !(view.hints && view.hints.length);
  $("pass-btn").classList.toggle("secondary", !onlyPass);
  $("hint-btn").disabled = idle || !(view.hints && view.hints.length);
  $("auto-btn").disabled = off;
  $("escape-btn").disabled = off;
  const info = $("selection-info");
  // under 托管 the bot plays this turn: asking to select cards would mislead
  info.textContent = auto && turn ? "" : check.text;
  info.classList.toggle("bad", !auto && !!selectedCards(s).length && !check.ok && turn);
  const autoBtn = $("auto-btn");
  autoBtn.textContent = auto ? T.auto_off : T.auto_on;
  autoBtn.dataset.on = auto ? "1" : "0";
  autoBtn.classList.toggle("on", auto);
  autoBtn.setAttribute("aria-pressed", auto ? "true" : "false");
  const turnNote = $("turn-note");
  turnNote.textContent = turn ? (auto ? T.auto_turn : T.your_turn)
    : fmt(T.waiting_turn, {name: playerName(view.turn, s)});
  turnNote.classList.toggle("mine", turn);
}

/* The buttons call `commands`: ready(), stand(), play(), pass(), hint(),
   clear(), auto(on), escape(). */
export function wireControls(commands) {
  $("ready-btn").addEventListener("click", () => commands.ready());
  $("stand-btn").addEventListener("click", () => commands.stand());
  $("play-btn").addEventListener("click", () => commands.play());
  $("pass-btn").addEventListener("click", () => commands.pass());
  $("hint-btn").addEventListener("click", () => commands.hint());
  $("clear-btn").addEventListener("click", () => commands.clear());
  $("auto-btn").addEventListener("click", (e) => commands.auto(e.currentTarget.dataset.on !== "1"));

  const dialog = $("escape-dialog");
  $("escape-btn").addEventListener("click", () => {
    const view = state.view;
    if (!playing()) return;
    $("escape-text").textContent = view.practice ? T.escape_practice
      : fmt(T.escape_rated, {points: view.escape_penalty});
    $("escape-title").textContent = view.practice ? T.leave_title_practice : T.leave_title_rated;
    $("escape-confirm").textContent = view.practice ? T.leave_practice : T.leave_rated;
    dialog.hidden = false;
    $("escape-cancel").focus();
  });
  $("escape-cancel").addEventListener("click", () => { dialog.hidden = true; });
  $("escape-confirm").addEventListener("click", () => { dialog.hidden = true; commands.escape(); });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") dialog.hidden = true; });
}
