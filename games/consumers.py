"""Websocket consumers: thin — authenticate, parse, call the write modules, relay views.

The protocol (every message, both directions) is in ``docs/protocol.md``.
``TableConsumer`` serves one table (players and spectators); ``LobbyConsumer``
streams the lobby's table list. No rules and no game state live here.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games import broadcast, lifecycle, presence, queries, ratelimit, snapshots
from games.errors import Refused
from games.models import Table
from games.seatview import current_view


def _connect(channel_name: str, table_id: int, user,
             address: str | None = None) -> dict[str, Any] | None:
    if not Table.objects.filter(pk=table_id, closed=False).exists():
        return None
    presence.touch_presence(channel_name, table_id, user)
    lifecycle.connected(table_id, user, address)
    # online flags and spectator count changed: tell the table, and greet with the same picture
    table = broadcast.table_changed(table_id)
    if table is None:
        return None
    return {
        "table": table,
        "view": current_view(table_id, user),
        "chat": queries.chat_history(table_id),
    }


def _disconnect(channel_name: str, table_id: int) -> None:
    presence.drop_presence(channel_name)
    broadcast.table_changed(table_id)


_RATES = {"act": ("act", "GAMES_ACTION_RATE", gettext_noop("Slow down: too many actions.")),
          "chat": ("chat", "GAMES_CHAT_RATE", gettext_noop("Slow down: too many messages."))}


def _handle(channel_name: str, table_id: int, user, msg: dict[str, Any]) -> dict | None:
    """Carry out one client message; returns a direct reply or ``None``.

    ``ping`` and ``sync`` are answered here; every other type goes to its
    handler in ``lifecycle.SOCKET_MESSAGES`` (``games.handlers`` and other apps).

    :raises Refused: for anything refused (sent back as ``error``).
    """
    kind = msg.get("type")
    if kind == "ping":
        presence.touch_presence(channel_name, table_id, user)
        return {"type": "pong"}
    if kind == "sync":
        return {"type": "game", "view": current_view(table_id, user)}
    entry = lifecycle.SOCKET_MESSAGES.get(kind)
    if entry is None:
        raise Refused("bad_message", _("Unknown message type."))
    handler, rate, login = entry
    if login and not user.is_authenticated:
        raise Refused("login_required", _("Log in to play."))
    if rate is not None:
        bucket, setting, text = _RATES[rate]
        if not ratelimit.allow(f"{bucket}:{user.pk}", *getattr(settings, setting)):
            raise Refused("rate_limited", _(text))
    return handler(lifecycle.SocketContext(user, table_id, channel_name), msg)


class _JsonSocket(AsyncJsonWebsocketConsumer):
    """JSON frames in and out; a frame that is not JSON text reaches ``receive_json``
    as ``None`` (a malformed message, answered with an error) instead of raising."""

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None,
                      **kwargs: Any) -> None:
        # the base class raises ValueError on a binary or empty frame, which
        # would kill the consumer and drop the connection
        content = await self.decode_json(text_data) if text_data else None
        await self.receive_json(content, **kwargs)

    async def decode_json(self, text_data: str) -> Any:
        try:
            return await super().decode_json(text_data)
        except ValueError:
            return None


class TableConsumer(_JsonSocket):
    """``/ws/table/<id>/``: one table's seats, game views and chat."""

    async def connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.user = self.scope["user"]
        self.groups_joined = [broadcast.table_group(self.table_id)]
        if self.user.is_authenticated:
            self.groups_joined.append(broadcast.user_group(self.table_id, self.user.pk))
            self.groups_joined.append(broadcast.person_group(self.user.pk))
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        address = (self.scope.get("client") or [None])[0]
        hello = await database_sync_to_async(_connect)(self.channel_name, self.table_id, self.user,
                                                        address)
        # accept first, even for a closed table: a close before accept is an
        # HTTP 403 handshake refusal, and the browser would never see 4404
        await self.accept()
        if hello is None:
            await self._leave_groups()
            await self.close(code=4404)
            return
        await self.send_json({"type": "table", "table": hello["table"]})
        await self.send_json({"type": "chat_history", "lines": hello["chat"]})
        if hello["view"] is not None:
            await self.send_json({"type": "game", "view": hello["view"]})

    async def _leave_groups(self) -> None:
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.groups_joined = []

    async def disconnect(self, code: int) -> None:
        if getattr(self, "groups_joined", None):
            await self._leave_groups()
            await database_sync_to_async(_disconnect)(self.channel_name, self.table_id)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if not isinstance(content, dict) or not isinstance(content.get("type"), str):
            await self.send_json(
                {"type": "error", "reason": "bad_message", "message": _("Malformed message.")}
            )
            return
        try:
            reply = await database_sync_to_async(_handle)(
                self.channel_name, self.table_id, self.user, content
            )
        except Refused as e:
            reply = {"type": "error", "reason": e.reason, "message": str(e),
                     "ref": content.get("ref")}
        if reply is not None:
            await self.send_json(reply)

    # --- channel-layer events ---

    async def table_update(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "table", "table": event["table"]})

    async def game_update(self, event: dict[str, Any]) -> None:
        # this user's own seat view (only their connections are in that group)
        await self.send_json({"type": "game", "view": event["view"]})

    async def game_spectate(self, event: dict[str, Any]) -> None:
        # the seat-less view, for everyone at the table who does not play this game
        view = event["view"]
        if self.user.is_authenticated and any(
            p["user_id"] == self.user.pk for p in view["players"]
        ):
            return  # a player: their own view comes through game_update
        await self.send_json({"type": "game", "view": view})

    async def chat_message(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "chat", "line": event["line"]})

    async def user_notice(self, event: dict[str, Any]) -> None:
        # something this person must be told (lifecycle.notify), on any table
        await self.send_json(event["notice"])

    async def user_close(self, event: dict[str, Any]) -> None:
        # lifecycle.close_sockets: e.g. a suspended account is logged out everywhere
        if event.get("notice"):
            await self.send_json(event["notice"])
        await self.close(code=4403)

    async def table_gone(self, event: dict[str, Any]) -> None:
        # the table closed (a moderator, or idle): say so, then close like a closed table
        if event.get("notice"):
            await self.send_json(event["notice"])
        await self.send_json({"type": "table_closed", "id": event["id"]})
        await self.close(code=4404)


class LobbyConsumer(_JsonSocket):
    """``/ws/lobby/``: every open table, then each change as it happens."""

    async def connect(self) -> None:
        await self.channel_layer.group_add(broadcast.LOBBY_GROUP, self.channel_name)
        await self.accept()
        rows = await database_sync_to_async(snapshots.lobby_rows)()
        await self.send_json({"type": "tables", "tables": rows})

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(broadcast.LOBBY_GROUP, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        await self.send_json({"type": "pong"})

    async def lobby_table(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "table", "table": event["table"]})

    async def lobby_closed(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "table_closed", "id": event["id"]})
