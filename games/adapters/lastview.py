"""The views this process last broadcast, to answer a ``sync`` without the
database thread where that is provably current (docs/protocol.md "sync").

A ``sync`` asks for the connection's current game view. At 250 tables a
thousand pages send one every 10 s, and building each from the database was
the largest steady cost of an overloaded embedded site (docs/bench.md "The
production targets on a quiet machine"). With the in-memory channel layer
(``make run``: one process) every game change is published by this process,
so the views :mod:`broadcast` built for a table's current game at its last
change are what the database would give: they are kept here (the newest
:data:`KEEP` games) and a ``sync`` is answered from them, its clock
recomputed (a clock that stopped since, the site taken for down, shows at the
next change). With several processes (Redis) a change may have been made
elsewhere, so nothing is kept and every ``sync`` reads the database, as before.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

#: games kept (each: five views of about 1 KB)
KEEP = 2000


@dataclass(frozen=True)
class Kept:
    """One game's views at its last broadcast change.

    :param views: per seated user id, that seat's view; ``spectator``: the
        seat-less view; ``due_at``: the turn's due time or ``None``.
    """

    game_id: int
    views: Mapping[int, Mapping[str, Any]]
    spectator: Mapping[str, Any]
    due_at: datetime | None


_games: OrderedDict[int, Kept] = OrderedDict()  # table id → its current game's views
enabled = False  # set by ``GamesConfig.ready`` when the layer is in-memory (one process)


def keep(table_id: int, kept: Kept) -> None:
    """Remember ``kept`` as table ``table_id``'s current game (called on the
    serving loop or the sending thread, after the change committed)."""
    if not enabled:
        return
    old = _games.get(table_id)
    if old is not None and old.game_id > kept.game_id:
        return  # a late change of an earlier game: the table has moved on
    _games[table_id] = kept
    _games.move_to_end(table_id)
    while len(_games) > KEEP:
        _games.popitem(last=False)


def forget(table_id: int) -> None:
    """Drop a table's views (it closed)."""
    _games.pop(table_id, None)


def forget_all() -> None:
    """Drop everything kept (tests: a test database reuses table ids)."""
    _games.clear()


def view(table_id: int, user_id: int | None) -> dict[str, Any] | None:
    """``user_id``'s view of the table's current game as last broadcast, with
    ``time_left_ms`` recomputed for now; ``None`` when nothing is kept for the
    table or the clock was paused then (the database decides)."""
    kept = _games.get(table_id)
    if kept is None:
        return None
    base = kept.views.get(user_id) if user_id is not None else None
    out = dict(base if base is not None else kept.spectator)
    if out.get("clock_paused"):
        return None
    if kept.due_at is not None and out.get("time_left_ms") is not None:
        left = (kept.due_at - timezone.now()).total_seconds() * 1000
        out["time_left_ms"] = max(0, int(left))
    return out
