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
