/* The bar above the felt: the table's name and spectators, and while a game
 * is shown its half, dao (trump rank) and indicator card, each team's points
 * (this half's; from the second half on the game's), the points in the
 * current trick and the stake. */

import {cardEl, rankText} from "./cards.js";
import {$, clear, el} from "./dom.js";
import {T, fmt, tableName} from "./i18n.js";
import {playerName, teamShort} from "./names.js";
import {playedHalves, playing, state, teamOrder} from "./state.js";

export function renderInfo(s = state) {
  const {table, view} = s;
  $("table-name").textContent = table ? tableName(table.name) : "";
  $("table-name").title = $("table-name").textContent;
  const watching = table ? table.spectators : 0;  // nobody watching: nothing said
  $("spectators").textContent = watching ? fmt(T.spectators, {n: watching}) : "";
  $("spectators").hidden = !watching;
  if (!watching) $("watchers-list").hidden = true;
  $("game-info").hidden = !view;
  if (!view) return;
  $("half-label").textContent = view.status === "over" ? T.game_over
    : view.half === 2 ? T.second_half : T.first_half;
  $("dao-rank").textContent = rankText(view.dao);
  const ind = $("indicator-card");
  clear(ind);
  if (view.indicator) ind.appendChild(cardEl(view.indicator, {dao: view.dao}));
  const indSeat = $("indicator-seat");
  indSeat.textContent = view.indicator_seat === null || view.indicator_seat === undefined
    ? "" : fmt(T.dealt_to, {name: playerName(view.indicator_seat, s)});
  indSeat.title = indSeat.textContent;
  renderScores(s);
  const tp = $("trick-points");
  const points = view.trick ? view.trick.points : 0;
  tp.textContent = playing(s) ? fmt(T.trick_points, {points}) : "";
  tp.classList.toggle("has-points", playing(s) && points > 0);
  // a double clamp doubled it (RULES.md §6): the ended game's header says so
  const res = view.status === "over" ? view.result : null;
  const doubled = res && res.double_clamp && res.stake > view.stake;
  $("stake").textContent = view.practice ? T.practice_short
    : doubled ? fmt(T.stake_doubled, {stake: res.stake}) : fmt(T.stake, {stake: view.stake});
}

/* Each team's points (partners' captures added): in the first half this
   half's; in the second the game's so far (what the result depends on,
   RULES.md §6: a tester had to add 上半局 to the big numbers), this half's in
   the small line; once over, the total and each half's (a tester saw only the
   first half's while the result said more). A game that ended early (an
   escape, a moderator's close: RULES.md §7, §12) keeps its unfinished half
   out of view.halves, its points in view.captured: that half counts as
   played so far (a tester saw 我方 / 对方 with no numbers). */
function renderScores(s) {
  const view = s.view;
  const cap = view.captured || [0, 0, 0, 0];
  const pts = [cap[0] + cap[2], cap[1] + cap[3]];
  const over = view.status === "over";
  const halves = playedHalves(view);
  // the halves counted in the big numbers, with their points
  const counted = over ? halves
    : !playing(s) ? []
    : view.half === 2 ? halves.filter((h) => h.half === 1).concat([{half: 2, points: pts}])
    : [{half: 1, points: pts}];
  const scores = $("scores");
  clear(scores);
  const whole = over || counted.length > 1;  // the big numbers are the game's
  const label = whole ? scores.dataset.gameLabel : scores.dataset.halfLabel;
  if (label) scores.setAttribute("aria-label", label);
  teamOrder(s).forEach((t) => {
    const box = el("span", "score team-" + t);
    box.dataset.team = t;
    box.appendChild(el("span", "score-label", teamShort(t, s)));
    const total = counted.reduce((sum, h) => sum + h.points[t], 0);
    box.appendChild(el("strong", "score-points", counted.length || over ? total : ""));
    const lines = counted.map((h) =>
      fmt(h.half === 2 ? T.second_half_points : T.first_half_points, {points: h.points[t]}));
    // small: each half once the game is over; in the second half, this half's
    const small = over ? lines : whole ? lines.slice(-1) : [];
    small.slice(0, 2).forEach((line) => box.appendChild(el("span", "score-last", line)));
    box.title = whole ? lines.join(" + ") : "";
    scores.appendChild(box);
  });
}
