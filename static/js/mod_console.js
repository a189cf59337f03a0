// The moderator console's table list, kept live: polls /mod/tables.json every 5 s
// with the page's filter and redraws the rows (textContent only: names are user text).
import {T, tableName} from "./i18n.js";

const table = document.getElementById("mod-tables");
T.lang = T.lang || document.documentElement.lang;  // tableName reads this page's language

function cell(row, text, href) {
  const td = row.insertCell();
  if (href) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    td.append(a);
  } else {
    td.textContent = text;
  }
  return td;
}

async function refresh() {
  const url = new URL(table.dataset.url, location.href);
  url.search = location.search;
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) return;
  const { tables } = await response.json();
  const body = table.tBodies[0];
  body.replaceChildren();
  for (const t of tables) {
    const row = body.insertRow();
    const name = cell(row, `${tableName(t.name)} (${t.owner})`, `/mod/tables/${t.id}/`);
    if (t.arena) {  // an arena's table is private too, but no friends' room
      const note = document.createElement("small");
      note.className = "mod-arena";
      note.textContent = " " + table.dataset.arena + " · " + t.arena.name;
      name.append(note);
    } else if (t.private) {  // listed here only: the lobby never shows a private table
      const note = document.createElement("small");
      note.className = "mod-private";
      note.textContent = " " + table.dataset.private +
        (t.spectators_allowed ? "" : " · " + table.dataset.closedDoor);
      name.append(note);
    }
    cell(row, table.dataset[t.status] || t.status);
    cell(row, t.seats.map((s) => (s.player ? s.player.username : s.bot ? table.dataset.bot : "—"))
      .join(" · "));
    cell(row, t.wager ?? "");
    cell(row, String(t.spectators));
    cell(row, t.running);
    cell(row, table.dataset.watch, `/tables/${t.id}/`);
  }
}

if (table) setInterval(() => refresh().catch(() => {}), 5000);
