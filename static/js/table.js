/* 原子 online — the table + game page (templates/games/table.html).
 *
 * The server is authoritative: this file only draws the latest table snapshot
 * and game view it was sent, and sends the player's commands over
 * /ws/table/<id>/ (games/consumers.py). Every piece of user text is put in the
 * DOM with textContent, never innerHTML.
 *
 * Hooks for browser tests: #table-app[data-status=waiting|playing|over],
 * .seat[data-seat=N] (button.sit / .add-bot / .remove-bot), #hand .pcard[data-card]
 * (cards overlap: click them at their left edge, e.g. position {x: 5, y: 12}),
 * #play-btn, #pass-btn, #hint-btn, #ready-btn, #stand-btn, #auto-btn, #escape-btn,
 * #result-panel, #chat-input, #conn-status[data-state], #stood-notice, #auto-notice,
 * .seat.is-auto (托管).
 */
(function () {
  "use strict";

  var R = window.YuanziRules;
  var boot = JSON.parse(document.getElementById("table-boot").textContent);
  var T = JSON.parse(document.getElementById("table-strings").textContent);
  var app = document.getElementById("table-app");

  var table = boot.table;        // snapshot: seats, owner, status, game_id …
  var view = boot.view;          // this user's view of the current game, or null
  var me = boot.me;              // {id, username} (id null when logged out)
  var LEVELS = boot.levels;      // [{title, title_en}] by level

  var selected = [];             // indices into the displayed hand
  var displayHand = [];          // hand cards in display order (strongest first)
  var hintIndex = -1;
  var pending = false;           // a move was sent, no answer yet
  var pendingTimer = null;
  var viewAt = performance.now(); // when the current view arrived (for the countdown)
  var dismissedResult = null;    // game_id whose result panel the user closed
  var standAsked = false;        // this page asked to stand up (no "you were stood up" notice)
  var autoAsked = null;          // game_id for which this page switched 托管 on itself
  var autoByServer = null;       // game_id in which the server put my seat on 托管 (timeouts)
  var ws = null, backoff = 1000, reconnectTimer = null, pingTimer = null;

  var SUIT_SYMBOL = {S: "♠", H: "♥", C: "♣", D: "♦"};
  var RANK_TEXT = {T: "10"};

  // --- small DOM helpers -------------------------------------------------------

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function fmt(template, values) {
    return String(template).replace(/%\((\w+)\)s/g, function (_, k) {
      return values[k] === undefined ? "" : String(values[k]);
    });
  }

  function $(id) { return document.getElementById(id); }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function signed(n) { return n > 0 ? "+" + n : String(n); }

  /* A card as a styled element: rank + suit symbol, red for ♥♦, 大王/小王 for RJ/BJ. */
  function cardEl(card, tag) {
    var e = el(tag || "span", "pcard");
    e.dataset.card = card;
    if (R.isJoker(card)) {
      e.classList.add("joker", card === "RJ" ? "red" : "black");
      var name = card === "RJ" ? T.big_joker : T.small_joker;
      e.setAttribute("aria-label", name);
      var j = el("span", "card-corner");
      j.appendChild(el("span", "card-rank joker-text", card === "RJ" ? T.big_joker_short : T.small_joker_short));
      e.appendChild(j);
      e.appendChild(el("span", "card-center", "★"));
      return e;
    }
    var rank = RANK_TEXT[card[0]] || card[0];
    var suit = SUIT_SYMBOL[card[1]];
    e.classList.add(card[1] === "H" || card[1] === "D" ? "red" : "black");
    if (view && card[0] === view.dao) e.classList.add("dao");
    e.setAttribute("aria-label", rank + suit);
    var corner = el("span", "card-corner");
    corner.appendChild(el("span", "card-rank", rank));
    corner.appendChild(el("span", "card-suit", suit));
    e.appendChild(corner);
    e.appendChild(el("span", "card-center", suit));
    return e;
  }

  function cardsRow(cards, cls) {
    var row = el("span", "cards " + (cls || "mini"));
    var shown = R.sortHand(cards, (view && view.dao) || "3").reverse();
    shown.forEach(function (c) { row.appendChild(cardEl(c)); });
    return row;
  }

  function toast(message, kind, ms) {
    var box = $("toasts");
    var t = el("div", "toast " + (kind || "error"), message);
    t.setAttribute("role", kind === "info" ? "status" : "alert");
    box.appendChild(t);
    var stay = ms || 3500;
    setTimeout(function () { t.classList.add("fade"); }, stay);
    setTimeout(function () { if (t.parentNode) t.parentNode.removeChild(t); }, stay + 700);
    while (box.children.length > 3) box.removeChild(box.firstChild);
  }

  // --- who is where ------------------------------------------------------------

  function mySnapshotSeat() {
    if (!me.id || !table) return null;
    for (var i = 0; i < table.seats.length; i++) {
      var p = table.seats[i].player;
      if (p && p.id === me.id) return i;
    }
    return null;
  }

  /* My seat in the game shown (null for a spectator). */
  function myGameSeat() { return view && view.seat !== null && view.seat !== undefined ? view.seat : null; }

  /* The seat drawn at the bottom: mine, else South (2). */
  function baseSeat() {
    var s = myGameSeat();
    if (s === null || (view && view.status !== "playing" && mySnapshotSeat() !== null)) {
      var t = mySnapshotSeat();
      if (t !== null) s = t;
    }
    return s === null ? 2 : s;
  }

  /* Counterclockwise play (RULES.md §2): 下家 = (s+3)%4 sits on the right. */
  function positions() {
    var b = baseSeat();
    return {bottom: b, right: (b + 3) % 4, top: (b + 2) % 4, left: (b + 1) % 4};
  }

  function playing() { return !!(view && view.status === "playing"); }
  function tableWaiting() { return !table || table.status === "waiting"; }
  function isOwner() { return !!(me.username && table && table.owner === me.username); }
  function teamOf(seat) { return seat % 2; }

  function titleOf(level) {
    var lv = LEVELS[level] || LEVELS[0];
    return T.lang === "en" ? lv.title_en : lv.title;
  }

  function seatName(i) {
    if (playing() && view.players && view.players[i]) {
      return view.players[i].bot ? T.bot : view.players[i].username;
    }
    var s = table.seats[i];
    if (s.player) return s.player.username;
    return s.bot ? T.bot : T.empty_seat;
  }

  /* Name of a game's player (for results), whatever the seats hold now. */
  function playerName(i) {
    var p = view && view.players && view.players[i];
    if (!p) return T.seat_names[i];
    return p.bot ? T.bot + " (" + T.seat_names[i] + ")" : p.username;
  }

  function teamLabel(team) {
    var a = playerName(team), b = playerName(team + 2);
    return a + " · " + b;
  }

  /* The seat whose side "us" is: my seat in the game, else my seat at the table. */
  function mySide() {
    var mine = myGameSeat();
    return mine === null ? mySnapshotSeat() : mine;
  }

  function teamShort(team) {
    var mine = mySide();
    if (mine === null) return team === 0 ? T.team_ns : T.team_ew;
    return teamOf(mine) === team ? T.us : T.them;
  }

  /* Teams in display order: 我方 first, else North–South first. */
  function teamOrder() {
    var mine = mySide();
    return mine !== null && teamOf(mine) === 1 ? [1, 0] : [0, 1];
  }

  /* Is my seat on 托管 in view v? */
  function autoIn(v) {
    if (!v || v.seat === null || v.seat === undefined || !v.players || !v.players[v.seat]) return false;
    return !!v.players[v.seat].auto_play;
  }

  /* I played the game shown, it is over, and the table no longer seats me: the
     server stood me up (an escape, or no connection when the game ended). */
  function stoodUp() {
    return !!(me.id && view && view.status === "over" && myGameSeat() !== null &&
              tableWaiting() && mySnapshotSeat() === null && !standAsked);
  }

  // --- rendering ---------------------------------------------------------------

  function render() {
    var status = playing() ? "playing" : (view && view.status === "over" ? "over" : "waiting");
    app.dataset.status = status;
    app.dataset.tableStatus = table ? table.status : "waiting";
    renderInfo();
    renderNotices();
    renderSeats();
    renderTrick();
    renderHand();
    renderControls();
    renderResult();
    tick();
  }

  function renderInfo() {
    $("table-name").textContent = table ? table.name : "";
    var spect = $("spectators");
    spect.textContent = fmt(T.spectators, {n: table ? table.spectators : 0});
    var info = $("game-info");
    info.hidden = !view;
    if (!view) return;
    $("half-label").textContent = view.half === 2 ? T.second_half : T.first_half;
    var dao = $("dao-rank");
    dao.textContent = RANK_TEXT[view.dao] || view.dao;
    var ind = $("indicator-card");
    clear(ind);
    if (view.indicator) ind.appendChild(cardEl(view.indicator));
    var indSeat = $("indicator-seat");
    indSeat.textContent = view.indicator_seat === null || view.indicator_seat === undefined
      ? "" : fmt(T.dealt_to, {name: playerName(view.indicator_seat)});
    indSeat.title = indSeat.textContent;
    // points: captured this half per team, and the first half's result
    var cap = view.captured || [0, 0, 0, 0];
    var pts = [cap[0] + cap[2], cap[1] + cap[3]];
    var scores = $("scores");
    clear(scores);
    teamOrder().forEach(function (t) {
      var s = el("span", "score team-" + t);
      s.dataset.team = t;
      s.appendChild(el("span", "score-label", teamShort(t)));
      s.appendChild(el("strong", "score-points", playing() ? pts[t] : ""));
      if (view.halves && view.halves.length && (view.half === 2 || !playing())) {
        s.appendChild(el("span", "score-last", fmt(T.first_half_points, {points: view.halves[0].points[t]})));
      }
      scores.appendChild(s);
    });
    var tp = $("trick-points");
    var tpts = view.trick ? view.trick.points : 0;
    tp.textContent = playing() ? fmt(T.trick_points, {points: tpts}) : "";
    tp.classList.toggle("has-points", playing() && tpts > 0);
    $("stake").textContent = view.practice ? T.practice_short : fmt(T.stake, {stake: view.stake});
  }

  function renderNotices() {
    var stood = stoodUp();
    var sn = $("stood-notice");
    sn.textContent = stood ? T.stood_up : "";
    sn.hidden = !stood;
    app.classList.toggle("stood-up", stood);
    var auto = playing() && autoByServer === view.game_id && autoIn(view);
    var an = $("auto-notice");
    an.textContent = auto ? T.auto_by_timeout : "";
    an.hidden = !auto;
    $("notices").hidden = !stood && !auto;
  }

  function renderSeats() {
    var pos = positions();
    var myTable = mySnapshotSeat();
    var gameShown = playing();
    Object.keys(pos).forEach(function (where) {
      var i = pos[where];
      var box = document.querySelector('.seat[data-pos="' + where + '"]');
      box.dataset.seat = i;
      clear(box);
      var s = table.seats[i];
      var p = view && view.players ? view.players[i] : null;
      var occupied = !!(gameShown || s.player || s.bot);
      var bot = !!(s.bot || (gameShown && p && p.bot));
      var auto = !!(gameShown && p && !p.bot && p.auto_play);
      box.classList.toggle("empty", !occupied);
      box.classList.toggle("is-me", me.id !== null && (myGameSeat() === i && gameShown || myTable === i));
      box.classList.toggle("is-turn", gameShown && view.turn === i);
      box.classList.toggle("offline", !!(s.player && !s.online));
      box.classList.toggle("is-bot", bot);
      box.classList.toggle("is-auto", auto);

      var head = el("div", "seat-head");
      head.appendChild(el("span", "seat-compass", T.seat_names[i]));
      head.appendChild(el("span", "seat-name", occupied ? seatName(i) : T.empty_seat));
      box.appendChild(head);

      // An empty seat shows 空位 and its buttons, nothing of whoever sat there.
      if (occupied) {
        // the finished game's player is still the occupant (same person, or a bot)
        var sameAsGame = !!(p && ((p.bot && s.bot) || (!p.bot && s.player && s.player.username === p.username)));
        var meta = el("div", "seat-meta");
        var level = null;
        if (gameShown) { if (p && !p.bot) level = p.level; }
        else if (s.player) level = s.player.level;
        if (level !== null && level !== undefined) {
          var title = el("span", "seat-title", titleOf(level));
          title.dataset.level = level;
          meta.appendChild(title);
        }
        if (s.player) {
          var on = el("span", "presence " + (s.online ? "online" : "offline"), s.online ? T.online : T.offline);
          on.dataset.online = s.online ? "1" : "0";
          meta.appendChild(on);
        }
        if (auto) meta.appendChild(el("span", "badge auto", T.auto_badge));
        if (!gameShown && tableWaiting() && s.ready) {
          meta.appendChild(el("span", "badge ready", T.ready_badge));
        }
        if (meta.children.length) box.appendChild(meta);

        if (view && (gameShown || (view.status === "over" && sameAsGame))) {
          var line = el("div", "seat-game");
          var place = view.finish_order ? view.finish_order.indexOf(i) : -1;
          if (place >= 0) {
            var pl = el("span", "badge place place-" + (place + 1), T.places[place]);
            pl.dataset.place = place + 1;
            line.appendChild(pl);
          }
          if (gameShown) {
            var cnt = el("span", "seat-count", fmt(T.cards_left, {n: view.counts[i]}));
            cnt.dataset.count = view.counts[i];
            line.appendChild(cnt);
          }
          if (gameShown && view.turn === i) line.appendChild(el("span", "seat-timer", ""));
          if (line.children.length) box.appendChild(line);
        }
      }

      if (tableWaiting() && !gameShown) {
        var actions = el("div", "seat-actions");
        if (!s.player && !s.bot) {
          if (me.id !== null) {
            var sit = el("button", "sit small", T.sit);
            sit.type = "button";
            sit.dataset.seat = i;
            sit.addEventListener("click", function () { standAsked = false; send({type: "sit", seat: i}); });
            actions.appendChild(sit);
          }
          if (isOwner()) {
            var add = el("button", "add-bot small secondary", T.add_bot);
            add.type = "button";
            add.dataset.seat = i;
            add.addEventListener("click", function () { send({type: "add_bot", seat: i}); });
            actions.appendChild(add);
          }
        } else if (s.bot && isOwner()) {
          var rm = el("button", "remove-bot small secondary", T.remove_bot);
          rm.type = "button";
          rm.dataset.seat = i;
          rm.addEventListener("click", function () { send({type: "remove_bot", seat: i}); });
          actions.appendChild(rm);
        }
        if (actions.children.length) box.appendChild(actions);
      }
    });
  }

  function renderTrick() {
    var pos = positions();
    var lastBySeat = {};
    var lastPlay = null;
    if (playing() && view.trick) {
      view.trick.plays.forEach(function (p) { lastBySeat[p[0]] = p[1]; });
      lastPlay = view.trick.last;
    }
    Object.keys(pos).forEach(function (where) {
      var i = pos[where];
      var slot = document.querySelector('.trick-slot[data-pos="' + where + '"]');
      slot.dataset.seat = i;
      clear(slot);
      slot.classList.remove("is-last", "passed");
      if (!(i in lastBySeat)) return;
      var cards = lastBySeat[i];
      if (!cards.length) {
        slot.classList.add("passed");
        slot.appendChild(el("span", "pass-mark", T.pass_mark));
        return;
      }
      if (lastPlay && lastPlay[0] === i) slot.classList.add("is-last");
      slot.appendChild(cardsRow(cards, "mini"));
      var play = R.classify(cards, view.dao);
      if (play) slot.appendChild(el("span", "play-kind", kindName(play)));
    });
    var lead = $("lead-note");
    if (playing() && view.trick && !view.trick.plays.length) {
      lead.textContent = fmt(T.leads, {name: playerName(view.turn)});
    } else {
      lead.textContent = "";
    }
  }

  function kindName(play) {
    var rank = play.jokers === play.size && play.kind !== "atom" ? T.jokers
      : (play.kind === "atom" && play.jokers ? (play.cards[0] === "RJ" ? T.big_joker : T.small_joker)
         : (RANK_TEXT[play.rank] || play.rank));
    var text = fmt(T.kinds[play.kind], {rank: rank, n: play.size});
    if (play.kind === "atom" && !play.jokers) text = fmt(T.kinds.atom, {rank: rank + SUIT_SYMBOL[play.cards[0][1]], n: 3});
    return text;
  }

  function handKey(hand) { return (hand || []).join(","); }

  var lastHandKey = null;

  function renderHand() {
    var box = $("hand");
    clear(box);
    // only while a game runs: once it is over the cards left are in the result panel
    var hand = playing() && view.hand ? view.hand : null;
    box.hidden = !hand || !hand.length;
    if (!hand || !hand.length) { displayHand = []; selected = []; return; }
    var key = handKey(hand) + "|" + (view ? view.game_id : "");
    if (key !== lastHandKey) { selected = []; hintIndex = -1; lastHandKey = key; }
    displayHand = R.sortHand(hand, view.dao).reverse();   // strongest on the left
    var groups = [];
    displayHand.forEach(function (c, idx) {
      var g = R.isJoker(c) ? c : c[0];
      if (!groups.length || groups[groups.length - 1].key !== g) groups.push({key: g, idx: []});
      groups[groups.length - 1].idx.push(idx);
    });
    groups.forEach(function (g) {
      var ge = el("div", "rank-group");
      ge.dataset.rank = g.key;
      if (R.isJoker(g.key)) ge.classList.add("jokers");
      if (g.key === view.dao) ge.classList.add("dao");
      var label = el("button", "rank-label", "×" + g.idx.length);
      label.setAttribute("aria-label",
        (R.isJoker(g.key) ? (g.key === "RJ" ? T.big_joker : T.small_joker) : (RANK_TEXT[g.key] || g.key)) +
        " ×" + g.idx.length + " · " + T.select_one_more);
      label.type = "button";
      label.dataset.rank = g.key;
      label.title = T.select_one_more;
      label.addEventListener("click", function () { selectOneMore(g.idx); });
      ge.appendChild(label);
      var cards = el("div", "group-cards");
      g.idx.forEach(function (idx) {
        var c = cardEl(displayHand[idx], "button");
        c.type = "button";
        c.dataset.index = idx;
        if (selected.indexOf(idx) >= 0) c.classList.add("selected");
        c.setAttribute("aria-pressed", selected.indexOf(idx) >= 0 ? "true" : "false");
        c.addEventListener("click", function () { toggle(idx); });
        cards.appendChild(c);
      });
      ge.appendChild(cards);
      box.appendChild(ge);
    });
    var count = el("div", "hand-count", fmt(T.hand_count, {n: hand.length}));
    box.appendChild(count);
  }

  function refreshSelection() {
    document.querySelectorAll("#hand .pcard").forEach(function (c) {
      var on = selected.indexOf(Number(c.dataset.index)) >= 0;
      c.classList.toggle("selected", on);
      c.setAttribute("aria-pressed", on ? "true" : "false");
    });
    renderControls();
  }

  function toggle(idx) {
    var at = selected.indexOf(idx);
    if (at >= 0) selected.splice(at, 1); else selected.push(idx);
    hintIndex = -1;
    refreshSelection();
  }

  function selectOneMore(indices) {
    for (var k = 0; k < indices.length; k++) {
      if (selected.indexOf(indices[k]) < 0) { selected.push(indices[k]); break; }
    }
    hintIndex = -1;
    refreshSelection();
  }

  function selectedCards() { return selected.map(function (i) { return displayHand[i]; }); }

  function myTurn() { return playing() && myGameSeat() !== null && view.turn === myGameSeat(); }

  /* {ok, text}: may the selection be played now? (rules.js; the server decides) */
  function checkSelection() {
    var cards = selectedCards();
    if (!cards.length) return {ok: false, text: myTurn() ? T.select_cards : ""};
    var play;
    try { play = R.classify(cards, view.dao); } catch (e) { play = null; }
    if (!play) return {ok: false, text: T.not_a_combination};
    var text = kindName(play);
    if (view.trick && view.trick.last) {
      var onTable = R.classify(view.trick.last[1], view.dao);
      if (onTable && !R.beats(play, onTable)) return {ok: false, text: text + " · " + T.does_not_beat};
    }
    return {ok: myTurn(), text: text};
  }

  function show(node, on) { node.hidden = !on; }

  function renderControls() {
    var mySeat = mySnapshotSeat();
    var seated = mySeat !== null;
    var waiting = tableWaiting() && !playing();
    var player = playing() && myGameSeat() !== null;

    var ready = $("ready-btn");
    show(ready, waiting && seated);
    if (seated) {
      var isReady = table.seats[mySeat].ready;
      ready.textContent = isReady ? T.unready : T.ready;
      ready.dataset.ready = isReady ? "1" : "0";
      ready.classList.toggle("secondary", isReady);
    }
    show($("stand-btn"), waiting && seated);
    var note = $("waiting-note");
    if (waiting) {
      var filled = table.seats.filter(function (s) { return s.player || s.bot; }).length;
      var readyN = table.seats.filter(function (s) { return (s.player || s.bot) && s.ready; }).length;
      note.textContent = !me.id ? T.login_to_play
        : (!seated ? T.choose_seat : fmt(T.waiting_for, {seated: filled, ready: readyN}));
    } else {
      note.textContent = playing() && myGameSeat() === null ? T.watching : "";
    }
    show($("login-link"), !me.id);

    show($("play-controls"), player);
    var playBtn = $("play-btn"), passBtn = $("pass-btn"), hintBtn = $("hint-btn");
    if (player) {
      var check = checkSelection();
      playBtn.disabled = pending || !myTurn() || !check.ok;
      passBtn.disabled = pending || !myTurn() || !view.can_pass;
      hintBtn.disabled = pending || !myTurn() || !(view.hints && view.hints.length);
      $("selection-info").textContent = check.text;
      $("selection-info").classList.toggle("bad", !!selectedCards().length && !check.ok && myTurn());
      var auto = view.players[myGameSeat()] && view.players[myGameSeat()].auto_play;
      var autoBtn = $("auto-btn");
      autoBtn.textContent = auto ? T.auto_off : T.auto_on;
      autoBtn.dataset.on = auto ? "1" : "0";
      autoBtn.classList.toggle("on", !!auto);
      autoBtn.setAttribute("aria-pressed", auto ? "true" : "false");
      $("turn-note").textContent = myTurn() ? T.your_turn : fmt(T.waiting_turn, {name: playerName(view.turn)});
      $("turn-note").classList.toggle("mine", myTurn());
    }
    show($("escape-btn"), player);
  }

  // --- results -------------------------------------------------------------------

  function renderResult() {
    var panel = $("result-panel");
    var over = view && view.status === "over" && view.result;
    if (!over || dismissedResult === view.game_id) { panel.hidden = true; return; }
    panel.hidden = false;
    var body = $("result-body");
    clear(body);
    var res = view.result;
    var mine = myGameSeat();
    panel.dataset.gameId = view.game_id;

    var headline = el("h2", "result-headline");
    var outcome;
    if (res.abandoned_by !== null && res.abandoned_by !== undefined) {
      outcome = "abandoned";
      headline.textContent = T.abandoned;
    } else if (mine !== null) {
      outcome = teamOf(mine) === res.winner ? "win" : "loss";
      headline.textContent = (outcome === "win" ? T.you_win : T.you_lose) +
        (res.double_clamp ? " · " + T.double_clamp : "");
    } else {
      outcome = "over";
      headline.textContent = fmt(T.team_wins, {team: teamLabel(res.winner)}) +
        (res.double_clamp ? " · " + T.double_clamp : "");
    }
    panel.dataset.outcome = outcome;
    panel.dataset.doubleClamp = res.double_clamp ? "1" : "0";
    body.appendChild(headline);

    if (outcome === "abandoned") {
      var pen = -(res.rating_changes[res.abandoned_by] || 0);
      body.appendChild(el("p", "result-escape", view.practice
        ? fmt(T.escaped_practice, {name: playerName(res.abandoned_by)})
        : fmt(T.escaped_penalty, {name: playerName(res.abandoned_by), points: pen})));
    }

    // game totals
    var totals = el("table", "result-totals");
    var thead = el("tr");
    thead.appendChild(el("th", "", ""));
    (view.halves || []).forEach(function (h) { thead.appendChild(el("th", "", h.half === 1 ? T.first_half : T.second_half)); });
    thead.appendChild(el("th", "", T.total));
    totals.appendChild(thead);
    [0, 1].forEach(function (t) {
      var tr = el("tr", res.winner === t ? "winner" : "");
      tr.dataset.team = t;
      tr.appendChild(el("th", "", teamLabel(t)));
      (view.halves || []).forEach(function (h) { tr.appendChild(el("td", "", h.points[t])); });
      tr.appendChild(el("td", "total", res.totals ? res.totals[t] : ""));
      totals.appendChild(tr);
    });
    body.appendChild(totals);

    // each half: finish order and the §5 transfers
    (view.halves || []).forEach(function (h) {
      var sec = el("section", "result-half");
      sec.appendChild(el("h3", "", (h.half === 1 ? T.first_half : T.second_half) + " · " +
        fmt(T.dao_is, {rank: RANK_TEXT[h.dao] || h.dao}) + " · " + (h.end === "A" ? T.end_a : T.end_b)));
      var order = el("p", "finish-order");
      h.finish_order.forEach(function (seat, k) {
        var item = el("span", "finish-item");
        item.appendChild(el("span", "badge place place-" + (k + 1), T.places[k]));
        item.appendChild(document.createTextNode(" " + playerName(seat)));
        order.appendChild(item);
      });
      sec.appendChild(order);
      if (h.transfers && h.transfers.length) {
        var ul = el("ul", "transfers");
        h.transfers.forEach(function (tr) {
          ul.appendChild(el("li", "", fmt(tr.what === "hand" ? T.transfer_hand : T.transfer_captured,
            {name: playerName(tr.seat), points: tr.points, team: teamLabel(tr.to_team)})));
        });
        sec.appendChild(ul);
      }
      body.appendChild(sec);
    });

    // rating points
    var rp = el("section", "result-rating");
    if (view.practice) {
      rp.appendChild(el("p", "practice-note", T.practice_game));
    } else {
      rp.appendChild(el("p", "stake-note", fmt(T.stake_line, {stake: res.stake})));
      var ul2 = el("ul", "rating-changes");
      (res.rating_changes || []).forEach(function (d, i) {
        var p = view.players[i];
        if (!p || p.bot) return;
        var li = el("li", d > 0 ? "up" : (d < 0 ? "down" : ""));
        li.dataset.seat = i;
        li.appendChild(el("span", "who", p.username));
        li.appendChild(el("strong", "delta", fmt(T.rating_delta, {delta: signed(d)})));
        var now = table.seats[i] && table.seats[i].player;
        if (now && now.username === p.username && now.level !== p.level) {
          li.appendChild(el("span", "level-change " + (now.level > p.level ? "up" : "down"),
            fmt(now.level > p.level ? T.level_up : T.level_down, {title: titleOf(now.level)})));
        }
        ul2.appendChild(li);
      });
      rp.appendChild(ul2);
    }
    body.appendChild(rp);

    // hands left at the end
    if (view.hands) {
      var left = el("section", "result-hands");
      var any = false;
      view.hands.forEach(function (h, i) {
        if (!h.length) return;
        any = true;
        var row = el("div", "left-hand");
        row.appendChild(el("span", "who", playerName(i)));
        row.appendChild(cardsRow(h, "mini"));
        left.appendChild(row);
      });
      if (any) { left.insertBefore(el("h3", "", T.cards_left_over), left.firstChild); body.appendChild(left); }
    }

    if (stoodUp()) body.appendChild(el("p", "notice warn result-stood", T.stood_up));

    var link = $("result-link");
    link.href = "/games/" + view.game_id + "/";
    show($("result-ready"), tableWaiting() && mySnapshotSeat() !== null);
    var rr = $("result-ready");
    if (mySnapshotSeat() !== null) {
      rr.textContent = table.seats[mySnapshotSeat()].ready ? T.unready : T.next_game;
    }
  }

  // --- the turn clock (counted down locally from view.time_left_ms) -------------

  function tick() {
    var t = document.querySelector(".seat.is-turn .seat-timer");
    if (!t || !playing() || view.time_left_ms === null || view.time_left_ms === undefined) return;
    var left = Math.max(0, view.time_left_ms - (performance.now() - viewAt));
    var s = Math.ceil(left / 1000);
    t.textContent = s + "″";
    t.classList.toggle("urgent", s <= 10);
    var bar = $("my-timer");
    if (bar) bar.textContent = myTurn() ? fmt(T.seconds_left, {s: s}) : "";
  }
  setInterval(tick, 250);

  // --- the websocket ---------------------------------------------------------------

  function setConn(state) {
    var c = $("conn-status");
    c.dataset.state = state;
    c.textContent = T["conn_" + state];
    app.dataset.conn = state;
  }

  function connect() {
    clearTimeout(reconnectTimer);
    setConn("connecting");
    var proto = location.protocol === "https:" ? "wss://" : "ws://";
    try {
      ws = new WebSocket(proto + location.host + boot.ws_path);
    } catch (e) {
      scheduleReconnect();
      return;
    }
    ws.onopen = function () {
      backoff = 1000;
      setConn("open");
      clearInterval(pingTimer);
      pingTimer = setInterval(function () { send({type: "ping"}, true); }, 5000);  // docs/protocol.md: every 5 s
    };
    ws.onmessage = function (ev) {
      var msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      onMessage(msg);
    };
    ws.onclose = function (ev) {
      clearInterval(pingTimer);
      setPending(false);
      if (ev.code === 4404) { setConn("gone"); return; }
      scheduleReconnect();
    };
    ws.onerror = function () { /* onclose follows */ };
  }

  function scheduleReconnect() {
    setConn("closed");
    var wait = backoff + Math.floor(Math.random() * 500);
    backoff = Math.min(backoff * 2, 15000);
    reconnectTimer = setTimeout(connect, wait);
  }

  function send(msg, quiet) {
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      if (!quiet) toast(T.not_connected);
      return false;
    }
    ws.send(JSON.stringify(msg));
    return true;
  }

  function setPending(on) {
    pending = on;
    clearTimeout(pendingTimer);
    if (on) {
      // never a dead end: if no answer comes, ask for the current view again
      pendingTimer = setTimeout(function () { pending = false; send({type: "sync"}, true); renderControls(); }, 5000);
    }
  }

  function acceptView(v) {
    if (!v) return false;
    if (view && v.game_id === view.game_id && v.seq < view.seq) return false; // stale
    if (!view || v.game_id !== view.game_id) { selected = []; hintIndex = -1; }
    noticeAuto(view, v);
    view = v;
    viewAt = performance.now();
    return true;
  }

  /* My seat went on 托管 and this page did not ask: the server did it after two
     turns in a row lost to the clock (RULES.md §8). Say so, and how to undo it. */
  function noticeAuto(old, v) {
    var was = !!(old && old.game_id === v.game_id && autoIn(old));
    var now = autoIn(v);
    if (!now) {
      if (autoAsked === v.game_id) autoAsked = null;
      if (autoByServer === v.game_id) autoByServer = null;
      return;
    }
    if (!was && old && old.game_id === v.game_id && autoAsked !== v.game_id && v.status === "playing") {
      autoByServer = v.game_id;
      toast(T.auto_by_timeout, "info", 8000);
    }
  }

  function onMessage(msg) {
    switch (msg.type) {
      case "table":
        if (msg.table) { table = msg.table; render(); }
        break;
      case "game":
        if (acceptView(msg.view)) { setPending(false); render(); }
        else if (msg.view === null) { setPending(false); renderControls(); }
        break;
      case "chat_history":
        var log = $("chat-log");
        clear(log);
        (msg.lines || []).forEach(addChat);
        break;
      case "chat":
        addChat(msg.line);
        break;
      case "error":
        setPending(false);
        toast(msg.message || T.error);
        if (msg.reason === "stale" || msg.reason === "not_your_turn" || msg.reason === "game_over" ||
            msg.reason === "no_game") {
          send({type: "sync"}, true);
        }
        render();
        break;
      case "pong":
        break;
    }
  }

  function addChat(line) {
    if (!line) return;
    var log = $("chat-log");
    var li = el("li", "chat-line");
    var time = "";
    try { time = new Date(line.at).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"}); } catch (e) { /* */ }
    li.appendChild(el("time", "chat-time", time));
    li.appendChild(el("span", "chat-user", line.user));
    li.appendChild(el("span", "chat-text", line.text));
    var atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
    log.appendChild(li);
    while (log.children.length > 100) log.removeChild(log.firstChild);
    if (atBottom) log.scrollTop = log.scrollHeight;
  }

  // --- controls ------------------------------------------------------------------

  $("ready-btn").addEventListener("click", function () {
    var s = mySnapshotSeat();
    send({type: "ready", ready: !(s !== null && table.seats[s].ready)});
  });
  $("result-ready").addEventListener("click", function () {
    var s = mySnapshotSeat();
    send({type: "ready", ready: !(s !== null && table.seats[s].ready)});
  });
  $("stand-btn").addEventListener("click", function () { standAsked = true; send({type: "stand"}); });
  $("play-btn").addEventListener("click", function () {
    var check = checkSelection();
    if (!check.ok || pending) return;
    if (send({type: "play", seq: view.seq, cards: selectedCards()})) setPending(true);
    renderControls();
  });
  $("pass-btn").addEventListener("click", function () {
    if (pending || !myTurn() || !view.can_pass) return;
    if (send({type: "pass", seq: view.seq})) { setPending(true); selected = []; refreshSelection(); }
    renderControls();
  });
  $("hint-btn").addEventListener("click", function () {
    if (!view || !view.hints || !view.hints.length) return;
    hintIndex = (hintIndex + 1) % view.hints.length;
    var want = view.hints[hintIndex];
    selected = [];
    want.forEach(function (c) {
      for (var i = 0; i < displayHand.length; i++) {
        if (displayHand[i] === c && selected.indexOf(i) < 0) { selected.push(i); break; }
      }
    });
    var keep = hintIndex;
    refreshSelection();
    hintIndex = keep;
  });
  $("clear-btn").addEventListener("click", function () { selected = []; hintIndex = -1; refreshSelection(); });
  $("auto-btn").addEventListener("click", function () {
    var on = this.dataset.on === "1";
    if (!on && view) autoAsked = view.game_id;
    send({type: "auto_play", on: !on});
  });

  var dialog = $("escape-dialog");
  $("escape-btn").addEventListener("click", function () {
    if (!playing()) return;
    var penalty = Math.max(2 * view.stake, view.half === 1 ? 20 : 10);
    $("escape-text").textContent = view.practice ? T.escape_practice : fmt(T.escape_rated, {points: penalty});
    dialog.hidden = false;
    $("escape-cancel").focus();
  });
  $("escape-cancel").addEventListener("click", function () { dialog.hidden = true; });
  $("escape-confirm").addEventListener("click", function () {
    dialog.hidden = true;
    send({type: "escape"});
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { dialog.hidden = true; }
  });
  $("result-close").addEventListener("click", function () {
    if (view) dismissedResult = view.game_id;
    renderResult();
  });

  var chatForm = $("chat-form");
  chatForm.addEventListener("submit", function (e) {
    e.preventDefault();
    var input = $("chat-input");
    var text = input.value.trim();
    if (!text) return;
    if (text.length > 200) { toast(T.chat_too_long); return; }
    if (send({type: "chat", text: text})) input.value = "";
  });

  // tab back after sleeping: ask for the current view at once
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) {
      if (ws && ws.readyState === WebSocket.OPEN) send({type: "sync"}, true);
      else if (!ws || ws.readyState === WebSocket.CLOSED) { backoff = 1000; connect(); }
    }
  });

  render();
  connect();
  window.YuanziTable = {state: function () { return {table: table, view: view, selected: selectedCards(), pending: pending}; }};
})();
