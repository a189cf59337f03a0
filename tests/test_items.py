"""Items in play (RULES.md §8–§9, §12), end to end through the table
socket where a table is involved: the 定时器's extension and payment, the
算牌器 against the engine's truth at every seq, 招牌 protection, 桌布, the
录像机 and its replay page, drops and gems with a seeded random source.

Sockets go through ``yuanzi_site.asgi.application`` as in tests/test_consumers.py
(whose helpers and fixtures this reuses); ``transaction=True`` because the
consumers reach the database from other threads.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.db import close_old_connections, connection, transaction
from django.test import Client
from django.utils import timezone

from accounts.models import GemCap, Notification, Profile, RatingEntry
from games import engine, events, play, snapshots, tables
from games.engine.cards import DISTINCT_CARDS
from games.models import Game
from moderation import roles
from shop import inventory, items, ledger, purchase
from shop.models import CoinEntry, CounterUse, Drop, InventorySlot, Replay, TimerFiring
from tests import helpers
from tests import test_consumers as tc
from tests.test_consumers import _db, _game, _open, _play_through_sockets, _start_game
from tests.ws_checks import check_frames, states_by_seq
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db(transaction=True)

# the socket tests' fixtures (a private cache, no scheduler; open sockets closed)
_site, socks = tc._site, tc.socks


@pytest.fixture(autouse=True)
def _catalogue(db):
    """The catalogue's rows (a data migration): a ``transaction=True`` test
    flushes the tables, so they are put back before each test (idempotent)."""
    import importlib

    from django.apps import apps

    importlib.import_module("shop.migrations.0004_catalogue_data").add_items(apps, None)


def coins_of(user) -> int:
    return Profile.objects.get(user=user).coins


def give(user, code: str, n: int = 1) -> int:
    """Buy ``n`` of ``code`` for ``user`` (coins granted first); returns its slot."""
    price = purchase.Item.objects.get(code=code).price
    with transaction.atomic():
        ledger.credit(user, price * n, ledger.Reason.GRANT)
    purchase.buy(user, code, n, price)
    return InventorySlot.objects.filter(user=user, item__code=code).order_by("slot").first().slot


def held(user, code: str) -> int:
    return sum(InventorySlot.objects.filter(user=user, item__code=code)
               .values_list("count", flat=True))


def refused(reason: str, fn, *args, **kwargs) -> None:
    with pytest.raises(Refused) as e:
        fn(*args, **kwargs)
    assert e.value.reason == reason, e.value.reason


@pytest.fixture
def notices():
    """Every notice published during the test: ``[(user_id, code, params)]``."""
    got: list[tuple] = []

    def keep(event):
        user_id, notice = event.user_id, event.notice
        got.append((user_id, notice["code"], notice["params"]))

    events.subscribe(events.Notice, keep)
    yield got
    events.unsubscribe(events.Notice, keep)


# --- uses in general --------------------------------------------------------------------


def test_a_use_names_slot_item_and_key_and_acts_once(owner, outsider):
    slot = give(owner, "timer")
    for bad_slot, code, reason in [(slot + 1, "timer", "wrong_item"),
                                   (slot, "gem_shard", "wrong_item"),
                                   (24, "timer", "bad_slot"), (-1, "timer", "bad_slot"),
                                   ("０", "timer", "bad_slot"), (slot, "nothing", "wrong_item")]:
        refused(reason, items.use, owner, bad_slot, code, f"k-{reason}-{bad_slot}")
    refused("bad_key", items.use, owner, slot, "timer", "")
    refused("wrong_item", items.use, outsider, slot, "timer", "other")  # not in their slot
    assert not InventorySlot.objects.filter(armed=True).exists()
    first = items.use(owner, slot, "timer", "same-key")
    items.disarm_timer(owner)
    assert items.use(owner, slot, "timer", "same-key") == first  # resent: acts no more
    assert not InventorySlot.objects.filter(armed=True).exists()


def test_items_needing_a_table_or_a_game_say_where(owner):
    for code, reason in [("sign", "needs_table"), ("tablecloth", "needs_table"),
                         ("card_counter", "needs_table"), ("recorder", "needs_game")]:
        slot = give(owner, code)
        refused(reason, items.use, owner, slot, code, f"k-{code}")
        assert held(owner, code) == 1


def test_arming_is_one_per_user_and_consumes_nothing(owner):
    slot = give(owner, "timer", 3)
    items.use(owner, slot, "timer", "a")
    other = give(owner, "recorder")
    inventory.swap(owner, slot, 5)  # the armed stack moves; another timer stack:
    give(owner, "timer", 99)  # fills slot 5 to 99, the rest in a new slot
    second = InventorySlot.objects.filter(user=owner, item__code="timer", armed=False).first()
    items.use(owner, second.slot, "timer", "b")  # the arming moves there
    armed = InventorySlot.objects.filter(user=owner, armed=True)
    assert list(armed.values_list("slot", flat=True)) == [second.slot]
    assert held(owner, "timer") == 102
    assert held(owner, "recorder") == 1
    assert other != slot


# --- 定时器 ---------------------------------------------------------------------------------


def _arm_for_turn(game):
    user = helpers.user_at(game, game.state["turn"])
    items.use(user, give(user, "timer"), "timer", "arm")
    return user


async def test_timer_extends_once_pays_270_and_every_clock_shows_it(table, players, socks,
                                                                    notices):
    game = await _start_game(table, players)
    owner = await _db(_arm_for_turn)(game)
    seat = game.state["turn"]
    for i, user in enumerate(players):
        socks.append(await _open(table.pk, user, seat=i))
    for s in socks:
        await s.until(lambda m: m["type"] == "game")
    assert socks[seat].view["armed_timer"] is True
    assert all(s.view.get("armed_timer") is False for s in socks if s.seat != seat)
    before = {u.pk: await _db(coins_of)(u) for u in players}
    await _db(helpers.force_due)(game)
    assert await _db(play.sweep_due)() == 1
    assert await _db(play.run_due)(game.pk, game.seq) is False  # countdown after the sweep
    assert await _db(play.sweep_due)() == 0
    for s in socks:
        frame = await s.until(lambda m: m["type"] == "game" and m["view"]["time_left_ms"] > 60_000)
        assert frame["view"]["seq"] == game.seq == 0
    after = {u.pk: await _db(coins_of)(u) for u in players}
    assert after[owner.pk] == before[owner.pk] - 270
    assert all(after[u.pk] == before[u.pk] + 90 for u in players if u != owner)
    assert await _db(lambda: TimerFiring.objects.count())() == 1
    assert await _db(held)(owner, "timer") == 0
    assert (owner.pk, "timer_fired", {"seconds": 90, "fee": 270}) in notices
    # and kept in the owner's 消息: their coins moved
    assert await _db(lambda: list(Notification.objects.filter(user=owner).values_list(
        "kind", "params")))() == [("timer_fired", {"seconds": 90, "fee": 270})]
    # the extended turn runs out too: now the clock acts (no second extension)
    await _db(helpers.force_due)(game)
    assert await _db(play.sweep_due)() == 1
    assert (await _db(helpers.last_event)(game)).by == "clock"
    assert {u.pk: await _db(coins_of)(u) for u in players} == after


def test_timer_does_nothing_in_practice_and_stays_armed(owner, notices, settings):
    settings.GAMES_BOT_DELAY_SECONDS = 0
    game = helpers.start_game([owner], bots=(1, 2, 3))
    while game.state["turn"] != 0:
        helpers.force_due(game)
        play.run_due(game.pk)
        game = helpers.fresh(game)
    slot = give(owner, "timer")
    items.use(owner, slot, "timer", "arm")
    coins = coins_of(owner)
    helpers.force_due(game)
    assert play.run_due(game.pk)
    assert helpers.last_event(game).by == "clock"
    assert InventorySlot.objects.get(user=owner, slot=slot).armed
    assert coins_of(owner) == coins
    assert not TimerFiring.objects.exists()
    assert (owner.pk, "timer_practice", {}) in notices


def test_timer_under_270_coins_does_not_fire_and_stays_armed(notices):
    users = helpers.make_players(4)
    game = helpers.start_game(users)
    user = _arm_for_turn(game)
    with transaction.atomic():
        ledger.debit(user, coins_of(user) - 269, ledger.Reason.GRANT)
    helpers.force_due(game)
    assert play.run_due(game.pk)
    assert helpers.last_event(game).by == "clock"
    assert InventorySlot.objects.get(user=user, armed=True).count == 1
    assert coins_of(user) == 269
    assert (user.pk, "timer_no_coins", {"fee": 270, "held": 0}) in notices


@pytest.mark.skipif(not os.environ.get("DATABASE_URL"),
                    reason="needs PostgreSQL (DATABASE_URL): SQLite serialises the threads")
def test_timer_fires_once_when_countdown_and_sweep_race():
    users = helpers.make_players(4)
    game = helpers.start_game(users)
    user = _arm_for_turn(game)
    helpers.force_due(game)
    barrier = threading.Barrier(6)
    results = []

    def racer(fn):
        try:
            barrier.wait()
            results.append(fn())
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=racer, args=(lambda: play.run_due(game.pk, 0),))
               for _ in range(3)]
    threads += [threading.Thread(target=racer, args=(play.sweep_due,)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(bool(r) for r in results) == 1
    assert TimerFiring.objects.count() == 1
    assert helpers.fresh(game).seq == 0
    assert CoinEntry.objects.filter(reason="item", user=user).count() == 1


# --- 算牌器 ------------------------------------------------------------------------------


async def test_card_counter_is_the_truth_at_every_seq_and_only_for_its_user(
        table, players, outsider, socks, settings):
    # a winner's random drop could be a card counter and change the count below
    settings.SHOP_DROP_CHANCE = 0
    game = await _start_game(table, players)
    slot = await _db(give)(players[0], "card_counter", 2)
    for i, user in enumerate(players):
        socks.append(await _open(table.pk, user, seat=i))
    watcher = await _open(table.pk, outsider)
    for s in [*socks, watcher]:
        await s.until(lambda m: m["type"] == "game")
    await watcher.send({"type": "use_item", "slot": 0, "item": "card_counter", "key": "w"})
    assert (await watcher.error())["reason"] == "not_seated"
    me = socks[0]
    await me.send({"type": "use_item", "slot": slot, "item": "card_counter", "key": "c1"})
    reply = await me.until(lambda m: m["type"] in ("item_used", "error"))
    assert reply["type"] == "item_used"
    assert reply["result"]["half"] == 1
    await me.until(lambda m: m["type"] == "game" and "card_counter" in m["view"])
    await me.send({"type": "use_item", "slot": slot, "item": "card_counter", "key": "c2"})
    assert (await me.error())["reason"] == "already_active"
    assert await _db(held)(players[0], "card_counter") == 1  # kept

    await _play_through_sockets(socks[:4])
    game = await _game(table.pk)
    states = await _db(states_by_seq)(game)
    counted, on = 0, False
    for frame in me.frames:
        if frame["type"] != "game":
            continue
        v = frame["view"]
        true = states[v["seq"]]
        on = on or "card_counter" in v  # from the use on
        if on and true["status"] == engine.PLAYING and true["half"] == 1:
            truth = Counter(c for seat in (1, 2, 3) for c in true["hands"][seat])
            assert v["card_counter"] == {c: truth[c] for c in DISTINCT_CARDS}
            counted += 1
        else:
            assert "card_counter" not in v  # the second half, the result: gone
    assert counted >= 2
    for s in [*socks[1:4], watcher]:
        assert not any("card_counter" in f.get("view", {}) for f in s.frames)
        assert check_frames(s.frames, states, s.seat) >= 1
    await me.send({"type": "use_item", "slot": slot, "item": "card_counter", "key": "c3"})
    assert (await me.error())["reason"] == "game_over"
    assert await _db(held)(players[0], "card_counter") == 1
    await watcher.comm.disconnect()


# --- 招牌 / 金字招牌 ---------------------------------------------------------------------------


async def test_sign_renames_live_and_protects_the_name(table, owner, partner, outsider, socks):
    await _db(tables.sit)(table.pk, partner, 1)
    mine = await _db(give)(owner, "sign", 2)
    theirs = await _db(give)(partner, "gold_sign")
    a = await _open(table.pk, owner)
    b = await _open(table.pk, partner)
    socks.extend([a, b])
    await a.send({"type": "use_item", "slot": mine, "item": "sign", "key": "s0", "name": "  "})
    assert (await a.error())["reason"] == "bad_name"
    await a.send({"type": "use_item", "slot": mine, "item": "sign", "key": "s1",
                  "name": "  嘉兴原子  "})
    frame = await b.until(lambda m: m["type"] == "table" and m["table"]["name"] == "嘉兴原子")
    assert frame["table"]["sign"]["by"] == "owner"
    assert frame["table"]["sign"]["item"] == "sign"
    row = await _db(lambda: next(r for r in snapshots.lobby_rows() if r["id"] == table.pk))()
    assert row["name"] == "嘉兴原子"
    assert row["sign"]["by"] == "owner"
    await b.send({"type": "use_item", "slot": theirs, "item": "gold_sign", "key": "s2",
                  "name": "别的名字"})
    assert (await b.error())["reason"] == "name_protected"
    assert await _db(held)(partner, "gold_sign") == 1
    await a.send({"type": "use_item", "slot": mine, "item": "sign", "key": "s3", "name": "再来"})
    await b.until(lambda m: m["type"] == "table" and m["table"]["name"] == "再来")
    assert await _db(held)(owner, "sign") == 0  # every rename costs a sign
    # an outsider (neither owner nor seated) may not; a moderator may, and clears it
    other = await _db(give)(outsider, "sign", 2)
    refused_ = await _db(lambda: _refusal(items.use, outsider, other, "sign", "o1",
                                          table_id=table.pk, name="x"))()
    assert refused_ == "not_seated"
    await _db(lambda: roles.add(outsider))()  # the group's API forgets what was known of them
    await _db(items.use)(outsider, other, "sign", "o2", table_id=table.pk, name="管理改名")
    frame = await b.until(lambda m: m["type"] == "table" and m["table"]["name"] == "管理改名")
    assert frame["table"]["sign"] is None
    await b.send({"type": "use_item", "slot": theirs, "item": "gold_sign", "key": "s4",
                  "name": "金字"})
    frame = await a.until(lambda m: m["type"] == "table" and m["table"]["name"] == "金字")
    until = timezone.datetime.fromisoformat(frame["table"]["sign"]["until"])
    assert timedelta(hours=23, minutes=59) < until - timezone.now() <= timedelta(hours=24)


def _refusal(fn, *args, **kwargs) -> str:
    try:
        fn(*args, **kwargs)
    except Refused as e:
        return e.reason
    return "none"


# --- 桌布 -------------------------------------------------------------------------------------


async def test_tablecloth_is_seen_by_everyone_and_reset_is_free(table, owner, partner,
                                                                outsider, socks):
    mine = await _db(give)(owner, "tablecloth")
    theirs = await _db(give)(partner, "tablecloth")
    a, b, c = (await _open(table.pk, owner), await _open(table.pk, partner),
               await _open(table.pk, outsider))
    socks.extend([a, b, c])
    await b.send({"type": "use_item", "slot": theirs, "item": "tablecloth", "key": "t1",
                  "theme": "jade"})
    assert (await b.error())["reason"] == "not_owner"
    await a.send({"type": "use_item", "slot": mine, "item": "tablecloth", "key": "t2",
                  "theme": "velvet"})
    assert (await a.error())["reason"] == "bad_theme"
    assert await _db(held)(owner, "tablecloth") == 1
    await a.send({"type": "use_item", "slot": mine, "item": "tablecloth", "key": "t3",
                  "theme": "jade"})
    for s in (a, b, c):
        await s.until(lambda m: m["type"] == "table" and m["table"]["theme"] == "jade")
    assert await _db(held)(owner, "tablecloth") == 0
    await b.send({"type": "reset_theme"})
    assert (await b.error())["reason"] == "not_owner"
    await a.send({"type": "reset_theme"})
    await c.until(lambda m: m["type"] == "table" and m["table"]["theme"] == "default")


# --- 录像机 -----------------------------------------------------------------------------------


def test_recorder_saves_a_finished_game_with_a_share_link(owner, outsider):
    users = [owner, *helpers.make_players(3)]
    game = helpers.start_game(users)
    slot = give(owner, "recorder", 2)
    refused("game_running", items.use, owner, slot, "recorder", "r0", game_id=game.pk)
    play.escape(game.pk, users[1])
    client = Client()
    assert client.get(f"/games/{game.pk}/").status_code in (200, 404)
    refused("not_seated", items.use, outsider, slot, "recorder", "r1", game_id=game.pk)
    result = items.use(owner, slot, "recorder", "r2", game_id=game.pk)
    refused("already_saved", items.use, owner, slot, "recorder", "r3", game_id=game.pk)
    assert held(owner, "recorder") == 1
    token = result["token"]
    assert len(token) >= 40
    assert Replay.objects.get(token=token).game_id == game.pk
    page = client.get(f"/replays/{token}/")  # logged out: the share link works
    # the seats by their Chinese names, 北 东 南 西 (json_script escapes them)
    assert '<script id="replay-seats" type="application/json">["\\u5317"' in page.content.decode()
    assert page.status_code == 200
    assert "replay-frames" in page.content.decode()
    record = client.get(f"/replays/{token}/record.json")
    assert record["Content-Disposition"].startswith("attachment")
    assert record.json() == helpers.fresh(game).record
    assert client.get("/replays/not-a-token/").status_code == 404
    client.force_login(owner)
    assert token in client.get("/replays/").content.decode()


def test_replay_frames_step_through_every_action_with_tricks():
    from shop import replays

    users = helpers.make_players(4)
    game = helpers.start_game(users)
    for _ in range(12):
        helpers.play_human_turn(game)
    play.escape(game.pk, users[0])
    game = helpers.fresh(game)
    frames = replays.frames(game)
    actions = [a for h in game.record["halves"] for a in h["actions"]]
    assert [[f["seat"], f["cards"]] for f in frames] == actions
    assert frames[0]["trick"] == 1
    assert all(
        b["trick"] - a["trick"] in (0, 1) for a, b in itertools.pairwise(frames))
    # a trick starts with a play: every first action of a trick has cards
    firsts = {}
    for f in frames:
        firsts.setdefault(f["trick"], f)
    assert all(f["cards"] for f in firsts.values())


def _finished_game(prefix: str, name: str) -> Game:
    users = helpers.make_players(4, prefix)
    game = helpers.start_game(users)
    tables.rename(game.table_id, users[0], name)  # during the game: kept from the start
    while helpers.fresh(game).status != Game.OVER:
        helpers.play_human_turn(game)
    return helpers.fresh(game)


def test_a_replay_is_titled_as_the_game_was_played():
    """The replay page was once titled with the table's current name.
    The name is kept with the game when it starts (``Game.table_name``)."""
    users = helpers.make_players(4, "title")
    table = tables.create_table(users[0], "南湖茶馆")
    for i, u in enumerate(users):
        tables.sit(table.pk, u, i)
    for u in users:
        tables.set_ready(table.pk, u)
    game = table.games.get()
    tables.rename(table.pk, users[1], "金牌茶馆")  # a sign, during the game
    play.escape(game.pk, users[3])
    tables.rename(table.pk, users[1], "新名字")     # and after it
    game = helpers.fresh(game)
    assert game.table_name == "南湖茶馆"
    assert game.played_name == "南湖茶馆"
    Replay.objects.create(user=users[0], game=game, token="n" * 43)
    client = Client()
    html = client.get("/replays/" + "n" * 43 + "/").content.decode()
    assert "<title>录像：南湖茶馆 · " in html
    assert '<h1 id="replay-title">录像：南湖茶馆</h1>' in html
    assert "新名字" not in html
    assert "金牌茶馆" not in html
    client.force_login(users[0])
    listing = client.get("/replays/").content.decode()
    assert "南湖茶馆" in listing
    assert "新名字" not in listing
    # a game from before names were kept: the migration copies the table's name
    # in; a row left blank falls back to it
    import importlib

    from django.apps import apps

    Game.objects.filter(pk=game.pk).update(table_name="")
    assert helpers.fresh(game).played_name == "新名字"
    importlib.import_module("games.migrations.0010_game_table_name").copy_current_names(
        apps, None)
    assert helpers.fresh(game).table_name == "新名字"


def test_replay_frames_carry_the_scores_and_the_deals_every_card():
    from shop import replays

    game = _finished_game("score", "计分桌")
    frames = replays.frames(game)
    record = game.record
    ended = [f for f in frames if f["half_points"] is not None]
    assert [f["half_points"] for f in ended] == [h["points"] for h in record["halves"]]
    assert [f["out"] for f in ended] == [h["finish_order"] for h in record["halves"]]
    for f in frames:
        assert len(f["captured"]) == 4
        assert f["table_points"] >= 0
        assert f["table_points"] % 5 == 0
        assert all(c % 5 == 0 for c in f["captured"])
    deals = replays.deals(game)
    assert [d["half"] for d in deals] == [h["half"] for h in record["halves"]]
    for d, h in zip(deals, record["halves"], strict=True):
        assert d["dao"] == h["dao"]
        assert sum(len(x) for x in d["hands"]) == 162
        assert [sorted(x) for x in d["hands"]] == [sorted(x) for x in h["hands"]]
        assert d["hands"] == [engine.sort_hand(x, h["dao"]) for x in h["hands"]]
    # South's seat is drawn at the bottom unless the saver played another seat
    assert replays.bottom_seat(game, helpers.user_at(game, 1)) == 1
    assert replays.bottom_seat(game, helpers.make_players(1, "nobody")[0]) == 2


def test_no_replay_of_a_running_game(owner):
    game = helpers.start_game([owner, *helpers.make_players(3)])
    Replay.objects.create(user=owner, game=game, token="t" * 43)  # even if a row existed
    client = Client()
    assert client.get("/replays/" + "t" * 43 + "/").status_code == 404
    assert client.get("/replays/" + "t" * 43 + "/record.json").status_code == 404


# --- drops and gems -----------------------------------------------------------------------


def _finish_normally(users) -> Game:
    game = helpers.start_game(users)
    for _ in range(3000):
        game = helpers.fresh(game)
        if game.status == Game.OVER:
            return game
        helpers.play_human_turn(game)
    raise AssertionError("no end")


def test_drops_and_gems_with_a_seeded_source(settings, notices):
    settings.SHOP_DROP_SEED = 8
    settings.SHOP_DROP_CHANCE = 1.0
    settings.SHOP_DROP_WEIGHTS = {"recorder": 1}
    settings.SHOP_GEM_WEIGHTS = {"gem_perfect": 1}
    users = helpers.make_players(4)
    full = users[0]
    for _ in range(24):  # fill the first player's inventory with 24 full stacks
        give(full, "timer", 99)
    game = _finish_normally(users)
    winner = game.state["result"]["winner"]
    drops = list(Drop.objects.filter(game=game))
    winners = {r.user_id for r in game.seats.all() if engine.team_of(r.index) == winner}
    assert {d.user_id for d in drops if d.cause == "win"} == winners
    first_outs = [game.seats.get(index=h["finish_order"][0]).user_id
                  for h in game.record["halves"]]
    assert sorted(d.user_id for d in drops if d.cause == "first_out") == sorted(first_outs)
    for d in drops:
        if d.user_id == full.pk:
            assert d.lost
            assert (full.pk, "drop_lost", {"item": d.item_code}) in notices
        else:
            assert not d.lost
    for u in users[1:]:
        assert held(u, "recorder") == sum(1 for d in drops if d.user_id == u.pk
                                          and d.item_code == "recorder")
        assert held(u, "gem_perfect") == sum(1 for d in drops if d.user_id == u.pk
                                             and d.item_code == "gem_perfect")
    # the same seed gives the same drops (reproducible)
    assert [d.item_code for d in drops] == ["recorder"] * len(winners) + ["gem_perfect"] * len(
        first_outs)
    from games.seatview import view_for

    assert view_for(helpers.fresh(game), 1)["drops"] == [
        {"user_id": d.user_id, "item": d.item_code, "cause": d.cause, "lost": d.lost}
        for d in drops]


def test_the_drop_source_is_seeded_per_game_or_systems(settings):
    from types import SimpleNamespace

    from shop import ingame

    settings.SHOP_DROP_SEED = "s"
    a, b = SimpleNamespace(pk=1), SimpleNamespace(pk=2)
    draws = [ingame.random_source(a).random() for _ in range(2)]
    assert draws[0] == draws[1] != ingame.random_source(b).random()
    settings.SHOP_DROP_SEED = None
    assert isinstance(ingame.random_source(a), __import__("random").SystemRandom)


def test_no_drops_from_abandoned_games(settings):
    settings.SHOP_DROP_CHANCE = 1.0
    settings.SHOP_GEM_WEIGHTS = {"gem_shard": 1}
    users = helpers.make_players(4)
    game = helpers.start_game(users)
    play.escape(game.pk, users[2])
    assert not Drop.objects.exists()


def test_gems_add_points_only_under_the_cap(owner):
    with transaction.atomic():
        InventorySlot.objects.bulk_create(InventorySlot(user=owner, slot=i) for i in range(24))
    from shop.models import Item

    with transaction.atomic():
        slots = inventory.locked(owner.pk)
        for code in ("gem_shard", "gem_standard", "gem_shard"):
            inventory.add(slots, Item.objects.get(code=code), 1)
    assert [s.item.code for s in inventory.slots_of(owner.pk)[:3]] == [
        "gem_shard", "gem_standard", "gem_shard"]  # gems never stack
    assert items.use(owner, 1, "gem_standard", "g1")["points"] == 10
    assert Profile.objects.get(user=owner).rating_points == 10
    assert RatingEntry.objects.get(user=owner, reason="gem").delta == 10
    GemCap.objects.update_or_create(pk=1, defaults={"points": 500, "override": 11})
    items.use(owner, 0, "gem_shard", "g2")
    with pytest.raises(Refused) as e:
        items.use(owner, 2, "gem_shard", "g3")
    assert e.value.reason == "gem_capped"
    assert "11" in str(e.value)
    assert held(owner, "gem_shard") == 1
    assert Profile.objects.get(user=owner).rating_points == 11
    assert CounterUse.objects.count() == 0


def test_protection_runs_out_and_the_setter_renews_it(owner, partner):
    from shop.models import TableDecor

    table = tables.create_table(owner, "老桌")
    tables.sit(table.pk, partner, 2)
    mine, theirs = give(owner, "sign", 2), give(partner, "sign")
    items.use(owner, mine, "sign", "a", table_id=table.pk, name="一号")
    first = TableDecor.objects.get(table=table).sign_until
    items.use(owner, mine, "sign", "b", table_id=table.pk, name="二号")  # the setter renews
    assert TableDecor.objects.get(table=table).sign_until > first
    refused("name_protected", items.use, partner, theirs, "sign", "c", table_id=table.pk,
            name="三号")
    TableDecor.objects.filter(table=table).update(sign_until=timezone.now() - timedelta(seconds=1))
    assert snapshots.table_snapshot(table.pk)["sign"] is None  # over: nothing shown
    items.use(partner, theirs, "sign", "d", table_id=table.pk, name="三号")
    snap = snapshots.table_snapshot(table.pk)
    assert snap["name"] == "三号"
    assert snap["sign"]["by"] == "partner"
    assert held(owner, "sign") == 0
    assert held(partner, "sign") == 0


def test_the_four_views_of_a_position_cost_two_shop_queries(django_assert_num_queries):
    from games.roster import players_of
    from games.seatview import build_view

    users = helpers.make_players(4)
    game = helpers.start_game(users)
    items.use(users[1], give(users[1], "timer"), "timer", "arm")
    players = players_of(game)
    with django_assert_num_queries(2):  # armed timers, card counters: once for all four
        views = [build_view(game.pk, game.state, players, game.due_at, i) for i in range(4)]
    assert [v["armed_timer"] for v in views] == [False, True, False, False]
    items.disarm_timer(users[1])  # the shop's own write: the next views read afresh
    assert build_view(game.pk, game.state, players, game.due_at, 1)["armed_timer"] is False
