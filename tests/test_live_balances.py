"""Balances that tell the truth during a game: every coin
movement reaches every affected player's open pages as a ``me`` frame, a
receiver is told why in a ``notice``, the header of every page shows the
person's figures, and the per-user channel reaches pages with no socket of
their own (``/ws/me/``). The lobby page's one socket carries it too
(tests/test_browser_live.py counts the browser's sockets).

Sockets go through ``yuanzi_site.asgi.application`` (the Origin check and the
session cookie as in production), as tests/test_consumers.py does, whose
fixtures and helpers this reuses; ``transaction=True`` because the consumers
reach the database from other threads and frames leave after commit.
"""

from __future__ import annotations

import re

import pytest
from channels.testing import WebsocketCommunicator
from django.db import transaction
from django.test import Client

from accounts.models import Profile
from games import events, play, presence
from games.models import Game
from shop import coins, ledger
from tests import helpers
from tests import test_consumers as tc
from tests import test_items as ti
from tests import test_wagers as tw
from tests.test_consumers import ORIGIN, TIMEOUT, Sock, _db, _open, _start_game
from yuanzi_site.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

_site, socks = tc._site, tc.socks
_catalogue, notices = ti._catalogue, ti.notices


def balance(user) -> int:
    return Profile.objects.get(user=user).coins


async def _personal(user=None, path: str = "/ws/me/") -> Sock:
    """A ``/ws/me/`` socket (the per-user channel of a page without one of its
    own, e.g. the shop's) or a lobby socket (``path="/ws/lobby/"``)."""
    headers = [ORIGIN]
    if user is not None:
        headers.append((b"cookie", await _db(tc._cookie)(user)))
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, code = await comm.connect(timeout=TIMEOUT)
    assert connected, f"refused with {code}"
    return Sock(comm)


def _me(coins_: int):
    return lambda m: m["type"] == "me" and m["coins"] == coins_


async def seen(sock: Sock, pred) -> dict:
    """The first frame ``sock`` got (or gets) that satisfies ``pred``: frames of
    one commit may come in any order."""
    for m in sock.frames:
        if pred(m):
            return m
    return await sock.until(pred)


def _type(kind: str):
    return lambda m: m["type"] == kind


# --- the 定时器: the case a tester found --------------------------------------------------


async def test_a_timer_updates_all_four_balances_and_tells_the_receivers_why(
        table, players, socks, notices):
    game = await _start_game(table, players)
    owner = await _db(ti._arm_for_turn)(game)  # bought (2,000 + 600 − 600) and armed
    for i, user in enumerate(players):
        socks.append(await _open(table.pk, user, seat=i))
    receiver = next(u for u in players if u != owner)
    shop_page = await _personal(receiver)  # the receiver also has the shop open
    socks.append(shop_page)
    for s in socks[:4]:
        await s.until(lambda m: m["type"] == "game")
    before = {u.pk: await _db(balance)(u) for u in players}
    await _db(helpers.force_due)(game)
    assert await _db(play.sweep_due)() == 1  # the turn ran out: the timer fires
    # the owner's page: the new balance, and what the timer did
    owner_sock = socks[[u.pk for u in players].index(owner.pk)]
    me = await seen(owner_sock, _type("me"))
    assert me["coins"] == before[owner.pk] - 270 == await _db(balance)(owner)
    assert {"coins_held", "level", "title", "title_en", "rating_points"} <= set(me)
    fired = await seen(owner_sock, _type("notice"))
    assert (fired["code"], fired["params"]) == ("timer_fired", {"seconds": 90, "fee": 270})
    # the three others: told they received 90 and why, their balance +90
    for user, sock in zip(players, socks[:4], strict=True):
        if user == owner:
            continue
        told = await seen(sock, _type("notice"))
        assert told["code"] == "timer_paid"
        assert told["params"] == {"name": owner.username, "coins": 90, "table_id": table.pk}
        assert told["message"] == f"{owner.username} 的定时器生效，你得到 90 金币"
        assert (await seen(sock, _type("me")))["coins"] == before[user.pk] + 90
    # the same reaches the receiver's page without a table
    assert (await seen(shop_page, _type("notice")))["code"] == "timer_paid"
    assert (await seen(shop_page, _type("me")))["coins"] == before[receiver.pk] + 90
    # one `me` frame and one notice per person for the one movement
    for sock in socks[:4]:
        await sock.quiet()
        assert len([m for m in sock.frames if m["type"] == "me"]) == 1
        assert len([m for m in sock.frames if m["type"] == "notice"]) == 1
    assert sorted(u for u, code, _p in notices if code == "timer_paid") == sorted(
        u.pk for u in players if u != owner)


def test_the_timer_notice_is_english_for_an_english_page(client, owner):
    """The page words the notice in its own language from the params (the
    server's sentence is in the site's default language)."""
    client.force_login(owner)
    html = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    strings = tc_json(html, "me-strings")
    assert strings["notice_timer_paid"] == "%(name)s's timer fired: you receive %(coins)s coins."
    zh = tc_json(client.get("/rules/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode(),
                 "me-strings")
    assert zh["notice_timer_paid"] == "%(name)s 的定时器生效，你得到 %(coins)s 金币"
    assert zh["notice_wager_won"] == "押宝结算：你赢得 %(coins)s 金币"


def tc_json(html: str, element_id: str) -> dict:
    import json

    m = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>',
                  html, re.S)
    assert m, f"no {element_id} on the page"
    return json.loads(m.group(1))


# --- wagers: settlement and escape -----------------------------------------------------------


async def _four_on_the_channel(users, socks) -> list[Sock]:
    for user in users:
        socks.append(await _personal(user))
    return socks[-4:]


async def test_a_wager_settlement_updates_all_four_and_tells_the_winners(socks, notices):
    four = await _db(helpers.make_players)(4, "live")
    for user in four:
        await _db(tw.set_coins)(user, 5000)
    game = await _db(lambda: tw.start(tw.wager_table(four, 40), four))()
    pages = await _four_on_the_channel(four, socks)
    await _db(tw.finish_with)(game, tw.finished_state("0"))  # N and S win
    changes = await _db(lambda: tw.GameWager.objects.get(game=game).coin_changes)()
    assert changes[0] > 0
    assert changes[2] > 0
    assert changes[1] < 0
    assert changes[3] < 0
    for user, page, change in zip(four, pages, changes, strict=True):
        after = await _db(balance)(user)
        assert after == 5000 + change
        await seen(page, _me(after))
        if change > 0:
            told = await seen(page, _type("notice"))
            assert (told["code"], told["params"]["coins"]) == ("wager_won", change)
            assert told["message"] == f"押宝结算：你赢得 {change} 金币"
    for page, change in zip(pages, changes, strict=True):
        await page.quiet()
        # the losers are not told they "received" anything; the result panel explains
        codes = [m["code"] for m in page.frames if m["type"] == "notice" and m["code"] != "drop"]
        assert codes == (["wager_won"] if change > 0 else [])
        # the settlement's frame, and the rating settlement's (level may move): same figures
        assert {m["coins"] for m in page.frames if m["type"] == "me"} == {5000 + change}


async def test_an_escape_payment_updates_all_four_and_names_the_escaper(socks):
    four = await _db(helpers.make_players)(4, "esc")
    game = await _db(lambda: tw.start(tw.wager_table(four, 10), four))()
    pages = await _four_on_the_channel(four, socks)
    await _db(play.escape)(game.pk, four[2])  # 200 coins to the other three: 67, 67, 66
    for user, page, change in zip(four, pages, [67, 67, -200, 66], strict=True):
        assert await _db(balance)(user) == 2000 + change
        await seen(page, _me(2000 + change))
        if change > 0:
            told = await seen(page, _type("notice"))
            assert told["code"] == "escape_paid"
            assert told["params"] == {"coins": change, "name": four[2].username,
                                      "table_id": game.table_id}
            assert told["message"] == f"{four[2].username} 逃跑，你得到 {change} 金币"


# --- the header of every page -------------------------------------------------------------


def test_the_header_shows_coins_and_level_on_pages_without_a_table(client, owner):
    with transaction.atomic():
        ledger.debit(owner, 250, ledger.Reason.PURCHASE, item_code="sign")
    Profile.objects.filter(user=owner).update(rating_points=60)  # level 1
    client.force_login(owner)
    for url in ("/rules/", "/shop/", "/leaderboard/", "/accounts/profile/"):
        html = client.get(url).content.decode()
        figures = re.search(
            r'<span id="me-figures"[^>]*>(.*?)<a href="/accounts/profile/"', html, re.S)
        assert figures, url
        assert 'data-coins="1750"' in html
        assert 'data-level="1"' in html
        assert 'data-held="0"' in html
        text = re.sub(r"<[^>]+>|\s+", " ", figures.group(1))
        assert "1750 金币" in text, text
        assert "第 1 级" in text, text
        assert '<span id="me-held" class="me-held" hidden>' in html  # nothing held
        # no socket of its own: the page opens /ws/me/ for the per-user channel
        assert '<script type="module" src="/static/js/personal.js">' in html, url
    # the lobby's and a table's own socket carry it: no second socket there
    html = client.get("/").content.decode()
    assert 'id="me-figures"' in html
    assert 'src="/static/js/personal.js"' not in html
    # nothing of the kind for a visitor
    html = Client().get("/rules/").content.decode()
    assert 'id="me-figures"' not in html
    assert 'src="/static/js/personal.js"' not in html


def test_the_header_shows_held_coins_when_some_are_held(rf, owner):
    """``coins_held`` (the held stake of a running wager game, RULES.md §12)
    shows as "N 冻结" beside the coins; none held, nothing shows."""
    from django.template.loader import render_to_string
    from django.utils import translation

    from accounts import live

    profile = Profile.objects.get(user=owner)
    assert live.figures(profile)["coins_held"] == 0
    profile.coins_held = 300  # as a profile of the held-stake branch reads
    with translation.override("zh-hans"):
        html = render_to_string("_me_figures.html", {"me_header": live.figures(profile)},
                                request=rf.get("/"))
    held = re.search(r'<span id="me-held"([^>]*)>(.*?)</span>', html)
    assert "hidden" not in held.group(1)
    assert held.group(2) == "300 冻结"
    assert 'data-held="300"' in html


def test_the_table_page_has_the_header_and_no_second_socket(client, owner, table):
    client.force_login(owner)
    html = client.get(f"/tables/{table.pk}/").content.decode()
    assert 'id="me-figures"' in html
    assert 'src="/static/js/personal.js"' not in html
    assert 'id="me-strings"' in html


# --- the per-user channel -------------------------------------------------------------------


async def test_the_channel_reaches_the_shop_pages_socket_and_the_lobbys(owner, outsider, socks):
    shop_page = await _personal(owner)
    lobby = await _personal(owner, "/ws/lobby/")
    other = await _personal(outsider)
    socks.extend([shop_page, lobby, other])
    assert (await lobby.recv())["type"] == "tables"
    assert await shop_page.comm.receive_nothing(0.1)  # nothing until there is something
    result = await _db(coins.check_in)(owner)  # a real cause, on another page
    after = await _db(balance)(owner)
    assert after == 2000 + result.amount
    for page in (shop_page, lobby):
        await seen(page, _me(after))

    @_db
    def tell():
        with transaction.atomic():
            events.send_user(owner.pk, {"type": "notice", "code": "x", "message": "m",
                                        "params": {}})
            events.notify(owner.pk, "y", "n")

    await tell()
    for page in (shop_page, lobby):
        got = await page.until(lambda m: m["type"] == "notice" and m["code"] == "y")
        assert [m["code"] for m in page.frames if m["type"] == "notice"] == ["x", "y"]
        assert got["message"] == "n"
    await other.quiet()
    assert other.frames == []  # another person's channel heard nothing
    await shop_page.send({"type": "ping"})
    assert (await shop_page.recv())["type"] == "pong"


async def test_a_person_is_online_while_any_socket_of_theirs_heartbeats(owner, outsider, table):
    online = _db(presence.online)
    assert await online([owner.pk, outsider.pk]) == set()
    me = await _personal(owner)
    assert await online([owner.pk, outsider.pk]) == {owner.pk}
    lobby = await _personal(outsider, "/ws/lobby/")
    assert await online([owner.pk, outsider.pk]) == {owner.pk, outsider.pk}
    at_table = await _open(table.pk, owner)
    await me.comm.disconnect()
    assert await online([owner.pk]) == {owner.pk}  # the table socket still counts
    await at_table.comm.disconnect()
    await lobby.comm.disconnect()
    assert await online([owner.pk, outsider.pk]) == set()
    assert not await _db(presence.is_online)(owner.pk)


def test_a_heartbeat_older_than_the_ttl_counts_for_nothing(owner, settings):
    """A killed process says no goodbye: its last heartbeat runs out."""
    import time

    presence.store().touch_person("gone-channel", owner.pk, time.time() - 10)
    settings.GAMES_PRESENCE_TTL_SECONDS = 5
    assert presence.online([owner.pk]) == set()
    settings.GAMES_PRESENCE_TTL_SECONDS = 60
    assert presence.online([owner.pk]) == {owner.pk}


async def test_an_anonymous_me_socket_is_closed_4403_and_a_suspension_closes_it(owner):
    anonymous = WebsocketCommunicator(application, "/ws/me/", headers=[ORIGIN])
    connected, _ = await anonymous.connect(timeout=TIMEOUT)
    assert connected
    assert (await anonymous.receive_output(TIMEOUT)) == {"type": "websocket.close", "code": 4403}
    page = await _personal(owner)
    lobby = await _personal(owner, "/ws/lobby/")
    assert (await lobby.recv())["type"] == "tables"

    @_db
    def suspend():
        with transaction.atomic():
            events.close_sockets(owner.pk, {"type": "notice", "code": "suspended",
                                            "message": "s", "params": {}})

    await suspend()
    for sock in (page, lobby):
        assert (await sock.recv())["code"] == "suspended"
        assert (await sock.comm.receive_output(TIMEOUT)) == {"type": "websocket.close",
                                                              "code": 4403}


def test_a_movement_sends_one_me_frame_per_user_after_commit_and_none_on_rollback(
        owner, outsider):
    sent: list[tuple[int, dict]] = []

    def keep(event):
        user_id, frame = event.user_id, event.frame
        sent.append((user_id, frame))

    events.subscribe(events.UserFrame, keep)
    try:
        with transaction.atomic():
            ledger.transfer([(owner, -30), (outsider, 30)], ledger.Reason.ITEM, item_code="timer")
            assert sent == []  # nothing before the commit
        assert sorted((u, f["type"], f["coins"]) for u, f in sent) == sorted(
            [(owner.pk, "me", 1970), (outsider.pk, "me", 2030)])
        sent.clear()
        # one transaction, rolled back by the raise at its end
        with pytest.raises(RuntimeError), transaction.atomic():  # noqa: PT012
            ledger.credit(owner, 5, ledger.Reason.GRANT)
            raise RuntimeError("rolled back")
        assert sent == []
    finally:
        events.unsubscribe(events.UserFrame, keep)


def test_a_plain_move_publishes_no_me_event(owner, partner, opponent, django_user_model):
    """No coins move in a plain move: no ``me_changed`` event, so no query for one."""
    import random

    from games import engine

    four = [owner, opponent, partner, django_user_model.objects.create_user(username="w4")]
    game = tw.start(tw.wager_table(four, 10), four)
    seen_ids: list = []

    def keep(event):
        user_ids = list(event.user_ids)
        seen_ids.append(user_ids)

    events.subscribe(events.MeChanged, keep)
    try:
        seat = game.state["turn"]
        play.act(game.pk, four[seat], game.seq,
                 engine.heuristic_policy(engine.view(game.state, seat), random.Random(1)))
        assert Game.objects.get(pk=game.pk).seq == game.seq + 1
        assert seen_ids == []
    finally:
        events.unsubscribe(events.MeChanged, keep)


def test_a_gem_sends_the_new_level(owner):
    """A gem's rating points (RULES.md §9) reach the header too: level 0 → 2."""
    from shop import inventory, items
    from shop.models import InventorySlot, Item

    with transaction.atomic():
        InventorySlot.objects.bulk_create(InventorySlot(user=owner, slot=i) for i in range(24))
        inventory.add(inventory.locked(owner.pk), Item.objects.get(code="gem_perfect"), 1)
    sent: list[tuple[int, dict]] = []

    def keep(event):
        user_id, frame = event.user_id, event.frame
        sent.append((user_id, frame))

    events.subscribe(events.UserFrame, keep)
    try:
        assert items.use(owner, 0, "gem_perfect", "g")["points"] == 100
    finally:
        events.unsubscribe(events.UserFrame, keep)
    assert [(u, f["type"], f["rating_points"], f["level"]) for u, f in sent] == [
        (owner.pk, "me", 100, 2)]
