/* 原子 online — the table + game page (templates/games/table.html): the entry
 * module. It loads the boot data and strings, opens the table's socket
 * (socket.js), feeds what arrives into the store (state.js) and redraws the
 * regions (info, notices, seats, trick, hand, controls, result); the regions'
 * buttons come back here as commands sent to the server.
 *
 * The server is authoritative: the page only draws the latest table snapshot
 * and game view it was sent (docs/protocol.md) and sends the player's commands
 * over /ws/table/<id>/. Every piece of user text goes in with textContent.
 *
 * Hooks for browser tests: #table-app[data-status=waiting|playing|over],
 * #table-app[data-conn], .seat[data-seat=N] (button.sit / .add-bot /
 * .remove-bot), #hand .pcard[data-card] (cards overlap: click them at their
 * left edge, e.g. position {x: 5, y: 12}), #play-btn, #pass-btn, #hint-btn,
 * #ready-btn, #stand-btn, #auto-btn, #escape-btn, #result-panel, #chat-input,
 * #conn-status[data-state], #stood-notice, #auto-notice, #closed-notice,
 * .seat.is-auto (托管), window.YuanziTable.state().
 *
 * Other apps' parts of the page are plugin modules (games.plugins
 * ``page_modules``: the wager box, reports), listed in boot.page_modules and
 * loaded through the import map. Each may export wire(page) (once, with
 * {send, state, meId}), render(state) (after the page's own regions) and
 * onMessage(msg) → true when it consumed the frame.
 */

import {addLine, setChatMe, showHistory, wireChat} from "./chat.js";
import {startClock, tick} from "./clock.js";
import {connectionBanner} from "./connection.js";
import {checkSelection, renderControls, wireControls} from "./controls.js";
import {$, el} from "./dom.js";
import {newSeed, renderFairness} from "./fairness.js";
import {afterView, wireFeel} from "./feel.js";
import {renderHand, renderSelection, wireHand} from "./hand.js";
import {wireTouch} from "./hand_touch.js";
import {T, useStrings} from "./i18n.js";
import {renderInfo} from "./info.js";
import {personalFrame} from "./me.js";
import {emptySeats, renderInvite, wireInvite} from "./invite.js";
import {placeToasts, renderNotices, showNotice, toast} from "./notices.js";
import {wirePhrases} from "./phrases.js";
import {renderPrevTrick, wirePrevTrick} from "./prev_trick.js";
import {renderResult, wireResult} from "./result.js";
import {renderSeats, wireSeats} from "./seats.js";
import {openSocket} from "./socket.js";
import * as store from "./state.js";
import {renderTrick} from "./trick.js";
import {renderWatchers, wireWatchers} from "./watchers.js";
import {askWhy, takeWhy} from "./why.js";

const {state} = store;
const boot = JSON.parse($("table-boot").textContent);
useStrings("table-strings");
store.init(boot);
const app = $("table-app");
// Other scripts of the page (the shop's items) read the state and use this
// page's socket: send(msg), and listen(fn) for its frames (fn returns true
// when it consumed one). One socket a page: a second doubled every frame.
const listeners = [];
window.YuanziTable = {  // before any await: the shop's items script reads it at load
  state: () => ({table: state.table, view: state.view, selected: store.selectedCards(),
                 pending: state.pending}),
  send: (msg) => send(msg),
  listen: (fn) => { listeners.push(fn); },
};
const modules = await Promise.all((boot.page_modules || []).map((url) => import(url)));

function render() {
  app.dataset.status = store.pageStatus();
  app.dataset.tableStatus = state.table ? state.table.status : "waiting";
  renderInfo();
  renderInvite();
  renderWatchers();
  renderSeats();
  renderTrick();
  renderPrevTrick();
  renderHand();
  renderResult(); // before the controls: its ready button stands for theirs
  renderNotices(); // after the result: the stood-up words are in one of the two
  renderControls();
  renderFairness(state.view, state.table);
  const off = state.conn !== "open";
  app.querySelectorAll(".seat-actions button").forEach((b) => { b.disabled = off; });
  // after that: a plugin may disable a seat's button too (social/table.js, a minimum)
  modules.forEach((m) => m.render && m.render(state));
  placeToasts(); // after everything that moves the controls and the hand
  $("chat-send").disabled = off || !state.me.id;
  tick();
  askWhy(send);  // a selection kept into my turn
}

/* After the selection changed: the cards' marks and the controls. */
function renderPicked() {
  renderSelection();
  renderControls();
  askWhy(send);
}

const banner = connectionBanner({
  onBack: () => { send({type: "sync"}, true); toast(T.conn_back, "info", 4000); },
});

function showConn(conn, retryAt) {
  const was = state.conn;
  store.setConn(conn);
  const c = $("conn-status");
  c.dataset.state = conn;
  c.textContent = conn === "gone" ? T.conn_chip_gone : T["conn_" + conn];
  app.dataset.conn = conn;
  banner.update(conn, retryAt);
  // actions are live only on an open line
  if (conn === "gone" || (was === "open") !== (conn === "open")) render();
  // signed out by the server (a suspension): its notice is on screen; then the
  // page shows the signed-out site instead of a table it can no longer play
  if (conn === "signed_out") setTimeout(() => location.reload(), 5000);
}

// reasons after which the page's view is behind the server's: ask again
const RESYNC = new Set(["stale", "not_your_turn", "game_over", "no_game"]);

function onMessage(msg) {
  if (msg.type === "error") sock.settle();
  if (modules.some((m) => m.onMessage && m.onMessage(msg)) ||  // e.g. a wager to confirm
      listeners.some((fn) => fn(msg) === true)) {
    if (msg.type === "error") render();
    return;
  }
  switch (msg.type) {
    case "table":
      if (msg.table) { store.setTable(msg.table); render(); }
      break;
    case "table_closed": // the socket closes next (4404)
      store.tableClosed();
      render();
      break;
    case "game": {
      const taken = store.acceptView(msg.view);
      if (taken) {
        sock.settle();
        if (store.trackAuto(taken.old)) toast(T.auto_by_timeout, "info", 8000);
        render();
        afterView(taken.old);
      } else if (msg.view === null) {
        sock.settle();
        renderControls();
      }
      break;
    }
    case "why": // the rule a selection breaks (why.js)
      if (takeWhy(msg)) renderControls();
      break;
    case "chat_history":
      showHistory(msg.lines);
      break;
    case "chat":
      addLine(msg.line);
      break;
    case "error": {
      // a refusal naming the table where my game runs (seated_elsewhere): a way back to it
      const other = (msg.params || {}).table_id;
      const elsewhere = Number.isInteger(other) && !(state.table && state.table.id === other);
      const t = toast(msg.message || T.error, "error", elsewhere ? 8000 : 3500);
      if (elsewhere) {
        const back = el("a", "toast-link", T.back_to_game);
        back.href = "/tables/" + other + "/";
        t.append(" ", back);
      }
      if (RESYNC.has(msg.reason)) send({type: "sync"}, true);
      render();
      break;
    }
    case "notice":
      showNotice(msg);
      break;
    case "me": // the per-user channel: my coins and level changed (the header)
    case "site_notice": // 维护公告: the banner above every page
    case "notification": // 消息: the header's badge (and a toast)
    case "unread":
      personalFrame(msg);
      break;
    default: // pong
  }
}

const sock = openSocket(boot.ws_path, {
  onMessage,
  onState: showConn,
  onPending: (on) => { store.setPending(on); renderControls(); },
  onStuck: () => send({type: "sync"}, true),
});

function notConnected() { toast(store.closed() ? T.conn_gone : T.not_connected); }

/* Send a message; unless `quiet`, say so when there is no connection. */
function send(msg, quiet) {
  if (sock.send(msg)) return true;
  if (!quiet) notConnected();
  return false;
}

/* Send a move (play, pass): pending until its answer arrives. */
function move(msg) {
  if (sock.act(msg)) return true;
  notConnected();
  return false;
}

function toggleReady() {
  const seat = store.mySnapshotSeat();
  // a fresh seed of this player's own goes into the next deal (docs/fairness.md)
  // the wager this page shows: a Ready never counts for one it did not (docs/protocol.md)
  send({type: "ready", ready: !(seat !== null && state.table.seats[seat].ready), seed: newSeed(),
        wager: state.table.wager || 0});
}

wireSeats({
  sit: (seat) => { store.markStandAsked(false); send({type: "sit", seat}); },
  addBot: (seat, bot = "normal") => send({type: "add_bot", seat, bot}),
  removeBot: (seat) => send({type: "remove_bot", seat}),
});
wireHand({
  onToggle: (i) => { store.toggleCard(i); renderPicked(); },
  onTapCard: (i, group) => { store.tapCard(i, group); renderPicked(); },
  onGroup: (indices) => { store.toggleGroup(indices); renderPicked(); },
});
wireTouch({onSwipe: (indices) => { store.addCards(indices); renderPicked(); }});
wireControls({
  ready: toggleReady,
  stand: () => { store.markStandAsked(true); send({type: "stand"}); },
  play: () => {
    if (!checkSelection().ok || state.pending) return;
    move({type: "play", seq: state.view.seq, cards: store.selectedCards()});
    renderControls();
  },
  pass: () => {
    if (state.pending || !store.myTurn() || !state.view.can_pass) return;
    if (move({type: "pass", seq: state.view.seq})) store.clearSelection();
    renderPicked();
  },
  hint: () => { store.selectNextHint(); renderPicked(); },
  clear: () => { store.clearSelection(); renderPicked(); },
  auto: (on) => send({type: "auto_play", on}),
  escape: () => send({type: "escape"}),
});
wirePrevTrick();
wireFeel();
wireWatchers();
wirePhrases({phrase: (index) => send({type: "phrase", index})},
            {phrases: boot.phrases, phraseLabels: boot.phrase_labels,
             reactionsFrom: boot.reactions_from, loggedIn: !!state.me.id});
wireInvite({
  spectators: (allowed) => send({type: "spectators", allowed}),
  fillBots: () => emptySeats().forEach((seat) => send({type: "add_bot", seat})),
}, {waitingAlone: boot.waiting_alone});
wireResult({
  ready: toggleReady,
  close: () => { store.dismissResult(); renderResult(); renderNotices(); renderControls(); },
});
setChatMe(state.me.username);
wireChat({say: (text) => send({type: "chat", text}), tooLong: (m) => toast(m)});
modules.forEach((m) => m.wire && m.wire({send, state, meId: boot.me.id}));

// a landscape phone keeps the chat and the items behind buttons, one open at a
// time (static/css/page.css)
const drawers = {chat: $("chat-toggle"), items: $("items-toggle")};
Object.entries(drawers).forEach(([name, button]) => {
  if (!button) return;
  button.addEventListener("click", () => {
    const open = !app.classList.contains(name + "-open");
    Object.entries(drawers).forEach(([other, b]) => {
      if (!b) return;
      app.classList.toggle(other + "-open", open && other === name);
      b.setAttribute("aria-expanded", open && other === name ? "true" : "false");
    });
  });
});

// back (or forward) to a page kept in the browser's cache: what it shows is old
// (a game since over, a table since closed), so load it afresh
window.addEventListener("pageshow", (e) => { if (e.persisted) location.reload(); });

// tab back after sleeping: ask for the current view at once
document.addEventListener("visibilitychange", () => {
  if (document.hidden) return;
  if (sock.isOpen()) send({type: "sync"}, true);
  else sock.wake();
});

render();
startClock();
