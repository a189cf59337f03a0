"""The moderator console on a phone (390 × 844, Debian chromium through
Playwright; fixtures of tests/test_browser.py): the table list's headers each
stay on one line (a tester saw 状/态 and 本/局/用/时, one character a line),
and a list wider than the phone scrolls sideways inside its box, not the page."""

from __future__ import annotations

import pytest

from tests.browser import Player, chromium_path
from tests.test_browser import browser, site  # noqa: F401  (fixtures)

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="needs /usr/bin/chromium")

PHONE = {"width": 390, "height": 844}

# per non-empty header of the list: its text and how many lines it takes (the
# distinct tops of its text's line boxes)
HEADER_LINES_JS = """(selector) => [...document.querySelectorAll(selector + ' thead th')]
  .filter((th) => th.textContent.trim())
  .map((th) => {
    const range = document.createRange();
    range.selectNodeContents(th);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    return [th.textContent.trim(), tops.size];
  })"""

WIDTHS_JS = """() => {
  const box = document.querySelector('#mod-tables').closest('.scroll');
  return {page: document.documentElement.scrollWidth, viewport: window.innerWidth,
          box: box.clientWidth, table: box.scrollWidth};
}"""


def test_the_console_table_list_on_a_phone(site, browser):  # noqa: F811
    mod = Player.open(browser, "shoujiguan", viewport=PHONE)
    mod.sign_up(site.base_url)
    site.manage("moderator", "add", "shoujiguan")
    mod.create_table("手机上看的一张桌子")
    page = mod.page
    page.goto(site.base_url + "/mod/")
    page.locator("#mod-tables td a", has_text="手机上看的一张桌子").wait_for()

    headers = page.evaluate(HEADER_LINES_JS, "#mod-tables")
    assert {"状态", "本局用时", "座位"} <= {text for text, _ in headers}, headers
    assert all(lines == 1 for _, lines in headers), headers
    # a cell breaks between words only: the table's name is not cut a character a line
    name_cell = page.locator("#mod-tables td", has_text="手机上看的一张桌子")
    assert name_cell.evaluate("""(td) => { const a = td.querySelector('a');
        return new Set([...a.getClientRects()].map((r) => Math.round(r.top))).size; }""") == 1

    widths = page.evaluate(WIDTHS_JS)
    assert widths["page"] <= widths["viewport"], widths  # the page itself never scrolls sideways
    # the list's own box does, when the list is wider than it; its last link is reachable
    watch = page.locator("#mod-tables td a", has_text="旁观")
    watch.scroll_into_view_if_needed()
    box = watch.bounding_box()
    assert box is not None
    assert (box["x"] >= 0, box["x"] + box["width"] <= PHONE["width"]) == (True, True), box

    # the live redraw (mod_console.js, every 5 s) keeps it so
    page.wait_for_timeout(5600)
    assert all(lines == 1 for _, lines in page.evaluate(HEADER_LINES_JS, "#mod-tables"))
    assert page.evaluate(WIDTHS_JS)["page"] <= PHONE["width"]
    page.screenshot(path="/tmp/mod_phone.png", full_page=True)
    mod.assert_clean()
