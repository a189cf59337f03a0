"""Presence: who is connected to which table, from heartbeats that expire
(DESIGN.md "Time, bots, departures": a killed process sends no disconnect;
DESIGN.md "Load": heartbeats stay off the database).

One entry per open connection — ``(channel name, user id or None)`` under its
table, stamped with the time of its last heartbeat (epoch seconds). Entries
older than :func:`online_cutoff` count for nothing and :func:`expire_presence`
drops them. Two stores, chosen by the settings:

* Redis (``REDIS_URL`` or ``REDIS_SENTINELS`` set: every process shares
  it): one sorted set per table, ``<prefix>:presence:t:<id>``, members
  ``"<channel>|<user id or 0>"`` scored by the heartbeat time, and an index
  ``<prefix>:presence:tables`` of tables with entries, scored by their newest
  heartbeat, and ``<prefix>:presence:left``: user ids scored by when a socket
  of theirs last closed (:func:`expire_presence` reads it);
* process memory (the embedded default: one process holds every connection).

Readers: :func:`live` / :func:`live_many` (entries that count), :func:`online_users`,
:func:`spectator_count`, :func:`watched_tables`.

A *person* is online while any of their sockets heartbeats: a table
socket's heartbeat counts for its user too, and sockets with no table (the
lobby's, ``/ws/me/``) keep :func:`touch_person` entries of their own — one per
connection under the user, ``<prefix>:presence:u:<user id>`` in Redis (the key
expires with its last heartbeat). :func:`online` reads them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.utils import timezone

from games import events
from yuanzi_site import redis_config
from yuanzi_site.redis_config import SentinelTarget

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser, User

Entry = tuple[str, int | None]  # (channel name, user id or None)


def online_cutoff() -> datetime:
    """Heartbeats older than this no longer count (a killed process sends no goodbye)."""
    return timezone.now() - timedelta(seconds=settings.GAMES_PRESENCE_TTL_SECONDS)


def _cutoff_ts() -> float:
    return time.time() - settings.GAMES_PRESENCE_TTL_SECONDS


class _MemoryStore:
    """Entries in this process's memory (one process: the embedded default)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tables: dict[int, dict[str, tuple[int | None, float]]] = {}
        self.people: dict[int, dict[str, float]] = {}
        self.left: dict[int, float] = {}  # user id -> when a socket of theirs went

    def _left(self, user_id: int) -> None:
        self.left[user_id] = time.time()

    def touch(self, table_id: int, channel: str, user_id: int | None, at: float) -> None:
        with self.lock:
            self.tables.setdefault(table_id, {})[channel] = (user_id, at)
            if user_id:
                self.people.setdefault(user_id, {})[channel] = at

    def drop(self, table_id: int, channel: str, user_id: int | None) -> None:
        with self.lock:
            entries = self.tables.get(table_id)
            if entries is not None:
                entries.pop(channel, None)
                if not entries:
                    del self.tables[table_id]
        if user_id:
            self.drop_person(channel, user_id)  # records the departure

    def touch_person(self, channel: str, user_id: int, at: float) -> None:
        with self.lock:
            self.people.setdefault(user_id, {})[channel] = at

    def drop_person(self, channel: str, user_id: int) -> None:
        with self.lock:
            entries = self.people.get(user_id)
            if entries is not None:
                entries.pop(channel, None)
                if not entries:
                    del self.people[user_id]
            self._left(user_id)

    def online(self, user_ids: Iterable[int], cutoff: float) -> set[int]:
        with self.lock:
            return {u for u in user_ids
                    if any(at >= cutoff for at in self.people.get(u, {}).values())}

    def arrived(self, user_id: int, cutoff: float) -> bool:
        with self.lock:
            live = sum(1 for at in self.people.get(user_id, {}).values() if at >= cutoff)
            return live <= 1 and self.left.get(user_id, 0.0) < cutoff

    def live_many(self, table_ids: Iterable[int], cutoff: float) -> dict[int, list[Entry]]:
        with self.lock:
            return {t: [(c, u) for c, (u, at) in self.tables.get(t, {}).items() if at >= cutoff]
                    for t in table_ids}

    def watched(self, cutoff: float) -> set[int]:
        with self.lock:
            return {t for t, e in self.tables.items() if any(at >= cutoff for _, at in e.values())}

    def expire(self, cutoff: float) -> dict[int, list[int | None]]:
        gone: dict[int, list[int | None]] = {}
        with self.lock:
            for t, entries in list(self.tables.items()):
                stale = [c for c, (_, at) in entries.items() if at < cutoff]
                if stale:
                    gone[t] = [entries.pop(c)[0] for c in stale]
                if not entries:
                    del self.tables[t]
            for u, seen in list(self.people.items()):  # Redis lets these keys expire
                for c in [c for c, at in seen.items() if at < cutoff]:
                    self.left[u] = max(self.left.get(u, 0.0), seen.pop(c))
                if not seen:
                    del self.people[u]
        return gone

    def departed(self, cutoff: float) -> set[int]:
        with self.lock:
            users = {u for u, at in self.left.items() if at < cutoff}
            for u in users:
                del self.left[u]
        return users

    def clear(self) -> None:
        with self.lock:
            self.tables.clear()
            self.people.clear()
            self.left.clear()


class _RedisStore:
    """Entries in Redis sorted sets, shared by every process (production)."""

    def __init__(self, target: str | SentinelTarget, prefix: str) -> None:
        self.redis = redis_config.client(target)
        self.prefix = f"{prefix}:presence"
        self.index = f"{self.prefix}:tables"
        self.left = f"{self.prefix}:left"  # user ids scored by when a socket of theirs went

    def _key(self, table_id: int) -> str:
        return f"{self.prefix}:t:{table_id}"

    def _person(self, user_id: int) -> str:
        return f"{self.prefix}:u:{user_id}"

    def _touch_person(self, pipe: Any, channel: str, user_id: int, at: float) -> None:
        key = self._person(user_id)
        pipe.zadd(key, {channel: at})
        # the whole key goes with its last heartbeat: no sweep needed
        pipe.expire(key, settings.GAMES_PRESENCE_TTL_SECONDS * 2)

    def touch(self, table_id: int, channel: str, user_id: int | None, at: float) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(self._key(table_id), {f"{channel}|{user_id or 0}": at})
        pipe.zadd(self.index, {str(table_id): at}, gt=True)  # GT adds new members too
        if user_id:
            self._touch_person(pipe, channel, user_id, at)
        pipe.execute()

    def drop(self, table_id: int, channel: str, user_id: int | None) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrem(self._key(table_id), f"{channel}|{user_id or 0}")
        if user_id:
            pipe.zrem(self._person(user_id), channel)
            pipe.zadd(self.left, {str(user_id): time.time()})
        pipe.execute()

    def touch_person(self, channel: str, user_id: int, at: float) -> None:
        pipe = self.redis.pipeline(transaction=False)
        self._touch_person(pipe, channel, user_id, at)
        pipe.execute()

    def drop_person(self, channel: str, user_id: int) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrem(self._person(user_id), channel)
        pipe.zadd(self.left, {str(user_id): time.time()})
        pipe.execute()

    def departed(self, cutoff: float) -> set[int]:
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrangebyscore(self.left, "-inf", f"({cutoff}")
        # a departure recorded meanwhile is newer than the cutoff: not removed
        pipe.zremrangebyscore(self.left, "-inf", f"({cutoff}")
        members, _removed = pipe.execute()
        return {int(m) for m in _replies(members)}

    def online(self, user_ids: Iterable[int], cutoff: float) -> set[int]:
        user_ids = list(user_ids)
        pipe = self.redis.pipeline(transaction=False)
        for u in user_ids:
            pipe.zcount(self._person(u), cutoff, "+inf")
        return {u for u, n in zip(user_ids, pipe.execute(), strict=True) if n}

    def arrived(self, user_id: int, cutoff: float) -> bool:
        pipe = self.redis.pipeline(transaction=False)
        pipe.zcount(self._person(user_id), cutoff, "+inf")
        pipe.zscore(self.left, str(user_id))
        live, left = pipe.execute()
        return bool(live <= 1 and (left is None or left < cutoff))

    def live_many(self, table_ids: Iterable[int], cutoff: float) -> dict[int, list[Entry]]:
        table_ids = list(table_ids)
        pipe = self.redis.pipeline(transaction=False)
        for t in table_ids:
            pipe.zrangebyscore(self._key(t), cutoff, "+inf")
        out: dict[int, list[Entry]] = {}
        for t, members in zip(table_ids, pipe.execute(), strict=True):
            entries: list[Entry] = []
            for m in members:
                channel, user = m.decode().rsplit("|", 1)
                entries.append((channel, int(user) or None))
            out[t] = entries
        return out

    def watched(self, cutoff: float) -> set[int]:
        return {int(t) for t in _replies(self.redis.zrangebyscore(self.index, cutoff, "+inf"))}

    def expire(self, cutoff: float) -> dict[int, list[int | None]]:
        gone: dict[int, list[int | None]] = {}
        for t in _replies(self.redis.zrange(self.index, 0, -1)):
            key = self._key(int(t))
            stale = _replies(self.redis.zrangebyscore(key, "-inf", f"({cutoff}"))
            if stale:
                self.redis.zrem(key, *stale)  # a member touched meanwhile is lost: it pings again
                gone[int(t)] = [int(m.decode().rsplit("|", 1)[1]) or None for m in stale]
        self.redis.zremrangebyscore(self.index, "-inf", f"({cutoff}")
        return gone

    def clear(self) -> None:
        keys = list(self.redis.scan_iter(f"{self.prefix}:*"))
        if keys:
            self.redis.delete(*keys)


def _replies(reply: Any) -> list[bytes]:
    """A sorted-set reply of this client (no ``decode_responses``): its members as
    bytes, which redis-py's types leave open (they cover every client setting)."""
    return cast(list[bytes], reply)


_store: _MemoryStore | _RedisStore | None = None
_store_lock = threading.Lock()


def store() -> _MemoryStore | _RedisStore:
    """The configured store (made once per process)."""
    global _store
    with _store_lock:
        if _store is None:
            target = redis_config.configured_target()
            _store = (_RedisStore(target, settings.REDIS_PREFIX) if target else _MemoryStore())
        return _store


def touch_presence(channel_name: str, table_id: int, user: User | AnonymousUser | None,
                   at: float | None = None) -> None:
    """Record or refresh one connection's heartbeat (``at``: epoch seconds, now by default)."""
    user_id = user.pk if user is not None and user.is_authenticated else None
    store().touch(table_id, channel_name, user_id, time.time() if at is None else at)


def drop_presence(channel_name: str, table_id: int, user: User | AnonymousUser | None) -> None:
    """Forget a closed connection."""
    user_id = user.pk if user is not None and user.is_authenticated else None
    store().drop(table_id, channel_name, user_id)


def touch_person(channel_name: str, user: User | AnonymousUser | None,
                 at: float | None = None) -> None:
    """Record or refresh the heartbeat of a connection that belongs to no table
    (the lobby's, ``/ws/me/``): its user is online while it lasts. Anonymous
    users are not recorded. (A table connection's :func:`touch_presence`
    counts for its user already.)"""
    if user is not None and user.is_authenticated:
        store().touch_person(channel_name, user.pk, time.time() if at is None else at)


def drop_person(channel_name: str, user: User | AnonymousUser | None) -> None:
    """Forget a closed connection recorded by :func:`touch_person`."""
    if user is not None and user.is_authenticated:
        store().drop_person(channel_name, user.pk)


def online(user_ids: Iterable[int | None]) -> set[int]:
    """Which of ``user_ids`` are online: any socket of theirs (a table's, the
    lobby's, ``/ws/me/``) heartbeat within the TTL. One round trip."""
    ids = [u for u in user_ids if u]
    return store().online(ids, _cutoff_ts()) if ids else set()


def is_online(user_id: int) -> bool:
    """:func:`online` for one user."""
    return user_id in online([user_id])


def arrived(user_id: int) -> bool:
    """Did the person just come online? Asked right after a socket of theirs
    connected: it is their only live socket and none of theirs closed within
    the presence TTL (a reload or a page change closes one socket and opens
    the next a moment later: not an arrival). One round trip."""
    return store().arrived(user_id, _cutoff_ts())


def live(table_id: int) -> list[Entry]:
    """The connections at ``table_id`` whose heartbeats still count."""
    return store().live_many([table_id], _cutoff_ts())[table_id]


def live_many(table_ids: Iterable[int]) -> dict[int, list[Entry]]:
    """:func:`live` for several tables in one round trip."""
    return store().live_many(table_ids, _cutoff_ts())


def online_users(table_id: int) -> set[int]:
    """Ids of the users with a live connection at ``table_id``."""
    return {u for _, u in live(table_id) if u is not None}


def spectator_count(entries: list[Entry], seated: set[int]) -> int:
    """How many of ``entries`` are not a seated user's connection (spectators,
    anonymous ones each counted)."""
    return sum(1 for _, u in entries if u is None or u not in seated)


def watched_tables() -> set[int]:
    """Tables with at least one live connection."""
    return store().watched(_cutoff_ts())


def expire_presence() -> int:
    """Forget connections whose heartbeats stopped (a killed process says no
    goodbye) and tell their tables, so they show offline; users with no live
    connection at all (no table's, lobby's or ``/ws/me/`` socket: :func:`online`)
    whose last socket went a presence TTL ago or more — its heartbeats stopped,
    or it closed (a closed browser says goodbye: its entry is dropped at once,
    its departure is kept) — are published as ``PresenceExpired(user_ids)``
    (``games.tables`` stands them up from waiting seats).

    :returns: how many connections were forgotten.
    """
    cutoff = _cutoff_ts()
    gone = store().expire(cutoff)
    users = {u for entries in gone.values() for u in entries if u is not None}
    users |= store().departed(cutoff)
    if users:
        users -= online(users)  # any live socket (a table's, the lobby's, /ws/me/) keeps them
    for table_id in gone:
        events.publish(events.TableChanged(table_id))
    if users:
        events.publish(events.PresenceExpired(tuple(sorted(users))))
    return sum(len(entries) for entries in gone.values())


def clear() -> None:
    """Forget every entry (tests: one test's connections must not outlive it)."""
    store().clear()
