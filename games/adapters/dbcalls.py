"""Where the websocket consumers' database calls run.

Channels' ``database_sync_to_async`` runs every call of a process in one
thread, so on PostgreSQL a process's moves, connects and syncs queue behind
each other's network round trips: under a busy evening's load that thread was
the production stack's limit with the CPU not yet saturated. :func:`db` runs
them in a pool of ``GAMES_DB_THREADS`` threads instead (each with its own
connection); what must be ordered already is, by row locks and the ``seq``
check, exactly as between the site's several processes, and a client drops a
view older than the one it has (``static/js/state.js``). On SQLite (0 threads)
the one thread stays: SQLite serialises writers anyway.

The channel-layer sends a call makes (its after-commit broadcasts) come back
with its result and are handed to the loop there (``sends.collecting``): no
extra wake of the loop from the database thread per call.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from channels.db import database_sync_to_async
from django.conf import settings

from games.adapters import sends

_pool: ThreadPoolExecutor | None = None

P = ParamSpec("P")
R = TypeVar("R")


def db(func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``func`` as an awaitable run with a database connection (closing stale
    ones first, as ``database_sync_to_async`` does), in the pool when
    ``GAMES_DB_THREADS`` > 0, else in Channels' database thread; what it
    broadcast is sent when it returns or raises, before the caller resumes."""
    global _pool

    def collected(*args: P.args, **kwargs: P.kwargs) -> tuple[Any, bool, list[Any]]:
        with sends.collecting() as batch:
            try:
                return func(*args, **kwargs), False, batch
            except Exception as exc:  # re-raised on the loop, after the sends
                return exc, True, batch

    if not settings.GAMES_DB_THREADS:
        run = database_sync_to_async(collected)
    else:
        if _pool is None:
            _pool = ThreadPoolExecutor(settings.GAMES_DB_THREADS, thread_name_prefix="db")
        run = database_sync_to_async(collected, thread_sensitive=False, executor=_pool)

    @functools.wraps(func)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        result, raised, batch = await run(*args, **kwargs)
        sends.deliver(batch)
        if raised:
            raise result
        return result  # type: ignore[no-any-return]

    return call
