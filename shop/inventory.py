"""Inventories, the write side (RULES.md §9): 24 slots a player holds
items in, stacks of up to 99, gems one per slot.

Every change runs inside the caller's ``transaction.atomic()`` with the
owner's profile locked, then the owner's slot rows locked in ascending id (the
lock order of ``shop.ledger``'s docstring: … Profile → inventory rows); the
profile lock also serialises creating a player's 24 rows the first time.

Errors: :class:`yuanzi_site.refusals.Refused` (``inventory_full``, ``bad_slot``,
``wrong_item``); nothing has changed when it is raised.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils.translation import gettext as _

from games import wire
from shop import ledger
from shop.models import InventorySlot, Item
from yuanzi_site.refusals import Refused


def slots_of(user_id: int) -> list[InventorySlot]:
    """The user's slots in slot order, read only (missing rows are empty slots)."""
    have = {s.slot: s for s in InventorySlot.objects.filter(user_id=user_id).select_related("item")}
    return [have.get(i) or InventorySlot(user_id=user_id, slot=i, count=0)
            for i in range(settings.SHOP_INVENTORY_SLOTS)]


def as_json(slots: list[InventorySlot]) -> list[dict[str, Any]]:
    """``[{slot, item, count, armed}]`` (``item``: a code or ``None``), for the API."""
    return [{"slot": s.slot, "item": s.item.code if s.item else None, "count": s.count,
             "armed": s.armed} for s in slots]


def locked(user_id: int, *, profile_locked: bool = False) -> list[InventorySlot]:
    """Lock the user's profile (unless the caller holds it) and their 24 slot
    rows (created empty the first time), ascending id; returns them by slot."""
    transaction.get_connection().validate_no_broken_transaction()
    if not profile_locked:
        ledger.lock_balances([user_id])
    n = settings.SHOP_INVENTORY_SLOTS
    rows = list(InventorySlot.objects.select_for_update().filter(user_id=user_id).order_by("id"))
    if len(rows) < n:
        have = {r.slot for r in rows}
        InventorySlot.objects.bulk_create(
            InventorySlot(user_id=user_id, slot=i) for i in range(n) if i not in have)
        rows = list(InventorySlot.objects.select_for_update().filter(user_id=user_id)
                    .order_by("id"))
    items = {i.pk: i for i in Item.objects.filter(pk__in={r.item_id for r in rows if r.item_id})}
    for r in rows:
        if r.item_id:
            r.item = items[r.item_id]
    return sorted(rows, key=lambda r: r.slot)


def plan_add(slots: list[InventorySlot], item: Item,
             quantity: int) -> list[tuple[InventorySlot, int]] | None:
    """Where ``quantity`` of ``item`` would go: existing stacks of it first (in
    slot order), then empty slots; ``None`` if it does not all fit.

    :returns: ``[(slot, how many it gains)]``.
    """
    cap = settings.SHOP_STACK_MAX if item.stackable else 1
    plan, left = [], quantity
    for s in slots:
        if left and s.item_id == item.pk and s.count < cap:
            n = min(cap - s.count, left)
            plan.append((s, n))
            left -= n
    for s in slots:
        if left and s.item_id is None:
            n = min(cap, left)
            plan.append((s, n))
            left -= n
    return None if left else plan


def add(slots: list[InventorySlot], item: Item, quantity: int) -> None:
    """Put ``quantity`` of ``item`` into the locked ``slots`` (all or nothing).

    :raises Refused: ``inventory_full`` when it does not all fit.
    """
    plan = plan_add(slots, item, quantity)
    if plan is None:
        raise Refused("inventory_full",
                      _("Your inventory has no room for that (%(slots)s slots).")
                      % {"slots": settings.SHOP_INVENTORY_SLOTS})
    for s, n in plan:
        s.item, s.count = item, s.count + n
        s.save(update_fields=["item", "count"])


def slot_index(value: object) -> int:
    """A slot number 0 … SHOP_INVENTORY_SLOTS − 1.

    :raises Refused: ``bad_slot`` otherwise.
    """
    number = wire.whole(value)  # docs/protocol.md "Input rules": 3 or "3"
    if number is None or not number < settings.SHOP_INVENTORY_SLOTS:
        raise Refused("bad_slot", _("There is no such inventory slot."))
    return number


def expect(slots: list[InventorySlot], slot: Any, code: Any) -> InventorySlot:
    """The locked slot ``slot``, checked to hold the item ``code``.

    :raises Refused: ``bad_slot`` (not 0–23), ``wrong_item`` (empty or another item).
    """
    s = slots[slot_index(slot)]
    if s.item is None or s.item.code != code:
        raise Refused("wrong_item", _("That slot does not hold that item."))
    return s


def take_one(s: InventorySlot) -> None:
    """Consume one item from the locked slot ``s`` (its timer arming goes with
    the last one)."""
    s.count -= 1
    if s.count == 0:
        s.item, s.armed = None, False
    s.save(update_fields=["item", "count", "armed"])


def swap(user: User, a: object, b: object) -> None:
    """Swap slots ``a`` and ``b`` of ``user``'s inventory (RULES.md §9: click one,
    then another); the order of everything else is kept.

    :raises Refused: ``bad_slot``.
    """
    a, b = slot_index(a), slot_index(b)
    with transaction.atomic():
        slots = locked(user.pk)
        if a == b:
            return
        x, y = slots[a], slots[b]
        # the rows trade slot numbers, through a free one: (user, slot) is unique
        InventorySlot.objects.filter(pk=x.pk).update(slot=10_000)
        InventorySlot.objects.filter(pk=y.pk).update(slot=a)
        InventorySlot.objects.filter(pk=x.pk).update(slot=b)
