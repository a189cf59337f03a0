/* 复盘: the review page (templates/games/review.html). While the review is
 * made it polls the small progress endpoint (GET /api/games/<id>/review) and
 * reloads when it is done; once done it steps through the game from the
 * server's steps: the player's own hand, the others' card counts, the public
 * plays, and at each of the player's judged decisions its label and the better
 * play. No rules here: every step (hand, trick, counts) is the server's. */

import {cardsRow, handRow} from "./cards.js";
import {$, clear, el} from "./dom.js";
import {T, fmt, useStrings} from "./i18n.js";

const POLL_MS = 1500;

function poll(root) {
  const bar = $("review-bar");
  const text = $("review-progress-text");
  const tick = async () => {
    let p;
    try {
      const r = await fetch(root.dataset.api, {headers: {Accept: "application/json"},
                                               credentials: "same-origin"});
      p = await r.json();
    } catch (e) {
      text.textContent = T.review_offline;
      setTimeout(tick, POLL_MS * 2);
      return;
    }
    root.dataset.status = p.status;
    if (p.status === "done" || p.status === "failed" || p.status === "none") {
      location.reload();
      return;
    }
    const again = $("review-again-form");
    if (again) again.hidden = !(p.status === "queued" && p.ask_again);
    if (p.status === "queued") {
      text.textContent = fmt(T.review_queued, {n: p.position});
    } else {
      bar.max = Math.max(p.total, 1);
      bar.value = p.done;
      text.textContent = p.total ? fmt(T.review_running, {done: p.done, total: p.total})
        : T.review_starting;
    }
    setTimeout(tick, POLL_MS);
  };
  setTimeout(tick, POLL_MS);
}

function labelText(label) { return T["label_" + label] || label; }

function choiceRow(title, cards, dao) {
  const row = el("div", "review-choice");
  row.appendChild(el("span", "review-k", title));
  row.appendChild(cards.length ? cardsRow(cards, {dao}) : el("span", "review-pass", T.review_pass));
  return row;
}

function stepper(root) {
  const steps = JSON.parse($("review-data").textContent);
  const names = JSON.parse($("review-names").textContent);
  const seatNames = JSON.parse($("review-seat-names").textContent);
  const me = Number(root.dataset.seat);
  if (!steps.length) return;
  // the hand at every step: the server sends it only where it changed
  const hands = [];
  let hand = [];
  steps.forEach((s) => { if (s.hand) hand = s.hand; hands.push(hand); });
  const mine = steps.map((s, i) => (s.judgement ? i : -1)).filter((i) => i >= 0);
  let at = mine.length ? mine[0] : 0;

  // "North shot1"; a bot's name already says its seat ("Bot (East)")
  const who = (seat) => (names[seat].includes(seatNames[seat]) ? names[seat]
    : seatNames[seat] + " " + names[seat]);

  function draw() {
    const s = steps[at];
    $("review-step").textContent = fmt(T.review_step, {n: at + 1, total: steps.length});
    $("review-half").textContent = T["review_half_" + s.half] + " · " +
      fmt(T.review_dao, {rank: s.dao === "T" ? "10" : s.dao});
    const seats = $("review-seats");
    clear(seats);
    s.counts.forEach((n, seat) => {
      const li = el("li", "review-seat" + (seat === me ? " is-me" : "") + (seat === s.seat ? " is-turn" : ""));
      li.dataset.seat = seat;
      li.appendChild(el("span", "review-seat-name", who(seat)));
      li.appendChild(el("span", "review-seat-count", fmt(T.cards_left, {n})));  // 1 card, 2 cards
      seats.appendChild(li);
    });
    $("review-points").textContent = fmt(T.review_team_points,
      {us: s.points[0], them: s.points[1]});
    const trick = $("review-trick");
    clear(trick);
    if (!s.trick.length) trick.appendChild(el("li", "review-lead", T.review_empty_table));
    s.trick.forEach(([seat, cards]) => {
      const li = el("li", "review-play");
      li.appendChild(el("span", "review-who", seatNames[seat]));
      li.appendChild(cards.length ? cardsRow(cards, {dao: s.dao}) : el("span", "review-pass", T.review_pass));
      trick.appendChild(li);
    });
    const action = $("review-action");
    clear(action);
    const name = who(s.seat);
    if (s.escape) {
      action.appendChild(el("span", "", fmt(T.review_escapes, {name})));
    } else if (s.cards.length) {
      action.appendChild(el("span", "", fmt(T.review_plays, {name}) + " "));
      action.appendChild(cardsRow(s.cards, {dao: s.dao}));
    } else {
      action.appendChild(el("span", "", fmt(T.review_passes, {name})));
    }
    if (s.seat === me && (s.by === "clock" || s.by === "auto")) {
      action.appendChild(el("span", "review-by", " " + (s.by === "clock" ? T.review_by_clock : T.review_by_auto)));
    }
    const end = $("review-half-end");
    end.hidden = !s.half_end;
    if (s.half_end) {  // the server's figures after this action ended the half
      end.textContent = fmt(T.review_half_end, {us: s.half_end.points[0], them: s.half_end.points[1]})
        + ("won" in s.half_end ? " " + (s.half_end.won ? T.review_won : T.review_lost) : "");
    }
    const box = $("review-judgement");
    clear(box);
    box.hidden = !s.judgement;
    if (s.judgement) {
      const j = s.judgement;
      box.className = "review-judgement label-" + j.label;
      box.dataset.label = j.label;
      const head = el("p", "review-judgement-head");
      head.appendChild(el("span", "badge review-label label-" + j.label, labelText(j.label)));
      if (j.loss > 0) head.appendChild(el("span", "review-loss", " " + fmt(T.review_loss, {gap: j.gap, loss: j.loss})));
      box.appendChild(head);
      box.appendChild(choiceRow(T.review_made, j.made, s.dao));
      box.lastChild.appendChild(el("span", "review-points", fmt(T.review_points, {points: j.made_points})));
      if (j.loss > 0) {
        box.appendChild(choiceRow(T.review_best, j.best, s.dao));
        box.lastChild.appendChild(el("span", "review-points", fmt(T.review_points, {points: j.best_points})));
      } else {
        box.appendChild(el("p", "review-points", T.review_no_better));
      }
    }
    const handEl = $("review-hand");
    clear(handEl);
    handEl.appendChild(handRow(hands[at], {cls: "review-cards", dao: s.dao}));
    $("review-first").disabled = at === 0;
    $("review-back").disabled = at === 0;
    $("review-forward").disabled = at === steps.length - 1;
    $("review-last").disabled = at === steps.length - 1;
    $("review-prev-mine").disabled = !mine.some((i) => i < at);
    $("review-next-mine").disabled = !mine.some((i) => i > at);
    root.dataset.step = String(at);
  }

  /* A step's change in view: when the board (and the verdict under it) is
     not all on screen, bring it in, the step bar with it where the bar is
     above the board (a desktop); on a phone the bar is held at the screen's
     foot under the board (review.css), so the space above the bar counts. */
  function reveal() {
    const felt = $("review-felt");
    const nav = $("review-nav");
    const box = $("review-judgement");
    const top = felt.getBoundingClientRect().top;
    const bottom = (box.hidden ? felt : box).getBoundingClientRect().bottom;
    const navRect = nav.getBoundingClientRect();
    const below = navRect.top > top;  // the bar under the board: a phone
    const head = below ? top : navRect.top;
    const foot = below ? Math.min(innerHeight, navRect.top) : innerHeight;
    if (head >= 0 && bottom <= foot) return;
    const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
    (below ? felt : nav).scrollIntoView({behavior: still ? "auto" : "smooth", block: "start"});
  }

  function go(i, show = true) {
    at = Math.max(0, Math.min(steps.length - 1, i));
    draw();
    if (show) reveal();
  }
  $("review-first").addEventListener("click", () => go(0));
  $("review-back").addEventListener("click", () => go(at - 1));
  $("review-forward").addEventListener("click", () => go(at + 1));
  $("review-last").addEventListener("click", () => go(steps.length - 1));
  $("review-prev-mine").addEventListener("click", () => {
    const prev = mine.filter((i) => i < at);
    if (prev.length) go(prev[prev.length - 1]);
  });
  $("review-next-mine").addEventListener("click", () => {
    const next = mine.find((i) => i > at);
    if (next !== undefined) go(next);
  });
  document.querySelectorAll(".review-goto").forEach((b) => b.addEventListener("click", () => {
    go(Number(b.dataset.step), false);
    $("review-steps").scrollIntoView({behavior: "smooth", block: "start"});
  }));
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, textarea, select")) return;
    if (e.key === "ArrowRight") go(at + 1);
    else if (e.key === "ArrowLeft") go(at - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(steps.length - 1);
    else return;
    e.preventDefault();  // the keys step the game, not scroll the page
  });
  draw();
}

const root = $("review");
if (root) {
  useStrings("review-strings");
  // come from a "Review my game" link (?ask=1): ask now, through the page's
  // own form (a POST with its CSRF token; the answer redirects without ?ask)
  const ask = $("review-ask");
  if (ask && new URLSearchParams(location.search).has("ask")) ask.form.requestSubmit(ask);
  if ($("review-progress")) poll(root);
  if ($("review-data")) stepper(root);
}
