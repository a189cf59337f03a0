"""消息 and the header in a real browser (Debian chromium through Playwright):
a friend request made on another person's page reaches the header's badge and
a toast live, in the page's language, survives a reload, and is read when its
row is opened on /notifications/; at 360 px the header is one compact row in
Chinese and English, nothing scrolls sideways, the lobby's table-name box keeps
its width and its 招牌 badge is readable (WCAG contrast ≥ 4.5).

One site process (``manage.py runsite``, SQLite file of its own) serves the
whole module (conftest's ``site`` and ``browser``); each test signs up its own
people. Playwright's sync API is driven directly (NOTES.md).
"""

from __future__ import annotations

import itertools
import re

import pytest

from tests.browser import DESKTOP, NEEDS_CHROMIUM, PHONE, Player
from tests.servers import Site

pytestmark = NEEDS_CHROMIUM

_names = iter(range(10_000))

#: each device in one language: the phone in Chinese, the desktop in English
LANGUAGES = pytest.mark.parametrize(("device", "locale", "lang"), [
    (PHONE, "zh-CN", "zh"), (DESKTOP, "en-US", "en")], ids=["phone-zh", "desktop-en"])


def _person(browser, base_url: str, device: dict, locale: str = "zh-CN") -> Player:
    me = Player.open(browser, f"nt{next(_names)}x", locale=locale, **device)
    me.sign_up(base_url)
    return me


def _server(site: Site, code: str) -> str:
    """Run ``code`` in the site's own database (a shell of the site); returns
    the last line it printed."""
    out = site.manage("shell", "-c", code).strip().splitlines()
    return out[-1] if out else ""


def _contrast(page, selector: str) -> float:
    """The WCAG contrast ratio of ``selector``'s text on its own background."""
    colours = page.locator(selector).first.evaluate(
        "e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]")

    def luminance(css: str) -> float:
        r, g, b = (int(v) / 255 for v in re.findall(r"\d+", css)[:3])
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(c) for c in colours), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@LANGUAGES
def test_a_notification_goes_live_survives_a_reload_and_is_read_when_opened(
        site, browser, device, locale, lang):
    me = _person(browser, site.base_url, device, locale)
    page = me.page
    page.goto(site.base_url + "/rules/")  # a page with no socket of its own: /ws/me/
    page.locator("body[data-personal=open]").wait_for()
    badge = page.locator("#inbox-badge")
    assert badge.get_attribute("data-unread") == "0"
    assert badge.is_hidden()

    # another person asks to be friends, on their own page
    friend = _person(browser, site.base_url, DESKTOP)
    friend.page.goto(f"{site.base_url}/friends/?q={me.name}")
    friend.page.locator(f"#search-results .social-row[data-username='{me.name}'] button") \
        .first.click()
    friend.page.wait_for_load_state()

    # live: the badge counts it and a toast says it in this page's language
    page.locator("#inbox-badge[data-unread='1']").wait_for()
    assert badge.is_visible()
    assert badge.locator(".inbox-count").inner_text() == "1"
    toast = page.locator("#me-toasts .notification-toast[data-kind=friend_request]")
    words = (f"{friend.name} 请求加你为好友。" if lang == "zh"
             else f"{friend.name} asks to be your friend.")
    assert toast.inner_text() == words
    assert toast.locator("a").get_attribute("href") == "/friends/"

    # a reload: still there, rendered by the server
    page.reload()
    assert page.locator("#inbox-badge").get_attribute("data-unread") == "1"
    assert page.locator("#inbox-badge").is_visible()

    # the centre: opening it reads nothing; opening the row reads it
    page.locator("#inbox-link").click()
    page.wait_for_url("**/notifications/")
    row = page.locator(".inbox-row").first
    assert "unread" in (row.get_attribute("class") or "")
    assert row.locator(".inbox-text").inner_text().startswith(words)
    page.reload()
    assert page.locator(".inbox-row.unread").count() == 1
    row.locator("a.inbox-text").click()
    page.wait_for_url("**/friends/")
    assert page.locator("#inbox-badge").get_attribute("data-unread") == "0"
    assert page.locator("#inbox-badge").is_hidden()
    page.goto(site.base_url + "/notifications/")
    assert page.locator(".inbox-row.unread").count() == 0
    assert page.locator(".inbox-row").count() == 1
    me.assert_clean()
    friend.assert_clean()


def test_mark_all_as_read_and_the_other_pages_badge_follows(site, browser):
    me = _person(browser, site.base_url, PHONE)
    _server(site, "from django.contrib.auth.models import User; from accounts import inbox; "
                  "from django.db import transaction\n"
                  "with transaction.atomic():\n"
                  f"    u = User.objects.get(username={me.name!r})\n"
                  "    [inbox.post(u.pk, 'friend_request', {'name': f'p{i}'}, '/friends/') "
                  "for i in range(3)]\n")
    other = me.page.context.new_page()
    other.goto(site.base_url + "/shop/")
    other.locator("body[data-personal=open]").wait_for()
    assert other.locator("#inbox-badge").get_attribute("data-unread") == "3"
    page = me.page
    page.goto(site.base_url + "/notifications/")
    page.locator("body[data-personal=open]").wait_for()
    assert page.locator(".inbox-row.unread").count() == 3
    page.locator("#inbox-read-all button").click()
    page.locator("#inbox-badge[data-unread='0']").wait_for(state="attached")
    assert page.locator(".inbox-row.unread").count() == 0
    other.locator("#inbox-badge[data-unread='0']").wait_for(state="attached")  # live, elsewhere
    page.reload()
    assert page.locator(".inbox-row.unread").count() == 0
    me.assert_clean()


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"], ids=["zh", "en"])
def test_the_phone_header_is_one_row_and_the_lobby_fits(site, browser, locale):
    me = _person(browser, site.base_url, PHONE, locale)
    _server(site, "from django.contrib.auth.models import User; from games import tables; "
                  "from shop import items; from tests.test_items import give; "
                  f"u = User.objects.get(username={me.name!r}); "
                  "t = tables.create_table(u, 'x'); s = give(u, 'gold_sign'); "
                  "items.use(u, s, 'gold_sign', 'sign-1', table_id=t.pk, name='金字招牌桌')")
    page = me.page
    page.goto(site.base_url + "/")
    page.locator("#lobby-status[data-state=open]").wait_for()
    header = page.locator(".site-header").bounding_box()
    assert header["height"] < 60, header  # one row, not three
    for part in (".brand", "#me-coins", "#inbox-link", ".site-menu-button"):
        box = page.locator(part).bounding_box()
        assert box["y"] + box["height"] <= header["y"] + header["height"], part
        assert box["x"] + box["width"] <= 360, part
    assert page.locator(".site-nav a[href='/rules/']").is_hidden()  # in the menu
    page.locator(".site-menu-button").click()
    page.locator(".site-nav a[href='/rules/']").wait_for()
    assert page.locator("#lang-select").is_visible()
    assert page.locator(".site-nav a[href='/accounts/profile/']").is_visible()

    # the table-name box keeps a usable width; the 招牌 badge reads well on the felt
    assert page.locator("#table-name-input").bounding_box()["width"] >= 200
    # 大厅 and its live badge on a line of their own, the form below them (a
    # tester saw the heading squeezed beside the form)
    heading = page.locator(".lobby-head h1").bounding_box()
    form = page.locator("#create-table-form").bounding_box()
    assert form["y"] >= heading["y"] + heading["height"] - 0.5, (heading, form)
    assert heading["height"] < 50, heading
    page.locator(".lobby-table .lt-sign").first.wait_for()
    assert _contrast(page, ".lobby-table .lt-sign") >= 4.5
    for path in ("/", "/notifications/", "/rules/", "/friends/", "/shop/"):
        page.goto(site.base_url + path)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 360, path
        assert page.locator(".site-header").bounding_box()["height"] < 60, path
    # the table page too (its wager form's hint wraps under it in English)
    page.goto(site.base_url + "/")
    page.locator(".lobby-table .lt-foot a").first.click()
    page.locator("#conn-status[data-state=open]").wait_for()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    assert page.locator(".site-header").bounding_box()["height"] < 60
    me.assert_clean()


def test_a_visitors_phone_header_keeps_log_in_in_the_row(site, browser):
    visitor = Player.open(browser, "nt-visitor", **PHONE)
    page = visitor.page
    page.goto(site.base_url + "/rules/")
    assert page.locator(".site-header").bounding_box()["height"] < 60
    assert page.locator(".site-nav a[href^='/accounts/login/']").is_visible()
    assert page.locator("#inbox-link").count() == 0
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360


STACK_JS = """async () => {
  const me = await import("/static/js/me.js");
  const notices = await import("/static/js/notices.js");
  notices.showNotice({code: "wager_settled", message: "押宝结算：你赢得 10 金币"});
  for (const name of ["第一个原子", "第一次接风", "首胜"]) {
    me.personalFrame({type: "notification", unread: 1, notification: {
      kind: "achievement_x", text: {"zh-hans": "达成成就：" + name, en: name}, link: "/"}});
  }
}"""


def test_a_tables_toasts_are_one_stack_and_game_news_stays(site, browser):
    """On a table page the header's notifications join the table's own toasts
    (one stack placed clear of the hand and buttons; two boxes overlapped in
    the felt and three achievements hid a wager's settlement): of four toasts
    the oldest notification goes, the game's news stays."""
    me = _person(browser, site.base_url, DESKTOP)
    me.create_table("叠放桌")
    page = me.page
    me.wait_connected()
    page.evaluate(STACK_JS)
    toasts = page.locator("#toasts .toast")
    assert toasts.count() == 3
    assert page.locator("#me-toasts .toast").count() == 0
    assert page.locator("#toasts .notice-toast[data-code=wager_settled]").count() == 1
    texts = toasts.all_inner_texts()
    assert "达成成就：第一个原子" not in texts, texts
    assert "达成成就：首胜" in texts, texts
    # one stack: no two toasts overlap
    boxes = [toasts.nth(i).bounding_box() for i in range(3)]
    boxes.sort(key=lambda b: b["y"])
    assert all(a["y"] + a["height"] <= b["y"] + 1 for a, b in itertools.pairwise(boxes)), boxes
    me.assert_clean()
