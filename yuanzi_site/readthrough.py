"""A read-through copy of per-row values in Django's shared cache.

Table snapshots and lobby rows show a few values of other apps' rows (a
table's wager, its decor, its minimum finish rate) for many tables at once;
:func:`many` reads them from the cache in one round trip and asks the
database only for the ids it lacks. The writer of a row deletes its key after
the write commits, and an expiry bounds what a read racing a write can leave.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from django.core.cache import cache
from django.db import connection

V = TypeVar("V")


def many(ids: Iterable[int], key: Callable[[int], str],
         load: Callable[[list[int]], dict[int, V]], seconds: int) -> dict[int, V]:
    """``{id: value}`` for every id of ``ids``, in their order.

    :param key: the cache key of one id.
    :param load: the values of the ids the cache lacks, from the database;
        it must answer every id it is given (a default for a missing row).
    :param seconds: how long a loaded value is kept.

    Inside a transaction (it may hold writes not committed yet) the cache is
    neither read nor filled: ``load`` answers every id.
    """
    ids = list(ids)
    shared = not connection.in_atomic_block
    keys = {i: key(i) for i in ids}
    cached = cache.get_many(list(keys.values())) if shared else {}
    out: dict[int, V] = {i: cached[k] for i, k in keys.items() if k in cached}
    missing = [i for i in ids if i not in out]
    if missing:
        fresh = load(missing)
        if shared:
            cache.set_many({keys[i]: v for i, v in fresh.items()}, seconds)
        out.update(fresh)
    return {i: out[i] for i in ids}
