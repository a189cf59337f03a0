/* The four seats around the felt (.seat[data-pos=bottom|right|top|left],
 * each with data-seat = its index): who sits there, their title, presence,
 * 托管 / ready / place badges, cards left and the turn clock's slot, and on a
 * waiting table the sit / add bot / remove bot buttons. */

import {avatarEl} from "./avatar.js";
import {$, clear, el} from "./dom.js";
import {T, fmt} from "./i18n.js";
import {seatBotLevel, seatName, titleOf} from "./names.js";
import {
  closed, isOwner, myGameSeat, mySnapshotSeat, playing, positions, state, stoodUp, tableWaiting,
} from "./state.js";

/* Seat buttons call commands.sit(i), commands.addBot(i), commands.removeBot(i).
   A tap on a seat's name shows the whole name where the seat is narrow. */
export function wireSeats(commands) {
  const toggleName = (head) => {
    const box = head.closest(".seat");
    const i = Number(box.dataset.seat);
    if (namesOpen.has(i)) namesOpen.delete(i); else namesOpen.add(i);
    box.classList.toggle("name-open", namesOpen.has(i));
    head.setAttribute("aria-expanded", namesOpen.has(i) ? "true" : "false");
  };
  $("felt").addEventListener("keydown", (e) => {
    const head = e.target.closest(".seat-head");
    if (head && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); toggleName(head); }
  });
  $("felt").addEventListener("click", (e) => {
    const head = e.target.closest(".seat-head");
    if (head) { toggleName(head); return; }
    const b = e.target.closest(".seat-actions button[data-seat]");
    if (!b) return;
    const i = Number(b.dataset.seat);
    if (b.classList.contains("sit")) commands.sit(i);
    else if (b.classList.contains("add-bot")) {
      const level = b.parentElement.querySelector("select.bot-level");
      commands.addBot(i, level ? level.value : "normal");
    }
    else if (b.classList.contains("remove-bot")) commands.removeBot(i);
  });
}

let botLevel = "normal";  // the owner's last pick survives the seats' redraws
const namesOpen = new Set();  // seats whose whole name was asked for by a tap

function seatButton(cls, text, i) {
  const b = el("button", cls, text);
  b.type = "button";
  b.dataset.seat = i;
  return b;
}

export function renderSeats(s = state) {
  const pos = positions(s);
  Object.keys(pos).forEach((where) => {
    const box = document.querySelector('.seat[data-pos="' + where + '"]');
    renderSeat(box, pos[where], s);
  });
}

function renderSeat(box, i, s) {
  const {table, view, me} = s;
  const gameShown = playing(s);
  box.dataset.seat = i;
  clear(box);
  const seat = table.seats[i];
  const p = view && view.players ? view.players[i] : null;
  const occupied = !!(gameShown || seat.player || seat.bot);
  const auto = !!(gameShown && p && !p.bot && p.auto_play);
  box.classList.toggle("empty", !occupied);
  box.classList.toggle("is-me", me.id !== null &&
    ((myGameSeat(s) === i && gameShown) || mySnapshotSeat(s) === i));
  box.classList.toggle("is-turn", gameShown && view.turn === i);
  box.classList.toggle("offline", !!(seat.player && !seat.online));
  box.classList.toggle("is-bot", !!(seat.bot || (gameShown && p && p.bot)));
  box.classList.toggle("is-auto", auto);

  box.classList.toggle("name-open", namesOpen.has(i));
  const head = el("div", "seat-head");
  head.appendChild(el("span", "seat-compass", T.seat_names[i]));
  // the seated person's avatar (the snapshot's, so a bot or an empty seat has none)
  const face = seat.player ? avatarEl(seat.player.avatar, seat.player.frame) : null;
  if (face) head.appendChild(face);
  // a bot's level is its own chip, so a narrow seat never cuts it off
  const level = occupied ? seatBotLevel(i, s) : "";
  const full = occupied ? seatName(i, s) : T.empty_seat;
  const name = el("span", "seat-name", level ? T.bot : full);
  name.title = full;
  head.appendChild(name);
  if (level) head.appendChild(el("span", "badge bot-level", level));
  head.setAttribute("role", "button");
  head.tabIndex = 0;
  head.setAttribute("aria-expanded", namesOpen.has(i) ? "true" : "false");
  box.appendChild(head);

  // An empty seat shows 空位 and its buttons, nothing of whoever sat there.
  if (occupied) {
    const meta = seatMeta(seat, p, auto, s);
    if (meta.children.length) box.appendChild(meta);
    // the finished game's player is still the occupant (same person, or a bot)
    const sameAsGame = !!(p && ((p.bot && seat.bot) ||
      (!p.bot && seat.player && seat.player.id === p.user_id)));
    if (view && (gameShown || (view.status === "over" && sameAsGame))) {
      const line = seatGameLine(i, s);
      if (line.children.length) box.appendChild(line);
    }
  }
  if (tableWaiting(s) && !gameShown && !closed(s)) {
    const actions = seatActions(seat, i, s);
    if (actions.children.length) box.appendChild(actions);
  }
}

/* Title, presence and badges. */
function seatMeta(seat, p, auto, s) {
  const gameShown = playing(s);
  const meta = el("div", "seat-meta");
  let level = null;
  if (gameShown) { if (p && !p.bot) level = p.level; } else if (seat.player) level = seat.player.level;
  if (level !== null && level !== undefined) {
    const title = el("span", "seat-title", titleOf(level, s));
    title.dataset.level = level;
    meta.appendChild(title);
  }
  if (seat.player) {
    const on = el("span", "presence " + (seat.online ? "online" : "offline"),
      seat.online ? T.online : T.offline);
    on.dataset.online = seat.online ? "1" : "0";
    meta.appendChild(on);
  }
  if (auto) meta.appendChild(el("span", "badge auto", T.auto_badge));
  if (!gameShown && tableWaiting(s) && seat.ready) {
    meta.appendChild(el("span", "badge ready", T.ready_badge));
  }
  return meta;
}

/* The place this half (上游 …), cards left, and the clock's slot on the seat to act. */
function seatGameLine(i, s) {
  const view = s.view;
  const gameShown = playing(s);
  const line = el("div", "seat-game");
  const place = view.finish_order ? view.finish_order.indexOf(i) : -1;
  if (place >= 0) {
    const badge = el("span", "badge place place-" + (place + 1), T.places[place]);
    badge.dataset.place = place + 1;
    line.appendChild(badge);
  }
  if (gameShown) {
    const count = el("span", "seat-count", fmt(T.cards_left, {n: view.counts[i]}));
    count.dataset.count = view.counts[i];
    line.appendChild(count);
  }
  if (gameShown && view.turn === i) {
    // a bot (or 托管) moves after a short pause: no countdown of that pause
    const who = view.players ? view.players[i] : null;
    line.appendChild(who && (who.bot || who.auto_play)
      ? el("span", "seat-thinking", "…") : el("span", "seat-timer", ""));
  }
  return line;
}

function seatActions(seat, i, s) {
  const actions = el("div", "seat-actions");
  if (!seat.player && !seat.bot) {
    // an arena table seats only the four its seating placed (contests.arena_run.seat_check)
    const arena = s.table && s.table.arena;
    // stood up with a reason the server knows (a moderator's kick): no seat to offer
    const barred = stoodUp(s) && !!s.view.stood_reason;
    if (s.me.id !== null && !barred && (!arena || arena.seated.includes(s.me.id))) {
      actions.appendChild(seatButton("sit small", T.sit, i));
    }
    if (isOwner(s)) {
      const level = el("select", "bot-level small");
      level.setAttribute("aria-label", T.bot_level);
      for (const code of T.bot_choices) {  /* the levels a seat takes, weakest first */
        const option = el("option", "", T.bot_levels[code]);
        option.value = code;
        if (code === botLevel) option.selected = true;
        level.appendChild(option);
      }
      level.addEventListener("change", () => { botLevel = level.value; });
      actions.appendChild(level);
      actions.appendChild(seatButton("add-bot small secondary", T.add_bot, i));
    }
  } else if (seat.bot && isOwner(s)) {
    actions.appendChild(seatButton("remove-bot small secondary", T.remove_bot, i));
  }
  return actions;
}
