/* 好友房 and 快速开始 on the table page: a private table's room code
 * and invite link (#invite-box; the owner's spectators switch, sent as
 * {"type": "spectators", "allowed"}), and after a quick start that found no
 * company, the note that the table waits for people with a button that fills
 * the empty seats with bots (#alone-notice). */

import {$, show} from "./dom.js";
import {isOwner, state, tableWaiting} from "./state.js";

let alone = false;

/* commands.spectators(allowed), commands.fillBots() */
export function wireInvite(commands, {waitingAlone}) {
  alone = !!waitingAlone;
  $("spectators-allowed").addEventListener("change", (e) => commands.spectators(e.target.checked));
  $("fill-bots-btn").addEventListener("click", () => { alone = false; commands.fillBots(); });
  $("invite-link").addEventListener("focus", (e) => e.target.select());
}

export function renderInvite(s = state) {
  const t = s.table;
  // an arena's table is private to its pool account: no room code nor invite link
  const priv = !!(t && t.private && !t.arena);
  show($("invite-box"), priv);
  if (priv) {
    $("room-code").textContent = t.room_code || "";
    const link = location.origin + (t.invite_path || "");
    if ($("invite-link").value !== link) $("invite-link").value = link;
    show($("spectators-choice"), isOwner(s));
    const box = $("spectators-allowed");
    box.checked = t.spectators_allowed !== false;
    box.disabled = !tableWaiting(s) || s.conn !== "open";
  }
  const empty = t ? t.seats.filter((x) => !x.player && !x.bot).length : 0;
  if (alone && (!tableWaiting(s) || empty === 0 || t.seats.filter((x) => x.player).length > 1)) {
    alone = false;
  }
  show($("alone-notice"), alone && isOwner(s));
}

/* The empty seats, for the fill-with-bots button. */
export function emptySeats(s = state) {
  return s.table ? s.table.seats.filter((x) => !x.player && !x.bot).map((x) => x.index) : [];
}
