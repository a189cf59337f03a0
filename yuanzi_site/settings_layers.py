"""The channel layers' configuration, shared by the settings and the framework
floor (``bench/floor.py``) so both measure the same layer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: frames a connection may have queued in the layer before it drops them
CHANNEL_CAPACITY = 2000


def memory_channel_layer() -> dict[str, Any]:
    """``CHANNEL_LAYERS["default"]`` in process memory (the embedded default)."""
    return {"BACKEND": "yuanzi_site.layers.FastInMemoryChannelLayer",
            "CONFIG": {"capacity": CHANNEL_CAPACITY}}


def redis_channel_layer(url: str | Mapping[str, Any], prefix: str = "yuanzi") -> dict[str, Any]:
    """``CHANNEL_LAYERS["default"]`` for channels_redis on ``url`` (a
    ``redis://`` URL, or channels_redis's Sentinel entry ``{"sentinels": [(host,
    port), …], "master_name": …, "sentinel_kwargs": {…}, "db": …}``, see
    :meth:`yuanzi_site.redis_config.SentinelTarget.channel_host`): the site's
    :class:`yuanzi_site.layers.PooledRedisChannelLayer`, whose commands
    share a bounded pool and wait for a free connection rather than fail."""
    # socket_timeout None: redis-py 8 defaults to a 5 s read timeout,
    # which kills channels_redis's blocking receive (BZPOPMIN, 5 s)
    # and with it every websocket idle for 5 s (close code 1011).
    host: dict[str, Any] = {"socket_timeout": None, "max_connections": 64, "timeout": 20}
    if isinstance(url, str):
        host["address"] = url
    else:
        host.update(url)
    return {
        "BACKEND": "yuanzi_site.layers.PooledRedisChannelLayer",
        "CONFIG": {"hosts": [host], "prefix": prefix, "capacity": CHANNEL_CAPACITY},
    }
