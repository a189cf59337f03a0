/* Provably fair deals on the table page (docs/fairness.md): a fresh seed of
 * the player's own with every `ready`, the commitment of the game shown (the
 * view's `fairness.commitment`) under the table, and while the table waits
 * the next game's (the snapshot's `next_commitment`), there before anyone
 * readies. */

import {$} from "./dom.js";

/* 32 hex characters from the browser's cryptographic generator. */
export function newSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/* Show the commitment (and the server seed once the game is over), and the
   next game's while the table waits. */
export function renderFairness(view, table) {
  const next = $("next-fairness-line");
  const coming = table && table.status === "waiting" ? table.next_commitment : null;
  if (next) {
    next.hidden = !coming;
    next.querySelector(".commitment").textContent = coming || "";
  }
  const box = $("fairness-line");
  if (!box) return;
  const f = view && view.fairness;
  box.hidden = !f;
  if (!f) return;
  box.querySelector(".commitment").textContent = f.commitment;
  const server = box.querySelector(".server-seed");
  server.textContent = f.server_seed || "";
  server.parentElement.hidden = !f.server_seed;
}
