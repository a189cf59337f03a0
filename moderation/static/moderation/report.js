/* Reports and moderator badges on the table page (moderation.plugin; docs/protocol.md
 * `report`, `reported`, the snapshot's `moderators`, chat lines' `moderator`).
 *
 * - Every chat line but one's own gets a ⚑ button: it opens #report-dialog to report that
 *   line (its author); #report-btn opens it to report a player at the table: anyone
 *   the server takes (`user_id`: seated here or playing its game), so the seated
 *   players and those of the game the page holds (current or last: one who escaped
 *   or a moderator removed is still listed), once each, never oneself, never a bot.
 * - One report in flight at a time: #report-send stays disabled from the send
 *   until its answer (`reported`) or refusal (`error`) arrives, or
 *   ANSWER_WAIT_MS pass without one (a dropped line), so a double click sends
 *   one report (the server refuses a repeat too: `already_reported`). The
 *   dialog stays open until then (a second tap lands on the disabled button).
 * - A tap's after-effects never reach the page beneath: for GUARD_MS after the
 *   dialog closes, pointer presses and clicks are swallowed (a phone's
 *   double-tap on 发送 once stood its player up through 站起 underneath).
 * - markModerators(table) badges the seats of moderators (the snapshot lists
 *   the moderators seated or watching) and names the watching ones.
 * The dialog's words are in the template (translated there). */

import {$, el} from "../js/dom.js";
import {toast} from "../js/notices.js";

let target = {};
// the timer of the report awaiting its answer (null: none in flight)
let inFlight = null;
const ANSWER_WAIT_MS = 10000;
// how long after the dialog closes a press or click is swallowed (a double-tap's second)
const GUARD_MS = 400;
let guardUntil = 0;
// the dialog is open on the report in flight (it closes with the answer)
let awaiting = false;

/* The report in flight was answered (or never will be): the dialog closes and
   #report-send works again. */
function settle() {
  clearTimeout(inFlight);
  inFlight = null;
  $("report-send").disabled = !target.line_id && !$("report-user").options.length;
  if (awaiting) $("report-dialog").close();
}

/* Who may be reported as a player: [{id, username}], the seated players of the
   snapshot, then the people (not bots) of the game view `view` (its players
   stood up since: an escape, a moderator's kick), each once, never `meId`. */
export function reportable(table, view, meId) {
  const seen = new Set([meId]), out = [];
  const add = (id, username) => {
    if (typeof id !== "number" || seen.has(id)) return;
    seen.add(id);
    out.push({id, username});
  };
  for (const seat of (table && table.seats) || []) {
    if (seat.player && !seat.bot) add(seat.player.id, seat.player.username);
  }
  for (const p of (view && view.players) || []) {
    if (p && !p.bot) add(p.user_id, p.username);
  }
  return out;
}

/* Fill the dialog's player choice; false when there is nobody to report. */
function fillPlayers(table, view, meId) {
  const select = $("report-user");
  select.replaceChildren(...reportable(table, view, meId).map((p) => {
    const opt = el("option", null, p.username);
    opt.value = p.id;
    return opt;
  }));
  return select.options.length > 0;
}

/* Open the dialog for a chat line ({line_id, user}) or a player (pick one). */
function open(forLine, page, meId) {
  const dialog = $("report-dialog");
  target = forLine || {};
  $("report-who").hidden = !!forLine;
  $("report-line").textContent = forLine ? `${forLine.user}: ${forLine.text}` : "";
  const anyone = forLine ? true : fillPlayers(page.table, page.view, meId);
  $("report-send").disabled = inFlight !== null || !anyone;
  $("report-note").value = "";
  // a chat line is reported for what it says; a player, for anything
  if (forLine) $("report-category").value = "chat_abuse";
  dialog.showModal();
}

/* Swallow a press or click that comes just after the dialog closed. */
function guard(e) {
  if (performance.now() >= guardUntil) return;
  e.preventDefault();
  e.stopImmediatePropagation();
}

/* send(msg) → sent?; page() → {table, view}: the latest snapshot and game view;
   meId: the viewer's user id. */
export function wireReport({send, page, meId}) {
  const dialog = $("report-dialog");
  if (!dialog) return;  // anonymous visitors have no report control
  $("report-btn").hidden = false;
  $("report-btn").addEventListener("click", () => open(null, page(), meId));
  $("chat-log").addEventListener("click", (e) => {
    const button = e.target.closest("button.chat-report");
    if (!button) return;
    const li = button.closest("li");
    open({line_id: Number(li.dataset.lineId), user: li.querySelector(".chat-user").textContent,
          text: li.querySelector(".chat-text").textContent}, page(), meId);
  });
  $("report-form").addEventListener("submit", (e) => {
    e.preventDefault();
    if (inFlight !== null) return;  // the first click's report is on its way
    const msg = {type: "report", category: $("report-category").value,
                 note: $("report-note").value.trim()};
    if (target.line_id) msg.line_id = target.line_id;
    else msg.user_id = Number($("report-user").value);
    if (!send(msg)) return;
    $("report-send").disabled = true;
    inFlight = setTimeout(settle, ANSWER_WAIT_MS);
    awaiting = true;
    // open until the answer (settle): a second tap meanwhile hits the disabled button
  });
  $("report-cancel").addEventListener("click", () => dialog.close());
  // however it closes (answer, 取消, Esc), the rest of a tap stays out of the page
  dialog.addEventListener("close", () => {
    awaiting = false;
    guardUntil = performance.now() + GUARD_MS;
  });
  for (const type of ["pointerdown", "pointerup", "mousedown", "mouseup", "click", "dblclick"]) {
    window.addEventListener(type, guard, true);
  }
}

/* Badge the moderators' seats and list the moderators watching. */
export function markModerators(table) {
  const mods = new Set(((table && table.moderators) || []).map((m) => m.id));
  document.querySelectorAll(".seat[data-seat]").forEach((box) => {
    const seat = table.seats[Number(box.dataset.seat)];
    const head = box.querySelector(".seat-head");
    if (head && seat && seat.player && mods.has(seat.player.id) && !head.querySelector(".mod")) {
      head.appendChild(el("span", "badge mod", $("mod-badge-text").textContent));
    }
  });
  const seated = new Set(table.seats.filter((s) => s.player).map((s) => s.player.id));
  const watching = ((table && table.moderators) || []).filter((m) => !seated.has(m.id));
  const box = $("mod-watching");
  box.hidden = !watching.length;
  // the names, beside (never over) the badge
  box.querySelector(".mod-watching-names").textContent = watching.map((m) => m.username).join(", ");
}

/* The table page's plugin interface (static/js/table.js, moderation.plugin). */
export function wire(page) {
  wireReport({send: page.send, page: () => ({table: page.state.table, view: page.state.view}),
              meId: page.meId});
}

export function render(state) {
  if (state.table) markModerators(state.table);
}

export function onMessage(msg) {
  if (msg.type === "error" && inFlight !== null) {
    settle();  // the report's refusal (the page's own handler shows it)
    return false;
  }
  if (msg.type !== "reported") return false;
  settle();
  toast($("report-dialog").dataset.sent, "info", 5000);
  return true;
}
