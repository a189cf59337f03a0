"""The table page's report control and fairness line, and the moderator
console, in a real browser (Debian chromium through Playwright, the site as
``make run`` serves it; see tests/test_browser.py). Saves the console's
screenshot for the README (docs/img/moderation-console.png)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tests.browser import Player, chromium_path
from tests.test_browser import browser, site  # noqa: F401  (fixtures)

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="needs /usr/bin/chromium")

IMG = Path(__file__).resolve().parent.parent / "docs" / "img" / "moderation-console.png"


def test_a_player_reports_a_chat_line_and_a_moderator_sees_it(site, browser):  # noqa: F811
    writer = Player.open(browser, "xiewen", viewport={"width": 1000, "height": 760})
    writer.sign_up(site.base_url)
    writer.create_table("举报桌")
    writer.sit(0)
    writer.page.locator("#chat-input").fill("你们都是菜鸟")
    writer.page.locator("#chat-send").click()
    # no ⚑ on one's own line: nobody reports themselves (a tester saw one)
    own = writer.page.locator("#chat-log li", has_text="你们都是菜鸟")
    own.wait_for()
    assert own.locator("button.chat-report").count() == 0

    reader = Player.open(browser, "jubao", viewport={"width": 390, "height": 800})
    reader.sign_up(site.base_url)
    reader.open_from_lobby(site.base_url, "举报桌")
    page = reader.page
    line = page.locator("#chat-log li", has_text="你们都是菜鸟")
    line.locator("button.chat-report").click()
    dialog = page.locator("#report-dialog")
    dialog.wait_for()
    assert "你们都是菜鸟" in dialog.locator("#report-line").inner_text()
    dialog.locator("#report-category").select_option("chat_abuse")
    dialog.locator("#report-note").fill("骂人")
    # a double click files one report: the button is off while the first is
    # on its way, and a second submit then sends nothing (one script task,
    # so the answer cannot arrive in between)
    sent = page.evaluate("""() => {
        const proto = WebSocket.prototype, send = proto.send, out = [];
        proto.send = function (data) { out.push(String(data)); return send.call(this, data); };
        document.getElementById("report-send").click();
        document.getElementById("report-form").requestSubmit();
        const off = document.getElementById("report-send").disabled;
        proto.send = send;
        return {reports: out.filter((d) => d.includes('"report"')).length, off};
    }""")
    assert sent == {"reports": 1, "off": True}
    page.wait_for_function("() => (window.__toasts || []).length > 0")
    assert "举报" in page.evaluate("window.__toasts[0]")
    # the answer turns it back on
    page.wait_for_function("() => !document.getElementById('report-send').disabled")
    out = site.manage("shell", "-c", "from moderation.models import Report; "
                      "r = Report.objects.get(); print(r.category, r.target.username, r.note)")
    assert out.split()[-3:] == ["chat_abuse", "xiewen", "骂人"]

    # the writer plays a practice game: the deal's commitment shows under the table
    writer.add_bots()
    writer.ready()
    writer.page.locator("#table-app[data-status=playing]").wait_for()
    fair = writer.page.locator("#fairness-line")
    fair.wait_for()
    assert len(fair.locator(".commitment").inner_text()) == 64

    # a moderator's console lists the table and the report
    site.manage("moderator", "add", "jubao")
    page.goto(site.base_url + "/mod/")
    page.locator("#mod-tables td a", has_text="举报桌").wait_for()
    assert "1 个待处理的举报" in page.inner_text("main") or "1" in page.inner_text("main")
    IMG.parent.mkdir(exist_ok=True)
    page.set_viewport_size({"width": 1000, "height": 620})
    page.screenshot(path=str(IMG), full_page=False)
    page.goto(site.base_url + "/mod/reports/")
    page.locator("a", has_text="#1").click()
    assert "你们都是菜鸟" in page.inner_text(".mod-chat")
    writer.assert_clean()
    reader.assert_clean()


def test_the_moderator_badge_shows_among_the_watchers_at_a_seat_and_in_chat(
        site, browser):  # noqa: F811
    player = Player.open(browser, "zhuozhu", viewport={"width": 1000, "height": 760})
    player.sign_up(site.base_url)
    player.create_table("徽章桌")
    player.sit(0)
    player.page.locator("#chat-input").fill("我是普通玩家")
    player.page.locator("#chat-send").click()

    moderator = Player.open(browser, "guanli", viewport={"width": 1000, "height": 760})
    moderator.sign_up(site.base_url)
    site.manage("moderator", "add", "guanli")
    moderator.open_from_lobby(site.base_url, "徽章桌")

    # watching: the player's page names the moderator, badged, among the watchers
    page = player.page
    watching = page.locator("#mod-watching")
    watching.wait_for(state="visible")
    assert "guanli" in watching.inner_text()
    assert "管理员" in watching.inner_text()
    page.locator("#spectators").click()
    watcher = page.locator("#watchers-names li.watcher", has_text="guanli")
    watcher.wait_for(state="visible")
    assert watcher.locator(".badge.moderator").inner_text() == "管理员"

    # chat: the badge beside the moderator's line, none beside the player's
    moderator.page.locator("#chat-input").fill("请文明聊天")
    moderator.page.locator("#chat-send").click()
    line = page.locator("#chat-log li", has_text="请文明聊天")
    line.wait_for()
    assert line.locator(".chat-user").inner_text() == "guanli"
    assert line.locator(".badge.mod").inner_text() == "管理员"
    assert page.locator("#chat-log li", has_text="我是普通玩家").locator(".badge").count() == 0

    # seated: the badge on the moderator's seat, not on the player's
    moderator.sit(2)
    page.locator('.seat[data-seat="2"] .seat-head .badge.mod').wait_for(state="visible")
    assert page.locator('.seat[data-seat="0"] .seat-head .badge').count() == 0
    page.wait_for_function("() => document.getElementById('mod-watching').hidden")
    player.assert_clean()
    moderator.assert_clean()



def test_a_suspended_player_is_signed_out_and_the_page_does_not_reconnect(
        site, browser):  # noqa: F811
    """A moderator suspends a player from the console: the player's table page
    shows the notice, the connection says 已被登出 instead of reconnecting, and
    the page reloads signed out (docs/protocol.md, 4403)."""
    me = Player.open(browser, "fenghao", viewport={"width": 1000, "height": 760})
    me.sign_up(site.base_url)
    me.create_table("封号桌")
    me.sit(0)
    page = me.page
    mod = Player.open(browser, "fenghao_mod", viewport={"width": 1000, "height": 760})
    mod.sign_up(site.base_url)
    site.manage("moderator", "add", "fenghao_mod")
    mod.page.goto(site.base_url + "/mod/users/fenghao/")
    form = mod.page.locator("form.mod-action[action$='/suspend/']")
    form.locator("input[name=amount]").fill("1")
    form.locator("select[name=unit]").select_option("h")
    form.locator("[name=reason]").fill("刷屏")
    form.locator("button[type=submit]").click()
    page.locator("#conn-status[data-state=signed_out]").wait_for(state="attached")
    assert any("刷屏" in t for t in me.toasts()), me.toasts()
    assert page.locator("#conn-status").text_content() == "你已被登出。"
    # the reload: the site as a signed-out visitor sees it
    page.locator(".site-nav a[href^='/accounts/login/']").wait_for(timeout=15_000)
    assert page.locator(".site-nav").get_by_role("link", name="fenghao", exact=True).count() == 0


KICKED = """
from games.models import Table
from moderation import actions, roles
from tests.browser import PASSWORD
from tests.helpers import make_players, start_game
mod, *four = make_players(5, "tiren%(tag)s")
roles.add(mod)
game = start_game(four)
# not the owner: a kicked owner nobody is seated to succeed closes the table
# (the others, with no page open here, are stood up at the kick's end)
Table.objects.filter(pk=game.table_id).update(owner=four[1])
four[0].set_password(PASSWORD)
four[0].save()
actions.kick(mod, game.table_id, four[0].username, "挂机不打")
print(four[0].username, game.table_id)
"""


def test_a_kicked_player_reloading_reads_why_and_until_when_and_gets_no_seat(
        site, browser):  # noqa: F811
    """A player a moderator kicked opens the table again (the live notice long
    gone): the stand-up banner says a moderator removed them and when they may
    sit there again (the view's ``stood_reason``), in their page's language,
    and no empty seat offers 坐下."""
    said = site.manage("shell", "-c", KICKED % {"tag": uuid.uuid4().hex[:6]})
    name, table_id = said.split()[-2:]  # after the shell's own first line
    for locale, words in (("zh-CN", "管理员已将你请离这张桌子"),
                          ("en-US", "A moderator removed you")):
        p = Player.open(browser, name, viewport={"width": 1000, "height": 760}, locale=locale)
        p.log_in(site.base_url)
        p.page.goto(f"{site.base_url}/tables/{table_id}/")
        p.wait_connected()
        # the game's result first (not yet seen in this browser), saying it too
        stood = p.page.locator("#result-panel .result-stood")
        stood.wait_for()
        assert words in stood.inner_text(), stood.inner_text()
        p.page.locator("#result-close").click()
        banner = p.page.locator("#stood-notice")
        banner.wait_for()
        assert words in banner.inner_text(), banner.inner_text()
        p.page.locator('.seat[data-seat="3"]').wait_for()
        assert p.page.locator(".seat button.sit").count() == 0
        p.assert_clean()
        p.page.context.close()


KICKED_WAITING = """
from games import tables
from moderation import actions, roles
from tests.browser import PASSWORD
from tests.helpers import make_players
mod, owner, me = make_players(3, "qingli%(tag)s")
roles.add(mod)
table = tables.create_table(owner)
tables.sit(table.pk, me, 1)
me.set_password(PASSWORD)
me.save()
actions.kick(mod, table.pk, me.username, "挂机不打")
print(me.username, table.pk)
"""


def test_a_player_kicked_from_a_waiting_table_reads_the_ban_as_the_page_opens(
        site, browser):  # noqa: F811
    """A tester's kicked player reloaded the waiting table and saw every
    seat's 坐下 with nothing said: the notice says until when they may sit."""
    said = site.manage("shell", "-c", KICKED_WAITING % {"tag": uuid.uuid4().hex[:6]})
    name, table_id = said.split()[-2:]
    p = Player.open(browser, name, viewport={"width": 390, "height": 844}, is_mobile=True,
                    has_touch=True)
    p.log_in(site.base_url)
    p.page.goto(f"{site.base_url}/tables/{table_id}/")
    p.wait_connected()
    sit = p.page.locator("#sit-notice")
    sit.wait_for()
    assert "之后才能再在这里入座" in sit.inner_text(), sit.inner_text()
    p.assert_clean()
    p.page.context.close()


# each console label's words and its own field, as drawn: the words on a line
# of their own, left-aligned with the field, just above it
LABEL_BOXES_JS = """() => [...document.querySelectorAll('form.mod-action label')].map((label) => {
  const words = label.querySelector('.mod-label').getBoundingClientRect();
  const field = label.querySelector('input, textarea').getBoundingClientRect();
  return {text: label.querySelector('.mod-label').textContent,
          above: words.bottom <= field.top + 1, gap: field.top - words.bottom,
          left: Math.abs(words.left - field.left)};
})"""


def _above_its_field(box: dict) -> bool:
    return box["above"] and box["gap"] < 12 and box["left"] < 2


@pytest.mark.parametrize("width", [1000, 360])
def test_the_table_pages_labels_sit_above_their_own_fields(site, browser, width):  # noqa: F811
    """A tester found 理由 at the bottom-left of its box on /mod/tables/<id>/;
    and the rename box counts to 40 (static/js/forms.js ``data-count``)."""
    owner = Player.open(browser, "bj" + uuid.uuid4().hex[:6])
    owner.sign_up(site.base_url)
    table_id = owner.create_table("布局桌").rstrip("/").rsplit("/", 1)[-1]
    mod = Player.open(browser, "gl" + uuid.uuid4().hex[:6],
                      viewport={"width": width, "height": 900})
    mod.sign_up(site.base_url)
    site.manage("moderator", "add", mod.name)
    page = mod.page
    page.goto(f"{site.base_url}/mod/tables/{table_id}/")
    for summary in page.locator("details summary").all():
        summary.click()
    boxes = page.evaluate(LABEL_BOXES_JS)
    assert len(boxes) == 4  # the kick's reason, the new name and its reason, the close's reason
    assert [b for b in boxes if not _above_its_field(b)] == []
    name = page.locator('form.mod-action input[name="name"]')
    name.fill("名" * 35)
    assert page.locator("form.mod-action .field-count").inner_text() == "35/40"
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    # the user page's forms the same (a length with its unit, coins)
    page.goto(f"{site.base_url}/mod/users/{owner.name}/")
    boxes = page.evaluate(LABEL_BOXES_JS)
    # not muted, not suspended: no lifting forms (their reasons) to label
    assert len(boxes) == 8
    assert [b for b in boxes if not _above_its_field(b)] == []
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    mod.assert_clean()


# every frame the page sends on its socket, in window.__sent
RECORD_SENDS_JS = """
window.__sent = [];
const realSend = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  window.__sent.push(String(data));
  return realSend.call(this, data);
};
"""
REPORTS_SENT_JS = "() => window.__sent.filter((d) => JSON.parse(d).type === 'report').length"


DESK = {"viewport": {"width": 1000, "height": 760}}


def _two_at_a_table(the_site, chromium, table: str, prefixes: tuple[str, str], device: dict,
                    init_script: str | None = None) -> tuple[Player, Player]:
    """Two new people: the first (on ``device``, with ``init_script`` run on
    every page it opens) creates ``table``, the second (a desktop) opens it
    from the lobby and sits at seat 1."""
    tag = uuid.uuid4().hex[:6]
    me = Player.open(chromium, prefixes[0] + tag, **device)
    if init_script:
        me.page.add_init_script(init_script)
    me.sign_up(the_site.base_url)
    me.create_table(table)
    other = Player.open(chromium, prefixes[1] + tag, **DESK)
    other.sign_up(the_site.base_url)
    other.open_from_lobby(the_site.base_url, table)
    other.sit(1)
    return me, other


def test_a_player_who_escaped_is_still_listed_in_the_report_dialog(site, browser):  # noqa: F811
    """A tester could not report a player who had escaped: the dialog listed
    only the seats. It lists everyone the server takes (seated, or playing the
    table's game): the escaper, stood up, is there; the reporter and the bots
    are not, nobody twice; the report is accepted."""
    me, escaper = _two_at_a_table(site, browser, "逃跑举报桌", ("tpj", "tpy"), DESK)
    me.add_bots()
    me.ready()
    escaper.ready()
    page = me.page
    page.locator("#table-app[data-status=playing]").wait_for()
    escaper.page.locator("#escape-btn").click()
    escaper.page.locator("#escape-confirm").click()
    page.locator("#table-app[data-status=over]").wait_for()
    # stood up: no seat of the table holds them any more
    page.wait_for_function(
        "(id) => !window.YuanziTable.state().table.seats"
        ".some((s) => s.player && s.player.id === id)",
        arg=page.evaluate("window.YuanziTable.state().view.players[1].user_id"))
    if page.locator("#result-close").is_visible():
        page.locator("#result-close").click()
    page.locator("#report-btn").click()
    dialog = page.locator("#report-dialog")
    dialog.wait_for()
    names = dialog.locator("#report-user option").all_inner_texts()
    assert names == [escaper.name]
    assert dialog.locator("#report-send").is_enabled()
    dialog.locator("#report-category").select_option("stalling")
    dialog.locator("#report-send").click()
    page.wait_for_function("() => (window.__toasts || []).some((t) => t.includes('举报'))")
    dialog.wait_for(state="hidden")
    out = site.manage("shell", "-c", "from moderation.models import Report; "
                      f"r = Report.objects.get(reporter__username='{me.name}'); "
                      "print(r.category, r.target.username, r.game_id is not None)")
    assert out.split()[-3:] == ["stalling", escaper.name, "True"]
    me.assert_clean()
    escaper.assert_clean()


def test_a_double_tap_on_send_files_one_report_and_stands_nobody_up(
        site, browser):  # noqa: F811
    """On a phone, a double-tap on 发送举报 went through to 站起 beneath the
    closing dialog and stood the reporter up. The button is off once pressed
    (one report), the dialog closes with the answer, and a tap just after it
    closes reaches nothing beneath; a later tap works."""
    me, other = _two_at_a_table(
        site, browser, "双击举报桌", ("sjj", "sjy"),
        {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True},
        init_script=RECORD_SENDS_JS)
    page = me.page
    page.locator('.seat[data-seat="1"]', has_text=other.name).wait_for()
    assert page.locator("#stand-btn").is_visible()
    page.locator("#report-btn").tap()
    dialog = page.locator("#report-dialog")
    dialog.wait_for()
    assert dialog.locator("#report-user option").all_inner_texts() == [other.name]
    send = dialog.locator("#report-send").bounding_box()
    x, y = send["x"] + send["width"] / 2, send["y"] + send["height"] / 2
    page.touchscreen.tap(x, y)
    page.touchscreen.tap(x, y)
    # the second tap as late as a slow double-tap's: just after the dialog
    # closed, on 站起 (where the page beneath would take it)
    dialog.wait_for(state="hidden")
    stand = page.locator("#stand-btn").bounding_box()
    page.touchscreen.tap(stand["x"] + stand["width"] / 2, stand["y"] + stand["height"] / 2)
    page.wait_for_timeout(800)
    assert page.evaluate(REPORTS_SENT_JS) == 1
    assert page.evaluate(
        "() => window.__sent.filter((d) => JSON.parse(d).type === 'stand').length") == 0
    assert page.locator('.seat.is-me[data-seat="0"]').count() == 1
    assert any("举报" in t for t in me.toasts()), me.toasts()
    out = site.manage("shell", "-c", "from moderation.models import Report; print(Report"
                      f".objects.filter(reporter__username='{me.name}').count())")
    assert out.split()[-1] == "1"
    # the guard is brief: a tap now works (the dialog opens again)
    page.locator("#report-btn").tap()
    dialog.wait_for()
    assert dialog.locator("#report-send").is_enabled()
    page.locator("#report-cancel").tap()
    dialog.wait_for(state="hidden")
    me.assert_clean()
    other.assert_clean()
