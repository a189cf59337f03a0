"""An arena's "your table is ready" (RULES.md §12 "Arenas": 30 seconds to
confirm) wherever the player is, in a real browser on a 360 × 740 phone in
Chinese.

A tester joined an arena and browsed on to /notifications/: when the arena
seated them they got a toast of plain words that went after 9 s, and were
paused a minute later for not confirming. The toast and the 消息 row now
carry a button to the table (去牌桌确认) that stays until the deadline.
The tester also saw four players on 托管 paused after their first arena game:
the page of the finished game does offer the next table (the arena reuses
the table: its banner and Ready), and its toast now has Ready itself.

The site runs on the test database (PostgreSQL) and Redis, where the test
makes the arena; the other entrants are "connected" by heartbeats the test
records (no browser each)."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from django.utils import timezone

from tests import test_browser as tb
from tests.browser import PHONE, Player, chromium_path
from tests.test_browser_arena import SET_PASSWORD, seat_four

pytestmark = [
    pytest.mark.skipif(chromium_path() is None,
                       reason="browser tests need Debian's chromium at /usr/bin/chromium"),
    pytest.mark.skipif(not os.environ.get("DATABASE_URL") or not os.environ.get("REDIS_URL"),
                       reason="the site and the test share PostgreSQL and Redis"),
    pytest.mark.django_db(transaction=True),
]

site = tb.site
browser = tb.browser

HERE = """
from django.contrib.auth import get_user_model
from games import presence
for u in get_user_model().objects.filter(username__in=%(names)r):
    presence.touch_person(f"test.elsewhere!{u.pk}", u)
"""


def _logged_in(site, browser, name: str) -> Player:
    site.manage("shell", "-c", SET_PASSWORD % {"name": name})
    p = Player.open(browser, name, **PHONE)
    p.log_in(site.base_url)
    return p


@pytest.fixture
def running(transactional_db):
    """A running arena (fee 0) with four entrants in its queue, nobody seated
    yet: ``(arena id, their names)``."""
    from contests import arena, arena_run
    from contests.models import Arena
    from moderation import roles
    from tests.helpers import make_players

    mod, *four = make_players(5, "arenap")
    roles.add(mod)
    found = arena.create(mod, arena.ArenaSpec(
        name="别处擂台", starts_at=timezone.now() + timedelta(minutes=10),
        duration_minutes=30, entry_fee=0))
    for u in four:
        arena.join(found.pk, u)
    Arena.objects.filter(pk=found.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    assert arena_run.start(found.pk)
    return found.pk, [u.username for u in four]


def test_a_player_elsewhere_gets_a_button_to_the_table_until_the_deadline(
        running, site, browser):
    _, names = running
    base = site.base_url
    me = _logged_in(site, browser, names[0])
    page = me.page
    page.goto(base + "/notifications/")
    page.locator("body[data-personal=open]").wait_for()
    # the other three are connected somewhere: the site's tick seats the four
    site.manage("shell", "-c", HERE % {"names": names[1:]})
    toast = page.locator("#me-toasts .notification-toast[data-kind=arena_seated]")
    toast.wait_for(timeout=30_000)
    go = toast.locator("a.toast-action")
    assert go.inner_text() == "去牌桌确认"
    path = go.get_attribute("href")
    assert path.startswith("/tables/")
    assert "?invite=" in path
    assert "30 秒内确认" in toast.inner_text()
    # the row that came with it: its button too, the time as the page shows times
    row = page.locator(".inbox-row").first
    row.locator("a.inbox-action").wait_for()
    assert row.locator("a.inbox-action").get_attribute("href") == path
    assert row.locator("form.inbox-read-one").count() == 1
    page.wait_for_timeout(11_000)  # past a toast's usual 9 s: this one waits for them
    assert go.is_visible()
    go.click()
    page.wait_for_url(base + path)
    me.wait_connected()
    page.locator("#arena-ready-btn").click()
    page.wait_for_function(
        "() => document.getElementById('arena-banner-text').textContent.includes('你已确认')")
    me.assert_clean()


START_AUTO = """
from django.contrib.auth import get_user_model
from games import play, presence, tables
from games.models import Game
users = list(get_user_model().objects.filter(username__in=%(names)r))
for u in users:
    tables.set_ready(%(table)d, u)
game = Game.objects.get(table_id=%(table)d, status=Game.PLAYING)
for u in users:
    play.set_auto_play(game.pk, u, True)
"""


@pytest.fixture
def seated(transactional_db):
    """Four seated at an arena table, a long while to confirm: ``(names,
    table path, table id)``."""
    from contests import arena_run
    from contests.models import ArenaSeating

    _, four, seating = seat_four("arenaq", "托管擂台")
    ArenaSeating.objects.filter(pk=seating.pk).update(
        confirm_by=timezone.now() + timedelta(minutes=10))
    return [u.username for u in four], arena_run.table_path(seating.table), seating.table_id


def test_the_finished_games_page_offers_the_next_table_and_its_toast_confirms(
        seated, site, browser):
    names, path, table_id = seated
    base = site.base_url
    me = _logged_in(site, browser, names[0])
    page = me.page
    page.goto(base + path)
    me.wait_connected()
    site.manage("shell", "-c", HERE % {"names": names[1:]})
    # the four confirm, and all go on 托管: the site's bots play the game out
    site.manage("shell", "-c", START_AUTO % {"names": names, "table": table_id})
    page.locator("#table-app[data-status=over]").wait_for(timeout=120_000)
    site.manage("shell", "-c", HERE % {"names": names[1:]})  # still connected elsewhere
    page.evaluate("() => { window.__before = true; }")
    # the arena seats the four again at this table: said here, Ready at hand
    toast = page.locator("#toasts .arena-seated-toast")
    toast.wait_for(timeout=30_000)
    ready = toast.locator("button.arena-toast-btn")
    assert ready.inner_text() == "准备"
    banner = page.locator("#arena-banner")
    page.wait_for_function(
        "() => document.getElementById('arena-banner-text').textContent.includes('确认座位')")
    assert page.locator("#arena-ready-btn").is_visible()
    # no second toast of the same news (the notification only counts on the badge)
    assert page.locator("#toasts .notification-toast[data-kind=arena_seated]").count() == 0
    ready.click()
    page.wait_for_function(
        "() => document.getElementById('arena-banner-text').textContent.includes('你已确认')")
    assert "已确认 1/4" in banner.inner_text()
    page.wait_for_timeout(11_000)  # confirmed here: the page is not reloaded under them
    assert page.evaluate("() => window.__before === true")
    assert "你已确认" in banner.inner_text()
    me.assert_clean()
