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
next change).

With several processes (Redis) a change may be broadcast by any of them, so
nothing is kept here; instead each table has a *views' version* every process
can read, a counter in Redis bumped by every broadcast game change
(:func:`stamp`), whose value rides with that change's messages. A connection
remembers what it was last sent (:class:`Follower`): if it has received every
version since it last read the database, and the counter still says the last
of them (:func:`current`: one Redis read on the serving loop), its last view
is what the database would give and answers the ``sync``; a message lost or
still on its way leaves a gap, and the database decides (docs/bench.md
"Production CPU a move, fourth look").
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from yuanzi_site import cache

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


#: versions a connection keeps beyond a gap before it gives up and lets the database decide
AHEAD_LIMIT = 256
#: a table's views' version expires this long after its last bump (then starts afresh)
VERSION_TTL_SECONDS = 24 * 3600


def _version_name(table_id: int) -> str:
    return f"views:{table_id}"


def stamp(table_id: int) -> int | None:
    """On the Redis stack, bump the table's views' version and return it (one
    Redis round trip, after the change committed); ``None`` with one process
    (:data:`enabled`) or no shared cache, where nothing is versioned."""
    if enabled:
        return None
    return cache.bump(_version_name(table_id), VERSION_TTL_SECONDS)


async def current(layer: Any, table_id: int) -> int | None:
    """The table's views' version now, read on the serving loop through the
    channel layer's asyncio Redis client (the cache's Redis:
    ``redis_config.redis_settings`` points both at one server); ``None``
    when there is none (never bumped, expired, or no Redis)."""
    key = cache.shared_key(_version_name(table_id)) if not enabled else None
    connection = getattr(layer, "connection", None)
    if key is None or connection is None:
        return None
    raw = await connection(0).get(key)
    return None if raw is None else int(raw)


class Follower:
    """One connection's game view as last sent, and whether it provably
    missed nothing since (the Redis stack's ``sync`` without the database).

    ``base``: the views' version the connection is known to have received
    every change up to (``None``: unknown); ``ahead``: versions received out
    of order beyond ``base`` + 1; ``view``: the newest view sent, of version
    ``version``, received at ``at`` (``time.monotonic()`` seconds).
    """

    def __init__(self) -> None:
        self.base: int | None = None
        self.ahead: set[int] = set()
        self.view: Mapping[str, Any] | None = None
        self.version: int | None = None
        self.at = 0.0

    def read(self, version: int | None, view: Mapping[str, Any] | None) -> None:
        """``view`` was read from the database after the version was read as
        ``version``: every change up to it is in the view."""
        self.base = version
        self.ahead = {v for v in self.ahead if version is not None and v > version}
        if version is None or self.version is None or version >= self.version:
            self.view, self.version, self.at = view, version, time.monotonic()
        self._advance()

    def sent(self, version: Any, view: Mapping[str, Any]) -> None:
        """A broadcast view of ``version`` was sent on this connection (kept
        as the newest unless it is of an earlier game than the one kept: a
        late change of a finished game)."""
        if not isinstance(version, int):
            return
        if self.base is not None and version > self.base:
            self.ahead.add(version)
            self._advance()
            if len(self.ahead) > AHEAD_LIMIT:  # a gap that never filled: the database decides
                self.base, self.ahead = None, set()
        newer_game = (self.view is None or not isinstance(view.get("game_id"), int)
                      or view["game_id"] >= (self.view.get("game_id") or 0))
        if (self.version is None or version > self.version) and newer_game:
            self.view, self.version, self.at = view, version, time.monotonic()

    def _advance(self) -> None:
        while self.base is not None and self.base + 1 in self.ahead:
            self.base += 1
            self.ahead.discard(self.base)

    def answer(self, now: int | None) -> dict[str, Any] | None:
        """The view to answer a ``sync`` with when the version is ``now``
        (:func:`current`), its clock run down since it was sent; ``None`` when
        the database must decide: a version missed or on its way, no view,
        or a paused clock."""
        if now is None or self.base != now or self.version != now or self.view is None:
            return None
        out = dict(self.view)
        if out.get("clock_paused"):
            return None
        if out.get("time_left_ms") is not None:
            elapsed = (time.monotonic() - self.at) * 1000
            out["time_left_ms"] = max(0, int(out["time_left_ms"] - elapsed))
        return out
