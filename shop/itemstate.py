"""The item state the game views show (``shop.ingame.view_keys``): which
players of a game have an armed 定时器, and which have a 算牌器 on in each half.

Kept in the shared Django cache (Redis in production, so every process sees
one copy; process memory embedded), one entry per game, so a move's broadcast
reads no table for it; the shop's writes that change it drop it after commit,
before the views they publish are built (:func:`forget_user`, :func:`forget`).
One broadcast builds a view per player: those views share one cache read
(kept in this process for half a second per game position).
"""

from __future__ import annotations

import time
from typing import Any

from django.core.cache import cache
from django.db import connection

from games.models import Game, GameSeat
from shop.models import CounterUse, InventorySlot

#: (game_id, seed, seq, half) → (monotonic time, armed, counting): the views of
#: one position, built one after another, read the shared cache once
_LOCAL: dict[tuple[int, str, int, int], tuple[float, set[int], set[int]]] = {}
_LOCAL_SECONDS = 0.5
#: every write that changes the state drops the entry; the expiry bounds what a
#: read racing a write (read before its commit, stored after its drop) leaves
_TTL_SECONDS = 60


def _key(game_id: int) -> str:
    return f"shop:itemstate:{game_id}"


def forget(game_id: int | None = None) -> None:
    """Drop the item state of ``game_id`` (shared and this process's copy);
    ``None``: this process's copies of every game (the shared entries of a
    user's games go with :func:`forget_user`)."""
    for k in [k for k in _LOCAL if game_id is None or k[0] == game_id]:
        _LOCAL.pop(k, None)
    if game_id is not None:
        cache.delete(_key(game_id))


def forget_user(user_id: int) -> None:
    """Drop the item state of every game ``user_id`` is playing (one query):
    their timer was armed, disarmed or used up, or their counter turned on."""
    games = list(GameSeat.objects.filter(user_id=user_id, game__status=Game.PLAYING)
                 .values_list("game_id", flat=True))
    for game_id in games:
        forget(game_id)


def item_state(game_id: int, state: dict[str, Any]) -> tuple[set[int], set[int]]:
    """``(users with an armed timer, users with a card counter on this half)``
    among ``game_id``'s players at this position: from the shared cache, or
    two queries when it has no entry for the game (then stored there).
    Inside a transaction (it may hold writes not committed yet) the shared
    cache is not used."""
    half = state["half"]
    key = (game_id, state["seed"], state["seq"], half)  # the seed: no id reuse
    now = time.monotonic()
    hit = _LOCAL.get(key)
    if hit is not None and now - hit[0] < _LOCAL_SECONDS:
        return hit[1], hit[2]
    use_cache = not connection.in_atomic_block
    shared = cache.get(_key(game_id)) if use_cache else None
    if (isinstance(shared, dict) and shared.get("seed") == state["seed"]
            and half in shared.get("counting", {})):
        armed, counting = set(shared["armed"]), set(shared["counting"][half])
    else:
        armed = set(InventorySlot.objects.filter(armed=True, user__game_seats__game_id=game_id)
                    .values_list("user_id", flat=True))
        counting_by_half: dict[int, list[int]] = {1: [], 2: [], half: []}
        for h, user_id in CounterUse.objects.filter(game_id=game_id).values_list(
                "half", "user_id"):
            counting_by_half.setdefault(h, []).append(user_id)
        counting = set(counting_by_half[half])
        if use_cache:
            cache.set(_key(game_id), {"seed": state["seed"], "armed": sorted(armed),
                                      "counting": counting_by_half}, _TTL_SECONDS)
    if len(_LOCAL) > 1000:
        _LOCAL.clear()
    _LOCAL[key] = (now, armed, counting)
    return armed, counting
