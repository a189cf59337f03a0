"""Fixed-window rate limits kept in Django's cache (Redis in production, so
every process shares the counts)."""

from __future__ import annotations

import time

from yuanzi_site.cache import hit


def allow(key: str, limit: int, window_seconds: int) -> bool:
    """Count one hit on ``key``; ``False`` once more than ``limit`` hits fall in
    the current ``window_seconds``-long window (one Redis round trip,
    :func:`yuanzi_site.cache.hit`)."""
    bucket = f"rl:{key}:{int(time.time() // window_seconds)}"
    return hit(bucket, window_seconds + 1) <= limit
