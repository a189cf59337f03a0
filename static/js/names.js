/* What the table page calls people, seats and teams, in the page's language:
 * a seat's occupant, a game's player (for results), a team, a level's title.
 * Selectors over the store (state.js), text from the page strings (i18n.js). */

import {T, fmt} from "./i18n.js";
import {mySide, playing, state, teamOf} from "./state.js";

export function titleOf(level, s = state) {
  const lv = s.levels[level] || s.levels[0];
  return T.lang === "en" ? lv.title_en : lv.title;
}

/* "机器人 · 高手": a bot with its level (bot_policy of the snapshot or the view). */
export function botName(policy) {
  const level = policy && T.bot_levels && T.bot_levels[policy];
  return level ? T.bot + " · " + level : T.bot;
}

/* Who sits in seat i now: the game's player while a game is shown, else the table's. */
export function seatName(i, s = state) {
  if (playing(s) && s.view.players && s.view.players[i]) {
    const p = s.view.players[i];
    return p.bot ? botName(p.bot_policy) : p.username;
  }
  const seat = s.table.seats[i];
  if (seat.player) return seat.player.username;
  return seat.bot ? botName(seat.bot_policy) : T.empty_seat;
}

/* The level of the bot in seat i ("高手"), as seatName sees the seat; "" for a person. */
export function seatBotLevel(i, s = state) {
  let policy = null;
  let bot = false;
  if (playing(s) && s.view.players && s.view.players[i]) {
    const p = s.view.players[i];
    bot = !!p.bot;
    policy = p.bot_policy;
  } else {
    const seat = s.table.seats[i];
    bot = !seat.player && !!seat.bot;
    policy = seat.bot_policy;
  }
  if (!bot) return "";
  return (policy && T.bot_levels && T.bot_levels[policy]) || "";
}

/* The name of the shown game's player in seat i, whatever the seats hold now;
 * a bot briefly, by its seat ("机器人（北）", as the result page names it). */
export function playerName(i, s = state) {
  const p = s.view && s.view.players && s.view.players[i];
  if (!p) return T.seat_names[i];
  return p.bot ? fmt(T.bot_seat, {seat: T.seat_names[i]}) : p.username;
}

/* "xiaoming · ahua": the two players of team 0 (seats 0, 2) or 1 (seats 1, 3). */
export function teamLabel(team, s = state) {
  return playerName(team, s) + " · " + playerName(team + 2, s);
}

/* A team inside a sentence: 我方 / 对方 ("your team" / "the other team") for a
   player, else 南北 / 东西 (long names made the result's sentences a wall). */
export function teamSide(team, s = state) {
  const mine = mySide(s);
  if (mine === null) return team === 0 ? T.team_ns : T.team_ew;
  return teamOf(mine) === team ? T.your_team : T.other_team;
}

/* 我方 / 对方 for a player, else 南北 / 东西. */
export function teamShort(team, s = state) {
  const mine = mySide(s);
  if (mine === null) return team === 0 ? T.team_ns : T.team_ew;
  return teamOf(mine) === team ? T.us : T.them;
}
