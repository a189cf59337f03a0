"""Overload degrades, never collapses (docs/protocol.md close code 4503).

A Daphne process is **saturated** while its event loop has lagged more than
``GAMES_SATURATION_LAG_MS`` for ``GAMES_SATURATION_SECONDS`` without a break
(a watcher on the loop measures how late a 100 ms sleep wakes), or while it
holds more than ``GAMES_MAX_SOCKETS`` websockets. While saturated it accepts
and then closes with **4503** every new connection except a seated player's
of a running game (their reconnects are absorbed, never refused): spectators,
the lobby, ``/ws/me/``. The page says 服务器繁忙 and retries with a jittered
backoff; the moves of tables already playing keep flowing, because nothing
new is let in to compete with them.
"""

from __future__ import annotations

import asyncio
import time

from django.conf import settings

from games.adapters import drain

#: the close code of a refusal for overload (docs/protocol.md)
BUSY_CODE = 4503
_TICK = 0.1

_watching: set[asyncio.AbstractEventLoop] = set()
_tasks: set[asyncio.Task[None]] = set()  # the loop keeps only weak references
_lagging_since: float | None = None


def lag_saturated(now: float | None = None) -> bool:
    """Has the loop lagged past the limit for long enough?"""
    since = _lagging_since
    return since is not None and ((now or time.monotonic()) - since
                                  >= settings.GAMES_SATURATION_SECONDS)


def saturated() -> bool:
    """Is this process saturated (the module docstring)?"""
    return lag_saturated() or drain.open_sockets() > settings.GAMES_MAX_SOCKETS


def note_lag(lag: float, now: float | None = None) -> None:
    """Record one measurement of the loop's lag (seconds)."""
    global _lagging_since
    if lag * 1000 > settings.GAMES_SATURATION_LAG_MS:
        if _lagging_since is None:
            _lagging_since = now or time.monotonic()
    else:
        _lagging_since = None


async def _watch() -> None:
    global _lagging_since
    loop = asyncio.get_running_loop()
    try:
        while True:
            start = loop.time()
            await asyncio.sleep(_TICK)
            note_lag(loop.time() - start - _TICK)
    finally:
        # the loop is closing: a lag it measured must not outlive it and
        # refuse the next loop's connections (one loop per test)
        _watching.discard(loop)
        _lagging_since = None


def watch() -> None:
    """Start measuring the running loop's lag (once per loop; from a consumer)."""
    loop = asyncio.get_running_loop()
    if loop not in _watching:
        _watching.add(loop)
        task = loop.create_task(_watch())
        _tasks.add(task)
        task.add_done_callback(_tasks.discard)
