"""Friends and blocks in a real browser: one player on a desktop in
English, one on a 360 × 740 touch phone in Chinese. Found by name, a request,
accepted; the friend shown online at their table with a 加入 button that
opens it; a block that ends the friendship and keeps the blocked player's
request from ever showing. No horizontal scroll on the phone. The site and
browser fixtures are tests/test_browser.py's (``manage.py runsite`` as a child)."""

from __future__ import annotations

import pytest

from tests import test_browser as tb
from tests.browser import Player, chromium_path

pytestmark = [
    pytest.mark.skipif(chromium_path() is None,
                       reason="browser tests need Debian's chromium at /usr/bin/chromium"),
    pytest.mark.django_db(transaction=True),
]

site = tb.site
browser = tb.browser

PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


def _said(page, text: str) -> None:
    page.locator("#social-message", has_text=text).wait_for()


def _row(page, section: str, name: str):
    return page.locator(f'#{section} .social-row[data-username="{name}"]')


def _search(page, base_url: str, text: str, name: str) -> None:
    """Search ``text`` on the friends page; ``name`` is among the results."""
    page.goto(base_url + "/friends/")
    page.locator("#social-q").fill(text)
    page.locator(".social-search-form button[type=submit]").click()
    page.locator(f'#search-results .social-row[data-username="{name}"]').wait_for()


def test_find_request_accept_see_the_table_and_block(site, browser):
    base = site.base_url
    hong = Player.open(browser, "xiaohong", locale="en-US",
                       viewport={"width": 1280, "height": 900})
    ming = Player.open(browser, "xiaoming", **PHONE)
    hong.sign_up(base)
    ming.sign_up(base)
    hong.page.on("dialog", lambda d: d.accept())

    # xiaoming sits at his table: that is where his friends will find him
    ming.create_table("小明的桌")
    ming.sit(0)
    table_url = ming.page.url
    friends_page = ming.page.context.new_page()  # the table stays open (online)

    # xiaohong finds him by name and asks
    _search(hong.page, base, "XIAOM", "xiaoming")
    found = hong.page.locator('#search-results .social-row[data-username="xiaoming"]')
    found.get_by_role("button", name="Add friend").click()
    _said(hong.page, "Friend request sent.")
    _row(hong.page, "outgoing", "xiaoming").wait_for()
    assert found.get_by_text("Request sent").count() == 1

    # xiaoming, on his phone, in Chinese, accepts
    friends_page.goto(base + "/friends/")
    incoming = _row(friends_page, "incoming", "xiaohong")
    incoming.get_by_role("button", name="接受").click()
    _said(friends_page, "你们已成为好友。")
    _row(friends_page, "friends", "xiaohong").wait_for()
    assert friends_page.locator("#incoming .social-row").count() == 0
    assert friends_page.evaluate(NO_SIDEWAYS_SCROLL)
    # she has a page open (its /ws/me/ socket): online, at no table
    assert "在线" in _row(friends_page, "friends", "xiaohong").inner_text()

    # xiaohong sees him online at his table, and joins it from there
    hong.page.goto(base + "/friends/")
    friend = _row(hong.page, "friends", "xiaoming")
    assert "online" in friend.inner_text()
    assert "小明的桌" in friend.inner_text()
    friend.get_by_role("link", name="Join").click()
    hong.page.wait_for_url(table_url)
    hong.wait_connected()

    # she blocks him: the friendship ends, and his new request never reaches her
    _search(hong.page, base, "xiaoming", "xiaoming")
    hong.page.locator('#search-results .social-row[data-username="xiaoming"]') \
        .get_by_role("button", name="Block").click()
    _said(hong.page, "Blocked. They are not told.")
    _row(hong.page, "blocks", "xiaoming").wait_for()
    assert hong.page.locator("#friends .social-row").count() == 0

    friends_page.reload()
    assert friends_page.locator("#friends .social-row").count() == 0
    friends_page.locator("#social-q").fill("xiaohong")
    friends_page.locator(".social-search-form button[type=submit]").click()
    friends_page.locator('#search-results .social-row[data-username="xiaohong"]') \
        .get_by_role("button", name="加好友").click()
    _said(friends_page, "好友申请已发送。")  # as if sent
    _row(friends_page, "outgoing", "xiaohong").wait_for()
    assert friends_page.evaluate(NO_SIDEWAYS_SCROLL)

    hong.page.goto(base + "/friends/")
    assert hong.page.locator("#incoming .social-row").count() == 0
    assert "No friend requests." in hong.page.locator("#incoming").inner_text()
    hong.assert_clean()
    ming.assert_clean()


def test_the_friends_page_follows_requests_and_acceptances_live(site, browser):
    """Both on the friends page, neither reloads: her request appears in his
    requests, and his acceptance moves him into her friends (the per-user
    channel's notifications redraw the lists)."""
    base = site.base_url
    lan = Player.open(browser, "xiaolan", locale="en-US",
                       viewport={"width": 1280, "height": 900})
    gang = Player.open(browser, "xiaogang", **PHONE)
    lan.sign_up(base)
    gang.sign_up(base)
    gang.page.goto(base + "/friends/")
    gang.page.wait_for_function("document.body.dataset.personal === 'open'")
    _search(lan.page, base, "xiaogang", "xiaogang")
    lan.page.wait_for_function("document.body.dataset.personal === 'open'")
    lan.page.locator('#search-results .social-row[data-username="xiaogang"]') \
        .get_by_role("button", name="Add friend").click()
    _said(lan.page, "Friend request sent.")
    incoming = _row(gang.page, "incoming", "xiaolan")
    incoming.wait_for(timeout=10000)  # no reload
    incoming.get_by_role("button", name="接受").click()
    _said(gang.page, "你们已成为好友。")
    _row(lan.page, "friends", "xiaogang").wait_for(timeout=10000)  # no reload
    assert lan.page.locator("#outgoing .social-row").count() == 0
    lan.assert_clean()
    gang.assert_clean()
