"""The shop's items in a game, plugged in by ``shop.plugin`` (RULES.md §8–§9,
§12): the 定时器's turn extension and its warning under a held stake, the
views' armed timer and 算牌器 counts, the tables' theme and name protection
(shown in snapshots; kept, and cleared by a moderator's rename, by
``items.rename_policy``), and drops and gems at a game's end.
"""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts import inbox
from accounts.models import Profile
from games import engine, events
from games.models import Game, Table
from games.plugins import GameEnd
from games.roster import seat_rows
from shop import inventory, items, itemstate, ledger
from shop.models import Drop, InventorySlot, Item, TableDecor, TimerFiring
from yuanzi_site import readthrough

log = logging.getLogger(__name__)


# --- 定时器 (RULES.md §8, §12) ----------------------------------------------------------


def timer_timeout(game: Game, seat: int) -> timedelta | None:
    """Extend the turn of ``seat`` by ``SHOP_TIMER_SECONDS`` if its player's
    timer is armed, the game is rated, it has not fired for them in this game
    and they hold ``SHOP_TIMER_FEE`` coins; the owner pays, each other human
    receives ``SHOP_TIMER_SHARE`` (one ledger transfer, in the transaction of
    the extension, under the game's lock: the countdown and the sweep cannot
    both fire it); each receiver gets a ``timer_paid`` notice and the owner a
    ``timer_fired`` one, each kept in their notification centre too
    (``accounts.inbox``, same transaction). Only coins not
    held by a wager game count (RULES.md §12 "Held stake"). In a practice game
    or short of coins: no extension, it stays armed, the owner gets a
    ``notice`` (``timer_no_coins``, params ``fee`` and ``held``).
    """
    rows = seat_rows(game)
    user_id = rows[seat].user_id
    if user_id is None or not InventorySlot.objects.filter(user_id=user_id, armed=True).exists():
        return None
    if TimerFiring.objects.filter(game=game, user_id=user_id).exists():
        return None
    if game.practice:
        events.notify(user_id, "timer_practice",
                      lambda: _("Your timer does not work in practice games; it stays armed."))
        return None
    others = [r.user_id for r in rows if r.user_id and r.user_id != user_id]
    fee = settings.SHOP_TIMER_SHARE * len(others)
    holdings = ledger.lock_holdings([user_id, *others])  # ascending: the lock order
    mine = holdings[user_id]
    if mine.spendable < fee:
        def text() -> str:
            if mine.held:
                return _("Your timer needs %(fee)s coins you can spend (%(held)s of yours are "
                         "held by this game); it stays armed.") % {"fee": fee, "held": mine.held}
            return _("Your timer needs %(fee)s coins to fire; it stays armed.") % {"fee": fee}

        events.notify(user_id, "timer_no_coins", text, {"fee": fee, "held": mine.held})
        return None
    slots = inventory.locked(user_id, profile_locked=True)
    inventory.take_one(next(s for s in slots if s.armed))
    TimerFiring.objects.create(game=game, user_id=user_id, seq=game.seq)
    # before the extension's views; the timer may have been the last of its slot
    transaction.on_commit(lambda: itemstate.forget_user(user_id))
    ledger.transfer(
        [ledger.Leg(user_id, -fee)] + [ledger.Leg(o, settings.SHOP_TIMER_SHARE, user_id)
                                       for o in others],
        ledger.Reason.ITEM, game=game, table=game.table_id, item_code="timer")
    for other in others:  # each receiver is told why their balance moved
        events.notify(other, "timer_paid",
                      lambda: _("%(name)s's timer fired: you receive %(coins)s coins.")
                      % {"name": rows[seat].username, "coins": settings.SHOP_TIMER_SHARE},
                      {"name": rows[seat].username, "coins": settings.SHOP_TIMER_SHARE,
                          "table_id": game.table_id})
        inbox.post(other, "timer_paid", {"name": rows[seat].username,
                                         "coins": settings.SHOP_TIMER_SHARE},
                   f"/tables/{game.table_id}/", quiet=True)  # the notice is its toast
    events.notify(user_id, "timer_fired",
                  lambda: _("Your timer gave you %(seconds)s more seconds (%(fee)s coins).")
                  % {"seconds": settings.SHOP_TIMER_SECONDS, "fee": fee},
                  {"seconds": settings.SHOP_TIMER_SECONDS, "fee": fee})
    # the owner's coins moved too: kept in their 消息 (a tester missed the toast)
    inbox.post(user_id, "timer_fired", {"seconds": settings.SHOP_TIMER_SECONDS, "fee": fee},
               f"/tables/{game.table_id}/", quiet=True)
    return timedelta(seconds=settings.SHOP_TIMER_SECONDS)


def timer_under_hold(game: Game) -> None:
    """Game-start hook (after the held stake, ``shop.holds``): tell each player
    whose 定时器 is armed but whose coins not held by this game cannot pay its
    fee that it cannot fire (a ``notice`` ``timer_held``, params ``fee``,
    ``held``, ``spendable``); it stays armed (RULES.md §12)."""
    if game.practice:
        return
    people = [r.user_id for r in seat_rows(game) if r.user_id]
    armed = set(InventorySlot.objects.filter(user_id__in=people, armed=True)
                .values_list("user_id", flat=True))
    if not armed:
        return
    fee = settings.SHOP_TIMER_SHARE * (len(people) - 1)
    for user_id, coins, held in Profile.objects.filter(user_id__in=armed, coins_held__gt=0) \
            .values_list("user_id", "coins", "coins_held"):
        if coins - held < fee:
            events.notify(user_id, "timer_held", events.say(gettext_noop(
                "%(held)s of your coins are held by this wager game until it ends; your timer "
                "needs %(fee)s coins you can spend, so it cannot fire now (it stays armed)."),
                held=held, fee=fee),
                {"fee": fee, "held": held, "spendable": coins - held})


# --- views and snapshots ---------------------------------------------------------------


def view_keys(game_id: int, state: dict[str, Any], seat: int | None,
              user_id: int | None) -> dict[str, Any]:
    """Keys for one seat's view: ``armed_timer`` (the player's own timer is
    armed), ``card_counter`` (``{card: count}`` the other three hold, while the
    player's 算牌器 is on for this half; only in their view), and once the game
    is over ``drops`` (``[{user_id, item, cause, lost}]``, public). While the
    game runs, no query once the shared cache holds its item state
    (:mod:`shop.itemstate`, dropped by the shop's own writes)."""
    out: dict[str, Any] = {}
    if state["status"] == engine.OVER:
        out["drops"] = [
            {"user_id": d.user_id, "item": d.item_code, "cause": d.cause, "lost": d.lost}
            for d in Drop.objects.filter(game_id=game_id)]
        return out
    if user_id is None or seat is None:
        return out
    armed, counting = itemstate.item_state(game_id, state)
    out["armed_timer"] = user_id in armed
    if user_id in counting:
        out["card_counter"] = items.remaining_cards(state, seat)
    return out


#: every write of a table's decor drops its entry (``shop.signals``); the
#: expiry bounds what a read racing a write can leave
DECOR_CACHE_SECONDS = 60


#: a table's cached decor: (theme, sign's by, sign's item, sign's until), or ()
_Decor = tuple[str, str | None, str, datetime | None] | tuple[()]


def _decor_key(table_id: int) -> str:
    return f"shop:decor:{table_id}"


def forget_decor(table_id: int) -> None:
    """Drop the cached decor of ``table_id`` (after a write of its ``TableDecor``)."""
    cache.delete(_decor_key(table_id))


def table_keys(tables: list[Table], *, lobby: bool) -> dict[int, dict[str, Any]]:
    """Keys for table snapshots (and lobby rows): ``theme`` (the 桌布) and
    ``sign`` (``{"by", "item", "until"}`` while the name is protected, else
    ``None``). Read from the shared cache (one round trip for all
    ``tables``); one query for those it lacks. Inside a transaction (it may
    hold writes not committed yet) the cache is not used."""

    now = timezone.now()
    def load(missing: list[int]) -> dict[int, _Decor]:
        fresh: dict[int, _Decor] = {t: () for t in missing}
        for d in TableDecor.objects.filter(table_id__in=missing).select_related("sign_by"):
            fresh[d.table_id] = (d.theme, d.sign_by.username if d.sign_by else None,
                                 d.sign_item, d.sign_until)
        return fresh

    # per table (theme, sign's by, sign's item, sign's until) or () without a decor row
    decor = readthrough.many([t.pk for t in tables], _decor_key, load, DECOR_CACHE_SECONDS)
    out: dict[int, dict[str, Any]] = {t.pk: {"theme": "default", "sign": None} for t in tables}
    for table_id, row in decor.items():
        if not row:
            continue
        theme, by, item, until = row
        sign = None
        if until and until > now:
            sign = {"by": by, "item": item, "until": until.isoformat()}
        out[table_id] = {"theme": theme, "sign": sign}
    return out


# --- drops and gems (RULES.md §9, §12) -----------------------------------------------


def random_source(game: Game) -> random.Random:
    """The drops' random source: seeded from ``SHOP_DROP_SEED`` and the game
    (reproducible, tests) or the system's."""
    seed = settings.SHOP_DROP_SEED
    return random.Random(f"{seed}:{game.pk}") if seed is not None else random.SystemRandom()


def _pick(rng: random.Random, weights: dict[str, int]) -> str:
    codes = sorted(weights)
    return rng.choices(codes, [weights[c] for c in codes])[0]


def drops(end: GameEnd) -> None:
    """Each winner of a rated game that ended normally may get an item
    (``SHOP_DROP_CHANCE``, ``SHOP_DROP_WEIGHTS``); each half's first_out rolls
    once for a gem (``SHOP_GEM_WEIGHTS``). Every drop is a ``Drop`` row; with
    a full inventory it is lost and the player gets a ``notice``."""
    if not end.rated or end.reason != "normal":
        return
    rng = random_source(end.game)
    winner = end.result["winner"]
    gains: list[tuple[int, str, str]] = []
    for row in end.seats:
        if (row.user_id and winner is not None and engine.team_of(row.index) == winner
                and rng.random() < settings.SHOP_DROP_CHANCE):
            gains.append((row.user_id, _pick(rng, settings.SHOP_DROP_WEIGHTS), "win"))
    for half in end.record["halves"]:
        if half["finish_order"]:
            user_id = end.seats[half["finish_order"][0]].user_id
            gem = _pick(rng, settings.SHOP_GEM_WEIGHTS)
            if user_id and gem:
                gains.append((user_id, gem, "first_out"))
    if not gains:
        return
    ledger.lock_balances({u for u, _c, _w in gains})  # profiles first, ascending
    catalogue = {i.code: i for i in Item.objects.all()}
    for user_id, code, cause in gains:
        item = catalogue.get(code)
        if item is None:  # a weight naming no catalogue item: a settings slip, not the game's
            log.warning("game %s: drop %r is not in the catalogue", end.game.pk, code)
            continue
        slots = inventory.locked(user_id, profile_locked=True)
        lost = inventory.plan_add(slots, item, 1) is None
        if lost:
            events.notify(user_id, "drop_lost", events.say(gettext_noop(
                "You won %(item)s, but your inventory is full: it is lost."), item=item.name),
                {"item": code})
        else:
            inventory.add(slots, item, 1)
            events.notify(user_id, "drop", events.say(gettext_noop("You won %(item)s."),
                                                      item=item.name), {"item": code})
        Drop.objects.create(game=end.game, user_id=user_id, item_code=code, cause=cause,
                            lost=lost)
