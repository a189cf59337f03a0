"""The table on phones, and two desktop layout items, in a real browser
(Debian chromium through Playwright), measured with element rectangles as a player sees them:

* landscape phones (740×360, 844×390): the four seats, the trick, the dao and
  scores, the controls and the whole hand on one screen without scrolling;
  chat and items behind buttons;
* a portrait phone (360×740): toasts never over the action row or the hand,
  the action row on one line, every seat's name readable (whole, or whole on
  a tap) and a bot's level shown;
* a desktop (1366×800): my own played cards never over my name plate; on an
  empty seat 坐下 is the main control, the bot level a small one.

One site process (``manage.py runsite``, SQLite file of its own) serves the
module; each test signs up its own people. Playwright's sync API is driven
directly (NOTES.md).
"""

from __future__ import annotations

import pytest

from tests.browser import Player, chromium_path
from tests.servers import Site

pytestmark = pytest.mark.skipif(
    chromium_path() is None,
    reason="browser tests need Debian's chromium at /usr/bin/chromium",
)

DESKTOP = {"viewport": {"width": 1366, "height": 800}}
PORTRAIT = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
LANDSCAPES = [{"viewport": {"width": w, "height": h}, "is_mobile": True, "has_touch": True}
              for w, h in ((740, 360), (844, 390))]
LONG_NAME = "qa_bob_the_builder"  # 18 characters: what QA saw cut to "qa_…"


_names = iter(range(10_000))


def _person(browser, base_url: str, device: dict, name: str | None = None) -> Player:
    me = Player.open(browser, name or f"p16u{next(_names)}", **device)
    me.sign_up(base_url)
    return me


def _table_id(me: Player) -> int:
    return int(me.page.url.split("?")[0].rstrip("/").rsplit("/", 1)[1])


def _practice_game(me: Player, name: str) -> int:
    """Open a table, sit at South, three expert bots, ready: the game runs."""
    me.create_table(name)
    me.sit(2)
    me.add_bots("expert")
    me.ready()
    me.page.locator("#table-app[data-status=playing]").wait_for()
    return _table_id(me)


def _server(site: Site, code: str) -> str:
    out = site.manage("shell", "-c", code).strip().splitlines()
    return out[-1] if out else ""


# South's hand rebuilt so its rank groups, strongest first (jokers last), have
# these sizes: with 2 px between groups and 12 px before the jokers it needed
# a third row at 740 px, where two rows must hold it. The
# other seats keep their counts; the cards are the game's own, redistributed.
CROWDED = {41: [5, 2, 2, 1, 3, 2, 3, 6, 2, 3, 7, 1, 1, 2, 1],
           40: [3, 3, 3, 2, 1, 1, 4, 7, 1, 1, 3, 2, 5, 2, 2]}


def _crowd_south(site: Site, table_id: int) -> str:
    return _server(site, f"""
from collections import Counter
from games.engine.cards import RANKS, rank_strength, sort_hand
from games.models import Table
g = Table.objects.get(pk={table_id}).current_game
st = g.state
hands, dao = st["hands"], st["dao"]
sizes = {CROWDED!r}[len(hands[2])]
pool = Counter(c for h in hands for c in h)
order = sorted(RANKS, key=lambda r: -rank_strength(r, dao)) + ["RJ", "BJ"]
south = []
for key, k in zip(order, sizes):
    have = sorted(c for c in pool.elements() if (c if key in ("RJ", "BJ") else c[0]) == key)
    assert len(have) >= k, (key, k, have)
    south += have[:k]
pool -= Counter(south)
rest = list(pool.elements())
for seat in (0, 1, 3):
    n = len(hands[seat])
    hands[seat], rest = sort_hand(rest[:n], dao), rest[n:]
hands[2] = sort_hand(south, dao)
g.save(update_fields=["state"])
print(len(hands[2]))
""")


# The rectangles (viewport coordinates, CSS px) of what the tests compare.
RECTS_JS = """(sels) => Object.fromEntries(sels.map(s => {
  const e = document.querySelector(s);
  if (!e) return [s, null];
  const r = e.getBoundingClientRect();
  return [s, {x: r.left, y: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height}];
}))"""

# Every card of the hand keeps a 28 × 28 area that hit-tests to it (as in
# tests/test_browser_page.py), seen without scrolling.
UNCOVERED_JS = """() => {
  const cards = [...document.querySelectorAll('#hand .pcard')];
  const bad = [];
  for (const c of cards) {
    const r = c.getBoundingClientRect();
    let ok = false;
    for (let dx = 0; !ok && dx + 28 <= r.width + 0.01; dx += 2) {
      for (let dy = 0; !ok && dy + 28 <= r.height + 0.01; dy += 2) {
        ok = [0, 7, 14, 21, 27.5].every(x => [0, 7, 14, 21, 27.5].every(y => {
          const e = document.elementFromPoint(r.left + dx + x, r.top + dy + y);
          return e && e.closest('.pcard') === c;
        }));
      }
    }
    if (!ok) bad.push(c.dataset.card);
  }
  return {n: cards.length, bad};
}"""

# Is this element's text cut off (its content overflows its box)?
CLIPPED_JS = "n => n.scrollHeight > n.clientHeight + 1 || n.scrollWidth > n.clientWidth + 1"

# After the next frame (a scroll's listeners have run and layout is current).
NEXT_FRAME_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


# the page's regions in the flow, top to bottom: what pushed the hand down when
# the landscape check fails (it did once in five runs under a loaded machine)
LAYOUT_JS = """() => [...document.querySelectorAll('#table-app > *')]
  .filter(e => e.getClientRects().length)
  .map(e => { const r = e.getBoundingClientRect();
              return `${e.id || e.className} y=${Math.round(r.y)} h=${Math.round(r.height)}`; })"""


def _inside(r: dict, width: int, height: int) -> bool:
    return (r["x"] >= -0.5 and r["y"] >= -0.5
            and r["right"] <= width + 0.5 and r["bottom"] <= height + 0.5)


def _overlap(a: dict, b: dict) -> bool:
    return (a["x"] < b["right"] - 0.5 and b["x"] < a["right"] - 0.5
            and a["y"] < b["bottom"] - 0.5 and b["y"] < a["bottom"] - 0.5)


@pytest.mark.parametrize("device", LANDSCAPES, ids=["740x360", "844x390"])
def test_landscape_fits_one_screen(site, browser, device):
    """A phone held sideways, my turn with a full hand: the four seats, the
    trick, the dao and the scores, the play buttons and every card (each a
    28 px tap area) are on screen at once with the page unscrolled; nothing
    of it overlaps; chat and items open from buttons of the bar; the 算牌器
    in use keeps the hand on screen."""
    width, height = device["viewport"]["width"], device["viewport"]["height"]
    me = _person(browser, site.base_url, device)
    page = me.page
    # an item to use at the table: with none, no 道具 button (no empty drawer)
    page.goto(site.base_url + "/shop/")
    page.locator('.catalogue-item[data-item="card_counter"] button[type=submit]').click()
    page.wait_for_load_state()
    page.goto(site.base_url + "/")
    table_id = _practice_game(me, "横屏一屏")
    assert me.wait_turn_or_over() == "turn"
    assert _crowd_south(site, table_id) in ("40", "41")
    page.reload()
    assert me.wait_turn_or_over() == "turn"
    page.evaluate("window.scrollTo(0, 0)")
    sels = ['.seat[data-pos="top"]', '.seat[data-pos="left"]', '.seat[data-pos="right"]',
            '.seat[data-pos="bottom"]', "#trick", "#felt", ".dao-box", "#scores", "#hint-btn",
            "#pass-btn", "#play-btn", "#auto-btn", "#hand", ".table-bar"]
    rects = page.evaluate(RECTS_JS, sels)
    for sel in sels:
        assert rects[sel]["w"] > 0, (sel, rects[sel])
        assert rects[sel]["h"] > 0, (sel, rects[sel])
        assert _inside(rects[sel], width, height), \
            (sel, rects[sel], device, page.evaluate(LAYOUT_JS), me.toasts())
    assert page.evaluate("window.scrollY") == 0
    for a, b in (("#felt", "#hand"), ("#felt", "#play-btn"), ("#hand", "#play-btn"),
                 ("#felt", "#scores"), ("#hand", "#hint-btn")):
        assert not _overlap(rects[a], rects[b]), (a, rects[a], b, rects[b])
    measured = page.evaluate(UNCOVERED_JS)
    assert measured["n"] in (40, 41), measured
    assert measured["bad"] == [], measured
    # chat and items: closed, each opened by its button (one at a time)
    assert page.locator(".chat").is_hidden()
    assert page.locator("#items-panel").is_hidden()
    page.locator("#chat-toggle").click()
    assert page.locator(".chat").is_visible()
    page.locator("#items-toggle").click()
    assert page.locator("#items-panel").is_visible()
    assert page.locator(".chat").is_hidden()
    page.locator("#items-toggle").click()
    assert page.locator("#items-panel").is_hidden()
    # the 算牌器 in use: right above the hand, which stays on screen
    page.locator("#items-toggle").click()
    page.locator("#use-counter").click()
    page.locator("#card-counter:not([hidden]) .cc-group").first.wait_for()
    page.locator("#chat-toggle").click()  # closes the items (spent, they may be gone)
    page.locator("#chat-toggle").click()
    assert page.locator(".chat").is_hidden()
    assert page.locator("#items-panel").is_hidden()
    rects = page.evaluate(RECTS_JS, ["#card-counter", "#hand", "#felt", "#play-btn"])
    for sel, r in rects.items():
        assert r["h"] > 0, (sel, r, device)
        assert _inside(r, width, height), (sel, r, device)
    assert rects["#felt"]["bottom"] <= rects["#card-counter"]["y"] + 0.5, rects
    assert rects["#card-counter"]["bottom"] <= rects["#hand"]["y"] + 0.5, rects
    assert page.evaluate(UNCOVERED_JS)["bad"] == []
    assert page.locator(".lobby-back").is_visible()  # the site header gives way to it
    # my turn runs out: the notice toast keeps clear of the buttons and the hand
    _server(site, "from django.utils import timezone; from games.models import Table; "
                  f"g = Table.objects.get(pk={table_id}).current_game; "
                  "g.due_at = timezone.now(); g.save(update_fields=['due_at'])")
    page.locator(".toast.notice-toast[data-code=turn_timeout]").wait_for(timeout=5_000)
    rects = _toast_clear(page)
    t = rects[".toast.notice-toast"]
    assert t["h"] > 0, t
    assert _inside(t, width, height), t
    for sel in ("#play-controls .buttons", "#hand"):
        assert not _overlap(t, rects[sel]), (sel, rects)
    me.assert_clean()


MY_PLATE = '.seat[data-pos="bottom"]'


def _toast_clear(page) -> dict:
    """The notice toast's rectangle beside the action row's and the hand's."""
    page.evaluate(NEXT_FRAME_JS)
    return page.evaluate(RECTS_JS, [".toast.notice-toast", "#play-controls .buttons", "#hand",
                                    MY_PLATE])


def test_portrait_toasts_buttons_and_names(site, browser):
    """360 × 740, my turn with a person of a long name at East and bots at
    North and West: a long table name keeps 离开 beside it; the action row is
    one line inside the screen; the felt,
    the buttons and the hand fit the screen together; a notice toast (my
    turn timed out) never covers the buttons, the hand or my plate wherever the page is
    scrolled; every seat shows its whole name or shows it on a tap, and a
    bot's level is shown."""
    me = _person(browser, site.base_url, PORTRAIT)
    bob = _person(browser, site.base_url, DESKTOP, LONG_NAME)
    me.create_table("竖屏桌：嘉兴南湖边上老茶馆的原子牌局，欢迎大家来玩")
    table_id = _table_id(me)
    bob.page.goto(me.page.url)
    bob.wait_connected()
    bob.sit(1)
    me.sit(2)
    me.add_bots("expert")
    bob.ready()
    me.ready()
    me.page.locator("#table-app[data-status=playing]").wait_for()
    bob.page.locator("#auto-btn").click()  # the server plays for bob
    page = me.page
    assert me.wait_turn_or_over() == "turn"

    # a long table name ends in …: 离开 and the bar's buttons stay on its line
    bar = page.evaluate(RECTS_JS, ["#table-name", "#escape-btn", "#sound-btn"])
    assert bar["#escape-btn"]["w"] > 0, bar
    assert abs(bar["#table-name"]["y"] - bar["#escape-btn"]["y"]) < 6, bar
    assert bar["#escape-btn"]["right"] <= 360, bar
    assert page.locator("#table-name").get_attribute("title").endswith("欢迎大家来玩")

    # one row of buttons, all on screen
    buttons = page.evaluate("""() => [
      ...document.querySelectorAll('#play-controls .buttons button')]
      .filter(b => b.offsetParent !== null).map(b => { const r = b.getBoundingClientRect();
        return {id: b.id, y: r.top, x: r.left, right: r.right, h: r.height}; })""")
    assert len(buttons) >= 5, buttons
    assert max(b["y"] for b in buttons) - min(b["y"] for b in buttons) < 1, buttons
    assert all(b["x"] >= 0 and b["right"] <= 360 for b in buttons), buttons

    # the felt, the buttons and the hand on one screen
    page.evaluate("document.getElementById('felt').scrollIntoView({block: 'start'})")
    rects = page.evaluate(RECTS_JS, ["#felt", "#play-controls .buttons", "#hand"])
    for sel, r in rects.items():
        assert _inside(r, 360, 740), (sel, r)
    # whatever the deal: a hand wrapping into six rows (about one deal in
    # twenty at this width) would still end inside the screen
    tops = sorted({round(t) for t in page.evaluate(
        "() => [...document.querySelectorAll('#hand .rank-group')]"
        ".map(g => g.getBoundingClientRect().top)")})
    assert len(tops) >= 2, tops
    pitch = tops[1] - tops[0]
    assert rects["#hand"]["bottom"] + (6 - len(tops)) * pitch <= 740.5, (tops, rects["#hand"])

    # names: whole, or whole after a tap; bots show their level
    for seat in range(4):
        box = page.locator(f'.seat[data-seat="{seat}"]')
        name = box.locator(".seat-name")
        full = name.get_attribute("title")
        if name.evaluate(CLIPPED_JS):
            box.locator(".seat-head").click()
            assert not name.evaluate(CLIPPED_JS)
        assert name.inner_text().replace("\n", "") in full, (name.inner_text(), full)
        if seat == 1:
            assert full == LONG_NAME
            assert name.inner_text().replace("\n", "") == LONG_NAME
        elif seat != 2:
            level = box.locator(".badge.bot-level")
            assert level.is_visible()
            assert level.inner_text() == "高手"
            where = f'.seat[data-seat="{seat}"]'
            rects = page.evaluate(RECTS_JS, [where, where + " .badge.bot-level"])
            lr, sr = rects[where + " .badge.bot-level"], rects[where]
            assert lr["w"] > 0, (lr, sr)
            assert lr["right"] <= sr["right"] + 0.5, (lr, sr)

    # a tap on a name opens it whole, a second tap closes it
    east = page.locator('.seat[data-seat="1"]')
    east.locator(".seat-head").tap()
    assert "name-open" in east.get_attribute("class")
    assert east.locator(".seat-name").evaluate(
        "n => n.scrollHeight <= n.clientHeight + 1 && getComputedStyle(n).overflow === 'visible'")
    east.locator(".seat-head").tap()
    assert "name-open" not in east.get_attribute("class")

    # my turn times out: the notice toast stays 9 s; it keeps clear of the
    # buttons and the hand with the felt at the top and with the hand at the bottom
    _server(site, "from django.utils import timezone; from games.models import Table; "
                  f"g = Table.objects.get(pk={table_id}).current_game; "
                  "g.due_at = timezone.now(); g.save(update_fields=['due_at'])")
    toast = page.locator(".toast.notice-toast[data-code=turn_timeout]")
    toast.wait_for(timeout=5_000)
    for where in ("document.getElementById('felt').scrollIntoView({block: 'start'})",
                  "document.getElementById('hand').scrollIntoView({block: 'end'})",
                  "window.scrollTo(0, 0)"):
        page.evaluate(where)
        rects = _toast_clear(page)
        t = rects[".toast.notice-toast"]
        assert t["h"] > 0, (where, t)
        assert _inside(t, 360, 740), (where, t)
        for sel in ("#play-controls .buttons", "#hand", MY_PLATE):
            assert not _overlap(t, rects[sel]), (where, sel, rects)
    me.assert_clean()


# Each time my own play lands in the trick, the slot's arrival is put back to
# its first frame (the worst one: the cards furthest from the trick) and its
# cards' rectangle compared with my name plate's.
WATCH_MY_PLAYS_JS = """() => {
  window.__myPlays = [];
  const slot = document.querySelector('.trick-slot[data-pos="bottom"]');
  new MutationObserver(() => {
    const cards = slot.querySelector('.cards');
    if (!cards) return;
    slot.getAnimations({subtree: true}).forEach(a => { a.pause(); a.currentTime = 0; });
    // what shows of the cards: the trick clips what lies outside it
    const r = cards.getBoundingClientRect();
    const t = document.getElementById('trick').getBoundingClientRect();
    const c = {left: Math.max(r.left, t.left), top: Math.max(r.top, t.top),
               right: Math.min(r.right, t.right), bottom: Math.min(r.bottom, t.bottom)};
    const p = document.querySelector('.seat[data-pos="bottom"]').getBoundingClientRect();
    const drawn = document.elementFromPoint(p.left + p.width / 2, p.top + 4);
    window.__myPlays.push({cards: [c.left, c.top, c.right, c.bottom],
                           plate: [p.left, p.top, p.right, p.bottom],
                           plateOnTop: !!(drawn && drawn.closest('.seat[data-pos="bottom"]'))});
    slot.getAnimations({subtree: true}).forEach(a => a.finish());
  }).observe(slot, {childList: true});
}"""


def test_desktop_my_plays_clear_my_plate_and_sit_comes_first(site, browser):
    """1366 × 800. A waiting table's empty seat: 坐下 is the largest control,
    the bot level (each level once) and 加机器人 smaller. In the game, each of my plays —
    caught at the first frame of its arrival — stays off my name plate, and so
    does a toast."""
    me = _person(browser, site.base_url, DESKTOP)
    page = me.page
    me.create_table("桌面桌")  # its creator sits at North: East is empty
    page.locator('.seat[data-seat="1"] select.bot-level').wait_for()
    # one evaluation: the seats are redrawn whenever the table changes
    rects = page.evaluate(RECTS_JS, [f'.seat[data-seat="1"] {s}'
                                     for s in ("button.sit", "select.bot-level", "button.add-bot")])
    sit, level, add = rects.values()
    # each level offered once, weakest first (an old record's code is not offered)
    offered = page.locator('.seat[data-seat="1"] select.bot-level option')
    assert offered.evaluate_all("os => os.map(o => o.value)") == [
        "beginner", "normal", "expert", "master"]
    assert len(set(offered.all_inner_texts())) == 4
    assert sit["w"] * sit["h"] > 2 * level["w"] * level["h"], (sit, level)
    assert sit["h"] >= level["h"], (sit, level)
    assert sit["w"] > level["w"], (sit, level)
    assert sit["w"] * sit["h"] > add["w"] * add["h"], (sit, add)
    me.sit(2)
    me.add_bots("expert")
    me.ready()
    page.locator("#table-app[data-status=playing]").wait_for()
    page.evaluate(WATCH_MY_PLAYS_JS)
    plays = turns = 0
    while plays < 3 and turns < 15 and me.wait_turn_or_over() == "turn":
        turns += 1
        if me.take_turn().startswith("play"):
            plays += 1
            page.wait_for_function("n => window.__myPlays.length >= n", arg=plays)
    seen = page.evaluate("window.__myPlays")
    assert len(seen) >= 1, seen
    for s in seen:
        cards, plate = s["cards"], s["plate"]
        assert cards[3] <= plate[1] + 0.5, s  # the cards end above the plate
        assert s["plateOnTop"], s
    # the hand spreads over its row (18 to 30 px of each card), no card outside it
    spread = page.evaluate("""() => { const h = document.getElementById('hand');
      const r = h.getBoundingClientRect();
      const cards = [...h.querySelectorAll('.pcard')].map(c => c.getBoundingClientRect());
      return {step: parseFloat(h.style.getPropertyValue('--step')),
              inside: cards.every(c => c.left >= r.left && c.right <= r.right)}; }""")
    assert 18 <= spread["step"] <= 30, spread
    assert spread["inside"], spread
    # a toast (the page's own, as a refusal shows one) keeps off my plate too
    page.evaluate("async () => { const n = await import('/static/js/notices.js');"
                  " n.toast('测试提示：这条提示很长，长到要占两行也不要紧。', 'error', 8000); }")
    page.locator(".toast.error").wait_for()
    rects = page.evaluate(RECTS_JS, [".toast.error", MY_PLATE, "#hand", "#play-controls"])
    for sel in (MY_PLATE, "#hand", "#play-controls"):
        assert not _overlap(rects[".toast.error"], rects[sel]), (sel, rects)
    me.assert_clean()


# The rectangles of every shown toast and every seat's 坐下 (viewport CSS px).
SIT_AND_TOASTS_JS = """() => {
  const rect = (e) => { const r = e.getBoundingClientRect();
    return {x: r.left, y: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height}; };
  const shown = (sel) => [...document.querySelectorAll(sel)].filter((e) => e.checkVisibility());
  return {toasts: shown('#toasts .toast').map(rect),
          sits: shown('.seat-actions button.sit').map(rect)};
}"""


def test_portrait_toasts_leave_the_empty_seats_sit_buttons_free(site, browser):
    """360 × 740, a waiting table with its four seats empty: three toasts
    (the most the stack shows) never cover a seat's 坐下 (a tester found a
    game-end toast over one), wherever the page is scrolled."""
    me = _person(browser, site.base_url, PORTRAIT)
    page = me.page
    me.create_table("坐下不被挡")
    page.locator(".seat-actions button.sit").first.wait_for()
    # the page's own toast(), from the module the table page loaded
    page.evaluate("""async () => {
      const src = [...document.scripts].find((s) => /\\/table[.][^/]*js$/.test(s.src)).src;
      const {toast} = await import(new URL('notices.js', src).href);
      for (const n of [1, 2, 3]) toast('第 ' + n + ' 条：这一局的结果与积分变化，' +
        '一句不短的话，占两三行的位置。', 'info', 60000);
    }""")
    for where in ("window.scrollTo(0, 0)",
                  "document.getElementById('felt').scrollIntoView({block: 'start'})"):
        page.evaluate(where)
        page.evaluate(NEXT_FRAME_JS)
        rects = page.evaluate(SIT_AND_TOASTS_JS)
        assert len(rects["toasts"]) == 3, (where, rects)
        assert len(rects["sits"]) >= 3, (where, rects)
        for t in rects["toasts"]:
            for s in rects["sits"]:
                assert not _overlap(t, s), (where, t, s)
    me.assert_clean()


def test_portrait_result_totals_fit_with_a_twenty_letter_name(site, browser):
    """The result's totals on a 360 px phone: a 20-letter name (the longest
    allowed) wraps and the figures stay in view (a tester found the 合计 column
    pushed out of the box and "上半局" stacked a letter a line)."""
    me = _person(browser, site.base_url, PORTRAIT)
    page = me.page
    me.create_table("长名字的结果")
    page.locator(".seat-actions button.sit").first.wait_for()
    # the result box as static/js/result.js draws it (no game needed to lay it out)
    fit = page.evaluate("""() => {
      const panel = document.getElementById('result-panel');
      const box = panel.querySelector('.result-box');
      const table = document.createElement('table');
      table.className = 'result-totals';
      table.innerHTML = '<tr><th></th><th>上半局</th><th>下半局</th><th>合计</th></tr>' +
        '<tr><th>WWWWWWWWWWWWWWWWWWWW · 机器人（南）</th><td>45</td><td>230</td><td>275</td></tr>' +
        '<tr><th>机器人（东） · 机器人（西）</th><td>255</td><td>70</td><td>325</td></tr>';
      document.getElementById('result-body').replaceChildren(table);
      panel.hidden = false;
      const heads = [...table.rows[0].cells].slice(1);
      return {table: table.scrollWidth, box: box.clientWidth,
              headLines: heads.map((h) => Math.round(h.getBoundingClientRect().height))};
    }""")
    assert fit["table"] <= fit["box"], fit
    assert max(fit["headLines"]) < 2 * min(fit["headLines"]) + 1, fit  # one line each
    me.assert_clean()


def test_an_item_bought_in_another_tab_is_offered_at_the_table(site, browser):
    """A tester bought a 算牌器 in the shop in a second tab while their game
    ran; the table's 道具 stayed empty until a reload. The table page asks for
    the inventory again when it is looked at again (and at each new game)."""
    me = _person(browser, site.base_url, DESKTOP)
    page = me.page
    _practice_game(me, "另一个标签页买的")
    assert page.locator("[data-for=card_counter]").is_hidden()  # none held yet
    shop = page.context.new_page()
    shop.goto(site.base_url + "/shop/")
    shop.locator('.catalogue-item[data-item="card_counter"] button[type=submit]').click()
    shop.wait_for_load_state()
    shop.close()
    page.bring_to_front()
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    page.locator("[data-for=card_counter]:not([hidden]) #use-counter").wait_for(timeout=10_000)
    me.assert_clean()


def test_a_tablecloth_bought_in_a_page_never_hidden_brings_the_items_panel(site, browser):
    """A tester owning a table with nothing to use there (no 道具 box) bought a
    桌布 in a second tab; back at the table, still no 道具 box until a reload.
    A page never hidden (headless, another window) gets no visibilitychange:
    the purchase's ``me`` frame makes the page ask for the inventory again."""
    me = _person(browser, site.base_url, DESKTOP)
    page = me.page
    _practice_game(me, "桌布在另一页买的")
    page.wait_for_timeout(600)  # the panel's first render (every 0.4 s)
    assert page.locator("#items-panel").is_hidden()  # nothing held: no empty box
    shop = page.context.new_page()
    shop.goto(site.base_url + "/shop/")
    shop.locator('.catalogue-item[data-item="tablecloth"] button[type=submit]').click()
    shop.wait_for_load_state()
    shop.close()
    page.bring_to_front()  # headless: no visibilitychange
    page.locator("#items-panel [data-for=tablecloth]:not([hidden]) #use-cloth").wait_for(
        timeout=10_000)
    assert page.locator("#items-panel").is_visible()
    assert page.locator("#use-cloth").is_enabled()
    me.assert_clean()


def test_a_toast_keeps_clear_of_an_open_dialog(site, browser):
    """360 × 740: the escape dialog open (要逃跑吗？) when my turn times out: the
    notice toast is placed clear of the dialog's box (a tester found the
    toast over the dialog's title)."""
    me = _person(browser, site.base_url, PORTRAIT)
    page = me.page
    table_id = _practice_game(me, "弹窗与提示")
    assert me.wait_turn_or_over() == "turn"
    page.locator("#escape-btn").click()
    page.locator("#escape-dialog:not([hidden]) .overlay-box").wait_for()
    _server(site, "from django.utils import timezone; from games.models import Table; "
                  f"g = Table.objects.get(pk={table_id}).current_game; "
                  "g.due_at = timezone.now(); g.save(update_fields=['due_at'])")
    page.locator(".toast.notice-toast[data-code=turn_timeout]").wait_for(timeout=5_000)
    assert page.locator("#escape-dialog .overlay-box").is_visible()
    page.evaluate(NEXT_FRAME_JS)
    rects = page.evaluate(RECTS_JS, [".toast.notice-toast", "#escape-dialog .overlay-box"])
    toast, box = rects[".toast.notice-toast"], rects["#escape-dialog .overlay-box"]
    assert toast["h"] > 0, toast
    assert _inside(toast, 360, 740), toast
    assert not _overlap(toast, box), (toast, box)
