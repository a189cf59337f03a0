"""The profile's settings in a real browser, on a 360 × 740 touch phone in
Chinese: the avatar chooser (the chosen avatar then on the profile, the seat
and the lobby row), 你的数据's page, the fairness page rendered, and deleting
the account (a wrong password refused, then anonymised and signed out). No
horizontal scroll on any of these pages. The site and browser fixtures are
tests/test_browser.py's (``manage.py runsite`` as a child)."""

from __future__ import annotations

import pytest

from tests import test_browser as tb
from tests.browser import PASSWORD, Player, chromium_path

pytestmark = [
    pytest.mark.skipif(chromium_path() is None,
                       reason="browser tests need Debian's chromium at /usr/bin/chromium"),
    pytest.mark.django_db(transaction=True),
]

site = tb.site
browser = tb.browser

PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


def test_choose_an_avatar_on_a_phone_and_see_it_at_the_table(site, browser):
    base = site.base_url
    lan = Player.open(browser, "xiaolan", **PHONE)
    lan.sign_up(base)
    page = lan.page
    page.goto(base + "/accounts/profile/")
    chooser = page.locator("#avatar-chooser")
    assert chooser.locator("input[name=avatar]").count() == 12
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    chooser.locator('label.avatar-choice:has(input[value="panda"])').tap()
    assert chooser.locator('input[value="panda"]').is_checked()
    chooser.get_by_role("button", name="保存头像").tap()
    page.get_by_text("头像已保存。").wait_for()
    page.locator('.profile-head .avatar[data-avatar="panda"] img').wait_for()
    assert chooser.locator('input[value="panda"]').is_checked()
    loaded = page.evaluate("""() => [...document.querySelectorAll('.avatar img')]
        .every((img) => img.complete && img.naturalWidth > 0)""")
    assert loaded  # the SVGs are served by the site
    assert page.evaluate(NO_SIDEWAYS_SCROLL)

    # at the table the seat carries it (drawn by seats.js from the snapshot)
    page.goto(base + "/")
    lan.create_table("头像桌")
    lan.sit(0)
    page.locator('.seat[data-seat="0"] .avatar[data-avatar="panda"] img').wait_for()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    # and the lobby row its owner's
    page.goto(base + "/")
    row = page.locator(".lobby-table", has_text="头像桌")
    row.locator('.lt-owner .avatar[data-avatar="panda"]').wait_for()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    lan.assert_clean()


def test_your_data_and_deleting_the_account_on_a_phone(site, browser):
    base = site.base_url
    bai = Player.open(browser, "xiaobai", **PHONE)
    bai.sign_up(base)
    page = bai.page

    page.goto(base + "/fairness/")
    page.locator("h1", has_text="Provably fair deals").wait_for()
    assert page.locator("ol").first.locator("li").count() == 4  # the four steps, rendered
    assert "## " not in page.locator("main").inner_text()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)

    page.goto(base + "/accounts/profile/")
    page.get_by_role("link", name="你的数据").tap()
    page.locator("#download-data").wait_for()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    with page.expect_download() as info:
        page.locator("#download-data").tap()
    assert info.value.suggested_filename.startswith("yuanzi-data-")

    page.goto(base + "/accounts/profile/")
    page.get_by_role("link", name="注销账号").tap()
    form = page.locator("form.delete-form")
    form.wait_for()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    form.locator("input[name=password]").fill("not-my-password")
    form.get_by_role("button", name="永久注销我的账号").tap()
    page.get_by_text("密码不正确。").wait_for()
    form.locator("input[name=password]").fill(PASSWORD)
    form.get_by_role("button", name="永久注销我的账号").tap()
    page.get_by_text("你的账号已注销。再见！").wait_for()
    assert page.locator(".site-nav").get_by_role("link", name="xiaobai", exact=True).count() == 0
    assert page.evaluate(NO_SIDEWAYS_SCROLL)

    # the old name and password no longer log in
    page.goto(base + "/accounts/login/")
    login = page.locator("form:has(input[name=password])")
    login.locator("input[name=login]").fill("xiaobai")
    login.locator("input[name=password]").fill(PASSWORD)
    login.locator("button[type=submit]").tap()
    page.locator("form:has(input[name=password]) .errorlist, .alert, .errorlist").first.wait_for()
    assert "/accounts/login/" in page.url
