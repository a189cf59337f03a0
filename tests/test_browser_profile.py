"""The profile's settings in a real browser, on a 360 × 740 touch phone in
Chinese: the avatar chooser (the chosen avatar then on the profile, the seat
and the lobby row), 你的数据's page, the fairness page rendered, and deleting
the account (a wrong password refused, then anonymised and signed out). No
horizontal scroll on any of these pages, nor on the profile's recent games
after a game at a table with a long name (390 and 360 px, English and
Chinese). The site and browser fixtures are tests/test_browser.py's
(``manage.py runsite`` as a child)."""

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
    page.locator("h1", has_text="可验证的公平发牌").wait_for()  # in the page's language
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


#: 37 characters (a table's name may have 40); CJK breaks between any two
#: characters, so a squeezed column once stacked it one character a line
LONG_TABLE_NAME = "周五晚上老朋友们一起打原子的超长桌名欢迎大家来玩 Friday night"


def test_recent_games_with_a_long_table_name_fit_a_phone(site, browser):
    """A finished rated game (its replay saved) at a table with a long name,
    and a practice game (its "Save with a recorder" button):
    the profile's "Recent games" row stays inside a 390 or 360 px phone in
    English and in Chinese (it was 435 px wide), the table's name on at most
    two lines, not one character a line (its whole text in the cell's title);
    on a desktop every column and the whole name show."""
    base = site.base_url
    assert len(LONG_TABLE_NAME) <= 40
    site.manage("shell", "-c", "from tests.page_states import saved_replay; "
                f"saved_replay('longname', {LONG_TABLE_NAME!r}, {LONG_TABLE_NAME!r}); "
                "from django.contrib.auth import get_user_model; "
                "from tests.browser import PASSWORD; "
                "u = get_user_model().objects.get(username='longname2'); "
                "u.set_password(PASSWORD); u.save(); "
                "from tests.page_states import finished_practice; finished_practice('longname2')")
    cell_js = """() => {
        const row = [...document.querySelectorAll('.recent-games-table .recent-game')]
            .find((tr) => tr.textContent.includes('Friday night'));
        const cell = row.querySelector('td:nth-child(2)');  // the table's name
        const line = parseFloat(getComputedStyle(cell).lineHeight) || 20;
        const text = document.createRange();
        text.selectNodeContents(cell);
        return {rowHeight: row.getBoundingClientRect().height,
                height: text.getBoundingClientRect().height, line,
                title: cell.getAttribute('title'),
                right: document.querySelector('.recent-games').getBoundingClientRect().right,
                header: document.querySelector('.site-header').getBoundingClientRect().width,
                scrollWidth: document.documentElement.scrollWidth,
                tableWidth: row.closest('table').getBoundingClientRect().width,
                cells: [...row.children].map((td) => Math.round(td.getBoundingClientRect().width))};
    }"""
    for locale, replay in (("en-US", "Watch the replay"), ("zh-CN", "观看录像")):
        me = Player.open(browser, "longname2", locale=locale,
                         **{**PHONE, "viewport": {"width": 390, "height": 844}})
        me.log_in(base)
        page = me.page
        for width in (390, 360):
            page.set_viewport_size({"width": width, "height": 844})
            page.goto(base + "/accounts/profile/")
            row = page.locator(".recent-games-table .recent-game", has_text="Friday night")
            assert page.locator(".recent-games-table .recent-game").count() == 2  # and a practice
            row.get_by_role("link", name=replay).wait_for(state="attached")
            got = page.evaluate(cell_js)
            where = str((locale, width, got))
            # a mobile viewport zooms out to fit a too-wide page (innerWidth grows with it)
            assert got["scrollWidth"] <= width, where
            assert page.evaluate(NO_SIDEWAYS_SCROLL), where
            assert got["height"] < 3 * got["line"], where  # not one character a line
            assert got["title"] == LONG_TABLE_NAME, where
            assert got["right"] <= width, where  # the card
            assert got["header"] >= width - 1, where  # the header to the right edge
        me.assert_clean()
        me.page.context.close()

    # desktop: nothing hidden, the whole name
    me = Player.open(browser, "longname2", locale="en-US", viewport={"width": 1366, "height": 800})
    me.log_in(base)
    page = me.page
    page.goto(base + "/accounts/profile/")
    row = page.locator(".recent-games-table .recent-game", has_text="Friday night")
    heads = page.locator(".recent-games-table thead th")
    assert [heads.nth(i).is_visible() for i in range(heads.count())] == [True] * 6
    got = page.evaluate(cell_js)
    assert got["height"] < 3 * got["line"], str(got)
    assert row.locator("td:nth-child(2)").inner_text().strip() == LONG_TABLE_NAME
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    me.assert_clean()


def test_a_double_click_on_save_with_a_recorder_saves_once_and_says_nothing_wrong(site, browser):
    """A tester double-clicked 用录像机保存: the game was saved with the one
    recorder, then "这一格里不是这个道具。" showed (the second click sent the
    recorder again). The button is off while its use is on its way; with no
    recorder left the other game's button says where to buy one."""
    me = Player.open(browser, "recdbl", viewport={"width": 1280, "height": 800})
    me.sign_up(site.base_url)
    for _ in range(2):  # one game a call: each is under a minute on PostgreSQL too
        site.manage("shell", "-c", "from tests.page_states import finished_practice; "
                    "finished_practice('recdbl')")
    # the catalogue comes from a data migration, which a flushed PostgreSQL test database lacks
    site.manage("shell", "-c",
                "import importlib; from django.apps import apps; "
                "importlib.import_module('shop.migrations.0004_catalogue_data')"
                ".add_items(apps, None); "
                "from django.contrib.auth import get_user_model; from shop import purchase; "
                "from shop.models import Item; "
                "u = get_user_model().objects.get(username='recdbl'); "
                "purchase.buy(u, 'recorder', 1, Item.objects.get(code='recorder').price)")
    page = me.page
    page.goto(site.base_url + "/accounts/profile/")
    buttons = page.locator(".record-btn")
    assert buttons.count() == 2
    buttons.first.dblclick()
    page.locator(".record-cell .badge.saved").wait_for()
    page.wait_for_timeout(500)  # the second click's answer, had it been sent
    assert page.locator("#inventory-message").inner_text() == "已存入你的录像库。"
    assert page.locator(".record-btn").count() == 1
    left = page.locator(".record-btn")
    assert left.get_attribute("title") == "你没有录像机：去商店买一个吧。"
    left.click()
    assert page.locator("#inventory-message").inner_text() == "你没有录像机：去商店买一个吧。"
    me.assert_clean()
