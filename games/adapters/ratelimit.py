"""Fixed-window rate limits kept in Django's cache (Redis in production, so
every process shares the counts)."""

from __future__ import annotations

import time

from django.core.cache import cache


def allow(key: str, limit: int, window_seconds: int) -> bool:
    """Count one hit on ``key``; ``False`` once more than ``limit`` hits fall in
    the current ``window_seconds``-long window."""
    bucket = f"rl:{key}:{int(time.time() // window_seconds)}"
    if cache.add(bucket, 1, window_seconds + 1):
        return True
    try:
        return cache.incr(bucket) <= limit
    except ValueError:  # expired between add and incr
        cache.set(bucket, 1, window_seconds + 1)
        return True
