// The lobby shows each table's 招牌 protection live: the lobby rows'
// `sign` key, drawn as a badge on the rows static/js/lobby.js renders. It reads
// the rows of the lobby page's own socket (window.YuanziLobby, and the
// "lobby:rows" event after each change): the lobby opens one socket, not two.
import {shortTime} from "./when.js";

const T = JSON.parse(document.getElementById("shop-lobby").textContent);
const list = document.getElementById("lobby-tables");

function rows() {
  return window.YuanziLobby ? window.YuanziLobby.rows() : {};
}

function draw() {
  const known = rows();
  for (const li of list.querySelectorAll(".lobby-table[data-table-id]")) {
    const row = known[li.dataset.tableId];
    const sign = row ? row.sign : null;
    let badge = li.querySelector(".lt-sign");
    if (!sign) { if (badge) badge.remove(); continue; }
    if (!badge) {
      badge = document.createElement("span");
      badge.className = "lt-sign sign-protection";
      (li.querySelector(".lt-head") || li).append(badge);
    }
    // Beijing time, as every other time on the site (settings.TIME_ZONE)
    const text = (sign.item === "gold_sign" ? T.gold : T.sign)
      .replace("%(until)s", shortTime(sign.until));
    if (badge.textContent !== text) badge.textContent = text;
  }
}

document.addEventListener("lobby:rows", draw);
new MutationObserver(draw).observe(list, {childList: true});
draw();
