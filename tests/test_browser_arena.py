"""Arenas in a real browser, on a 360 × 740 touch phone in Chinese: the lobby
shows the upcoming arena with a running countdown; the arena page's 报名
joins (paying the fee) and the standings list the player, its count and pool
follow a later entrant without a reload; no sideways scroll.
The site runs on the test database (PostgreSQL), where the test makes the arena."""

from __future__ import annotations

import os
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tests import test_browser as tb
from tests.browser import PHONE, Player, chromium_path

pytestmark = [
    pytest.mark.skipif(chromium_path() is None,
                       reason="browser tests need Debian's chromium at /usr/bin/chromium"),
    pytest.mark.skipif(not os.environ.get("DATABASE_URL"),
                       reason="the site and the test share PostgreSQL"),
    pytest.mark.django_db(transaction=True),
]

site = tb.site
browser = tb.browser
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


@pytest.fixture
def made(transactional_db):
    """An upcoming arena (10 min away, fee 100) with three entrants, made
    before the browser's event loop runs (the ORM refuses inside it)."""
    from contests import arena
    from moderation import roles
    from tests.helpers import make_players

    mod, *others = make_players(4, "arenab")
    roles.add(mod)
    found = arena.create(mod, arena.ArenaSpec(
        name="手机擂台", starts_at=timezone.now() + timedelta(minutes=10),
        duration_minutes=30, entry_fee=100))
    for u in others:
        arena.join(found.pk, u)
    return found


def test_join_an_arena_on_a_phone_and_see_the_countdown_and_standings(made, site, browser):

    base = site.base_url
    ming = Player.open(browser, "xiaoming", **PHONE)
    ming.sign_up(base)
    page = ming.page
    # the lobby: the arena with its countdown, ticking
    row = page.locator(f'#arena-lobby .arena-row[data-arena-id="{made.pk}"]')
    row.wait_for()
    countdown = row.locator(".arena-countdown")
    first = countdown.inner_text()
    assert re.fullmatch(r"\d\d:\d\d", first), first
    page.wait_for_function(
        "(t) => document.querySelector('#arena-lobby .arena-countdown').textContent !== t",
        arg=first)
    assert page.evaluate(NO_SIDEWAYS_SCROLL)

    row.locator(".arena-name").click()
    page.wait_for_url(f"{base}/arenas/{made.pk}/")
    page.locator("#arena-join").click()
    page.locator("#arena-my-status").wait_for()
    page.locator("#arena-standings tbody tr", has_text="xiaoming").wait_for()
    assert page.locator("#arena-standings tbody tr").count() == 4
    assert re.fullmatch(r"\d\d:\d\d", page.locator("#arena-when .arena-countdown").inner_text())
    assert "报名费" in page.locator(".arena-facts").inner_text()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    # the standings fit the phone: the Prize column is not hidden behind a side scroll
    assert page.evaluate(
        "() => { const s = document.querySelector('.arena-scroll');"
        " return s.scrollWidth <= s.clientWidth; }")
    assert "奖池 400" in page.locator(".arena-facts").inner_text()  # four fees of 100
    # a fifth joins elsewhere: the count and the pool follow without a reload
    page.evaluate("() => { window.__before = true; }")
    site.manage("shell", "-c", JOIN_ONE % {"arena": made.pk})
    page.wait_for_function(
        "() => document.getElementById('arena-players').textContent.startsWith('5/')",
        timeout=15_000)
    assert "奖池 500" in page.locator("#arena-pool").inner_text()
    assert page.evaluate("() => window.__before === true")
    ming.assert_clean()


JOIN_ONE = """
from contests import arena
from tests.helpers import make_players
arena.join(%(arena)d, make_players(1, "arenab-late")[0])
"""


SET_PASSWORD = """
from django.contrib.auth import get_user_model
from tests.browser import PASSWORD
u = get_user_model().objects.get(username="%(name)s")
u.set_password(PASSWORD)
u.save()
"""


def seat_four(prefix: str, name: str):
    """A running arena (fee 0) whose four entrants it has just seated at a
    table: ``(arena, four users, seating)``. Made before the browser's event
    loop runs (the ORM refuses inside it)."""
    from django.contrib.auth import get_user_model

    from contests import arena, arena_run
    from contests.models import Arena, ArenaSeating
    from moderation import roles
    from tests.helpers import make_players

    mod, *four = make_players(5, prefix)
    roles.add(mod)
    found = arena.create(mod, arena.ArenaSpec(
        name=name, starts_at=timezone.now() + timedelta(minutes=10),
        duration_minutes=30, entry_fee=0))
    for u in four:
        arena.join(found.pk, u)
    Arena.objects.filter(pk=found.pk).update(starts_at=timezone.now() - timedelta(seconds=1))
    assert arena_run.start(found.pk)
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=[u.pk for u in four])}
    arena_run._seat_group(Arena.objects.get(pk=found.pk), [u.pk for u in four], users)
    return found, four, ArenaSeating.objects.get(arena=found)


@pytest.fixture
def seated(transactional_db):
    """A running arena whose four the arena has just seated at a table, to
    confirm within 30 s."""
    from contests import arena_run
    from contests.models import ArenaSeating

    _, four, seating = seat_four("arenat", "确认擂台")
    # the site's ticker would let the table lapse after 30 s: the browser is slower here
    ArenaSeating.objects.filter(pk=seating.pk).update(
        confirm_by=timezone.now() + timedelta(minutes=10))
    return four[0].username, arena_run.table_path(seating.table)


def test_an_arena_table_says_how_to_confirm_and_shows_no_invites(seated, site, browser):
    name, path = seated
    base = site.base_url
    # the password is hashed by the site's own hashers
    site.manage("shell", "-c", SET_PASSWORD % {"name": name})
    p = Player.open(browser, name, **PHONE)
    p.log_in(base)
    page = p.page
    page.goto(base + path)
    p.wait_connected()
    banner = page.locator("#arena-banner")
    banner.wait_for()
    assert "比赛：点 准备 确认座位" in banner.inner_text()
    # the seat the arena gave is theirs (not an empty "sit here")
    page.locator("#ready-btn").wait_for()
    assert page.locator("#invite-box").is_hidden()  # no room code nor invite link
    assert page.locator("#table-invite").is_hidden()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    page.locator("#arena-ready-btn").click()
    page.wait_for_function(
        "() => document.getElementById('arena-banner-text').textContent.includes('你已确认')")
    assert page.locator("#arena-ready-btn").is_hidden()
    # how many have confirmed, and the seconds the others have, counting down
    said = page.locator("#arena-banner-text").inner_text()
    assert "已确认 1/4" in said, said
    left = int(said.split("还剩 ")[1].split(" 秒")[0])
    assert 500 < left <= 600, said
    page.wait_for_function(
        "left => !document.getElementById('arena-banner-text').textContent"
        ".includes(`还剩 ${left} 秒`)", arg=left)
    p.assert_clean()


def _logged_in(site, browser, name: str) -> Player:
    """``name`` (an account made by a fixture) logged in on a phone."""
    site.manage("shell", "-c", SET_PASSWORD % {"name": name})
    p = Player.open(browser, name, **PHONE)
    p.log_in(site.base_url)
    return p


@pytest.fixture
def seated_here(transactional_db):
    """As :func:`seated`, with the arena's and the table's ids and the
    moderator who made the arena: ``(name, path, arena id, table id, moderator)``."""
    from contests import arena_run
    from contests.models import ArenaSeating

    found, four, seating = seat_four("arenac", "关桌擂台")
    ArenaSeating.objects.filter(pk=seating.pk).update(
        confirm_by=timezone.now() + timedelta(minutes=10))
    return (four[0].username, arena_run.table_path(seating.table), found.pk,
            seating.table_id, found.created_by.username)


def test_the_banners_ready_waits_for_the_connection(seated_here, site, browser):
    """Until the table's socket opens, the banner's Ready is off like the
    page's own (a press before it opened was lost without a word, and the
    player was then paused for not confirming); once it opens it confirms."""
    name, path, *_ = seated_here
    base = site.base_url
    p = _logged_in(site, browser, name)
    page = p.page
    held = {"on": True}

    def table_socket(ws):
        # held: refused, so the page keeps trying (connecting); then let through
        if held["on"]:
            ws.close()
        else:
            ws.connect_to_server()

    page.route_web_socket(re.compile(r"/ws/table/"), table_socket)
    page.goto(base + path)
    banner = page.locator("#arena-banner")
    banner.wait_for()
    assert "比赛：点 准备 确认座位" in banner.inner_text()
    ready = page.locator("#arena-ready-btn")
    assert ready.is_visible()
    assert ready.is_disabled()
    assert page.locator("#conn-status").get_attribute("data-state") != "open"
    held["on"] = False
    p.wait_connected()  # the page's next try goes through
    page.wait_for_function("() => !document.getElementById('arena-ready-btn').disabled")
    ready.click()
    page.wait_for_function(
        "() => document.getElementById('arena-banner-text').textContent.includes('你已确认')")
    # the refused tries were the test's own doing
    p.console[:] = [(k, t) for k, t in p.console if "WebSocket" not in t]
    p.assert_clean()


CLOSE_TABLE = """
from django.contrib.auth import get_user_model
from moderation import actions
actions.close_table(get_user_model().objects.get(username="%(mod)s"), %(table)d, "测试关桌")
"""


def test_a_closed_arena_table_points_back_to_its_arena(seated_here, site, browser):
    """A moderator closes an arena table: its closed notice leads to the
    arena page (where the player's standing and next table are), not the lobby."""
    name, path, arena_id, table_id, mod = seated_here
    base = site.base_url
    p = _logged_in(site, browser, name)
    page = p.page
    page.goto(base + path)
    p.wait_connected()
    page.locator("#arena-banner").wait_for()
    site.manage("shell", "-c", CLOSE_TABLE % {"mod": mod, "table": table_id})
    link = page.locator("#closed-notice #closed-lobby-link")
    link.wait_for(timeout=15_000)
    assert link.get_attribute("href") == f"/arenas/{arena_id}/"
    assert link.inner_text() == page.locator("#arena-banner-link").inner_text()
    link.click()
    page.wait_for_url(f"{base}/arenas/{arena_id}/")
    p.console[:] = [(k, t) for k, t in p.console if "WebSocket" not in t]
    p.assert_clean()


START_AND_END = """
from django.contrib.auth import get_user_model
from games import tables
from games.models import Table
from tests import page_states
table = Table.objects.get(pk=%(table)d)
for seat in table.seats.exclude(user=None):
    tables.set_ready(table.pk, seat.user)
page_states.install(table.pk, "two_halves")
"""

SEND_SEATED = """
from django.contrib.auth import get_user_model
from games import events
uid = get_user_model().objects.get(username="%(name)s").pk
events.send_user(uid, {"type": "arena_seated", "arena_id": %(arena)d, "path": "%(path)s",
                       "message": "比赛：你的下一桌已就绪"})
"""


def test_a_new_seating_leaves_an_open_result_readable_a_while(seated_here, site, browser):
    """An arena game ends and the arena seats the player again at once: with
    the result open, the page says so and stays 10 s (the confirm window is
    30 s) before it goes to the table, not the usual 1.2 s."""
    name, path, arena_id, table_id, _ = seated_here
    base = site.base_url
    p = _logged_in(site, browser, name)
    page = p.page
    page.goto(base + path)
    p.wait_connected()
    site.manage("shell", "-c", START_AND_END % {"table": table_id})
    page.reload()  # the ended game put in place (tests/page_states.py)
    p.wait_connected()
    page.locator("#result-panel").wait_for(timeout=15_000)
    page.evaluate("() => { window.__before = true; }")
    site.manage("shell", "-c", SEND_SEATED % {"name": name, "arena": arena_id, "path": path})
    page.locator(".toast", has_text="你的下一桌已就绪").wait_for(timeout=10_000)
    page.wait_for_timeout(5_000)  # well past the usual 1.2 s: still reading
    assert page.evaluate("() => window.__before === true")
    assert page.locator("#result-panel").is_visible()
    page.wait_for_function("() => !window.__before", timeout=15_000)  # then it goes
    p.wait_connected()
    p.assert_clean()


@pytest.fixture
def lapsed(transactional_db):
    """A tester's arena: four seated, three confirmed, the fourth (index 0)
    let it lapse: they are paused, the three back at the head of the queue
    with the table free again (the next seating reuses it)."""
    from contests import arena_run
    from contests.models import ArenaSeating
    from games import tables

    found, four, seating = seat_four("arenar", "重排擂台")
    for u in four[1:]:
        tables.set_ready(seating.table_id, u)
    ArenaSeating.objects.filter(pk=seating.pk).update(confirm_by=timezone.now())
    arena_run.lapse(seating.pk)
    return found.pk, [u.username for u in four], arena_run.table_path(seating.table)


def test_a_reseating_moves_every_page_again(lapsed, site, browser):
    """After a lapse the one who did not confirm resumes; the arena seats the
    four again at the same table: the pages left on that table (which offers
    no seat meanwhile) reload to it (their seat and the banner), those on the
    arena page go there."""
    arena_id, names, path = lapsed
    base = site.base_url
    site.manage("shell", "-c", "".join(SET_PASSWORD % {"name": n} for n in names))
    players = [Player.open(browser, n) for n in names]
    for p in players:
        p.log_in(base)
    gina, at_table, also_at_table, on_arena = players
    for p in (at_table, also_at_table):
        p.page.goto(base + path)
        p.wait_connected()
        p.page.evaluate("() => { window.__before = true; }")
        # the emptied arena table offers no seat: only the arena seats it
        p.page.locator('.seat[data-seat="3"]').wait_for()
        assert p.page.locator(".seat button.sit").count() == 0
    on_arena.page.goto(base + f"/arenas/{arena_id}/")
    gina.page.goto(base + f"/arenas/{arena_id}/")
    gina.page.locator("form[action$='/resume'] button").click()  # 继续
    for p in (at_table, also_at_table):  # the same table page, loaded afresh
        p.page.wait_for_function("() => !window.__before", timeout=30_000)
    for p in (on_arena, gina):  # the arena page goes to the table
        p.page.wait_for_url(base + path, timeout=30_000)
    for p in players:
        p.wait_connected()
        banner = p.page.locator("#arena-banner")
        banner.wait_for()
        assert "比赛：点 准备 确认座位" in banner.inner_text()
        p.page.locator("#arena-ready-btn").wait_for()
        p.assert_clean()


@pytest.fixture
def lapsing(transactional_db):
    """Four seated by a running arena, with 25 s to confirm: the site's own
    ticker lets the seating lapse then."""
    from contests import arena_run
    from contests.models import ArenaSeating

    found, four, seating = seat_four("arenal", "超时擂台")
    ArenaSeating.objects.filter(pk=seating.pk).update(
        confirm_by=timezone.now() + timedelta(seconds=25))
    return found.pk, [u.username for u in four], arena_run.table_path(seating.table)


def test_a_lapsed_seating_sends_its_pages_to_the_arena(lapsing, site, browser):
    """One confirms, one does not, and the seating lapses: neither page is
    left at the emptied table (which said "choose a seat" and offered none);
    each says why and goes to the arena page, where the queue is shown and
    the paused one finds 继续."""
    arena_id, names, path = lapsing
    base = site.base_url
    site.manage("shell", "-c", "".join(SET_PASSWORD % {"name": n} for n in names[:2]))
    confirms, lapses = (Player.open(browser, n, **PHONE) for n in names[:2])
    for p in (confirms, lapses):
        p.log_in(base)
        p.page.goto(base + path)
        p.wait_connected()
    confirms.page.locator("#arena-ready-btn").click()
    for p, code, words in ((confirms, "arena_requeued", "有人未确认"),
                           (lapses, "arena_paused", "未及时确认")):
        toast = p.page.locator(f".toast[data-code={code}]")  # both come at the lapse
        toast.wait_for(timeout=60_000)
        assert words in toast.inner_text(), toast.inner_text()
    for p in (confirms, lapses):
        p.page.wait_for_url(f"{base}/arenas/{arena_id}/", timeout=15_000)
    lapses.page.locator("form[action$='/resume'] button").wait_for()
    # each is told where they stand
    assert "你在队列中" in confirms.page.locator("#arena-my-status").inner_text()
    assert "你已暂停" in lapses.page.locator("#arena-my-status").inner_text()
    for p in (confirms, lapses):
        p.assert_clean()
