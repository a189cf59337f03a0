"""Buying from the catalogue (RULES.md §9 "价格不菲").

A purchase runs in one transaction: the buyer's profile locked (by
``ledger.lock_balances``), then their slots (the lock order), every check
made, and only then the debit and the slots written, so a refusal changes
nothing and 50 purchases at once on one account serialise on its profile.

Errors: :class:`yuanzi_site.refusals.Refused` — ``no_item`` (unknown or not for
sale), ``bad_quantity`` (not a whole number 1–99 in ASCII digits),
``bad_message`` (a price that is not a whole number), ``price_changed`` (the
price shown is not the price now), ``inventory_full`` (refused whole),
``not_enough_coins`` (params ``total``, ``coins``, ``held``: only coins not
held by a running wager game can be spent, RULES.md §12 "Held stake").
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from games import wire
from shop import inventory, ledger
from shop.models import CoinEntry, Item
from yuanzi_site.refusals import Refused

MAX_QUANTITY = 99


#: a whole number from a form field or JSON, ASCII digits only (no "²" or "３")
whole = wire.whole


def buy(user: User, code: Any, quantity: Any, price: Any) -> CoinEntry:
    """``user`` buys ``quantity`` of item ``code`` at the unit ``price`` they were shown.

    :returns: the ledger entry of the payment (reason ``purchase``).
    :raises Refused: see the module docstring; nothing has changed then.
    """
    item = Item.objects.filter(code=code, for_sale=True).first() if isinstance(code, str) else None
    if item is None:
        raise Refused("no_item", _("That item is not for sale."))
    n = whole(quantity)
    if n is None or not 1 <= n <= MAX_QUANTITY:
        raise Refused("bad_quantity", _("Buy a whole number from 1 to 99."))
    if whole(price) is None:
        raise Refused("bad_message", _("The price must be a whole number of coins."))
    with transaction.atomic():
        holding = ledger.lock_holdings([user])[user.pk]
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
        return entry

