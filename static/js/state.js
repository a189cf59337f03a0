/* The table page's store and its selectors.
 *
 * `state` holds everything the page knows: the latest table snapshot and game
 * view the server sent (docs/protocol.md), who "me" is (boot data), the
 * connection's state, the selection in the hand and the page's own flags.
 * Only the functions of this module change it; the selectors are pure
 * functions of it, and the render modules draw from them. No DOM here.
 *
 * Players are recognised by user id (view.players[i].user_id, a snapshot
 * seat's player.id, me.id), never by name.
 */

import {handOrder, isJoker} from "./cards.js";

export const state = {
  table: null,          // the table snapshot: seats, owner, status, game_id …
  view: null,           // this user's view of the current game, or null
  me: {id: null, username: null},
  levels: [],           // [{title, title_en}] by level
  conn: "connecting",   // socket.js states: connecting | open | closed | gone
  selected: [],         // indices into displayHand()
  hintIndex: -1,        // the hint last put in the selection
  handKey: null,        // the hand the selection belongs to
  pending: false,       // a move was sent, no answer yet
  viewAt: 0,            // performance.now() when the view arrived (the clock counts from it)
  dismissedResult: null, // game_id whose result panel the user closed
  standAsked: false,    // this page asked to stand up (no "you were stood up" notice)
  sawSeated: false,     // this page saw me seated here (else it cannot tell why I am not)
  sitRefused: null,     // why I may not sit here, as the page loaded (a table ban …)
};

export function init(boot) {
  state.table = boot.table;
  state.me = boot.me;
  state.levels = boot.levels;
  state.sitRefused = boot.sit_refused || null;
  noteSeated();
  acceptView(boot.view);
}

// --- selectors ------------------------------------------------------------------

export function playing(s = state) { return !!(s.view && s.view.status === "playing"); }

/* The table waits for a game (a closed one waits for nothing: no ready, no
   seat, no "click an empty seat" once a moderator or housekeeping closed it). */
export function tableWaiting(s = state) {
  return !closed(s) && (!s.table || s.table.status === "waiting");
}

export function closed(s = state) { return s.conn === "gone"; }

/* "playing" | "over" | "waiting": what the page shows (#table-app[data-status]). */
export function pageStatus(s = state) {
  if (playing(s)) return "playing";
  return s.view && s.view.status === "over" ? "over" : "waiting";
}

/* My seat at the table (snapshot), or null. */
export function mySnapshotSeat(s = state) {
  if (!s.me.id || !s.table) return null;
  const i = s.table.seats.findIndex((seat) => seat.player && seat.player.id === s.me.id);
  return i < 0 ? null : i;
}

/* Why I may not sit here (said on load: a kicked player reloading saw only
   坐下), while I stand and the table waits; null otherwise. */
export function sitRefused(s = state) {
  return s.sitRefused && mySnapshotSeat(s) === null && tableWaiting(s) ? s.sitRefused : null;
}

/* My seat in the game shown (null for a spectator). */
export function myGameSeat(s = state) {
  return s.view && s.view.seat !== null && s.view.seat !== undefined ? s.view.seat : null;
}

/* Spectators off and I only stand here (not the owner, not a moderator): the
   server sends me no game while one runs (games.access.watch_barred). */
export function watchBarred(s = state) {
  return !!(s.table && s.table.private && s.table.spectators_allowed === false &&
            mySnapshotSeat(s) === null && !s.me.may_watch);
}

export function isOwner(s = state) {
  return !!(s.me.id && s.table && s.table.owner_id === s.me.id);
}

/* The seat drawn at the bottom: mine, else South (2). */
export function baseSeat(s = state) {
  let seat = myGameSeat(s);
  if (seat === null || (s.view && s.view.status !== "playing" && mySnapshotSeat(s) !== null)) {
    const t = mySnapshotSeat(s);
    if (t !== null) seat = t;
  }
  return seat === null ? 2 : seat;
}

/* Where each seat is drawn. Play goes counterclockwise (RULES.md §2): the
   下家 (s+3)%4 sits on the right. */
export function positions(s = state) {
  const b = baseSeat(s);
  return {bottom: b, right: (b + 3) % 4, top: (b + 2) % 4, left: (b + 1) % 4};
}

/* Partners sit opposite: seats 0, 2 are team 0 (N–S), 1, 3 team 1 (docs/protocol.md). */
export function teamOf(seat) { return seat % 2; }

/* The seat whose side "us" is: my seat in the game, else my seat at the table. */
export function mySide(s = state) {
  const mine = myGameSeat(s);
  return mine === null ? mySnapshotSeat(s) : mine;
}

/* Teams in display order: 我方 first, else North–South first. */
export function teamOrder(s = state) {
  const mine = mySide(s);
  return mine !== null && teamOf(mine) === 1 ? [1, 0] : [0, 1];
}

/* Is my seat on 托管 in view v? */
export function autoIn(v) {
  if (!v || v.seat === null || v.seat === undefined || !v.players || !v.players[v.seat]) return false;
  return !!v.players[v.seat].auto_play;
}

/* Did the clock put my seat on 托管 in view v (two turns in a row ran out,
   RULES.md §8), rather than my own choice? The server says (auto_by_clock). */
export function autoByClock(v) {
  return autoIn(v) && !!v.players[v.seat].auto_by_clock;
}

/* I played the game shown, it is over, and the table no longer seats me: the
   server stood me up (an escape, or no connection when the game ended). */
export function stoodUp(s = state) {
  return !!(s.me.id && s.view && s.view.status === "over" && myGameSeat(s) !== null &&
            tableWaiting(s) && mySnapshotSeat(s) === null && !s.standAsked);
}

export function myTurn(s = state) {
  return playing(s) && myGameSeat(s) !== null && s.view.turn === myGameSeat(s);
}

/* My hand as shown, strongest on the left (the view's hand is weakest first),
   the jokers apart at the right, the weak end: a lone joker plays as the
   lowest 3 (RULES.md §3), and with other cards it takes their rank. */
export function displayHand(s = state) {
  return playing(s) && s.view.hand ? handOrder(s.view.hand) : [];
}

export function selectedCards(s = state) {
  const hand = displayHand(s);
  return s.selected.map((i) => hand[i]);
}

function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const x = a.slice().sort(), y = b.slice().sort();
  return x.every((c, i) => c === y[i]);
}

/* The hint (the view's legal play, docs/protocol.md) that `cards` are, or null
   when they are no legal play now. A hint marked `exact` is those very cards
   (an atom, a hydrogen bomb); any other stands for every set of as many cards
   of its rank with as many jokers, as the server says. */
export function hintFor(cards, hints) {
  if (!cards.length || !hints) return null;
  const jokers = cards.filter(isJoker).length;
  const plain = cards.filter((c) => !isJoker(c));
  return hints.find((h) => h.exact && sameCards(h.cards, cards)) ||
    hints.find((h) => !h.exact && h.cards.length === cards.length && h.jokers === jokers &&
                      plain.every((c) => c[0] === h.rank)) ||
    null;
}

/* The selection's hint, when it is my turn and the selection is a legal play. */
export function selectedHint(s = state) {
  return myTurn(s) ? hintFor(selectedCards(s), s.view.hints) : null;
}

/* The halves of a view with their points: the finished ones (view.halves) and,
   once the game is over, a half it ended in the middle of (an escape, a
   moderator's close: RULES.md §7, §12), with the points captured in it so far
   (view.captured, partners added): [{half, points: [team 0, team 1]}]. */
export function playedHalves(view) {
  const halves = (view && view.halves) || [];
  if (!view || view.status !== "over" || halves.some((h) => h.half === view.half)) return halves;
  const cap = view.captured || [0, 0, 0, 0];
  return halves.concat([{half: view.half, points: [cap[0] + cap[2], cap[1] + cap[3]]}]);
}

// --- changes ---------------------------------------------------------------------

export function setTable(table) {
  state.table = table;
  noteSeated();
  if (staleBoard(state.view)) state.view = null;
}

/* The table was closed (a moderator, or idle): its seats were emptied with it
   (games.tables.close), so the page draws none of its players any more. */
export function tableClosed() {
  if (!state.table) return;
  state.table = {...state.table, status: "waiting",
    seats: state.table.seats.map((x) => ({...x, player: null, bot: false, ready: false}))};
}

/* The table waits with nobody seated (bots at most): its last game is history,
   not the board a newcomer finds (the server's games.snapshots.emptied). */
export function emptied(s = state) {
  return !!(s.table && s.table.status === "waiting" && !s.table.seats.some((x) => x.player));
}

function noteSeated() {
  if (mySnapshotSeat() !== null) state.sawSeated = true;
}

// the games this page saw running (their end is the page's own to show)
const seenRunning = new Set();

/* An ended game's view the page does not show once the table emptied: one
   it did not see running and I did not play in (a newcomer's stale board). */
function staleBoard(v) {
  return !!(v && v.status === "over" && emptied() && (v.seat === null || v.seat === undefined)
    && !seenRunning.has(v.game_id));
}

export function setConn(conn) { state.conn = conn; }

export function setPending(on) { state.pending = on; }

/* Take a game view from the server, unless it is older than the one shown.
   Returns the view it replaced ({old}), or null when `v` was not taken. */
export function acceptView(v) {
  if (!v) return null;
  const old = state.view;
  if (old && v.game_id === old.game_id && v.seq < old.seq) return null; // stale
  if (v.status === "playing") seenRunning.add(v.game_id);
  if (staleBoard(v)) return null;
  state.view = v;
  state.viewAt = performance.now();
  const key = (v.hand || []).join(",") + "|" + v.game_id;
  // my turn went by and my hand stayed: I passed (the button or the clock)
  const passed = old && old.game_id === v.game_id && old.seq < v.seq
    && old.seat !== null && old.seat !== undefined && old.turn === old.seat;
  if (!old || v.game_id !== old.game_id || key !== state.handKey || !playing() || passed) {
    state.selected = [];
    state.hintIndex = -1;
    state.handKey = key;
  }
  return {old};
}

/* Has the clock just put my seat on 托管, between view `old` and the current
   one of the same game (for a one-off toast; the notice reads autoByClock)? */
export function trackAuto(old) {
  const v = state.view;
  return !!(old && old.game_id === v.game_id && v.status === "playing" &&
            autoByClock(v) && !autoByClock(old));
}

export function toggleCard(idx) {
  const at = state.selected.indexOf(idx);
  if (at >= 0) state.selected.splice(at, 1); else state.selected.push(idx);
  state.hintIndex = -1;
}

/* Add the first unselected card of `indices` (a rank group's "select one more"). */
export function selectOneMore(indices) {
  const next = indices.find((i) => !state.selected.includes(i));
  if (next !== undefined) state.selected.push(next);
  state.hintIndex = -1;
}

/* A swipe: add every card of `indices` to the selection. */
export function addCards(indices) {
  indices.forEach((i) => { if (!state.selected.includes(i)) state.selected.push(i); });
  state.hintIndex = -1;
}

/* A group's chip: select all of `indices`, or none when all are selected. */
export function toggleGroup(indices) {
  const all = indices.every((i) => state.selected.includes(i));
  state.selected = state.selected.filter((i) => !indices.includes(i));
  if (!all) state.selected.push(...indices);
  state.hintIndex = -1;
}

/* A touch tap on card `idx` of group `indices`: one more card of that rank
   (the tapped one first); with the whole group selected, the tapped card
   goes out of the selection. */
export function tapCard(idx, indices) {
  if (!state.selected.includes(idx)) state.selected.push(idx);
  else if (indices.every((i) => state.selected.includes(i))) state.selected.splice(state.selected.indexOf(idx), 1);
  else selectOneMore(indices);
  state.hintIndex = -1;
}

/* Put the next hint in the selection (cycling). */
export function selectNextHint() {
  const hints = state.view && state.view.hints;
  if (!hints || !hints.length) return;
  state.hintIndex = (state.hintIndex + 1) % hints.length;
  const hand = displayHand();
  state.selected = [];
  hints[state.hintIndex].cards.forEach((c) => {
    const i = hand.findIndex((h, k) => h === c && !state.selected.includes(k));
    if (i >= 0) state.selected.push(i);
  });
}

export function clearSelection() {
  state.selected = [];
  state.hintIndex = -1;
}

export function markStandAsked(on) { state.standAsked = on; }


export function dismissResult() { if (state.view) state.dismissedResult = state.view.game_id; }
