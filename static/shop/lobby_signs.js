// The lobby shows each table's 招牌 protection live (issue 8): the lobby rows'
// `sign` key, from a lobby socket of our own (the lobby socket keeps no
// presence), drawn as a badge on the rows static/js/lobby.js renders.
const T = JSON.parse(document.getElementById("shop-lobby").textContent);
const list = document.getElementById("lobby-tables");
const signs = {};

function draw() {
  for (const li of list.querySelectorAll(".lobby-table[data-table-id]")) {
    const sign = signs[li.dataset.tableId];
    let badge = li.querySelector(".lt-sign");
    if (!sign) { if (badge) badge.remove(); continue; }
    if (!badge) {
      badge = document.createElement("span");
      badge.className = "lt-sign sign-protection";
      (li.querySelector(".lt-head") || li).append(badge);
    }
    // Beijing time, as every other time on the site (settings.TIME_ZONE)
    const text = (sign.item === "gold_sign" ? T.gold : T.sign)
      .replace("%(until)s", new Date(sign.until).toLocaleString(undefined, {timeZone: "Asia/Shanghai", hourCycle: "h23"}));
    if (badge.textContent !== text) badge.textContent = text;
  }
}

function keep(row) {
  if (row.sign) signs[row.id] = row.sign; else delete signs[row.id];
}

const proto = location.protocol === "https:" ? "wss://" : "ws://";
function connect() {
  const ws = new WebSocket(proto + location.host + "/ws/lobby/");
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "tables") msg.tables.forEach(keep);
    if (msg.type === "table") keep(msg.table);
    draw();
  };
  ws.onclose = () => setTimeout(connect, 3000);
}
connect();
new MutationObserver(draw).observe(list, {childList: true});
