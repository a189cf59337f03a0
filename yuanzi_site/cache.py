"""Django's Redis cache through Redis Sentinel.

Django's ``RedisCache`` builds its pools from URLs, so it always talks to one
fixed server. :class:`SentinelRedisCache` is the same cache whose single pool
is redis-py's ``SentinelConnectionPool``: each new connection asks the
sentinels for the current master, so after a failover the connections to the
old master fail once (redis-py retries the command on a new connection) and
the cache writes to the new master. Reads go to the master too: a replica may
lag, and the cache holds rate-limit counters.

Configured by :func:`yuanzi_site.redis_config.redis_settings`::

    {"BACKEND": "yuanzi_site.cache.SentinelRedisCache",
     "LOCATION": "sentinel://h1:26379,h2:26379/yuanzi/0",  # shown only
     "OPTIONS": {"sentinels": [["h1", 26379], ["h2", 26379]], "master_name": "yuanzi",
                 "sentinel_kwargs": {"password": …}, "db": 0, "password": …}}

Both caches (:class:`SiteRedisCache` on a URL, :class:`SentinelRedisCache`)
keep one redis-py client per pool: Django's client builds a new ``redis.Redis``
for every command (its ``__init__`` was 7 % of a move's database work at 50
tables, docs/bench.md "Production CPU a move, third look"); a client over a
pool is safe to share between threads. :func:`hit` counts a rate-limit hit in
one round trip; :func:`bump` moves a counter every process shares (a table's
views' version, ``games.adapters.lastview``).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis import ConnectionPool, Redis
from redis.sentinel import Sentinel, SentinelConnectionPool


class SharedClientRedisCacheClient(RedisCacheClient):
    """Django's ``RedisCacheClient`` that hands out one client per pool."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Redis] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Redis:
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]  # private in the stubs
        client = self._clients.get(id(pool))
        if client is None:  # a race makes two, one of which is kept: harmless
            client = self._clients[id(pool)] = self._client(  # type: ignore[attr-defined]
                connection_pool=pool)
        return client


class SiteRedisCache(RedisCache):
    """Django's ``RedisCache`` with one client per pool
    (:class:`SharedClientRedisCacheClient`); configured as ``RedisCache`` is."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedClientRedisCacheClient


def hit(name: str, ttl_seconds: int) -> int:
    """Count one hit on the counter ``name`` in the default cache, which
    expires ``ttl_seconds`` after its first hit; returns the count so far.

    On Redis one round trip (INCR and EXPIRE NX pipelined; Django's
    ``add`` then ``incr`` made three: ADD, EXISTS, INCR); on other caches
    Django's ``add`` / ``incr``."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        key = backend.make_and_validate_key(name)
        client = backend._cache.get_client(key, write=True)  # type: ignore[attr-defined]
        pipe = client.pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, ttl_seconds, nx=True)
        return int(pipe.execute()[0])
    if backend.add(name, 1, ttl_seconds):
        return 1
    try:
        return int(backend.incr(name))
    except ValueError:  # expired between add and incr
        backend.set(name, 1, ttl_seconds)
        return 1


def bump(name: str, ttl_seconds: int) -> int | None:
    """Add one to the shared counter ``name`` and return its new value, or
    ``None`` when the default cache is not Redis (a counter only one process
    sees would prove nothing). One round trip: a missing counter starts at a
    random value below 2**48 (so a reader holding a value from before it
    expired never sees that value again), then INCR, and the expiry set
    ``ttl_seconds`` after this bump."""
    backend = caches["default"]
    if not isinstance(backend, RedisCache):
        return None
    key = backend.make_and_validate_key(name)
    pipe = backend._cache.get_client(key, write=True).pipeline(  # type: ignore[attr-defined]
        transaction=False)
    pipe.set(key, secrets.randbelow(2**48), nx=True)
    pipe.incr(key)
    pipe.expire(key, ttl_seconds)
    return int(pipe.execute()[1])


def shared_key(name: str) -> str | None:
    """The Redis key the default cache stores ``name`` under (for a reader
    on another client, e.g. the channel layer's asyncio one), or ``None``
    when the default cache is not Redis."""
    backend = caches["default"]
    if not isinstance(backend, RedisCache):
        return None
    return backend.make_and_validate_key(name)


class SentinelRedisCacheClient(SharedClientRedisCacheClient):
    """``RedisCacheClient`` whose one pool follows the master the sentinels name.

    ``sentinels``: ``[(host, port), …]``; ``master_name``: the monitored name;
    ``sentinel_kwargs``: options of the connections to the sentinels
    (``password``, timeouts); other options go to the master's connections
    (``db``, ``password``, ``socket_timeout``…).
    """

    def __init__(self, servers: list[str], *, sentinels: list[Any], master_name: str,
                 sentinel_kwargs: dict[str, Any] | None = None, **options: Any) -> None:
        super().__init__(servers, **options)
        # redis-py ships no annotations for its sentinel module
        self._sentinel = Sentinel(  # type: ignore[no-untyped-call]
            [(str(host), int(port)) for host, port in sentinels],
            sentinel_kwargs=sentinel_kwargs or {})
        self._master_name = master_name
        self._master_options = {k: v for k, v in options.items()
                                if k not in ("serializer", "pool_class", "parser_class")}
        self._pool: ConnectionPool | None = None

    def _get_connection_pool(self, write: bool) -> ConnectionPool:
        # one pool, on the master, for reads and writes alike
        if self._pool is None:
            self._pool = SentinelConnectionPool(  # type: ignore[no-untyped-call]
                self._master_name, self._sentinel, **self._master_options)
        return self._pool


class SentinelRedisCache(RedisCache):
    """``RedisCache`` on a master found through Sentinel (options: see
    :class:`SentinelRedisCacheClient`); ``LOCATION`` is descriptive only."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SentinelRedisCacheClient
