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
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis import ConnectionPool
from redis.sentinel import Sentinel, SentinelConnectionPool


class SentinelRedisCacheClient(RedisCacheClient):
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
