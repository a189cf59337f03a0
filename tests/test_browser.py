"""Play 原子 online in a real browser (Debian chromium through Playwright).

The site is what ``make run`` serves: ``manage.py runsite`` (Daphne + the
in-process turn ticker) as a child process, bots fast (0.05 s), turn clocks
long (600 s). Everything is done by clicking: sign up through the allauth
form, open a table from the lobby, sit, add bots, ready, and play every turn
with the hint / play / pass buttons and the cards themselves.

Database: with ``DATABASE_URL`` (CI, ``.ci/run``) the child uses the PostgreSQL
test database pytest-django created and ``REDIS_URL`` for its channel layer
and cache (the tests are ``transaction=True``: both sides see committed rows);
without it, the child migrates a fresh SQLite file of its own and the tests
check everything through the pages, so no database is shared.

Playwright's sync API runs inside each test (``sync_playwright()``), not
through the pytest-playwright plugin, whose event loop breaks the
pytest-asyncio tests that follow in the same process (NOTES.md).
"""

from __future__ import annotations

import os
import re
import time
import uuid

import pytest

from tests.browser import Player, chromium_path, launch, play_to_the_end
from tests.proxy import TcpProxy
from tests.servers import Site, test_database_url

pytestmark = pytest.mark.skipif(
    chromium_path() is None,
    reason="browser tests need Debian's chromium at /usr/bin/chromium "
           "(apt-get install chromium fonts-noto-cjk; .ci/run does)",
)


@pytest.fixture
def site(request):
    """The running site, on the test database in CI or a SQLite file of its own."""
    if os.environ.get("DATABASE_URL"):
        # the test database, even for a module without the django_db mark run
        # alone: the bare transactional_db fixture then set up nothing and the
        # child wrote to the main database (a helper's leftover accounts)
        request.node.add_marker(pytest.mark.django_db(transaction=True))
        request.getfixturevalue("_django_db_helper")
        site = Site(database_url=test_database_url(), redis_url=os.environ.get("REDIS_URL"))
    else:
        site = Site()
    try:
        yield site.wait_listening()
    finally:
        site.stop()  # its log is printed: pytest shows it when the test failed


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            yield browser
        finally:
            browser.close()


def _log(message: str) -> None:
    print(message, flush=True)


def test_new_user_plays_practice_game_to_result(site, browser):
    started = time.monotonic()
    me = Player.open(browser, "xiaoming", viewport={"width": 1280, "height": 800})
    me.sign_up(site.base_url)
    _log(f"signed up in {time.monotonic() - started:.1f} s")

    me.create_table("练习桌")
    me.sit(0)
    assert me.add_bots(level="expert") == 3
    assert me.page.locator(".seat.is-bot").count() == 3
    assert me.page.locator(".seat.is-bot").first.inner_text().count("高手") == 1  # its level
    me.ready()
    me.page.locator("#table-app[data-status=playing]").wait_for()
    assert me.page.locator("#hand .pcard").count() in (40, 41)
    assert me.page.locator("#stake").inner_text() == "练习局"
    _log(f"game started at {time.monotonic() - started:.1f} s")

    moves = play_to_the_end([me], log=_log)
    _log(f"game over after {moves} moves at {time.monotonic() - started:.1f} s: "
         f"{dict(me.ways)}")
    assert me.ways["hint"]
    assert me.ways["pass"] + me.ways["card"] + me.ways["rank label"]

    page = me.page
    page.locator("#table-app[data-status=over]").wait_for()
    panel = page.locator("#result-panel")
    panel.wait_for(state="visible")
    assert panel.get_attribute("data-outcome") in ("win", "loss")
    assert "练习局" in panel.locator(".practice-note").inner_text()
    assert panel.locator(".result-totals tr[data-team]").count() == 2
    totals = [int(t) for t in panel.locator(".result-totals td.total").all_inner_texts()]
    halves = panel.locator(".result-half").count()
    assert sum(totals) == 300 * halves
    assert halves in (1, 2)
    assert moves >= 5
    assert me.toasts() == []
    me.assert_clean()


def _profile_stats(player: Player, base_url: str) -> dict:
    page = player.page
    page.goto(base_url + "/accounts/profile/")
    stats = {k: page.locator(f".stats dd.{k}").inner_text()
             for k in ("rating-points", "rated-games", "rated-wins", "double-clamps")}
    rows = page.locator(".recent-games-table tr.recent-game")
    stats["recent"] = [
        (rows.nth(i).get_attribute("class"), rows.nth(i).locator(".rating-change").inner_text())
        for i in range(rows.count())
    ]
    return stats


def test_four_people_rated_game(site, browser):
    started = time.monotonic()
    names = ["dong", "nan", "xi", "bei"]
    people = [Player.open(browser, n, viewport={"width": 1000, "height": 760}) for n in names]
    for p in people:
        p.sign_up(site.base_url)
    _log(f"four signed up in {time.monotonic() - started:.1f} s")

    people[0].create_table("四人桌")
    people[0].sit(0)
    for seat, p in enumerate(people[1:], start=1):
        p.open_from_lobby(site.base_url, "四人桌")
        p.sit(seat)
    for p in people:
        p.page.locator('.seat:not(.empty)[data-seat="3"]').wait_for()
    for p in people:
        p.ready()
    for p in people:
        p.page.locator("#table-app[data-status=playing]").wait_for()
        assert p.page.locator("#stake").inner_text() == "对局分 1"
    _log(f"rated game started at {time.monotonic() - started:.1f} s")
    # the leave-game dialog names the view's escape_penalty: max(2 × 1, 20) in the first half
    page = people[1].page
    page.locator("#escape-btn").click()
    assert "扣 20 积分" in page.locator("#escape-text").inner_text()
    page.locator("#escape-cancel").click()
    assert not page.locator("#escape-dialog").is_visible()

    moves = play_to_the_end(people, log=_log)
    _log(f"game over after {moves} moves at {time.monotonic() - started:.1f} s: "
         f"{[dict(p.ways) for p in people]}")

    outcomes = []
    for p in people:
        panel = p.page.locator("#result-panel")
        panel.wait_for(state="visible")
        outcome = panel.get_attribute("data-outcome")
        double = panel.get_attribute("data-double-clamp") == "1"
        stake = 2 if double else 1
        assert f"{stake}" in panel.locator(".stake-note").inner_text()
        # the header follows the doubling (a tester saw the base stake there)
        assert p.page.locator("#stake").inner_text() == (
            "对局分 2（双夹翻倍）" if double else "对局分 1")
        deltas = dict(zip(panel.locator(".rating-changes .who").all_inner_texts(),
                          panel.locator(".rating-changes .delta").all_inner_texts(), strict=True))
        assert set(deltas) == set(names)
        outcomes.append((outcome, double, deltas))
    assert sorted(o for o, _, _ in outcomes) == ["loss", "loss", "win", "win"]
    # partners (seats 0 and 2, 1 and 3) share the outcome
    assert outcomes[0][0] == outcomes[2][0]
    assert outcomes[1][0] == outcomes[3][0]
    assert len({d for _, d, _ in outcomes}) == 1  # everyone saw the same double clamp
    assert len({tuple(sorted(d.items())) for _, _, d in outcomes}) == 1

    for p, (outcome, double, _) in zip(people, outcomes, strict=True):
        stake = 2 if double else 1
        delta = stake if outcome == "win" else -stake
        stats = _profile_stats(p, site.base_url)
        _log(f"{p.name}: {stats}")
        assert stats["rating-points"] == str(delta)
        assert stats["rated-games"] == "1"
        assert stats["rated-wins"] == ("1" if outcome == "win" else "0")
        assert stats["double-clamps"] == ("1" if double and outcome == "win" else "0")
        (row_class, change), = stats["recent"]
        result = ("double_clamp_" if double else "") + outcome
        assert re.search(rf"\bresult-{result}\b", row_class), row_class
        assert change == (f"+{delta}" if delta > 0 else str(delta))
    for p in people:
        assert p.toasts() == [], p.name
        p.assert_clean()


DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}


@pytest.mark.parametrize("device", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_modules_load_without_console_errors(site, browser, device):
    """The lobby and the table (waiting, then a game running) as ES modules: every
    module loads, the sockets connect, nothing is logged as an error."""
    # one account per device: the site (and its database) lives for the whole module
    me = Player.open(browser, "mk" + uuid.uuid4().hex[:8], **device)
    page = me.page
    page.goto(site.base_url + "/")  # anonymous
    page.locator("#lobby-status[data-state=open]").wait_for()
    me.sign_up(site.base_url)
    page.locator("#lobby-status[data-state=open]").wait_for()

    me.create_table("模块桌")
    assert page.evaluate("typeof window.YuanziTable.state") == "function"
    me.sit(1)
    me.add_bots()
    me.ready()
    page.locator("#table-app[data-status=playing]").wait_for()
    page.locator("#hand .pcard").first.wait_for()
    page.wait_for_function("() => document.querySelector('.seat.is-turn .seat-timer')"
                           "?.textContent.endsWith('″')")
    if me.wait_turn_or_over() == "turn":
        me.take_turn()
    page.goto(site.base_url + "/")  # the lobby lists the table being played
    # (this user's own table: the module's other device may have one playing too)
    page.locator(".lobby-table[data-status=playing]").filter(has_text=me.name).first.wait_for()
    page.locator("#lobby-status[data-state=open]").wait_for()
    assert me.toasts() == []
    me.assert_clean()


def test_a_closed_table_says_so_and_stops_reconnecting(site, browser):
    """The table is closed server-side while its page is open; the connection
    drops (cut at a TCP proxy, outside the page); the page's reconnect is closed
    with 4404, and the page says the table is closed, links to the lobby and
    opens no further connection."""
    proxy = TcpProxy(site.port)
    try:
        me = Player.open(browser, "guanbi", viewport={"width": 1000, "height": 760})
        sockets: list[str] = []
        me.page.on("websocket", lambda ws: sockets.append(ws.url))
        me.sign_up(proxy.base_url)
        me.create_table("关门桌")
        table_id = int(me.page.url.rstrip("/").rsplit("/", 1)[1])
        me.sit(0)
        opened = [u for u in sockets if "/ws/table/" in u]
        assert len(opened) == 1

        site.manage("shell", "-c", "from games.models import Table; "
                    f"Table.objects.filter(pk={table_id}).update(closed=True)")
        assert proxy.cut() > 0
        page = me.page
        page.locator("#conn-status[data-state=gone]").wait_for()
        notice = page.locator("#closed-notice")
        assert notice.is_visible()
        assert "这张桌子已关闭" in notice.inner_text()
        # the chip beside it says it short, not the same sentence twice
        assert page.locator("#conn-status").inner_text() == "已关闭"
        link = notice.locator("a#closed-lobby-link")
        assert link.get_attribute("href") == "/"
        assert link.inner_text() == "返回大厅"
        # nothing left to do at a closed table
        assert page.locator(".seat-actions button").count() == 0
        assert not page.locator("#ready-btn").is_visible()
        assert not page.locator("#chat-form").is_visible()
        assert not page.locator("#phrases").is_visible()  # 再来一局 … would only be refused
        assert not page.locator("#spectators").is_visible()

        time.sleep(6)  # a reconnect would come after 1–1.5 s, then 2–2.5 s more
        table_sockets = [u for u in sockets if "/ws/table/" in u]
        assert len(table_sockets) == 2, table_sockets  # the first, and the one closed with 4404
        assert page.locator("#conn-status").get_attribute("data-state") == "gone"
        link.click()
        page.wait_for_url(proxy.base_url + "/")
        assert page.locator(f'.lobby-table[data-table-id="{table_id}"]').count() == 0
        me.assert_clean()
    finally:
        proxy.close()
