"""完成率 and blocks on the table page in a real browser: an owner on a desktop
in English, a player on a 360 × 740 touch phone in Chinese. Each seat shows
its finish rate (新人 before 5 rated games); the owner sets a minimum and the
phone is told before pressing 坐下 that its rate falls short (the sit buttons
off); the minimum lowered, it sits; the owner blocks it from its seat, which
stands it up, and the server stops sending the owner its chat lines; sitting
beside her elsewhere, the owner is asked first; no horizontal scroll on the
phone. The site and browser fixtures are
tests/test_browser.py's."""

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


#: xiaoli's last 10 rated games: 8 finished, 2 escaped (the site's own database)
EIGHTY_PERCENT = """
from accounts.models import Profile
Profile.objects.filter(user__username="xiaoli").update(
    finish_record="1111011110", finish_rate=80, counted_games=10)
"""


def _say(player: Player, text: str) -> None:
    player.page.locator("#chat-input").fill(text)
    player.page.locator("#chat-input").press("Enter")
    player.page.locator("#chat-log .chat-line.mine .chat-text", has_text=text).wait_for()


def test_rates_on_seats_a_minimum_told_before_sitting_and_a_block_from_the_seat(site, browser):
    base = site.base_url
    boss = Player.open(browser, "laoban", locale="en-US", viewport={"width": 1280, "height": 900})
    li = Player.open(browser, "xiaoli", **PHONE)
    boss.sign_up(base)
    li.sign_up(base)
    asked: list[str] = []  # the confirmations the owner's page asked
    boss.page.on("dialog", lambda d: (asked.append(d.message), d.accept()))
    li.page.on("dialog", lambda d: d.accept())
    table_url = boss.create_table("完成率桌")
    site.manage("shell", "-c", EIGHTY_PERCENT)

    # the owner's seat: a new player; the owner asks for 90 %
    newcomer = boss.page.locator('.seat[data-seat="0"] .finish-rate.newcomer')
    newcomer.filter(has_text="New player").wait_for()
    boss.page.locator("#finish-select").select_option("90")
    # the owner's select says it; the line above it would only repeat it
    boss.page.locator("#finish-form").wait_for()
    assert boss.page.locator("#finish-min").is_hidden()

    # the phone is told before pressing 坐下, and cannot press it
    li.page.goto(table_url)
    li.wait_connected()
    li.page.locator("#finish-min", has_text="本桌要求完成率不低于 90%").wait_for()
    warn = li.page.locator("#finish-warn")
    warn.wait_for()
    assert "80%" in warn.inner_text()
    assert li.page.locator('.seat[data-seat="2"] button.sit').is_disabled()
    assert li.page.locator('.seat[data-seat="0"] .finish-rate', has_text="新人").count() == 1
    assert li.page.evaluate(NO_SIDEWAYS_SCROLL)

    # lowered to 80: the warning goes, it sits and its rate shows on its seat
    boss.page.locator("#finish-select").select_option("80")
    warn.wait_for(state="hidden")
    li.sit(2)
    boss.page.locator('.seat[data-seat="2"] .finish-rate[data-rate="80"]').wait_for()

    # chat reaches the owner until the owner blocks xiaoli from the seat
    _say(li, "第一句")
    boss.page.locator("#chat-log .chat-text", has_text="第一句").wait_for()
    block = boss.page.locator('.seat[data-seat="2"] button.seat-block', has_text="Block")
    # it reads as something to press, not as plain text beside the name (a tester);
    # asked until true: each render replaces the button (a detached one has no style)
    boss.page.wait_for_function("""() => {
      const b = document.querySelector('.seat[data-seat="2"] button.seat-block');
      return b && getComputedStyle(b).textDecorationLine.includes("underline");
    }""", timeout=5000)
    block.click()
    # a block stands them up from the blocker's waiting table (RULES.md §12)
    boss.page.locator('.seat.empty[data-seat="2"]').wait_for()
    li.page.locator('.seat.empty[data-seat="2"]').wait_for()
    _say(li, "第二句")
    _say(boss, "marker")  # sent after xiaoli's line: it arrives after it
    assert boss.page.locator("#chat-log .chat-text", has_text="第二句").count() == 0
    assert li.page.evaluate(NO_SIDEWAYS_SCROLL)

    # the phone's lobby (the create form's minimum) and profile fit 360 px
    li.page.goto(base + "/")
    li.page.locator("#min-finish-input").wait_for()
    assert li.page.evaluate(NO_SIDEWAYS_SCROLL)
    li.page.goto(base + "/accounts/profile/xiaoli/")
    li.page.locator('.finish-card .finish-rate[data-rate="80"]').wait_for()
    assert li.page.evaluate(NO_SIDEWAYS_SCROLL)
    boss.page.goto(base + "/accounts/profile/xiaoli/")
    boss.page.locator(".finish-card h3", has_text="Escapes in the last 30 days").wait_for()

    # at xiaoli's own table the owner is asked before sitting beside her
    li.page.goto(base + "/")
    li_table = li.create_table("小李的桌")
    boss.page.goto(li_table)
    boss.wait_connected()
    boss.sit(1)
    assert any("xiaoli" in m and "Sit down anyway" in m for m in asked), asked
    for p in (boss, li):
        p.assert_clean()
