"""The item state the game views show (``shop.ingame.view_keys``): which
players have an armed 定时器 or a 算牌器 on, read once per game position and
shared by that position's views for half a second; the shop's writes drop it
(after commit, before the views they publish are built)."""

from __future__ import annotations

import time
from typing import Any

from shop.models import CounterUse, InventorySlot

#: (game_id, seed, seq, half) → (monotonic time, users with an armed timer, users with a
#: card counter on); one broadcast builds a view per player, this makes it two queries
_VIEW_CACHE: dict[tuple[int, str, int, int], tuple[float, set[int], set[int]]] = {}
_VIEW_CACHE_SECONDS = 0.5


def forget(game_id: int | None = None) -> None:
    """Drop the cached item state of ``game_id``'s views (all: ``None``); the
    shop's writes call it so the next view is current."""
    for k in [k for k in _VIEW_CACHE if game_id is None or k[0] == game_id]:
        _VIEW_CACHE.pop(k, None)


def item_state(game_id: int, state: dict[str, Any]) -> tuple[set[int], set[int]]:
    """``(users with an armed timer, users with a card counter on this half)``
    among ``game_id``'s players at this position (two queries, or none when cached)."""
    key = (game_id, state["seed"], state["seq"], state["half"])  # the seed: no id reuse
    now = time.monotonic()
    hit = _VIEW_CACHE.get(key)
    if hit is not None and now - hit[0] < _VIEW_CACHE_SECONDS:
        return hit[1], hit[2]
    armed = set(InventorySlot.objects.filter(armed=True, user__game_seats__game_id=game_id)
                .values_list("user_id", flat=True))
    counting = set(CounterUse.objects.filter(game_id=game_id, half=state["half"])
                   .values_list("user_id", flat=True))
    if len(_VIEW_CACHE) > 1000:
        _VIEW_CACHE.clear()
    _VIEW_CACHE[key] = (now, armed, counting)
    return armed, counting
