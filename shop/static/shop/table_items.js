// The shop at the table: the 桌布 theme and the 招牌 protection for
// everyone; for a logged-in user the items they hold that work here (算牌器,
// 招牌 / 金字招牌, 桌布, 录像机) and the card counter's counts. It reads the
// table page's state and sends uses on the page's own socket (window.YuanziTable,
// static/js/table.js): a socket of its own doubled every frame of the game.
import {shortTime} from "./when.js";

const conf = JSON.parse(document.getElementById("shop-table").textContent);
const T = conf.strings;
const app = document.getElementById("table-app");
const SUITS = {S: "♠", H: "♥", C: "♣", D: "♦"};
let inventory = [];
let panel = null;
// 录像机: game id -> its replay's token once saved (null: asked, not saved), so a
// saved game shows 已保存 and its link instead of the recorder button
const saved = {};

function key() {
  return (window.crypto && crypto.randomUUID) ? crypto.randomUUID()
    : String(Date.now()) + Math.random().toString(16).slice(2);
}

function current() {
  const s = window.YuanziTable && window.YuanziTable.state ? window.YuanziTable.state() : null;
  return {table: s ? s.table : null, view: s ? s.view : null};
}

function say(text) { if (panel) panel.querySelector("#items-message").textContent = text; }

/* What a use did, in words; a saved replay also gets its link. */
function done(result) {
  if (!panel) return;
  const box = panel.querySelector("#items-message");
  if (result.token) {
    if (result.game_id) saved[result.game_id] = result.token;
    const a = document.createElement("a");
    a.href = "/replays/" + result.token + "/";
    a.textContent = T.open_replay;
    box.replaceChildren(T.replay_saved + " ", a);
    return;
  }
  say(result.name ? T.renamed : result.theme ? T.themed : result.half ? T.counting : T.done);
}

/* The answers to this script's uses: consumed here, not by the table page. */
function onFrame(msg) {
  if (msg.type === "item_used") { done(msg.result || {}); refresh(); return true; }
  if (msg.type === "error" && msg.ref === "shop") { say(msg.message); return true; }
  return false;
}

function send(msg) {
  if (window.YuanziTable) window.YuanziTable.send({...msg, ref: "shop"});
}

function slotOf(code) {
  const s = inventory.find((x) => x.item === code);
  return s ? s.slot : null;
}

function use(code, extra) {
  const slot = slotOf(code);
  if (slot === null) { say(T.none); return; }
  send({type: "use_item", slot, item: code, key: key(), ...extra});
}

/* Whether this finished game is already in my replays (once per game: /api/me?game=). */
async function checkSaved(gameId) {
  if (gameId in saved) return;
  saved[gameId] = null;
  const r = await fetch(conf.me_url + "?game=" + encodeURIComponent(gameId),
    {headers: {Accept: "application/json"}});
  if (!r.ok) return;
  const reply = await r.json();
  if (reply.replay && reply.replay.token) saved[gameId] = reply.replay.token;
  render();
}

async function refresh() {
  if (!panel) return;
  const r = await fetch(conf.me_url, {headers: {Accept: "application/json"}});
  if (!r.ok) return;
  inventory = (await r.json()).inventory;
  render();
}

function held(code) {
  return inventory.filter((x) => x.item === code).reduce((n, x) => n + x.count, 0);
}

const dropsBox = document.createElement("div");
dropsBox.id = "shop-drops";
dropsBox.className = "items-panel";
dropsBox.hidden = true;
// in the result panel when there is one (it covers the table at the end)
const resultButtons = document.querySelector("#result-panel .overlay-buttons");
if (resultButtons) resultButtons.before(dropsBox);
else (document.getElementById("hand") || app.lastElementChild).after(dropsBox);

/* One translated line: "掉落：qa_alice 获得 钻石碎片 · …" (the result panel's only drops line). */
function renderDrops(view) {
  const drops = view && view.status === "over" ? (view.drops || []) : [];
  dropsBox.hidden = drops.length === 0;
  const text = drops.map((d) => {
    const p = view.players.find((x) => x.user_id === d.user_id);
    return (d.lost ? T.drop_lost : T.drop_line).replace("%(name)s", p ? p.username : "?")
      .replace("%(item)s", conf.items[d.item] || d.item);
  }).join(" · ");
  const line = drops.length ? T.drops.replace("%(drops)s", text) : "";
  if (dropsBox.textContent !== line) dropsBox.textContent = line;
}

// the name's protection, for everyone at the table, beside the name
const prot = document.createElement("span");
prot.id = "sign-protection";
prot.className = "sign-protection";
prot.hidden = true;
(document.getElementById("table-name") || app.firstElementChild).after(prot);

function render() {
  const {table, view} = current();
  if (table) {
    app.dataset.theme = table.theme || "default";
    prot.hidden = !table.sign;
    // Beijing time, as every other time on the site (settings.TIME_ZONE)
    const text = table.sign ? T.protected.replace("%(by)s", table.sign.by || "")
      .replace("%(until)s", shortTime(table.sign.until)) : "";
    if (prot.textContent !== text) prot.textContent = text;
  }
  renderDrops(view);
  if (!panel) return;
  const me = conf.user_id;
  const seated = table && table.seats.some((s) => s.player && s.player.id === me);
  const owner = table && table.owner_id === me;
  const playing = view && view.status === "playing" && view.seat !== null;
  const over = view && view.status === "over" && view.players.some((p) => p.user_id === me);
  const show = {
    // none offered while this half's counter is on (one a half, RULES.md §12)
    card_counter: playing && held("card_counter") > 0 && !view.card_counter,
    sign: (seated || owner) && (held("sign") + held("gold_sign")) > 0,
    // the owner with a 桌布 to lay, or a laid one to take off (free)
    tablecloth: owner && (held("tablecloth") > 0 || (table.theme || "default") !== "default"),
    recorder: over && (held("recorder") > 0 || !!saved[view.game_id]),
  };
  if (over) checkSaved(view.game_id);
  const token = over ? saved[view.game_id] : null;
  // the recorder's row may sit in the result panel (moved there below), not in `panel`
  const recorderBtn = document.getElementById("use-recorder");
  const savedBox = document.querySelector("[data-for=recorder] .recorder-saved");
  if (recorderBtn && savedBox) {
    recorderBtn.hidden = !!token;
    savedBox.hidden = !token;
    if (token) savedBox.querySelector("a").href = "/replays/" + token + "/";
  }
  for (const row of document.querySelectorAll("[data-for]")) row.hidden = !show[row.dataset.for];
  // "the counter is on" only while it is: not on the next half or the result
  const message = panel.querySelector("#items-message");
  if (message.textContent === T.counting && !(playing && view.card_counter)) message.textContent = "";
  // no item to use here and nothing to say: no empty 道具 box
  panel.hidden = ![...panel.querySelectorAll("[data-for]")].some((row) => !row.hidden) &&
    !panel.querySelector("#items-message").textContent;
  // nor a 道具 button (landscape phones) opening nothing
  const toggle = document.getElementById("items-toggle");
  if (toggle && toggle.hidden !== panel.hidden) {
    toggle.hidden = panel.hidden;
    if (panel.hidden) {
      app.classList.remove("items-open");
      toggle.setAttribute("aria-expanded", "false");
    }
  }
  panel.querySelector("[data-for=card_counter] .held").textContent = "× " + held("card_counter");
  panel.querySelector("#use-sign").disabled = held("sign") === 0;
  panel.querySelector("#use-gold-sign").disabled = held("gold_sign") === 0;
  panel.querySelector("#use-cloth").disabled = held("tablecloth") === 0;
  renderCounter(view);
}

// The card counter's counts, beside the hand (RULES.md §12 算牌器): one group
// per rank in this deal's order, the dao first (highlighted), 2, A … 3, then
// the jokers by name; each card of the group with its suit and count.
const RANK_ORDER = "2AKQJT9876543";
const counterBox = document.createElement("section");
counterBox.id = "card-counter";
counterBox.className = "card-counter";
counterBox.hidden = true;
counterBox.setAttribute("aria-label", T.counter_label);
(document.getElementById("hand") || app.lastElementChild).before(counterBox);

function counterGroup(cls, labelText, cards, counts) {
  const g = document.createElement("span");
  g.className = "cc-group " + cls;
  if (labelText) {
    const l = document.createElement("b");
    l.className = "cc-label";
    l.textContent = labelText;
    g.append(l);
  }
  for (const [card, text] of cards) {
    const span = document.createElement("span");
    span.dataset.card = card;
    const n = counts[card] || 0;
    span.className = n ? "" : "zero";
    span.textContent = `${text}×${n}`;
    g.append(span);
  }
  return g;
}

function renderCounter(view) {
  const counts = view && view.status === "playing" ? view.card_counter : null;
  counterBox.hidden = !counts;
  if (!counts) { counterBox.dataset.key = ""; return; }
  const dao = view.dao;
  const key = dao + JSON.stringify(counts);
  if (counterBox.dataset.key === key) return;  // redrawn only when a count changes
  counterBox.dataset.key = key;
  const title = document.createElement("h3");
  title.textContent = T.counter_title;
  const ranks = [dao, ...RANK_ORDER.split("").filter((r) => r !== dao)];
  const groups = ranks.map((r) => {
    const rank = r === "T" ? "10" : r;
    const cards = Object.keys(SUITS).map((s) => [r + s, SUITS[s]]);
    return counterGroup(r === dao ? "dao" : "", r === dao ? `${T.dao} ${rank}` : rank, cards, counts);
  });
  groups.push(counterGroup("jokers", "", [["RJ", T.big_joker], ["BJ", T.small_joker]], counts));
  counterBox.dataset.dao = dao;
  counterBox.replaceChildren(title, ...groups);
}

if (conf.user_id) {
  const tpl = document.getElementById("items-panel-template");
  panel = tpl.content.firstElementChild.cloneNode(true);
  const anchor = document.getElementById("hand") || app.lastElementChild;
  anchor.after(panel);
  if (resultButtons) resultButtons.before(panel.querySelector("[data-for=recorder]"));
  panel.querySelector("#use-counter").addEventListener("click", () => use("card_counter", {}));
  panel.querySelector("#use-sign").addEventListener("click", () =>
    use("sign", {name: panel.querySelector("#sign-name").value}));
  panel.querySelector("#use-gold-sign").addEventListener("click", () =>
    use("gold_sign", {name: panel.querySelector("#sign-name").value}));
  panel.querySelector("#use-cloth").addEventListener("click", () =>
    use("tablecloth", {theme: panel.querySelector("#cloth-theme").value}));
  panel.querySelector("#reset-cloth").addEventListener("click", () => send({type: "reset_theme"}));
  document.getElementById("use-recorder").addEventListener("click", () =>
    use("recorder", {game: current().view.game_id}));
  refresh();
}
if (window.YuanziTable) window.YuanziTable.listen(onFrame);
// items bought in another tab (the shop) count here too: asked again when this
// page is looked at again and when a new game starts (a tester's counter stayed "× 0")
let lastGame = null;
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") refresh();
});
// and when my coins move (a purchase): a page never hidden (another window, a
// headless tester's second page) gets no visibilitychange, but gets this frame
// of the per-user channel (static/js/me.js re-dispatches each one)
document.addEventListener("yuanzi:frame", (e) => { if (e.detail && e.detail.type === "me") refresh(); });
setInterval(() => {
  const v = current().view;
  const game = v ? v.game_id : null;
  if (game !== lastGame) {
    if (lastGame !== null && game !== null) refresh();
    lastGame = game;
  }
  render();
}, 400);
render();
