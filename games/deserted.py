"""Practice games nobody plays any more: left for their players (RULES.md §7:
leaving a practice game is not an escape; the stood-up notice says a player
whose connection is lost is stood up).

A tester closed the tab of a practice game and stayed seated under 托管 until
the bots had played the game out, some ten minutes, refused 和机器人练习 and
快速开始 everywhere meanwhile. Now the housekeeping (every 10 s) notes when a
running practice game has no seated person with a live connection at its
table, and a presence TTL (``GAMES_PRESENCE_TTL_SECONDS``) after that, if still
nobody of them is back, leaves it for them: :func:`games.play.escape` for one of
them ends it, and the finisher stands up every seated person who is gone. A
reload (gone for a moment) or a game someone still has open is never left.

The first sighting is kept in the shared cache (``games:deserted:<table id>``:
``[game id, epoch seconds]``), so any process's sweep reads the same one.
"""

from __future__ import annotations

import time
from collections import defaultdict

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache

from games import play, presence
from games.models import Game, Seat, Table
from yuanzi_site.refusals import Refused


def _key(table_id: int) -> str:
    return f"games:deserted:{table_id}"


def leave_deserted_practice(now: float | None = None) -> int:
    """Leave the running practice games whose players have all been gone for a
    presence TTL (module docstring). Per sweep: two queries (the running
    practice tables, their seated people), one presence round trip and one
    cache read; a game is left through :func:`games.play.escape`, under its
    row lock, as a player's own 离开.

    :param now: epoch seconds (default: the clock); tests pass it.
    :returns: how many games were left.
    """
    now = time.time() if now is None else now
    running = dict(Table.objects.filter(
        closed=False, status=Table.PLAYING, current_game__status=Game.PLAYING,
        current_game__practice=True).values_list("pk", "current_game_id"))
    if not running:
        return 0
    seated: dict[int, list[int]] = defaultdict(list)
    for table_id, user_id in (Seat.objects.filter(table_id__in=running, user__isnull=False)
                              .order_by("index").values_list("table_id", "user_id")):
        seated[table_id].append(user_id)
    live = presence.live_many(running)
    gone = {t for t in running
            if seated[t] and not {u for _, u in live[t]} & set(seated[t])}
    marks = cache.get_many([_key(t) for t in running])
    back = [_key(t) for t in running if t not in gone and _key(t) in marks]
    if back:
        cache.delete_many(back)  # someone came back: a later absence counts afresh
    fresh: dict[str, list[float]] = {}
    left = 0
    for t in sorted(gone):
        mark = marks.get(_key(t))
        if not mark or mark[0] != running[t]:
            fresh[_key(t)] = [running[t], now]
            continue
        if now - mark[1] < settings.GAMES_PRESENCE_TTL_SECONDS:
            continue
        user = get_user_model().objects.get(pk=seated[t][0])
        try:
            play.escape(running[t], user)
            left += 1
        except Refused:
            pass  # it ended, or they stood, meanwhile: nothing to leave
        cache.delete(_key(t))
    if fresh:
        cache.set_many(fresh, timeout=settings.GAMES_PRESENCE_TTL_SECONDS * 10)
    return left
