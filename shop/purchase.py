"""Buying from the catalogue (RULES.md §9 "价格不菲").

A purchase runs in one transaction: the buyer's profile locked (by
``ledger.lock_balances``), then their slots (the lock order), every check
made, and only then the debit and the slots written, so a refusal changes
nothing and 50 purchases at once on one account serialise on its profile.

A purchase may carry a ``key`` (the shop page renders a fresh one into each
form): it is recorded with the purchase (an ``ItemUse`` row, the table that
makes item uses idempotent), so the same form sent twice — a double click, a
double tap — buys once, and the second answer is the first purchase's outcome
(``Purchase.repeated``). The key is looked for again under the buyer's profile
lock, so two posts at the same moment serialise there and the second finds it.
A refused purchase records nothing: its key may be sent again.

Errors: :class:`yuanzi_site.refusals.Refused` — ``no_item`` (unknown or not for
sale), ``bad_quantity`` (not a whole number 1–99 in ASCII digits),
``bad_message`` (a price that is not a whole number), ``bad_key`` (a key that
is not text of 1–64 characters, or one an item use already took), ``price_changed`` (the
price shown is not the price now), ``inventory_full`` (refused whole),
``not_enough_coins`` (params ``total``, ``coins``, ``held``: only coins not
held by a running wager game can be spent, RULES.md §12 "Held stake").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from games import wire
from shop import inventory, ledger
from shop.models import Item, ItemUse
from yuanzi_site.refusals import Refused

MAX_QUANTITY = 99


#: a whole number from a form field or JSON, ASCII digits only (no "²" or "３")
whole = wire.whole


@dataclass(frozen=True)
class Purchase:
    """What a purchase bought: ``count`` × item ``code`` for ``total`` coins,
    the buyer's balance then ``coins`` and its ledger entry ``entry_id``;
    ``repeated``: this is the answer to a key already carried out (nothing
    was bought this time)."""

    code: str
    count: int
    total: int
    coins: int
    entry_id: int
    repeated: bool = False

    def as_result(self) -> dict[str, Any]:
        """The outcome as stored with the key (``ItemUse.result``)."""
        return {"bought": self.code, "count": self.count, "total": self.total,
                "coins": self.coins, "entry": self.entry_id}


def _key(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= 64:
        raise Refused("bad_key", _("A purchase key is text of 1 to 64 characters."))
    return value


def _carried_out(user: User, key: str | None) -> Purchase | None:
    """The purchase ``user`` already made with ``key``, if any.

    :raises Refused: ``bad_key`` when an item use took that key.
    """
    if key is None:
        return None
    row = ItemUse.objects.filter(user=user, key=key).values_list("result", flat=True).first()
    if row is None:
        return None
    if not isinstance(row, dict) or "bought" not in row:
        raise Refused("bad_key", _("That key was already used for something else."))
    return Purchase(code=row["bought"], count=row["count"], total=row["total"],
                    coins=row["coins"], entry_id=row["entry"], repeated=True)


def buy(user: User, code: Any, quantity: Any, price: Any, key: Any = None) -> Purchase:
    """``user`` buys ``quantity`` of item ``code`` at the unit ``price`` they were shown.

    :param key: optional, 1–64 characters: with a key already carried out by
        ``user`` nothing is bought and the first purchase's outcome is
        returned (``repeated``), whatever the other arguments.
    :returns: what was bought (its ledger entry has reason ``purchase``).
    :raises Refused: see the module docstring; nothing has changed then.
    """
    key = _key(key)
    done = _carried_out(user, key)
    if done is not None:
        return done
    item = Item.objects.filter(code=code, for_sale=True).first() if isinstance(code, str) else None
    if item is None:
        raise Refused("no_item", _("That item is not for sale."))
    n = whole(quantity)
    if n is None or not 1 <= n <= MAX_QUANTITY:
        raise Refused("bad_quantity", _("Buy a whole number from 1 to 99."))
    if whole(price) is None:
        raise Refused("bad_message", _("The price must be a whole number of coins."))
    try:
        with transaction.atomic():
            bought = _buy_locked(user, item, n, price, key)
    except IntegrityError:  # the same key carried out at the same moment: this one undone
        done = _carried_out(user, key)
        if done is None:
            raise
        return done
    return bought


def _buy_locked(user: User, item: Item, n: int, price: Any, key: str | None) -> Purchase:
    holding = ledger.lock_holdings([user])[user.pk]
    done = _carried_out(user, key)  # a post of the same key that held the lock first
    if done is not None:
        return done
    item = Item.objects.get(pk=item.pk)  # the price as of the lock
    if whole(price) != item.price:
        raise Refused("price_changed",
                      _("The price of %(item)s is now %(price)s coins: look again.")
                      % {"item": item.name, "price": item.price})
    slots = inventory.locked(user.pk, profile_locked=True)
    if inventory.plan_add(slots, item, n) is None:
        raise Refused("inventory_full",
                      _("Your inventory has no room for %(count)s more %(item)s.")
                      % {"count": n, "item": item.name})
    total = item.price * n
    if holding.spendable < total:  # held coins cannot be spent (RULES.md §12)
        figures = {"total": total, "coins": holding.coins, "held": holding.held}
        if holding.held:
            text = _("That costs %(total)s coins; you have %(coins)s, of which %(held)s "
                     "are held by your running wager game until it ends.") % figures
        else:
            text = _("That costs %(total)s coins; you have %(coins)s.") % figures
        raise Refused("not_enough_coins", text, figures)
    entry = ledger.debit(user, total, ledger.Reason.PURCHASE, item_code=item.code,
                         note=f"{n} × {item.price}")
    inventory.add(slots, item, n)
    bought = Purchase(code=item.code, count=n, total=total, coins=entry.balance_after,
                      entry_id=entry.pk)
    if key is not None:
        ItemUse.objects.create(user=user, key=key, item_code=item.code,
                               result=bought.as_result())
    return bought
