"""每日挑战 in a real browser on a 360 px phone: a new account opens the
challenge from the lobby, starts board 1 and plays it to the end by tapping
cards (a lone single when leading, a pass when following), then sees its
score and the field, with no horizontal scroll. Long: a whole board."""

from __future__ import annotations

import pytest

from tests import test_browser as tb
from tests.browser import NEEDS_CHROMIUM, PHONE, Player

pytestmark = [NEEDS_CHROMIUM, pytest.mark.django_db(transaction=True)]

browser = tb.browser
site = tb.site


def _no_horizontal_scroll(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def test_a_whole_board_on_a_phone(site, browser):
    me = Player.open(browser, "tiaozhan", **PHONE)
    me.sign_up(site.base_url)
    page = me.page
    page.locator("#challenge-entry a").click()
    page.wait_for_url("**/challenge/")
    assert "每日挑战" in page.locator("h1").inner_text()
    assert _no_horizontal_scroll(page)
    page.locator("#ch-start").click()
    page.wait_for_url("**/challenge/*/1/")
    board = page.locator("#ch-board")
    for _ in range(200):
        page.wait_for_selector("#ch-board[data-status='done'], #ch-board[data-mine='1']")
        if board.get_attribute("data-status") == "done":
            break
        seq = board.get_attribute("data-seq")
        if page.locator("#ch-pass").is_enabled():
            page.locator("#ch-pass").click()
        else:
            page.locator("#ch-hand button.ch-card").first.click()
            page.locator("#ch-play").click()
        page.wait_for_function(
            "seq => document.getElementById('ch-board').dataset.seq !== seq"
            " || document.getElementById('ch-board').dataset.status === 'done'", arg=seq)
    assert board.get_attribute("data-status") == "done"
    result = page.locator("#ch-result").inner_text()
    assert "你的得分" in result
    assert "比赛分" in result
    assert page.locator("#ch-log li").count() > 10
    assert page.locator("#ch-log-title").is_visible()  # shown once the board is over
    assert _no_horizontal_scroll(page)
    page.goto(site.base_url + "/challenge/")
    assert "1" in page.locator("#ch-progress").inner_text()
    me.assert_clean()


def test_a_refusal_while_playing_links_back_to_the_game(site, browser):
    """Starting the challenge during a practice game is refused (one seat per
    person, RULES.md §12); the page says how to be free of it and links back
    to the game (a tester found no way back)."""
    me = Player.open(browser, "tiaozhan2", **PHONE)
    me.sign_up(site.base_url)
    page = me.page
    page.locator("#practice-btn").click()
    page.wait_for_url("**/tables/*/")
    page.locator("#table-app[data-status=playing]").wait_for()
    table_path = page.url.split(site.base_url, 1)[1].split("?")[0]
    page.goto(site.base_url + "/challenge/")
    page.locator("#ch-start").click()
    back = page.locator("#ch-progress a.ch-back")
    back.wait_for()
    assert "打练习局" in page.locator("#ch-progress").inner_text()
    assert back.inner_text() == "回到你的对局"
    assert back.get_attribute("href") == table_path
    back.click()
    page.wait_for_url("**" + table_path)
    # the refused request's 400 is the one console line, expected
    me.console[:] = [(k, t) for k, t in me.console
                     if not (k == "error" and "status of 400" in t)]
    me.assert_clean()
