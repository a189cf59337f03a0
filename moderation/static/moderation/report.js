/* Reports and moderator badges on the table page (moderation.plugin; docs/protocol.md
 * `report`, `reported`, the snapshot's `moderators`, chat lines' `moderator`).
 *
 * - Every chat line but one's own gets a ⚑ button: it opens #report-dialog to report that
 *   line (its author); #report-btn opens it to report a player at the table.
 * - One report in flight at a time: #report-send stays disabled from the send
 *   until its answer (`reported`) or refusal (`error`) arrives, or
 *   ANSWER_WAIT_MS pass without one (a dropped line), so a double click sends
 *   one report (the server refuses a repeat too: `already_reported`).
 * - markModerators(table) badges the seats of moderators (the snapshot lists
 *   the moderators seated or watching) and names the watching ones.
 * The dialog's words are in the template (translated there). */

import {$, el} from "../js/dom.js";
import {toast} from "../js/notices.js";

let target = {};
// the timer of the report awaiting its answer (null: none in flight)
let inFlight = null;
const ANSWER_WAIT_MS = 10000;

/* The report in flight was answered (or never will be): #report-send works again. */
function settle() {
  clearTimeout(inFlight);
  inFlight = null;
  $("report-send").disabled = false;
}

/* Fill the dialog's player choice from the snapshot's seated players. */
function fillPlayers(table, meId) {
  const select = $("report-user");
  select.replaceChildren();
  for (const seat of (table && table.seats) || []) {
    if (seat.player && seat.player.id !== meId) {
      const opt = el("option", null, seat.player.username);
      opt.value = seat.player.id;
      select.appendChild(opt);
    }
  }
}

/* Open the dialog for a chat line ({line_id, user}) or a player (pick one). */
function open(forLine, table, meId) {
  const dialog = $("report-dialog");
  target = forLine || {};
  $("report-who").hidden = !!forLine;
  $("report-line").textContent = forLine ? `${forLine.user}: ${forLine.text}` : "";
  if (!forLine) fillPlayers(table, meId);
  $("report-note").value = "";
  // a chat line is reported for what it says; a player, for anything
  if (forLine) $("report-category").value = "chat_abuse";
  dialog.showModal();
}

/* send(msg) → sent?; table() → the latest snapshot; meId: the viewer's user id. */
export function wireReport({send, table, meId}) {
  const dialog = $("report-dialog");
  if (!dialog) return;  // anonymous visitors have no report control
  $("report-btn").hidden = false;
  $("report-btn").addEventListener("click", () => open(null, table(), meId));
  $("chat-log").addEventListener("click", (e) => {
    const button = e.target.closest("button.chat-report");
    if (!button) return;
    const li = button.closest("li");
    open({line_id: Number(li.dataset.lineId), user: li.querySelector(".chat-user").textContent,
          text: li.querySelector(".chat-text").textContent}, table(), meId);
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
    dialog.close();
  });
  $("report-cancel").addEventListener("click", () => dialog.close());
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
  wireReport({send: page.send, table: () => page.state.table, meId: page.meId});
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
