"""Tell connected clients what changed, through the channel layer (DESIGN.md).

Subscribes to the write side's after-commit events (``games.events``; see
:func:`subscribe`), so nothing is announced that was not committed and no
write module imports this transport. Group names come from here only.
A game change goes out as one ``game.update`` per player, to that user's own
group at the table (only that user's connections are in it), and one
``game.spectate`` with the seat-less view to the table's watchers' group
(connections of users not seated there; players' consumers leave it): no
message in the channel layer carries a hand to any connection but its owner's.

This module maps events to messages and names the groups; the sending itself
(no thread per send, order kept) is :mod:`games.adapters.sends`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from django.conf import settings

from games import events, snapshots
from games.adapters import lastview, sends
from games.adapters.dbcalls import db
from games.seatview import build_view, shared

if TYPE_CHECKING:
    from games.snapshots import TableSnapshot

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"
SITE_GROUP = "site"  # every open socket: tables, the lobby, /ws/me/ (the site notice)


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

    # one database call per table: after a connect storm fifty snapshots in
    # one call held the database thread (and every move waiting on it) ~100 ms
    for table_id in sorted(_soon.pop(loop, set())):
        try:
            await db(table_changed)(table_id)
        except Exception:
            log.exception("table snapshot broadcast failed")


def table_changed(table_id: int) -> TableSnapshot | None:
    """Send the table's new snapshot to its clients and its lobby row to the lobby.

    :returns: the snapshot sent, or ``None`` if the table is gone or closed.
    """

    snap = snapshots.table_snapshot(table_id)
    if snap is not None:
        sends.send(table_group(table_id), {"type": "table.update", "table": snap})
        if not snap.get("private"):  # 好友房 never reach the lobby
            sends.send(LOBBY_GROUP, {"type": "lobby.table", "table": snapshots.lobby_row(snap)})
    return snap


def table_closed(table_id: int, notice: dict[str, Any] | None = None) -> None:
    """Take a closed table off the lobby, and tell its clients (each is sent
    ``notice`` if given, then ``table_closed``, then its connection closes)."""
    lastview.forget(table_id)
    sends.send_all([(LOBBY_GROUP, {"type": "lobby.closed", "id": table_id}),
               (table_group(table_id), {"type": "table.gone", "id": table_id,
                                        "notice": notice})])


def close_sockets(user_id: int, notice: dict[str, Any] | None = None) -> None:
    """Close every connection of one user (``events.CloseSockets``)."""
    sends.send(person_group(user_id), {"type": "user.close", "notice": notice})


def game_changed(event: events.GameChanged) -> None:
    """Send a game's new views: each player's seat view to that user's group,
    the seat-less view to the table's watchers, each with the table's new
    views' version (``v``: :func:`lastview.stamp`, ``None`` with one process)."""

    game_id, table_id, state, players, due_at = (
        event.game_id, event.table_id, event.state, event.players, event.due_at)
    common = shared(state, due_at)  # once for the five views
    views = {
        p["user_id"]: build_view(game_id, state, players, due_at, i, common)
        for i, p in enumerate(players) if not p["bot"] and p["user_id"] is not None
    }
    spectator = build_view(game_id, state, players, due_at, None, common)
    version = lastview.stamp(table_id)  # the Redis stack: a sync may be answered from it
    messages = [
        (user_group(table_id, user_id), {"type": "game.update", "view": view, "v": version})
        for user_id, view in views.items()
    ]
    messages.append((watch_group(table_id),
                     {"type": "game.spectate", "view": spectator, "v": version}))
    sends.send_all(messages)
    lastview.keep(table_id, lastview.Kept(game_id, views, spectator, due_at))


def chat(table_id: int, line: dict[str, Any]) -> None:
    """Send one new chat line to the table."""
    sends.send(table_group(table_id), {"type": "chat.message", "line": line})


def notice(user_id: int, notice: dict[str, Any]) -> None:
    """Send one ``notice`` frame to every connection of one user."""
    sends.send(person_group(user_id), {"type": "user.notice", "notice": notice})


def user_frame(user_id: int, frame: dict[str, Any]) -> None:
    """Send one frame to every connection of one user, on every page
    (``events.send_user``; consumers relay ``user.frame`` as it is)."""
    sends.send(person_group(user_id), {"type": "user.frame", "frame": frame})


def chat_hidden(user_id: int) -> None:
    """Tell every connection of one user that whose lines they are not sent
    changed (``events.ChatHiddenChanged``): table sockets ask again."""
    sends.send(person_group(user_id), {"type": "user.hidden"})


def site_notice(notice: dict[str, Any] | None) -> None:
    """Send the site-wide notice shown now (or ``None``: none) to every open socket."""
    sends.send(SITE_GROUP, {"type": "site.notice", "notice": notice})


def subscribe() -> None:
    """Subscribe this transport to the write side's events (``GamesConfig.ready``)."""
    events.subscribe(events.TableChanged, lambda e: table_changed(e.table_id))
    events.subscribe(events.TableClosed, lambda e: table_closed(e.table_id, e.notice))
    events.subscribe(events.GameChanged, game_changed)
    events.subscribe(events.ChatPosted, lambda e: chat(e.table_id, e.line))
    events.subscribe(events.Notice, lambda e: notice(e.user_id, e.notice))
    events.subscribe(events.UserFrame, lambda e: user_frame(e.user_id, e.frame))
    events.subscribe(events.CloseSockets, lambda e: close_sockets(e.user_id, e.notice))
    events.subscribe(events.SiteNoticeChanged, lambda e: site_notice(e.notice))
    events.subscribe(events.ChatHiddenChanged, lambda e: chat_hidden(e.user_id))
