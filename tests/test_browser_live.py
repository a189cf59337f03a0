"""The per-user channel in a real browser: the lobby page opens one
websocket, not two (its own, which also carries the shop's 招牌 badges and the
per-user channel); a page with no socket of its own (the shop) opens one small
``/ws/me/``; the header of every open page shows the person's coins and level
and follows a coin movement made on another page, live. Sockets are counted
with Playwright's ``websocket`` event. The site and browser fixtures are
tests/test_browser.py's (``manage.py runsite`` as a child)."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests import test_browser as tb
from tests.browser import Player, chromium_path

pytestmark = [
    pytest.mark.skipif(chromium_path() is None,
                       reason="browser tests need Debian's chromium at /usr/bin/chromium"),
    pytest.mark.django_db(transaction=True),
]

site, browser = tb.site, tb.browser


def _watch_sockets(page) -> list[str]:
    """The path of every websocket ``page`` opens from now on."""
    opened: list[str] = []
    page.on("websocket", lambda ws: opened.append(urlparse(ws.url).path))
    return opened


def test_one_socket_per_page_and_the_header_follows_coins_live(site, browser):
    me = Player.open(browser, "xiaoli", viewport={"width": 1366, "height": 800})
    me.sign_up(site.base_url)
    lobby = me.page
    lobby_sockets = _watch_sockets(lobby)
    lobby.goto(site.base_url + "/")
    lobby.locator("#lobby-status[data-state=open]").wait_for()
    figures = lobby.locator("#me-figures")
    assert figures.get_attribute("data-coins") == "2000"
    assert lobby.locator("#me-coins").inner_text() == "2000 金币"
    assert lobby.locator("#me-level").inner_text() == "科员 · 第 0 级"
    assert lobby.locator("#me-held").is_hidden()

    # a page without a socket of its own: one small /ws/me/ for the channel
    shop = lobby.context.new_page()
    shop_sockets = _watch_sockets(shop)
    shop.goto(site.base_url + "/shop/")
    shop.locator("body[data-personal=open]").wait_for()
    assert shop.locator("#me-figures").get_attribute("data-coins") == "2000"

    # coins move on a third page (the daily check-in): both open pages follow
    actor = lobby.context.new_page()
    actor.goto(site.base_url + "/shop/")
    actor.locator("#checkin-btn").click()
    actor.wait_for_load_state()
    gained = int(actor.locator("#shop-coins").inner_text()) - 2000
    assert gained > 0
    for page in (lobby, shop):
        page.locator(f"#me-figures[data-coins='{2000 + gained}']").wait_for()
        assert page.locator("#me-coins").inner_text() == f"{2000 + gained} 金币"
    assert shop.locator("#shop-coins").inner_text() == str(2000 + gained)  # the panel too

    # one socket each, all along: the lobby's (rows, 招牌 badges, the channel), the shop's
    assert lobby_sockets == ["/ws/lobby/"]
    assert shop_sockets == ["/ws/me/"]
    assert lobby.locator("#lobby-status").get_attribute("data-state") == "open"
    me.assert_clean()
