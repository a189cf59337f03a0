"""The site's channel layers: Channels' in-memory layer without its per-message
full scan, and channels_redis's layer with a bounded, waiting connection pool.

In memory (the embedded default): Channels' ``InMemoryChannelLayer`` runs
``_clean_expired`` — a walk over every channel's queue and every group's
members — on each ``receive`` and each ``group_send``, and starts a task per
recipient of a ``group_send``. With 500 connections that walk dominated a
move's cost (the profile of ``bench/load.py``). :class:`FastInMemoryChannelLayer`
cleans at most once a second (messages expire after 60 s, so a second late is
nothing) and delivers a group message with plain ``put_nowait``, the same
message object to every member: the base class deep-copies it per member (a
fifth of the serving loop's time at 50 tables, and garbage for the collector),
where the site's messages are read-only once sent — consumers only read
them, as they must with Redis, whose receivers each decode their own copy.

Redis: why ``group_add`` ran out of connections: channels_redis gives each
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

A connection that died under the pool — Redis restarted, or a command
cancelled half-way when its client went away in a storm — fails the next
command sent on it ("Connection closed by server", "Connection lost" while
writing): a pool built from a URL retries nothing (redis-py's ``retry`` is
``Retry(NoBackoff(), 0)`` unless given), so that consumer crashed (1011) or
its handshake failed (HTTP 500) — for ~10 s after a Redis restart, until
every dead pooled connection had failed once. Here each command is
retried once on a fresh connection before it fails.

Through Redis Sentinel the pool is :class:`BlockingSentinelConnectionPool`,
the same bounded, waiting pool whose connections ask the sentinels for the
master's address when they (re)connect: after a failover a command on a
connection to the old master fails (closed, or ``READONLY`` once it is a
replica), is retried on a new connection, which goes to the new master.

Receiving: channels_redis takes four round trips for each message a
process receives (a clean-up script, BZPOPMIN, ZADD and ZPOPMIN of a backup
copy) and, per message, races two tasks for a lock inside whichever
consumer's ``receive`` happens to hold it; that consumer's disconnect cancels
the read under way. Here one task per process and event loop (the *pump*)
reads the process's channel in one round trip per burst (BZPOPMIN and a
ZPOPMIN of up to :data:`PUMP_BATCH` more, pipelined: a move's messages for
one process arrive together) and hands each message to its consumer's queue;
a consumer only waits on its queue, so its disconnect cancels nothing in
Redis (docs/bench.md "Production CPU a move, fourth look").

Configured by :func:`yuanzi_site.settings_layers.redis_channel_layer`; host
entries take ``address`` — or channels_redis's Sentinel keys ``sentinels``
(``[(host, port), …]``), ``master_name`` and ``sentinel_kwargs`` — plus any
pool keyword (``max_connections``, ``timeout``, ``socket_timeout``, ``db``,
``password``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from channels.layers import InMemoryChannelLayer
from channels_redis.core import RedisChannelLayer
from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool
from redis.backoff import NoBackoff


class FastInMemoryChannelLayer(InMemoryChannelLayer):  # type: ignore[misc]  # channels ships no types
    """``InMemoryChannelLayer`` with expiry swept at most once a second and
    group sends without a task per member or a copy per member (a group
    message is shared and must not be changed by its receivers)."""

    clean_interval = 1.0
    _cleaned_at = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._cleaned_at >= self.clean_interval:
            self._cleaned_at = now
            super()._clean_expired()

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        """Send ``message`` to every channel in ``group``; a full channel loses
        this message only (as the base class does)."""
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        expires = time.time() + self.expiry
        for channel in list(self.groups.get(group, {})):
            queue = self.channels.get(channel)
            if queue is None:
                queue = self.channels[channel] = asyncio.Queue(
                    maxsize=self.get_capacity(channel))
            # ChannelFull for a group member is ignored by the base class too
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait((expires, message))


logger = logging.getLogger(__name__)

#: messages a process takes off its channel in one round trip, beyond the first
PUMP_BATCH = 100
#: seconds before a failed read of the channel layer is tried again
PUMP_RETRY_SECONDS = 0.5

#: channels_redis's per-channel steps of a group send, for every (key, message)
#: of a batch: drop the channel's expired messages, queue unless full (then
#: counted); scores rise by a microsecond a message, keeping the batch's order
_SEND_MANY = """
local n = #KEYS
local now = tonumber(ARGV[2 * n + 1])
local expiry = tonumber(ARGV[2 * n + 2])
local over = 0
for i = 1, n do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, math.floor(now) - expiry)
    if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[n + i]) then
        redis.call('ZADD', KEYS[i], now + i * 0.000001, ARGV[i])
        redis.call('EXPIRE', KEYS[i], expiry)
    else
        over = over + 1
    end
end
return over
"""


class BlockingSentinelConnectionPool(SentinelConnectionPool, aioredis.BlockingConnectionPool):
    """redis-py's ``SentinelConnectionPool`` (connections to the master the
    sentinels name) with ``BlockingConnectionPool``'s bound and wait:
    ``BlockingSentinelConnectionPool(master_name, Sentinel(...),
    max_connections=…, timeout=…, **connection_kwargs)``."""


class PooledRedisChannelLayer(RedisChannelLayer):  # type: ignore[misc]  # channels_redis ships no types
    """A ``RedisChannelLayer`` whose per-loop pools block instead of failing
    and retry a command once on a fresh connection."""

    def __init__(self, *args: Any, pump: bool = True, **kwargs: Any) -> None:
        """channels_redis's arguments, and ``pump``: ``False`` receives as
        channels_redis does (``bench/floor.py``: the framework's floor)."""
        super().__init__(*args, **kwargs)
        self.pump = pump
        # the pump reading each local channel, per event loop (:meth:`_pump`)
        self._pumps: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Task[None]] = {}

    def create_pool(self, index: int) -> aioredis.ConnectionPool:
        host = dict(self.hosts[index])
        host.setdefault("retry", Retry(NoBackoff(), 1))
        if "master_name" in host:
            master = host.pop("master_name")
            # redis-py ships no annotations for its sentinel module
            to_sentinels = dict(host.pop("sentinel_kwargs", None) or {})
            # the asyncio form of the settings' no-retry (the sentinels are asked in turn)
            to_sentinels["retry"] = Retry(NoBackoff(), 0)
            sentinel = Sentinel(  # type: ignore[no-untyped-call]
                host.pop("sentinels"), sentinel_kwargs=to_sentinels)
            return BlockingSentinelConnectionPool(  # type: ignore[no-untyped-call]
                master, sentinel, **host)
        address = host.pop("address")
        return aioredis.BlockingConnectionPool.from_url(address, **host)

    async def group_send_many(self, messages: list[tuple[str, dict[str, Any]]]) -> None:
        """``group_send(group, message)`` for each pair, in order, in two round
        trips: the groups' members read (and their expired members dropped)
        in one pipeline, every member's message queued by one script (the
        same steps as channels_redis's ``group_send``, which takes four round
        trips a group: a move's five groups took twenty; docs/bench.md
        "Production CPU a move, third look"). Several hosts (sharding): one
        ``group_send`` after another."""
        if self.ring_size != 1:
            for group, message in messages:
                await self.group_send(group, message)
            return
        connection = self.connection(0)
        now = time.time()
        pipe = connection.pipeline(transaction=False)
        for group, _ in messages:
            assert self.require_valid_group_name(group), "Group name not valid"
            key = self._group_key(group)
            pipe.zremrangebyscore(key, min=0, max=int(now) - self.group_expiry)
            pipe.zrange(key, 0, -1)
        members = (await pipe.execute())[1::2]
        keys: list[str] = []
        payloads: list[bytes] = []
        capacities: list[int] = []
        for (_, message), names in zip(messages, members, strict=True):
            _, to_key, capacity = self._map_channel_keys_to_connection(
                [x.decode("utf8") for x in names], message)
            keys.extend(to_key)
            payloads.extend(to_key.values())
            capacities.extend(capacity[k] for k in to_key)
        if keys:
            over = await connection.eval(_SEND_MANY, len(keys), *keys, *payloads, *capacities,
                                         now, self.expiry)
            if over:
                logger.info("%s of %s channels over capacity", over, len(keys))

    async def receive(self, channel: str) -> dict[str, Any]:
        """The next message of ``channel``. A process-local channel (``…!…``,
        every consumer's) waits on its own queue, which this process's pump
        fills (:meth:`_pump`); any other channel as channels_redis does."""
        if "!" not in channel or not self.pump:
            return await super().receive(channel)  # type: ignore[no-any-return]
        assert self.require_valid_channel_name(channel)
        local = self.non_local_name(channel)
        assert local.endswith(self.client_prefix + "!"), "Wrong client prefix"
        self._start_pump(local)
        queue = self.receive_buffer[channel]
        try:
            message = await queue.get()
        except asyncio.CancelledError:
            self.receive_buffer.pop(channel, None)  # its consumer is gone
            raise
        if queue.empty():
            self.receive_buffer.pop(channel, None)  # the pump makes a new one when needed
        return message  # type: ignore[no-any-return]

    def _start_pump(self, local: str) -> None:
        """Run :meth:`_pump` for ``local`` on the running loop unless it runs there."""
        loop = asyncio.get_running_loop()
        task = self._pumps.get((loop, local))
        if task is None or task.done():
            for key in [k for k, t in self._pumps.items() if t.done()]:
                del self._pumps[key]  # pumps of closed loops
            self._pumps[(loop, local)] = loop.create_task(self._pump(local))

    async def _pump(self, local: str) -> None:
        """Read this process's channel ``local`` for as long as the loop runs:
        each round trip waits for a message (BZPOPMIN, up to
        ``brpop_timeout`` s) and takes up to :data:`PUMP_BATCH` more queued
        behind it (ZPOPMIN), then puts each message on its channel's queue
        (a full queue drops its oldest, as channels_redis's buffer does). A
        failed read is retried after :data:`PUMP_RETRY_SECONDS`."""
        key = self.prefix + local
        index = self.consistent_hash(local)
        while True:
            try:
                pipe = self.connection(index).pipeline(transaction=False)
                pipe.bzpopmin(key, timeout=self.brpop_timeout)
                pipe.zpopmin(key, PUMP_BATCH)
                first, rest = await pipe.execute()
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.warning("reading the channel layer failed; retrying", exc_info=True)
                await asyncio.sleep(PUMP_RETRY_SECONDS)
                continue
            contents = ([first[1]] if first else []) + [member for member, _ in rest]
            for content in contents:
                message = self.deserialize(content)
                to = message.pop("__asgi_channel__", local)
                for channel in to if isinstance(to, list) else [to]:
                    self.receive_buffer[channel].put_nowait(message)

    async def group_add(self, group: str, channel: str) -> None:
        """Add ``channel`` to ``group`` (ZADD + EXPIRE, one round trip)."""
        assert self.require_valid_group_name(group), "Group name not valid"
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        key = self._group_key(group)
        pipe = self.connection(self.consistent_hash(group)).pipeline(transaction=False)
        pipe.zadd(key, {channel: time.time()})
        pipe.expire(key, self.group_expiry)
        await pipe.execute()
