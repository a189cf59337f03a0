"""Tell connected clients what changed, through the channel layer (DESIGN.md).

Subscribes to the write side's after-commit events (``games.events``; see
:func:`subscribe`), so nothing is announced that was not committed and no
write module imports this transport. Group names come from here only.
A game change goes out as one ``game.update`` per player, to that user's own
group at the table (only that user's connections are in it), and one
``game.spectate`` with the seat-less view to the table's watchers' group
(connections of users not seated there; players' consumers leave it): no
message in the channel layer carries a hand to any connection but its owner's.

Sending costs no thread (a thread hop per send showed in profiles under load):
inside Daphne the sends are handed to the serving event loop, where one queue
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

from channels.layers import get_channel_layer
from django.conf import settings

from games import events, metrics

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"


def table_group(table_id: int) -> str:
    """Channel-layer group of everyone connected to one table."""
    return f"table-{table_id}"


def user_group(table_id: int, user_id: int) -> str:
    """Group of one user's connections at one table (their own game views)."""
    return f"table-{table_id}-user-{user_id}"


def person_group(user_id: int) -> str:
    """Group of every connection of one user — table, lobby and ``/ws/me/``
    sockets alike: the per-user channel (notices, ``me`` frames;
    ``events.send_user``)."""
    return f"user-{user_id}"


def watch_group(table_id: int) -> str:
    """Group of the table's connections that get the seat-less game view (everyone
    but the users seated there)."""
    return f"table-{table_id}-watch"


def _send(group: str, message: dict[str, Any]) -> None:
    _send_all([(group, message)])


async def _send_batch(layer, messages: list[tuple[str, dict[str, Any]]]) -> None:
    # distinct groups at once: with Redis each send is a network round trip
    await asyncio.gather(*(layer.group_send(group, message) for group, message in messages))


_queues: dict[asyncio.AbstractEventLoop, asyncio.Queue] = {}


def _enqueue(layer, messages) -> None:
    """On the serving loop: queue a batch; one drain task per loop sends in order."""
    loop = asyncio.get_running_loop()
    queue = _queues.get(loop)
    if queue is None:
        queue = _queues[loop] = asyncio.Queue()
        loop.create_task(_drain(queue))
    queue.put_nowait((layer, messages))


async def _drain(queue: asyncio.Queue) -> None:
    while True:
        layer, messages = await queue.get()
        try:
            await _send_batch(layer, messages)
        except Exception:  # one failed send must not stop every later one
            metrics.SEND_FAILURES.inc()
            log.exception("broadcast failed")


def _serving_loop() -> asyncio.AbstractEventLoop | None:
    """Daphne's event loop when called from Channels' sync thread, else ``None``."""
    from asgiref.sync import SyncToAsync

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


def _send_all(messages: list[tuple[str, dict[str, Any]]]) -> None:
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


_soon: dict[asyncio.AbstractEventLoop, set[int]] = {}


def table_changed_soon(table_id: int) -> None:
    """From async code on the serving loop: send the table's snapshot and lobby
    row once ``GAMES_SNAPSHOT_DEBOUNCE_SECONDS`` from now, however many
    connects and disconnects come meanwhile (a reconnect storm makes one
    snapshot per table, not one per connection)."""
    loop = asyncio.get_running_loop()
    pending = _soon.get(loop)
    if pending is None:
        pending = _soon[loop] = set()
    if not pending:
        loop.call_later(settings.GAMES_SNAPSHOT_DEBOUNCE_SECONDS,
                        lambda: loop.create_task(_flush(loop)))
    pending.add(table_id)


async def _flush(loop: asyncio.AbstractEventLoop) -> None:
    from games.dbcalls import db

    tables = sorted(_soon.pop(loop, set()))

    def send() -> None:
        for table_id in tables:
            table_changed(table_id)

    try:
        await db(send)()
    except Exception:
        log.exception("table snapshot broadcast failed")


def table_changed(table_id: int) -> dict[str, Any] | None:
    """Send the table's new snapshot to its clients and its lobby row to the lobby.

    :returns: the snapshot sent, or ``None`` if the table is gone or closed.
    """
    from games import snapshots

    snap = snapshots.table_snapshot(table_id)
    if snap is not None:
        _send(table_group(table_id), {"type": "table.update", "table": snap})
        if not snap.get("private"):  # 好友房 never reach the lobby
            _send(LOBBY_GROUP, {"type": "lobby.table", "table": snapshots.lobby_row(snap)})
    return snap


def table_closed(table_id: int, notice: dict[str, Any] | None = None) -> None:
    """Take a closed table off the lobby, and tell its clients (each is sent
    ``notice`` if given, then ``table_closed``, then its connection closes)."""
    _send_all([(LOBBY_GROUP, {"type": "lobby.closed", "id": table_id}),
               (table_group(table_id), {"type": "table.gone", "id": table_id,
                                        "notice": notice})])


def close_sockets(user_id: int, notice: dict[str, Any] | None = None) -> None:
    """Close every connection of one user (``events.CloseSockets``)."""
    _send(person_group(user_id), {"type": "user.close", "notice": notice})


def game_changed(event: events.GameChanged) -> None:
    """Send a game's new views: each player's seat view to that user's group,
    the seat-less view to the table's watchers."""
    from games.seatview import build_view

    game_id, table_id, state, players, due_at = (
        event.game_id, event.table_id, event.state, event.players, event.due_at)
    views = {
        p["user_id"]: build_view(game_id, state, players, due_at, i)
        for i, p in enumerate(players) if not p["bot"]
    }
    spectator = build_view(game_id, state, players, due_at, None)
    messages = [
        (user_group(table_id, user_id), {"type": "game.update", "view": view})
        for user_id, view in views.items()
    ]
    messages.append((watch_group(table_id), {"type": "game.spectate", "view": spectator}))
    _send_all(messages)


def chat(table_id: int, line: dict[str, Any]) -> None:
    """Send one new chat line to the table."""
    _send(table_group(table_id), {"type": "chat.message", "line": line})


def notice(user_id: int, notice: dict[str, Any]) -> None:
    """Send one ``notice`` frame to every connection of one user."""
    _send(person_group(user_id), {"type": "user.notice", "notice": notice})


def user_frame(user_id: int, frame: dict[str, Any]) -> None:
    """Send one frame to every connection of one user, on every page
    (``events.send_user``; consumers relay ``user.frame`` as it is)."""
    _send(person_group(user_id), {"type": "user.frame", "frame": frame})


def subscribe() -> None:
    """Subscribe this transport to the write side's events (``GamesConfig.ready``)."""
    events.subscribe(events.TableChanged, lambda e: table_changed(e.table_id))
    events.subscribe(events.TableClosed, lambda e: table_closed(e.table_id, e.notice))
    events.subscribe(events.GameChanged, game_changed)
    events.subscribe(events.ChatPosted, lambda e: chat(e.table_id, e.line))
    events.subscribe(events.Notice, lambda e: notice(e.user_id, e.notice))
    events.subscribe(events.UserFrame, lambda e: user_frame(e.user_id, e.frame))
    events.subscribe(events.CloseSockets, lambda e: close_sockets(e.user_id, e.notice))
