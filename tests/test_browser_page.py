"""The table page in a real browser (Debian chromium through Playwright): it
is never silent — a line that dies without a close, a turn lost to the
clock, why a game ended — on a desktop and on a 360×740 touch phone.

One site process (``manage.py runsite``, SQLite file of its own) serves the
whole module; each test signs up its own people. Playwright's sync API is
driven directly (NOTES.md).
"""

from __future__ import annotations

import json
import time

import pytest

from tests.browser import MY_TURN_JS, Player, chromium_path
from tests.proxy import TcpProxy
from tests.servers import Site

pytestmark = pytest.mark.skipif(
    chromium_path() is None,
    reason="browser tests need Debian's chromium at /usr/bin/chromium",
)

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
DEVICES = pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])


_names = iter(range(10_000))


def _person(browser, base_url: str, device: dict) -> Player:
    me = Player.open(browser, f"p13u{next(_names)}", **device)
    me.sign_up(base_url)
    return me


def _practice_game(me: Player, name: str) -> int:
    """Open a table, sit at South, three bots, ready: the game runs. Returns the table id."""
    me.create_table(name)
    table_id = int(me.page.url.rstrip("/").rsplit("/", 1)[1])
    me.sit(2)
    me.add_bots()
    me.ready()
    me.page.locator("#table-app[data-status=playing]").wait_for()
    return table_id


def _server(site: Site, code: str) -> str:
    """Run `code` in the site's own process; returns the last line it printed."""
    out = site.manage("shell", "-c", code).strip().splitlines()
    return out[-1] if out else ""


@DEVICES
def test_a_silent_outage_is_shown_and_the_page_resyncs(site, browser, device):
    """The line stalls at a TCP proxy (no close reaches the page): within 8 s
    the banner says the connection is lost with a retry countdown and every
    action is disabled, while the turn clock keeps counting; when the line is
    back the banner goes, the page says it resynced and shows the server's
    latest view."""
    proxy = TcpProxy(site.port)
    try:
        me = _person(browser, proxy.base_url, device)
        table_id = _practice_game(me, "断线桌")
        page = me.page
        banner = page.locator("#conn-banner")
        assert banner.is_hidden()
        # my turn, my clock running (600 s): the actions are live
        assert me.wait_turn_or_over() == "turn"
        assert page.locator("#hint-btn").is_enabled() or page.locator("#pass-btn").is_enabled()
        proxy.stall()
        stalled = time.monotonic()
        banner.wait_for(state="visible", timeout=8_500)
        assert time.monotonic() - stalled <= 8.5
        text = banner.inner_text()
        assert "连接中断" in text, text
        assert "秒后重连" in text or "重连中" in text, text
        assert page.locator("#table-app").get_attribute("data-conn") in ("closed", "connecting")
        for button in ("#auto-btn", "#hint-btn", "#pass-btn", "#play-btn", "#escape-btn"):
            assert page.locator(button).is_disabled(), button
        # the clock is not frozen: the turn's seconds keep falling
        before = page.locator(".seat.is-turn .seat-timer").inner_text()
        page.wait_for_function(
            "b => document.querySelector('.seat.is-turn .seat-timer')?.textContent !== b",
            arg=before, timeout=3_000)

        proxy.restore()
        banner.wait_for(state="hidden", timeout=20_000)
        page.locator("#conn-status[data-state=open]").wait_for()
        page.wait_for_function(
            "() => (window.__toasts || []).some(t => t.includes('已重新连接'))")
        seq = int(_server(site, "from games.models import Table; "
                               f"print(Table.objects.get(pk={table_id}).current_game.seq)"))
        page.wait_for_function("s => window.YuanziTable.state().view.seq >= s", arg=seq)
        assert page.locator("#auto-btn").is_enabled()
        assert me.my_turn()  # the turn is still mine, the actions live again
        # the browser logs each refused reconnect during the outage: expected, nothing else
        me.console[:] = [(k, t) for k, t in me.console
                         if not (k == "error" and "WebSocket connection to" in t)]
        me.assert_clean()
    finally:
        proxy.close()


def test_the_browser_going_offline_is_shown_at_once_and_online_reconnects(site, browser):
    """The browser says the network went away: the banner shows at once (not
    after a missed pong, up to 8 s later) and every action is disabled; back
    online, the page reconnects without waiting out its backoff."""
    me = _person(browser, site.base_url, DESKTOP)
    _practice_game(me, "离线桌")
    page = me.page
    page.locator("#conn-status[data-state=open]").wait_for()
    page.context.set_offline(True)
    went = time.monotonic()
    page.locator("#conn-banner").wait_for(state="visible", timeout=8_000)
    assert time.monotonic() - went < 2
    assert page.locator("#table-app").get_attribute("data-conn") in ("closed", "connecting")
    assert page.locator("#auto-btn").is_disabled()
    time.sleep(3)  # a few refused retries
    page.context.set_offline(False)
    back = time.monotonic()
    page.locator("#conn-status[data-state=open]").wait_for(timeout=10_000)
    assert time.monotonic() - back < 3
    page.locator("#conn-banner").wait_for(state="hidden")
    me.console[:] = [(k, t) for k, t in me.console  # the refused retries, expected
                     if not (k == "error" and ("WebSocket connection to" in t
                                               or "ERR_INTERNET_DISCONNECTED" in t))]
    me.assert_clean()


@DEVICES
def test_a_single_timeout_is_told_at_once(site, browser, device):
    """My turn runs out once: a notice says what the clock did for me and that
    a second one in a row starts 托管; 托管 is not on."""
    me = _person(browser, site.base_url, device)
    table_id = _practice_game(me, "超时桌")
    assert me.wait_turn_or_over() == "turn"
    _server(site, "from django.utils import timezone; from games.models import Table; "
                  f"g = Table.objects.get(pk={table_id}).current_game; "
                  "g.due_at = timezone.now(); g.save(update_fields=['due_at'])")
    toast = me.page.locator(".toast.notice-toast[data-code=turn_timeout]")
    toast.wait_for(timeout=5_000)
    text = toast.inner_text()
    assert "超时" in text, text
    assert "替你出了" in text or "替你过了" in text, text
    assert "托管" in text
    assert me.page.locator("#auto-btn").get_attribute("data-on") == "0"
    me.assert_clean()


def test_auto_play_by_the_clock_is_still_explained_after_a_reload(site, browser):
    """Two turns in a row run out: 托管 is on and the notice says why; a
    reload keeps saying it (a tester's reloaded page read only 取消托管), and
    取消托管 takes it away."""
    me = _person(browser, site.base_url, DESKTOP)
    table_id = _practice_game(me, "托管桌")
    notice = me.page.locator("#auto-notice")
    for _ in range(2):  # my turn, run out by the clock, twice in a row
        assert me.wait_turn_or_over() == "turn"
        _server(site, "from django.utils import timezone; from games.models import Table; "
                      f"g = Table.objects.get(pk={table_id}).current_game; "
                      "g.due_at = timezone.now(); g.save(update_fields=['due_at'])")
        me.page.wait_for_function(f"() => !({MY_TURN_JS})()")
    notice.wait_for(state="visible", timeout=5_000)
    assert "连续两次超时" in notice.inner_text()
    assert me.page.locator(".toast", has_text="连续两次超时").count() == 1  # told as it happens
    me.page.reload()
    me.page.locator("#table-app[data-status=playing]").wait_for()
    notice.wait_for(state="visible", timeout=5_000)
    assert "取消托管" in notice.inner_text()
    assert me.page.locator("#auto-btn").get_attribute("data-on") == "1"
    me.page.locator("#auto-btn").click()  # 取消托管
    notice.wait_for(state="hidden", timeout=5_000)
    # 托管 by my own choice: nothing to explain
    me.page.locator("#auto-btn").click()
    me.page.locator(".seat.is-me.is-auto").wait_for()
    assert notice.is_hidden()
    me.assert_clean()


RESULTS = {
    "clamp_out": ["双夹", "先出完", "翻倍"],
    "clamp_under": ["双夹", "不足 60"],
    "two_halves": ["两个半局", "300", "305"],
    "escape": ["逃跑", "扣 20 积分"],
}


@pytest.mark.parametrize("kind", sorted(RESULTS))
def test_the_result_says_why(site, browser, kind):
    """The result panel states the deciding rule in a sentence (RULES.md §6–§7)."""
    me = _person(browser, site.base_url, PHONE if kind == "two_halves" else DESKTOP)
    table_id = _practice_game(me, "结果桌")
    _server(site, f"from tests.page_states import install; install({table_id}, {kind!r})")
    me.page.reload()
    panel = me.page.locator("#result-panel")
    panel.wait_for(state="visible")
    why = panel.locator(".result-why").inner_text()
    for words in RESULTS[kind]:
        assert words in why, (kind, why)
    assert panel.get_attribute("data-reason") == ("escape" if kind == "escape" else "normal")
    if kind == "two_halves":
        # the strip above the felt: each half and the total, as the panel has them
        # (a tester saw only the first half's there)
        assert me.page.locator("#half-label").text_content() == "本局结束"
        halves = json.loads(_server(site, HALVES % {"table": table_id}))
        for team in (0, 1):
            box = me.page.locator(f'#scores .score[data-team="{team}"]')
            got = box.locator(".score-last").all_text_contents()
            assert got == [f"上半局 {halves[0][team]}", f"下半局 {halves[1][team]}"], got
            total = box.locator(".score-points").text_content()
            assert total == str(halves[0][team] + halves[1][team]), total
    me.assert_clean()


HALVES = ("import json; from games.models import Table; "
          "print(json.dumps([h['points'] for h in "
          "Table.objects.get(pk=%(table)d).current_game.state['halves']]))")


# For every card of #hand: does some 28 × 28 square inside it hit that card
# at all 25 points of a 5 × 5 grid (document.elementFromPoint)? Returns the
# cards that have none, and the hand's size.
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
    if (!ok) bad.push(c.dataset.card + ' ' + Math.round(r.width) + 'x' + Math.round(r.height));
  }
  return {n: cards.length, bad};
}"""


def test_phone_hand_tap_areas_taps_chips_and_swipes(site, browser):
    """360 × 740 touch: every card of the hand keeps an uncovered 28 × 28 tap
    area (hit-tested); a tap on a selected card adds one more of that rank; a
    rank chip selects the whole group; a swipe selects the cards it crosses;
    the hand fits the screen's width."""
    me = _person(browser, site.base_url, PHONE)
    _practice_game(me, "手机桌")
    page = me.page
    page.locator("#hand .pcard").first.wait_for()
    # the bots move every 50 ms until it is my turn, redrawing the hand each time;
    # on my turn it holds still (a card caught mid-redraw has no box)
    assert me.wait_turn_or_over() == "turn"
    # the whole hand on screen (hit-testing sees only the viewport)
    page.evaluate("document.getElementById('hand').scrollIntoView({block: 'start'})")
    hand = page.locator("#hand").bounding_box()
    assert hand["height"] <= 740
    assert hand["x"] >= 0
    assert hand["x"] + hand["width"] <= 360
    measured = page.evaluate(UNCOVERED_JS)
    assert measured["n"] in (40, 41), measured
    assert measured["bad"] == [], measured

    def selected():
        return page.evaluate("window.YuanziTable.state().selected.length")

    group = page.locator("#hand .rank-group:has(.pcard + .pcard)").first
    n = group.locator(".pcard").count()
    first = group.locator(".pcard").first
    box = first.bounding_box()
    page.touchscreen.tap(box["x"] + 8, box["y"] + 20)
    assert selected() == 1
    page.touchscreen.tap(box["x"] + 8, box["y"] + 20)
    assert selected() == 2  # one more card of that rank, not a toggle
    page.locator("#clear-btn").click()
    group.locator(".rank-label").click()
    assert selected() == n
    group.locator(".rank-label").click()
    assert selected() == 0
    # a swipe (pointer drag) across the first three cards of the hand
    cards = page.locator("#hand .pcard")
    points = [cards.nth(i).bounding_box() for i in range(3)]
    page.mouse.move(points[0]["x"] + 6, points[0]["y"] + 30)
    page.mouse.down()
    for b in points[1:]:
        page.mouse.move(b["x"] + 6, b["y"] + 30, steps=4)
    page.mouse.up()
    assert selected() == 3
    me.assert_clean()


def test_landscape_phone_chat_is_a_button_and_nothing_overlaps(site, browser):
    """740 × 360: the chat is collapsed behind a button that opens it; the felt
    and the hand do not overlap, and the kind of the play stays visible."""
    device = {"viewport": {"width": 740, "height": 360}, "is_mobile": True, "has_touch": True}
    me = _person(browser, site.base_url, device)
    _practice_game(me, "横屏桌")
    page = me.page
    page.locator("#hand .pcard").first.wait_for()
    assert page.locator(".chat").is_hidden()
    page.locator("#chat-toggle").click()
    assert page.locator(".chat").is_visible()
    page.locator("#chat-toggle").click()
    felt, hand = page.locator("#felt").bounding_box(), page.locator("#hand").bounding_box()
    assert felt["y"] + felt["height"] <= hand["y"] + 0.5, (felt, hand)
    assert hand["x"] + hand["width"] <= 740
    page.evaluate("document.getElementById('hand').scrollIntoView({block: 'end'})")
    assert page.evaluate(UNCOVERED_JS)["bad"] == []
    me.assert_clean()


def _table_id(player: Player) -> int:
    return int(player.page.url.split("?")[0].rstrip("/").rsplit("/", 1)[1])


def test_quick_start_seats_you_at_the_fullest_table(site, browser):
    """快速开始: alone, it opens your own table, says it waits for people and
    offers bots; a second person's quick start seats them at that table."""
    first = _person(browser, site.base_url, DESKTOP)
    first.page.locator("#quick-start-btn").click()
    first.page.wait_for_url("**/tables/*/?waiting=1")
    first.wait_connected()
    first.page.locator(".seat.is-me").wait_for()
    notice = first.page.locator("#alone-notice")
    assert notice.is_visible()
    assert "等人" in notice.inner_text()
    table_id = _table_id(first)

    second = _person(browser, site.base_url, PHONE)
    second.page.locator("#quick-start-btn").click()
    second.page.wait_for_url(f"**/tables/{table_id}/")
    second.wait_connected()
    second.page.locator(".seat.is-me").wait_for()
    assert first.page.locator(".seat:not(.empty)").count() >= 2
    first.page.locator("#alone-notice").wait_for(state="hidden")
    # a third person joins the same table (the one with the most people)
    third = _person(browser, site.base_url, DESKTOP)
    third.page.locator("#quick-start-btn").click()
    third.page.wait_for_url(f"**/tables/{table_id}/")
    third.page.locator(".seat.is-me").wait_for()
    for p in (first, second, third):
        p.assert_clean()


def test_a_private_table_is_hidden_and_joined_by_link_or_code(site, browser):
    """好友房: absent from the lobby's page and socket, a 404 by plain id and a
    4404 on its socket, open by the invite link and by the room code."""
    owner = _person(browser, site.base_url, DESKTOP)
    page = owner.page
    page.locator("#table-name-input").fill("好友房")
    page.locator("#private-input").check()
    page.locator("#create-table-btn").click()
    page.wait_for_url("**/tables/*/")
    owner.wait_connected()
    table_id = _table_id(owner)
    code = page.locator("#room-code").inner_text()
    link = page.locator("#invite-link").input_value()
    assert len(code) == 6
    assert code.isdigit()
    assert "?invite=" in link
    owner.sit(0)
    # a private table takes no wager: its owner is offered no wager control (QA)
    assert page.locator("#wager-form").is_hidden()

    guest = _person(browser, site.base_url, PHONE)
    gp = guest.page
    lobby_frames: list[str] = []
    gp.on("websocket", lambda ws: ws.on("framereceived", lambda f: lobby_frames.append(str(f))))
    gp.goto(site.base_url + "/")
    gp.locator("#lobby-status[data-state=open]").wait_for()
    assert gp.locator(f'.lobby-table[data-table-id="{table_id}"]').count() == 0
    owner.page.locator(".seat[data-seat='1'] button.add-bot").click()  # a change at the table
    owner.page.locator(".seat.is-bot").wait_for()
    time.sleep(0.5)
    assert not any("好友房" in f for f in lobby_frames), lobby_frames
    assert gp.locator(f'.lobby-table[data-table-id="{table_id}"]').count() == 0

    response = gp.goto(f"{site.base_url}/tables/{table_id}/")
    assert response.status == 404
    closed = gp.evaluate(
        """id => new Promise(done => { const ws = new WebSocket(
             'ws://' + location.host + '/ws/table/' + id + '/');
           ws.onclose = e => done(e.code); })""", table_id)
    assert closed == 4404
    assert gp.locator(".error-page h1").inner_text() == "页面不存在"  # the site's own 404 page
    guest.console.clear()  # the 404 asked for above is logged as a failed load

    gp.goto(link)  # the invite link
    guest.wait_connected()
    assert gp.locator("#table-name").inner_text() == "好友房"
    gp.goto(f"{site.base_url}/tables/{table_id}/")  # the invite is remembered
    guest.wait_connected()

    third = _person(browser, site.base_url, DESKTOP)
    tp = third.page
    tp.locator("#room-code-input").fill("000000" if code != "000000" else "111111")
    tp.locator("#join-code-btn").click()
    assert tp.url.rstrip("/") == site.base_url
    tp.locator("#room-code-input").fill(code)
    tp.locator("#join-code-btn").click()
    tp.wait_for_url(f"**/tables/{table_id}/")
    third.wait_connected()
    third.sit(2)
    for p in (owner, guest, third):
        p.assert_clean()


def test_friends_reach_a_table_with_spectators_off_and_a_standing_one_sees_no_game(
        site, browser):
    """A 好友房 with spectators off: the owner turns 允许旁观 off; a friend by room code and one by
    the invite link reach the table and sit; a stranger by plain id gets the
    404 page; a third friend standing there while the game runs gets no game
    frame and is told 本桌不允许旁观."""
    owner = _person(browser, site.base_url, DESKTOP)
    page = owner.page
    page.locator("#table-name-input").fill("闭门好友房")
    page.locator("#private-input").check()
    page.locator("#create-table-btn").click()
    page.wait_for_url("**/tables/*/")
    owner.wait_connected()
    table_id = _table_id(owner)
    code = page.locator("#room-code").inner_text()
    link = page.locator("#invite-link").input_value()
    owner.sit(0)
    page.locator("#spectators-allowed").uncheck()
    page.wait_for_function("() => YuanziTable.state().table.spectators_allowed === false")

    by_code = _person(browser, site.base_url, DESKTOP)
    by_code.page.locator("#room-code-input").fill(code)
    by_code.page.locator("#join-code-btn").click()
    by_code.page.wait_for_url(f"**/tables/{table_id}/")
    by_code.wait_connected()
    by_code.sit(1)
    by_link = _person(browser, site.base_url, PHONE)
    by_link.page.goto(link)
    by_link.wait_connected()
    by_link.sit(2)

    stranger = _person(browser, site.base_url, DESKTOP)
    assert stranger.page.goto(f"{site.base_url}/tables/{table_id}/").status == 404
    assert stranger.page.locator(".error-page h1").inner_text() == "页面不存在"
    stranger.console.clear()  # the 404 is logged as a failed load

    standing = _person(browser, site.base_url, DESKTOP)
    frames: list[str] = []
    standing.page.on("websocket", lambda ws: ws.on("framereceived",
                                                   lambda f: frames.append(str(f))))
    standing.page.goto(link)
    standing.wait_connected()
    owner.add_bots()
    for p in (owner, by_code, by_link):
        p.ready()
    for p in (owner, by_code, by_link):
        p.page.locator("#table-app[data-status=playing]").wait_for()
    standing.page.locator("#table-app[data-table-status=playing]").wait_for()
    notice = standing.page.locator("#nowatch-notice")
    notice.wait_for()
    assert "本桌不允许旁观" in notice.inner_text()
    # a chat line after the game began reaches the standing friend; no game did
    owner.page.locator("#chat-input").fill("开局了")
    owner.page.locator("#chat-send").click()
    standing.page.locator("#chat-log :text('开局了')").wait_for()
    assert not [f for f in frames if '"type": "game"' in f and '"view": null' not in f]
    assert standing.status() == "waiting"
    assert standing.page.locator("#hand .pcard").count() == 0
    for p in (owner, by_code, by_link, standing):
        p.assert_clean()


@DEVICES
def test_previous_trick_after_a_reload(site, browser, device):
    """上一轮: once a trick is over, the button (and the key L) shows it as it
    was played, and still does after a reload (the view carries it)."""
    me = _person(browser, site.base_url, device)
    _practice_game(me, "上一轮桌")
    page = me.page
    while not page.evaluate("!!window.YuanziTable.state().view.previous_trick"):
        if me.wait_turn_or_over() == "over":
            pytest.skip("the game ended before a trick did")  # cannot happen with 3 bots
        me.take_turn()
    page.reload()
    me.wait_connected()
    button = page.locator("#prev-trick-btn")
    button.wait_for()
    page.wait_for_function("() => !document.getElementById('prev-trick-btn').disabled")
    # The panel is a snapshot of the trick at the click; the bots go on
    # playing, so the click and the reading of the state are one JS task.
    prev = page.evaluate(
        "() => { document.getElementById('prev-trick-btn').click();"
        " return window.YuanziTable.state().view.previous_trick; }"
    )
    box = page.locator("#prev-trick")
    assert box.is_visible()
    assert box.locator(".prev-play").count() == len(prev["plays"])
    shown = box.locator(".prev-play:not(.passed) .pcard").count()
    assert shown == sum(len(c) for _, c in prev["plays"])
    assert "拿下了这一轮" in box.locator("#prev-trick-winner").inner_text()
    page.keyboard.press("Escape")
    assert box.is_hidden()
    page.keyboard.press("l")
    assert box.is_visible()
    me.assert_clean()


def test_quick_phrases_reach_the_other_players(site, browser):
    """快捷语: a phrase and an emoji sent by index reach everyone at the table
    as chat lines; a player who muted the chat sees only their own lines."""
    a = _person(browser, site.base_url, DESKTOP)
    b = _person(browser, site.base_url, PHONE)
    a.create_table("快捷语桌")
    table_url = a.page.url
    a.sit(0)
    b.page.goto(table_url)
    b.wait_connected()
    a.page.locator("#phrases .phrase", has_text="配合得好").click()
    a.page.locator("#phrases .phrase.reaction").first.click()
    for p in (a, b):
        p.page.locator("#chat-log .chat-text", has_text="配合得好").wait_for()
        p.page.locator("#chat-log .chat-text", has_text="👍").wait_for()
    assert "北京时间" in b.page.locator("#chat-log .chat-time").first.get_attribute("title")
    b.page.locator("#phrases .phrase", has_text="谢谢").click()
    b.page.locator("#chat-log .chat-line.mine .chat-text", has_text="谢谢").wait_for()
    for p in (a, b):
        p.assert_clean()


def test_required_fields_the_sites_words_and_english_jokers(site, browser):
    """An empty required field gets the site's own message (no browser
    bubble: the form is novalidate); an English browser gets the English UI,
    where the big and small jokers are drawn and named apart; the sound
    toggle starts off and is remembered; the spectator count lists watchers."""
    me = Player.open(browser, "p13req", **DESKTOP)
    page = me.page
    page.goto(site.base_url + "/accounts/login/")
    form = page.locator("form:has(input[name=password])")
    assert form.evaluate("f => f.noValidate")
    form.locator("button[type=submit]").click()
    assert page.locator(".field-required").first.inner_text() == "请填写这一项。"
    assert page.url.endswith("/accounts/login/")

    english = _person(browser, site.base_url, {**DESKTOP, "locale": "en-US"})
    _practice_game(english, "English table")
    ep = english.page
    assert ep.locator("#sound-btn").get_attribute("data-on") == "0"
    ep.locator("#sound-btn").click()
    ep.reload()
    english.wait_connected()
    assert ep.locator("#sound-btn").get_attribute("data-on") == "1"
    # the English UI names the jokers apart wherever they appear
    strings = ep.evaluate("JSON.parse(document.getElementById('table-strings').textContent)")
    assert strings["big_joker"] == "Big joker"
    assert strings["small_joker"] == "Small joker"
    assert strings["big_joker_short"] == "BIG"
    assert strings["small_joker_short"] == "SMALL"
    # someone watches (no count is shown for nobody): the count lists them
    page.goto(ep.url)
    ep.locator("#spectators").wait_for(state="visible")
    ep.locator("#spectators").click()
    assert ep.locator("#watchers-list").is_visible()
    english.assert_clean()
    me.assert_clean()


def test_the_next_deals_commitment_is_shown_before_ready_and_is_the_games(site, browser):
    """Provably fair deals (docs/fairness.md): the waiting table shows the
    next deal's commitment before anyone presses Ready (the server cannot pick
    its seed after seeing the players'); the game that starts shows the same
    one as its deal commitment."""
    me = _person(browser, site.base_url, DESKTOP)
    page = me.page
    me.create_table("承诺在先")
    me.sit(2)
    me.add_bots()
    nxt = page.locator("#next-fairness-line")
    nxt.wait_for()
    assert "下一局发牌承诺" in nxt.inner_text()
    promised = nxt.locator(".commitment").inner_text()
    assert len(promised) == 64, promised
    assert page.locator("#fairness-line").is_hidden()
    me.ready()
    page.locator("#table-app[data-status=playing]").wait_for()
    page.locator("#fairness-line").wait_for()
    assert page.locator("#fairness-line .commitment").inner_text() == promised
    assert nxt.is_hidden()  # nothing promised while the game runs
    me.assert_clean()


def test_the_header_stake_follows_a_double_clamp(site, browser):
    """The bar above the felt (static/js/info.js) shows an ended game's stake
    as the result counts it: doubled by a double clamp (RULES.md §6), said
    so; the base stake otherwise. Rendered by the page's own module from the
    game's state with its result set each way."""
    me = _person(browser, site.base_url, DESKTOP)
    _practice_game(me, "双夹桌")
    shown = me.page.evaluate("""async () => {
      const info = await import("/static/js/info.js");
      const ended = (double) => {
        const s = JSON.parse(JSON.stringify(window.YuanziTable.state()));
        Object.assign(s.view, {practice: false, stake: 3, status: "over"});
        s.view.result = {winner: 0, double_clamp: double, stake: double ? 6 : 3,
                         totals: [200, 100], rating_changes: [3, -3, 3, -3]};
        info.renderInfo(s);
        return document.getElementById("stake").textContent;
      };
      return [ended(true), ended(false)];
    }""")
    assert shown == ["对局分 6（双夹翻倍）", "对局分 3"]
