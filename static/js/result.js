/* The result panel (#result-panel) over the felt when the shown game is over:
 * the outcome, an escape and its penalty, the totals per half, each half's
 * finish order and §5 transfers, rating changes (and level changes), the
 * cards left in hand, and the ready / result page / close buttons. */

import {handRow, rankText} from "./cards.js";
import {$, clear, el, show} from "./dom.js";
import {T, fmt, signed} from "./i18n.js";
import {playerName, teamLabel, titleOf} from "./names.js";
import {stoodUpMessage} from "./notices.js";
import {whyBlock} from "./result_why.js";
import {
  myGameSeat, mySnapshotSeat, playedHalves, state, stoodUp, tableWaiting, teamOf,
} from "./state.js";

/* The panel's buttons call commands.ready() and commands.close(). */
export function wireResult(commands) {
  $("result-ready").addEventListener("click", () => commands.ready());
  $("result-close").addEventListener("click", () => commands.close());
}

// The result shows to the game's players whenever the table's last game is
// over, after a reload or Back to the table too (it once showed once per
// browser: a tester's reloaded page had no result page or 复盘 link left),
// until the next game starts or 关闭 closes it on this page.
// Games this page saw running: a spectator who watched one end sees its result.
const watchedRunning = new Set();

/* Is the result of the shown game for this page? Only for its players, and
   for whoever watched it end here: someone who arrives at a table after its
   game ended (quick start, the lobby) is not shown an old result. */
function resultIsMine(s, view) {
  return myGameSeat(s) !== null || watchedRunning.has(view.game_id);
}

/* Does the panel, as last drawn, offer its own ready button? Then the
   controls' ready button is not shown beside it (one ready control). */
let offersReady = false;
export function resultOffersReady() { return offersReady; }

export function renderResult(s = state) {
  const panel = $("result-panel");
  const view = s.view;
  offersReady = false;
  if (view && view.status === "playing") watchedRunning.add(view.game_id);
  if (!(view && view.status === "over" && view.result) || s.dismissedResult === view.game_id ||
      !resultIsMine(s, view)) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  panel.dataset.gameId = view.game_id;
  const body = $("result-body");
  clear(body);
  const res = view.result;
  const outcome = headline(body, res, s);
  panel.dataset.outcome = outcome;
  panel.dataset.doubleClamp = res.double_clamp ? "1" : "0";
  panel.dataset.reason = res.reason || "normal";
  body.appendChild(whyBlock(view, s));
  body.appendChild(totals(res, s));
  (view.halves || []).forEach((h) => body.appendChild(half(h, s)));
  body.appendChild(rating(res, s));
  const left = leftHands(s);
  if (left) body.appendChild(left);
  if (stoodUp(s)) body.appendChild(el("p", "notice warn result-stood", stoodUpMessage(s)));

  $("result-link").href = "/games/" + view.game_id + "/";
  // 复盘: a player of the finished game may ask for a review of their own decisions
  const review = $("review-link");
  if (review) {
    // ?ask: the review page asks at once (its own POST form), no second click
    review.href = "/games/" + view.game_id + "/review/?ask=1";
    review.hidden = typeof view.seat !== "number";
  }
  const rr = $("result-ready");
  const mine = mySnapshotSeat(s);
  offersReady = tableWaiting(s) && mine !== null;
  show(rr, offersReady);
  if (mine !== null) rr.textContent = s.table.seats[mine].ready ? T.unready : T.next_game;
}

/* The headline; returns the outcome: "win" | "loss" (mine) | "over" | "abandoned". */
function headline(body, res, s) {
  const h = el("h2", "result-headline");
  const mine = myGameSeat(s);
  const clamp = res.double_clamp ? " · " + T.double_clamp : "";
  let outcome;
  // an escape, a moderator's close or kick, a suspension: nobody won (games.queries.seat_result)
  if ((res.abandoned_by !== null && res.abandoned_by !== undefined)
      || (res.reason && res.reason !== "normal")) {
    outcome = "abandoned";
    h.textContent = T.abandoned;
  } else if (mine !== null) {
    outcome = teamOf(mine) === res.winner ? "win" : "loss";
    h.textContent = (outcome === "win" ? T.you_win : T.you_lose) + clamp;
  } else {
    outcome = "over";
    h.textContent = fmt(T.team_wins, {team: teamLabel(res.winner, s)}) + clamp;
  }
  body.appendChild(h);
  return outcome;
}

function halfName(h) { return h.half === 1 ? T.first_half : T.second_half; }

function totals(res, s) {
  // an unfinished half too (an escape's), as the info bar counts it (info.js)
  const halves = playedHalves(s.view);
  const table = el("table", "result-totals");
  const head = el("tr");
  head.appendChild(el("th", "", ""));
  halves.forEach((h) => head.appendChild(el("th", "", halfName(h))));
  head.appendChild(el("th", "", T.total));
  table.appendChild(head);
  [0, 1].forEach((t) => {
    const tr = el("tr", res.winner === t ? "winner" : "");
    tr.dataset.team = t;
    tr.appendChild(el("th", "", teamLabel(t, s)));
    halves.forEach((h) => tr.appendChild(el("td", "", h.points[t])));
    tr.appendChild(el("td", "total", halves.reduce((sum, h) => sum + h.points[t], 0)));
    table.appendChild(tr);
  });
  return table;
}

/* One half: its dao and ending, the finish order and the §5 transfers. */
function half(h, s) {
  const sec = el("section", "result-half");
  sec.appendChild(el("h3", "", halfName(h) + " · " + fmt(T.dao_is, {rank: rankText(h.dao)}) +
    " · " + (h.end === "A" ? T.end_a : T.end_b)));
  const order = el("p", "finish-order");
  h.finish_order.forEach((seat, k) => {
    const item = el("span", "finish-item");
    item.appendChild(el("span", "badge place place-" + (k + 1), T.places[k]));
    item.appendChild(document.createTextNode(" " + playerName(seat, s)));
    order.appendChild(item);
  });
  sec.appendChild(order);
  if (h.transfers && h.transfers.length) {
    const ul = el("ul", "transfers");
    h.transfers.forEach((tr) => {
      ul.appendChild(el("li", "", fmt(tr.what === "hand" ? T.transfer_hand : T.transfer_captured,
        {name: playerName(tr.seat, s), points: tr.points, team: teamLabel(tr.to_team, s)})));
    });
    sec.appendChild(ul);
  }
  return sec;
}

/* Rating points per player, and a level change when the seat still holds them. */
function rating(res, s) {
  const view = s.view;
  const sec = el("section", "result-rating");
  if (view.practice) {
    // said once: an escape's sentence already names the practice game
    if ((view.result.reason || "normal") !== "escape") {
      sec.appendChild(el("p", "practice-note", T.practice_game));
    }
    return sec;
  }
  sec.appendChild(el("p", "stake-note", fmt(T.stake_line, {stake: res.stake, n: res.stake})));
  const ul = el("ul", "rating-changes");
  (res.rating_changes || []).forEach((d, i) => {
    const p = view.players[i];
    if (!p || p.bot) return;
    const li = el("li", d > 0 ? "up" : (d < 0 ? "down" : ""));
    li.dataset.seat = i;
    li.appendChild(el("span", "who", p.username));
    li.appendChild(el("strong", "delta", fmt(T.rating_delta, {delta: signed(d), n: Math.abs(d)})));
    const now = s.table.seats[i] && s.table.seats[i].player;
    if (now && now.id === p.user_id && now.level !== p.level) {
      const up = now.level > p.level;
      li.appendChild(el("span", "level-change " + (up ? "up" : "down"),
        fmt(up ? T.level_up : T.level_down, {title: titleOf(now.level, s)})));
    }
    ul.appendChild(li);
  });
  sec.appendChild(ul);
  return sec;
}

function leftHands(s) {
  const view = s.view;
  if (!view.hands || !view.hands.some((h) => h.length)) return null;
  const sec = el("section", "result-hands");
  sec.appendChild(el("h3", "", T.cards_left_over));
  view.hands.forEach((h, i) => {
    if (!h.length) return;
    const row = el("div", "left-hand");
    row.appendChild(el("span", "who", playerName(i, s)));
    row.appendChild(handRow(h, {dao: view.dao}));
    sec.appendChild(row);
  });
  return sec;
}
