"""The held stake (RULES.md §12 "Held stake"): ``shop.holds``
through the shop's plugin. When a wager game starts each player's largest
possible loss is held; the held part cannot be spent (a purchase, a
moderator's revoke, the 定时器), the game's own payment comes out of it, and
every ending releases the rest.

Real parts only: games are started by ``games.tables`` and ended by
``games.play`` (its one finisher) or the moderators' actions; coins move
through ``shop.ledger``; the autouse ``_ledger_holds`` fixture runs
``check_ledger``'s audit (which checks the holds too) after each test. The
race test runs on PostgreSQL with two real connections.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter

import pytest
from django.db import IntegrityError, connection, transaction

from accounts.models import Profile
from games import play, tables
from games.models import Game, Seat, Table
from games.seatview import view_for
from moderation import actions
from shop import coins as coin_sources
from shop import holds, items, ledger, purchase
from shop.models import CoinEntry, GameWager, Hold, InventorySlot, TableWager
from tests import helpers
from tests.test_wagers import (
    POSTGRES_ONLY,
    coins,
    finish_with,
    finished_state,
    refused,
    set_coins,
    set_level,
    start,
    wager_table,
)
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db


@pytest.fixture
def four():
    """Four players N, E, S, W (2,000 coins each, level 0)."""
    return helpers.make_players(4, "w")


@pytest.fixture
def notices():
    """Every ``notice`` sent after a commit, as ``(user_id, notice)``."""
    from games import events

    seen: list[tuple[int, dict]] = []

    def record(event):
        user_id, notice = event.user_id, event.notice
        seen.append((user_id, notice))

    events.subscribe(events.Notice, record)
    yield seen
    events.unsubscribe(events.Notice, record)


@pytest.fixture(autouse=True)
def _catalogue(db):
    """The catalogue's rows (a data migration): a ``transaction=True`` test
    flushes the tables, so they are put back before each test (idempotent)."""
    import importlib

    from django.apps import apps

    importlib.import_module("shop.migrations.0004_catalogue_data").add_items(apps, None)


@pytest.fixture(autouse=True)
def _fresh_hold_cache():
    """The views' per-process cache of holds must not outlive a test's database."""
    holds.forget()
    yield
    holds.forget()


def held(user) -> int:
    return Profile.objects.get(user=user).coins_held


def card_counters(user) -> int:
    return sum(InventorySlot.objects.filter(user=user, item__code="card_counter")
               .values_list("count", flat=True))


# --- the hold at the start ------------------------------------------------------------------


def test_the_start_holds_each_players_largest_possible_loss(four):
    """Four 科员 (stake 1) at wager 10: 10 × max(2 × 1, 20) = 200 each is held;
    the balance shown is unchanged and no coin has moved."""
    game = start(wager_table(four, 10), four)
    assert [held(u) for u in four] == [200] * 4
    assert [coins(u) for u in four] == [2000] * 4
    assert sorted(Hold.objects.filter(game=game).values_list("user_id", "amount", "held")) == [
        (u.pk, 200, 200) for u in four]
    assert not CoinEntry.objects.filter(game=game).exists()


@pytest.mark.parametrize(("levels", "balance", "want"), [
    ((3, 3, 4, 3), 2000, 400),    # stake 20: a double clamp, 2 × 20 × 10
    ((5, 5, 5, 5), 1000, 1000),   # stake 60: 1,200 could be lost; all 1,000 are held
])
def test_the_hold_is_the_games_stake_times_the_wager_at_most_the_balance(
        four, levels, balance, want):
    for user, level in zip(four, levels, strict=True):
        set_level(user, level)
        set_coins(user, balance)
    start(wager_table(four, 10), four)
    assert [held(u) for u in four] == [want] * 4
    assert holds.largest_loss(10, 20) == 400
    assert holds.largest_loss(10, 60) == 1200


def test_no_hold_without_a_wager_nor_in_practice(four, owner):
    game = start(wager_table(four, 0), four)
    assert not Hold.objects.filter(game=game).exists()
    practice = helpers.start_game([owner], bots=(1, 2, 3))
    assert practice.practice
    assert not Hold.objects.filter(game=practice).exists()
    assert Profile.objects.filter(coins_held__gt=0).count() == 0


def test_the_database_keeps_a_hold_within_the_balance(four):
    start(wager_table(four, 10), four)
    with pytest.raises(IntegrityError), transaction.atomic():
        Profile.objects.filter(user=four[0]).update(coins_held=2001)
    with pytest.raises(IntegrityError), transaction.atomic():
        Profile.objects.filter(user=four[0]).update(coins=199)  # under its hold of 200
    assert (coins(four[0]), held(four[0])) == (2000, 200)


def test_the_ledger_refuses_any_movement_into_held_coins(four):
    n, e = four[:2]
    start(wager_table(four, 10), four)
    with pytest.raises(ledger.NotEnoughCoins) as err, transaction.atomic():
        ledger.debit(n, 1801, ledger.Reason.PURCHASE, item_code="sign")
    assert err.value.params == {"user_id": n.pk, "balance": 2000, "needed": 1801, "held": 200}
    with pytest.raises(ledger.NotEnoughCoins), transaction.atomic():
        ledger.transfer([(n, -1801), (e, 1801)], ledger.Reason.ITEM)
    assert coins(n) == 2000
    with transaction.atomic():
        ledger.transfer([(n, -1800), (e, 1800)], ledger.Reason.ITEM)
    assert (coins(n), held(n), coins(e), held(e)) == (200, 200, 3800, 200)


# --- the reproduction: the wager cannot be dodged -------------------------------------------


def test_buying_during_the_game_is_refused_and_the_loser_pays_in_full(four):
    """What a tester found: a seated player bought five 算牌器 during a wager game (2,000 →
    0), lost and paid nothing. Now the purchase beyond the coins not held is
    refused naming the held coins, and the double clamp's loser pays it all."""
    for user in four:
        set_level(user, 3)  # stake 20: a double clamp costs 2 × 20 × 10 = 400
    n, _e, _s, _w = four
    game = start(wager_table(four, 10), four)
    err = refused("not_enough_coins", purchase.buy, n, "card_counter", 5, 400)
    assert err.params == {"total": 2000, "coins": 2000, "held": 400}
    assert "400" in str(err)
    assert (coins(n), card_counters(n)) == (2000, 0)  # nothing changed
    purchase.buy(n, "card_counter", 4, 400)  # what is not held may be spent
    assert (coins(n), held(n)) == (400, 400)
    refused("not_enough_coins", purchase.buy, n, "recorder", 1, 300)
    finish_with(game, finished_state("1dc", (3, 3, 3, 3)))  # N–S lose a double clamp
    assert GameWager.objects.get(game=game).coin_changes == [-400, 400, -400, 400]
    assert [coins(u) for u in four] == [0, 2400, 1600, 2400]
    assert [held(u) for u in four] == [0] * 4


def test_an_escape_after_spending_pays_in_full(four):
    """… and the same drain before an escape: the escape costs its whole
    wager × penalty (10 × 20 = 200), shared by the other three."""
    _n, _e, s, _w = four
    game = start(wager_table(four, 10), four)
    purchase.buy(s, "card_counter", 4, 400)  # 1,600 of the 1,800 not held
    refused("not_enough_coins", purchase.buy, s, "card_counter", 1, 400)
    assert (coins(s), held(s)) == (400, 200)
    play.escape(game.pk, s)
    assert GameWager.objects.get(game=game).coin_changes == [67, 67, -200, 66]
    assert [coins(u) for u in four] == [2067, 2067, 200, 2066]
    assert [held(u) for u in four] == [0] * 4


def test_the_shop_over_http_names_the_held_coins(client, four):
    start(wager_table(four, 10), four)
    client.force_login(four[0])
    r = client.post("/shop/buy/", {"item": "card_counter", "quantity": "5", "price": "400"},
                    HTTP_ACCEPT="application/json")
    body = r.json()
    assert (r.status_code, body["reason"], body["params"]) == (
        400, "not_enough_coins", {"total": 2000, "coins": 2000, "held": 200})
    assert coins(four[0]) == 2000


# --- every ending releases the hold -------------------------------------------------------


def _end(game: Game, four, how: str, mod) -> None:
    if how == "normal":
        finish_with(game, finished_state("0"))
    elif how == "escape":
        play.escape(game.pk, four[1])
    elif how == "moderator_close":
        actions.close_table(mod, game.table_id, "关桌")
    elif how == "moderator_kick":
        actions.kick(mod, game.table_id, four[2].username, "骂人")
    elif how == "suspension":
        actions.suspend(mod, four[3].username, "2", "h", "外挂")


@pytest.mark.parametrize(("how", "changes"), [
    ("normal", [10, -10, 10, -10]),
    ("escape", [67, -200, 66, 67]),
    ("moderator_close", None),
    ("moderator_kick", None),
    ("suspension", None),
])
def test_every_ending_releases_the_hold(four, mod, how, changes):
    game = start(wager_table(four, 10), four)
    assert [held(u) for u in four] == [200] * 4
    _end(game, four, how, mod)
    game.refresh_from_db()
    assert game.status == Game.OVER
    assert game.end_reason == how
    assert [held(u) for u in four] == [0] * 4
    assert list(Hold.objects.filter(game=game).values_list("held", flat=True)) == [0] * 4
    assert not Hold.objects.filter(game=game, released_at__isnull=True).exists()
    if changes is None:  # a moderator's ending moves no coins (RULES.md §12)
        assert [coins(u) for u in four] == [2000] * 4
    else:
        assert [coins(u) - 2000 for u in four] == changes
    assert ledger.audit().ok
    # released: everything not lost can be spent again
    for user in four:
        if coins(user) >= 400:
            purchase.buy(user, "card_counter", coins(user) // 400, 400)


def test_a_restart_is_not_an_ending(four):
    """A crash or restart changes nothing: the holds stay with the running
    game (in the database), and its later ending settles and releases them."""
    game = start(wager_table(four, 10), four)
    holds.forget()  # a new process: nothing of the game lives in memory
    game = Game.objects.get(pk=game.pk)
    assert game.status == Game.PLAYING
    assert [held(u) for u in four] == [200] * 4
    assert view_for(game, 0)["coins_held"] == 200
    assert ledger.audit().ok
    finish_with(game, finished_state("1"))
    assert [held(u) for u in four] == [0] * 4


def test_a_game_from_before_holds_settles_as_before(four):
    """Wager games already running when holds landed have none: they settle
    as before (a short loser pays what they have)."""
    from tests.test_wagers import without_holds

    game = start(wager_table(four, 10), four)
    without_holds(game)
    set_coins(four[0], 3)
    finish_with(game, finished_state("1"))
    assert GameWager.objects.get(game=game).coin_changes == [-3, 6, -10, 7]  # W first
    assert [held(u) for u in four] == [0] * 4


def test_the_audit_finds_a_hold_that_does_not_match(four):
    game = start(wager_table(four, 10), four)
    Hold.objects.filter(game=game, user=four[1]).update(held=150)
    audit = ledger.audit()
    assert not audit.ok
    assert any("coins_held 200, running games hold 150" in d
                                for d in audit.differences)
    Hold.objects.filter(game=game, user=four[1]).update(held=200)
    Game.objects.filter(pk=game.pk).update(status=Game.OVER)  # ended without its release
    audit = ledger.audit()
    assert any(f"game {game.pk} is over but still holds 200" in d for d in audit.differences)
    Game.objects.filter(pk=game.pk).update(status=Game.PLAYING)
    assert ledger.audit().ok


# --- what else cannot spend held coins, and what looks at all coins ---------------------------


def test_a_moderators_revoke_takes_only_coins_not_held(four, mod):
    start(wager_table(four, 10), four)
    with pytest.raises(Refused) as e:
        actions.coins(mod, four[0].username, "1801", "太多", revoke=True)
    assert e.value.reason == "revoke_exceeds_balance"
    assert e.value.params == {"balance": 2000, "held": 200}
    assert "200" in str(e.value)
    assert coins(four[0]) == 2000
    actions.coins(mod, four[0].username, "1800", "可以", revoke=True)
    assert (coins(four[0]), held(four[0])) == (200, 200)


def test_the_timer_pays_only_from_coins_not_held(four, notices, django_capture_on_commit_callbacks):
    """An armed 定时器 whose owner's coins not held cannot pay its 270: they are
    told when the game starts, and when their turn runs out it does not fire
    (it stays armed) — the clock acts instead."""
    for user in four:
        set_level(user, 5)  # stake 60: 10 × 120 = 1,200 held of 1,400
        set_coins(user, 1400)
    table = wager_table(four, 10)
    for user in four[:3]:
        tables.set_ready(table.pk, user)
    # everyone arms a timer (bought with a grant, so 1,400 remain)
    for user in four:
        with transaction.atomic():
            ledger.credit(user, 600, ledger.Reason.GRANT)
        purchase.buy(user, "timer", 1, 600)
        slot = InventorySlot.objects.get(user=user, item__code="timer").slot
        items.use(user, slot, "timer", "arm")
    with django_capture_on_commit_callbacks(execute=True):
        game = tables.set_ready(table.pk, four[-1])
    assert game is not None
    assert [held(u) for u in four] == [1200] * 4
    told = sorted((u, c["code"], c["params"]["spendable"]) for u, c in notices
                  if c["code"] == "timer_held")
    assert told == sorted((u.pk, "timer_held", 200) for u in four)
    turn = game.state["turn"]
    user = four[turn]
    helpers.force_due(game)
    with django_capture_on_commit_callbacks(execute=True):
        assert play.run_due(game.pk)
    assert helpers.last_event(game).by == "clock"
    assert InventorySlot.objects.get(user=user, item__code="timer").armed
    assert [coins(u) for u in four] == [1400] * 4
    no_coins = [c for u, c in notices if c["code"] == "timer_no_coins"]
    assert no_coins
    assert no_coins[0]["params"] == {"fee": 270, "held": 1200}


def test_relief_and_check_in_look_at_all_coins(four):
    """A player whose coins are all held still has them: no relief (RULES.md
    §12: relief and the check-in look at all coins, held included)."""
    for user in four:
        set_level(user, 5)
        set_coins(user, 1000)
    start(wager_table(four, 10), four)
    assert (coins(four[0]), held(four[0])) == (1000, 1000)
    refused("relief_too_rich", coin_sources.claim_relief, four[0])
    entry = coin_sources.check_in(four[0])  # a credit: held coins do not stand in its way
    assert entry.balance_after == 1000 + entry.amount
    assert held(four[0]) == 1000


# --- what the player sees -------------------------------------------------------------------


def test_api_me_and_the_pages_show_the_held_coins_to_the_player_alone(client, four):
    game = start(wager_table(four, 10), four)
    client.force_login(four[0])
    me = client.get("/api/me").json()
    assert (me["coins"], me["coins_held"]) == (2000, 200)
    shop = client.get("/shop/").content.decode()
    assert 'id="shop-held"' in shop
    assert "200 冻结" in shop
    page = client.get(f"/tables/{game.table_id}/").content.decode()
    boot = json.loads(page.split('id="table-boot" type="application/json">')[1]
                      .split("</script>")[0])
    assert (boot["me"]["coins"], boot["me"]["coins_held"]) == (2000, 200)
    assert boot["view"]["coins_held"] == 200
    # the own view only: another seat's view shows its own hold, a spectator's none
    assert view_for(game, 1)["coins_held"] == 200
    assert "coins_held" not in view_for(game, None)
    game = finish_with(game, finished_state("0"))
    assert "coins_held" not in view_for(game, 0)
    assert client.get("/api/me").json()["coins_held"] == 0
    assert "0 冻结" not in client.get("/shop/").content.decode()
    assert 'id="shop-held" class="coins-held"' in client.get("/shop/").content.decode()


# --- the owner's wager ----------------------------------------------------------------------


def test_the_owner_cannot_set_a_wager_they_could_not_sit_at(four):
    n = four[0]
    table = tables.create_table(n)  # the owner, not seated, holds 2,000
    err = refused("not_enough_coins", wager_set, table, n, 40)
    assert err.params == {"needed": 4000, "wager": 40}
    assert not TableWager.objects.filter(table=table).exists()
    assert wager_set(table, n, 20) == 20  # exactly 100 × 20 = 2,000


def wager_set(table, user, wager, **kwargs):
    from shop import wagers

    return wagers.set_wager(table.pk, user, wager, **kwargs)


def test_a_wager_that_stands_players_up_needs_a_confirmation(four):
    n, e, s, w = four
    table = wager_table(four, 10)
    set_coins(n, 2000)
    set_coins(e, 1999)
    set_coins(s, 1500)
    err = refused("wager_stands_up", wager_set, table, n, 20)
    assert err.params == {"count": 2, "wager": 20}
    assert "1999" not in str(err)
    assert "1500" not in str(err)
    assert all(Seat.objects.filter(table=table).values_list("user_id", flat=True))
    wager_set(table, n, 20, confirm=True)
    assert list(Seat.objects.filter(table=table).order_by("index")
                .values_list("user_id", flat=True)) == [n.pk, None, None, w.pk]


# --- PostgreSQL: the hold racing a purchase at the start --------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_hold_racing_a_purchase_at_the_start_stays_exact(django_user_model):
    """Two connections at once, twelve rounds: the fourth player's ready (the
    game starts and holds 200 of N's 1,200) and N buying three 算牌器 (1,200).
    Either the purchase commits first — N is left short and stood up at the
    start, no game — or the start does and the purchase, which would reach
    into the hold, is refused. Never both, never a game with nothing held."""
    if connection.vendor != "postgresql":
        pytest.skip(POSTGRES_ONLY)
    players = helpers.make_players(4, "hold")
    n = players[0]
    outcomes: Counter[str] = Counter()
    rounds = 12
    for i in range(rounds):
        set_coins(n, 1200)
        InventorySlot.objects.filter(user=n).update(item=None, count=0, armed=False)
        table = wager_table(players, 10)
        for user in players[:3]:
            tables.set_ready(table.pk, user)
        results = _race(table, players[3], n, delay=(i % 6) * 0.01)
        game = Game.objects.filter(table=table).first()
        if results["buy"] == "bought":
            assert game is None
            assert results["ready"] == "no game"
            assert (coins(n), held(n), card_counters(n)) == (0, 0, 3)
            assert Seat.objects.get(table=table, index=0).user_id is None
        else:
            assert results == {"ready": "started", "buy": "refused"}, results
            assert game is not None
            assert game.status == Game.PLAYING
            assert (coins(n), held(n), card_counters(n)) == (1200, 200, 0)
            play.end_game(game.pk, "moderator_close")
            assert held(n) == 0
        outcomes[results["buy"]] += 1
        assert ledger.audit().ok
        Table.objects.filter(pk=table.pk).update(closed=True)
        Seat.objects.filter(table=table).update(user=None, ready=False)
    print(f"start vs purchase, {rounds} rounds: {dict(outcomes)}")
    assert sum(outcomes.values()) == rounds


def _race(table: Table, fourth, buyer, delay: float) -> dict[str, str]:
    go = threading.Barrier(2, timeout=20)
    results: dict[str, str] = {}

    def ready():
        try:
            go.wait()
            game = tables.set_ready(table.pk, fourth)
            results["ready"] = "started" if game is not None else "no game"
        except Exception as exc:  # a deadlock would surface here
            results["ready"] = repr(exc)
        finally:
            connection.close()

    def buy():
        try:
            go.wait()
            time.sleep(delay)
            purchase.buy(buyer, "card_counter", 3, 400)
            results["buy"] = "bought"
        except Exception as exc:
            results["buy"] = (getattr(exc, "reason", None) == "not_enough_coins" and "refused") \
                or repr(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=ready), threading.Thread(target=buy)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads), "deadlocked"
    return results


def test_the_rules_page_explains_the_held_stake(client):
    page = client.get("/rules/").content.decode()
    assert 'id="held-stake"' in page
    assert "押宝冻结" in page
    assert "解冻" in page
