/* 原子 online — the lobby: keeps the server-rendered table list live over
 * /ws/lobby/ (messages "tables" = the whole list, "table" = one row changed).
 * All user text goes in with textContent. Reconnects with backoff. */
(function () {
  "use strict";
  var T = JSON.parse(document.getElementById("lobby-strings").textContent);
  var list = document.getElementById("lobby-tables");
  var status = document.getElementById("lobby-status");
  var rows = {};   // id -> row data
  var order = [];  // ids, newest first
  var backoff = 1000, ws = null, pingTimer = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(t, v) {
    return String(t).replace(/%\((\w+)\)s/g, function (_, k) { return v[k] === undefined ? "" : String(v[k]); });
  }
  function title(p) { return T.lang === "en" ? p.title_en : p.title; }

  function rowEl(t) {
    var li = el("li", "lobby-table");
    li.dataset.tableId = t.id;
    li.dataset.status = t.status;
    var head = el("div", "lt-head");
    var a = el("a", "lt-name", t.name);
    a.href = "/tables/" + t.id + "/";
    head.appendChild(a);
    head.appendChild(el("span", "lt-status " + t.status, t.status === "playing" ? T.playing : T.waiting));
    li.appendChild(head);
    li.appendChild(el("div", "lt-owner", fmt(T.owner, {name: t.owner})));
    var seats = el("ol", "lt-seats");
    t.seats.forEach(function (s) {
      var si = el("li", "lt-seat");
      si.dataset.seat = s.index;
      si.appendChild(el("span", "lt-compass", T.seat_names[s.index]));
      if (s.player) {
        si.appendChild(el("span", "lt-player", s.player.username));
        si.appendChild(document.createTextNode(" "));
        si.appendChild(el("span", "lt-title", title(s.player)));
        if (s.ready) { si.appendChild(document.createTextNode(" ")); si.appendChild(el("span", "badge ready", T.ready)); }
      } else if (s.bot) {
        si.appendChild(el("span", "lt-player bot", T.bot));
      } else {
        si.classList.add("empty");
        si.appendChild(el("span", "lt-empty", T.empty_seat));
      }
      seats.appendChild(si);
    });
    li.appendChild(seats);
    var foot = el("div", "lt-foot");
    foot.appendChild(el("span", "lt-spectators", fmt(T.spectators, {n: t.spectators})));
    var open = el("a", "button small", T.open);
    open.href = "/tables/" + t.id + "/";
    foot.appendChild(open);
    li.appendChild(foot);
    return li;
  }

  function draw() {
    while (list.firstChild) list.removeChild(list.firstChild);
    if (!order.length) { list.appendChild(el("li", "lobby-empty", T.no_tables)); return; }
    order.forEach(function (id) { list.appendChild(rowEl(rows[id])); });
  }

  function onMessage(msg) {
    if (msg.type === "tables") {
      rows = {}; order = [];
      (msg.tables || []).forEach(function (t) { rows[t.id] = t; order.push(t.id); });
      draw();
    } else if (msg.type === "table" && msg.table) {
      var t = msg.table;
      if (!(t.id in rows)) order.unshift(t.id);
      rows[t.id] = t;
      var old = list.querySelector('.lobby-table[data-table-id="' + t.id + '"]');
      if (old) list.replaceChild(rowEl(t), old); else draw();
    } else if (msg.type === "table_closed") {
      delete rows[msg.id];
      order = order.filter(function (id) { return id !== msg.id; });
      draw();
    }
  }

  function setStatus(s) { status.dataset.state = s; status.textContent = T["conn_" + s]; }

  function connect() {
    setStatus("connecting");
    var proto = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(proto + location.host + "/ws/lobby/");
    ws.onopen = function () {
      backoff = 1000; setStatus("open");
      clearInterval(pingTimer);
      pingTimer = setInterval(function () { if (ws.readyState === 1) ws.send('{"type":"ping"}'); }, 25000);
    };
    ws.onmessage = function (ev) { try { onMessage(JSON.parse(ev.data)); } catch (e) { /* ignore */ } };
    ws.onclose = function () {
      clearInterval(pingTimer);
      setStatus("closed");
      var wait = backoff + Math.floor(Math.random() * 500);
      backoff = Math.min(backoff * 2, 15000);
      setTimeout(connect, wait);
    };
  }
  connect();
})();
