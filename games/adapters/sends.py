"""Sending on the channel layer from any thread, without a thread hop per send
(a hop per send showed in profiles under load): the event-loop plumbing under
:mod:`games.adapters.broadcast`.

Inside Daphne the sends are handed to the serving event loop, where one queue
per loop keeps them in order, and the caller (Channels' single database thread)
does not wait for them; elsewhere (a Celery worker, a shell) they run on one
long-lived background loop, so the Redis layer keeps its connection pool instead
of opening one per message (``async_to_sync`` there made a thread, a loop and a
pool per call).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Any

from asgiref.sync import SyncToAsync
from channels.layers import get_channel_layer

from games import metrics

log = logging.getLogger(__name__)


def send(group: str, message: dict[str, Any]) -> None:
    """Send one group message (see :func:`send_all`)."""
    send_all([(group, message)])


async def _send_batch(layer: Any, messages: list[tuple[str, dict[str, Any]]]) -> None:
    # distinct groups at once: with Redis each send is a network round trip
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
    layer = get_channel_layer()
    if layer is None:
        return
    loop = _serving_loop()
    if loop is not None:
        loop.call_soon_threadsafe(_enqueue, layer, messages)
    else:
        asyncio.run_coroutine_threadsafe(_send_batch(layer, messages),
                                         _background_loop()).result(timeout=30)
