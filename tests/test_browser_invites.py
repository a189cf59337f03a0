"""Friends at the table in a real browser, four people: a friend request from
a profile, accepted; the friend shown online in the lobby's friends panel (at a
private table: 在好友房 only); invites to the private table, one to the friend
from the lobby, one by name to a stranger on a phone, both joined from the
invite's toast (加入), one declined (拒绝); the table's link never reaches
someone without it. No horizontal scroll at 360 px. The site and browser
fixtures are tests/test_browser.py's (``manage.py runsite`` as a child)."""

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
DESK = {"viewport": {"width": 1280, "height": 900}}
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


def _panel_row(page, name: str):
    return page.locator(f'#friends-panel .social-row[data-username="{name}"]')


def _invite(host: Player, name: str) -> None:
    page = host.page
    page.locator("#table-invite-name").fill(name)
    page.locator("#table-invite-send").click()
    page.locator("#table-invite-said", has_text=name).wait_for()


def _join_from_toast(guest: Player, table_url: str) -> None:
    toast = guest.page.locator(".invite-toast")
    toast.wait_for()
    toast.locator("button[data-action=accept]").click()
    guest.page.wait_for_url(table_url)
    guest.wait_connected()
    guest.page.locator(".seat.is-me").wait_for()


def test_request_accept_see_online_invite_and_join_from_the_notice(site, browser):
    base = site.base_url
    ming = Player.open(browser, "xiaoming", **DESK)
    hong = Player.open(browser, "xiaohong", **PHONE)
    gang = Player.open(browser, "dagang", locale="en-US", **DESK)
    li = Player.open(browser, "xiaoli", **DESK)
    for p in (ming, hong, gang, li):
        p.sign_up(base)

    # xiaoming asks xiaohong from her profile; she accepts on her phone
    ming.page.goto(base + "/accounts/profile/xiaohong/")
    ming.page.locator("#profile-friend").get_by_role("button", name="加好友").click()
    ming.page.locator('#profile-friend[data-state="outgoing"]').wait_for()
    hong.page.goto(base + "/friends/")
    hong.page.locator('#incoming .social-row[data-username="xiaoming"]') \
        .get_by_role("button", name="接受").click()
    hong.page.locator('#friends .social-row[data-username="xiaoming"]').wait_for()

    # xiaoming opens a private table; in her lobby's panel he is online, 在好友房
    ming.page.goto(base + "/")
    ming.page.locator("#table-name-input").fill("小明的好友房")
    ming.page.locator("#private-input").check()
    ming.page.locator("#create-table-btn").click()
    ming.page.wait_for_url("**/tables/*/")
    ming.wait_connected()
    table_url = ming.page.url
    hong.page.goto(base + "/")
    row = _panel_row(hong.page, "xiaoming")
    row.wait_for()
    assert "在线" in row.inner_text()
    assert "在好友房" in row.inner_text()
    assert "小明的好友房" not in row.inner_text()
    assert hong.page.evaluate(NO_SIDEWAYS_SCROLL)

    # without an invite the table is not there for anyone
    assert li.page.goto(table_url).status == 404

    # he invites her (a friend) and dagang (by name); both join from the toast
    _invite(ming, "xiaohong")
    _join_from_toast(hong, table_url)
    assert hong.page.evaluate(NO_SIDEWAYS_SCROLL)
    gang.page.goto(base + "/accounts/profile/dagang/")  # any page: the toast comes there too
    _invite(ming, "dagang")
    _join_from_toast(gang, table_url)
    assert ming.page.locator(".seat:not(.empty)").count() == 3

    # xiaoli is invited and declines: the table stays shut to her
    li.page.goto(base + "/")
    _invite(ming, "xiaoli")
    toast = li.page.locator(".invite-toast")
    toast.wait_for()
    assert "小明的好友房" in toast.inner_text()
    toast.locator("button[data-action=decline]").click()
    toast.wait_for(state="detached", timeout=10_000)
    assert li.page.goto(table_url).status == 404

    # a seated stranger's seat menu: add as a friend
    gang_seat = ming.page.locator('.seat:has(.seat-name[title="dagang"])')
    gang_seat.locator(".seat-head").click()
    gang_seat.locator("button.seat-friend").click()
    gang_seat.locator("button.seat-friend", has_text="已申请").wait_for()
    for p in (ming, hong, gang):
        p.assert_clean()
    assert not li.errors  # her console has the two 404s of the shut table, nothing else
    assert all("404" in text for kind, text in li.console if kind == "error")


def test_join_pressed_after_the_invite_expired_says_so_and_the_toast_goes(site, browser):
    """A phone that slept through the two minutes: 加入 says the invite expired
    (asking nothing), the toast goes and does not come back on the next page."""
    import time

    base = site.base_url
    ming = Player.open(browser, "xiaoming", **DESK)
    hong = Player.open(browser, "xiaohong", **PHONE)
    for p in (ming, hong):
        p.sign_up(base)
    ming.page.goto(base + "/")
    ming.page.locator("#table-name-input").fill("小明的桌")
    ming.page.locator("#private-input").check()
    ming.page.locator("#create-table-btn").click()
    ming.page.wait_for_url("**/tables/*/")
    ming.wait_connected()
    hong.page.clock.install()
    hong.page.goto(base + "/")
    hong.page.locator("#lobby-status[data-state=open]").wait_for()
    _invite(ming, "xiaohong")
    toast = hong.page.locator(".invite-toast")
    toast.wait_for()
    asked: list[str] = []
    hong.page.on("request", lambda r: asked.append(r.url) if "/api/invites/" in r.url else None)
    # three minutes later by the phone's clock, its timers asleep
    hong.page.clock.set_system_time(time.time() + 180)
    toast.locator("button[data-action=accept]").click()
    hong.page.locator(".invite-toast", has_text="这个邀请已过期。").wait_for()
    assert "没有这个房间号" not in toast.inner_text()
    assert asked == []
    toast.wait_for(state="detached", timeout=10_000)
    hong.page.reload()
    hong.page.locator("#lobby-status[data-state=open]").wait_for()
    assert hong.page.locator(".invite-toast").count() == 0
    assert hong.page.evaluate(NO_SIDEWAYS_SCROLL)
