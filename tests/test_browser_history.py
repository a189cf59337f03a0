"""战绩 in a real browser on a 360 × 740 touch phone, in Chinese and in
English: the rating graph with its threshold labels, the statistics, the games
with their filters and pager, and no sideways scroll on one's own page or on
another's public one (which shows no coins). The site and browser fixtures
are tests/test_browser.py's (``manage.py runsite`` as a child)."""

from __future__ import annotations

import pytest

from tests import test_browser as tb
from tests.browser import PHONE, Player, chromium_path, nav_link

pytestmark = [
    pytest.mark.skipif(chromium_path() is None,
                       reason="browser tests need Debian's chromium at /usr/bin/chromium"),
    pytest.mark.django_db(transaction=True),
]

site = tb.site
browser = tb.browser

NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


@pytest.mark.parametrize(("locale", "words"), [
    ("zh-CN", {"title": "我的战绩", "threshold": "助科 50", "filter": "只看押宝局",
               "coins": "金币", "older": "较早"}),
    ("en-US", {"title": "My game history", "threshold": "Assistant Section Chief 50",
               "filter": "Wager games only", "coins": "coins", "older": "Older"}),
])
def test_history_on_a_phone(site, browser, locale, words):
    base = site.base_url
    name = "xiaoming" if locale == "zh-CN" else "xiaohong"
    me = Player.open(browser, name, locale=locale, **PHONE)
    me.sign_up(base)
    site.manage("shell", "-c", f"from tests.test_history import seed_history; "
                               f"seed_history({name!r})")
    page = me.page

    # from the header menu
    nav_link(page, "/history/").click()
    page.wait_for_url(base + "/history/")
    assert page.locator("h1").inner_text() == words["title"]
    graph = page.locator("#rating-graph-svg")
    assert graph.is_visible()
    assert words["threshold"] in graph.inner_html()
    assert page.locator("#rating-graph-svg .threshold").count() == 4  # 0, 50, 100, 200
    box = graph.bounding_box()
    assert box is not None
    assert box["width"] <= 360
    assert page.locator(".stat-games").inner_text() == "60"
    assert page.locator("#stats-partners tr[data-partner]").count() == 1
    assert page.locator(".history-row").count() == 50
    newest = page.locator(".history-row").first
    assert words["coins"] in newest.locator(".history-coins").inner_text()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)

    # the wager filter, then the pager
    page.get_by_label(words["filter"]).check()
    page.locator("#history-filters button[type=submit]").click()
    page.wait_for_url("**wager=1**")
    assert page.locator(".history-row").count() == 1
    page.goto(base + "/history/")
    page.get_by_role("link", name=words["older"]).click()
    page.wait_for_url("**page=2**")
    assert page.locator(".history-row").count() == 10
    assert page.evaluate(NO_SIDEWAYS_SCROLL)

    # the public page: reached from the profile, no coins
    page.goto(base + f"/u/{name}/history/")
    assert page.locator(".history-row").count() == 50
    assert page.locator(".history-coins").count() == 0
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    me.assert_clean()
