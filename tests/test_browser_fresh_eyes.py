"""What a tester saw in a real browser (Debian chromium through Playwright), each
fixed and checked as a person sees it:

* the turn line under the felt counts only a person's clock: a bot's (or a 托管
  seat's) turn shows no number, never what was left on my own clock;
* leaving a practice game is no escape (RULES.md §7): its button, dialog and
  stand-up banner say 离开 / Leave, not 逃跑;
* after a game, the result panel's "准备下一局" is the only ready control on a
  360 px phone;
* a logged-in English header is one row at 1024 and 1280 px, and the phone's
  menu still opens;
* the 战绩 graph's level labels are small on a desktop and off the rating line.

One site process (``manage.py runsite``, SQLite file of its own; bots pause
0.4 s, a person's turn is 40 s) serves the module; each test signs up its own
people. Playwright's sync API is driven directly (NOTES.md).
"""

from __future__ import annotations

import re
import time
import uuid

import pytest

from tests.browser import DESKTOP, NEEDS_CHROMIUM, PHONE, Player
from tests.servers import Site

pytestmark = NEEDS_CHROMIUM

TURN_SECONDS = 40


@pytest.fixture(scope="module")
def site():
    server = Site(bot_delay=0.4, turn_seconds=TURN_SECONDS)
    try:
        yield server.wait_listening()
    finally:
        server.stop()


_names = iter(range(10_000))


def _person(browser, base_url: str, device: dict, locale: str = "zh-CN",
            prefix: str = "fe") -> Player:
    me = Player.open(browser, f"{prefix}{next(_names)}", locale=locale, **device)
    me.sign_up(base_url)
    return me


def _practice(me: Player) -> None:
    page = me.page
    page.locator("#practice-btn").click()
    page.wait_for_url("**/tables/*/")
    page.locator("#table-app[data-status=playing]").wait_for()


def _table_id(player: Player) -> int:
    return int(player.page.url.split("?")[0].rstrip("/").rsplit("/", 1)[1])


# Every change of the turn line (#turn-note, #my-timer) recorded with the view
# it was drawn from: whose turn, and whether that seat is a bot's or on 托管.
RECORD_TURN_LINE_JS = """() => {
  window.__turnLine = [];
  const record = () => {
    const v = window.YuanziTable.state().view;
    if (!v || v.status !== 'playing') return;
    const p = v.players[v.turn] || {};
    window.__turnLine.push({turn: v.turn, mine: v.turn === v.seat,
      machine: !!(p.bot || p.auto_play),
      note: document.getElementById('turn-note').textContent,
      timer: document.getElementById('my-timer').textContent,
      info: document.getElementById('selection-info').textContent,
      buttons: ['play-btn', 'pass-btn', 'hint-btn'].map(
        (id) => document.getElementById(id).disabled)});
  };
  new MutationObserver(record).observe(document.getElementById('play-controls'),
    {childList: true, characterData: true, subtree: true});
}"""

SECONDS = re.compile(r"剩 (\d+) 秒")


def _seconds(page) -> int:
    m = SECONDS.search(page.locator("#my-timer").inner_text())
    assert m, page.locator("#my-timer").inner_text()
    return int(m.group(1))


def test_the_turn_line_counts_only_a_persons_clock(site, browser):
    me = _person(browser, site.base_url, DESKTOP)
    page = me.page
    _practice(me)
    page.evaluate(RECORD_TURN_LINE_JS)
    assert me.wait_turn_or_over() == "turn"
    # my own turn: my real time left, counting down
    first = _seconds(page)
    time.sleep(1.3)
    second = _seconds(page)
    assert 0 < second < first <= TURN_SECONDS
    me.take_turn()
    assert me.wait_turn_or_over() == "turn"
    lines = page.evaluate("window.__turnLine")
    bots = [x for x in lines if x["machine"]]
    assert bots, lines
    # "等待 机器人（西）" with no "剩 N 秒" (the tester saw my clock's number there)
    assert all("秒" not in x["timer"] for x in bots), bots
    assert all("机器人" in x["note"] for x in bots), bots

    # 托管 on: every turn, mine too, is a machine's pause: no number anywhere
    page.evaluate("window.__turnLine = []")
    page.locator("#auto-btn").click()
    page.locator(".seat.is-me.is-auto").wait_for()
    time.sleep(3)
    page.locator("#auto-btn").click()  # 取消托管
    page.locator(".seat.is-me:not(.is-auto)").wait_for()
    lines = page.evaluate("window.__turnLine")
    machine = [x for x in lines if x["machine"]]
    assert any(x["mine"] for x in machine), lines  # my own turn under 托管 was drawn
    assert all("秒" not in x["timer"] for x in machine), machine
    # and it says the bot plays it, not "轮到你了 … 请选牌"
    mine = [x for x in machine if x["mine"]]
    assert all(x["note"] == "轮到你了：托管正在替你出牌" for x in mine), mine
    assert all("选牌" not in x["info"] for x in mine), mine
    assert all(x["buttons"] == [True, True, True] for x in mine), mine  # nothing to press
    me.assert_clean()


@pytest.mark.parametrize(("locale", "words"), [
    ("zh-CN", {"button": "离开", "title": "要离开练习局吗？", "banner": "离开练习局",
               "result": "离开了练习局（不扣分）"}),
    ("en-US", {"button": "Leave", "title": "Leave the practice game?",
               "banner": "leaves a practice game",
               "result": "left the practice game (no penalty)"}),
])
def test_leaving_a_practice_game_is_no_escape(site, browser, locale, words):
    me = _person(browser, site.base_url, DESKTOP, locale=locale)
    page = me.page
    _practice(me)
    button = page.locator("#escape-btn")
    button.wait_for()  # shown once the page knows me as this game's player
    assert button.inner_text() == words["button"]
    button.click()
    page.locator("#escape-dialog").wait_for()
    assert page.locator("#escape-title").inner_text() == words["title"]
    assert page.locator("#escape-confirm").inner_text() == words["button"]
    assert "逃跑" not in page.locator("#escape-dialog").inner_text()
    page.locator("#escape-confirm").click()
    page.locator("#table-app[data-status=over]").wait_for()
    # the result says so, and its table stays while I look at it (the
    # recorder is used from here), closing once nobody watches it
    panel = page.locator("#result-panel")
    panel.wait_for()
    assert words["result"] in panel.inner_text()
    assert page.locator("#closed-notice").is_hidden()
    # that I was stood up is said once: in the panel while it is up (a tester
    # read it twice, there and in the banner), then in the banner
    stood = panel.locator(".result-stood")
    banner = page.locator("#stood-notice")
    for said in (stood, banner):
        if said is banner:
            page.locator("#result-close").click()
            panel.wait_for(state="hidden")
        said.wait_for()
        assert words["banner"] in said.inner_text()
        assert "逃跑" not in said.inner_text()
        assert "escape" not in said.inner_text().lower()
        shown = page.evaluate(STOOD_SHOWN_JS, words["banner"])
        assert shown == 1, shown
    me.assert_clean()


# How many shown elements say a text themselves (not through a shown child).
STOOD_SHOWN_JS = """(text) => [...document.querySelectorAll('#table-app *')].filter((n) =>
  n.checkVisibility() && n.textContent.includes(text) &&
  ![...n.children].some((c) => c.textContent.includes(text))).length"""


# The ready controls a person can see (the result panel's and the controls').
VISIBLE_READY_JS = """() => ['result-ready', 'ready-btn'].filter((id) => {
  const b = document.getElementById(id);
  const r = b.getBoundingClientRect();
  return !b.hidden && r.width > 0 && r.height > 0;
})"""


def test_one_ready_control_after_a_game_on_a_phone(site, browser):
    me = _person(browser, site.base_url, PHONE)
    page = me.page
    _practice(me)
    site.manage("shell", "-c", "from tests.page_states import install; "
                               f"install({_table_id(me)}, 'two_halves')")
    page.reload()
    me.wait_connected()
    page.locator("#result-panel").wait_for(state="visible")
    page.locator("#result-ready").wait_for()
    # (the installed game left my seat ready: the one control says 取消准备)
    assert page.locator("#result-ready").inner_text() in ("准备下一局", "取消准备")
    assert page.evaluate(VISIBLE_READY_JS) == ["result-ready"]
    # closed, the panel's button goes with it: the controls' own comes back
    page.locator("#result-close").click()
    page.locator("#ready-btn").wait_for()
    assert page.evaluate(VISIBLE_READY_JS) == ["ready-btn"]
    me.assert_clean()


# The header's visible parts, each as [top, bottom] relative to the header.
HEADER_PARTS_JS = """() => {
  const h = document.querySelector('.site-header').getBoundingClientRect();
  const parts = ['.brand', '.site-nav a[href="/"]', '.site-nav a[href="/history/"]',
                 '#me-coins', '.nav-me', '.site-nav form', '#inbox-link', '#lang-select'];
  return {height: h.height, parts: parts.map((sel) => {
    const r = document.querySelector(sel).getBoundingClientRect();
    return [sel, Math.round(r.top - h.top), Math.round(r.bottom - h.top), Math.round(r.right)];
  })};
}"""


def test_the_english_header_is_one_row_on_a_desktop(site, browser):
    me = _person(browser, site.base_url, {"viewport": {"width": 1280, "height": 800}},
                 locale="en-US", prefix="long_english_name_")
    page = me.page
    site.manage("shell", "-c", "from accounts.models import Profile; "
                f"Profile.objects.filter(user__username={me.name!r})"
                ".update(rating_points=50, coins=1234567)")
    for width in (1280, 1024):
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(site.base_url + "/")
        header = page.evaluate(HEADER_PARTS_JS)
        assert header["height"] < 64, (width, header)
        for sel, top, bottom, right in header["parts"]:
            assert top >= 0, (width, sel, header)
            assert bottom <= header["height"], (width, sel, header)
            assert right <= width, (width, sel)
        assert page.locator("#lang-select").is_visible()
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    # the phone's one row and its menu, as before
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(site.base_url + "/")
    assert page.locator(".site-header").bounding_box()["height"] < 60
    assert page.locator("#lang-select").is_hidden()
    page.locator(".site-menu-button").click()
    page.locator("#lang-select").wait_for()
    page.locator(".site-nav a[href='/history/']", has_text="History").wait_for()
    me.assert_clean()


# Each drawn level label: its height on screen, and whether the rating line
# (sampled along its length, in screen pixels) passes through its box.
GRAPH_LABELS_JS = """() => {
  const svg = document.getElementById('rating-graph-svg');
  const line = svg.querySelector('.rating-line');
  const ctm = line.getScreenCTM();
  const points = [];
  const total = line.getTotalLength();
  for (let d = 0; d <= total; d += 0.5) {
    const p = line.getPointAtLength(d);
    points.push([ctm.a * p.x + ctm.c * p.y + ctm.e, ctm.b * p.x + ctm.d * p.y + ctm.f]);
  }
  return [...svg.querySelectorAll('.threshold-label')].map((t) => {
    const r = t.getBoundingClientRect();
    const hit = points.some(([x, y]) => x >= r.left - 1 && x <= r.right + 1 &&
                                        y >= r.top - 1 && y <= r.bottom + 1);
    return {text: t.textContent, height: r.height, hit};
  });
}"""


def test_the_history_graph_labels_are_small_and_off_the_line(site, browser):
    me = _person(browser, site.base_url, {"viewport": {"width": 1280, "height": 800}},
                 locale="en-US")
    page = me.page
    page.goto(site.base_url + "/history/")
    labels = page.evaluate(GRAPH_LABELS_JS)
    assert "Clerk 0" in [x["text"] for x in labels]  # a new player: a flat line at 0
    for label in labels:
        assert label["height"] <= 18, label  # about 13 px text, not 24
        assert not label["hit"], label
    site.manage("shell", "-c", "from tests.test_history import seed_history; "
                               f"seed_history({me.name!r})")
    page.reload()
    labels = page.evaluate(GRAPH_LABELS_JS)
    assert len(labels) >= 3, labels
    for label in labels:
        assert label["height"] <= 18, label
        assert not label["hit"], label
    me.assert_clean()


OTHER_TABLE = """
from games import tables
from tests.helpers import make_players
print(tables.create_table(make_players(1, "fe%(tag)s")[0], "别人的桌").pk)
"""


def test_a_refusal_over_the_socket_links_back_to_my_running_game(site, browser):
    """A tester in a practice game pressed 开桌 (now refused, no orphan table
    left behind) and 坐下 at another table: both refusals link back to the
    running game; the lobby shows no 准备 badges on a table whose game runs."""
    me = _person(browser, site.base_url, PHONE)
    page = me.page
    _practice(me)
    game_table = _table_id(me)
    page.goto(site.base_url + "/")
    assert page.locator(f'.lobby-table[data-table-id="{game_table}"]').count() == 1
    assert page.locator(f'.lobby-table[data-table-id="{game_table}"] .badge.ready').count() == 0
    page.locator("#table-name-input").fill("等我")
    page.locator("#create-table-btn").click()
    page.wait_for_url(site.base_url + "/")  # refused: the lobby again, nothing opened
    message = page.locator(".messages .message").first
    assert message.locator(f'a[href="/tables/{game_table}/"]').count() == 1
    assert page.locator(".lobby-table", has_text="等我").count() == 0
    other = int(site.manage("shell", "-c", OTHER_TABLE % {"tag": uuid.uuid4().hex[:6]})
                .split()[-1])
    page.goto(f"{site.base_url}/tables/{other}/")
    me.wait_connected()
    page.locator('.seat[data-seat="0"] button.sit').click()
    toast = page.locator(".toast.error").last
    toast.wait_for()
    back = toast.locator("a.toast-link")
    assert back.inner_text() == "回到你的对局"
    back.click()
    page.wait_for_url(f"**/tables/{game_table}/")
    page.locator("#table-app[data-status=playing]").wait_for()
    me.assert_clean()


# The controls drawn from a view where it is my turn and the table has a play:
# with no hint (nothing in the hand beats it) and with one.
NOTHING_BEATS_JS = """async () => {
  const {renderControls} = await import('/static/js/controls.js');
  const drawn = (hints) => {
    const view = {status: 'playing', seat: 0, turn: 0, hand: ['3S', '4H'], can_pass: true,
                  hints, practice: true, players: [{}, {}, {}, {}]};
    renderControls({view, table: {status: 'playing', seats: []}, me: {id: 1},
                    pending: false, conn: 'open', selected: []});
    const pass = document.getElementById('pass-btn');
    return {info: document.getElementById('selection-info').textContent,
            hint: document.getElementById('hint-btn').disabled,
            pass: pass.disabled, passMuted: pass.classList.contains('secondary')};
  };
  return [drawn([]), drawn([{cards: ['4H'], exact: true, kind: 'single'}])];
}"""


@pytest.mark.parametrize(("locale", "words"), [
    ("zh-CN", {"none": "没有大得过桌上的牌，只能不要。", "pick": "请选牌。"}),
    ("en-US", {"none": "Nothing in your hand beats this: pass.", "pick": "Select cards to play."}),
])
def test_nothing_in_the_hand_beats_the_table_says_so(site, browser, locale, words):
    """A tester saw 提示 grey beside "请选牌。" when nothing could beat the table:
    the line now says so and 不要 is drawn as the one play (RULES.md §3)."""
    me = _person(browser, site.base_url, DESKTOP, locale=locale)
    _practice(me)
    none, some = me.page.evaluate(NOTHING_BEATS_JS)
    assert none == {"info": words["none"], "hint": True, "pass": False, "passMuted": False}, none
    assert some == {"info": words["pick"], "hint": False, "pass": False, "passMuted": True}, some
    me.assert_clean()


@pytest.mark.parametrize(("locale", "words"), [
    ("zh-CN", "规则 §3：这些牌不成牌型"),
    ("en-US", "Rules §3: these cards are no play"),
])
def test_a_selection_that_cannot_be_played_names_the_rule(site, browser, locale, words):
    """A tester saw only "这几张牌现在不能出" where the tutorial says why: after
    a pause on such a selection the page asks the server (``why``), and the
    line under the hand names the rule (RULES.md §3); 出牌 stays off."""
    from games import engine

    me = _person(browser, site.base_url, DESKTOP, locale=locale)
    _practice(me)
    assert me.wait_turn_or_over() == "turn"
    page = me.page
    view = page.evaluate("window.YuanziTable.state().view")
    a, b = next((x, y) for x in view["hand"] for y in view["hand"]
                if engine.classify([x, y], view["dao"]) is None)
    for card in (a, b):
        page.locator(f'#hand .pcard[data-card="{card}"]:not(.selected)').first.click(
            position={"x": 5, "y": 12})
    page.wait_for_function(
        "w => document.getElementById('selection-info').textContent.startsWith(w)", arg=words)
    assert page.locator("#play-btn").is_disabled()
    assert "bad" in page.locator("#selection-info").get_attribute("class")
    me.assert_clean()
