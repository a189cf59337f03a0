"""The Redis channel layer's configuration, shared by the settings and the
framework floor (``bench/floor.py``) so both measure the same layer."""

from __future__ import annotations


def redis_channel_layer(url: str, prefix: str = "yuanzi") -> dict:
    """``CHANNEL_LAYERS["default"]`` for channels_redis on ``url``."""
    return {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            "hosts": [{"address": url, "socket_timeout": None, "max_connections": 1000}],
            "prefix": prefix,
        },
    }
