"""The site's own Redis parts on a real Redis: the channel layer's batched
group send (``PooledRedisChannelLayer.group_send_many``) and the cache's
one-round-trip counter (``yuanzi_site.cache.hit``, the rate limits).

Skipped unless ``REDIS_URL`` is set (``.ci/run`` sets it; CI skips nothing).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid

import pytest

pytestmark = pytest.mark.skipif(not os.environ.get("REDIS_URL"),
                                reason="needs REDIS_URL (a Redis server)")


def _layer(**config):
    from yuanzi_site.layers import PooledRedisChannelLayer
    from yuanzi_site.settings_layers import redis_channel_layer

    conf = redis_channel_layer(os.environ["REDIS_URL"], prefix=f"t{uuid.uuid4().hex[:8]}")
    conf["CONFIG"].update(config)
    return PooledRedisChannelLayer(**conf["CONFIG"])


async def _drain(layer, channel: str) -> list[dict]:
    got = []
    while True:
        try:
            got.append(await asyncio.wait_for(layer.receive(channel), 0.3))
        except TimeoutError:
            return got


def test_a_batch_reaches_each_group_in_order():
    async def run():
        layer = _layer()
        a, b, c = [await layer.new_channel() for _ in range(3)]
        await layer.group_add("seat1", a)
        await layer.group_add("seat2", b)
        await layer.group_add("watch", a)  # a is in two groups of the batch
        await layer.group_add("watch", c)
        batch = [("seat1", {"type": "game.update", "n": 1}),
                 ("seat2", {"type": "game.update", "n": 2}),
                 ("watch", {"type": "game.spectate", "n": 3}),
                 ("nobody", {"type": "game.update", "n": 4}),
                 ("seat1", {"type": "game.update", "n": 5})]
        await layer.group_send_many(batch)
        got = {ch: [m["n"] for m in await _drain(layer, ch)] for ch in (a, b, c)}
        await layer.flush()
        return got, (a, b, c)

    got, (a, b, c) = asyncio.run(run())
    assert got[a] == [1, 3, 5]  # the batch's order, across its groups
    assert got[b] == [2]
    assert got[c] == [3]


def test_a_full_channel_drops_what_the_batch_would_add_beyond_its_capacity():
    async def run():
        layer = _layer(capacity=2)
        a = await layer.new_channel()
        await layer.group_add("g", a)
        await layer.group_send_many([("g", {"type": "x", "n": n}) for n in range(4)])
        got = [m["n"] for m in await _drain(layer, a)]
        await layer.flush()
        return got

    assert asyncio.run(run()) == [0, 1]


def test_expired_members_are_not_sent_to():
    async def run():
        layer = _layer(group_expiry=1)
        a = await layer.new_channel()
        await layer.group_add("g", a)
        await asyncio.sleep(2.1)  # older than the group's expiry: dropped before the send
        await layer.group_send_many([("g", {"type": "x"})])
        got = await _drain(layer, a)
        await layer.flush()
        return got

    assert asyncio.run(run()) == []


def test_the_pump_hands_each_local_channel_its_messages_in_order():
    """``PooledRedisChannelLayer.receive``: one pump per process reads its
    channel (a burst in one round trip) and each consumer gets its own
    messages in the order sent; a message for several channels reaches each."""
    async def run():
        layer = _layer()
        a, b = await layer.new_channel(), await layer.new_channel()
        await layer.group_add("both", a)
        await layer.group_add("both", b)
        for n in range(5):  # queued before anyone receives: one burst
            await layer.send(a if n % 2 else b, {"type": "m", "n": n})
        await layer.group_send("both", {"type": "m", "n": 9})
        got = {ch: [m["n"] for m in await _drain(layer, ch)] for ch in (a, b)}
        await layer.flush()
        return got, (a, b)

    got, (a, b) = asyncio.run(run())
    assert got[a] == [1, 3, 9]
    assert got[b] == [0, 2, 4, 9]


def test_a_receiver_cancelled_while_waiting_takes_nothing_from_the_others():
    """A consumer's disconnect cancels its wait, never the process's read:
    the other consumers' messages and its own later ones still arrive."""
    async def run():
        layer = _layer()
        a, b = await layer.new_channel(), await layer.new_channel()
        waiting = asyncio.ensure_future(layer.receive(a))
        await asyncio.sleep(0.2)  # the pump is in its blocking read
        waiting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        await layer.send(b, {"type": "m", "n": 1})
        await layer.send(a, {"type": "m", "n": 2})
        got = [await asyncio.wait_for(layer.receive(b), 2),
               await asyncio.wait_for(layer.receive(a), 2)]
        await layer.flush()
        return [m["n"] for m in got]

    assert asyncio.run(run()) == [1, 2]


def test_without_the_pump_a_layer_receives_as_channels_redis_does():
    async def run():
        layer = _layer(pump=False)
        a = await layer.new_channel()
        await layer.send(a, {"type": "m", "n": 1})
        got = await asyncio.wait_for(layer.receive(a), 2)
        await layer.flush()
        return got, layer._pumps

    got, pumps = asyncio.run(run())
    assert got["n"] == 1
    assert pumps == {}


@pytest.fixture
def redis_cache(settings):
    from django.core.cache import caches

    settings.CACHES = {"default": {"BACKEND": "yuanzi_site.cache.SiteRedisCache",
                                   "LOCATION": os.environ["REDIS_URL"],
                                   "KEY_PREFIX": f"t{uuid.uuid4().hex[:8]}"}}
    cache = caches["default"]
    yield cache
    cache.clear()


def test_a_hit_counts_in_redis_and_expires(redis_cache):
    from games.adapters import ratelimit
    from yuanzi_site.cache import SiteRedisCache, hit

    assert isinstance(redis_cache, SiteRedisCache)
    assert [hit("k", 30) for _ in range(3)] == [1, 2, 3]
    key = redis_cache.make_and_validate_key("k")
    client = redis_cache._cache.get_client(key)
    assert 0 < client.ttl(key) <= 30  # set by the first hit, not moved by later ones
    assert client is redis_cache._cache.get_client(key)  # one client per pool
    assert [ratelimit.allow("who", 2, 60) for _ in range(4)] == [True, True, False, False]
    assert redis_cache.get("k") == 3  # Django reads the counter as the integer it is


def test_a_shared_counter_starts_at_random_and_counts_in_redis(redis_cache):
    """``yuanzi_site.cache.bump`` (a table's views' version): a fresh counter
    starts at a random value, each bump adds one and pushes the expiry back."""
    from yuanzi_site.cache import bump, shared_key

    first = bump("views:1", 30)
    assert first is not None
    assert [bump("views:1", 30) for _ in range(3)] == [first + 1, first + 2, first + 3]
    other = bump("views:2", 30)
    assert other is not None
    assert other != first  # random starts (a 1 in 2**48 chance to fail)
    key = shared_key("views:1")
    assert key == redis_cache.make_and_validate_key("views:1")
    client = redis_cache._cache.get_client(key)
    assert 0 < client.ttl(key) <= 30
    assert int(client.get(key)) == first + 3


def test_without_redis_there_is_no_shared_counter(settings):
    from yuanzi_site.cache import bump, shared_key

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert bump("views:1", 30) is None
    assert shared_key("views:1") is None
