/* Why the game ended as it did: the deciding rule in sentences, for
 * the result panel (result.js). Reads only the view the server sent: the
 * result ({winner, double_clamp, abandoned_by, reason, totals, stake,
 * rating_changes}), the finished halves and the base stake (RULES.md §6–§7,
 * §12). The shop draws a game's drops itself (static/shop/table_items.js). */

import {el} from "./dom.js";
import {T, fmt} from "./i18n.js";
import {playerName, teamSide} from "./names.js";
import {teamOf} from "./state.js";

/* The sentences, in order: how it ended, then what it was worth. */
export function whySentences(view, s) {
  const res = view.result;
  const halves = view.halves || [];
  const out = [];
  const reason = res.reason || "normal";
  const by = res.abandoned_by;
  const who = by !== null && by !== undefined ? playerName(by, s) : "";
  if (reason === "escape") {
    out.push(view.practice ? fmt(T.why_escape_practice, {name: who})
      : fmt(T.why_escape, {name: who, points: -(res.rating_changes[by] || 0)}));
  } else if (reason === "moderator_close") {
    out.push(T.why_moderator_close);
  } else if (reason === "moderator_kick") {
    out.push(fmt(T.why_moderator_kick, {name: who}));
  } else if (reason === "suspension") {
    out.push(fmt(T.why_suspension, {name: who}));
  } else if (res.double_clamp && halves.length) {
    const h = halves[0];
    const winner = teamSide(res.winner, s);
    if (h.end === "A") {
      out.push(fmt(T.why_clamp_out, {team: winner}));
    } else {
      const loser = 1 - res.winner;
      out.push(fmt(T.why_clamp_under, {team: teamSide(loser, s), points: h.points[loser],
                                        winner}));
    }
  } else if (halves.length >= 2) {
    const first = halves[0].finish_order[0];
    const firstTeam = teamOf(first);
    const t = res.totals;
    out.push(fmt(T.why_two_halves, {
      us: teamSide(firstTeam, s), name: playerName(first, s),
      a: t[firstTeam], b: t[1 - firstTeam], them: teamSide(1 - firstTeam, s),
      winner: teamSide(res.winner, s),
    }));
  }
  // a practice game says so once, in the rating section (result.js)
  if (reason === "normal") {
    if (!view.practice) {
      out.push(res.double_clamp ? fmt(T.why_stake_doubled, {base: view.stake, stake: res.stake})
        : fmt(T.why_stake, {stake: res.stake, n: res.stake}));
    }
  } else if (reason !== "escape") {
    out.push(T.why_no_change);
  }
  return out;
}

/* The sentences as a block (.result-why, one <p> each). */
export function whyBlock(view, s) {
  const box = el("div", "result-why");
  whySentences(view, s).forEach((line) => box.appendChild(el("p", "why-line", line)));
  return box;
}
