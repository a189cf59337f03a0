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
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar, cast

from channels.db import database_sync_to_async
from django.conf import settings

_pool: ThreadPoolExecutor | None = None

P = ParamSpec("P")
R = TypeVar("R")


def db(func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``func`` as an awaitable run with a database connection (closing stale
    ones first, as ``database_sync_to_async`` does), in the pool when
    ``GAMES_DB_THREADS`` > 0, else in Channels' database thread."""
    global _pool
    # channels ships no types: its wrapper is Callable[P, Awaitable[R]]
    if not settings.GAMES_DB_THREADS:
        return cast(Callable[P, Awaitable[R]], database_sync_to_async(func))
    if _pool is None:
        _pool = ThreadPoolExecutor(settings.GAMES_DB_THREADS, thread_name_prefix="db")
    return cast(Callable[P, Awaitable[R]],
                database_sync_to_async(func, thread_sensitive=False, executor=_pool))
