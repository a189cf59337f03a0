"""The table page's report control and fairness line, and the moderator
console, in a real browser (Debian chromium through Playwright, the site as
``make run`` serves it; see tests/test_browser.py). Saves the console's
screenshot for the README (docs/img/moderation-console.png)."""

from __future__ import annotations

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
    dialog.locator("#report-send").click()
    page.wait_for_function("() => (window.__toasts || []).length > 0")
    assert "举报" in page.evaluate("window.__toasts[0]")
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
