"""Sending on the channel layer from any thread, without a thread hop per send
(a hop per send showed in profiles under load): the event-loop plumbing under
:mod:`games.adapters.broadcast`.

Inside Daphne the sends are handed to the serving event loop, where one queue
per loop keeps them in order, and the caller (Channels' single database thread)
does not wait for them; elsewhere (a Celery worker, a shell) they run on one
long-lived background loop, so the Redis layer keeps its connection pool instead
of opening one per message (``async_to_sync`` there made a thread, a loop and a
pool per call).

A consumer's database call (:func:`games.adapters.dbcalls.db`) does not wake
the loop for its sends at all: they are collected (:func:`collecting`) and
handed back with the call's result, which wakes the loop anyway. Each wake from
another thread is a write to the loop's self-pipe, and a thread that writes
gives up the GIL and waits to get it back: at 50 tables that wait was a quarter
of the database thread's time and the moves' tail (docs/bench.md "The tail at 50
tables, second look").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from collections.abc import Iterator
from typing import Any

from asgiref.sync import SyncToAsync
from channels.layers import get_channel_layer

from games import metrics

log = logging.getLogger(__name__)


_local = threading.local()  # .batch: the sends of the running database call


@contextlib.contextmanager
def collecting() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Within this block, in this thread, :func:`send_all` appends to the list
    yielded (of ``(group, message)``) instead of waking the serving loop; the
    caller hands it to :func:`deliver` on the loop. Not reentrant."""
    batch: list[tuple[str, dict[str, Any]]] = []
    _local.batch = batch
    try:
        yield batch
    finally:
        _local.batch = None


def deliver(batch: list[tuple[str, dict[str, Any]]]) -> None:
    """On the serving loop: send a batch :func:`collecting` gathered, in order
    after every earlier send of this loop."""
    if batch:
        layer = get_channel_layer()
        if layer is not None:
            _enqueue(layer, batch)


def send(group: str, message: dict[str, Any]) -> None:
    """Send one group message (see :func:`send_all`)."""
    send_all([(group, message)])


async def _send_batch(layer: Any, messages: list[tuple[str, dict[str, Any]]]) -> None:
    many = getattr(layer, "group_send_many", None)
    if many is not None:  # Redis: the batch in two round trips (yuanzi_site.layers)
        await many(messages)
        return
    await asyncio.gather(*(layer.group_send(group, message) for group, message in messages))


#: a queued batch: the channel layer (channels ships no types) and its messages
_Batch = tuple[Any, list[tuple[str, dict[str, Any]]]]

_queues: dict[asyncio.AbstractEventLoop, asyncio.Queue[_Batch]] = {}
_drains: set[asyncio.Task[None]] = set()  # the loop keeps only weak references to its tasks


def _enqueue(layer: Any, messages: list[tuple[str, dict[str, Any]]]) -> None:
    """On the serving loop: queue a batch; one drain task per loop sends in order."""
    loop = asyncio.get_running_loop()
    queue = _queues.get(loop)
    if queue is None:
        queue = _queues[loop] = asyncio.Queue()
        task = loop.create_task(_drain(queue))
        _drains.add(task)
        task.add_done_callback(_drains.discard)
    queue.put_nowait((layer, messages))


async def _drain(queue: asyncio.Queue[_Batch]) -> None:
    while True:
        layer, messages = await queue.get()
        try:
            await _send_batch(layer, messages)
        except Exception:  # one failed send must not stop every later one
            metrics.SEND_FAILURES.inc()
            log.exception("a channel-layer send failed")


def _serving_loop() -> asyncio.AbstractEventLoop | None:
    """Daphne's event loop when called from Channels' sync thread, else ``None``."""

    local = SyncToAsync.threadlocal
    loop = getattr(local, "main_event_loop", None)
    if loop is None or getattr(local, "main_event_loop_pid", None) != os.getpid():
        return None
    return loop if loop.is_running() and not loop.is_closed() else None


_background: tuple[int, asyncio.AbstractEventLoop] | None = None
_background_lock = threading.Lock()


def _background_loop() -> asyncio.AbstractEventLoop:
    """One event loop thread per process (made after a fork, if any) for sends
    from code that runs outside Daphne."""
    global _background
    with _background_lock:
        if _background is None or _background[0] != os.getpid():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="broadcast-loop",
                             daemon=True).start()
            _background = (os.getpid(), loop)
        return _background[1]


def send_all(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send group messages, in order with every earlier call from this process."""
    batch = getattr(_local, "batch", None)
    if batch is not None:
        batch.extend(messages)
        return
    layer = get_channel_layer()
    if layer is None:
        return
    loop = _serving_loop()
    if loop is not None:
        loop.call_soon_threadsafe(_enqueue, layer, messages)
    else:
        asyncio.run_coroutine_threadsafe(_send_batch(layer, messages),
                                         _background_loop()).result(timeout=30)
