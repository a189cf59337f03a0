"""Tell connected clients what changed, through the channel layer (DESIGN.md).

Called only from ``transaction.on_commit`` callbacks in ``games.services``, so
nothing is announced that was not committed. Group names come from here only.
A ``game.update`` message carries every seat's view keyed by user id plus the
spectator view; each consumer forwards to its client only the one view meant
for its user (``games.consumers``), so no client ever receives another's cards.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

LOBBY_GROUP = "lobby"


def table_group(table_id: int) -> str:
    """Channel-layer group of everyone connected to one table."""
    return f"table-{table_id}"


def _send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, message)


def table_changed(table_id: int) -> None:
    """Send the table's new snapshot to its clients and its lobby row to the lobby."""
    from games import snapshots

    snap = snapshots.table_snapshot(table_id)
    if snap is None:
        return
    _send(table_group(table_id), {"type": "table.update", "table": snap})
    _send(LOBBY_GROUP, {"type": "lobby.table", "table": snapshots.lobby_row(snap)})


def table_closed(table_id: int) -> None:
    """Take a closed table off the lobby."""
    _send(LOBBY_GROUP, {"type": "lobby.closed", "id": table_id})


def game_changed(table_id: int, views: dict[str, Any], spectator: dict[str, Any]) -> None:
    """Send a game's new views: ``views`` maps str(user id) → that seat's view."""
    _send(table_group(table_id), {"type": "game.update", "views": views, "spectator": spectator})


def chat(table_id: int, line: dict[str, Any]) -> None:
    """Send one new chat line to the table."""
    _send(table_group(table_id), {"type": "chat.message", "line": line})
