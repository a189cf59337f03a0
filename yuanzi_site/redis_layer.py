"""channels_redis's ``RedisChannelLayer`` with a bounded, waiting connection pool.

Why ``group_add`` ran out of connections (issue 12): channels_redis gives each
event loop one redis-py ``ConnectionPool`` per host, and every command in
flight holds one of its connections until the reply. A reconnect storm puts
hundreds of consumers' ``group_add`` (two commands each: ZADD, EXPIRE) in
flight at once, so the pool needs one connection per concurrent consumer;
redis-py 8's pool stops at ``max_connections`` (default 100) and raises
``MaxConnectionsError`` at once, which Daphne turned into HTTP 500 handshakes.
Raising the limit only moves the cliff (and opens hundreds of sockets to
Redis per process).

Here the pool is redis-py's ``BlockingConnectionPool``: at most
``max_connections`` sockets per process, and a command that finds none free
waits (up to ``timeout`` seconds) for one; ``group_add`` sends its two
commands in one pipelined round trip. So a storm queues briefly instead of
failing, on a few dozen connections.

Configured by :func:`yuanzi_site.settings_layers.redis_channel_layer`; host
entries take ``address`` plus any pool keyword (``max_connections``,
``timeout``, ``socket_timeout``).
"""

from __future__ import annotations

import time

from channels_redis.core import RedisChannelLayer
from redis import asyncio as aioredis


class PooledRedisChannelLayer(RedisChannelLayer):
    """A ``RedisChannelLayer`` whose per-loop pools block instead of failing."""

    def create_pool(self, index: int) -> aioredis.ConnectionPool:
        host = dict(self.hosts[index])
        address = host.pop("address")
        return aioredis.BlockingConnectionPool.from_url(address, **host)

    async def group_add(self, group: str, channel: str) -> None:
        """Add ``channel`` to ``group`` (ZADD + EXPIRE, one round trip)."""
        assert self.require_valid_group_name(group), "Group name not valid"
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        key = self._group_key(group)
        pipe = self.connection(self.consistent_hash(group)).pipeline(transaction=False)
        pipe.zadd(key, {channel: time.time()})
        pipe.expire(key, self.group_expiry)
        await pipe.execute()
