"""Smaller things testers saw as players and moderators, in a real browser
(Debian chromium through Playwright) at 1366×800 and on a 360×740 touch phone: the
result panel's one drops line and its sentences, the card counter beside the
hand, the inventory's tooltips and the shop's unaffordable items, the site's
own icons instead of colour emoji, and the wording of the table page.

One site process (``manage.py runsite``, SQLite file of its own) serves the
whole module; each test signs up its own people. Playwright's sync API is
driven directly (NOTES.md).
"""

from __future__ import annotations

import json

import pytest

from tests.browser import DESKTOP as DEVICES_DESKTOP
from tests.browser import DEVICES, NEEDS_CHROMIUM, Player
from tests.servers import Site

pytestmark = NEEDS_CHROMIUM


_names = iter(range(10_000))


def _person(browser, base_url: str, device: dict, **options) -> Player:
    me = Player.open(browser, f"p16u{next(_names)}", **device, **options)
    me.sign_up(base_url)
    return me


def _server(site: Site, code: str) -> str:
    """Run `code` in the site's own process; returns the last line it printed."""
    out = site.manage("shell", "-c", code).strip().splitlines()
    return out[-1] if out else ""


def _practice_game(me: Player, name: str) -> int:
    """Open a table, sit at South, three bots, ready: the game runs. Returns the table id."""
    me.create_table(name)
    table_id = int(me.page.url.rstrip("/").rsplit("/", 1)[1])
    me.sit(2)
    me.add_bots()
    me.ready()
    me.page.locator("#table-app[data-status=playing]").wait_for()
    return table_id


def _finish(site: Site, me: Player, table_id: int, kind: str, *, practice: bool = False,
            drop: str | None = None) -> None:
    """Replace the table's game by a finished one of ``kind`` (tests/page_states.py),
    a practice game or not, with a drop for ``me``; the page shows its result afresh."""
    code = (f"from tests.page_states import install; install({table_id}, {kind!r}); "
            "from games.models import Table; from games import events; "
            f"g = Table.objects.get(pk={table_id}).current_game; "
            f"g.state['practice'] = {practice}; g.save(update_fields=['state']); ")
    if drop:
        code += ("from shop.models import Drop; from django.contrib.auth.models import User; "
                 f"Drop.objects.create(game=g, user=User.objects.get(username={me.name!r}), "
                 f"item_code={drop!r}, cause='first_out'); ")
    code += f"events.publish(events.TableChanged({table_id}))"
    _server(site, code)
    me.page.evaluate("() => localStorage.clear()")
    me.page.reload()
    me.page.locator("#result-panel").wait_for(state="visible")


@DEVICES
def test_the_result_panel_has_one_translated_drops_line_and_brief_sentences(
        site, browser, device):
    """A drop is told once, as a sentence with the item's name (never its code);
    the sentences say 上游, keep spaces around names and name a bot by its seat;
    a practice game says it is practice once; a game a moderator closed is
    void, not lost."""
    me = _person(browser, site.base_url, device)
    table_id = _practice_game(me, "掉落桌")
    _finish(site, me, table_id, "two_halves", drop="gem_shard")
    panel = me.page.locator("#result-panel")
    me.page.locator("#shop-drops:not([hidden])").wait_for()
    text = panel.inner_text()
    assert "gem_shard" not in text, text
    assert text.count("获得") == 1, text
    assert text.count("钻石碎片") == 1, text
    assert f"掉落：{me.name} 获得 钻石碎片" in text, text
    why = panel.locator(".result-why").inner_text()
    assert "上游" in why, why
    assert "头游" not in why, why
    assert f"上半局 {me.name} 是上游" in why, why  # spaces around a name
    # the teams as 我方 / 对方, not both players' names each time (a wall with long names)
    assert " · " not in why, why
    assert "所以我方需 300 分，对方需 305 分：我方获胜。" in why, why
    assert "练习" not in text

    _finish(site, me, table_id, "two_halves", practice=True)
    text = panel.inner_text()
    assert text.count("练习") == 1, text

    # a moderator's close: nobody won, as the result page and the history say
    _finish(site, me, table_id, "moderator_close")
    assert panel.locator(".result-headline").inner_text() == "对局作废"
    assert "管理员关闭了牌桌" in panel.inner_text()
    me.assert_clean()


TITLES_JS = """() => [...document.querySelectorAll('#inventory .slot')].map(b =>
  [b.dataset.slot, b.dataset.item, b.getAttribute('title') || '',
   (b.querySelector('img') || {}).alt || ''])"""


@DEVICES
def test_inventory_tooltips_follow_a_swap_and_dear_items_cannot_be_bought(
        site, browser, device):
    """After a swap every slot's tooltip and picture name are its own item's
    (none on an empty slot); 金字招牌 (8,000) at 2,000 coins has its 购买
    disabled, saying how many coins are missing."""
    me = _person(browser, site.base_url, device)
    page = me.page
    page.goto(site.base_url + "/shop/")
    gold = page.locator('.catalogue-item[data-item="gold_sign"]')
    assert gold.locator("button[type=submit]").is_disabled()
    assert "金币不足：还差 6000 金币" in gold.inner_text()
    assert gold.locator(".buy-short").is_visible()
    assert gold.locator("button[type=submit]").bounding_box()["height"] < 50  # one line
    timer = page.locator('.catalogue-item[data-item="timer"]')
    assert timer.locator("button[type=submit]").is_enabled()
    assert timer.locator(".buy-short").count() == 0
    timer.locator("button[type=submit]").click()
    page.wait_for_load_state()
    page.locator('#inventory .slot[data-item="timer"]').wait_for()
    names = {"timer": "定时器", "": ""}
    before = page.evaluate(TITLES_JS)
    assert [s for s in before if s[1]] == [["0", "timer", "定时器", "定时器"]], before
    page.locator('#inventory .slot[data-slot="0"]').click()
    page.locator('#inventory .slot[data-slot="5"]').click()
    page.locator('#inventory .slot[data-slot="5"][data-item="timer"]').wait_for()
    after = page.evaluate(TITLES_JS)
    for slot, item, title, alt in after:
        assert title == names[item], (slot, item, title, alt)
        assert alt == names[item], (slot, item, title, alt)
    assert [s[0] for s in after if s[1]] == ["5"]
    me.assert_clean()


COUNTER_JS = """() => {
  const box = document.getElementById('card-counter');
  const hand = document.getElementById('hand');
  hand.scrollIntoView({block: 'end'});
  const c = box.getBoundingClientRect(), h = hand.getBoundingClientRect();
  const groups = [...box.querySelectorAll('.cc-group')].map(g =>
    [g.className, (g.querySelector('.cc-label') || {}).textContent || '',
     [...g.querySelectorAll('[data-card]')].map(s => [s.dataset.card, s.textContent])]);
  return {counter: [c.top, c.bottom], hand: [h.top, h.bottom], height: innerHeight,
          title: box.querySelector('h3').textContent, groups};
}"""


@DEVICES
def test_the_card_counter_sits_beside_the_hand_in_this_deals_order(site, browser, device):
    """The 算牌器's counts show right above the hand, on screen together with
    it: the dao's group first and highlighted, then 2, A … 3, the jokers by
    name last; the heading says 半局; the counts are the view's."""
    me = _person(browser, site.base_url, device)
    page = me.page
    page.goto(site.base_url + "/shop/")
    for _ in range(2):  # one to spare: none is offered while this half's is on
        page.locator('.catalogue-item[data-item="card_counter"] button[type=submit]').click()
        page.wait_for_load_state()
    page.goto(site.base_url + "/")
    _practice_game(me, "算牌桌")
    assert me.wait_turn_or_over() == "turn"  # the bots wait for me: nothing moves now
    use = page.locator("#use-counter")
    use.scroll_into_view_if_needed()
    use.click()
    page.locator("#card-counter:not([hidden]) .cc-group").first.wait_for()
    seen = page.evaluate(COUNTER_JS)
    view = page.evaluate("() => window.YuanziTable.state().view")
    dao = view["dao"]
    # beside the hand: right above it, and both on screen at once
    assert 0 <= seen["hand"][0] - seen["counter"][1] <= 16, seen
    assert seen["counter"][0] >= 0, seen
    assert seen["hand"][0] < seen["height"], seen
    assert "半局" in seen["title"]
    assert "半场" not in seen["title"]
    groups = seen["groups"]
    rank = "10" if dao == "T" else dao
    assert "dao" in groups[0][0], groups[0]
    assert groups[0][1] == f"刀 {rank}", groups[0]
    plain = [g[2][0][0][0] for g in groups[:-1]]
    assert plain == [dao] + [r for r in "2AKQJT9876543" if r != dao]
    assert "jokers" in groups[-1][0]
    assert [t.split("×")[0] for _, t in groups[-1][2]] == ["大王", "小王"]
    counts = {card: int(text.split("×")[1]) for g in groups for card, text in g[2]}
    assert len(counts) == 54
    assert counts == view["card_counter"]
    # a tester saw "on for this half" beside "使用算牌器 × 1", and still on the result
    # (the use's answer may come after the view that drew the counter: waited for)
    page.wait_for_function(
        "() => document.getElementById('items-message').textContent === '算牌器本半局已开启。'")
    assert page.locator("[data-for=card_counter]").is_hidden()
    page.locator("#escape-btn").click()
    page.locator("#escape-confirm").click()
    page.locator("#table-app[data-status=over]").wait_for()
    page.wait_for_function("() => !document.getElementById('items-message').textContent")
    me.assert_clean()


# Visible text with an emoji in it (outside .visually-hidden), and every emoji
# icon with whether it loaded and its size.
EMOJI_JS = """() => {
  const re = /\\p{Extended_Pictographic}/u;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const shown = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (re.test(n.data) && !p.closest('.visually-hidden, script, template, style')
        && p.getClientRects().length) shown.push(n.data);
  }
  const icons = [...document.querySelectorAll('img.emoji-img')]
    .filter(i => i.getClientRects().length)
    .map(i => [i.complete && i.naturalWidth > 0, Math.round(i.getBoundingClientRect().width),
               i.nextElementSibling.textContent]);
  return {shown, icons};
}"""


@DEVICES
def test_emoji_are_the_sites_own_icons(site, browser, device):
    """The quick reactions and the chat line one of them makes are SVG icons
    served by the site, never emoji text a font must draw (this machine has
    no colour-emoji font: those were empty boxes)."""
    me = _person(browser, site.base_url, device)
    page = me.page
    me.create_table("表情桌")
    toggle = page.locator("#chat-toggle")
    if toggle.is_visible():
        toggle.click()
    reactions = page.locator("#phrases button.reaction")
    assert reactions.count() == 5
    reactions.first.scroll_into_view_if_needed()
    reactions.first.click()  # 👍
    page.locator("#chat-log .chat-text .emoji-img").wait_for()
    page.wait_for_function("() => [...document.querySelectorAll('img.emoji-img')]"
                           ".every(i => i.complete)")
    seen = page.evaluate(EMOJI_JS)
    assert seen["shown"] == [], seen["shown"]
    assert len(seen["icons"]) == 6, seen["icons"]
    for loaded, width, emoji in seen["icons"]:
        assert loaded, (emoji, loaded, width)
        assert width >= 12, (emoji, loaded, width)
    assert sorted(e for _, _, e in seen["icons"]) == sorted(["👍", "😄", "😮", "😭", "🎉", "👍"])
    me.assert_clean()


@DEVICES
def test_wording_welcome_watchers_items_box_and_english_phrases(site, browser, device):
    """After sign-up the lobby says what the account starts with; the owner
    standing at their own waiting table is no spectator and 0 watching is
    not shown (table and lobby); a player with no items gets no empty 道具
    box; an English visitor reads the quick phrases in English (and a
    phrase's chat line in each reader's language) and counts in plurals."""
    owner = _person(browser, site.base_url, device)
    welcome = owner.page.locator(".messages").inner_text()
    assert "2,000 金币" in welcome, welcome
    assert "商店" in welcome, welcome
    owner.create_table("说话桌")
    table_url = owner.page.url
    page = owner.page
    assert page.locator("#spectators").is_hidden()
    page.wait_for_timeout(500)  # the items panel redraws every 0.4 s
    assert page.locator("#items-panel").is_hidden()
    lobby = Player.open(browser, "lobby-visitor", **device)  # not logged in
    lobby.page.goto(site.base_url + "/")
    table_id = table_url.rstrip("/").rsplit("/", 1)[1]
    row = lobby.page.locator(f".lobby-table[data-table-id='{table_id}']")
    row.wait_for()
    assert row.locator(".lt-spectators").count() == 0

    english = _person(browser, site.base_url, device, locale="en-US")
    english.page.goto(table_url)
    english.wait_connected()
    spectators = page.locator("#spectators")
    spectators.wait_for(state="visible")
    assert spectators.inner_text() == "1 人观战"
    ep = english.page
    labels = ep.locator("#phrases button.phrase:not(.reaction)").all_inner_texts()
    assert labels == ["Hurry up!", "Well played, partner!", "Good cards!", "Sorry!",
                      "One more game!", "Thanks!"], labels
    counts = ep.evaluate("""async () => { const m = await import('/static/js/i18n.js');
      return [1, 2, 40].map(n => m.fmt(m.T.cards_left, {n}))
        .concat([m.fmt(m.T.hand_count, {n: 1})]); }""")
    assert counts == ["1 card", "2 cards", "40 cards", "1 card in hand"], counts
    toggle = ep.locator("#chat-toggle")
    if toggle.is_visible():
        toggle.click()
    ep.locator("#phrases button.phrase", has_text="Hurry up!").click()
    ep.locator("#chat-log .chat-text", has_text="Hurry up!").wait_for()
    page.locator("#chat-log .chat-text", has_text="快点吧").wait_for(state="attached")
    for p in (owner, english, lobby):
        p.assert_clean()


# Per seat of the first lobby row with a person: the name's shown and whole
# widths, whether a title shows, and the ready mark's text and name.
LOBBY_SEAT_JS = """(id) => {
  const row = document.querySelector(`.lobby-table[data-table-id="${id}"]`);
  const seat = row.querySelector('.lt-seat:has(.lt-player)');
  const name = seat.querySelector('.lt-player');
  const title = seat.querySelector('.lt-title');
  const ready = seat.querySelector('.badge.ready');
  return {shown: name.clientWidth, whole: name.scrollWidth,
          title: !!title && title.getBoundingClientRect().width > 0,
          ready: ready && ready.textContent, readyName: ready && ready.title};
}"""


@DEVICES
def test_a_ready_players_name_keeps_its_room_in_a_lobby_row(site, browser, device):
    """A lobby seat is narrow: the ready mark is a named ✓ and the title gives
    way, so an eight-letter name shows whole (a tester read "f…"), both as the
    page is served and as the socket redraws the row."""
    name = "fe_caro" + ("l" if device is DEVICES_DESKTOP else "m")  # one account per device
    sitter = Player.open(browser, name, **device)
    sitter.sign_up(site.base_url)
    sitter.create_table(name + "的桌")
    table_id = sitter.page.url.rstrip("/").rsplit("/", 1)[1]
    sitter.ready()
    watcher = _person(browser, site.base_url, device)
    page = watcher.page
    page.goto(site.base_url + "/")
    row = page.locator(f'.lobby-table[data-table-id="{table_id}"]')
    row.wait_for()
    served = page.evaluate(LOBBY_SEAT_JS, table_id)
    # a change at the table (one bot, so no game starts): the socket redraws the row
    sitter.page.locator(".seat button.add-bot").first.click()
    row.locator(".lt-player.bot").first.wait_for()
    for seat in (served, page.evaluate(LOBBY_SEAT_JS, table_id)):
        assert seat["shown"] >= seat["whole"], seat
        assert (seat["ready"], seat["readyName"]) == ("✓", "准备"), seat
    watcher.assert_clean()
    sitter.assert_clean()


@DEVICES
def test_a_table_name_pasted_too_long_shows_its_cut(site, browser, device):
    """开桌's name field stops at 40 characters; a longer paste is cut by the
    browser, and the field says so ("40/40", marked full; from 30 on it
    counts) instead of cutting silently (static/js/forms.js data-count; the
    arena form's name likewise)."""
    me = _person(browser, site.base_url, device)
    page = me.page
    page.goto(site.base_url + "/")
    field = page.locator("#table-name-input")
    count = page.locator("#table-name-input + .field-count")
    assert count.inner_text() == ""
    field.type("老街")
    assert count.inner_text() == ""  # said only near the end
    field.fill("南湖" * 15)
    assert count.inner_text() == "30/40"
    field.fill("")
    page.evaluate("""() => { const f = document.getElementById('table-name-input');
      f.focus(); document.execCommand('insertText', false, '南湖'.repeat(25)); }""")
    assert len(field.input_value()) == 40
    assert count.inner_text() == "40/40"
    assert "full" in count.get_attribute("class")
    rects = page.evaluate("""() => [...document.querySelectorAll(
      '#table-name-input, #table-name-input + .field-count')]
      .map(e => e.getBoundingClientRect().right)""")
    assert max(rects) <= page.viewport_size["width"], rects
    me.assert_clean()


# The game-info bar above the felt: its items (the dao box, the half and stake,
# the scores) and every piece of text in them, with its rectangle (viewport
# CSS px), whether its box cuts its text and whether a text node of it broke
# across lines.
INFO_BAR_JS = """() => {
  const box = e => { const r = e.getBoundingClientRect();
    return {x: r.left, y: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height}; };
  const broken = e => [...e.childNodes].concat(...[...e.children].map(c => [...c.childNodes]))
    .filter(n => n.nodeType === 3 && n.data.trim()).some(n => {
      const g = document.createRange(); g.selectNodeContents(n);
      return g.getClientRects().length > 1; });
  const bar = document.getElementById('game-info');
  const sels = '#indicator-card .pcard, .dao-text, #indicator-seat, #half-label, #stake, '
    + '.score-label, .score-points, .score-last';
  return {
    bar: box(bar), width: innerWidth, height: innerHeight,
    items: [...bar.children].map(e => ({name: e.className, r: box(e)})),
    leaves: [...bar.querySelectorAll(sels)].filter(e => e.getClientRects().length).map(e => ({
      name: e.id || e.className, text: e.textContent, r: box(e), broken: broken(e),
      clipped: !e.matches('.pcard') && (e.scrollWidth > e.clientWidth + 1
                                        || e.scrollHeight > e.clientHeight + 1)})),
  };
}"""


def _overlap(a: dict, b: dict) -> bool:
    return (a["x"] < b["right"] - 0.5 and b["x"] < a["right"] - 0.5
            and a["y"] < b["bottom"] - 0.5 and b["y"] < a["bottom"] - 0.5)


def _within(inner: dict, outer: dict) -> bool:
    return (inner["x"] >= outer["x"] - 0.5 and inner["right"] <= outer["right"] + 0.5
            and inner["y"] >= outer["y"] - 0.5 and inner["bottom"] <= outer["bottom"] + 0.5)


def _phone(width: int, height: int, locale: str) -> dict:
    return {"viewport": {"width": width, "height": height}, "is_mobile": True,
            "has_touch": True, "locale": locale}


INFO_PHONES = [_phone(390, 844, "en-US"), _phone(360, 740, "en-US"), _phone(360, 740, "zh-CN"),
               _phone(740, 360, "en-US"), _phone(844, 390, "en-US"), _phone(740, 360, "zh-CN")]


@pytest.mark.parametrize("device", INFO_PHONES, ids=[
    "390x844-en", "360x740-en", "360x740-zh", "740x360-en", "844x390-en", "740x360-zh"])
def test_the_info_bar_wraps_whole_items_on_a_phone(site, browser, device):
    """A tester's 390 × 844 phone after a double clamp: "Stake 2 (doubled by the
    double clamp)" was drawn over "dealt to bob" and "1st half: 0" broke in
    two. Upright and sideways, in English and Chinese, after a double clamp
    and after two halves: every piece of the bar's text is whole (one line,
    not cut; sideways the long stake may take two lines of its own), none
    overlaps another, all inside the bar and the screen."""
    me = _person(browser, site.base_url, device)
    page = me.page
    english = device["locale"] == "en-US"
    landscape = device["viewport"]["width"] > device["viewport"]["height"]
    table_id = _practice_game(me, "信息栏")
    for kind in ("clamp_out", "two_halves"):
        _finish(site, me, table_id, kind)
        page.evaluate("window.scrollTo(0, 0)")
        seen = page.evaluate(INFO_BAR_JS)
        texts = {leaf["name"]: leaf["text"] for leaf in seen["leaves"]}
        assert texts["half-label"] == ("Game over" if english else "本局结束"), texts
        if kind == "clamp_out":
            assert texts["stake"] == ("Stake 2 (doubled by the double clamp)" if english
                                      else "对局分 2（双夹翻倍）"), texts
        assert texts["indicator-seat"].startswith("dealt to" if english else "由"), texts
        screen = {"x": 0, "y": 0, "right": seen["width"], "bottom": seen["height"]}
        assert _within(seen["bar"], screen), (kind, seen["bar"], device)
        items = seen["items"]
        assert [i["name"] for i in items] == ["dao-box", "half-box", "scores"], items
        for i, a in enumerate(items):
            assert a["r"]["w"] > 0, (kind, a)
            assert _within(a["r"], seen["bar"]), (kind, a, seen["bar"])
            for b in items[i + 1:]:
                assert not _overlap(a["r"], b["r"]), (kind, a, b, device)
        leaves = seen["leaves"]
        lasts = [leaf for leaf in leaves if leaf["name"] == "score-last"]
        assert len(lasts) == (0 if landscape else 2 if kind == "clamp_out" else 4), leaves
        for i, a in enumerate(leaves):
            assert a["r"]["w"] > 0, (kind, a)
            assert a["r"]["h"] > 0, (kind, a)
            assert _within(a["r"], seen["bar"]), (kind, a, seen["bar"], device)
            assert not a["clipped"], (kind, a, device)
            if not (landscape and a["name"] == "stake"):
                assert not a["broken"], (kind, a, device)
            for b in leaves[i + 1:]:
                assert not _overlap(a["r"], b["r"]), (kind, a, b, device)
    me.assert_clean()


# A rated game escaped in its second half (RULES.md §7): the s3 deal of
# tests/page_states.py played by the heuristic bot into the second half until
# some points are captured there, seat 1 leaves; the table's game replaced by
# it (as page_states.install does). Prints the finished halves' points and
# the seats' captures of the unfinished half.
SECOND_HALF_ESCAPE = """
import json, random
from games import engine, events
from games.models import Game, Table
state = engine.new_game("s3", levels=[0, 0, 0, 0])
rng = random.Random("s3")
while state["half"] == 1 or not (any(state["captured"]) and len(state["actions"]) > 8):
    seat = state["turn"]
    state, _ = engine.apply(state, seat,
                            engine.heuristic_policy(engine.view(state, seat), rng))
state = engine.abandon(state, "escape", 1)[0]
table = Table.objects.get(pk=%(table)d)
Game.objects.filter(pk=table.current_game_id).update(
    state=state, seq=state["seq"], status=Game.OVER, due_at=None, settled=True)
Table.objects.filter(pk=table.pk).update(status=Table.WAITING)
events.publish(events.TableChanged(table.pk))
print(json.dumps([[h["points"] for h in state["halves"]], state["captured"]]))
"""

GAME_POINTS = ("import json; from games.models import Table; "
               "s = Table.objects.get(pk=%(table)d).current_game.state; "
               "print(json.dumps([[h['points'] for h in s['halves']], s['captured']]))")


def _bar_scores(page) -> dict:
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
      '#scores .score')].map(b => [b.dataset.team, {
        label: b.querySelector('.score-label').textContent,
        points: b.querySelector('.score-points').textContent,
        lines: [...b.querySelectorAll('.score-last')].map(e => e.textContent)}]))""")


@DEVICES
def test_an_escaped_games_bar_shows_each_teams_points(site, browser, device):
    """After an escape the bar showed 我方 / 对方 with no numbers: the engine
    keeps the unfinished half out of ``halves`` (its captures stay in the
    view's ``captured``) and the bar summed ``halves`` only. It now shows
    each team's points as for a game that ended normally: each half played
    (the unfinished one with what was captured so far) and their total."""
    me = _person(browser, site.base_url, device)
    table_id = _practice_game(me, "逃跑桌")
    # escaped in the first half (tests/page_states.py: seat 1 left after 12 moves)
    _finish(site, me, table_id, "escape")
    assert me.page.locator("#result-panel").get_attribute("data-reason") == "escape"
    halves, captured = json.loads(_server(site, GAME_POINTS % {"table": table_id}))
    assert halves == []
    team = [captured[0] + captured[2], captured[1] + captured[3]]
    assert sum(team) > 0, captured
    scores = _bar_scores(me.page)
    assert scores == {
        "0": {"label": "我方", "points": str(team[0]), "lines": [f"上半局 {team[0]}"]},
        "1": {"label": "对方", "points": str(team[1]), "lines": [f"上半局 {team[1]}"]},
    }, scores
    assert me.page.locator("#half-label").text_content() == "本局结束"
    # the result panel counts the same: the unfinished half's column and the total
    assert _result_totals(me.page) == {"0": [str(team[0]), str(team[0])],
                                       "1": [str(team[1]), str(team[1])]}

    # escaped in the second half: the first half's points, the second's so far, the sum
    halves, captured = json.loads(_server(site, SECOND_HALF_ESCAPE % {"table": table_id}))
    me.page.evaluate("() => localStorage.clear()")  # the same game id: its result shown afresh
    me.page.reload()
    me.page.locator("#result-panel").wait_for(state="visible")
    assert len(halves) == 1, halves
    team = [captured[0] + captured[2], captured[1] + captured[3]]
    assert sum(team) > 0, captured
    scores = _bar_scores(me.page)
    for t in (0, 1):
        first = halves[0][t]
        assert scores[str(t)]["points"] == str(first + team[t]), scores
        assert scores[str(t)]["lines"] == [f"上半局 {first}", f"下半局 {team[t]}"], scores
        assert _result_totals(me.page)[str(t)] == [str(first), str(team[t]),
                                                   str(first + team[t])]
    me.assert_clean()


def _result_totals(page) -> dict[str, list[str]]:
    """The result panel's totals table: per team, each half's cell and the total."""
    return page.evaluate("""() => Object.fromEntries(
        [...document.querySelectorAll('#result-panel .result-totals tr[data-team]')].map(
            (tr) => [tr.dataset.team,
                     [...tr.querySelectorAll('td')].map((td) => td.textContent)]))""")


# Every toast on screen now (#toasts, not yet fading): its class and text.
TOASTS_SHOWN_JS = """() => [...document.querySelectorAll('#toasts .toast:not(.fade)')]
  .map(t => t.className + ': ' + t.textContent)"""


def test_a_refused_sit_at_a_wager_table_is_told_once(site, browser):
    """A tester saw "This table's wager is 40 coins: you need 4000 coins to sit
    here." twice after 坐下. The socket carries one ``error`` frame for the sit;
    the same sentence had come just before as the ``notice`` that stood the
    player up when the owner set the wager (shop.wagers.set_wager), and both
    were toasted, one above the other. A toast saying what one on screen says
    takes its place (static/js/notices.js): one toast, the refusal's. A
    newcomer who was never seated gets one error frame and one toast too."""
    owner = _person(browser, site.base_url, DEVICES_DESKTOP, locale="en-US")
    _server(site, "from accounts.models import Profile; "
                  f"Profile.objects.filter(user__username={owner.name!r}).update(coins=10000)")
    owner.page.reload()
    owner.create_table("Wager table")
    table_url = owner.page.url
    sitter = _person(browser, site.base_url, DEVICES_DESKTOP, locale="en-US")
    frames: list[dict] = []

    def record(ws):
        if "/ws/table/" in ws.url:
            ws.on("framereceived", lambda f: frames.append(json.loads(f)))

    sitter.page.on("websocket", record)
    page = sitter.page
    page.goto(table_url)
    sitter.wait_connected()
    sitter.sit(1)
    owner.page.locator("#wager-select").select_option("40")
    owner.page.locator("#wager-set").click()
    owner.page.locator("#wager-confirm-yes").click()  # 1 seated player cannot afford it
    owner.page.locator("#wager-box[data-wager='40']").wait_for()
    words = "This table's wager is 40 coins: you need 4000 coins to sit here."
    page.locator("#toasts .notice-toast", has_text=words).wait_for()
    page.locator('.seat[data-seat="1"] button.sit').click()
    page.locator("#toasts .toast.error", has_text=words).wait_for()
    page.wait_for_timeout(500)  # anything more the socket had to say
    told = [(f["type"], f.get("reason") or f.get("code")) for f in frames
            if f.get("message") == words]
    assert told == [("notice", "not_enough_coins"), ("error", "not_enough_coins")], told
    errors = [t for t in sitter.toasts() if t.startswith("toast error")]
    assert errors == [f"toast error: {words}"], sitter.toasts()
    shown = [t for t in page.evaluate(TOASTS_SHOWN_JS) if words in t]
    assert shown == [f"toast error: {words}"], page.evaluate(TOASTS_SHOWN_JS)

    # the tester's steps as written: someone who never sat here
    newcomer = _person(browser, site.base_url, DEVICES_DESKTOP, locale="en-US")
    newcomer.page.goto(table_url)
    newcomer.wait_connected()
    newcomer.page.locator('.seat[data-seat="2"] button.sit').click()
    newcomer.page.locator("#toasts .toast.error", has_text=words).wait_for()
    newcomer.page.wait_for_timeout(500)
    assert [t for t in newcomer.toasts() if words in t] == [f"toast error: {words}"], \
        newcomer.toasts()
    for p in (owner, sitter, newcomer):
        p.assert_clean()


# The lobby's arena panel: per list item its class, text and top and bottom
# border widths; the list's own bottom border; any <hr> in the panel.
ARENA_PANEL_JS = """() => {
  const panel = document.getElementById('arena-lobby');
  const list = panel.querySelector('.arena-list');
  const px = (e, side) => parseFloat(getComputedStyle(e)[`border${side}Width`]) *
    (getComputedStyle(e)[`border${side}Style`] === 'none' ? 0 : 1);
  return {
    items: [...list.children].map(li => ({cls: li.className, text: li.textContent.trim(),
      top: px(li, 'Top'), bottom: px(li, 'Bottom'), h: li.getBoundingClientRect().height})),
    list: px(list, 'Bottom'), rules: panel.querySelectorAll('hr').length,
  };
}"""

STAGE_ARENAS = """
import secrets
from datetime import timedelta
from django.contrib.auth.models import User
from django.utils import timezone
from contests.models import Arena
for i in range(2):
    pool = User.objects.create_user(username=f"#arena-polish-{secrets.token_hex(4)}",
                                    is_active=False)
    Arena.objects.create(name=f"Polish cup {i}", starts_at=timezone.now() + timedelta(days=1),
                         duration_minutes=60, pool=pool)
"""

DROP_ARENAS = ("from contests.models import Arena; "
               "Arena.objects.filter(name__startswith='Polish cup').delete()")


@DEVICES
def test_the_lobbys_arena_panel_draws_lines_only_between_arenas(site, browser, device):
    """With no arena the lobby's panel said 暂无进行中或即将开始的比赛 over a
    divider with nothing under it (each item drew a bottom border, the empty
    line's too). Logged out and in: no line under the empty line; with two
    arenas, one line between them and none under the last."""
    visitor = Player.open(browser, "arena-visitor", **device)  # not logged in
    visitor.page.goto(site.base_url + "/")
    member = _person(browser, site.base_url, device)
    member.page.goto(site.base_url + "/")
    for p in (visitor, member):
        p.page.locator("#arena-lobby .arena-empty").wait_for()
        seen = p.page.evaluate(ARENA_PANEL_JS)
        assert [i["text"] for i in seen["items"]] == ["暂无进行中或即将开始的比赛。"], seen
        empty = seen["items"][0]
        assert (empty["top"], empty["bottom"]) == (0, 0), seen
        assert (seen["list"], seen["rules"]) == (0, 0), seen
    _server(site, STAGE_ARENAS)
    try:
        page = member.page
        page.reload()
        page.locator("#arena-lobby .arena-row").nth(1).wait_for()
        items = page.evaluate(ARENA_PANEL_JS)["items"]
        assert [i["cls"].split()[0] for i in items] == ["arena-row", "arena-row"], items
        assert items[0]["top"] == 0, items
        assert items[0]["bottom"] + items[1]["top"] >= 1, items  # one line between them
        assert items[1]["bottom"] == 0, items
    finally:
        _server(site, DROP_ARENAS)
    visitor.assert_clean()
    member.assert_clean()


# Ranked players of every width of title (levels 0, 4, 14, 16) and rating.
STAGE_RANKING = """
from django.contrib.auth.models import User
from accounts.leaderboard import recompute
from accounts.models import Profile
for name, points, wins in [("lb_clerk", 2, 1), ("lb_assistant_div", 600, 45),
                           ("lb_deputy_gov", 500000, 1234),
                           ("lb_bomb_with_a_long_name", 2000000, 9)]:
    user = User.objects.get_or_create(username=name)[0]
    Profile.objects.filter(user=user).update(rating_points=points, rated_games=wins + 1,
                                             rated_wins=wins)
print(recompute())
"""

# Per leaderboard row: the title's and the rating's text boxes (not their
# cells'), and how wide the page is against the screen.
RANKING_JS = """() => {
  const box = e => { const r = document.createRange(); r.selectNodeContents(e);
    const b = r.getBoundingClientRect();
    return {x: b.left, right: b.right, y: b.top, bottom: b.bottom, text: e.textContent.trim()}; };
  return {rows: [...document.querySelectorAll('table.ranking tbody tr')].map(tr =>
            [box(tr.querySelector('.rank-title')), box(tr.querySelector('.rank-points'))]),
          width: innerWidth, scroll: document.documentElement.scrollWidth,
          table: document.querySelector('table.ranking').getBoundingClientRect().right};
}"""

RANKING_PHONES = [_phone(390, 844, "en-US"), _phone(360, 740, "en-US"),
                  _phone(390, 844, "zh-CN"), _phone(360, 740, "zh-CN")]


@pytest.mark.parametrize("device", RANKING_PHONES, ids=[
    "390-en", "360-en", "390-zh", "360-zh"])
def test_the_leaderboards_title_and_rating_keep_apart_on_a_phone(site, browser, device):
    """A tester's 390 px phone read "Clerk 2": the cells had no room between
    them, the title ran into the rating (and the table ran off the screen).
    In English and Chinese at 360 and 390 px every row's title and rating
    are apart by 4 px or more, and the table fits the screen."""
    assert int(_server(site, STAGE_RANKING)) >= 4
    visitor = Player.open(browser, "ranking-visitor", **device)
    page = visitor.page
    page.goto(site.base_url + "/leaderboard/")
    seen = page.evaluate(RANKING_JS)
    english = device["locale"] == "en-US"
    titles = {title["text"]: points["text"] for title, points in seen["rows"]}
    assert titles.get("Clerk" if english else "科员") == "2", titles
    assert ("Assistant Division Chief" if english else "助处") in titles, titles
    for title, points in seen["rows"]:
        assert title["right"] > title["x"], (title, points)
        assert points["right"] > points["x"], (title, points)
        same_line = title["y"] < points["bottom"] and points["y"] < title["bottom"]
        if same_line:
            assert points["x"] - title["right"] >= 4, (title, points, device)
    assert seen["table"] <= seen["width"], seen
    assert seen["scroll"] <= seen["width"], seen
    visitor.assert_clean()
