// Arenas on the table page (contests.plugin page_modules): when the arena
// seats this player at a new table ({"type": "arena_seated", "path",
// "message"} on the per-user channel), say so and go there: they confirm
// with ready within 30 s.

import { toast } from "../js/notices.js";

export function onMessage(msg) {
  if (msg.type !== "arena_seated" || typeof msg.path !== "string") return false;
  if (!msg.path.startsWith("/tables/")) return true;
  const here = location.pathname + location.search;
  if (here === msg.path) return true;
  if (msg.message) toast(msg.message, "info");
  setTimeout(() => { location.href = msg.path; }, 1200);
  return true;
}
