"""Tell connected clients what changed, through the channel layer (DESIGN.md).

Subscribes to the write side's after-commit events (``games.lifecycle``; see
:func:`subscribe`), so nothing is announced that was not committed and no
write module imports this transport. Group names come from here only.
A game change goes out as one ``game.update`` per player, to that user's own
group at the table (only that user's connections are in it), and one
``game.spectate`` with the seat-less view to the whole table (which players'
connections drop): no message in the channel layer carries a hand to any
connection but its owner's.
"""

from __future__ import annotations

import asyncio
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

LOBBY_GROUP = "lobby"


def table_group(table_id: int) -> str:
    """Channel-layer group of everyone connected to one table."""
    return f"table-{table_id}"


def user_group(table_id: int, user_id: int) -> str:
    """Group of one user's connections at one table (their own game views)."""
    return f"table-{table_id}-user-{user_id}"


def person_group(user_id: int) -> str:
    """Group of every connection of one user, on any table (their notices)."""
    return f"user-{user_id}"


def _send(group: str, message: dict[str, Any]) -> None:
    _send_all([(group, message)])


def _send_all(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send group messages to distinct groups at once, in one hop to the event
    loop (with Redis, each send is a network round trip)."""
    layer = get_channel_layer()
    if layer is None:
        return

    async def send() -> None:
        await asyncio.gather(*(layer.group_send(group, message) for group, message in messages))

    async_to_sync(send)()


def table_changed(table_id: int) -> dict[str, Any] | None:
    """Send the table's new snapshot to its clients and its lobby row to the lobby.

    :returns: the snapshot sent, or ``None`` if the table is gone or closed.
    """
    from games import snapshots

    snap = snapshots.table_snapshot(table_id)
    if snap is not None:
        _send(table_group(table_id), {"type": "table.update", "table": snap})
        _send(LOBBY_GROUP, {"type": "lobby.table", "table": snapshots.lobby_row(snap)})
    return snap


def table_closed(table_id: int, notice: dict[str, Any] | None = None) -> None:
    """Take a closed table off the lobby, and tell its clients (each is sent
    ``notice`` if given, then ``table_closed``, then its connection closes)."""
    _send_all([(LOBBY_GROUP, {"type": "lobby.closed", "id": table_id}),
               (table_group(table_id), {"type": "table.gone", "id": table_id,
                                        "notice": notice})])


def close_sockets(user_id: int, notice: dict[str, Any] | None = None) -> None:
    """Close every connection of one user (``lifecycle.close_sockets``)."""
    _send(person_group(user_id), {"type": "user.close", "notice": notice})


def game_changed(game_id: int, table_id: int, state: dict[str, Any],
                 players: list[dict[str, Any]], due_at) -> None:
    """Send a game's new views: each player's seat view to that user's group,
    the seat-less view to the table (``lifecycle`` event ``game_changed``)."""
    from games.seatview import build_view

    views = {
        p["user_id"]: build_view(game_id, state, players, due_at, i)
        for i, p in enumerate(players) if not p["bot"]
    }
    spectator = build_view(game_id, state, players, due_at, None)
    messages = [
        (user_group(table_id, user_id), {"type": "game.update", "view": view})
        for user_id, view in views.items()
    ]
    messages.append((table_group(table_id), {"type": "game.spectate", "view": spectator}))
    _send_all(messages)


def chat(table_id: int, line: dict[str, Any]) -> None:
    """Send one new chat line to the table."""
    _send(table_group(table_id), {"type": "chat.message", "line": line})


def notice(user_id: int, notice: dict[str, Any]) -> None:
    """Send one ``notice`` frame to every connection of one user."""
    _send(person_group(user_id), {"type": "user.notice", "notice": notice})


def subscribe() -> None:
    """Subscribe this transport to the write side's events (``GamesConfig.ready``)."""
    from games import lifecycle

    lifecycle.subscribe("table_changed", table_changed)
    lifecycle.subscribe("table_closed", table_closed)
    lifecycle.subscribe("game_changed", game_changed)
    lifecycle.subscribe("chat", chat)
    lifecycle.subscribe("notice", notice)
    lifecycle.subscribe("close_sockets", close_sockets)
